//! The default name of a pool made at run time or for a generic derived
//! struct: its item type as `std::any::type_name` gives it, with every path
//! in it cut to its last segment (`Frame<String>`, not
//! `app::Frame<alloc::string::String>`), the name a non-generic derived
//! struct's pool has too (`Job`). The crate docs state the rule for every
//! kind of pool.
//!
//! Invariant: each type's short name is made and leaked once, however many
//! pools of it are built, so a process that builds pools in a loop does not
//! grow.

use crate::sync::{Mutex, global, lock};

/// Every short name made so far, by the full name it was made from.
type Names = Mutex<Vec<(&'static str, &'static str)>>;

global! {
    static NAMES: Names = Names::new(Vec::new());
}

/// The default name of a pool of `T`s.
pub(crate) fn type_label<T: ?Sized>() -> &'static str {
    let full = std::any::type_name::<T>();
    let mut names = lock(&NAMES);
    if let Some(&(_, short)) = names.iter().find(|(known, _)| *known == full) {
        return short;
    }
    let short: &'static str = Box::leak(shorten(full).into_boxed_str());
    names.push((full, short));
    short
}

/// `full` with every path cut to its last segment: `a::b::C<d::E, [f::G; 2]>`
/// becomes `C<E, [G; 2]>`.
fn shorten(full: &str) -> String {
    let mut short = String::with_capacity(full.len());
    let mut path = String::new();
    let flush = |path: &mut String, short: &mut String| {
        let last = path.rsplit("::").next().unwrap_or_default();
        short.push_str(last);
        path.clear();
    };
    for c in full.chars() {
        if c.is_alphanumeric() || c == '_' || c == ':' {
            path.push(c);
        } else {
            flush(&mut path, &mut short);
            short.push(c);
        }
    }
    flush(&mut path, &mut short);
    short
}

#[cfg(test)]
mod tests {
    use super::shorten;

    #[test]
    fn every_path_is_cut_to_its_last_segment() {
        let cases = [
            ("app::Job", "Job"),
            ("d_derive::Frame<alloc::string::String>", "Frame<String>"),
            ("alloc::vec::Vec<u8>", "Vec<u8>"),
            (
                "core::option::Option<alloc::boxed::Box<[u8]>>",
                "Option<Box<[u8]>>",
            ),
            ("(u8, app::m::Pair<app::X, 4>)", "(u8, Pair<X, 4>)"),
            ("[app::X; 2]", "[X; 2]"),
            ("String", "String"),
        ];
        for (full, short) in cases {
            assert_eq!(shorten(full), short, "{full}");
        }
    }
}

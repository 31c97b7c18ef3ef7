//! The error for a key that is not one of its position's (struct or
//! field): it names the key, says where it belongs if it is the other
//! position's, suggests the nearest spelling, and lists the valid keys.
//!
//! Invariant: a suggestion is always one of the position's own keys; a key
//! of the other position is named as misplaced, never suggested.

use quote::ToTokens;
use syn::meta::ParseNestedMeta;

use super::{FIELD_KEYS, STRUCT_KEYS, Symbol};

/// Whether a key sits on the struct or on a field.
#[derive(Copy, Clone)]
pub(super) enum Position {
    Struct,
    Field,
}

impl Position {
    const fn keys(self) -> &'static [Symbol] {
        match self {
            Position::Struct => STRUCT_KEYS,
            Position::Field => FIELD_KEYS,
        }
    }

    const fn name(self) -> &'static str {
        match self {
            Position::Struct => "struct",
            Position::Field => "field",
        }
    }

    const fn other(self) -> Self {
        match self {
            Position::Struct => Position::Field,
            Position::Field => Position::Struct,
        }
    }
}

/// The error for a key that is not one of `position`'s: names the key, says
/// where it belongs if it is the other position's, suggests the nearest
/// spelling, and lists the valid keys.
pub(super) fn unknown_key(meta: &ParseNestedMeta<'_>, position: Position) -> syn::Error {
    let path = &meta.path;
    let key = path.to_token_stream().to_string().replace(' ', "");
    let keys = list(position.keys());
    let here = position.name();
    let other = position.other();
    let message = if other.keys().iter().any(|symbol| *path == *symbol) {
        let there = other.name();
        format!("`{key}` is a {there} key and cannot go on a {here}; the {here} keys are {keys}")
    } else if let Some(symbol) = did_you_mean(&key, position.keys()) {
        format!(
            "unknown {here} key `{key}` in `#[pool(...)]`: did you mean `{symbol}`? The {here} keys are {keys}"
        )
    } else {
        format!("unknown {here} key `{key}` in `#[pool(...)]`; the {here} keys are {keys}")
    };
    syn::Error::new_spanned(path, message)
}

/// `` `a`, `b` and `c` ``.
fn list(symbols: &[Symbol]) -> String {
    let quoted: Vec<String> = symbols.iter().map(|s| format!("`{s}`")).collect();
    match quoted.split_last() {
        Some((last, [])) => last.clone(),
        Some((last, rest)) => format!("{} and {last}", rest.join(", ")),
        None => String::new(),
    }
}

/// The valid key that `key` is most likely a misspelling of, if any: the
/// same up to case, `-` and `_`; a prefix of it; or within a few edits.
fn did_you_mean(key: &str, candidates: &[Symbol]) -> Option<Symbol> {
    let normal = |s: &str| s.to_ascii_lowercase().replace(['_', '-'], "");
    candidates
        .iter()
        .filter_map(|&symbol| {
            let candidate = symbol.as_str();
            let distance = if normal(key) == normal(candidate)
                || (key.len() >= 3 && candidate.starts_with(key))
            {
                0
            } else {
                edit_distance(key, candidate)
            };
            (distance <= (candidate.len() / 3).max(1)).then_some((distance, symbol))
        })
        .min_by_key(|&(distance, _)| distance)
        .map(|(_, symbol)| symbol)
}

/// Levenshtein distance, in characters.
fn edit_distance(a: &str, b: &str) -> usize {
    let b: Vec<char> = b.chars().collect();
    let mut row: Vec<usize> = (0..=b.len()).collect();
    for (i, ca) in a.chars().enumerate() {
        let mut diagonal = row[0];
        row[0] = i + 1;
        for (j, &cb) in b.iter().enumerate() {
            let substitute = diagonal + usize::from(ca != cb);
            diagonal = row[j + 1];
            row[j + 1] = substitute.min(row[j] + 1).min(diagonal + 1);
        }
    }
    row[b.len()]
}

#[cfg(test)]
mod tests {
    use super::{did_you_mean, edit_distance, list};
    use crate::attr::{CAPACITY, FIELD_KEYS, MAX_CAPACITY, STRUCT_KEYS, THREAD_CAPACITY};

    #[test]
    fn edit_distance_counts_insertions_deletions_and_substitutions() {
        assert_eq!(edit_distance("capacity", "capacity"), 0);
        assert_eq!(edit_distance("capcity", "capacity"), 1);
        assert_eq!(edit_distance("capasity", "capacity"), 1);
        assert_eq!(edit_distance("", "new"), 3);
        assert_eq!(edit_distance("kitten", "sitting"), 3);
    }

    #[test]
    fn misspelled_keys_get_a_suggestion_and_strangers_do_not() {
        assert_eq!(did_you_mean("capcity", STRUCT_KEYS), Some(CAPACITY));
        assert_eq!(
            did_you_mean("threadCapacity", STRUCT_KEYS),
            Some(THREAD_CAPACITY)
        );
        assert_eq!(
            did_you_mean("thread-capacity", STRUCT_KEYS),
            Some(THREAD_CAPACITY)
        );
        assert_eq!(did_you_mean("max_cap", FIELD_KEYS), Some(MAX_CAPACITY));
        assert_eq!(did_you_mean("frobnicate", STRUCT_KEYS), None);
        assert_eq!(did_you_mean("x", FIELD_KEYS), None);
    }

    #[test]
    fn keys_are_listed_in_prose() {
        assert_eq!(
            list(STRUCT_KEYS),
            "`new`, `capacity`, `thread_capacity`, `retain`, `name`, `crate`, `reset_on`, `max_bytes`, `calibrate` and `max_idle_bytes`"
        );
    }
}

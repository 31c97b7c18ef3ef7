//! Collects every error found in one derive input, so the user sees all of
//! them in one compile rather than one per fix.

use std::cell::RefCell;
use std::fmt::Display;
use std::thread;

use quote::ToTokens;

/// Where the stages put the errors they find. It must be [`check`]ed before
/// it is dropped (a drop bomb, as in `serde_derive`), so that no stage can
/// lose an error by forgetting to report it.
///
/// [`check`]: Ctxt::check
pub(crate) struct Ctxt {
    /// `None` once checked.
    errors: RefCell<Option<Vec<syn::Error>>>,
}

impl Ctxt {
    pub(crate) fn new() -> Self {
        Ctxt {
            errors: RefCell::new(Some(Vec::new())),
        }
    }

    /// Records an error spanning `tokens`.
    pub(crate) fn error_spanned_by<T: ToTokens, M: Display>(&self, tokens: T, message: M) {
        self.syn_error(syn::Error::new_spanned(tokens.into_token_stream(), message));
    }

    /// Records an error, typically from parsing.
    pub(crate) fn syn_error(&self, error: syn::Error) {
        self.errors
            .borrow_mut()
            .as_mut()
            .expect("`Ctxt` used after `check`")
            .push(error);
    }

    /// All errors found, combined into one, if there were any.
    pub(crate) fn check(self) -> syn::Result<()> {
        let errors = self
            .errors
            .borrow_mut()
            .take()
            .expect("`Ctxt` checked twice");
        let mut errors = errors.into_iter();
        let Some(mut combined) = errors.next() else {
            return Ok(());
        };
        for error in errors {
            combined.combine(error);
        }
        Err(combined)
    }
}

impl Drop for Ctxt {
    fn drop(&mut self) {
        assert!(
            thread::panicking() || self.errors.borrow().is_none(),
            "`Ctxt` dropped without `check`: errors would have been lost"
        );
    }
}

//! A pool's bound in bytes on the objects it keeps, and how it learns it:
//! [`Calibration`], its shared half, and [`Tally`], each thread cache's
//! sample of what its releases held.
//!
//! Before it has learned anything a pool keeps no object holding more than
//! [`COLD_CAP`] bytes (as `Reset::heap_bytes` counts them). Then every
//! [`SAMPLE`]th release a thread cache keeps records its object's bytes in
//! the cache's own tally (in its slot, written by its owner only: no
//! shared write on the round trip; a release over the bound is recorded
//! every time, with weight 1, on its cold path). Once a tally holds
//! [`FOLD`] releases' weight, its owner folds it into the pool's
//! [`Calibration`] (a try-lock, so nothing ever waits for it), which, once
//! the folds since its last calibration hold [`CALIBRATE`] releases'
//! weight, sets the bound from their histogram:
//! [`usual`](Calibration::usual) is the smallest power of two at or above
//! the 95th percentile of the bytes released, and the
//! [`bound`](Calibration::bound) four times that, at least [`FLOOR`]. An
//! object over the bound is shrunk to the usual size (before the first
//! calibration, to nothing: an object shrunk to the cold cap would be
//! sampled at the cap's size and teach the pool that size), or dropped. A
//! pool whose every object is large learns so and keeps them; one whose
//! outliers are rare does not keep them. A calibration reads a few hundred
//! samples (1 in 16 of 4,096 releases), so a 1% outlier is far from the
//! 95th percentile.
//!
//! Invariant: the bound and the usual size change only under the
//! calibration's lock, together with the histogram that made them; a
//! reader sees some bound a calibration set (or the cold cap), never a
//! torn one; readers take it with one relaxed load. The lock is only ever
//! tried, never waited for, so no release waits on it, and a `fork` that
//! copies it held (the fork handler does not take it) leaves the child's
//! pool with the bound it had learned.

use crate::sync::{AtomicUsize, Mutex, Ordering, const_fn};

/// The bound, in bytes, on what an object may hold and stay in a pool
/// that has learned nothing yet (or learns nothing): 64 KiB, what Go's
/// `fmt` and Istio keep at most per buffer and Jetty per pooled buffer.
pub(crate) const COLD_CAP: usize = 64 << 10;

/// A learned bound is never below this: shrinking objects of a few
/// kilobytes gives back too little to be worth their next growth.
pub(crate) const FLOOR: usize = 4 << 10;

/// One release in `SAMPLE` that a thread cache keeps is tallied (with
/// weight `SAMPLE`): a test of the slot's release count, which the fast
/// path has in a register, instead of a histogram update on every release.
pub(crate) const SAMPLE: u64 = 16;

/// A thread's tally is folded into its pool's calibration once it holds
/// this many releases' weight, and the pool calibrates once the folds hold
/// as many: a service learns in its first thousand requests or so.
pub(crate) const FOLD: u32 = 1024;

/// The releases' weight a calibration reads: four folds.
pub(crate) const CALIBRATE: u32 = 4 * FOLD;

/// Power-of-two size classes: class `c` holds what is above `2^(c-1)`
/// bytes and at most `2^c` (class 0 holds 0 and 1). At most, not below:
/// an object shrunk to the usual size `2^c` must fall in class `c` again,
/// or each calibration would double the usual size.
const CLASSES: usize = 40;

/// The class of `bytes`.
#[inline]
fn class(bytes: usize) -> usize {
    ((usize::BITS - bytes.saturating_sub(1).leading_zeros()) as usize).min(CLASSES - 1)
}

/// A thread cache's sample of the bytes its releases held, by class: 84
/// bytes in each cache's slot. A weight never passes `u16::MAX`: a tally is
/// folded at [`FOLD`], the calibration's histogram emptied at [`CALIBRATE`]
/// (a fold past it adds at most one more tally).
#[derive(Clone, Debug)]
pub(crate) struct Tally {
    weights: [u16; CLASSES],
    total: u32,
}

impl Tally {
    pub(crate) const fn new() -> Self {
        Tally {
            weights: [0; CLASSES],
            total: 0,
        }
    }

    /// Whether nothing is tallied (since the last fold): for the loom model.
    #[cfg(all(test, loom))]
    pub(crate) fn is_empty(&self) -> bool {
        self.total == 0
    }

    /// Records a release of `bytes` standing for `weight` releases; `true`
    /// once the tally is due to be folded.
    #[inline]
    pub(crate) fn record(&mut self, bytes: usize, weight: u16) -> bool {
        let class = &mut self.weights[class(bytes)];
        *class = class.saturating_add(weight);
        self.total += u32::from(weight);
        self.total >= FOLD
    }
}

/// The shared half: the learned bound and the histogram it is learned
/// from.
pub(crate) struct Calibration {
    /// What an object may hold and be kept.
    bound: AtomicUsize,
    /// What an object over the bound is shrunk to.
    usual: AtomicUsize,
    /// The folds since the last calibration; on the heap from the first
    /// fold, so that a pool that never learns (and a run-time pool's
    /// allocation, which a thread's list of shares may keep after the
    /// pool's end) does not carry it.
    folded: Mutex<Option<Box<Tally>>>,
}

impl Calibration {
    const_fn! {
        pub(crate) fn new() -> Self {
            Calibration {
                bound: AtomicUsize::new(COLD_CAP),
                usual: AtomicUsize::new(0),
                folded: Mutex::new(None),
            }
        }
    }

    /// The bound on the bytes a kept object holds.
    #[inline]
    pub(crate) fn bound(&self) -> usize {
        self.bound.load(Ordering::Relaxed)
    }

    /// The bytes an object over the bound is shrunk to: none before the
    /// first calibration.
    #[inline]
    pub(crate) fn usual(&self) -> usize {
        self.usual.load(Ordering::Relaxed)
    }

    /// Records one release of `bytes` (one over the bound, on its cold
    /// path) in the histogram, unless another thread is folding.
    pub(crate) fn record(&self, bytes: usize) {
        let mut one = Tally::new();
        one.record(bytes, 1);
        self.fold(&mut one);
    }

    /// Adds `tally` to the histogram and empties it, unless another thread
    /// is folding (the tally then waits for the next try); calibrates once
    /// the histogram holds [`CALIBRATE`] releases' weight.
    pub(crate) fn fold(&self, tally: &mut Tally) {
        let Ok(mut folded) = self.folded.try_lock() else {
            return;
        };
        let folded = folded.get_or_insert_with(|| Box::new(Tally::new()));
        for (sum, weight) in folded.weights.iter_mut().zip(&tally.weights) {
            *sum = sum.saturating_add(*weight);
        }
        folded.total += tally.total;
        *tally = Tally::new();
        if folded.total < CALIBRATE {
            return;
        }
        // The 95th percentile's class: its upper end is the usual size.
        let target = folded.total - folded.total / 20;
        let mut seen = 0;
        let class = folded
            .weights
            .iter()
            .position(|weight| {
                seen += u32::from(*weight);
                seen >= target
            })
            .unwrap_or(CLASSES - 1);
        let usual = 1usize << class;
        self.usual.store(usual, Ordering::Relaxed);
        self.bound
            .store(usual.saturating_mul(4).max(FLOOR), Ordering::Relaxed);
        **folded = Tally::new();
    }
}

#[cfg(all(test, not(loom)))]
mod tests;

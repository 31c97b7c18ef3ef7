//! A model of a pool's shared accounting of bytes (`crate::engine::bytes`):
//! two threads fold their caches' tallies into the calibration at once
//! while a third reads the bound, as every release does.
//!
//! A fold that finds the calibration's lock taken leaves its tally whole,
//! for its owner's next fold: no release's weight is lost, so the two
//! halves calibrate exactly once together; a reader sees the cold cap or
//! the bound that calibration set, never anything else.

use loom::sync::Arc;
use loom::thread;

use crate::engine::bytes::{CALIBRATE, COLD_CAP, Calibration, FLOOR, Tally};

#[test]
fn racing_folds_lose_no_weight_and_readers_see_whole_bounds() {
    loom::model(|| {
        let calibration = Arc::new(Calibration::new());
        let folders: Vec<_> = (0..2)
            .map(|_| {
                let calibration = calibration.clone();
                thread::spawn(move || {
                    // Half the weight a calibration reads, of 1 KiB objects.
                    let mut tally = Tally::new();
                    assert!(
                        tally.record(1024, (CALIBRATE / 2) as u16),
                        "due to be folded"
                    );
                    while !tally.is_empty() {
                        calibration.fold(&mut tally, CALIBRATE);
                        thread::yield_now();
                    }
                })
            })
            .collect();
        let reader = {
            let calibration = calibration.clone();
            thread::spawn(move || {
                let bound = calibration.bound();
                assert!(bound == COLD_CAP || bound == FLOOR, "{bound}");
            })
        };
        for folder in folders {
            folder.join().unwrap();
        }
        reader.join().unwrap();
        // Both halves folded: calibrated once, on 1 KiB objects.
        assert_eq!((calibration.usual(), calibration.bound()), (1024, FLOOR));
    });
}

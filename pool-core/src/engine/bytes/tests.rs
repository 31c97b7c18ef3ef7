//! The bound in bytes: what a calibration learns from the releases it reads.

use super::*;

#[test]
fn learns_the_usual_size_and_ignores_rare_outliers() {
    let calibration = Calibration::new();
    assert_eq!(calibration.bound(), COLD_CAP);
    let mut tally = Tally::new();
    // 99 small releases for one giant.
    for i in 0..5000 {
        let bytes = if i % 100 == 0 { 4 << 20 } else { 1024 };
        if tally.record(bytes, 1) {
            calibration.fold(&mut tally);
        }
    }
    assert_eq!(calibration.usual(), 1024);
    assert_eq!(calibration.bound(), FLOOR);
}

#[test]
fn learns_that_every_object_is_large() {
    let calibration = Calibration::new();
    let mut tally = Tally::new();
    for _ in 0..4 {
        while !tally.record(256 << 10, SAMPLE as u16) {}
        calibration.fold(&mut tally);
    }
    assert_eq!(calibration.usual(), 256 << 10);
    assert!(calibration.bound() > 256 << 10);
}

#[test]
fn a_small_fold_teaches_nothing() {
    let calibration = Calibration::new();
    let mut tally = Tally::new();
    tally.record(100, 1);
    calibration.fold(&mut tally);
    assert_eq!(calibration.bound(), COLD_CAP, "one release teaches nothing");
}

//! When an element-wise loop may change its walk's order ([`independent`]), and how it splits
//! over threads ([`split_dim`], [`threads_for`]).

use bcast_engine::__internals::loops::exec::{independent, split_dim, threads_for};
use bcast_engine::iter::Plan;
use bcast_engine::Layout;

#[test]
fn independence() {
    let c = Layout::contiguous(&[4, 5]);
    let plan = Plan::new(&[4, 5], &[&c, &c, &Layout::contiguous(&[5])]);
    // In place (the input is the output's own view), or inputs elsewhere.
    assert!(independent(&plan, [true, true, false]));
    assert!(independent(&plan, [false, false, false]));
    // An input in the output's storage at other positions.
    let shifted = Layout::new(vec![4, 5], vec![5, 1], 1).unwrap();
    let plan = Plan::new(&[4, 5], &[&c, &shifted]);
    assert!(!independent(&plan, [true, true]));
    // An output that writes a position twice.
    let expanded = Layout::new(vec![4, 5], vec![0, 1], 0).unwrap();
    let plan = Plan::new(&[4, 5], &[&expanded, &c]);
    assert!(!independent(&plan, [false, false]));
}

#[test]
fn split_dims() {
    assert_eq!(split_dim(&[3, 5_000_000], 32, 2), 1);
    assert_eq!(split_dim(&[8192, 64, 32], 32, 2), 2);
    // 16 threads want 256 pieces: 64 of the middle dim, not runs of 32 of the inner.
    assert_eq!(split_dim(&[8192, 64, 32], 256, 16), 1);
    assert_eq!(split_dim(&[1 << 24], 32, 2), 0);
    assert_eq!(split_dim(&[100, 4], 32, 2), 0);
    assert_eq!(threads_for(1000), 1);
}

//! A reduction's groups by the index map ([`ReducePlan`]).

use bcast_engine::__internals::reduce::plan::ReducePlan;
use bcast_engine::Layout;

/// Was the doctest of `ReducePlan` while it was public.
#[test]
fn groups_of_a_transposed_view() {
    let transposed = Layout::new(vec![3, 2], vec![1, 3], 0).unwrap();
    let plan = ReducePlan::new(&transposed, &[false, true]).unwrap();
    assert_eq!(plan.bases, vec![0, 1, 2]);
    assert_eq!(plan.offsets, vec![0, 3]);
    assert_eq!(plan.group(2).collect::<Vec<_>>(), vec![2, 5]);
}

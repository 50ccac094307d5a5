//! The tiled walk of operands whose layouts conflict ([`tiled_plan`]).

use bcast_engine::__internals::loops::tile::tiled_plan;
use bcast_engine::iter::Plan;
use bcast_engine::Layout;

#[test]
fn tiles_a_transposed_operand() {
    let t = Layout::new(vec![64, 64], vec![1, 64], 0).unwrap();
    let c = Layout::contiguous(&[64, 64]);
    let plan = Plan::new(&[64, 64], &[&c, &t, &c]);
    let tiled = tiled_plan(&plan).expect("conflicting layouts");
    assert_eq!(tiled.numel(), 64 * 64);
    // Nothing to tile when every operand agrees, or the dims are short.
    assert!(tiled_plan(&Plan::new(&[64, 64], &[&c, &c, &c])).is_none());
    let small_t = Layout::new(vec![8, 8], vec![1, 8], 0).unwrap();
    let small = Layout::contiguous(&[8, 8]);
    assert!(tiled_plan(&Plan::new(&[8, 8], &[&small, &small_t])).is_none());
}

#[test]
fn moves_the_dim_to_tile_next_to_the_inner_one() {
    // Dims (i, j, k): the second operand is contiguous along i, far along k, and j
    // cannot merge with k.
    let c = Layout::contiguous(&[32, 3, 32]);
    let t = Layout::new(vec![32, 3, 32], vec![1, 5000, 32], 0).unwrap();
    let plan = Plan::new(&[32, 3, 32], &[&c, &t]);
    let tiled = tiled_plan(&plan).expect("conflicting layouts");
    assert_eq!(tiled.strides(1)[1], 1);
    assert_eq!(tiled.shape()[0] * tiled.shape()[1], 32 * 32);
}

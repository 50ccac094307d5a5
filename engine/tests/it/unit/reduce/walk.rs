//! The fast reduction walk ([`ReduceWalk`]): how it sorts and coalesces dims, and its folds
//! against the index map's on every layout, cut and number of threads.

use bcast_engine::__internals::reduce::extrema::{Extremum, ExtremumFold};
use bcast_engine::__internals::reduce::plan::ReducePlan;
use bcast_engine::__internals::reduce::walk::{FoldWith, ReduceWalk};
use bcast_engine::config::set_num_threads;
use bcast_engine::Layout;

fn walk(shape: &[usize], strides: &[usize], mask: &[bool]) -> ReduceWalk {
    let layout = Layout::new(shape.to_vec(), strides.to_vec(), 0).unwrap();
    ReduceWalk::new(&layout, mask).unwrap()
}

/// The sum of each group, by the index map: the oracle.
fn naive(shape: &[usize], strides: &[usize], mask: &[bool], data: &[i64]) -> Vec<i64> {
    let layout = Layout::new(shape.to_vec(), strides.to_vec(), 0).unwrap();
    let plan = ReducePlan::new(&layout, mask).unwrap();
    (0..plan.bases.len())
        .map(|g| plan.group(g).map(|p| data[p]).sum())
        .collect()
}

fn sums(w: &ReduceWalk, data: &[i64]) -> Vec<i64> {
    w.fold(
        data,
        &FoldWith(0i64, |a: i64, v: i64| a + v, |a: i64, b: i64| a + b),
    )
}

#[test]
fn dims_sort_and_coalesce() {
    let w = walk(&[4096, 1024], &[1024, 1], &[true, false]);
    assert_eq!(w.outer.len(), 1);
    assert_eq!(
        (w.inner.size, w.inner.reduced, w.out_len),
        (1024, false, 1024)
    );
    let all = walk(&[8, 16, 32], &[512, 32, 1], &[true, true, true]);
    assert!(all.outer.is_empty());
    assert_eq!((all.inner.size, all.out_len), (4096, 1));
    // Reducing the middle dim of a contiguous tensor: nothing coalesces.
    assert_eq!(
        walk(&[8, 16, 32], &[512, 32, 1], &[false, true, false])
            .outer
            .len(),
        2
    );
    // A transposed input runs its rows along the input's contiguous dim.
    let t = walk(&[32, 8], &[1, 32], &[true, false]);
    assert_eq!((t.inner.size, t.inner.reduced), (32, true));
    // No contiguous dim: the plan walks it.
    let strided = Layout::new(vec![4, 4], vec![8, 2], 0).unwrap();
    assert!(ReduceWalk::new(&strided, &[false, true]).is_none());
}

#[test]
fn every_layout_and_cut_matches_the_index_map() {
    // (shape, strides, storage length): contiguous, transposed, expanded, a gap per row,
    // and walks long enough to be cut into pieces with and without partials, or at whole
    // groups of rows (`(70,40,130)` over dim 1, `(16,65536)` over dim 0 in 16 column cuts).
    let cases: &[(&[usize], &[usize], usize)] = &[
        (&[6, 5, 4], &[20, 4, 1], 120),
        (&[5, 6], &[1, 5], 30),
        (&[3, 7, 5], &[0, 5, 1], 35),
        (&[9, 13], &[16, 1], 144),
        (&[300, 1100], &[1100, 1], 330_000),
        (&[3, 90_001], &[90_001, 1], 270_003),
        (&[70, 40, 130], &[5200, 130, 1], 364_000),
        (&[130, 70, 40], &[1, 5200, 130], 364_000),
        (&[16, 65_536], &[65_536, 1], 1 << 20),
    ];
    let mut walked = 0;
    for &(shape, strides, len) in cases {
        let data: Vec<i64> = (0..len as i64).map(|i| (i * 7919) % 1013 - 500).collect();
        for bits in 0..(1u32 << shape.len()) {
            let mask: Vec<bool> = (0..shape.len()).map(|d| bits >> d & 1 == 1).collect();
            let layout = Layout::new(shape.to_vec(), strides.to_vec(), 0).unwrap();
            let Some(w) = ReduceWalk::new(&layout, &mask) else {
                continue;
            };
            walked += 1;
            let want = naive(shape, strides, &mask, &data);
            for threads in [1, 3] {
                set_num_threads(threads);
                assert_eq!(sums(&w, &data), want, "{shape:?} {strides:?} {mask:?}");
            }
            set_num_threads(0);
        }
    }
    // Every case but the fully strided ones has a contiguous dim.
    assert_eq!(walked, 8 + 4 + 8 + 4 + 4 + 4 + 8 + 8 + 4);
}

#[test]
fn extrema_keep_nan_in_every_lane_and_piece() {
    // Rows kept (a reduction over dim 0) and reduced (dim 1), long enough to be cut.
    let (rows, cols) = (300, 1100);
    for nan_at in [0, 17, 1099, 150 * 1100 + 5, 300 * 1100 - 1] {
        let mut data: Vec<f32> = (0..rows * cols).map(|i| (i % 977) as f32 - 400.0).collect();
        data[nan_at] = f32::NAN;
        for (dim, mask) in [(0, [true, false]), (1, [false, true])] {
            let w = walk(&[rows, cols], &[cols, 1], &mask);
            let pick = |a: f32, v: f32| f32::pick(a, v, true);
            let got = w.fold(&data, &ExtremumFold::<true>);
            let plan = ReducePlan::new(
                &Layout::new(vec![rows, cols], vec![cols, 1], 0).unwrap(),
                &mask,
            )
            .unwrap();
            for (g, &value) in got.iter().enumerate() {
                let want = plan.group(g).map(|p| data[p]).fold(f32::NEG_INFINITY, pick);
                assert!(
                    value == want || (value.is_nan() && want.is_nan()),
                    "dim {dim}, NaN at {nan_at}, group {g}: {value} against {want}"
                );
            }
            let nans = got.iter().filter(|v| v.is_nan()).count();
            assert_eq!(nans, 1, "dim {dim}, NaN at {nan_at}");
        }
    }
}

#[test]
fn float_sums_are_the_same_on_any_number_of_threads() {
    let data: Vec<f64> = (0..600_000).map(|i| 1.0 / (1.0 + i as f64)).collect();
    let w = walk(&[600_000], &[1], &[true]);
    let f = FoldWith(0.0f64, |a: f64, v: f64| a + v, |a: f64, b: f64| a + b);
    set_num_threads(1);
    let one = w.fold(&data, &f);
    set_num_threads(2);
    let two = w.fold(&data, &f);
    set_num_threads(0);
    assert_eq!(one[0].to_bits(), two[0].to_bits());
    assert!((one[0] - data.iter().sum::<f64>()).abs() < 1e-9);
}

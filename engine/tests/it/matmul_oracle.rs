//! `matmul` agrees with the triple loop: for every output index, the sum over the inner index
//! of the operands' elements, read through the naive index map with batch dims broadcast by
//! hand. Random ranks (1 to 4), broadcasting batch shapes, zero-size dims and layouts.

use crate::common;

use bcast_engine::{index_map, linalg, DType, Scalar, Tensor};
use common::{at, build, view_recipe};
use proptest::prelude::*;

/// The element of a batched operand: `batch` is the output's batch index, aligned from the
/// right with the operand's batch dims (a size-1 dim reads index 0), then `tail`.
fn operand_at(t: &Tensor, batch: &[usize], tail: &[usize]) -> Scalar {
    let nb = t.ndim() - tail.len();
    let lead = batch.len() - nb;
    let mut index: Vec<usize> = (0..nb)
        .map(|d| {
            if t.shape()[d] == 1 {
                0
            } else {
                batch[lead + d]
            }
        })
        .collect();
    index.extend_from_slice(tail);
    at(t, &index)
}

/// The obvious matmul: shape and row-major values.
fn naive(a: &Tensor, b: &Tensor) -> (Vec<usize>, Vec<i64>) {
    let (sa, sb) = (a.shape(), b.shape());
    let ba = &sa[..sa.len().saturating_sub(2)];
    let bb = &sb[..sb.len().saturating_sub(2)];
    let nb = ba.len().max(bb.len());
    let batch: Vec<usize> = (0..nb)
        .map(|i| {
            let pick = |s: &[usize]| (i + s.len()).checked_sub(nb).map_or(1, |k| s[k]);
            let (x, y) = (pick(ba), pick(bb));
            if x == 1 {
                y
            } else {
                x
            }
        })
        .collect();
    let n = if sa.len() > 1 { sa[sa.len() - 2] } else { 1 };
    let k = sa[sa.len() - 1];
    let p = if sb.len() > 1 { sb[sb.len() - 1] } else { 1 };
    let mut shape = batch.clone();
    if sa.len() > 1 {
        shape.push(n);
    }
    if sb.len() > 1 {
        shape.push(p);
    }
    let full: Vec<usize> = [&batch[..], &[n, p]].concat();
    let values = (0..full.iter().product::<usize>())
        .map(|o| {
            let idx = index_map::unravel(o, &full);
            let (bi, i, j) = (&idx[..nb], idx[nb], idx[nb + 1]);
            (0..k)
                .map(|kk| {
                    let x = if sa.len() > 1 {
                        operand_at(a, bi, &[i, kk])
                    } else {
                        at(a, &[kk])
                    };
                    let y = if sb.len() > 1 {
                        operand_at(b, bi, &[kk, j])
                    } else {
                        at(b, &[kk])
                    };
                    x.to_i64() * y.to_i64()
                })
                .sum()
        })
        .collect();
    (shape, values)
}

/// Two operands whose shapes matmul accepts, with random layouts.
fn operands() -> impl Strategy<Value = (Tensor, Tensor)> {
    (
        1usize..=4,
        1usize..=4,
        prop::collection::vec(common::size(3), 5),
        prop::collection::vec(any::<bool>(), 4),
    )
        .prop_flat_map(|(r1, r2, sizes, ones)| {
            let (n, k, p) = (sizes[0], sizes[1], sizes[2]);
            let full = [sizes[3], sizes[4]];
            let batch = |len: usize, offset: usize| -> Vec<usize> {
                (0..len)
                    .map(|i| {
                        if ones[offset + i] {
                            1
                        } else {
                            full[2 - len + i]
                        }
                    })
                    .collect()
            };
            let s1 = match r1 {
                1 => vec![k],
                r => [batch(r - 2, 0), vec![n, k]].concat(),
            };
            let s2 = match r2 {
                1 => vec![k],
                r => [batch(r - 2, 2), vec![k, p]].concat(),
            };
            (
                Just(s1.clone()),
                Just(s2.clone()),
                view_recipe(s1.len()),
                view_recipe(s2.len()),
                prop::sample::select(vec![DType::Int64, DType::Float64]),
            )
        })
        .prop_map(|(s1, s2, r1, r2, dtype)| (build(&s1, dtype, &r1), build(&s2, dtype, &r2)))
}

proptest! {
    #![proptest_config(ProptestConfig { cases: 10_000, max_shrink_iters: 200, failure_persistence: None, ..ProptestConfig::default() })]

    #[test]
    fn matmul_matches_the_triple_loop((a, b) in operands()) {
        let out = linalg::matmul(&a, &b).unwrap();
        let (shape, want) = naive(&a, &b);
        prop_assert_eq!(out.shape(), &shape[..]);
        prop_assert!(out.is_contiguous());
        let got: Vec<i64> = out.to_scalars().into_iter().map(|v| v.to_f64() as i64).collect();
        prop_assert_eq!(got, want);
    }
}

//! The reductions agree with the obvious formulation: group every element (read through the
//! naive index map) by its index with the reduced dims dropped, then sum, take the extremes, or
//! compute the variance from the definition. Random shapes, layouts, dims and dtypes.

use crate::common;

use bcast_engine::{reduce, DType, Scalar, Tensor};
use common::{build, close, elements, ravel, shape, view_recipe};
use proptest::prelude::*;

/// The input's elements grouped by result element, in the result's row-major order.
fn groups(x: &Tensor, mask: &[bool]) -> Vec<Vec<Scalar>> {
    let kept: Vec<usize> = (0..x.ndim())
        .filter(|&d| !mask[d])
        .map(|d| x.shape()[d])
        .collect();
    let mut out = vec![Vec::new(); kept.iter().product()];
    for (idx, v) in elements(x) {
        let key: Vec<usize> = (0..x.ndim())
            .filter(|&d| !mask[d])
            .map(|d| idx[d])
            .collect();
        out[ravel(&key, &kept)].push(v);
    }
    out
}

/// A tensor, its dims as a mask, and the same dims as a (shuffled, partly negative) list.
fn case() -> impl Strategy<Value = (Tensor, Vec<bool>, Vec<i64>, bool)> {
    (0usize..=4)
        .prop_flat_map(|ndim| {
            (
                shape(ndim, 4),
                view_recipe(ndim),
                prop::collection::vec(any::<bool>(), ndim),
                // The reductions of the other dtypes are checked against torch in their own table.
                prop::sample::select(vec![
                    DType::Bool,
                    DType::Int64,
                    DType::Float32,
                    DType::Float64,
                ]),
                any::<bool>(),
                any::<bool>(),
            )
        })
        .prop_map(|(shape, recipe, mask, dtype, negative, keepdim)| {
            let x = build(&shape, dtype, &recipe);
            let n = shape.len() as i64;
            let dims: Vec<i64> = (0..shape.len())
                .filter(|&d| mask[d])
                .map(|d| if negative { d as i64 - n } else { d as i64 })
                .rev()
                .collect();
            // An empty list reduces everything.
            let mask = if dims.is_empty() {
                vec![true; shape.len()]
            } else {
                mask
            };
            (x, mask, dims, keepdim)
        })
}

fn check_shape(x: &Tensor, mask: &[bool], keepdim: bool, out: &Tensor) {
    let want: Vec<usize> = (0..x.ndim())
        .filter_map(|d| match (mask[d], keepdim) {
            (false, _) => Some(x.shape()[d]),
            (true, true) => Some(1),
            (true, false) => None,
        })
        .collect();
    assert_eq!(out.shape(), &want[..]);
    assert!(out.is_contiguous());
}

proptest! {
    #![proptest_config(ProptestConfig { cases: 10_000, max_shrink_iters: 200, failure_persistence: None, ..ProptestConfig::default() })]

    #[test]
    fn sum_matches_the_grouped_sum((x, mask, dims, keepdim) in case()) {
        let out = reduce::sum(&x, &dims, keepdim, None).unwrap();
        check_shape(&x, &mask, keepdim, &out);
        let want: Vec<Scalar> = groups(&x, &mask)
            .into_iter()
            .map(|g| match x.dtype() {
                DType::Float32 | DType::Float64 => Scalar::Float(g.iter().map(|v| v.to_f64()).sum()),
                _ => Scalar::Int(g.iter().map(|v| v.to_i64()).sum()),
            })
            .collect();
        prop_assert_eq!(out.to_scalars(), want);
    }

    #[test]
    fn amax_and_amin_match_the_grouped_extremes((x, mask, dims, keepdim) in case()) {
        let out = reduce::amax(&x, &dims, keepdim);
        let low = reduce::amin(&x, &dims, keepdim);
        let gs = groups(&x, &mask);
        let empty_reduced = (0..x.ndim()).any(|d| mask[d] && x.shape()[d] == 0);
        if x.numel() == 0 && (dims.is_empty() || empty_reduced) {
            prop_assert!(out.is_err() && low.is_err());
            return Ok(());
        }
        let (out, low) = (out.unwrap(), low.unwrap());
        check_shape(&x, &mask, keepdim, &out);
        let pick = |g: &Vec<Scalar>, max: bool| {
            let vals = g.iter().map(|v| v.to_f64());
            let m = if max { vals.fold(f64::MIN, f64::max) } else { vals.fold(f64::MAX, f64::min) };
            match x.dtype() {
                DType::Bool => Scalar::Bool(m != 0.0),
                DType::Int64 => Scalar::Int(m as i64),
                _ => Scalar::Float(m),
            }
        };
        prop_assert_eq!(out.to_scalars(), gs.iter().map(|g| pick(g, true)).collect::<Vec<_>>());
        prop_assert_eq!(low.to_scalars(), gs.iter().map(|g| pick(g, false)).collect::<Vec<_>>());
    }

    #[test]
    fn mean_var_std_match_their_definitions((x, mask, dims, keepdim) in case(), correction in -1i64..=3) {
        if !x.dtype().is_floating() {
            prop_assert!(reduce::mean(&x, &dims, keepdim, None).is_err());
            prop_assert!(reduce::var(&x, &dims, 1.0, keepdim).is_err());
            return Ok(());
        }
        let c = correction as f64;
        let mean = reduce::mean(&x, &dims, keepdim, None).unwrap();
        let var = reduce::var(&x, &dims, c, keepdim).unwrap();
        let std = reduce::std(&x, &dims, c, keepdim).unwrap();
        check_shape(&x, &mask, keepdim, &var);
        let gs = groups(&x, &mask);
        for (i, g) in gs.iter().enumerate() {
            let n = g.len() as f64;
            let m = g.iter().map(|v| v.to_f64()).sum::<f64>() / n;
            let ss: f64 = g.iter().map(|v| (v.to_f64() - m).powi(2)).sum();
            // torch fills the result of an input without elements with NaN.
            let v = if x.numel() == 0 { f64::NAN } else { ss / (n - c).max(0.0) };
            prop_assert!(close(mean.to_scalars()[i].to_f64(), m, 1e-6));
            prop_assert!(close(var.to_scalars()[i].to_f64(), v, 1e-6), "{} vs {}", var.to_scalars()[i].to_f64(), v);
            prop_assert!(close(std.to_scalars()[i].to_f64(), v.sqrt(), 1e-6));
        }
    }
}

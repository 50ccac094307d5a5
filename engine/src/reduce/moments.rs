//! `var` and `std` with Bessel's `correction`, computed the two ways torch computes them, since
//! their roundings differ visibly for huge values:
//! - a reduction to one element of an input with more than one element takes the input's mean
//!   in the input's dtype (a `float32` sum over the count), then sums the squared deviations
//!   in `f64`;
//! - any other reduction runs Welford's update in `f64`, element by element.
//!
//! Either way the sum of squares is divided by `max(N - correction, 0)`; an input without
//! elements gives NaN everywhere.

use super::{reduced_shape, reduction_mask, DimCheck, ReducePlan};
use crate::shape::numel_of;
use crate::{DType, Error, Result, Tensor};

/// `torch.var(x, dim, correction=correction, keepdim=keepdim)`; `unbiased=True` is
/// `correction=1`, `unbiased=False` is `correction=0`. An empty `dims` reduces every dim.
///
/// ```
/// use bcast_engine::{reduce, Tensor};
/// let x = Tensor::from_vec(vec![1.0f64, 3.0, 5.0], &[3]).unwrap();
/// assert_eq!(reduce::var(&x, &[], 1.0, false).unwrap().to_vec::<f64>().unwrap(), vec![4.0]);
/// assert!(reduce::var(&x, &[], 3.5, false).unwrap().to_vec::<f64>().unwrap()[0].is_infinite());
/// // The float32 mean of three 1e30 is one ulp off, and the squared error overflows float32.
/// let big = Tensor::from_vec(vec![1e30f32; 3], &[3]).unwrap();
/// assert!(reduce::var(&big, &[], 1.0, false).unwrap().to_vec::<f32>().unwrap()[0].is_infinite());
/// ```
///
/// # Errors
/// A non-floating input (checked first), then each dim in turn: out of range or repeated.
pub fn var(x: &Tensor, dims: &[i64], correction: f64, keepdim: bool) -> Result<Tensor> {
    moment_over(
        x,
        Some(dims).filter(|d| !d.is_empty()),
        correction,
        keepdim,
        false,
    )
}

/// [`std()`] (`std` true) or [`var()`] over `dims`: `None` is torch's `dim=None`, `Some(&[])` an
/// explicit empty list. The values are the same (every dim is reduced); the backward is not:
/// torch's `var_backward` counts an explicit empty list as one element.
///
/// ```
/// use bcast_engine::{reduce, Tensor};
/// let x = Tensor::from_vec(vec![1.0f64, 3.0, 5.0], &[3]).unwrap();
/// let v = reduce::moment_over(&x, Some(&[]), 1.0, false, false).unwrap();
/// assert_eq!(v.to_vec::<f64>().unwrap(), vec![4.0]);
/// ```
///
/// # Errors
/// As for [`var`].
pub fn moment_over(
    x: &Tensor,
    dims: Option<&[i64]>,
    correction: f64,
    keepdim: bool,
    std: bool,
) -> Result<Tensor> {
    if crate::autograd::recording() {
        return crate::autograd::reduce::moment_op(x, dims, correction, keepdim, std);
    }
    moment(x, dims.unwrap_or(&[]), correction, keepdim, std)
}

/// `torch.std(...)`: the square root (in `f64`) of [`var`].
///
/// ```
/// use bcast_engine::{reduce, Tensor};
/// let x = Tensor::from_vec(vec![1.0f64, 3.0, 5.0, 7.0], &[2, 2]).unwrap();
/// let s = reduce::std(&x, &[0], 0.0, true).unwrap();
/// assert_eq!((s.shape(), s.to_vec::<f64>().unwrap()), (&[1, 2][..], vec![2.0, 2.0]));
/// ```
pub fn std(x: &Tensor, dims: &[i64], correction: f64, keepdim: bool) -> Result<Tensor> {
    moment_over(
        x,
        Some(dims).filter(|d| !d.is_empty()),
        correction,
        keepdim,
        true,
    )
}

/// Welford's running mean and sum of squared deviations, in `f64`.
#[derive(Debug, Clone, Copy, Default)]
struct Welford {
    mean: f64,
    m2: f64,
    n: u64,
}

impl Welford {
    fn push(self, v: f64) -> Welford {
        let n = self.n + 1;
        let delta = v - self.mean;
        let mean = self.mean + delta / n as f64;
        Welford {
            mean,
            m2: self.m2 + delta * (v - mean),
            n,
        }
    }
}

fn moment(x: &Tensor, dims: &[i64], correction: f64, keepdim: bool, root: bool) -> Result<Tensor> {
    if !x.dtype().is_floating() && !x.dtype().is_complex() {
        return Err(Error::runtime(
            "std and var only support floating point and complex dtypes",
        ));
    }
    if x.dtype().is_reduced_float() {
        // torch computes in float32 and rounds the result.
        let r = moment(
            &x.to_dtype(DType::Float32)?,
            dims,
            correction,
            keepdim,
            root,
        )?;
        return r.to_dtype(x.dtype());
    }
    if x.dtype().is_complex() {
        // The variance of the real parts plus that of the imaginary parts, real.
        let real = x.dtype().to_real();
        let values = x.to_scalars();
        let part = |f: fn(crate::Scalar) -> f64| -> Result<Tensor> {
            let v: Vec<crate::Scalar> =
                values.iter().map(|&s| crate::Scalar::Float(f(s))).collect();
            Tensor::from_scalars(&v, real, x.shape())
        };
        let re = moment(&part(|s| s.to_f64())?, dims, correction, keepdim, false)?;
        let im = moment(&part(|s| s.imag())?, dims, correction, keepdim, false)?;
        let v = crate::ops::binary(
            crate::ops::BinaryOp::Add(crate::Scalar::Int(1)),
            &re,
            &im,
            None,
        )?;
        return if root {
            crate::ops::unary(crate::ops::UnaryOp::Sqrt, &v, None)
        } else {
            Ok(v)
        };
    }
    let mask = reduction_mask(dims, x.ndim(), DimCheck::OneByOne)?;
    let shape = reduced_shape(x.shape(), &mask, keepdim);
    numel_of(&shape)?;
    // torch allocates the result before reducing: its storage size must fit.
    crate::alloc::contiguous_nbytes(&crate::shape::signed_sizes(&shape), x.dtype().itemsize(), 0)?;
    let plan = ReducePlan::new(x.layout(), &mask)?;
    let divisor = (plan.group_len() as f64 - correction).max(0.0);
    let finish = |m2: f64| {
        let v = m2 / divisor;
        if root {
            v.sqrt()
        } else {
            v
        }
    };
    let whole = plan.bases.len() == 1 && x.numel() > 1;
    let single = x.dtype() == DType::Float32;
    let values: Vec<f64> = if x.numel() == 0 {
        vec![f64::NAN; plan.bases.len()]
    } else if single {
        plan.map_groups::<f32, f64>(x, |data, group| {
            let values = group.map(|p| data[p] as f64);
            finish(if whole {
                two_pass(values, true)
            } else {
                welford(values)
            })
        })?
    } else {
        plan.map_groups::<f64, f64>(x, |data, group| {
            let values = group.map(|p| data[p]);
            finish(if whole {
                two_pass(values, false)
            } else {
                welford(values)
            })
        })?
    };
    if single {
        Tensor::from_vec(values.into_iter().map(|v| v as f32).collect(), &shape)
    } else {
        Tensor::from_vec(values, &shape)
    }
}

/// The sum of squared deviations by Welford's update.
fn welford(values: impl Iterator<Item = f64>) -> f64 {
    values.fold(Welford::default(), Welford::push).m2
}

/// The sum of squared deviations from the mean taken first, in `float32` when `single` (the
/// sum rounded to `float32`, then divided by the count in `float32`).
fn two_pass(values: impl Iterator<Item = f64> + Clone, single: bool) -> f64 {
    let (total, n) = values
        .clone()
        .fold((0.0f64, 0usize), |(s, n), v| (s + v, n + 1));
    let mean = if single {
        (total as f32 / n as f32) as f64
    } else {
        total / n as f64
    };
    values.fold(0.0, |acc, v| acc + (v - mean) * (v - mean))
}

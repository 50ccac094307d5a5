//! The backward of the reductions: `sum`, `mean` (the gradient expanded back over the
//! reduced dims), `amax`/`amin` (split evenly among the elements equal to the result), `max`/
//! `min` over one dim (all of it to the selected index) and over every element (split evenly,
//! on the CPU as torch's `evenly_distribute_backward`), `var` and `std` with a correction.

use super::math::{cmp, div, mul, sub};
use super::{below, record, requires_grad, Grads, Node};
use crate::ops::{masked_fill_, r#where, CompareOp};
use crate::reduce::{self, sum};
use crate::shape::{signed_sizes, wrap_dim};
use crate::{DType, Error, Result, Scalar, Tensor};

/// torch's `unsqueeze_multiple`: `t` with a size-1 dim put back at each of `dims` (of an
/// `n`-dim result); one dim is unsqueezed as given.
fn unsqueeze_multiple(t: Tensor, dims: &[i64], n: usize) -> Result<Tensor> {
    match dims {
        [] => Ok(t),
        [d] => t.unsqueeze(*d),
        _ => {
            let wrapped: Vec<usize> = dims
                .iter()
                .map(|&d| wrap_dim(d, n))
                .collect::<Result<_>>()?;
            let mut t = t;
            for d in 0..n {
                if wrapped.contains(&d) {
                    t = t.unsqueeze(d as i64)?;
                }
            }
            Ok(t)
        }
    }
}

/// torch's `sum_backward`: the gradient expanded back to `sizes`, its reduced dims put back
/// first without `keepdim`.
fn sum_backward(g: Tensor, sizes: &[usize], dims: &[i64], keepdim: bool) -> Result<Tensor> {
    let target = signed_sizes(sizes);
    if !keepdim && !sizes.is_empty() && !dims.is_empty() {
        return unsqueeze_multiple(g, dims, sizes.len())?.expand(&target);
    }
    g.expand(&target)
}

/// Records a reduction of `x` into `out` whose backward is `f(grad)`.
fn record_reduction(
    name: &'static str,
    x: &Tensor,
    out: &Tensor,
    f: impl FnOnce(Tensor) -> Result<Tensor> + 'static,
) {
    if !requires_grad(x) {
        return;
    }
    record(
        Node {
            name,
            inputs: vec![Some(x.clone())],
            saved: Vec::new(),
            formula: Box::new(move |grads: Grads, _: &[bool]| {
                Ok(vec![match grads.into_iter().next().flatten() {
                    Some(g) => Some(f(g)?),
                    None => None,
                }])
            }),
        },
        std::slice::from_ref(out),
    );
}

/// `torch.sum(x, dims, keepdim, dtype=dtype)` recorded.
pub(crate) fn sum_op(
    x: &Tensor,
    dims: &[i64],
    keepdim: bool,
    dtype: Option<DType>,
) -> Result<Tensor> {
    let out = below(|| sum(x, dims, keepdim, dtype))?;
    let sizes = x.shape().to_vec();
    let dims = dims.to_vec();
    let name = if dims.is_empty() {
        "SumBackward0"
    } else {
        "SumBackward1"
    };
    record_reduction(name, x, &out, move |g| {
        sum_backward(g, &sizes, &dims, keepdim)
    });
    Ok(out)
}

/// `torch.mean(x, dims, keepdim, dtype=dtype)` recorded: the sum's gradient over the count.
pub(crate) fn mean_op(
    x: &Tensor,
    dims: &[i64],
    keepdim: bool,
    dtype: Option<DType>,
) -> Result<Tensor> {
    let out = below(|| reduce::mean(x, dims, keepdim, dtype))?;
    let sizes = x.shape().to_vec();
    let dims = dims.to_vec();
    let n = reduced_count(&sizes, &dims)?;
    let name = if dims.is_empty() {
        "MeanBackward0"
    } else {
        "MeanBackward1"
    };
    record_reduction(name, x, &out, move |g| {
        div(
            sum_backward(g, &sizes, &dims, keepdim)?,
            Scalar::Int(n as i64),
        )
    });
    Ok(out)
}

/// The number of elements a reduction over `dims` (every dim when empty) combines; torch's
/// `_safe_size` (1 for a 0-d input).
fn reduced_count(sizes: &[usize], dims: &[i64]) -> Result<usize> {
    if dims.is_empty() {
        return Ok(sizes.iter().product());
    }
    if sizes.is_empty() {
        return Ok(1);
    }
    let mut n = 1;
    for &d in dims {
        n *= sizes[wrap_dim(d, sizes.len())?];
    }
    Ok(n)
}

/// torch's `restore_reduced_dims`: a reduction's output reshaped with its reduced dims back
/// as 1s.
fn restore_reduced_dims(out: &Tensor, dims: &[i64], keepdim: bool) -> Result<Tensor> {
    if keepdim {
        return Ok(out.clone());
    }
    let total = out.ndim() + dims.len();
    let mut target = vec![0i64; total];
    for &d in dims {
        let d = if d < 0 { d + total as i64 } else { d };
        target[d as usize] = 1;
    }
    let mut j = 0;
    for &s in out.shape() {
        while target[j] > 0 {
            j += 1;
        }
        target[j] = s as i64;
        j += 1;
    }
    out.reshape(&target)
}

/// `torch.amax` / `torch.amin` recorded: `scale_grad_by_count` (the gradient shared evenly
/// by the elements equal to the result).
pub(crate) fn extremum_op(x: &Tensor, dims: &[i64], keepdim: bool, max: bool) -> Result<Tensor> {
    let out = below(|| {
        if max {
            reduce::amax(x, dims, keepdim)
        } else {
            reduce::amin(x, dims, keepdim)
        }
    })?;
    let name = if max {
        "AmaxBackward0"
    } else {
        "AminBackward0"
    };
    if requires_grad(x) && out.dtype().is_complex() {
        // torch's `throw_error_for_complex_autograd`, after the kernel ran.
        let aten = if max { "amax" } else { "amin" };
        return Err(Error::runtime(format!(
            "{aten} does not support automatic differentiation for outputs with complex dtype."
        )));
    }
    let (input, result, dims) = (x.clone(), out.clone(), dims.to_vec());
    record_reduction(name, x, &out, move |g| {
        let g = restore_reduced_dims(&g, &dims, keepdim)?;
        let mask = cmp(
            CompareOp::Eq,
            restore_reduced_dims(&result, &dims, keepdim)?,
            &input,
        )?;
        mul(div(g, sum(&mask, &dims, true, None)?)?, &mask)
    });
    Ok(out)
}

/// torch's `var_backward`; `dims` `None` for `dim=None`.
fn var_backward(
    g: Tensor,
    x: &Tensor,
    dims: Option<&[i64]>,
    correction: f64,
    keepdim: bool,
) -> Result<Tensor> {
    let dims = match dims {
        Some(dims) if x.ndim() > 0 => dims,
        _ => return var_backward_all(g, x, correction),
    };
    let g = if !keepdim && x.ndim() > 1 {
        unsqueeze_multiple(g, dims, x.ndim())?
    } else {
        g
    };
    // `_safe_size`: an explicit empty list counts one element, and the mean is over every dim.
    let n = if dims.is_empty() {
        1.0
    } else {
        reduced_count(x.shape(), dims)? as f64
    };
    let mean = reduce::mean(x, dims, true, None)?;
    mul(
        mul(g, Scalar::Float(2.0 / (n - correction)))?,
        sub(x, &mean)?,
    )
}

/// `var_backward` for `dim=None` (or a 0-d input).
fn var_backward_all(g: Tensor, x: &Tensor, correction: f64) -> Result<Tensor> {
    let dof = x.numel() as f64 - correction;
    let mean = reduce::mean(x, &[], false, None)?;
    if dof <= 0.0 {
        let at_mean = cmp(CompareOp::Eq, x, &mean)?;
        return mul(
            g,
            r#where(
                &at_mean,
                Scalar::Float(f64::NAN),
                Scalar::Float(f64::INFINITY),
                None,
            )?,
        );
    }
    mul(mul(g, Scalar::Float(2.0 / dof))?, sub(x, &mean)?)
}

/// `torch.var` / `torch.std` recorded (`std_backward`: the gradient over twice the result,
/// 0 where it is 0, then `var_backward`).
pub(crate) fn moment_op(
    x: &Tensor,
    dims: Option<&[i64]>,
    correction: f64,
    keepdim: bool,
    std: bool,
) -> Result<Tensor> {
    let out = below(|| reduce::moment_over(x, dims, correction, keepdim, std))?;
    let (input, result, dims) = (x.clone(), out.clone(), dims.map(<[i64]>::to_vec));
    let name = if std { "StdBackward0" } else { "VarBackward0" };
    record_reduction(name, x, &out, move |g| {
        let g = if std {
            let scaled = div(g, mul(&result, Scalar::Int(2))?)?;
            masked_fill_(
                &scaled,
                &cmp(CompareOp::Eq, &result, Scalar::Int(0))?,
                Scalar::Int(0),
            )?
        } else {
            g
        };
        var_backward(g, &input, dims.as_deref(), correction, keepdim)
    });
    Ok(out)
}

/// `torch.max(x, dim, keepdim)` / `torch.min` recorded: torch's
/// `value_selecting_reduction_backward`, the gradient scattered into zeros of the input's shape
/// at the selected indices (the indices themselves are not differentiable).
pub(crate) fn indexed_op(
    x: &Tensor,
    dim: i64,
    keepdim: bool,
    max: bool,
) -> Result<(Tensor, Tensor)> {
    let (values, indices) = below(|| {
        if max {
            reduce::max_dim(x, dim, keepdim)
        } else {
            reduce::min_dim(x, dim, keepdim)
        }
    })?;
    let name = if max { "MaxBackward0" } else { "MinBackward0" };
    let sizes = x.shape().to_vec();
    let d = wrap_dim(dim, sizes.len())?;
    let selected = indices.clone();
    record_reduction(name, x, &values, move |g| {
        value_selecting_backward(&g, d, &selected, &sizes, keepdim)
    });
    Ok((values, indices))
}

/// torch's `value_selecting_reduction_backward`: zeros of `sizes` (contiguous, the gradient's
/// dtype) with each gradient element written at its index along `dim`.
fn value_selecting_backward(
    g: &Tensor,
    dim: usize,
    indices: &Tensor,
    sizes: &[usize],
    keepdim: bool,
) -> Result<Tensor> {
    let (g, indices) = if !keepdim && !sizes.is_empty() {
        (g.unsqueeze(dim as i64)?, indices.unsqueeze(dim as i64)?)
    } else {
        (g.clone(), indices.clone())
    };
    let mut out = vec![Scalar::Int(0); sizes.iter().product()];
    let values = g.to_scalars();
    let at = indices.to_vec::<i64>()?;
    // Row-major strides of the input, and of the (keepdim) gradient.
    let strides = crate::layout::contiguous_strides(sizes);
    let shape = g.shape().to_vec();
    for (linear, (value, index)) in values.into_iter().zip(at).enumerate() {
        let mut rest = linear;
        let mut target = 0usize;
        for k in (0..shape.len()).rev() {
            let coord = rest % shape[k];
            rest /= shape[k];
            let coord = if k == dim { index as usize } else { coord };
            target += coord * strides[k];
        }
        out[target] = value;
    }
    Tensor::from_scalars(&out, g.dtype(), sizes)
}

/// `torch.max(x)` / `torch.min(x)` recorded: torch's `evenly_distribute_backward` on the CPU,
/// zeros of the input's shape with the elements equal to the result (the NaNs, for a NaN
/// result) filled with the gradient over their count.
pub(crate) fn all_op(x: &Tensor, max: bool) -> Result<Tensor> {
    let out = below(|| {
        if max {
            reduce::max_all(x)
        } else {
            reduce::min_all(x)
        }
    })?;
    let name = if max { "MaxBackward1" } else { "MinBackward1" };
    let (input, result) = (x.clone(), out.clone());
    record_reduction(name, x, &out, move |g| {
        let nan_result =
            matches!(result.to_scalars().first(), Some(Scalar::Float(v)) if v.is_nan());
        let mask = if nan_result {
            cmp(CompareOp::Ne, &input, &input)?
        } else {
            cmp(CompareOp::Eq, &input, &result)?
        };
        let share = div(&g, sum(&mask, &[], false, None)?)?;
        let zeros = Tensor::zeros(input.shape(), input.dtype())?;
        masked_fill_(&zeros, &mask, &share)
    });
    Ok(out)
}

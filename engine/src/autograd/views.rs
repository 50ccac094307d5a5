//! The backward of the view ops and the copies among them: `expand`, `permute`,
//! `transpose`, `t`, `unsqueeze`, `squeeze`, `select`, `slice`/`narrow`, `as_strided`,
//! `view`, `reshape` (torch's `_reshape_alias`, or `clone` then `_unsafe_view`), `alias`,
//! `diagonal`, `clone`, `contiguous`, `repeat` and `to(dtype)`.

use super::math::{handle_r_to_c, zeros};
use super::sum_to::sum_to;
use super::{below, record, requires_grad, Grads, Node};
use crate::reduce::sum;
use crate::shape::{signed_sizes, wrap_dim};
use crate::{DType, Result, Tensor};

/// Records a one-input view or copy `output` of `input` whose backward is `f(grad)`.
fn record_unary(
    name: &'static str,
    input: &Tensor,
    output: &Tensor,
    f: impl FnOnce(Tensor) -> Result<Tensor> + 'static,
) {
    if !requires_grad(input) {
        return;
    }
    let node = Node {
        name,
        inputs: vec![Some(input.clone())],
        saved: Vec::new(),
        formula: Box::new(move |grads: Grads, _: &[bool]| {
            Ok(vec![match grads.into_iter().next().flatten() {
                Some(g) => Some(f(g)?),
                None => None,
            }])
        }),
    };
    record(node, std::slice::from_ref(output));
}

/// Runs a view op below autograd and records its node.
fn view_op(
    name: &'static str,
    input: &Tensor,
    op: impl FnOnce() -> Result<Tensor>,
    backward: impl FnOnce(Tensor) -> Result<Tensor> + 'static,
) -> Result<Tensor> {
    // A view is a new tensor object even where it is `input`'s layout (`x.t()` of a 1-d `x`).
    let out = below(op)?;
    let out = if out.is_same(input) {
        out.detached()
    } else {
        out
    };
    record_unary(name, input, &out, backward);
    Ok(out)
}

/// `x.expand(sizes)`: the gradient summed back to `x`'s shape.
pub(crate) fn expand(x: &Tensor, sizes: &[i64]) -> Result<Tensor> {
    let shape = x.shape().to_vec();
    view_op(
        "ExpandBackward0",
        x,
        || x.expand(sizes),
        move |g| sum_to(&g, &shape),
    )
}

/// `x.permute(dims)`: the gradient permuted back.
pub(crate) fn permute(x: &Tensor, dims: &[i64]) -> Result<Tensor> {
    let ndim = x.ndim();
    let forward = dims.to_vec();
    view_op(
        "PermuteBackward0",
        x,
        || x.permute(dims),
        move |g| {
            let dims = forward;
            let mut inverse = vec![0i64; ndim];
            for (i, &d) in dims.iter().enumerate() {
                inverse[wrap_dim(d, ndim)?] = i as i64;
            }
            g.permute(&inverse)
        },
    )
}

/// `x.transpose(dim0, dim1)`.
pub(crate) fn transpose(x: &Tensor, dim0: i64, dim1: i64) -> Result<Tensor> {
    view_op(
        "TransposeBackward0",
        x,
        || x.transpose(dim0, dim1),
        move |g| g.transpose(dim0, dim1),
    )
}

/// `x.t()`.
pub(crate) fn t(x: &Tensor) -> Result<Tensor> {
    view_op("TBackward0", x, || x.t(), |g| g.t())
}

/// `x.unsqueeze(dim)`: the gradient squeezed at `dim`.
pub(crate) fn unsqueeze(x: &Tensor, dim: i64) -> Result<Tensor> {
    view_op(
        "UnsqueezeBackward0",
        x,
        || x.unsqueeze(dim),
        move |g| g.squeeze_dims(&[dim]),
    )
}

/// torch's `unsqueeze_to`: the gradient unsqueezed at each dim of `sizes` that is 1 (and in
/// `dims`, when given).
fn unsqueeze_to(mut g: Tensor, dims: Option<&[usize]>, sizes: &[usize]) -> Result<Tensor> {
    for (d, &s) in sizes.iter().enumerate() {
        if s == 1 && dims.is_none_or(|dims| dims.contains(&d)) {
            g = g.unsqueeze(d as i64)?;
        }
    }
    Ok(g)
}

/// `x.squeeze()`.
pub(crate) fn squeeze(x: &Tensor) -> Result<Tensor> {
    let sizes = x.shape().to_vec();
    view_op(
        "SqueezeBackward0",
        x,
        || x.squeeze(),
        move |g| unsqueeze_to(g, None, &sizes),
    )
}

/// `x.squeeze(dims)`.
pub(crate) fn squeeze_dims(x: &Tensor, dims: &[i64]) -> Result<Tensor> {
    let sizes = x.shape().to_vec();
    let out = below(|| x.squeeze_dims(dims))?;
    let out = if out.is_same(x) { out.detached() } else { out };
    let wrapped: Vec<usize> = dims
        .iter()
        .map(|&d| wrap_dim(d, x.ndim()))
        .collect::<Result<_>>()?;
    let name = if dims.len() == 1 {
        "SqueezeBackward1"
    } else {
        "SqueezeBackward2"
    };
    record_unary(name, x, &out, move |g| {
        unsqueeze_to(g, Some(&wrapped), &sizes)
    });
    Ok(out)
}

/// `x.select(dim, index)`: zeros of `x`'s shape with the gradient at `index`.
pub(crate) fn select(x: &Tensor, dim: i64, index: i64) -> Result<Tensor> {
    let sizes = x.shape().to_vec();
    view_op(
        "SelectBackward0",
        x,
        || x.select(dim, index),
        move |g| {
            let grad_input = zeros(&sizes, g.dtype())?;
            grad_input.select(dim, index)?.copy_(&g)?;
            Ok(grad_input)
        },
    )
}

/// torch's `slice_backward`: zeros of the input's shape with the gradient in the slice.
fn slice_backward(
    g: Tensor,
    sizes: &[usize],
    dim: i64,
    start: Option<i64>,
    end: Option<i64>,
    step: i64,
) -> Result<Tensor> {
    let grad_input = zeros(sizes, g.dtype())?;
    grad_input.slice(dim, start, end, step)?.copy_(&g)?;
    Ok(grad_input)
}

/// `x.slice(dim, start, end, step)` (a slice of an index).
pub(crate) fn slice(
    x: &Tensor,
    dim: i64,
    start: Option<i64>,
    end: Option<i64>,
    step: i64,
) -> Result<Tensor> {
    let sizes = x.shape().to_vec();
    view_op(
        "SliceBackward0",
        x,
        || x.slice(dim, start, end, step),
        move |g| slice_backward(g, &sizes, dim, start, end, step),
    )
}

/// `x.narrow(dim, start, length)`: torch's `slice(dim, start, start + length)`.
pub(crate) fn narrow(x: &Tensor, dim: i64, start: i64, length: i64) -> Result<Tensor> {
    let sizes = x.shape().to_vec();
    let out = below(|| x.narrow(dim, start, length))?;
    let d = wrap_dim(dim, x.ndim())?;
    let start = if start < 0 {
        start + sizes[d] as i64
    } else {
        start
    };
    record_unary("SliceBackward0", x, &out, move |g| {
        slice_backward(g, &sizes, dim, Some(start), Some(start + length), 1)
    });
    Ok(out)
}

/// `x.as_strided(size, stride, storage_offset)`: torch's `as_strided_backward` (the
/// gradient written into zeros of the memory both geometries span, averaged where `x`'s
/// elements overlap, and viewed with `x`'s geometry).
pub(crate) fn as_strided(
    x: &Tensor,
    size: &[i64],
    stride: &[i64],
    storage_offset: Option<i64>,
) -> Result<Tensor> {
    let out = below(|| x.as_strided(size, stride, storage_offset))?;
    let input = (x.shape().to_vec(), x.strides().to_vec(), x.offset());
    let geometry = (out.shape().to_vec(), out.strides().to_vec(), out.offset());
    record_unary("AsStridedBackward0", x, &out, move |g| {
        as_strided_backward(g, &input, &geometry)
    });
    Ok(out)
}

/// Sizes, strides and offset.
type Geometry = (Vec<usize>, Vec<usize>, usize);

/// The gradient torch's `CopySlices` hands the formula of an op written in place into `view`,
/// a view of a base that requires no grad (a case's storage: `base_len` elements, 1-d,
/// contiguous), from `g`, the gradient of the view: the view's `AsStridedBackward0` takes it
/// back to the base (`as_strided_backward`: where the view reads an element more than once, a
/// stride-0 `self` of `masked_fill_`, their gradients add up), and `CopySlices` views that
/// with the view's geometry and copies it contiguous. So each element of an expanded view
/// gets the sum over the elements that share its memory (torch 2.13.0: `masked_fill_` of a
/// `[2]` view with stride 0 by a value that requires grad, upstream `[0, 1]`, gives the value
/// the gradient 2).
pub(crate) fn copy_slices_grad(g: &Tensor, base_len: usize, view: &Tensor) -> Result<Tensor> {
    let base = (vec![base_len], vec![1], 0);
    let geometry = (
        view.shape().to_vec(),
        view.strides().to_vec(),
        view.offset(),
    );
    let base_grad = as_strided_backward(g.clone(), &base, &geometry)?;
    base_grad
        .as_strided(
            &signed_sizes(view.shape()),
            &signed_sizes(view.strides()),
            Some(view.offset() as i64),
        )?
        .contiguous_copy()
}

/// torch's `_maybe_overlapping_memory`.
fn maybe_overlapping(sizes: &[usize], strides: &[usize]) -> bool {
    let mut order: Vec<usize> = (0..sizes.len()).collect();
    order.sort_by_key(|&i| strides[i]);
    let mut max_index = 0usize;
    for i in order {
        if strides[i] <= max_index {
            return true;
        }
        max_index += strides[i] * (sizes[i] - 1);
    }
    false
}

/// torch's `_min_storage_size`.
fn min_storage_size(sizes: &[usize], strides: &[usize], offset: usize) -> usize {
    let mut size = offset + 1;
    for (&n, &s) in sizes.iter().zip(strides) {
        if n == 0 {
            return offset;
        }
        size += (n - 1) * s;
    }
    size
}

/// torch's `as_strided_backward`.
fn as_strided_backward(mut g: Tensor, input: &Geometry, output: &Geometry) -> Result<Tensor> {
    let (in_sizes, in_strides, in_offset) = input;
    let (out_sizes, out_strides, out_offset) = output;
    let (mut osz, mut ost) = (Vec::new(), Vec::new());
    for i in (0..out_sizes.len()).rev() {
        match (out_sizes[i], out_strides[i]) {
            (0, _) => return zeros(in_sizes, g.dtype()),
            (1, _) => g = g.squeeze_dims(&[i as i64])?,
            (_, 0) => g = sum(&g, &[i as i64], false, None)?,
            (n, s) => {
                osz.insert(0, n);
                ost.insert(0, s);
            }
        }
    }
    let out_overlap = maybe_overlapping(&osz, &ost);
    let (mut isz, mut ist) = (Vec::new(), Vec::new());
    for i in (0..in_sizes.len()).rev() {
        match in_sizes[i] {
            0 => return zeros(in_sizes, g.dtype()),
            1 => {}
            n => {
                isz.insert(0, n);
                ist.insert(0, in_strides[i]);
            }
        }
    }
    let in_overlap = maybe_overlapping(&isz, &ist);
    let shared = (*in_offset).min(*out_offset);
    let (in_eff, out_eff) = (in_offset - shared, out_offset - shared);
    let base = min_storage_size(&isz, &ist, in_eff).max(min_storage_size(&osz, &ost, out_eff));
    let storage = zeros(&[base], g.dtype())?;
    let signed = |v: &[usize]| -> Vec<i64> { v.iter().map(|&x| x as i64).collect() };
    if out_overlap {
        // index_add_: every position of the output adds its gradient.
        scatter_add(&storage, &osz, &ost, out_eff, &g)?;
    } else {
        storage
            .as_strided(&signed(&osz), &signed(&ost), Some(out_eff as i64))?
            .copy_(&g)?;
    }
    if in_overlap {
        let ones = Tensor::full(&isz, crate::Scalar::Int(1), g.dtype())?;
        let count = zeros(&[base], g.dtype())?;
        scatter_add(&count, &isz, &ist, in_eff, &ones)?;
        crate::ops::binary_(crate::ops::BinaryOp::Div, &storage, &count)?;
    }
    storage.as_strided(&signed(in_sizes), &signed(in_strides), Some(in_eff as i64))
}

/// `storage.index_add_(0, positions, values.reshape(-1))` for the positions of a geometry.
fn scatter_add(
    storage: &Tensor,
    sizes: &[usize],
    strides: &[usize],
    offset: usize,
    values: &Tensor,
) -> Result<()> {
    let flat = values.reshape(&[-1])?;
    let numel: usize = sizes.iter().product();
    for linear in 0..numel {
        let mut rest = linear;
        let mut pos = offset;
        for d in (0..sizes.len()).rev() {
            pos += (rest % sizes[d]) * strides[d];
            rest /= sizes[d];
        }
        let cell = storage.slice(0, Some(pos as i64), Some(pos as i64 + 1), 1)?;
        let add = flat.slice(0, Some(linear as i64), Some(linear as i64 + 1), 1)?;
        crate::ops::binary_(
            crate::ops::BinaryOp::Add(crate::Scalar::Int(1)),
            &cell,
            &add,
        )?;
    }
    Ok(())
}

/// `x.view(shape)`: the gradient reshaped back.
pub(crate) fn view(x: &Tensor, shape: &[i64]) -> Result<Tensor> {
    let sizes = signed_sizes(x.shape()).to_vec();
    view_op(
        "ViewBackward0",
        x,
        || x.view(shape),
        move |g| g.reshape(&sizes),
    )
}

/// `x.reshape(shape)`: a view (`_reshape_alias`) when one exists, else `clone` then
/// `_unsafe_view`, each recorded as torch records it.
pub(crate) fn reshape(x: &Tensor, shape: &[i64]) -> Result<Tensor> {
    let out = below(|| x.reshape(shape))?;
    let sizes = signed_sizes(x.shape()).to_vec();
    if out.shares_storage(x) {
        record_unary("ReshapeAliasBackward0", x, &out, move |g| g.reshape(&sizes));
        return Ok(out);
    }
    let copy = below(|| x.contiguous_copy())?;
    record_unary("CloneBackward0", x, &copy, Ok);
    let out = below(|| copy.view(shape))?;
    record_unary("UnsafeViewBackward0", &copy, &out, move |g| {
        g.reshape(&sizes)
    });
    Ok(out)
}

/// `x.alias()` (what Python indexing returns for an index that selects everything).
pub(crate) fn alias(x: &Tensor, out: Tensor) -> Tensor {
    record_unary("AliasBackward0", x, &out, Ok);
    out
}

/// `x.diagonal(0, dim1, dim2)`: zeros of `x`'s shape with the gradient on the diagonal.
pub(crate) fn diagonal(x: &Tensor, dim1: i64, dim2: i64) -> Result<Tensor> {
    let sizes = x.shape().to_vec();
    view_op(
        "DiagonalBackward0",
        x,
        || crate::linalg::diagonal(x, dim1, dim2),
        move |g| {
            let grad_input = zeros(&sizes, g.dtype())?;
            crate::linalg::diagonal(&grad_input, dim1, dim2)?.copy_(&g)?;
            Ok(grad_input)
        },
    )
}

/// `x.clone()`.
pub(crate) fn clone(x: &Tensor) -> Result<Tensor> {
    view_op("CloneBackward0", x, || x.clone_tensor(), Ok)
}

/// `x.contiguous()`: `x` itself when contiguous, else `clone(contiguous_format)`.
pub(crate) fn contiguous(x: &Tensor) -> Result<Tensor> {
    if x.is_contiguous() {
        return Ok(x.clone());
    }
    view_op("CloneBackward0", x, || x.contiguous_copy(), Ok)
}

/// `x.to(dtype)`: `x` itself for its own dtype, else a copy whose gradient goes back to
/// `x`'s dtype (`_to_copy_backward`).
pub(crate) fn to_dtype(x: &Tensor, dtype: DType) -> Result<Tensor> {
    if x.dtype() == dtype {
        return Ok(x.clone());
    }
    if !super::graph::differentiable(dtype) {
        // `_to_copy` to an integer dtype: a result without history, as in torch.
        return below(|| x.to_dtype(dtype));
    }
    let from = x.dtype();
    view_op(
        "ToCopyBackward0",
        x,
        || x.to_dtype(dtype),
        move |g| handle_r_to_c(from, g)?.to_dtype(from),
    )
}

/// `x.repeat(repeats)`: torch's `repeat_backward`.
pub(crate) fn repeat(x: &Tensor, repeats: &[i64]) -> Result<Tensor> {
    let input = x.shape().to_vec();
    let reps = repeats.to_vec();
    view_op(
        "RepeatBackward0",
        x,
        || x.repeat(repeats),
        move |mut g| {
            if reps.contains(&0) {
                return zeros(&input, g.dtype());
            }
            let extra = g.ndim() - input.len();
            for _ in 0..extra {
                g = sum(&g, &[0], false, None)?;
            }
            let (mut grad_size, mut sum_dims) = (Vec::new(), Vec::new());
            for (d, &size) in input.iter().enumerate() {
                let r = reps[d + extra];
                if r != 1 {
                    grad_size.push(r);
                    sum_dims.push(grad_size.len() as i64 - 1);
                }
                grad_size.push(size as i64);
            }
            if !sum_dims.is_empty() {
                g = g.reshape(&grad_size)?;
                g = sum(&g, &sum_dims, false, None)?;
            }
            Ok(g)
        },
    )
}

//! The broadcasting multiply einsum needs (`at::mul`), with the result layout TensorIterator
//! gives a new output: the inputs' dims ordered by stride, dense in that order. A local loop
//! until the shared element-wise plan serves it.

use crate::iter::{perm_alloc, sort_dims, OutputAlloc};
use crate::layout::contiguous_strides;
use crate::reduce::strided_positions;
use crate::shape::infer_size;
use crate::views::infer_dense_strides;
use crate::{alloc, loops, Category, DType, Element, Error, Layout, Result, Scalar, Tensor};

/// The strides of the dims of `layout` broadcast to `shape` (0 for a stretched or missing dim).
fn broadcast_strides(layout: &Layout, shape: &[usize]) -> Vec<usize> {
    let lead = shape.len() - layout.ndim();
    (0..shape.len())
        .map(|d| match d.checked_sub(lead) {
            Some(k) if !(layout.shape()[k] == 1 && shape[d] != 1) => layout.strides()[k],
            _ => 0,
        })
        .collect()
}

/// Channels-last strides for a 4-d shape, as torch allocates them.
fn channels_last_strides(shape: &[usize]) -> Vec<usize> {
    let c = shape[1].max(1);
    let cw = c.saturating_mul(shape[3].max(1));
    vec![cw.saturating_mul(shape[2].max(1)), 1, cw, c]
}

/// The strides TensorIterator gives the new output of an element-wise op whose inputs have
/// `inputs` layouts and broadcast to `shape`. Inputs of the output's shape that share one
/// contiguous, channels-last or dense layout pass it on; otherwise the dims are sorted by the
/// inputs' strides (stride-0 dims do not vote, equal strides put the smaller dim first) and the
/// output is dense in that order.
///
/// ```
/// use bcast_engine::{linalg::elementwise_output_strides, Layout};
/// let col = Layout::new(vec![3, 1], vec![1, 1], 0).unwrap();
/// let row_t = Layout::new(vec![1, 4], vec![1, 1], 0).unwrap();
/// assert_eq!(elementwise_output_strides(&[3, 4], &[&col, &row_t]), vec![4, 1]);
/// let t = Layout::new(vec![3, 4], vec![1, 3], 0).unwrap();
/// assert_eq!(elementwise_output_strides(&[3, 4], &[&t, &col]), vec![1, 3]);
/// ```
pub fn elementwise_output_strides(shape: &[usize], inputs: &[&Layout]) -> Vec<usize> {
    elementwise_output_alloc(shape, inputs, 1)
        .strides()
        .to_vec()
}

/// How TensorIterator allocates that output ([`OutputAlloc`]) for items of `itemsize` bytes:
/// `empty` when it is row-major or channels-last, else `empty_strided` with the strides of
/// [`elementwise_output_strides`] (counted in bytes with wrapping, as torch does).
fn elementwise_output_alloc(shape: &[usize], inputs: &[&Layout], itemsize: usize) -> OutputAlloc {
    let ndim = shape.len();
    if inputs.iter().all(|l| l.shape() == shape) {
        if inputs.iter().all(|l| l.is_contiguous()) {
            return OutputAlloc::Format(contiguous_strides(shape));
        }
        if inputs.iter().all(|l| l.is_channels_last_contiguous()) {
            return OutputAlloc::Format(channels_last_strides(shape));
        }
        if let Some(first) = inputs.first() {
            if inputs.iter().all(|l| l.is_non_overlapping_and_dense())
                && inputs.iter().all(|l| l.strides() == first.strides())
            {
                return OutputAlloc::Strided(first.strides().to_vec());
            }
        }
    }
    let strides: Vec<Vec<usize>> = inputs.iter().map(|l| broadcast_strides(l, shape)).collect();
    let perm = if ndim <= 1 {
        vec![0; ndim]
    } else {
        sort_dims(ndim, |d0, d1| {
            for s in &strides {
                let (s0, s1) = (s[d0], s[d1]);
                if s0 == 0 || s1 == 0 {
                    continue;
                }
                if s0 != s1 {
                    return if s0 < s1 { -1 } else { 1 };
                }
                if shape[d0] > shape[d1] {
                    return 1;
                }
            }
            0
        })
    };
    perm_alloc(shape, &perm, itemsize)
}

/// torch's `result_type` for two tensors: dims-carrying tensors decide, unless a 0-d one is
/// of a higher category (then they promote together).
fn result_type(a: &Tensor, b: &Tensor) -> DType {
    let (dimmed, zero_d): (Vec<DType>, Vec<DType>) = {
        let mut dimmed = Vec::new();
        let mut zero_d = Vec::new();
        for t in [a, b] {
            if t.ndim() > 0 {
                dimmed.push(t.dtype());
            } else {
                zero_d.push(t.dtype());
            }
        }
        (dimmed, zero_d)
    };
    let fold = |v: &[DType]| v.iter().copied().reduce(DType::promote);
    match (fold(&dimmed), fold(&zero_d)) {
        (Some(hi), Some(lo))
            if hi.category() == Category::Bool || lo.category() > hi.category() =>
        {
            hi.promote(lo)
        }
        (Some(hi), _) => hi,
        (None, Some(lo)) => lo,
        (None, None) => a.dtype(),
    }
}

/// `x.to(dtype)`: `x` itself when it has the dtype, else a copy that keeps a dense layout's
/// strides and the memory order of any other (`preserve_format`).
fn converted(x: &Tensor, dtype: DType) -> Result<Tensor> {
    if x.dtype() == dtype {
        return Ok(x.clone());
    }
    let strides = if x.layout().is_non_overlapping_and_dense() {
        x.strides().to_vec()
    } else {
        infer_dense_strides(x.shape(), x.strides())
    };
    let out = alloc::empty_strided(x.shape(), &strides, dtype)?;
    loops::copy_into(&out, x)?;
    Ok(out)
}

/// Multiplication in one dtype: `and` for bool, wrapping for `int64`.
trait Multiply: Element {
    fn times(self, other: Self) -> Self;
}

impl Multiply for bool {
    fn times(self, other: bool) -> bool {
        self & other
    }
}

impl Multiply for i64 {
    fn times(self, other: i64) -> i64 {
        self.wrapping_mul(other)
    }
}

impl Multiply for f32 {
    fn times(self, other: f32) -> f32 {
        self * other
    }
}

impl Multiply for f64 {
    fn times(self, other: f64) -> f64 {
        self * other
    }
}

/// `torch.mul(a, b)`: broadcast, promote, multiply, into a new tensor laid out as
/// [`elementwise_output_strides`] says.
///
/// # Errors
/// Shapes that do not broadcast.
pub(crate) fn broadcast_mul(a: &Tensor, b: &Tensor) -> Result<Tensor> {
    let shape = infer_size(a.shape(), b.shape())?;
    let dtype = result_type(a, b);
    // TensorIterator promotes inputs by converting them first; the copies' layouts then decide
    // the output's.
    let (a, b) = (&converted(a, dtype)?, &converted(b, dtype)?);
    let layout = elementwise_output_alloc(&shape, &[a.layout(), b.layout()], dtype.itemsize());
    let out = layout.allocate(&shape, dtype)?;
    let strides = layout.strides();
    let a_pos = strided_positions(&shape, &broadcast_strides(a.layout(), &shape), a.offset());
    let b_pos = strided_positions(&shape, &broadcast_strides(b.layout(), &shape), b.offset());
    let out_pos = strided_positions(&shape, strides, 0);
    // Read both operands before writing: the output is new memory, but an operand may be
    // viewed twice.
    let pairs = {
        let (a_buf, b_buf) = (a.storage().read(), b.storage().read());
        a_pos
            .iter()
            .zip(&b_pos)
            .map(|(&i, &j)| Some((a_buf.get(i)?, b_buf.get(j)?)))
            .collect::<Option<Vec<(Scalar, Scalar)>>>()
            .ok_or_else(|| Error::internal("broadcast_mul: operand view out of bounds"))?
    };
    {
        let mut buffer = out.storage().write();
        crate::element::dispatch_legacy!(dtype, T => {
            let data = buffer
                .as_mut_slice::<T>()
                .ok_or_else(|| Error::internal("broadcast_mul: output dtype"))?;
            for (&p, &(x, y)) in out_pos.iter().zip(&pairs) {
                data[p] = T::from_scalar(x).times(T::from_scalar(y));
            }
        }, other => return Err(Error::unsupported_dtype("einsum", other)));
    }
    Ok(out)
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Was the doctest of `broadcast_mul` while it was public.
    #[test]
    fn promotes_and_broadcasts() {
        let a = Tensor::from_vec(vec![1i64, 2, 3], &[3, 1]).unwrap();
        let b = Tensor::from_vec(vec![0.5f32, 2.0], &[1, 2]).unwrap();
        let c = broadcast_mul(&a, &b).unwrap();
        assert_eq!((c.shape(), c.dtype()), (&[3, 2][..], DType::Float32));
        assert_eq!(
            c.to_vec::<f32>().unwrap(),
            vec![0.5, 2.0, 1.0, 4.0, 1.5, 6.0]
        );
    }
}

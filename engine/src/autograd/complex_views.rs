//! The complex views torch's formulas take: `conj()` (a conjugate bit over the same memory)
//! and `at::real()` (a float view with doubled strides), which the engine, whose storages
//! are typed, makes as the same geometry over a copy of the storage.

use crate::complex::Complex;
use crate::half::Half;
use crate::{Buffer, DType, Error, Layout, Result, Storage, Tensor};
use std::cell::RefCell;

thread_local! {
    /// The real views made since the last [`take_real_views`]: the float copy, then the
    /// complex storage it stands for.
    static REAL_VIEWS: RefCell<Vec<(Storage, Storage)>> = const { RefCell::new(Vec::new()) };
}

/// `t.conj()` as the element-wise ops of torch's formulas take it: `t` itself for a real
/// tensor; for a complex one, its conjugate as `resolve_conj` makes it, which torch's
/// conjugate fallback does for every op but views, copies and the BLAS products (`mm`,
/// `bmm`, `dot`, which take the bit themselves and whose results' layouts do not depend on
/// it). So a dense `t` keeps its strides, and any other is laid out as `empty_like` lays it
/// out: `grad * other.conj()` with an `other` of strides `[5, 1, 16]` and shape `[4, 1, 1]`
/// takes TensorIterator's strides from `[1, 1, 4]`, not from `other`'s.
pub(crate) fn conj(t: &Tensor) -> Result<Tensor> {
    let view = conj_view(t)?;
    if !t.dtype().is_complex() || t.layout().is_non_overlapping_and_dense() {
        return Ok(view);
    }
    let resolved = view.empty_like(view.dtype())?;
    crate::loops::copy_into(&resolved, &view)?;
    Ok(resolved)
}

/// The same layout as `t` over a conjugated copy of its storage (torch's conjugate view).
fn conj_view(t: &Tensor) -> Result<Tensor> {
    if !t.dtype().is_complex() {
        return Ok(t.clone());
    }
    let buffer = match &*t.storage().read() {
        Buffer::Complex32(v) => Buffer::Complex32(
            v.iter()
                .map(|z| Complex::new(z.re, Half(z.im.0 ^ 0x8000)))
                .collect(),
        ),
        Buffer::Complex64(v) => {
            Buffer::Complex64(v.iter().map(|z| Complex::new(z.re, -z.im)).collect())
        }
        Buffer::Complex128(v) => {
            Buffer::Complex128(v.iter().map(|z| Complex::new(z.re, -z.im)).collect())
        }
        _ => return Err(Error::internal("a complex tensor over a real buffer")),
    };
    Tensor::from_storage(&Storage::new(buffer), t.layout().clone())
}

/// `at::real(t)` of a complex tensor: a float tensor of its dtype's real part, with doubled
/// strides and offset over the storage's parts as pairs (a copy, remembered as a view of the
/// complex storage: see [`Graph::storage_of`](super::Graph::storage_of)).
pub(crate) fn real(t: &Tensor) -> Result<Tensor> {
    let buffer = match &*t.storage().read() {
        Buffer::Complex32(v) => Buffer::Float16(v.iter().flat_map(|z| [z.re, z.im]).collect()),
        Buffer::Complex64(v) => Buffer::Float32(v.iter().flat_map(|z| [z.re, z.im]).collect()),
        Buffer::Complex128(v) => Buffer::Float64(v.iter().flat_map(|z| [z.re, z.im]).collect()),
        _ => return Ok(t.clone()),
    };
    let storage = Storage::new(buffer);
    let strides: Vec<usize> = t.strides().iter().map(|&s| s * 2).collect();
    let layout = Layout::new(t.shape().to_vec(), strides, t.offset() * 2)?;
    REAL_VIEWS.with(|r| r.borrow_mut().push((storage.clone(), t.storage().clone())));
    Tensor::from_storage(&storage, layout)
}

/// The real views made since the last call.
pub(super) fn take_real_views() -> Vec<(Storage, Storage)> {
    REAL_VIEWS.with(|r| std::mem::take(&mut *r.borrow_mut()))
}

/// torch's `handle_r_to_c`: the real part of a complex gradient of a real input.
pub(crate) fn handle_r_to_c(input: DType, grad: Tensor) -> Result<Tensor> {
    if !input.is_complex() && grad.dtype().is_complex() {
        real(&grad)
    } else {
        Ok(grad)
    }
}

/// The real and imaginary parts of a complex tensor as float tensors laid out as it is
/// (`at::real` and `at::imag` are views: a mask made from them takes `t`'s memory order), for
/// masks.
pub(crate) fn parts(t: &Tensor) -> Result<(Tensor, Tensor)> {
    let (re, im): (Buffer, Buffer) = match &*t.storage().read() {
        Buffer::Complex32(v) => (
            Buffer::Float16(v.iter().map(|z| z.re).collect()),
            Buffer::Float16(v.iter().map(|z| z.im).collect()),
        ),
        Buffer::Complex64(v) => (
            Buffer::Float32(v.iter().map(|z| z.re).collect()),
            Buffer::Float32(v.iter().map(|z| z.im).collect()),
        ),
        Buffer::Complex128(v) => (
            Buffer::Float64(v.iter().map(|z| z.re).collect()),
            Buffer::Float64(v.iter().map(|z| z.im).collect()),
        ),
        _ => return Err(Error::internal("parts of a real tensor")),
    };
    Ok((
        Tensor::from_storage(&Storage::new(re), t.layout().clone())?,
        Tensor::from_storage(&Storage::new(im), t.layout().clone())?,
    ))
}

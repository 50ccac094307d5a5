//! The Rust side of `shim.cpp`: storage geometry and exception classes that tch does not
//! expose.

use super::raw::RawScalar;
use std::ffi::{c_char, c_int, c_void, CStr};
use tch::Tensor;

mod ffi {
    use std::ffi::{c_char, c_int, c_void};

    unsafe extern "C" {
        pub fn bcast_tch_reset_exception_class();
        pub fn bcast_tch_last_exception_class() -> *const c_char;
        pub fn bcast_tch_throw_hook_active() -> c_int;
        pub fn bcast_tch_storage_data(t: *const c_void) -> *const c_void;
        pub fn bcast_tch_storage_offset(t: *const c_void) -> i64;
        pub fn bcast_tch_quiet();
        pub fn bcast_tch_bool_scalar(value: c_int) -> *mut c_void;
        pub fn bcast_tch_complex_scalar(re: f64, im: f64) -> *mut c_void;
        pub fn bcast_tch_torch_version() -> *const c_char;
        pub fn bcast_tch_wrapped_number(scalar: *const c_void) -> *mut c_void;
        pub fn bcast_tch_add_alpha(
            result: *mut *mut c_void,
            this: *mut c_void,
            other: *mut c_void,
            alpha: *const c_void,
            op: c_int,
            form: c_int,
            out: *mut c_void,
        );
        pub fn bcast_tch_item_scalar(t: *const c_void) -> *mut c_void;
        pub fn bcast_tch_clone(result: *mut *mut c_void, t: *const c_void);
        pub fn bcast_tch_autograd_grad(
            outputs: *const *mut c_void,
            grad_outputs: *const *mut c_void,
            n_outputs: c_int,
            inputs: *const *mut c_void,
            n_inputs: c_int,
            grads: *mut *mut c_void,
        );
        pub fn bcast_tch_clamp(
            result: *mut *mut c_void,
            this: *mut c_void,
            min: *const c_void,
            max: *const c_void,
            form: c_int,
            out: *mut c_void,
        );
        pub fn bcast_tch_addc(
            result: *mut *mut c_void,
            div: c_int,
            this: *mut c_void,
            t1: *mut c_void,
            t2: *mut c_void,
            value: *const c_void,
            form: c_int,
            out: *mut c_void,
        );
    }
}

/// Forgets the class of the last C++ exception (call before running an op).
pub fn reset_exception_class() {
    // SAFETY: touches only the shim's own thread-local and atomic.
    unsafe { ffi::bcast_tch_reset_exception_class() }
}

/// The Python class torch's bindings raise for the last C++ exception libtorch threw, if any
/// was thrown since [`reset_exception_class`].
pub fn last_exception_class() -> Option<&'static str> {
    // SAFETY: the shim returns null or a pointer to a static NUL-terminated literal.
    unsafe {
        let p: *const c_char = ffi::bcast_tch_last_exception_class();
        (!p.is_null()).then(|| CStr::from_ptr(p).to_str().unwrap_or("RuntimeError"))
    }
}

/// Whether libtorch's throws reach the shim (the executable was linked with the export that
/// `build.rs` asks for). Without it every error would read as a RuntimeError.
pub fn throw_hook_active() -> bool {
    // SAFETY: a dlsym lookup.
    unsafe { ffi::bcast_tch_throw_hook_active() != 0 }
}

/// Drops libtorch warnings on this thread (the corpus ignores them, as Python's runs do) and
/// stops errors from collecting stack frames (only the message before them is kept).
pub fn quiet() {
    // SAFETY: installs a static warning handler and a stack trace fetcher.
    unsafe { ffi::bcast_tch_quiet() }
}

/// The data pointer of `t`'s storage (null for none or an empty one), as an address.
pub fn storage_address(t: &Tensor) -> usize {
    // SAFETY: a tch tensor's pointer is a live `at::Tensor*`.
    unsafe { ffi::bcast_tch_storage_data(t.as_ptr() as *const c_void) as usize }
}

/// `t`'s offset into its storage, in elements.
pub fn storage_offset(t: &Tensor) -> i64 {
    // SAFETY: a tch tensor's pointer is a live `at::Tensor*`.
    unsafe { ffi::bcast_tch_storage_offset(t.as_ptr() as *const c_void) }
}

/// A new bool Scalar (free it with `torch_sys::ats_free`).
///
/// # Safety
/// The caller owns the returned pointer and must free it exactly once.
pub unsafe fn bool_scalar(value: bool) -> *mut torch_sys::C_scalar {
    ffi::bcast_tch_bool_scalar(value as c_int) as *mut torch_sys::C_scalar
}

/// A new complex<double> Scalar, as Python's parser makes of a Python complex (free it with
/// `torch_sys::ats_free`).
///
/// # Safety
/// The caller owns the returned pointer and must free it exactly once.
pub unsafe fn complex_scalar(re: f64, im: f64) -> *mut torch_sys::C_scalar {
    ffi::bcast_tch_complex_scalar(re, im) as *mut torch_sys::C_scalar
}

/// The 0-d wrapped-number tensor Python makes of `scalar` for a Tensor parameter.
pub fn wrapped_number(scalar: *const torch_sys::C_scalar) -> Option<Tensor> {
    // SAFETY: `scalar` is a live Scalar; the shim returns a new `at::Tensor*` or null, and
    // the tch tensor takes ownership of it.
    unsafe {
        let t = ffi::bcast_tch_wrapped_number(scalar as *const c_void);
        (!t.is_null()).then(|| Tensor::from_ptr(t as *mut torch_sys::C_tensor))
    }
}

/// Where a shim call writes its result.
#[derive(Debug, Clone, Copy)]
pub enum Destination<'a> {
    /// `torch.add(x, y, alpha=a)`: a new tensor.
    Plain,
    /// `x.add_(y, alpha=a)`: into `x`.
    InPlace,
    /// `torch.add(x, y, alpha=a, out=o)`: into `o`.
    Out(&'a Tensor),
}

impl Destination<'_> {
    /// The shim's form code and `out` pointer (null unless [`Destination::Out`]).
    fn code(self) -> (c_int, *mut c_void) {
        match self {
            Destination::Plain => (0, std::ptr::null_mut()),
            Destination::InPlace => (1, std::ptr::null_mut()),
            Destination::Out(o) => (2, o.as_ptr() as *mut c_void),
        }
    }
}

/// Which op takes `alpha`.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum AlphaOp {
    /// `x + alpha * y`.
    Add = 0,
    /// `x - alpha * y`.
    Sub = 1,
    /// `torch.rsub(x, y, alpha=a)`: `y - alpha * x` (a function only: [`Destination::Plain`]).
    Rsub = 2,
}

/// `at::add`, `at::sub` or `at::rsub` of `x` and `y` with `alpha`, as Python calls them; the
/// error is libtorch's.
pub fn add_alpha(
    x: &Tensor,
    y: &Tensor,
    alpha: &RawScalar,
    op: AlphaOp,
    form: Destination<'_>,
) -> Result<Tensor, tch::TchError> {
    let (code, out) = form.code();
    super::raw::call(|result| {
        // SAFETY: every pointer is a live `at::Tensor*` / `at::Scalar*` (or null `out` when
        // unused); the shim writes a new handle to `result[0]` or sets libtch's error slot.
        unsafe {
            ffi::bcast_tch_add_alpha(
                result as *mut *mut c_void,
                x.as_ptr() as *mut c_void,
                y.as_ptr() as *mut c_void,
                alpha.as_ptr() as *const c_void,
                op as c_int,
                code,
                out,
            )
        }
    })
}

/// `torch.clamp(x, min, max)` with number bounds, either `None`; the error is libtorch's.
pub fn clamp(
    x: &Tensor,
    min: Option<&RawScalar>,
    max: Option<&RawScalar>,
    form: Destination<'_>,
) -> Result<Tensor, tch::TchError> {
    let (code, out) = form.code();
    let bound = |b: Option<&RawScalar>| b.map_or(std::ptr::null(), |s| s.as_ptr() as *const c_void);
    super::raw::call(|result| {
        // SAFETY: live `at::Tensor*` / `at::Scalar*` pointers, null for an absent bound or an
        // unused `out`; the shim writes a new handle to `result[0]` or sets libtch's error slot.
        unsafe {
            ffi::bcast_tch_clamp(
                result as *mut *mut c_void,
                x.as_ptr() as *mut c_void,
                bound(min),
                bound(max),
                code,
                out,
            )
        }
    })
}

/// `torch.addcmul(x, t1, t2, value=v)` (or `addcdiv` with `div`); the error is libtorch's.
pub fn addc(
    div: bool,
    x: &Tensor,
    t1: &Tensor,
    t2: &Tensor,
    value: &RawScalar,
    form: Destination<'_>,
) -> Result<Tensor, tch::TchError> {
    let (code, out) = form.code();
    super::raw::call(|result| {
        // SAFETY: as in `clamp`.
        unsafe {
            ffi::bcast_tch_addc(
                result as *mut *mut c_void,
                div as c_int,
                x.as_ptr() as *mut c_void,
                t1.as_ptr() as *mut c_void,
                t2.as_ptr() as *mut c_void,
                value.as_ptr() as *const c_void,
                code,
                out,
            )
        }
    })
}

/// The Scalar Python's argument parser makes of a 0-d tensor passed for a Scalar parameter
/// (`t.item()`), or null with libtch's error slot set.
///
/// # Safety
/// The caller owns a non-null result and must free it exactly once.
pub unsafe fn item_scalar(t: &Tensor) -> *mut torch_sys::C_scalar {
    ffi::bcast_tch_item_scalar(t.as_ptr() as *const c_void) as *mut torch_sys::C_scalar
}

/// `t.clone()`, as Python calls it; the error is libtorch's.
pub fn clone(t: &Tensor) -> Result<Tensor, tch::TchError> {
    super::raw::call(|result| {
        // SAFETY: a live `at::Tensor*`; the shim writes a new handle to `result[0]` or sets
        // libtch's error slot.
        unsafe { ffi::bcast_tch_clone(result as *mut *mut c_void, t.as_ptr() as *const c_void) }
    })
}

/// `torch.autograd.grad(outputs, inputs, upstream, allow_unused=True)`: each input's
/// gradient, `None` where the outputs do not depend on it; the error is libtorch's.
pub fn autograd_grad(
    outputs: &[(&Tensor, &Tensor)],
    inputs: &[&Tensor],
) -> Result<Vec<Option<Tensor>>, tch::TchError> {
    let handles = |ts: &mut dyn Iterator<Item = &Tensor>| -> Vec<*mut c_void> {
        ts.map(|t| t.as_ptr() as *mut c_void).collect()
    };
    let outs = handles(&mut outputs.iter().map(|(o, _)| *o));
    let upstream = handles(&mut outputs.iter().map(|(_, g)| *g));
    let leaves = handles(&mut inputs.iter().copied());
    let mut grads: Vec<*mut c_void> = vec![std::ptr::null_mut(); inputs.len()];
    let (n_outputs, n_inputs) = (
        c_int::try_from(outs.len()).unwrap_or(c_int::MAX),
        c_int::try_from(leaves.len()).unwrap_or(c_int::MAX),
    );
    // SAFETY: live `at::Tensor*` handles, `grads` with room for one handle per input; the
    // shim writes a new handle (or null) to each, or sets libtch's error slot and writes none.
    unsafe {
        ffi::bcast_tch_autograd_grad(
            outs.as_ptr(),
            upstream.as_ptr(),
            n_outputs,
            leaves.as_ptr(),
            n_inputs,
            grads.as_mut_ptr(),
        )
    };
    if let Some(e) = super::raw::take_last_error() {
        return Err(e);
    }
    // SAFETY: each non-null handle is a new `at::Tensor*` this call owns.
    Ok(grads
        .into_iter()
        .map(|p| (!p.is_null()).then(|| unsafe { Tensor::from_ptr(p as *mut torch_sys::C_tensor) }))
        .collect())
}

/// The version of the libtorch this binary links ("2.13.0").
pub fn torch_version() -> String {
    // SAFETY: the shim returns a static NUL-terminated literal.
    unsafe { CStr::from_ptr(ffi::bcast_tch_torch_version()) }
        .to_string_lossy()
        .into_owned()
}

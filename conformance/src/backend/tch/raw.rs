//! Scalar-taking libtorch ops, called through torch-sys. tch's wrappers take a tch `Scalar`,
//! which cannot hold a bool (Python's `True` is a bool Scalar: it promotes as bool, and `sub`
//! rejects it), and they panic instead of returning the error when the op fails (the
//! temporary Scalar is dropped, and its drop unwraps libtch's pending error, before the
//! wrapper reads that error). Here the Scalar outlives the call and the error is read first.

use super::{shim, Number};
use std::ffi::{c_void, CStr};
use tch::{TchError, Tensor};
use torch_sys::{C_scalar, C_tensor};

/// A libtorch Scalar owned here.
#[derive(Debug)]
pub struct RawScalar(*mut C_scalar);

impl RawScalar {
    /// The Scalar Python makes of a number: int64, double, bool or complex<double>.
    pub fn new(n: Number) -> RawScalar {
        // SAFETY: each constructor returns a new heap Scalar that this value owns.
        RawScalar(unsafe {
            match n {
                Number::Int(i) => torch_sys::ats_int(i),
                Number::Float(f) => torch_sys::ats_float(f),
                Number::Bool(b) => shim::bool_scalar(b),
                Number::Complex(re, im) => shim::complex_scalar(re, im),
            }
        })
    }

    /// The Scalar Python's argument parser makes of a 0-d tensor passed for a Scalar
    /// parameter (`t.item()`); the error is libtorch's.
    pub fn item_of(t: &Tensor) -> Result<RawScalar, TchError> {
        // SAFETY: the shim returns a new heap Scalar that this value owns, or null.
        let p = unsafe { shim::item_scalar(t) };
        match take_last_error() {
            Some(e) => Err(e),
            None if p.is_null() => Err(TchError::Torch("item() returned no Scalar".into())),
            None => Ok(RawScalar(p)),
        }
    }

    /// The pointer libtch's functions take (they read the Scalar, never free it).
    pub fn as_ptr(&self) -> *mut C_scalar {
        self.0
    }

    /// The 0-d wrapped-number tensor Python makes of the number for a Tensor parameter.
    pub fn wrapped(&self) -> Result<Tensor, TchError> {
        shim::wrapped_number(self.0)
            .ok_or_else(|| TchError::Torch("cannot make a wrapped number".to_string()))
    }
}

impl Drop for RawScalar {
    fn drop(&mut self) {
        // SAFETY: the Scalar was allocated by libtch or the shim with `new` and is freed once.
        unsafe { torch_sys::ats_free(self.0) }
    }
}

/// The pointer of a tensor as libtch's functions take it (they do not free it).
pub fn ptr(t: &Tensor) -> *mut C_tensor {
    t.as_ptr() as *mut C_tensor
}

/// Runs a torch-sys call that writes one new tensor to its first argument; returns that
/// tensor, or the error libtorch raised.
pub fn call(f: impl FnOnce(*mut *mut C_tensor)) -> Result<Tensor, TchError> {
    let mut out = [std::ptr::null_mut(); 1];
    f(out.as_mut_ptr());
    if let Some(e) = take_last_error() {
        return Err(e);
    }
    if out[0].is_null() {
        return Err(TchError::Torch("libtch returned no tensor".to_string()));
    }
    // SAFETY: libtch allocated the tensor handle for the caller, who now owns it.
    Ok(unsafe { Tensor::from_ptr(out[0]) })
}

/// The error libtch's (or the shim's) last call on this thread left, if any, cleared.
pub(super) fn take_last_error() -> Option<TchError> {
    // SAFETY: libtch hands over a malloc'ed message (or null), which is freed here once.
    unsafe {
        let err = torch_sys::get_and_reset_last_err();
        if err.is_null() {
            return None;
        }
        let message = CStr::from_ptr(err).to_string_lossy().into_owned();
        libc::free(err as *mut c_void);
        Some(TchError::Torch(message))
    }
}

/// `f(out__, self, scalar)` as a closure over `(&Tensor, &RawScalar)`.
macro_rules! tensor_scalar {
    ($f:ident) => {
        |x: &Tensor, s: &$crate::backend::tch::raw::RawScalar| {
            $crate::backend::tch::raw::call(|o| unsafe {
                torch_sys::c_generated::$f(o, $crate::backend::tch::raw::ptr(x), s.as_ptr())
            })
        }
    };
}

/// `f(out__, out, self, scalar)` as a closure over `(&Tensor, &Tensor, &RawScalar)`.
macro_rules! tensor_scalar_out {
    ($f:ident) => {
        |out: &Tensor, x: &Tensor, s: &$crate::backend::tch::raw::RawScalar| {
            $crate::backend::tch::raw::call(|o| unsafe {
                torch_sys::c_generated::$f(
                    o,
                    $crate::backend::tch::raw::ptr(out),
                    $crate::backend::tch::raw::ptr(x),
                    s.as_ptr(),
                )
            })
        }
    };
}

/// `f(out__, scalar, other)` as a closure over `(&RawScalar, &Tensor)`.
macro_rules! scalar_tensor {
    ($f:ident) => {
        |s: &$crate::backend::tch::raw::RawScalar, y: &Tensor| {
            $crate::backend::tch::raw::call(|o| unsafe {
                torch_sys::c_generated::$f(o, s.as_ptr(), $crate::backend::tch::raw::ptr(y))
            })
        }
    };
}

/// `f(out__, out, scalar, other)` as a closure over `(&Tensor, &RawScalar, &Tensor)`.
macro_rules! scalar_tensor_out {
    ($f:ident) => {
        |out: &Tensor, s: &$crate::backend::tch::raw::RawScalar, y: &Tensor| {
            $crate::backend::tch::raw::call(|o| unsafe {
                torch_sys::c_generated::$f(
                    o,
                    $crate::backend::tch::raw::ptr(out),
                    s.as_ptr(),
                    $crate::backend::tch::raw::ptr(y),
                )
            })
        }
    };
}

pub(crate) use {scalar_tensor, scalar_tensor_out, tensor_scalar, tensor_scalar_out};

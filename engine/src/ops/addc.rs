//! `torch.addcmul(x, t1, t2, value=v)` (`x + v * t1 * t2`) and `torch.addcdiv` (`x + v * t1 /
//! t2`): three operands that broadcast and promote, `value` a Python number converted to the
//! result dtype (to `float32` for `float16` and `bfloat16`, which compute in it). On floats
//! `addcmul` rounds as torch's kernel does: `fma(v * t1, t2, x)`, one rounding for the product
//! by `t2` and the sum, at every position (vectorised loop and tail alike); `addcdiv` rounds
//! each step (`x + (v * t1) / t2`).
//!
//! ```
//! use bcast_engine::ops::{addc, AddcOp};
//! use bcast_engine::{Scalar, Tensor};
//! let x = Tensor::from_vec(vec![1i32, 2], &[2]).unwrap();
//! let r = addc(AddcOp::Mul, &x, &x, &x, Scalar::Int(2), None).unwrap();
//! assert_eq!(r.to_vec::<i32>().unwrap(), vec![3, 10]);
//! let e = addc(AddcOp::Div, &x, &x, &x, Scalar::Int(1), None).unwrap_err();
//! assert!(e.message().starts_with("Integer division with addcdiv is no longer supported"));
//! ```

use super::complex_math as c;
use super::integer::Int;
use super::not_implemented;
use super::real::Real;
use crate::complex::Complex;
use crate::half::{BFloat16, Half};
use crate::iter::{IterConfig, IterInput, IterSetup};
use crate::loops::map_ternary;
use crate::result_type::is_integral_or_bool;
use crate::{DType, Element, Error, Result, Scalar, Tensor};

/// Which of the two ops.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum AddcOp {
    /// `torch.addcmul`.
    Mul,
    /// `torch.addcdiv`.
    Div,
}

impl AddcOp {
    /// torch's name.
    pub fn name(self) -> &'static str {
        match self {
            AddcOp::Mul => "addcmul",
            AddcOp::Div => "addcdiv",
        }
    }

    /// Parses [`AddcOp::name`].
    pub fn from_name(name: &str) -> Option<AddcOp> {
        [AddcOp::Mul, AddcOp::Div]
            .into_iter()
            .find(|op| op.name() == name)
    }

    fn kernel(self) -> &'static str {
        match self {
            AddcOp::Mul => "addcmul_cpu_out",
            AddcOp::Div => "addcdiv_cpu_out",
        }
    }
}

/// `torch.addcmul(x, t1, t2, value=value, out=out)` or `torch.addcdiv(...)`.
///
/// # Errors
/// torch's, in its order: `addcdiv` of two integral (or bool) tensors; overlap of `out`;
/// shapes that do not broadcast; the shape of `out`; a result dtype `out` cannot hold; a dtype
/// without a kernel (`"addcmul_cpu_out" not implemented for 'Bool'`); a `value` the dtype
/// cannot hold.
pub fn addc(
    op: AddcOp,
    x: &Tensor,
    t1: &Tensor,
    t2: &Tensor,
    value: Scalar,
    out: Option<&Tensor>,
) -> Result<Tensor> {
    if crate::autograd::recording() {
        return crate::autograd::ternary::addc(op, x, t1, t2, value, out);
    }
    if op == AddcOp::Div && is_integral_or_bool(t1.dtype()) && is_integral_or_bool(t2.dtype()) {
        return Err(Error::runtime("Integer division with addcdiv is no longer supported, and in a future  release addcdiv will perform a true division of tensor1 and tensor2. The historic addcdiv behavior can be implemented as (input + value * torch.trunc(tensor1 / tensor2)).to(input.dtype) for integer inputs and as (input + value * tensor1 / tensor2) for float inputs. The future addcdiv behavior is just the latter implementation: (input + value * tensor1 / tensor2), for all dtypes."));
    }
    let inputs = vec![
        IterInput::tensor(x),
        IterInput::tensor(t1),
        IterInput::tensor(t2),
    ];
    let mut setup = IterSetup::new(IterConfig::default(), out, inputs)?;
    let dtype = setup.result_type();
    setup.check_safe_cast(dtype)?;
    setup.compute_output_in(dtype)?;
    setup.promote_inputs(dtype)?;
    let iter = setup.finish(dtype)?;
    let out = iter.output();
    let [a, b, d] = [0, 1, 2].map(|k| iter.inputs()[k].as_tensor());
    // torch's `ComplexHalf` has `addcmul` and not `addcdiv`.
    if dtype == DType::Bool || (dtype == DType::Complex32 && op == AddcOp::Div) {
        return Err(not_implemented(op.kernel(), dtype));
    }
    value.check_fits(if dtype.is_reduced_float() {
        DType::Float32
    } else {
        dtype
    })?;
    match dtype {
        DType::UInt8 => int::<u8>(op, out, a, b, d, value)?,
        DType::Int8 => int::<i8>(op, out, a, b, d, value)?,
        DType::Int16 => int::<i16>(op, out, a, b, d, value)?,
        DType::Int32 => int::<i32>(op, out, a, b, d, value)?,
        DType::Int64 => int::<i64>(op, out, a, b, d, value)?,
        DType::Float16 => reduced::<Half>(op, out, a, b, d, value)?,
        DType::BFloat16 => reduced::<BFloat16>(op, out, a, b, d, value)?,
        DType::Float32 => real::<f32>(op, out, a, b, d, value)?,
        DType::Float64 => real::<f64>(op, out, a, b, d, value)?,
        DType::Complex32 => complex_half(out, a, b, d, value)?,
        DType::Complex64 => complex::<f32>(op, out, a, b, d, value)?,
        DType::Complex128 => complex::<f64>(op, out, a, b, d, value)?,
        DType::Bool => return Err(not_implemented(op.kernel(), dtype)),
    }
    iter.into_result()
}

/// `x.addcmul_(t1, t2, value=value)` or `x.addcdiv_(...)`.
///
/// # Errors
/// As for [`addc`], with `x` as the output.
pub fn addc_(op: AddcOp, x: &Tensor, t1: &Tensor, t2: &Tensor, value: Scalar) -> Result<Tensor> {
    if crate::autograd::recording() {
        return crate::autograd::ternary::addc_(op, x, t1, t2, value);
    }
    addc(op, x, t1, t2, value, Some(x))
}

fn int<T: Int>(
    op: AddcOp,
    out: &Tensor,
    a: &Tensor,
    b: &Tensor,
    d: &Tensor,
    v: Scalar,
) -> Result<()> {
    if op == AddcOp::Div {
        return Err(Error::internal("integer addcdiv reached its loop"));
    }
    let v = T::from_scalar(v);
    map_ternary(out, a, b, d, move |x: T, y: T, z: T| {
        x.wadd(v.wmul(y).wmul(z))
    })
}

/// One element of a float `addcmul` (`fma(v * y, z, x)`, torch's `fmadd`) or `addcdiv`.
#[inline]
fn real_op<T: Real>(op: AddcOp, v: T, x: T, y: T, z: T) -> T {
    match op {
        AddcOp::Mul => (v * y).mul_add(z, x),
        AddcOp::Div => x + v * y / z,
    }
}

fn real<T: Real>(
    op: AddcOp,
    out: &Tensor,
    a: &Tensor,
    b: &Tensor,
    d: &Tensor,
    v: Scalar,
) -> Result<()> {
    let v = T::from_scalar(v);
    map_ternary(out, a, b, d, move |x: T, y: T, z: T| {
        real_op(op, v, x, y, z)
    })
}

fn reduced<T: Element>(
    op: AddcOp,
    out: &Tensor,
    a: &Tensor,
    b: &Tensor,
    d: &Tensor,
    v: Scalar,
) -> Result<()> {
    let v = f32::from_scalar(v);
    map_ternary(out, a, b, d, move |x: T, y: T, z: T| {
        T::from_f32(real_op(
            op,
            v,
            x.cast::<f32>(),
            y.cast::<f32>(),
            z.cast::<f32>(),
        ))
    })
}

/// `complex32` `addcmul`: `x + v * y * z` in `c10::complex<c10::Half>`, each operation
/// rounded to `float16` ([`super::complex_half`]).
fn complex_half(out: &Tensor, a: &Tensor, b: &Tensor, d: &Tensor, v: Scalar) -> Result<()> {
    use super::complex_half as h;
    let v = h::C32::from_scalar(v);
    map_ternary(out, a, b, d, move |x: h::C32, y: h::C32, z: h::C32| {
        h::add(x, h::mul(h::mul(v, y), z))
    })
}

fn complex<T: Real>(
    op: AddcOp,
    out: &Tensor,
    a: &Tensor,
    b: &Tensor,
    d: &Tensor,
    v: Scalar,
) -> Result<()>
where
    Complex<T>: Element,
{
    let v = Complex::<T>::from_scalar(v);
    map_ternary(
        out,
        a,
        b,
        d,
        move |x: Complex<T>, y: Complex<T>, z: Complex<T>| {
            let vy = c::mul(v, y);
            match op {
                AddcOp::Mul => c::add(x, c::mul(vy, z)),
                AddcOp::Div => c::add(x, c::div(vy, z)),
            }
        },
    )
}

//! The two `pow` forms with a Python number: `pow(tensor, number)` (a one-input op on the
//! base converted to the result dtype, with fast paths for exponents 0 and 1) and
//! `pow(number, tensor)` (an output shaped and laid out like the exponent, row-major).

use super::binary::binary_inputs;
use super::integer;
use super::integer::Int;
use super::real::{self, Real};
use super::{not_implemented, BinaryOp, Operand};
use crate::complex::Complex;
use crate::half::{BFloat16, Half};
use crate::iter::{IterConfig, IterInput, IterSetup};
use crate::layout::contiguous_strides;
use crate::loops::map_unary;
use crate::result_type::{is_integral_or_bool, result_type, Participant};
use crate::{alloc, loops, resize, DType, Element, Error, Result, Scalar, Tensor};

fn is_zero(s: Scalar) -> bool {
    match s {
        Scalar::Bool(b) => !b,
        Scalar::Int(i) => i == 0,
        Scalar::Float(f) => f == 0.0,
        Scalar::Complex(re, im) => re == 0.0 && im == 0.0,
    }
}

fn is_one(s: Scalar) -> bool {
    match s {
        Scalar::Bool(b) => b,
        Scalar::Int(i) => i == 1,
        Scalar::Float(f) => f == 1.0,
        Scalar::Complex(re, im) => re == 1.0 && im == 0.0,
    }
}

/// Fills every element of `t` with `value`. Like torch's `fill_`, it checks no overlap
/// (filling is idempotent): `torch.pow(1, e, out=t)` fills even an expanded `t`.
fn fill(t: &Tensor, value: Scalar) -> Result<()> {
    loops::copy_into(t, &Tensor::scalar_tensor(value, t.dtype()))
}

/// `torch.pow(base, exponent)` with a Python number exponent.
///
/// # Errors
/// An integer base with a negative integer exponent (first), then as for
/// [`binary`](super::binary) with the result dtype of `base` and `exponent`; last (in torch's
/// kernel, after `out` is resized), an exponent other than 0 and 1 that does not fit an
/// integral, `float16` or `bfloat16` result dtype ([`Scalar::check_fits`]: `int8 ** 300`;
/// the other dtypes take the exponent as a double or a complex double).
pub fn pow_tensor_number(base: &Tensor, exponent: Scalar, out: Option<&Tensor>) -> Result<Tensor> {
    let integral_exponent = matches!(exponent, Scalar::Bool(_) | Scalar::Int(_));
    if is_integral_or_bool(base.dtype()) && integral_exponent && exponent.to_i64() < 0 {
        return Err(Error::runtime(
            "Integers to negative integer powers are not allowed.",
        ));
    }
    let common = result_type(&[
        Participant::tensor(base.dtype(), base.ndim()),
        Participant::number(exponent),
    ]);
    let converted = base.to_dtype(common)?;
    let mut setup = IterSetup::new(
        IterConfig::default(),
        out,
        vec![IterInput::tensor(&converted)],
    )?;
    setup.check_safe_cast(common)?;
    setup.compute_output_in(common)?;
    let iter = setup.finish(common)?;
    if is_zero(exponent) {
        let result = iter.into_result()?;
        fill(&result, Scalar::Int(1))?;
        return Ok(result);
    }
    if is_one(exponent) {
        let result = iter.into_result()?;
        super::copy_(&result, base)?;
        return Ok(result);
    }
    if common.is_integral() || common.is_reduced_float() {
        exponent.check_fits(common)?;
    }
    let (o, x) = (iter.output(), iter.inputs()[0].as_tensor());
    match common {
        DType::UInt8 => map_int::<u8>(o, x, exponent)?,
        DType::Int8 => map_int::<i8>(o, x, exponent)?,
        DType::Int16 => map_int::<i16>(o, x, exponent)?,
        DType::Int32 => map_int::<i32>(o, x, exponent)?,
        DType::Int64 => map_int::<i64>(o, x, exponent)?,
        DType::Float16 => map_reduced::<Half>(o, x, exponent)?,
        DType::BFloat16 => map_reduced::<BFloat16>(o, x, exponent)?,
        DType::Float32 => map_real::<f32>(o, x, exponent)?,
        DType::Float64 => map_real::<f64>(o, x, exponent)?,
        DType::Complex32 => return Err(complex_half_pow(exponent)),
        DType::Complex64 => map_complex::<f32>(o, x, exponent)?,
        DType::Complex128 => map_complex::<f64>(o, x, exponent)?,
        DType::Bool => return Err(not_implemented("pow", DType::Bool)),
    }
    iter.into_result()
}

fn map_int<T: Int>(o: &Tensor, x: &Tensor, exponent: Scalar) -> Result<()> {
    let e = T::from_scalar(exponent);
    map_unary(o, x, move |v: T| integer::powi(v, e))
}

/// `float16` and `bfloat16` as torch's kernel takes them: the exponent rounded to the dtype
/// first (`Scalar::to<Half>()`), then `powf` in `float32`, rounded once. `float16` has no fast
/// path (`pow(-0.0, -0.5)` is `inf`); `bfloat16` runs the `sqrt`, `rsqrt` and `reciprocal`
/// kernels for an exponent equal to 0.5, -0.5 and -1 (before rounding), and for 2, 3 and -2
/// (after rounding: `2.001` counts as 2) multiplies in `bfloat16`, rounding each product.
/// torch's `rsqrt` of a `bfloat16` rounds twice (after `sqrt`, after the division) in its
/// scalar loop and once in its vectorised one; the engine rounds once.
fn map_reduced<T: Element>(o: &Tensor, x: &Tensor, exponent: Scalar) -> Result<()> {
    let e = T::from_scalar(exponent).cast::<f32>();
    let powf = move |v: T| T::from_f32(v.cast::<f32>().powf(e));
    if T::DTYPE == DType::Float16 {
        return map_unary(o, x, powf);
    }
    let r = |v: f32| T::from_f32(v).cast::<f32>();
    let equals = |v: f64| exponent.to_f64() == v && !matches!(exponent, Scalar::Bool(_));
    if equals(0.5) {
        map_unary(o, x, move |v: T| T::from_f32(v.cast::<f32>().sqrt()))
    } else if equals(-0.5) {
        map_unary(o, x, move |v: T| T::from_f32(1.0 / v.cast::<f32>().sqrt()))
    } else if equals(-1.0) {
        map_unary(o, x, move |v: T| T::from_f32(1.0 / v.cast::<f32>()))
    } else if e == 2.0 {
        map_unary(o, x, move |v: T| {
            T::from_f32(v.cast::<f32>() * v.cast::<f32>())
        })
    } else if e == 3.0 {
        map_unary(o, x, move |v: T| {
            let a = v.cast::<f32>();
            T::from_f32(r(a * a) * a)
        })
    } else if e == -2.0 {
        map_unary(o, x, move |v: T| {
            let a = v.cast::<f32>();
            T::from_f32(1.0 / r(a * a))
        })
    } else {
        map_unary(o, x, powf)
    }
}

/// Complex bases: torch's fast paths (`pow_tensor_scalar_kernel`): 0.5, -0.5 and -1 as
/// `sqrt`, `1 / sqrt` and `1 / v` when the number equals them (in double, imaginary part 0);
/// 2, 3 and -2 as products when the exponent, converted to the dtype, does; else `pow`. So
/// `(-10+0j) ** 2` is exactly `100-0j`, not `exp(2 log(-10))`.
fn map_complex<T: Real>(o: &Tensor, x: &Tensor, exponent: Scalar) -> Result<()>
where
    Complex<T>: Element,
{
    let f = super::complex_math::pow_by_number::<T>(Complex::<f64>::from_scalar(exponent));
    map_unary(o, x, f)
}

/// A `complex32` base: torch's fast paths for 0.5, -0.5 and -1 (equal in double, imaginary
/// part 0) call the `sqrt`, `rsqrt` and `reciprocal` kernels, and the `pow` kernel takes the
/// rest; none of them has `ComplexHalf`.
fn complex_half_pow(exponent: Scalar) -> Error {
    let equals = |v: f64| exponent.to_f64() == v && exponent.imag() == 0.0;
    let kernel = if equals(0.5) {
        "sqrt_vml_cpu"
    } else if equals(-0.5) {
        "rsqrt_cpu"
    } else if equals(-1.0) {
        "reciprocal_cpu"
    } else {
        "pow"
    };
    not_implemented(kernel, DType::Complex32)
}

/// [`real::pow_by_number`] over the tensor. Each fast-path exponent gets a loop of its own, in
/// which the exponent is a constant: the compiler folds the function's comparisons away and
/// vectorises the loop (one loop testing the exponent per element stayed scalar, and
/// `(4096,1024) ** 2` took 2.3 ms against torch's 1.3 to 1.6).
fn map_real<T: Real>(o: &Tensor, x: &Tensor, exponent: Scalar) -> Result<()> {
    macro_rules! loop_for {
        ($e:expr) => {
            map_unary(o, x, move |a: T| real::pow_by_number::<T>($e)(a))
        };
    }
    let e = exponent.to_f64();
    if e == 2.0 {
        loop_for!(2.0)
    } else if e == 3.0 {
        loop_for!(3.0)
    } else if e == -2.0 {
        loop_for!(-2.0)
    } else if e == 0.5 {
        loop_for!(0.5)
    } else if e == -0.5 {
        loop_for!(-0.5)
    } else if e == -1.0 {
        loop_for!(-1.0)
    } else {
        map_unary(o, x, real::pow_by_number::<T>(e))
    }
}

/// `torch.pow(base, exponent)` with a Python number base: the output has the exponent's
/// shape, row-major (an `out=` of another shape is resized so); base 1 fills it with ones,
/// any other base runs the tensor-tensor `pow` into it.
///
/// # Errors
/// As for [`binary`](super::binary).
pub fn pow_number_tensor(base: Scalar, exponent: &Tensor, out: Option<&Tensor>) -> Result<Tensor> {
    let shape = exponent.shape();
    let strides = contiguous_strides(shape);
    let result = match out {
        Some(o) => resize::resize_output(o, shape, &strides)?,
        None => {
            let dtype = result_type(&[
                Participant::number(base),
                Participant::tensor(exponent.dtype(), exponent.ndim()),
            ]);
            // torch's meta function gives the output no strides: `empty`, row-major.
            alloc::empty_in_format(shape, &strides, dtype)?
        }
    };
    let base_is_one = match base {
        Scalar::Int(i) => i == 1,
        Scalar::Float(f) => f == 1.0,
        Scalar::Complex(re, im) => re == 1.0 && im == 0.0,
        Scalar::Bool(_) => false,
    };
    if base_is_one {
        fill(&result, Scalar::Int(1))?;
        return Ok(result);
    }
    binary_inputs(
        BinaryOp::Pow,
        IterInput::number(base),
        IterInput::tensor(exponent),
        Some(&result),
    )
}

/// The dtype `float_power` computes in: `complex128` when either operand is complex, else
/// `float64`.
fn float_power_dtype(base: &Operand, exponent: &Operand) -> DType {
    let complex = |o: &Operand| match o {
        Operand::Tensor(t) => t.dtype().is_complex(),
        Operand::Number(n) => matches!(n, Scalar::Complex(..)),
    };
    if complex(base) || complex(exponent) {
        DType::Complex128
    } else {
        DType::Float64
    }
}

/// A Python number as `float_power` passes it on: a complex or a float (`toComplexDouble`,
/// `toDouble`).
fn float_power_number(n: Scalar, dtype: DType) -> Scalar {
    match (n, dtype) {
        (Scalar::Complex(..), _) => n,
        (_, DType::Complex128) => Scalar::Complex(n.to_f64(), 0.0),
        _ => Scalar::Float(n.to_f64()),
    }
}

/// `torch.float_power(base, exponent, out=out)`, or `base.float_power_(exponent)` when
/// `in_place`: `pow` of both operands converted to `float64` (or `complex128`).
///
/// # Errors
/// An `out` (or in-place base) of another dtype than the computation's (torch's `the output
/// given to float_power has dtype Float but ...`), then `pow`'s.
pub fn float_power(
    base: Operand,
    exponent: Operand,
    out: Option<&Tensor>,
    in_place: bool,
) -> Result<Tensor> {
    let dtype = float_power_dtype(&base, &exponent);
    if let Some(o) = out
        && o.dtype() != dtype
    {
        let what = if in_place {
            "the base given to float_power_"
        } else {
            "the output given to float_power"
        };
        return Err(Error::runtime(format!(
            "{what} has dtype {} but the operation's result requires dtype {}",
            o.dtype().scalar_type_name(),
            dtype.scalar_type_name()
        )));
    }
    match (base, exponent) {
        (Operand::Tensor(b), Operand::Tensor(e)) => binary_inputs(
            BinaryOp::Pow,
            IterInput::tensor(&b.to_dtype(dtype)?),
            IterInput::tensor(&e.to_dtype(dtype)?),
            out,
        ),
        (Operand::Tensor(b), Operand::Number(e)) => {
            pow_tensor_number(&b.to_dtype(dtype)?, float_power_number(e, dtype), out)
        }
        (Operand::Number(b), Operand::Tensor(e)) => {
            pow_number_tensor(float_power_number(b, dtype), &e.to_dtype(dtype)?, out)
        }
        (Operand::Number(b), Operand::Number(e)) => binary_inputs(
            BinaryOp::Pow,
            IterInput::number(float_power_number(b, dtype)),
            IterInput::number(float_power_number(e, dtype)),
            out,
        ),
    }
}

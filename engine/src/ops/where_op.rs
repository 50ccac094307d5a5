//! `torch.where(condition, a, b)`: three-way broadcasting, `a` and `b` promoted to their
//! result dtype (either may be a Python number), a `bool` condition (or a `uint8` one, which
//! torch still takes, with a deprecation warning, as `condition != 0`).
//!
//! ```
//! use bcast_engine::ops::r#where;
//! use bcast_engine::{DType, Tensor};
//! let c = Tensor::from_vec(vec![true, false], &[2, 1]).unwrap();
//! let a = Tensor::from_vec(vec![1i64, 2, 3], &[3]).unwrap();
//! let r = r#where(&c, &a, 0.5, None).unwrap();
//! assert_eq!((r.shape(), r.dtype()), (&[2, 3][..], DType::Float32));
//! assert_eq!(r.to_vec::<f32>().unwrap(), vec![1.0, 2.0, 3.0, 0.5, 0.5, 0.5]);
//! ```

use super::Operand;
use crate::iter::{IterConfig, IterInput, IterSetup};
use crate::loops::map_ternary;
use crate::result_type::result_type;
use crate::{alloc, dispatch_dtype, DType, Error, Result, Tensor};

/// `torch.where(condition, a, b, out=out)`. Returns a new tensor, or `out` (resized when its
/// shape differed). Without `out`, torch writes into a new empty tensor (`empty({0})`) that
/// the iteration resizes, so the result is sized as a resized `out=` is (its numel is checked
/// before its storage size).
///
/// # Errors
/// torch's, in its order: a Python number that does not fit the result dtype (torch makes it
/// a 0-d tensor of that dtype first: [`Scalar::check_fits`](crate::Scalar::check_fits), except
/// that `float16` and `bfloat16` take any number, rounded); an `out` whose dtype is not the
/// result dtype; a condition that is neither `bool` nor `uint8`; overlap of `out`; shapes that do not broadcast (condition, `a`, `b`, in that
/// order); the shape of `out` where it cannot be resized.
pub fn r#where(
    condition: &Tensor,
    a: impl Into<Operand>,
    b: impl Into<Operand>,
    out: Option<&Tensor>,
) -> Result<Tensor> {
    where_operands(condition, a.into(), b.into(), out)
}

/// [`r#where`] with its operands converted (compiled once, not once per caller's types).
fn where_operands(
    condition: &Tensor,
    a: Operand,
    b: Operand,
    out: Option<&Tensor>,
) -> Result<Tensor> {
    if crate::autograd::recording() {
        return crate::autograd::elementwise::where_op(condition, a, b, out);
    }
    let (a_in, b_in) = (a.input(), b.input());
    let dtype = result_type(&[a_in.participant(), b_in.participant()]);
    if !dtype.is_reduced_float() {
        for number in [&b, &a] {
            if let Operand::Number(v) = number {
                v.check_fits(dtype)?;
            }
        }
    }
    let (a, b) = (a_in, b_in);
    if let Some(o) = out
        && o.dtype() != dtype
    {
        return Err(Error::runtime(format!(
            "Expected out type to be {} but got {}",
            dtype.scalar_type_name(),
            o.dtype().scalar_type_name()
        )));
    }
    // torch converts a `uint8` condition to `bool` (a copy, so it never overlaps `out`).
    let converted;
    let condition = match condition.dtype() {
        DType::Bool => condition,
        DType::UInt8 => {
            converted = condition.to_dtype(DType::Bool)?;
            &converted
        }
        _ => {
            return Err(Error::runtime(format!(
                "where expected condition to be a boolean tensor, but got a tensor with dtype {}",
                condition.dtype().scalar_type_name()
            )))
        }
    };
    let a = IterInput::tensor(&a.as_tensor().to_dtype(dtype)?);
    let b = IterInput::tensor(&b.as_tensor().to_dtype(dtype)?);
    let fresh = match out {
        Some(_) => None,
        None => Some(alloc::empty(&[0], dtype)?),
    };
    let setup = IterSetup::new(
        IterConfig::default(),
        out.or(fresh.as_ref()),
        vec![IterInput::tensor(condition), a, b],
    )?;
    let iter = setup.finish(dtype)?;
    let [c, x, y] = [0, 1, 2].map(|k| iter.inputs()[k].as_tensor());
    dispatch_dtype!(dtype, T => map_ternary(iter.output(), c, x, y, |k: bool, p: T, q: T| if k { p } else { q }))?;
    iter.into_result()
}

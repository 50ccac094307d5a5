//! Python numbers in calls. Where libtorch has a Scalar overload (the one Python's argument
//! parser binds) a number goes in as a Scalar of its Python type; where only a Tensor
//! parameter takes it, it goes in as the 0-d "wrapped number" tensor Python makes of it.

use super::raw::RawScalar;
use super::{unsupported, TchArgs, TchCallError};
use crate::case::{Arg, Num};
use tch::{TchError, Tensor};

/// A Python number argument.
#[derive(Debug, Clone, Copy, PartialEq)]
pub enum Number {
    Int(i64),
    Float(f64),
    Bool(bool),
    /// A Python complex: `(real, imag)`.
    Complex(f64, f64),
}

impl Number {
    /// The number as a libtorch Scalar of its Python type.
    pub fn scalar(self) -> RawScalar {
        RawScalar::new(self)
    }

    /// The number as Python passes it for a Tensor parameter: a 0-d wrapped-number tensor
    /// (int64, double, bool or complex128) that promotes only across categories.
    pub fn wrapped(self) -> Result<Tensor, TchError> {
        self.scalar().wrapped()
    }
}

/// A tensor or a number: an operand of an element-wise op.
#[derive(Debug)]
pub enum Operand {
    Tensor(Tensor),
    Number(Number),
}

impl TchArgs<'_> {
    /// Resolves a tensor or number argument.
    pub fn as_operand(&self, arg: &Arg) -> Result<Operand, TchCallError> {
        Ok(match arg {
            Arg::Tensor(_) => Operand::Tensor(self.as_tensor(arg)?),
            Arg::Int(i) => Operand::Number(Number::Int(*i)),
            Arg::Float(Num::Complex(re, im)) | Arg::Complex(Num::Complex(re, im)) => {
                Operand::Number(Number::Complex(*re, *im))
            }
            Arg::Float(f) => Operand::Number(Number::Float(f.to_f64())),
            Arg::Bool(b) => Operand::Number(Number::Bool(*b)),
            other => return unsupported(format!("expected a tensor or a number, got {other:?}")),
        })
    }
}

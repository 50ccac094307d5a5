//! An operand of an element-wise op: a tensor, or a Python number (which torch wraps as a 0-d
//! tensor of the lowest type-promotion priority).

use crate::iter::IterInput;
use crate::{DType, Scalar, Tensor};

/// A tensor or a Python number.
///
/// ```
/// use bcast_engine::ops::Operand;
/// use bcast_engine::Scalar;
/// assert!(matches!(Operand::from(2.5), Operand::Number(Scalar::Float(_))));
/// ```
#[derive(Debug, Clone)]
pub enum Operand {
    /// A tensor.
    Tensor(Tensor),
    /// A Python number.
    Number(Scalar),
}

impl Operand {
    /// The operand as an input of an iteration.
    pub fn input(&self) -> IterInput {
        self.clone().into_input()
    }

    /// [`Operand::input`] taking the tensor rather than cloning it.
    pub fn into_input(self) -> IterInput {
        match self {
            Operand::Tensor(t) => IterInput::from(t),
            Operand::Number(v) => IterInput::number(v),
        }
    }

    /// The dtype torch's checks see: a tensor's own, or `bool`/`int64`/`float64` for a number
    /// (the dtype of its wrapper tensor).
    pub fn dtype(&self) -> DType {
        self.input().as_tensor().dtype()
    }

    /// The tensor, when this is one.
    pub fn as_tensor(&self) -> Option<&Tensor> {
        match self {
            Operand::Tensor(t) => Some(t),
            Operand::Number(_) => None,
        }
    }
}

impl From<Tensor> for Operand {
    fn from(t: Tensor) -> Operand {
        Operand::Tensor(t)
    }
}

impl From<&Tensor> for Operand {
    fn from(t: &Tensor) -> Operand {
        Operand::Tensor(t.clone())
    }
}

impl From<Scalar> for Operand {
    fn from(v: Scalar) -> Operand {
        Operand::Number(v)
    }
}

impl From<f64> for Operand {
    fn from(v: f64) -> Operand {
        Operand::Number(Scalar::Float(v))
    }
}

impl From<i64> for Operand {
    fn from(v: i64) -> Operand {
        Operand::Number(Scalar::Int(v))
    }
}

impl From<bool> for Operand {
    fn from(v: bool) -> Operand {
        Operand::Number(Scalar::Bool(v))
    }
}

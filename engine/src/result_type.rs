//! torch's `result_type`: the dtype an op computes in, from its operands in three priority
//! tiers. Dimensioned tensors come first, then 0-d tensors, then wrapped Python numbers (a
//! Python float counts as the default dtype, `float32`, a Python complex as `complex64`). A
//! lower tier only matters when it is of a higher category (bool < integral < floating <
//! complex) than the tiers above it; a complex lower tier under a floating higher one gives the
//! complex dtype of the floating one (`float16` then gives `complex32`).
//!
//! ```
//! use bcast_engine::result_type::{Participant, result_type};
//! use bcast_engine::{DType, Scalar};
//! let t32 = Participant::tensor(DType::Float32, 2);
//! let zero_d64 = Participant::tensor(DType::Float64, 0);
//! assert_eq!(result_type(&[t32, zero_d64]), DType::Float32);
//! let ints = Participant::tensor(DType::Int64, 1);
//! let half = Participant::number(Scalar::Float(0.5));
//! assert_eq!(result_type(&[ints, half]), DType::Float32);
//! assert_eq!(result_type(&[ints, zero_d64]), DType::Float64);
//! let h = Participant::tensor(DType::Float16, 1);
//! let i = Participant::number(Scalar::Complex(0.0, 1.0));
//! assert_eq!(result_type(&[h, i]), DType::Complex32);
//! ```

use crate::{Category, DType, Scalar};

/// One operand as `result_type` sees it.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Participant {
    dtype: DType,
    tier: Tier,
}

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Tier {
    Dimensioned,
    ZeroDim,
    Wrapped,
}

impl Participant {
    /// A tensor of `ndim` dims.
    pub fn tensor(dtype: DType, ndim: usize) -> Participant {
        let tier = if ndim > 0 {
            Tier::Dimensioned
        } else {
            Tier::ZeroDim
        };
        Participant { dtype, tier }
    }

    /// A Python number, wrapped as torch wraps it.
    pub fn number(value: Scalar) -> Participant {
        Participant {
            dtype: value.wrapped_dtype(),
            tier: Tier::Wrapped,
        }
    }
}

/// The running state of torch's `ResultTypeState`: one dtype per tier, `None` while empty.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct ResultTypeState {
    dimensioned: Option<DType>,
    zero_dim: Option<DType>,
    wrapped: Option<DType>,
}

fn promote(a: Option<DType>, b: DType) -> Option<DType> {
    Some(a.map_or(b, |a| a.promote(b)))
}

fn promote_skip_undefined(a: Option<DType>, b: Option<DType>) -> Option<DType> {
    match (a, b) {
        (None, b) => b,
        (a, None) => a,
        (Some(a), Some(b)) => Some(a.promote(b)),
    }
}

/// c10's `combine_categories`: a lower tier only matters when it is of a higher category.
fn combine_categories(higher: Option<DType>, lower: Option<DType>) -> Option<DType> {
    if let Some(h) = higher {
        if h.is_complex() {
            return Some(h);
        }
        if let Some(l) = lower.filter(|l| l.is_complex()) {
            // The higher tier's floating precision is kept, in a complex dtype (`float16`
            // gives `complex32`).
            return Some(if h.is_floating() { h.to_complex() } else { l });
        }
        if h.is_floating() {
            return Some(h);
        }
    }
    if higher == Some(DType::Bool) || lower.is_some_and(DType::is_floating) {
        return promote_skip_undefined(higher, lower);
    }
    higher.or(lower)
}

impl ResultTypeState {
    /// Adds one operand (torch's `update_result_type_state`).
    pub fn update(mut self, p: Participant) -> ResultTypeState {
        match p.tier {
            Tier::Dimensioned => self.dimensioned = promote(self.dimensioned, p.dtype),
            Tier::ZeroDim => self.zero_dim = promote(self.zero_dim, p.dtype),
            Tier::Wrapped => self.wrapped = promote(self.wrapped, p.dtype),
        }
        self
    }

    /// The result dtype; `None` when no operand was added.
    pub fn result(self) -> Option<DType> {
        let lower = combine_categories(self.zero_dim, self.wrapped);
        combine_categories(self.dimensioned, lower)
    }
}

/// `torch.result_type` over operands. With no operand it is `bool`, the lowest dtype (torch
/// never asks for that).
pub fn result_type(operands: &[Participant]) -> DType {
    operands
        .iter()
        .fold(ResultTypeState::default(), |s, &p| s.update(p))
        .result()
        .unwrap_or(DType::Bool)
}

/// Whether a dtype is integral or bool, the inputs that float ops (`div`, `exp`, ...) promote
/// to the default float dtype.
pub fn is_integral_or_bool(dtype: DType) -> bool {
    matches!(dtype.category(), Category::Bool | Category::Integral)
}

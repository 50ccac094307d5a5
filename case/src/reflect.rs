//! Reflected operators as the calls their bodies make: `t.__rsub__(2)` is `torch.rsub(t, 2)`,
//! `t.__rtruediv__(2)` is `t.reciprocal() * 2`. A backend runs the body's calls and turns a
//! `TypeError` raised in them into `NotImplemented`, as torch's wrappers do.
//!
//! ```
//! use bcast_case::reflect::{body, Body};
//! use bcast_case::{Arg, Call};
//! let call = Call {
//!     fn_: "Tensor.__rpow__".into(),
//!     args: vec![Arg::Tensor("t".into()), Arg::Int(2)],
//!     kwargs: Default::default(),
//! };
//! let Some(Ok(Body::Call(inner))) = body(&call) else { panic!() };
//! assert_eq!(inner.fn_, "torch.pow");
//! assert_eq!(inner.args, [Arg::Int(2), Arg::Tensor("t".into())]);
//! ```

use crate::ops::{lookup, reflection_of, Form, Reflects};
use crate::{Arg, Call};

/// What a reflected operator's body does.
#[derive(Debug, Clone, PartialEq)]
pub enum Body {
    /// One call; its result is the operator's.
    Call(Call),
    /// `self.reciprocal() * other`: `Tensor.reciprocal(self)`, then `Tensor.mul` of that
    /// and `other`.
    ReciprocalTimes {
        /// The tensor.
        this: Arg,
        /// The other operand.
        other: Arg,
    },
}

/// The call(s) a reflected operator makes, or `Err(())` where Python's own argument rules
/// raise a `TypeError` before the body runs (which the wrapper turns into `NotImplemented`);
/// `None` for a call that is not a reflected operator.
#[allow(clippy::result_unit_err)]
pub fn body(call: &Call) -> Option<Result<Body, ()>> {
    let (op, form) = lookup(&call.fn_)?;
    if form != Form::Reflected {
        return None;
    }
    let reflection = reflection_of(op.name)?;
    let python_pair = || match (&call.args[..], call.kwargs.is_empty()) {
        ([this, other], true) => Ok((this.clone(), other.clone())),
        _ => Err(()),
    };
    Some(match reflection.calls {
        Reflects::Method(name) => Ok(Body::Call(Call {
            fn_: format!("Tensor.{name}"),
            args: call.args.clone(),
            kwargs: call.kwargs.clone(),
        })),
        Reflects::Function(name) => python_pair().map(|(this, other)| {
            Body::Call(Call {
                fn_: format!("torch.{name}"),
                args: vec![this, other],
                kwargs: Default::default(),
            })
        }),
        Reflects::Swapped(name) => python_pair().map(|(this, other)| {
            Body::Call(Call {
                fn_: format!("torch.{name}"),
                args: vec![other, this],
                kwargs: Default::default(),
            })
        }),
        Reflects::ReciprocalTimes => {
            python_pair().map(|(this, other)| Body::ReciprocalTimes { this, other })
        }
    })
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::ops::REFLECTIONS;

    fn call(fn_: &str, args: Vec<Arg>) -> Call {
        Call {
            fn_: fn_.into(),
            args,
            kwargs: Default::default(),
        }
    }

    #[test]
    fn every_body_calls_an_op_of_the_catalogue() {
        let t = || Arg::Tensor("t".into());
        for r in REFLECTIONS {
            match body(&call(
                &format!("Tensor.{}", r.dunder),
                vec![t(), Arg::Int(2)],
            )) {
                Some(Ok(Body::Call(inner))) => {
                    assert!(lookup(&inner.fn_).is_some(), "{}", inner.fn_)
                }
                Some(Ok(Body::ReciprocalTimes { .. })) => assert_eq!(r.op, "div"),
                other => panic!("{}: {other:?}", r.dunder),
            }
        }
    }

    #[test]
    fn python_bodies_take_exactly_self_and_other() {
        let t = || Arg::Tensor("t".into());
        let mut with_alpha = call("Tensor.__rsub__", vec![t(), Arg::Int(2)]);
        with_alpha.kwargs.insert("alpha".into(), Arg::Int(2));
        assert_eq!(body(&with_alpha), Some(Err(())));
        assert_eq!(body(&call("Tensor.__rpow__", vec![t()])), Some(Err(())));
        // The C++ ones keep the method's own rules: `alpha` is the method's keyword.
        let mut radd = call("Tensor.__radd__", vec![t(), Arg::Int(2)]);
        radd.kwargs.insert("alpha".into(), Arg::Int(2));
        let Some(Ok(Body::Call(inner))) = body(&radd) else {
            panic!()
        };
        assert_eq!(inner.kwargs.len(), 1);
        assert_eq!(body(&call("Tensor.add", vec![t(), t()])), None);
    }
}

//! Typed access to a call's arguments, for the op families of the reference backend.

use super::Inputs;
use crate::case::{Arg, Call, IndexItem, NumScalar};
use bcast_engine::{shape::ShapeArg, DType, Error, Scalar, Tensor};

/// A value an op returns.
#[derive(Debug, Clone)]
pub enum Value {
    Tensor(Tensor),
    Tensors(Vec<Tensor>),
    Size(Vec<usize>),
    Int(i64),
    Bool(bool),
    /// Python's `NotImplemented` (a reflected operator's answer to a `TypeError`).
    NotImplemented,
}

/// Why a call did not produce a value: the engine raised torch's error, or the call is not
/// something the engine can express (a fixture or interpreter gap, reported as a failure).
#[derive(Debug, Clone, PartialEq)]
pub enum CallError {
    Engine(Error),
    Unsupported(String),
}

impl From<Error> for CallError {
    fn from(e: Error) -> CallError {
        CallError::Engine(e)
    }
}

/// Where [`Args`] finds a case's named tensors: the engine's [`Inputs`], or another
/// backend's own.
pub trait TensorLookup {
    /// The backend's tensor handle.
    type Tensor;
    /// The tensor called `name` (a handle to the same tensor, not a copy of its data).
    fn fetch(&self, name: &str) -> Option<Self::Tensor>;

    /// The value of a 0-d tensor, which Python lets stand for a number (`alpha=torch.tensor(2)`
    /// is `alpha=2`, as `Tensor.item()` reads it); `None` for other tensors, or where the
    /// backend does not read values.
    fn item(&self, _tensor: &Self::Tensor) -> Option<Scalar> {
        None
    }
}

impl TensorLookup for Inputs {
    type Tensor = Tensor;
    fn fetch(&self, name: &str) -> Option<Tensor> {
        self.tensors.get(name).cloned()
    }

    fn item(&self, tensor: &Tensor) -> Option<Scalar> {
        match tensor.ndim() {
            0 => tensor.to_scalars().into_iter().next(),
            _ => None,
        }
    }
}

/// The arguments of one call, resolved against the case's tensors.
pub struct Args<'a, I: TensorLookup = Inputs> {
    call: &'a Call,
    inputs: &'a I,
}

fn unsupported<T>(message: String) -> Result<T, CallError> {
    Err(CallError::Unsupported(message))
}

impl<'a, I: TensorLookup> Args<'a, I> {
    /// Wraps a call.
    pub fn new(call: &'a Call, inputs: &'a I) -> Args<'a, I> {
        Args { call, inputs }
    }

    /// The number of positional arguments.
    pub fn len(&self) -> usize {
        self.call.args.len()
    }

    /// Whether there are no positional arguments.
    pub fn is_empty(&self) -> bool {
        self.call.args.is_empty()
    }

    /// Positional argument `i`, if present.
    pub fn get(&self, i: usize) -> Option<&'a Arg> {
        self.call.args.get(i)
    }

    /// Keyword argument `name`, if present (a `None` value counts as absent).
    pub fn kwarg(&self, name: &str) -> Option<&'a Arg> {
        self.call
            .kwargs
            .get(name)
            .filter(|a| !matches!(a, Arg::None(())))
    }

    /// Positional argument `i`, else keyword argument `name` (`torch.sum(x, 0)` and
    /// `torch.sum(x, dim=0)` alike). A `None` keyword counts as absent.
    pub fn param(&self, i: usize, name: &str) -> Option<&'a Arg> {
        self.get(i).or_else(|| self.kwarg(name))
    }

    /// Fails unless every keyword is one of `known`.
    pub fn only_kwargs(&self, known: &[&str]) -> Result<(), CallError> {
        match self
            .call
            .kwargs
            .keys()
            .find(|k| !known.contains(&k.as_str()))
        {
            Some(k) => unsupported(format!(
                "{}: unexpected keyword argument {k}",
                self.call.fn_
            )),
            None => Ok(()),
        }
    }

    fn required(&self, i: usize) -> Result<&'a Arg, CallError> {
        match self.get(i) {
            Some(a) => Ok(a),
            None => unsupported(format!("{}: missing argument {i}", self.call.fn_)),
        }
    }

    /// Resolves a tensor argument.
    pub fn as_tensor(&self, arg: &Arg) -> Result<I::Tensor, CallError> {
        match arg {
            Arg::Tensor(name) => match self.inputs.fetch(name) {
                Some(t) => Ok(t),
                None => unsupported(format!("unknown tensor {name}")),
            },
            other => unsupported(format!(
                "{}: expected a tensor, got {other:?}",
                self.call.fn_
            )),
        }
    }

    /// Positional argument `i` as a tensor.
    pub fn tensor(&self, i: usize) -> Result<I::Tensor, CallError> {
        self.as_tensor(self.required(i)?)
    }

    /// Positional argument `i` as a list of tensors (`tensors`), or every positional argument
    /// from `i` on when they are single tensors (varargs).
    pub fn tensor_list(&self, i: usize) -> Result<Vec<I::Tensor>, CallError> {
        match self.get(i) {
            Some(Arg::Tensors(names)) => names
                .iter()
                .map(|n| self.as_tensor(&Arg::Tensor(n.clone())))
                .collect(),
            _ => (i..self.len()).map(|k| self.tensor(k)).collect(),
        }
    }

    /// Resolves a Python number argument (a 0-d tensor stands for its value, as torch's parser
    /// lets it).
    pub fn as_scalar(&self, arg: &Arg) -> Result<Scalar, CallError> {
        match arg {
            Arg::Int(i) => Ok(Scalar::Int(*i)),
            Arg::Float(f) => Ok(Scalar::Float(f.to_f64())),
            Arg::Bool(b) => Ok(Scalar::Bool(*b)),
            Arg::Complex(z) => Ok(z.to_scalar()),
            Arg::Tensor(_) => match self.as_tensor(arg).ok().and_then(|t| self.inputs.item(&t)) {
                Some(value) => Ok(value),
                None => unsupported(format!("{}: expected a number, got {arg:?}", self.call.fn_)),
            },
            other => unsupported(format!(
                "{}: expected a number, got {other:?}",
                self.call.fn_
            )),
        }
    }

    /// Resolves an int argument.
    pub fn as_int(&self, arg: &Arg) -> Result<i64, CallError> {
        match arg {
            Arg::Int(i) => Ok(*i),
            other => unsupported(format!("{}: expected an int, got {other:?}", self.call.fn_)),
        }
    }

    /// Positional argument `i` as an int.
    pub fn int(&self, i: usize) -> Result<i64, CallError> {
        self.as_int(self.required(i)?)
    }

    /// Resolves a list of ints (`ints`, `list`, `tuple`, `size`, or a single `int`).
    pub fn as_ints(&self, arg: &Arg) -> Result<Vec<i64>, CallError> {
        match arg {
            Arg::Ints(v) | Arg::List(v) | Arg::Tuple(v) | Arg::Size(v) => Ok(v.clone()),
            Arg::Int(i) => Ok(vec![*i]),
            other => unsupported(format!("{}: expected ints, got {other:?}", self.call.fn_)),
        }
    }

    /// Positional sizes from `i` on: one list argument, or varargs ints (`x.expand(4, 3)`).
    /// A bool among varargs is the int it is in Python (`x.expand(2, True)` is `expand(2, 1)`:
    /// torch's parser takes bools as the items of an int list; a bool first is its
    /// `TypeError`, which the argument rules raise before the engine runs).
    pub fn sizes_from(&self, i: usize) -> Result<Vec<i64>, CallError> {
        match self.get(i) {
            Some(a @ (Arg::Ints(_) | Arg::List(_) | Arg::Tuple(_) | Arg::Size(_)))
                if self.len() == i + 1 =>
            {
                self.as_ints(a)
            }
            _ => (i..self.len())
                .map(|k| match self.required(k)? {
                    Arg::Bool(b) => Ok(i64::from(*b)),
                    other => self.as_int(other),
                })
                .collect(),
        }
    }

    /// Resolves a boolean argument.
    pub fn as_bool(&self, arg: &Arg) -> Result<bool, CallError> {
        match arg {
            Arg::Bool(b) => Ok(*b),
            other => unsupported(format!("{}: expected a bool, got {other:?}", self.call.fn_)),
        }
    }

    /// Resolves a string argument.
    pub fn as_str(&self, arg: &'a Arg) -> Result<&'a str, CallError> {
        match arg {
            Arg::Str(s) => Ok(s),
            other => unsupported(format!(
                "{}: expected a string, got {other:?}",
                self.call.fn_
            )),
        }
    }

    /// Resolves a dtype argument.
    pub fn as_dtype(&self, arg: &Arg) -> Result<DType, CallError> {
        match arg {
            Arg::Dtype(name) => match DType::from_name(name) {
                Some(d) => Ok(d),
                None => unsupported(format!("unknown dtype {name}")),
            },
            other => unsupported(format!(
                "{}: expected a dtype, got {other:?}",
                self.call.fn_
            )),
        }
    }

    /// Resolves an argument of `torch.broadcast_shapes`, keeping its Python type.
    pub fn as_shape_arg(&self, arg: &Arg) -> ShapeArg {
        match arg {
            Arg::Int(i) => ShapeArg::Int(*i),
            Arg::Tuple(v) => ShapeArg::Tuple(v.clone()),
            Arg::Ints(v) | Arg::List(v) => ShapeArg::List(v.clone()),
            Arg::Size(v) => ShapeArg::Size(v.clone()),
            Arg::None(()) => ShapeArg::None,
            Arg::Float(f) => ShapeArg::Other(format!("{:?}", f.to_f64())),
            Arg::Bool(b) => ShapeArg::Int(*b as i64),
            other => ShapeArg::Other(format!("{other:?}")),
        }
    }

    /// Resolves an index tuple.
    pub fn as_index(&self, arg: &'a Arg) -> Result<&'a [IndexItem], CallError> {
        match arg {
            Arg::Index(items) => Ok(items),
            other => unsupported(format!(
                "{}: expected an index, got {other:?}",
                self.call.fn_
            )),
        }
    }
}

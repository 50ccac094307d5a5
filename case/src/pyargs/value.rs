//! A case argument as the Python value torch's parser sees: its type name and the checks
//! `python_arg_parser.cpp` makes of it.
//!
//! ```
//! use bcast_case::pyargs::PyValue;
//! use bcast_case::DType;
//! let t = PyValue::Tensor { dtype: DType::Int64, dim: 0, numel: 1, requires_grad: false };
//! assert!(t.is_index() && t.type_name() == "Tensor");
//! assert!(!PyValue::Bool(true).is_long() && PyValue::Bool(true).is_double());
//! ```

use crate::{Arg, Case, DType, IndexItem};

/// A Python value, as far as argument parsing tells values apart.
#[derive(Debug, Clone, PartialEq)]
pub enum PyValue {
    /// A tensor: what the parser asks of it.
    Tensor {
        /// Its dtype.
        dtype: DType,
        /// Its number of dims.
        dim: usize,
        /// Its number of elements.
        numel: usize,
        /// Whether it requires grad (a case's `wrt` tensor, or its clone): the parser takes
        /// no such tensor for a number.
        requires_grad: bool,
    },
    /// `int`.
    Int(i64),
    /// `float`.
    Float,
    /// `complex`.
    Complex,
    /// `bool`.
    Bool(bool),
    /// `str`.
    Str,
    /// `None`.
    None,
    /// A `torch.dtype`.
    Dtype,
    /// `list`.
    List(Vec<PyValue>),
    /// `tuple`.
    Tuple(Vec<PyValue>),
    /// `torch.Size` (a tuple subclass).
    Size(Vec<PyValue>),
    /// `slice`.
    Slice,
    /// `...`.
    Ellipsis,
}

impl PyValue {
    /// The value of a case argument; `None` when it names a tensor the case lacks.
    pub fn of(arg: &Arg, case: &Case) -> Option<PyValue> {
        let ints = |v: &[i64]| v.iter().map(|&i| PyValue::Int(i)).collect();
        Some(match arg {
            Arg::Tensor(name) => tensor_value(name, case)?,
            Arg::Tensors(names) => PyValue::List(
                names
                    .iter()
                    .map(|n| tensor_value(n, case))
                    .collect::<Option<_>>()?,
            ),
            Arg::Int(i) => PyValue::Int(*i),
            Arg::Float(_) => PyValue::Float,
            Arg::Complex(_) => PyValue::Complex,
            Arg::Bool(b) => PyValue::Bool(*b),
            Arg::Ints(v) | Arg::List(v) => PyValue::List(ints(v)),
            Arg::Tuple(v) => PyValue::Tuple(ints(v)),
            Arg::Size(v) => PyValue::Size(ints(v)),
            Arg::None(()) => PyValue::None,
            Arg::Str(_) => PyValue::Str,
            Arg::Dtype(_) => PyValue::Dtype,
            Arg::Index(items) => PyValue::Tuple(
                items
                    .iter()
                    .map(|i| match i {
                        IndexItem::Slice(_) => PyValue::Slice,
                        IndexItem::Int(i) => PyValue::Int(*i),
                        IndexItem::None(()) => PyValue::None,
                        IndexItem::Ellipsis(()) => PyValue::Ellipsis,
                    })
                    .collect(),
            ),
        })
    }

    /// Python's name of its type (`Py_TYPE(obj)->tp_name`).
    pub fn type_name(&self) -> &'static str {
        match self {
            PyValue::Tensor { .. } => "Tensor",
            PyValue::Int(_) => "int",
            PyValue::Float => "float",
            PyValue::Complex => "complex",
            PyValue::Bool(_) => "bool",
            PyValue::Str => "str",
            PyValue::None => "NoneType",
            PyValue::Dtype => "torch.dtype",
            PyValue::List(_) => "list",
            PyValue::Tuple(_) => "tuple",
            PyValue::Size(_) => "torch.Size",
            PyValue::Slice => "slice",
            PyValue::Ellipsis => "ellipsis",
        }
    }

    /// Its items, if it is a list or a tuple (`torch.Size` included).
    pub fn items(&self) -> Option<&[PyValue]> {
        match self {
            PyValue::List(v) | PyValue::Tuple(v) | PyValue::Size(v) => Some(v),
            _ => None,
        }
    }

    /// A tuple (or a subclass of one).
    pub fn is_tuple(&self) -> bool {
        matches!(self, PyValue::Tuple(_) | PyValue::Size(_))
    }

    /// `THPUtils_checkLong`: an `int`, not a `bool`.
    pub fn is_long(&self) -> bool {
        matches!(self, PyValue::Int(_))
    }

    /// `THPUtils_checkDouble`: a `float` or an `int` (`bool` is one).
    pub fn is_double(&self) -> bool {
        matches!(self, PyValue::Float | PyValue::Int(_) | PyValue::Bool(_))
    }

    /// `THPUtils_checkScalar`: a Python number (`complex` included).
    pub fn is_scalar(&self) -> bool {
        self.is_double() || matches!(self, PyValue::Complex)
    }

    /// `THPUtils_checkIndex`: an `int`, or anything with `__index__` (a one-element integer or
    /// bool tensor); not a `bool`.
    pub fn is_index(&self) -> bool {
        match self {
            PyValue::Int(_) => true,
            PyValue::Tensor { dtype, numel, .. } => {
                *numel == 1 && !dtype.is_floating() && !dtype.is_complex()
            }
            _ => false,
        }
    }

    /// A 0-d tensor.
    pub fn is_zero_dim_tensor(&self) -> bool {
        matches!(self, PyValue::Tensor { dim: 0, .. })
    }

    /// A 0-d tensor that requires no grad: what the parser takes for a `Scalar`, `double` or
    /// `complex` (`python_arg_parser.cpp`: `!var.requires_grad() && var.dim() == 0`), so that
    /// `torch.var(x, correction=t)` of a `t` that requires grad raises the parser's
    /// `TypeError` (torch 2.13.0).
    ///
    /// ```
    /// use bcast_case::pyargs::PyValue;
    /// use bcast_case::DType;
    /// let t = |requires_grad| PyValue::Tensor { dtype: DType::Float32, dim: 0, numel: 1, requires_grad };
    /// assert!(t(false).is_number_tensor() && !t(true).is_number_tensor());
    /// ```
    pub fn is_number_tensor(&self) -> bool {
        matches!(
            self,
            PyValue::Tensor {
                dim: 0,
                requires_grad: false,
                ..
            }
        )
    }
}

fn tensor_value(name: &str, case: &Case) -> Option<PyValue> {
    let spec = case.tensors.get(name)?;
    let dtype = DType::from_name(&case.storages.get(&spec.storage)?.dtype)?;
    Some(PyValue::Tensor {
        dtype,
        dim: spec.shape.len(),
        numel: spec.shape.iter().product(),
        requires_grad: case
            .grad
            .as_ref()
            .is_some_and(|g| g.wrt.iter().any(|w| w == name)),
    })
}

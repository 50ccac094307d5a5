//! The `ndarray` crate as a backend (feature `ndarray`). Storages are `Vec`s, tensors are
//! `ArrayView`s with the case's strides over them (ndarray allows aliasing read-only views;
//! a mutable view that would alias itself is refused, which is an error outcome), expand is
//! `broadcast`, binary ops broadcast both operands with `broadcast` and apply the operator,
//! in-place ops use `ArrayViewMut` and the assign operators, and `sum` is `sum_axis`.
//!
//! It runs every dtype ndarray has an element type for: Rust's `bool`, `u8`, `i8`, `i16`,
//! `i32`, `i64`, `f32`, `f64` and `num_complex::Complex` (no half-precision type). ndarray has
//! no dtype promotion: a binary op between two dtypes, or a float scalar with an int array,
//! fails the case. Its errors are its own, so errors and messages are not claimed.

use super::call::{
    expand_target, mapped_ops, parse_call, wrap_dim, BinaryOp, ForeignCall, Operand,
};
use super::typed::{
    error_outcome, refuse_huge, tensor_result, tensor_result_at, typed_storages, Typed,
};
use crate::backend::{Backend, BackendFailure, Capabilities, Level};
use crate::case::{Case, Num, OkOutcome, Outcome, ResultValue, TensorResult, TensorSpec};
use bcast_engine::DType;
use ndarray::{ArrayD, ArrayViewD, ArrayViewMutD, Axis, IxDyn, ShapeBuilder};
use num_complex::Complex;
use std::collections::BTreeMap;

/// ndarray 0.16 under test.
#[derive(Debug, Default, Clone, Copy)]
pub struct NdarrayBackend;

impl Backend for NdarrayBackend {
    fn name(&self) -> String {
        "ndarray 0.16".to_string()
    }

    fn capabilities(&self) -> Capabilities {
        Capabilities {
            ops: Some(mapped_ops(true).into_iter().collect()),
            dtypes: DTYPES.iter().map(|d| d.name().to_string()).collect(),
            levels: [
                Level::Shapes,
                Level::Dtypes,
                Level::Values,
                Level::Inplace,
                Level::Aliasing,
                Level::Strides,
            ]
            .into_iter()
            .collect(),
            declines: Default::default(),
        }
    }

    fn run(&mut self, case: &Case) -> Result<Outcome, BackendFailure> {
        // A panic of the crate is caught by the runner (`runner::run_guarded`).
        run_case(case)
    }
}

const SHAPE_ERROR: &str = "ShapeError";

/// The dtypes whose Rust element types ndarray computes on (the ones `with_elem!` maps): its
/// native types, complex as `num_complex::Complex`; it has no float16 or bfloat16.
const DTYPES: [DType; 10] = [
    DType::Bool,
    DType::UInt8,
    DType::Int8,
    DType::Int16,
    DType::Int32,
    DType::Int64,
    DType::Float32,
    DType::Float64,
    DType::Complex64,
    DType::Complex128,
];

fn failure<T>(message: impl Into<String>) -> Result<T, BackendFailure> {
    Err(BackendFailure::bad_input(message))
}

/// An element type the adapter handles; arithmetic is only for the numeric ones.
trait Elem: Copy + 'static {
    const DTYPE: DType;
    fn num(self) -> Num;
    /// The storage's elements, if they are of this type.
    fn slice(t: &Typed) -> Option<&[Self]>;
    fn slice_mut(t: &mut Typed) -> Option<&mut [Self]>;
    /// A scalar operand as this type, when Rust would write it so (`2` for a float is `2.0`).
    fn scalar(n: Num) -> Option<Self>;
    fn binary(
        _op: BinaryOp,
        _a: &ArrayViewD<Self>,
        _b: &ArrayViewD<Self>,
    ) -> Result<ArrayD<Self>, String> {
        Err(format!(
            "ndarray has no arithmetic on {} arrays",
            Self::DTYPE.name()
        ))
    }
    fn binary_scalar(
        _op: BinaryOp,
        _a: &ArrayViewD<Self>,
        _b: Self,
    ) -> Result<ArrayD<Self>, String> {
        Err(format!(
            "ndarray has no arithmetic on {} arrays",
            Self::DTYPE.name()
        ))
    }
    fn assign(
        _op: BinaryOp,
        _a: &mut ArrayViewMutD<Self>,
        _b: &ArrayViewD<Self>,
    ) -> Result<(), String> {
        Err(format!(
            "ndarray has no arithmetic on {} arrays",
            Self::DTYPE.name()
        ))
    }
    fn sum_axis(_a: &ArrayD<Self>, _axis: usize) -> Result<ArrayD<Self>, String> {
        Err(format!("ndarray cannot sum {} arrays", Self::DTYPE.name()))
    }
    fn sum_all(_a: &ArrayViewD<Self>) -> Result<Self, String> {
        Err(format!("ndarray cannot sum {} arrays", Self::DTYPE.name()))
    }
}

impl Elem for bool {
    const DTYPE: DType = DType::Bool;
    fn num(self) -> Num {
        Num::Bool(self)
    }
    fn slice(t: &Typed) -> Option<&[bool]> {
        match t {
            Typed::Bool(v) => Some(v),
            _ => None,
        }
    }
    fn slice_mut(t: &mut Typed) -> Option<&mut [bool]> {
        match t {
            Typed::Bool(v) => Some(v),
            _ => None,
        }
    }
    fn scalar(n: Num) -> Option<bool> {
        match n {
            Num::Bool(b) => Some(b),
            _ => None,
        }
    }
}

macro_rules! numeric {
    ($t:ty, $variant:ident, $dtype:expr, $num:expr, $scalar:expr, $div_panics:expr) => {
        impl Elem for $t {
            const DTYPE: DType = $dtype;
            fn num(self) -> Num {
                $num(self)
            }
            fn slice(t: &Typed) -> Option<&[$t]> {
                match t {
                    Typed::$variant(v) => Some(v),
                    _ => None,
                }
            }
            fn slice_mut(t: &mut Typed) -> Option<&mut [$t]> {
                match t {
                    Typed::$variant(v) => Some(v),
                    _ => None,
                }
            }
            fn scalar(n: Num) -> Option<$t> {
                $scalar(n)
            }
            fn binary(
                op: BinaryOp,
                a: &ArrayViewD<$t>,
                b: &ArrayViewD<$t>,
            ) -> Result<ArrayD<$t>, String> {
                if op == BinaryOp::Div {
                    refuse_panicking_division(a.iter().zip(b.iter()), $div_panics)?;
                }
                Ok(match op {
                    BinaryOp::Add => a + b,
                    BinaryOp::Sub => a - b,
                    BinaryOp::Mul => a * b,
                    BinaryOp::Div => a / b,
                })
            }
            fn binary_scalar(
                op: BinaryOp,
                a: &ArrayViewD<$t>,
                b: $t,
            ) -> Result<ArrayD<$t>, String> {
                if op == BinaryOp::Div {
                    refuse_panicking_division(a.iter().map(|x| (x, &b)), $div_panics)?;
                }
                Ok(match op {
                    BinaryOp::Add => a + b,
                    BinaryOp::Sub => a - b,
                    BinaryOp::Mul => a * b,
                    BinaryOp::Div => a / b,
                })
            }
            fn assign(
                op: BinaryOp,
                a: &mut ArrayViewMutD<$t>,
                b: &ArrayViewD<$t>,
            ) -> Result<(), String> {
                if op == BinaryOp::Div {
                    refuse_panicking_division(a.iter().zip(b.iter()), $div_panics)?;
                }
                match op {
                    BinaryOp::Add => *a += b,
                    BinaryOp::Sub => *a -= b,
                    BinaryOp::Mul => *a *= b,
                    BinaryOp::Div => *a /= b,
                }
                Ok(())
            }
            fn sum_axis(a: &ArrayD<$t>, axis: usize) -> Result<ArrayD<$t>, String> {
                // ndarray's `sum_axis` panics on an axis it does not have (any of a 0-d array).
                if axis >= a.ndim() {
                    return Err(format!(
                        "ndarray cannot sum a {}-d array over axis {axis}",
                        a.ndim()
                    ));
                }
                Ok(a.sum_axis(Axis(axis)))
            }
            fn sum_all(a: &ArrayViewD<$t>) -> Result<$t, String> {
                Ok(a.sum())
            }
        }
    };
}

/// Integer division by zero (and `MIN / -1`) panics in Rust, and a panic inside ndarray's
/// collecting loops can abort the process rather than unwind: refuse such a division up front
/// (torch divides ints as floats, so ndarray's integer division fails these cases anyway).
fn refuse_panicking_division<'a, T: 'a + Copy>(
    mut pairs: impl Iterator<Item = (&'a T, &'a T)>,
    panics: fn(T, T) -> bool,
) -> Result<(), String> {
    if pairs.any(|(&x, &y)| panics(x, y)) {
        return Err(
            "ndarray's integer division panics on a zero divisor (or MIN / -1)".to_string(),
        );
    }
    Ok(())
}

/// Implements [`Elem`] for Rust integer types: a scalar operand is an integer that fits.
macro_rules! integer {
    ($($t:ty, $variant:ident, $dtype:expr;)*) => {$(
        numeric!(
            $t,
            $variant,
            $dtype,
            |x: $t| Num::Int(x.into()),
            |n| match n {
                Num::Int(i) => <$t>::try_from(i).ok(),
                _ => None,
            },
            |x: $t, y: $t| x.checked_div(y).is_none()
        );
    )*};
}

integer! {
    u8, U8, DType::UInt8;
    i8, I8, DType::Int8;
    i16, I16, DType::Int16;
    i32, I32, DType::Int32;
    i64, I64, DType::Int64;
}

/// A real scalar operand of a float array, as Rust writes `2` for a float: `2.0`.
fn real(n: Num) -> Option<f64> {
    match n {
        Num::Int(i) => Some(i as f64),
        Num::Float(f) => Some(f),
        Num::Bool(_) | Num::Complex(..) => None,
    }
}

/// Float division never panics.
fn never<T>(_: T, _: T) -> bool {
    false
}

numeric!(
    f32,
    F32,
    DType::Float32,
    |x: f32| Num::Float(x.into()),
    |n| real(n).map(|x| x as f32),
    never
);
numeric!(f64, F64, DType::Float64, Num::Float, real, never);
numeric!(
    Complex<f32>,
    C64,
    DType::Complex64,
    |z: Complex<f32>| Num::Complex(z.re.into(), z.im.into()),
    |n| match n {
        Num::Complex(re, im) => Some(Complex::new(re as f32, im as f32)),
        other => real(other).map(|x| Complex::new(x as f32, 0.0)),
    },
    never
);
numeric!(
    Complex<f64>,
    C128,
    DType::Complex128,
    |z: Complex<f64>| Num::Complex(z.re, z.im),
    |n| match n {
        Num::Complex(re, im) => Some(Complex::new(re, im)),
        other => real(other).map(|x| Complex::new(x, 0.0)),
    },
    never
);

/// The storages of a case, typed, and its tensor specs.
struct Inputs<'c> {
    case: &'c Case,
    storages: BTreeMap<String, Typed>,
}

impl Inputs<'_> {
    fn spec(&self, name: &str) -> Result<&TensorSpec, BackendFailure> {
        self.case
            .tensors
            .get(name)
            .map_or_else(|| failure(format!("unknown tensor {name}")), Ok)
    }

    fn dtype_of(&self, tensor: &str) -> Result<DType, BackendFailure> {
        let store = &self.spec(tensor)?.storage;
        self.storages
            .get(store)
            .map(Typed::dtype)
            .map_or_else(|| failure(format!("unknown storage {store}")), Ok)
    }

    /// The tensor as a view of its storage, with the storage's name and elements.
    fn view<T: Elem>(
        &self,
        tensor: &str,
    ) -> Result<(ArrayViewD<'_, T>, &str, &[T]), BackendFailure> {
        let spec = self.spec(tensor)?;
        let data = self
            .storages
            .get(&spec.storage)
            .and_then(T::slice)
            .map_or_else(
                || {
                    failure(format!(
                        "ndarray has no mixed-dtype arithmetic (tensor {tensor} is not {})",
                        T::DTYPE.name()
                    ))
                },
                Ok,
            )?;
        let start = data.get(spec.offset..).unwrap_or_default();
        let shape = IxDyn(&spec.shape).strides(IxDyn(&spec.strides));
        let view = ArrayViewD::from_shape(shape, start).map_err(|e| {
            BackendFailure::bad_input(format!("ndarray refused the view {spec:?}: {e}"))
        })?;
        Ok((view, &spec.storage, data))
    }

    fn snapshot(&self) -> BTreeMap<String, Vec<Num>> {
        self.storages
            .iter()
            .map(|(n, t)| (n.clone(), t.to_nums()))
            .collect()
    }
}

/// Where a view starts in `base`, in elements.
fn offset_in<T>(view_ptr: *const T, base: &[T]) -> usize {
    let size = std::mem::size_of::<T>().max(1);
    (view_ptr as usize).saturating_sub(base.as_ptr() as usize) / size
}

fn describe_view<T: Elem>(
    v: &ArrayViewD<T>,
    storage: &str,
    base: &[T],
) -> Result<TensorResult, BackendFailure> {
    // As torch reports it: an empty storage is no storage.
    let view_of = (!base.is_empty()).then(|| (storage.to_string(), offset_in(v.as_ptr(), base)));
    let shape = v.shape().to_vec();
    // Read in place: a broadcast view may be far larger than memory.
    let at = |i: usize| v[IxDyn(&bcast_engine::index_map::unravel(i, &shape))].num();
    tensor_result_at(v.shape(), v.strides(), T::DTYPE, v.len(), at, view_of)
}

fn describe_new<T: Elem>(a: &ArrayD<T>) -> Result<TensorResult, BackendFailure> {
    let values = a.iter().map(|x| x.num()).collect();
    tensor_result(a.shape(), a.strides(), T::DTYPE, values, None)
}

/// The shape both operands would broadcast to; ndarray's `broadcast` decides whether they do.
fn common_shape(a: &[usize], b: &[usize]) -> Vec<usize> {
    let n = a.len().max(b.len());
    let at = |s: &[usize], i: usize| (i + s.len()).checked_sub(n).map_or(1, |k| s[k]);
    (0..n)
        .map(|i| match (at(a, i), at(b, i)) {
            (1, y) => y,
            (x, _) => x,
        })
        .collect()
}

fn ok(result: ResultValue, storages: Option<BTreeMap<String, Vec<Num>>>) -> Outcome {
    Outcome::Ok(OkOutcome {
        result,
        storages,
        warnings: None,
        grads: None,
        backward_error: None,
    })
}

fn cannot_broadcast(from: &[usize], to: &[usize]) -> Outcome {
    error_outcome(
        SHAPE_ERROR,
        format!("could not broadcast array from shape {from:?} to {to:?}"),
    )
}

/// Calls `$f::<T>($args)` with `T` the element type of `$dtype`.
macro_rules! with_elem {
    ($dtype:expr, $f:ident($($args:expr),*)) => {
        match $dtype {
            DType::Bool => $f::<bool>($($args),*),
            DType::UInt8 => $f::<u8>($($args),*),
            DType::Int8 => $f::<i8>($($args),*),
            DType::Int16 => $f::<i16>($($args),*),
            DType::Int32 => $f::<i32>($($args),*),
            DType::Int64 => $f::<i64>($($args),*),
            DType::Float32 => $f::<f32>($($args),*),
            DType::Float64 => $f::<f64>($($args),*),
            DType::Complex64 => $f::<Complex<f32>>($($args),*),
            DType::Complex128 => $f::<Complex<f64>>($($args),*),
            other => Err(BackendFailure::unsupported(format!(
                "ndarray backend: dtype {} is not mapped",
                other.name()
            ))),
        }
    };
}

fn run_case(case: &Case) -> Result<Outcome, BackendFailure> {
    let call = parse_call(case)?;
    let mut inputs = Inputs {
        case,
        storages: typed_storages(case)?,
    };
    match &call {
        ForeignCall::Expand { tensor, sizes } => {
            with_elem!(inputs.dtype_of(tensor)?, expand(&inputs, tensor, sizes))
        }
        ForeignCall::BroadcastTensors(names) => match names.first() {
            Some(first) => with_elem!(inputs.dtype_of(first)?, broadcast_tensors(&inputs, names)),
            None => Ok(ok(ResultValue::Tensors(Vec::new()), None)),
        },
        ForeignCall::Sum {
            tensor,
            dims,
            keepdim,
        } => {
            with_elem!(
                inputs.dtype_of(tensor)?,
                sum(&inputs, tensor, dims.as_deref(), *keepdim)
            )
        }
        ForeignCall::Binary {
            op,
            lhs,
            rhs,
            inplace: false,
        } => {
            with_elem!(inputs.dtype_of(lhs)?, binary(&inputs, *op, lhs, rhs))
        }
        ForeignCall::Binary {
            op,
            lhs,
            rhs,
            inplace: true,
        } => {
            with_elem!(
                inputs.dtype_of(lhs)?,
                binary_inplace(&mut inputs, *op, lhs, rhs)
            )
        }
    }
}

fn expand<T: Elem>(
    inputs: &Inputs,
    tensor: &str,
    sizes: &[i64],
) -> Result<Outcome, BackendFailure> {
    let (v, store, data) = inputs.view::<T>(tensor)?;
    let target = match expand_target(v.shape(), sizes) {
        Ok(t) => t,
        Err(why) => return Ok(error_outcome(SHAPE_ERROR, why)),
    };
    match v.broadcast(IxDyn(&target)) {
        Some(b) => Ok(ok(
            ResultValue::Tensor(describe_view(&b, store, data)?),
            None,
        )),
        None => Ok(cannot_broadcast(v.shape(), &target)),
    }
}

fn broadcast_tensors<T: Elem>(
    inputs: &Inputs,
    names: &[String],
) -> Result<Outcome, BackendFailure> {
    let mut target = Vec::new();
    for name in names {
        target = common_shape(&target, &inputs.spec(name)?.shape);
    }
    let mut out = Vec::new();
    for name in names {
        let (v, store, data) = inputs.view::<T>(name)?;
        match v.broadcast(IxDyn(&target)) {
            Some(b) => out.push(describe_view(&b, store, data)?),
            None => return Ok(cannot_broadcast(v.shape(), &target)),
        }
    }
    Ok(ok(ResultValue::Tensors(out), None))
}

fn sum<T: Elem>(
    inputs: &Inputs,
    tensor: &str,
    dims: Option<&[i64]>,
    keepdim: bool,
) -> Result<Outcome, BackendFailure> {
    let (v, _, _) = inputs.view::<T>(tensor)?;
    // A broadcast view may be far larger than memory (or than a loop can sum).
    refuse_huge(v.len())?;
    let result = match dims.filter(|d| !d.is_empty()) {
        None => {
            let total = T::sum_all(&v).map_err(BackendFailure::bad_input)?;
            let shape = if keepdim {
                vec![1; v.ndim()]
            } else {
                Vec::new()
            };
            ArrayD::from_elem(IxDyn(&shape), total)
        }
        Some(dims) => {
            let axes: Result<Vec<usize>, String> =
                dims.iter().map(|&d| wrap_dim(d, v.ndim())).collect();
            let mut axes = match axes {
                Ok(a) => a,
                Err(why) => return Ok(error_outcome("IndexError", why)),
            };
            axes.sort_unstable();
            axes.dedup();
            let mut acc = v.to_owned();
            for &axis in axes.iter().rev() {
                acc = T::sum_axis(&acc, axis).map_err(BackendFailure::bad_input)?;
                if keepdim {
                    acc.insert_axis_inplace(Axis(axis));
                }
            }
            acc
        }
    };
    Ok(ok(ResultValue::Tensor(describe_new(&result)?), None))
}

/// The right operand, owned (safe Rust cannot view one storage mutably and immutably at once).
fn right_operand<T: Elem>(inputs: &Inputs, rhs: &Operand) -> Result<ArrayD<T>, BackendFailure> {
    match rhs {
        Operand::Tensor(name) => {
            let view = inputs.view::<T>(name)?.0;
            refuse_huge(view.len())?;
            Ok(view.to_owned())
        }
        Operand::Scalar(n) => match T::scalar(*n) {
            Some(x) => Ok(ArrayD::from_elem(IxDyn(&[]), x)),
            None => failure(format!(
                "ndarray cannot combine a {} array with the scalar {n:?}",
                T::DTYPE.name()
            )),
        },
    }
}

fn binary<T: Elem>(
    inputs: &Inputs,
    op: BinaryOp,
    lhs: &str,
    rhs: &Operand,
) -> Result<Outcome, BackendFailure> {
    let (a, _, _) = inputs.view::<T>(lhs)?;
    let result = match rhs {
        Operand::Scalar(n) => match T::scalar(*n) {
            Some(x) => {
                refuse_huge(a.len())?;
                T::binary_scalar(op, &a, x)
            }
            None => {
                return failure(format!(
                    "ndarray cannot combine a {} array with the scalar {n:?}",
                    T::DTYPE.name()
                ))
            }
        },
        Operand::Tensor(name) => {
            let (b, _, _) = inputs.view::<T>(name)?;
            let target = common_shape(a.shape(), b.shape());
            refuse_huge(target.iter().product())?;
            match (a.broadcast(IxDyn(&target)), b.broadcast(IxDyn(&target))) {
                (Some(x), Some(y)) => T::binary(op, &x, &y),
                _ => return Ok(cannot_broadcast(b.shape(), &target)),
            }
        }
    }
    .map_err(BackendFailure::bad_input)?;
    Ok(ok(ResultValue::Tensor(describe_new(&result)?), None))
}

fn binary_inplace<T: Elem>(
    inputs: &mut Inputs,
    op: BinaryOp,
    lhs: &str,
    rhs: &Operand,
) -> Result<Outcome, BackendFailure> {
    let b = right_operand::<T>(inputs, rhs)?;
    let spec = inputs.spec(lhs)?.clone();
    let data = inputs
        .storages
        .get_mut(&spec.storage)
        .and_then(T::slice_mut)
        .map_or_else(|| failure(format!("unknown storage {}", spec.storage)), Ok)?;
    let start = data.get_mut(spec.offset..).unwrap_or_default();
    let shape = IxDyn(&spec.shape).strides(IxDyn(&spec.strides));
    let mut target = match ArrayViewMutD::from_shape(shape, start) {
        Ok(t) => t,
        Err(e) => {
            return Ok(error_outcome(
                SHAPE_ERROR,
                format!("ndarray refused a mutable view: {e}"),
            ))
        }
    };
    let Some(b) = b.broadcast(target.raw_dim()) else {
        return Ok(cannot_broadcast(b.shape(), &spec.shape));
    };
    T::assign(op, &mut target, &b).map_err(BackendFailure::bad_input)?;
    let (written, store, base) = inputs.view::<T>(lhs)?;
    let result = describe_view(&written, store, base)?;
    Ok(ok(ResultValue::Tensor(result), Some(inputs.snapshot())))
}

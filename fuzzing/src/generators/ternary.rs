//! The `ternary` family: `clamp` (number or tensor bounds, `None`, keywords), `clamp_min`,
//! `clamp_max`, `lerp` (number or tensor weight, 0-d weights that promote), `addcmul` and
//! `addcdiv` (with `value=`), `masked_fill` (a mask that broadcasts, number or tensor values),
//! `isclose` (tolerances, `equal_nan`) and `equal`, in functional, method, in-place and `out=`
//! forms, on random layouts, dtypes and shapes that broadcast (or not), with inputs that
//! alias the written tensor.
//!
//! `lerp` weights are Python numbers, random tensors, or tensors of the weights where its two
//! branches meet or round exactly (0, 0.25, 0.5, 1, 2, -1, ...).

use super::aliasing::{is_racy, shared_views};
use super::operands::{approximate, python_number, random_dtype};
use super::out::add_out;
use super::{broadcast_partner, random_shape, CaseBuilder, GenResult, ShapeLimits};
use arbitrary::Unstructured;
use bcast_conformance::case::{Arg, Case, Num};
use bcast_engine::DType;

/// Edge weights of `lerp`: the branch point 0.5, and weights whose products are exact.
const WEIGHTS: [f64; 8] = [0.0, 0.25, 0.5, 0.75, 1.0, 1.5, 2.0, -1.0];

/// The ops of the family, with the forms each has.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Op {
    Clamp,
    ClampMin,
    ClampMax,
    Lerp,
    Addcmul,
    Addcdiv,
    MaskedFill,
    IsClose,
    Equal,
}

const OPS: [Op; 9] = [
    Op::Clamp,
    Op::ClampMin,
    Op::ClampMax,
    Op::Lerp,
    Op::Addcmul,
    Op::Addcdiv,
    Op::MaskedFill,
    Op::IsClose,
    Op::Equal,
];

impl Op {
    fn name(self) -> &'static str {
        match self {
            Op::Clamp => "clamp",
            Op::ClampMin => "clamp_min",
            Op::ClampMax => "clamp_max",
            Op::Lerp => "lerp",
            Op::Addcmul => "addcmul",
            Op::Addcdiv => "addcdiv",
            Op::MaskedFill => "masked_fill",
            Op::IsClose => "isclose",
            Op::Equal => "equal",
        }
    }

    fn has_out(self) -> bool {
        !matches!(self, Op::MaskedFill | Op::IsClose | Op::Equal)
    }

    fn has_inplace(self) -> bool {
        !matches!(self, Op::IsClose | Op::Equal)
    }
}

/// How the call is spelled.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Form {
    Function,
    Out,
    Method,
    InPlace,
}

/// A dtype: `like` three times in four, else any drawn one.
fn dtype_like(u: &mut Unstructured, like: DType) -> GenResult<DType> {
    if u.ratio(3, 4)? {
        Ok(like)
    } else {
        random_dtype(u)
    }
}

/// A tensor of `shape` and `dtype` holding values from [`WEIGHTS`], in row-major order.
fn weight_tensor(
    u: &mut Unstructured,
    b: &mut CaseBuilder,
    dtype: DType,
    shape: &[usize],
) -> GenResult<String> {
    let n: usize = shape.iter().product();
    let values = (0..n)
        .map(|_| {
            let w = *u.choose(&WEIGHTS)?;
            Ok(if dtype.is_complex() {
                Num::Complex(w, 0.0)
            } else if dtype.is_floating() {
                Num::Float(w)
            } else if dtype == DType::Bool {
                Num::Bool(w != 0.0)
            } else if dtype == DType::UInt8 {
                Num::Int((w as i64).max(0))
            } else {
                Num::Int(w as i64)
            })
        })
        .collect::<GenResult<Vec<Num>>>()?;
    let storage = b.literal_storage(dtype, values);
    let strides = bcast_engine::layout::contiguous_strides(shape).to_vec();
    let spec = super::ViewSpec {
        strides,
        offset: 0,
        storage_len: n,
        kind: super::ViewKind::default(),
    };
    Ok(b.tensor(&storage, shape, &spec))
}

/// A partner of `shape` for an operand: usually broadcastable to it, sometimes larger or not
/// broadcastable.
fn partner(u: &mut Unstructured, shape: &[usize]) -> GenResult<Vec<usize>> {
    broadcast_partner(u, shape, 6)
}

/// The operand tensor at `shape`: a new view, or (for a written `x`) sometimes `x` itself or
/// a view sharing its storage, when that does not race.
fn operand(
    u: &mut Unstructured,
    b: &mut CaseBuilder,
    dtype: DType,
    shape: &[usize],
    written: Option<&str>,
) -> GenResult<String> {
    if let Some(x) = written {
        match u.int_in_range(0..=5)? {
            0 if b.tensor_spec(x).is_some_and(|s| s.shape == shape) => {
                b.tag("self-input");
                return Ok(x.to_string());
            }
            1 => {
                let storage = b.tensor_spec(x).map(|s| s.storage.clone());
                let x_dtype = storage
                    .and_then(|s| b.storage_spec(&s).map(|s| s.dtype.clone()))
                    .and_then(|d| DType::from_name(&d));
                if x_dtype == Some(dtype) {
                    let (_, o) = shared_views(u, b, dtype, (&[], true), (shape, true))?;
                    if !is_racy(b, x, &o) {
                        b.tag("aliased");
                        return Ok(o);
                    }
                }
            }
            _ => {}
        }
    }
    b.view(u, dtype, shape, true)
}

/// The `ternary` family.
pub fn ternary_case(u: &mut Unstructured) -> GenResult<Case> {
    let mut b = CaseBuilder::default();
    let op = *u.choose(&OPS)?;
    let form = match u.int_in_range(0..=9)? {
        0..=3 => Form::Function,
        4 | 5 if op.has_out() => Form::Out,
        6 | 7 if op.has_inplace() => Form::InPlace,
        _ => Form::Method,
    };
    let shape = random_shape(u, ShapeLimits::default())?;
    let dtype = random_dtype(u)?;
    let expandable = form != Form::Out || u.ratio(1, 2)?;
    let x = b.view(u, dtype, &shape, expandable)?;
    let written = (form == Form::InPlace).then_some(x.as_str());
    let mut args = vec![Arg::Tensor(x.clone())];
    match op {
        Op::Clamp | Op::ClampMin | Op::ClampMax => {
            let tensors = u.ratio(1, 2)?;
            let bound = |u: &mut Unstructured, b: &mut CaseBuilder| -> GenResult<Arg> {
                if tensors {
                    let d = dtype_like(u, dtype)?;
                    let s = partner(u, &shape)?;
                    Ok(Arg::Tensor(operand(u, b, d, &s, written)?))
                } else {
                    b.tag("number");
                    python_number(u)
                }
            };
            if op == Op::Clamp {
                let (min, max) = match u.int_in_range(0..=9)? {
                    0..=3 => (Some(bound(u, &mut b)?), Some(bound(u, &mut b)?)),
                    4..=5 => (Some(bound(u, &mut b)?), None),
                    6..=8 => (None, Some(bound(u, &mut b)?)),
                    _ => (None, None),
                };
                if u.ratio(1, 3)? {
                    if let Some(m) = min {
                        b.kwarg("min", m);
                    }
                    if let Some(m) = max {
                        b.kwarg("max", m);
                    }
                } else {
                    match (min, max) {
                        (Some(lo), Some(hi)) => args.extend([lo, hi]),
                        (Some(lo), None) => args.push(lo),
                        (None, Some(hi)) => args.extend([Arg::None(()), hi]),
                        (None, None) => {}
                    }
                }
            } else {
                args.push(bound(u, &mut b)?);
            }
        }
        Op::Lerp => {
            let end_dtype = if u.ratio(9, 10)? {
                dtype
            } else {
                random_dtype(u)?
            };
            let s = partner(u, &shape)?;
            args.push(Arg::Tensor(operand(u, &mut b, end_dtype, &s, written)?));
            let weight = match u.int_in_range(0..=7)? {
                0 | 1 => Arg::Float(Num::Float(*u.choose(&WEIGHTS)?)),
                2 => python_number(u)?,
                6 => {
                    let d = if u.ratio(6, 7)? {
                        dtype
                    } else {
                        random_dtype(u)?
                    };
                    let s = partner(u, &shape)?;
                    Arg::Tensor(b.view(u, d, &s, true)?)
                }
                3 => {
                    let d = if u.ratio(1, 2)? {
                        dtype
                    } else {
                        random_dtype(u)?
                    };
                    Arg::Tensor(weight_tensor(u, &mut b, d, &[])?)
                }
                _ => {
                    let d = if u.ratio(6, 7)? {
                        dtype
                    } else {
                        random_dtype(u)?
                    };
                    let s = partner(u, &shape)?;
                    Arg::Tensor(weight_tensor(u, &mut b, d, &s)?)
                }
            };
            args.push(weight);
        }
        Op::Addcmul | Op::Addcdiv => {
            for _ in 0..2 {
                let d = dtype_like(u, dtype)?;
                let s = partner(u, &shape)?;
                args.push(Arg::Tensor(operand(u, &mut b, d, &s, written)?));
            }
            if u.ratio(1, 2)? {
                let value = match u.int_in_range(0..=3)? {
                    0 => Arg::Int(*u.choose(&[2, -1, 0, 3, 300, i64::MAX])?),
                    1 => Arg::Float(Num::Float(*u.choose(&[0.5, -2.0, 0.25, 1e30, 1e300])?)),
                    2 => Arg::Bool(u.arbitrary()?),
                    _ => python_number(u)?,
                };
                b.kwarg("value", value);
            }
        }
        Op::MaskedFill => {
            let mask_dtype = if u.ratio(9, 10)? {
                DType::Bool
            } else {
                random_dtype(u)?
            };
            let s = if u.ratio(4, 5)? {
                broadcast_partner(u, &shape, 3)?
            } else {
                partner(u, &shape)?
            };
            args.push(Arg::Tensor(operand(u, &mut b, mask_dtype, &s, written)?));
            let value = match u.int_in_range(0..=9)? {
                0..=5 => {
                    b.tag("number");
                    python_number(u)?
                }
                6..=8 => {
                    let d = random_dtype(u)?;
                    Arg::Tensor(b.view(u, d, &[], true)?)
                }
                _ => {
                    let s = random_shape(u, ShapeLimits::default())?;
                    let d = random_dtype(u)?;
                    Arg::Tensor(b.view(u, d, &s, true)?)
                }
            };
            args.push(value);
        }
        Op::IsClose | Op::Equal => {
            let d = if u.ratio(9, 10)? {
                dtype
            } else {
                random_dtype(u)?
            };
            let other = match u.int_in_range(0..=9)? {
                0 | 1 => x.clone(),
                2 | 3 if d == dtype => {
                    let (_, o) = shared_views(u, &mut b, d, (&[], true), (&shape, true))?;
                    o
                }
                4 if op == Op::Equal || u.ratio(1, 2)? => {
                    let s = partner(u, &shape)?;
                    b.view(u, d, &s, true)?
                }
                _ if u.ratio(1, 30)? => {
                    b.tag("type-error");
                    args.push(python_number(u)?);
                    String::new()
                }
                _ => b.view(u, d, &shape, true)?,
            };
            if !other.is_empty() {
                args.push(Arg::Tensor(other));
            }
            if op == Op::IsClose {
                if u.ratio(1, 2)? {
                    let rtol = *u.choose(&[0.0, 1e-5, 0.1, 1.0, -1.0, 0.5])?;
                    b.kwarg("rtol", Arg::Float(Num::Float(rtol)));
                }
                if u.ratio(1, 2)? {
                    let atol = *u.choose(&[0.0, 1e-8, 0.5, 2.0, -0.5])?;
                    b.kwarg("atol", Arg::Float(Num::Float(atol)));
                }
                if u.ratio(1, 3)? {
                    b.kwarg("equal_nan", Arg::Bool(u.arbitrary()?));
                }
            }
        }
    }
    if b.has_dtype(|d| d.is_complex()) && matches!(op, Op::Lerp | Op::Addcmul | Op::Addcdiv) {
        approximate(&mut b);
    }
    let name = op.name();
    let mut case = match form {
        Form::Function => b.finish(&format!("torch.{name}"), args),
        Form::Out => {
            b.tag("out");
            let fn_name = format!("torch.{name}");
            add_out(u, &mut b, &fn_name, &args)?;
            b.finish(&fn_name, args)
        }
        Form::Method => b.finish(&format!("Tensor.{name}"), args),
        Form::InPlace => {
            b.tag("inplace");
            b.finish(&format!("Tensor.{name}_"), args)
        }
    };
    if op == Op::Lerp {
        moderate_complex_parts(&mut case);
    }
    Ok(case)
}

/// Complex `lerp` with an infinite or huge part depends on the size of the tensor and on the
/// processor in torch, so such parts (infinite, or at least the complex dtypes' edge value
/// 65504) become `±2.5`:
/// - `torch.lerp(s, e, s)` with `s = arange(n)` (complex64) and `e` the 0-d `1 - inf j` is
///   `nan + nan j` at element 1 for n = 2 and `nan - inf j` for n = 9;
/// - torch's AVX512 loop for complex64 `lerp_` takes the large-weight formula
///   `end - (end - self) * (1 - w)` for an element of weight 0 beside one of weight 1.5, which
///   with `end = 1e30` gives 0 where `self` is 7 (its AVX2 loop and the scalar formula give 7;
///   notes/differential.md, seed 1203001).
fn moderate_complex_parts(case: &mut Case) {
    let finite = |x: f64| {
        if x.is_infinite() || x.abs() >= 65504.0 {
            2.5f64.copysign(x)
        } else {
            x
        }
    };
    let fix = |v: &mut Num| {
        if let Num::Complex(re, im) = *v {
            *v = Num::Complex(finite(re), finite(im));
        }
    };
    for storage in case.storages.values_mut() {
        if DType::from_name(&storage.dtype).is_some_and(DType::is_complex) {
            storage.values.iter_mut().flatten().for_each(fix);
        }
    }
    for arg in &mut case.call.args {
        if let Arg::Complex(v) = arg {
            fix(v);
        }
    }
}

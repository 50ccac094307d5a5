//! The `candle-core` crate as a backend (feature `candle`). candle has no public way to view a
//! storage through arbitrary strides, so each input tensor is gathered into a contiguous candle
//! tensor (through the engine's naive index map); on those, expand is `broadcast_as`, binary
//! ops are `broadcast_add` and friends, and `sum` is `sum` / `sum_keepdim`. candle has no
//! in-place arithmetic, no bool, int8 or complex dtype and no dtype promotion, and its errors
//! are its own: it claims shapes, dtypes and values, for the element types it shares with the
//! schema (uint8, int16, int32, int64, float16, bfloat16, float32, float64; its `u32` has no
//! schema dtype).

use super::call::{
    expand_target, mapped_ops, parse_call, wrap_dim, BinaryOp, ForeignCall, Operand,
};
use super::typed::{error_outcome, refuse_huge, tensor_result, typed_storages, Typed};
use crate::backend::{Backend, BackendFailure, Capabilities, Level};
use crate::case::{Case, Num, OkOutcome, Outcome, ResultValue, TensorResult};
use bcast_engine::{index_map, DType, Layout};
use candle_core::{Device, Shape, Tensor};
use half::{bf16, f16};
use std::collections::BTreeMap;

/// candle-core under test, on the CPU.
#[derive(Debug, Default, Clone, Copy)]
pub struct CandleBackend;

impl Backend for CandleBackend {
    fn name(&self) -> String {
        "candle-core 0.11".to_string()
    }

    fn capabilities(&self) -> Capabilities {
        Capabilities {
            ops: Some(mapped_ops(false).into_iter().collect()),
            dtypes: DTYPES.iter().map(|(_, d)| d.name().to_string()).collect(),
            levels: [Level::Shapes, Level::Dtypes, Level::Values]
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

const CANDLE_ERROR: &str = "candle::Error";

fn failure(message: impl std::fmt::Display) -> BackendFailure {
    BackendFailure::bad_input(message.to_string())
}

/// The schema's dtype of each candle element type that has one (candle's `u32` and its 8-bit
/// floats have none; the schema's bool, int8 and complex have no candle type).
const DTYPES: [(candle_core::DType, DType); 8] = [
    (candle_core::DType::U8, DType::UInt8),
    (candle_core::DType::I16, DType::Int16),
    (candle_core::DType::I32, DType::Int32),
    (candle_core::DType::I64, DType::Int64),
    (candle_core::DType::F16, DType::Float16),
    (candle_core::DType::BF16, DType::BFloat16),
    (candle_core::DType::F32, DType::Float32),
    (candle_core::DType::F64, DType::Float64),
];

/// The schema's dtype of a candle dtype.
fn schema_dtype(dtype: candle_core::DType) -> Option<DType> {
    DTYPES.iter().find(|(c, _)| *c == dtype).map(|&(_, d)| d)
}

/// Each element as it is.
fn same<T>(x: T) -> T {
    x
}

/// Each named tensor of the case, gathered into a contiguous candle tensor.
fn input_tensors(case: &Case) -> Result<BTreeMap<String, Tensor>, BackendFailure> {
    let storages = typed_storages(case)?;
    let mut out = BTreeMap::new();
    for (name, spec) in &case.tensors {
        // Gathered into new memory: a broadcast view may be far larger than memory.
        let numel = spec
            .shape
            .iter()
            .try_fold(1usize, |n, &d| n.checked_mul(d))
            .unwrap_or(usize::MAX);
        refuse_huge(numel)?;
        let layout = Layout::new(spec.shape.clone(), spec.strides.clone(), spec.offset)
            .map_err(|e| failure(e.message()))?;
        let at = index_map::storage_indices(&layout);
        let storage = storages
            .get(&spec.storage)
            .ok_or_else(|| failure(format!("unknown storage {}", spec.storage)))?;
        let shape = spec.shape.clone();
        let cpu = &Device::Cpu;
        fn gather<T: Copy, U>(v: &[T], at: &[usize], f: impl Fn(T) -> U) -> Vec<U> {
            at.iter().map(|&i| f(v[i])).collect()
        }
        let tensor = match storage {
            Typed::U8(v) => Tensor::from_vec(gather(v, &at, same), shape, cpu),
            Typed::I16(v) => Tensor::from_vec(gather(v, &at, same), shape, cpu),
            Typed::I32(v) => Tensor::from_vec(gather(v, &at, same), shape, cpu),
            Typed::I64(v) => Tensor::from_vec(gather(v, &at, same), shape, cpu),
            Typed::F16(v) => {
                Tensor::from_vec(gather(v, &at, |h| f16::from_bits(h.to_bits())), shape, cpu)
            }
            Typed::BF16(v) => {
                Tensor::from_vec(gather(v, &at, |h| bf16::from_bits(h.to_bits())), shape, cpu)
            }
            Typed::F32(v) => Tensor::from_vec(gather(v, &at, same), shape, cpu),
            Typed::F64(v) => Tensor::from_vec(gather(v, &at, same), shape, cpu),
            other => {
                return Err(failure(format!(
                    "candle has no {} dtype",
                    other.dtype().name()
                )))
            }
        }
        .map_err(|e| failure(format!("candle refused tensor {name}: {e}")))?;
        out.insert(name.clone(), tensor);
    }
    Ok(out)
}

/// A result tensor in the schema's terms (new memory: the inputs were gathered).
fn describe(t: &Tensor) -> Result<TensorResult, BackendFailure> {
    refuse_huge(t.elem_count())?;
    let flat = t.flatten_all().map_err(failure)?;
    fn nums<T: candle_core::WithDType>(
        flat: &Tensor,
        f: impl Fn(T) -> Num,
    ) -> Result<Vec<Num>, BackendFailure> {
        Ok(flat
            .to_vec1::<T>()
            .map_err(failure)?
            .into_iter()
            .map(f)
            .collect())
    }
    let values = match t.dtype() {
        candle_core::DType::U8 => nums(&flat, |x: u8| Num::Int(x.into()))?,
        candle_core::DType::I16 => nums(&flat, |x: i16| Num::Int(x.into()))?,
        candle_core::DType::I32 => nums(&flat, |x: i32| Num::Int(x.into()))?,
        candle_core::DType::I64 => nums(&flat, Num::Int)?,
        candle_core::DType::F16 => nums(&flat, |x: f16| Num::Float(x.to_f64()))?,
        candle_core::DType::BF16 => nums(&flat, |x: bf16| Num::Float(x.to_f64()))?,
        candle_core::DType::F32 => nums(&flat, |x: f32| Num::Float(x.into()))?,
        candle_core::DType::F64 => nums(&flat, Num::Float)?,
        other => return Err(failure(format!("candle returned dtype {other:?}"))),
    };
    let dtype = schema_dtype(t.dtype())
        .ok_or_else(|| failure(format!("candle returned dtype {:?}", t.dtype())))?;
    let strides: Vec<isize> = t.stride().iter().map(|&s| s as isize).collect();
    tensor_result(t.dims(), &strides, dtype, values, None)
}

fn ok(result: ResultValue) -> Outcome {
    Outcome::Ok(OkOutcome {
        result,
        storages: None,
        warnings: None,
        grads: None,
        backward_error: None,
    })
}

/// A scalar operand as a 0-d tensor of `like`'s dtype, as Rust would write it: an integer
/// for an integer tensor (when it fits the type), any real number for a float tensor.
fn scalar(n: Num, like: &Tensor) -> Result<Tensor, BackendFailure> {
    use candle_core::DType as C;
    let cpu = &Device::Cpu;
    let float = matches!(n, Num::Int(_) | Num::Float(_));
    let made = match (like.dtype(), n) {
        (C::U8, Num::Int(i)) if u8::try_from(i).is_ok() => Tensor::new(i as u8, cpu),
        (C::I16, Num::Int(i)) if i16::try_from(i).is_ok() => Tensor::new(i as i16, cpu),
        (C::I32, Num::Int(i)) if i32::try_from(i).is_ok() => Tensor::new(i as i32, cpu),
        (C::I64, Num::Int(i)) => Tensor::new(i, cpu),
        (C::F16, _) if float => Tensor::new(f16::from_f64(n.to_f64()), cpu),
        (C::BF16, _) if float => Tensor::new(bf16::from_f64(n.to_f64()), cpu),
        (C::F32, _) if float => Tensor::new(n.to_f64() as f32, cpu),
        (C::F64, _) if float => Tensor::new(n.to_f64(), cpu),
        (dtype, n) => {
            return Err(failure(format!(
                "candle cannot combine a {dtype:?} tensor with the scalar {n:?}"
            )))
        }
    };
    made.map_err(failure)
}

/// Whether Rust's integer division would panic on some element: a 0 in `divisor`, or a -1
/// in it while `dividend` holds its type's minimum (read as `f64`, which holds them exactly).
fn division_panics(dividend: &Tensor, divisor: &Tensor) -> Result<bool, BackendFailure> {
    let values = |t: &Tensor| {
        t.flatten_all()
            .and_then(|t| t.to_dtype(candle_core::DType::F64))
            .and_then(|t| t.to_vec1::<f64>())
            .map_err(failure)
    };
    let min = match dividend.dtype() {
        candle_core::DType::I16 => f64::from(i16::MIN),
        candle_core::DType::I32 => f64::from(i32::MIN),
        candle_core::DType::I64 => i64::MIN as f64,
        _ => f64::NAN,
    };
    let divisors = values(divisor)?;
    Ok(divisors.contains(&0.0) || (divisors.contains(&-1.0) && values(dividend)?.contains(&min)))
}

fn run_case(case: &Case) -> Result<Outcome, BackendFailure> {
    let call = parse_call(case)?;
    let tensors = input_tensors(case)?;
    let get = |name: &str| {
        tensors
            .get(name)
            .ok_or_else(|| failure(format!("unknown tensor {name}")))
    };
    // What candle itself answers: an error of the op is an outcome.
    let answer = |r: candle_core::Result<Tensor>| -> Result<Outcome, BackendFailure> {
        match r {
            Ok(t) => Ok(ok(ResultValue::Tensor(describe(&t)?))),
            Err(e) => Ok(error_outcome(CANDLE_ERROR, e.to_string())),
        }
    };
    match call {
        ForeignCall::Expand { tensor, sizes } => {
            let t = get(&tensor)?;
            match expand_target(t.dims(), &sizes) {
                Ok(target) => answer(t.broadcast_as(target)),
                Err(why) => Ok(error_outcome(CANDLE_ERROR, why)),
            }
        }
        ForeignCall::BroadcastTensors(names) => {
            let inputs: Vec<&Tensor> = names.iter().map(|n| get(n)).collect::<Result<_, _>>()?;
            let mut target = Shape::from(Vec::<usize>::new());
            for t in &inputs {
                match target.broadcast_shape_binary_op(t.shape(), "broadcast_tensors") {
                    Ok(s) => target = s,
                    Err(e) => return Ok(error_outcome(CANDLE_ERROR, e.to_string())),
                }
            }
            let mut out = Vec::new();
            for t in inputs {
                match t.broadcast_as(target.clone()) {
                    Ok(b) => out.push(describe(&b)?),
                    Err(e) => return Ok(error_outcome(CANDLE_ERROR, e.to_string())),
                }
            }
            Ok(ok(ResultValue::Tensors(out)))
        }
        ForeignCall::Sum {
            tensor,
            dims,
            keepdim,
        } => {
            let t = get(&tensor)?;
            let dims = match dims.filter(|d| !d.is_empty()) {
                None => (0..t.rank()).collect(),
                Some(d) => match d.iter().map(|&x| wrap_dim(x, t.rank())).collect() {
                    Ok(d) => d,
                    Err(why) => return Ok(error_outcome(CANDLE_ERROR, why)),
                },
            };
            let dims: Vec<usize> = dims;
            answer(if keepdim {
                t.sum_keepdim(dims)
            } else {
                t.sum(dims)
            })
        }
        ForeignCall::Binary {
            op,
            lhs,
            rhs,
            inplace,
        } => {
            if inplace {
                return Err(failure("candle has no in-place arithmetic"));
            }
            let a = get(&lhs)?;
            let b = match rhs {
                Operand::Tensor(name) => get(&name)?.clone(),
                Operand::Scalar(n) => scalar(n, a)?,
            };
            if a.dtype() != b.dtype() {
                return Err(failure(format!(
                    "candle has no mixed-dtype arithmetic ({:?} with {:?})",
                    a.dtype(),
                    b.dtype()
                )));
            }
            if let Ok(target) = a.shape().broadcast_shape_binary_op(b.shape(), "binary") {
                refuse_huge(target.elem_count())?;
            }
            if op == BinaryOp::Div && !a.dtype().is_float() && division_panics(a, &b)? {
                // Rust's integer division panics (a panic in candle's loops is not the
                // case's outcome): refused up front.
                return Err(failure(
                    "candle's integer division panics on a zero divisor (or MIN / -1)",
                ));
            }
            answer(match op {
                BinaryOp::Add => a.broadcast_add(&b),
                BinaryOp::Sub => a.broadcast_sub(&b),
                BinaryOp::Mul => a.broadcast_mul(&b),
                BinaryOp::Div => a.broadcast_div(&b),
            })
        }
    }
}

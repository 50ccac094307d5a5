//! The `candle-core` crate as a backend (feature `candle`). candle has no public way to view a
//! storage through arbitrary strides, so each input tensor is gathered into a contiguous candle
//! tensor (through the engine's naive index map); on those, expand is `broadcast_as`, binary
//! ops are `broadcast_add` and friends, and `sum` is `sum` / `sum_keepdim`. candle has no
//! in-place arithmetic, no bool dtype and no dtype promotion, and its errors are its own: it
//! claims shapes, dtypes and values, for int64, float32 and float64.

use super::call::{
    expand_target, mapped_ops, parse_call, wrap_dim, BinaryOp, ForeignCall, Operand,
};
use super::typed::{error_outcome, refuse_huge, tensor_result, typed_storages, Typed};
use crate::backend::{Backend, BackendFailure, Capabilities, Level};
use crate::case::{Case, Num, OkOutcome, Outcome, ResultValue, TensorResult};
use bcast_engine::{index_map, DType, Layout};
use candle_core::{Device, Shape, Tensor};
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
            dtypes: [DType::Int64, DType::Float32, DType::Float64]
                .iter()
                .map(|d| d.name().to_string())
                .collect(),
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

/// Each named tensor of the case, gathered into a contiguous candle tensor.
fn input_tensors(case: &Case) -> Result<BTreeMap<String, Tensor>, BackendFailure> {
    let storages = typed_storages(case)?;
    let mut out = BTreeMap::new();
    for (name, spec) in &case.tensors {
        let layout = Layout::new(spec.shape.clone(), spec.strides.clone(), spec.offset)
            .map_err(|e| failure(e.message()))?;
        let at = index_map::storage_indices(&layout);
        let storage = storages
            .get(&spec.storage)
            .ok_or_else(|| failure(format!("unknown storage {}", spec.storage)))?;
        let shape = spec.shape.clone();
        let cpu = &Device::Cpu;
        let tensor = match storage {
            Typed::I64(v) => {
                Tensor::from_vec(at.iter().map(|&i| v[i]).collect::<Vec<_>>(), shape, cpu)
            }
            Typed::F32(v) => {
                Tensor::from_vec(at.iter().map(|&i| v[i]).collect::<Vec<_>>(), shape, cpu)
            }
            Typed::F64(v) => {
                Tensor::from_vec(at.iter().map(|&i| v[i]).collect::<Vec<_>>(), shape, cpu)
            }
            Typed::Bool(_) => return Err(failure("candle has no bool dtype")),
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
    let (dtype, values): (DType, Vec<Num>) = match t.dtype() {
        candle_core::DType::I64 => (
            DType::Int64,
            flat.to_vec1::<i64>()
                .map_err(failure)?
                .into_iter()
                .map(Num::Int)
                .collect(),
        ),
        candle_core::DType::F32 => (
            DType::Float32,
            flat.to_vec1::<f32>()
                .map_err(failure)?
                .into_iter()
                .map(|x| Num::Float(x as f64))
                .collect(),
        ),
        candle_core::DType::F64 => (
            DType::Float64,
            flat.to_vec1::<f64>()
                .map_err(failure)?
                .into_iter()
                .map(Num::Float)
                .collect(),
        ),
        other => return Err(failure(format!("candle returned dtype {other:?}"))),
    };
    let strides: Vec<isize> = t.stride().iter().map(|&s| s as isize).collect();
    tensor_result(t.dims(), &strides, dtype, values, None)
}

fn ok(result: ResultValue) -> Outcome {
    Outcome::Ok(OkOutcome {
        result,
        storages: None,
        warnings: None,
    })
}

/// A scalar operand as a 0-d tensor of `like`'s dtype, as Rust would write it.
fn scalar(n: Num, like: &Tensor) -> Result<Tensor, BackendFailure> {
    let cpu = &Device::Cpu;
    let made = match (like.dtype(), n) {
        (candle_core::DType::I64, Num::Int(i)) => Tensor::new(i, cpu),
        (candle_core::DType::F32, Num::Int(_) | Num::Float(_)) => {
            Tensor::new(n.to_f64() as f32, cpu)
        }
        (candle_core::DType::F64, Num::Int(_) | Num::Float(_)) => Tensor::new(n.to_f64(), cpu),
        (dtype, n) => {
            return Err(failure(format!(
                "candle cannot combine a {dtype:?} tensor with the scalar {n:?}"
            )))
        }
    };
    made.map_err(failure)
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
            answer(match op {
                BinaryOp::Add => a.broadcast_add(&b),
                BinaryOp::Sub => a.broadcast_sub(&b),
                BinaryOp::Mul => a.broadcast_mul(&b),
                BinaryOp::Div => a.broadcast_div(&b),
            })
        }
    }
}

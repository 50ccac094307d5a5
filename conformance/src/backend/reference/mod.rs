//! The reference engine as a [`Backend`]: builds the case's storages and views in the engine,
//! interprets the call, and describes the outcome exactly as `python/bcast_suite/torch_exec.py` does
//! for torch.

mod args;
mod describe;
mod elementwise;
mod linalg;
mod reduce;
mod views;

pub use args::{Args, CallError, TensorLookup, Value};
pub use describe::{describe_value, sample_positions, MAX_FULL_VALUES};

use super::{Backend, BackendFailure, Capabilities};
use crate::case::NumScalar;
use crate::case::{
    engine_dtypes, storage_dtype, storage_values, unsupported_dtype, validate_case, Case,
    ErrorOutcome, OkOutcome, Outcome,
};
use crate::ops::{self, Family};
use bcast_engine::{Buffer, Layout, Storage, Tensor};
use std::collections::BTreeMap;

/// The storages and named views of one case, built in the engine.
#[derive(Debug, Clone, Default)]
pub struct Inputs {
    pub storages: BTreeMap<String, Storage>,
    pub tensors: BTreeMap<String, Tensor>,
    /// Each storage's length as built. A resized `out=` may grow a storage; torch's 1-d view of
    /// it (what fixtures describe) keeps this length.
    pub lengths: BTreeMap<String, usize>,
}

impl Inputs {
    /// Builds every storage and view of `case`.
    pub fn build(case: &Case) -> Result<Inputs, String> {
        validate_case(case)?;
        let mut inputs = Inputs::default();
        for (name, spec) in &case.storages {
            let dtype = storage_dtype(spec).map_err(|m| format!("storage {name}: {m}"))?;
            let values = storage_values(spec).map_err(|m| format!("storage {name}: {m}"))?;
            let scalars: Vec<_> = values.iter().map(|v| v.to_scalar()).collect();
            inputs.lengths.insert(name.clone(), scalars.len());
            inputs.storages.insert(
                name.clone(),
                Storage::new(Buffer::from_scalars(dtype, &scalars)),
            );
        }
        for (name, spec) in &case.tensors {
            let storage = inputs
                .storages
                .get(&spec.storage)
                .ok_or_else(|| format!("tensor {name} views unknown storage {}", spec.storage))?;
            let layout = Layout::new(spec.shape.clone(), spec.strides.clone(), spec.offset)
                .and_then(|l| Tensor::from_storage(storage, l))
                .map_err(|e| format!("tensor {name}: {}", e.message()))?;
            inputs.tensors.insert(name.clone(), layout);
        }
        Ok(inputs)
    }
}

/// Whether a call may write into storage (in-place methods and `out=`).
pub fn call_writes(case: &Case) -> bool {
    case.call.fn_.ends_with('_') || case.call.kwargs.contains_key("out")
}

/// One op family's entry point: `None` when the name is not one of its ops.
pub type Dispatch = fn(&str, &Args) -> Option<Result<Value, CallError>>;

/// Interprets a call in the engine: the [op catalogue](crate::ops) gives the op's family, and
/// the family's module runs it.
pub fn interpret(case: &Case, inputs: &Inputs) -> Result<Value, CallError> {
    let name = &case.call.fn_;
    let (op, _) = ops::lookup(name)
        .ok_or_else(|| CallError::Unsupported(format!("{name} is not in the op catalogue")))?;
    let dispatch: Dispatch = match op.family {
        Family::Shapes | Family::Views | Family::Queries => views::dispatch,
        Family::Unary
        | Family::Binary
        | Family::Compare
        | Family::Logical
        | Family::Where
        | Family::Copy => elementwise::dispatch,
        Family::Reduction => reduce::dispatch,
        Family::Linalg | Family::Einsum => linalg::dispatch,
    };
    let args = Args::new(&case.call, inputs);
    dispatch(name, &args).unwrap_or_else(|| {
        Err(CallError::Unsupported(format!(
            "the engine has no op {name} ({} family)",
            op.family
        )))
    })
}

/// Runs a case in the engine and describes the outcome.
pub fn run_reference(case: &Case) -> Result<Outcome, BackendFailure> {
    let inputs = Inputs::build(case).map_err(BackendFailure::bad_input)?;
    let before: BTreeMap<&String, Vec<_>> = inputs
        .storages
        .iter()
        .map(|(n, s)| (n, s.to_scalars()))
        .collect();
    match interpret(case, &inputs) {
        Ok(value) => {
            let result = describe_value(&value, &inputs);
            let after: BTreeMap<String, Vec<_>> = inputs
                .storages
                .iter()
                .map(|(n, s)| {
                    let mut values = s.to_scalars();
                    values.truncate(inputs.lengths.get(n).copied().unwrap_or(0));
                    (n.clone(), values)
                })
                .collect();
            let changed = after
                .iter()
                .any(|(n, v)| before.get(n).is_none_or(|b| !same_values(b, v)));
            let storages = (call_writes(case) || changed).then(|| {
                after
                    .into_iter()
                    .map(|(n, v)| {
                        (
                            n,
                            v.into_iter().map(crate::case::Num::from_scalar).collect(),
                        )
                    })
                    .collect()
            });
            Ok(Outcome::Ok(OkOutcome {
                result,
                storages,
                warnings: None,
            }))
        }
        Err(CallError::Engine(e)) if e.is_refusal() => Err(BackendFailure::unsupported(format!(
            "the engine refuses (undefined in torch, or a resource limit): {}",
            e.message()
        ))),
        Err(CallError::Engine(e)) => Ok(Outcome::Error(ErrorOutcome {
            kind: e.kind().name().to_string(),
            message: e.message().to_string(),
        })),
        Err(CallError::Unsupported(m)) => Err(BackendFailure::unsupported(m)),
    }
}

/// Whether two storage snapshots hold the same values (NaN equals NaN).
fn same_values(a: &[bcast_engine::Scalar], b: &[bcast_engine::Scalar]) -> bool {
    use bcast_engine::Scalar;
    let same = |p: f64, q: f64| p.to_bits() == q.to_bits() || (p.is_nan() && q.is_nan());
    a.len() == b.len()
        && a.iter().zip(b).all(|(x, y)| match (x, y) {
            (Scalar::Float(p), Scalar::Float(q)) => same(*p, *q),
            (Scalar::Complex(pr, pi), Scalar::Complex(qr, qi)) => same(*pr, *qr) && same(*pi, *qi),
            _ => x == y,
        })
}

/// The reference engine backend: claims every op of the catalogue, every dtype and level.
#[derive(Debug, Default, Clone, Copy)]
pub struct ReferenceBackend;

impl Backend for ReferenceBackend {
    fn name(&self) -> String {
        "reference".to_string()
    }

    fn capabilities(&self) -> Capabilities {
        Capabilities {
            ops: Some(ops::all_fn_names().into_iter().collect()),
            dtypes: engine_dtypes()
                .iter()
                .map(|d| d.name().to_string())
                .collect(),
            ..Capabilities::everything()
        }
    }

    fn unclaimed_dtype(&self, dtype: bcast_case::DType) -> String {
        unsupported_dtype(dtype)
    }

    fn run(&mut self, case: &Case) -> Result<Outcome, BackendFailure> {
        run_reference(case)
    }
}

//! The reference engine as a [`Backend`]: builds the case's storages and views in the engine,
//! interprets the call, and describes the outcome exactly as `python/bcast_suite/torch_exec.py` does
//! for torch.

mod args;
mod bitwise;
mod describe;
mod elementwise;
mod grad;
mod linalg;
mod reduce;
mod ternary;
mod views;

pub use args::{Args, CallError, TensorLookup, Value};
pub use describe::{describe_value, sample_positions, MAX_FULL_VALUES};

use super::{Backend, BackendFailure, Capabilities};
use crate::case::NumScalar;
use crate::case::{
    checked_storage_values, engine_dtypes, storage_dtype, unsupported_dtype, Case, ErrorOutcome,
    OkOutcome, Outcome,
};
use crate::ops::{self, Family};
use bcast_case::reflect::Body;
use bcast_case::{Arg, Call};
use bcast_engine::{Buffer, Error, ErrorKind, Layout, Storage, Tensor};
use std::borrow::Cow;
use std::collections::BTreeMap;
use std::sync::OnceLock;

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
    /// Every storage's values, by name.
    pub fn snapshot(&self) -> BTreeMap<&str, Vec<bcast_engine::Scalar>> {
        self.storages
            .iter()
            .map(|(n, s)| (n.as_str(), s.to_scalars()))
            .collect()
    }

    /// Builds every storage and view of `case`.
    pub fn build(case: &Case) -> Result<Inputs, String> {
        let checked = checked_storage_values(case)?;
        let mut inputs = Inputs::default();
        for (name, spec) in &case.storages {
            let dtype = storage_dtype(spec).map_err(|m| format!("storage {name}: {m}"))?;
            let values = checked
                .get(name.as_str())
                .ok_or_else(|| format!("storage {name}: not checked"))?;
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

/// Interprets a call in the engine: torch's argument parser [checks it](bcast_case::pyargs)
/// first, then the [op catalogue](crate::ops) gives the op's family, and the family's module
/// runs it. A reflected operator runs [its body](bcast_case::reflect).
pub fn interpret(case: &Case, inputs: &Inputs) -> Result<Value, CallError> {
    match bcast_case::reflect::body(&case.call) {
        Some(body) => reflected(case, inputs, body),
        None => interpret_call(case, inputs),
    }
}

/// A reflected operator: its body's calls, a `TypeError` raised in them as `NotImplemented`.
fn reflected(case: &Case, inputs: &Inputs, body: Result<Body, ()>) -> Result<Value, CallError> {
    let with_call = |call: Call| Case {
        call,
        ..case.clone()
    };
    let result = match body {
        Err(()) => return Ok(Value::NotImplemented),
        Ok(Body::Call(call)) => interpret_call(&with_call(call), inputs),
        Ok(Body::ReciprocalTimes { this, other }) => {
            let Arg::Tensor(name) = &this else {
                return Err(CallError::Unsupported(
                    "a reflected operator of a non-tensor".into(),
                ));
            };
            let method = |fn_: &str, args: Vec<Arg>| Call {
                fn_: fn_.into(),
                args,
                kwargs: Default::default(),
            };
            match interpret_call(
                &with_call(method("Tensor.reciprocal", vec![this.clone()])),
                inputs,
            ) {
                Ok(Value::Tensor(reciprocal)) => {
                    // `self.reciprocal()` under a name no case uses, its spec `self`'s (the
                    // parser sees only its kind).
                    let temp = format!("{name}.reciprocal()");
                    let mut product =
                        with_call(method("Tensor.mul", vec![Arg::Tensor(temp.clone()), other]));
                    if let Some(spec) = case.tensors.get(name) {
                        product.tensors.insert(temp.clone(), spec.clone());
                    }
                    let mut inputs = inputs.clone();
                    inputs.tensors.insert(temp, reciprocal);
                    interpret_call(&product, &inputs)
                }
                Ok(_) => Err(CallError::Unsupported(
                    "reciprocal returned no tensor".into(),
                )),
                Err(e) => Err(e),
            }
        }
    };
    match result {
        Err(CallError::Engine(e)) if e.kind() == ErrorKind::TypeError => Ok(Value::NotImplemented),
        other => other,
    }
}

/// Interprets a call of an op of the catalogue.
fn interpret_call(case: &Case, inputs: &Inputs) -> Result<Value, CallError> {
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
        Family::Bitwise => bitwise::dispatch,
        Family::Ternary => ternary::dispatch,
        Family::Reduction => reduce::dispatch,
        Family::Linalg | Family::Einsum => linalg::dispatch,
    };
    let accepted = match bcast_case::pyargs::check_call(case) {
        Ok(accepted) => accepted,
        Err(e) => {
            let kind = ErrorKind::from_name(e.kind).unwrap_or(ErrorKind::TypeError);
            return Err(CallError::Engine(Error::new(kind, e.message)));
        }
    };
    let call = accepted.map_or_else(|| case.call.clone(), |a| a.canonical);
    let args = Args::new(&call, inputs);
    dispatch(name, &args).unwrap_or_else(|| {
        Err(CallError::Unsupported(format!(
            "the engine has no op {name} ({} family)",
            op.family
        )))
    })
}

/// Runs a case in the engine and describes the outcome (with its gradients for a case with
/// `grad`: `grad.rs`).
pub fn run_reference(case: &Case) -> Result<Outcome, BackendFailure> {
    if let Some(spec) = &case.grad {
        return grad::run_grad_case(case, spec);
    }
    let inputs = Inputs::build(case).map_err(BackendFailure::bad_input)?;
    let before = inputs.snapshot();
    match interpret(case, &inputs) {
        Ok(value) => Ok(forward_outcome(case, &inputs, &value, &before)),
        Err(e) => call_error_outcome(e),
    }
}

/// The outcome of a call that returned `value`: the result described, and every storage
/// when the call writes or wrote (compared with `before`, [`Inputs::snapshot`]).
fn forward_outcome(
    case: &Case,
    inputs: &Inputs,
    value: &Value,
    before: &BTreeMap<&str, Vec<bcast_engine::Scalar>>,
) -> Outcome {
    let result = describe_value(value, inputs);
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
        .any(|(n, v)| before.get(n.as_str()).is_none_or(|b| !same_values(b, v)));
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
    Outcome::Ok(OkOutcome {
        result,
        storages,
        warnings: None,
        grads: None,
        backward_error: None,
    })
}

/// The outcome of a call that raised: torch's error, or a backend failure for what the
/// engine refuses or cannot express.
fn call_error_outcome(e: CallError) -> Result<Outcome, BackendFailure> {
    match e {
        CallError::Engine(e) if e.is_refusal() => Err(BackendFailure::unsupported(format!(
            "the engine refuses (undefined in torch, or a resource limit): {}",
            e.message()
        ))),
        CallError::Engine(e) => Ok(Outcome::Error(ErrorOutcome::new(
            e.kind().name().to_string(),
            e.message().to_string(),
        ))),
        CallError::Unsupported(m) => Err(BackendFailure::unsupported(m)),
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
        self.claims().into_owned()
    }

    /// Built once per process.
    fn claims(&self) -> Cow<'_, Capabilities> {
        static CLAIMS: OnceLock<Capabilities> = OnceLock::new();
        Cow::Borrowed(CLAIMS.get_or_init(|| {
            Capabilities {
                ops: Some(ops::all_fn_names().into_iter().collect()),
                dtypes: engine_dtypes()
                    .iter()
                    .map(|d| d.name().to_string())
                    .collect(),
                ..Capabilities::everything()
            }
        }))
    }

    fn unclaimed_dtype(&self, dtype: bcast_case::DType) -> String {
        unsupported_dtype(dtype)
    }

    fn run(&mut self, case: &Case) -> Result<Outcome, BackendFailure> {
        run_reference(case)
    }
}

//! libtorch, through tch, as a [`Backend`] (feature `torch`). It builds each case's storages
//! as 1-d tensors and its views with `as_strided`, interprets the call with tch (one file per
//! op family, each with a `dispatch(name, &TchArgs)` like the reference backend's), and
//! describes the outcome exactly as `python/bcast_suite/torch_exec.py` does in Python.
//!
//! # Building
//!
//! ```text
//! eval "$(scripts/setup-torch.sh)"     # torch 2.13.0 in ~/.cache/bcast-torch/venv
//! cargo test --features torch           # every fixture also through libtorch
//! cargo run --features torch -- diff --count 20000
//! ```
//!
//! `build.rs` compiles `shim.cpp` against the same libtorch and gives the binaries an rpath
//! to it, so they run without `LD_LIBRARY_PATH`.
//!
//! # What the shim adds to tch
//!
//! - Exception classes: tch keeps only the text of a C++ exception. The shim interposes
//!   `__cxa_throw` and records, for every throw, the class Python's bindings would raise
//!   (`c10::IndexError` is IndexError, ..., any other `c10::Error` RuntimeError).
//! - Messages are the text before `"\nException raised from"`, with Python's renaming of
//!   ATen type names ([`python_message`]); errors collect no stack frames.
//! - Python numbers: a bool Scalar (tch has none) and the wrapped-number tensor Python makes
//!   of a number passed for a Tensor parameter. Scalar-taking ops go through torch-sys
//!   (`raw.rs`), because tch's wrappers panic when such an op fails.
//! - Storage geometry: the storage pointer and offset of a result.
//!
//! # Python-only behaviour (reported as [`BackendFailure::unsupported`], never faked)
//!
//! - `torch.broadcast_shapes` is a Python function (not claimed, so skipped).
//! - The argument parser's TypeErrors: a number where only a tensor is taken
//!   (`torch.maximum(t, 2)`, `torch.lt(2, t)`, unary ops), `out=` on a method, too many
//!   arguments, methods that do not exist (`Tensor.maximum_`).
//! - Keywords and forms tch does not expose: `alpha` of `add`/`sub`, `Tensor.size(dim)`,
//!   `Tensor.view(dtype)`, einsum's sublist form, a binary op on two numbers.
//!
//! `getitem` follows `applySlicing` of ATen/TensorIndexing.h (header-only code that Python
//! runs and tch cannot reach) with tch's `select`, `slice` and `unsqueeze`, reproducing the
//! checks that code makes (see `index.rs`).

mod describe;
mod elementwise;
mod error;
mod grad;
mod index;
mod inputs;
mod linalg;
mod number;
mod raw;
mod reductions;
mod shim;
mod ternary;
mod views;

pub use describe::{describe_tensor, tensor_values};
pub use error::{python_error, python_message, trim_backtrace};
pub use inputs::{dtype_of, kind_of, storage_tensor, TchInputs};
pub use number::{Number, Operand};

use super::reference::{call_writes, Args, CallError};
use super::{Backend, BackendFailure, Capabilities, FailureKind};
use crate::case::{Arg, Call, Case, ErrorOutcome, Num, OkOutcome, Outcome};
use crate::ops::{Family, Op};
use bcast_case::reflect::Body;
use std::borrow::Cow;
use std::collections::BTreeSet;
use std::panic::{catch_unwind, AssertUnwindSafe};
use tch::{TchError, Tensor};

/// The version of the libtorch this binary links ("2.13.0", which tch 0.26 requires).
pub fn torch_version() -> String {
    shim::torch_version()
}

/// A call's arguments, resolved against tch tensors.
pub type TchArgs<'a> = Args<'a, TchInputs>;

/// A value a call returns.
#[derive(Debug)]
pub enum TchValue {
    Tensor(Tensor),
    Tensors(Vec<Tensor>),
    Size(Vec<i64>),
    Int(i64),
    Bool(bool),
    /// Python's `NotImplemented` (a reflected operator's answer to a `TypeError`).
    NotImplemented,
}

/// Why a call produced no value.
#[derive(Debug)]
pub enum TchCallError {
    /// libtorch raised.
    Torch(TchError),
    /// A check of libtorch's header-only indexing code (which tch cannot reach), made here
    /// with its class and message (see `index.rs`).
    Raised(ErrorOutcome),
    /// The call has no tch twin: a named rule (`unsupported(...)`) says the form exists only in
    /// Python or tch cannot reach it.
    Unsupported(String),
    /// The backend could not read the case's arguments: a bug of this backend or of the case,
    /// reported as a failure, never as "unsupported" (which would hide it).
    Arguments(String),
}

impl From<TchError> for TchCallError {
    fn from(e: TchError) -> TchCallError {
        TchCallError::Torch(e)
    }
}

impl From<CallError> for TchCallError {
    fn from(e: CallError) -> TchCallError {
        match e {
            CallError::Unsupported(m) => TchCallError::Unsupported(m),
            CallError::Engine(e) => TchCallError::Arguments(e.to_string()),
        }
    }
}

/// The result of interpreting a call.
pub type CallResult = Result<TchValue, TchCallError>;

/// One op family's entry point: `None` when the name is not one of its ops.
pub type Dispatch = fn(&str, &TchArgs) -> Option<CallResult>;

/// A call that has no tch twin.
pub fn unsupported<T>(message: impl Into<String>) -> Result<T, TchCallError> {
    Err(TchCallError::Unsupported(message.into()))
}

/// Every `fn` name the backend claims: the catalogue's, less the ops that exist only in
/// Python (`torch.broadcast_shapes`).
pub fn ops() -> BTreeSet<String> {
    crate::ops::OPS
        .iter()
        .filter(|op| !op.python_only)
        .flat_map(Op::fn_names)
        .collect()
}

/// Interprets a call with tch: the [op catalogue](crate::ops) gives the family, the family's
/// module runs it.
pub fn interpret(case: &Case, inputs: &TchInputs) -> CallResult {
    match bcast_case::reflect::body(&case.call) {
        Some(body) => reflected(case, inputs, body),
        None => interpret_call(case, inputs),
    }
}

/// A reflected operator, as Python runs it: its body's calls in libtorch, a `TypeError`
/// raised in them as `NotImplemented`.
fn reflected(case: &Case, inputs: &TchInputs, body: Result<Body, ()>) -> CallResult {
    let with_call = |call: Call| Case {
        call,
        ..case.clone()
    };
    let method = |fn_: &str, args: Vec<Arg>| Call {
        fn_: fn_.into(),
        args,
        kwargs: Default::default(),
    };
    let result = match body {
        Err(()) => return Ok(TchValue::NotImplemented),
        Ok(Body::Call(call)) => interpret_call(&with_call(call), inputs),
        Ok(Body::ReciprocalTimes { this, other }) => {
            let Arg::Tensor(name) = &this else {
                return unsupported("a reflected operator of a non-tensor");
            };
            let reciprocal = method("Tensor.reciprocal", vec![this.clone()]);
            match interpret_call(&with_call(reciprocal), inputs)? {
                TchValue::Tensor(r) => {
                    let temp = format!("{name}.reciprocal()");
                    let args = vec![Arg::Tensor(temp.clone()), other];
                    let mut product = with_call(method("Tensor.mul", args));
                    if let Some(spec) = case.tensors.get(name) {
                        product.tensors.insert(temp.clone(), spec.clone());
                    }
                    let mut inputs = inputs.shallow_clone();
                    inputs.tensors.insert(temp, r);
                    interpret_call(&product, &inputs)
                }
                _ => unsupported("reciprocal returned no tensor"),
            }
        }
    };
    let type_error = |e: &TchCallError| match e {
        TchCallError::Raised(o) => o.kind == "TypeError",
        TchCallError::Torch(t) => python_error(t).is_some_and(|o| o.kind == "TypeError"),
        _ => false,
    };
    match result {
        Err(e) if type_error(&e) => Ok(TchValue::NotImplemented),
        other => other,
    }
}

/// Interprets a call of an op of the catalogue.
fn interpret_call(case: &Case, inputs: &TchInputs) -> CallResult {
    let name = &case.call.fn_;
    let Some((op, _)) = crate::ops::lookup(name).filter(|(op, _)| !op.python_only) else {
        return unsupported(format!("tch backend has no op {name}"));
    };
    if passes_symbolic_sizes(case) {
        return unsupported(format!(
            "{name}: Python reads a size below -2**62 as a symbolic int, which the op refuses \
             with its own message; libtorch's int64 API has no such path"
        ));
    }
    let dispatch: Dispatch = match op.family {
        Family::Views if op.name == "getitem" => index::dispatch,
        Family::Views | Family::Queries | Family::Shapes => views::dispatch,
        Family::Unary
        | Family::Binary
        | Family::Compare
        | Family::Logical
        | Family::Where
        | Family::Bitwise
        | Family::Copy => elementwise::dispatch,
        Family::Ternary => ternary::dispatch,
        Family::Reduction => reductions::dispatch,
        Family::Linalg | Family::Einsum => linalg::dispatch,
    };
    // Python's argument rules come before libtorch, which has none: torch's parser, emulated.
    let call = match bcast_case::pyargs::check_call(case) {
        Ok(accepted) => accepted.map_or_else(|| case.call.clone(), |a| a.canonical),
        Err(e) => {
            return Err(TchCallError::Raised(ErrorOutcome::new(
                e.kind.to_string(),
                e.message,
            )))
        }
    };
    let args = Args::new(&call, inputs);
    dispatch(name, &args).unwrap_or_else(|| {
        unsupported(format!(
            "tch backend has no op {name} ({} family)",
            op.family
        ))
    })
}

/// Whether the call passes a size or stride that Python's argument parser would read as a
/// symbolic int (below [`bcast_engine::symint::MIN_REPRESENTABLE`]) to an op that takes sizes.
fn passes_symbolic_sizes(case: &Case) -> bool {
    let takes_sizes = matches!(
        crate::ops::lookup(&case.call.fn_).map(|(op, _)| op.name),
        Some("expand" | "broadcast_to" | "as_strided" | "view" | "reshape" | "repeat")
    );
    let symbolic = |v: &i64| !bcast_engine::symint::is_representable(*v);
    takes_sizes
        && case
            .call
            .args
            .iter()
            .chain(case.call.kwargs.values())
            .any(|arg| match arg {
                Arg::Int(v) => symbolic(v),
                Arg::Ints(vs) | Arg::List(vs) | Arg::Tuple(vs) | Arg::Size(vs) => {
                    vs.iter().any(symbolic)
                }
                _ => false,
            })
}

/// Runs a case in libtorch and describes the outcome; a panic becomes a failure.
///
/// ```no_run
/// use bcast_conformance::backend::tch::run_tch;
/// use bcast_conformance::case::Case;
/// let case: Case = serde_json::from_str(r#"{"id": "x",
///   "storages": {"s": {"dtype": "float32", "values": [1.0, 2.0, 3.0]}},
///   "tensors": {"t": {"storage": "s", "shape": [3], "strides": [1]}},
///   "call": {"fn": "Tensor.expand", "args": [{"tensor": "t"}, {"ints": [2, 3]}]}}"#).unwrap();
/// println!("{:?}", run_tch(&case));
/// ```
pub fn run_tch(case: &Case) -> Result<Outcome, BackendFailure> {
    match catch_unwind(AssertUnwindSafe(|| run_unguarded(case))) {
        Ok(outcome) => outcome,
        Err(panic) => Err(BackendFailure::new(
            FailureKind::Panicked,
            format!(
                "tch panicked: {}",
                crate::runner::panic_message(panic.as_ref())
            ),
        )),
    }
}

/// A libtorch error outside the outcome of the call: a failure of the backend, but for
/// libtorch refusing autograd history to an integer or bool tensor (`Autograd not support
/// dtype`), which is torch's bug on that call (Python torch fails an internal assert on it, and
/// the labeller leaves such cases out): unsupported.
pub(crate) fn failure(e: TchError) -> BackendFailure {
    let text = trim_backtrace(&e);
    if text.starts_with("Autograd not support dtype") {
        return BackendFailure::unsupported(format!(
            "libtorch refuses autograd history to a tensor it made ({text}); torch fails an internal assert on this call"
        ));
    }
    BackendFailure::bad_input(format!("tch: {e}"))
}

fn run_unguarded(case: &Case) -> Result<Outcome, BackendFailure> {
    check_throw_hook().map_err(BackendFailure::bad_input)?;
    shim::quiet();
    let inputs = TchInputs::build(case)?;
    shim::reset_exception_class();
    let (call_inputs, leaves) = match &case.grad {
        None => (inputs.shallow_clone(), None),
        Some(spec) => match grad::make_leaves(spec, &inputs)? {
            Ok((call_inputs, leaves)) => (call_inputs, Some(leaves)),
            Err(staged) => return Ok(Outcome::Error(staged)),
        },
    };
    let before = inputs.snapshot().map_err(failure)?;
    shim::reset_exception_class();
    let value = match interpret(case, &call_inputs) {
        Ok(value) => value,
        Err(TchCallError::Torch(e)) => {
            return match python_error(&e) {
                // How much memory there is depends on the machine, not on torch's semantics.
                Some(err)
                    if err
                        .message
                        .contains("DefaultCPUAllocator: can't allocate memory") =>
                {
                    Err(BackendFailure::unsupported(format!(
                        "libtorch ran out of memory: {}",
                        err.message.trim()
                    )))
                }
                Some(err) => Ok(Outcome::Error(err)),
                None => Err(failure(e)),
            };
        }
        Err(TchCallError::Raised(e)) => return Ok(Outcome::Error(e)),
        Err(TchCallError::Arguments(m)) => {
            return Err(BackendFailure::bad_input(format!(
                "tch backend could not read the arguments: {m}"
            )))
        }
        Err(TchCallError::Unsupported(m)) => {
            let m = m.strip_prefix(BackendFailure::UNSUPPORTED).unwrap_or(&m);
            return Err(BackendFailure::unsupported(m));
        }
    };
    let result = describe::describe_value(&value, &inputs).map_err(|e| match e {
        TchError::Kind(m) => BackendFailure::outside_schema(m),
        e => failure(e),
    })?;
    let after = inputs.snapshot().map_err(failure)?;
    let changed = after
        .iter()
        .any(|(name, v)| before.get(name).is_none_or(|b| !python_equal(b, v)));
    let storages = (call_writes(case) || changed).then_some(after);
    let mut ok = OkOutcome {
        result,
        storages,
        warnings: None,
        grads: None,
        backward_error: None,
    };
    if let (Some(spec), Some(leaves)) = (&case.grad, &leaves) {
        grad::backward(spec, &value, &inputs, leaves, &mut ok)?;
    }
    Ok(Outcome::Ok(ok))
}

/// Python's `==` on two lists of encoded values (NaN is encoded as the string "nan", so it
/// equals itself, in either part of a complex pair too; `0.0 == -0.0`).
fn python_equal(a: &[Num], b: &[Num]) -> bool {
    let same = |p: &f64, q: &f64| p == q || (p.is_nan() && q.is_nan());
    a.len() == b.len()
        && a.iter().zip(b).all(|(x, y)| match (x, y) {
            (Num::Float(p), Num::Float(q)) => same(p, q),
            (Num::Complex(pr, pi), Num::Complex(qr, qi)) => same(pr, qr) && same(pi, qi),
            _ => x == y,
        })
}

/// libtorch via tch: claims every level and dtype, and every op but the Python-only ones.
#[derive(Debug)]
pub struct TchBackend {
    capabilities: Capabilities,
}

/// Whether libtorch's exception classes can be observed: the binary exports the shim's
/// `__cxa_throw` (this crate's `build.rs` links its own binaries so).
fn check_throw_hook() -> Result<(), String> {
    static ACTIVE: std::sync::OnceLock<bool> = std::sync::OnceLock::new();
    if *ACTIVE.get_or_init(shim::throw_hook_active) {
        return Ok(());
    }
    Err(
        "this binary does not export __cxa_throw, so the tch backend cannot tell libtorch's \
         exception classes apart (link it with -Wl,--export-dynamic-symbol=__cxa_throw, as \
         conformance/build.rs does)"
            .to_string(),
    )
}

impl TchBackend {
    /// The backend, once it has checked that libtorch's exception classes can be observed.
    ///
    /// ```no_run
    /// use bcast_conformance::backend::tch::TchBackend;
    /// use bcast_conformance::backend::Backend;
    /// use bcast_conformance::case::Case;
    /// let case: Case = serde_json::from_str(r#"{"id": "t",
    ///   "storages": {"a": {"dtype": "float32", "values": [1.0, 2.0]}},
    ///   "tensors": {"x": {"storage": "a", "shape": [2], "strides": [1]}},
    ///   "call": {"fn": "Tensor.expand", "args": [{"tensor": "x"}, {"ints": [3, 2]}]}}"#).unwrap();
    /// let mut torch = TchBackend::new().unwrap();
    /// let outcome = torch.run(&case).unwrap();
    /// ```
    pub fn new() -> Result<TchBackend, String> {
        check_throw_hook()?;
        Ok(TchBackend {
            capabilities: Capabilities {
                ops: Some(ops()),
                // The dtypes inputs.rs builds and reads (TCH_DTYPES).
                dtypes: inputs::TCH_DTYPES
                    .iter()
                    .map(|d| d.name().to_string())
                    .collect(),
                ..Capabilities::everything()
            },
        })
    }
}

impl Backend for TchBackend {
    fn name(&self) -> String {
        format!("tch (libtorch {})", torch_version())
    }

    fn capabilities(&self) -> Capabilities {
        self.capabilities.clone()
    }

    fn claims(&self) -> Cow<'_, Capabilities> {
        Cow::Borrowed(&self.capabilities)
    }

    fn run(&mut self, case: &Case) -> Result<Outcome, BackendFailure> {
        run_tch(case)
    }
}

//! The serde types of schemas 1 to 4 (documented in `fixtures/README.md`).

use super::Num;
use serde::{Deserialize, Serialize};
use std::collections::{BTreeMap, BTreeSet};

/// The latest schema version, which this crate reads and writes: version 2 adds the dtypes
/// `uint8`, `int8`, `int16`, `int32`, `float16`, `bfloat16`, `complex64`, `complex128` and
/// complex values (`[re, im]` pairs) to version 1; version 3 adds gradients (a case's
/// [`grad`](Case::grad)); version 4 adds the dtype `complex32`. A file is written with the
/// lowest version that has what its cases use ([`schema_for`](crate::schema_for)).
pub const SCHEMA_VERSION: u32 = 4;

/// The schema version that added gradients ([`GradSpec`]).
pub const GRAD_SCHEMA: u32 = 3;

/// The schema version that added the dtype `complex32` (torch's `ComplexHalf`).
pub const COMPLEX32_SCHEMA: u32 = 4;

/// The oldest schema version this crate reads: a version-1 file reads as it always did, and
/// may name only the four dtypes of version 1.
pub const MIN_SCHEMA_VERSION: u32 = 1;

/// One fixture file.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct FixtureFile {
    /// The schema version ([`SCHEMA_VERSION`]).
    pub schema: u32,
    /// The torch version that labelled the cases.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub torch_version: Option<String>,
    /// How the cases were made (a generator command, or a note).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub generator: Option<String>,
    /// The cases.
    pub cases: Vec<Case>,
}

/// One case: inputs, a call, and what torch did.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Case {
    /// A unique id (`family/seed/index`, `docs/002/L163-...`); failures name it.
    pub id: String,
    /// Where the case comes from.
    #[serde(default)]
    pub source: Source,
    /// Free-form tags for selection (`--tag`).
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub tags: Vec<String>,
    /// The flat storages, by name.
    #[serde(default)]
    pub storages: BTreeMap<String, StorageSpec>,
    /// The named strided views of the storages that the call uses.
    #[serde(default)]
    pub tensors: BTreeMap<String, TensorSpec>,
    /// The op and its arguments.
    pub call: Call,
    /// What torch did; required in a fixture file (absent only in unlabelled cases).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub expect: Option<Outcome>,
    /// How close floating values must be; absent means equal.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub tolerance: Option<Tolerance>,
    /// What a seed document says about the case (document cases only).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub doc: Option<DocClaim>,
    /// Gradients asked for (schema 3): which tensors require grad and the upstream gradient.
    /// The expected gradients are in `expect` ([`OkOutcome::grads`]).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub grad: Option<GradSpec>,
}

/// What a case asks of automatic differentiation (schema 3; "Gradients" in
/// `fixtures/README.md`): each tensor of `wrt` is made a leaf that requires grad (a tensor of
/// its own with the view's shape, strides and values: two views of one storage are two
/// leaves), the call runs, and `torch.autograd.grad` takes the results with the `upstream`
/// gradients back to those leaves.
///
/// ```
/// use bcast_case::GradSpec;
/// let spec: GradSpec = serde_json::from_str(
///     r#"{"wrt": ["a", "b"], "upstream": ["g"]}"#).unwrap();
/// assert_eq!(spec.wrt, ["a", "b"]);
/// assert!(spec.clone.is_empty());
/// assert_eq!(spec.upstream, [Some("g".to_string())]);
/// ```
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct GradSpec {
    /// The tensors (names of `tensors`) that require grad, each a leaf.
    pub wrt: Vec<String>,
    /// Those of `wrt` that the call receives as `leaf.clone()`: a copy that is not a leaf,
    /// so that an in-place call may write it (the gradient is still the leaf's).
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub clone: Vec<String>,
    /// The upstream gradient of each result tensor, in result order: the name of a tensor of
    /// `tensors` with that result's shape and dtype, or `null` for a result that is not
    /// differentiated (`max`'s indices, a result that does not require grad).
    pub upstream: Vec<Option<String>>,
    /// How close gradient values must be; absent means the case's `tolerance`.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub tolerance: Option<Tolerance>,
}

impl GradSpec {
    /// Whether the call receives `name` as a clone of its leaf.
    pub fn is_clone(&self, name: &str) -> bool {
        self.clone.iter().any(|c| c == name)
    }
}

impl Case {
    /// Every dtype name the case uses: its storages', its expected result tensors' and its
    /// `dtype` arguments'.
    pub fn dtype_names(&self) -> BTreeSet<&str> {
        let mut names: BTreeSet<&str> = self.storages.values().map(|s| s.dtype.as_str()).collect();
        for arg in self.call.args.iter().chain(self.call.kwargs.values()) {
            if let Arg::Dtype(name) = arg {
                names.insert(name);
            }
        }
        if let Some(Outcome::Ok(ok)) = &self.expect {
            match &ok.result {
                ResultValue::Tensor(t) => {
                    names.insert(&t.dtype);
                }
                ResultValue::Tensors(ts) => names.extend(ts.iter().map(|t| t.dtype.as_str())),
                _ => {}
            }
        }
        names
    }

    /// Whether the call passes a Python complex number (an argument of schema 2).
    pub fn has_complex_arg(&self) -> bool {
        let mut args = self.call.args.iter().chain(self.call.kwargs.values());
        args.any(|a| matches!(a, Arg::Complex(_)))
    }
}

/// Where a case comes from.
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Source {
    /// The seed document it was extracted from.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub doc: Option<String>,
    /// The line of that document.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub line: Option<u32>,
    /// The generator family that drew it.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub generator: Option<String>,
    /// The generator seed.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub seed: Option<u64>,
    /// The index of the case under that seed.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub index: Option<u64>,
    /// What bug it keeps fixed.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub regression: Option<String>,
    /// What found that bug (a fuzz target, an oracle, the differential).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub found_by: Option<String>,
    /// The OpInfo (PyTorch's `op_db`) whose sample or error input it is (`div`,
    /// `special.xlog1py`); see `python/bcast_suite/opinfo.py`.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub opinfo: Option<String>,
    /// That OpInfo's `variant_test_name` (`trunc_rounding`), when it has one.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub variant: Option<String>,
    /// The dtype the OpInfo's samples were drawn for.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub dtype: Option<String>,
    /// The index of the sample among `op.sample_inputs(...)`.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub sample: Option<u64>,
    /// The index of the error input among `op.error_inputs(...)`.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub error_input: Option<u64>,
}

/// A flat storage: a dtype and either literal values or a fill recipe.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct StorageSpec {
    /// The dtype name (`float32`, ...).
    pub dtype: String,
    /// Literal element values.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub values: Option<Vec<Num>>,
    /// A deterministic fill recipe instead of literal values.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub fill: Option<Fill>,
}

/// A deterministic fill recipe.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Fill {
    /// The recipe.
    pub kind: FillKind,
    /// How many elements.
    pub len: usize,
    /// The seed of a `random` fill.
    #[serde(default)]
    pub seed: u64,
}

/// The fill kinds.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum FillKind {
    /// `0, 1, 2, ...` (bools alternate, starting `false`).
    Arange,
    /// splitmix64 draws from `seed` (see `fixtures/README.md`).
    Random,
}

/// A named strided view of a storage.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct TensorSpec {
    /// The name of the storage it views.
    pub storage: String,
    /// Its sizes.
    pub shape: Vec<usize>,
    /// Its strides, in elements.
    pub strides: Vec<usize>,
    /// Its storage offset, in elements.
    #[serde(default)]
    pub offset: usize,
}

/// The op and its arguments.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Call {
    /// The op, as the catalogue spells it (`torch.add`, `Tensor.add_`, `getitem`).
    #[serde(rename = "fn")]
    pub fn_: String,
    /// Positional arguments.
    #[serde(default)]
    pub args: Vec<Arg>,
    /// Keyword arguments.
    #[serde(default, skip_serializing_if = "BTreeMap::is_empty")]
    pub kwargs: BTreeMap<String, Arg>,
}

/// One argument, tagged by its Python kind.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum Arg {
    /// A named tensor.
    Tensor(String),
    /// A list of named tensors.
    Tensors(Vec<String>),
    /// A Python int.
    Int(i64),
    /// A Python float.
    Float(Num),
    /// A Python bool.
    Bool(bool),
    /// A Python complex, `{"complex": [re, im]}` (schema 2; each part as a float: `[1.5,
    /// "-inf"]`); always a [`Num::Complex`].
    Complex(Num),
    /// A list of ints, passed as separate arguments where Python allows it.
    Ints(Vec<i64>),
    /// A Python list of ints.
    List(Vec<i64>),
    /// A Python tuple of ints.
    Tuple(Vec<i64>),
    /// A `torch.Size`.
    Size(Vec<i64>),
    /// `None`.
    None(()),
    /// A string (einsum equations).
    Str(String),
    /// A torch dtype, by name.
    Dtype(String),
    /// An index tuple (`getitem`).
    Index(Vec<IndexItem>),
}

/// One item of an index tuple.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum IndexItem {
    /// `start:stop:step`, `None` where omitted.
    Slice([Option<i64>; 3]),
    /// An integer index.
    Int(i64),
    /// `None` (a new dim).
    None(()),
    /// `...`.
    Ellipsis(()),
}

/// What a call did: a result, or an error.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum Outcome {
    /// The call returned.
    Ok(OkOutcome),
    /// The call raised.
    Error(ErrorOutcome),
}

/// A successful call.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct OkOutcome {
    /// The value the call returned.
    pub result: ResultValue,
    /// Every storage's contents after the call; absent when nothing may change.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub storages: Option<BTreeMap<String, Vec<Num>>>,
    /// The warnings torch emitted, as `Category: message`; absent when there were none.
    /// Recorded for document claims; no check level compares them.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub warnings: Option<Vec<String>>,
    /// In a case with [`grad`](Case::grad) whose backward ran: the gradient of each `wrt`
    /// tensor, by name, `null` where the results do not depend on it.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub grads: Option<BTreeMap<String, Option<TensorResult>>>,
    /// In a case with [`grad`](Case::grad) whose forward call returned: the error the
    /// backward raised (then `grads` is absent).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub backward_error: Option<Box<ErrorOutcome>>,
}

/// The value a call returned.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum ResultValue {
    /// One tensor.
    Tensor(TensorResult),
    /// A list of tensors.
    Tensors(#[serde(deserialize_with = "super::results_vec")] Vec<TensorResult>),
    /// A `torch.Size` (in an answer, an entry beyond int64 is [`BEYOND_I64`](crate::BEYOND_I64)).
    Size(#[serde(deserialize_with = "super::wide_shape")] Vec<i64>),
    /// An int (`numel`, `dim`).
    Int(i64),
    /// A bool.
    Bool(bool),
    /// Python's `NotImplemented`, what a reflected operator (`Tensor.__rsub__`) returns where
    /// its body raised a `TypeError`: `"result": "not_implemented"`.
    #[serde(rename = "not_implemented")]
    NotImplemented,
}

/// A tensor in a result.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct TensorResult {
    /// Sizes as torch reports them (signed: torch can produce a negative size in an empty view).
    /// In an answer, a size beyond int64 is [`BEYOND_I64`](crate::BEYOND_I64).
    #[serde(deserialize_with = "super::wide_shape")]
    pub shape: Vec<i64>,
    /// Its dtype name.
    #[serde(deserialize_with = "super::bounded::clipped_string")]
    pub dtype: String,
    /// Its strides, in elements (in an answer, one beyond `usize` is
    /// [`BEYOND_USIZE`](crate::BEYOND_USIZE)).
    #[serde(deserialize_with = "super::wide_strides")]
    pub strides: Vec<usize>,
    /// Its storage offset, in elements.
    #[serde(default, deserialize_with = "super::wide_offset")]
    pub offset: usize,
    /// The input storage this result views, or `None` for new memory.
    #[serde(default)]
    pub storage: Option<String>,
    /// Its values in row-major order (up to 4096 elements; above, `samples`).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub values: Option<Vec<Num>>,
    /// `[flat_index, value]` pairs, for results too large to keep whole.
    #[serde(
        default,
        skip_serializing_if = "Option::is_none",
        deserialize_with = "super::wide_samples"
    )]
    pub samples: Option<Vec<(usize, Num)>>,
}

/// A failed call: the Python exception class and `str(e)`.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct ErrorOutcome {
    /// The Python exception class (`RuntimeError`, ...).
    #[serde(rename = "type", deserialize_with = "super::bounded::clipped_string")]
    pub kind: String,
    /// `str(e)`, exactly.
    #[serde(deserialize_with = "super::bounded::clipped_string")]
    pub message: String,
    /// In a case with [`grad`](Case::grad): raised before the call, when a tensor was made to
    /// require grad (`requires_grad`); absent for an error the call raised.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub stage: Option<ErrorStage>,
}

impl ErrorOutcome {
    /// An error the call raised.
    ///
    /// ```
    /// use bcast_case::ErrorOutcome;
    /// let e = ErrorOutcome::new("RuntimeError", "boom");
    /// assert_eq!((e.kind.as_str(), e.stage), ("RuntimeError", None));
    /// ```
    pub fn new(kind: impl Into<String>, message: impl Into<String>) -> ErrorOutcome {
        ErrorOutcome {
            kind: kind.into(),
            message: message.into(),
            stage: None,
        }
    }
}

/// When, in a case with gradients, an error was raised before the call.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum ErrorStage {
    /// `tensor.requires_grad_()` raised (an integer or bool tensor).
    RequiresGrad,
}

/// How close floating values must be: `|got - want| <= atol + rtol * |want|`.
#[derive(Debug, Clone, Copy, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Tolerance {
    /// Relative tolerance.
    pub rtol: f64,
    /// Absolute tolerance.
    pub atol: f64,
}

/// What a document says about a case, kept beside torch's truth.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct DocClaim {
    /// The document's words.
    pub quote: String,
    /// The line they are on.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub line: Option<u32>,
    /// What they claim, in the schema's terms.
    pub claim: Claim,
}

/// A document's claim about an outcome; absent fields claim nothing.
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Claim {
    /// Whether the document says the call works.
    pub outcome: ClaimOutcome,
    /// The result shape it states.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub shape: Option<Vec<usize>>,
    /// The exception class it states.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub error_type: Option<String>,
    /// The message it states.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub message: Option<String>,
    /// The values it states.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub values: Option<Vec<Num>>,
    /// The strides it states.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub strides: Option<Vec<usize>>,
    /// Whether it says the result shares storage with an input.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub shares_storage: Option<bool>,
    /// A warning the document says the call emits, as `Category: message`.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub warning: Option<String>,
}

/// Whether a document says a call works.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum ClaimOutcome {
    /// It works.
    #[default]
    Ok,
    /// It raises.
    Error,
}

//! The serde types of schema 1 (documented in `fixtures/README.md`).

use super::Num;
use serde::{Deserialize, Serialize};
use std::collections::BTreeMap;

/// The schema version this crate reads and writes.
pub const SCHEMA_VERSION: u32 = 1;

/// One fixture file.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct FixtureFile {
    pub schema: u32,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub torch_version: Option<String>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub generator: Option<String>,
    pub cases: Vec<Case>,
}

/// One case: inputs, a call, and what torch did.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Case {
    pub id: String,
    #[serde(default)]
    pub source: Source,
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub tags: Vec<String>,
    #[serde(default)]
    pub storages: BTreeMap<String, StorageSpec>,
    #[serde(default)]
    pub tensors: BTreeMap<String, TensorSpec>,
    pub call: Call,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub expect: Option<Outcome>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub tolerance: Option<Tolerance>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub doc: Option<DocClaim>,
}

/// Where a case comes from.
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Source {
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub doc: Option<String>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub line: Option<u32>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub generator: Option<String>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub seed: Option<u64>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub index: Option<u64>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub regression: Option<String>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub found_by: Option<String>,
}

/// A flat storage: a dtype and either literal values or a fill recipe.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct StorageSpec {
    pub dtype: String,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub values: Option<Vec<Num>>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub fill: Option<Fill>,
}

/// A deterministic fill recipe.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Fill {
    pub kind: FillKind,
    pub len: usize,
    #[serde(default)]
    pub seed: u64,
}

/// The fill kinds.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum FillKind {
    Arange,
    Random,
}

/// A named strided view of a storage.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct TensorSpec {
    pub storage: String,
    pub shape: Vec<usize>,
    pub strides: Vec<usize>,
    #[serde(default)]
    pub offset: usize,
}

/// The op and its arguments.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Call {
    #[serde(rename = "fn")]
    pub fn_: String,
    #[serde(default)]
    pub args: Vec<Arg>,
    #[serde(default, skip_serializing_if = "BTreeMap::is_empty")]
    pub kwargs: BTreeMap<String, Arg>,
}

/// One argument, tagged by its Python kind.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum Arg {
    Tensor(String),
    Tensors(Vec<String>),
    Int(i64),
    Float(Num),
    Bool(bool),
    Ints(Vec<i64>),
    List(Vec<i64>),
    Tuple(Vec<i64>),
    Size(Vec<i64>),
    None(()),
    Str(String),
    Dtype(String),
    Index(Vec<IndexItem>),
}

/// One item of an index tuple.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum IndexItem {
    Slice([Option<i64>; 3]),
    Int(i64),
    None(()),
    Ellipsis(()),
}

/// What a call did: a result, or an error.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum Outcome {
    Ok(OkOutcome),
    Error(ErrorOutcome),
}

/// A successful call.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct OkOutcome {
    pub result: ResultValue,
    /// Every storage's contents after the call; absent when nothing may change.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub storages: Option<BTreeMap<String, Vec<Num>>>,
    /// The warnings torch emitted, as `Category: message`; absent when there were none.
    /// Recorded for document claims; no check level compares them.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub warnings: Option<Vec<String>>,
}

/// The value a call returned.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum ResultValue {
    Tensor(TensorResult),
    Tensors(#[serde(deserialize_with = "super::results_vec")] Vec<TensorResult>),
    Size(#[serde(deserialize_with = "super::dims_vec")] Vec<i64>),
    Int(i64),
    Bool(bool),
}

/// A tensor in a result.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct TensorResult {
    /// Sizes as torch reports them (signed: torch can produce a negative size in an empty view).
    #[serde(deserialize_with = "super::dims_vec")]
    pub shape: Vec<i64>,
    pub dtype: String,
    #[serde(deserialize_with = "super::dims_vec")]
    pub strides: Vec<usize>,
    #[serde(default)]
    pub offset: usize,
    /// The input storage this result views, or `None` for new memory.
    #[serde(default)]
    pub storage: Option<String>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub values: Option<Vec<Num>>,
    /// `[flat_index, value]` pairs, for results too large to keep whole.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub samples: Option<Vec<(usize, Num)>>,
}

/// A failed call: the Python exception class and `str(e)`.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct ErrorOutcome {
    #[serde(rename = "type")]
    pub kind: String,
    pub message: String,
}

/// How close floating values must be: `|got - want| <= atol + rtol * |want|`.
#[derive(Debug, Clone, Copy, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Tolerance {
    pub rtol: f64,
    pub atol: f64,
}

/// What a document says about a case, kept beside torch's truth.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct DocClaim {
    pub quote: String,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub line: Option<u32>,
    pub claim: Claim,
}

/// A document's claim about an outcome; absent fields claim nothing.
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Claim {
    pub outcome: ClaimOutcome,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub shape: Option<Vec<usize>>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub error_type: Option<String>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub message: Option<String>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub values: Option<Vec<Num>>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub strides: Option<Vec<usize>>,
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
    #[default]
    Ok,
    Error,
}

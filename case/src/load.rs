//! Reading fixture files: parse, check the schema version, validate every case, and reject
//! duplicate ids. A malformed file is an error naming the file and the problem, never a panic.

use super::{
    fill_values, Arg, Case, Num, Outcome, ResultValue, StorageSpec, TensorResult, GRAD_SCHEMA,
    MIN_SCHEMA_VERSION, SCHEMA_VERSION,
};
use crate::DType;
use serde::de::IgnoredAny;
use serde::Deserialize;
use serde_json::value::RawValue;
use std::borrow::Cow;
use std::collections::{BTreeMap, BTreeSet};
use std::fmt;
use std::path::{Path, PathBuf};

/// A case with the file it came from.
#[derive(Debug, Clone)]
pub struct LoadedCase {
    /// The case.
    pub case: Case,
    /// The file it was read from.
    pub file: PathBuf,
    /// The torch version that labelled the file.
    pub torch_version: Option<String>,
}

/// Why fixtures could not be loaded.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct LoadError {
    /// The file (or directory) that could not be loaded.
    pub path: PathBuf,
    /// What is wrong with it, naming the case where one is at fault.
    pub message: String,
}

impl fmt::Display for LoadError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{}: {}", self.path.display(), self.message)
    }
}

impl std::error::Error for LoadError {}

fn error(path: &Path, message: impl Into<String>) -> LoadError {
    LoadError {
        path: path.to_path_buf(),
        message: message.into(),
    }
}

/// A fixture file with its cases still as raw JSON, so that each case is decoded (and its
/// errors named) on its own.
#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
struct RawFixtureFile<'a> {
    schema: u32,
    #[serde(default)]
    torch_version: Option<String>,
    #[allow(dead_code)]
    #[serde(default)]
    generator: Option<String>,
    #[serde(borrow)]
    cases: Vec<&'a RawValue>,
}

/// Just a case's id, read before the rest so that every complaint can name the case.
#[derive(Deserialize)]
struct CaseId {
    id: Option<String>,
}

/// Loads and validates one fixture file: the file's own fields, then every case whole (no
/// unknown key, exactly one outcome in `expect`, an `expect` at all, storages and views that
/// fit). Every error names the file and the case.
pub fn load_file(path: &Path) -> Result<Vec<LoadedCase>, LoadError> {
    let text = std::fs::read_to_string(path).map_err(|e| error(path, e.to_string()))?;
    load_text(path, &text)
}

/// Parses a fixture file's own fields, with its cases still raw, and checks its schema version.
fn raw_file<'a>(path: &Path, text: &'a str) -> Result<RawFixtureFile<'a>, LoadError> {
    let file: RawFixtureFile = serde_json::from_str(text)
        .map_err(|e| error(path, format!("invalid fixture JSON: {e}")))?;
    if !(MIN_SCHEMA_VERSION..=SCHEMA_VERSION).contains(&file.schema) {
        return Err(error(
            path,
            format!(
                "schema version {} is not supported (this runner reads {MIN_SCHEMA_VERSION} to {SCHEMA_VERSION})",
                file.schema
            ),
        ));
    }
    Ok(file)
}

/// What a fixture file says of itself, read without decoding its cases (see [`read_header`]).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct FileHeader {
    /// The schema version the file is written in.
    pub schema: u32,
    /// The torch version that labelled it.
    pub torch_version: Option<String>,
    /// How many cases it holds.
    pub cases: usize,
}

/// Reads a fixture file's own fields and counts its cases, without decoding them; `path`
/// names the file in the error.
///
/// ```
/// use bcast_case::read_header;
/// let text = r#"{"schema": 2, "torch_version": "2.13.0", "cases": [{"id": "a"}, {"id": "b"}]}"#;
/// let head = read_header("t.json".as_ref(), text).unwrap();
/// assert_eq!((head.schema, head.torch_version.as_deref(), head.cases), (2, Some("2.13.0"), 2));
/// assert!(read_header("t.json".as_ref(), r#"{"schema": 99, "cases": []}"#).is_err());
/// ```
pub fn read_header(path: &Path, text: &str) -> Result<FileHeader, LoadError> {
    let file = raw_file(path, text)?;
    Ok(FileHeader {
        schema: file.schema,
        torch_version: file.torch_version,
        cases: file.cases.len(),
    })
}

/// Loads and validates a fixture file's text as [`load_file`] loads the file; `path` names
/// it, in errors and as each case's [`LoadedCase::file`].
///
/// ```
/// use bcast_case::load_text;
/// let text = r#"{"schema": 1, "cases": [{"id": "n", "call": {"fn": "torch.broadcast_shapes",
///     "args": []}, "expect": {"ok": {"result": {"size": []}}}}]}"#;
/// let cases = load_text("mem/n.json".as_ref(), text).unwrap();
/// assert_eq!((cases[0].case.id.as_str(), cases[0].file.to_str()), ("n", Some("mem/n.json")));
/// ```
pub fn load_text(path: &Path, text: &str) -> Result<Vec<LoadedCase>, LoadError> {
    let file = raw_file(path, text)?;
    file.cases
        .iter()
        .enumerate()
        .map(|(index, raw)| {
            // The case's name is read again only for an error, which names it.
            let fail = |m: String| {
                let name = match serde_json::from_str::<CaseId>(raw.get()) {
                    Ok(CaseId { id: Some(id) }) => format!("case {id}"),
                    _ => format!("case #{index} (no id)"),
                };
                error(path, format!("{name}: {m}"))
            };
            let mut case = decode_case(raw.get()).map_err(fail)?;
            validate_case(&case)
                .and_then(|()| check_schema(&case, file.schema))
                .map_err(fail)?;
            derive_tags(&mut case);
            Ok(LoadedCase {
                case,
                file: path.to_path_buf(),
                torch_version: file.torch_version.clone(),
            })
        })
        .collect()
}

/// The tag a case gets at load time when its expected result has more than
/// [`HUGE_RESULT_ELEMENTS`] elements (see PROTOCOL.md, "Huge results").
pub const HUGE_RESULT_TAG: &str = "huge-result";
/// Above this many elements in one result tensor, a case is tagged [`HUGE_RESULT_TAG`]: 2^32.
pub const HUGE_RESULT_ELEMENTS: u128 = 1 << 32;

/// The elements of a result of this shape (0 when a size is 0 or negative), saturating.
fn result_numel(shape: &[i64]) -> u128 {
    if shape.iter().any(|&d| d <= 0) {
        return 0;
    }
    shape
        .iter()
        .fold(1u128, |acc, &d| acc.saturating_mul(d as u128))
}

/// Adds the tags derived from a case's contents: [`HUGE_RESULT_TAG`] for a result tensor of
/// more than [`HUGE_RESULT_ELEMENTS`] elements.
///
/// ```
/// use bcast_case::{derive_tags, Case, HUGE_RESULT_TAG};
/// let mut case: Case = serde_json::from_str(r#"{"id": "c", "call": {"fn": "Tensor.expand"},
///     "expect": {"ok": {"result": {"tensor": {"shape": [65536, 65537], "dtype": "float32",
///     "strides": [0, 0], "samples": []}}}}}"#).unwrap();
/// derive_tags(&mut case);
/// assert_eq!(case.tags, [HUGE_RESULT_TAG]);
/// derive_tags(&mut case);
/// assert_eq!(case.tags.len(), 1);
/// ```
pub fn derive_tags(case: &mut Case) {
    let huge = match &case.expect {
        Some(Outcome::Ok(ok)) => match &ok.result {
            ResultValue::Tensor(t) => result_numel(&t.shape) > HUGE_RESULT_ELEMENTS,
            ResultValue::Tensors(ts) => ts
                .iter()
                .any(|t| result_numel(&t.shape) > HUGE_RESULT_ELEMENTS),
            _ => false,
        },
        _ => false,
    };
    if huge && !case.tags.iter().any(|t| t == HUGE_RESULT_TAG) {
        case.tags.push(HUGE_RESULT_TAG.to_string());
    }
}

/// Decodes one case of a fixture file, which must hold its expectation: a case without one
/// would pass any answer.
fn decode_case(text: &str) -> Result<Case, String> {
    #[derive(Deserialize)]
    struct Expect<'a> {
        #[serde(borrow)]
        expect: Option<std::collections::BTreeMap<Cow<'a, str>, IgnoredAny>>,
    }
    // serde takes the first key of an enum's object; a second outcome must not pass unseen.
    if let Ok(Expect { expect: Some(keys) }) = serde_json::from_str::<Expect>(text)
        && keys.len() != 1
    {
        let names: Vec<&str> = keys.keys().map(|k| k.as_ref()).collect();
        return Err(format!(
            "`expect` must hold exactly one outcome (`ok` or `error`), not {names:?}"
        ));
    }
    let case: Case = serde_json::from_str(text).map_err(|e| e.to_string())?;
    if case.expect.is_none() {
        return Err("no `expect`: a fixture case must say what torch did".to_string());
    }
    Ok(case)
}

/// Loads every `*.json` file below `dir` (sorted, recursively), except `README` files.
pub fn load_dir(dir: &Path) -> Result<Vec<LoadedCase>, LoadError> {
    let mut files = Vec::new();
    collect_json(dir, &mut files)?;
    load_paths(&files)
}

/// The fixture files [`load_paths`] reads: each file named, and every `*.json` file below each
/// directory named (sorted, recursively).
///
/// ```
/// use bcast_case::fixture_files;
/// use std::path::PathBuf;
/// let named = PathBuf::from("../fixtures/torch/expand.json");
/// let files = fixture_files(&["../fixtures/docs".into(), named.clone()]).unwrap();
/// assert!(files.len() > 2 && files.last() == Some(&named));
/// assert!(files.iter().all(|f| f.extension().is_some_and(|e| e == "json")));
/// assert!(files.windows(2).take(files.len() - 2).all(|w| w[0] < w[1]));
/// ```
pub fn fixture_files(paths: &[PathBuf]) -> Result<Vec<PathBuf>, LoadError> {
    let mut files = Vec::new();
    for p in paths {
        if p.is_dir() {
            collect_json(p, &mut files)?;
        } else {
            files.push(p.clone());
        }
    }
    Ok(files)
}

/// Loads files and directories, checking that ids are unique across all of them.
pub fn load_paths(paths: &[PathBuf]) -> Result<Vec<LoadedCase>, LoadError> {
    let mut out = Vec::new();
    for file in fixture_files(paths)? {
        out.extend(load_file(&file)?);
    }
    check_unique_ids(&out)?;
    Ok(out)
}

/// Fails on the first case id that an earlier case already has, naming its file: ids must be
/// unique across everything loaded together.
pub fn check_unique_ids(cases: &[LoadedCase]) -> Result<(), LoadError> {
    let mut seen = BTreeSet::new();
    for c in cases {
        if !seen.insert(c.case.id.as_str()) {
            return Err(error(&c.file, format!("duplicate case id {}", c.case.id)));
        }
    }
    Ok(())
}

fn collect_json(dir: &Path, out: &mut Vec<PathBuf>) -> Result<(), LoadError> {
    let entries = std::fs::read_dir(dir).map_err(|e| error(dir, e.to_string()))?;
    let mut paths: Vec<PathBuf> = entries.filter_map(|e| e.ok().map(|e| e.path())).collect();
    paths.sort();
    for p in paths {
        if p.is_dir() {
            collect_json(&p, out)?;
        } else if p.extension().is_some_and(|e| e == "json") {
            out.push(p);
        }
    }
    Ok(())
}

/// Checks that a case names only dtypes (and argument kinds) its file's schema version has: a
/// version-1 file reads as it always did, with the four dtypes of version 1 and no Python
/// complex argument.
///
/// ```
/// use bcast_case::{check_schema, Case};
/// let case: Case = serde_json::from_str(r#"{"id": "u", "storages": {"s": {"dtype": "uint8",
///     "values": [1]}}, "call": {"fn": "Tensor.numel"}}"#).unwrap();
/// assert!(check_schema(&case, 2).is_ok());
/// assert_eq!(check_schema(&case, 1).unwrap_err(), "dtype uint8 needs schema 2 (the file says 1)");
/// let z: Case = serde_json::from_str(r#"{"id": "z", "call": {"fn": "torch.add",
///     "args": [{"complex": [1.0, "-inf"]}, {"int": 2}]}}"#).unwrap();
/// assert_eq!(check_schema(&z, 1).unwrap_err(), "a complex argument needs schema 2 (the file says 1)");
/// ```
pub fn check_schema(case: &Case, schema: u32) -> Result<(), String> {
    if case.grad.is_some() && schema < GRAD_SCHEMA {
        return Err(format!(
            "gradients need schema {GRAD_SCHEMA} (the file says {schema})"
        ));
    }
    if case.has_complex_arg() && schema < COMPLEX_ARG_SCHEMA {
        return Err(format!(
            "a complex argument needs schema {COMPLEX_ARG_SCHEMA} (the file says {schema})"
        ));
    }
    for name in case.dtype_names() {
        if let Some(d) = DType::from_name(name)
            && d.since_schema() > schema
        {
            return Err(format!(
                "dtype {name} needs schema {} (the file says {schema})",
                d.since_schema()
            ));
        }
    }
    Ok(())
}

/// The schema version a file of these cases is written with: the lowest that has every dtype
/// they name (1 unless one of the dtypes of version 2 appears), so that a file of version-1
/// cases is written exactly as before.
///
/// ```
/// use bcast_case::{schema_for, Case};
/// let case = |dtype: &str| -> Case { serde_json::from_str(&format!(r#"{{"id": "c",
///     "storages": {{"s": {{"dtype": "{dtype}", "fill": {{"kind": "arange", "len": 2}}}}}},
///     "call": {{"fn": "Tensor.numel"}}}}"#)).unwrap() };
/// assert_eq!(schema_for(&[case("float32")]), 1);
/// assert_eq!(schema_for(&[case("float32"), case("complex64")]), 2);
/// let z: Case = serde_json::from_str(r#"{"id": "z", "call": {"fn": "torch.add",
///     "args": [{"complex": [1.0, 2.0]}, {"int": 2}]}}"#).unwrap();
/// assert_eq!(schema_for(&[case("float32"), z]), 2);
/// ```
pub fn schema_for(cases: &[Case]) -> u32 {
    let dtypes = cases
        .iter()
        .flat_map(Case::dtype_names)
        .filter_map(DType::from_name)
        .map(DType::since_schema);
    let complex = cases.iter().filter(|c| c.has_complex_arg());
    let grads = cases.iter().filter(|c| c.grad.is_some());
    dtypes
        .chain(complex.map(|_| COMPLEX_ARG_SCHEMA))
        .chain(grads.map(|_| GRAD_SCHEMA))
        .max()
        .unwrap_or(MIN_SCHEMA_VERSION)
        .max(MIN_SCHEMA_VERSION)
}

/// The schema version that added Python complex arguments (`{"complex": [re, im]}`).
pub const COMPLEX_ARG_SCHEMA: u32 = 2;

/// The dtype of a storage spec.
pub fn storage_dtype(spec: &StorageSpec) -> Result<DType, String> {
    DType::from_name(&spec.dtype).ok_or_else(|| format!("unknown dtype {:?}", spec.dtype))
}

/// The element values of a storage spec (literal or filled), checked against its dtype.
pub fn storage_values(spec: &StorageSpec) -> Result<Vec<Num>, String> {
    let dtype = storage_dtype(spec)?;
    let values = match (&spec.values, &spec.fill) {
        (Some(v), None) => v.clone(),
        (None, Some(f)) => fill_values(dtype, f),
        _ => return Err("a storage needs exactly one of `values` and `fill`".into()),
    };
    let place = if spec.fill.is_some() {
        "its fill"
    } else {
        "values"
    };
    check_values(dtype, &values, place)?;
    Ok(values)
}

/// Checks every value against its dtype ([`Num::check`]), naming the first bad one.
fn check_values(dtype: DType, values: &[Num], place: &str) -> Result<(), String> {
    for (i, v) in values.iter().enumerate() {
        v.check(dtype).map_err(|m| format!("{place}[{i}]: {m}"))?;
    }
    Ok(())
}

/// Checks the expected outcome's values against their dtypes: result tensors of a known dtype
/// (an unknown result dtype is an error), and storages written in place against the storage's.
fn validate_expect(case: &Case) -> Result<(), String> {
    validate_grad(case)?;
    let Some(Outcome::Ok(ok)) = &case.expect else {
        return Ok(());
    };
    let tensors = match &ok.result {
        ResultValue::Tensor(t) => std::slice::from_ref(t),
        ResultValue::Tensors(ts) => ts.as_slice(),
        _ => &[],
    };
    for (i, t) in tensors.iter().enumerate() {
        let place = match &ok.result {
            ResultValue::Tensors(_) => format!("expect result[{i}]"),
            _ => "expect result".to_string(),
        };
        check_tensor_values(t, &place)?;
    }
    for (name, grad) in ok.grads.iter().flatten() {
        if let Some(t) = grad {
            check_tensor_values(t, &format!("expect grad {name}"))?;
        }
    }
    for (name, values) in ok.storages.iter().flatten() {
        if let Some(dtype) = case
            .storages
            .get(name)
            .and_then(|spec| DType::from_name(&spec.dtype))
        {
            check_values(dtype, values, &format!("expect storage {name}"))?;
        }
    }
    Ok(())
}

/// Checks an expected tensor's values against its dtype, which must be known.
fn check_tensor_values(t: &TensorResult, place: &str) -> Result<(), String> {
    let dtype = DType::from_name(&t.dtype)
        .ok_or_else(|| format!("{place}: unknown dtype {:?}", t.dtype))?;
    if let Some(v) = &t.values {
        check_values(dtype, v, &format!("{place}.values"))?;
    }
    if let Some(s) = &t.samples {
        let v: Vec<Num> = s.iter().map(|(_, v)| *v).collect();
        check_values(dtype, &v, &format!("{place}.samples"))?;
    }
    Ok(())
}

/// Checks a case's gradient parts (schema 3): `grad` names tensors of the case, once each,
/// its `clone`s among its `wrt`, one upstream per result tensor; the expected gradients are
/// those of `wrt`; and gradients, a backward error or an error stage only in a case with
/// `grad`.
///
/// ```
/// use bcast_case::{validate_case, Case};
/// let case: Case = serde_json::from_str(r#"{"id": "g", "storages": {"s": {"dtype": "float32",
///     "values": [1.0]}}, "tensors": {"a": {"storage": "s", "shape": [1], "strides": [1]}},
///     "call": {"fn": "torch.neg", "args": [{"tensor": "a"}]},
///     "grad": {"wrt": ["a", "b"], "upstream": ["a"]}}"#).unwrap();
/// assert_eq!(validate_case(&case).unwrap_err(), "grad: wrt names b, which is not a tensor of the case");
/// ```
fn validate_grad(case: &Case) -> Result<(), String> {
    let Some(spec) = &case.grad else {
        let stray = match &case.expect {
            Some(Outcome::Ok(ok)) => ok.grads.is_some() || ok.backward_error.is_some(),
            Some(Outcome::Error(e)) => e.stage.is_some(),
            None => false,
        };
        if stray {
            return Err(
                "expect holds a backward or an error stage, but the case has no `grad`".into(),
            );
        }
        return Ok(());
    };
    if spec.wrt.is_empty() {
        return Err("grad: wrt is empty".into());
    }
    let mut seen = std::collections::BTreeSet::new();
    for name in &spec.wrt {
        if !case.tensors.contains_key(name) {
            return Err(format!(
                "grad: wrt names {name}, which is not a tensor of the case"
            ));
        }
        if !seen.insert(name) {
            return Err(format!("grad: wrt names {name} twice"));
        }
    }
    if let Some(c) = spec.clone.iter().find(|c| !seen.contains(c)) {
        return Err(format!("grad: clone names {c}, which is not in wrt"));
    }
    for name in spec.upstream.iter().flatten() {
        if !case.tensors.contains_key(name) {
            return Err(format!(
                "grad: upstream names {name}, which is not a tensor of the case"
            ));
        }
    }
    let Some(Outcome::Ok(ok)) = &case.expect else {
        return Ok(());
    };
    let results = match &ok.result {
        ResultValue::Tensor(_) => 1,
        ResultValue::Tensors(ts) => ts.len(),
        _ => 0,
    };
    if spec.upstream.len() != results {
        return Err(format!(
            "grad: {} upstream gradient(s) for {results} result tensor(s)",
            spec.upstream.len()
        ));
    }
    match (&ok.grads, &ok.backward_error) {
        (Some(grads), None) => {
            let names: std::collections::BTreeSet<&String> = grads.keys().collect();
            if names != seen {
                return Err(format!(
                    "expect grads: gradients of {names:?}, but wrt is {:?}",
                    spec.wrt
                ));
            }
            Ok(())
        }
        (None, Some(_)) => Ok(()),
        (Some(_), Some(_)) => Err("expect holds both grads and a backward_error".into()),
        (None, None) => {
            Err("expect holds neither grads nor a backward_error, in a case with `grad`".into())
        }
    }
}

/// How many elements of its storage a view reaches: `offset + sum((size - 1) * stride) + 1`,
/// or 0 for an empty view; an error when the dims and strides disagree or the sum overflows.
///
/// ```
/// use bcast_case::required_len;
/// assert_eq!(required_len(&[2, 3], &[3, 1], 1), Ok(7));
/// assert_eq!(required_len(&[0, 3], &[3, 1], 5), Ok(0));
/// assert!(required_len(&[2], &[1, 1], 0).is_err());
/// assert!(required_len(&[usize::MAX, 2], &[2, 1], 0).is_err());
/// ```
pub fn required_len(shape: &[usize], strides: &[usize], offset: usize) -> Result<usize, String> {
    if shape.len() != strides.len() {
        return Err(format!(
            "a view needs one stride per dim, got shape {shape:?} and strides {strides:?}"
        ));
    }
    let overflow = || format!("the extent of shape {shape:?} strides {strides:?} overflows");
    shape
        .iter()
        .try_fold(1usize, |n, &d| n.checked_mul(d))
        .ok_or_else(overflow)?;
    if shape.contains(&0) {
        return Ok(0);
    }
    let mut last = offset;
    for (&size, &stride) in shape.iter().zip(strides) {
        last = (size - 1)
            .checked_mul(stride)
            .and_then(|reach| last.checked_add(reach))
            .ok_or_else(overflow)?;
    }
    last.checked_add(1).ok_or_else(overflow)
}

/// The largest storage a fixture may declare, in elements.
pub const MAX_FIXTURE_STORAGE: usize = 1 << 24;

/// Checks a case the way the loader does: known dtypes, one of values/fill, values that fit
/// the dtype (integers in range, half values exact, complex values as pairs: [`Num::check`]),
/// in the storages and in the expected outcome, `dtype` arguments that name a dtype, storages
/// of sane size, views that fit their storage.
///
/// ```
/// use bcast_case::{validate_case, Case};
/// let case: Case = serde_json::from_str(r#"{"id": "u", "storages": {"s": {"dtype": "uint8",
///     "values": [1, 300]}}, "call": {"fn": "Tensor.numel"}}"#).unwrap();
/// assert_eq!(validate_case(&case).unwrap_err(),
///     "storage s: values[1]: 300 is out of the range of uint8 (0 to 255)");
/// ```
pub fn validate_case(case: &Case) -> Result<(), String> {
    checked_storage_values(case).map(drop)
}

/// [`validate_case`], giving every storage's values ([`storage_values`]) by name when the
/// case is valid, so that a caller that builds the storages fills and checks them once.
///
/// ```
/// use bcast_case::{checked_storage_values, Case, Num};
/// let case: Case = serde_json::from_str(r#"{"id": "u", "storages": {"s": {"dtype": "uint8",
///     "values": [1, 2]}}, "call": {"fn": "Tensor.numel"}}"#).unwrap();
/// assert_eq!(checked_storage_values(&case).unwrap()["s"], [Num::Int(1), Num::Int(2)]);
/// ```
///
/// # Errors
/// As [`validate_case`].
pub fn checked_storage_values(case: &Case) -> Result<BTreeMap<&str, Vec<Num>>, String> {
    let dtype_args = case.call.args.iter().chain(case.call.kwargs.values());
    for arg in dtype_args {
        match arg {
            Arg::Dtype(name) if DType::from_name(name).is_none() => {
                return Err(format!("call: unknown dtype {name:?}"));
            }
            Arg::Float(Num::Complex(..) | Num::Bool(_)) => {
                return Err(format!("call: a `float` argument is a number, not {arg:?}"));
            }
            Arg::Complex(n) if !matches!(n, Num::Complex(..)) => {
                return Err(format!(
                    "call: a `complex` argument is a pair [re, im], not {n:?}"
                ));
            }
            _ => {}
        }
    }
    for (name, spec) in &case.storages {
        if let Some(f) = &spec.fill
            && f.len > MAX_FIXTURE_STORAGE
        {
            return Err(format!(
                "storage {name}: {} elements is more than a fixture may hold",
                f.len
            ));
        }
    }
    let mut values = BTreeMap::new();
    for (name, spec) in &case.storages {
        let v = storage_values(spec).map_err(|m| format!("storage {name}: {m}"))?;
        values.insert(name.as_str(), v);
    }
    for (name, t) in &case.tensors {
        let len = values
            .get(t.storage.as_str())
            .map(Vec::len)
            .ok_or_else(|| format!("tensor {name} views unknown storage {}", t.storage))?;
        let needed = required_len(&t.shape, &t.strides, t.offset)
            .map_err(|m| format!("tensor {name}: {m}"))?;
        if needed > len {
            return Err(format!(
                "tensor {name} needs {needed} elements but storage {} has {len}",
                t.storage
            ));
        }
    }
    validate_expect(case)?;
    Ok(values)
}

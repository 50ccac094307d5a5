//! The example adapters gated end to end: PyTorch and NumPy through the protocol (when the
//! project's venv python is there), ndarray and candle in process (when compiled in). Each
//! agrees with torch except where the library really differs, and those differences are
//! pinned here, case by case and level by level.

use bcast_conformance::backend::registry::{
    adapters_dir, default_python, open_backend, AdapterLimits,
};
use bcast_conformance::backend::{Backend, Level};
use bcast_conformance::case::{load_file, LoadedCase};
use bcast_conformance::runner::suite::{run_suite, Status, SuiteOptions, SuiteResult};
use bcast_conformance::runner::Verdict;
use std::collections::{BTreeMap, BTreeSet};
use std::path::Path;

fn load(path: &str) -> Vec<LoadedCase> {
    load_file(&Path::new(env!("CARGO_MANIFEST_DIR")).join("..").join(path)).unwrap()
}

fn run(backend: &mut dyn Backend, cases: &[LoadedCase]) -> SuiteResult {
    let options = SuiteOptions {
        levels: Level::ALL.into_iter().collect(),
        ..SuiteOptions::default()
    };
    run_suite(backend, cases, &options, |_, _| {})
}

/// Every case that did not pass, with the levels it failed at (or the backend failure).
fn not_passed(result: &SuiteResult) -> BTreeMap<String, String> {
    result
        .entries
        .iter()
        .filter(|e| e.status != Status::Pass)
        .map(|e| {
            let what = match &e.report.verdict {
                Verdict::Fail(ms) => {
                    let mut levels: Vec<&str> = ms.iter().map(|m| m.level.name()).collect();
                    levels.dedup();
                    levels.join(",")
                }
                Verdict::BackendFailure(f) => format!("failure: {f}"),
                Verdict::Skip(_) => "skip".to_string(),
                Verdict::Pass => unreachable!(),
            };
            (
                e.report.id.trim_start_matches("adapters/").to_string(),
                what,
            )
        })
        .collect()
}

fn python_adapter(script: &str) -> Option<Box<dyn Backend>> {
    let Some(python) = default_python() else {
        eprintln!("no venv python: the {script} test is skipped");
        return None;
    };
    let spec = format!(
        "{} {}",
        python.display(),
        adapters_dir().join(script).display()
    );
    // Generous limits: on a loaded machine an answer may take long, and a timeout here would
    // be the machine's verdict, not the adapter's.
    let limits = AdapterLimits {
        case: std::time::Duration::from_secs(300),
        handshake: std::time::Duration::from_secs(300),
        ..AdapterLimits::default()
    };
    Some(open_backend(&spec, limits).expect("the adapter starts"))
}

#[test]
fn pytorch_through_the_protocol_agrees_with_every_fixture() {
    let Some(mut torch) = python_adapter("torch_adapter.py") else {
        return;
    };
    for file in [
        "fixtures/torch/expand.json",
        "conformance/tests/data/adapters.json",
        // Every dtype of schema 2, which the reference engine skips for now.
        DTYPES_SCHEMA_2,
    ] {
        let result = run(torch.as_mut(), &load(file));
        assert_eq!(not_passed(&result), BTreeMap::new(), "{file}");
    }
}

/// The cases over the dtypes of schema 2.
const DTYPES_SCHEMA_2: &str = "fixtures/regressions/dtypes-schema.json";

#[test]
fn numpy_runs_the_dtypes_it_has_and_skips_bfloat16() {
    let Some(mut numpy) = python_adapter("numpy_adapter.py") else {
        return;
    };
    assert!(!numpy.capabilities().claims_dtype("bfloat16"));
    assert!([
        "uint8",
        "int8",
        "int16",
        "int32",
        "float16",
        "complex64",
        "complex128"
    ]
    .iter()
    .all(|d| numpy.capabilities().claims_dtype(d)));
    let result = run(numpy.as_mut(), &load(DTYPES_SCHEMA_2));
    let expected: BTreeMap<String, String> = [
        // NumPy has no bfloat16: never sent.
        ("dtypes/bfloat16-float16-add", "skip"),
        ("dtypes/bfloat16-maximum", "skip"),
        ("dtypes/bfloat16-matmul-batched", "skip"),
        ("dtypes/broadcast-tensors-mixed", "skip"),
        // int / int is float64 in NumPy, the default float32 in torch.
        ("dtypes/int32-div", "dtypes,values"),
        // An int8 array with a Python float is float64 in NumPy, float32 in torch.
        ("dtypes/int8-add-python-float", "dtypes"),
        // NumPy sums unsigned integers as uint64, torch as int64.
        ("dtypes/uint8-sum-dim", "dtypes"),
        // NumPy takes the mean of integers; torch refuses.
        ("dtypes/int32-mean-error", "shapes"),
    ]
    .into_iter()
    .map(|(a, b)| (a.to_string(), b.to_string()))
    .collect();
    assert_eq!(not_passed(&result), expected);
}

#[test]
fn numpy_differs_from_torch_only_where_numpy_really_does() {
    let Some(mut numpy) = python_adapter("numpy_adapter.py") else {
        return;
    };
    let result = run(
        numpy.as_mut(),
        &load("conformance/tests/data/adapters.json"),
    );
    let expected: BTreeMap<String, String> = [
        // NumPy promotes int64 with float32 to float64; torch keeps float32.
        ("add-mixed-dtypes", "dtypes"),
        // int / int is float64 in NumPy, the default float32 in torch.
        ("div-ints", "dtypes"),
        // An empty ufunc result has zero strides in NumPy, contiguous strides in torch.
        ("add-zero-size", "strides"),
        // NumPy writes through overlapping views where torch refuses.
        ("add_-expanded", "shapes"),
        ("add_-partial-overlap", "shapes"),
    ]
    .into_iter()
    .map(|(a, b)| (a.to_string(), b.to_string()))
    .collect();
    assert_eq!(not_passed(&result), expected);
    // On the expand corpus NumPy answers every case but the bfloat16 ones (it has no such
    // dtype, so they are never sent); it differs on strides of size-1 dims (broadcast_to gives
    // them stride 0), rejects torch's negative sizes beside a 0, and does not keep the offset
    // of an empty view.
    let cases = load("fixtures/torch/expand.json");
    let bfloat16: BTreeSet<&str> = cases
        .iter()
        .filter(|c| c.case.storages.values().any(|s| s.dtype == "bfloat16"))
        .map(|c| c.case.id.as_str())
        .collect();
    let result = run(numpy.as_mut(), &cases);
    let differences = not_passed(&result);
    assert!(
        differences.iter().all(|(id, w)| if w == "skip" {
            bfloat16.contains(id.as_str())
        } else {
            w.split(',')
                .all(|l| ["strides", "shapes", "aliasing"].contains(&l))
        }),
        "{differences:?}"
    );
    assert!(!bfloat16.is_empty());
    assert!(differences.values().filter(|w| *w == "strides").count() > 0);
}

#[cfg(feature = "ndarray")]
#[test]
fn ndarray_differs_from_torch_only_where_ndarray_really_does() {
    let mut nd = open_backend("ndarray", AdapterLimits::default()).unwrap();
    let result = run(nd.as_mut(), &load("conformance/tests/data/adapters.json"));
    let got = not_passed(&result);
    let levels = |id: &str| got.get(id).cloned().unwrap_or_default();
    // No dtype promotion in ndarray, no alpha= or out= in its operators.
    for id in ["add-mixed-dtypes", "mul_-int-float", "sub-alpha", "add-out"] {
        assert!(levels(id).starts_with("failure: "), "{id}: {}", levels(id));
    }
    // Integer division stays integer.
    assert_eq!(levels("div-ints"), "dtypes,values");
    assert_eq!(levels("add-zero-size"), "strides");
    // The right operand is copied first (safe Rust), so a partial overlap is no error.
    assert_eq!(levels("add_-partial-overlap"), "shapes");
    // Ops it does not map are skipped, not failed.
    for id in ["where", "matmul-batched", "eq-broadcast", "unsqueeze"] {
        assert_eq!(levels(id), "skip");
    }
    assert_eq!(got.len(), 7 + 8, "{got:#?}");
    // A mutable view that aliases itself is refused, as torch refuses to write it.
    assert!(!got.contains_key("add_-expanded"));
}

#[cfg(feature = "candle")]
#[test]
fn candle_differs_from_torch_only_where_candle_really_does() {
    let mut candle = open_backend("candle", AdapterLimits::default()).unwrap();
    let result = run(
        candle.as_mut(),
        &load("conformance/tests/data/adapters.json"),
    );
    let got = not_passed(&result);
    let levels = |id: &str| got.get(id).cloned().unwrap_or_default();
    for id in [
        "add-outer",
        "mul-3d",
        "mul-transposed",
        "add-scalar",
        "expand",
        "sum-dim-keepdim",
    ] {
        assert_eq!(levels(id), "", "{id}");
    }
    assert!(levels("add-mixed-dtypes").starts_with("failure: candle has no mixed-dtype"));
    assert_eq!(levels("add_-ok"), "skip");
    assert_eq!(levels("where"), "skip");
}

/// The cases of `DTYPES_SCHEMA_2` that passed, and those that failed with what (skips left
/// out).
#[cfg(any(feature = "ndarray", feature = "candle"))]
fn passed_and_failed(result: &SuiteResult) -> (BTreeSet<String>, BTreeMap<String, String>) {
    let passed = result
        .entries
        .iter()
        .filter(|e| e.status == Status::Pass)
        .map(|e| e.report.id.clone())
        .collect();
    let failed = not_passed(result)
        .into_iter()
        .filter(|(_, w)| w != "skip")
        .collect();
    (passed, failed)
}

#[cfg(feature = "ndarray")]
#[test]
fn ndarray_runs_every_element_type_it_has() {
    let mut nd = open_backend("ndarray", AdapterLimits::default()).unwrap();
    let caps = nd.capabilities();
    // Rust's integers, floats and num_complex; no half-precision type.
    for d in ["uint8", "int8", "int16", "int32", "complex64", "complex128"] {
        assert!(caps.claims_dtype(d), "{d}");
    }
    assert!(!caps.claims_dtype("float16") && !caps.claims_dtype("bfloat16"));
    let (passed, failed) = passed_and_failed(&run(nd.as_mut(), &load(DTYPES_SCHEMA_2)));
    let ids =
        |v: &[&str]| -> BTreeSet<String> { v.iter().map(|s| format!("dtypes/{s}")).collect() };
    // Same-dtype arithmetic wraps as torch's does (release build), complex NaN/inf products
    // agree, views of every type.
    assert_eq!(
        passed,
        ids(&[
            "uint8-add-wraps",
            "complex128-mul-nan-inf",
            "int16-expand",
            "complex128-expand",
            "int8-add_-wraps"
        ])
    );
    let failed: BTreeMap<&str, &str> = failed
        .iter()
        .map(|(id, w)| (id.trim_start_matches("dtypes/"), w.as_str()))
        .collect();
    // No promotion between dtypes, nor of an int array with a float.
    for id in [
        "int8-int16-add",
        "uint8-int8-mul",
        "int8-add-python-float",
        "complex64-float32-add",
        "complex64-float64-mul",
    ] {
        assert!(
            failed[id].starts_with("failure: ndarray"),
            "{id}: {}",
            failed[id]
        );
    }
    // Integer division stays integer; a uint8 sum stays uint8 (torch: int64).
    assert_eq!(failed["int32-div"], "dtypes,values");
    assert_eq!(failed["uint8-sum-dim"], "dtypes,values");
    assert_eq!(failed.len(), 9, "{failed:#?}");
}

#[cfg(feature = "candle")]
#[test]
fn candle_runs_every_element_type_it_shares_with_the_schema() {
    let mut candle = open_backend("candle", AdapterLimits::default()).unwrap();
    let caps = candle.capabilities();
    // u8, i16, i32, i64, f16, bf16, f32, f64 (its u32 has no schema dtype).
    for d in ["uint8", "int16", "int32", "float16", "bfloat16"] {
        assert!(caps.claims_dtype(d), "{d}");
    }
    assert!(!caps.claims_dtype("bool") && !caps.claims_dtype("int8"));
    assert!(!caps.claims_dtype("complex64"));
    let (passed, failed) = passed_and_failed(&run(candle.as_mut(), &load(DTYPES_SCHEMA_2)));
    let ids =
        |v: &[&str]| -> BTreeSet<String> { v.iter().map(|s| format!("dtypes/{s}")).collect() };
    // float16 arithmetic rounds as torch's (computed in f32, rounded once), uint8 wraps.
    assert_eq!(
        passed,
        ids(&[
            "uint8-add-wraps",
            "float16-mul",
            "float16-div-rounds",
            "float16-mul-python-float",
            "int16-expand",
            "float16-add-sampled"
        ])
    );
    let failed: BTreeMap<&str, &str> = failed
        .iter()
        .map(|(id, w)| (id.trim_start_matches("dtypes/"), w.as_str()))
        .collect();
    assert!(failed["bfloat16-float16-add"].starts_with("failure: candle has no mixed-dtype"));
    assert_eq!(failed["int32-div"], "dtypes,values");
    assert_eq!(failed["uint8-sum-dim"], "dtypes,values");
    assert_eq!(failed.len(), 5, "{failed:#?}");
}

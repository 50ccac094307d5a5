//! The dtypes of schema 2: loading, validation and range errors, version 1 against version 2,
//! value encodings, the writer's version, and comparison of complex and half values.

use bcast_case::{
    compare_outcomes, fixture_json, load_file, schema_for, storage_values, validate_case,
    values_agree, Case, DType, FixtureFile, Level, Num, Outcome, Tolerance, SCHEMA_VERSION,
};
use std::path::PathBuf;
use std::sync::atomic::{AtomicUsize, Ordering};

/// Writes a fixture file of `schema` with these cases (JSON texts) and loads it.
fn load(schema: u32, cases: &[&str]) -> Result<Vec<Case>, String> {
    static N: AtomicUsize = AtomicUsize::new(0);
    let path: PathBuf = std::env::temp_dir().join(format!(
        "bcast-case-dtypes-{}-{}.json",
        std::process::id(),
        N.fetch_add(1, Ordering::SeqCst)
    ));
    let text = format!(
        "{{\"schema\": {schema}, \"torch_version\": \"2.13.0\", \"cases\": [{}]}}",
        cases.join(",")
    );
    std::fs::write(&path, text).unwrap();
    let loaded = load_file(&path);
    std::fs::remove_file(&path).unwrap();
    loaded
        .map(|cs| cs.into_iter().map(|c| c.case).collect())
        .map_err(|e| e.message)
}

/// A labelled `Tensor.clone` case of one storage of `dtype` holding `values` (JSON), whose
/// expected result holds `result` (JSON).
fn clone_case(id: &str, dtype: &str, values: &str, result: &str) -> String {
    let n = serde_json::from_str::<Vec<serde_json::Value>>(values)
        .unwrap()
        .len();
    format!(
        r#"{{"id": "{id}", "storages": {{"s": {{"dtype": "{dtype}", "values": {values}}}}},
        "tensors": {{"t": {{"storage": "s", "shape": [{n}], "strides": [1]}}}},
        "call": {{"fn": "Tensor.clone", "args": [{{"tensor": "t"}}]}},
        "expect": {{"ok": {{"result": {{"tensor": {{"shape": [{n}], "dtype": "{dtype}",
        "strides": [1], "offset": 0, "storage": null, "values": {result}}}}}}}}}}}"#
    )
}

fn same(dtype: &str, values: &str) -> String {
    clone_case(&format!("c/{dtype}"), dtype, values, values)
}

#[test]
fn every_dtype_loads_from_a_version_4_file() {
    let cases = [
        same("bool", "[true, false]"),
        same("uint8", "[0, 255]"),
        same("int8", "[-128, 127]"),
        same("int16", "[-32768, 32767]"),
        same("int32", "[-2147483648, 2147483647]"),
        same("int64", "[-9223372036854775808, 9223372036854775807]"),
        same(
            "float16",
            r#"[65504.0, -6.103515625e-05, 5.960464477539063e-08, "nan", "-inf", 3]"#,
        ),
        same(
            "bfloat16",
            r#"[3.3895313892515355e38, 9.183549615799121e-41, 0.1015625, "inf"]"#,
        ),
        same("float32", "[0.1, 1e38]"),
        same("float64", r#"[0.1, "nan"]"#),
        same(
            "complex32",
            r#"[[65504.0, -0.25], ["nan", "-inf"], [2048, 5.960464477539063e-08]]"#,
        ),
        same("complex64", r#"[[1.5, -2.0], ["nan", "inf"], [0, 1]]"#),
        same("complex128", r#"[[0.1, 1e300], ["-inf", -0.0]]"#),
    ];
    let texts: Vec<&str> = cases.iter().map(String::as_str).collect();
    let loaded = load(4, &texts).unwrap();
    assert_eq!(loaded.len(), DType::ALL.len());
    let dtypes: Vec<&str> = loaded
        .iter()
        .map(|c| c.storages["s"].dtype.as_str())
        .collect();
    let all: Vec<&str> = DType::ALL.iter().map(|d| d.name()).collect();
    assert_eq!(dtypes, all);
    let z = storage_values(&loaded[11].storages["s"]).unwrap();
    assert_eq!(z[0], Num::Complex(1.5, -2.0));
    assert!(matches!(z[1], Num::Complex(re, im) if re.is_nan() && im == f64::INFINITY));
    assert_eq!(z[2], Num::Complex(0.0, 1.0));
    assert_eq!(schema_for(&loaded), 4);
    assert_eq!(SCHEMA_VERSION, 4);
    // The twelve dtypes of schema 2 load from a version-2 file; complex32 needs version 4.
    let (half_complex, twelve): (Vec<&str>, Vec<&str>) = texts
        .iter()
        .copied()
        .partition(|t| t.contains("\"complex32\""));
    let loaded = load(2, &twelve).unwrap();
    assert_eq!((loaded.len(), schema_for(&loaded)), (12, 2));
    let err = load(3, &half_complex).unwrap_err();
    assert!(
        err.contains("dtype complex32 needs schema 4 (the file says 3)"),
        "{err}"
    );
}

#[test]
fn a_complex32_part_that_is_not_a_float16_value_is_a_load_error() {
    for bad in ["[[0.1, 0]]", "[[0, 2049]]", "[[65520, 0]]", "[1.5]"] {
        let err = load(4, &[&same("complex32", bad)]).unwrap_err();
        assert!(err.contains("complex32"), "{bad}: {err}");
    }
}

#[test]
fn the_fill_recipes_of_every_dtype_load() {
    for dtype in DType::ALL {
        for fill in [
            r#"{"kind": "arange", "len": 70000}"#,
            r#"{"kind": "random", "seed": 3, "len": 1000}"#,
        ] {
            let case = format!(
                r#"{{"id": "f", "storages": {{"s": {{"dtype": "{}", "fill": {fill}}}}},
                "call": {{"fn": "Tensor.numel"}}, "expect": {{"ok": {{"result": {{"int": 0}}}}}}}}"#,
                dtype.name()
            );
            let schema = dtype.since_schema();
            let loaded = load(schema, &[&case]).unwrap_or_else(|e| panic!("{e}"));
            assert!(storage_values(&loaded[0].storages["s"])
                .unwrap()
                .iter()
                .all(|v| v.fits(dtype)));
        }
    }
}

#[test]
fn integers_out_of_range_are_load_errors_naming_the_case() {
    for (dtype, bad) in [
        ("uint8", "300"),
        ("uint8", "-1"),
        ("int8", "128"),
        ("int8", "-129"),
        ("int16", "32768"),
        ("int32", "2147483648"),
        ("int32", "-2147483649"),
    ] {
        let case = clone_case("range/1", dtype, &format!("[1, {bad}]"), "[1, 1]");
        let err = load(2, &[&case]).unwrap_err();
        assert!(
            err.starts_with("case range/1: storage s: values[1]: ")
                && err.contains(&format!("{bad} is out of the range of {dtype}")),
            "{err}"
        );
    }
    let err = load(2, &[&same("uint8", "[300]")]).unwrap_err();
    assert_eq!(
        err,
        "case c/uint8: storage s: values[0]: 300 is out of the range of uint8 (0 to 255)"
    );
}

#[test]
fn expected_values_are_checked_against_their_dtype() {
    let case = clone_case("expect/1", "uint8", "[1, 2]", "[1, 256]");
    let err = load(2, &[&case]).unwrap_err();
    assert_eq!(
        err,
        "case expect/1: expect result.values[1]: 256 is out of the range of uint8 (0 to 255)"
    );
    let case = clone_case("expect/2", "float16", "[1, 2]", "[1, 0.1]");
    let err = load(2, &[&case]).unwrap_err();
    assert!(
        err.contains("expect result.values[1]: 0.1 is not exactly a float16"),
        "{err}"
    );
    let case = clone_case("expect/3", "complex64", "[[1, 2]]", "[1.0]");
    let err = load(2, &[&case]).unwrap_err();
    assert!(err.contains("1.0 is a float, not a complex64"), "{err}");
    let case = same("int32", "[1]").replace(
        r#""shape": [1], "dtype": "int32""#,
        r#""shape": [1], "dtype": "int31""#,
    );
    let err = load(2, &[&case]).unwrap_err();
    assert_eq!(err, "case c/int32: expect result: unknown dtype \"int31\"");
}

#[test]
fn a_float_is_never_an_integer_and_a_pair_only_a_complex() {
    for (dtype, values, why) in [
        ("int8", "[1.0]", "1.0 is a float, not a int8"),
        ("uint8", "[true]", "true is a bool, not a uint8"),
        (
            "float16",
            "[[1, 2]]",
            "[1.0,2.0] is a complex pair, not a float16",
        ),
        ("complex128", "[1.5]", "1.5 is a float, not a complex128"),
        ("complex64", "[2]", "2 is an integer, not a complex64"),
        ("bool", "[1]", "1 is an integer, not a bool"),
    ] {
        let err = load(2, &[&same(dtype, values)]).unwrap_err();
        assert!(err.ends_with(why), "{dtype} {values}: {err}");
    }
}

#[test]
fn half_values_must_be_exact() {
    for (dtype, bad) in [
        ("float16", "0.1"),
        ("float16", "65505"),
        ("float16", "65520.0"),
        ("float16", "2049"),
        ("float16", "1e-8"),
        ("bfloat16", "0.1"),
        ("bfloat16", "257"),
        ("bfloat16", "3.4e38"),
    ] {
        let err = load(2, &[&same(dtype, &format!("[{bad}]"))]).unwrap_err();
        assert!(
            err.contains(&format!("is not exactly a {dtype}")),
            "{dtype} {bad}: {err}"
        );
    }
}

#[test]
fn malformed_complex_pairs_are_refused() {
    for values in [
        r#"[[1, 2, 3]]"#,
        r#"[[1]]"#,
        r#"[["x", 1]]"#,
        r#"[[true, 1]]"#,
    ] {
        let err = load(2, &[&same("complex64", values)]).unwrap_err();
        assert!(err.starts_with("case c/complex64: "), "{values}: {err}");
    }
}

#[test]
fn a_version_1_file_reads_as_before_and_names_only_the_dtypes_of_version_1() {
    let old = [
        same("bool", "[true]"),
        same("int64", "[3]"),
        same("float32", "[0.1]"),
        same("float64", r#"["nan"]"#),
    ];
    let texts: Vec<&str> = old.iter().map(String::as_str).collect();
    let v1 = load(1, &texts).unwrap();
    let text = |cases: &[Case]| serde_json::to_string(cases).unwrap();
    assert_eq!(text(&v1), text(&load(2, &texts).unwrap()));
    assert_eq!(schema_for(&v1), 1);
    for dtype in ["uint8", "int8", "int16", "int32", "float16", "bfloat16"] {
        let err = load(1, &[&same(dtype, "[1]")]).unwrap_err();
        assert_eq!(
            err,
            format!("case c/{dtype}: dtype {dtype} needs schema 2 (the file says 1)")
        );
    }
    let err = load(1, &[&same("complex128", "[[1, 0]]")]).unwrap_err();
    assert!(
        err.ends_with("dtype complex128 needs schema 2 (the file says 1)"),
        "{err}"
    );
    // A dtype argument of version 2 in a version-1 file.
    let cast = r#"{"id": "cast", "storages": {"s": {"dtype": "float32", "values": [1]}},
        "tensors": {"t": {"storage": "s", "shape": [1], "strides": [1]}},
        "call": {"fn": "torch.sum", "args": [{"tensor": "t"}], "kwargs": {"dtype": {"dtype": "float16"}}},
        "expect": {"ok": {"result": {"tensor": {"shape": [], "dtype": "float16", "strides": [],
        "values": [1.0]}}}}}"#;
    let err = load(1, &[cast]).unwrap_err();
    assert!(
        err.ends_with("dtype float16 needs schema 2 (the file says 1)"),
        "{err}"
    );
    assert_eq!(schema_for(&load(2, &[cast]).unwrap()), 2);
    for version in [0, SCHEMA_VERSION + 1] {
        let err = load(version, &texts).unwrap_err();
        assert_eq!(
            err,
            format!(
                "schema version {version} is not supported (this runner reads 1 to {SCHEMA_VERSION})"
            )
        );
    }
}

#[test]
fn the_writer_writes_the_files_version_and_values_exactly() {
    let texts = [
        same("float16", r#"[65504.0, "nan"]"#),
        same("complex64", r#"[[1.5, "-inf"], [0.0, -0.25]]"#),
        same("uint8", "[255]"),
    ];
    let texts: Vec<&str> = texts.iter().map(String::as_str).collect();
    let cases = load(2, &texts).unwrap();
    let file = FixtureFile {
        schema: schema_for(&cases),
        torch_version: Some("2.13.0".into()),
        generator: None,
        cases,
    };
    let text = fixture_json(&file);
    assert!(text.starts_with("{\"schema\": 2, "), "{text}");
    assert!(
        text.contains(r#""values":[[1.5,"-inf"],[0.0,-0.25]]"#),
        "{text}"
    );
    assert!(text.contains(r#""values":[65504.0,"nan"]"#), "{text}");
    let back: FixtureFile = serde_json::from_str(&text).unwrap();
    assert_eq!(back.cases.len(), 3);
    assert_eq!(fixture_json(&back), text);
}

#[test]
fn a_float_argument_is_never_a_pair() {
    let case: Case = serde_json::from_str(
        r#"{"id": "a", "storages": {"s": {"dtype": "complex64", "values": [[1, 2]]}},
        "tensors": {"t": {"storage": "s", "shape": [1], "strides": [1]}},
        "call": {"fn": "torch.add", "args": [{"tensor": "t"}, {"float": [1, 2]}]}}"#,
    )
    .unwrap();
    let err = validate_case(&case).unwrap_err();
    assert!(
        err.starts_with("call: a `float` argument is a number"),
        "{err}"
    );
}

fn outcome(dtype: &str, values: &str) -> Outcome {
    serde_json::from_str(&format!(
        r#"{{"ok": {{"result": {{"tensor": {{"shape": [2], "dtype": "{dtype}", "strides": [1],
        "values": {values}}}}}}}}}"#
    ))
    .unwrap()
}

fn differences(dtype: &str, want: &str, got: &str, tolerance: Option<Tolerance>) -> Vec<String> {
    let levels = [Level::Shapes, Level::Values].into();
    compare_outcomes(
        &outcome(dtype, want),
        &outcome(dtype, got),
        tolerance,
        &levels,
    )
    .iter()
    .map(ToString::to_string)
    .collect()
}

#[test]
fn complex_values_compare_part_by_part_with_the_tolerance() {
    let tol = Some(Tolerance {
        rtol: 0.0,
        atol: 1e-3,
    });
    let want = r#"[[1.0, 2.0], ["nan", "inf"]]"#;
    assert!(differences("complex64", want, want, None).is_empty());
    assert!(differences("complex64", want, r#"[[1.0, 2.0], ["nan", "inf"]]"#, tol).is_empty());
    assert!(differences(
        "complex64",
        want,
        r#"[[1.0005, 1.9995], ["nan", "inf"]]"#,
        tol
    )
    .is_empty());
    assert_eq!(
        differences(
            "complex64",
            want,
            r#"[[1.0005, 2.0], ["nan", "inf"]]"#,
            None
        ),
        ["[values] result.values[0]: expected [1.0, 2.0], got [1.0005, 2.0]"]
    );
    assert_eq!(
        differences("complex128", want, r#"[[1.0, 2.01], ["nan", "inf"]]"#, tol),
        ["[values] result.values[0]: expected [1.0, 2.0], got [1.0, 2.01]"]
    );
    // A NaN part equals only a NaN part; an infinite part only the same infinity.
    assert_eq!(
        differences("complex128", want, r#"[[1.0, 2.0], [0.0, "inf"]]"#, tol).len(),
        1
    );
    assert_eq!(
        differences("complex128", want, r#"[[1.0, 2.0], ["nan", "-inf"]]"#, tol).len(),
        1
    );
    // A real value never stands for a complex one, nor a swapped pair.
    assert_eq!(
        differences(
            "complex64",
            r#"[[1.0, 0.0], [2.0, 0.0]]"#,
            "[1.0, 2.0]",
            tol
        ),
        ["[values] result.values[0] (and 1 more): expected [1.0, 0.0], got 1.0"]
    );
    assert_eq!(
        differences(
            "complex64",
            r#"[[1.0, 2.0], [0, 0]]"#,
            r#"[[2.0, 1.0], [0, 0]]"#,
            None
        )
        .len(),
        1
    );
    assert!(values_agree(
        Num::Complex(0.0, -0.0),
        Num::Complex(-0.0, 0.0),
        None
    ));
}

#[test]
fn half_values_are_exact_without_a_tolerance_and_within_one_with_it() {
    let want = r#"[0.333251953125, "nan"]"#;
    assert!(differences("float16", want, want, None).is_empty());
    // One float16 ulp off.
    let off = r#"[0.3330078125, "nan"]"#;
    assert_eq!(
        differences("float16", want, off, None),
        ["[values] result.values[0]: expected 0.333251953125, got 0.3330078125"]
    );
    let tol = Some(Tolerance {
        rtol: 1e-3,
        atol: 1e-5,
    });
    assert!(differences("float16", want, off, tol).is_empty());
    assert_eq!(
        differences("bfloat16", "[1.0, 2.0]", "[1.0078125, 2.0]", None).len(),
        1
    );
    assert!(differences(
        "bfloat16",
        "[1.0, 2.0]",
        "[1.0078125, 2.0]",
        Some(Tolerance {
            rtol: 0.01,
            atol: 0.0
        })
    )
    .is_empty());
}

#[test]
fn narrow_integers_compare_exactly_as_integers() {
    let tol = Some(Tolerance {
        rtol: 0.5,
        atol: 1.0,
    });
    assert!(differences("uint8", "[255, 0]", "[255, 0]", tol).is_empty());
    assert_eq!(
        differences("uint8", "[255, 0]", "[255.0, 0]", None),
        ["[values] result.values[0]: expected 255, got 255.0, a float where the dtype holds integers"]
    );
    assert_eq!(differences("int8", "[-128, 1]", "[-127, 1]", tol).len(), 1);
    assert_eq!(differences("int16", "[1, 2]", "[1, 3]", tol).len(), 1);
    assert_eq!(differences("int32", "[1, 2]", "[true, 2]", None).len(), 1);
}

//! The hello's declines (PROTOCOL.md, "Declines") and the bound call the runner sends beside
//! each call ("The bound call"): a declined keyword matches however the call passes it, the
//! finer declines (input size, stride-dependent outcomes, huge results) skip what a dense
//! library cannot do without skipping every strided case, and unknown names are refused.

use bcast_conformance::backend::subprocess::protocol::{parse_hello, request_line};
use bcast_conformance::backend::Capabilities;
use bcast_conformance::case::{load_file, Case, LoadedCase};
use std::path::PathBuf;

fn fixture(file: &str, id: &str) -> Case {
    let path = PathBuf::from(env!("CARGO_MANIFEST_DIR"))
        .join("../fixtures")
        .join(file);
    load_file(&path)
        .expect("the fixture loads")
        .into_iter()
        .map(|c: LoadedCase| c.case)
        .find(|c| c.id == id)
        .unwrap_or_else(|| panic!("no case {id} in {file}"))
}

fn caps(declines: &str) -> Result<Capabilities, String> {
    serde_json::from_str(&format!(
        r#"{{"ops": null, "dtypes": ["float32", "int16", "int64"], "levels": ["shapes"],
        "declines": {declines}}}"#
    ))
    .map_err(|e| e.to_string())
}

fn declined(declines: &str, case: &Case) -> Option<String> {
    caps(declines)
        .expect("the claim is accepted")
        .declined(case)
}

/// A case built from its call, over one float32 view `x` of shape [2].
fn call(call: &str) -> Case {
    serde_json::from_str(&format!(
        r#"{{"id": "c", "storages": {{"s": {{"dtype": "float32", "values": [1.0, 2.0]}}}},
        "tensors": {{"x": {{"storage": "s", "shape": [2], "strides": [1]}}}}, "call": {call}}}"#
    ))
    .expect("the case parses")
}

const ALPHA_BY_POSITION: &str = "regressions/pyargs/add-deprecated-alpha-position";

#[test]
fn a_declined_keyword_matches_by_position_by_keyword_and_by_numpy_spelling() {
    // torch.add(x, 2, r): torch's deprecated overload add(input, alpha, other).
    let by_position = fixture("regressions/pyargs.json", ALPHA_BY_POSITION);
    assert!(by_position.call.kwargs.is_empty());
    assert_eq!(
        declined(r#"{"kwargs": ["alpha"]}"#, &by_position).as_deref(),
        Some("declines the keyword alpha=")
    );
    let by_keyword = call(
        r#"{"fn": "torch.add", "args": [{"tensor": "x"}, {"tensor": "x"}], "kwargs": {"alpha": {"int": 2}}}"#,
    );
    assert!(declined(r#"{"kwargs": ["alpha"]}"#, &by_keyword).is_some());
    assert_eq!(declined(r#"{"kwargs": ["out"]}"#, &by_keyword), None);
    // torch.sum(x, axis=1, keepdims=True): declining `dim` or its spelling `axis` declines it.
    let axis = fixture(
        "regressions/pyargs.json",
        "regressions/pyargs/sum-numpy-axis",
    );
    for name in ["dim", "axis", "keepdim", "keepdims"] {
        let why = declined(&format!(r#"{{"kwargs": ["{name}"]}}"#), &axis);
        assert!(why.is_some(), "{name}");
    }
    // dim by position: torch.sum(x, 0).
    let dim = call(r#"{"fn": "torch.sum", "args": [{"tensor": "x"}, {"int": 0}]}"#);
    assert_eq!(
        declined(r#"{"kwargs": ["dim"]}"#, &dim).as_deref(),
        Some("declines the keyword dim=")
    );
    assert_eq!(declined(r#"{"kwargs": ["keepdim"]}"#, &dim), None);
}

#[test]
fn an_unknown_declined_keyword_is_refused_naming_it() {
    let err = caps(r#"{"kwargs": ["alhpa"]}"#).unwrap_err();
    assert!(
        err.contains(r#"capabilities.declines.kwargs: unknown keyword "alhpa""#),
        "{err}"
    );
    let err = parse_hello(
        r#"{"hello": {"name": "x", "protocol": 1, "capabilities": {"ops": null, "dtypes": [],
        "levels": [], "declines": {"kwargs": ["out", "rounding"]}}}}"#,
    )
    .unwrap_err();
    assert!(err.contains(r#"unknown keyword "rounding""#), "{err}");
    // An unknown field of declines is refused too.
    let err = caps(r#"{"huge_result": true}"#).unwrap_err();
    assert!(err.contains("unknown field `huge_result`"), "{err}");
    // Every keyword a shipped adapter declines is known.
    caps(r#"{"kwargs": ["out", "alpha", "rounding_mode", "axis"]}"#).unwrap();
}

#[test]
fn python_numbers_match_by_keyword_but_not_keyword_only_scalars() {
    let numbers = r#"{"python_numbers": true}"#;
    let other =
        call(r#"{"fn": "torch.add", "args": [{"tensor": "x"}], "kwargs": {"other": {"int": 2}}}"#);
    assert_eq!(
        declined(numbers, &other).as_deref(),
        Some("declines Python-number operands (argument other)")
    );
    let positional = call(r#"{"fn": "torch.add", "args": [{"tensor": "x"}, {"float": 2.5}]}"#);
    assert!(declined(numbers, &positional).is_some());
    let alpha = call(
        r#"{"fn": "torch.add", "args": [{"tensor": "x"}, {"tensor": "x"}], "kwargs": {"alpha": {"int": 2}}}"#,
    );
    assert_eq!(declined(numbers, &alpha), None);
}

#[test]
fn finer_declines_skip_huge_inputs_stride_dependent_outcomes_and_huge_results() {
    // a stride-0 view of 2^61 x 2 elements.
    let huge_input = fixture(
        "regressions/gate.json",
        "regressions/gate/add-new-output-bytes-overflow",
    );
    let why = declined(r#"{"max_input_elements": 16777216}"#, &huge_input).unwrap();
    assert!(
        why.starts_with("declines inputs of more than 16777216 elements (tensor a: "),
        "{why}"
    );
    assert_eq!(declined(r#"{"stride_dependent": true}"#, &huge_input), None);
    // Tensor.view of a view with strides [1, 4, 4]: torch refuses it for its strides.
    let view = fixture("torch/views.json", "views/s1/22");
    assert_eq!(
        declined(r#"{"stride_dependent": true}"#, &view).as_deref(),
        Some("declines stride-dependent outcomes (Tensor.view of the strided view t0)")
    );
    assert_eq!(declined(r#"{"max_input_elements": 16}"#, &view), None);
    // A view of a row-major input does not depend on strides; an element-wise op never does.
    let plain_view = call(r#"{"fn": "Tensor.view", "args": [{"tensor": "x"}, {"ints": [2, 1]}]}"#);
    assert_eq!(declined(r#"{"stride_dependent": true}"#, &plain_view), None);
    // expand to [2**40]: tagged huge-result when loaded.
    let huge = fixture("torch/expand.json", "expand/s1/12");
    assert!(huge.tags.iter().any(|t| t == "huge-result"));
    assert_eq!(
        declined(r#"{"huge_results": true}"#, &huge).as_deref(),
        Some("declines huge results (tag huge-result)")
    );
    assert_eq!(declined(r#"{"stride_dependent": true}"#, &huge), None);
}

#[test]
fn stride_dependent_declines_far_fewer_cases_than_strided_inputs() {
    let dir = PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("../fixtures/torch");
    let mut strided = 0;
    let mut dependent = 0;
    for file in ["views.json", "binary.json", "inplace.json"] {
        for c in load_file(&dir.join(file)).unwrap() {
            strided += usize::from(declined(r#"{"strided_inputs": true}"#, &c.case).is_some());
            let why = declined(r#"{"stride_dependent": true}"#, &c.case);
            if let Some(why) = why {
                dependent += 1;
                let f = &c.case.call.fn_;
                let write = f.ends_with('_') || c.case.call.kwargs.contains_key("out");
                assert!(
                    f.ends_with(".view") || f.ends_with(".as_strided") || write,
                    "{}: {why}",
                    c.case.id
                );
            }
        }
    }
    assert!(
        dependent > 0 && dependent * 5 < strided,
        "{dependent} of {strided}"
    );
}

#[test]
fn the_request_carries_the_bound_call_beside_the_call() {
    let case = fixture("regressions/pyargs.json", ALPHA_BY_POSITION);
    let line: serde_json::Value = serde_json::from_str(&request_line(&case).unwrap()).unwrap();
    let sent = &line["case"];
    assert_eq!(sent["call"], serde_json::to_value(&case.call).unwrap());
    assert_eq!(
        sent["bound"],
        serde_json::json!({
            "signature": "add(Tensor input, Scalar alpha, Tensor other, *, Tensor out=None)|deprecated",
            "args": {"input": {"tensor": "x"}, "alpha": {"int": 2}, "other": {"tensor": "r"},
                "out": {"none": null}}
        })
    );
    // In the signature's order, as written on the line.
    let text = request_line(&case).unwrap();
    let at = |k: &str| text.find(&format!(r#""{k}":{{"#)).unwrap();
    assert!(
        at("input") < at("alpha") && at("alpha") < at("other"),
        "{text}"
    );
    // A method: self first, varargs as one tuple, defaults filled.
    let expand =
        call(r#"{"fn": "Tensor.expand", "args": [{"tensor": "x"}, {"int": 3}, {"int": 2}]}"#);
    let line: serde_json::Value = serde_json::from_str(&request_line(&expand).unwrap()).unwrap();
    assert_eq!(
        line["case"]["bound"]["args"],
        serde_json::json!({"self": {"tensor": "x"}, "size": {"tuple": [3, 2]}, "implicit": {"bool": false}})
    );
    // getitem has no generated parser: no binding.
    let getitem = call(r#"{"fn": "getitem", "args": [{"tensor": "x"}, {"index": [{"int": 0}]}]}"#);
    let line: serde_json::Value = serde_json::from_str(&request_line(&getitem).unwrap()).unwrap();
    assert!(line["case"]["bound"].is_null());
}

//! A Python snippet that reproduces a case in torch, for failure reports.

use crate::case::{storage_values, Arg, Case, IndexItem, Num};

/// The import a snippet whose storages have a fill recipe starts with: the one Python
/// implementation of the recipes (`python/bcast_suite/fill.py`, pinned to the Rust one by
/// `python/tests`; `tests/it/fill_vectors.rs` runs a snippet), imported rather than pasted into
/// every failure.
const FILL_IMPORT: &str = "from bcast_suite.fill import fill_values  # the fill recipes: pip install ./python (or PYTHONPATH=python)\n";

fn py_num(n: &Num) -> String {
    match n {
        Num::Complex(re, im) => format!(
            "complex({}, {})",
            py_num(&Num::Float(*re)),
            py_num(&Num::Float(*im))
        ),
        Num::Bool(b) => if *b { "True" } else { "False" }.to_string(),
        Num::Int(i) => i.to_string(),
        Num::Float(f) if f.is_nan() => "float('nan')".to_string(),
        Num::Float(f) if f.is_infinite() => if *f > 0.0 {
            "float('inf')"
        } else {
            "float('-inf')"
        }
        .to_string(),
        Num::Float(f) => format!("{f:?}"),
    }
}

fn py_ints(v: &[i64]) -> String {
    let parts: Vec<String> = v.iter().map(i64::to_string).collect();
    parts.join(", ")
}

fn py_opt(v: Option<i64>) -> String {
    v.map_or("None".to_string(), |x| x.to_string())
}

fn py_arg(a: &Arg) -> String {
    match a {
        Arg::Tensor(n) => n.clone(),
        Arg::Tensors(ns) => format!("[{}]", ns.join(", ")),
        Arg::Int(i) => i.to_string(),
        Arg::Float(f) => py_num(&Num::Float(f.to_f64())),
        Arg::Bool(b) => py_num(&Num::Bool(*b)),
        Arg::Complex(z) => py_num(z),
        Arg::Ints(v) | Arg::List(v) => format!("[{}]", py_ints(v)),
        Arg::Tuple(v) if v.len() == 1 => format!("({},)", v[0]),
        Arg::Tuple(v) => format!("({})", py_ints(v)),
        Arg::Size(v) => format!("torch.Size([{}])", py_ints(v)),
        Arg::None(()) => "None".to_string(),
        Arg::Str(s) => format!("{s:?}"),
        Arg::Dtype(d) => format!("torch.{d}"),
        Arg::Index(items) => {
            let parts: Vec<String> = items
                .iter()
                .map(|i| match i {
                    IndexItem::Slice([a, b, c]) => {
                        format!("slice({}, {}, {})", py_opt(*a), py_opt(*b), py_opt(*c))
                    }
                    IndexItem::Int(k) => k.to_string(),
                    IndexItem::None(()) => "None".to_string(),
                    IndexItem::Ellipsis(()) => "...".to_string(),
                })
                .collect();
            match parts.as_slice() {
                [one] => one.clone(),
                _ => format!("({},)", parts.join(", ")),
            }
        }
    }
}

/// The Python expression of the case's call.
pub fn call_expression(case: &Case) -> String {
    let call = &case.call;
    let mut args: Vec<String> = call.args.iter().map(py_arg).collect();
    args.extend(
        call.kwargs
            .iter()
            .map(|(k, v)| format!("{k}={}", py_arg(v))),
    );
    if let Some(name) = call.fn_.strip_prefix("torch.") {
        format!("torch.{name}({})", args.join(", "))
    } else if let Some(name) = call.fn_.strip_prefix("Tensor.") {
        let this = args.first().cloned().unwrap_or_default();
        format!(
            "{this}.{name}({})",
            args.iter().skip(1).cloned().collect::<Vec<_>>().join(", ")
        )
    } else if call.fn_ == "getitem" && args.len() == 2 {
        format!("{}[{}]", args[0], args[1])
    } else {
        format!("{}({})", call.fn_, args.join(", "))
    }
}

/// A standalone Python script that builds the case's tensors and runs its call in torch.
///
/// ```
/// # use bcast_conformance::case::Case;
/// let case: Case = serde_json::from_str(r#"{"id": "t", "storages": {"a": {"dtype": "float32", "values": [1.0, 2.0]}},
///   "tensors": {"x": {"storage": "a", "shape": [2], "strides": [1]}},
///   "call": {"fn": "Tensor.expand", "args": [{"tensor": "x"}, {"ints": [3, 2]}]}}"#).unwrap();
/// let py = bcast_conformance::repro::python_snippet(&case);
/// assert!(py.contains("x = a.as_strided([2], [1], 0)"));
/// assert!(py.contains("x.expand([3, 2])"));
/// ```
pub fn python_snippet(case: &Case) -> String {
    let mut py = String::from("import torch\n");
    let filled = case.storages.values().any(|s| s.fill.is_some());
    if filled {
        py.push_str(FILL_IMPORT);
    }
    for (name, spec) in &case.storages {
        let values = match (&spec.fill, storage_values(spec)) {
            (Some(f), _) => format!(
                "fill_values({:?}, {{\"kind\": {:?}, \"len\": {}, \"seed\": {}}})",
                spec.dtype,
                format!("{:?}", f.kind).to_lowercase(),
                f.len,
                f.seed
            ),
            (None, Ok(v)) => format!("[{}]", v.iter().map(py_num).collect::<Vec<_>>().join(", ")),
            (None, Err(e)) => format!("[]  # invalid storage: {e}"),
        };
        py.push_str(&format!(
            "{name} = torch.tensor({values}, dtype=torch.{})\n",
            spec.dtype
        ));
    }
    for (name, t) in &case.tensors {
        let shape: Vec<i64> = t.shape.iter().map(|&s| s as i64).collect();
        let strides: Vec<i64> = t.strides.iter().map(|&s| s as i64).collect();
        py.push_str(&format!(
            "{name} = {}.as_strided([{}], [{}], {})\n",
            t.storage,
            py_ints(&shape),
            py_ints(&strides),
            t.offset
        ));
    }
    py.push_str(&format!("r = {}\nprint(r)\n", call_expression(case)));
    py
}

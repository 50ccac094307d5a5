//! Python's argument rules for torch's functions and methods, as torch's C++ argument parser
//! applies them before any kernel runs: positional against keyword, keyword names (with the
//! NumPy spellings torch accepts), unknown keywords, types, and the exact `TypeError` for each.
//! A Rust backend checks a case's call here first, so a wrong call fails as it does in Python.
//!
//! The parser's signature strings are data, written from the installed torch by
//! `python -m bcast_suite.signatures` into `case/data/python_signatures.json`.
//!
//! ```
//! use bcast_case::pyargs::check_call;
//! use bcast_case::Case;
//! let case: Case = serde_json::from_str(r#"{"id": "b", "storages": {"s": {"dtype": "float32",
//!     "fill": {"kind": "arange", "len": 3}}}, "tensors": {"x": {"storage": "s", "shape": [3],
//!     "strides": [1]}}, "call": {"fn": "torch.broadcast_to", "args": [{"tensor": "x"}, {"int": 2}]},
//!     "expect": {"ok": {"result": {"int": 0}}}}"#).unwrap();
//! let err = check_call(&case).unwrap_err();
//! assert_eq!((err.kind, err.message.as_str()), ("TypeError",
//!     "broadcast_to(): argument 'size' (position 2) must be tuple of ints, not int"));
//! let mut ok = case.clone();
//! ok.call.args.pop();
//! ok.call.kwargs.insert("size".into(), bcast_case::Arg::Tuple(vec![2, 3]));
//! let accepted = check_call(&ok).unwrap().unwrap();
//! assert_eq!(accepted.canonical.args.len(), 2); // size by position
//! assert!(accepted.canonical.kwargs.is_empty());
//! ```

mod bound;
mod invalid;
mod parse;
mod signature;
mod value;

pub use bound::{bound_call, is_parameter_name, passed_parameters, BoundCall};
pub use invalid::{format_invalid_args, format_invalid_args_checked, MapAt, MAP_AT};
pub use parse::{parse_call, Binding, Source};
pub use signature::{parameter_of_keyword, Param, ParamType, Signature};
pub use value::PyValue;

use crate::{Arg, Call, Case};
use std::collections::BTreeMap;
use std::sync::OnceLock;

/// The error torch raises for a call its parser refuses.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct PyArgError {
    /// The Python exception class (`TypeError`, or `RuntimeError` for one quirk).
    pub kind: &'static str,
    /// `str(e)`.
    pub message: String,
}

impl PyArgError {
    /// A `TypeError`.
    pub fn type_error(message: impl Into<String>) -> PyArgError {
        PyArgError {
            kind: "TypeError",
            message: message.into(),
        }
    }
}

/// The torch-written table: each catalogue `fn` name's parser signatures, or none where
/// Python does not reach torch's generated parser.
#[derive(Debug, serde::Deserialize)]
pub struct SignatureTable {
    /// The torch version that wrote it.
    pub torch: String,
    /// torch's `should_allow_numbers_as_tensors` list.
    pub numbers_as_tensors: Vec<String>,
    /// The signature strings of each `fn` name, in the order the parser tries them.
    pub signatures: BTreeMap<String, Option<Vec<String>>>,
    /// The functions written in Python, with their parameters as `inspect` lists them
    /// (`(*tensors)`).
    #[serde(default)]
    pub python: BTreeMap<String, String>,
}

/// The table, parsed once; a table that does not parse is a build defect (a unit test
/// parses every signature).
pub fn table() -> &'static SignatureTable {
    static TABLE: OnceLock<SignatureTable> = OnceLock::new();
    TABLE.get_or_init(|| {
        serde_json::from_str(include_str!("../../data/python_signatures.json")).unwrap_or_else(
            |e| SignatureTable {
                torch: format!("unreadable table: {e}"),
                numbers_as_tensors: Vec::new(),
                signatures: BTreeMap::new(),
                python: BTreeMap::new(),
            },
        )
    })
}

/// The parsed signatures of a `fn` name; `None` where the table has none for it.
pub fn signatures(fn_name: &str) -> Option<&'static [Signature]> {
    static PARSED: OnceLock<BTreeMap<String, Vec<Signature>>> = OnceLock::new();
    PARSED
        .get_or_init(|| {
            let t = table();
            t.signatures
                .iter()
                .filter_map(|(name, sigs)| {
                    let sigs = sigs
                        .as_ref()?
                        .iter()
                        .map(|s| Signature::parse_with(s, &t.numbers_as_tensors))
                        .collect::<Result<Vec<_>, _>>()
                        .ok()?;
                    Some((name.clone(), sigs))
                })
                .collect()
        })
        .get(fn_name)
        .map(Vec::as_slice)
}

/// A call torch's parser accepts.
#[derive(Debug, Clone, PartialEq)]
pub struct Accepted {
    /// The signature it matched.
    pub signature: &'static Signature,
    /// Where each parameter's value came from.
    pub binding: Binding,
    /// The same call in one spelling: parameters by position up to the first one left out,
    /// the rest (and keyword-only ones, in this signature or the op's first) by their own
    /// keyword, NumPy spellings renamed, `None` that stands for leaving out left out. A
    /// backend that reads arguments positionally reads this.
    pub canonical: Call,
}

/// Checks a case's call against torch's parser for its `fn`: `Ok(None)` where the table has no
/// parser for it (getitem, functions written in Python, hand-written methods), `Ok(Some(_))`
/// when it matches a signature, `Err` with torch's error. Keywords are taken in the order the
/// case file lists them (the writer sorts them).
pub fn check_call(case: &Case) -> Result<Option<Accepted>, PyArgError> {
    let call = &case.call;
    if let Some(params) = table().python.get(&call.fn_) {
        return python_varargs(&call.fn_, params, call.kwargs.keys()).map(|()| None);
    }
    let Some(sigs) = signatures(&call.fn_) else {
        return Ok(None);
    };
    let values: Option<Vec<PyValue>> = call.args.iter().map(|a| PyValue::of(a, case)).collect();
    let kwargs: Option<Vec<(String, PyValue)>> = call
        .kwargs
        .iter()
        .map(|(k, a)| Some((k.clone(), PyValue::of(a, case)?)))
        .collect();
    let (Some(values), Some(kwargs)) = (values, kwargs) else {
        return Ok(None);
    };
    if let ([only], Some(method)) = (sigs, call.fn_.strip_prefix("Tensor."))
        && only.params.is_empty()
    {
        return no_args_method(method, values.len().saturating_sub(1), kwargs.len()).map(|()| None);
    }
    let args = if call.fn_.starts_with("Tensor.") {
        match values.split_first() {
            Some((PyValue::Tensor { .. }, rest)) => rest,
            _ => return Ok(None),
        }
    } else {
        &values[..]
    };
    let binding = parse_call(sigs, args, &kwargs)?;
    let signature = &sigs[binding.signature];
    unpack_int_lists(signature, &binding, args, &kwargs)?;
    let primary = sigs.iter().find(|s| !s.hidden).unwrap_or(signature);
    let canonical = canonical_call(call, &binding, signature, primary);
    Ok(Some(Accepted {
        signature,
        binding,
        canonical,
    }))
}

/// The conversion of each int list the parser accepted (it looked at the first item only):
/// every item must be an int (or a bool, or a one-element integer tensor).
fn unpack_int_lists(
    signature: &Signature,
    binding: &Binding,
    args: &[PyValue],
    kwargs: &[(String, PyValue)],
) -> Result<(), PyArgError> {
    for (param, (_, source)) in signature.params.iter().zip(&binding.params) {
        if !matches!(param.ty, ParamType::IntList | ParamType::SymIntList) {
            continue;
        }
        let items = match source {
            Source::Varargs => Some(args),
            Source::Positional(i) => args[*i].items(),
            Source::Keyword(k) => kwargs
                .iter()
                .find(|(name, _)| name == k)
                .and_then(|(_, v)| v.items()),
            Source::Absent => None,
        };
        let bad = items
            .into_iter()
            .flatten()
            .enumerate()
            .find(|(_, item)| !(item.is_index() || matches!(item, PyValue::Bool(_))));
        if let Some((idx, item)) = bad {
            return Err(PyArgError::type_error(format!(
                "{}(): argument '{}' failed to unpack the object at pos {} with error \"type must be tuple of ints,but got {}\"",
                signature.name,
                param.name,
                idx + 1,
                item.type_name()
            )));
        }
    }
    Ok(())
}

/// A function written in Python that takes only `*args` (`torch.broadcast_tensors`): Python
/// refuses any keyword. Other Python parameter lists are not checked here.
fn python_varargs<'k>(
    fn_name: &str,
    params: &str,
    mut keywords: impl Iterator<Item = &'k String>,
) -> Result<(), PyArgError> {
    let only_varargs =
        params.starts_with("(*") && !params.starts_with("(**") && !params.contains(", ");
    match keywords.next() {
        Some(k) if only_varargs => Err(PyArgError::type_error(format!(
            "{}() got an unexpected keyword argument '{k}'",
            fn_name.trim_start_matches("torch.")
        ))),
        _ => Ok(()),
    }
}

/// A method torch binds without arguments (`METH_NOARGS`): Python itself refuses arguments,
/// keywords first.
fn no_args_method(name: &str, nargs: usize, nkwargs: usize) -> Result<(), PyArgError> {
    if nkwargs > 0 {
        return Err(PyArgError::type_error(format!(
            "Tensor.{name}() takes no keyword arguments"
        )));
    }
    if nargs > 0 {
        return Err(PyArgError::type_error(format!(
            "Tensor.{name}() takes no arguments ({nargs} given)"
        )));
    }
    Ok(())
}

/// The call spelled one way: by position up to the first parameter left out, by keyword after
/// it, and by keyword wherever the op's first signature makes a parameter keyword-only (so
/// `subtract(x, 2, 3)`, whose number overload takes `alpha` by position, reads as
/// `subtract(x, 2, alpha=3)`).
fn canonical_call(
    call: &Call,
    binding: &Binding,
    signature: &Signature,
    primary: &Signature,
) -> Call {
    let first = usize::from(call.fn_.starts_with("Tensor."));
    let mut args: Vec<Arg> = call.args[..first].to_vec();
    let mut kwargs = BTreeMap::new();
    let mut positional = true;
    for ((name, source), param) in binding.params.iter().zip(&signature.params) {
        let value = match source {
            Source::Absent => {
                positional &= param.keyword_only;
                continue;
            }
            Source::Varargs => {
                args.extend(call.args[first..].iter().cloned());
                continue;
            }
            Source::Positional(i) => call.args[first + i].clone(),
            Source::Keyword(k) => call.kwargs[k].clone(),
        };
        let keyword_only = param.keyword_only
            || primary
                .params
                .iter()
                .any(|p| p.name == param.name && p.keyword_only);
        if positional && !keyword_only {
            args.push(value);
        } else {
            positional &= keyword_only;
            kwargs.insert(name.clone(), value);
        }
    }
    Call {
        fn_: call.fn_.clone(),
        args,
        kwargs,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn every_signature_of_the_table_parses() {
        let t = table();
        assert!(t.torch.starts_with('2'), "{}", t.torch);
        for (name, sigs) in &t.signatures {
            for s in sigs.iter().flatten() {
                Signature::parse_with(s, &t.numbers_as_tensors)
                    .unwrap_or_else(|e| panic!("{name}: {e}"));
            }
        }
    }

    #[test]
    fn every_catalogue_fn_with_a_parser_form_is_in_the_table() {
        for name in crate::ops::all_fn_names() {
            if name.starts_with("torch.") || name.starts_with("Tensor.") {
                assert!(
                    table().signatures.contains_key(&name),
                    "{name} is not in case/data/python_signatures.json; run python -m bcast_suite.signatures"
                );
            }
        }
    }
}

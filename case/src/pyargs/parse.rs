//! Matching a call against a parser's signatures, and the `TypeError`s torch raises when none
//! matches: `FunctionSignature::parse`, `PythonArgParser::raw_parse` and `print_error` of
//! `torch/csrc/utils/python_arg_parser.cpp`.
//!
//! ```
//! use bcast_case::pyargs::{parse_call, PyValue, Signature};
//! use bcast_case::DType;
//! let sigs = [Signature::parse("broadcast_to(Tensor input, SymIntArrayRef size)").unwrap()];
//! let x = PyValue::Tensor { dtype: DType::Float32, dim: 1, numel: 3, requires_grad: false };
//! let err = parse_call(&sigs, &[x.clone(), PyValue::Int(2)], &[]).unwrap_err();
//! assert_eq!(err.message, "broadcast_to(): argument 'size' (position 2) must be tuple of ints, not int");
//! let size = PyValue::Tuple(vec![PyValue::Int(3)]);
//! assert!(parse_call(&sigs, &[x], &[("size".into(), size)]).is_ok());
//! ```

use super::invalid::{format_invalid_args_checked, MapAt, MAP_AT};
use super::signature::{Param, ParamType, Signature};
use super::value::PyValue;
use super::PyArgError;

/// Where a parameter's value came from.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Source {
    /// Left out, or `None` where `None` means left out.
    Absent,
    /// Positional argument `i` (of those after `self`).
    Positional(usize),
    /// The keyword argument of this name (perhaps a NumPy spelling such as `axis`).
    Keyword(String),
    /// Every positional argument, as one int list (`x.expand(2, 3)`).
    Varargs,
}

/// A call matched to one signature.
#[derive(Debug, Clone, PartialEq)]
pub struct Binding {
    /// The signature's index in the parser's order.
    pub signature: usize,
    /// Each parameter's name and where its value came from.
    pub params: Vec<(String, Source)>,
}

/// Matches a call (`args` after `self` for a method; `kwargs` in the order Python passes
/// them) against a parser's signatures, in the order torch tries them. `Err` is the error torch
/// raises (a `TypeError`, but for one quirk of its message writer).
pub fn parse_call(
    signatures: &[Signature],
    args: &[PyValue],
    kwargs: &[(String, PyValue)],
) -> Result<Binding, PyArgError> {
    if let [only] = signatures {
        return match_signature(only, args, kwargs, true)
            .map_err(PyArgError::type_error)?
            .map(|params| Binding {
                signature: 0,
                params,
            })
            .ok_or_else(|| PyArgError::type_error(format!("{}(): no match", only.name)));
    }
    for (i, s) in signatures.iter().enumerate() {
        if let Some(params) =
            match_signature(s, args, kwargs, false).map_err(PyArgError::type_error)?
        {
            return Ok(Binding {
                signature: i,
                params,
            });
        }
    }
    let num_args = args.len() + kwargs.len();
    let plausible: Vec<&Signature> = signatures
        .iter()
        .filter(|s| !s.hidden && s.min_args <= num_args && num_args <= s.max_args)
        .collect();
    if let [only] = plausible[..] {
        match_signature(only, args, kwargs, true).map_err(PyArgError::type_error)?;
    }
    let options: Vec<String> = signatures
        .iter()
        .filter(|s| !s.hidden)
        .map(|s| s.to_string())
        .collect();
    let name = signatures.first().map_or("", |s| s.name.as_str());
    Err(
        match format_invalid_args_checked(args, kwargs, &format!("{name}()"), &options) {
            Ok(message) => PyArgError::type_error(message),
            Err(MapAt) => PyArgError {
                kind: "RuntimeError",
                message: MAP_AT.to_string(),
            },
        },
    )
}

/// `FunctionSignature::parse`: `Ok(None)` when it does not match and `raise` is off.
fn match_signature(
    sig: &Signature,
    args: &[PyValue],
    kwargs: &[(String, PyValue)],
    raise: bool,
) -> Result<Option<Vec<(String, Source)>>, String> {
    let nargs = args.len();
    let mut remaining_kwargs = kwargs.len();
    let mut arg_pos = 0;
    // A single positional int list may also be given as varargs (`x.expand(2, 3)`) when the
    // positional arguments themselves read as an int list.
    let allow_varargs = sig.max_pos_args == 1
        && matches!(sig.params[0].ty, ParamType::IntList | ParamType::SymIntList)
        && is_int_list(
            &PyValue::Tuple(args.to_vec()),
            sig.params[0].size,
            &mut None,
        );
    let fail = |message: String| if raise { Err(message) } else { Ok(None) };
    if nargs > sig.max_pos_args && !allow_varargs {
        return fail(extra_args(sig, nargs));
    }
    let mut bound = Vec::with_capacity(sig.params.len());
    for (i, param) in sig.params.iter().enumerate() {
        let mut is_kwd = false;
        let (obj, source) = if arg_pos < nargs {
            if param.keyword_only {
                return fail(extra_args(sig, nargs));
            }
            (Some(&args[arg_pos]), Source::Positional(arg_pos))
        } else {
            is_kwd = true;
            match find_kwarg(param, kwargs) {
                Some((key, value)) => (Some(value), Source::Keyword(key.to_string())),
                None => (None, Source::Absent),
            }
        };
        let varargs_eligible = allow_varargs && arg_pos == 0 && !is_kwd;
        let mut failed_idx = None;
        match obj {
            None if param.optional => bound.push((param.name.clone(), Source::Absent)),
            Some(PyValue::None) if param.allow_none => {
                bound.push((param.name.clone(), Source::Absent))
            }
            None => return fail(missing_args(sig, i)),
            Some(obj) => {
                if check(param, obj, i, &mut failed_idx)? {
                    bound.push((param.name.clone(), source));
                } else if varargs_eligible
                    && is_int_list(&PyValue::Tuple(args.to_vec()), param.size, &mut failed_idx)
                {
                    bound.push((param.name.clone(), Source::Varargs));
                    arg_pos = nargs;
                    continue;
                } else if !raise {
                    return Ok(None);
                } else if is_kwd {
                    return Err(format!(
                        "{}(): argument '{}' must be {}, not {}",
                        sig.name,
                        param.name,
                        param.ty.type_name(),
                        obj.type_name()
                    ));
                } else {
                    if let Some(idx) = failed_idx {
                        let seq = match obj.items() {
                            Some(items) => items,
                            None => args,
                        };
                        let item = seq.get(idx).map_or("?", PyValue::type_name);
                        return Err(format!(
                            "{}(): argument '{}' (position {}) must be {}, but found element of type {} at pos {}",
                            sig.name,
                            param.name,
                            arg_pos + 1,
                            param.ty.type_name(),
                            item,
                            idx
                        ));
                    }
                    return Err(format!(
                        "{}(): argument '{}' (position {}) must be {}, not {}",
                        sig.name,
                        param.name,
                        arg_pos + 1,
                        param.ty.type_name(),
                        obj.type_name()
                    ));
                }
            }
        }
        if !is_kwd {
            arg_pos += 1;
        } else if obj.is_some() {
            remaining_kwargs -= 1;
        }
    }
    if remaining_kwargs > 0 {
        return fail(extra_kwargs(sig, kwargs, nargs));
    }
    Ok(Some(bound))
}

fn find_kwarg<'k>(
    param: &Param,
    kwargs: &'k [(String, PyValue)],
) -> Option<(&'k str, &'k PyValue)> {
    std::iter::once(param.name.as_str())
        .chain(param.numpy_names().iter().copied())
        .find_map(|name| {
            kwargs
                .iter()
                .find(|(k, _)| k == name)
                .map(|(k, v)| (k.as_str(), v))
        })
}

/// `FunctionParameter::check`; `Err` for the `TypeError` a tensor list raises while checked.
fn check(
    param: &Param,
    obj: &PyValue,
    argnum: usize,
    failed_idx: &mut Option<usize>,
) -> Result<bool, String> {
    use ParamType::*;
    let zero_dim = obj.is_number_tensor();
    Ok(match param.ty {
        Tensor => {
            matches!(obj, PyValue::Tensor { .. }) || (param.numbers_as_tensors && obj.is_scalar())
        }
        Scalar => obj.is_scalar() || zero_dim,
        Complex => matches!(obj, PyValue::Complex) || obj.is_double() || zero_dim,
        Double => obj.is_double() || zero_dim,
        Int64 => {
            obj.is_long()
                || matches!(obj, PyValue::Tensor { dtype, dim: 0, requires_grad: false, .. }
                    if !dtype.is_floating() && !dtype.is_complex() && *dtype != crate::DType::Bool)
        }
        SymInt => obj.is_index(),
        TensorList => match obj.items() {
            None => false,
            Some(items) => {
                if let Some((idx, item)) = items
                    .iter()
                    .enumerate()
                    .find(|(_, v)| !matches!(v, PyValue::Tensor { .. }))
                {
                    return Err(format!(
                        "expected Tensor as element {idx} in argument {argnum}, but got {}",
                        item.type_name()
                    ));
                }
                true
            }
        },
        IntList | SymIntList => is_int_list(obj, param.size, failed_idx),
        FloatList => match obj.items() {
            None => false,
            Some(items) => items.first().is_none_or(PyValue::is_double),
        },
        Bool => matches!(obj, PyValue::Bool(_)),
        ScalarType => matches!(obj, PyValue::Dtype),
        String => matches!(obj, PyValue::Str),
        ScalarList => obj
            .items()
            .is_some_and(|items| items.iter().all(PyValue::is_scalar)),
        PyObject => true,
        Opaque(_) => false,
    })
}

/// `is_int_or_symint_list`: only the first item of a sequence is looked at; a single int
/// passes where the list has a size (`IntArrayRef[1] dim`).
fn is_int_list(obj: &PyValue, size: usize, failed_idx: &mut Option<usize>) -> bool {
    match obj.items() {
        Some([]) => true,
        Some([first, ..]) => {
            let ok = first.is_index();
            if !ok {
                *failed_idx = Some(0);
            }
            ok
        }
        None => size > 0 && obj.is_index(),
    }
}

fn extra_args(sig: &Signature, nargs: usize) -> String {
    if sig.min_args != sig.max_pos_args {
        return format!(
            "{}() takes from {} to {} positional arguments but {} were given",
            sig.name, sig.min_args, sig.max_pos_args, nargs
        );
    }
    format!(
        "{}() takes {} positional argument{} but {} {} given",
        sig.name,
        sig.max_pos_args,
        if sig.max_pos_args == 1 { "" } else { "s" },
        nargs,
        if nargs == 1 { "was" } else { "were" }
    )
}

/// torch's wording, including its plural for exactly one missing argument.
fn missing_args(sig: &Signature, idx: usize) -> String {
    let missing: Vec<String> = sig.params[idx..]
        .iter()
        .filter(|p| !p.optional)
        .map(|p| format!("\"{}\"", p.name))
        .collect();
    format!(
        "{}() missing {} required positional argument{}: {}",
        sig.name,
        missing.len(),
        if missing.len() == 1 { "s" } else { "" },
        missing.join(", ")
    )
}

fn extra_kwargs(sig: &Signature, kwargs: &[(String, PyValue)], nargs: usize) -> String {
    for (key, _) in kwargs {
        match sig.params.iter().position(|p| p.name == *key) {
            None => return format!("{}() got an unexpected keyword argument '{key}'", sig.name),
            Some(i) if i < nargs => {
                return format!("{}() got multiple values for argument '{key}'", sig.name)
            }
            Some(_) => {}
        }
    }
    "invalid keyword arguments".to_string()
}

//! The bound call: a call as torch's parser binds it, every parameter of the signature it
//! matched by name, with the value the call gave it or its default. The runner sends it beside
//! the call as written (PROTOCOL.md, "The bound call"), so that an adapter reads `alpha` as
//! `alpha` whether the case passed it by keyword, by position or under a NumPy spelling.
//!
//! ```
//! use bcast_case::pyargs::bound_call;
//! use bcast_case::{Arg, Case};
//! let case: Case = serde_json::from_str(r#"{"id": "b", "storages": {"s": {"dtype": "float32",
//!     "values": [1.0, 2.0]}}, "tensors": {"x": {"storage": "s", "shape": [2], "strides": [1]}},
//!     "call": {"fn": "torch.sum", "args": [{"tensor": "x"}], "kwargs": {"axis": {"int": 0}}}}"#)
//!     .unwrap();
//! let bound = bound_call(&case).unwrap();
//! assert_eq!(bound.arg("dim"), Some(&Arg::Int(0))); // written `axis=0`
//! assert_eq!(bound.arg("keepdim"), Some(&Arg::Bool(false))); // the default
//! assert_eq!(bound.arg("dtype"), Some(&Arg::None(())));
//! assert_eq!(bound.arg("axis"), None);
//! ```

use super::{check_call, parameter_of_keyword, Source};
use crate::{Arg, Case, Num};
use serde::ser::{SerializeMap, SerializeStruct};
use serde::{Serialize, Serializer};
use std::collections::BTreeSet;
use std::sync::OnceLock;

/// A call bound to the parser signature it matched.
#[derive(Debug, Clone, PartialEq)]
pub struct BoundCall {
    /// The signature torch's parser matched, as torch writes it (`add(Tensor input, Tensor
    /// other, *, Scalar alpha=1, Tensor out=None)`); a method's has no `self`.
    pub signature: String,
    /// Every parameter by name in the signature's order, a method's `self` first: the value the
    /// call gave it, else its default (`None` where `None` stands for leaving it out).
    pub args: Vec<(String, Arg)>,
}

impl BoundCall {
    /// The value bound to a parameter.
    pub fn arg(&self, name: &str) -> Option<&Arg> {
        self.args.iter().find(|(n, _)| n == name).map(|(_, a)| a)
    }
}

/// JSON: `{"signature": "...", "args": {"input": {"tensor": "x"}, "alpha": {"int": 1}}}`, the
/// args in the signature's order.
impl Serialize for BoundCall {
    fn serialize<S: Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        struct Ordered<'a>(&'a [(String, Arg)]);
        impl Serialize for Ordered<'_> {
            fn serialize<S: Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
                let mut map = s.serialize_map(Some(self.0.len()))?;
                for (name, arg) in self.0 {
                    map.serialize_entry(name, arg)?;
                }
                map.end()
            }
        }
        let mut st = s.serialize_struct("BoundCall", 2)?;
        st.serialize_field("signature", &self.signature)?;
        st.serialize_field("args", &Ordered(&self.args))?;
        st.end()
    }
}

/// The case's call bound by torch's parser (see [`check_call`]); `None` where there is no
/// binding to give: the op has no generated parser (`getitem`, functions written in Python
/// such as `torch.broadcast_tensors`, methods such as `Tensor.size`), or the parser refuses the
/// call (the case expects its `TypeError`).
pub fn bound_call(case: &Case) -> Option<BoundCall> {
    let accepted = check_call(case).ok()??;
    let call = &case.call;
    let method = call.fn_.starts_with("Tensor.");
    let first = usize::from(method);
    let mut args = Vec::with_capacity(accepted.binding.params.len() + first);
    if method {
        args.push(("self".to_string(), call.args.first()?.clone()));
    }
    for ((name, source), param) in accepted
        .binding
        .params
        .iter()
        .zip(&accepted.signature.params)
    {
        let value = match source {
            Source::Positional(i) => call.args.get(first + i)?.clone(),
            Source::Keyword(k) => call.kwargs.get(k)?.clone(),
            Source::Varargs => {
                let ints = call.args[first..].iter().map(|a| match a {
                    Arg::Int(i) => Some(*i),
                    _ => None,
                });
                Arg::Tuple(ints.collect::<Option<_>>()?)
            }
            Source::Absent => default_arg(param.default.as_deref()?, param.ty)?,
        };
        args.push((name.clone(), value));
    }
    Some(BoundCall {
        signature: accepted.signature.text.clone(),
        args,
    })
}

/// The parameters a call gives a value, by parameter name, however it gives them: by keyword
/// (a NumPy spelling as the parameter it stands for: `axis` as `dim`), by position, as
/// varargs, `None` included. Where the parser has no binding (see [`bound_call`]), the keywords
/// as written.
///
/// ```
/// use bcast_case::pyargs::passed_parameters;
/// use bcast_case::Case;
/// // torch.add(x, 2, x): the deprecated overload add(Tensor input, Scalar alpha, Tensor other).
/// let case: Case = serde_json::from_str(r#"{"id": "p", "storages": {"s": {"dtype": "float32",
///     "values": [1.0]}}, "tensors": {"x": {"storage": "s", "shape": [1], "strides": [1]}},
///     "call": {"fn": "torch.add", "args": [{"tensor": "x"}, {"int": 2}, {"tensor": "x"}]}}"#)
///     .unwrap();
/// let passed = passed_parameters(&case);
/// assert!(passed.contains("alpha") && passed.contains("other") && !passed.contains("out"));
/// ```
pub fn passed_parameters(case: &Case) -> BTreeSet<String> {
    let call = &case.call;
    let mut names: BTreeSet<String> = call
        .kwargs
        .keys()
        .map(|k| parameter_of_keyword(k).to_string())
        .collect();
    if let Ok(Some(accepted)) = check_call(case) {
        let params = &accepted.binding.params;
        let varargs = params.iter().any(|(_, s)| matches!(s, Source::Varargs));
        let first = usize::from(call.fn_.starts_with("Tensor."));
        let positional = if varargs {
            1
        } else {
            call.args.len().saturating_sub(first)
        };
        for (i, ((name, source), param)) in
            params.iter().zip(&accepted.signature.params).enumerate()
        {
            // A positional None reads as left out (Absent), yet was passed.
            let by_position = i < positional && !param.keyword_only;
            if by_position || !matches!(source, Source::Absent) {
                names.insert(name.clone());
            }
        }
    }
    names
}

/// Whether a keyword names a parameter of some op torch's parser binds (a NumPy spelling
/// counts as its parameter), or one the op catalogue lists.
///
/// ```
/// use bcast_case::pyargs::is_parameter_name;
/// assert!(is_parameter_name("alpha") && is_parameter_name("axis"));
/// assert!(!is_parameter_name("alhpa"));
/// ```
pub fn is_parameter_name(keyword: &str) -> bool {
    static NAMES: OnceLock<BTreeSet<String>> = OnceLock::new();
    let names = NAMES.get_or_init(|| {
        let table = super::table();
        let parsed = table
            .signatures
            .keys()
            .filter_map(|name| super::signatures(name))
            .flatten()
            .flat_map(|s| s.params.iter().map(|p| p.name.clone()));
        let catalogue = crate::ops::OPS
            .iter()
            .flat_map(|op| op.kwargs.iter().map(|k| k.to_string()));
        parsed.chain(catalogue).collect()
    });
    names.contains(parameter_of_keyword(keyword))
}

/// A signature's default (`None`, `False`, `1`, `1e-05`) as the argument it stands for; `None`
/// for a default this reader does not know (a unit test reads every default of the table).
fn default_arg(text: &str, ty: super::ParamType) -> Option<Arg> {
    use super::ParamType;
    Some(match text {
        "None" => Arg::None(()),
        "True" => Arg::Bool(true),
        "False" => Arg::Bool(false),
        _ => match text.parse::<i64>() {
            Ok(i) if ty != ParamType::Double => Arg::Int(i),
            _ => Arg::Float(Num::Float(text.parse::<f64>().ok()?)),
        },
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn every_default_of_the_table_reads_as_an_argument() {
        for (name, sigs) in &super::super::table().signatures {
            for s in sigs.iter().flatten() {
                let sig = super::super::Signature::parse(s).unwrap();
                for p in &sig.params {
                    if let Some(d) = &p.default {
                        assert!(default_arg(d, p.ty).is_some(), "{name}: {} = {d}", p.name);
                    }
                }
            }
        }
    }
}

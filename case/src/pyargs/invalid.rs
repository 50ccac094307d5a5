//! The "received an invalid combination of arguments" message: `format_invalid_args` of
//! `torch/csrc/utils/invalid_arguments.cpp`, quirks included. It re-reads the listed
//! signatures by splitting on spaces, so a parameter with a default (`Number alpha = 1`) reads
//! as a parameter named `1` of a type no value has, and `*` reads as a parameter; and it keeps
//! the keyword arguments in a `std::unordered_map`, so they print in libstdc++'s bucket order.
//!
//! ```
//! use bcast_case::pyargs::{format_invalid_args, PyValue};
//! // `x.sum(dim="a")`, as torch 2.13.0 words it.
//! let got = format_invalid_args(&[], &[("dim".into(), PyValue::Str)], "sum()", &[
//!     "(*, torch.dtype dtype = None)".into(),
//!     "(tuple of ints dim, bool keepdim = False, *, torch.dtype dtype = None)".into()]);
//! assert_eq!(got, "sum() received an invalid combination of arguments - got (dim=str, ), \
//!     but expected one of:\n * (*, torch.dtype dtype = None)\n * (tuple of ints dim, bool \
//!     keepdim = False, *, torch.dtype dtype = None)\n");
//! ```

use super::value::PyValue;

/// A listed signature as `_parseOption` reads it back: each argument's name and type text.
struct Opt {
    arguments: Vec<(String, String)>,
}

fn parse_option(option: &str) -> Opt {
    let inner = &option[1..option.len() - 1];
    let arguments = inner
        .split(", ")
        .map(|arg| match arg.rfind(' ') {
            Some(end) => (arg[end + 1..].to_string(), arg[..end].to_string()),
            None => (arg.to_string(), arg.to_string()),
        })
        .collect();
    Opt { arguments }
}

/// `_buildType(...)->is_matching`: the type text against Python's name for the value's type.
fn type_matches(type_text: &str, value: &PyValue) -> bool {
    let name = value.type_name();
    match type_text {
        "float" => matches!(name, "float" | "int" | "long"),
        "int" => matches!(name, "int" | "long"),
        other => other == name,
    }
}

fn argcount_match(opt: &Opt, args: &[PyValue], kwargs: &[(&str, &PyValue)]) -> bool {
    args.len() + kwargs.len() == opt.arguments.len()
}

fn describe(value: &PyValue) -> String {
    match value.items() {
        Some(items) => {
            let names: Vec<&str> = items.iter().map(PyValue::type_name).collect();
            if value.is_tuple() {
                let comma = if items.len() == 1 { "," } else { "" };
                format!("{} of ({}{comma})", value.type_name(), names.join(", "))
            } else {
                format!("{} of [{}]", value.type_name(), names.join(", "))
            }
        }
        None => value.type_name().to_string(),
    }
}

/// `_formattedArgDesc`; `Err` where torch's `kwargs.at(...)` throws (a keyword that is not the
/// parameter read back at its position).
fn formatted_arg_desc(
    opt: &Opt,
    args: &[PyValue],
    kwargs: &[(&str, &PyValue)],
) -> Result<String, MapAt> {
    let mut out = String::from("(");
    for i in 0..args.len() + kwargs.len() {
        let is_kwarg = i >= args.len();
        let arg = if is_kwarg {
            let name = &opt.arguments[i].0;
            kwargs
                .iter()
                .find(|(k, _)| k == name)
                .map(|(_, v)| *v)
                .ok_or(MapAt)?
        } else {
            &args[i]
        };
        let matching = opt
            .arguments
            .get(i)
            .is_some_and(|(_, ty)| type_matches(ty, arg));
        let mark = if matching { "" } else { "!" };
        out.push_str(mark);
        if is_kwarg {
            out.push_str(&opt.arguments[i].0);
            out.push('=');
        }
        out.push_str(&describe(arg));
        out.push_str(mark);
        out.push_str(", ");
    }
    if !args.is_empty() {
        out.truncate(out.len() - 2);
    }
    out.push(')');
    Ok(out)
}

/// libstdc++'s `std::out_of_range` from `unordered_map::at`, which torch reports as a
/// `RuntimeError`.
#[derive(Debug)]
pub struct MapAt;

fn arg_desc(args: &[PyValue], kwargs: &[(&str, &PyValue)]) -> String {
    let mut out = String::from("(");
    for a in args {
        out.push_str(a.type_name());
        out.push_str(", ");
    }
    for (k, v) in kwargs {
        out.push_str(&format!("{k}={}, ", v.type_name()));
    }
    if !args.is_empty() {
        out.truncate(out.len() - 2);
    }
    out.push(')');
    out
}

fn try_match_kwargs<'k>(opt: &Opt, kwargs: &[(&'k str, &PyValue)]) -> Vec<&'k str> {
    let start = opt.arguments.len().saturating_sub(kwargs.len());
    kwargs
        .iter()
        .filter(|(k, _)| !opt.arguments[start..].iter().any(|(n, _)| n == k))
        .map(|(k, _)| *k)
        .collect()
}

/// torch's message when no signature matches; `kwargs` in the order Python passed them.
/// Where torch itself fails while writing it, the message is that failure's (see
/// [`format_invalid_args_checked`]).
pub fn format_invalid_args(
    args: &[PyValue],
    kwargs: &[(String, PyValue)],
    function_name: &str,
    options: &[String],
) -> String {
    format_invalid_args_checked(args, kwargs, function_name, options)
        .unwrap_or_else(|MapAt| MAP_AT.to_string())
}

/// What torch's `std::out_of_range` says when [`format_invalid_args`] trips over it.
pub const MAP_AT: &str = "_Map_base::at";

/// [`format_invalid_args`], `Err` where torch throws instead of returning the message.
pub fn format_invalid_args_checked(
    args: &[PyValue],
    kwargs: &[(String, PyValue)],
    function_name: &str,
    options: &[String],
) -> Result<String, MapAt> {
    let kwargs = unordered_map_order(kwargs);
    let mut msg = format!("{function_name} received an invalid combination of arguments - ");
    if let [option] = options {
        let opt = parse_option(option);
        let unmatched = try_match_kwargs(&opt, &kwargs);
        if !unmatched.is_empty() {
            msg.push_str("got unrecognized keyword arguments: ");
            msg.push_str(&unmatched.join(", "));
        } else {
            msg.push_str("got ");
            if argcount_match(&opt, args, &kwargs) {
                msg.push_str(&formatted_arg_desc(&opt, args, &kwargs)?);
            } else {
                msg.push_str(&arg_desc(args, &kwargs));
            }
            msg.push_str(", but expected ");
            msg.push_str(option);
        }
        return Ok(msg);
    }
    msg.push_str("got ");
    msg.push_str(&arg_desc(args, &kwargs));
    msg.push_str(", but expected one of:\n");
    for option in options {
        let opt = parse_option(option);
        msg.push_str(" * ");
        msg.push_str(option);
        msg.push('\n');
        if argcount_match(&opt, args, &kwargs) {
            let unmatched = try_match_kwargs(&opt, &kwargs);
            if !unmatched.is_empty() {
                msg.push_str("      didn't match because some of the keywords were incorrect: ");
                msg.push_str(&unmatched.join(", "));
            } else {
                msg.push_str(
                    "      didn't match because some of the arguments have invalid types: ",
                );
                msg.push_str(&formatted_arg_desc(&opt, args, &kwargs)?);
            }
            msg.push('\n');
        }
    }
    Ok(msg)
}

/// The order a `std::unordered_map<std::string, _>` (libstdc++, default-constructed, filled by
/// `emplace` in Python's keyword order) iterates its keys: 13 buckets from the first insert,
/// and each key goes to the front of the list, or to the front of its bucket's run when the
/// bucket is taken.
fn unordered_map_order(kwargs: &[(String, PyValue)]) -> Vec<(&str, &PyValue)> {
    const BUCKETS: u64 = 13;
    let mut list: Vec<(usize, u64)> = Vec::new();
    for (i, (key, _)) in kwargs.iter().enumerate() {
        let bucket = hash_bytes(key.as_bytes()) % BUCKETS;
        match list.iter().position(|&(_, b)| b == bucket) {
            Some(at) => list.insert(at, (i, bucket)),
            None => list.insert(0, (i, bucket)),
        }
    }
    list.into_iter()
        .map(|(i, _)| (kwargs[i].0.as_str(), &kwargs[i].1))
        .collect()
}

/// libstdc++'s `std::_Hash_bytes` (64-bit), with `std::hash<std::string>`'s seed.
fn hash_bytes(bytes: &[u8]) -> u64 {
    const MUL: u64 = (0xc6a4_a793u64 << 32) + 0x5bd1_e995;
    const SEED: u64 = 0xc70f_6907;
    let shift_mix = |v: u64| v ^ (v >> 47);
    let len = bytes.len();
    let aligned = len & !7;
    let mut hash = SEED ^ (len as u64).wrapping_mul(MUL);
    for chunk in bytes[..aligned].chunks_exact(8) {
        let mut word = [0u8; 8];
        word.copy_from_slice(chunk);
        let data = shift_mix(u64::from_le_bytes(word).wrapping_mul(MUL)).wrapping_mul(MUL);
        hash ^= data;
        hash = hash.wrapping_mul(MUL);
    }
    if len & 7 != 0 {
        let data = bytes[aligned..]
            .iter()
            .rev()
            .fold(0u64, |acc, &b| (acc << 8) + b as u64);
        hash ^= data;
        hash = hash.wrapping_mul(MUL);
    }
    hash = shift_mix(hash).wrapping_mul(MUL);
    shift_mix(hash)
}

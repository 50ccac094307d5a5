//! The `pyargs` family: calls spelled every way Python allows, and many ways it does not, for
//! the catalogue ops that go through torch's argument parser. A case starts from one of the
//! op's parser signatures, fills its parameters by position or by keyword (NumPy spellings
//! included), then may break the call: a value of the wrong type, an extra positional argument,
//! a missing one, an unknown keyword, a keyword that repeats a positional argument, `None`.
//!
//! ```
//! use bcast_fuzzing::generators::{find_family, generate};
//! let case = generate(find_family("pyargs").unwrap(), 1, 3);
//! assert!(bcast_case::pyargs::signatures(&case.call.fn_).is_some());
//! ```

use super::{CaseBuilder, GenResult};
use arbitrary::Unstructured;
use bcast_case::pyargs::{self, Param, ParamType};
use bcast_conformance::case::{Arg, Case, Num};
use bcast_engine::ops::{BinaryOp, CompareOp, UnaryOp};
use bcast_engine::DType;

/// The ops of the other families, whose calls the engine runs: this family spells their calls
/// in new ways rather than adding ops.
fn engine_runs(fn_name: &str) -> bool {
    let base = fn_name
        .strip_prefix("torch.")
        .or_else(|| fn_name.strip_prefix("Tensor."))
        .unwrap_or(fn_name);
    let base = base.strip_suffix('_').unwrap_or(base);
    UnaryOp::from_name(base).is_some()
        || BinaryOp::from_name(base).is_some()
        || CompareOp::from_name(base).is_some()
        || OTHER_OPS.contains(&base)
}

/// The other families' ops that are not unary, binary or comparisons.
const OTHER_OPS: &[&str] = &[
    "logical_and",
    "logical_or",
    "logical_xor",
    "logical_not",
    "where",
    "sum",
    "mean",
    "amax",
    "amin",
    "var",
    "std",
    "matmul",
    "mm",
    "bmm",
    "mv",
    "dot",
    "broadcast_to",
    "expand",
    "expand_as",
    "unsqueeze",
    "squeeze",
    "permute",
    "transpose",
    "t",
    "narrow",
    "select",
    "as_strided",
    "view",
    "reshape",
    "clone",
    "repeat",
];

/// Signatures whose calls are outside what the suite's other families express, so the engine
/// does not run them: reinterpreting a tensor's bytes as another dtype, a tensor `start`, the
/// one-argument `where` (`nonzero`), and products into another dtype (not on the CPU).
fn expressible(signature: &str) -> bool {
    !matches!(
        signature,
        "view(ScalarType dtype)"
            | "narrow(Tensor input, int64_t dim, Tensor start, SymInt length)"
            | "narrow(int64_t dim, Tensor start, SymInt length)"
            | "where(Tensor condition)"
    ) && !signature.contains("out_dtype")
}

/// The tensors every case has: a matrix, a row that broadcasts against it, a 0-d tensor.
struct Operands {
    matrix: String,
    row: String,
    scalar: String,
    ints: String,
}

fn operands(u: &mut Unstructured, b: &mut CaseBuilder) -> GenResult<Operands> {
    let float = *u.choose(&[DType::Float32, DType::Float64])?;
    Ok(Operands {
        matrix: b.view(u, float, &[2, 3], false)?,
        row: b.view(u, float, &[3], false)?,
        scalar: b.view(u, float, &[], false)?,
        ints: b.view(u, DType::Int64, &[3], false)?,
    })
}

/// A value of the parameter's type (an ordinary one).
fn value_for(u: &mut Unstructured, p: &Param, t: &Operands) -> GenResult<Option<Arg>> {
    use ParamType::*;
    Ok(Some(match p.ty {
        Tensor => match u.int_in_range(0..=5)? {
            0 => Arg::Tensor(t.row.clone()),
            1 => Arg::Tensor(t.scalar.clone()),
            2 if p.numbers_as_tensors => Arg::Int(2),
            _ => Arg::Tensor(t.matrix.clone()),
        },
        Scalar | Double | Complex => match u.int_in_range(0..=3)? {
            0 => Arg::Int(2),
            1 => Arg::Tensor(t.scalar.clone()),
            _ => Arg::Float(Num::Float(0.5)),
        },
        Int64 | SymInt => Arg::Int(*u.choose(&[0, 1, -1])?),
        IntList | SymIntList => match u.int_in_range(0..=3)? {
            0 => Arg::Tuple(vec![2, 3]),
            1 => Arg::List(vec![-1]),
            2 => Arg::Tuple(vec![1]),
            _ => Arg::Int(1),
        },
        TensorList => Arg::Tensors(vec![t.matrix.clone(), t.row.clone()]),
        Bool => Arg::Bool(u.arbitrary()?),
        ScalarType => Arg::Dtype(u.choose(&["float64", "int64", "float32"])?.to_string()),
        String => Arg::Str(u.choose(&["floor", "trunc", "mean"])?.to_string()),
        FloatList | ScalarList | PyObject | Opaque(_) => return Ok(None),
    }))
}

/// A value of some other type, often one the parameter does not take.
fn wrong_value(u: &mut Unstructured, t: &Operands) -> GenResult<Arg> {
    Ok(match u.int_in_range(0..=10)? {
        0 => Arg::Str("a".into()),
        1 => Arg::Float(Num::Float(2.5)),
        2 => Arg::None(()),
        3 => Arg::List(vec![1, 2]),
        4 => Arg::Tuple(vec![0]),
        5 => Arg::Dtype("float64".into()),
        6 => Arg::Bool(true),
        7 => Arg::Tensor(t.ints.clone()),
        8 => Arg::Size(vec![3]),
        9 => Arg::Tensors(vec![t.row.clone()]),
        _ => Arg::Int(1),
    })
}

/// A call of a function written in Python (`torch.broadcast_tensors(*tensors)`), sometimes
/// with a keyword it does not take.
fn python_function_case(u: &mut Unstructured, fn_name: &str) -> GenResult<Case> {
    let mut b = CaseBuilder::default();
    let t = operands(u, &mut b)?;
    let args = match fn_name {
        "torch.broadcast_shapes" => vec![Arg::Tuple(vec![2, 3]), Arg::List(vec![3])],
        "torch.einsum" => vec![
            Arg::Str("ij,j->ij".into()),
            Arg::Tensor(t.matrix.clone()),
            Arg::Tensor(t.row.clone()),
        ],
        _ => vec![Arg::Tensor(t.matrix.clone()), Arg::Tensor(t.row.clone())],
    };
    if u.ratio(3, 4)? {
        let keyword = *u.choose(&["foo", "tensors", "out", "shapes"])?;
        b.kwarg(keyword, wrong_value(u, &t)?);
    }
    b.tag("pyargs");
    Ok(b.finish(fn_name, args))
}

/// One `pyargs` case.
pub fn pyargs_case(u: &mut Unstructured) -> GenResult<Case> {
    let python: Vec<&String> = pyargs::table().python.keys().collect();
    if !python.is_empty() && u.ratio(1, 12)? {
        let fn_name = u.choose(&python)?.to_string();
        return python_function_case(u, &fn_name);
    }
    let names: Vec<&String> = pyargs::table()
        .signatures
        .iter()
        .filter(|(name, sigs)| sigs.is_some() && engine_runs(name))
        .map(|(name, _)| name)
        .collect();
    let fn_name = u.choose(&names)?.to_string();
    let sigs = pyargs::signatures(&fn_name).unwrap_or_default();
    let visible: Vec<_> = sigs
        .iter()
        .filter(|s| !s.hidden && expressible(&s.text))
        .collect();
    let mut b = CaseBuilder::default();
    let t = operands(u, &mut b)?;
    let mut args = Vec::new();
    if fn_name.starts_with("Tensor.") {
        args.push(Arg::Tensor(t.matrix.clone()));
    }
    let Some(sig) = (!visible.is_empty())
        .then(|| u.choose(&visible))
        .transpose()?
    else {
        return Ok(b.finish(&fn_name, args));
    };
    // Fill parameters in order: positional while no parameter has been left out, by keyword
    // after that (or by choice).
    let mut positional = true;
    for p in &sig.params {
        // `out=` is the `out` family's: a number there becomes a fresh 0-d tensor in torch.
        let give = p.name != "out" && (!p.optional || u.ratio(1, 3)?);
        if !give {
            positional = false;
            continue;
        }
        let Some(value) = value_for(u, p, &t)? else {
            positional = false;
            continue;
        };
        if positional && !p.keyword_only && u.ratio(4, 5)? {
            args.push(value);
        } else {
            positional = false;
            let name = match p.numpy_names() {
                [alias, ..] if u.ratio(1, 4)? => alias.to_string(),
                _ => p.name.clone(),
            };
            b.kwarg(&name, value);
        }
    }
    let first = usize::from(fn_name.starts_with("Tensor."));
    // Values are not this family's point: a float result may differ by a few ulps, as torch's
    // vectorised transcendentals do.
    super::approximate(&mut b);
    b.tag("pyargs");
    let clean = b.clone().finish(&fn_name, args.clone());
    for _ in 0..u.int_in_range(0..=2)? {
        match u.int_in_range(0..=5)? {
            0 if args.len() > first => {
                let i = u.int_in_range(first..=args.len() - 1)?;
                args[i] = wrong_value(u, &t)?;
            }
            1 => args.push(wrong_value(u, &t)?),
            2 if args.len() > first => {
                args.pop();
            }
            3 => b.kwarg(
                u.choose(&["foo", "dim", "alpha", "input"])?,
                wrong_value(u, &t)?,
            ),
            4 => {
                if let Some(p) = sig.params.get(args.len().saturating_sub(first + 1)) {
                    b.kwarg(&p.name, wrong_value(u, &t)?);
                }
            }
            _ => {}
        }
    }
    let mut case = b.finish(&fn_name, args);
    exact_alpha(&mut case);
    // A broken call that lands on a signature outside the suite's reach is not kept.
    match pyargs::check_call(&case) {
        Ok(Some(accepted)) if !expressible(&accepted.signature.text) => Ok(clean),
        _ => Ok(case),
    }
}

/// Keeps `alpha * other` exact where a broken call passes some value as `alpha` (a float, or a
/// 0-d tensor, which the parser takes as a number): torch rounds `a + alpha * b` once or twice
/// by position (README, Findings; with a 0-d `other` even overflow to `inf` differs, `-inf`
/// against NaN), so a float `alpha` that is not 0 or a power of two up to 8 becomes 2, an int
/// beyond ±8 becomes 2, and so do such values of a tensor passed as `alpha`.
fn exact_alpha(case: &mut Case) {
    let exact =
        |f: f64| f == 0.0 || (f.is_finite() && f.abs().log2().fract() == 0.0 && f.abs() <= 8.0);
    let fix = |v: Num| match v {
        Num::Float(f) if !exact(f) => Num::Float(2.0),
        Num::Int(i) if i.unsigned_abs() > 8 => Num::Int(2),
        other => other,
    };
    match case.call.kwargs.get_mut("alpha") {
        Some(Arg::Float(f)) => *f = fix(*f),
        Some(Arg::Int(i)) if i.unsigned_abs() > 8 => *i = 2,
        Some(Arg::Tensor(name)) => {
            let storage = case.tensors.get(name.as_str()).map(|t| t.storage.clone());
            if let Some(values) = storage
                .and_then(|s| case.storages.get_mut(&s))
                .and_then(|s| s.values.as_mut())
            {
                values.iter_mut().for_each(|v| *v = fix(*v));
            }
        }
        _ => {}
    }
}

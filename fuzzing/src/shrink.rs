//! Greedy shrinking of a case: try one simplification at a time, keep it when the case is
//! still valid and still shows the failure, and stop when nothing simpler does (a local
//! minimum: [`candidates`] lists every step). The steps: drop an operand (a positional argument
//! or a tensor of a list), a keyword, a dim (of one tensor, or the same right-aligned dim of
//! every tensor, which keeps them broadcastable), shrink a size (likewise one or all), make a
//! stride contiguous or zero or smaller, drop an offset, shorten a storage, make a value zero,
//! one or whole, move a storage to a simpler dtype, simplify an argument.
//!
//! A case with gradients stays one: its `wrt` and `upstream` tensors count as referenced (they
//! are never dropped as unused), a `wrt` tensor may be dropped from the list (with its
//! clone) when another remains, and after every step each upstream gradient is refitted to the
//! shape and dtype its result has now ([`refit_upstream`]), so a smaller input makes a smaller
//! upstream rather than a case torch refuses for the mismatch.
//!
//! ```
//! use bcast_conformance::case::Case;
//! use bcast_fuzzing::shrink::{complexity, shrink};
//! let case: Case = serde_json::from_str(r#"{"id": "x",
//!   "storages": {"s": {"dtype": "float32", "fill": {"kind": "random", "seed": 3, "len": 40}}},
//!   "tensors": {"t": {"storage": "s", "shape": [4, 5], "strides": [1, 4], "offset": 3}},
//!   "call": {"fn": "Tensor.expand", "args": [{"tensor": "t"}, {"ints": [2, 4, 5]}]}}"#).unwrap();
//! // The "failure": some tensor still has a dim of size 3 or more.
//! let small = shrink(&case, 1000, |c| c.tensors.values().any(|t| t.shape.iter().any(|&s| s >= 3)));
//! assert_eq!(small.tensors["t"].shape, vec![3]);
//! assert!(complexity(&small) < complexity(&case));
//! ```

use bcast_conformance::backend::reference::run_reference;
use bcast_conformance::case::{
    validate_case, Arg, Case, Fill, FillKind, Num, Outcome, ResultValue, StorageSpec, TensorSpec,
};
use bcast_engine::layout::contiguous_strides;
use bcast_engine::Layout;
use std::collections::BTreeSet;

/// How complicated a case is; every accepted step lowers it.
pub fn complexity(case: &Case) -> u64 {
    let mut c = 0u64;
    for s in case.storages.values() {
        c += 2 * storage_len(s) as u64;
        c += 3 * dtype_rank(&s.dtype);
        c += s
            .values
            .iter()
            .flatten()
            .map(|v| value_complexity(*v))
            .sum::<u64>();
        if s.fill.as_ref().is_some_and(|f| f.kind == FillKind::Random) {
            c += 1;
        }
    }
    for t in case.tensors.values() {
        c += 20 * t.shape.len() as u64;
        c += 4 * t.shape.iter().map(|&s| s.min(1 << 20) as u64).sum::<u64>();
        c += 3 * t.offset.min(1 << 20) as u64;
        let contiguous = contiguous_strides(&t.shape);
        for (&stride, &plain) in t.strides.iter().zip(&contiguous) {
            if stride != plain {
                c += 8 + stride.min(1 << 20) as u64;
            }
        }
    }
    for arg in case.call.args.iter().chain(case.call.kwargs.values()) {
        c += arg_complexity(arg);
    }
    if let Some(g) = &case.grad {
        c += 10 * g.wrt.len() as u64 + 5 * g.clone.len() as u64;
    }
    c + 10 * case.call.kwargs.len() as u64
}

fn is_zero(n: Num) -> bool {
    n.to_f64() == 0.0 && !matches!(n, Num::Complex(_, im) if im != 0.0)
}

/// 0 for zero; more for a value that is not a whole number or is far from 0.
fn value_complexity(n: Num) -> u64 {
    if is_zero(n) {
        return 0;
    }
    let v = n.to_f64();
    let mut c = 4;
    if !v.is_finite() || v.fract() != 0.0 || matches!(n, Num::Complex(..)) {
        c += 2;
    }
    if v.abs() > 1.0 || v.is_nan() {
        c += 1;
    }
    c
}

/// How far a dtype is from the simplest ones: bool, int64, float32, then the rest.
fn dtype_rank(dtype: &str) -> u64 {
    match dtype {
        "bool" => 0,
        "int64" => 1,
        "float32" => 2,
        "float64" => 3,
        _ => 4,
    }
}

/// The dtypes a storage may move to, simplest first.
const SIMPLER_DTYPES: [&str; 4] = ["bool", "int64", "float32", "float64"];

fn arg_complexity(arg: &Arg) -> u64 {
    let small = |v: i64| v.unsigned_abs().min(1 << 20);
    match arg {
        Arg::Int(i) => small(*i),
        Arg::Float(f) => u64::from(f.to_f64() != 0.0),
        Arg::Bool(b) => u64::from(*b),
        Arg::Ints(v) | Arg::List(v) | Arg::Tuple(v) | Arg::Size(v) => {
            v.iter().map(|&x| 4 + small(x)).sum()
        }
        Arg::Tensors(v) => 4 * v.len() as u64,
        _ => 0,
    }
}

/// The elements a storage holds: its values or its fill's length.
#[doc(hidden)]
pub fn storage_len(s: &StorageSpec) -> usize {
    match (&s.values, &s.fill) {
        (Some(v), _) => v.len(),
        (None, Some(f)) => f.len,
        (None, None) => 0,
    }
}

/// Shrinks `case` while `fails` holds, trying at most `budget` candidates. The result still
/// fails (or is `case` itself) and is valid.
pub fn shrink(case: &Case, budget: usize, mut fails: impl FnMut(&Case) -> bool) -> Case {
    let mut current = case.clone();
    let mut tried = 0usize;
    'outer: while tried < budget {
        let base = complexity(&current);
        for candidate in candidates(&current) {
            if complexity(&candidate) >= base || validate_case(&candidate).is_err() {
                continue;
            }
            tried += 1;
            if fails(&candidate) {
                current = candidate;
                continue 'outer;
            }
            if tried >= budget {
                break 'outer;
            }
        }
        break;
    }
    current
}

/// Every one-step simplification of `case`, the boldest first (for a case with gradients,
/// each with its upstream gradients refitted: [`refit_upstream`]).
pub fn candidates(case: &Case) -> Vec<Case> {
    let mut out = steps(case);
    if case.grad.is_some() {
        out.iter_mut().for_each(refit_upstream);
    }
    out
}

fn steps(case: &Case) -> Vec<Case> {
    let mut out = Vec::new();
    drop_unused(case, &mut out);
    drop_wrt(case, &mut out);
    drop_kwargs(case, &mut out);
    drop_operands(case, &mut out);
    joint_dim_steps(case, &mut out);
    for name in case.tensors.keys() {
        tensor_steps(case, name, &mut out);
    }
    for i in 0..case.call.args.len() {
        arg_steps(case, i, &mut out);
    }
    for name in case.storages.keys() {
        storage_steps(case, name, &mut out);
    }
    out
}

fn with(case: &Case, edit: impl FnOnce(&mut Case)) -> Case {
    let mut c = case.clone();
    edit(&mut c);
    c
}

/// The tensors the call or the gradient spec names (`wrt`, `upstream`), and the storages
/// they view.
fn referenced(case: &Case) -> (BTreeSet<String>, BTreeSet<String>) {
    let mut tensors = BTreeSet::new();
    for arg in case.call.args.iter().chain(case.call.kwargs.values()) {
        match arg {
            Arg::Tensor(n) => {
                tensors.insert(n.clone());
            }
            Arg::Tensors(ns) => tensors.extend(ns.iter().cloned()),
            _ => {}
        }
    }
    if let Some(g) = &case.grad {
        tensors.extend(g.wrt.iter().cloned());
        tensors.extend(g.upstream.iter().flatten().cloned());
    }
    let storages = case
        .tensors
        .iter()
        .filter(|(n, _)| tensors.contains(*n))
        .map(|(_, t)| t.storage.clone())
        .collect();
    (tensors, storages)
}

/// Tensors no argument names, and storages no named tensor views.
fn drop_unused(case: &Case, out: &mut Vec<Case>) {
    let (tensors, storages) = referenced(case);
    if tensors.len() < case.tensors.len() || storages.len() < case.storages.len() {
        out.push(with(case, |c| {
            c.tensors.retain(|n, _| tensors.contains(n));
            c.storages.retain(|n, _| storages.contains(n));
        }));
    }
}

/// Fewer tensors requiring grad: each `wrt` name dropped (and its clone) while another
/// remains.
fn drop_wrt(case: &Case, out: &mut Vec<Case>) {
    let Some(g) = &case.grad else { return };
    if g.wrt.len() < 2 {
        return;
    }
    for name in &g.wrt {
        out.push(with(case, |c| {
            if let Some(g) = &mut c.grad {
                g.wrt.retain(|n| n != name);
                g.clone.retain(|n| n != name);
            }
        }));
    }
}

/// Gives each upstream gradient of a case with gradients the shape and dtype its result has
/// (as the reference engine's forward of the case computes them), after a step changed them:
/// the upstream becomes a contiguous view of its storage, the storage takes the result's
/// dtype and length (a fill keeps its recipe; literal values of the same dtype are cut or
/// padded with zeros; others become the `arange` fill). A list of results that got shorter
/// keeps the first upstreams. Nothing changes when the call raises.
///
/// ```
/// use bcast_conformance::case::Case;
/// use bcast_fuzzing::shrink::refit_upstream;
/// let mut case: Case = serde_json::from_str(r#"{"id": "g",
///   "storages": {"a": {"dtype": "float32", "fill": {"kind": "random", "len": 2, "seed": 1}},
///                "g": {"dtype": "float64", "fill": {"kind": "random", "len": 6, "seed": 2}}},
///   "tensors": {"a": {"storage": "a", "shape": [2], "strides": [1]},
///               "g": {"storage": "g", "shape": [3, 2], "strides": [1, 3]}},
///   "call": {"fn": "torch.neg", "args": [{"tensor": "a"}]},
///   "grad": {"wrt": ["a"], "upstream": ["g"]}}"#).unwrap();
/// refit_upstream(&mut case);
/// assert_eq!((&case.tensors["g"].shape, &case.tensors["g"].strides), (&vec![2], &vec![1]));
/// assert_eq!(case.storages["g"].dtype, "float32");
/// assert_eq!(case.storages["g"].fill.as_ref().map(|f| f.len), Some(2));
/// ```
pub fn refit_upstream(case: &mut Case) {
    if case.grad.is_none() {
        return;
    }
    let results = match run_reference(case) {
        Ok(Outcome::Ok(ok)) => match ok.result {
            ResultValue::Tensor(t) => vec![t],
            ResultValue::Tensors(ts) => ts,
            _ => return,
        },
        _ => return,
    };
    let Some(grad) = &mut case.grad else { return };
    grad.upstream.truncate(results.len());
    let upstream = grad.upstream.clone();
    for (result, name) in results.iter().zip(upstream) {
        let Some(name) = name else { continue };
        let Some(shape) = result
            .shape
            .iter()
            .map(|&d| usize::try_from(d).ok())
            .collect::<Option<Vec<usize>>>()
        else {
            continue;
        };
        let Some(t) = case.tensors.get(&name).cloned() else {
            continue;
        };
        let shared = case
            .tensors
            .iter()
            .any(|(n, other)| *n != name && other.storage == t.storage);
        let Some(storage) = case.storages.get(&t.storage).cloned() else {
            continue;
        };
        if shared || (t.shape == shape && storage.dtype == result.dtype) {
            continue;
        }
        let len: usize = shape.iter().product();
        let values = storage
            .values
            .filter(|_| storage.dtype == result.dtype)
            .map(|mut v| {
                let zero = match v.first() {
                    Some(Num::Complex(..)) => Num::Complex(0.0, 0.0),
                    Some(Num::Bool(_)) => Num::Bool(false),
                    Some(Num::Int(_)) => Num::Int(0),
                    _ => Num::Float(0.0),
                };
                v.resize(len, zero);
                v
            });
        let fill = match (&values, storage.fill) {
            (Some(_), _) => None,
            (None, Some(f)) => Some(Fill { len, ..f }),
            (None, None) => Some(Fill {
                kind: FillKind::Arange,
                len,
                seed: 0,
            }),
        };
        case.storages.insert(
            t.storage.clone(),
            StorageSpec {
                dtype: result.dtype.clone(),
                values,
                fill,
            },
        );
        case.tensors.insert(
            name,
            TensorSpec {
                storage: t.storage,
                strides: contiguous_strides(&shape).to_vec(),
                shape,
                offset: 0,
            },
        );
    }
}

fn drop_kwargs(case: &Case, out: &mut Vec<Case>) {
    for k in case.call.kwargs.keys() {
        out.push(with(case, |c| {
            c.call.kwargs.remove(k);
        }));
    }
}

/// Fewer operands: each positional argument dropped (variadic calls such as
/// `broadcast_tensors(a, b, c)`), and each tensor of a tensor list, with the tensors and
/// storages no argument names any more.
fn drop_operands(case: &Case, out: &mut Vec<Case>) {
    let tidy = |mut c: Case| {
        let (tensors, storages) = referenced(&c);
        c.tensors.retain(|n, _| tensors.contains(n));
        c.storages.retain(|n, _| storages.contains(n));
        c
    };
    if case.call.args.len() >= 2 {
        for i in 0..case.call.args.len() {
            out.push(tidy(with(case, |c| {
                c.call.args.remove(i);
            })));
        }
    }
    for (i, arg) in case.call.args.iter().enumerate() {
        if let Arg::Tensors(names) = arg {
            for k in 0..names.len() {
                out.push(tidy(with(case, |c| {
                    if let Arg::Tensors(names) = &mut c.call.args[i] {
                        names.remove(k);
                    }
                })));
            }
        }
    }
}

/// The same right-aligned dim of every tensor at once, so tensors that broadcast against each
/// other still do: dropped where each has it, or each size above 1 made smaller.
fn joint_dim_steps(case: &Case, out: &mut Vec<Case>) {
    if case.tensors.len() < 2 {
        return;
    }
    let ndim = case
        .tensors
        .values()
        .map(|t| t.shape.len())
        .max()
        .unwrap_or(0);
    for back in 1..=ndim {
        out.push(with(case, |c| {
            for t in c.tensors.values_mut() {
                if let Some(d) = t.shape.len().checked_sub(back) {
                    reshape(t, |shape, strides| {
                        shape.remove(d);
                        strides.remove(d);
                    });
                }
            }
        }));
        let largest = case
            .tensors
            .values()
            .filter_map(|t| t.shape.len().checked_sub(back).map(|d| t.shape[d]))
            .max()
            .unwrap_or(0);
        let mut sizes = vec![1, largest / 2, largest.saturating_sub(1)];
        sizes.retain(|&n| n > 0 && n < largest);
        sizes.dedup();
        for n in sizes {
            out.push(with(case, |c| {
                for t in c.tensors.values_mut() {
                    if let Some(d) = t.shape.len().checked_sub(back)
                        && t.shape[d] > n
                    {
                        reshape(t, |shape, _| shape[d] = n);
                    }
                }
            }));
        }
    }
}

/// Changes a view's shape (and strides); a contiguous view stays contiguous, so that a smaller
/// shape is never judged more complex for its old strides.
fn reshape(t: &mut TensorSpec, change: impl FnOnce(&mut Vec<usize>, &mut Vec<usize>)) {
    let contiguous = t.strides == contiguous_strides(&t.shape).as_slice();
    change(&mut t.shape, &mut t.strides);
    if contiguous {
        t.strides = contiguous_strides(&t.shape).to_vec();
    }
}

fn tensor_steps(case: &Case, name: &str, out: &mut Vec<Case>) {
    let t = &case.tensors[name];
    let edit = |f: &dyn Fn(&mut TensorSpec)| {
        with(case, |c| {
            if let Some(t) = c.tensors.get_mut(name) {
                f(t)
            }
        })
    };
    for d in 0..t.shape.len() {
        out.push(edit(&|t| {
            reshape(t, |shape, strides| {
                shape.remove(d);
                strides.remove(d);
            })
        }));
    }
    for d in 0..t.shape.len() {
        let s = t.shape[d];
        let mut sizes: Vec<usize> = vec![1, s / 2, s.saturating_sub(1)];
        sizes.retain(|&n| n < s && n > 0);
        sizes.dedup();
        for n in sizes {
            out.push(edit(&|t| reshape(t, |shape, _| shape[d] = n)));
        }
    }
    if t.strides != contiguous_strides(&t.shape).as_slice() || t.offset != 0 {
        out.push(edit(&|t| {
            t.strides = contiguous_strides(&t.shape).to_vec();
            t.offset = 0;
        }));
    }
    if t.offset != 0 {
        out.push(edit(&|t| t.offset = 0));
    }
    let contiguous = contiguous_strides(&t.shape);
    for (d, (&stride, &plain)) in t.strides.iter().zip(&contiguous).enumerate() {
        if stride == plain {
            continue;
        }
        let mut simpler = vec![plain, 0, stride / 2];
        simpler.retain(|&s| s < stride || s == plain);
        simpler.dedup();
        for s in simpler {
            out.push(edit(&|t| t.strides[d] = s));
        }
    }
}

fn shrunk_ints(v: i64) -> Vec<i64> {
    let mut out: Vec<i64> = vec![0, 1, v / 2, v - v.signum()];
    out.retain(|&x| x.unsigned_abs() < v.unsigned_abs());
    out.dedup();
    out
}

fn arg_steps(case: &Case, i: usize, out: &mut Vec<Case>) {
    let set = |arg: Arg| with(case, |c| c.call.args[i] = arg);
    match &case.call.args[i] {
        Arg::Int(v) => out.extend(shrunk_ints(*v).into_iter().map(|x| set(Arg::Int(x)))),
        Arg::Float(f) if f.to_f64() != 0.0 => {
            out.push(set(Arg::Float(Num::Float(0.0))));
            if f.to_f64() != 1.0 {
                out.push(set(Arg::Float(Num::Float(1.0))));
            }
        }
        Arg::Bool(true) => out.push(set(Arg::Bool(false))),
        Arg::Ints(v) | Arg::List(v) | Arg::Tuple(v) | Arg::Size(v) => {
            let rebuild = |w: Vec<i64>| match &case.call.args[i] {
                Arg::Ints(_) => Arg::Ints(w),
                Arg::List(_) => Arg::List(w),
                Arg::Tuple(_) => Arg::Tuple(w),
                _ => Arg::Size(w),
            };
            for k in 0..v.len() {
                let mut w = v.clone();
                w.remove(k);
                out.push(set(rebuild(w)));
            }
            for k in 0..v.len() {
                for x in shrunk_ints(v[k]) {
                    let mut w = v.clone();
                    w[k] = x;
                    out.push(set(rebuild(w)));
                }
            }
        }
        _ => {}
    }
}

/// The elements a storage must keep for every view of it.
#[doc(hidden)]
pub fn needed_len(case: &Case, storage: &str) -> usize {
    case.tensors
        .values()
        .filter(|t| t.storage == storage)
        .map(|t| {
            Layout::new(t.shape.clone(), t.strides.clone(), t.offset)
                .ok()
                .and_then(|l| l.required_storage_len())
                .unwrap_or(usize::MAX)
        })
        .max()
        .unwrap_or(0)
}

fn storage_steps(case: &Case, name: &str, out: &mut Vec<Case>) {
    let s = &case.storages[name];
    let len = storage_len(s);
    let need = needed_len(case, name);
    let set = |spec: StorageSpec| {
        with(case, |c| {
            c.storages.insert(name.to_string(), spec);
        })
    };
    if need < len {
        let mut spec = s.clone();
        if let Some(v) = &mut spec.values {
            v.truncate(need);
        }
        if let Some(f) = &mut spec.fill {
            f.len = need;
        }
        out.push(set(spec));
    }
    let arange = StorageSpec {
        dtype: s.dtype.clone(),
        values: None,
        fill: Some(Fill {
            kind: FillKind::Arange,
            len,
            seed: 0,
        }),
    };
    if s.fill.as_ref().is_none_or(|f| f.kind != FillKind::Arange) {
        out.push(set(arange));
    }
    if let Some(values) = &s.values {
        for (k, v) in values.iter().enumerate() {
            for simpler in simpler_values(*v) {
                let mut spec = s.clone();
                if let Some(vs) = &mut spec.values {
                    vs[k] = simpler;
                }
                out.push(set(spec));
            }
        }
    }
    // A simpler dtype: the values must still be values of it (`validate_case` decides).
    let rank = dtype_rank(&s.dtype);
    for dtype in SIMPLER_DTYPES {
        if dtype_rank(dtype) < rank {
            let mut spec = s.clone();
            spec.dtype = dtype.to_string();
            out.push(set(spec));
        }
    }
}

/// Zero, one and the whole part of a value, where simpler than it.
fn simpler_values(v: Num) -> Vec<Num> {
    let mut out = Vec::new();
    match v {
        Num::Bool(true) => out.push(Num::Bool(false)),
        Num::Int(i) if i != 0 => {
            out.push(Num::Int(0));
            if i != 1 {
                out.push(Num::Int(1));
            }
        }
        Num::Float(f) if f != 0.0 || f.is_sign_negative() => {
            out.push(Num::Float(0.0));
            if f != 1.0 {
                out.push(Num::Float(1.0));
            }
            if f.is_finite() && f.fract() != 0.0 && f.trunc() != 0.0 {
                out.push(Num::Float(f.trunc()));
            }
        }
        Num::Complex(re, im) if re != 0.0 || im != 0.0 => {
            out.push(Num::Complex(0.0, 0.0));
            if im != 0.0 {
                out.push(Num::Complex(re, 0.0));
            }
        }
        _ => {}
    }
    out.retain(|&n| value_complexity(n) < value_complexity(v) || is_zero(n) && !is_zero(v));
    out
}

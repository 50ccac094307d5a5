//! Greedy shrinking of a case: try one simplification at a time (drop or shrink a dim,
//! simplify a layout, shorten a storage, simplify an argument, drop a keyword), keep it when
//! the case is still valid and still shows the failure, and stop when nothing simpler does.
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

use bcast_conformance::case::{validate_case, Arg, Case, Fill, FillKind, Num, StorageSpec};
use bcast_engine::layout::contiguous_strides;
use bcast_engine::Layout;
use std::collections::BTreeSet;

/// How complicated a case is; every accepted step lowers it.
pub fn complexity(case: &Case) -> u64 {
    let mut c = 0u64;
    for s in case.storages.values() {
        c += 2 * storage_len(s) as u64;
        if s.values.is_some() {
            c += 4 * s.values.iter().flatten().filter(|v| !is_zero(**v)).count() as u64;
        }
        if s.fill.as_ref().is_some_and(|f| f.kind == FillKind::Random) {
            c += 1;
        }
    }
    for t in case.tensors.values() {
        c += 20 * t.shape.len() as u64;
        c += 4 * t.shape.iter().map(|&s| s.min(1 << 20) as u64).sum::<u64>();
        c += 3 * t.offset.min(1 << 20) as u64;
        if t.strides != contiguous_strides(&t.shape) {
            c += 8;
        }
    }
    for arg in case.call.args.iter().chain(case.call.kwargs.values()) {
        c += arg_complexity(arg);
    }
    c + 10 * case.call.kwargs.len() as u64
}

fn is_zero(n: Num) -> bool {
    n.to_f64() == 0.0
}

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

fn storage_len(s: &StorageSpec) -> usize {
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

/// Every one-step simplification of `case`, the boldest first.
pub fn candidates(case: &Case) -> Vec<Case> {
    let mut out = Vec::new();
    drop_unused(case, &mut out);
    drop_kwargs(case, &mut out);
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

fn drop_kwargs(case: &Case, out: &mut Vec<Case>) {
    for k in case.call.kwargs.keys() {
        out.push(with(case, |c| {
            c.call.kwargs.remove(k);
        }));
    }
}

fn tensor_steps(case: &Case, name: &str, out: &mut Vec<Case>) {
    let t = &case.tensors[name];
    let edit = |f: &dyn Fn(&mut bcast_conformance::case::TensorSpec)| {
        with(case, |c| {
            if let Some(t) = c.tensors.get_mut(name) {
                f(t)
            }
        })
    };
    for d in 0..t.shape.len() {
        out.push(edit(&|t| {
            t.shape.remove(d);
            t.strides.remove(d);
        }));
    }
    for d in 0..t.shape.len() {
        let s = t.shape[d];
        let mut sizes: Vec<usize> = vec![1, s / 2, s.saturating_sub(1)];
        sizes.retain(|&n| n < s && n > 0);
        sizes.dedup();
        for n in sizes {
            out.push(edit(&|t| t.shape[d] = n));
        }
    }
    if t.strides != contiguous_strides(&t.shape) || t.offset != 0 {
        out.push(edit(&|t| {
            t.strides = contiguous_strides(&t.shape);
            t.offset = 0;
        }));
    }
    if t.offset != 0 {
        out.push(edit(&|t| t.offset = 0));
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
fn needed_len(case: &Case, storage: &str) -> usize {
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
            if !is_zero(*v) {
                let zero = match v {
                    Num::Bool(_) => Num::Bool(false),
                    Num::Int(_) => Num::Int(0),
                    Num::Float(_) => Num::Float(0.0),
                    Num::Complex(..) => Num::Complex(0.0, 0.0),
                };
                let mut spec = s.clone();
                if let Some(vs) = &mut spec.values {
                    vs[k] = zero;
                }
                out.push(set(spec));
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::gen::{find_family, generate};
    use bcast_conformance::backend::reference::run_reference;
    use bcast_conformance::case::{ErrorOutcome, Outcome};

    fn error_of(case: &Case) -> Option<ErrorOutcome> {
        match run_reference(case) {
            Ok(Outcome::Error(e)) => Some(e),
            _ => None,
        }
    }

    /// Cases of the expand family that the engine rejects shrink to cases it rejects with the
    /// same class, no more complex, and no bigger than they must be.
    #[test]
    fn shrinking_keeps_the_failure_and_never_grows() {
        let family = find_family("expand").expect("the expand family");
        let mut shrunk_some = 0;
        for index in 0..200 {
            let case = generate(family, 11, index);
            let Some(original) = error_of(&case) else {
                continue;
            };
            let small = shrink(&case, 500, |c| {
                error_of(c).is_some_and(|e| e.kind == original.kind)
            });
            assert!(validate_case(&small).is_ok(), "{}", case.id);
            assert_eq!(
                error_of(&small).map(|e| e.kind),
                Some(original.kind.clone())
            );
            assert!(complexity(&small) <= complexity(&case), "{}", case.id);
            // Nothing one step simpler still fails the same way.
            for c in candidates(&small) {
                if complexity(&c) < complexity(&small) && validate_case(&c).is_ok() {
                    assert_ne!(
                        error_of(&c).map(|e| e.kind),
                        Some(original.kind.clone()),
                        "{} shrinks further",
                        case.id
                    );
                }
            }
            for (name, s) in &small.storages {
                assert_eq!(storage_len(s), needed_len(&small, name), "{}", case.id);
            }
            shrunk_some += usize::from(complexity(&small) < complexity(&case));
        }
        assert!(shrunk_some > 10, "only {shrunk_some} cases shrank");
    }

    #[test]
    fn a_predicate_that_always_holds_shrinks_to_the_simplest_case() {
        let family = find_family("expand").expect("the expand family");
        let case = generate(family, 5, 3);
        let small = shrink(&case, 10_000, |_| true);
        assert!(small
            .tensors
            .values()
            .all(|t| t.shape.is_empty() && t.offset == 0));
        assert!(candidates(&small)
            .iter()
            .all(|c| complexity(c) >= complexity(&small) || validate_case(c).is_err()));
    }

    #[test]
    fn a_predicate_that_never_holds_keeps_the_case() {
        let family = find_family("expand").expect("the expand family");
        let case = generate(family, 5, 4);
        assert_eq!(shrink(&case, 10_000, |_| false), case);
    }
}

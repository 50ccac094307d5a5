//! The `promotion` family's enumeration, read back from its generated cases: every ordered
//! pair of the twelve dtypes in the tensor, 0-d, Python-number and 0-d-first forms of the
//! binary ops; `where`, in-place and `out=` over every pair, those torch computes in
//! `complex32` included; every ordered triple through `addcmul`/`addcdiv` (tensors, 0-d
//! tensors) and `clamp` (numbers); the enumeration is deterministic and `--count` goes round it.

use bcast_conformance::backend::reference::run_reference;
use bcast_conformance::case::{Arg, Case, NumScalar, Outcome, ResultValue};
use bcast_engine::{Category, DType};
use bcast_fuzzing::generators::{find_family, generate, generate_from_bytes, GEN_DTYPES};
use std::collections::{BTreeMap, BTreeSet};

/// The whole enumeration at seed 1.
fn enumeration() -> Vec<Case> {
    let family = find_family("promotion").expect("the promotion family");
    let len = family.enumeration.expect("an enumerating family").len;
    (0..len).map(|i| generate(family, 1, i)).collect()
}

/// The dtype and rank of a tensor argument.
fn tensor_of(case: &Case, arg: &Arg) -> Option<(DType, usize)> {
    let Arg::Tensor(name) = arg else { return None };
    let t = &case.tensors[name];
    let dtype = DType::from_name(&case.storages[&t.storage].dtype)?;
    Some((dtype, t.shape.len()))
}

/// The dtype a Python number stands for: its `number-of:DTYPE` tag, checked against the
/// number (its kind is the dtype's category and its value a value of the dtype).
fn number_of(case: &Case, arg: &Arg) -> Option<DType> {
    let (kind, value) = match arg {
        Arg::Bool(b) => (Category::Bool, bcast_conformance::case::Num::Bool(*b)),
        Arg::Int(i) => (Category::Integral, bcast_conformance::case::Num::Int(*i)),
        Arg::Float(f) => (Category::Floating, *f),
        Arg::Complex(z) => (Category::Complex, *z),
        _ => return None,
    };
    let tagged = case
        .tags
        .iter()
        .find_map(|t| t.strip_prefix("number-of:"))
        .and_then(DType::from_name)?;
    assert_eq!(tagged.category(), kind, "{}: {arg:?}", case.id);
    assert!(value.fits_engine_dtype(tagged), "{}: {arg:?}", case.id);
    Some(tagged)
}

/// The form and dtype pair of two operands `x` (a tensor) and `y`.
fn form_and_pair(case: &Case, x: &Arg, y: &Arg) -> Option<(&'static str, (DType, DType))> {
    let (a, a_rank) = tensor_of(case, x)?;
    if let Some((b, b_rank)) = tensor_of(case, y) {
        let form = match (a_rank > 0, b_rank > 0) {
            (true, true) => "tensor",
            (true, false) => "0-d",
            (false, true) => "0-d-first",
            (false, false) => return None,
        };
        return Some((form, (a, b)));
    }
    Some(("number", (a, number_of(case, y)?)))
}

/// The form and dtype triple of a triple case (`addcmul`, `addcdiv`, `clamp`): `a`'s dtype
/// and `b`'s and `c`'s, numbers read from their `number-of:` tags (in order; one tag when
/// both are of one dtype).
fn triple(case: &Case) -> Option<(&'static str, (DType, DType, DType))> {
    if !case.tags.iter().any(|t| t == "triple") {
        return None;
    }
    let args = &case.call.args;
    let (a, _) = tensor_of(case, &args[0])?;
    if let (Some((b, b_rank)), Some((c, c_rank))) =
        (tensor_of(case, &args[1]), tensor_of(case, &args[2]))
    {
        let form = if b_rank == 0 && c_rank == 0 {
            "0-d"
        } else {
            "tensor"
        };
        return Some((form, (a, b, c)));
    }
    let numbers: Vec<DType> = case
        .tags
        .iter()
        .filter_map(|t| t.strip_prefix("number-of:"))
        .filter_map(DType::from_name)
        .collect();
    let (b, c) = match numbers[..] {
        [b] => (b, b),
        [b, c] => (b, c),
        _ => return None,
    };
    Some(("number", (a, b, c)))
}

/// What a case calls (`binary`, `where`, `in-place`, `out`), its form and dtype pair.
fn classify(case: &Case) -> Option<(&'static str, &'static str, (DType, DType))> {
    if case.tags.iter().any(|t| t == "triple") {
        return None;
    }
    let call = &case.call;
    let args = &call.args;
    let op = call.fn_.rsplit('.').next()?;
    let (kind, x, y) = match (op, call.fn_.as_str()) {
        ("where", "torch.where") => ("where", &args[1], &args[2]),
        ("where", _) => ("where", &args[0], &args[2]),
        _ if op.ends_with('_') => ("in-place", &args[0], &args[1]),
        _ if call.kwargs.contains_key("out") => ("out", &args[0], &args[1]),
        _ => ("binary", &args[0], &args[1]),
    };
    let (form, pair) = form_and_pair(case, x, y)?;
    Some((kind, form, pair))
}

/// A dimensioned float16 against a complex 0-d tensor or number (or the mirror): torch
/// computes in complex32 there.
fn complex32(form: &str, (a, b): (DType, DType)) -> bool {
    match form {
        "0-d" | "number" => a == DType::Float16 && b.is_complex(),
        "0-d-first" => b == DType::Float16 && a.is_complex(),
        _ => false,
    }
}

#[test]
fn binary_ops_cover_every_ordered_pair_in_every_form() {
    let mut covered: BTreeMap<(&str, &str), BTreeSet<(DType, DType)>> = BTreeMap::new();
    let mut ops: BTreeSet<String> = BTreeSet::new();
    for case in enumeration().iter().filter(|c| triple(c).is_none()) {
        let (kind, form, pair) = classify(case).unwrap_or_else(|| panic!("{}", case.id));
        covered.entry((kind, form)).or_default().insert(pair);
        if kind == "binary" {
            ops.insert(case.call.fn_.rsplit('.').next().unwrap_or("").to_string());
        }
    }
    let all: BTreeSet<(DType, DType)> = GEN_DTYPES
        .iter()
        .flat_map(|&a| GEN_DTYPES.iter().map(move |&b| (a, b)))
        .collect();
    assert_eq!(all.len(), 144);
    for form in ["tensor", "0-d", "number", "0-d-first"] {
        let got = &covered[&("binary", form)];
        let missing: Vec<_> = all.difference(got).collect();
        assert!(
            missing.is_empty(),
            "binary ops, {form} form: missing {missing:?}"
        );
    }
    // where, in-place and out=: every pair, those torch computes in complex32 included.
    for (kind, forms) in [
        ("where", &["tensor", "0-d", "number"][..]),
        ("in-place", &["tensor", "0-d", "number"]),
        ("out", &["tensor", "number"]),
    ] {
        for &form in forms {
            let got = &covered[&(kind, form)];
            let missing: Vec<_> = all.iter().filter(|p| !got.contains(p)).collect();
            assert!(
                missing.is_empty(),
                "{kind}, {form} form: missing {missing:?}"
            );
        }
    }
    let every_op = [
        "add",
        "sub",
        "mul",
        "div",
        "pow",
        "maximum",
        "minimum",
        "remainder",
        "eq",
        "ne",
        "lt",
        "le",
        "gt",
        "ge",
    ];
    for op in every_op {
        assert!(ops.contains(op), "no binary case calls {op}");
    }
}

/// The slots torch computes in `complex32` call their block's ops in the enumeration (`bcast
/// gen`, `bcast diff`): arithmetic (`mul`, `div`), a comparison (`ne`), `where`, in-place and
/// `out=` forms among them; the random draws other families make (the `grad` family's) keep `maximum`/`minimum` there.
#[test]
fn the_complex32_slots_call_their_blocks_ops() {
    let mut ops = BTreeSet::new();
    for case in enumeration() {
        let Some((kind, form, pair)) = classify(&case) else {
            continue;
        };
        assert_eq!(
            complex32(form, pair),
            case.tags.iter().any(|t| t == "complex32"),
            "{}",
            case.id
        );
        if complex32(form, pair) {
            ops.insert(format!(
                "{kind} {}",
                case.call.fn_.rsplit('.').next().unwrap()
            ));
        }
    }
    for want in [
        "binary mul",
        "binary div",
        "binary ne",
        "where where",
        "in-place add_",
        "out add",
    ] {
        assert!(
            ops.contains(want),
            "no complex32 slot calls {want}: {ops:?}"
        );
    }
    let family = find_family("promotion").unwrap();
    // Every value of the two bytes the slot is drawn from.
    let random: BTreeSet<String> = (0..=u16::MAX)
        .map(|v| {
            let mut bytes = v.to_le_bytes().to_vec();
            bytes.resize(256, 0x5a);
            generate_from_bytes(family, &bytes)
        })
        .filter(|c| c.tags.iter().any(|t| t == "complex32") && triple(c).is_none())
        .map(|c| c.call.fn_.rsplit('.').next().unwrap().to_string())
        .collect();
    assert!(!random.is_empty());
    assert!(
        random.iter().all(|op| op == "maximum" || op == "minimum"),
        "{random:?}"
    );
}

#[test]
fn triples_cover_every_ordered_triple_in_every_form() {
    let mut covered: BTreeMap<&str, BTreeSet<(DType, DType, DType)>> = BTreeMap::new();
    let mut ops: BTreeMap<&str, BTreeSet<String>> = BTreeMap::new();
    for case in enumeration() {
        let Some((form, t)) = triple(&case) else {
            continue;
        };
        covered.entry(form).or_default().insert(t);
        let op = case.call.fn_.rsplit('.').next().unwrap_or("").to_string();
        ops.entry(form).or_default().insert(op);
    }
    let n = GEN_DTYPES.len();
    for form in ["tensor", "0-d", "number"] {
        assert_eq!(covered[form].len(), n * n * n, "{form} form");
    }
    let expected = |names: &[&str]| names.iter().map(|s| s.to_string()).collect();
    assert_eq!(ops["tensor"], expected(&["addcdiv", "addcmul"]));
    assert_eq!(ops["0-d"], expected(&["addcdiv", "addcmul"]));
    assert_eq!(ops["number"], expected(&["clamp"]));
}

#[test]
fn the_third_operand_takes_part_in_the_promotion() {
    // Not vacuous: int8 with int8 is int8, but addcmul/addcdiv with a float64 third operand
    // give float64 on the reference engine, dimensioned or 0-d (a 0-d tensor of a higher
    // category than the dimensioned ones keeps its dtype; as torch 2.13.0 gives).
    let dtype_of = |c: &Case| match run_reference(c) {
        Ok(Outcome::Ok(ok)) => match ok.result {
            ResultValue::Tensor(t) => Some(t.dtype),
            _ => None,
        },
        _ => None,
    };
    let cases = enumeration();
    let pick = |form: &str| {
        cases
            .iter()
            .find(|c| triple(c) == Some((form, (DType::Int8, DType::Int8, DType::Float64))))
            .unwrap_or_else(|| panic!("no {form} int8, int8, float64 triple"))
    };
    assert_eq!(dtype_of(pick("tensor")).as_deref(), Some("float64"));
    assert_eq!(dtype_of(pick("0-d")).as_deref(), Some("float64"));
}

#[test]
fn in_place_cases_reach_the_refused_cast_back() {
    // Not vacuous: some in-place cases have a result type the target cannot hold, and the
    // reference engine refuses them with torch's words.
    let refused = enumeration()
        .iter()
        .filter(|c| c.call.fn_.ends_with('_'))
        .filter(|c| match run_reference(c) {
            Ok(Outcome::Error(e)) => e
                .message
                .contains("can't be cast to the desired output type"),
            _ => false,
        })
        .count();
    assert!(refused > 50, "{refused} refused in-place casts");
}

#[test]
fn the_enumeration_is_deterministic_and_count_goes_round_it() {
    let family = find_family("promotion").expect("the promotion family");
    let len = family.enumeration.expect("an enumerating family").len;
    for i in [0, 1, len / 2, len - 1] {
        let (a, again, next_round) = (
            generate(family, 1, i),
            generate(family, 1, i),
            generate(family, 1, i + len),
        );
        assert_eq!(a, again);
        // The same slot (op, form, dtypes) a round later, with other draws (and spelling).
        let op = |c: &Case| c.call.fn_.rsplit('.').next().map(str::to_string);
        assert_eq!(op(&a), op(&next_round));
        assert_eq!(classify(&a), classify(&next_round));
        assert_ne!(a.storages, next_round.storages);
    }
}

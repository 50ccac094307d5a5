//! The `einsum` family: random equations over one to three operands with shared, repeated
//! (diagonal) and summed subscripts, `...` broadcasting with size-1 dims, implicit and explicit
//! outputs, zero-size dims and mixed dtypes; then, now and then, one deliberate fault (a wrong
//! operand count, rank or size, a stray character, a bad output subscript). Operands come as
//! varargs, as one list, or in the sublist format. A few cases replay the documents' examples.

use super::tolerance::sum_tolerance;
use super::{portable_product_values, CaseBuilder, GenResult, GRAD_DTYPES};
use arbitrary::Unstructured;
use bcast_conformance::case::{Arg, Case};
use bcast_engine::DType;

/// One subscript while building an equation.
#[derive(Debug, Clone, Copy, PartialEq)]
enum Sub {
    Label(u8),
    Ellipsis,
}

fn write_subs(subs: &[Sub]) -> String {
    subs.iter()
        .map(|s| match s {
            Sub::Label(c) => (*c as char).to_string(),
            Sub::Ellipsis => "...".to_string(),
        })
        .collect()
}

/// The sublist number of a letter.
fn sublist_number(c: u8) -> i64 {
    if c.is_ascii_uppercase() {
        (c - b'A') as i64
    } else {
        (c - b'a') as i64 + 26
    }
}

fn size(u: &mut Unstructured) -> GenResult<usize> {
    if u.ratio(1, 14)? {
        Ok(0)
    } else {
        u.int_in_range(1..=4)
    }
}

/// The operands' subscripts and shapes, and the output subscripts (`None`: implicit).
struct Draft {
    inputs: Vec<Vec<Sub>>,
    shapes: Vec<Vec<usize>>,
    output: Option<Vec<Sub>>,
}

fn draft(u: &mut Unstructured) -> GenResult<Draft> {
    let mut pool = b"ijkblAZ".to_vec();
    for i in (1..pool.len()).rev() {
        let j = u.int_in_range(0..=i)?;
        pool.swap(i, j);
    }
    pool.truncate(u.int_in_range(2..=5)?);
    let sizes: Vec<usize> = pool.iter().map(|_| size(u)).collect::<GenResult<_>>()?;
    let size_of = |c: u8| sizes[pool.iter().position(|&p| p == c).unwrap_or(0)];
    let num_ops = *u.choose(&[1, 1, 2, 2, 2, 3])?;
    let ellipsis: Vec<usize> = if u.ratio(1, 4)? {
        (0..u.int_in_range(0..=2)?)
            .map(|_| size(u))
            .collect::<GenResult<_>>()?
    } else {
        Vec::new()
    };
    let with_ellipsis = u.ratio(1, 4)?;
    let (mut inputs, mut shapes) = (Vec::new(), Vec::new());
    for _ in 0..num_ops {
        let rank = u.int_in_range(0..=3)?;
        let mut subs = Vec::with_capacity(rank + 1);
        for _ in 0..rank {
            subs.push(Sub::Label(*u.choose(&pool)?));
        }
        if with_ellipsis && u.ratio(2, 3)? {
            let at = u.int_in_range(0..=subs.len())?;
            subs.insert(at, Sub::Ellipsis);
        }
        let mut shape = Vec::new();
        // A label squeezed to 1 (to broadcast) is squeezed at each of its places in the operand.
        let mut squeezed: Vec<u8> = Vec::new();
        for s in &subs {
            if let Sub::Label(c) = *s
                && !squeezed.contains(&c)
                && u.ratio(1, 10)?
            {
                squeezed.push(c);
            }
        }
        for s in &subs {
            match *s {
                Sub::Label(c) => shape.push(if squeezed.contains(&c) { 1 } else { size_of(c) }),
                Sub::Ellipsis => {
                    let covered = u.int_in_range(0..=ellipsis.len())?;
                    for &e in &ellipsis[ellipsis.len() - covered..] {
                        shape.push(if u.ratio(1, 4)? { 1 } else { e });
                    }
                }
            }
        }
        inputs.push(subs);
        shapes.push(shape);
    }
    let output = if u.ratio(1, 4)? {
        None
    } else {
        let mut used: Vec<u8> = Vec::new();
        for s in inputs.iter().flatten() {
            if let Sub::Label(c) = *s
                && !used.contains(&c)
            {
                used.push(c);
            }
        }
        let mut out: Vec<Sub> = Vec::new();
        for c in used {
            if u.arbitrary()? {
                let at = u.int_in_range(0..=out.len())?;
                out.insert(at, Sub::Label(c));
            }
        }
        if inputs.iter().flatten().any(|s| *s == Sub::Ellipsis) && u.ratio(5, 6)? {
            let at = u.int_in_range(0..=out.len())?;
            out.insert(at, Sub::Ellipsis);
        }
        Some(out)
    };
    Ok(Draft {
        inputs,
        shapes,
        output,
    })
}

/// Breaks the draft in one way torch must reject; returns the fault's tag.
fn break_draft(u: &mut Unstructured, d: &mut Draft) -> GenResult<&'static str> {
    let op = u.choose_index(d.inputs.len())?;
    Ok(match u.int_in_range(0..=6u8)? {
        0 => {
            d.shapes.push(vec![2]);
            "extra-operand"
        }
        1 => {
            d.inputs.push(vec![Sub::Label(b'i')]);
            "missing-operand"
        }
        2 => {
            d.inputs[op].push(Sub::Label(b'q'));
            "rank-mismatch"
        }
        3 if !d.shapes[op].is_empty() => {
            // Bumps one dim: a label that no longer broadcasts, a repeated label over dims of
            // different sizes, or an ellipsis dim that no longer broadcasts.
            let k = u.choose_index(d.shapes[op].len())?;
            d.shapes[op][k] += 2;
            "size-mismatch"
        }
        4 => {
            d.output.get_or_insert_with(Vec::new).push(Sub::Label(b'x'));
            "unknown-output"
        }
        5 => {
            let out = d.output.get_or_insert_with(Vec::new);
            match out.first().copied() {
                Some(s) => out.push(s),
                None => out.extend([Sub::Ellipsis, Sub::Ellipsis]),
            }
            "repeated-output"
        }
        _ => {
            d.inputs[op].extend([Sub::Ellipsis, Sub::Ellipsis]);
            "double-ellipsis"
        }
    })
}

/// Spoils an equation string with a character torch rejects.
fn spoil(u: &mut Unstructured, equation: &mut String) -> GenResult<()> {
    let bad = *u.choose(&["1", ".", "..", "-", "#", "é", ">"])?;
    let boundaries: Vec<usize> = (0..=equation.len())
        .filter(|&i| equation.is_char_boundary(i))
        .collect();
    let at = *u.choose(&boundaries)?;
    equation.insert_str(at, bad);
    Ok(())
}

/// The dtypes the `einsum` family draws its operands from (float32 twice as often).
const EINSUM_DTYPES: [DType; 5] = [
    DType::Float32,
    DType::Float32,
    DType::Float64,
    DType::Int64,
    DType::Bool,
];

/// One case of the `einsum` family.
pub fn einsum_case(u: &mut Unstructured) -> GenResult<Case> {
    einsum_case_of(u, &EINSUM_DTYPES)
}

/// A case of the `einsum` family's calls on the six floating and complex dtypes, for the
/// `grad` family (their values as [`portable_product_values`] leaves them; the `einsum`
/// family keeps its draws, so `einsum.json` stays what its command writes).
///
/// ```
/// use bcast_fuzzing::generators::floating_einsum_case;
/// let bytes: Vec<u8> = (0..255).cycle().take(2000).collect();
/// let case = floating_einsum_case(&mut arbitrary::Unstructured::new(&bytes)).unwrap();
/// assert_eq!(case.call.fn_, "torch.einsum");
/// ```
pub fn floating_einsum_case(u: &mut Unstructured) -> GenResult<Case> {
    let mut case = einsum_case_of(u, GRAD_DTYPES)?;
    portable_product_values(&mut case);
    Ok(case)
}

/// An `einsum` case whose operands' dtype is drawn from `dtypes` (now and then another).
fn einsum_case_of(u: &mut Unstructured, dtypes: &[DType]) -> GenResult<Case> {
    if u.ratio(1, 30)? {
        return document_case(u);
    }
    let mut b = CaseBuilder::default();
    let mut d = draft(u)?;
    let fault = if u.ratio(1, 6)? {
        Some(break_draft(u, &mut d)?)
    } else {
        None
    };
    let dtype = *u.choose(dtypes)?;
    let mut dtypes = vec![dtype];
    let mut names = Vec::new();
    for shape in &d.shapes {
        let dt = if u.ratio(1, 8)? {
            super::operands::random_dtype(u)?
        } else {
            dtype
        };
        dtypes.push(dt);
        names.push(b.view(u, dt, shape, true)?);
    }
    let mut equation = d
        .inputs
        .iter()
        .map(|s| write_subs(s))
        .collect::<Vec<_>>()
        .join(",");
    if let Some(out) = &d.output {
        equation.push_str("->");
        equation.push_str(&write_subs(out));
    }
    if u.ratio(1, 10)? {
        let at = u.int_in_range(0..=equation.len())?;
        equation.insert(at, ' ');
    }
    if let Some(tag) = fault {
        b.tag(tag);
    } else if u.ratio(1, 16)? {
        spoil(u, &mut equation)?;
        b.tag("bad-character");
    }
    let no_ellipsis = !d.inputs.iter().flatten().any(|s| *s == Sub::Ellipsis)
        && !d.output.iter().flatten().any(|s| *s == Sub::Ellipsis);
    let form = u.int_in_range(0..=9u8)?;
    let args = if form == 0 {
        b.tag("operand-list");
        vec![Arg::Str(equation), Arg::Tensors(names)]
    } else if form == 1 && no_ellipsis && fault.is_none() && d.inputs.len() == names.len() {
        b.tag("sublist");
        let numbers = |subs: &[Sub]| -> Vec<i64> {
            subs.iter()
                .filter_map(|s| match s {
                    Sub::Label(c) => Some(sublist_number(*c)),
                    Sub::Ellipsis => None,
                })
                .collect()
        };
        let mut args = Vec::new();
        for (name, subs) in names.into_iter().zip(&d.inputs) {
            args.push(Arg::Tensor(name));
            args.push(Arg::Ints(numbers(subs)));
        }
        if let Some(out) = &d.output {
            args.push(Arg::Ints(numbers(out)));
        }
        if u.ratio(1, 8)? {
            // A subscript number outside [0, 52).
            if let Some(Arg::Ints(list)) = args
                .iter_mut()
                .rev()
                .find(|a| matches!(a, Arg::Ints(l) if !l.is_empty()))
            {
                list[0] = *u.choose(&[52, -1])?;
                b.tag("bad-subscript-number");
            }
        }
        args
    } else {
        let mut args = vec![Arg::Str(equation)];
        args.extend(names.into_iter().map(Arg::Tensor));
        args
    };
    sum_tolerance(&mut b, &dtypes);
    Ok(b.finish("torch.einsum", args))
}

/// The seed documents' einsum examples: matrix product, batch matrix product, outer product.
fn document_case(u: &mut Unstructured) -> GenResult<Case> {
    let examples: [(&str, &[usize], &[usize]); 3] = [
        ("ij,jk->ik", &[3, 4], &[4, 5]),
        ("bij,bjk->bik", &[32, 3, 4], &[32, 4, 5]),
        ("i,j->ij", &[3], &[4]),
    ];
    let (equation, s1, s2) = *u.choose(&examples)?;
    let mut b = CaseBuilder::default();
    let x = b.view(u, DType::Float32, s1, false)?;
    let y = b.view(u, DType::Float32, s2, false)?;
    b.tag("document-example");
    sum_tolerance(&mut b, &[DType::Float32]);
    Ok(b.finish(
        "torch.einsum",
        vec![Arg::Str(equation.into()), Arg::Tensor(x), Arg::Tensor(y)],
    ))
}

//! The `promotion` family: an enumeration of torch's type promotion. Every ordered pair of the
//! twelve dtypes `(a, b)` meets in each form of operand: `a` a dimensioned tensor and `b` a
//! dimensioned tensor, a 0-d tensor or a Python number of `b`'s kind (bool, int, float,
//! complex) holding a value of `b`; and `a` a 0-d tensor against a dimensioned `b`. The forms
//! run through binary arithmetic and comparisons, `torch.where` (`x` of `a`, `y` of `b`, the
//! condition usually bool), in-place ops (`a.op_(b)`: torch refuses the cast back where the
//! result type cannot be cast to `a`) and `out=` of every dtype in turn (narrower, wider,
//! refused).
//!
//! Slot `s` below [`PAIR_SLOTS`] is pair `s % 144` of block `s / 144` (the blocks: [`BLOCKS`]);
//! the op of a slot turns with the pair, the values, shapes and layouts are drawn. After them
//! come the triples (every ordered triple `(a, b, c)` of the twelve dtypes, 1,728 slots a
//! block, [`TRIPLE_BLOCKS`]), where three operands promote together: `addcmul`/`addcdiv`
//! with three dimensioned tensors, then with `b` and `c` 0-d tensors, and `clamp(a, b, c)`
//! with Python numbers of `b`'s and `c`'s kinds as bounds. Values come
//! from short per-dtype lists of edges (`uint8` 255, `int8` -128, `float16` 2048 and 65504,
//! `float32` 2^24, ...), so integer results wrap (`uint8` + (-1), `int8` 127 + 100) and half
//! results round. Where torch computes in `complex32` (a `float16` tensor against a complex
//! 0-d tensor or number) the slot is tagged `complex32` and calls its block's op as any other:
//! `add`, `sub`, `mul`, `eq`, `ne` and `where` compute in `complex32`, the others raise naming
//! `ComplexHalf`. The random draws of [`promotion_case`], which the `grad` family makes (its
//! recorded corpus keeps its draws), still call `maximum`/`minimum` there, as every draw did
//! before the schema had `complex32`.
//!
//! ```
//! use bcast_fuzzing::generators::{find_family, generate};
//! let promotion = find_family("promotion").unwrap();
//! let case = generate(promotion, 1, 0); // slot 0: bool (2, 3) against a bool tensor
//! assert!(case.tags.iter().any(|t| t == "form:tensor"));
//! ```

use super::elementwise::binary_tolerance;
use super::operands::{approximate, consistent_divisor, spelling};
use super::{random_view, CaseBuilder, GenResult, GEN_DTYPES};
use arbitrary::Unstructured;
use bcast_conformance::case::{Arg, Case, Num, NumScalar};
use bcast_engine::ops::{BinaryOp, CompareOp};
use bcast_engine::{Category, DType};

/// How the operands of a slot are passed.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Form {
    /// `a` and `b` dimensioned tensors.
    Tensor,
    /// `a` dimensioned, `b` a 0-d tensor.
    ZeroDim,
    /// `a` dimensioned, `b` a Python number of `b`'s kind.
    Number,
    /// `a` a 0-d tensor, `b` dimensioned.
    ZeroDimFirst,
}

impl Form {
    /// The tag a case of this form carries (`form:tensor`, `form:0-d`, `form:number`,
    /// `form:0-d-first`).
    pub fn tag(self) -> &'static str {
        match self {
            Form::Tensor => "form:tensor",
            Form::ZeroDim => "form:0-d",
            Form::Number => "form:number",
            Form::ZeroDimFirst => "form:0-d-first",
        }
    }
}

/// What a block of 144 slots calls.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Call {
    /// Binary arithmetic: add, sub, mul, div, pow, maximum, minimum, remainder.
    Arithmetic,
    /// Comparisons: eq, ne, lt, le, gt, ge.
    Compare,
    /// `torch.where(c, x, y)`.
    Where,
    /// `a.op_(b)`.
    InPlace,
    /// `torch.op(a, b, out=o)`.
    Out,
}

/// The blocks of the enumeration, 144 slots each (one per ordered pair), in slot order.
pub const BLOCKS: [(Call, Form); 16] = [
    (Call::Arithmetic, Form::Tensor),
    (Call::Compare, Form::Tensor),
    (Call::Arithmetic, Form::ZeroDim),
    (Call::Compare, Form::ZeroDim),
    (Call::Arithmetic, Form::Number),
    (Call::Compare, Form::Number),
    (Call::Arithmetic, Form::ZeroDimFirst),
    (Call::Compare, Form::ZeroDimFirst),
    (Call::Where, Form::Tensor),
    (Call::Where, Form::ZeroDim),
    (Call::Where, Form::Number),
    (Call::InPlace, Form::Tensor),
    (Call::InPlace, Form::ZeroDim),
    (Call::InPlace, Form::Number),
    (Call::Out, Form::Tensor),
    (Call::Out, Form::Number),
];

/// The ordered dtype pairs of a block, of the twelve dtypes of [`GEN_DTYPES`] (`complex32`
/// is reached by promotion only).
pub const PAIRS: u64 = (GEN_DTYPES.len() * GEN_DTYPES.len()) as u64;

/// The slots of the pair blocks, before the triples.
pub const PAIR_SLOTS: u64 = BLOCKS.len() as u64 * PAIRS;

/// The ordered dtype triples of a triple block.
pub const TRIPLES: u64 = PAIRS * GEN_DTYPES.len() as u64;

/// The triple blocks, [`TRIPLES`] slots each, after the pair blocks: how `b` and `c` are
/// passed (`Tensor`: dimensioned tensors, `ZeroDim`: 0-d tensors, to `addcmul`/`addcdiv`;
/// `Number`: Python numbers, to `clamp`).
pub const TRIPLE_BLOCKS: [Form; 3] = [Form::Tensor, Form::ZeroDim, Form::Number];

/// How many slots the enumeration has: `bcast gen --family promotion --count 7488` is all
/// of it.
pub const SLOTS: u64 = PAIR_SLOTS + TRIPLE_BLOCKS.len() as u64 * TRIPLES;

/// An op of the family.
#[derive(Debug, Clone, Copy, PartialEq)]
enum Op {
    Binary(BinaryOp),
    Compare(CompareOp),
}

impl Op {
    fn name(self) -> &'static str {
        match self {
            Op::Binary(op) => op.name(),
            Op::Compare(op) => op.name(),
        }
    }
}

const ADD: Op = Op::Binary(BinaryOp::Add(bcast_engine::Scalar::Int(1)));
const SUB: Op = Op::Binary(BinaryOp::Sub(bcast_engine::Scalar::Int(1)));
const MUL: Op = Op::Binary(BinaryOp::Mul);
const DIV: Op = Op::Binary(BinaryOp::Div);
const POW: Op = Op::Binary(BinaryOp::Pow);
const MAXIMUM: Op = Op::Binary(BinaryOp::Maximum);
const MINIMUM: Op = Op::Binary(BinaryOp::Minimum);
const REMAINDER: Op = Op::Binary(BinaryOp::Remainder);

/// Arithmetic between tensors.
const ARITHMETIC: [Op; 8] = [ADD, SUB, MUL, DIV, POW, MAXIMUM, MINIMUM, REMAINDER];
/// Arithmetic with a Python number (torch's binding refuses one for maximum and minimum).
const ARITHMETIC_NUMBER: [Op; 6] = [ADD, SUB, MUL, DIV, POW, REMAINDER];
/// What the random draws ([`promotion_case`]) call where torch computes in `complex32`: the
/// ops torch refuses for complex operands before it computes, as every draw did before the
/// schema had `complex32` (the `grad` family's recorded draws depend on it).
const COMPLEX32_RANDOM: [Op; 2] = [MAXIMUM, MINIMUM];
const COMPARE: [Op; 6] = [
    Op::Compare(CompareOp::Eq),
    Op::Compare(CompareOp::Ne),
    Op::Compare(CompareOp::Lt),
    Op::Compare(CompareOp::Le),
    Op::Compare(CompareOp::Gt),
    Op::Compare(CompareOp::Ge),
];
const IN_PLACE: [Op; 9] = [
    ADD,
    SUB,
    MUL,
    DIV,
    POW,
    REMAINDER,
    Op::Compare(CompareOp::Eq),
    Op::Compare(CompareOp::Lt),
    Op::Compare(CompareOp::Ge),
];
const OUT_TENSOR: [Op; 8] = [
    ADD,
    SUB,
    MUL,
    DIV,
    MAXIMUM,
    REMAINDER,
    Op::Compare(CompareOp::Eq),
    Op::Compare(CompareOp::Lt),
];
const OUT_NUMBER: [Op; 7] = [
    ADD,
    SUB,
    MUL,
    DIV,
    POW,
    REMAINDER,
    Op::Compare(CompareOp::Ne),
];

/// The values a tensor or number of `dtype` takes: its edges and values that round in the
/// half dtypes, each exact in `dtype` (no NaN or infinities: those are the special-value
/// families' business).
pub fn promotion_values(dtype: DType) -> Vec<Num> {
    let ints = |v: &[i64]| v.iter().map(|&i| Num::Int(i)).collect();
    let floats = |v: &[f64]| v.iter().map(|&f| Num::Float(f)).collect();
    match dtype {
        DType::Bool => vec![Num::Bool(true), Num::Bool(false)],
        DType::UInt8 => ints(&[0, 1, 255, 128, 7, 200]),
        DType::Int8 => ints(&[-128, 127, -1, 0, 100, -7]),
        DType::Int16 => ints(&[-32768, 32767, -1, 0, 300, 1000]),
        DType::Int32 => ints(&[i32::MIN.into(), i32::MAX.into(), -1, 0, 65537, 100_000]),
        DType::Int64 => ints(&[i64::MIN, i64::MAX, -1, 0, 9_007_199_254_740_993, 3]),
        // 0.0999755859375 and 0.333251953125 are float16's nearest 0.1 and 1/3.
        DType::Float16 => floats(&[
            2048.0,
            0.099_975_585_937_5,
            65504.0,
            -2.5,
            1.5,
            -0.0,
            0.333_251_953_125,
        ]),
        // 0.10009765625 is bfloat16's nearest 0.1; then its largest finite value.
        DType::BFloat16 => floats(&[
            256.0,
            0.100_097_656_25,
            3.389_531_389_251_535_5e38,
            -2.5,
            1.5,
            258.0,
            -0.0,
        ]),
        DType::Float32 => floats(&[
            16_777_216.0,
            0.100_000_001_490_116_12,
            3.402_823_466_385_288_6e38,
            -2.5,
            1.5,
            16_777_218.0,
            -0.0,
        ]),
        DType::Float64 => floats(&[
            0.1,
            1e300,
            -2.5,
            1.5,
            9_007_199_254_740_992.0,
            -0.0,
            1.0 / 3.0,
        ]),
        // Never a slot's dtype (the pairs are of GEN_DTYPES): values exact in float16.
        DType::Complex32 => vec![
            Num::Complex(1.5, -2.5),
            Num::Complex(0.099_975_585_937_5, 2048.0),
            Num::Complex(-0.0, 65504.0),
            Num::Complex(3.0, 0.0),
        ],
        DType::Complex64 => vec![
            Num::Complex(1.5, -2.5),
            Num::Complex(0.100_000_001_490_116_12, 2048.0),
            Num::Complex(-0.0, 1.0),
            Num::Complex(3.0, 0.0),
        ],
        DType::Complex128 => vec![
            Num::Complex(0.1, 0.2),
            Num::Complex(1e10, -1.0),
            Num::Complex(-2.5, 0.5),
            Num::Complex(1.5, 0.0),
        ],
    }
}

/// Whether `v` divides without error in every dtype: not 0 (torch raises
/// `ZeroDivisionError` for an integer remainder by zero) nor -1 (`INT_MIN % -1` traps).
fn safe_divisor(v: &Num) -> bool {
    !matches!(v, Num::Int(0 | -1) | Num::Bool(false))
}

/// A `pow` exponent a Python number of `dtype`'s kind gives: small, and a value of `dtype`.
fn pow_numbers(dtype: DType) -> Vec<Num> {
    let candidates = match dtype.category() {
        Category::Bool => vec![Num::Bool(true), Num::Bool(false)],
        Category::Integral => [2, 3, 0, 1, -2].map(Num::Int).to_vec(),
        Category::Floating => [0.5, 2.0, -1.5, 3.0].map(Num::Float).to_vec(),
        Category::Complex => vec![Num::Complex(0.5, 1.0), Num::Complex(2.0, 0.0)],
    };
    candidates
        .into_iter()
        .filter(|v| v.fits_engine_dtype(dtype))
        .collect()
}

/// The Python number for a value (of a bool, int, float or complex kind).
pub fn number_arg(v: Num) -> Arg {
    match v {
        Num::Bool(b) => Arg::Bool(b),
        Num::Int(i) => Arg::Int(i),
        Num::Float(_) => Arg::Float(v),
        Num::Complex(..) => Arg::Complex(v),
    }
}

/// What one operand's values are for.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Role {
    /// Any value of the dtype.
    Any,
    /// A `remainder` divisor: [`safe_divisor`] values.
    Divisor,
    /// A `pow` operand: a random fill (quarter steps, small integers), far from the
    /// special values of `pow`.
    Pow,
}

/// Draws `n` values of `dtype` for `role`.
fn values(u: &mut Unstructured, dtype: DType, n: usize, role: Role) -> GenResult<Vec<Num>> {
    let all = promotion_values(dtype);
    let pool: Vec<Num> = match role {
        Role::Divisor => all.into_iter().filter(safe_divisor).collect(),
        _ => all,
    };
    (0..n).map(|_| u.choose(&pool).copied()).collect()
}

/// A new tensor of `dtype` and `shape` (a random layout, expanded only where `expandable`),
/// its values drawn for `role`.
fn tensor(
    u: &mut Unstructured,
    b: &mut CaseBuilder,
    dtype: DType,
    shape: &[usize],
    role: Role,
    expandable: bool,
) -> GenResult<String> {
    let spec = random_view(u, shape, expandable)?;
    for t in spec.kind.tags() {
        b.tag(t);
    }
    let storage = if role == Role::Pow {
        b.random_fill_storage(u, dtype, spec.storage_len)?
    } else {
        let v = values(u, dtype, spec.storage_len, role)?;
        b.literal_storage(dtype, v)
    };
    Ok(b.tensor(&storage, shape, &spec))
}

/// The operand `b` in `form`: a tensor broadcasting against (2, 3), a 0-d tensor, or a
/// Python number holding a value of `dtype` (tagged `number-of:DTYPE`).
fn second(
    u: &mut Unstructured,
    b: &mut CaseBuilder,
    dtype: DType,
    form: Form,
    role: Role,
) -> GenResult<Arg> {
    Ok(match form {
        Form::Tensor => {
            let shape = u.choose(&[&[3][..], &[1, 3], &[2, 1], &[2, 3]])?.to_vec();
            Arg::Tensor(tensor(u, b, dtype, &shape, role, true)?)
        }
        Form::ZeroDim => {
            b.tag("0-d");
            Arg::Tensor(tensor(u, b, dtype, &[], role, true)?)
        }
        Form::ZeroDimFirst => Arg::Tensor(tensor(u, b, dtype, &[2, 3], role, true)?),
        Form::Number => {
            b.tag("number");
            b.tag(&format!("number-of:{}", dtype.name()));
            let pool = match role {
                Role::Pow => pow_numbers(dtype),
                Role::Divisor => promotion_values(dtype)
                    .into_iter()
                    .filter(safe_divisor)
                    .collect(),
                Role::Any => promotion_values(dtype),
            };
            number_arg(*u.choose(&pool)?)
        }
    })
}

/// The first operand, of `dtype`: (2, 3), or 0-d in [`Form::ZeroDimFirst`].
fn first(
    u: &mut Unstructured,
    b: &mut CaseBuilder,
    dtype: DType,
    form: Form,
    role: Role,
) -> GenResult<Arg> {
    if form == Form::ZeroDimFirst {
        b.tag("0-d");
        return Ok(Arg::Tensor(tensor(u, b, dtype, &[], role, true)?));
    }
    Ok(Arg::Tensor(tensor(u, b, dtype, &[2, 3], role, true)?))
}

/// The roles of the two operands of `op`.
fn roles(op: Op) -> (Role, Role) {
    if op == POW {
        (Role::Pow, Role::Pow)
    } else if op == REMAINDER {
        (Role::Any, Role::Divisor)
    } else {
        (Role::Any, Role::Any)
    }
}

/// Whether torch's result type of `a` against `b` in `form` is `complex32`: a dimensioned
/// `float16` against a complex 0-d tensor or number.
fn complex32(a: DType, b: DType, form: Form) -> bool {
    match form {
        Form::ZeroDim | Form::Number => a == DType::Float16 && b.is_complex(),
        Form::ZeroDimFirst => b == DType::Float16 && a.is_complex(),
        Form::Tensor => false,
    }
}

/// The two operands of `op`, with `pow`'s and complex arithmetic's tolerance.
fn operands(
    u: &mut Unstructured,
    b: &mut CaseBuilder,
    op: Op,
    (da, db): (DType, DType),
    form: Form,
) -> GenResult<Vec<Arg>> {
    let (ra, rb) = roles(op);
    let x = first(u, b, da, form, ra)?;
    let mut y = second(u, b, db, form, rb)?;
    if let Op::Binary(binary) = op {
        binary_tolerance(b, binary);
    }
    if op == REMAINDER {
        y = consistent_divisor(b, &x, y);
    }
    Ok(vec![x, y])
}

/// The `promotion` family drawn at random (fuzz input, the `grad` family's inner draws): a
/// random slot, calling `maximum`/`minimum` where torch computes in `complex32` (see the
/// module's documentation).
pub fn promotion_case(u: &mut Unstructured) -> GenResult<Case> {
    let slot = u.int_in_range(0..=SLOTS - 1)?;
    slot_case_drawn(slot, u, false)
}

/// The case of slot `slot` (below [`SLOTS`]; taken modulo it), its values and layouts drawn
/// from `u`: the enumeration `bcast gen --family promotion` and `bcast diff` walk.
pub fn slot_case(slot: u64, u: &mut Unstructured) -> GenResult<Case> {
    slot_case_drawn(slot, u, true)
}

/// [`slot_case`], or with `complex32_ops` false the random draws' `maximum`/`minimum` in
/// the `complex32` slots.
fn slot_case_drawn(slot: u64, u: &mut Unstructured, complex32_ops: bool) -> GenResult<Case> {
    let slot = slot % SLOTS;
    if slot >= PAIR_SLOTS {
        return triple_case(slot - PAIR_SLOTS, u);
    }
    let (call, form) = BLOCKS[(slot / PAIRS) as usize];
    let pair = (slot % PAIRS) as usize;
    let n = GEN_DTYPES.len();
    let (ia, ib) = (pair / n, pair % n);
    let (da, db) = (GEN_DTYPES[ia], GEN_DTYPES[ib]);
    // The op turns with the pair: every op meets every `b` as `a` varies.
    let turn = ia * 5 + ib + (slot / PAIRS) as usize;
    // Complex `pow` is left to the binary family: torch's complex pow (exp and log in the
    // dtype, vectorised) has errors relative to the result's modulus, which a tolerance per
    // part cannot bound; a complex pair's `pow` slot multiplies instead.
    let complex_pair = da.is_complex() || db.is_complex();
    let pick = |ops: &[Op]| match ops[turn % ops.len()] {
        op if op == POW && complex_pair => MUL,
        op => op,
    };
    let mut b = CaseBuilder::default();
    b.tag("promotion");
    b.tag(form.tag());
    if complex32(da, db, form) {
        b.tag("complex32");
        if !complex32_ops {
            let op = pick(&COMPLEX32_RANDOM);
            let args = operands(u, &mut b, op, (da, db), form)?;
            let name = spelling(u, op.name(), &args[0])?;
            return Ok(b.finish(&name, args));
        }
    }
    match call {
        Call::Arithmetic | Call::Compare => {
            let op = match call {
                Call::Compare => pick(&COMPARE),
                _ if form == Form::Number => pick(&ARITHMETIC_NUMBER),
                _ => pick(&ARITHMETIC),
            };
            let args = operands(u, &mut b, op, (da, db), form)?;
            let name = spelling(u, op.name(), &args[0])?;
            Ok(b.finish(&name, args))
        }
        Call::Where => where_case(u, b, (da, db), form, turn),
        Call::InPlace => {
            b.tag("inplace");
            let op = pick(&IN_PLACE);
            let (ra, rb) = roles(op);
            let target = tensor(u, &mut b, da, &[2, 3], ra, false)?;
            let other = second(u, &mut b, db, form, rb)?;
            if let Op::Binary(binary) = op {
                binary_tolerance(&mut b, binary);
            }
            Ok(b.finish(
                &format!("Tensor.{}_", op.name()),
                vec![Arg::Tensor(target), other],
            ))
        }
        Call::Out => {
            b.tag("out");
            let op = if form == Form::Number {
                pick(&OUT_NUMBER)
            } else {
                pick(&OUT_TENSOR)
            };
            let args = operands(u, &mut b, op, (da, db), form)?;
            // Every out dtype in turn against each pair's result: narrower, wider, refused.
            let out_dtype = GEN_DTYPES[(ia * 7 + ib + form as usize) % n];
            let out = b.view(u, out_dtype, &[2, 3], false)?;
            b.kwarg("out", Arg::Tensor(out));
            Ok(b.finish(&format!("torch.{}", op.name()), args))
        }
    }
}

/// The case of triple slot `slot` (below `TRIPLE_BLOCKS.len() * TRIPLES`): `a` a (2, 3) tensor,
/// `b` and `c` in the block's form. `addcmul` and `addcdiv` take turns (with their values
/// compared within the generators' `approximate` tolerance: the dtype is the point here);
/// the numbers go to `clamp`. Where torch computes in `complex32` (a `float16` `a` with a
/// complex 0-d tensor) the case is tagged `complex32`.
fn triple_case(slot: u64, u: &mut Unstructured) -> GenResult<Case> {
    let form = TRIPLE_BLOCKS[(slot / TRIPLES) as usize];
    let triple = (slot % TRIPLES) as usize;
    let n = GEN_DTYPES.len();
    let (ia, ib, ic) = (triple / (n * n), (triple / n) % n, triple % n);
    let (da, db, dc) = (GEN_DTYPES[ia], GEN_DTYPES[ib], GEN_DTYPES[ic]);
    let mut b = CaseBuilder::default();
    b.tag("promotion");
    b.tag("triple");
    b.tag(form.tag());
    let x = tensor(u, &mut b, da, &[2, 3], Role::Any, true)?;
    let x = Arg::Tensor(x);
    let op = match form {
        Form::Number => "clamp",
        _ if (ia + ib + ic).is_multiple_of(2) => "addcmul",
        _ => "addcdiv",
    };
    let mut args = vec![x];
    for dtype in [db, dc] {
        args.push(match form {
            Form::Tensor => {
                let shape = u.choose(&[&[3][..], &[1, 3], &[2, 1], &[2, 3]])?.to_vec();
                Arg::Tensor(tensor(u, &mut b, dtype, &shape, Role::Any, true)?)
            }
            _ => second(u, &mut b, dtype, form, Role::Any)?,
        });
    }
    if form != Form::Number {
        if form == Form::ZeroDim && da == DType::Float16 && (db.is_complex() || dc.is_complex()) {
            b.tag("complex32");
        }
        if b.has_dtype(|d| d.is_floating() || d.is_complex()) {
            approximate(&mut b);
        }
    }
    let name = spelling(u, op, &args[0])?;
    Ok(b.finish(&name, args))
}

/// `torch.where(c, x, y)` (or `x.where(c, y)`), `x` of `a` and `y` of `b` in `form`; the
/// condition usually bool, one slot in seven of a dtype turning through all twelve (`uint8`
/// warns, the others raise).
fn where_case(
    u: &mut Unstructured,
    mut b: CaseBuilder,
    (da, db): (DType, DType),
    form: Form,
    turn: usize,
) -> GenResult<Case> {
    let cond_dtype = if turn.is_multiple_of(7) {
        GEN_DTYPES[(turn / 7) % GEN_DTYPES.len()]
    } else {
        DType::Bool
    };
    let cond_shape = u.choose(&[&[2, 1][..], &[2, 3], &[3], &[1, 3]])?.to_vec();
    let cond = tensor(u, &mut b, cond_dtype, &cond_shape, Role::Any, true)?;
    let x = tensor(u, &mut b, da, &[2, 3], Role::Any, true)?;
    let y = second(u, &mut b, db, form, Role::Any)?;
    if u.ratio(1, 4)? {
        return Ok(b.finish("Tensor.where", vec![Arg::Tensor(x), Arg::Tensor(cond), y]));
    }
    Ok(b.finish("torch.where", vec![Arg::Tensor(cond), Arg::Tensor(x), y]))
}

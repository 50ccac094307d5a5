//! Element-wise ops: binary arithmetic, comparisons, logical and bitwise ops, shifts, `gcd`
//! and `lcm` (with their in-place `Tensor.X_` and `out=` forms), unary ops, `where` and
//! `copy_`.

use super::raw::{
    call, ptr, scalar_tensor, scalar_tensor_out, tensor_scalar, tensor_scalar_out, RawScalar,
};
use super::{shim, unsupported, CallResult, Operand, TchArgs, TchCallError, TchValue};
use crate::case::Arg;
use tch::{TchError, Tensor};

type R = Result<Tensor, TchError>;
type Tt<'a> = Box<dyn Fn(&Tensor, &Tensor) -> R + 'a>;
type Ts<'a> = Box<dyn Fn(&Tensor, &RawScalar) -> R + 'a>;
type St<'a> = Box<dyn Fn(&RawScalar, &Tensor) -> R + 'a>;
type TtIn<'a> = Box<dyn Fn(&mut Tensor, &Tensor) -> R + 'a>;
/// `(out, self, other)`.
type TtOut<'a> = Box<dyn Fn(&Tensor, &Tensor, &Tensor) -> R + 'a>;
type TsOut<'a> = Box<dyn Fn(&Tensor, &Tensor, &RawScalar) -> R + 'a>;
type StOut<'a> = Box<dyn Fn(&Tensor, &RawScalar, &Tensor) -> R + 'a>;

/// Where Python's argument parser takes a number in place of a tensor (checked in torch
/// 2.13.0: `torch.maximum(t, 2)` and `torch.lt(2, t)` raise TypeError).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Numbers {
    Neither,
    Second,
    Both,
}

/// The libtorch forms of one binary op: tensor-tensor, with a Scalar second or first, in
/// place, and `out=`. Where a Scalar form is missing, Python passes the number as a wrapped
/// number to the tensor form.
struct Binary<'a> {
    numbers: Numbers,
    tt: Tt<'a>,
    ts: Option<Ts<'a>>,
    st: Option<St<'a>>,
    tt_in: Option<TtIn<'a>>,
    ts_in: Option<Ts<'a>>,
    tt_out: Option<TtOut<'a>>,
    ts_out: Option<TsOut<'a>>,
    st_out: Option<StOut<'a>>,
}

impl<'a> Binary<'a> {
    fn new(numbers: Numbers, tt: impl Fn(&Tensor, &Tensor) -> R + 'a) -> Binary<'a> {
        Binary {
            numbers,
            tt: Box::new(tt),
            ts: None,
            st: None,
            tt_in: None,
            ts_in: None,
            tt_out: None,
            ts_out: None,
            st_out: None,
        }
    }
    fn ts(mut self, f: impl Fn(&Tensor, &RawScalar) -> R + 'a) -> Self {
        self.ts = Some(Box::new(f));
        self
    }
    fn st(mut self, f: impl Fn(&RawScalar, &Tensor) -> R + 'a) -> Self {
        self.st = Some(Box::new(f));
        self
    }
    fn tt_in(mut self, f: impl Fn(&mut Tensor, &Tensor) -> R + 'a) -> Self {
        self.tt_in = Some(Box::new(f));
        self
    }
    fn ts_in(mut self, f: impl Fn(&Tensor, &RawScalar) -> R + 'a) -> Self {
        self.ts_in = Some(Box::new(f));
        self
    }
    fn tt_out(mut self, f: impl Fn(&Tensor, &Tensor, &Tensor) -> R + 'a) -> Self {
        self.tt_out = Some(Box::new(f));
        self
    }
    fn ts_out(mut self, f: impl Fn(&Tensor, &Tensor, &RawScalar) -> R + 'a) -> Self {
        self.ts_out = Some(Box::new(f));
        self
    }
    fn st_out(mut self, f: impl Fn(&Tensor, &RawScalar, &Tensor) -> R + 'a) -> Self {
        self.st_out = Some(Box::new(f));
        self
    }
}

/// Python names of the binary ops (aliases included; `torch.special` ones with their
/// namespace).
const BINARY: [&str; 54] = [
    "add",
    "sub",
    "subtract",
    "mul",
    "multiply",
    "div",
    "divide",
    "true_divide",
    "floor_divide",
    "remainder",
    "fmod",
    "pow",
    "maximum",
    "minimum",
    "fmax",
    "fmin",
    "atan2",
    "arctan2",
    "hypot",
    "copysign",
    "eq",
    "ne",
    "not_equal",
    "lt",
    "less",
    "le",
    "less_equal",
    "gt",
    "greater",
    "ge",
    "greater_equal",
    "logical_and",
    "logical_or",
    "logical_xor",
    "bitwise_and",
    "bitwise_or",
    "bitwise_xor",
    "nextafter",
    "ldexp",
    "logaddexp",
    "logaddexp2",
    "xlogy",
    "special.xlogy",
    "special.xlog1py",
    "special.zeta",
    "float_power",
    "heaviside",
    "rsub",
    "bitwise_left_shift",
    "bitwise_right_shift",
    "gcd",
    "lcm",
    "max",
    "min",
];

/// The libtorch forms of binary op `name`; `mode` is `div`'s `rounding_mode`.
fn binary<'a>(name: &str, mode: Option<&'a str>) -> Option<Binary<'a>> {
    use Numbers::*;
    // Tensor forms come from tch; Scalar forms from torch-sys (see `raw.rs`). add, sub, mul
    // and div take only tensors in Python (a number becomes a wrapped-number tensor), so they
    // get no Scalar forms: `mul.Scalar_out` checks `out=` differently from `mul.out`.
    macro_rules! op {
        ($numbers:expr, $tt:ident, $tt_in:ident, $tt_out:ident) => {
            Binary::new($numbers, Tensor::$tt)
                .tt_in(Tensor::$tt_in)
                .tt_out(|o, a, b| a.$tt_out(o, b))
        };
        ($numbers:expr, $tt:ident, $tt_in:ident, $tt_out:ident;
         $ts:ident, $ts_in:ident, $ts_out:ident) => {
            op!($numbers, $tt, $tt_in, $tt_out)
                .ts(tensor_scalar!($ts))
                .ts_in(tensor_scalar!($ts_in))
                .ts_out(tensor_scalar_out!($ts_out))
        };
        ($numbers:expr, $tt:ident, $tt_in:ident, $tt_out:ident;
         $ts:ident, $ts_in:ident, $ts_out:ident; $st:ident, $st_out:ident) => {
            op!($numbers, $tt, $tt_in, $tt_out; $ts, $ts_in, $ts_out)
                .st(scalar_tensor!($st))
                .st_out(scalar_tensor_out!($st_out))
        };
    }
    let out_only = |tt: fn(&Tensor, &Tensor) -> R, tt_out: fn(&Tensor, &Tensor, &Tensor) -> R| {
        Binary::new(Neither, tt).tt_out(move |o, a, b| tt_out(a, o, b))
    };
    Some(match (name, mode) {
        ("add", _) => op!(Both, f_add, f_add_, f_add_out),
        ("sub" | "subtract", _) => op!(Both, f_sub, f_sub_, f_sub_out),
        ("mul" | "multiply", _) => op!(Both, f_mul, f_mul_, f_mul_out),
        ("div" | "divide", None) => op!(Both, f_div, f_div_, f_div_out),
        ("div" | "divide", Some(m)) => Binary::new(Both, move |a, b| a.f_div_tensor_mode(b, m))
            .tt_in(move |a, b| a.f_div_tensor_mode_(b, m))
            .tt_out(move |o, a, b| a.f_div_out_mode(o, b, m)),
        ("true_divide", _) => op!(Both, f_true_divide, f_true_divide_, f_true_divide_out)
            .ts(tensor_scalar!(atg_true_divide_scalar))
            .ts_in(tensor_scalar!(atg_true_divide_scalar_)),
        // Python's Scalar overload has no `out=`: with one, the number is a wrapped tensor.
        ("floor_divide", _) => op!(Both, f_floor_divide, f_floor_divide_, f_floor_divide_out)
            .ts(tensor_scalar!(atg_floor_divide_scalar))
            .ts_in(tensor_scalar!(atg_floor_divide_scalar_)),
        ("remainder", _) => {
            op!(Both, f_remainder_tensor, f_remainder_tensor_, f_remainder_tensor_out;
            atg_remainder, atg_remainder_, atg_remainder_scalar_out;
            atg_remainder_scalar_tensor, atg_remainder_scalar_tensor_out)
        }
        ("fmod", _) => op!(Second, f_fmod_tensor, f_fmod_tensor_, f_fmod_tensor_out;
            atg_fmod, atg_fmod_, atg_fmod_scalar_out),
        ("pow", _) => op!(Both, f_pow, f_pow_tensor_, f_pow_tensor_tensor_out;
            atg_pow_tensor_scalar, atg_pow_, atg_pow_tensor_scalar_out;
            atg_pow_scalar, atg_pow_scalar_out),
        ("maximum", _) => out_only(Tensor::f_maximum, Tensor::f_maximum_out),
        ("minimum", _) => out_only(Tensor::f_minimum, Tensor::f_minimum_out),
        ("fmax", _) => out_only(Tensor::f_fmax, Tensor::f_fmax_out),
        ("fmin", _) => out_only(Tensor::f_fmin, Tensor::f_fmin_out),
        ("atan2" | "arctan2", _) => op!(Neither, f_atan2, f_atan2_, f_atan2_out),
        ("hypot", _) => op!(Neither, f_hypot, f_hypot_, f_hypot_out),
        ("logical_and", _) => op!(Neither, f_logical_and, f_logical_and_, f_logical_and_out),
        ("logical_or", _) => op!(Neither, f_logical_or, f_logical_or_, f_logical_or_out),
        ("logical_xor", _) => op!(Neither, f_logical_xor, f_logical_xor_, f_logical_xor_out),
        ("copysign", _) => op!(Second, f_copysign, f_copysign_, f_copysign_out;
            atg_copysign_scalar, atg_copysign_scalar_, atg_copysign_scalar_out),
        ("eq", _) => op!(Second, f_eq_tensor, f_eq_tensor_, f_eq_tensor_out;
            atg_eq, atg_eq_, atg_eq_scalar_out),
        ("ne" | "not_equal", _) => op!(Second, f_ne_tensor, f_ne_tensor_, f_ne_tensor_out;
            atg_ne, atg_ne_, atg_ne_scalar_out),
        ("lt" | "less", _) => op!(Second, f_lt_tensor, f_lt_tensor_, f_lt_tensor_out;
            atg_lt, atg_lt_, atg_lt_scalar_out),
        ("le" | "less_equal", _) => op!(Second, f_le_tensor, f_le_tensor_, f_le_tensor_out;
            atg_le, atg_le_, atg_le_scalar_out),
        ("gt" | "greater", _) => op!(Second, f_gt_tensor, f_gt_tensor_, f_gt_tensor_out;
            atg_gt, atg_gt_, atg_gt_scalar_out),
        ("ge" | "greater_equal", _) => op!(Second, f_ge_tensor, f_ge_tensor_, f_ge_tensor_out;
            atg_ge, atg_ge_, atg_ge_scalar_out),
        ("bitwise_and", _) => {
            op!(Both, f_bitwise_and_tensor, f_bitwise_and_tensor_, f_bitwise_and_tensor_out;
            atg_bitwise_and, atg_bitwise_and_, atg_bitwise_and_scalar_out;
            atg_bitwise_and_scalar_tensor, atg_bitwise_and_scalar_tensor_out)
        }
        ("bitwise_or", _) => {
            op!(Both, f_bitwise_or_tensor, f_bitwise_or_tensor_, f_bitwise_or_tensor_out;
            atg_bitwise_or, atg_bitwise_or_, atg_bitwise_or_scalar_out;
            atg_bitwise_or_scalar_tensor, atg_bitwise_or_scalar_tensor_out)
        }
        ("bitwise_xor", _) => {
            op!(Both, f_bitwise_xor_tensor, f_bitwise_xor_tensor_, f_bitwise_xor_tensor_out;
            atg_bitwise_xor, atg_bitwise_xor_, atg_bitwise_xor_scalar_out;
            atg_bitwise_xor_scalar_tensor, atg_bitwise_xor_scalar_tensor_out)
        }
        ("bitwise_left_shift", _) => op!(Both, f_bitwise_left_shift, f_bitwise_left_shift_,
            f_bitwise_left_shift_tensor_out;
            atg_bitwise_left_shift_tensor_scalar, atg_bitwise_left_shift_tensor_scalar_,
            atg_bitwise_left_shift_tensor_scalar_out;
            atg_bitwise_left_shift_scalar_tensor, atg_bitwise_left_shift_scalar_tensor_out),
        ("bitwise_right_shift", _) => op!(Both, f_bitwise_right_shift, f_bitwise_right_shift_,
            f_bitwise_right_shift_tensor_out;
            atg_bitwise_right_shift_tensor_scalar, atg_bitwise_right_shift_tensor_scalar_,
            atg_bitwise_right_shift_tensor_scalar_out;
            atg_bitwise_right_shift_scalar_tensor, atg_bitwise_right_shift_scalar_tensor_out),
        ("gcd", _) => op!(Neither, f_gcd, f_gcd_, f_gcd_out),
        ("lcm", _) => op!(Neither, f_lcm, f_lcm_, f_lcm_out),
        // `torch.max(a, b)`: two tensors, the element-wise maximum (`max.other`, `max.out`).
        ("max", _) => out_only(Tensor::f_max_other, Tensor::f_max_out),
        ("min", _) => out_only(Tensor::f_min_other, Tensor::f_min_out),
        ("nextafter", _) => op!(Neither, f_nextafter, f_nextafter_, f_nextafter_out),
        ("ldexp", _) => op!(Neither, f_ldexp, f_ldexp_, f_ldexp_out),
        ("heaviside", _) => op!(Neither, f_heaviside, f_heaviside_, f_heaviside_out),
        ("logaddexp", _) => out_only(Tensor::f_logaddexp, Tensor::f_logaddexp_out),
        ("logaddexp2", _) => out_only(Tensor::f_logaddexp2, Tensor::f_logaddexp2_out),
        ("xlogy", _) => op!(Both, f_xlogy, f_xlogy_, f_xlogy_outtensor;
            atg_xlogy_scalar_other, atg_xlogy_scalar_other_, atg_xlogy_outscalar_other;
            atg_xlogy_scalar_self, atg_xlogy_outscalar_self),
        ("special.xlogy", _) => Binary::new(Both, Tensor::f_special_xlogy)
            .tt_out(|o, a, b| a.f_special_xlogy_out(o, b))
            .ts(tensor_scalar!(atg_special_xlogy_other_scalar))
            .ts_out(tensor_scalar_out!(atg_special_xlogy_other_scalar_out))
            .st(scalar_tensor!(atg_special_xlogy_self_scalar))
            .st_out(scalar_tensor_out!(atg_special_xlogy_self_scalar_out)),
        ("special.xlog1py", _) => Binary::new(Both, Tensor::f_special_xlog1py)
            .tt_out(|o, a, b| a.f_special_xlog1py_out(o, b))
            .ts(tensor_scalar!(atg_special_xlog1py_other_scalar))
            .ts_out(tensor_scalar_out!(atg_special_xlog1py_other_scalar_out))
            .st(scalar_tensor!(atg_special_xlog1py_self_scalar))
            .st_out(scalar_tensor_out!(atg_special_xlog1py_self_scalar_out)),
        ("special.zeta", _) => Binary::new(Both, Tensor::f_special_zeta)
            .tt_out(|o, a, b| a.f_special_zeta_out(o, b))
            .ts(tensor_scalar!(atg_special_zeta_other_scalar))
            .ts_out(tensor_scalar_out!(atg_special_zeta_other_scalar_out))
            .st(scalar_tensor!(atg_special_zeta_self_scalar))
            .st_out(scalar_tensor_out!(atg_special_zeta_self_scalar_out)),
        // float_power's Scalar overloads compute differently (pow by a number), so Python's
        // numbers go to them.
        ("float_power", _) => Binary::new(Both, Tensor::f_float_power)
            .tt_in(Tensor::f_float_power_tensor_)
            .tt_out(|o, a, b| a.f_float_power_tensor_tensor_out(o, b))
            .ts(tensor_scalar!(atg_float_power_tensor_scalar))
            .ts_in(tensor_scalar!(atg_float_power_))
            .ts_out(tensor_scalar_out!(atg_float_power_tensor_scalar_out))
            .st(scalar_tensor!(atg_float_power_scalar))
            .st_out(scalar_tensor_out!(atg_float_power_scalar_out)),
        ("rsub", _) => Binary::new(Second, Tensor::f_rsub).ts(tensor_scalar!(atg_rsub_scalar)),
        _ => return None,
    })
}

type Unary = (
    fn(&Tensor) -> R,
    Option<fn(&mut Tensor) -> R>,
    fn(&Tensor, &Tensor) -> R,
);

/// Python names of the unary ops.
const UNARY: [&str; 27] = [
    "abs",
    "absolute",
    "neg",
    "negative",
    "exp",
    "exp2",
    "expm1",
    "log",
    "log2",
    "log10",
    "log1p",
    "sqrt",
    "rsqrt",
    "sin",
    "cos",
    "tan",
    "tanh",
    "sigmoid",
    "floor",
    "ceil",
    "round",
    "trunc",
    "frac",
    "sign",
    "reciprocal",
    "logical_not",
    "bitwise_not",
];

/// The tch forms of unary op `name`: plain, in place, and `(self, out)`.
fn unary(name: &str) -> Option<Unary> {
    macro_rules! u {
        ($f:ident, $f_in:ident, $f_out:ident) => {
            (Tensor::$f, Some(Tensor::$f_in), Tensor::$f_out)
        };
    }
    Some(match name {
        "abs" | "absolute" => u!(f_abs, f_abs_, f_abs_out),
        "neg" | "negative" => u!(f_neg, f_neg_, f_neg_out),
        "exp" => u!(f_exp, f_exp_, f_exp_out),
        "exp2" => u!(f_exp2, f_exp2_, f_exp2_out),
        "expm1" => u!(f_expm1, f_expm1_, f_expm1_out),
        "log" => u!(f_log, f_log_, f_log_out),
        "log2" => u!(f_log2, f_log2_, f_log2_out),
        "log10" => u!(f_log10, f_log10_, f_log10_out),
        "log1p" => u!(f_log1p, f_log1p_, f_log1p_out),
        "sqrt" => u!(f_sqrt, f_sqrt_, f_sqrt_out),
        "rsqrt" => u!(f_rsqrt, f_rsqrt_, f_rsqrt_out),
        "sin" => u!(f_sin, f_sin_, f_sin_out),
        "cos" => u!(f_cos, f_cos_, f_cos_out),
        "tan" => u!(f_tan, f_tan_, f_tan_out),
        "tanh" => u!(f_tanh, f_tanh_, f_tanh_out),
        "sigmoid" => u!(f_sigmoid, f_sigmoid_, f_sigmoid_out),
        "floor" => u!(f_floor, f_floor_, f_floor_out),
        "ceil" => u!(f_ceil, f_ceil_, f_ceil_out),
        "round" => u!(f_round, f_round_, f_round_out),
        "trunc" => u!(f_trunc, f_trunc_, f_trunc_out),
        "frac" => u!(f_frac, f_frac_, f_frac_out),
        "sign" => u!(f_sign, f_sign_, f_sign_out),
        "reciprocal" => u!(f_reciprocal, f_reciprocal_, f_reciprocal_out),
        "logical_not" => u!(f_logical_not, f_logical_not_, f_logical_not_out),
        "bitwise_not" => u!(f_bitwise_not, f_bitwise_not_, f_bitwise_not_out),
        _ => return None,
    })
}

/// How a name calls its op.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(super) enum Form {
    /// `torch.X(...)`.
    Function,
    /// `Tensor.X(...)`.
    Method,
    /// `Tensor.X_(...)`.
    InPlace,
}

pub(super) fn split_name(name: &str) -> Option<(Form, &str)> {
    if let Some(base) = name.strip_prefix("torch.") {
        return Some((Form::Function, base));
    }
    let base = name.strip_prefix("Tensor.")?;
    Some(match base.strip_suffix('_') {
        Some(b) => (Form::InPlace, b),
        None => (Form::Method, base),
    })
}

/// Runs `name` if it is an element-wise op; `None` when it is not.
pub fn dispatch(name: &str, a: &TchArgs) -> Option<CallResult> {
    let (form, base) = split_name(name)?;
    match (form, base) {
        (Form::Function | Form::Method, "where") => return Some(where_(a, form)),
        (Form::InPlace, "copy") => return Some(copy_(a)),
        _ => {}
    }
    if BINARY.contains(&base) {
        let mode = match a.kwarg("rounding_mode") {
            Some(arg) => match a.as_str(arg) {
                Ok(m) => Some(m),
                Err(e) => return Some(Err(e.into())),
            },
            None => None,
        };
        let op = binary(base, mode)?;
        return Some(run_binary(&op, a, form, name));
    }
    if UNARY.contains(&base) {
        return Some(run_unary(unary(base)?, a, form, name));
    }
    None
}

/// The failure for a call Python's argument parser rejects before reaching libtorch.
fn python_type_error<T>(name: &str, what: &str) -> Result<T, TchCallError> {
    unsupported(format!(
        "Python-only: {name} raises TypeError in Python's argument parser ({what})"
    ))
}

fn out_tensor(a: &TchArgs, form: Form, name: &str) -> Result<Option<Tensor>, TchCallError> {
    match a.kwarg("out") {
        None => Ok(None),
        Some(_) if form != Form::Function => python_type_error(name, "a method takes no out="),
        Some(arg) => Ok(Some(a.as_tensor(arg)?)),
    }
}

fn run_binary(op: &Binary, a: &TchArgs, form: Form, name: &str) -> CallResult {
    a.only_kwargs(&["input", "other", "out", "rounding_mode", "alpha"])?;
    let first = a.param(0, "input").ok_or_else(|| missing(name))?;
    let second = a.param(1, "other").ok_or_else(|| missing(name))?;
    if a.len() > 2 {
        return python_type_error(name, "too many arguments");
    }
    let x = a.as_operand(first)?;
    let y = a.as_operand(second)?;
    let out = out_tensor(a, form, name)?;
    let number_ok = |position: Numbers| op.numbers == Numbers::Both || op.numbers == position;
    if let Some(alpha) = a.kwarg("alpha") {
        return with_alpha(a.as_operand(alpha)?, x, y, out, form, name, number_ok);
    }
    let result = match (x, y) {
        (Operand::Tensor(mut x), y) if form == Form::InPlace => {
            let Some(tt_in) = &op.tt_in else {
                return unsupported(format!("Python-only: {name} does not exist"));
            };
            match y {
                Operand::Tensor(y) => tt_in(&mut x, &y),
                Operand::Number(_) if !number_ok(Numbers::Second) => {
                    return python_type_error(name, "a number as the second argument")
                }
                Operand::Number(n) => match &op.ts_in {
                    Some(ts_in) => ts_in(&x, &n.scalar()),
                    None => tt_in(&mut x, &n.wrapped()?),
                },
            }
        }
        (Operand::Tensor(x), Operand::Tensor(y)) => match &out {
            None => (op.tt)(&x, &y),
            Some(o) => with_out(&op.tt_out, name)?(o, &x, &y),
        },
        (Operand::Tensor(_), Operand::Number(_)) if !number_ok(Numbers::Second) => {
            return python_type_error(name, "a number as the second argument")
        }
        (Operand::Tensor(x), Operand::Number(n)) => match (&out, &op.ts, &op.ts_out) {
            (None, Some(ts), _) => ts(&x, &n.scalar()),
            (Some(o), _, Some(ts_out)) => ts_out(o, &x, &n.scalar()),
            (None, ..) => (op.tt)(&x, &n.wrapped()?),
            (Some(o), ..) => with_out(&op.tt_out, name)?(o, &x, &n.wrapped()?),
        },
        (Operand::Number(_), Operand::Tensor(_)) if op.numbers != Numbers::Both => {
            return python_type_error(name, "a number as the first argument")
        }
        (Operand::Number(n), Operand::Tensor(y)) => match (&out, &op.st, &op.st_out) {
            (None, Some(st), _) => st(&n.scalar(), &y),
            (Some(o), _, Some(st_out)) => st_out(o, &n.scalar(), &y),
            (None, ..) => (op.tt)(&n.wrapped()?, &y),
            (Some(o), ..) => with_out(&op.tt_out, name)?(o, &n.wrapped()?, &y),
        },
        (Operand::Number(_), Operand::Number(_)) if op.numbers != Numbers::Both => {
            return python_type_error(name, "a number as the first argument")
        }
        // `torch.add(2, 3)`: Python passes both as wrapped-number tensors.
        (Operand::Number(n), Operand::Number(m)) => match &out {
            None => (op.tt)(&n.wrapped()?, &m.wrapped()?),
            Some(o) => with_out(&op.tt_out, name)?(o, &n.wrapped()?, &m.wrapped()?),
        },
    };
    Ok(TchValue::Tensor(result?))
}

/// `add`/`sub` with `alpha=`, through the shim's `at::add`/`at::sub` (tch has no alpha): a
/// number operand becomes the wrapped-number tensor Python passes.
fn with_alpha(
    alpha: Operand,
    x: Operand,
    y: Operand,
    out: Option<Tensor>,
    form: Form,
    name: &str,
    number_ok: impl Fn(Numbers) -> bool,
) -> CallResult {
    let base = name
        .rsplit('.')
        .next()
        .unwrap_or(name)
        .trim_end_matches('_');
    let op = match base {
        "add" => shim::AlphaOp::Add,
        "sub" | "subtract" => shim::AlphaOp::Sub,
        "rsub" => shim::AlphaOp::Rsub,
        _ => return python_type_error(name, "alpha= is a keyword of add, sub and rsub only"),
    };
    // Python's parser takes a number or a 0-d tensor (checked before: `pyargs`) for alpha.
    let alpha = match alpha {
        Operand::Number(n) => n.scalar(),
        Operand::Tensor(t) => RawScalar::item_of(&t)?,
    };
    // A number may come first only where both may be numbers (as in `run_binary`).
    let tensor = |operand: Operand, first: bool| -> Result<Tensor, TchCallError> {
        match operand {
            Operand::Tensor(t) => Ok(t),
            Operand::Number(_) if first && !number_ok(Numbers::Both) => {
                python_type_error(name, "a number as the first argument")
            }
            Operand::Number(_) if !first && !number_ok(Numbers::Second) => {
                python_type_error(name, "a number as the second argument")
            }
            Operand::Number(n) => Ok(n.wrapped()?),
        }
    };
    if matches!(x, Operand::Number(_)) && form == Form::InPlace {
        return python_type_error(name, "a number to update in place");
    }
    let x = tensor(x, true)?;
    let y = tensor(y, false)?;
    let where_to = match (form, &out) {
        (Form::InPlace, _) => shim::Destination::InPlace,
        (_, Some(o)) => shim::Destination::Out(o),
        (_, None) => shim::Destination::Plain,
    };
    Ok(TchValue::Tensor(shim::add_alpha(
        &x, &y, &alpha, op, where_to,
    )?))
}

fn with_out<'f, F: ?Sized>(form: &'f Option<Box<F>>, name: &str) -> Result<&'f F, TchCallError> {
    match form {
        Some(f) => Ok(f),
        None => unsupported(format!("{name}: tch has no out= form")),
    }
}

fn missing(name: &str) -> TchCallError {
    TchCallError::Unsupported(format!("{name}: missing argument"))
}

fn run_unary(op: Unary, a: &TchArgs, form: Form, name: &str) -> CallResult {
    a.only_kwargs(&["input", "out", "decimals"])?;
    let (plain, in_place, with_out) = op;
    let x = match a.as_operand(a.param(0, "input").ok_or_else(|| missing(name))?)? {
        Operand::Tensor(t) => t,
        Operand::Number(_) => return python_type_error(name, "a number instead of a tensor"),
    };
    if a.len() > 1 {
        return python_type_error(name, "too many arguments");
    }
    let out = out_tensor(a, form, name)?;
    if let Some(d) = a.kwarg("decimals") {
        if !name.ends_with("round") && !name.ends_with("round_") {
            return python_type_error(name, "decimals= is a keyword of round only");
        }
        let d = a.as_int(d)?;
        let result = match (form, out) {
            (Form::InPlace, _) => x.shallow_clone().f_round_decimals_(d),
            (_, Some(o)) => x.f_round_decimals_out(&o, d),
            (_, None) => x.f_round_decimals(d),
        };
        return Ok(TchValue::Tensor(result?));
    }
    let result = match (form, out) {
        (Form::InPlace, _) => match in_place {
            Some(f) => f(&mut x.shallow_clone()),
            None => return unsupported(format!("Python-only: {name} does not exist")),
        },
        (_, Some(o)) => with_out(&x, &o),
        (_, None) => plain(&x),
    };
    Ok(TchValue::Tensor(result?))
}

/// `torch.where(cond)`, `torch.where(cond, x, y, out=)` and `x.where(cond, y)`.
fn where_(a: &TchArgs, form: Form) -> CallResult {
    let name = if form == Form::Method {
        "Tensor.where"
    } else {
        "torch.where"
    };
    a.only_kwargs(&["condition", "input", "self", "other", "out"])?;
    let (cond, x, y) = match form {
        Form::Method => (a.param(1, "condition"), a.get(0), a.param(2, "other")),
        _ => (
            a.param(0, "condition"),
            a.param(1, "input"),
            a.param(2, "other"),
        ),
    };
    let cond = a.as_tensor(cond.ok_or_else(|| missing(name))?)?;
    let out = out_tensor(a, form, name)?;
    let (x, y) = match (x, y) {
        (None, None) if form == Form::Function && out.is_none() => {
            return Ok(TchValue::Tensors(Tensor::f_where_(&cond)?));
        }
        (Some(x), Some(y)) => (a.as_operand(x)?, a.as_operand(y)?),
        _ => return Err(missing(name)),
    };
    let result = match (x, y, out) {
        (Operand::Tensor(x), Operand::Tensor(y), None) => x.f_where_self(&cond, &y),
        (Operand::Tensor(x), Operand::Tensor(y), Some(o)) => x.f_where_self_out(&o, &cond, &y),
        (_, _, Some(_)) => return python_type_error(name, "a number with out="),
        (Operand::Tensor(x), Operand::Number(n), None) => {
            let s = n.scalar();
            call(|o| unsafe {
                torch_sys::c_generated::atg_where_scalarother(o, ptr(&cond), ptr(&x), s.as_ptr())
            })
        }
        (Operand::Number(n), Operand::Tensor(y), None) => {
            let s = n.scalar();
            call(|o| unsafe {
                torch_sys::c_generated::atg_where_scalarself(o, ptr(&cond), s.as_ptr(), ptr(&y))
            })
        }
        (Operand::Number(p), Operand::Number(q), None) => {
            let (p, q) = (p.scalar(), q.scalar());
            call(|o| unsafe {
                torch_sys::c_generated::atg_where_scalar(o, ptr(&cond), p.as_ptr(), q.as_ptr())
            })
        }
    };
    Ok(TchValue::Tensor(result?))
}

/// `x.copy_(src)`: returns `x`.
fn copy_(a: &TchArgs) -> CallResult {
    a.only_kwargs(&["src", "non_blocking"])?;
    let mut x = a.tensor(0)?;
    let src = match a.as_operand(a.param(1, "src").ok_or_else(|| missing("Tensor.copy_"))?)? {
        Operand::Tensor(t) => t,
        Operand::Number(n) => n.wrapped()?,
    };
    if let Some(arg) = a.param(2, "non_blocking")
        && !matches!(arg, Arg::Bool(false))
    {
        return unsupported("Tensor.copy_: non_blocking on the CPU");
    }
    x.f_copy_(&src)?;
    Ok(TchValue::Tensor(x))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn every_listed_op_has_its_forms() {
        for n in BINARY {
            assert!(binary(n, None).is_some(), "{n}");
            assert!(binary(n, Some("floor")).is_some(), "{n}");
        }
        for n in UNARY {
            assert!(unary(n).is_some(), "{n}");
        }
        assert!(binary("frobnicate", None).is_none());
    }

    #[test]
    fn names_split_into_forms() {
        assert_eq!(split_name("torch.add"), Some((Form::Function, "add")));
        assert_eq!(split_name("Tensor.add"), Some((Form::Method, "add")));
        assert_eq!(split_name("Tensor.add_"), Some((Form::InPlace, "add")));
        assert_eq!(split_name("getitem"), None);
    }
}

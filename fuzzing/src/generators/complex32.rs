//! The `complex32` family: the other families' calls with `complex32` (torch's `ComplexHalf`)
//! tensors. A case of an inner family is drawn as that family draws it, then some of its
//! storages (the first that is not `bool` always) and now and then a `dtype=` argument become
//! `complex32`, each
//! value rounded to `float16` in both parts (an integer past 65504 becomes an infinity, as
//! torch's conversion gives). So every op meets `complex32` operands in the layouts, shapes,
//! numbers, `out=` and in-place forms its family draws: views and copies in and out of every
//! dtype, the few kernels torch has for `ComplexHalf` on the CPU (`add`, `sub`, `mul`, `eq`,
//! `ne`, `where`, `masked_fill`, `addcmul`, `neg`, `abs`, `var`, `std`), and the `"..." not
//! implemented for 'ComplexHalf'` of all the others.
//!
//! The other families never draw `complex32` themselves (it is not among [`GEN_DTYPES`]), so
//! their recorded corpus files keep their draws.
//!
//! ```
//! use bcast_fuzzing::generators::{find_family, generate};
//! let case = generate(find_family("complex32").unwrap(), 1, 0);
//! assert!(case.storages.values().any(|s| s.dtype == "complex32"));
//! assert!(case.tags.iter().any(|t| t == "complex32"));
//! ```
//!
//! [`GEN_DTYPES`]: super::GEN_DTYPES

use super::{find_family, GenResult};
use arbitrary::Unstructured;
use bcast_conformance::case::{Arg, Case, Num, Tolerance};
use bcast_engine::half::Half;

/// The families a case is drawn from, the element-wise ones (where `complex32` has kernels)
/// more often.
const INNER: &[&str] = &[
    "binary",
    "binary",
    "binary",
    "compare",
    "compare",
    "where",
    "where",
    "ternary",
    "ternary",
    "inplace",
    "out",
    "copy",
    "copy",
    "views",
    "views",
    "expand",
    "broadcast_tensors",
    "strides",
    "unary",
    "unary_more",
    "reduce",
    "matmul",
    "einsum",
    "binary_math",
    "bitwise",
    "reflected",
    "queries",
    "pyargs",
    "promotion",
];

/// How many inner cases one case may draw before one has a storage to retype.
const DRAWS: usize = 8;

/// The name of the dtype.
const COMPLEX32: &str = "complex32";

/// One case of the family.
pub fn complex32_case(u: &mut Unstructured) -> GenResult<Case> {
    for _ in 0..DRAWS {
        let name = *u.choose(INNER)?;
        let family = find_family(name).ok_or(arbitrary::Error::IncorrectFormat)?;
        let mut case = (family.generate)(u)?;
        if case.storages.is_empty() {
            continue;
        }
        retype(u, &mut case)?;
        return Ok(case);
    }
    // Every draw was of shapes alone: a copy of a complex32 tensor.
    let mut b = super::CaseBuilder::default();
    let x = b.view(u, bcast_engine::DType::Complex32, &[2, 3], true)?;
    let case = b.finish("Tensor.clone", vec![Arg::Tensor(x)]);
    Ok(case)
}

/// Makes the first storage of `case` that is not `bool` (a condition or a mask; the first
/// when all are) `complex32`, each other one with probability 1/2 (a `bool` one 1/8), and a
/// `dtype=` argument with probability 1/4; tags the case `complex32`; widens its tolerance, if
/// it has one, to `float16`'s (two ulps), and gives `var`/`std` that tolerance (torch reduces
/// the parts in `float32` and rounds each to `float16`).
fn retype(u: &mut Unstructured, case: &mut Case) -> GenResult<()> {
    let names: Vec<String> = case.storages.keys().cloned().collect();
    let is_bool = |name: &String| case.storages[name].dtype == "bool";
    let first = names.iter().position(|n| !is_bool(n)).unwrap_or(0);
    let chosen: Vec<bool> = names
        .iter()
        .enumerate()
        .map(|(i, name)| {
            Ok(i == first
                || if is_bool(name) {
                    u.ratio(1, 8)?
                } else {
                    u.ratio(1, 2)?
                })
        })
        .collect::<GenResult<_>>()?;
    for (name, chosen) in names.iter().zip(chosen) {
        if chosen && let Some(spec) = case.storages.get_mut(name) {
            spec.dtype = COMPLEX32.to_string();
            if let Some(values) = spec.values.as_mut() {
                for v in values.iter_mut() {
                    *v = complex_half(*v);
                }
            }
        }
    }
    let args = case
        .call
        .args
        .iter_mut()
        .chain(case.call.kwargs.values_mut());
    for arg in args {
        if matches!(arg, Arg::Dtype(_)) && u.ratio(1, 4)? {
            *arg = Arg::Dtype(COMPLEX32.to_string());
        }
    }
    if !case.tags.iter().any(|t| t == COMPLEX32) {
        case.tags.push(COMPLEX32.to_string());
    }
    let moments = ["var", "std"]
        .iter()
        .any(|op| case.call.fn_.ends_with(&format!(".{op}")));
    if case.tolerance.is_some() || moments || complex_arithmetic(&case.call.fn_) {
        let t = case.tolerance.unwrap_or(Tolerance {
            rtol: 0.0,
            atol: 0.0,
        });
        case.tolerance = Some(Tolerance {
            rtol: t.rtol.max(HALF_TOLERANCE),
            atol: t.atol.max(HALF_TOLERANCE),
        });
    }
    Ok(())
}

/// Two ulps of `float16`, the generators' tolerance for it.
const HALF_TOLERANCE: f64 = 2e-3;

/// Whether a call multiplies or divides complex numbers once one operand is `complex32`:
/// torch's complex products and quotients round differently in its vectorised loop and in its
/// scalar one (compiled with fused multiply-adds), as the other families' complex cases allow
/// for (`binary_tolerance`).
///
/// ```
/// use bcast_fuzzing::generators::complex_arithmetic;
/// assert!(complex_arithmetic("torch.addcdiv") && complex_arithmetic("Tensor.__rtruediv__"));
/// assert!(complex_arithmetic("Tensor.mul_") && !complex_arithmetic("torch.add"));
/// ```
pub fn complex_arithmetic(fn_: &str) -> bool {
    let name = fn_.rsplit('.').next().unwrap_or(fn_);
    let name = match name.strip_prefix("__").and_then(|n| n.strip_suffix("__")) {
        Some(dunder) => dunder
            .strip_prefix('r')
            .or_else(|| dunder.strip_prefix('i'))
            .filter(|n| ARITHMETIC.contains(n))
            .unwrap_or(dunder),
        None => name.strip_suffix('_').unwrap_or(name),
    };
    ARITHMETIC.contains(&name)
}

/// The ops [`complex_arithmetic`] names, without their in-place or reflected spellings.
const ARITHMETIC: &[&str] = &[
    "mul",
    "multiply",
    "div",
    "divide",
    "true_divide",
    "truediv",
    "addcmul",
    "addcdiv",
    "lerp",
    "pow",
    "float_power",
    "reciprocal",
    "matmul",
    "mm",
    "bmm",
    "mv",
    "dot",
    "vdot",
    "einsum",
];

/// A value as a `complex32` element: each part rounded to `float16` through `float32`, as
/// torch converts a double (a bool is 0 or 1).
///
/// ```
/// use bcast_conformance::case::Num;
/// use bcast_fuzzing::generators::complex_half;
/// assert_eq!(complex_half(Num::Int(2049)), Num::Complex(2048.0, 0.0));
/// assert_eq!(complex_half(Num::Complex(0.1, 1e6)), Num::Complex(0.0999755859375, f64::INFINITY));
/// ```
pub fn complex_half(v: Num) -> Num {
    let (re, im) = match v {
        Num::Bool(b) => (f64::from(u8::from(b)), 0.0),
        Num::Int(i) => (i as f64, 0.0),
        Num::Float(f) => (f, 0.0),
        Num::Complex(re, im) => (re, im),
    };
    let half = |x: f64| f64::from(Half::from_f64(x).to_f32());
    Num::Complex(half(re), half(im))
}

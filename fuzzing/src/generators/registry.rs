//! The generator families. Each family owns one area of ops; add a family by adding a
//! module under `generators/` and a row here.

use super::elementwise::{binary_case, compare_case, unary_case, unary_more_case, where_case};
use super::inplace::{copy_case, inplace_case};
use super::out::out_case;
use super::strides::strides_case;
use super::{views, CaseBuilder, GenResult};
use arbitrary::Unstructured;
use bcast_conformance::case::Case;

/// A family of generated cases.
#[derive(Debug, Clone, Copy)]
pub struct Family {
    /// The name, also the prefix of case ids and the corpus file name.
    pub name: &'static str,
    /// One line on what it covers.
    pub about: &'static str,
    /// Draws one case.
    pub generate: fn(&mut Unstructured) -> GenResult<Case>,
    /// For an enumerating family, its list of cases; `None` for a family of random draws.
    pub enumeration: Option<Enumeration>,
}

/// A family that enumerates: case `index` of a seed is slot `index % len`, its remaining
/// choices (values, layouts) drawn from the seed's bytes, so `--count len` gives the whole
/// enumeration once and a larger count goes round again with other draws.
#[derive(Debug, Clone, Copy)]
pub struct Enumeration {
    /// How many slots.
    pub len: u64,
    /// The case of one slot (below `len`).
    pub case: fn(u64, &mut Unstructured) -> GenResult<Case>,
}

impl Family {
    /// A trivial valid case, used only if a generator cannot draw even from empty input.
    pub fn fallback(&self) -> Case {
        CaseBuilder::default().finish("torch.broadcast_shapes", vec![])
    }
}

/// Every family.
pub fn families() -> &'static [Family] {
    &[
        Family {
            name: "expand",
            about: "expand, broadcast_to and expand_as on random layouts, with -1 and bad sizes",
            generate: views::expand_case,
            enumeration: None,
        },
        Family {
            name: "broadcast_shapes",
            about: "torch.broadcast_shapes over ints, tuples, lists, Sizes, None and bad shapes",
            generate: views::broadcast_shapes_case,
            enumeration: None,
        },
        Family {
            name: "broadcast_tensors",
            about: "torch.broadcast_tensors over 0 to 4 tensors of random layouts",
            generate: views::broadcast_tensors_case,
            enumeration: None,
        },
        Family {
            name: "views",
            about:
                "one view op (unsqueeze ... getitem, view, reshape, as_strided, repeat) per case",
            generate: views::view_op_case,
            enumeration: None,
        },
        Family {
            name: "reduce",
            about: "sum, mean, amax, amin, var, std: dims as int/list/tuple/None, keepdim, dtype=, correction",
            generate: super::reduce::reduce_case,
            enumeration: None,
        },
        Family {
            name: "matmul",
            about: "matmul (and mm, bmm, mv, dot): 1-d promotion, batch broadcasting, folding, zero-size dims, bad sizes and dtypes",
            generate: super::matmul::matmul_case,
            enumeration: None,
        },
        Family {
            name: "einsum",
            about: "einsum: shared, repeated and summed subscripts, ellipsis broadcasting, implicit output, bad equations",
            generate: super::einsum::einsum_case,
            enumeration: None,
        },
        Family {
            name: "unary",
            about: "unary element-wise ops on random layouts and dtypes",
            generate: unary_case,
            enumeration: None,
        },
        Family {
            name: "unary_more",
            about: "exp2, log1p, frac, round (decimals=), trunc, bitwise_not: function, method, in place and out=",
            generate: unary_more_case,
            enumeration: None,
        },
        Family {
            name: "binary",
            about:
                "add/sub (alpha), mul, div, pow, maximum, minimum, remainder, with Python numbers",
            generate: binary_case,
            enumeration: None,
        },
        Family {
            name: "compare",
            about: "eq/ne/lt/le/gt/ge and logical_and/or/xor, mixed dtypes and numbers",
            generate: compare_case,
            enumeration: None,
        },
        Family {
            name: "where",
            about: "torch.where with three-way broadcasting and Python numbers",
            generate: where_case,
            enumeration: None,
        },
        Family {
            name: "inplace",
            about: "x.op_(...) on expanded, aliased, self-input and lower-dtype targets",
            generate: inplace_case,
            enumeration: None,
        },
        Family {
            name: "out",
            about: "out= of other shapes (resized), dtypes, layouts, and inputs as out",
            generate: out_case,
            enumeration: None,
        },
        Family {
            name: "strides",
            about: "result layouts: shared or mixed memory orders, channels-last, copies",
            generate: strides_case,
            enumeration: None,
        },
        Family {
            name: "copy",
            about: "Tensor.copy_ broadcasting across dtypes, aliasing and overlap",
            generate: copy_case,
            enumeration: None,
        },
        Family {
            name: "promotion",
            about: "every ordered dtype pair as tensors, 0-d tensors and Python numbers: binary ops, comparisons, where, in-place, out=; every ordered triple through addcmul/addcdiv (tensors, 0-d tensors) and clamp (numbers) (an enumeration: --count 7488 is all of it)",
            generate: super::promotion::promotion_case,
            enumeration: Some(Enumeration {
                len: super::promotion::SLOTS,
                case: super::promotion::slot_case,
            }),
        },
        Family {
            name: "pyargs",
            about: "Python's argument rules: positional or keyword, NumPy keyword names, wrong types, extra, missing and unknown arguments",
            generate: super::pyargs::pyargs_case,
            enumeration: None,
        },
        Family {
            name: "binary_math",
            about: "div rounding modes, floor_divide, fmod, atan2, hypot, copysign, nextafter, ldexp, logaddexp(2), xlogy, float_power, heaviside, fmax, fmin, rsub, torch.special.xlogy/xlog1py/zeta: every form, numbers, in place, out=",
            generate: super::binary_math::binary_math_case,
            enumeration: None,
        },
        Family {
            name: "bitwise",
            about: "bitwise_and/or/xor, shifts, gcd, lcm: integral dtypes, numbers, in-place, out=",
            generate: super::bitwise::bitwise_case,
            enumeration: None,
        },
        Family {
            name: "ternary",
            about: "clamp (number/tensor bounds), clamp_min/max, lerp, addcmul, addcdiv, masked_fill, isclose, equal",
            generate: super::ternary::ternary_case,
            enumeration: None,
        },
        Family {
            name: "reflected",
            about: "reflected operators (__radd__, __rsub__, __rtruediv__, __rpow__, ...): numbers and tensors, NotImplemented for what their bodies refuse",
            generate: super::reflected::reflected_case,
            enumeration: None,
        },
        Family {
            name: "queries",
            about: "torch.numel, Tensor.numel, Tensor.dim, Tensor.size on random views (0-d, zero-size)",
            generate: super::queries::queries_case,
            enumeration: None,
        },
        Family {
            name: "max_min",
            about: "torch.max/min and the methods as reductions: of every element, over a dim with (values, indices), keepdim, ties and NaN (the first index), 0-d and zero-size, complex refused",
            generate: super::max_min::max_min_case,
            enumeration: None,
        },
        Family {
            name: "complex32",
            about: "the other families' calls with complex32 (ComplexHalf) tensors: views, copies and casts, add/sub/mul, eq/ne, where, masked_fill, addcmul, neg, abs, var/std, and every other op's 'not implemented for ComplexHalf'",
            generate: super::complex32::complex32_case,
            enumeration: None,
        },
        Family {
            name: GRAD_FAMILY,
            about: "gradients (schema 3): a case of a differentiable family with some inputs requiring grad (integer ones refused), in-place calls on clones, an upstream gradient per result",
            generate: super::grad::grad_case,
            enumeration: None,
        },
    ]
}

/// The name of the family whose cases ask for gradients (`grad`), the last of
/// [`families`]: the oracles that draw forward cases from fuzz bytes
/// ([`forward_families`]) leave it out, so that a byte picks the family it always did.
pub const GRAD_FAMILY: &str = "grad";

/// Every family but [`GRAD_FAMILY`].
///
/// ```
/// use bcast_fuzzing::generators::{families, forward_families, GRAD_FAMILY};
/// assert_eq!(forward_families().len() + 1, families().len());
/// assert!(forward_families().iter().all(|f| f.name != GRAD_FAMILY));
/// ```
pub fn forward_families() -> Vec<&'static Family> {
    families()
        .iter()
        .filter(|f| f.name != GRAD_FAMILY)
        .collect()
}

/// The family called `name`.
pub fn find_family(name: &str) -> Option<&'static Family> {
    families().iter().find(|f| f.name == name)
}

//! The generator families. Each family owns one area of ops; add a family by adding a
//! module under `gen/` and a row here.

use super::elementwise::{binary_case, compare_case, unary_case, where_case};
use super::inplace::{copy_case, inplace_case};
use super::out::out_case;
use super::strides::strides_case;
use super::{random_shape, CaseBuilder, GenResult, ShapeLimits};
use crate::case::{Arg, Case};
use arbitrary::Unstructured;
use bcast_engine::DType;

/// A family of generated cases.
#[derive(Debug, Clone, Copy)]
pub struct Family {
    /// The name, also the prefix of case ids and the corpus file name.
    pub name: &'static str,
    /// One line on what it covers.
    pub about: &'static str,
    /// Draws one case.
    pub generate: fn(&mut Unstructured) -> GenResult<Case>,
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
            about:
                "expand, expand_as and broadcast_to on random layouts, including -1 and bad sizes",
            generate: expand_case,
        },
        Family {
            name: "unary",
            about: "unary element-wise ops on random layouts and dtypes",
            generate: unary_case,
        },
        Family {
            name: "binary",
            about:
                "add/sub (alpha), mul, div, pow, maximum, minimum, remainder, with Python numbers",
            generate: binary_case,
        },
        Family {
            name: "compare",
            about: "eq/ne/lt/le/gt/ge and logical_and/or/xor, mixed dtypes and numbers",
            generate: compare_case,
        },
        Family {
            name: "where",
            about: "torch.where with three-way broadcasting and Python numbers",
            generate: where_case,
        },
        Family {
            name: "inplace",
            about: "x.op_(...) on expanded, aliased, self-input and lower-dtype targets",
            generate: inplace_case,
        },
        Family {
            name: "out",
            about: "out= of other shapes (resized), dtypes, layouts, and inputs as out",
            generate: out_case,
        },
        Family {
            name: "strides",
            about: "result layouts: shared or mixed memory orders, channels-last, copies",
            generate: strides_case,
        },
        Family {
            name: "copy",
            about: "Tensor.copy_ broadcasting across dtypes, aliasing and overlap",
            generate: copy_case,
        },
    ]
}

/// The family called `name`.
pub fn find_family(name: &str) -> Option<&'static Family> {
    families().iter().find(|f| f.name == name)
}

fn expand_case(u: &mut Unstructured) -> GenResult<Case> {
    let mut b = CaseBuilder::default();
    let shape = random_shape(u, ShapeLimits::default())?;
    let dtype = *u.choose(&DType::ALL)?;
    let x = b.view(u, dtype, &shape, true)?;
    let mut target: Vec<i64> = shape
        .iter()
        .map(|&s| if s == 1 { u.int_in_range(0..=3) } else { Ok(s) })
        .collect::<GenResult<Vec<usize>>>()?
        .into_iter()
        .map(|s| s as i64)
        .collect();
    for _ in 0..u.int_in_range(0..=2)? {
        target.insert(0, u.int_in_range(0..=3)?);
    }
    if !target.is_empty() && u.ratio(1, 4)? {
        let d = u.choose_index(target.len())?;
        target[d] = *u.choose(&[-1, -2, 0, 7])?;
    }
    Ok(b.finish("Tensor.expand", vec![Arg::Tensor(x), Arg::Ints(target)]))
}

//! The generator families. Each family owns one area of ops; add a family by adding a
//! module under `gen/` and a row here.

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
    &[Family {
        name: "expand",
        about: "expand, expand_as and broadcast_to on random layouts, including -1 and bad sizes",
        generate: expand_case,
    },
    Family {
        name: "reduce",
        about: "sum, mean, amax, amin, var, std: dims as int/list/tuple/None, keepdim, dtype=, correction",
        generate: super::reduce::reduce_case,
    },
    Family {
        name: "matmul",
        about: "matmul (and mm, bmm, mv, dot): 1-d promotion, batch broadcasting, folding, zero-size dims, bad sizes and dtypes",
        generate: super::matmul::matmul_case,
    },
    Family {
        name: "einsum",
        about: "einsum: shared, repeated and summed subscripts, ellipsis broadcasting, implicit output, bad equations",
        generate: super::einsum::einsum_case,
    }]
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

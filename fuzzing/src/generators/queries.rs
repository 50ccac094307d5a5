//! The `queries` family: facts about one tensor (`torch.numel`, `Tensor.numel`, `Tensor.dim`,
//! `Tensor.size`) on random views of every dtype, 0-d and zero-size ones included.

use super::operands::random_dtype;
use super::{random_shape, CaseBuilder, GenResult, ShapeLimits};
use arbitrary::Unstructured;
use bcast_conformance::case::{Arg, Case};

/// The calls of the family, every form of the catalogue's `queries` ops.
const QUERIES: [&str; 4] = ["torch.numel", "Tensor.numel", "Tensor.dim", "Tensor.size"];

/// The `queries` family.
///
/// ```
/// use bcast_fuzzing::generators::{find_family, generate};
/// let case = generate(find_family("queries").unwrap(), 1, 0);
/// assert_eq!(case.call.args.len(), 1);
/// ```
pub fn queries_case(u: &mut Unstructured) -> GenResult<Case> {
    let mut b = CaseBuilder::default();
    let shape = random_shape(u, ShapeLimits::default())?;
    let dtype = random_dtype(u)?;
    let x = Arg::Tensor(b.view(u, dtype, &shape, true)?);
    let name = *u.choose(&QUERIES)?;
    Ok(b.finish(name, vec![x]))
}

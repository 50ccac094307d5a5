//! The `max_min` family: `torch.max` and `torch.min` (and the methods) as reductions, of every
//! element (`max(x)`) and over one dim with the index of each result (`max(x, dim, keepdim)`,
//! `(values, indices)`), on random views of the twelve dtypes (complex ones refused), 0-d and
//! zero-size ones included, with ties and NaN (the first index wins), `dim` and `keepdim` by
//! position or keyword, and dims out of range. The two-tensor form is the `binary` family's.

use super::operands::random_dtype;
use super::{random_shape, CaseBuilder, GenResult, ShapeLimits};
use arbitrary::Unstructured;
use bcast_conformance::case::{Arg, Case};

/// A dim for a tensor of `ndim` dims: usually in range (negative half the time), sometimes out.
fn pick_dim(u: &mut Unstructured, ndim: usize) -> GenResult<i64> {
    let n = ndim.max(1) as i64;
    if u.ratio(1, 12)? {
        return Ok(*u.choose(&[n, -n - 1, n + 3])?);
    }
    let d = u.int_in_range(0..=n - 1)?;
    Ok(if u.arbitrary()? { d - n } else { d })
}

/// The `max_min` family.
///
/// ```
/// use bcast_fuzzing::generators::{find_family, generate};
/// let case = generate(find_family("max_min").unwrap(), 1, 0);
/// assert!(["torch.max", "torch.min", "Tensor.max", "Tensor.min"].contains(&case.call.fn_.as_str()));
/// ```
pub fn max_min_case(u: &mut Unstructured) -> GenResult<Case> {
    let mut b = CaseBuilder::default();
    let limits = ShapeLimits {
        max_ndim: 4,
        max_size: 5,
        zero_size_percent: 6,
    };
    let shape = random_shape(u, limits)?;
    let dtype = random_dtype(u)?;
    let x = b.view(u, dtype, &shape, true)?;
    if u.ratio(1, 2)?
        && let Some(storage) = b.tensor_spec(&x).map(|t| t.storage.clone())
    {
        b.tie_values(u, &storage)?;
    }
    let op = if u.arbitrary()? { "max" } else { "min" };
    let mut args = vec![Arg::Tensor(x)];
    if u.ratio(4, 5)? {
        let dim = Arg::Int(pick_dim(u, shape.len())?);
        let keepdim = match u.int_in_range(0..=2u8)? {
            0 => None,
            _ => Some(Arg::Bool(u.arbitrary()?)),
        };
        if u.ratio(1, 4)? {
            b.kwarg("dim", dim);
            if let Some(k) = keepdim {
                b.kwarg("keepdim", k);
            }
        } else {
            args.push(dim);
            match keepdim {
                Some(k) if u.arbitrary()? => args.push(k),
                Some(k) => b.kwarg("keepdim", k),
                None => {}
            }
        }
        b.tag("indices");
    }
    b.tag(op);
    let prefix = if u.arbitrary()? { "Tensor" } else { "torch" };
    Ok(b.finish(&format!("{prefix}.{op}"), args))
}

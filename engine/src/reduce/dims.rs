//! Which dims a reduction reduces, with torch's checks and their order.

use crate::shape::wrap_dim;
use crate::Result;

/// The order in which torch validates a dim list; it decides which error a list with both an
/// out-of-range dim and a repeated dim reports.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum DimCheck {
    /// Every dim is wrapped first, then repeats are looked for (`sum`, `mean`, `amax`, `amin`).
    WrapAllFirst,
    /// Each dim is wrapped and checked for a repeat in turn (`var`, `std`).
    OneByOne,
}

/// The reduced dims of a tensor with `ndim` dims as a mask (`mask[d]` is true when dim `d` is
/// reduced). An empty list reduces every dim. A 0-d tensor accepts the dims `0` and `-1`.
///
/// ```
/// # use bcast_engine::reduce::{reduction_mask, DimCheck};
/// assert_eq!(reduction_mask(&[-1], 3, DimCheck::WrapAllFirst).unwrap(), vec![false, false, true]);
/// assert_eq!(reduction_mask(&[], 2, DimCheck::OneByOne).unwrap(), vec![true, true]);
/// let e = reduction_mask(&[0, 0, 5], 2, DimCheck::WrapAllFirst).unwrap_err();
/// assert_eq!(e.message(), "Dimension out of range (expected to be in range of [-2, 1], but got 5)");
/// let e = reduction_mask(&[0, 0, 5], 2, DimCheck::OneByOne).unwrap_err();
/// assert_eq!(e.message(), "dim 0 appears multiple times in the list of dims");
/// ```
///
/// # Errors
/// `IndexError` for a dim out of range, `RuntimeError` for a dim given twice.
pub fn reduction_mask(dims: &[i64], ndim: usize, check: DimCheck) -> Result<Vec<bool>> {
    if dims.is_empty() {
        return Ok(vec![true; ndim]);
    }
    let mut seen = vec![false; ndim.max(1)];
    let mut mark = |d: usize| -> Result<()> {
        if std::mem::replace(&mut seen[d], true) {
            return Err(crate::shape::duplicate_dim(d));
        }
        Ok(())
    };
    match check {
        DimCheck::WrapAllFirst => {
            let wrapped = dims
                .iter()
                .map(|&d| wrap_dim(d, ndim))
                .collect::<Result<Vec<usize>>>()?;
            for d in wrapped {
                mark(d)?;
            }
        }
        DimCheck::OneByOne => {
            for &d in dims {
                mark(wrap_dim(d, ndim)?)?;
            }
        }
    }
    seen.truncate(ndim);
    Ok(seen)
}

/// The shape of a reduction's result: reduced dims become 1 with `keepdim`, else vanish.
///
/// ```
/// # use bcast_engine::reduce::reduced_shape;
/// assert_eq!(reduced_shape(&[2, 3, 4], &[false, true, true], true), vec![2, 1, 1]);
/// assert_eq!(reduced_shape(&[2, 3, 4], &[false, true, true], false), vec![2]);
/// ```
pub fn reduced_shape(shape: &[usize], mask: &[bool], keepdim: bool) -> Vec<usize> {
    shape
        .iter()
        .zip(mask)
        .filter_map(|(&s, &reduced)| match (reduced, keepdim) {
            (false, _) => Some(s),
            (true, true) => Some(1),
            (true, false) => None,
        })
        .collect()
}

//! Where the elements of each reduced group live: one storage position per result element
//! (the group's first element) plus the offsets of the group's elements relative to it. With
//! strided layouts the offsets are the same for every group, so a reduction is two loops.

use crate::shape::numel_of;
use crate::{Buffer, Element, Error, Layout, Result, Tensor};

/// The most element reads (or multiply-adds) the reference engine does in one call. Torch
/// would grind through more (an expanded view can be huge); the engine refuses instead of
/// hanging.
pub const MAX_WORK: u128 = 1 << 28;

/// Fails when a call needs more than [`MAX_WORK`] element operations.
pub(crate) fn check_work(operations: u128) -> Result<()> {
    if operations > MAX_WORK {
        return Err(Error::limit(format!(
            "the reference engine computes at most {MAX_WORK} element operations in one call; this one needs {operations}"
        )));
    }
    Ok(())
}

/// The storage positions a reduction reads, group by group (see the test below for an
/// example).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ReducePlan {
    /// The storage position of each group's first element, in the result's row-major order.
    pub bases: Vec<usize>,
    /// The offset of each element of a group from its base, row-major over the reduced dims.
    pub offsets: Vec<usize>,
}

/// The storage positions of one group.
#[derive(Debug, Clone)]
pub struct Group<'a> {
    base: usize,
    offsets: std::slice::Iter<'a, usize>,
}

impl Iterator for Group<'_> {
    type Item = usize;
    fn next(&mut self) -> Option<usize> {
        self.offsets.next().map(|o| self.base + o)
    }
    fn size_hint(&self) -> (usize, Option<usize>) {
        self.offsets.size_hint()
    }
}

impl ExactSizeIterator for Group<'_> {}

impl ReducePlan {
    /// The plan for reducing the dims of `layout` marked in `mask` (one entry per dim).
    ///
    /// # Errors
    /// When the kept or the reduced dims hold a negative size (torch's sizes are signed; a view
    /// can have one beside a 0), or the reduction reads more than [`MAX_WORK`] elements.
    pub fn new(layout: &Layout, mask: &[bool]) -> Result<ReducePlan> {
        Self::check(layout, mask)?;
        let pick = |reduced: bool| -> (Vec<usize>, Vec<usize>) {
            layout
                .shape()
                .iter()
                .zip(layout.strides())
                .zip(mask)
                .filter(|&(_, &m)| m == reduced)
                .map(|((&size, &stride), _)| (size, stride))
                .unzip()
        };
        let (kept_shape, kept_strides) = pick(false);
        let (reduced_shape, reduced_strides) = pick(true);
        let groups = kept_shape.iter().product::<usize>();
        Ok(ReducePlan {
            bases: strided_positions(&kept_shape, &kept_strides, layout.offset()),
            offsets: if groups == 0 {
                Vec::new()
            } else {
                strided_positions(&reduced_shape, &reduced_strides, 0)
            },
        })
    }

    /// Fails as [`ReducePlan::new`] does, without listing any position.
    ///
    /// # Errors
    /// As for [`ReducePlan::new`].
    pub(crate) fn check(layout: &Layout, mask: &[bool]) -> Result<()> {
        let sizes = |reduced: bool| -> Vec<usize> {
            layout
                .shape()
                .iter()
                .zip(mask)
                .filter(|&(_, &m)| m == reduced)
                .map(|(&size, _)| size)
                .collect()
        };
        let groups = numel_of(&sizes(false))?;
        // No group, nothing to read: the reduced dims are never walked.
        let group_len = if groups == 0 {
            0
        } else {
            numel_of(&sizes(true))?
        };
        check_work(groups as u128 * group_len as u128)
    }

    /// The number of elements in each group.
    pub(crate) fn group_len(&self) -> usize {
        self.offsets.len()
    }

    /// The storage positions of group `g` (the `g`-th result element).
    ///
    /// # Panics
    /// When `g` is not below `bases.len()`.
    pub fn group(&self, g: usize) -> Group<'_> {
        Group {
            base: self.bases[g],
            offsets: self.offsets.iter(),
        }
    }

    /// Applies `f` to every group of `x` (read as `T`), in the result's row-major order. `f`
    /// receives the storage's elements and the group's positions in it.
    ///
    /// # Errors
    /// When `T` is not `x`'s element type.
    pub(crate) fn map_groups<T: Element, R>(
        &self,
        x: &Tensor,
        mut f: impl FnMut(&[T], Group<'_>) -> R,
    ) -> Result<Vec<R>> {
        let buffer = x.storage().read();
        let data = typed_slice::<T>(&buffer)?;
        Ok((0..self.bases.len())
            .map(|g| f(data, self.group(g)))
            .collect())
    }
}

impl ReducePlan {
    /// Folds every group of `x` (read as `T`) from `init` with `step`, each group in its own
    /// order, and returns the accumulators in the result's row-major order: the same values
    /// as folding group by group with [`ReducePlan::map_groups`], bit for bit. Where the
    /// groups sit closer together in memory than the elements of one group (a reduction over
    /// an outer dim, `x.sum(0)` of a row-major matrix), the loops are interchanged: each
    /// reduced position is applied to every group in turn, so memory is read in order and the
    /// inner loop runs over independent accumulators.
    ///
    /// # Errors
    /// When `T` is not `x`'s element type.
    pub(crate) fn fold_groups<T: Element, A: Copy>(
        &self,
        x: &Tensor,
        init: A,
        step: impl Fn(A, T) -> A,
    ) -> Result<Vec<A>> {
        let buffer = x.storage().read();
        let data = typed_slice::<T>(&buffer)?;
        let gap = |v: &[usize]| match v {
            [a, b, ..] => Some(a.abs_diff(*b)),
            _ => None,
        };
        let outer = matches!((gap(&self.bases), gap(&self.offsets)), (Some(g), Some(o)) if g < o);
        if !outer {
            return Ok((0..self.bases.len())
                .map(|g| self.group(g).fold(init, |acc, p| step(acc, data[p])))
                .collect());
        }
        let mut acc = vec![init; self.bases.len()];
        for &o in &self.offsets {
            for (a, &base) in acc.iter_mut().zip(&self.bases) {
                *a = step(*a, data[base + o]);
            }
        }
        Ok(acc)
    }
}

/// A buffer's elements as `T`, or an error naming both types.
pub(crate) fn typed_slice<T: Element>(buffer: &Buffer) -> Result<&[T]> {
    buffer.as_slice::<T>().ok_or_else(|| {
        Error::internal(format!(
            "read a {} buffer as {}",
            buffer.dtype().scalar_type_name(),
            T::DTYPE.scalar_type_name()
        ))
    })
}

/// The storage position of every element of a strided view, in row-major order, walked with an
/// odometer (the obvious unravel-per-element version is `index_map::storage_indices`). The
/// caller has checked that the shape's numel is small (see [`check_work`]).
pub(crate) fn strided_positions(shape: &[usize], strides: &[usize], offset: usize) -> Vec<usize> {
    let numel = shape.iter().fold(1usize, |n, &s| n.saturating_mul(s));
    let mut out = Vec::with_capacity(numel.min(MAX_WORK as usize));
    if numel == 0 {
        return out;
    }
    let ndim = shape.len();
    let mut index = vec![0usize; ndim];
    let mut pos = offset;
    for _ in 0..numel {
        out.push(pos);
        for d in (0..ndim).rev() {
            index[d] += 1;
            pos += strides[d];
            if index[d] < shape[d] {
                break;
            }
            pos -= strides[d] * shape[d];
            index[d] = 0;
        }
    }
    out
}

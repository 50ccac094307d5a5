//! The runtime plan of an element-wise loop: operands' strides over the broadcast shape, dims
//! ordered fastest first and coalesced, walked in two-dimensional blocks.

use super::{broadcast_strides, coalesce, reorder_dims};
use crate::Layout;

/// How to walk every element of a broadcast shape over several operands (output first).
///
/// ```
/// use bcast_engine::{iter::Plan, Layout};
/// let out = Layout::contiguous(&[2, 3]);
/// let row = Layout::contiguous(&[3]);
/// let plan = Plan::new(&[2, 3], &[&out, &row]);
/// assert_eq!(plan.shape(), &[3, 2]); // inner dim first; the broadcast dim cannot merge
/// assert_eq!(plan.strides(1), &[1, 0]);
/// let mut visited = 0;
/// plan.for_each_block(|b| visited += b.len * b.rows);
/// assert_eq!(visited, 6);
/// ```
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Plan {
    shape: Vec<usize>,
    strides: Vec<Vec<usize>>,
    offsets: Vec<usize>,
}

/// A two-dimensional block of a plan: `rows` rows of `len` elements. Operand `k` starts at
/// storage index `offsets[k]`, moves `step[k]` per element and `row_step[k]` per row.
#[derive(Debug, Clone, Copy)]
pub struct Block<'a> {
    pub offsets: &'a [usize],
    pub len: usize,
    pub rows: usize,
    pub step: &'a [usize],
    pub row_step: &'a [usize],
}

impl Plan {
    /// The plan for `layouts` (each broadcastable to `shape`): broadcast strides, dims
    /// reordered by stride, then coalesced. Positions are only meaningful for layouts that
    /// broadcast to `shape` (the loops check that before they build a plan).
    pub fn new(shape: &[usize], layouts: &[&Layout]) -> Plan {
        let broadcast: Vec<Vec<usize>> = layouts
            .iter()
            .map(|l| broadcast_strides(shape, l))
            .collect();
        let views: Vec<&[usize]> = broadcast.iter().map(Vec::as_slice).collect();
        let perm = reorder_dims(shape, &views);
        let mut order: Vec<usize> = perm.iter().map(|&d| shape[d]).collect();
        let mut strides: Vec<Vec<usize>> = broadcast
            .iter()
            .map(|s| perm.iter().map(|&d| s[d]).collect())
            .collect();
        coalesce(&mut order, &mut strides);
        Plan {
            shape: order,
            strides,
            offsets: layouts.iter().map(|l| l.offset()).collect(),
        }
    }

    /// The iteration shape, fastest dim first.
    pub fn shape(&self) -> &[usize] {
        &self.shape
    }

    /// Operand `k`'s strides, in iteration order (empty for an operand it does not have).
    pub fn strides(&self, k: usize) -> &[usize] {
        self.strides.get(k).map_or(&[], Vec::as_slice)
    }

    /// The number of elements visited.
    pub fn numel(&self) -> usize {
        self.shape.iter().fold(1usize, |n, &s| n.wrapping_mul(s))
    }

    /// Calls `f` on every block, in iteration order: dim 0 within a row, dim 1 across rows,
    /// the remaining dims odometer-style. Nothing is called for an empty shape.
    pub fn for_each_block(&self, mut f: impl FnMut(&Block)) {
        if self.shape.contains(&0) {
            return;
        }
        let ntensors = self.offsets.len();
        let ndim = self.shape.len();
        let dim_strides = |d: usize| -> Vec<usize> {
            self.strides
                .iter()
                .map(|s| if d < ndim { s[d] } else { 0 })
                .collect()
        };
        let step = dim_strides(0);
        let row_step = dim_strides(1);
        let len = self.shape.first().copied().unwrap_or(1);
        let rows = self.shape.get(1).copied().unwrap_or(1);
        let mut offsets = self.offsets.clone();
        let mut counter = vec![0usize; ndim];
        loop {
            f(&Block {
                offsets: &offsets,
                len,
                rows,
                step: &step,
                row_step: &row_step,
            });
            // Advance the outer dims (2..) like an odometer.
            let mut d = 2;
            loop {
                if d >= ndim {
                    return;
                }
                counter[d] += 1;
                for (k, off) in offsets.iter_mut().enumerate().take(ntensors) {
                    *off = off.wrapping_add(self.strides[k][d]);
                }
                if counter[d] < self.shape[d] {
                    break;
                }
                for (k, off) in offsets.iter_mut().enumerate().take(ntensors) {
                    *off = off.wrapping_sub(self.strides[k][d].wrapping_mul(self.shape[d]));
                }
                counter[d] = 0;
                d += 1;
            }
        }
    }
}

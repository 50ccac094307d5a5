//! The runtime plan of an element-wise loop: operands' strides over the broadcast shape, dims
//! ordered fastest first and coalesced, walked in two-dimensional blocks (by the loops in
//! [`crate::loops`]).

use super::{broadcast_strides, coalesce, reorder_dims};
use crate::{Dims, Layout};
use smallvec::SmallVec;

/// One entry per operand (an output and up to three inputs inline).
type PerOperand<T> = SmallVec<[T; 4]>;

/// How to walk every element of a broadcast shape over several operands (output first).
///
/// ```
/// use bcast_engine::{iter::Plan, Layout};
/// let out = Layout::contiguous(&[2, 3]);
/// let row = Layout::contiguous(&[3]);
/// let plan = Plan::new(&[2, 3], &[&out, &row]);
/// assert_eq!(plan.shape(), &[3, 2]); // inner dim first; the broadcast dim cannot merge
/// assert_eq!(plan.strides(1), &[1, 0]);
/// assert_eq!(plan.numel(), 6);
/// ```
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Plan {
    shape: Dims,
    strides: PerOperand<Dims>,
    offsets: PerOperand<usize>,
}

/// A two-dimensional block of a plan: `rows` rows of `len` elements. Operand `k` starts at
/// storage index `offsets[k]`, moves `step[k]` per element and `row_step[k]` per row.
#[derive(Debug, Clone, Copy)]
pub struct Block<'a> {
    /// Each operand's storage index at the block's first element.
    pub(crate) offsets: &'a [usize],
    /// Elements per row.
    pub len: usize,
    /// Rows.
    pub rows: usize,
    /// Each operand's move per element.
    pub(crate) step: &'a [usize],
    /// Each operand's move per row.
    pub(crate) row_step: &'a [usize],
}

impl Plan {
    /// The plan for `layouts` (each broadcastable to `shape`): broadcast strides, dims
    /// reordered by stride, then coalesced. Positions are only meaningful for layouts that
    /// broadcast to `shape` (the loops check that before they build a plan).
    #[inline(always)]
    pub fn new(shape: &[usize], layouts: &[&Layout]) -> Plan {
        Self::contiguous(shape, layouts).unwrap_or_else(|| Self::general(shape, layouts))
    }

    /// [`Plan::new`] by the general path, whatever the layouts: broadcast strides, dims
    /// reordered, coalesced. (Inlined into [`Plan::new`], so the plan is built in place.)
    #[doc(hidden)]
    #[inline(always)]
    pub fn general(shape: &[usize], layouts: &[&Layout]) -> Plan {
        let mut strides: PerOperand<Dims> = layouts
            .iter()
            .map(|l| broadcast_strides(shape, l))
            .collect();
        let perm = {
            let views: PerOperand<&[usize]> = strides.iter().map(|s| s.as_slice()).collect();
            reorder_dims(shape, &views)
        };
        let mut order: Dims = perm.iter().map(|&d| shape[d]).collect();
        for s in &mut strides {
            *s = perm.iter().map(|&d| s[d]).collect();
        }
        coalesce(&mut order, &mut strides);
        Plan {
            shape: order,
            strides,
            offsets: layouts.iter().map(|l| l.offset()).collect(),
        }
    }

    /// The plan [`Plan::general`] reaches when every operand is contiguous over the whole
    /// shape (none broadcast), without sorting or merging dims: one dim of every element,
    /// stride 1 for each operand, or no dim for a 0-d shape (a tiny call's setup, where the
    /// general path was a tenth of the call). `None` for other layouts, and where the
    /// general path would keep a dim of size 1 or 0 (a shape of one element or none).
    fn contiguous(shape: &[usize], layouts: &[&Layout]) -> Option<Plan> {
        let whole = |l: &&Layout| l.shape() == shape && l.is_contiguous();
        if !layouts.iter().all(whole) {
            return None;
        }
        let offsets = layouts.iter().map(|l| l.offset()).collect();
        if shape.is_empty() {
            let strides = layouts.iter().map(|_| Dims::new()).collect();
            return Some(Plan {
                shape: Dims::new(),
                strides,
                offsets,
            });
        }
        let numel = shape.iter().product::<usize>();
        (numel > 1).then(|| Plan {
            shape: smallvec::smallvec![numel],
            strides: layouts.iter().map(|_| smallvec::smallvec![1]).collect(),
            offsets,
        })
    }

    /// The iteration shape, fastest dim first.
    pub fn shape(&self) -> &[usize] {
        &self.shape
    }

    /// Operand `k`'s strides, in iteration order (empty for an operand it does not have).
    pub fn strides(&self, k: usize) -> &[usize] {
        self.strides.get(k).map_or(&[], |s| s.as_slice())
    }

    /// The number of elements visited.
    pub fn numel(&self) -> usize {
        self.shape.iter().fold(1usize, |n, &s| n.wrapping_mul(s))
    }

    /// Each operand's storage offset.
    #[doc(hidden)]
    pub fn offsets(&self) -> &[usize] {
        &self.offsets
    }

    /// The part of the plan where dim `dim` runs over `start..start + len` only.
    #[doc(hidden)]
    pub fn slice(&self, dim: usize, start: usize, len: usize) -> Plan {
        let mut part = self.clone();
        part.shape[dim] = len;
        for (off, s) in part.offsets.iter_mut().zip(&self.strides) {
            *off = off.wrapping_add(start.wrapping_mul(s[dim]));
        }
        part
    }

    /// The same elements with dims `d0` and `d1` walked in each other's place.
    pub(crate) fn swap_dims(&mut self, d0: usize, d1: usize) {
        self.shape.swap(d0, d1);
        for s in &mut self.strides {
            s.swap(d0, d1);
        }
    }

    /// Whether operand `k` reaches a different position at every element (no dim of size
    /// above 1 with stride 0, and no two index tuples meeting), which the strides show when,
    /// sorted, each one passes the furthest reach of the smaller ones.
    #[doc(hidden)]
    pub fn is_injective(&self, k: usize) -> bool {
        let Some(strides) = self.strides.get(k) else {
            return false;
        };
        let mut dims: SmallVec<[(usize, usize); crate::dims::INLINE]> = self
            .shape
            .iter()
            .zip(strides)
            .filter(|&(&n, _)| n > 1)
            .map(|(&n, &s)| (s, n))
            .collect();
        dims.sort_unstable();
        let mut reach = 0usize;
        for (stride, size) in dims {
            if stride <= reach {
                return false;
            }
            let Some(r) = (size - 1)
                .checked_mul(stride)
                .and_then(|r| r.checked_add(reach))
            else {
                return false;
            };
            reach = r;
        }
        true
    }

    /// Calls `f` on every block, in iteration order: dim 0 within a row, dim 1 across rows,
    /// the remaining dims odometer-style. Nothing is called for an empty shape.
    #[inline]
    #[doc(hidden)]
    pub fn for_each_block(&self, mut f: impl FnMut(&Block)) {
        self.walk_blocks(&mut f);
    }

    /// [`Self::for_each_block`]'s walk, compiled once rather than once per kernel: the call
    /// through `dyn` is one per block (a whole `len` x `rows` rectangle), and the copies per
    /// kernel were a fifth of the engine's code to compile.
    fn walk_blocks(&self, f: &mut dyn FnMut(&Block)) {
        if self.shape.contains(&0) {
            return;
        }
        let ntensors = self.offsets.len();
        let ndim = self.shape.len();
        let dim_strides = |d: usize| -> PerOperand<usize> {
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
        let mut counter: Dims = smallvec::smallvec![0usize; ndim];
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

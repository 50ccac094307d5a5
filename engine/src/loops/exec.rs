//! Running a loop over a plan. When the output's elements are all distinct and no input
//! reads memory the loop writes (other than each element's own position), every output
//! element is computed independently of the others, so the walk is free to change its
//! order: split the outer dims over threads, tile conflicting layouts ([`super::tile`]),
//! repeat a short inner pattern into a long row ([`super::repeat`]). Results are the same
//! bits as one thread in plan order. Otherwise the plan's blocks run in order.

use super::kernel::{Rect, Rows};
use super::stream::STREAM_MIN_BYTES;
use super::{pool, repeat, tile};
use crate::config::num_threads;
use crate::iter::{Block, Plan};

/// Elements each thread gets at least before a loop is split. The helpers spin for a while
/// between jobs ([`pool`]), so handing one a piece costs far less than this much work: at
/// two threads `(64,1024) + (1024,)` (65,536 elements) took 6.05 µs on one thread and 4.32
/// µs split in two (the limit was `1 << 17` until then).
pub(crate) const MIN_PER_THREAD: usize = 1 << 15;

/// Elements per piece at least: a split loop is cut into pieces that threads take one at a
/// time (see [`pool`]), so a thread the system delays does not hold the others up.
const MIN_PER_PIECE: usize = 1 << 15;

/// Pieces per thread at most: two, so each thread walks long runs of memory in order (as
/// torch's static OpenMP split does, one run each) and a thread the system delays still
/// leaves the others a piece to take. With 16, at two threads `float32 (4096,1024) +
/// (1024,)` `out=` took 202 µs and `(1024,1024) + (1024,)` 58.8 µs (torch 171 and 43.5); with
/// 2, 164 to 177 µs and 44.6 µs.
const PIECES_PER_THREAD: usize = 2;

/// Storage base pointers, shared read-only with the loop's threads.
#[derive(Clone, Copy)]
pub(crate) struct Bases<const N: usize>(pub(crate) [*mut u8; N]);

// SAFETY: the pointers are only dereferenced by kernels, each thread on its own output
// elements (see `execute`), while the storages stay locked by the caller.
unsafe impl<const N: usize> Send for Bases<N> {}
unsafe impl<const N: usize> Sync for Bases<N> {}

impl<const N: usize> Bases<N> {
    /// The address of storage position `offsets[k]` of every operand.
    ///
    /// # Safety
    /// The positions lie inside the storages.
    pub(crate) unsafe fn at(&self, offsets: &[usize], sizes: [usize; N]) -> [*mut u8; N] {
        std::array::from_fn(|k| self.0[k].add(offsets[k] * sizes[k]))
    }
}

/// The first `N` entries of `v` as an array (0 where missing).
fn arr<const N: usize>(v: &[usize]) -> [usize; N] {
    std::array::from_fn(|k| v.get(k).copied().unwrap_or(0))
}

/// The walk of a block.
pub(crate) fn rect<const N: usize>(b: &Block) -> Rect<N> {
    Rect {
        len: b.len,
        step: arr(b.step),
        rows: b.rows,
        row_step: arr(b.row_step),
    }
}

/// Runs one block of the plan as it stands.
///
/// # Safety
/// As for [`Rows::rows`], for every position of the block.
pub(crate) unsafe fn run_block<const N: usize>(
    kernel: &dyn Rows<N>,
    bases: &Bases<N>,
    b: &Block,
    stream: bool,
) {
    let ptr = bases.at(b.offsets, kernel.itemsizes());
    kernel.rows(ptr, &rect(b), stream);
}

/// Whether the output's elements are computed independently: it never writes one position
/// twice, and an input in its storage (`shares[k]`) reads exactly the positions it writes.
pub fn independent<const N: usize>(plan: &Plan, shares: [bool; N]) -> bool {
    plan.is_injective(0)
        && (1..N).all(|k| {
            !shares[k]
                || (plan.offsets()[k] == plan.offsets()[0] && plan.strides(k) == plan.strides(0))
        })
}

/// How many threads a loop of `numel` elements uses.
pub fn threads_for(numel: usize) -> usize {
    num_threads().min(numel / MIN_PER_THREAD).max(1)
}

/// The dim a loop over `shape` (innermost first) cuts into up to `pieces` for `parts`
/// threads: the outermost dim with at least `pieces` positions, else the outermost outer dim
/// with at least [`MIN_PIECES_PER_THREAD`] per thread, else the longest. The inner dim is
/// cut only when no outer dim will do: cutting it leaves every piece short runs of every
/// row (at 16 threads, `(32,64,64,128) * (64,1,1)` cut its 8,192-element rows into runs of
/// 32 and ran slower than at 4).
pub fn split_dim(shape: &[usize], pieces: usize, parts: usize) -> usize {
    let outer = 1..shape.len();
    outer
        .clone()
        .rev()
        .find(|&d| shape[d] >= pieces)
        .or_else(|| {
            outer
                .rev()
                .find(|&d| shape[d] >= MIN_PIECES_PER_THREAD * parts)
        })
        .or_else(|| (0..shape.len()).max_by_key(|&d| shape[d]))
        .unwrap_or(0)
}

/// Pieces per thread an outer dim must give to be cut instead of the inner dim.
const MIN_PIECES_PER_THREAD: usize = 4;

/// Runs `kernel` over every element of `plan` (operand `k`'s storage starting at
/// `bases[k]`). `independent` is [`independent`]'s verdict; `fresh` says the output's
/// memory was just allocated (its pages come zeroed, and cached, at the first write), so
/// ordinary stores beat non-temporal ones there.
///
/// # Safety
/// Every position of the plan lies inside its operand's storage, which stays locked (the
/// output's for writing) while this runs.
pub(crate) unsafe fn execute<const N: usize>(
    plan: &Plan,
    bases: [*mut u8; N],
    kernel: &dyn Rows<N>,
    independent: bool,
    fresh: bool,
) {
    let bases = Bases(bases);
    if plan.numel() == 0 || plan.shape().contains(&0) {
        return;
    }
    if !independent {
        plan.for_each_block(|b| run_block(kernel, &bases, b, false));
        return;
    }
    let bytes = plan.numel().saturating_mul(kernel.itemsizes()[0]);
    let stream = !fresh && STREAM_MIN_BYTES.is_some_and(|min| bytes >= min);
    let parts = threads_for(plan.numel());
    if parts == 1 || plan.shape().is_empty() {
        run_reordered(plan, &bases, kernel, stream);
        return;
    }
    let wanted = (parts * PIECES_PER_THREAD).min(plan.numel() / MIN_PER_PIECE);
    let d = split_dim(plan.shape(), wanted, parts);
    let n = plan.shape()[d];
    let pieces = wanted.clamp(1, n);
    let bounds = |p: usize| p * n / pieces;
    let run = |p: usize| {
        let piece = plan.slice(d, bounds(p), bounds(p + 1) - bounds(p));
        // SAFETY: each piece writes its own output elements (the output is injective) and
        // reads no element another piece writes (`independent`).
        unsafe { run_reordered(&piece, &bases, kernel, stream) };
    };
    pool::run_pieces(pieces, parts - 1, &run);
}

/// One thread's share of an independent loop, in the fastest order for its layout; with
/// `stream`, contiguous output rows are written with non-temporal stores.
///
/// # Safety
/// As for [`execute`].
unsafe fn run_reordered<const N: usize>(
    plan: &Plan,
    bases: &Bases<N>,
    kernel: &dyn Rows<N>,
    stream: bool,
) {
    if repeat::applies(plan) {
        repeat::run(plan, bases, kernel, stream);
    } else if let Some(tiled) = tile::tiled_plan(plan) {
        tiled.for_each_block(|b| tile::run_tiles(kernel, bases, b));
    } else {
        plan.for_each_block(|b| run_block(kernel, bases, b, stream));
    }
}

//! The fast walk of a reduction, after TensorIterator's reduce: the input's dims sorted by
//! stride and coalesced, an outer odometer over rows, and a contiguous inner row that is
//! either reduced (folded into one accumulator in 16 independent lanes, so the compiler
//! vectorises it) or kept (folded element by element into a row of accumulators, so a
//! reduction over an outer dim reads memory in order). Large walks are cut into pieces that
//! depend on the shape only, never on the thread count: pieces that would share a result
//! element fold into private partial accumulators, merged in piece order afterwards, so the
//! result is the same on any number of threads.
//!
//! The order of the additions differs from the element order of [`super::ReducePlan`], so
//! only these reductions use it: integer and bool sums and extrema (exact in any order), and
//! float sums in [`super::wide_row`]'s fixed order, where torch's own cascade order is not
//! the element order either (float sums are compared within a tolerance).

use super::plan::{typed_slice, ReducePlan, MAX_WORK};
use crate::config::num_threads;
use crate::loops::pool;
use crate::{Element, Layout, Result, Tensor};

/// Elements per piece at least (a piece is the unit threads take).
const MIN_PER_PIECE: usize = 1 << 15;

/// Pieces at most.
const MAX_PIECES: usize = 64;

/// Elements a walk must have before helper threads are woken.
const MIN_FOR_THREADS: usize = 1 << 18;

/// A cut inner row is at least this long.
const MIN_SEGMENT: usize = 4096;

/// Pieces a walk cut at whole groups of rows must have, at least, to be cut so.
const MIN_GROUPED_PIECES: usize = 16;

/// Partial accumulators a walk may allocate at most (all pieces together).
const MAX_PARTIALS: usize = 1 << 22;

/// Independent accumulators per reduced row.
const LANES: usize = 16;

/// One dim of the walk: its size, the input's and the result's stride (0 where reduced).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Dim {
    pub size: usize,
    input: usize,
    output: usize,
    pub reduced: bool,
}

/// How a reduction folds elements of `T`: from `identity`, `step` adds one element, `merge`
/// joins two accumulators (the later one second). `identity` must leave either side of
/// `merge` unchanged.
pub trait Fold<T>: Sync {
    /// The accumulator.
    type Acc: Copy + Send + Sync;
    /// The fold of no elements.
    fn identity(&self) -> Self::Acc;
    /// One more element.
    fn step(&self, acc: Self::Acc, v: T) -> Self::Acc;
    /// Two folds of consecutive runs, `a` before `b`.
    fn merge(&self, a: Self::Acc, b: Self::Acc) -> Self::Acc;
    /// `acc` followed by the fold of a reduced row: [`fold_row`]'s value unless the fold
    /// says otherwise (the float sums add in their own fixed order). Its value must depend
    /// on `acc` and the row only, never on the processor or the thread.
    #[inline(always)]
    fn row(&self, acc: Self::Acc, row: &[T]) -> Self::Acc
    where
        T: Copy,
    {
        fold_row(self, acc, row)
    }
    /// Folds the rows of `accs.len()` elements at `data[s..]`, for each `s` in `starts`,
    /// into a row of accumulators, column by column in row order (`accs[j] =
    /// step(..step(accs[j], data[starts[0] + j]).., data[starts[n - 1] + j])`): a reduction
    /// over an outer dim. Rows are taken [`ROWS_AT_ONCE`] at a time, so each accumulator is
    /// loaded and stored once for them (and the stored value is never a select of the
    /// loaded one, which compilers turn into a masked store, slow on some processors). A
    /// fold may compute it in its own fixed order (the float sums do), which must depend
    /// on the rows only.
    ///
    /// # Panics
    /// When a row reaches outside `data`.
    #[inline(always)]
    fn rows_into(&self, accs: &mut [Self::Acc], data: &[T], starts: &[usize])
    where
        T: Copy,
    {
        let len = accs.len();
        let mut quads = starts.chunks_exact(ROWS_AT_ONCE);
        for quad in &mut quads {
            let [r0, r1, r2, r3] = [0, 1, 2, 3].map(|k| &data[quad[k]..quad[k] + len]);
            for ((((a, &v0), &v1), &v2), &v3) in accs.iter_mut().zip(r0).zip(r1).zip(r2).zip(r3) {
                *a = self.step(self.step(self.step(self.step(*a, v0), v1), v2), v3);
            }
        }
        for &start in quads.remainder() {
            for (a, &v) in accs.iter_mut().zip(&data[start..start + len]) {
                *a = self.step(*a, v);
            }
        }
    }
}

/// A [`Fold`] from three values: `FoldWith(identity, step, merge)`.
pub struct FoldWith<A, S, M>(pub A, pub S, pub M);

impl<T, A, S, M> Fold<T> for FoldWith<A, S, M>
where
    A: Copy + Send + Sync,
    S: Fn(A, T) -> A + Sync,
    M: Fn(A, A) -> A + Sync,
{
    type Acc = A;
    #[inline(always)]
    fn identity(&self) -> A {
        self.0
    }
    #[inline(always)]
    fn step(&self, acc: A, v: T) -> A {
        (self.1)(acc, v)
    }
    #[inline(always)]
    fn merge(&self, a: A, b: A) -> A {
        (self.2)(a, b)
    }
}

/// Folds each group of `x` (read as `T`) with `fold`, one accumulator per result element in
/// row-major order: by the fast [`ReduceWalk`] where it applies, else group by group in
/// element order ([`ReducePlan::fold_groups`]).
///
/// # Errors
/// As for [`ReducePlan::new`], or when `T` is not `x`'s element type.
pub(crate) fn fold_tensor<T: Element + Sync, F: Fold<T>>(
    x: &Tensor,
    mask: &[bool],
    fold: &F,
) -> Result<Vec<F::Acc>> {
    if let Some(walk) = ReduceWalk::new(x.layout(), mask) {
        let buffer = x.storage().read();
        return Ok(walk.fold(typed_slice::<T>(&buffer)?, fold));
    }
    ReducePlan::new(x.layout(), mask)?.fold_groups(x, fold.identity(), |a, v| fold.step(a, v))
}

/// A reduction's walk over rows whose inner dim is contiguous in the input.
///
/// ```text
/// (4096, 1024).sum(0): outer [4096 reduced, input stride 1024], inner [1024 kept, stride 1]
/// (4096, 1024).sum(): one reduced row of 4,194,304 elements, cut into 64 segments
/// ```
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ReduceWalk {
    /// The outer dims, outermost first.
    pub outer: Vec<Dim>,
    /// The innermost dim, input stride 1.
    pub inner: Dim,
    /// The storage position of the first element.
    base: usize,
    /// Result elements (row-major over the kept dims, in their order).
    pub out_len: usize,
}

impl ReduceWalk {
    /// The walk reducing the dims of `layout` marked in `mask` into a row-major result, or
    /// `None` when it has no element, more than [`MAX_WORK`] of them, or no dim with input
    /// stride 1 to run its rows along (then [`super::ReducePlan`] walks it).
    pub fn new(layout: &Layout, mask: &[bool]) -> Option<ReduceWalk> {
        let (shape, strides) = (layout.shape(), layout.strides());
        let numel = shape
            .iter()
            .try_fold(1usize, |n, &s| n.checked_mul(s))
            .filter(|&n| n > 0 && n as u128 <= MAX_WORK)?;
        // The result's strides: row-major over the kept dims in their order.
        let mut output = vec![0; shape.len()];
        let mut out_len = 1usize;
        for d in (0..shape.len()).rev() {
            if !mask[d] {
                output[d] = out_len;
                out_len *= shape[d];
            }
        }
        let mut dims: Vec<Dim> = (0..shape.len())
            .filter(|&d| shape[d] != 1)
            .map(|d| Dim {
                size: shape[d],
                input: strides[d],
                output: output[d],
                reduced: mask[d],
            })
            .collect();
        // Outermost first: the largest input stride, an expanded (stride 0) dim before all.
        dims.sort_by_key(|d| std::cmp::Reverse(if d.input == 0 { usize::MAX } else { d.input }));
        let mut merged: Vec<Dim> = Vec::with_capacity(dims.len());
        for d in dims {
            match merged.last_mut() {
                Some(o)
                    if o.reduced == d.reduced
                        && d.input.checked_mul(d.size) == Some(o.input)
                        && d.output * d.size == o.output =>
                {
                    o.size *= d.size;
                    o.input = d.input;
                    o.output = d.output;
                }
                _ => merged.push(d),
            }
        }
        let inner = merged.pop().unwrap_or(Dim {
            size: 1,
            input: 1,
            output: 0,
            reduced: true,
        });
        debug_assert_eq!(
            numel,
            inner.size * merged.iter().map(|d| d.size).product::<usize>()
        );
        (inner.input == 1).then(|| ReduceWalk {
            outer: merged,
            inner,
            base: layout.offset(),
            out_len,
        })
    }

    /// Folds every group of `data` (the input's storage) with `fold` and returns one
    /// accumulator per result element, in row-major order. The same value on any number of
    /// threads.
    ///
    /// # Panics
    /// When the walk reaches outside `data` (the layout was not `data`'s).
    pub fn fold<T: Copy + Sync, F: Fold<T>>(&self, data: &[T], fold: &F) -> Vec<F::Acc> {
        let rows: usize = self.outer.iter().map(|d| d.size).product();
        let len = self.inner.size;
        let numel = rows * len;
        let wanted = (numel / MIN_PER_PIECE).clamp(1, MAX_PIECES);
        let segments = if len >= 2 * MIN_SEGMENT {
            wanted.min(len / MIN_SEGMENT)
        } else {
            1
        };
        let mut chunks = wanted.div_ceil(segments).min(rows);
        let outer_reduced = self.outer.iter().any(|d| d.reduced);
        // Rows come in groups of `group` for one row of results when every reduced outer dim
        // lies inside every kept one (`(64,256,256).sum(1)`: groups of 256 rows): chunks cut
        // at whole groups share no result element, so they need no private partials. Taken
        // when it leaves at least `MIN_GROUPED_PIECES` pieces (else the partials, which let
        // a reduction over the outermost dim run on every thread).
        let first_reduced = self.outer.iter().position(|d| d.reduced);
        let group = first_reduced
            .filter(|&r| self.outer[r..].iter().all(|d| d.reduced))
            .map(|r| self.outer[r..].iter().map(|d| d.size).product::<usize>());
        let grouped = group.filter(|&g| {
            !(segments > 1 && self.inner.reduced)
                && chunks.min(rows / g) * segments >= MIN_GROUPED_PIECES.min(wanted)
        });
        if let Some(g) = grouped {
            chunks = chunks.min(rows / g);
        }
        let shares = |chunks: usize| {
            (chunks > 1 && outer_reduced && grouped.is_none())
                || (segments > 1 && self.inner.reduced)
        };
        while shares(chunks) && chunks * segments * self.out_len > MAX_PARTIALS && chunks > 1 {
            chunks /= 2;
        }
        let pieces = chunks * segments;
        let private = shares(chunks) && pieces * self.out_len <= MAX_PARTIALS;
        let (pieces, chunks, segments) = if shares(chunks) && !private {
            (1, 1, 1)
        } else {
            (pieces, chunks, segments)
        };
        let identity = fold.identity();
        let mut result = vec![identity; self.out_len];
        let mut partials = if private {
            vec![identity; pieces * self.out_len]
        } else {
            Vec::new()
        };
        let shared = SyncPtr(result.as_mut_ptr());
        let own = SyncPtr(partials.as_mut_ptr());
        let run = |p: usize| {
            let (c, s) = (p / segments, p % segments);
            // Cut at whole groups of rows when grouped (`rows` is `units * g`).
            let (unit, units) = grouped.map_or((1, rows), |g| (g, rows / g));
            let piece = Piece {
                rows: (c * units / chunks * unit, (c + 1) * units / chunks * unit),
                cols: (s * len / segments, (s + 1) * len / segments),
            };
            let acc = if private {
                // SAFETY: piece `p` alone uses partials `p * out_len ..`, inside the vector.
                unsafe { own.get().add(p * self.out_len) }
            } else {
                shared.get()
            };
            // SAFETY: `acc` has `out_len` accumulators; pieces writing to `result` write
            // disjoint elements of it (`shares` is false: each reduced row or kept element
            // belongs to one piece).
            unsafe { run_piece(self, data, fold, piece, acc) };
        };
        let helpers = if numel >= MIN_FOR_THREADS {
            num_threads().min(pieces) - 1
        } else {
            0
        };
        pool::run_pieces(pieces, helpers, &run);
        if private {
            for part in partials.chunks_exact(self.out_len) {
                for (r, &v) in result.iter_mut().zip(part) {
                    *r = fold.merge(*r, v);
                }
            }
        }
        result
    }
}

/// A pointer shared with the pieces of a walk, each using its own elements.
#[derive(Clone, Copy)]
struct SyncPtr<A>(*mut A);
// SAFETY: pieces write disjoint elements (see `ReduceWalk::fold`).
unsafe impl<A: Send> Send for SyncPtr<A> {}
unsafe impl<A: Send> Sync for SyncPtr<A> {}

impl<A> SyncPtr<A> {
    /// The pointer (a method, so closures capture the whole `SyncPtr`).
    fn get(self) -> *mut A {
        self.0
    }
}

/// The rows (flat outer positions) and inner columns one piece folds.
#[derive(Debug, Clone, Copy)]
struct Piece {
    rows: (usize, usize),
    cols: (usize, usize),
}

/// Folds one piece into the accumulators at `acc`, compiled for AVX2 where the processor has
/// it (the same operations in the same order, so the same values). Not for AVX-512: given
/// it, the compiler vectorises the generic row folds across the rows' chunks, with gathers
/// (an `int64` `amax` of rows of 1024 took 7.5 times as long, an `int32` sum 5 times); the
/// folds that gain from it call their own AVX-512 code ([`super::wide_row`]).
///
/// # Safety
/// `acc` points to `walk.out_len` accumulators that no other thread uses meanwhile at the
/// positions this piece reaches.
unsafe fn run_piece<T: Copy, F: Fold<T>>(
    walk: &ReduceWalk,
    data: &[T],
    fold: &F,
    piece: Piece,
    acc: *mut F::Acc,
) {
    #[cfg(target_arch = "x86_64")]
    if std::arch::is_x86_feature_detected!("avx2") {
        return piece_avx2(walk, data, fold, piece, acc);
    }
    piece_body(walk, data, fold, piece, acc)
}

/// [`piece_body`] compiled for AVX2.
///
/// # Safety
/// As for [`run_piece`], on a processor with AVX2.
#[cfg(target_arch = "x86_64")]
#[target_feature(enable = "avx2")]
unsafe fn piece_avx2<T: Copy, F: Fold<T>>(
    walk: &ReduceWalk,
    data: &[T],
    fold: &F,
    piece: Piece,
    acc: *mut F::Acc,
) {
    piece_body(walk, data, fold, piece, acc)
}

/// # Safety
/// As for [`run_piece`].
#[inline(always)]
unsafe fn piece_body<T: Copy, F: Fold<T>>(
    walk: &ReduceWalk,
    data: &[T],
    fold: &F,
    piece: Piece,
    acc: *mut F::Acc,
) {
    let outer = &walk.outer;
    let (first, end) = piece.rows;
    let (c0, c1) = piece.cols;
    // The odometer at the piece's first row.
    let mut index = vec![0usize; outer.len()];
    let (mut input, mut output) = (walk.base + c0, c0 * walk.inner.output);
    let mut rest = first;
    for d in (0..outer.len()).rev() {
        index[d] = rest % outer[d].size;
        rest /= outer[d].size;
        input += index[d] * outer[d].input;
        output += index[d] * outer[d].output;
    }
    let inner = walk.inner;
    let len = c1 - c0;
    // Kept contiguous rows wait here (their storage positions and their accumulators'), a
    // batch at a time, to be folded a block of columns at a time (see `fold_rows_into`).
    let (mut starts, mut outs) = (Vec::new(), Vec::new());
    for _ in first..end {
        let row = &data[input..input + len];
        if inner.reduced {
            let a = acc.add(output);
            a.write(fold.row(a.read(), row));
        } else if inner.output == 1 {
            starts.push(input);
            outs.push(output);
            if starts.len() == BATCH {
                fold_rows_into(fold, data, &starts, &outs, len, acc);
                starts.clear();
                outs.clear();
            }
        } else {
            for (j, &v) in row.iter().enumerate() {
                let a = acc.add(output + j * inner.output);
                a.write(fold.step(a.read(), v));
            }
        }
        for d in (0..outer.len()).rev() {
            index[d] += 1;
            input += outer[d].input;
            output += outer[d].output;
            if index[d] < outer[d].size {
                break;
            }
            input -= outer[d].input * outer[d].size;
            output -= outer[d].output * outer[d].size;
            index[d] = 0;
        }
    }
    fold_rows_into(fold, data, &starts, &outs, len, acc);
}

/// Rows a piece collects before folding them into their accumulators.
const BATCH: usize = 256;

/// Rows [`Fold::rows_into`] folds together into one row of accumulators.
pub const ROWS_AT_ONCE: usize = 4;

/// Folds the rows of `len` elements at storage positions `starts[i]` into the accumulators
/// at `acc + outs[i] ..`, each accumulator taking its column's elements in row order: each
/// run of rows with the same accumulators by one [`Fold::rows_into`].
///
/// # Safety
/// As for [`run_piece`].
#[inline(always)]
unsafe fn fold_rows_into<T: Copy, F: Fold<T>>(
    fold: &F,
    data: &[T],
    starts: &[usize],
    outs: &[usize],
    len: usize,
    acc: *mut F::Acc,
) {
    let mut first = 0;
    for group in outs.chunk_by(|a, b| a == b) {
        let accs = std::slice::from_raw_parts_mut(acc.add(group[0]), len);
        fold.rows_into(accs, data, &starts[first..first + group.len()]);
        first += group.len();
    }
}

/// `acc` followed by the fold of `row`: in [`LANES`] interleaved accumulators merged in
/// order, then the tail element by element.
#[inline(always)]
pub fn fold_row<T: Copy, F: Fold<T> + ?Sized>(fold: &F, acc: F::Acc, row: &[T]) -> F::Acc {
    if row.len() < 2 * LANES {
        return row.iter().fold(acc, |a, &v| fold.step(a, v));
    }
    let mut lanes = [fold.identity(); LANES];
    let mut chunks = row.chunks_exact(LANES);
    for chunk in &mut chunks {
        for (l, &v) in lanes.iter_mut().zip(chunk) {
            *l = fold.step(*l, v);
        }
    }
    let total = lanes.iter().fold(acc, |a, &l| fold.merge(a, l));
    chunks
        .remainder()
        .iter()
        .fold(total, |a, &v| fold.step(a, v))
}

/// [`fold_row`] for a fold whose `step(a, v)` equals `plain(a, v)` for the elements `v` of
/// a row whose `screen` passes `clean`: the lanes take `plain`, and each lane also folds its
/// elements into a screen (its first element, then `screen(s, v)` for the others), which
/// must pass `clean` only if each of its elements would. A row that fails is folded again
/// by [`fold_row`]. The value is [`fold_row`]'s either way. For `amax` of floats, `plain` is
/// a compare and select without the NaN test (one `vmaxps` a vector, so each lane's chain of
/// dependent steps is shorter), and the screen a sum of `v - v`, which is finite only when
/// every `v` is (a row with an infinity is folded twice, still to the same value).
///
/// ```text
/// plain = |a, v| if v > a { v } else { a }    screen = |s, v| s + (v - v)    clean = is_finite
/// ```
#[inline(always)]
pub(crate) fn fold_row_plain<T: Copy, F: Fold<T> + ?Sized>(
    fold: &F,
    acc: F::Acc,
    row: &[T],
    plain: impl Fn(F::Acc, T) -> F::Acc,
    screen: impl Fn(T, T) -> T,
    clean: impl Fn(T) -> bool,
) -> F::Acc {
    if row.len() < 2 * LANES {
        return fold_row(fold, acc, row);
    }
    let mut lanes = [fold.identity(); LANES];
    let mut screens: [T; LANES] = std::array::from_fn(|i| row[i]);
    let mut chunks = row.chunks_exact(LANES);
    if let Some(first) = chunks.next() {
        for (l, &v) in lanes.iter_mut().zip(first) {
            *l = plain(*l, v);
        }
    }
    for chunk in &mut chunks {
        for ((l, s), &v) in lanes.iter_mut().zip(&mut screens).zip(chunk) {
            *l = plain(*l, v);
            *s = screen(*s, v);
        }
    }
    if !screens.iter().all(|&s| clean(s)) {
        return fold_row(fold, acc, row);
    }
    let total = lanes.iter().fold(acc, |a, &l| fold.merge(a, l));
    chunks
        .remainder()
        .iter()
        .fold(total, |a, &v| fold.step(a, v))
}

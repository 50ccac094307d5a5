//! Short inner dims (PyTorch issue 57611: `(5M,3) + (3,)`): when the innermost dim is a few
//! elements long and every operand either continues straight on into the next dim (it is
//! "flat" over both) or repeats the same few elements for each position of the next dim,
//! the repeating operands are laid out many times over in a small buffer, and the loop runs
//! over long rows that cover many positions of the next dim at once.

use super::exec::{rect, Bases};
use super::kernel::{Rect, Rows};
use crate::iter::Plan;

/// Inner dims shorter than this take the repeated path.
pub(crate) const SHORT_INNER: usize = 32;

/// Words of a laid-out buffer kept on the stack.
const SMALL_WORDS: usize = 16;

/// About how many elements a repeated row holds.
const ROW: usize = 1024;

/// How operand `k` walks the first two dims: flat, or repeating (stride 0 across dim 1).
fn repeats(plan: &Plan, k: usize) -> Option<bool> {
    let (n0, s) = (plan.shape()[0], plan.strides(k));
    if s[1] == s[0].wrapping_mul(n0) {
        Some(false)
    } else if s[1] == 0 && k > 0 {
        Some(true)
    } else {
        None
    }
}

/// Loops of fewer elements keep the plain walk: laying out costs more than it saves (a
/// `(2, 3) < (3,)` took a tenth of its time in this path).
const MIN_NUMEL: usize = 64;

/// Whether `plan` has a short inner dim that every operand walks flat or repeats (the
/// output flat, at least one input repeating), over at least [`MIN_NUMEL`] elements.
pub fn applies(plan: &Plan) -> bool {
    let n = plan.offsets().len();
    plan.numel() >= MIN_NUMEL
        && plan.shape().len() >= 2
        && plan.shape()[0] < SHORT_INNER
        && plan.shape()[1] > 1
        && (0..n).all(|k| repeats(plan, k).is_some())
        && (1..n).any(|k| repeats(plan, k) == Some(true))
}

/// The greatest common divisor.
pub fn gcd(a: usize, b: usize) -> usize {
    if b == 0 {
        a
    } else {
        gcd(b, a % b)
    }
}

/// Fills `buf` with `count` elements of `size` bytes read at `src`, `step` elements apart,
/// then repeats them until `total` elements are written.
///
/// # Safety
/// The source positions are readable; `buf` holds `total * size` bytes.
unsafe fn lay_out(
    buf: *mut u8,
    src: *const u8,
    size: usize,
    step: usize,
    count: usize,
    total: usize,
) {
    for e in 0..count {
        std::ptr::copy_nonoverlapping(src.add(e * step * size), buf.add(e * size), size);
    }
    let mut filled = count;
    while filled < total {
        let n = filled.min(total - filled);
        std::ptr::copy_nonoverlapping(buf, buf.add(filled * size), n * size);
        filled += n;
    }
}

/// Runs an [`applies`] plan: rows of `n0 * k` elements over `k` positions of dim 1, the
/// repeating inputs read from their laid-out buffers (refilled when an outer dim moves
/// them); `stream` as for [`Rows::rows`]. The kernel comes through `dyn` (one call per row
/// of about `ROW` elements), so the walk is compiled once per operand count.
///
/// # Safety
/// As for [`super::exec::execute`], on an independent loop.
pub(crate) unsafe fn run<const N: usize>(
    plan: &Plan,
    bases: &Bases<N>,
    kernel: &dyn Rows<N>,
    stream: bool,
) {
    let sizes = kernel.itemsizes();
    let (n0, n1) = (plan.shape()[0], plan.shape()[1]);
    // Positions of dim 1 per row: about `ROW` elements, and a multiple of `whole` so that a
    // contiguous output's rows are whole cache lines when its first one is.
    let line = 64;
    let whole = line / gcd(line, n0 * sizes[0]);
    let k = ((ROW / n0) / whole * whole).max(whole).min(n1);
    let repeated: [bool; N] = std::array::from_fn(|op| repeats(plan, op) == Some(true));
    // u64 words keep every element type aligned; a buffer of a few words lives on the stack.
    let mut small = [[0u64; SMALL_WORDS]; N];
    let mut large: [Vec<u64>; N] = std::array::from_fn(|_| Vec::new());
    let buffers: [*mut u8; N] = std::array::from_fn(|op| {
        let words = (n0 * k * sizes[op]).div_ceil(8);
        if !repeated[op] {
            std::ptr::null_mut()
        } else if words <= SMALL_WORDS {
            small[op].as_mut_ptr() as *mut u8
        } else {
            large[op] = vec![0u64; words];
            large[op].as_mut_ptr() as *mut u8
        }
    });
    let mut laid_out_from: [Option<usize>; N] = [None; N];
    plan.for_each_block(|b| {
        let mut ptr = bases.at(b.offsets, sizes);
        let block: Rect<N> = rect(b);
        let mut walk = Rect {
            len: n0 * k,
            rows: n1 / k,
            ..block
        };
        for op in 0..N {
            if repeated[op] {
                let buf = buffers[op];
                if laid_out_from[op] != Some(b.offsets[op]) {
                    lay_out(buf, ptr[op], sizes[op], block.step[op], n0, n0 * k);
                    laid_out_from[op] = Some(b.offsets[op]);
                }
                ptr[op] = buf;
                walk.step[op] = 1;
                walk.row_step[op] = 0;
            } else {
                walk.row_step[op] *= k;
            }
        }
        kernel.rows(ptr, &walk, stream);
        let rest = n1 - walk.rows * k;
        if rest > 0 {
            for op in 0..N {
                ptr[op] = ptr[op].add(walk.rows * walk.row_step[op] * sizes[op]);
            }
            let last = Rect {
                len: n0 * rest,
                rows: 1,
                ..walk
            };
            kernel.rows(ptr, &last, stream);
        }
    });
}

//! Conflicting layouts (`a.T + b`): when an operand moves far at each step of the inner dim
//! while another dim is its contiguous one, the walk goes over two-dimensional tiles of
//! those dims, small enough that the cache lines the far-moving operand touches in one row
//! are still there for the next rows.

use super::exec::{rect, Bases};
use super::kernel::{Rect, Rows};
use crate::iter::{Block, Plan};

/// Elements of the inner dim per tile: the far-moving operand keeps this many cache lines
/// live at once. Few, because its lines are often a power of two apart and so compete for
/// the same cache sets: with 128 rows a tile, `(4096,4096).T + (4096,4096)` took twice as
/// long at 32 elements as at 8 to 16. With [`TILE_ROWS`] rows, 32 elements take the time 16
/// took with 128 rows.
const TILE_LEN: usize = 32;
/// Positions of the second dim per tile: how many rows reuse the far operand's lines (64
/// bytes hold 8 to 16 elements of four or eight bytes) before they go. Each row also writes
/// a run of the output, far from the last when the output is contiguous along this dim (a
/// channels-last input into a contiguous `out=`). With 128 rows, such calls ran in two
/// modes, the slow one three times the fast, call by call; 16 rows of 32 held the fast
/// one (see `notes/performance.md`, the eighth session).
const TILE_ROWS: usize = 16;
/// Dims shorter than this are not worth tiling.
const MIN_TILED: usize = 16;

/// The plan to tile, with the dim to tile against moved to position 1, when some operand
/// moves more than one element per inner step and has a dim (of at least [`MIN_TILED`]
/// positions) where it moves less.
pub fn tiled_plan(plan: &Plan) -> Option<Plan> {
    let shape = plan.shape();
    if shape.len() < 2 || shape[0] < MIN_TILED {
        return None;
    }
    let n = plan.offsets().len();
    let dim = (0..n).find_map(|k| {
        let s = plan.strides(k);
        if s[0] <= 1 {
            return None;
        }
        (1..shape.len())
            .filter(|&d| s[d] != 0 && s[d] < s[0] && shape[d] >= MIN_TILED)
            .min_by_key(|&d| s[d])
    })?;
    let mut tiled = plan.clone();
    tiled.swap_dims(1, dim);
    Some(tiled)
}

/// Runs one block of a [`tiled_plan`] tile by tile. The kernel comes through `dyn` (one
/// call per tile), so the walk is compiled once per operand count.
///
/// # Safety
/// As for [`super::exec::execute`], on an independent loop.
pub(crate) unsafe fn run_tiles<const N: usize>(kernel: &dyn Rows<N>, bases: &Bases<N>, b: &Block) {
    let sizes = kernel.itemsizes();
    let block: Rect<N> = rect(b);
    for j in (0..b.rows).step_by(TILE_ROWS) {
        for i in (0..b.len).step_by(TILE_LEN) {
            let at: [usize; N] =
                std::array::from_fn(|k| b.offsets[k] + i * block.step[k] + j * block.row_step[k]);
            let tile = Rect {
                len: TILE_LEN.min(b.len - i),
                rows: TILE_ROWS.min(b.rows - j),
                ..block
            };
            kernel.rows(bases.at(&at, sizes), &tile, false);
        }
    }
}

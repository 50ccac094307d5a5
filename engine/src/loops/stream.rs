//! Writing a long output row with non-temporal stores: results are computed a kilobyte at a
//! time into a buffer that stays in the L1 cache, then stored to memory without first
//! reading the destination's cache lines (which ordinary stores to memory that is not
//! cached must do) and without pushing other data out of the caches. Worth it only for
//! outputs far larger than the last-level cache (see [`STREAM_MIN_BYTES`]) that were not
//! just allocated: the OS zeroes a new page at its first write, which leaves it in cache,
//! where ordinary stores are cheaper.

use std::mem::{align_of, size_of, MaybeUninit};

/// Outputs at least this large (in bytes) are written with non-temporal stores; `None`: none
/// are. They were on from 32 MiB (the last-level caches of current processors hold 8 to 64
/// MiB per socket; glibc's `memcpy` switches to such stores around three quarters of it)
/// and gained 10 to 20% on `out=` rows when first measured, but on this project's shared
/// machine they later ran in two modes, the slow one twice as slow as ordinary stores: in
/// one session's alternating runs (one thread, `out=`, float64 and int64 `(4096,1024) +
/// (1024,)` and float32 `(16384,1024) + (1024,)`), torch / engine was 0.43x to 1.43x with
/// them (geometric mean 0.72x over 9 rows) and 0.81x to 1.21x without (0.97x over 6). Off
/// until the slow mode is understood: [`streamed`] keeps its tests, and the kernels compile
/// it in again once this is set ([`streamable`]).
pub(crate) const STREAM_MIN_BYTES: Option<usize> = None;

/// Bytes computed per buffer.
const BUFFER_BYTES: usize = 1024;

/// Whether the kernels write with [`streamed`] (compiled in only while
/// [`STREAM_MIN_BYTES`] turns it on: its copies in every kernel were a tenth of the engine's
/// code).
const STREAMING: bool = STREAM_MIN_BYTES.is_some();

/// Whether the kernels write elements of `R` with [`streamed`] ([`STREAMING`]), and it can on
/// this processor: their size divides 16 bytes and equals their alignment, which is at most 8.
pub(crate) const fn streamable<R>() -> bool {
    STREAMING && can_stream::<R>()
}

/// Whether [`streamed`] can write elements of `R` on this processor (see [`streamable`]).
pub const fn can_stream<R>() -> bool {
    cfg!(target_arch = "x86_64")
        && size_of::<R>() > 0
        && 16 % size_of::<R>() == 0
        && align_of::<R>() == size_of::<R>()
        && align_of::<R>() <= 8
}

/// Writes `len` results to `o`: `produce(start, buf)` must initialise every element of
/// `buf` with results `start..start + buf.len()`. Call [`fence`] before the results are
/// read by another thread.
///
/// # Safety
/// `o` is valid for writing `len` elements, aligned for `R`, and [`can_stream::<R>`] holds.
#[inline(always)]
pub unsafe fn streamed<R: Copy>(
    o: *mut R,
    len: usize,
    mut produce: impl FnMut(usize, &mut [MaybeUninit<R>]),
) {
    let size = size_of::<R>();
    let mut words = [MaybeUninit::<u64>::uninit(); BUFFER_BYTES / 8];
    // SAFETY: the words are 8-aligned (enough for `R`) and `BUFFER_BYTES` long.
    let buf = std::slice::from_raw_parts_mut(
        words.as_mut_ptr() as *mut MaybeUninit<R>,
        BUFFER_BYTES / size,
    );
    // Ordinary stores up to the first 16-byte boundary; `o` is aligned to `R`'s size, which
    // divides 16, so whole elements reach it exactly.
    let head = (((16 - o as usize % 16) % 16) / size).min(len);
    let mut start = 0;
    while start < len {
        let n = if start == 0 && head > 0 {
            head
        } else {
            buf.len().min(len - start)
        };
        let part = &mut buf[..n];
        produce(start, part);
        let src = part.as_ptr() as *const u8;
        let dst = o.add(start) as *mut u8;
        let bytes = n * size;
        let full = if start < head { 0 } else { bytes / 16 * 16 };
        copy_nontemporal(dst, src, full);
        std::ptr::copy_nonoverlapping(src.add(full), dst.add(full), bytes - full);
        start += n;
    }
}

/// Copies `bytes` (a multiple of 16) from `src` to the 16-byte aligned `dst` with
/// non-temporal stores.
///
/// # Safety
/// Both ranges are valid and do not overlap; `dst` is 16-byte aligned.
#[inline(always)]
unsafe fn copy_nontemporal(dst: *mut u8, src: *const u8, bytes: usize) {
    #[cfg(target_arch = "x86_64")]
    {
        use std::arch::x86_64::{__m128i, _mm_loadu_si128, _mm_stream_si128};
        for off in (0..bytes).step_by(16) {
            _mm_stream_si128(
                dst.add(off) as *mut __m128i,
                _mm_loadu_si128(src.add(off) as *const __m128i),
            );
        }
    }
    #[cfg(not(target_arch = "x86_64"))]
    std::ptr::copy_nonoverlapping(src, dst, bytes);
}

/// Orders the non-temporal stores before every later store (they are weakly ordered), so
/// whoever learns of them afterwards (e.g. by joining the thread) sees them.
#[inline(always)]
pub fn fence() {
    #[cfg(target_arch = "x86_64")]
    // SAFETY: sfence has no preconditions (SSE is part of x86-64).
    unsafe {
        std::arch::x86_64::_mm_sfence()
    };
}

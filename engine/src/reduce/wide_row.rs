//! The `f64` sum of a reduced row of `float32`, `float64`, `float16` or `bfloat16`, in one
//! fixed order whatever the processor: AVX-512 (AVX2 for `float64`) where it has it, element
//! by element (which the compiler vectorises as it can) elsewhere, to the same bits.
//!
//! The order for `float64`: 32 lanes, lane `k` adding elements `k`, `k + 32`, `k + 64`, ...
//! of the whole 32s; the lanes joined in a fixed tree ([`join`]), that total added to `acc`,
//! then the elements past the last whole 32 one by one. So the sum is exact to `f64`'s
//! rounding.
//!
//! For `float32`, `float16` and `bfloat16` the elements first meet in `f32` (as torch adds
//! them), but only a few at a time: blocks of up to 1024 elements (8 runs of 128), element
//! `m` of each run into `f32` lane `m`; at a block's end lanes `l`, `l + 64`, `l + 32` and
//! `l + 96` are added in pairs (`(b[l] + b[l+64]) + (b[l+32] + b[l+96])`, in `f32`) into
//! `f64` lane `l`. Each `f32` lane adds at most 8 elements, each element then meets two more
//! roundings, so the error is at most `10 · 2^-24` of the elements' magnitudes (torch's own
//! cascade of `float32` sums errs as far; the corpus compares float sums within a
//! tolerance); the rest is as for `float64`, the tail past the last whole 128 one by one in
//! `f64`. One `f32` add a vector of sixteen, in eight independent vectors, and a conversion
//! to `f64` a block keep a row's sum as fast as the memory it reads.
//!
//! A row shorter than 64 (128 for the `f32` blocks) is added one by one from `acc`, in
//! `f64`, for every dtype. Every conversion is exact and every step an IEEE addition, so the
//! vector path differs from the portable one only in a NaN's payload.
//!
//! ```
//! use bcast_engine::__internals::reduce::wide_row::sum_row;
//! let row: Vec<f32> = (0..100).map(|i| i as f32 * 0.5).collect();
//! assert_eq!(sum_row(1.0, &row), 1.0 + 2475.0);
//! ```

use crate::half::{BFloat16, Half};

/// Lanes of the `f64` sum.
const LANES: usize = 32;

/// Elements of one run: one per `f32` lane of a block.
const RUN: usize = 4 * LANES;

/// Runs in one `f32` block.
const RUNS_PER_BLOCK: usize = 8;

/// An element whose row sums this module computes.
pub trait WideElement: Copy {
    /// The element as an `f64` (exact).
    fn wide(self) -> f64;
    /// `acc` plus the sum of `row` in this dtype's order (the module's), by the processor's
    /// widest path.
    fn sum_row(acc: f64, row: &[Self]) -> f64;
    /// [`WideElement::sum_row`] element by element.
    fn sum_row_portable(acc: f64, row: &[Self]) -> f64;
    /// Adds the rows of `accs.len()` elements at `data[s..]`, for each `s` in `starts`,
    /// into `accs`, column by column (a reduction over an outer dim): four rows at a time
    /// (the rows past the last whole four one by one, in `f64`), each four added as
    /// `accs[j] + r0[j] + r1[j] + r2[j] + r3[j]`, left to right in `f64`, for `float64`; for
    /// the others `accs[j] + ((r0[j] + r1[j]) + (r2[j] + r3[j]))`, the inner sums in `f32`.
    /// Sixteen columns per instruction where the processor has AVX-512, to the same values.
    ///
    /// # Panics
    /// When a row reaches outside `data`.
    #[inline(always)]
    fn add_rows(accs: &mut [f64], data: &[Self], starts: &[usize]) {
        Self::add_rows_portable(accs, data, starts)
    }
    /// [`WideElement::add_rows`] element by element.
    #[inline(always)]
    fn add_rows_portable(accs: &mut [f64], data: &[Self], starts: &[usize]) {
        add_quads(accs, data, starts, |a, [v0, v1, v2, v3]| {
            a + v0.wide() + v1.wide() + v2.wide() + v3.wide()
        })
    }
}

/// Adds the rows at `data[s..]`, for each `s` in `starts`, into `accs` four at a time, each
/// column's accumulator and four elements joined by `add4`; the rows past the last whole
/// four one by one, in `f64`.
#[inline(always)]
fn add_quads<T: WideElement>(
    accs: &mut [f64],
    data: &[T],
    starts: &[usize],
    add4: impl Fn(f64, [T; 4]) -> f64,
) {
    let len = accs.len();
    let mut quads = starts.chunks_exact(4);
    for quad in &mut quads {
        let [r0, r1, r2, r3] = [0, 1, 2, 3].map(|k| &data[quad[k]..quad[k] + len]);
        for ((((a, &v0), &v1), &v2), &v3) in accs.iter_mut().zip(r0).zip(r1).zip(r2).zip(r3) {
            *a = add4(*a, [v0, v1, v2, v3]);
        }
    }
    add_one_by_one(accs, data, quads.remainder());
}

/// [`WideElement::add_rows`] element by element.
#[inline(always)]
pub fn add_rows_portable<T: WideElement>(accs: &mut [f64], data: &[T], starts: &[usize]) {
    T::add_rows_portable(accs, data, starts)
}

/// Adds the rows at `data[s..]`, for each `s` in `starts`, into `accs`, one by one in `f64`.
#[inline(always)]
fn add_one_by_one<T: WideElement>(accs: &mut [f64], data: &[T], starts: &[usize]) {
    let len = accs.len();
    for &start in starts {
        for (a, v) in accs.iter_mut().zip(&data[start..start + len]) {
            *a += v.wide();
        }
    }
}

/// `acc` plus the sum of `row`, in the order the module describes.
///
/// ```
/// use bcast_engine::__internals::reduce::wide_row::sum_row;
/// let row = [1e16f64, 1.0, -1e16, 1.0];
/// assert_eq!(sum_row(0.0, &row), 1.0); // one by one: a row shorter than 64
/// ```
#[inline(always)]
pub fn sum_row<T: WideElement>(acc: f64, row: &[T]) -> f64 {
    T::sum_row(acc, row)
}

/// [`sum_row`] element by element.
#[inline(always)]
pub fn sum_row_portable<T: WideElement>(acc: f64, row: &[T]) -> f64 {
    T::sum_row_portable(acc, row)
}

/// Whether the AVX-512 path takes a row of `len` elements.
#[inline(always)]
fn wide_path(len: usize) -> bool {
    #[cfg(target_arch = "x86_64")]
    if len >= 2 * LANES {
        return std::arch::is_x86_feature_detected!("avx512f");
    }
    let _ = len;
    false
}

/// The `float64` order, element by element.
#[inline(always)]
fn direct_portable<T: WideElement>(acc: f64, row: &[T]) -> f64 {
    if row.len() < 2 * LANES {
        return one_by_one(acc, row);
    }
    let mut lanes = [0.0f64; LANES];
    let mut chunks = row.chunks_exact(LANES);
    for chunk in &mut chunks {
        for (l, v) in lanes.iter_mut().zip(chunk) {
            *l += v.wide();
        }
    }
    one_by_one(acc + join(&lanes), chunks.remainder())
}

/// The `float32`, `float16` and `bfloat16` order, element by element.
#[inline(always)]
fn blocked_portable<T: Narrow>(acc: f64, row: &[T]) -> f64 {
    if row.len() < RUN {
        return one_by_one(acc, row);
    }
    let mut lanes = [0.0f64; LANES];
    let mut runs = row.chunks_exact(RUN);
    let whole = runs.len();
    for _ in 0..whole.div_ceil(RUNS_PER_BLOCK) {
        let mut b = [0.0f32; RUN];
        for run in runs.by_ref().take(RUNS_PER_BLOCK) {
            for (b, v) in b.iter_mut().zip(run) {
                *b += v.narrow();
            }
        }
        for (l, lane) in lanes.iter_mut().enumerate() {
            *lane += ((b[l] + b[l + 2 * LANES]) + (b[l + LANES] + b[l + 3 * LANES])) as f64;
        }
    }
    one_by_one(acc + join(&lanes), runs.remainder())
}

/// `acc` plus each element in turn, in `f64`.
#[inline(always)]
fn one_by_one<T: WideElement>(acc: f64, row: &[T]) -> f64 {
    row.iter().fold(acc, |a, v| a + v.wide())
}

/// The lanes' total: lanes `j`, `j + 8`, `j + 16` and `j + 24` joined in pairs, as
/// `(l0 + l8) + (l16 + l24)`; then the eight results halved twice (`s_j + s_{j+4}`, then
/// `u_j + u_{j+2}`); then the last two added. It is the order of AVX-512's four
/// accumulators folded into one and then into its halves.
#[inline(always)]
fn join(lanes: &[f64; LANES]) -> f64 {
    let s: [f64; 8] =
        std::array::from_fn(|j| (lanes[j] + lanes[j + 8]) + (lanes[j + 16] + lanes[j + 24]));
    let u: [f64; 4] = std::array::from_fn(|j| s[j] + s[j + 4]);
    (u[0] + u[2]) + (u[1] + u[3])
}

/// An element exactly an `f32`, loaded sixteen at a time: `float32` and the half-precision
/// dtypes.
trait Narrow: WideElement {
    /// The element as an `f32` (exact).
    fn narrow(self) -> f32;
    /// The sixteen elements at `p` as `f32`s.
    ///
    /// # Safety
    /// The processor has AVX-512F; `p` is valid for 16 reads.
    #[cfg(target_arch = "x86_64")]
    unsafe fn load16(p: *const Self) -> std::arch::x86_64::__m512;
}

impl WideElement for f64 {
    #[inline(always)]
    fn wide(self) -> f64 {
        self
    }
    /// Through AVX2, not AVX-512: a `float64` row sum is bound by memory, and here reading
    /// 32 MiB into 512-bit adds took 1.5 times as long as into 256-bit ones.
    #[inline(always)]
    fn sum_row(acc: f64, row: &[f64]) -> f64 {
        #[cfg(target_arch = "x86_64")]
        if row.len() >= 2 * LANES && std::arch::is_x86_feature_detected!("avx2") {
            // SAFETY: the processor has AVX2.
            return unsafe { avx2::direct_f64(acc, row) };
        }
        direct_portable(acc, row)
    }
    #[inline(always)]
    fn sum_row_portable(acc: f64, row: &[f64]) -> f64 {
        direct_portable(acc, row)
    }
}

impl WideElement for f32 {
    #[inline(always)]
    fn wide(self) -> f64 {
        self as f64
    }
    #[inline(always)]
    fn sum_row(acc: f64, row: &[f32]) -> f64 {
        #[cfg(target_arch = "x86_64")]
        if wide_path(row.len()) {
            // SAFETY: the processor has AVX-512F.
            return unsafe { avx512::blocked(acc, row) };
        }
        blocked_portable(acc, row)
    }
    #[inline(always)]
    fn sum_row_portable(acc: f64, row: &[f32]) -> f64 {
        blocked_portable(acc, row)
    }
    #[inline(always)]
    fn add_rows(accs: &mut [f64], data: &[f32], starts: &[usize]) {
        add_rows_narrow(accs, data, starts)
    }
    #[inline(always)]
    fn add_rows_portable(accs: &mut [f64], data: &[f32], starts: &[usize]) {
        add_rows_narrow_portable(accs, data, starts)
    }
}

impl Narrow for f32 {
    #[inline(always)]
    fn narrow(self) -> f32 {
        self
    }
    #[cfg(target_arch = "x86_64")]
    #[inline(always)]
    unsafe fn load16(p: *const f32) -> std::arch::x86_64::__m512 {
        // SAFETY: `p` is valid for sixteen reads; the processor has AVX-512F.
        unsafe { std::arch::x86_64::_mm512_loadu_ps(p) }
    }
}

/// [`WideElement::add_rows`] for `float32`, `float16` and `bfloat16`: sixteen columns at a
/// time where the processor has AVX-512.
#[inline(always)]
fn add_rows_narrow<T: Narrow>(accs: &mut [f64], data: &[T], starts: &[usize]) {
    #[cfg(target_arch = "x86_64")]
    if wide_path(accs.len()) {
        let len = accs.len();
        assert!(
            starts
                .iter()
                .all(|&s| s.checked_add(len).is_some_and(|e| e <= data.len())),
            "a row outside the data"
        );
        // SAFETY: the processor has AVX-512F; every row lies inside `data`.
        return unsafe { avx512::add_rows(accs, data, starts) };
    }
    add_rows_narrow_portable(accs, data, starts)
}

/// [`add_rows_narrow`] element by element: each four rows' elements added in `f32` in
/// pairs, `(v0 + v1) + (v2 + v3)`, then their sum in `f64`; the rest one by one.
#[inline(always)]
fn add_rows_narrow_portable<T: Narrow>(accs: &mut [f64], data: &[T], starts: &[usize]) {
    add_quads(accs, data, starts, |a, [v0, v1, v2, v3]| {
        a + ((v0.narrow() + v1.narrow()) + (v2.narrow() + v3.narrow())) as f64
    })
}

macro_rules! narrow_element {
    ($t:ty, $load:expr) => {
        impl WideElement for $t {
            #[inline(always)]
            fn wide(self) -> f64 {
                self.to_f32() as f64
            }
            #[inline(always)]
            fn sum_row(acc: f64, row: &[$t]) -> f64 {
                #[cfg(target_arch = "x86_64")]
                if wide_path(row.len()) {
                    // SAFETY: the processor has AVX-512F.
                    return unsafe { avx512::blocked(acc, row) };
                }
                blocked_portable(acc, row)
            }
            #[inline(always)]
            fn sum_row_portable(acc: f64, row: &[$t]) -> f64 {
                blocked_portable(acc, row)
            }
            #[inline(always)]
            fn add_rows(accs: &mut [f64], data: &[$t], starts: &[usize]) {
                add_rows_narrow(accs, data, starts)
            }
            #[inline(always)]
            fn add_rows_portable(accs: &mut [f64], data: &[$t], starts: &[usize]) {
                add_rows_narrow_portable(accs, data, starts)
            }
        }

        impl Narrow for $t {
            #[inline(always)]
            fn narrow(self) -> f32 {
                self.to_f32()
            }
            #[cfg(target_arch = "x86_64")]
            #[inline(always)]
            unsafe fn load16(p: *const $t) -> std::arch::x86_64::__m512 {
                use std::arch::x86_64::{__m256i, _mm256_loadu_si256};
                // SAFETY: `p` is valid for sixteen elements (transparent `u16`s); the
                // processor has AVX-512F.
                unsafe { ($load)(_mm256_loadu_si256(p as *const __m256i)) }
            }
        }
    };
}
// `vcvtph2ps`: exact, as `Half::to_f32`.
narrow_element!(Half, std::arch::x86_64::_mm512_cvtph_ps);
// A `bfloat16` is the high half of its `f32`.
narrow_element!(BFloat16, |bits| {
    use std::arch::x86_64::{_mm512_castsi512_ps, _mm512_cvtepu16_epi32, _mm512_slli_epi32};
    _mm512_castsi512_ps(_mm512_slli_epi32::<16>(_mm512_cvtepu16_epi32(bits)))
});

/// The `float64` path: the `f64` lanes in eight accumulators of four.
#[cfg(target_arch = "x86_64")]
mod avx2 {
    use super::{one_by_one, LANES};
    use std::arch::x86_64::*;

    /// [`super::direct_portable`] for `float64`: accumulator `m` holds lanes `4m .. 4m + 4`.
    ///
    /// # Safety
    /// The processor has AVX2.
    #[target_feature(enable = "avx2")]
    pub(super) unsafe fn direct_f64(acc: f64, row: &[f64]) -> f64 {
        let mut b = [_mm256_setzero_pd(); 8];
        let mut chunks = row.chunks_exact(LANES);
        for chunk in &mut chunks {
            for (m, l) in b.iter_mut().enumerate() {
                // SAFETY: the chunk holds 32 elements.
                *l = _mm256_add_pd(*l, unsafe { _mm256_loadu_pd(chunk.as_ptr().add(4 * m)) });
            }
        }
        // `join`: lanes j < 4 of the eight sums `s` from accumulators 0, 2, 4, 6; lanes
        // j >= 4 from 1, 3, 5, 7.
        let low = _mm256_add_pd(_mm256_add_pd(b[0], b[2]), _mm256_add_pd(b[4], b[6]));
        let high = _mm256_add_pd(_mm256_add_pd(b[1], b[3]), _mm256_add_pd(b[5], b[7]));
        let u = _mm256_add_pd(low, high);
        let v = _mm_add_pd(_mm256_castpd256_pd128(u), _mm256_extractf128_pd::<1>(u));
        let total = _mm_cvtsd_f64(v) + _mm_cvtsd_f64(_mm_unpackhi_pd(v, v));
        one_by_one(acc + total, chunks.remainder())
    }
}

/// The AVX-512 paths: the `f64` lanes in four accumulators of eight.
#[cfg(target_arch = "x86_64")]
mod avx512 {
    use super::{one_by_one, Narrow, RUN, RUNS_PER_BLOCK};
    use std::arch::x86_64::*;

    /// [`super::blocked_portable`].
    ///
    /// # Safety
    /// The processor has AVX-512F.
    #[target_feature(enable = "avx512f")]
    pub(super) unsafe fn blocked<T: Narrow>(acc: f64, row: &[T]) -> f64 {
        if row.len() < RUN {
            return one_by_one(acc, row);
        }
        let mut lanes = [_mm512_setzero_pd(); 4];
        let mut runs = row.chunks_exact(RUN);
        let whole = runs.len();
        for _ in 0..whole.div_ceil(RUNS_PER_BLOCK) {
            let mut b = [_mm512_setzero_ps(); 8];
            for run in runs.by_ref().take(RUNS_PER_BLOCK) {
                for (k, b) in b.iter_mut().enumerate() {
                    // SAFETY: the run holds 128 elements.
                    *b = _mm512_add_ps(*b, unsafe { T::load16(run.as_ptr().add(16 * k)) });
                }
            }
            // Lanes `l`, `l + 64`, `l + 32` and `l + 96`: vectors 0, 4, 2 and 6 (lanes 0 to
            // 15); 1, 5, 3 and 7.
            let joined = [
                _mm512_add_ps(_mm512_add_ps(b[0], b[4]), _mm512_add_ps(b[2], b[6])),
                _mm512_add_ps(_mm512_add_ps(b[1], b[5]), _mm512_add_ps(b[3], b[7])),
            ];
            add16(&mut lanes, joined);
        }
        one_by_one(acc + join(lanes), runs.remainder())
    }

    /// [`super::add_rows_narrow_portable`], sixteen columns at a time.
    ///
    /// # Safety
    /// The processor has AVX-512F; every row (`data[s..s + accs.len()]`) lies inside `data`.
    #[target_feature(enable = "avx512f")]
    pub(super) unsafe fn add_rows<T: Narrow>(accs: &mut [f64], data: &[T], starts: &[usize]) {
        let len = accs.len();
        let (a, d) = (accs.as_mut_ptr(), data.as_ptr());
        // The rows' first elements; each row lies inside `data` (the caller's promise).
        fn rows<T, const R: usize>(d: *const T, starts: &[usize]) -> [*const T; R] {
            std::array::from_fn(|k| d.wrapping_add(starts[k]))
        }
        // Sixteen rows a pass while there are, then four.
        let mut groups = starts.chunks_exact(16);
        for group in &mut groups {
            // SAFETY: the rows and `a` hold `len` elements each.
            unsafe { add_pass::<T, 16>(a, rows(d, group), len) };
        }
        let mut quads = groups.remainder().chunks_exact(4);
        for quad in &mut quads {
            // SAFETY: as above.
            unsafe { add_pass::<T, 4>(a, rows(d, quad), len) };
        }
        super::add_one_by_one(accs, data, quads.remainder());
    }

    /// One pass of [`add_rows`] over the `len` columns: `R` rows (a multiple of four), each
    /// four summed in `f32` and added to the accumulator, which stays in a register between
    /// the quads: `((acc + q0) + q1) + ...`, the additions of a pass per quad, in order.
    ///
    /// # Safety
    /// The processor has AVX-512F; `a` and every row hold `len` elements.
    #[target_feature(enable = "avx512f")]
    #[inline]
    unsafe fn add_pass<T: Narrow, const R: usize>(a: *mut f64, rows: [*const T; R], len: usize) {
        let mut j = 0;
        while j + 16 <= len {
            // SAFETY: `j + 16 <= len`, inside the accumulators and every row.
            unsafe {
                let (p, q) = (a.add(j), a.add(j + 8));
                let (mut low, mut high) = (_mm512_loadu_pd(p), _mm512_loadu_pd(q));
                for quad in rows.chunks_exact(4) {
                    let [v0, v1, v2, v3] = [0, 1, 2, 3].map(|k| T::load16(quad[k].add(j)));
                    let v = _mm512_add_ps(_mm512_add_ps(v0, v1), _mm512_add_ps(v2, v3));
                    let l = _mm512_castps512_ps256(v);
                    let h = _mm256_castpd_ps(_mm512_extractf64x4_pd::<1>(_mm512_castps_pd(v)));
                    low = _mm512_add_pd(low, _mm512_cvtps_pd(l));
                    high = _mm512_add_pd(high, _mm512_cvtps_pd(h));
                }
                _mm512_storeu_pd(p, low);
                _mm512_storeu_pd(q, high);
            }
            j += 16;
        }
        for j in j..len {
            for quad in rows.chunks_exact(4) {
                // SAFETY: `j < len`, inside the accumulators and every row.
                unsafe {
                    let [v0, v1, v2, v3] = [0, 1, 2, 3].map(|k| (*quad[k].add(j)).narrow());
                    *a.add(j) += ((v0 + v1) + (v2 + v3)) as f64;
                }
            }
        }
    }

    /// Adds two vectors of sixteen `f32`s into the `f64` lanes, eight at a time, exactly
    /// converted: vector `i`'s first eight into accumulator `2i`, its last eight into
    /// `2i + 1`.
    #[target_feature(enable = "avx512f")]
    #[inline]
    fn add16(acc: &mut [__m512d; 4], v: [__m512; 2]) {
        for (i, v) in v.into_iter().enumerate() {
            let low = _mm512_castps512_ps256(v);
            let high = _mm256_castpd_ps(_mm512_extractf64x4_pd::<1>(_mm512_castps_pd(v)));
            acc[2 * i] = _mm512_add_pd(acc[2 * i], _mm512_cvtps_pd(low));
            acc[2 * i + 1] = _mm512_add_pd(acc[2 * i + 1], _mm512_cvtps_pd(high));
        }
    }

    /// [`super::join`] of the four accumulators.
    #[target_feature(enable = "avx512f")]
    #[inline]
    fn join(lanes: [__m512d; 4]) -> f64 {
        let s = _mm512_add_pd(
            _mm512_add_pd(lanes[0], lanes[1]),
            _mm512_add_pd(lanes[2], lanes[3]),
        );
        let u = _mm256_add_pd(_mm512_castpd512_pd256(s), _mm512_extractf64x4_pd::<1>(s));
        let v = _mm_add_pd(_mm256_castpd256_pd128(u), _mm256_extractf128_pd::<1>(u));
        _mm_cvtsd_f64(v) + _mm_cvtsd_f64(_mm_unpackhi_pd(v, v))
    }
}

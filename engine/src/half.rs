//! `float16` and `bfloat16`, written here (the engine has no dependencies): storage types that
//! hold the bits, with torch's conversions to and from `f32`.
//!
//! torch's CPU kernels compute with these types in `float32` and round once per result
//! (round to nearest, ties to even). A `float64` or an integer becomes one of them through
//! `float32` first, as torch's `.to()` does, so it can be rounded twice.
//!
//! ```
//! use bcast_engine::half::{BFloat16, Half};
//! assert_eq!(Half::from_f32(65519.0).to_f32(), 65504.0);
//! assert_eq!(Half::from_f32(65520.0).to_f32(), f32::INFINITY);
//! assert_eq!(BFloat16::from_f32(1.0 + 1.0 / 256.0).to_f32(), 1.0);
//! ```

use std::fmt;

/// `torch.float16` (IEEE binary16), as its bits.
#[derive(Clone, Copy, Default)]
#[repr(transparent)]
pub struct Half(pub u16);

/// `torch.bfloat16` (the top half of a binary32), as its bits.
#[derive(Clone, Copy, Default)]
#[repr(transparent)]
pub struct BFloat16(pub u16);

impl Half {
    /// The bits.
    pub fn to_bits(self) -> u16 {
        self.0
    }

    /// From bits.
    pub fn from_bits(bits: u16) -> Half {
        Half(bits)
    }

    /// Rounds an `f32` to nearest, ties to even; NaN becomes the quiet NaN `0x7e00` with the
    /// sign kept, as torch's conversion gives.
    ///
    /// Branch-free (every path computed, one selected), so loops over it vectorise: a normal
    /// half rounds by adding `0xfff` plus the odd bit below the cut; a subnormal one by a
    /// float addition of `0.5`, whose hardware rounding is to nearest, ties to even.
    #[inline]
    pub fn from_f32(x: f32) -> Half {
        const F16_OVERFLOW: u32 = (127 + 16) << 23; // 65536
        const F16_NORMAL: u32 = 113 << 23; // 2^-14
        const HALF_MAGIC: u32 = 126 << 23; // 0.5: its ulp is 2^-24, a half subnormal's step
        let bits = x.to_bits();
        let sign = ((bits >> 16) & 0x8000) as u16;
        let abs = bits & 0x7fff_ffff;
        let special = if abs > 0x7f80_0000 { 0x7e00 } else { 0x7c00 };
        let subnormal = (f32::from_bits(abs) + f32::from_bits(HALF_MAGIC))
            .to_bits()
            .wrapping_sub(HALF_MAGIC);
        let odd = (abs >> 13) & 1;
        let normal = abs
            .wrapping_add((15u32.wrapping_sub(127)) << 23)
            .wrapping_add(0xfff + odd)
            >> 13;
        let h = if abs >= F16_OVERFLOW {
            special
        } else if abs < F16_NORMAL {
            subnormal
        } else {
            normal
        };
        Half(sign | h as u16)
    }

    /// The exact `f32` value (a NaN keeps its payload with the quiet bit set, as the hardware
    /// conversion does). Branch-free, as [`Half::from_f32`].
    #[inline]
    pub fn to_f32(self) -> f32 {
        const MAGIC: u32 = 113 << 23; // 2^-14, the smallest normal half
        let h = self.0 as u32;
        let sign = (h & 0x8000) << 16;
        let shifted = (h & 0x7fff) << 13;
        let exp = shifted & (0x7c00 << 13);
        let normal = shifted + ((127 - 15) << 23);
        let quiet = if shifted > 0x7c00 << 13 {
            0x0040_0000
        } else {
            0
        };
        let special = (shifted + ((255 - 31) << 23)) | quiet;
        // A subnormal (or zero) is mant * 2^-24: 2^-14 * (1 + mant / 1024) - 2^-14, exact.
        let subnormal = (f32::from_bits(shifted + MAGIC) - f32::from_bits(MAGIC)).to_bits();
        let bits = if exp == 0x7c00 << 13 {
            special
        } else if exp == 0 {
            subnormal
        } else {
            normal
        };
        f32::from_bits(sign | bits)
    }

    /// `f64` → `float16` as torch converts it: through `f32` (two roundings).
    pub fn from_f64(x: f64) -> Half {
        Half::from_f32(x as f32)
    }

    /// Whether this is a NaN.
    pub fn is_nan(self) -> bool {
        self.0 & 0x7fff > 0x7c00
    }
}

impl BFloat16 {
    /// The bits.
    pub fn to_bits(self) -> u16 {
        self.0
    }

    /// From bits.
    pub fn from_bits(bits: u16) -> BFloat16 {
        BFloat16(bits)
    }

    /// The NaN that c10's scalar conversion from `f32` gives for every NaN.
    pub const CONVERTED_NAN: BFloat16 = BFloat16(0x7fc0);

    /// Rounds an `f32` to nearest, ties to even; NaN becomes `0x7fc0` (c10's scalar
    /// conversion; torch's vectorised one gives `0xffff`, so torch's own NaN bits depend on
    /// the path).
    #[inline]
    pub fn from_f32(x: f32) -> BFloat16 {
        let bits = x.to_bits();
        let bias = ((bits >> 16) & 1) + 0x7fff;
        let rounded = (bits.wrapping_add(bias) >> 16) as u16;
        // A select, not an early return, so loops over it vectorise.
        if x.is_nan() {
            BFloat16::CONVERTED_NAN
        } else {
            BFloat16(rounded)
        }
    }

    /// The exact `f32` value.
    #[inline]
    pub fn to_f32(self) -> f32 {
        f32::from_bits((self.0 as u32) << 16)
    }

    /// `f64` → `bfloat16` as torch converts it: through `f32` (two roundings).
    pub fn from_f64(x: f64) -> BFloat16 {
        BFloat16::from_f32(x as f32)
    }

    /// Whether this is a NaN.
    pub fn is_nan(self) -> bool {
        self.0 & 0x7fff > 0x7f80
    }
}

impl fmt::Debug for Half {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{:?}", self.to_f32())
    }
}

impl fmt::Debug for BFloat16 {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{:?}", self.to_f32())
    }
}

impl fmt::Display for Half {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{}", self.to_f32())
    }
}

impl fmt::Display for BFloat16 {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{}", self.to_f32())
    }
}

/// Numeric equality, as for `f32`: `-0 == 0`, NaN is unequal to everything.
impl PartialEq for Half {
    fn eq(&self, other: &Half) -> bool {
        self.to_f32() == other.to_f32()
    }
}

/// Numeric equality, as for `f32`: `-0 == 0`, NaN is unequal to everything.
impl PartialEq for BFloat16 {
    fn eq(&self, other: &BFloat16) -> bool {
        self.to_f32() == other.to_f32()
    }
}

impl PartialOrd for Half {
    fn partial_cmp(&self, other: &Half) -> Option<std::cmp::Ordering> {
        self.to_f32().partial_cmp(&other.to_f32())
    }
}

impl PartialOrd for BFloat16 {
    fn partial_cmp(&self, other: &BFloat16) -> Option<std::cmp::Ordering> {
        self.to_f32().partial_cmp(&other.to_f32())
    }
}

/// `float16` and `bfloat16` rows computed in `f32`, as the loops that compute them so need:
/// converted in registers with the processor's F16C instructions where it has them
/// (`vcvtph2ps`, and `vcvtps2ph` rounding to nearest even). The values are those of
/// [`Half::to_f32`] and [`Half::from_f32`]; only a NaN's payload may differ (F16C keeps the
/// payload's high bits where `from_f32` writes `0x7e00`).
#[doc(hidden)]
pub trait WidenSlice: crate::Element {
    /// Whether loops should take rows through [`WidenSlice::binary_row_in_registers`]. Not
    /// for `bfloat16`, whose conversions are a shift and a rounding add that the element loop
    /// vectorises in registers (its `(4096,1024) + (1024,)` out= took 0.76 ms that way and
    /// 1.21 ms through buffers).
    const BY_SLICE: bool;

    /// `o[i] = g(x[i], y[i])` computed in `f32` and rounded, for `i < len`, converting in
    /// registers eight elements at a time, when this type and the processor allow it; `false`
    /// (and nothing written) otherwise. An input with `x_scalar` (`y_scalar`) is its first
    /// element for every `i`.
    ///
    /// # Safety
    /// `o` is valid for `len` writes; `x` and `y` for `len` reads (one when scalar), each of
    /// them `o` itself or disjoint from its `len` elements.
    #[inline(always)]
    unsafe fn binary_row_in_registers(
        o: *mut Self,
        x: *const Self,
        y: *const Self,
        len: usize,
        (x_scalar, y_scalar): (bool, bool),
        g: &impl Fn(f32, f32) -> f32,
    ) -> bool {
        let _ = (o, x, y, len, x_scalar, y_scalar, g);
        false
    }
}

impl WidenSlice for BFloat16 {
    const BY_SLICE: bool = false;
}

impl WidenSlice for Half {
    const BY_SLICE: bool = true;
    #[inline(always)]
    unsafe fn binary_row_in_registers(
        o: *mut Half,
        x: *const Half,
        y: *const Half,
        len: usize,
        scalars: (bool, bool),
        g: &impl Fn(f32, f32) -> f32,
    ) -> bool {
        #[cfg(target_arch = "x86_64")]
        if std::arch::is_x86_feature_detected!("f16c") {
            if len >= 16 && std::arch::is_x86_feature_detected!("avx512f") {
                // SAFETY: the processor has AVX-512F and F16C; the caller's promises.
                unsafe { f16c::binary_row_avx512(o, x, y, len, scalars, g) };
                return true;
            }
            // SAFETY: the processor has F16C; the caller's promises are `binary_row`'s.
            unsafe { f16c::binary_row(o, x, y, len, scalars, g) };
            return true;
        }
        let _ = (o, x, y, len, scalars, g);
        false
    }
}

/// `dst[i] = src[i].to_f32()` over the shorter of the two, sixteen elements per AVX-512
/// instruction or eight per F16C one where the processor has them (the same values but for
/// a NaN's payload, as [`WidenSlice`] says).
///
/// ```
/// use bcast_engine::half::{widen_row, Half};
/// let src: Vec<Half> = (0..40).map(|i| Half::from_f32(i as f32 * 0.25)).collect();
/// let mut dst = vec![0.0f32; 40];
/// widen_row(&src, &mut dst);
/// assert_eq!(dst[39], 9.75);
/// ```
pub fn widen_row(src: &[Half], dst: &mut [f32]) {
    let n = src.len().min(dst.len());
    let (src, dst) = (&src[..n], &mut dst[..n]);
    #[cfg(target_arch = "x86_64")]
    if std::arch::is_x86_feature_detected!("f16c") {
        if std::arch::is_x86_feature_detected!("avx512f") {
            // SAFETY: the processor has AVX-512F and F16C.
            return unsafe { f16c::widen_row_avx512(src, dst) };
        }
        // SAFETY: the processor has F16C.
        return unsafe { f16c::widen_row(src, dst) };
    }
    for (d, s) in dst.iter_mut().zip(src) {
        *d = s.to_f32();
    }
}

/// The F16C conversions, eight elements per instruction.
#[cfg(target_arch = "x86_64")]
mod f16c {
    use super::Half;
    use std::arch::x86_64::{
        __m128i, __m256, _mm256_cvtph_ps, _mm256_cvtps_ph, _mm256_set1_ps, _mm_loadu_si128,
        _mm_storeu_si128,
    };

    /// [`super::widen_row`] eight elements at a time (`src` and `dst` of one length).
    ///
    /// # Safety
    /// The processor has F16C and AVX.
    #[target_feature(enable = "avx,f16c")]
    pub(super) unsafe fn widen_row(src: &[Half], dst: &mut [f32]) {
        use std::arch::x86_64::_mm256_storeu_ps;
        let mut i = 0;
        while i + 8 <= src.len() {
            // SAFETY: `i + 8` is inside both rows (of one length).
            unsafe {
                let v = _mm256_cvtph_ps(_mm_loadu_si128(src.as_ptr().add(i) as *const __m128i));
                _mm256_storeu_ps(dst.as_mut_ptr().add(i), v);
            }
            i += 8;
        }
        for (d, s) in dst[i..].iter_mut().zip(&src[i..]) {
            *d = s.to_f32();
        }
    }

    /// [`super::widen_row`] sixteen elements at a time, then eight.
    ///
    /// # Safety
    /// The processor has AVX-512F and F16C.
    #[target_feature(enable = "avx512f,avx,f16c")]
    pub(super) unsafe fn widen_row_avx512(src: &[Half], dst: &mut [f32]) {
        use std::arch::x86_64::{__m256i, _mm256_loadu_si256, _mm512_cvtph_ps, _mm512_storeu_ps};
        let mut i = 0;
        while i + 16 <= src.len() {
            // SAFETY: `i + 16` is inside both rows (of one length).
            unsafe {
                let h = _mm256_loadu_si256(src.as_ptr().add(i) as *const __m256i);
                _mm512_storeu_ps(dst.as_mut_ptr().add(i), _mm512_cvtph_ps(h));
            }
            i += 16;
        }
        // SAFETY: the processor has F16C and AVX.
        unsafe { widen_row(&src[i..], &mut dst[i..]) };
    }

    /// [`super::WidenSlice::binary_row_in_registers`] for `float16`. Inlined into the
    /// kernels' AVX2 version (compiled with F16C), the conversions and `g` stay in registers.
    ///
    /// # Safety
    /// The processor has F16C and AVX; the pointers as the trait method says.
    #[inline(always)]
    pub(super) unsafe fn binary_row(
        o: *mut Half,
        x: *const Half,
        y: *const Half,
        len: usize,
        scalars: (bool, bool),
        g: &impl Fn(f32, f32) -> f32,
    ) {
        // SAFETY: the caller's promises.
        unsafe {
            let (xv, yv) = scalar_values(x, y, scalars);
            rows_from(o, x, y, len, (xv, yv), g, 0);
        }
    }

    /// [`binary_row`] sixteen elements at a time (AVX-512's `vcvtph2ps` and `vcvtps2ph`),
    /// then eight: the same operations on each element, so the same values.
    ///
    /// # Safety
    /// The processor has AVX-512F and F16C; the pointers as the trait method says.
    #[target_feature(enable = "avx512f,avx2,fma,f16c")]
    pub(super) unsafe fn binary_row_avx512(
        o: *mut Half,
        x: *const Half,
        y: *const Half,
        len: usize,
        scalars: (bool, bool),
        g: &impl Fn(f32, f32) -> f32,
    ) {
        use std::arch::x86_64::{
            __m256i, __m512, _mm256_loadu_si256, _mm256_storeu_si256, _mm512_cvtph_ps,
            _mm512_cvtps_ph, _mm512_set1_ps,
        };
        // SAFETY: the caller's promises.
        let (xv, yv) = unsafe { scalar_values(x, y, scalars) };
        let lanes = |p: *const Half, value: Option<f32>, i: usize| -> [f32; 16] {
            let v: __m512 = match value {
                Some(v) => _mm512_set1_ps(v),
                // SAFETY: a row input is read at `i..i + 16`, inside its `len` elements.
                None => _mm512_cvtph_ps(unsafe { _mm256_loadu_si256(p.add(i) as *const __m256i) }),
            };
            // SAFETY: `__m512` and `[f32; 16]` have the same size, and any bits are a float.
            unsafe { std::mem::transmute::<__m512, [f32; 16]>(v) }
        };
        let mut i = 0;
        while i + 16 <= len {
            let (a, b) = (lanes(x, xv, i), lanes(y, yv, i));
            let mut r = [0.0f32; 16];
            for k in 0..16 {
                r[k] = g(a[k], b[k]);
            }
            // SAFETY: as in `rows_from`.
            unsafe {
                let h = _mm512_cvtps_ph::<0>(std::mem::transmute::<[f32; 16], __m512>(r));
                _mm256_storeu_si256(o.add(i) as *mut __m256i, h);
            }
            i += 16;
        }
        // SAFETY: the caller's promises; `i <= len`.
        unsafe { rows_from(o, x, y, len, (xv, yv), g, i) };
    }

    /// The values of the scalar inputs, read once, before the row, as the plain loops read
    /// them (the row may overwrite their element).
    ///
    /// # Safety
    /// A scalar input is valid for one read.
    #[inline(always)]
    unsafe fn scalar_values(
        x: *const Half,
        y: *const Half,
        (x_scalar, y_scalar): (bool, bool),
    ) -> (Option<f32>, Option<f32>) {
        // SAFETY: a scalar input is valid for one read.
        let scalar = |p: *const Half, is: bool| is.then(|| unsafe { p.read() }.to_f32());
        (scalar(x, x_scalar), scalar(y, y_scalar))
    }

    /// Elements `start..len` of [`binary_row`], eight at a time, then one by one; a scalar
    /// input is its value (`xv`, `yv`).
    ///
    /// # Safety
    /// As for [`binary_row`]; `start <= len`.
    #[inline(always)]
    unsafe fn rows_from(
        o: *mut Half,
        x: *const Half,
        y: *const Half,
        len: usize,
        (xv, yv): (Option<f32>, Option<f32>),
        g: &impl Fn(f32, f32) -> f32,
        start: usize,
    ) {
        let lanes = |p: *const Half, value: Option<f32>, i: usize| -> [f32; 8] {
            // SAFETY: a row input is read at `i..i + 8`, inside its `len` elements (the
            // loop's bound). `Half` is a transparent `u16`.
            let v: __m256 = unsafe {
                match value {
                    Some(v) => _mm256_set1_ps(v),
                    None => _mm256_cvtph_ps(_mm_loadu_si128(p.add(i) as *const __m128i)),
                }
            };
            // SAFETY: `__m256` and `[f32; 8]` have the same size, and any bits are a float.
            unsafe { std::mem::transmute::<__m256, [f32; 8]>(v) }
        };
        let mut i = start;
        while i + 8 <= len {
            let (a, b) = (lanes(x, xv, i), lanes(y, yv, i));
            let mut r = [0.0f32; 8];
            for k in 0..8 {
                r[k] = g(a[k], b[k]);
            }
            // SAFETY: as above; rounding mode 0 is round to nearest even. Both inputs of
            // this step were read before the store, so an input that is `o` is still right.
            unsafe {
                let h = _mm256_cvtps_ph::<0>(std::mem::transmute::<[f32; 8], __m256>(r));
                _mm_storeu_si128(o.add(i) as *mut __m128i, h);
            }
            i += 8;
        }
        // SAFETY: `j < len`, inside a row input.
        let at = |p: *const Half, value: Option<f32>, j: usize| {
            value.unwrap_or_else(|| unsafe { p.add(j).read() }.to_f32())
        };
        for j in i..len {
            let v = Half::from_f32(g(at(x, xv, j), at(y, yv, j)));
            // SAFETY: `j < len`.
            unsafe { o.add(j).write(v) };
        }
    }
}

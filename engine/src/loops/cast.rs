//! Inputs of another dtype than the loop computes in, converted as the loop loads them
//! (torch's CUDA loops do this; its CPU loops convert the whole input first). A row of such
//! an input is converted [`CAST_CHUNK`] elements at a time into a buffer on the stack, with
//! torch's casts ([`Element::cast`], as [`super::copy_into`] converts), and the op's loop
//! reads the buffer: the same values as converting the whole input first, without writing
//! and reading it back.
//!
//! ```
//! use bcast_engine::{loops::map_binary, DType, Tensor};
//! let a = Tensor::from_vec(vec![0.5f32, 1.5, 2.5], &[3]).unwrap();
//! let b = Tensor::from_vec(vec![1i64, 2, 3], &[3]).unwrap();
//! let out = Tensor::zeros(&[3], DType::Float32).unwrap();
//! map_binary(&out, &a, &b, |x: f32, y: f32| x * y).unwrap();
//! assert_eq!(out.to_vec::<f32>().unwrap(), vec![0.5, 3.0, 7.5]);
//! ```

use super::kernel::{Rect, Rows};
use crate::config::{strategy, Strategy};
use crate::{dispatch_dtype, DType, Element, Result, Tensor};
use std::borrow::Cow;
use std::cell::Cell;
use std::mem::{size_of, MaybeUninit};

/// Elements of a converted input the loop reads from its buffer at a time.
pub(crate) const CAST_CHUNK: usize = 256;

thread_local! {
    /// Elements this thread has converted on load (counted a chunk at a time).
    static CONVERTED: Cell<usize> = const { Cell::new(0) };
}

/// How many input elements this thread has converted on load so far: the engine's tests read
/// it to tell whether a loop converted its inputs as it loaded them.
pub fn converted_on_load() -> usize {
    CONVERTED.with(Cell::get)
}

/// Converts `n` elements, `step` elements apart from `src`, into `dst` (contiguous).
///
/// # Safety
/// The source positions are readable elements of the source dtype; `dst` holds `n` elements
/// of the target dtype, aligned for it.
type ConvertRow = unsafe fn(src: *const u8, step: usize, dst: *mut u8, n: usize);

/// How an input is converted as it is loaded.
#[derive(Clone, Copy)]
pub(crate) struct Cast {
    /// Bytes per element of the source dtype, as the input's storage holds them.
    from_size: usize,
    convert: ConvertRow,
}

impl Cast {
    /// The conversion from `from` to `to`, compiled for AVX2 where the processor has it (as
    /// the kernels are).
    fn new(from: DType, to: DType) -> Cast {
        dispatch_dtype!(from, S => dispatch_dtype!(to, D => Cast {
            from_size: size_of::<S>(),
            convert: converter::<S, D>(),
        }))
    }
}

/// The row conversion from `S` to `D` for this processor.
fn converter<S: Element, D: Element>() -> ConvertRow {
    #[cfg(target_arch = "x86_64")]
    if std::arch::is_x86_feature_detected!("avx2")
        && std::arch::is_x86_feature_detected!("fma")
        && std::arch::is_x86_feature_detected!("f16c")
    {
        if S::DTYPE == DType::Float16 && D::DTYPE == DType::Float32 {
            return convert_half_f32;
        }
        return convert_avx2::<S, D>;
    }
    convert_row::<S, D>
}

/// [`ConvertRow`] from `float16` to `float32`: a contiguous row by the processor's
/// conversion instructions ([`crate::half::widen_row`]), the same values as
/// [`Element::cast`]'s but for a NaN's payload (as the `float16` kernels convert).
///
/// # Safety
/// As for [`ConvertRow`], on a processor with AVX2, FMA and F16C.
#[cfg(target_arch = "x86_64")]
unsafe fn convert_half_f32(src: *const u8, step: usize, dst: *mut u8, n: usize) {
    if step != 1 {
        // SAFETY: the caller's promises; the processor has AVX2, FMA and F16C.
        return unsafe { convert_avx2::<crate::half::Half, f32>(src, step, dst, n) };
    }
    // SAFETY: the caller's promises: `n` readable halves at `src`, `n` floats at `dst`.
    unsafe {
        let src = std::slice::from_raw_parts(src as *const crate::half::Half, n);
        let dst = std::slice::from_raw_parts_mut(dst as *mut f32, n);
        crate::half::widen_row(src, dst);
    }
}

/// [`ConvertRow`] from `S` to `D`.
///
/// # Safety
/// As for [`ConvertRow`].
#[inline(always)]
unsafe fn convert_row<S: Element, D: Element>(src: *const u8, step: usize, dst: *mut u8, n: usize) {
    let (src, dst) = (src as *const S, dst as *mut D);
    if step == 1 {
        let src = std::slice::from_raw_parts(src, n);
        let dst = std::slice::from_raw_parts_mut(dst, n);
        for (d, &s) in dst.iter_mut().zip(src) {
            *d = s.cast::<D>();
        }
    } else {
        for i in 0..n {
            dst.add(i).write(src.add(i * step).read().cast::<D>());
        }
    }
}

/// [`convert_row`] compiled for AVX2, FMA and F16C (only ever handed out where the
/// processor has them).
///
/// # Safety
/// As for [`ConvertRow`], on a processor with AVX2, FMA and F16C.
#[cfg(target_arch = "x86_64")]
#[target_feature(enable = "avx2,fma,f16c")]
unsafe fn convert_avx2<S: Element, D: Element>(
    src: *const u8,
    step: usize,
    dst: *mut u8,
    n: usize,
) {
    convert_row::<S, D>(src, step, dst, n)
}

/// `t` as a loop reading `T` takes it: itself when it is of `T`'s dtype; else itself with a
/// [`Cast`] for the plan's loops, or converted first for the index map, which reads single
/// elements. (An input of another dtype than the output's never shares its storage: a
/// storage holds one dtype, so converting as the loop loads reads nothing the loop wrote.)
///
/// # Errors
/// When a conversion cannot be allocated.
pub(crate) fn loaded<T: Element>(t: &Tensor) -> Result<(Cow<'_, Tensor>, Option<Cast>)> {
    if t.dtype() == T::DTYPE {
        return Ok((Cow::Borrowed(t), None));
    }
    if strategy() == Strategy::Plan {
        return Ok((Cow::Borrowed(t), Some(Cast::new(t.dtype(), T::DTYPE))));
    }
    Ok((Cow::Owned(t.to_dtype(T::DTYPE)?), None))
}

/// A loop whose inputs with a [`Cast`] are read from another dtype: each row is run
/// [`CAST_CHUNK`] elements at a time, those inputs' elements converted into buffers first
/// (a stride-0 input's one element once per chunk), and `inner` runs over the buffers.
///
/// `inner` is a trait object, called once per chunk: the walks and threads of
/// [`super::exec`] are compiled once per arity for this wrapper, not once more for every
/// op's loop (which had doubled the engine's code and build time).
pub(crate) struct CastOnLoad<'k, const N: usize> {
    inner: &'k dyn Rows<N>,
    casts: [Option<Cast>; N],
}

impl<'k, const N: usize> CastOnLoad<'k, N> {
    /// `inner` with the inputs `casts` names converted as they are loaded (the output,
    /// operand 0, never is).
    pub(crate) fn new(inner: &'k dyn Rows<N>, casts: [Option<Cast>; N]) -> Self {
        CastOnLoad { inner, casts }
    }
}

/// A buffer of [`CAST_CHUNK`] elements of any dtype (16 bytes at most), aligned for all.
type ChunkBuffer = [MaybeUninit<u128>; CAST_CHUNK];

impl<const N: usize> Rows<N> for CastOnLoad<'_, N> {
    fn itemsizes(&self) -> [usize; N] {
        let inner = self.inner.itemsizes();
        std::array::from_fn(|k| self.casts[k].map_or(inner[k], |c| c.from_size))
    }

    #[inline(always)]
    unsafe fn body(&self, ptr: [*mut u8; N], rect: &Rect<N>, stream: bool) {
        let sizes = self.itemsizes();
        let mut buffers: [ChunkBuffer; N] = [[MaybeUninit::uninit(); CAST_CHUNK]; N];
        let mut step = rect.step;
        for (k, cast) in self.casts.iter().enumerate() {
            if cast.is_some() {
                step[k] = rect.step[k].min(1);
            }
        }
        for r in 0..rect.rows {
            let mut start = 0;
            while start < rect.len {
                let n = (rect.len - start).min(CAST_CHUNK);
                let at: [*mut u8; N] = std::array::from_fn(|k| {
                    let elements = r * rect.row_step[k] + start * rect.step[k];
                    ptr[k].add(elements * sizes[k])
                });
                let mut from = at;
                for (k, cast) in self.casts.iter().enumerate() {
                    if let Some(cast) = cast {
                        let buf = buffers[k].as_mut_ptr() as *mut u8;
                        let count = if rect.step[k] == 0 { 1 } else { n };
                        (cast.convert)(at[k], rect.step[k], buf, count);
                        CONVERTED.with(|c| c.set(c.get() + count));
                        from[k] = buf;
                    }
                }
                let chunk = Rect {
                    len: n,
                    step,
                    rows: 1,
                    row_step: [0; N],
                };
                self.inner.rows(from, &chunk, stream);
                start += n;
            }
        }
    }
    /// The same chunks: `inner` picks its own walk ([`Rows::rows`]).
    #[inline(always)]
    unsafe fn each(&self, ptr: [*mut u8; N], rect: &Rect<N>) {
        self.body(ptr, rect, false)
    }
}

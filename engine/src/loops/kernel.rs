//! The inner loops: an op's element function over one output and up to three inputs, on
//! raw storage, with fast rows for contiguous operands and for stride-0 inputs.
//!
//! A fast row runs over slices when its operands' memory is disjoint (so the compiler
//! vectorises it without alias checks), or over one slice read and written in place when an
//! input is the output itself; any other overlap walks element by element in order, as the
//! index map does. A row with a disjoint contiguous output may be written with
//! non-temporal stores ([`super::stream`]) when the caller asks for it.

use super::stream::{fence, streamable, streamed};
use super::{BinaryRun, UnaryRun};
use crate::half::WidenSlice;
use std::any::TypeId;
use std::marker::PhantomData;
use std::mem::{size_of, MaybeUninit};

/// The shape of a walk: `rows` rows of `len` elements; operand `k` moves `step[k]`
/// elements per element and `row_step[k]` elements per row.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Rect<const N: usize> {
    /// Elements per row.
    pub len: usize,
    /// Each operand's move per element, in elements.
    pub step: [usize; N],
    /// Rows.
    pub rows: usize,
    /// Each operand's move per row, in elements.
    pub row_step: [usize; N],
}

/// A loop over `N` operands, the output first: the executors hand it rows of elements.
pub trait Rows<const N: usize>: Sync {
    /// Bytes per element of each operand.
    fn itemsizes(&self) -> [usize; N];

    /// The loop itself, compiled into each instruction-set version of [`Rows::rows`] (so it
    /// must be `#[inline(always)]`).
    ///
    /// # Safety
    /// As for [`Rows::rows`].
    unsafe fn body(&self, ptr: [*mut u8; N], rect: &Rect<N>, stream: bool);

    /// The walk `rect` element by element, in order, with no fast rows: the values
    /// [`Rows::body`] gives (a stride-0 input read once per row, before it, as the fast rows
    /// read it). `body` runs its strided rows through it, and x86-64 processors without AVX2,
    /// FMA and F16C run the whole walk through it, so that the fast rows are compiled once
    /// (for AVX2), not a second time for processors that are rarely met. Its index is hidden
    /// from the optimiser ([`overlapping`]): its steps are known only at run time, and
    /// vectorising it would only add, in every kernel, copies for the steps of 1 that the fast
    /// rows take first.
    ///
    /// # Safety
    /// As for [`Rows::rows`].
    unsafe fn each(&self, ptr: [*mut u8; N], rect: &Rect<N>);

    /// Runs the walk `rect` with operand `k`'s first element at `ptr[k]`; with `stream`,
    /// contiguous rows of an output no input shares are written with non-temporal stores.
    /// On x86-64 processors with AVX2, FMA and F16C the loop runs as compiled for them (wider
    /// vectors; the same IEEE operations, so the same bits: an explicit `mul_add` becomes one
    /// instruction instead of a call, and nothing else is fused); on other x86-64 processors
    /// it runs [`Rows::each`], the same values one element at a time.
    ///
    /// # Safety
    /// Every position reached lies inside an allocation of the operand's element type, the
    /// output's positions are writable, and no other thread touches the output's positions
    /// or writes the inputs' positions meanwhile.
    unsafe fn rows(&self, ptr: [*mut u8; N], rect: &Rect<N>, stream: bool) {
        #[cfg(target_arch = "x86_64")]
        if std::arch::is_x86_feature_detected!("avx2")
            && std::arch::is_x86_feature_detected!("fma")
            && std::arch::is_x86_feature_detected!("f16c")
        {
            rows_avx2(self, ptr, rect, stream);
        } else {
            self.each(ptr, rect);
        }
        #[cfg(not(target_arch = "x86_64"))]
        self.body(ptr, rect, stream);
        if stream {
            fence();
        }
    }
}

/// [`Rows::body`] compiled for AVX2, FMA and F16C.
///
/// # Safety
/// As for [`Rows::rows`], on a processor with AVX2, FMA and F16C.
#[cfg(target_arch = "x86_64")]
#[target_feature(enable = "avx2,fma,f16c")]
unsafe fn rows_avx2<const N: usize, K: Rows<N> + ?Sized>(
    kernel: &K,
    ptr: [*mut u8; N],
    rect: &Rect<N>,
    stream: bool,
) {
    kernel.body(ptr, rect, stream)
}

/// Whether `len` elements of `T` at `a` and `len` of `U` at `b` share no byte.
fn disjoint<T, U>(a: *const T, b: *const U, len: usize) -> bool {
    disjoint_spans(a, len, b, len)
}

/// Whether `a_len` elements of `T` at `a` and `b_len` of `U` at `b` share no byte.
fn disjoint_spans<T, U>(a: *const T, a_len: usize, b: *const U, b_len: usize) -> bool {
    let (a, b) = (a as usize, b as usize);
    let a_end = a.wrapping_add(a_len.wrapping_mul(size_of::<T>()));
    let b_end = b.wrapping_add(b_len.wrapping_mul(size_of::<U>()));
    a_end <= b || b_end <= a
}

/// Whether `x` is `o` itself: the same address and the same element type.
fn same<X: 'static, R: 'static>(o: *const R, x: *const X) -> bool {
    TypeId::of::<X>() == TypeId::of::<R>() && std::ptr::eq(o.cast::<u8>(), x.cast::<u8>())
}

/// The index of a row whose output overlaps an input other than in place, hidden from the
/// optimiser: such rows are rare (a view written from a shifted view of itself) and must run
/// one element after another, so the compiler is kept from vectorising them behind a
/// run-time alias check, which it would do in every kernel for nothing.
#[inline(always)]
fn overlapping(i: usize) -> usize {
    std::hint::black_box(i)
}

/// Element `i` of an input row that moves `step` elements per element; a stride-0 input is
/// read once, here, before the row (so an output written meanwhile does not change it).
///
/// # Safety
/// The positions read lie inside an allocation of `T`.
#[inline(always)]
unsafe fn reader<T: Copy>(p: *const T, step: usize) -> impl Fn(usize) -> T {
    let first = (step == 0).then(|| p.read());
    move |i| match first {
        Some(v) => v,
        None => p.add(i * step).read(),
    }
}

/// `o[i] = g(x[i])` over `len` contiguous elements.
///
/// # Safety
/// As for [`Rows::rows`].
#[inline(always)]
unsafe fn map_contiguous<X: Copy + 'static, R: Copy + 'static>(
    o: *mut R,
    x: *const X,
    len: usize,
    stream: bool,
    g: impl Fn(X) -> R,
) {
    if same(o, x) {
        // In place: one slice, each element read before it is written.
        let o = std::slice::from_raw_parts_mut(o, len);
        for v in o.iter_mut() {
            *v = g((v as *mut R as *const X).read());
        }
    } else if disjoint(o, x, len) {
        let x = std::slice::from_raw_parts(x, len);
        if stream && const { streamable::<R>() } {
            streamed(o, len, |start, buf| {
                for (v, &a) in buf.iter_mut().zip(&x[start..]) {
                    v.write(g(a));
                }
            });
        } else {
            let o = std::slice::from_raw_parts_mut(o, len);
            for (v, &a) in o.iter_mut().zip(x) {
                *v = g(a);
            }
        }
    } else {
        for i in 0..len {
            let i = overlapping(i);
            o.add(i).write(g(x.add(i).read()));
        }
    }
}

/// `o[i] = g(x[i], y[i])` over `len` contiguous elements.
///
/// # Safety
/// As for [`Rows::rows`].
#[inline(always)]
unsafe fn zip_contiguous<X: Copy + 'static, Y: Copy + 'static, R: Copy + 'static>(
    o: *mut R,
    x: *const X,
    y: *const Y,
    len: usize,
    stream: bool,
    g: impl Fn(X, Y) -> R,
) {
    if same(o, x) && disjoint(o, y, len) {
        let o = std::slice::from_raw_parts_mut(o, len);
        let y = std::slice::from_raw_parts(y, len);
        for (v, &b) in o.iter_mut().zip(y) {
            *v = g((v as *mut R as *const X).read(), b);
        }
    } else if same(o, y) && disjoint(o, x, len) {
        let o = std::slice::from_raw_parts_mut(o, len);
        let x = std::slice::from_raw_parts(x, len);
        for (v, &a) in o.iter_mut().zip(x) {
            *v = g(a, (v as *mut R as *const Y).read());
        }
    } else if disjoint(o, x, len) && disjoint(o, y, len) {
        let x = std::slice::from_raw_parts(x, len);
        let y = std::slice::from_raw_parts(y, len);
        if stream && const { streamable::<R>() } {
            streamed(o, len, |start, buf| {
                for ((v, &a), &b) in buf.iter_mut().zip(&x[start..]).zip(&y[start..]) {
                    v.write(g(a, b));
                }
            });
        } else {
            let o = std::slice::from_raw_parts_mut(o, len);
            for ((v, &a), &b) in o.iter_mut().zip(x).zip(y) {
                *v = g(a, b);
            }
        }
    } else {
        for i in 0..len {
            let i = overlapping(i);
            o.add(i).write(g(x.add(i).read(), y.add(i).read()));
        }
    }
}

/// `o[i] = v` over `len` contiguous elements.
///
/// # Safety
/// As for [`Rows::rows`].
#[inline(always)]
unsafe fn fill<R: Copy>(o: *mut R, len: usize, stream: bool, v: R) {
    if stream && const { streamable::<R>() } {
        streamed(o, len, |_, buf| {
            for slot in buf.iter_mut() {
                slot.write(v);
            }
        });
    } else {
        std::slice::from_raw_parts_mut(o, len).fill(v);
    }
}

/// A one-input loop: `out = f(a)`.
pub(crate) struct Unary<A, R, F> {
    f: F,
    types: PhantomData<fn(A) -> R>,
}

impl<A, R, F> Unary<A, R, F> {
    pub(crate) fn new(f: F) -> Self {
        Unary {
            f,
            types: PhantomData,
        }
    }
}

impl<A, R, F> Rows<2> for Unary<A, R, F>
where
    A: Copy + 'static,
    R: Copy + 'static,
    F: Fn(A) -> R + Sync,
{
    fn itemsizes(&self) -> [usize; 2] {
        [size_of::<R>(), size_of::<A>()]
    }

    #[inline(always)]
    unsafe fn body(&self, ptr: [*mut u8; 2], rect: &Rect<2>, stream: bool) {
        let (f, len) = (&self.f, rect.len);
        for r in 0..rect.rows {
            let o = (ptr[0] as *mut R).add(r * rect.row_step[0]);
            let a = (ptr[1] as *const A).add(r * rect.row_step[1]);
            match rect.step {
                [1, 1] => map_contiguous(o, a, len, stream, f),
                [1, 0] => fill(o, len, stream, f(a.read())),
                _ => self.each([o.cast(), a as *mut u8], &one_row(rect)),
            }
        }
    }

    #[inline(always)]
    unsafe fn each(&self, ptr: [*mut u8; 2], rect: &Rect<2>) {
        let [so, sa] = rect.step;
        for r in 0..rect.rows {
            let o = (ptr[0] as *mut R).add(r * rect.row_step[0]);
            let a = reader((ptr[1] as *const A).add(r * rect.row_step[1]), sa);
            for i in 0..rect.len {
                let i = overlapping(i);
                o.add(i * so).write((self.f)(a(i)));
            }
        }
    }
}

/// A two-input loop: `out = f(a, b)`.
pub struct Binary<A, B, R, F> {
    f: F,
    types: PhantomData<fn(A, B) -> R>,
}

impl<A, B, R, F> Binary<A, B, R, F> {
    /// The loop of `f`.
    pub fn new(f: F) -> Self {
        Binary {
            f,
            types: PhantomData,
        }
    }
}

impl<A, B, R, F> Rows<3> for Binary<A, B, R, F>
where
    A: Copy + 'static,
    B: Copy + 'static,
    R: Copy + 'static,
    F: Fn(A, B) -> R + Sync,
{
    fn itemsizes(&self) -> [usize; 3] {
        [size_of::<R>(), size_of::<A>(), size_of::<B>()]
    }

    #[inline(always)]
    unsafe fn body(&self, ptr: [*mut u8; 3], rect: &Rect<3>, stream: bool) {
        let (f, len) = (&self.f, rect.len);
        for r in 0..rect.rows {
            let o = (ptr[0] as *mut R).add(r * rect.row_step[0]);
            let x = (ptr[1] as *const A).add(r * rect.row_step[1]);
            let y = (ptr[2] as *const B).add(r * rect.row_step[2]);
            match rect.step {
                [1, 1, 1] => zip_contiguous(o, x, y, len, stream, f),
                [1, 1, 0] => {
                    let yv = y.read();
                    map_contiguous(o, x, len, stream, |a| f(a, yv));
                }
                [1, 0, 1] => {
                    let xv = x.read();
                    map_contiguous(o, y, len, stream, |b| f(xv, b));
                }
                [1, 0, 0] => fill(o, len, stream, f(x.read(), y.read())),
                _ => self.each([o.cast(), x as *mut u8, y as *mut u8], &one_row(rect)),
            }
        }
    }

    #[inline(always)]
    unsafe fn each(&self, ptr: [*mut u8; 3], rect: &Rect<3>) {
        each_binary(ptr, rect, &self.f)
    }
}

/// [`Rows::each`] of a two-input loop whose element function is `f`.
///
/// # Safety
/// As for [`Rows::rows`].
#[inline(always)]
unsafe fn each_binary<A: Copy, B: Copy, R>(
    ptr: [*mut u8; 3],
    rect: &Rect<3>,
    f: impl Fn(A, B) -> R,
) {
    let [so, sx, sy] = rect.step;
    for r in 0..rect.rows {
        let o = (ptr[0] as *mut R).add(r * rect.row_step[0]);
        let x = reader((ptr[1] as *const A).add(r * rect.row_step[1]), sx);
        let y = reader((ptr[2] as *const B).add(r * rect.row_step[2]), sy);
        for i in 0..rect.len {
            let i = overlapping(i);
            o.add(i * so).write(f(x(i), y(i)));
        }
    }
}

/// A one-input loop whose contiguous rows go through `run`, an explicitly vectorised form of
/// `f` with the same values (see [`UnaryRun`]); other rows are [`Unary`]'s. Non-temporal
/// stores are not used.
pub struct RunUnary<A, R, F> {
    plain: Unary<A, R, F>,
    run: UnaryRun<A, R>,
}

impl<A, R, F> RunUnary<A, R, F> {
    /// The loop of `f`, its contiguous rows through `run`.
    pub fn new(f: F, run: UnaryRun<A, R>) -> Self {
        RunUnary {
            plain: Unary::new(f),
            run,
        }
    }
}

impl<A, R, F> Rows<2> for RunUnary<A, R, F>
where
    A: Copy + 'static,
    R: Copy + 'static,
    F: Fn(A) -> R + Sync,
{
    fn itemsizes(&self) -> [usize; 2] {
        self.plain.itemsizes()
    }

    #[inline(always)]
    unsafe fn body(&self, ptr: [*mut u8; 2], rect: &Rect<2>, _stream: bool) {
        let len = rect.len;
        for r in 0..rect.rows {
            let o = (ptr[0] as *mut R).add(r * rect.row_step[0]);
            let a = (ptr[1] as *const A).add(r * rect.row_step[1]);
            match rect.step {
                [1, 1] if same(o, a) || disjoint(o, a, len) => (self.run)(a, o, len),
                _ => self
                    .plain
                    .body([o.cast(), a as *mut u8], &one_row(rect), false),
            }
        }
    }

    #[inline(always)]
    unsafe fn each(&self, ptr: [*mut u8; 2], rect: &Rect<2>) {
        self.plain.each(ptr, rect)
    }
}

/// The walk of one row of `rect`.
fn one_row<const N: usize>(rect: &Rect<N>) -> Rect<N> {
    Rect {
        rows: 1,
        row_step: [0; N],
        ..*rect
    }
}

/// Elements of a stride-0 input a [`RunBinary`] row lays out at a time.
const RUN_CHUNK: usize = 256;

/// A two-input loop whose contiguous rows, and rows with one stride-0 input (laid out
/// [`RUN_CHUNK`] copies at a time), go through `run`, an explicitly vectorised form of `f`
/// with the same values (see [`BinaryRun`]); other rows are [`Binary`]'s. Non-temporal
/// stores are not used.
pub struct RunBinary<A, B, R, F> {
    plain: Binary<A, B, R, F>,
    run: BinaryRun<A, B, R>,
}

impl<A, B, R, F> RunBinary<A, B, R, F> {
    /// The loop of `f`, its contiguous rows and rows with a stride-0 input through `run`.
    pub fn new(f: F, run: BinaryRun<A, B, R>) -> Self {
        RunBinary {
            plain: Binary::new(f),
            run,
        }
    }
}

impl<A, B, R, F> Rows<3> for RunBinary<A, B, R, F>
where
    A: Copy + 'static,
    B: Copy + 'static,
    R: Copy + 'static,
    F: Fn(A, B) -> R + Sync,
{
    fn itemsizes(&self) -> [usize; 3] {
        self.plain.itemsizes()
    }

    #[inline(always)]
    unsafe fn body(&self, ptr: [*mut u8; 3], rect: &Rect<3>, _stream: bool) {
        let (run, len) = (self.run, rect.len);
        let apart = |o: *mut R, v: *const u8, size: usize| {
            std::ptr::eq(o.cast::<u8>(), v)
                || disjoint_spans(o.cast::<u8>(), len * size_of::<R>(), v, len * size)
        };
        for r in 0..rect.rows {
            let o = (ptr[0] as *mut R).add(r * rect.row_step[0]);
            let x = (ptr[1] as *const A).add(r * rect.row_step[1]);
            let y = (ptr[2] as *const B).add(r * rect.row_step[2]);
            let (xb, yb) = (x.cast::<u8>(), y.cast::<u8>());
            match rect.step {
                [1, 1, 1] if apart(o, xb, size_of::<A>()) && apart(o, yb, size_of::<B>()) => {
                    run(x, y, o, len)
                }
                [1, 1, 0] if apart(o, xb, size_of::<A>()) => {
                    let mut buf = [MaybeUninit::uninit(); RUN_CHUNK];
                    let ys = splat(&mut buf, y.read(), len.min(RUN_CHUNK));
                    for start in (0..len).step_by(RUN_CHUNK) {
                        let n = (len - start).min(RUN_CHUNK);
                        run(x.add(start), ys, o.add(start), n);
                    }
                }
                [1, 0, 1] if apart(o, yb, size_of::<B>()) => {
                    let mut buf = [MaybeUninit::uninit(); RUN_CHUNK];
                    let xs = splat(&mut buf, x.read(), len.min(RUN_CHUNK));
                    for start in (0..len).step_by(RUN_CHUNK) {
                        let n = (len - start).min(RUN_CHUNK);
                        run(xs, y.add(start), o.add(start), n);
                    }
                }
                _ => self.plain.body(
                    [o.cast(), x as *mut u8, y as *mut u8],
                    &one_row(rect),
                    false,
                ),
            }
        }
    }

    #[inline(always)]
    unsafe fn each(&self, ptr: [*mut u8; 3], rect: &Rect<3>) {
        self.plain.each(ptr, rect)
    }
}

/// `value` written into the first `n` slots of `buf`: a row of `n` copies of a stride-0 input
/// for a run (a short row fills only what it reads).
#[inline(always)]
fn splat<T: Copy>(buf: &mut [MaybeUninit<T>; RUN_CHUNK], value: T, n: usize) -> *const T {
    for slot in &mut buf[..n] {
        slot.write(value);
    }
    buf.as_ptr().cast()
}

/// Elements a guarded row computes at a time before it checks them.
const GUARD_CHUNK: usize = 64;

/// A two-input loop whose element function has a fast form that holds only for some inputs:
/// `fast(a, b)` gives a value and whether it is the exact one, `exact(a, b)` is always exact.
/// Contiguous rows, and rows with a stride-0 input, run `fast` over [`GUARD_CHUNK`] elements
/// at a time into a buffer (so it vectorises), redo the chunk with `exact` when any element's
/// fast value did not hold, then store the chunk; other rows, and rows whose memory overlaps
/// other than in place, run `exact` element by element in order. The result is `exact`'s
/// everywhere. Non-temporal stores are not used.
///
/// `real::remainder_fast` is such a pair with `real::remainder`: a division, a floor and a
/// fused multiply-add instead of `fmod`'s bit-by-bit loop.
pub struct GuardedBinary<A, B, R, F, E> {
    fast: F,
    exact: E,
    types: PhantomData<fn(A, B) -> R>,
}

impl<A, B, R, F, E> GuardedBinary<A, B, R, F, E> {
    /// The loop of `exact`, its rows tried with `fast` first.
    pub fn new(fast: F, exact: E) -> Self {
        GuardedBinary {
            fast,
            exact,
            types: PhantomData,
        }
    }
}

impl<A, B, R, F, E> Rows<3> for GuardedBinary<A, B, R, F, E>
where
    A: Copy + 'static,
    B: Copy + 'static,
    R: Copy + 'static,
    F: Fn(A, B) -> (R, bool) + Sync,
    E: Fn(A, B) -> R + Sync,
{
    fn itemsizes(&self) -> [usize; 3] {
        [size_of::<R>(), size_of::<A>(), size_of::<B>()]
    }

    #[inline(always)]
    unsafe fn body(&self, ptr: [*mut u8; 3], rect: &Rect<3>, _stream: bool) {
        let (fast, exact, len) = (&self.fast, &self.exact, rect.len);
        let apart = |o: *mut R, v: *const u8, step: usize, size: usize| {
            step == 0
                || std::ptr::eq(o.cast::<u8>(), v)
                || disjoint_spans(o.cast::<u8>(), len * size_of::<R>(), v, len * size)
        };
        for r in 0..rect.rows {
            let o = (ptr[0] as *mut R).add(r * rect.row_step[0]);
            let x = (ptr[1] as *const A).add(r * rect.row_step[1]);
            let y = (ptr[2] as *const B).add(r * rect.row_step[2]);
            let (xb, yb) = (x.cast::<u8>(), y.cast::<u8>());
            match rect.step {
                [1, sx @ (0 | 1), sy @ (0 | 1)]
                    if apart(o, xb, sx, size_of::<A>()) && apart(o, yb, sy, size_of::<B>()) =>
                {
                    // A stride-0 input is read once, before the row, as the plain loops read it.
                    match (sx, sy) {
                        (1, 1) => guarded_row(
                            o,
                            len,
                            |i| x.add(i).read(),
                            |i| y.add(i).read(),
                            fast,
                            exact,
                        ),
                        (1, _) => {
                            let yv = y.read();
                            guarded_row(o, len, |i| x.add(i).read(), |_| yv, fast, exact)
                        }
                        (_, 1) => {
                            let xv = x.read();
                            guarded_row(o, len, |_| xv, |i| y.add(i).read(), fast, exact)
                        }
                        _ => fill(o, len, false, exact(x.read(), y.read())),
                    }
                }
                _ => self.each([o.cast(), x as *mut u8, y as *mut u8], &one_row(rect)),
            }
        }
    }

    #[inline(always)]
    unsafe fn each(&self, ptr: [*mut u8; 3], rect: &Rect<3>) {
        each_binary(ptr, rect, &self.exact)
    }
}

/// One contiguous output row of a [`GuardedBinary`], [`GUARD_CHUNK`] elements at a time:
/// every input of a chunk is read before any of its outputs is written, so an input may be
/// the output itself.
///
/// # Safety
/// As for [`Rows::rows`]; `x(i)` and `y(i)` read element `i` of the row's inputs, each of
/// which is the output itself, disjoint from it, or a value read before the row.
#[inline(always)]
unsafe fn guarded_row<A: Copy, B: Copy, R: Copy>(
    o: *mut R,
    len: usize,
    x: impl Fn(usize) -> A,
    y: impl Fn(usize) -> B,
    fast: &impl Fn(A, B) -> (R, bool),
    exact: &impl Fn(A, B) -> R,
) {
    let mut buf = [std::mem::MaybeUninit::<R>::uninit(); GUARD_CHUNK];
    let mut start = 0;
    while start < len {
        let n = (len - start).min(GUARD_CHUNK);
        let chunk = &mut buf[..n];
        let mut held = true;
        for (i, slot) in chunk.iter_mut().enumerate() {
            let (v, ok) = fast(x(start + i), y(start + i));
            slot.write(v);
            held &= ok;
        }
        if !held {
            for (i, slot) in chunk.iter_mut().enumerate() {
                slot.write(exact(x(start + i), y(start + i)));
            }
        }
        // Every slot of the chunk was written above.
        std::ptr::copy_nonoverlapping(chunk.as_ptr().cast::<R>(), o.add(start), n);
        start += n;
    }
}

/// A two-input loop over `float16` or `bfloat16` computed in `f32`:
/// `out = round(g(widen(a), widen(b)))`. Contiguous rows, and rows with a stride-0 input, are
/// converted in registers eight elements at a time where the type and processor allow
/// ([`WidenSlice::binary_row_in_registers`]: `float16` with F16C), so the conversions and
/// `g` vectorise; other rows, and rows whose memory overlaps other than in place, go
/// element by element in order. Non-temporal
/// stores are not used.
pub struct WidenedBinary<T, G> {
    g: G,
    types: PhantomData<fn(T) -> T>,
}

impl<T, G> WidenedBinary<T, G> {
    /// The loop of `g` in `f32`.
    pub fn new(g: G) -> Self {
        WidenedBinary {
            g,
            types: PhantomData,
        }
    }
}

impl<T, G> Rows<3> for WidenedBinary<T, G>
where
    T: WidenSlice,
    G: Fn(f32, f32) -> f32 + Sync,
{
    fn itemsizes(&self) -> [usize; 3] {
        [size_of::<T>(); 3]
    }

    #[inline(always)]
    unsafe fn body(&self, ptr: [*mut u8; 3], rect: &Rect<3>, _stream: bool) {
        let (g, len) = (&self.g, rect.len);
        let apart =
            |o: *mut T, v: *const T, step: usize| step == 0 || same(o, v) || disjoint(o, v, len);
        for r in 0..rect.rows {
            let o = (ptr[0] as *mut T).add(r * rect.row_step[0]);
            let x = (ptr[1] as *const T).add(r * rect.row_step[1]);
            let y = (ptr[2] as *const T).add(r * rect.row_step[2]);
            match rect.step {
                [1, sx @ (0 | 1), sy @ (0 | 1)] if apart(o, x, sx) && apart(o, y, sy) => {
                    widened_row(o, x, y, len, sx == 0, sy == 0, g)
                }
                _ => self.each([o.cast(), x as *mut u8, y as *mut u8], &one_row(rect)),
            }
        }
    }

    #[inline(always)]
    unsafe fn each(&self, ptr: [*mut u8; 3], rect: &Rect<3>) {
        let g = &self.g;
        each_binary(ptr, rect, |a: T, b: T| {
            T::from_f32(g(a.cast::<f32>(), b.cast::<f32>()))
        })
    }
}

/// One contiguous output row of a [`WidenedBinary`], in registers where the type and
/// processor allow, else element by element; an input with `x_scalar` (`y_scalar`) is read
/// once, before the row, as the plain loops read it.
///
/// # Safety
/// As for [`Rows::rows`]; each input is the output itself, disjoint from it, or a scalar.
#[inline(always)]
unsafe fn widened_row<T: WidenSlice>(
    o: *mut T,
    x: *const T,
    y: *const T,
    len: usize,
    x_scalar: bool,
    y_scalar: bool,
    g: &impl Fn(f32, f32) -> f32,
) {
    if T::binary_row_in_registers(o, x, y, len, (x_scalar, y_scalar), g) {
        return;
    }
    let scalar = |v: *const T, is: bool| is.then(|| v.read().cast::<f32>());
    let (xv, yv) = (scalar(x, x_scalar), scalar(y, y_scalar));
    for i in 0..len {
        let a = xv.unwrap_or_else(|| x.add(i).read().cast::<f32>());
        let b = yv.unwrap_or_else(|| y.add(i).read().cast::<f32>());
        o.add(i).write(T::from_f32(g(a, b)));
    }
}

/// A three-input loop: `out = f(a, b, c)`.
pub struct Ternary<A, B, C, R, F> {
    f: F,
    types: PhantomData<fn(A, B, C) -> R>,
}

impl<A, B, C, R, F> Ternary<A, B, C, R, F> {
    /// The loop of `f`.
    pub fn new(f: F) -> Self {
        Ternary {
            f,
            types: PhantomData,
        }
    }
}

impl<A, B, C, R, F> Rows<4> for Ternary<A, B, C, R, F>
where
    A: Copy + 'static,
    B: Copy + 'static,
    C: Copy + 'static,
    R: Copy + 'static,
    F: Fn(A, B, C) -> R + Sync,
{
    fn itemsizes(&self) -> [usize; 4] {
        [
            size_of::<R>(),
            size_of::<A>(),
            size_of::<B>(),
            size_of::<C>(),
        ]
    }

    #[inline(always)]
    unsafe fn body(&self, ptr: [*mut u8; 4], rect: &Rect<4>, _stream: bool) {
        let (f, len) = (&self.f, rect.len);
        for r in 0..rect.rows {
            let o = (ptr[0] as *mut R).add(r * rect.row_step[0]);
            let x = (ptr[1] as *const A).add(r * rect.row_step[1]);
            let y = (ptr[2] as *const B).add(r * rect.row_step[2]);
            let z = (ptr[3] as *const C).add(r * rect.row_step[3]);
            let [so, sx, sy, sz] = rect.step;
            // The furthest element each input reaches in this row, plus one.
            let span = |s: usize| (len - 1) * s + 1;
            let separate = len > 0
                && disjoint_spans(o, len, x, span(sx))
                && disjoint_spans(o, len, y, span(sy))
                && disjoint_spans(o, len, z, span(sz));
            if so == 1 && separate {
                // The output alone is a slice; each input is contiguous or stride 0 (a
                // 0-d operand, a column against a row: `where(mask, x, 0-d)`,
                // `addcmul(0-d, (n,1), (1,m))`), a constant step each row kind is compiled
                // for so that it vectorises, or read at its run-time step.
                match (sx, sy, sz) {
                    (1, 1, 1) => ternary_row::<1, 1, 1, _, _, _, _>(o, len, x, y, z, f),
                    (1, 1, 0) => ternary_row::<1, 1, 0, _, _, _, _>(o, len, x, y, z, f),
                    (1, 0, 1) => ternary_row::<1, 0, 1, _, _, _, _>(o, len, x, y, z, f),
                    (1, 0, 0) => ternary_row::<1, 0, 0, _, _, _, _>(o, len, x, y, z, f),
                    (0, 1, 1) => ternary_row::<0, 1, 1, _, _, _, _>(o, len, x, y, z, f),
                    (0, 1, 0) => ternary_row::<0, 1, 0, _, _, _, _>(o, len, x, y, z, f),
                    (0, 0, 1) => ternary_row::<0, 0, 1, _, _, _, _>(o, len, x, y, z, f),
                    (0, 0, 0) => fill(o, len, false, f(x.read(), y.read(), z.read())),
                    _ => {
                        let o = std::slice::from_raw_parts_mut(o, len);
                        for (i, v) in o.iter_mut().enumerate() {
                            *v = f(
                                x.add(i * sx).read(),
                                y.add(i * sy).read(),
                                z.add(i * sz).read(),
                            );
                        }
                    }
                }
            } else {
                self.each(
                    [o.cast(), x as *mut u8, y as *mut u8, z as *mut u8],
                    &one_row(rect),
                );
            }
        }
    }

    /// Unlike the two-input loops, every input is read at each element, a stride-0 one too:
    /// the fast rows run only where the output shares no byte with any input, so this reads
    /// what they read.
    #[inline(always)]
    unsafe fn each(&self, ptr: [*mut u8; 4], rect: &Rect<4>) {
        let [so, sx, sy, sz] = rect.step;
        for r in 0..rect.rows {
            let o = (ptr[0] as *mut R).add(r * rect.row_step[0]);
            let x = (ptr[1] as *const A).add(r * rect.row_step[1]);
            let y = (ptr[2] as *const B).add(r * rect.row_step[2]);
            let z = (ptr[3] as *const C).add(r * rect.row_step[3]);
            for i in 0..rect.len {
                let i = overlapping(i);
                o.add(i * so).write((self.f)(
                    x.add(i * sx).read(),
                    y.add(i * sy).read(),
                    z.add(i * sz).read(),
                ));
            }
        }
    }
}

/// `o[i] = f(x[i * SX], y[i * SY], z[i * SZ])` over a contiguous output row of `len`
/// elements, each step 0 or 1; a stride-0 input is read once, before the row.
///
/// # Safety
/// As for [`Rows::rows`]; `len` is not 0, and the output row shares no byte with the
/// positions the inputs reach.
#[inline(always)]
unsafe fn ternary_row<
    const SX: usize,
    const SY: usize,
    const SZ: usize,
    A: Copy,
    B: Copy,
    C: Copy,
    R: Copy,
>(
    o: *mut R,
    len: usize,
    x: *const A,
    y: *const B,
    z: *const C,
    f: &impl Fn(A, B, C) -> R,
) {
    let (x0, y0, z0) = (x.read(), y.read(), z.read());
    let o = std::slice::from_raw_parts_mut(o, len);
    for (i, v) in o.iter_mut().enumerate() {
        let a = if SX == 0 { x0 } else { x.add(i).read() };
        let b = if SY == 0 { y0 } else { y.add(i).read() };
        let c = if SZ == 0 { z0 } else { z.add(i).read() };
        *v = f(a, b, c);
    }
}

//! The inner row loops against the same walk written out element by element: every fast row
//! kind (contiguous, stride-0 inputs, in place, streamed) and a strided one, for each loop
//! (plain, widened `float16`, guarded, run-based, three-input), and inputs that alias the
//! output.

use bcast_engine::__internals::loops::kernel::{
    Binary, GuardedBinary, Rect, Rows, RunBinary, RunUnary, Ternary, WidenedBinary,
};
use bcast_engine::half::Half;
use bcast_engine::ops::real::{remainder, remainder_fast, Real};

/// Runs `kernel` over walks of every fast row kind (contiguous, stride-0 inputs) and a
/// strided one, three rows of 0 to 1001 elements, on `x` and `y`, each with and without
/// `streams`, and element by element ([`Rows::each`], what processors without AVX2 run);
/// checks every output element (and that nothing else is written, `fill` staying) against
/// `want(x, y)` with `same`.
fn check_every_row<T: Copy, K: Rows<3>>(
    kernel: &K,
    (x, y): (&[T], &[T]),
    fill: T,
    streams: &[bool],
    want: impl Fn(T, T) -> T,
    same: impl Fn(T, T) -> bool,
) {
    for step in [[1, 1, 1], [1, 1, 0], [1, 0, 1], [1, 0, 0], [2, 1, 3]] {
        for (&stream, len) in streams
            .iter()
            .flat_map(|s| [0, 1, 7, 300, 1001].map(|l| (s, l)))
        {
            let rect = Rect {
                len,
                step,
                rows: 3,
                row_step: [len * step[0] + 1, len + 2, 5],
            };
            let mut expected = vec![fill; 4 * 3 * len + 8];
            for r in 0..3 {
                for i in 0..len {
                    let at = |k: usize| r * rect.row_step[k] + i * step[k];
                    expected[at(0)] = want(x[at(1)], y[at(2)]);
                }
            }
            for each in [false, true] {
                let mut out = vec![fill; expected.len()];
                let ptr = [
                    out.as_mut_ptr() as *mut u8,
                    x.as_ptr() as *mut u8,
                    y.as_ptr() as *mut u8,
                ];
                // SAFETY: every position of the walk lies inside the vectors.
                unsafe {
                    if each {
                        kernel.each(ptr, &rect)
                    } else {
                        kernel.rows(ptr, &rect, stream)
                    }
                };
                let ok = out.iter().zip(&expected).all(|(&a, &b)| same(a, b));
                assert!(ok, "step {step:?}, stream {stream}, len {len}, each {each}");
            }
        }
    }
}

/// Every fast row (contiguous, stride-0 inputs, in place, streamed) against the same
/// walk written out element by element.
#[test]
fn rows_match_an_element_walk() {
    let f = |a: f32, b: f32| a * 3.0 - b;
    let x: Vec<f32> = (0..4000).map(|i| (i % 97) as f32 - 40.0).collect();
    let y: Vec<f32> = (0..4000).map(|i| (i % 13) as f32 * 0.25).collect();
    let bits = |a: f32, b: f32| a.to_bits() == b.to_bits();
    check_every_row(&Binary::new(f), (&x, &y), f32::NAN, &[false, true], f, bits);
}

/// Runs `kernel` in place over `v[..len]` with its first input `v` shifted by `shift`
/// elements and its second the one value `scalar`; then checks that [`Rows::each`] over a
/// copy of the original `v` writes the same elements (`T`'s `==`, so NaNs aside).
fn run_shifted<T: Copy + PartialEq + std::fmt::Debug, K: Rows<3>>(
    kernel: &K,
    v: &mut [T],
    shift: usize,
    len: usize,
    scalar: T,
    stream: bool,
) {
    assert!(len + shift <= v.len());
    let scalar = [scalar];
    let mut by_element = v.to_vec();
    for (each, v) in [(false, &mut *v), (true, &mut by_element[..])] {
        let base = v.as_mut_ptr();
        // SAFETY: positions `0..len + shift` lie inside `v`.
        unsafe {
            let ptr = [
                base as *mut u8,
                base.add(shift) as *mut u8,
                scalar.as_ptr() as *mut u8,
            ];
            let rect = Rect {
                len,
                step: [1, 1, 0],
                rows: 1,
                row_step: [0; 3],
            };
            if each {
                kernel.each(ptr, &rect)
            } else {
                kernel.rows(ptr, &rect, stream)
            }
        }
    }
    assert_eq!(&v[..], &by_element[..], "each, shift {shift}");
}

/// A widened row whose stride-0 input is an element of the row it writes uses that
/// element's value from before the row, as the plain loops do.
#[test]
fn a_widened_scalar_inside_the_row_is_read_before_it() {
    let g = |a: f32, b: f32| a + b;
    let kernel = WidenedBinary::<Half, _>::new(g);
    let want: Vec<Half> = (0..40).map(|i| Half::from_f32(g(i as f32, 5.0))).collect();
    // Through `rows`, then element by element (`each`, what processors without AVX2 run).
    for each in [false, true] {
        let mut v: Vec<Half> = (0..40).map(|i| Half::from_f32(i as f32)).collect();
        let base = v.as_mut_ptr();
        // SAFETY: every position lies inside `v`.
        unsafe {
            let ptr = [base as *mut u8, base as *mut u8, base.add(5) as *mut u8];
            let rect = Rect {
                len: 40,
                step: [1, 1, 0],
                rows: 1,
                row_step: [0; 3],
            };
            if each {
                kernel.each(ptr, &rect)
            } else {
                kernel.rows(ptr, &rect, false)
            }
        }
        assert!(
            v.iter().zip(&want).all(|(a, b)| a.0 == b.0),
            "each {each}: {v:?}"
        );
    }
}

/// The widened float16 loop: every row kind against an element walk in `f32`, values
/// spanning subnormals to overflow (the results round to every kind of half).
#[test]
fn widened_rows_match_an_element_walk() {
    let g = |a: f32, b: f32| a * 3.0 - b;
    let kernel = WidenedBinary::<Half, _>::new(g);
    let half = |i: usize, m: usize| {
        Half::from_f32(((i % m) as f32 - 40.0) * 1.37e-6 * (1 << (i % 29)) as f32)
    };
    let x: Vec<Half> = (0..4000).map(|i| half(i, 97)).collect();
    let y: Vec<Half> = (0..4000).map(|i| half(i + 5, 13)).collect();
    let want = |a: Half, b: Half| Half::from_f32(g(a.to_f32(), b.to_f32()));
    let bits = |a: Half, b: Half| a.0 == b.0;
    check_every_row(&kernel, (&x, &y), Half(0x7e00), &[false], want, bits);
    // In place, and shifted over itself (read in order, element by element).
    for shift in [0usize, 1, 3] {
        let mut v: Vec<Half> = (0..600).map(|i| half(i, 31)).collect();
        let mut want = v.clone();
        let len = 500;
        for i in 0..len {
            want[i] = Half::from_f32(g(want[i + shift].to_f32(), 1.0));
        }
        run_shifted(&kernel, &mut v, shift, len, Half::from_f32(1.0), false);
        assert!(
            v.iter().zip(&want).all(|(a, b)| a.0 == b.0),
            "shift {shift}"
        );
    }
}

/// The guarded loop (float remainder): every row kind, and in place or shifted over
/// itself, against `remainder` element by element; the inputs put a huge quotient or an
/// infinite divisor in some chunks, so both the fast chunks and the redone ones are met.
#[test]
fn guarded_rows_match_an_element_walk() {
    let kernel = GuardedBinary::new(remainder_fast::<f64>, remainder::<f64>);
    let x: Vec<f64> = (0..4000)
        .map(|i| match i % 389 {
            0 => 1e300,
            _ => ((i % 97) as f64 - 40.0) * 0.37,
        })
        .collect();
    let y: Vec<f64> = (0..4000)
        .map(|i| match i % 701 {
            0 => f64::INFINITY,
            _ => ((i % 13) as f64 - 6.5) * 0.75,
        })
        .collect();
    let bits = |a: f64, b: f64| a.to_bits() == b.to_bits() || (a.is_nan() && b.is_nan());
    check_every_row(&kernel, (&x, &y), -7.0, &[false, true], remainder, bits);
    for (shift, divisor) in [(0usize, 2.5), (1, 2.5), (3, -0.75), (0, 1e-300)] {
        let mut v = x[..600].to_vec();
        let mut want = v.clone();
        let len = 500;
        for i in 0..len {
            want[i] = remainder(want[i + shift], divisor);
        }
        run_shifted(&kernel, &mut v, shift, len, divisor, false);
        assert!(
            v.iter().zip(&want).all(|(&a, &b)| bits(a, b)),
            "shift {shift}"
        );
    }
}

/// The three-input loop: every step combination of its contiguous-output row (each input
/// contiguous or stride 0) and a strided walk, against the same walk element by element.
#[test]
fn ternary_rows_match_an_element_walk() {
    let f = |m: bool, a: f32, b: f32| if m { a } else { b * 2.0 };
    let kernel = Ternary::new(f);
    let m: Vec<bool> = (0..8000).map(|i| i % 3 != 1).collect();
    let x: Vec<f32> = (0..8000).map(|i| i as f32).collect();
    let y: Vec<f32> = (0..8000).map(|i| -(i as f32) * 0.5).collect();
    // Every contiguous-output row kind (each input step 0 or 1), a contiguous output with a
    // strided input, and a strided output.
    let mut steps: Vec<[usize; 4]> = (0..8)
        .map(|bits| [1, bits & 1, (bits >> 1) & 1, (bits >> 2) & 1])
        .collect();
    steps.extend([[1, 2, 0, 1], [2, 1, 3, 0]]);
    for step in steps {
        for len in [0, 1, 7, 300, 1001] {
            let rect = Rect {
                len,
                step,
                rows: 3,
                row_step: [len * step[0] + 1, len + 2, 5, 1],
            };
            let mut out = vec![f32::NAN; 4 * 3 * len + 8];
            let ptr = [
                out.as_mut_ptr() as *mut u8,
                m.as_ptr() as *mut u8,
                x.as_ptr() as *mut u8,
                y.as_ptr() as *mut u8,
            ];
            // SAFETY: every position of the walk lies inside the vectors.
            unsafe { kernel.rows(ptr, &rect, false) };
            let mut expected = vec![f32::NAN; out.len()];
            for r in 0..3 {
                for i in 0..len {
                    let at = |k: usize| r * rect.row_step[k] + i * step[k];
                    expected[at(0)] = f(m[at(1)], x[at(2)], y[at(3)]);
                }
            }
            let same = |out: &[f32]| {
                out.iter()
                    .zip(&expected)
                    .all(|(a, b)| a.to_bits() == b.to_bits())
            };
            assert!(same(&out), "step {step:?}, len {len}");
            out.fill(f32::NAN);
            let ptr = [out.as_mut_ptr() as *mut u8, ptr[1], ptr[2], ptr[3]];
            // SAFETY: as above.
            unsafe { kernel.each(ptr, &rect) };
            assert!(same(&out), "each: step {step:?}, len {len}");
        }
    }
}

/// Calls of [`counted_run`], to tell that the run loops used their run.
static RUN_CALLS: std::sync::atomic::AtomicUsize = std::sync::atomic::AtomicUsize::new(0);

/// A [`bcast_engine::loops::BinaryRun`] of `a * 3 - b` that counts its calls.
unsafe fn counted_run(x: *const f32, y: *const f32, o: *mut f32, len: usize) {
    RUN_CALLS.fetch_add(1, std::sync::atomic::Ordering::Relaxed);
    for i in 0..len {
        // SAFETY: the caller's promise (a run's): `len` elements at each pointer.
        unsafe { o.add(i).write(x.add(i).read() * 3.0 - y.add(i).read()) };
    }
}

/// The two-input run loop: every row kind against an element walk, the run used for
/// contiguous rows and stride-0 inputs; in place through the run, shifted over itself
/// element by element in order; then `powf`'s own run where the processor has it.
#[test]
fn run_rows_match_an_element_walk() {
    let f = |a: f32, b: f32| a * 3.0 - b;
    let x: Vec<f32> = (0..4000).map(|i| (i % 97) as f32 - 40.0).collect();
    let y: Vec<f32> = (0..4000).map(|i| (i % 13) as f32 * 0.25).collect();
    let bits = |a: f32, b: f32| a.to_bits() == b.to_bits() || (a.is_nan() && b.is_nan());
    let kernel = RunBinary::new(f, counted_run);
    check_every_row(&kernel, (&x, &y), f32::NAN, &[false, true], f, bits);
    assert!(RUN_CALLS.load(std::sync::atomic::Ordering::Relaxed) > 0);
    for shift in [0usize, 1, 3] {
        let mut v = x[..600].to_vec();
        let mut want = v.clone();
        for i in 0..500 {
            want[i] = f(want[i + shift], 0.5);
        }
        run_shifted(&kernel, &mut v, shift, 500, 0.5, false);
        assert!(
            v.iter().zip(&want).all(|(&a, &b)| bits(a, b)),
            "shift {shift}"
        );
    }
    if let Some(run) = <f32 as Real>::powf_run() {
        let x: Vec<f32> = (0..4000).map(|i| ((i % 89) as f32 - 30.0) * 0.37).collect();
        let y: Vec<f32> = (0..4000).map(|i| ((i % 17) as f32 - 5.0) * 0.5).collect();
        check_every_row(
            &RunBinary::new(f32::powf, run),
            (&x, &y),
            9.0,
            &[false],
            f32::powf,
            bits,
        );
    }
}

/// The one-input run loop (`exp`'s, where the processor has it): contiguous, stride-0
/// and strided rows, and in place, against `exp` element by element.
#[test]
fn unary_run_rows_match_an_element_walk() {
    let Some(run) = <f32 as Real>::exp_run() else {
        eprintln!("skipped: no vectorised exp here");
        return;
    };
    let exp = <f32 as Real>::exp;
    let kernel = RunUnary::new(exp, run);
    let x: Vec<f32> = (0..3000)
        .map(|i| ((i % 211) as f32 - 105.0) * 0.9)
        .collect();
    let bits = |a: f32, b: f32| a.to_bits() == b.to_bits() || (a.is_nan() && b.is_nan());
    for step in [[1, 1], [1, 0], [2, 3]] {
        for len in [0usize, 1, 7, 9, 300] {
            let rect = Rect {
                len,
                step,
                rows: 3,
                row_step: [len * step[0] + 1, len + 2],
            };
            let mut out = vec![-1.0f32; 4 * 3 * len + 8];
            let ptr = [out.as_mut_ptr() as *mut u8, x.as_ptr() as *mut u8];
            // SAFETY: every position of the walk lies inside the vectors.
            unsafe { kernel.rows(ptr, &rect, false) };
            let mut want = vec![-1.0f32; out.len()];
            for r in 0..3 {
                for i in 0..len {
                    want[r * rect.row_step[0] + i * step[0]] =
                        exp(x[r * rect.row_step[1] + i * step[1]]);
                }
            }
            let ok = |out: &[f32]| out.iter().zip(&want).all(|(&a, &b)| bits(a, b));
            assert!(ok(&out), "step {step:?}, len {len}");
            out.fill(-1.0);
            let ptr = [out.as_mut_ptr() as *mut u8, ptr[1]];
            // SAFETY: as above.
            unsafe { kernel.each(ptr, &rect) };
            assert!(ok(&out), "each: step {step:?}, len {len}");
        }
    }
    let mut v = x.clone();
    let rect = Rect {
        len: v.len(),
        step: [1, 1],
        rows: 1,
        row_step: [0; 2],
    };
    let p = v.as_mut_ptr() as *mut u8;
    // SAFETY: in place over the vector.
    unsafe { kernel.rows([p, p], &rect, false) };
    assert!(v.iter().zip(&x).all(|(&a, &b)| bits(a, exp(b))));
}

/// An input that is the output itself is read before each write; an input that
/// overlaps the output otherwise is read in order, as the index map reads it.
#[test]
fn aliased_rows_read_in_order() {
    let kernel = Binary::new(|a: i64, b: i64| a + b);
    for shift in [0usize, 1, 3] {
        let mut v: Vec<i64> = (0..64).collect();
        let mut want = v.clone();
        let len = 40;
        for i in 0..len {
            want[i] = want[i + shift] + 100;
        }
        run_shifted(&kernel, &mut v, shift, len, 100i64, true);
        assert_eq!(v, want, "shift {shift}");
    }
}

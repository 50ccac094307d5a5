//! `float32` `exp` ([`expf`]) against glibc's `expf`, and its slice forms against it.

use bcast_engine::ops::expf::expf;
#[cfg(target_arch = "x86_64")]
use bcast_engine::{__internals::ops::expf::run, loops::UnaryRun, ops::expf::expf_slice};

/// Every 61st `float32` (70 million, all exponents, both signs, NaN and the infinities
/// among them), against the C library's `expf`. Only where that is glibc on a processor
/// with FMA: elsewhere libm computes it another way.
#[test]
fn matches_libm() {
    let glibc = cfg!(all(
        target_os = "linux",
        target_env = "gnu",
        target_arch = "x86_64"
    ));
    #[cfg(target_arch = "x86_64")]
    let fma = std::arch::is_x86_feature_detected!("fma");
    #[cfg(not(target_arch = "x86_64"))]
    let fma = false;
    if !(glibc && fma) {
        eprintln!("skipped: libm's expf is not glibc's FMA version here");
        return;
    }
    let mut bad = Vec::new();
    let mut bits = 0u32;
    loop {
        let x = f32::from_bits(bits);
        let (want, got) = (x.exp(), expf(x));
        if want.to_bits() != got.to_bits() && !(want.is_nan() && got.is_nan()) {
            bad.push(bits);
        }
        match bits.checked_add(61) {
            Some(b) => bits = b,
            None => break,
        }
    }
    // Around the thresholds: 88, the overflow and underflow limits, -88.
    for edge in [0x42b0_0000u32, 0x42b1_7217, 0xc2cf_f1b4, 0xc2b0_0000] {
        bad.extend((edge - 2..=edge + 2).filter(|&b| {
            let x = f32::from_bits(b);
            x.exp().to_bits() != expf(x).to_bits()
        }));
    }
    assert!(
        bad.is_empty(),
        "{} differ, the first {:#x?}",
        bad.len(),
        &bad[..bad.len().min(5)]
    );
}

/// The eight-lane form against the scalar one (libm plays no part) on every 13th
/// `float32` and around the thresholds, run in chunks of odd lengths so that the
/// one-at-a-time tail is met too; then in place.
#[cfg(target_arch = "x86_64")]
#[test]
fn slice_matches_scalar() {
    slice_matches_scalar_every(if cfg!(debug_assertions) { 4099 } else { 13 });
}

/// The same on every `float32` (`cargo test --release -p bcast-engine --test it --
/// --ignored expf`), the check made while writing the slice form.
#[cfg(target_arch = "x86_64")]
#[test]
#[ignore = "a minute; run by hand after changing expf_slice"]
fn slice_matches_scalar_on_every_input() {
    slice_matches_scalar_every(1);
}

/// Every slice form of [`expf`] this processor can run.
#[cfg(target_arch = "x86_64")]
fn runs() -> Vec<UnaryRun<f32, f32>> {
    let mut runs: Vec<UnaryRun<f32, f32>> = run().into_iter().collect();
    if runs.first() != Some(&(expf_slice as UnaryRun<f32, f32>))
        && std::arch::is_x86_feature_detected!("avx2")
        && std::arch::is_x86_feature_detected!("fma")
    {
        runs.push(expf_slice);
    }
    runs
}

/// [`expf_slice`] against [`expf`] on every `step`-th `float32` and the
/// thresholds.
#[cfg(target_arch = "x86_64")]
fn slice_matches_scalar_every(step: usize) {
    let runs = runs();
    if runs.is_empty() {
        eprintln!("skipped: no AVX2 and FMA here");
    }
    for run in runs {
        slice_matches_scalar_with(run, step);
    }
}

/// One slice form against [`expf`], as [`slice_matches_scalar_every`] says.
#[cfg(target_arch = "x86_64")]
fn slice_matches_scalar_with(run: UnaryRun<f32, f32>, step: usize) {
    let same = |a: f32, b: f32| a.to_bits() == b.to_bits() || (a.is_nan() && b.is_nan());
    let edges = [
        0x42b1_7217u32,
        0xc2cf_f1b4,
        0x7f80_0000,
        0xff80_0000,
        0x7fc0_0001,
    ]
    .into_iter()
    .flat_map(|edge| edge - 3..=edge.saturating_add(3));
    let mut all = (0..=u32::MAX)
        .step_by(step)
        .chain(edges)
        .map(f32::from_bits);
    let (mut bad, mut seen) = (0usize, 0usize);
    let mut lens = [1usize, 7, 8, 9, 15, 16, 17, 4093, 65541]
        .into_iter()
        .cycle();
    // A million inputs at a time, each batch run in pieces of odd lengths.
    loop {
        let inputs: Vec<f32> = all.by_ref().take(1 << 20).collect();
        if inputs.is_empty() {
            break;
        }
        let mut out = vec![0.0f32; inputs.len()];
        let mut start = 0;
        while start < inputs.len() {
            let n = lens.next().unwrap_or(1).min(inputs.len() - start);
            // SAFETY: `start + n` is within both vectors.
            unsafe { run(inputs.as_ptr().add(start), out.as_mut_ptr().add(start), n) };
            start += n;
        }
        bad += inputs
            .iter()
            .zip(&out)
            .filter(|&(&x, &y)| !same(expf(x), y))
            .count();
        if seen == 0 {
            let mut in_place = inputs[..1003].to_vec();
            // SAFETY: in place over the vector's own elements.
            unsafe { run(in_place.as_ptr(), in_place.as_mut_ptr(), in_place.len()) };
            assert!(in_place.iter().zip(&out).all(|(&a, &b)| same(a, b)));
        }
        seen += inputs.len();
    }
    assert_eq!(bad, 0, "of {seen}");
}

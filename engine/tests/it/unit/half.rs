//! `float16` and `bfloat16` conversions: in registers against the element ones, every half
//! against a branchy reference, round trips, ties to even and subnormals.

use bcast_engine::__internals::half::WidenSlice;
use bcast_engine::half::{BFloat16, Half};

/// `o[i] = round(g(x[i], y[i]))` through the registers, with `g` reading or making the
/// `f32` values itself; `None` without F16C.
fn in_registers(x: &[Half], g: impl Fn(f32, f32) -> f32) -> Option<Vec<Half>> {
    let mut o = vec![Half(0); x.len()];
    let zero = Half(0);
    // SAFETY: `o` and `x` hold `x.len()` elements; `zero` is one scalar.
    let done = unsafe {
        Half::binary_row_in_registers(
            o.as_mut_ptr(),
            x.as_ptr(),
            &zero,
            x.len(),
            (false, true),
            &g,
        )
    };
    done.then_some(o)
}

#[test]
fn register_conversions_agree_with_the_element_ones() {
    // Every half, widened (a length not a multiple of 8 exercises the tail).
    let halves: Vec<Half> = (0..=u16::MAX).map(Half).collect();
    let seen = std::cell::RefCell::new(Vec::new());
    let record = |a: f32, _: f32| {
        seen.borrow_mut().push(a);
        a
    };
    if in_registers(&halves[..65_533], record).is_some() {
        let wide = seen.borrow();
        assert_eq!(wide.len(), 65_533);
        for (h, w) in halves.iter().zip(wide.iter()) {
            let want = h.to_f32();
            assert!(
                w.to_bits() == want.to_bits() || (w.is_nan() && want.is_nan()),
                "{h:?}"
            );
        }
    }
    // Floats around every half boundary (halfway points, overflow, subnormals), narrowed.
    let floats: Vec<f32> = (0..1u32 << 21)
        .map(|i| f32::from_bits((i << 11) ^ (i >> 7)))
        .collect();
    let next = std::cell::Cell::new(0);
    let emit = |_: f32, _: f32| {
        let i = next.get();
        next.set(i + 1);
        floats[i]
    };
    let n = floats.len() - 3;
    if let Some(narrow) = in_registers(&vec![Half(0); n], emit) {
        for (f, h) in floats.iter().zip(&narrow) {
            let want = Half::from_f32(*f);
            assert!(h.0 == want.0 || (h.is_nan() && want.is_nan()), "{f:e}");
        }
    }
    let b: Vec<BFloat16> = (0..=u16::MAX).map(BFloat16).collect();
    assert!(b
        .iter()
        .all(|x| BFloat16::from_f32(x.to_f32()).0 == x.0 || x.is_nan()));
}

/// The branchy conversions the branch-free ones replaced, kept as their oracle.
fn reference_from_f32(x: f32) -> u16 {
    let bits = x.to_bits();
    let sign = ((bits >> 16) & 0x8000) as u16;
    let abs = bits & 0x7fff_ffff;
    if abs > 0x7f80_0000 {
        return sign | 0x7e00;
    }
    if abs >= 0x4780_0000 {
        return sign | 0x7c00;
    }
    let e = (abs >> 23) as i32;
    if e >= 113 {
        let mant = abs & 0x007f_ffff;
        let mut h = (((e - 112) as u32) << 10) | (mant >> 13);
        let rem = mant & 0x1fff;
        if rem > 0x1000 || (rem == 0x1000 && h & 1 == 1) {
            h += 1;
        }
        return sign | h as u16;
    }
    if e < 102 {
        return sign;
    }
    let mant = (abs & 0x007f_ffff) | 0x0080_0000;
    let shift = (126 - e) as u32;
    let mut h = mant >> shift;
    let rem = mant & ((1 << shift) - 1);
    let halfway = 1 << (shift - 1);
    if rem > halfway || (rem == halfway && h & 1 == 1) {
        h += 1;
    }
    sign | h as u16
}

fn reference_to_f32(h: u16) -> u32 {
    let h = h as u32;
    let sign = (h & 0x8000) << 16;
    let exp = (h >> 10) & 0x1f;
    let mant = h & 0x3ff;
    if exp == 0x1f {
        sign | 0x7f80_0000 | (mant << 13) | if mant != 0 { 0x0040_0000 } else { 0 }
    } else if exp != 0 {
        sign | ((exp + 112) << 23) | (mant << 13)
    } else if mant == 0 {
        sign
    } else {
        let v = mant as f32 * (1.0 / 16_777_216.0);
        (if sign != 0 { -v } else { v }).to_bits()
    }
}

#[test]
fn every_half_widens_as_the_reference_does() {
    for bits in 0..=u16::MAX {
        assert_eq!(
            Half(bits).to_f32().to_bits(),
            reference_to_f32(bits),
            "{bits:#x}"
        );
    }
}

#[test]
fn floats_round_to_half_as_the_reference_does() {
    // Every f32 from 2^-26 up to 65536 (where rounding happens), both signs; a stride
    // elsewhere (zeros, tiny values, overflow, infinities and NaN payloads).
    let step = if cfg!(debug_assertions) { 61 } else { 1 };
    let dense = (0x3280_0000u32..0x4780_0000).step_by(step);
    let sparse = (0..=u32::MAX).step_by(9973);
    let edges = [
        0,
        1,
        0x7f80_0000,
        0x7f80_0001,
        0x7fc0_0000,
        0x7fff_ffff,
        0x477f_f000,
    ];
    for abs in dense.chain(sparse).chain(edges) {
        for bits in [abs, abs ^ 0x8000_0000] {
            let x = f32::from_bits(bits);
            assert_eq!(Half::from_f32(x).0, reference_from_f32(x), "{bits:#x}");
        }
    }
}

#[test]
fn every_half_round_trips_through_f32() {
    for bits in 0..=u16::MAX {
        let h = Half(bits);
        let back = Half::from_f32(h.to_f32());
        if h.is_nan() {
            assert!(back.is_nan());
        } else {
            assert_eq!(back.0, h.0, "{bits:#x}");
        }
    }
}

#[test]
fn every_bfloat16_round_trips_through_f32() {
    for bits in 0..=u16::MAX {
        let h = BFloat16(bits);
        let back = BFloat16::from_f32(h.to_f32());
        if h.is_nan() {
            assert!(back.is_nan());
        } else {
            assert_eq!(back.0, h.0, "{bits:#x}");
        }
    }
}

#[test]
fn half_rounds_ties_to_even_and_subnormals() {
    assert_eq!(Half::from_f32(1.0 + 1.0 / 2048.0).to_f32(), 1.0);
    assert_eq!(
        Half::from_f32(1.0 + 3.0 / 2048.0).to_f32(),
        1.0 + 2.0 / 1024.0
    );
    let tiny = 2f32.powi(-24);
    assert_eq!(Half::from_f32(tiny).0, 1);
    assert_eq!(Half::from_f32(tiny / 2.0).0, 0);
    assert_eq!(Half::from_f32(tiny * 1.5).0, 2);
    assert_eq!(Half::from_f32(-0.0).0, 0x8000);
}

/// A row widened by the processor's conversions (sixteen or eight per instruction) against
/// [`Half::to_f32`] one element at a time, over every bit pattern and tails of every length.
#[test]
fn widened_rows_convert_as_each_element_does() {
    use bcast_engine::half::widen_row;
    let every: Vec<Half> = (0..=u16::MAX).map(Half).collect();
    for start in 0..20 {
        let src = &every[start..];
        let mut dst = vec![0.0f32; src.len()];
        widen_row(src, &mut dst);
        for (h, f) in src.iter().zip(&dst) {
            assert_eq!(f.to_bits(), h.to_f32().to_bits(), "{h:?}");
        }
    }
}

//! `oracles::elementwise`: every NaN of a float dtype made the same before comparison.

use bcast_engine::DType;
use bcast_fuzzing::__internals::oracles::elementwise::canonical_nans;

#[test]
fn nans_of_every_float_dtype_become_one() {
    let negative = (-f64::NAN).to_bits() | 5;
    let bytes = [negative.to_le_bytes(), 1.5f64.to_le_bytes()].concat();
    let canonical = [f64::NAN.to_le_bytes(), 1.5f64.to_le_bytes()].concat();
    assert_eq!(canonical_nans(DType::Complex128, bytes.clone()), canonical);
    assert_eq!(canonical_nans(DType::Float64, bytes.clone()), canonical);
    // The same bytes as int64 are left alone.
    assert_eq!(canonical_nans(DType::Int64, bytes.clone()), bytes);
    let f32s = [(-f32::NAN).to_le_bytes(), f32::INFINITY.to_le_bytes()].concat();
    let want = [f32::NAN.to_le_bytes(), f32::INFINITY.to_le_bytes()].concat();
    assert_eq!(canonical_nans(DType::Complex64, f32s.clone()), want);
    // float16: 0xfe01 (a negative NaN with a payload) and 0x7c00 (inf).
    let halves = vec![0x01, 0xfe, 0x00, 0x7c];
    assert_eq!(
        canonical_nans(DType::Float16, halves),
        vec![0x00, 0x7e, 0x00, 0x7c]
    );
    // bfloat16: 0xffc1 and 0xff80 (-inf).
    let brains = vec![0xc1, 0xff, 0x80, 0xff];
    assert_eq!(
        canonical_nans(DType::BFloat16, brains),
        vec![0xc0, 0x7f, 0x80, 0xff]
    );
}

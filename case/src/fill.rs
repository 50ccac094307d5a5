//! Storage fill recipes, identical to `python/bcast_suite/fill.py`: both are checked against
//! the golden vectors of `tests/data/fill_vectors.json` (`tests/fill_vectors.rs`, `python/tests`).

use super::{Fill, FillKind, Num};
use crate::DType;

/// One step of splitmix64: the next state and the output.
///
/// ```
/// # use bcast_case::splitmix64;
/// let (state, out) = splitmix64(0);
/// assert_eq!(state, 0x9E3779B97F4A7C15);
/// assert_eq!(out, 0xE220A8397B1DCDAF);
/// ```
pub fn splitmix64(state: u64) -> (u64, u64) {
    let state = state.wrapping_add(0x9E37_79B9_7F4A_7C15);
    let mut z = state;
    z = (z ^ (z >> 30)).wrapping_mul(0xBF58_476D_1CE4_E5B9);
    z = (z ^ (z >> 27)).wrapping_mul(0x94D0_49BB_1331_11EB);
    (state, z ^ (z >> 31))
}

/// The values a fill recipe describes.
pub fn fill_values(dtype: DType, fill: &Fill) -> Vec<Num> {
    match fill.kind {
        FillKind::Arange => (0..fill.len as i64)
            .map(|i| match dtype {
                DType::Bool => Num::Bool(i % 2 == 1),
                DType::Int64 => Num::Int(i),
                DType::Float32 | DType::Float64 => Num::Float(i as f64),
            })
            .collect(),
        FillKind::Random => {
            let mut state = fill.seed;
            (0..fill.len)
                .map(|_| {
                    let (next, z) = splitmix64(state);
                    state = next;
                    let r = z >> 40;
                    match dtype {
                        DType::Bool => Num::Bool(r & 1 == 1),
                        DType::Int64 => Num::Int((r % 21) as i64 - 10),
                        DType::Float32 | DType::Float64 => {
                            Num::Float(((r % 33) as f64 - 16.0) / 4.0)
                        }
                    }
                })
                .collect()
        }
    }
}

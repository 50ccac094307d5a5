//! Case generators, shared by the torch corpus (`bcast gen`), the proptest properties, the
//! differential runner and the fuzz targets. Every generator draws from an
//! [`arbitrary::Unstructured`], so the same code turns fuzz input, proptest bytes or a seed
//! into a `Case`.
//!
//! ```
//! use bcast_fuzzing::generators::{families, generate};
//! let family = &families()[0];
//! let a = generate(family, 7, 0);
//! assert_eq!(a, generate(family, 7, 0)); // deterministic
//! assert!(a.id.starts_with(family.name));
//! ```

mod aliasing;
mod binary_math;
mod bitwise;
mod builder;
mod complex32;
mod einsum;
mod elementwise;
mod grad;
pub(crate) use grad::input_names;
mod inplace;
mod layouts;
mod matmul;
mod max_min;
mod operands;
mod out;
mod promotion;
mod pyargs;
mod queries;
mod reduce;
mod reflected;
mod registry;
mod shapes;
mod strides;
mod ternary;
mod tolerance;
pub mod views;

pub use aliasing::{is_racy, shared_views, views_of_one_storage};
pub use builder::CaseBuilder;
pub use complex32::{complex_arithmetic, complex_half};
pub use einsum::floating_einsum_case;
pub use grad::{grad_case, with_grad, MAX_GRAD_RESULT};
pub use layouts::{ordered_view, random_view, ViewKind, ViewSpec};
pub use matmul::{floating_matmul_case, portable_product_values};
pub use operands::{
    approximate, consistent_alpha, consistent_divisor, consistent_remainder, consistent_remainders,
    draw_dtypes, drawn_dtypes, python_number, random_dtype, AGREED_DTYPES, GEN_DTYPES, GRAD_DTYPES,
};
pub use reduce::floating_reduce_case;
pub use registry::{families, find_family, forward_families, Enumeration, Family, GRAD_FAMILY};
pub use shapes::{broadcast_partner, random_shape, ShapeLimits};
pub use tolerance::{accumulation_error, float_tolerance, grad_tolerance, sum_tolerance};

use arbitrary::Unstructured;
use bcast_conformance::case::{splitmix64, Case, Source};

/// The result type of generators.
pub type GenResult<T> = arbitrary::Result<T>;

/// How many random bytes one generated case may draw.
pub const BYTES_PER_CASE: usize = 4096;

/// The bytes behind case `index` of `seed`: a splitmix64 stream.
pub fn seeded_bytes(seed: u64, index: u64) -> Vec<u8> {
    let mut state = seed ^ index.wrapping_mul(0xD1B5_4A32_D192_ED03);
    let mut out = Vec::with_capacity(BYTES_PER_CASE);
    while out.len() < BYTES_PER_CASE {
        let (next, z) = splitmix64(state);
        state = next;
        out.extend_from_slice(&z.to_le_bytes());
    }
    out
}

/// Case `index` of `family` for `seed`, with its id and source filled in.
pub fn generate(family: &Family, seed: u64, index: u64) -> Case {
    let bytes = seeded_bytes(seed, index);
    let mut case = match &family.enumeration {
        Some(e) => enumerated_case(family, e, index % e.len.max(1), &bytes),
        None => generate_from_bytes(family, &bytes),
    };
    case.id = format!("{}/s{seed}/{index}", family.name);
    case.source = Source {
        generator: Some(family.name.to_string()),
        seed: Some(seed),
        index: Some(index),
        ..Source::default()
    };
    case
}

/// Slot `slot` of an enumerating family, its other choices drawn from `bytes` (the slot alone
/// when they run out).
fn enumerated_case(family: &Family, e: &Enumeration, slot: u64, bytes: &[u8]) -> Case {
    let mut case = (e.case)(slot, &mut Unstructured::new(bytes))
        .or_else(|_| (e.case)(slot, &mut Unstructured::new(&[])))
        .unwrap_or_else(|_| family.fallback());
    consistent_alpha(&mut case);
    consistent_remainders(&mut case);
    case
}

/// A case of `family` from arbitrary bytes (fuzz input, proptest bytes). Never fails: when the
/// bytes run out, the generator's choices fall back to their first options.
pub fn generate_from_bytes(family: &Family, bytes: &[u8]) -> Case {
    let mut u = Unstructured::new(bytes);
    let mut case = match (family.generate)(&mut u) {
        Ok(case) => case,
        Err(_) => {
            (family.generate)(&mut Unstructured::new(&[])).unwrap_or_else(|_| family.fallback())
        }
    };
    consistent_alpha(&mut case);
    consistent_remainders(&mut case);
    case
}

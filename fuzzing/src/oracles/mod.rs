//! Oracles: checks that panic when the engine is wrong, so that fuzz targets, property tests
//! and replayed regressions can drive them with any input. Each takes raw bytes (drawn through
//! [`arbitrary::Unstructured`]) and returns normally when everything agrees.
//!
//! | oracle | checks |
//! | --- | --- |
//! | [`shapes`] | shape algebra against itself |
//! | [`view_chain`] | chains of view ops against a model |
//! | [`decode`] | fixture JSON never panics the loader or the engine |
//! | [`elementwise`] | element-wise kernels: the plan against the naive index map |
//! | [`inplace`] | in-place and `out=` calls: overlap rules, no write outside the target |
//! | [`protocol`] | subprocess protocol decoders never panic, round trips hold |
//! | [`generated`] | generated cases of every family: no panic, consistent outcomes |
//! | [`gradcheck`] | the engine's backward against central differences of its forward (float64, gradcheck's tolerances) |
//! | [`grad_broadcast`] | a broadcast input's gradient is the sum of the gradient on pre-expanded inputs |
//! | `differential` | (feature `torch`) the engine against libtorch on generated cases |

pub mod decode;
#[cfg(feature = "torch")]
pub mod differential;
pub mod elementwise;
pub mod generated;
pub mod grad_broadcast;
pub mod gradcheck;
pub mod inplace;
pub mod materialize;
pub mod protocol;
pub mod scene;
pub mod shapes;
pub mod view_chain;

/// The `grad` target's oracles, both on the same bytes: [`gradcheck`] (a case of the `grad`
/// family) and [`grad_broadcast`] (a case of a broadcasting family with gradients).
///
/// ```
/// bcast_fuzzing::oracles::grad(&[3, 1, 4, 1, 5, 9, 2, 6]);
/// ```
pub fn grad(bytes: &[u8]) {
    gradcheck::check(bytes);
    grad_broadcast::check(bytes);
}

/// One oracle as a fuzz target runs it.
pub type Target = fn(&[u8]);

/// The fuzz targets in `fuzz/fuzz_targets/` and the oracle each one runs, by target name:
/// what replays a finding (`fuzzing/tests/it/fuzz_regressions.rs` replays every file in
/// `fuzz/regressions/TARGET/` and `fuzz/seeds/TARGET/`).
///
/// ```
/// let (_, inplace) = bcast_fuzzing::oracles::targets()
///     .iter()
///     .find(|(name, _)| *name == "inplace")
///     .unwrap();
/// inplace(&[1, 2, 3]);
/// ```
pub fn targets() -> &'static [(&'static str, Target)] {
    &[
        ("shape_algebra", shapes::check),
        ("view_chain", |b| {
            view_chain::check(b);
        }),
        ("fixture_json", decode::fixture_bytes),
        ("elementwise", |b| {
            elementwise::check(b);
        }),
        ("inplace", inplace::check),
        ("protocol_json", protocol::check),
        ("generated_cases", |b| {
            let _ = generated::check(b);
        }),
        ("grad", grad),
        #[cfg(feature = "torch")]
        ("differential_torch", |b| {
            differential::check(b);
        }),
    ]
}

//! The oracles driven by proptest with random bytes (the fuzz targets drive the same oracles
//! with coverage guidance; `fuzz_regressions.rs` replays their findings through them too).
//! The plan-against-index-map oracles run in `plan_matches_index_map.rs`.

use bcast_fuzzing::generators::{families, seeded_bytes};
use bcast_fuzzing::oracles::{decode, generated, inplace, protocol, shapes, view_chain};
use proptest::prelude::*;

proptest! {
    #![proptest_config(ProptestConfig::with_cases(10_000))]

    #[test]
    fn shape_algebra_is_consistent(bytes in proptest::collection::vec(any::<u8>(), 0..128)) {
        shapes::check(&bytes);
    }

    #[test]
    fn view_chains_match_the_model(bytes in proptest::collection::vec(any::<u8>(), 0..512)) {
        view_chain::check(&bytes);
    }

    #[test]
    fn inplace_and_out_keep_the_overlap_rules(bytes in proptest::collection::vec(any::<u8>(), 0..256)) {
        inplace::check(&bytes);
    }
}

#[test]
fn view_chain_oracle_exercises_many_ops() {
    // A fixed stream of bytes through the oracle: most drawn ops must succeed and be checked.
    let bytes = seeded_bytes(7, 0);
    let checked: usize = bytes.chunks(64).map(view_chain::check).sum();
    assert!(checked >= 100, "only {checked} ops were checked");
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(2_000))]

    #[test]
    fn arbitrary_text_never_panics_the_loader(text in ".{0,200}") {
        decode::fixture_bytes(text.as_bytes());
    }

    #[test]
    fn arbitrary_lines_never_panic_the_protocol(text in ".{0,200}") {
        protocol::check(text.as_bytes());
    }

    #[test]
    fn generated_cases_of_every_family_are_consistent(bytes in proptest::collection::vec(any::<u8>(), 0..2048)) {
        let _ = generated::check(&bytes);
    }
}

#[test]
fn generated_oracle_reaches_every_family() {
    // The first byte picks the family: each one runs, and most give an outcome.
    let n = families().len();
    let ran = (0..n as u8 * 4)
        .filter(|&k| {
            let mut bytes = seeded_bytes(3, k as u64);
            bytes[0] = k;
            generated::check(&bytes).is_ok()
        })
        .count();
    assert!(ran >= n * 3, "only {ran} of {} cases ran", n * 4);
}

#[test]
fn protocol_oracle_decodes_real_answers() {
    // Lines the runner does accept go through the round trips.
    for line in [
        r#"{"id": "c/1", "outcome": {"ok": {"result": {"tensor": {"shape": [2], "dtype": "float32", "strides": [1], "values": [1.5, "nan"]}}}}}"#,
        r#"{"id": "c/1", "outcome": {"error": {"type": "RuntimeError", "message": "m"}}}"#,
        r#"{"id": "x", "call": {"fn": "torch.add", "args": [{"tensor": "t0"}, 2]}}"#,
    ] {
        protocol::check(line.as_bytes());
    }
}

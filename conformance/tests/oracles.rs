//! The oracles driven by proptest with random bytes (the fuzz targets drive the same oracles
//! with coverage guidance; `fuzz/` replays their findings through them too).

use bcast_conformance::oracles::{decode, shapes, view_chain};
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
}

#[test]
fn view_chain_oracle_exercises_many_ops() {
    // A fixed stream of bytes through the oracle: most drawn ops must succeed and be checked.
    let bytes = bcast_conformance::gen::seeded_bytes(7, 0);
    let checked: usize = bytes.chunks(64).map(view_chain::check).sum();
    assert!(checked >= 100, "only {checked} ops were checked");
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(2_000))]

    #[test]
    fn arbitrary_text_never_panics_the_loader(text in ".{0,200}") {
        decode::fixture_bytes(text.as_bytes());
    }
}

//! The engine's iteration plan against its naive index map, through the oracles the fuzz
//! targets drive: direct element-wise calls on random strided views
//! ([`oracles::elementwise`]), and every generated element-wise family through the reference
//! backend ([`oracles::generated`]), where the outcomes (values, strides, errors, every
//! storage written) must be identical under both loop strategies.

use bcast_fuzzing::generators::{find_family, generate_from_bytes};
use bcast_fuzzing::oracles::{elementwise, generated};
use proptest::prelude::*;

/// Cases per property.
const CASES: u32 = 10_000;

proptest! {
    #![proptest_config(ProptestConfig::with_cases(CASES))]

    #[test]
    fn elementwise_calls_agree(bytes in prop::collection::vec(any::<u8>(), 0..512)) {
        elementwise::check(&bytes);
    }
}

#[test]
fn elementwise_oracle_checks_most_calls() {
    // Order-dependent calls are skipped; most others must be checked.
    let checked = (0..2000u64)
        .filter(|&i| elementwise::check(&bcast_fuzzing::generators::seeded_bytes(11, i)[..512]))
        .count();
    assert!(checked >= 1500, "only {checked} of 2000 calls were checked");
}

/// One property per family, each with its own budget of cases.
macro_rules! families {
    ($($test:ident => $family:literal),* $(,)?) => {
        proptest! {
            #![proptest_config(ProptestConfig::with_cases(CASES))]
            $(
                #[test]
                fn $test(bytes in prop::collection::vec(any::<u8>(), 0..2048)) {
                    let family = find_family($family).expect("registered family");
                    let _ = generated::check_case(&generate_from_bytes(family, &bytes));
                }
            )*
        }
    };
}

families! {
    unary_family => "unary",
    binary_family => "binary",
    compare_family => "compare",
    where_family => "where",
    inplace_family => "inplace",
    out_family => "out",
    copy_family => "copy",
    strides_family => "strides",
}

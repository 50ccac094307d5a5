//! The engine's iteration plan against its naive index map on the generated element-wise
//! families: every case runs through the reference backend under both loop strategies, and
//! the outcomes (values, strides, errors, every storage written) must be identical.

use bcast_conformance::backend::reference::run_reference;
use bcast_conformance::backend::Level;
use bcast_conformance::case::Outcome;
use bcast_conformance::compare::compare_outcomes;
use bcast_conformance::gen::{find_family, generate_from_bytes};
use bcast_engine::iter::{with_strategy, Strategy};
use proptest::prelude::*;

/// Cases per family.
const CASES: u32 = 10_000;

fn agree(family: &str, bytes: &[u8]) -> Result<(), TestCaseError> {
    let family = find_family(family).expect("registered family");
    let case = generate_from_bytes(family, bytes);
    let run = |s: Strategy| -> Result<Outcome, TestCaseError> {
        with_strategy(s, || run_reference(&case))
            .map_err(|e| TestCaseError::fail(format!("{e} in {:?}", case.call)))
    };
    let (plan, naive) = (run(Strategy::Plan)?, run(Strategy::IndexMap)?);
    let levels = Level::ALL.into_iter().collect();
    let diff = compare_outcomes(&naive, &plan, None, &levels);
    prop_assert!(diff.is_empty(), "{:?}: {:?}", case.call, diff);
    Ok(())
}

/// One property per family, each with its own budget of cases.
macro_rules! families {
    ($($test:ident => $family:literal),* $(,)?) => {
        proptest! {
            #![proptest_config(ProptestConfig::with_cases(CASES))]
            $(
                #[test]
                fn $test(bytes in prop::collection::vec(any::<u8>(), 0..2048)) {
                    agree($family, &bytes)?;
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

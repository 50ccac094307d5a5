//! The engine against libtorch (feature `torch`) on generated cases of every family, drawn
//! from fuzz bytes as [`generated`](super::generated) draws them: a mismatch or a failure of
//! either side panics with the case JSON, ready for `scripts/label.py` and
//! `fixtures/regressions/`.

use super::generated::case_from_bytes;
use crate::diff::diff_case;
use bcast_conformance::backend::reference::ReferenceBackend;
use bcast_conformance::backend::tch::TchBackend;
use std::cell::RefCell;

thread_local! {
    static TORCH: RefCell<Option<TchBackend>> = const { RefCell::new(None) };
}

/// Diffs the case drawn from `bytes` between the reference engine and libtorch; panics on a
/// finding. Draws every dtype. Returns whether both sides ran the case (neither found it
/// unsupported).
///
/// ```no_run
/// bcast_fuzzing::oracles::differential::check(&[3, 1, 4, 1, 5]);
/// ```
pub fn check(bytes: &[u8]) -> bool {
    let case = case_from_bytes(bytes);
    TORCH.with(|torch| {
        let mut torch = torch.borrow_mut();
        let oracle = torch.get_or_insert_with(|| {
            TchBackend::new().unwrap_or_else(|e| panic!("libtorch is not usable: {e}"))
        });
        let run = diff_case(&mut ReferenceBackend, oracle, &case);
        assert!(
            !run.verdict.is_finding(),
            "the engine and libtorch differ: {}\n{}",
            run.verdict.summary(),
            serde_json::to_string(&case).unwrap_or_default()
        );
        !matches!(run.verdict, crate::diff::DiffVerdict::Unsupported { .. })
    })
}

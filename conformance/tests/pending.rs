//! Torch-labelled cases the engine cannot run yet, kept outside `fixtures/` so that the main
//! job stays green, and checked here to be refused with the engine's own "not implemented yet"
//! (never answered wrongly). When the engine learns one, this test fails: move the case back
//! into `fixtures/`.

use bcast_conformance::backend::reference::ReferenceBackend;
use bcast_conformance::backend::{Backend, FailureKind};
use bcast_conformance::case::load_file;
use std::path::Path;

#[test]
fn matmul_on_the_new_dtypes_is_refused_not_answered() {
    let path = Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/data/pending-matmul-dtypes.json");
    let cases = load_file(&path).unwrap_or_else(|e| panic!("{e}"));
    assert_eq!(cases.len(), 2);
    for loaded in &cases {
        let failure = ReferenceBackend
            .run(&loaded.case)
            .expect_err("the engine does not multiply these dtypes yet");
        assert_eq!(failure.kind, FailureKind::Unsupported, "{}", loaded.case.id);
        assert!(
            failure
                .message
                .contains("engine limit: matmul is not implemented for"),
            "{}: {}",
            loaded.case.id,
            failure.message
        );
    }
}

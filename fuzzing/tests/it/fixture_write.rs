//! Fixture files written by `fixture_json` load back case for case.

use bcast_conformance::backend::reference::run_reference;
use bcast_conformance::case::{fixture_json, load_file, schema_for, FixtureFile};
use bcast_fuzzing::generators::{find_family, generate};

#[test]
fn written_files_load_back_case_for_case() {
    let family = find_family("expand").expect("the expand family");
    let cases: Vec<_> = (0..5)
        .map(|i| {
            let mut c = generate(family, 2, i);
            c.expect = run_reference(&c).ok();
            c
        })
        .collect();
    let file = FixtureFile {
        schema: schema_for(&cases),
        torch_version: Some("2.13.0".into()),
        generator: Some("test \"quoted\"".into()),
        cases: cases.clone(),
    };
    let text = fixture_json(&file);
    assert_eq!(text.lines().count(), cases.len() + 2);
    let path = std::env::temp_dir().join(format!("bcast-write-{}.json", std::process::id()));
    std::fs::write(&path, &text).expect("write");
    let loaded = load_file(&path).expect("load");
    std::fs::remove_file(&path).ok();
    let back: Vec<_> = loaded.into_iter().map(|l| l.case).collect();
    assert_eq!(back, cases);
    assert_eq!(
        serde_json::from_str::<FixtureFile>(&text).expect("parse"),
        file
    );
}

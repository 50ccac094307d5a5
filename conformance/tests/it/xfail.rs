//! Expected-failure lists whose entries are mostly single ids (a `--write-xfail` baseline) and
//! partly patterns: looked up by id, they judge as the file reads, entry by entry in file order.

use bcast_conformance::backend::{BackendFailure, FailureKind};
use bcast_conformance::runner::xfail::{Judgement, Reason, XfailList};
use bcast_conformance::runner::Verdict;

#[test]
fn ids_and_patterns_list_a_case_together_in_file_order() {
    let list = XfailList::parse(
        "a/*  reason=shapes\n\
         a/1  reason=values\n\
         re:^a/[0-9]$  reason=backend:crashed\n\
         a/1  reason=strides  # the same id twice\n\
         b/2\n",
    )
    .unwrap();
    let crashed = Verdict::BackendFailure(BackendFailure::new(FailureKind::Crashed, "exit 3"));
    let hung = Verdict::BackendFailure(BackendFailure::new(FailureKind::TimedOut, "5 s"));
    assert_eq!(list.judge("a/1", &crashed), Judgement::Listed);
    let reasons = ["shapes", "values", "backend:crashed", "strides"]
        .map(|r| Reason::parse(r).unwrap())
        .to_vec();
    assert_eq!(list.judge("a/1", &hung), Judgement::OtherReason(reasons));
    assert_eq!(list.judge("b/2", &hung), Judgement::Listed);
    assert_eq!(list.judge("b/3", &hung), Judgement::NotListed);
    assert!(list.expects_failure("a/xyz") && !list.expects_failure("a"));
    let patterns = |ids: &[&str]| -> Vec<String> {
        let unmatched = list.unmatched(ids.iter().copied());
        unmatched.iter().map(|e| e.pattern.to_string()).collect()
    };
    assert_eq!(patterns(&["a/1"]), ["b/2"]);
    assert_eq!(patterns(&["a/x"]), ["a/1", "re:^a/[0-9]$", "a/1", "b/2"]);
}

#[test]
fn a_baseline_of_many_ids_finds_each_and_only_those() {
    let ids: Vec<String> = (0..20_000).map(|i| format!("gen/s1/{i}")).collect();
    let mut text: String = ids
        .iter()
        .map(|id| format!("{id}  reason=values\n"))
        .collect();
    text.push_str("other/*\n");
    let list = XfailList::parse(&text).unwrap();
    assert_eq!(list.len(), 20_001);
    assert!(ids.iter().all(|id| list.expects_failure(id)));
    assert!(!list.expects_failure("gen/s1/20000") && !list.expects_failure("gen/s1/1*"));
    let half: Vec<&str> = ids.iter().step_by(2).map(String::as_str).collect();
    let unmatched = list.unmatched(half.iter().copied());
    assert_eq!(unmatched.len(), 10_001);
    let first = unmatched.first().map(|e| e.pattern.to_string());
    assert_eq!(first.as_deref(), Some("gen/s1/1"));
    let last = unmatched.last().map(|e| (e.pattern.to_string(), e.line));
    assert_eq!(last, Some(("other/*".to_string(), 20_001)));
}

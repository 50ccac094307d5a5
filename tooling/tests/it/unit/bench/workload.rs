//! `bench::workload`: the rows of the benchmark, their storages, and what a selection keeps.

use bcast_tooling::bench::workload::{select, workloads, Arg, Dt, Layout, Selection, Write};

#[test]
fn storage_shapes_invert_the_view() {
    let a = Arg::Tensor {
        shape: vec![64, 256, 128],
        dtype: Dt::F32,
        layout: Layout::Permuted(vec![2, 0, 1]),
    };
    // storage (256,128,64).permute(2,0,1) has shape (64,256,128).
    assert_eq!(a.storage_shape(), vec![256, 128, 64]);
    let cl = Arg::Tensor {
        shape: vec![2, 3, 4, 5],
        dtype: Dt::F32,
        layout: Layout::ChannelsLast,
    };
    assert_eq!(cl.storage_shape(), vec![2, 4, 5, 3]);
}

fn groups(names: &[&str]) -> Selection {
    Selection {
        groups: names.iter().map(|&g| g.into()).collect(),
        patterns: Vec::new(),
        rows: Vec::new(),
        dtypes: Vec::new(),
        writes: vec![Write::Alloc, Write::Out, Write::InPlace],
    }
}

#[test]
fn patterns_are_rows_in_four_dtypes() {
    let rows = select(&Selection {
        patterns: vec!["issue-57611".into(), "inplace-bias".into()],
        dtypes: vec!["float32".into(), "int32".into()],
        ..groups(&[])
    })
    .unwrap();
    let labels: Vec<(&str, &str)> = rows
        .iter()
        .map(|w| (w.label.as_str(), w.write.name()))
        .collect();
    assert_eq!(
        labels,
        [
            ("(1,32,32,2) - (1024,1,1,2)", "alloc"),
            ("(1,32,32,2) - (1024,1,1,2)", "out="),
            ("x(16384,1024).add_((1024,))", "in-place"),
            ("int32 (1,32,32,2) - (1024,1,1,2)", "alloc"),
            ("int32 (1,32,32,2) - (1024,1,1,2)", "out="),
            ("int32 x(16384,1024).add_((1024,))", "in-place"),
        ]
    );
    assert!(rows.iter().all(|w| w.group == "pattern"));
    assert_eq!(rows[0].args[1], Arg::t(&[1024, 1, 1, 2], Dt::F32));
    // The transposed pattern's first operand is a (4096,4096) storage seen transposed.
    let t = &select(&Selection {
        patterns: vec!["transposed".into()],
        ..groups(&[])
    })
    .unwrap()[0];
    assert_eq!(t.args[0].view_perm(), Some(vec![1, 0]));
    assert_eq!(t.args[0].storage_shape(), [4096, 4096]);
    let n = |what: &str| {
        select(&Selection {
            patterns: vec![what.into()],
            ..groups(&[])
        })
    };
    assert_eq!(n("bias").unwrap().len(), 8);
    assert!(n("nope")
        .unwrap_err()
        .starts_with("no pattern named nope (same, bias,"));
}

#[test]
fn dtypes_select_by_the_first_operand() {
    let rows = select(&Selection {
        dtypes: vec!["int64".into()],
        ..groups(&["mixed", "op"])
    })
    .unwrap();
    let labels: Vec<&str> = rows.iter().map(|w| w.label.as_str()).collect();
    assert_eq!(
        labels,
        [
            "int64 (4096,1024) == (1024,) -> bool",
            "int64 remainder((4096,1024), (1024,))",
            "int64 (4096,1024) * 2.5",
        ]
    );
    let bad = select(&Selection {
        dtypes: vec!["float8".into()],
        ..groups(&[])
    });
    assert!(bad
        .unwrap_err()
        .starts_with("no dtype named float8 (bool, uint8,"));
}

#[test]
fn groups_are_checked() {
    assert!(select(&groups(&["nope"])).is_err());
    let tiny = select(&groups(&["tiny"])).unwrap();
    assert!(!tiny.is_empty() && tiny.iter().all(|w| w.group == "tiny"));
    assert_eq!(select(&groups(&[])).unwrap().len(), workloads().len());
}

#[test]
fn rows_and_writes_narrow_the_selection() {
    let all = workloads();
    let label = "channels-last (32,64,64,64) * (64,1,1)";
    let both = select(&Selection {
        rows: vec![label.into()],
        ..groups(&[])
    })
    .unwrap();
    let want: Vec<_> = all.iter().filter(|w| w.label == label).collect();
    assert_eq!(both.len(), want.len());
    assert!(both.len() == 2 && both.iter().all(|w| w.label == label));
    let out = select(&Selection {
        rows: vec![label.into()],
        writes: vec![Write::Out],
        ..groups(&[])
    })
    .unwrap();
    assert!(out.len() == 1 && out[0].write == Write::Out);
    // Either of two parts keeps a row; a part no label has keeps nothing, an error.
    let two = select(&Selection {
        rows: vec!["sum(-1".into(), "channels-last".into()],
        ..groups(&[])
    })
    .unwrap();
    let expected = all
        .iter()
        .filter(|w| w.label.contains("sum(-1") || w.label.contains("channels-last"))
        .count();
    assert_eq!(two.len(), expected);
    assert!(select(&Selection {
        rows: vec!["no such row".into()],
        ..groups(&[])
    })
    .is_err());
    // `--no-alloc --no-out` keeps the in-place rows alone.
    let in_place = select(&Selection {
        writes: vec![Write::InPlace],
        ..groups(&[])
    })
    .unwrap();
    assert_eq!(in_place.len(), 4);
}

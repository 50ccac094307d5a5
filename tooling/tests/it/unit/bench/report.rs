//! `bench::report`: a table's rows, ratios and geometric means as markdown.

use bcast_tooling::bench::report::render_table;
use bcast_tooling::bench::timer::Schedule;
use bcast_tooling::bench::workload::{workloads, Write};
use bcast_tooling::bench::{Row, Table};

#[test]
fn tables_show_ratios_and_their_means() {
    let all = workloads();
    let find = |label: &str, write| {
        all.iter()
            .find(|w| w.label == label && w.write == write)
            .expect("a row")
            .clone()
    };
    let row = |workload, seconds: Vec<Option<f64>>| Row {
        workload,
        seconds,
        bytes: 1 << 20,
        mismatch: None,
    };
    let bias = "(16384,1024) + (1024,)";
    let table = Table {
        threads: 1,
        schedule: Schedule::Rounds,
        peers: vec![("engine", 1), ("torch", 1)],
        copy_alloc: 0.01,
        copy_out: 0.005,
        copy_bytes: 1 << 27,
        rows: vec![
            row(find(bias, Write::Alloc), vec![Some(0.001), Some(0.004)]),
            row(find(bias, Write::Out), vec![Some(0.002), None]),
            row(
                find("(4,) + (4,)", Write::Alloc),
                vec![Some(2e-6), Some(1e-6)],
            ),
            Row {
                mismatch: Some("engine and torch disagree".into()),
                ..row(find("(16,).sum()", Write::Alloc), vec![None, None])
            },
        ],
    };
    let text = render_table(&table);
    assert!(
        text.starts_with("#### 1 thread(s) asked for (threads used: engine 1, torch 1; calls rounds)\n\nCopy ceiling, 64 MiB float32 (read + write 134 MB): into new memory 10.00 ms = 13.4 GB/s; into existing memory 5.00 ms = 26.8 GB/s.\n"),
        "{text}"
    );
    let lines = [
        "| group | workload | variant | engine | torch | engine GB/s | % of copy | torch / engine |",
        "| pattern | `(16384,1024) + (1024,)` | alloc | 1.00 ms | 4.00 ms | 1.0 | 8% | 4.00x |",
        "| pattern | `(16384,1024) + (1024,)` | out= | 2.00 ms | n/a | 0.5 | 2% | n/a |",
        "| tiny | `(4,) + (4,)` | alloc | 2.00 µs | 1.00 µs | 524.3 | 3906% | 0.50x |",
        "| tiny | `(16,).sum()` | alloc | n/a | n/a | n/a | n/a | n/a | not timed: engine and torch disagree",
        "| geometric mean | group pattern | | | | | | **4.00x** (1) |",
        "| geometric mean | group tiny | | | | | | **0.50x** (1) |",
        "| geometric mean | write alloc | | | | | | **1.41x** (2) |",
        "| geometric mean | write out= | | | | | | n/a |",
        "| geometric mean | all rows | | | | | | **1.41x** (2) |",
    ];
    for line in lines {
        assert!(text.contains(&format!("{line}\n")), "{line}\n{text}");
    }
    // Every row is float32: no means by dtype.
    assert!(!text.contains("| dtype "), "{text}");
}

//! The benchmark's tables, in Markdown: per row the median time of each implementation, the
//! engine's bandwidth (bytes read and written per second) and its share of the copy ceiling,
//! and the engine's speedup over each peer (peer time / engine time), with geometric means by
//! group, dtype and write where a table has more than one of them, and over all rows (when
//! there are peers).

use super::workload::{Workload, Write};
use super::{Row, Table};
use std::fmt::Write as _;

/// The geometric mean of `values` (NaN when empty).
///
/// ```
/// # use bcast_tooling::bench::report::geomean;
/// assert!((geomean(&[2.0, 8.0]) - 4.0).abs() < 1e-12);
/// ```
pub fn geomean(values: &[f64]) -> f64 {
    if values.is_empty() {
        return f64::NAN;
    }
    (values.iter().map(|v| v.ln()).sum::<f64>() / values.len() as f64).exp()
}

/// A time as the table shows it: microseconds below a millisecond.
///
/// ```
/// use bcast_tooling::bench::report::time;
/// assert_eq!(time(Some(2.5e-6)), "2.50 µs");
/// assert_eq!(time(Some(0.0123)), "12.30 ms");
/// assert_eq!(time(None), "n/a");
/// ```
pub fn time(t: Option<f64>) -> String {
    match t {
        None => "n/a".into(),
        Some(t) if t < 1e-3 => format!("{:.2} µs", t * 1e6),
        Some(t) => format!("{:.2} ms", t * 1e3),
    }
}

fn gbps(bytes: usize, seconds: f64) -> f64 {
    bytes as f64 / seconds / 1e9
}

/// The engine's speedup over peer `k` on `row`: the peer's time over the engine's.
fn speedup(row: &Row, k: usize) -> Option<f64> {
    match (row.seconds.first().copied().flatten(), row.seconds[k]) {
        (Some(engine), Some(peer)) => Some(peer / engine),
        _ => None,
    }
}

/// A row's value of a key the means are taken by.
type Key = fn(&Workload) -> String;

/// The keys the means are taken by, by name.
const BREAKDOWNS: [(&str, Key); 3] = [
    ("group", |w| w.group.to_string()),
    ("dtype", |w| {
        w.dtype().map_or("number".into(), |d| d.name().into())
    }),
    ("write", |w| w.write.name().to_string()),
];

/// One table as Markdown.
pub fn render_table(table: &Table) -> String {
    let mut s = String::new();
    let who: Vec<String> = table
        .peers
        .iter()
        .map(|(name, n)| format!("{name} {n}"))
        .collect();
    let _ = writeln!(
        s,
        "#### {} thread(s) asked for (threads used: {}; calls {})\n",
        table.threads,
        who.join(", "),
        table.schedule.name()
    );
    let _ = writeln!(
        s,
        "Copy ceiling, 64 MiB float32 (read + write {} MB): into new memory {:.2} ms = {:.1} GB/s; into existing memory {:.2} ms = {:.1} GB/s.\n",
        table.copy_bytes / 1_000_000,
        table.copy_alloc * 1e3,
        gbps(table.copy_bytes, table.copy_alloc),
        table.copy_out * 1e3,
        gbps(table.copy_bytes, table.copy_out),
    );
    let others: Vec<(usize, &str)> = table
        .peers
        .iter()
        .enumerate()
        .skip(1)
        .map(|(k, (n, _))| (k, *n))
        .collect();
    let mut header = "| group | workload | variant | engine |".to_string();
    let mut rule = "| --- | --- | --- | ---: |".to_string();
    for (_, name) in &others {
        let _ = write!(header, " {name} |");
        rule.push_str(" ---: |");
    }
    header.push_str(" engine GB/s | % of copy |");
    rule.push_str(" ---: | ---: |");
    for (_, name) in &others {
        let _ = write!(header, " {name} / engine |");
        rule.push_str(" ---: |");
    }
    let _ = writeln!(s, "{header}\n{rule}");
    for row in &table.rows {
        let w = &row.workload;
        let engine = row.seconds[0];
        let _ = write!(
            s,
            "| {} | `{}` | {} | {} |",
            w.group,
            w.label,
            w.write.name(),
            time(engine)
        );
        for &(k, _) in &others {
            let _ = write!(s, " {} |", time(row.seconds[k]));
        }
        let ceiling = match w.write {
            Write::Alloc => table.copy_alloc,
            Write::Out | Write::InPlace => table.copy_out,
        };
        match engine {
            Some(t) => {
                let _ = write!(
                    s,
                    " {:.1} | {:.0}% |",
                    gbps(row.bytes, t),
                    100.0 * gbps(row.bytes, t) / gbps(table.copy_bytes, ceiling)
                );
            }
            None => s.push_str(" n/a | n/a |"),
        }
        for &(k, _) in &others {
            let _ = write!(
                s,
                " {} |",
                speedup(row, k).map_or("n/a".into(), |r| format!("{r:.2}x"))
            );
        }
        if let Some(m) = &row.mismatch {
            let _ = write!(s, " not timed: {m}");
        }
        s.push('\n');
    }
    let mut means = |label: String, rows: Vec<&Row>| {
        let _ = write!(s, "| geometric mean | {label} | | |");
        for _ in &others {
            s.push_str(" |");
        }
        s.push_str(" | |");
        for &(k, _) in &others {
            let ratios: Vec<f64> = rows.iter().filter_map(|r| speedup(r, k)).collect();
            if ratios.is_empty() {
                s.push_str(" n/a |");
            } else {
                let _ = write!(s, " **{:.2}x** ({}) |", geomean(&ratios), ratios.len());
            }
        }
        s.push('\n');
    };
    if others.is_empty() {
        return s;
    }
    for (key, of) in BREAKDOWNS {
        let mut values: Vec<String> = Vec::new();
        for row in &table.rows {
            let v = of(&row.workload);
            if !values.contains(&v) {
                values.push(v);
            }
        }
        if values.len() < 2 {
            continue;
        }
        for v in values {
            let rows = table.rows.iter().filter(|r| of(&r.workload) == v);
            means(format!("{key} {v}"), rows.collect());
        }
    }
    means("all rows".into(), table.rows.iter().collect());
    s
}

/// Every table, one after the other.
pub fn render(tables: &[Table]) -> String {
    tables
        .iter()
        .map(render_table)
        .collect::<Vec<_>>()
        .join("\n")
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::bench::timer::Schedule;
    use crate::bench::workload::workloads;

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
}

//! The broad suite's tables, in Markdown: per workload the median time of each
//! implementation, the engine's bandwidth and share of the copy ceiling, and the engine's
//! speedup over each peer (peer time / engine time), with geometric means per group and over
//! all rows.

use super::workload::Write;
use super::{WorkRow, WorkTable};
use crate::bench::report::geomean;
use std::fmt::Write as _;

/// A time as the table shows it: microseconds below a millisecond.
///
/// ```
/// use bcast_tooling::bench::broad::report::time;
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

fn speedup(row: &WorkRow, k: usize) -> Option<f64> {
    match (row.seconds.first().copied().flatten(), row.seconds[k]) {
        (Some(engine), Some(peer)) => Some(peer / engine),
        _ => None,
    }
}

/// One table as Markdown.
pub fn render_table(table: &WorkTable) -> String {
    let mut s = String::new();
    let who: Vec<String> = table
        .peers
        .iter()
        .map(|(name, n)| format!("{name} {n}"))
        .collect();
    let _ = writeln!(
        s,
        "#### Broad suite, {} thread(s) asked for (threads used: {}; calls {})\n",
        table.threads,
        who.join(", "),
        table.schedule.name()
    );
    let gbps = |bytes: usize, t: f64| bytes as f64 / t / 1e9;
    let _ = writeln!(
        s,
        "Copy ceiling, 64 MiB float32: into new memory {:.1} GB/s, into existing memory {:.1} GB/s.\n",
        gbps(table.copy_bytes, table.copy_alloc),
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
            Write::Out => table.copy_out,
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
    let mut groups: Vec<&str> = Vec::new();
    for row in &table.rows {
        if !groups.contains(&row.workload.group) {
            groups.push(row.workload.group);
        }
    }
    let mut means = |label: String, rows: Vec<&WorkRow>| {
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
    for g in &groups {
        means(
            (*g).to_string(),
            table
                .rows
                .iter()
                .filter(|r| r.workload.group == *g)
                .collect(),
        );
    }
    means("all rows".into(), table.rows.iter().collect());
    s
}

/// Every table, one after the other.
pub fn render(tables: &[WorkTable]) -> String {
    tables
        .iter()
        .map(render_table)
        .collect::<Vec<_>>()
        .join("\n")
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::bench::broad::workload::workloads;

    #[test]
    fn tables_show_ratios_and_group_means() {
        let all = workloads();
        let row = |k: usize, seconds: Vec<Option<f64>>| WorkRow {
            workload: all[k].clone(),
            seconds,
            bytes: 1 << 20,
            mismatch: None,
        };
        let table = WorkTable {
            threads: 1,
            schedule: crate::bench::Schedule::Rounds,
            peers: vec![("engine", 1), ("torch", 1)],
            copy_alloc: 0.01,
            copy_out: 0.01,
            copy_bytes: 1 << 27,
            rows: vec![
                row(0, vec![Some(0.001), Some(0.004)]),
                row(1, vec![Some(0.002), None]),
            ],
        };
        let text = render_table(&table);
        assert!(
            text.contains("| 1.00 ms | 4.00 ms | 1.0 | 8% | 4.00x |"),
            "{text}"
        );
        assert!(
            text.contains("| 2.00 ms | n/a | 0.5 | 4% | n/a |"),
            "{text}"
        );
        assert!(
            text.contains("| geometric mean | dtype | | | | | | **4.00x** (1) |"),
            "{text}"
        );
    }
}

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

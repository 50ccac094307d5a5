//! The benchmark's tables, in Markdown: per pattern the median time, the bandwidth (bytes
//! read and written per second), its share of the copy ceiling, and the engine's speedup
//! over each peer (peer time / engine time), with their geometric means.

use super::pattern::Variant;
use super::{Row, Table};
use std::fmt::Write;

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
        "#### {}, {} thread(s) asked for (threads used: {}; calls {})\n",
        table.dtype.name(),
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
    let mut header = "| pattern | variant | engine ms | engine GB/s | % of copy |".to_string();
    let mut rule = "| --- | --- | ---: | ---: | ---: |".to_string();
    for (_, name) in &others {
        let _ = write!(header, " {name} ms | {name} GB/s |");
        rule.push_str(" ---: | ---: |");
    }
    for (_, name) in &others {
        let _ = write!(header, " {name} / engine |");
        rule.push_str(" ---: |");
    }
    let _ = writeln!(s, "{header}\n{rule}");
    let ms = |t: Option<f64>| t.map_or("n/a".to_string(), |t| format!("{:.2}", t * 1e3));
    for row in &table.rows {
        let bytes = row.pattern.bytes(row.dtype);
        let ceiling = match row.variant {
            Variant::Alloc => table.copy_alloc,
            Variant::Out | Variant::InPlace => table.copy_out,
        };
        let engine = row.seconds[0];
        let _ = write!(
            s,
            "| `{}` | {} | {} | {} | {} |",
            row.pattern.label,
            row.variant.name(),
            ms(engine),
            engine.map_or("n/a".into(), |t| format!("{:.1}", gbps(bytes, t))),
            engine.map_or("n/a".into(), |t| format!(
                "{:.0}%",
                100.0 * gbps(bytes, t) / gbps(table.copy_bytes, ceiling)
            )),
        );
        for &(k, _) in &others {
            let t = row.seconds[k];
            let _ = write!(
                s,
                " {} | {} |",
                ms(t),
                t.map_or("n/a".into(), |t| format!("{:.1}", gbps(bytes, t)))
            );
        }
        for &(k, _) in &others {
            let _ = write!(
                s,
                " {} |",
                speedup(row, k).map_or("n/a".into(), |r| format!("{r:.2}x"))
            );
        }
        s.push('\n');
    }
    let groups = [
        ("geometric mean", None),
        ("geometric mean, alloc", Some(true)),
        ("geometric mean, out= and in-place", Some(false)),
    ];
    for (label, alloc) in groups {
        let rows: Vec<&Row> = table
            .rows
            .iter()
            .filter(|r| alloc.is_none_or(|a| a == (r.variant == Variant::Alloc)))
            .collect();
        if rows.is_empty() {
            continue;
        }
        let _ = write!(s, "| {label} | | | | |");
        for _ in &others {
            s.push_str(" | |");
        }
        for &(k, _) in &others {
            let ratios: Vec<f64> = rows.iter().filter_map(|r| speedup(r, k)).collect();
            if ratios.is_empty() {
                s.push_str(" n/a |");
            } else {
                let _ = write!(s, " **{:.2}x** |", geomean(&ratios));
            }
        }
        s.push('\n');
    }
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
    use crate::bench::pattern::{BenchDType, PATTERNS};

    #[test]
    fn tables_show_speedups_and_their_means() {
        let row = |k: usize, variant, seconds: Vec<Option<f64>>| Row {
            pattern: PATTERNS[k],
            variant,
            dtype: BenchDType::Float32,
            seconds,
        };
        let table = Table {
            threads: 1,
            schedule: crate::bench::Schedule::Rounds,
            dtype: BenchDType::Float32,
            peers: vec![("engine", 1), ("torch", 1)],
            copy_alloc: 0.01,
            copy_out: 0.005,
            copy_bytes: 1 << 27,
            rows: vec![
                row(0, Variant::Alloc, vec![Some(0.01), Some(0.04)]),
                row(0, Variant::Out, vec![Some(0.01), Some(0.01)]),
                row(6, Variant::Out, vec![Some(0.02), None]),
            ],
        };
        let text = render_table(&table);
        assert!(
            text.starts_with("#### float32, 1 thread(s) asked for"),
            "{text}"
        );
        assert!(
            text.contains(
                "| `(16M,) + (16M,)` | alloc | 10.00 | 20.1 | 150% | 40.00 | 5.0 | 4.00x |"
            ),
            "{text}"
        );
        assert!(
            text.contains("| 20.00 | 10.1 | 38% | n/a | n/a | n/a |"),
            "{text}"
        );
        assert!(
            text.contains("| geometric mean | | | | | | | **2.00x** |"),
            "{text}"
        );
        assert!(
            text.contains("| geometric mean, alloc | | | | | | | **4.00x** |"),
            "{text}"
        );
        assert!(
            text.contains("| geometric mean, out= and in-place | | | | | | | **1.00x** |"),
            "{text}"
        );
    }
}

//! `bcast-dev bench`: times the engine, libtorch (feature `torch`) and ndarray (feature
//! `ndarray`) on the benchmark's rows and prints Markdown tables.

use crate::bench::timer::Schedule;
use crate::bench::workload::{select, suite_groups, Selection, Write};
use crate::bench::{report, run_bench, BenchConfig};
use clap::Args;
use std::process::ExitCode;

/// Arguments of `bcast-dev bench`.
#[derive(Debug, Args)]
pub struct BenchArgs {
    /// Which rows: `patterns` (the eight broadcasting patterns in float32, float16, bfloat16
    /// and int32), `broad` (every op family, dtype, mixed dtypes, reductions, layouts, sizes,
    /// tiny calls, outputs no input shapes and three-operand ops) or `all`. One table per thread count either way.
    #[arg(long, default_value = "patterns")]
    pub suite: String,
    /// Groups of the suite by name (default: all of them): pattern (the patterns suite); dtype,
    /// size, tiny, op, mixed, reduce, layout, outer, ternary (the broad suite).
    #[arg(long, value_delimiter = ',')]
    pub groups: Vec<String>,
    /// Keep the rows whose label contains this text (repeat for more; default: all), to run
    /// one row alone, for instance under a profiler.
    #[arg(long = "row")]
    pub rows: Vec<String>,
    /// Thread counts, one table each (0 means every core) [default: 1 and every core; with
    /// the broad rows: 1, 2 and every core].
    #[arg(long, value_delimiter = ',')]
    pub threads: Vec<usize>,
    /// Timed calls per implementation and row.
    #[arg(long, default_value_t = 21)]
    pub reps: usize,
    /// Untimed calls per implementation before timing.
    #[arg(long, default_value_t = 3)]
    pub warmup: usize,
    /// Patterns by name (default: all): same, bias, channel, outer, small-inner,
    /// issue-57611, transposed, inplace-bias.
    #[arg(long, value_delimiter = ',')]
    pub patterns: Vec<String>,
    /// Keep the rows whose first operand has one of these dtypes (default: all): bool, uint8,
    /// int32, int64, float16, bfloat16, float32, float64. The patterns are in float32,
    /// float16, bfloat16 and int32.
    #[arg(long, value_delimiter = ',')]
    pub dtypes: Vec<String>,
    /// Peers by name (default: every one compiled in): torch, ndarray. The engine always runs.
    #[arg(long, value_delimiter = ',')]
    pub peers: Vec<String>,
    /// Run libtorch with THP_MEM_ALLOC_ENABLE=1: its allocator then asks for transparent huge
    /// pages on large allocations, as the engine does (off by default in torch).
    #[arg(long)]
    pub torch_huge_pages: bool,
    /// How the implementations' timed calls follow each other: `rounds` (one call of each per
    /// round, each finding the others' data in the caches and their idle threads perhaps
    /// still spinning) or `apart` (the same rounds, but each timed call after 30 ms of
    /// untimed calls of its own, so it has the machine to itself).
    #[arg(long, default_value = "rounds")]
    pub schedule: String,
    /// Skip the `out=` rows.
    #[arg(long)]
    pub no_out: bool,
    /// Skip the allocating rows.
    #[arg(long)]
    pub no_alloc: bool,
}

/// Runs `bcast-dev bench`.
///
/// # Errors
/// A name the benchmark does not have, a selection that keeps no row, or rows whose results
/// differ between implementations (after the tables are printed).
pub fn bench(args: BenchArgs) -> Result<ExitCode, String> {
    let suite = suite_groups(&args.suite)?;
    if let Some(g) = args.groups.iter().find(|g| !suite.contains(&g.as_str())) {
        return Err(format!(
            "no group named {g} in the {} suite ({})",
            args.suite,
            suite.join(", ")
        ));
    }
    let groups = if args.groups.is_empty() {
        suite.iter().map(|g| g.to_string()).collect()
    } else {
        args.groups
    };
    let broad = groups.iter().any(|g| g != "pattern");
    let writes = [
        (Write::Alloc, !args.no_alloc),
        (Write::Out, !args.no_out),
        (Write::InPlace, true),
    ];
    let workloads = select(&Selection {
        groups,
        patterns: args.patterns,
        rows: args.rows,
        dtypes: args.dtypes,
        writes: writes
            .iter()
            .filter(|(_, on)| *on)
            .map(|(w, _)| *w)
            .collect(),
    })?;
    let cores = std::thread::available_parallelism().map_or(1, |n| n.get());
    let mut threads: Vec<usize> = args
        .threads
        .iter()
        .map(|&n| if n == 0 { cores } else { n })
        .collect();
    if threads.is_empty() {
        threads = if broad {
            vec![1, 2, cores]
        } else {
            vec![1, cores]
        };
        threads.sort_unstable();
        threads.dedup();
    }
    let schedule = Schedule::from_name(&args.schedule)
        .ok_or_else(|| format!("no schedule named {} (rounds, apart)", args.schedule))?;
    let config = BenchConfig {
        threads,
        reps: args.reps.max(1),
        warmup: args.warmup,
        peers: args.peers,
        torch_huge_pages: args.torch_huge_pages,
        schedule,
    };
    let tables = run_bench(&config, &workloads, |what| eprintln!("bench: {what}"));
    println!("{}", report::render(&tables));
    let untimed = tables
        .iter()
        .flat_map(|t| &t.rows)
        .filter(|r| r.mismatch.is_some())
        .count();
    if untimed > 0 {
        return Err(format!(
            "{untimed} row(s) not timed: the implementations' results differ (see the tables)"
        ));
    }
    Ok(ExitCode::SUCCESS)
}

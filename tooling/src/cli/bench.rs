//! `bcast-dev bench`: times the engine, libtorch (feature `torch`) and ndarray (feature
//! `ndarray`) on broadcasting patterns and prints Markdown tables.

use crate::bench::pattern::{Variant, DTYPES, PATTERNS};
use crate::bench::{broad, report, run_bench, BenchConfig, Schedule};
use clap::Args;
use std::process::ExitCode;

/// Arguments of `bcast-dev bench`.
#[derive(Debug, Args)]
pub struct BenchArgs {
    /// Which suite: `patterns` (the eight float32-shaped broadcasting patterns, one table per
    /// dtype) or `broad` (every op family, dtype, mixed dtypes, reductions, layouts, sizes
    /// and tiny calls; one table per thread count).
    #[arg(long, default_value = "patterns")]
    pub suite: String,
    /// Broad suite only: workload groups by name (default: all): dtype, size, tiny, op, mixed,
    /// reduce, layout.
    #[arg(long, value_delimiter = ',')]
    pub groups: Vec<String>,
    /// Broad suite only: keep the workloads whose label contains this text (repeat for more;
    /// default: all), to run one row alone, for instance under a profiler.
    #[arg(long = "row")]
    pub rows: Vec<String>,
    /// Thread counts, one table each (0 means every core) [default: 1 and every core; the
    /// broad suite: 1, 2 and every core].
    #[arg(long, value_delimiter = ',')]
    pub threads: Vec<usize>,
    /// Timed calls per implementation, pattern and variant.
    #[arg(long, default_value_t = 21)]
    pub reps: usize,
    /// Untimed calls per implementation before timing.
    #[arg(long, default_value_t = 3)]
    pub warmup: usize,
    /// Patterns by name (default: all): same, bias, channel, outer, small-inner,
    /// issue-57611, transposed, inplace-bias.
    #[arg(long, value_delimiter = ',')]
    pub patterns: Vec<String>,
    /// Element types by name (default: all): float32, float16, bfloat16, int32; one table
    /// each per thread count.
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
    /// Skip the `out=` variants (of either suite).
    #[arg(long)]
    pub no_out: bool,
    /// Skip the allocating variants (of either suite).
    #[arg(long)]
    pub no_alloc: bool,
}

/// Runs `bcast-dev bench`.
pub fn bench(args: BenchArgs) -> Result<ExitCode, String> {
    let cores = std::thread::available_parallelism().map_or(1, |n| n.get());
    let mut threads: Vec<usize> = args
        .threads
        .iter()
        .map(|&n| if n == 0 { cores } else { n })
        .collect();
    if threads.is_empty() {
        threads = if args.suite == "broad" {
            vec![1, 2, cores]
        } else {
            vec![1, cores]
        };
        threads.sort_unstable();
        threads.dedup();
    }
    let patterns = if args.patterns.is_empty() {
        PATTERNS.to_vec()
    } else {
        args.patterns
            .iter()
            .map(|n| {
                PATTERNS
                    .iter()
                    .find(|p| p.name == n)
                    .copied()
                    .ok_or_else(|| format!("no pattern named {n}"))
            })
            .collect::<Result<_, _>>()?
    };
    let dtypes = if args.dtypes.is_empty() {
        DTYPES.to_vec()
    } else {
        args.dtypes
            .iter()
            .map(|n| {
                DTYPES
                    .iter()
                    .find(|d| d.name() == n)
                    .copied()
                    .ok_or_else(|| {
                        format!("no dtype named {n} (float32, float16, bfloat16, int32)")
                    })
            })
            .collect::<Result<_, _>>()?
    };
    let mut variants = Vec::new();
    if !args.no_alloc {
        variants.push(Variant::Alloc);
    }
    if !args.no_out {
        variants.push(Variant::Out);
    }
    let schedule = Schedule::from_name(&args.schedule)
        .ok_or_else(|| format!("no schedule named {} (rounds, apart)", args.schedule))?;
    let config = BenchConfig {
        threads,
        reps: args.reps.max(1),
        warmup: args.warmup,
        patterns,
        variants,
        dtypes,
        peers: args.peers,
        torch_huge_pages: args.torch_huge_pages,
        schedule,
    };
    match args.suite.as_str() {
        "patterns" => {}
        "broad" => {
            // The same `--no-alloc` / `--no-out` choice as the patterns' variants.
            let writes = config
                .variants
                .iter()
                .filter_map(|v| match v {
                    Variant::Alloc => Some(broad::workload::Write::Alloc),
                    Variant::Out => Some(broad::workload::Write::Out),
                    Variant::InPlace => None,
                })
                .collect();
            let workloads = broad::workload::select(&broad::workload::Selection {
                groups: args.groups,
                rows: args.rows,
                writes,
            })?;
            let tables = broad::run_broad(&config, &workloads, |what| eprintln!("bench: {what}"));
            println!("{}", broad::report::render(&tables));
            return Ok(ExitCode::SUCCESS);
        }
        other => return Err(format!("no suite named {other} (patterns, broad)")),
    }
    let tables = run_bench(&config, |what| eprintln!("bench: {what}"))?;
    println!("{}", report::render(&tables));
    Ok(ExitCode::SUCCESS)
}

//! Which values of a large result a case keeps: the sampling positions, the same in Rust
//! and Python (`python/bcast_suite/casefmt.py`), pinned by `conformance/tests/data/fill_vectors.json`.

/// Results with more elements than this keep sampled values.
pub const MAX_FULL_VALUES: usize = 4096;
/// How many values a sampled result keeps.
pub const SAMPLE_COUNT: usize = 64;

/// The flat positions kept for a large result: 64 evenly spread, first and last included,
/// rounded half-to-even as Python's `round` does (and kept below `numel` where a huge
/// `numel - 1` rounds up as a float). `None` when all values are kept.
///
/// ```
/// # use bcast_case::sample_positions;
/// assert_eq!(sample_positions(10), None);
/// let p = sample_positions(10_000).unwrap();
/// assert_eq!((p[0], p[p.len() - 1], p.len()), (0, 9_999, 64));
/// ```
pub fn sample_positions(numel: usize) -> Option<Vec<usize>> {
    if numel <= MAX_FULL_VALUES {
        return None;
    }
    let step = (numel - 1) as f64 / (SAMPLE_COUNT - 1) as f64;
    let mut p: Vec<usize> = (0..SAMPLE_COUNT)
        .map(|i| ((i as f64 * step).round_ties_even() as usize).min(numel - 1))
        .collect();
    p.dedup();
    Some(p)
}

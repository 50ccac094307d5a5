//! The integration tests of `bcast-fuzzing`, one module a subject, in one test binary
//! (one binary links once, where a file a test would link every one of them).

mod fixture_write;
mod fuzz_regressions;
mod generator_consistency;
mod grad_generator;
mod grad_oracles;
mod oracles;
mod plan_matches_index_map;
mod promotion;
mod shrink_planted;
mod tch_diff;
mod unit;

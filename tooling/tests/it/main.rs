//! The integration tests of `bcast-tooling`, one module a subject, in one test binary
//! (one binary links once, where a file a test would link every one of them).

mod dev;
mod docs;
mod readme_counts;
mod unit;

//! The integration tests of `bcast-case`, one module a subject, in one test binary
//! (one binary links once, where a file a test would link every one of them).

mod dtypes;
mod numbers;

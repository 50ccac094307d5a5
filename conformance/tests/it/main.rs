//! The integration tests of `bcast-conformance`, one module a subject, in one test binary
//! (one binary links once, where a file a test would link every one of them).

mod adapter_processes;
mod adapters;
mod elementwise_messages;
mod fill_vectors;
mod fixtures;
mod messages;
mod protocol;
mod reports;
mod tch;
mod xfail;

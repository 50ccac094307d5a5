//! The integration tests of `bcast-corpus`, one module a subject, in one test binary.

mod embedded;

//! The integration tests of `bcast-cli`, one module a subject, in one test binary
//! (one binary links once, where a file a test would link every one of them).

mod cli;
mod complex32;
mod corpus;
mod diff;
mod gate;
mod html;
mod jobs;
mod op_catalogue;
mod trust;

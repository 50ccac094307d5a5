//! The integration tests of `bcast-engine`, one module a subject, in one test binary
//! (one binary links once, where a file a test would link every one of them).

mod api_messages;
mod autograd;
mod casts;
mod common;
mod complex_special;
mod einsum_oracle;
mod elementwise_dtypes;
mod long_plans_match_index_map;
mod matmul_dtypes;
mod matmul_oracle;
mod negative_sizes;
mod reduce_dtypes;
mod reduce_oracle;
mod reduced_pow;
mod result_type;
mod tables;
mod unit;

//! The case model of the bcast conformance suite: what a fixture case is, how it is loaded and
//! validated, the op catalogue, the check levels, how an outcome is compared with torch's, and
//! the [`Backend`] trait. A tensor implementation written in Rust depends on this crate alone
//! to be gated (the runner, its CLI and the reference engine live in `bcast-conformance`).
//!
//! ```
//! use bcast_case::{compare_case, Backend, BackendFailure, Capabilities, Case, Level, Outcome};
//!
//! /// A backend that knows only `Tensor.numel`.
//! struct Numel;
//! impl Backend for Numel {
//!     fn name(&self) -> String { "numel".into() }
//!     fn capabilities(&self) -> Capabilities {
//!         Capabilities {
//!             ops: Some(["Tensor.numel".to_string()].into()),
//!             dtypes: ["float32".to_string()].into(),
//!             levels: [Level::Shapes, Level::Values].into(),
//!             declines: Default::default(),
//!         }
//!     }
//!     fn run(&mut self, case: &Case) -> Result<Outcome, BackendFailure> {
//!         let t = &case.tensors["t"];
//!         let n: usize = t.shape.iter().product();
//!         Ok(serde_json::from_value(serde_json::json!({"ok": {"result": {"int": n}}})).unwrap())
//!     }
//! }
//! let case: Case = serde_json::from_str(r#"{"id": "n", "storages": {"s": {"dtype": "float32",
//!     "fill": {"kind": "arange", "len": 6}}}, "tensors": {"t": {"storage": "s", "shape": [2, 3],
//!     "strides": [3, 1]}}, "call": {"fn": "Tensor.numel", "args": [{"tensor": "t"}]},
//!     "expect": {"ok": {"result": {"int": 6}}}}"#).unwrap();
//! let got = Numel.run(&case).unwrap();
//! assert!(compare_case(&case, &got, &[Level::Shapes].into()).is_empty());
//! ```

#![warn(missing_docs)]

mod backend;
mod bounded;
pub mod compare;
mod dtype;
mod fill;
mod level;
mod load;
mod model;
mod number;
pub mod ops;
pub mod pyargs;
pub mod quote;
pub mod reflect;
mod sampling;
mod write;

pub use backend::{Backend, BackendFailure, Capabilities, Declines, FailureKind};
pub use bounded::{
    bounded_vec, clipped_string, dims_vec, results_vec, wide_offset, wide_samples, wide_shape,
    wide_strides, with_element_budget, BEYOND_I64, BEYOND_USIZE, MAX_DIMS, MAX_RESULT_TENSORS,
    MAX_TEXT_BYTES,
};
pub use compare::{compare_case, compare_outcomes, compare_outcomes_of, values_agree, Mismatch};
pub use dtype::{DType, ValueKind};
pub use fill::{fill_values, splitmix64};
pub use level::Level;
pub use load::{
    check_schema, check_unique_ids, checked_storage_values, derive_tags, fixture_files, load_dir,
    load_file, load_paths, load_text, read_header, required_len, schema_for, storage_dtype,
    storage_values, validate_case, FileHeader, LoadError, LoadedCase, HUGE_RESULT_ELEMENTS,
    HUGE_RESULT_TAG, MAX_FIXTURE_STORAGE,
};
pub use model::*;
pub use number::Num;
pub use sampling::{sample_positions, MAX_FULL_VALUES, SAMPLE_COUNT};
pub use write::fixture_json;

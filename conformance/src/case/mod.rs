//! The case model: what a fixture file holds (see `fixtures/README.md`), loading it, and
//! turning storages into values.

mod bounded;
mod fill;
mod load;
mod model;
mod number;
mod write;

pub use bounded::{
    bounded_vec, dims_vec, results_vec, with_element_budget, MAX_DIMS, MAX_RESULT_TENSORS,
};
pub use fill::{fill_values, splitmix64};
pub use load::{
    load_dir, load_file, load_paths, storage_dtype, storage_values, validate_case, LoadError,
    LoadedCase, MAX_FIXTURE_STORAGE,
};
pub use model::*;
pub use number::Num;
pub use write::fixture_json;

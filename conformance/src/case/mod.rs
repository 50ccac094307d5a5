//! The case model (crate `bcast-case`, re-exported here) and its bridge to the reference
//! engine: a storage's dtype as the engine's [`DType`](bcast_engine::DType), and element
//! values as engine [`Scalar`]s.

pub use bcast_case::{
    bounded_vec, dims_vec, fill_values, fixture_json, load_dir, load_file, load_paths,
    required_len, results_vec, splitmix64, storage_values, validate_case, with_element_budget, Arg,
    Call, Case, Claim, ClaimOutcome, DocClaim, ErrorOutcome, Fill, FillKind, FixtureFile,
    IndexItem, LoadError, LoadedCase, Num, OkOutcome, Outcome, ResultValue, Source, StorageSpec,
    TensorResult, TensorSpec, Tolerance, MAX_DIMS, MAX_FIXTURE_STORAGE, MAX_RESULT_TENSORS,
    SCHEMA_VERSION,
};

use bcast_engine::{DType, Scalar};

/// The engine dtype of a storage spec.
///
/// ```
/// use bcast_conformance::case::{storage_dtype, StorageSpec};
/// let spec: StorageSpec = serde_json::from_str(r#"{"dtype": "int64", "values": [1]}"#).unwrap();
/// assert_eq!(storage_dtype(&spec), Ok(bcast_engine::DType::Int64));
/// ```
pub fn storage_dtype(spec: &StorageSpec) -> Result<DType, String> {
    let dtype = bcast_case::storage_dtype(spec)?;
    DType::from_name(dtype.name())
        .ok_or_else(|| format!("dtype {} has no engine twin", dtype.name()))
}

/// Element values as engine scalars, and back.
///
/// ```
/// use bcast_conformance::case::{Num, NumScalar};
/// use bcast_engine::Scalar;
/// assert_eq!(Num::Int(3).to_scalar(), Scalar::Int(3));
/// assert_eq!(Num::from_scalar(Scalar::Bool(true)), Num::Bool(true));
/// ```
pub trait NumScalar {
    /// The value as an engine scalar.
    fn to_scalar(self) -> Scalar;
    /// The JSON form of an engine scalar.
    fn from_scalar(s: Scalar) -> Self;
    /// [`Num::fits`] for an engine dtype.
    fn fits_engine_dtype(self, dtype: DType) -> bool;
}

impl NumScalar for Num {
    fn to_scalar(self) -> Scalar {
        match self {
            Num::Bool(b) => Scalar::Bool(b),
            Num::Int(i) => Scalar::Int(i),
            Num::Float(f) => Scalar::Float(f),
        }
    }

    fn from_scalar(s: Scalar) -> Num {
        match s {
            Scalar::Bool(b) => Num::Bool(b),
            Scalar::Int(i) => Num::Int(i),
            Scalar::Float(f) => Num::Float(f),
            // The schema has no complex numbers yet: a real-valued complex is its real part,
            // any other NaN (no schema dtype holds it, so it never matches torch's value).
            Scalar::Complex(re, im) => Num::Float(if im == 0.0 { re } else { f64::NAN }),
        }
    }

    fn fits_engine_dtype(self, dtype: DType) -> bool {
        bcast_case::DType::from_name(dtype.name()).is_some_and(|d| self.fits(d))
    }
}

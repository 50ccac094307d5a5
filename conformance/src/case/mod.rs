//! The case model (crate `bcast-case`, re-exported here) and its bridge to the reference
//! engine: a schema dtype as the engine's [`DType`] ([`engine_dtype`]:
//! the one place that maps them), and element values as engine [`Scalar`]s.

pub use bcast_case::{
    bounded_vec, check_schema, checked_storage_values, dims_vec, fill_values, fixture_json,
    load_dir, load_file, load_paths, required_len, results_vec, schema_for, splitmix64,
    storage_values, validate_case, with_element_budget, Arg, Call, Case, Claim, ClaimOutcome,
    DocClaim, ErrorOutcome, ErrorStage, Fill, FillKind, FixtureFile, GradSpec, IndexItem,
    LoadError, LoadedCase, Num, OkOutcome, Outcome, ResultValue, Source, StorageSpec, TensorResult,
    TensorSpec, Tolerance, GRAD_SCHEMA, MAX_DIMS, MAX_FIXTURE_STORAGE, MAX_RESULT_TENSORS,
    SCHEMA_VERSION,
};

use bcast_engine::{DType, Scalar};

/// The engine's dtype for a schema dtype, or `None` while the engine does not have it (cases
/// that use it are skipped by the reference backend: [`unsupported_dtype`]). When the engine
/// gains a dtype, its arm here becomes `Some(DType::...)`: one line per dtype.
///
/// ```
/// use bcast_case::DType as Schema;
/// use bcast_conformance::case::engine_dtype;
/// assert_eq!(engine_dtype(Schema::Float32), Some(bcast_engine::DType::Float32));
/// for d in Schema::ALL {
///     assert!(engine_dtype(d).is_none_or(|e| e.name() == d.name()));
/// }
/// ```
pub fn engine_dtype(dtype: bcast_case::DType) -> Option<DType> {
    use bcast_case::DType as Schema;
    match dtype {
        Schema::Bool => Some(DType::Bool),
        Schema::UInt8 => Some(DType::UInt8),
        Schema::Int8 => Some(DType::Int8),
        Schema::Int16 => Some(DType::Int16),
        Schema::Int32 => Some(DType::Int32),
        Schema::Int64 => Some(DType::Int64),
        Schema::Float16 => Some(DType::Float16),
        Schema::BFloat16 => Some(DType::BFloat16),
        Schema::Float32 => Some(DType::Float32),
        Schema::Float64 => Some(DType::Float64),
        Schema::Complex32 => Some(DType::Complex32),
        Schema::Complex64 => Some(DType::Complex64),
        Schema::Complex128 => Some(DType::Complex128),
        // bcast_case::DType is non-exhaustive: a dtype of a later schema is not the engine's
        // until it is mapped above.
        _ => None,
    }
}

/// The schema dtypes the engine has: what the reference backend claims.
///
/// ```
/// use bcast_conformance::case::engine_dtypes;
/// let names: Vec<&str> = engine_dtypes().iter().map(|d| d.name()).collect();
/// assert!(names.contains(&"float64") && names.contains(&"bfloat16"));
/// assert_eq!(names.len(), bcast_case::DType::ALL.len());
/// ```
pub fn engine_dtypes() -> Vec<bcast_case::DType> {
    bcast_case::DType::ALL
        .into_iter()
        .filter(|&d| engine_dtype(d).is_some())
        .collect()
}

/// Why the reference engine cannot run something of this dtype.
pub fn unsupported_dtype(dtype: bcast_case::DType) -> String {
    format!(
        "the reference engine does not support dtype {}",
        dtype.name()
    )
}

/// The engine dtype of a storage spec; an error for an unknown dtype and for one the engine
/// does not have yet.
///
/// ```
/// use bcast_conformance::case::{storage_dtype, StorageSpec};
/// let spec: StorageSpec = serde_json::from_str(r#"{"dtype": "int64", "values": [1]}"#).unwrap();
/// assert_eq!(storage_dtype(&spec), Ok(bcast_engine::DType::Int64));
/// let spec: StorageSpec = serde_json::from_str(r#"{"dtype": "complex64", "values": [[1, 2]]}"#).unwrap();
/// assert_eq!(storage_dtype(&spec), Ok(bcast_engine::DType::Complex64));
/// let spec: StorageSpec = serde_json::from_str(r#"{"dtype": "float8", "values": [1]}"#).unwrap();
/// assert!(storage_dtype(&spec).is_err());
/// ```
pub fn storage_dtype(spec: &StorageSpec) -> Result<DType, String> {
    let dtype = bcast_case::storage_dtype(spec)?;
    engine_dtype(dtype).ok_or_else(|| unsupported_dtype(dtype))
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
            Num::Complex(re, im) => Scalar::Complex(re, im),
        }
    }

    fn from_scalar(s: Scalar) -> Num {
        match s {
            Scalar::Bool(b) => Num::Bool(b),
            Scalar::Int(i) => Num::Int(i),
            Scalar::Float(f) => Num::Float(f),
            Scalar::Complex(re, im) => Num::Complex(re, im),
        }
    }

    fn fits_engine_dtype(self, dtype: DType) -> bool {
        // The engine's dtypes are schema dtypes of the same name (engine_dtype).
        bcast_case::DType::from_name(dtype.name()).is_some_and(|d| self.fits(d))
    }
}

//! A case's storages as 1-d tch tensors and its named views over them (`as_strided`), the
//! twin of `build` in `python/bcast_suite/torch_exec.py`.

use super::describe::tensor_values;
use crate::backend::reference::TensorLookup;
use crate::backend::BackendFailure;
use crate::case::{storage_dtype, storage_values, Case, Num, NumScalar};
use bcast_engine::DType;
use std::collections::BTreeMap;
use tch::{Kind, TchError, Tensor};

/// The storages and named views of one case, in libtorch.
#[derive(Debug, Default)]
pub struct TchInputs {
    pub storages: BTreeMap<String, Tensor>,
    pub tensors: BTreeMap<String, Tensor>,
}

impl TchInputs {
    /// Another handle on the same storages and views (no data copied).
    pub fn shallow_clone(&self) -> TchInputs {
        let shallow = |m: &BTreeMap<String, Tensor>| -> BTreeMap<String, Tensor> {
            m.iter()
                .map(|(k, t)| (k.clone(), t.shallow_clone()))
                .collect()
        };
        TchInputs {
            storages: shallow(&self.storages),
            tensors: shallow(&self.tensors),
        }
    }
}

impl TensorLookup for TchInputs {
    type Tensor = Tensor;
    fn fetch(&self, name: &str) -> Option<Tensor> {
        self.tensors.get(name).map(Tensor::shallow_clone)
    }

    fn item(&self, tensor: &Tensor) -> Option<bcast_engine::Scalar> {
        if tensor.dim() != 0 {
            return None;
        }
        tensor_values(tensor).ok()?.first().map(|v| v.to_scalar())
    }
}

/// The tch kind of a dtype.
///
/// ```
/// use bcast_conformance::backend::tch::{dtype_of, kind_of};
/// use bcast_engine::DType;
/// assert_eq!(dtype_of(kind_of(DType::Float32)), Some(DType::Float32));
/// ```
pub fn kind_of(dtype: DType) -> Kind {
    match dtype {
        DType::Bool => Kind::Bool,
        DType::Int64 => Kind::Int64,
        DType::Float32 => Kind::Float,
        DType::Float64 => Kind::Double,
        DType::UInt8 => Kind::Uint8,
        DType::Int8 => Kind::Int8,
        DType::Int16 => Kind::Int16,
        DType::Int32 => Kind::Int,
        DType::Float16 => Kind::Half,
        DType::BFloat16 => Kind::BFloat16,
        DType::Complex32 => Kind::ComplexHalf,
        DType::Complex64 => Kind::ComplexFloat,
        DType::Complex128 => Kind::ComplexDouble,
    }
}

/// The dtypes this backend builds inputs of and reads results in: all thirteen of the schema.
pub const TCH_DTYPES: [DType; 13] = DType::ALL;

/// The dtype of a tch kind, if the schema has it.
pub fn dtype_of(kind: Kind) -> Option<DType> {
    DType::ALL.into_iter().find(|&d| kind_of(d) == kind)
}

/// A 1-d tensor of `dtype` holding `values` (as `torch.tensor(values, dtype=...)`). The
/// values are the storage's, so each is exact in `dtype`: integers go in through int64,
/// half-precision floats through float64, complex values as `[re, im]` pairs of float64
/// (`complex32` as the bits of its `float16` parts).
///
/// ```
/// use bcast_conformance::backend::tch::{storage_tensor, tensor_values};
/// use bcast_conformance::case::Num;
/// use bcast_engine::DType;
/// let t = storage_tensor(DType::BFloat16, &[Num::Float(0.5), Num::Float(-3.0)]).unwrap();
/// assert_eq!(t.kind(), tch::Kind::BFloat16);
/// assert_eq!(tensor_values(&t).unwrap(), [Num::Float(0.5), Num::Float(-3.0)]);
/// let z = storage_tensor(DType::Complex64, &[Num::Complex(1.0, -2.0)]).unwrap();
/// assert_eq!(tensor_values(&z).unwrap(), [Num::Complex(1.0, -2.0)]);
/// let h = storage_tensor(DType::Complex32, &[Num::Complex(2048.0, -0.25)]).unwrap();
/// assert_eq!(h.kind(), tch::Kind::ComplexHalf);
/// assert_eq!(tensor_values(&h).unwrap(), [Num::Complex(2048.0, -0.25)]);
/// ```
pub fn storage_tensor(dtype: DType, values: &[Num]) -> Result<Tensor, TchError> {
    match dtype {
        DType::Bool => {
            let v: Vec<bool> = values.iter().map(|n| n.to_f64() != 0.0).collect();
            Tensor::f_from_slice(&v)
        }
        DType::UInt8 | DType::Int8 | DType::Int16 | DType::Int32 | DType::Int64 => {
            let v: Vec<i64> = values
                .iter()
                .map(|n| match n {
                    Num::Int(i) => *i,
                    Num::Bool(b) => *b as i64,
                    Num::Float(f) | Num::Complex(f, _) => *f as i64,
                })
                .collect();
            let wide = Tensor::f_from_slice(&v)?;
            if dtype == DType::Int64 {
                Ok(wide)
            } else {
                wide.f_to_kind(kind_of(dtype))
            }
        }
        DType::Float32 => {
            let v: Vec<f32> = values.iter().map(|n| num_to_f64(*n) as f32).collect();
            Tensor::f_from_slice(&v)
        }
        DType::Float64 => {
            let v: Vec<f64> = values.iter().map(|n| num_to_f64(*n)).collect();
            Tensor::f_from_slice(&v)
        }
        DType::Float16 | DType::BFloat16 => {
            // Element by element, as `torch.tensor(values, dtype=...)` converts (c10's scalar
            // conversion): libtorch's vectorised cast gives a NaN the bits 0xffff, negative,
            // which `copysign` tells apart.
            use bcast_engine::half::{BFloat16, Half};
            let bits: Vec<i16> = values
                .iter()
                .map(|n| {
                    let v = num_to_f64(*n);
                    (if dtype == DType::Float16 {
                        Half::from_f64(v).to_bits()
                    } else {
                        BFloat16::from_f64(v).to_bits()
                    }) as i16
                })
                .collect();
            Tensor::f_from_slice(&bits)?.f_view_dtype(kind_of(dtype))
        }
        DType::Complex32 => {
            // Each part as a float16 is converted above, the pairs' bits viewed as complex32.
            use bcast_engine::half::Half;
            let bits: Vec<i16> = values
                .iter()
                .flat_map(|n| {
                    let (re, im) = match n {
                        Num::Complex(re, im) => (*re, *im),
                        other => (num_to_f64(*other), 0.0),
                    };
                    [
                        Half::from_f64(re).to_bits() as i16,
                        Half::from_f64(im).to_bits() as i16,
                    ]
                })
                .collect();
            Tensor::f_from_slice(&bits)?.f_view_dtype(Kind::ComplexHalf)
        }
        DType::Complex64 | DType::Complex128 => {
            let pairs: Vec<f64> = values
                .iter()
                .flat_map(|n| match n {
                    Num::Complex(re, im) => [*re, *im],
                    other => [num_to_f64(*other), 0.0],
                })
                .collect();
            let wide = Tensor::f_from_slice(&pairs)?
                .f_view([values.len() as i64, 2])?
                .f_view_as_complex()?;
            if dtype == DType::Complex128 {
                Ok(wide)
            } else {
                wide.f_to_kind(Kind::ComplexFloat)
            }
        }
    }
}

/// A value as a double; an integer converts directly (as Python's `float(int)` does).
fn num_to_f64(n: Num) -> f64 {
    match n {
        Num::Int(i) => i as f64,
        other => other.to_f64(),
    }
}

/// Sizes or strides as torch's `int64`; one beyond it is a view torch cannot express, so the
/// case is unsupported (not a failure of torch's).
fn signed(values: &[usize], what: &str) -> Result<Vec<i64>, BackendFailure> {
    values
        .iter()
        .map(|&v| {
            i64::try_from(v)
                .map_err(|_| BackendFailure::unsupported(format!("{what} {v} exceeds int64")))
        })
        .collect()
}

impl TchInputs {
    /// Builds every storage and view of `case`.
    pub fn build(case: &Case) -> Result<TchInputs, BackendFailure> {
        let mut inputs = TchInputs::default();
        for (name, spec) in &case.storages {
            let dtype = storage_dtype(spec)
                .map_err(|m| BackendFailure::bad_input(format!("storage {name}: {m}")))?;
            let values = storage_values(spec)
                .map_err(|m| BackendFailure::bad_input(format!("storage {name}: {m}")))?;
            let t = storage_tensor(dtype, &values)
                .map_err(|e| BackendFailure::bad_input(format!("storage {name}: {e}")))?;
            inputs.storages.insert(name.clone(), t);
        }
        for (name, spec) in &case.tensors {
            let base = inputs.storages.get(&spec.storage).ok_or_else(|| {
                BackendFailure::bad_input(format!(
                    "tensor {name} views unknown storage {}",
                    spec.storage
                ))
            })?;
            let shape = signed(&spec.shape, "size")?;
            let strides = signed(&spec.strides, "stride")?;
            let offset = i64::try_from(spec.offset).map_err(|_| {
                BackendFailure::unsupported(format!("tensor {name}: offset exceeds int64"))
            })?;
            let view = base
                .f_as_strided(shape.as_slice(), strides.as_slice(), offset)
                .map_err(|e| {
                    BackendFailure::bad_input(format!(
                        "tensor {name}: {}",
                        super::trim_backtrace(&e)
                    ))
                })?;
            inputs.tensors.insert(name.clone(), view);
        }
        Ok(inputs)
    }

    /// Every storage's contents.
    pub fn snapshot(&self) -> Result<BTreeMap<String, Vec<Num>>, TchError> {
        self.storages
            .iter()
            .map(|(name, s)| Ok((name.clone(), tensor_values(s)?)))
            .collect()
    }
}

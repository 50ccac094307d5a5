//! Describing tch results in the schema's terms (the twin of `describe` in
//! `python/bcast_suite/torch_exec.py`).

use super::inputs::dtype_of;
use super::{shim, TchInputs, TchValue};
use crate::backend::reference::sample_positions;
use crate::case::{Num, ResultValue, TensorResult};
use tch::{Kind, TchError, Tensor};

fn convert(what: &str) -> TchError {
    TchError::Convert(what.to_string())
}

/// A result of a kind the schema has no dtype for (a quantized or bit kind): a
/// [`TchError::Kind`], which the backend reports as unsupported.
fn outside_schema(kind: Kind) -> TchError {
    TchError::Kind(format!(
        "a result of kind {kind:?}, which the schema has no dtype for"
    ))
}

/// A tensor's elements in row-major order.
///
/// ```
/// use bcast_conformance::backend::tch::tensor_values;
/// use bcast_conformance::case::Num;
/// let t = tch::Tensor::from_slice(&[1i64, 2, 3, 4]).view([2, 2]).tr();
/// assert_eq!(tensor_values(&t).unwrap(), [1, 3, 2, 4].map(Num::Int).to_vec());
/// ```
pub fn tensor_values(t: &Tensor) -> Result<Vec<Num>, TchError> {
    let numel = t.numel();
    let flat = t.f_contiguous()?.f_reshape([-1])?;
    Ok(match t.f_kind()? {
        Kind::Bool => {
            let mut v = vec![false; numel];
            flat.f_copy_data(&mut v, numel)?;
            v.into_iter().map(Num::Bool).collect()
        }
        Kind::Uint8 | Kind::Int8 | Kind::Int16 | Kind::Int | Kind::Int64 => {
            let mut v = vec![0i64; numel];
            flat.f_to_kind(Kind::Int64)?.f_copy_data(&mut v, numel)?;
            v.into_iter().map(Num::Int).collect()
        }
        Kind::Float => {
            let mut v = vec![0f32; numel];
            flat.f_copy_data(&mut v, numel)?;
            v.into_iter().map(|x| Num::Float(x as f64)).collect()
        }
        // Half-precision values widen to float64 exactly.
        Kind::Half | Kind::BFloat16 | Kind::Double => {
            let mut v = vec![0f64; numel];
            flat.f_to_kind(Kind::Double)?.f_copy_data(&mut v, numel)?;
            v.into_iter().map(Num::Float).collect()
        }
        // complex32 widens to complex128 exactly.
        Kind::ComplexHalf | Kind::ComplexFloat | Kind::ComplexDouble => {
            let mut v = vec![0f64; 2 * numel];
            flat.f_to_kind(Kind::ComplexDouble)?
                .f_view_as_real()?
                .f_contiguous()?
                .f_copy_data(&mut v, 2 * numel)?;
            v.chunks_exact(2)
                .map(|pair| Num::Complex(pair[0], pair[1]))
                .collect()
        }
        other => return Err(outside_schema(other)),
    })
}

/// The element at row-major position `linear`.
fn element_at(t: &Tensor, kind: Kind, linear: usize) -> Result<Num, TchError> {
    let shape: Vec<usize> = t.size().iter().map(|&s| s.max(0) as usize).collect();
    let index: Vec<i64> = bcast_engine::index_map::unravel(linear, &shape)
        .into_iter()
        .map(|i| i as i64)
        .collect();
    Ok(match kind {
        Kind::Half | Kind::BFloat16 | Kind::Float | Kind::Double => {
            Num::Float(t.f_double_value(&index)?)
        }
        Kind::Uint8 | Kind::Int8 | Kind::Int16 | Kind::Int | Kind::Int64 => {
            Num::Int(t.f_int64_value(&index)?)
        }
        Kind::Bool => Num::Bool(t.f_int64_value(&index)? != 0),
        // The element itself first: `real` of the whole tensor is a view of twice its
        // elements, which overflows torch's element count for a view of 2^62 complex ones.
        Kind::ComplexHalf | Kind::ComplexFloat | Kind::ComplexDouble => {
            let element = index
                .iter()
                .try_fold(t.shallow_clone(), |e, &i| e.f_select(0, i))?;
            Num::Complex(
                element.f_real()?.f_double_value(&[])?,
                element.f_imag()?.f_double_value(&[])?,
            )
        }
        other => return Err(outside_schema(other)),
    })
}

/// Which input storage `t` views (as Python compares `untyped_storage().data_ptr()`; an
/// empty storage views nothing), the last match winning as in Python's loop.
fn owner(t: &Tensor, inputs: &TchInputs) -> Option<String> {
    let address = shim::storage_address(t);
    inputs
        .storages
        .iter()
        .filter(|(_, base)| base.numel() > 0 && shim::storage_address(base) == address)
        .map(|(name, _)| name.clone())
        .next_back()
}

/// Describes one tensor: geometry, which input storage it views, and its values.
pub fn describe_tensor(t: &Tensor, inputs: &TchInputs) -> Result<TensorResult, TchError> {
    let kind = t.f_kind()?;
    let dtype = dtype_of(kind).ok_or_else(|| outside_schema(kind))?;
    let strides = t
        .stride()
        .into_iter()
        .map(|s| usize::try_from(s).map_err(|_| convert(&format!("a negative stride {s}"))))
        .collect::<Result<Vec<usize>, TchError>>()?;
    let offset = usize::try_from(shim::storage_offset(t))
        .map_err(|_| convert("a negative storage offset"))?;
    let (values, samples) = match sample_positions(t.numel()) {
        None => (Some(tensor_values(t)?), None),
        // Read each sample in place: a huge broadcast view must never be materialised.
        Some(pos) => (
            None,
            Some(
                pos.into_iter()
                    .map(|i| Ok((i, element_at(t, kind, i)?)))
                    .collect::<Result<_, TchError>>()?,
            ),
        ),
    };
    Ok(TensorResult {
        shape: t.size(),
        dtype: dtype.name().to_string(),
        strides,
        offset,
        storage: owner(t, inputs),
        values,
        samples,
    })
}

/// Describes any result value.
pub fn describe_value(value: &TchValue, inputs: &TchInputs) -> Result<ResultValue, TchError> {
    Ok(match value {
        TchValue::Tensor(t) => ResultValue::Tensor(describe_tensor(t, inputs)?),
        TchValue::Tensors(ts) => ResultValue::Tensors(
            ts.iter()
                .map(|t| describe_tensor(t, inputs))
                .collect::<Result<_, _>>()?,
        ),
        TchValue::Size(s) => ResultValue::Size(s.clone()),
        TchValue::Int(i) => ResultValue::Int(*i),
        TchValue::Bool(b) => ResultValue::Bool(*b),
        TchValue::NotImplemented => ResultValue::NotImplemented,
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    /// `bcast diff --seed 1128203` drew `as_strided([1 << 62], [0])` of a complex64 tensor:
    /// reading a sample through `real` of the whole view failed in torch's element count.
    #[test]
    fn samples_of_a_huge_complex_view_are_read_in_place() {
        let re = Tensor::from_slice(&[1.5f32, -2.0]);
        let im = Tensor::from_slice(&[0.25f32, 4.0]);
        let z = Tensor::complex(&re, &im).expand([3, 2], false);
        let view = z.f_as_strided([1i64 << 62], [0], Some(1)).unwrap();
        let last = (1usize << 62) - 1;
        assert_eq!(
            element_at(&view, Kind::ComplexFloat, last).unwrap(),
            Num::Complex(-2.0, 4.0)
        );
        let rows = z.f_as_strided([1i64 << 61, 2], [0, 1], None).unwrap();
        assert_eq!(
            element_at(&rows, Kind::ComplexFloat, (1usize << 60) + 1).unwrap(),
            Num::Complex(-2.0, 4.0)
        );
    }
}

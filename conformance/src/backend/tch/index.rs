//! `getitem`: basic indexing (ints, slices, `None`, `...`) with tch's `select`, `slice` and
//! `unsqueeze`, following `applySlicing` in ATen/TensorIndexing.h, the header-only code that
//! Python's `Tensor.__getitem__` runs and that tch cannot reach. The checks that code makes
//! before calling those ops are reproduced here with their classes and messages.

use super::{unsupported, CallResult, TchArgs, TchCallError, TchValue};
use crate::case::{ErrorOutcome, IndexItem};
use tch::Tensor;

/// Runs `getitem`; `None` for any other name.
pub fn dispatch(name: &str, a: &TchArgs) -> Option<CallResult> {
    (name == "getitem").then(|| {
        let x = a.tensor(0)?;
        let items = a
            .as_index(a.get(1).ok_or_else(|| {
                TchCallError::Unsupported("getitem: missing index".to_string())
            })?)?;
        index(&x, items).map(TchValue::Tensor)
    })
}

fn raise(kind: &str, message: String) -> Result<Tensor, TchCallError> {
    Err(raised(kind, &message))
}

/// `x[items]`: a single item takes Python's single-index path (`x[item]`), which differs from
/// the tuple path only on a 0-d tensor.
fn index(x: &Tensor, items: &[IndexItem]) -> Result<Tensor, TchCallError> {
    let ndim = x.dim() as i64;
    if let ([item], 0) = (items, ndim) {
        match *item {
            // Any index but 0 makes torch read the size of a dim that does not exist, which it
            // reports as 0; index 0 has its own message (from `select`).
            IndexItem::Int(i) if i != 0 => {
                return raise(
                    "IndexError",
                    format!("index {i} is out of bounds for dimension 0 with size 0"),
                )
            }
            IndexItem::Int(i) => return select(x, 0, i, 0),
            // ATen's slice itself refuses a 0-d tensor (no whole-dim shortcut on this path).
            IndexItem::Slice([start, stop, step]) => {
                slice_step(step)?;
                return Ok(x.f_slice(0, start, stop, step.unwrap_or(1))?);
            }
            IndexItem::None(()) | IndexItem::Ellipsis(()) => {}
        }
    }
    let specified = items
        .iter()
        .filter(|i| matches!(i, IndexItem::Int(_) | IndexItem::Slice(_)))
        .count() as i64;
    if specified > ndim {
        return raise(
            "IndexError",
            format!("too many indices for tensor of dimension {ndim}"),
        );
    }
    let mut result = x.shallow_clone();
    let mut dim = 0i64;
    for (real_dim, item) in items.iter().enumerate() {
        result = match *item {
            IndexItem::Int(i) => select(&result, dim, i, real_dim)?,
            IndexItem::Slice([start, stop, step]) => {
                let r = slice(&result, dim, start, stop, step)?;
                dim += 1;
                r
            }
            IndexItem::Ellipsis(()) => {
                dim += ndim - specified;
                result
            }
            IndexItem::None(()) => {
                let r = result.f_unsqueeze(dim)?;
                dim += 1;
                r
            }
        };
    }
    Ok(result)
}

/// `applySelect`: bounds are checked against the index's position in the tuple.
fn select(t: &Tensor, dim: i64, index: i64, real_dim: usize) -> Result<Tensor, TchCallError> {
    let sizes = t.size();
    if index == 0 && dim == 0 && sizes.is_empty() {
        return raise(
            "IndexError",
            "invalid index of a 0-dim tensor. Use `tensor.item()` in Python or \
             `tensor.item<T>()` in C++ to convert a 0-dim tensor to a number"
                .to_string(),
        );
    }
    let Some(&size) = sizes.get(dim as usize) else {
        return unsupported(format!(
            "getitem: dim {dim} past the tensor's {}",
            sizes.len()
        ));
    };
    if !(size > index && size > -1 - index) {
        return raise(
            "IndexError",
            format!("index {index} is out of bounds for dimension {real_dim} with size {size}"),
        );
    }
    Ok(t.f_select(dim, index)?)
}

/// Python's slice unpacking, then `applySlice` (a slice that keeps the whole dim is the
/// tensor itself).
fn slice(
    t: &Tensor,
    dim: i64,
    start: Option<i64>,
    stop: Option<i64>,
    step: Option<i64>,
) -> Result<Tensor, TchCallError> {
    let step = slice_step(step)?;
    let start = start.unwrap_or(0);
    let stop = stop.unwrap_or(i64::MAX);
    let length = t.size().get(dim as usize).copied().unwrap_or(0);
    if start == 0 && length <= stop && step == 1 {
        return Ok(t.shallow_clone());
    }
    Ok(t.f_slice(dim, start, stop, step)?)
}

/// Python's checks on a slice's step: 1 when omitted, never 0 or negative.
fn slice_step(step: Option<i64>) -> Result<i64, TchCallError> {
    match step.unwrap_or(1) {
        0 => Err(raised("ValueError", "slice step cannot be zero")),
        s if s < 0 => Err(raised("ValueError", "step must be greater than zero")),
        s => Ok(s),
    }
}

fn raised(kind: &str, message: &str) -> TchCallError {
    TchCallError::Raised(ErrorOutcome::new(kind.to_string(), message.to_string()))
}

//! Basic indexing, `x[index_tuple]` with slices, ints, `None` and `...`, as torch's Python
//! indexing applies it: every result is a view.

use crate::{Error, Result, Tensor};

/// One item of an index tuple.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum TensorIndex {
    /// `start:stop:step`, `None` where omitted.
    Slice(Option<i64>, Option<i64>, Option<i64>),
    /// An integer: selects and removes the dim.
    Int(i64),
    /// `None`: a new size-1 dim.
    None,
    /// `...`: as many `:` as needed.
    Ellipsis,
}

impl Tensor {
    /// `x[items]`, where `items` is an index tuple.
    ///
    /// ```
    /// use bcast_engine::{views::TensorIndex, Tensor};
    /// let y = Tensor::from_vec(vec![0.0f32; 6], &[3, 1, 2]).unwrap();
    /// let v = y.index(&[TensorIndex::None, TensorIndex::Slice(None, None, None)]).unwrap();
    /// assert_eq!(v.shape(), &[1, 3, 1, 2]);
    /// ```
    ///
    /// # Errors
    /// More indices than dims, an int out of range, a zero or negative step, each with torch's
    /// exception class and message.
    pub fn index(&self, items: &[TensorIndex]) -> Result<Tensor> {
        // A lone slice takes Python's single-index path (`x[1:2]`, not `x[(1:2,)]`), which
        // reaches ATen's slice directly, without the shortcut below for a slice that keeps a
        // whole dim.
        if let [TensorIndex::Slice(start, stop, step)] = *items {
            let step = checked_step(step)?;
            if self.ndim() == 0 {
                return Err(Error::index("slice() cannot be applied to a 0-dim tensor."));
            }
            let (start, stop) = unpack_slice(start, stop);
            return self.slice(0, Some(start), Some(stop), step);
        }
        // A lone int on a 0-d tensor: index 0 has its own message; any other index makes torch
        // read the size of a dim that does not exist, which it reports as 0 (README findings).
        if let ([TensorIndex::Int(i)], 0) = (items, self.ndim()) {
            return Err(if *i == 0 {
                Error::index(
                    "invalid index of a 0-dim tensor. Use `tensor.item()` in Python or `tensor.item<T>()` in C++ to convert a 0-dim tensor to a number",
                )
            } else {
                Error::index(format!(
                    "index {i} is out of bounds for dimension 0 with size 0"
                ))
            });
        }
        // torch accepts a second `...` and then reads sizes out of bounds (undefined
        // behaviour, README findings); the engine refuses it as NumPy does.
        if items
            .iter()
            .filter(|i| matches!(i, TensorIndex::Ellipsis))
            .count()
            > 1
        {
            return Err(Error::undefined_in_torch(
                crate::ErrorKind::IndexError,
                "an index can only have a single ellipsis ('...')",
            ));
        }
        let specified = items
            .iter()
            .filter(|i| matches!(i, TensorIndex::Int(_) | TensorIndex::Slice(..)))
            .count();
        if specified > self.ndim() {
            return Err(Error::index(format!(
                "too many indices for tensor of dimension {}",
                self.ndim()
            )));
        }
        let mut result = self.clone();
        let mut dim = 0usize;
        for (real_dim, item) in items.iter().enumerate() {
            match *item {
                TensorIndex::Int(i) => {
                    let size = result.shape()[dim] as i64;
                    if !(size > -1 - i.max(i64::MIN + 1) && size > i) {
                        return Err(Error::index(format!(
                            "index {i} is out of bounds for dimension {real_dim} with size {size}"
                        )));
                    }
                    result = result.select(dim as i64, i)?;
                }
                TensorIndex::Slice(start, stop, step) => {
                    let step = checked_step(step)?;
                    let (start, stop) = unpack_slice(start, stop);
                    // torch's `applySlice` keeps the tensor as it is for `0:stop` with
                    // `stop >= size` and step 1 (which differs from slicing only for a negative
                    // size beside a 0).
                    let size = result.shape()[dim] as i64;
                    if !(start == 0 && size <= stop && step == 1) {
                        result = result.slice(dim as i64, Some(start), Some(stop), step)?;
                    }
                    dim += 1;
                }
                TensorIndex::None => {
                    result = result.unsqueeze(dim as i64)?;
                    dim += 1;
                }
                TensorIndex::Ellipsis => {
                    dim += self.ndim() - specified;
                }
            }
        }
        // Python's indexing returns an alias, never the indexed tensor itself (`x[...]`).
        if result.is_same(self) {
            let alias = result.with_layout(result.layout().clone());
            result = if crate::autograd::recording() {
                crate::autograd::views::alias(self, alias)
            } else {
                alias
            };
        }
        Ok(result)
    }
}

/// A slice's start and stop as torch's `__PySlice_Unpack` passes them on (for the positive
/// step that [`checked_step`] leaves): an omitted start is 0, an omitted stop is
/// `PY_SSIZE_T_MAX`, and a value below the `SymInt` range is raised to its minimum (torch warns
/// `Truncating the start/stop/step of slice`; the engine does not model warnings).
fn unpack_slice(start: Option<i64>, stop: Option<i64>) -> (i64, i64) {
    let clip = |v: i64| v.max(crate::symint::MIN_REPRESENTABLE);
    (start.map_or(0, clip), stop.map_or(i64::MAX, clip))
}

/// A slice's step as Python and torch accept it: 1 when omitted, never 0 or negative.
fn checked_step(step: Option<i64>) -> Result<i64> {
    match step.unwrap_or(1) {
        0 => Err(Error::value("slice step cannot be zero")),
        s if s < 0 => Err(Error::value("step must be greater than zero")),
        s => Ok(s),
    }
}

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
                    if i == 0 && dim == 0 && result.ndim() == 0 {
                        return Err(Error::index(
                            "invalid index of a 0-dim tensor. Use `tensor.item()` in Python or `tensor.item<T>()` in C++ to convert a 0-dim tensor to a number",
                        ));
                    }
                    let size = result.shape()[dim] as i64;
                    if !(size > -1 - i.max(i64::MIN + 1) && size > i) {
                        return Err(Error::index(format!(
                            "index {i} is out of bounds for dimension {real_dim} with size {size}"
                        )));
                    }
                    result = result.select(dim as i64, i)?;
                }
                TensorIndex::Slice(start, stop, step) => {
                    let step = step.unwrap_or(1);
                    if step == 0 {
                        return Err(Error::value("slice step cannot be zero"));
                    }
                    if step < 0 {
                        return Err(Error::value("step must be greater than zero"));
                    }
                    result = result.slice(dim as i64, start, stop, step)?;
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
        Ok(result)
    }
}

//! Copying elements between layouts, with dtype conversion.

use crate::{dispatch_dtype, index_map, Element, Error, Result, Tensor};

/// Copies `src` into `dst` element by element (same shape), converting the dtype.
pub fn copy_into(dst: &Tensor, src: &Tensor) -> Result<()> {
    if dst.shape() != src.shape() {
        return Err(Error::internal("copy_into: shapes differ"));
    }
    let values = src.to_scalars();
    let positions = index_map::storage_indices(dst.layout());
    let mut buffer = dst.storage().write();
    dispatch_dtype!(dst.dtype(), T => {
        let data = buffer.as_mut_slice::<T>().ok_or_else(|| Error::internal("copy_into: storage dtype"))?;
        for (p, v) in positions.into_iter().zip(values) {
            data[p] = T::from_scalar(v);
        }
    });
    Ok(())
}

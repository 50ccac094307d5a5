//! A tensor: a strided view (shape, strides, offset) over a shared [`Storage`].
//!
//! ```
//! use bcast_engine::Tensor;
//! let t = Tensor::from_vec(vec![1.0f32, 2.0, 3.0, 4.0, 5.0, 6.0], &[2, 3]).unwrap();
//! assert_eq!(t.shape(), &[2, 3]);
//! assert_eq!(t.strides(), &[3, 1]);
//! assert_eq!(t.to_vec::<f32>().unwrap()[4], 5.0);
//! ```

use crate::layout::check_in_bounds;
use crate::shape::{format_shape, numel_of};
use crate::{
    dispatch_dtype, index_map, Buffer, DType, Element, Error, Layout, Result, Scalar, Storage,
};
use std::sync::atomic::{AtomicU64, Ordering};

/// A strided view over shared storage.
///
/// A `Tensor` value is a handle, like a Python reference: cloning it gives another handle to
/// the same tensor object ([`Tensor::is_same`]), sharing its storage. Every view op makes a new
/// object over the same storage.
#[derive(Debug, Clone)]
pub struct Tensor {
    storage: Storage,
    dtype: DType,
    layout: Layout,
    id: u64,
}

/// Identities of tensor objects, for torch's `is_same`.
static NEXT_ID: AtomicU64 = AtomicU64::new(1);

fn new_id() -> u64 {
    NEXT_ID.fetch_add(1, Ordering::Relaxed)
}

impl Tensor {
    /// A contiguous tensor owning `data`.
    ///
    /// # Errors
    /// When `data.len()` is not the numel of `shape`.
    pub fn from_vec<T: Element>(data: Vec<T>, shape: &[usize]) -> Result<Tensor> {
        let numel = numel_of(shape)?;
        if numel != data.len() {
            return Err(Error::internal(format!(
                "{} values cannot fill shape {}",
                data.len(),
                format_shape(shape)
            )));
        }
        Ok(Tensor::contiguous_over(
            Storage::new(T::into_buffer(data)),
            shape,
        ))
    }

    /// A contiguous tensor of `dtype` from scalars, converted with C++ casts (a large one on
    /// huge pages where the system gives them, see [`crate::memory`]).
    pub fn from_scalars(values: &[Scalar], dtype: DType, shape: &[usize]) -> Result<Tensor> {
        dispatch_dtype!(dtype, T => Tensor::from_vec(crate::memory::collect_advised(values.len(), values.iter().map(|&v| T::from_scalar(v))), shape))
    }

    /// A 0-d tensor holding `value`.
    pub fn scalar_tensor(value: Scalar, dtype: DType) -> Tensor {
        let storage = Storage::new(Buffer::from_scalars(dtype, &[value]));
        Tensor::contiguous_over(storage, &[])
    }

    /// A contiguous tensor of zeros.
    pub fn zeros(shape: &[usize], dtype: DType) -> Result<Tensor> {
        let numel = numel_of(shape)?;
        Ok(Tensor::contiguous_over(
            Storage::zeros(dtype, numel)?,
            shape,
        ))
    }

    /// A contiguous tensor filled with `value`.
    pub fn full(shape: &[usize], value: Scalar, dtype: DType) -> Result<Tensor> {
        let numel = numel_of(shape)?;
        crate::storage::check_allocation(dtype, numel)?;
        Tensor::from_scalars(&vec![value; numel], dtype, shape)
    }

    /// `torch.arange(n, dtype=dtype)`.
    pub fn arange(n: usize, dtype: DType) -> Result<Tensor> {
        crate::storage::check_allocation(dtype, n)?;
        let values: Vec<Scalar> = (0..n as i64).map(Scalar::Int).collect();
        Tensor::from_scalars(&values, dtype, &[n])
    }

    /// A view over existing storage. The layout must fit inside the storage.
    ///
    /// # Errors
    /// `RuntimeError` when the view reaches past the end of the storage (torch's `setStorage`
    /// message) or its size computation overflows.
    pub fn from_storage(storage: &Storage, layout: Layout) -> Result<Tensor> {
        let dtype = storage.dtype();
        let strides: crate::dims::SignedDims = layout.strides().iter().map(|&s| s as i64).collect();
        let sizes = crate::shape::signed_sizes(layout.shape());
        check_in_bounds(
            &sizes,
            &strides,
            layout.offset() as i64,
            dtype.itemsize(),
            storage.len(),
        )?;
        Ok(Tensor {
            storage: storage.clone(),
            dtype,
            layout,
            id: new_id(),
        })
    }

    fn contiguous_over(storage: Storage, shape: &[usize]) -> Tensor {
        Tensor::over(storage, Layout::contiguous(shape))
    }

    /// A new tensor object over `storage`. The caller guarantees the layout is in bounds.
    pub(crate) fn over(storage: Storage, layout: Layout) -> Tensor {
        let dtype = storage.dtype();
        Tensor {
            storage,
            dtype,
            layout,
            id: new_id(),
        }
    }

    /// Another view of the same storage. The caller guarantees the layout is in bounds.
    pub(crate) fn with_layout(&self, layout: Layout) -> Tensor {
        Tensor {
            storage: self.storage.clone(),
            dtype: self.dtype,
            layout,
            id: new_id(),
        }
    }

    /// The same tensor object with new metadata, as torch's in-place `resize_` and
    /// `as_strided_` change a tensor. The caller guarantees the layout is in bounds.
    pub(crate) fn relayout(&self, layout: Layout) -> Tensor {
        Tensor {
            storage: self.storage.clone(),
            dtype: self.dtype,
            layout,
            id: self.id,
        }
    }

    /// `x.detach()`: a new tensor object over the same storage and layout (another handle
    /// would be the same object, see [`Tensor::is_same`]).
    ///
    /// ```
    /// # use bcast_engine::Tensor;
    /// let x = Tensor::from_vec(vec![1i64, 2], &[2]).unwrap();
    /// let d = x.detached();
    /// assert!(!d.is_same(&x) && d.shares_storage(&x));
    /// ```
    pub fn detached(&self) -> Tensor {
        self.with_layout(self.layout.clone())
    }

    /// Whether both handles are the same tensor object (torch's `is_same`): a clone of a handle
    /// is the same object, a view is not.
    ///
    /// ```
    /// # use bcast_engine::Tensor;
    /// let x = Tensor::from_vec(vec![1i64, 2], &[2]).unwrap();
    /// assert!(x.is_same(&x.clone()));
    /// assert!(!x.is_same(&x.expand(&[2]).unwrap()));
    /// ```
    pub fn is_same(&self, other: &Tensor) -> bool {
        self.id == other.id
    }

    /// The shared storage.
    pub fn storage(&self) -> &Storage {
        &self.storage
    }

    /// The layout.
    pub fn layout(&self) -> &Layout {
        &self.layout
    }

    /// The sizes.
    pub fn shape(&self) -> &[usize] {
        self.layout.shape()
    }

    /// The strides, in elements.
    pub fn strides(&self) -> &[usize] {
        self.layout.strides()
    }

    /// The storage offset, in elements.
    pub fn offset(&self) -> usize {
        self.layout.offset()
    }

    /// The element type.
    pub fn dtype(&self) -> DType {
        self.dtype
    }

    /// The number of dims.
    pub fn ndim(&self) -> usize {
        self.layout.ndim()
    }

    /// The number of elements.
    pub fn numel(&self) -> usize {
        self.layout.numel()
    }

    /// torch's `is_contiguous()`.
    pub fn is_contiguous(&self) -> bool {
        self.layout.is_contiguous()
    }

    /// Whether both tensors view the same storage.
    pub fn shares_storage(&self, other: &Tensor) -> bool {
        self.storage.same_as(&other.storage)
    }

    /// The elements in row-major order, typed.
    ///
    /// # Errors
    /// When `T` is not this tensor's element type.
    pub fn to_vec<T: Element>(&self) -> Result<Vec<T>> {
        let buffer = self.storage.read();
        let data = buffer.as_slice::<T>().ok_or_else(|| {
            Error::internal(format!(
                "to_vec::<{}> on a tensor of {}",
                T::DTYPE.scalar_type_name(),
                self.dtype.scalar_type_name()
            ))
        })?;
        Ok(index_map::storage_indices(&self.layout)
            .into_iter()
            .map(|i| data[i])
            .collect())
    }

    /// The element at row-major position `linear`, or `None` past the end.
    ///
    /// ```
    /// # use bcast_engine::{Scalar, Tensor};
    /// let x = Tensor::from_vec(vec![1i64, 2, 3], &[3]).unwrap();
    /// let huge = x.expand(&[1 << 40, 3]).unwrap();
    /// assert_eq!(huge.get_flat((1 << 40) * 3 - 1), Some(Scalar::Int(3)));
    /// ```
    pub fn get_flat(&self, linear: usize) -> Option<Scalar> {
        if linear >= self.numel() {
            return None;
        }
        let index = index_map::unravel(linear, self.shape());
        self.storage.read().get(self.layout.storage_index(&index))
    }

    /// The elements in row-major order, as scalars.
    pub fn to_scalars(&self) -> Vec<Scalar> {
        dispatch_dtype!(self.dtype, T => self
            .to_vec::<T>()
            .map(|v| v.into_iter().map(Element::to_scalar).collect())
            .unwrap_or_default())
    }
}

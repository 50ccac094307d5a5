//! Shared, typed, flat storage. Views hold a [`Storage`] handle; cloning the handle shares it.
//!
//! ```
//! use bcast_engine::{Buffer, Storage};
//! let s = Storage::new(Buffer::from(vec![1.0f32, 2.0, 3.0]));
//! let view = s.clone();
//! assert!(view.same_as(&s));
//! assert_eq!(s.len(), 3);
//! ```

use crate::complex::Complex;
use crate::config::allocation_limit;
use crate::half::{BFloat16, Half};
use crate::{dispatch_dtype, DType, Element, Error, Result, Scalar};
use std::sync::atomic::{AtomicBool, AtomicUsize, Ordering};
use std::sync::{Arc, RwLock, RwLockReadGuard, RwLockWriteGuard};

/// The allocation limit, re-exported from its home [`crate::config`] so that the old paths
/// `bcast_engine::storage::set_allocation_limit` (called by the fuzz targets) and
/// `bcast_engine::storage::DEFAULT_ALLOCATION_LIMIT` keep working.
pub use crate::config::{set_allocation_limit, DEFAULT_ALLOCATION_LIMIT};

thread_local! {
    /// How many times this thread wrote the zeros a storage owed.
    static ZEROS_WRITTEN: std::cell::Cell<usize> = const { std::cell::Cell::new(0) };
}

/// How many times this thread has written the zeros a storage owed
/// ([`Storage::settle_zeros`]): the engine's tests read it to tell whether a loop skipped
/// them. Not API.
#[doc(hidden)]
pub fn zeros_written() -> usize {
    ZEROS_WRITTEN.with(std::cell::Cell::get)
}

/// The elements of one storage, typed.
#[derive(Debug, Clone, PartialEq)]
pub enum Buffer {
    /// `bool` elements.
    Bool(Vec<bool>),
    /// `uint8` elements.
    UInt8(Vec<u8>),
    /// `int8` elements.
    Int8(Vec<i8>),
    /// `int16` elements.
    Int16(Vec<i16>),
    /// `int32` elements.
    Int32(Vec<i32>),
    /// `int64` elements.
    Int64(Vec<i64>),
    /// `float16` elements.
    Float16(Vec<Half>),
    /// `bfloat16` elements.
    BFloat16(Vec<BFloat16>),
    /// `float32` elements.
    Float32(Vec<f32>),
    /// `float64` elements.
    Float64(Vec<f64>),
    /// `complex32` elements.
    Complex32(Vec<Complex<Half>>),
    /// `complex64` elements.
    Complex64(Vec<Complex<f32>>),
    /// `complex128` elements.
    Complex128(Vec<Complex<f64>>),
}

impl Buffer {
    /// An empty buffer of `dtype` with room for `len` elements, its memory advised onto huge
    /// pages before anything is written ([`crate::memory::advise_huge_pages`]), or an error
    /// when `len` is more than the engine allocates. [`Storage::zeros`] owes its zeros this
    /// way.
    fn reserved(dtype: DType, len: usize) -> Result<Buffer> {
        check_allocation(dtype, len)?;
        Ok(
            dispatch_dtype!(dtype, T => Buffer::from(crate::memory::collect_advised::<T>(len, std::iter::empty()))),
        )
    }

    /// A buffer of `len` zeros, or an error when `len` is more than the engine allocates.
    pub fn zeros(dtype: DType, len: usize) -> Result<Buffer> {
        check_allocation(dtype, len)?;
        // Zero-initialised allocation: large buffers come from the OS as untouched zero
        // pages (no pass writing zeros), which the advice makes huge.
        Ok(dispatch_dtype!(dtype, T => {
            let v = vec![T::default(); len];
            crate::memory::advise_huge_pages(v.as_ptr().cast::<u8>(), len * std::mem::size_of::<T>());
            Buffer::from(v)
        }))
    }

    /// Converts scalars with C++ casts.
    pub fn from_scalars(dtype: DType, values: &[Scalar]) -> Buffer {
        dispatch_dtype!(dtype, T => Buffer::from(crate::memory::collect_advised(values.len(), values.iter().map(|&v| T::from_scalar(v)))))
    }

    /// The element type.
    pub fn dtype(&self) -> DType {
        match self {
            Buffer::Bool(_) => DType::Bool,
            Buffer::UInt8(_) => DType::UInt8,
            Buffer::Int8(_) => DType::Int8,
            Buffer::Int16(_) => DType::Int16,
            Buffer::Int32(_) => DType::Int32,
            Buffer::Int64(_) => DType::Int64,
            Buffer::Float16(_) => DType::Float16,
            Buffer::BFloat16(_) => DType::BFloat16,
            Buffer::Float32(_) => DType::Float32,
            Buffer::Float64(_) => DType::Float64,
            Buffer::Complex32(_) => DType::Complex32,
            Buffer::Complex64(_) => DType::Complex64,
            Buffer::Complex128(_) => DType::Complex128,
        }
    }

    /// The number of elements.
    pub fn len(&self) -> usize {
        match self {
            Buffer::Bool(v) => v.len(),
            Buffer::UInt8(v) => v.len(),
            Buffer::Int8(v) => v.len(),
            Buffer::Int16(v) => v.len(),
            Buffer::Int32(v) => v.len(),
            Buffer::Int64(v) => v.len(),
            Buffer::Float16(v) => v.len(),
            Buffer::BFloat16(v) => v.len(),
            Buffer::Float32(v) => v.len(),
            Buffer::Float64(v) => v.len(),
            Buffer::Complex32(v) => v.len(),
            Buffer::Complex64(v) => v.len(),
            Buffer::Complex128(v) => v.len(),
        }
    }

    /// Whether the buffer has no elements.
    pub fn is_empty(&self) -> bool {
        self.len() == 0
    }

    /// The elements as a typed slice, when `T` is this buffer's type.
    pub fn as_slice<T: Element>(&self) -> Option<&[T]> {
        T::buffer_slice(self)
    }

    /// The elements as a mutable typed slice, when `T` is this buffer's type.
    pub fn as_mut_slice<T: Element>(&mut self) -> Option<&mut [T]> {
        T::buffer_slice_mut(self)
    }

    /// Element `i` as a scalar.
    pub fn get(&self, i: usize) -> Option<Scalar> {
        match self {
            Buffer::Bool(v) => v.get(i).map(|x| x.to_scalar()),
            Buffer::UInt8(v) => v.get(i).map(|x| x.to_scalar()),
            Buffer::Int8(v) => v.get(i).map(|x| x.to_scalar()),
            Buffer::Int16(v) => v.get(i).map(|x| x.to_scalar()),
            Buffer::Int32(v) => v.get(i).map(|x| x.to_scalar()),
            Buffer::Int64(v) => v.get(i).map(|x| x.to_scalar()),
            Buffer::Float16(v) => v.get(i).map(|x| x.to_scalar()),
            Buffer::BFloat16(v) => v.get(i).map(|x| x.to_scalar()),
            Buffer::Float32(v) => v.get(i).map(|x| x.to_scalar()),
            Buffer::Float64(v) => v.get(i).map(|x| x.to_scalar()),
            Buffer::Complex32(v) => v.get(i).map(|x| x.to_scalar()),
            Buffer::Complex64(v) => v.get(i).map(|x| x.to_scalar()),
            Buffer::Complex128(v) => v.get(i).map(|x| x.to_scalar()),
        }
    }

    /// Every element as a scalar.
    pub fn to_scalars(&self) -> Vec<Scalar> {
        match self {
            Buffer::Bool(v) => v.iter().map(|x| x.to_scalar()).collect(),
            Buffer::UInt8(v) => v.iter().map(|x| x.to_scalar()).collect(),
            Buffer::Int8(v) => v.iter().map(|x| x.to_scalar()).collect(),
            Buffer::Int16(v) => v.iter().map(|x| x.to_scalar()).collect(),
            Buffer::Int32(v) => v.iter().map(|x| x.to_scalar()).collect(),
            Buffer::Int64(v) => v.iter().map(|x| x.to_scalar()).collect(),
            Buffer::Float16(v) => v.iter().map(|x| x.to_scalar()).collect(),
            Buffer::BFloat16(v) => v.iter().map(|x| x.to_scalar()).collect(),
            Buffer::Float32(v) => v.iter().map(|x| x.to_scalar()).collect(),
            Buffer::Float64(v) => v.iter().map(|x| x.to_scalar()).collect(),
            Buffer::Complex32(v) => v.iter().map(|x| x.to_scalar()).collect(),
            Buffer::Complex64(v) => v.iter().map(|x| x.to_scalar()).collect(),
            Buffer::Complex128(v) => v.iter().map(|x| x.to_scalar()).collect(),
        }
    }

    /// The address of the first element, for the kernels' raw loops. Valid while the buffer
    /// is neither dropped nor resized.
    pub(crate) fn base_ptr(&mut self) -> *mut u8 {
        match self {
            Buffer::Bool(v) => v.as_mut_ptr().cast::<u8>(),
            Buffer::UInt8(v) => v.as_mut_ptr().cast::<u8>(),
            Buffer::Int8(v) => v.as_mut_ptr().cast::<u8>(),
            Buffer::Int16(v) => v.as_mut_ptr().cast::<u8>(),
            Buffer::Int32(v) => v.as_mut_ptr().cast::<u8>(),
            Buffer::Int64(v) => v.as_mut_ptr().cast::<u8>(),
            Buffer::Float16(v) => v.as_mut_ptr().cast::<u8>(),
            Buffer::BFloat16(v) => v.as_mut_ptr().cast::<u8>(),
            Buffer::Float32(v) => v.as_mut_ptr().cast::<u8>(),
            Buffer::Float64(v) => v.as_mut_ptr().cast::<u8>(),
            Buffer::Complex32(v) => v.as_mut_ptr().cast::<u8>(),
            Buffer::Complex64(v) => v.as_mut_ptr().cast::<u8>(),
            Buffer::Complex128(v) => v.as_mut_ptr().cast::<u8>(),
        }
    }

    /// [`Buffer::base_ptr`] for reading only.
    pub(crate) fn base_ptr_const(&self) -> *const u8 {
        match self {
            Buffer::Bool(v) => v.as_ptr().cast::<u8>(),
            Buffer::UInt8(v) => v.as_ptr().cast::<u8>(),
            Buffer::Int8(v) => v.as_ptr().cast::<u8>(),
            Buffer::Int16(v) => v.as_ptr().cast::<u8>(),
            Buffer::Int32(v) => v.as_ptr().cast::<u8>(),
            Buffer::Int64(v) => v.as_ptr().cast::<u8>(),
            Buffer::Float16(v) => v.as_ptr().cast::<u8>(),
            Buffer::BFloat16(v) => v.as_ptr().cast::<u8>(),
            Buffer::Float32(v) => v.as_ptr().cast::<u8>(),
            Buffer::Float64(v) => v.as_ptr().cast::<u8>(),
            Buffer::Complex32(v) => v.as_ptr().cast::<u8>(),
            Buffer::Complex64(v) => v.as_ptr().cast::<u8>(),
            Buffer::Complex128(v) => v.as_ptr().cast::<u8>(),
        }
    }

    /// The elements' bytes in memory order (little-endian, as torch's `.view(torch.uint8)`
    /// of a contiguous tensor on this machine).
    pub fn to_le_bytes(&self) -> Vec<u8> {
        let len = self.len() * self.dtype().itemsize();
        let mut bytes = vec![0u8; len];
        // SAFETY: every element type is plain data without padding, `len` bytes long in all.
        unsafe { std::ptr::copy_nonoverlapping(self.base_ptr_const(), bytes.as_mut_ptr(), len) };
        bytes
    }

    /// A buffer of `dtype` from its elements' bytes ([`Buffer::to_le_bytes`]); `None` when the
    /// length is not a multiple of the item size, or a `bool` byte is neither 0 nor 1.
    pub fn from_le_bytes(dtype: DType, bytes: &[u8]) -> Option<Buffer> {
        let size = dtype.itemsize();
        if !bytes.chunks_exact(size).remainder().is_empty()
            || (dtype == DType::Bool && bytes.iter().any(|&b| b > 1))
        {
            return None;
        }
        let mut buffer = Buffer::zeros(dtype, bytes.len() / size).ok()?;
        // SAFETY: the buffer holds exactly `bytes.len()` bytes of plain data, and every bit
        // pattern copied is valid for its type (bool bytes checked above).
        unsafe { std::ptr::copy_nonoverlapping(bytes.as_ptr(), buffer.base_ptr(), bytes.len()) };
        Some(buffer)
    }

    /// Grows the buffer to `len` elements (new elements are zero); never shrinks it.
    pub fn grow_to(&mut self, len: usize) -> Result<()> {
        if len <= self.len() {
            return Ok(());
        }
        check_allocation(self.dtype(), len)?;
        self.extend_zeros(len);
        Ok(())
    }

    /// Appends zeros up to `len` elements.
    fn extend_zeros(&mut self, len: usize) {
        match self {
            Buffer::Bool(v) => v.resize(len, Default::default()),
            Buffer::UInt8(v) => v.resize(len, Default::default()),
            Buffer::Int8(v) => v.resize(len, Default::default()),
            Buffer::Int16(v) => v.resize(len, Default::default()),
            Buffer::Int32(v) => v.resize(len, Default::default()),
            Buffer::Int64(v) => v.resize(len, Default::default()),
            Buffer::Float16(v) => v.resize(len, Default::default()),
            Buffer::BFloat16(v) => v.resize(len, Default::default()),
            Buffer::Float32(v) => v.resize(len, Default::default()),
            Buffer::Float64(v) => v.resize(len, Default::default()),
            Buffer::Complex32(v) => v.resize(len, Default::default()),
            Buffer::Complex64(v) => v.resize(len, Default::default()),
            Buffer::Complex128(v) => v.resize(len, Default::default()),
        }
    }

    /// Takes the first `len` elements of the reserved memory as the buffer's elements.
    ///
    /// # Safety
    /// The buffer has room for `len` elements and every one of them has been written.
    unsafe fn assume_written(&mut self, len: usize) {
        match self {
            Buffer::Bool(v) => v.set_len(len),
            Buffer::UInt8(v) => v.set_len(len),
            Buffer::Int8(v) => v.set_len(len),
            Buffer::Int16(v) => v.set_len(len),
            Buffer::Int32(v) => v.set_len(len),
            Buffer::Int64(v) => v.set_len(len),
            Buffer::Float16(v) => v.set_len(len),
            Buffer::BFloat16(v) => v.set_len(len),
            Buffer::Float32(v) => v.set_len(len),
            Buffer::Float64(v) => v.set_len(len),
            Buffer::Complex32(v) => v.set_len(len),
            Buffer::Complex64(v) => v.set_len(len),
            Buffer::Complex128(v) => v.set_len(len),
        }
    }
}

/// Fails, as torch's allocator does, when `len` elements cannot be allocated (more than
/// [`allocation_limit`]).
pub(crate) fn check_allocation(dtype: DType, len: usize) -> Result<()> {
    if len > allocation_limit() {
        return Err(Error::out_of_memory(
            (len as u128) * dtype.itemsize() as u128,
        ));
    }
    Ok(())
}

/// Access to the matching variant of [`Buffer`] from an element type.
pub trait BufferElement: Sized {
    /// The slice, when the buffer holds this type.
    fn buffer_slice(b: &Buffer) -> Option<&[Self]>;
    /// The mutable slice, when the buffer holds this type.
    fn buffer_slice_mut(b: &mut Buffer) -> Option<&mut [Self]>;
    /// Wraps a vector in the matching buffer variant.
    fn into_buffer(v: Vec<Self>) -> Buffer;
}

macro_rules! buffer_element {
    ($t:ty, $variant:ident) => {
        impl BufferElement for $t {
            fn buffer_slice(b: &Buffer) -> Option<&[Self]> {
                match b {
                    Buffer::$variant(v) => Some(v),
                    _ => None,
                }
            }
            fn buffer_slice_mut(b: &mut Buffer) -> Option<&mut [Self]> {
                match b {
                    Buffer::$variant(v) => Some(v),
                    _ => None,
                }
            }
            fn into_buffer(v: Vec<Self>) -> Buffer {
                Buffer::$variant(v)
            }
        }
        impl From<Vec<$t>> for Buffer {
            fn from(v: Vec<$t>) -> Buffer {
                Buffer::$variant(v)
            }
        }
    };
}
buffer_element!(bool, Bool);
buffer_element!(u8, UInt8);
buffer_element!(i8, Int8);
buffer_element!(i16, Int16);
buffer_element!(i32, Int32);
buffer_element!(i64, Int64);
buffer_element!(Half, Float16);
buffer_element!(BFloat16, BFloat16);
buffer_element!(f32, Float32);
buffer_element!(f64, Float64);
buffer_element!(Complex<Half>, Complex32);
buffer_element!(Complex<f32>, Complex64);
buffer_element!(Complex<f64>, Complex128);

/// A shared handle to a [`Buffer`]. Every view of a tensor holds one; clones share.
#[derive(Debug, Clone)]
pub struct Storage(Arc<Shared>);

/// What the handles share: the buffer, whether its memory is as the allocator gave it, and
/// the zeros it still owes.
#[derive(Debug)]
struct Shared {
    buffer: RwLock<Buffer>,
    /// Allocated and not yet written by a kernel: large buffers are then pages the OS has not
    /// yet supplied, which it zeroes (leaving them in cache) on the first write.
    untouched: AtomicBool,
    /// The elements [`Storage::zeros`] reserved and has not written yet (0 when none): the
    /// buffer is then empty with room for this many. Whatever locks the buffer writes the
    /// zeros first, except a kernel about to write every element ([`Storage::lock_owing`]),
    /// which saves that pass. Changed only under the write lock, and only to 0.
    owed: AtomicUsize,
}

impl Storage {
    /// Wraps a buffer in a new storage.
    pub fn new(buffer: Buffer) -> Storage {
        Storage::wrap(buffer, false, 0)
    }

    fn wrap(buffer: Buffer, untouched: bool, owed: usize) -> Storage {
        Storage(Arc::new(Shared {
            buffer: RwLock::new(buffer),
            untouched: AtomicBool::new(untouched),
            owed: AtomicUsize::new(owed),
        }))
    }

    /// A new storage of `len` zeros. The zeros are written when the storage is first locked,
    /// unless a kernel overwrites every element first.
    ///
    /// ```
    /// use bcast_engine::{DType, Scalar, Storage};
    /// let s = Storage::zeros(DType::Int32, 3).unwrap();
    /// assert_eq!(s.len(), 3);
    /// assert_eq!(s.to_scalars(), vec![Scalar::Int(0); 3]);
    /// ```
    pub fn zeros(dtype: DType, len: usize) -> Result<Storage> {
        Ok(Storage::wrap(Buffer::reserved(dtype, len)?, true, len))
    }

    /// Grows the storage to `len` elements, the new ones zero; it never shrinks. An empty
    /// storage (`torch.empty(0)`, the output a resized `out=` or `torch.where` starts from)
    /// grows as [`Storage::zeros`] allocates: huge pages advised, the zeros owed, so that a
    /// loop that writes every element never writes them.
    ///
    /// ```
    /// use bcast_engine::{DType, Scalar, Storage};
    /// let s = Storage::zeros(DType::Int32, 0).unwrap();
    /// s.grow_to(3).unwrap();
    /// assert_eq!(s.to_scalars(), vec![Scalar::Int(0); 3]);
    /// ```
    ///
    /// # Errors
    /// When `len` is more than the engine allocates.
    pub fn grow_to(&self, len: usize) -> Result<()> {
        let mut buffer = self.lock_write();
        let owed = self.0.owed.load(Ordering::Relaxed);
        if len <= buffer.len().max(owed) {
            return Ok(());
        }
        if buffer.is_empty() && owed == 0 {
            *buffer = Buffer::reserved(buffer.dtype(), len)?;
            self.0.owed.store(len, Ordering::Release);
            self.0.untouched.store(true, Ordering::Relaxed);
            return Ok(());
        }
        self.settle_zeros(&mut buffer);
        buffer.grow_to(len)
    }

    /// Whether this storage was allocated and no kernel has written it since; the answer is
    /// `true` once at most, as the caller is about to write it. A hint for how to write (see
    /// the element-wise loops), never for what it holds.
    pub(crate) fn take_untouched(&self) -> bool {
        self.0.untouched.swap(false, Ordering::Relaxed)
    }

    /// Locks the buffer for writing without writing the zeros it owes, and says how many
    /// elements it owes (0 when none). The caller either writes every one of them and calls
    /// [`Storage::settle_written`], or calls [`Storage::settle_zeros`], before anything else
    /// can see the buffer: until then it is empty.
    pub(crate) fn lock_owing(&self) -> (RwLockWriteGuard<'_, Buffer>, usize) {
        let guard = self.lock_write();
        let owed = self.0.owed.load(Ordering::Relaxed);
        (guard, owed)
    }

    /// Writes the zeros the storage owes into `buffer`, this storage's locked buffer.
    pub(crate) fn settle_zeros(&self, buffer: &mut Buffer) {
        let owed = self.0.owed.load(Ordering::Relaxed);
        if owed != 0 {
            buffer.extend_zeros(owed);
            self.0.owed.store(0, Ordering::Release);
            ZEROS_WRITTEN.with(|n| n.set(n.get() + 1));
        }
    }

    /// Takes the elements a kernel wrote into `buffer`, this storage's locked buffer, as its
    /// contents; the storage owes nothing after.
    ///
    /// # Safety
    /// `buffer` was locked by [`Storage::lock_owing`] and every element it owed has been
    /// written through [`Buffer::base_ptr`] since.
    pub(crate) unsafe fn settle_written(&self, buffer: &mut Buffer) {
        let owed = self.0.owed.load(Ordering::Relaxed);
        if owed != 0 {
            // SAFETY: the buffer has room for `owed` elements (`Buffer::reserved`), all
            // written, as the caller promises.
            unsafe { buffer.assume_written(owed) };
            self.0.owed.store(0, Ordering::Release);
        }
    }

    /// Whether both handles refer to the same storage.
    pub fn same_as(&self, other: &Storage) -> bool {
        Arc::ptr_eq(&self.0, &other.0)
    }

    /// Whether this is the only handle to the storage (no other tensor views it).
    pub(crate) fn is_unique(&self) -> bool {
        Arc::strong_count(&self.0) == 1
    }

    /// A stable identity for ordering locks and telling storages apart.
    pub fn id(&self) -> usize {
        Arc::as_ptr(&self.0) as usize
    }

    /// Locks the buffer for reading.
    pub fn read(&self) -> RwLockReadGuard<'_, Buffer> {
        if self.0.owed.load(Ordering::Acquire) != 0 {
            drop(self.write());
        }
        self.lock_read()
    }

    /// Locks the buffer for writing.
    pub fn write(&self) -> RwLockWriteGuard<'_, Buffer> {
        let mut guard = self.lock_write();
        self.settle_zeros(&mut guard);
        guard
    }

    /// The read lock, as the buffer is (empty while it owes zeros).
    fn lock_read(&self) -> RwLockReadGuard<'_, Buffer> {
        self.0
            .buffer
            .read()
            .unwrap_or_else(|poisoned| poisoned.into_inner())
    }

    /// The write lock, as the buffer is (empty while it owes zeros).
    fn lock_write(&self) -> RwLockWriteGuard<'_, Buffer> {
        self.0
            .buffer
            .write()
            .unwrap_or_else(|poisoned| poisoned.into_inner())
    }

    /// The number of elements.
    pub fn len(&self) -> usize {
        let buffer = self.lock_read();
        buffer.len().max(self.0.owed.load(Ordering::Relaxed))
    }

    /// Whether the storage has no elements.
    pub fn is_empty(&self) -> bool {
        self.len() == 0
    }

    /// The element type.
    pub fn dtype(&self) -> DType {
        self.lock_read().dtype()
    }

    /// A copy of every element, as scalars.
    pub fn to_scalars(&self) -> Vec<Scalar> {
        self.read().to_scalars()
    }
}

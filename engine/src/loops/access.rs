//! Locking the storages of an iteration and handing the raw loops typed base pointers.
//!
//! A new output still owes its zeros ([`Storage::zeros`]); when the loop will write every
//! element of it, the output is pinned without them and [`Pinned::wrote_output`] takes what
//! the loop wrote as its contents, so the zeros are never written.

use crate::{Buffer, DType, Element, Error, Result, Storage, Tensor};
use smallvec::SmallVec;
use std::sync::{RwLockReadGuard, RwLockWriteGuard};

#[allow(dead_code)] // the read guards are held for their locks, never read
enum Guard<'a> {
    Read(RwLockReadGuard<'a, Buffer>),
    Write(RwLockWriteGuard<'a, Buffer>),
}

struct Locked<'a> {
    id: usize,
    dtype: DType,
    len: usize,
    base: *mut u8,
    guard: Guard<'a>,
    /// The output's storage, when it was pinned owing its zeros.
    owing: Option<&'a Storage>,
}

/// The storages of one output and its inputs, each locked once: the output's for writing (an
/// input viewing the same storage reads through it), the others for reading.
pub(crate) struct Pinned<'a> {
    locked: SmallVec<[Locked<'a>; 4]>,
}

impl<'a> Pinned<'a> {
    /// Locks the storages of `output` and `inputs`, in storage order. An output storage that
    /// owes its zeros is pinned without them when `output` views every element of it and no
    /// input shares it; the caller then writes every element and calls
    /// [`Pinned::wrote_output`].
    pub(crate) fn new(output: &'a Tensor, inputs: &[&'a Tensor]) -> Pinned<'a> {
        let mut all: SmallVec<[(&'a Tensor, bool); 4]> = smallvec::smallvec![(output, true)];
        all.extend(inputs.iter().map(|&t| (t, false)));
        all.sort_by_key(|(t, write)| (t.storage().id(), !*write));
        let mut locked: SmallVec<[Locked<'a>; 4]> = SmallVec::new();
        for (t, write) in all {
            let storage = t.storage();
            if locked.iter().any(|l| l.id == storage.id()) {
                continue;
            }
            let mut owing = None;
            let (base, len, dtype, guard) = if write {
                let (mut g, owed) = storage.lock_owing();
                let len = if owed != 0
                    && views_all(t, owed)
                    && !inputs.iter().any(|i| i.shares_storage(t))
                {
                    owing = Some(storage);
                    owed
                } else {
                    storage.settle_zeros(&mut g);
                    g.len()
                };
                (g.base_ptr(), len, g.dtype(), Guard::Write(g))
            } else {
                let g = storage.read();
                (
                    g.base_ptr_const() as *mut u8,
                    g.len(),
                    g.dtype(),
                    Guard::Read(g),
                )
            };
            locked.push(Locked {
                id: storage.id(),
                dtype,
                len,
                base,
                guard,
                owing,
            });
        }
        Pinned { locked }
    }

    /// Takes what the loop wrote as the contents of an output pinned owing its zeros.
    ///
    /// # Safety
    /// Every element of the output given to [`Pinned::new`] has been written through the
    /// pointer [`Pinned::base`] gave for it.
    pub(crate) unsafe fn wrote_output(mut self) {
        for l in &mut self.locked {
            if let (Some(storage), Guard::Write(g)) = (l.owing, &mut l.guard) {
                // SAFETY: the output views every element the storage owed (`views_all`), and
                // the caller wrote every element of the output.
                unsafe { storage.settle_written(g) };
            }
        }
    }

    /// The base pointer of `t`'s storage as `T`, after checking that every element `t` views
    /// lies inside it.
    ///
    /// # Errors
    /// When `T` is not the storage's type or the view reaches past the storage (neither can
    /// happen for a tensor built through the engine's checked constructors).
    pub(crate) fn base<T: Element>(&self, t: &Tensor) -> Result<*mut T> {
        self.base_of(t, T::DTYPE).map(|p| p as *mut T)
    }

    /// The base pointer of `t`'s storage, of `dtype`, checked as [`Pinned::base`] checks it.
    ///
    /// # Errors
    /// As for [`Pinned::base`].
    pub(crate) fn base_of(&self, t: &Tensor, dtype: DType) -> Result<*mut u8> {
        let l = self
            .locked
            .iter()
            .find(|l| l.id == t.storage().id())
            .ok_or_else(|| Error::internal("storage not pinned"))?;
        if l.dtype != dtype {
            return Err(Error::internal(format!(
                "pinned a storage of {} as {}",
                l.dtype.scalar_type_name(),
                dtype.scalar_type_name()
            )));
        }
        match t.layout().required_storage_len() {
            Some(needed) if needed <= l.len => Ok(l.base),
            _ => Err(Error::internal("view out of storage bounds")),
        }
    }
}

/// Whether `t` views each of the first `len` elements of its storage exactly once.
fn views_all(t: &Tensor, len: usize) -> bool {
    let layout = t.layout();
    layout.offset() == 0 && t.numel() == len && layout.is_non_overlapping_and_dense()
}

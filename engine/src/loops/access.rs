//! Locking the storages of an iteration and handing the raw loops typed base pointers.

use crate::{Buffer, DType, Element, Error, Result, Tensor};
use smallvec::SmallVec;
use std::sync::{RwLockReadGuard, RwLockWriteGuard};

#[allow(dead_code)] // the guards are held for their locks, never read
enum Guard<'a> {
    Read(RwLockReadGuard<'a, Buffer>),
    Write(RwLockWriteGuard<'a, Buffer>),
}

struct Locked<'a> {
    id: usize,
    dtype: DType,
    len: usize,
    base: *mut u8,
    _guard: Guard<'a>,
}

/// The storages of one output and its inputs, each locked once: the output's for writing (an
/// input viewing the same storage reads through it), the others for reading.
pub(crate) struct Pinned<'a> {
    locked: SmallVec<[Locked<'a>; 4]>,
}

impl<'a> Pinned<'a> {
    /// Locks the storages of `output` and `inputs`, in storage order.
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
            let (base, len, dtype, guard) = if write {
                let mut g = storage.write();
                (g.base_ptr(), g.len(), g.dtype(), Guard::Write(g))
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
                _guard: guard,
            });
        }
        Pinned { locked }
    }

    /// The base pointer of `t`'s storage as `T`, after checking that every element `t` views
    /// lies inside it.
    ///
    /// # Errors
    /// When `T` is not the storage's type or the view reaches past the storage (neither can
    /// happen for a tensor built through the engine's checked constructors).
    pub(crate) fn base<T: Element>(&self, t: &Tensor) -> Result<*mut T> {
        let l = self
            .locked
            .iter()
            .find(|l| l.id == t.storage().id())
            .ok_or_else(|| Error::internal("storage not pinned"))?;
        if l.dtype != T::DTYPE {
            return Err(Error::internal(format!(
                "pinned a storage of {} as {}",
                T::DTYPE.scalar_type_name(),
                l.dtype.scalar_type_name()
            )));
        }
        match t.layout().required_storage_len() {
            Some(needed) if needed <= l.len => Ok(l.base as *mut T),
            _ => Err(Error::internal("view out of storage bounds")),
        }
    }
}

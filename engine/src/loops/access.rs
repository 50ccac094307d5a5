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

#[cfg(test)]
mod tests {
    use crate::config::{with_strategy, Strategy};
    use crate::loops::{map_binary, map_unary};
    use crate::ops::{binary, BinaryOp};
    use crate::storage::ZEROS_WRITTEN;
    use crate::{DType, Tensor};

    fn zeros_written() -> usize {
        ZEROS_WRITTEN.with(|n| n.get())
    }

    #[test]
    fn an_output_written_whole_never_gets_its_zeros() {
        for strategy in [Strategy::Plan, Strategy::IndexMap] {
            with_strategy(strategy, || {
                let a = Tensor::from_vec(vec![1.0f32, 2.0, 3.0], &[3, 1]).unwrap();
                let b = Tensor::from_vec(vec![10.0f32, 20.0], &[2]).unwrap();
                let out = Tensor::zeros(&[3, 2], DType::Float32).unwrap();
                assert_eq!(out.storage().len(), 6);
                let before = zeros_written();
                map_binary(&out, &a, &b, |x: f32, y: f32| x + y).unwrap();
                assert_eq!(zeros_written(), before, "{strategy:?}");
                assert_eq!(
                    out.to_vec::<f32>().unwrap(),
                    vec![11.0, 21.0, 12.0, 22.0, 13.0, 23.0]
                );
                assert_eq!(out.storage().len(), 6);
            });
        }
    }

    #[test]
    fn a_permuted_dense_output_is_written_whole() {
        let a = Tensor::from_vec((0..6).map(|i| i as i64).collect(), &[2, 3]).unwrap();
        let out = Tensor::zeros(&[3, 2], DType::Int64)
            .unwrap()
            .permute(&[1, 0])
            .unwrap();
        let before = zeros_written();
        map_unary(&out, &a, |x: i64| x * 10).unwrap();
        assert_eq!(zeros_written(), before);
        assert_eq!(out.to_vec::<i64>().unwrap(), vec![0, 10, 20, 30, 40, 50]);
        assert_eq!(out.storage().to_scalars().len(), 6);
    }

    #[test]
    fn an_output_that_views_part_of_its_storage_gets_its_zeros_first() {
        let whole = Tensor::zeros(&[4], DType::Int32).unwrap();
        let out = whole.narrow(0, 1, 2).unwrap();
        let a = Tensor::from_vec(vec![7i32, 8], &[2]).unwrap();
        let before = zeros_written();
        map_unary(&out, &a, |x: i32| x).unwrap();
        assert_eq!(zeros_written(), before + 1);
        assert_eq!(whole.to_vec::<i32>().unwrap(), vec![0, 7, 8, 0]);
    }

    #[test]
    fn an_output_an_input_shares_gets_its_zeros_first() {
        let out = Tensor::zeros(&[3], DType::Float64).unwrap();
        let before = zeros_written();
        map_unary(&out, &out, |x: f64| x + 1.0).unwrap();
        assert_eq!(zeros_written(), before + 1);
        assert_eq!(out.to_vec::<f64>().unwrap(), vec![1.0; 3]);
    }

    #[test]
    fn a_failed_loop_leaves_the_zeros_owed() {
        let out = Tensor::zeros(&[2, 2], DType::Float32).unwrap();
        let a = Tensor::from_vec(vec![1.0f32, 2.0, 3.0], &[3]).unwrap();
        let err = map_unary(&out, &a, |x: f32| x).unwrap_err();
        assert!(err.message().contains("does not broadcast"), "{err:?}");
        assert_eq!(out.storage().len(), 4);
        let before = zeros_written();
        assert_eq!(out.to_vec::<f32>().unwrap(), vec![0.0; 4]);
        assert_eq!(zeros_written(), before + 1);
    }

    #[test]
    fn an_op_allocating_its_output_skips_the_zeros() {
        let a = Tensor::from_vec((0..64).map(|i| i as f32).collect(), &[8, 8]).unwrap();
        let b = Tensor::from_vec((0..8).map(|i| i as f32).collect(), &[8]).unwrap();
        let before = zeros_written();
        let sum = binary(BinaryOp::Add(1.into()), &a, &b, None).unwrap();
        assert_eq!(zeros_written(), before);
        let expected: Vec<f32> = (0..64).map(|i| (i + i % 8) as f32).collect();
        assert_eq!(sum.to_vec::<f32>().unwrap(), expected);
    }
}

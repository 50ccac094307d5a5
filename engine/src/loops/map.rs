//! The typed loops: one output and up to three inputs, driven by the plan (see
//! [`super::kernel`] for the inner loops, [`super::exec`] for threads and walk orders) or by
//! the naive index map. Ops supply only the per-element function. An input of another dtype
//! than the function reads is converted with torch's casts: as the plan's loops load it
//! ([`super::cast`]), or whole first for the index map.
//!
//! ```
//! use bcast_engine::{loops::map_binary, Tensor};
//! let a = Tensor::from_vec(vec![1.0f32, 2.0, 3.0], &[3, 1]).unwrap();
//! let b = Tensor::from_vec(vec![10.0f32, 20.0], &[2]).unwrap();
//! let out = Tensor::zeros(&[3, 2], bcast_engine::DType::Float32).unwrap();
//! map_binary(&out, &a, &b, |x: f32, y: f32| x + y).unwrap();
//! assert_eq!(out.to_vec::<f32>().unwrap(), vec![11.0, 21.0, 12.0, 22.0, 13.0, 23.0]);
//! ```

use super::access::Pinned;
use super::cast::{loaded, Cast, CastOnLoad};
use super::exec::{execute, independent};
use super::kernel::{
    Binary, GuardedBinary, Rows, RunBinary, RunUnary, Ternary, Unary, WidenedBinary,
};
use super::{BinaryRun, UnaryRun};
use crate::config::{strategy, Strategy};
use crate::half::WidenSlice;
use crate::index_map::{broadcast_storage_index, unravel};
use crate::iter::Plan;
use crate::shape::{format_shape, is_expandable_to};
use crate::{Element, Error, Result, Tensor};

/// Walks every element of `tensors[0]` (the output) with its inputs' positions: the plan's
/// loops run `kernel` over the storages at `bases` (pinned by `pinned`), converting the
/// inputs with a cast as they load them ([`CastOnLoad`]), the index map calls `element` on
/// single elements. Once every element is written, the output takes them as its
/// contents ([`Pinned::wrote_output`]).
///
/// Compiled once per operand count: the kernel is called through `dyn` once per block of
/// the plan (a `len` x `rows` rectangle) and the index map's `element` once per element (it
/// is the naive walk). The copies per kernel had been a fifth of the engine's code.
fn drive<const N: usize>(
    pinned: Pinned<'_>,
    tensors: [&Tensor; N],
    bases: [*mut u8; N],
    casts: [Option<Cast>; N],
    kernel: &dyn Rows<N>,
    element: &mut dyn FnMut(&[usize]),
) -> Result<()> {
    match walk_for(tensors)? {
        Some(PlanWalk {
            plan,
            independent,
            fresh,
        }) => {
            // SAFETY: `bases` come from `Pinned::base`, which checked that every position
            // of every layout lies inside its storage, and holds the locks meanwhile; an
            // input with a cast is read as its storage's dtype.
            unsafe {
                if casts.iter().any(Option::is_some) {
                    execute(
                        &plan,
                        bases,
                        &CastOnLoad::new(kernel, casts),
                        independent,
                        fresh,
                    )
                } else {
                    execute(&plan, bases, kernel, independent, fresh)
                }
            };
        }
        None => {
            // `loaded` gives casts only to the plan's loops.
            if casts.iter().any(Option::is_some) {
                return Err(Error::internal("a cast on load under the index map"));
            }
            let out = tensors[0];
            let shape = out.shape();
            let mut offsets = vec![0; N];
            for i in 0..out.numel() {
                let index = unravel(i, shape);
                offsets[0] = out.layout().storage_index(&index);
                for (k, t) in tensors.iter().enumerate().skip(1) {
                    offsets[k] = broadcast_storage_index(t.layout(), &index);
                }
                element(&offsets);
            }
        }
    }
    // SAFETY: both walks above wrote every element of the output through `bases[0]`.
    unsafe { pinned.wrote_output() };
    Ok(())
}

/// The plan's loops for [`drive`], and what [`execute`] needs to know of the operands.
struct PlanWalk {
    plan: Plan,
    independent: bool,
    fresh: bool,
}

/// [`drive`]'s setup, which does not depend on the kernel (so it is compiled once per
/// operand count, not once per kernel): checks that every input broadcasts to the output's
/// shape, and under the plan strategy builds the plan (`None`: the naive index map).
/// Inlined into [`drive`], so the plan is built in its frame rather than moved there.
#[inline(always)]
fn walk_for<const N: usize>(tensors: [&Tensor; N]) -> Result<Option<PlanWalk>> {
    let out = tensors[0];
    let shape = out.shape();
    for t in &tensors[1..] {
        if !is_expandable_to(t.shape(), shape) {
            return Err(Error::internal(format!(
                "input of shape {} does not broadcast to the output shape {}",
                format_shape(t.shape()),
                format_shape(shape)
            )));
        }
    }
    Ok(match strategy() {
        Strategy::Plan => {
            let layouts = tensors.map(|t| t.layout());
            let plan = Plan::new(shape, &layouts);
            let shares = tensors.map(|t| t.shares_storage(out));
            let fresh = out.storage().take_untouched();
            let independent = independent(&plan, shares);
            Some(PlanWalk {
                plan,
                independent,
                fresh,
            })
        }
        Strategy::IndexMap => None,
    })
}

/// Writes `f(a)` into every element of `out`; `a` broadcasts to `out`'s shape.
///
/// # Errors
/// When the output's element type does not match its storage, an input's conversion cannot
/// be allocated, or `a` does not broadcast to `out`.
pub fn map_unary<A: Element, R: Element>(
    out: &Tensor,
    a: &Tensor,
    f: impl Fn(A) -> R + Sync,
) -> Result<()> {
    drive_unary(out, a, &Unary::new(&f), &f)
}

/// Writes `f(a)` into every element of `out`, as [`map_unary`] does, with contiguous rows
/// through `run`, a vectorised form of `f` ([`RunUnary`]).
///
/// # Errors
/// As for [`map_unary`].
pub(crate) fn map_unary_run<A: Element, R: Element>(
    out: &Tensor,
    a: &Tensor,
    f: impl Fn(A) -> R + Sync,
    run: UnaryRun<A, R>,
) -> Result<()> {
    drive_unary(out, a, &RunUnary::new(&f, run), &f)
}

/// The one-input walk behind the `map_unary` forms: `kernel` over the plan's rows, and
/// `element` (the same function, one element at a time) where the index map drives. Both
/// through `dyn`, so this is compiled once per pair of element types, not once per op.
fn drive_unary<A: Element, R: Element>(
    out: &Tensor,
    a: &Tensor,
    kernel: &dyn Rows<2>,
    element: &dyn Fn(A) -> R,
) -> Result<()> {
    let (a, cast) = loaded::<A>(a)?;
    let pinned = Pinned::new(out, &[&a]);
    let (po, pa) = (pinned.base::<R>(out)?, input_base::<A>(&pinned, &a, cast)?);
    drive(
        pinned,
        [out, &a],
        [po as *mut u8, pa as *mut u8],
        [None, cast],
        kernel,
        // SAFETY: the index map yields positions of the validated layouts.
        &mut |k| unsafe { po.add(k[0]).write(element(pa.add(k[1]).read())) },
    )
}

/// Writes `f(a, b)` into every element of `out`; the inputs broadcast to `out`'s shape.
///
/// # Errors
/// As for [`map_unary`].
pub fn map_binary<A: Element, B: Element, R: Element>(
    out: &Tensor,
    a: &Tensor,
    b: &Tensor,
    f: impl Fn(A, B) -> R + Sync,
) -> Result<()> {
    drive_binary(out, a, b, &Binary::new(&f), &f)
}

/// Writes `exact(a, b)` into every element of `out`, as [`map_binary`] does, where `fast` is
/// a quicker form of `exact` that says whether its value holds ([`GuardedBinary`]: chunks
/// whose fast values all hold keep them, others are redone with `exact`).
///
/// # Errors
/// As for [`map_unary`].
pub(crate) fn map_binary_guarded<A: Element, B: Element, R: Element>(
    out: &Tensor,
    a: &Tensor,
    b: &Tensor,
    fast: impl Fn(A, B) -> (R, bool) + Sync,
    exact: impl Fn(A, B) -> R + Sync,
) -> Result<()> {
    drive_binary(out, a, b, &GuardedBinary::new(&fast, &exact), &exact)
}

/// Writes `g(a, b)` computed in `f32` and rounded into every element of `out`, a `float16`
/// or `bfloat16` tensor like `a` and `b` (which broadcast to `out`'s shape): the same values
/// as [`map_binary`] with `|x, y| T::from_f32(g(x.to_f32(), y.to_f32()))`, converted a slice
/// at a time where [`WidenSlice::BY_SLICE`] says so (see [`WidenedBinary`]).
///
/// # Errors
/// As for [`map_unary`].
pub(crate) fn map_binary_widened<T: WidenSlice>(
    out: &Tensor,
    a: &Tensor,
    b: &Tensor,
    g: impl Fn(f32, f32) -> f32 + Sync,
) -> Result<()> {
    let element = |x: T, y: T| T::from_f32(g(x.cast::<f32>(), y.cast::<f32>()));
    if !T::BY_SLICE {
        return map_binary(out, a, b, element);
    }
    drive_binary(out, a, b, &WidenedBinary::<T, _>::new(&g), &element)
}

/// Writes `f(a, b)` into every element of `out`, as [`map_binary`] does, with contiguous
/// rows (and rows with a stride-0 input) through `run`, a vectorised form of `f`
/// ([`RunBinary`]).
///
/// # Errors
/// As for [`map_unary`].
pub(crate) fn map_binary_run<A: Element, B: Element, R: Element>(
    out: &Tensor,
    a: &Tensor,
    b: &Tensor,
    f: impl Fn(A, B) -> R + Sync,
    run: BinaryRun<A, B, R>,
) -> Result<()> {
    drive_binary(out, a, b, &RunBinary::new(&f, run), &f)
}

/// The two-input walk behind the `map_binary` forms: `kernel` over the plan's rows, and
/// `element` (the same function, one element at a time) where the index map drives; both
/// through `dyn`, as in [`drive_unary`].
fn drive_binary<A: Element, B: Element, R: Element>(
    out: &Tensor,
    a: &Tensor,
    b: &Tensor,
    kernel: &dyn Rows<3>,
    element: &dyn Fn(A, B) -> R,
) -> Result<()> {
    let ((a, ca), (b, cb)) = (loaded::<A>(a)?, loaded::<B>(b)?);
    let pinned = Pinned::new(out, &[&a, &b]);
    let po = pinned.base::<R>(out)?;
    let (pa, pb) = (
        input_base::<A>(&pinned, &a, ca)?,
        input_base::<B>(&pinned, &b, cb)?,
    );
    drive(
        pinned,
        [out, &a, &b],
        [po as *mut u8, pa as *mut u8, pb as *mut u8],
        [None, ca, cb],
        kernel,
        // SAFETY: as in `drive_unary`.
        &mut |k| unsafe {
            po.add(k[0])
                .write(element(pa.add(k[1]).read(), pb.add(k[2]).read()))
        },
    )
}

/// Writes `f(a, b, c)` into every element of `out`; the inputs broadcast to `out`'s shape.
///
/// # Errors
/// As for [`map_unary`].
pub fn map_ternary<A: Element, B: Element, C: Element, R: Element>(
    out: &Tensor,
    a: &Tensor,
    b: &Tensor,
    c: &Tensor,
    f: impl Fn(A, B, C) -> R + Sync,
) -> Result<()> {
    drive_ternary(out, a, b, c, &Ternary::new(&f), &f)
}

/// The three-input walk behind [`map_ternary`], through `dyn` as in [`drive_unary`].
fn drive_ternary<A: Element, B: Element, C: Element, R: Element>(
    out: &Tensor,
    a: &Tensor,
    b: &Tensor,
    c: &Tensor,
    kernel: &dyn Rows<4>,
    element: &dyn Fn(A, B, C) -> R,
) -> Result<()> {
    let (a, ca) = loaded::<A>(a)?;
    let ((b, cb), (c, cc)) = (loaded::<B>(b)?, loaded::<C>(c)?);
    let pinned = Pinned::new(out, &[&a, &b, &c]);
    let po = pinned.base::<R>(out)?;
    let (pa, pb, pc) = (
        input_base::<A>(&pinned, &a, ca)?,
        input_base::<B>(&pinned, &b, cb)?,
        input_base::<C>(&pinned, &c, cc)?,
    );
    drive(
        pinned,
        [out, &a, &b, &c],
        [po as *mut u8, pa as *mut u8, pb as *mut u8, pc as *mut u8],
        [None, ca, cb, cc],
        kernel,
        // SAFETY: as in `drive_unary`.
        &mut |k| unsafe {
            po.add(k[0]).write(element(
                pa.add(k[1]).read(),
                pb.add(k[2]).read(),
                pc.add(k[3]).read(),
            ))
        },
    )
}

/// The base pointer of input `t` for a loop reading `T`: its storage as `T`, or, for an input
/// with a cast, its storage as its own dtype (which only [`CastOnLoad`] reads, as bytes; the
/// element function never sees it).
///
/// # Errors
/// As for [`Pinned::base`].
fn input_base<T: Element>(pinned: &Pinned<'_>, t: &Tensor, cast: Option<Cast>) -> Result<*const T> {
    match cast {
        None => pinned.base::<T>(t).map(|p| p as *const T),
        Some(_) => pinned.base_of(t, t.dtype()).map(|p| p as *const T),
    }
}

//! The typed loops: one output and up to three inputs, driven by the plan (with contiguous
//! and stride-0 inner loops) or by the naive index map. Ops supply only the per-element
//! function.
//!
//! ```
//! use bcast_engine::{iter::map_binary, Tensor};
//! let a = Tensor::from_vec(vec![1.0f32, 2.0, 3.0], &[3, 1]).unwrap();
//! let b = Tensor::from_vec(vec![10.0f32, 20.0], &[2]).unwrap();
//! let out = Tensor::zeros(&[3, 2], bcast_engine::DType::Float32).unwrap();
//! map_binary(&out, &a, &b, |x: f32, y: f32| x + y).unwrap();
//! assert_eq!(out.to_vec::<f32>().unwrap(), vec![11.0, 21.0, 12.0, 22.0, 13.0, 23.0]);
//! ```

use super::access::Pinned;
use super::{strategy, Block, Plan, Strategy};
use crate::index_map::{broadcast_storage_index, unravel};
use crate::shape::{format_shape, infer_size};
use crate::{Element, Error, Result, Tensor};

/// Walks every element of `out` with its inputs' positions: blocks from the plan, or single
/// elements from the index map.
fn drive(
    out: &Tensor,
    inputs: &[&Tensor],
    mut block: impl FnMut(&Block),
    mut element: impl FnMut(&[usize]),
) -> Result<()> {
    let shape = out.shape();
    for t in inputs {
        if infer_size(shape, t.shape()).ok().as_deref() != Some(shape) {
            return Err(Error::internal(format!(
                "input of shape {} does not broadcast to the output shape {}",
                format_shape(t.shape()),
                format_shape(shape)
            )));
        }
    }
    match strategy() {
        Strategy::Plan => {
            let mut layouts = vec![out.layout()];
            layouts.extend(inputs.iter().map(|t| t.layout()));
            Plan::new(shape, &layouts).for_each_block(|b| block(b));
        }
        Strategy::IndexMap => {
            let mut offsets = vec![0; inputs.len() + 1];
            for i in 0..out.numel() {
                let index = unravel(i, shape);
                offsets[0] = out.layout().storage_index(&index);
                for (k, t) in inputs.iter().enumerate() {
                    offsets[k + 1] = broadcast_storage_index(t.layout(), &index);
                }
                element(&offsets);
            }
        }
    }
    Ok(())
}

/// One block of a one-input loop.
///
/// # Safety
/// Every position the block reaches is inside the storages behind the pointers.
unsafe fn unary_block<A: Copy, R: Copy>(b: &Block, o: *mut R, a: *const A, f: &impl Fn(A) -> R) {
    for r in 0..b.rows {
        let o = o.add(b.offsets[0] + r * b.row_step[0]);
        let a = a.add(b.offsets[1] + r * b.row_step[1]);
        match (b.step[0], b.step[1]) {
            (1, 1) => (0..b.len).for_each(|i| o.add(i).write(f(a.add(i).read()))),
            (1, 0) => {
                let v = f(a.read());
                (0..b.len).for_each(|i| o.add(i).write(v));
            }
            (so, sa) => (0..b.len).for_each(|i| o.add(i * so).write(f(a.add(i * sa).read()))),
        }
    }
}

/// One block of a two-input loop.
///
/// # Safety
/// As for [`unary_block`].
unsafe fn binary_block<A: Copy, B: Copy, R>(
    b: &Block,
    o: *mut R,
    x: *const A,
    y: *const B,
    f: &impl Fn(A, B) -> R,
) {
    for r in 0..b.rows {
        let o = o.add(b.offsets[0] + r * b.row_step[0]);
        let x = x.add(b.offsets[1] + r * b.row_step[1]);
        let y = y.add(b.offsets[2] + r * b.row_step[2]);
        match (b.step[0], b.step[1], b.step[2]) {
            (1, 1, 1) => {
                (0..b.len).for_each(|i| o.add(i).write(f(x.add(i).read(), y.add(i).read())))
            }
            (1, 1, 0) => {
                let yv = y.read();
                (0..b.len).for_each(|i| o.add(i).write(f(x.add(i).read(), yv)))
            }
            (1, 0, 1) => {
                let xv = x.read();
                (0..b.len).for_each(|i| o.add(i).write(f(xv, y.add(i).read())))
            }
            (so, sx, sy) => (0..b.len).for_each(|i| {
                o.add(i * so)
                    .write(f(x.add(i * sx).read(), y.add(i * sy).read()))
            }),
        }
    }
}

/// One block of a three-input loop.
///
/// # Safety
/// As for [`unary_block`].
unsafe fn ternary_block<A: Copy, B: Copy, C: Copy, R>(
    b: &Block,
    o: *mut R,
    x: *const A,
    y: *const B,
    z: *const C,
    f: &impl Fn(A, B, C) -> R,
) {
    for r in 0..b.rows {
        let o = o.add(b.offsets[0] + r * b.row_step[0]);
        let x = x.add(b.offsets[1] + r * b.row_step[1]);
        let y = y.add(b.offsets[2] + r * b.row_step[2]);
        let z = z.add(b.offsets[3] + r * b.row_step[3]);
        match (b.step[0], b.step[1], b.step[2], b.step[3]) {
            (1, 1, 1, 1) => (0..b.len).for_each(|i| {
                o.add(i)
                    .write(f(x.add(i).read(), y.add(i).read(), z.add(i).read()))
            }),
            (so, sx, sy, sz) => (0..b.len).for_each(|i| {
                o.add(i * so).write(f(
                    x.add(i * sx).read(),
                    y.add(i * sy).read(),
                    z.add(i * sz).read(),
                ))
            }),
        }
    }
}

/// Writes `f(a)` into every element of `out`; `a` broadcasts to `out`'s shape.
///
/// # Errors
/// When an element type does not match a storage, or `a` does not broadcast to `out`.
pub fn map_unary<A: Element, R: Element>(
    out: &Tensor,
    a: &Tensor,
    f: impl Fn(A) -> R,
) -> Result<()> {
    let pinned = Pinned::new(out, &[a]);
    let (po, pa) = (pinned.base::<R>(out)?, pinned.base::<A>(a)? as *const A);
    // SAFETY: `drive` only yields positions of the validated layouts (see `Pinned::base`).
    drive(
        out,
        &[a],
        |b| unsafe { unary_block(b, po, pa, &f) },
        |k| unsafe { po.add(k[0]).write(f(pa.add(k[1]).read())) },
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
    f: impl Fn(A, B) -> R,
) -> Result<()> {
    let pinned = Pinned::new(out, &[a, b]);
    let po = pinned.base::<R>(out)?;
    let (pa, pb) = (
        pinned.base::<A>(a)? as *const A,
        pinned.base::<B>(b)? as *const B,
    );
    // SAFETY: as in `map_unary`.
    drive(
        out,
        &[a, b],
        |blk| unsafe { binary_block(blk, po, pa, pb, &f) },
        |k| unsafe {
            po.add(k[0])
                .write(f(pa.add(k[1]).read(), pb.add(k[2]).read()))
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
    f: impl Fn(A, B, C) -> R,
) -> Result<()> {
    let pinned = Pinned::new(out, &[a, b, c]);
    let po = pinned.base::<R>(out)?;
    let (pa, pb, pc) = (
        pinned.base::<A>(a)? as *const A,
        pinned.base::<B>(b)? as *const B,
        pinned.base::<C>(c)? as *const C,
    );
    // SAFETY: as in `map_unary`.
    drive(
        out,
        &[a, b, c],
        |blk| unsafe { ternary_block(blk, po, pa, pb, pc, &f) },
        |k| unsafe {
            po.add(k[0]).write(f(
                pa.add(k[1]).read(),
                pb.add(k[2]).read(),
                pc.add(k[3]).read(),
            ))
        },
    )
}

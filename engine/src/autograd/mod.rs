//! Reverse-mode differentiation as torch's autograd does it: while a [`Graph`] runs a
//! computation ([`Graph::run`]), every differentiable op the engine calls records a node
//! with torch's backward formula (`tools/autograd/derivatives.yaml`, written with the
//! engine's own ops so that dtypes, promotion and result strides follow TensorIterator), and
//! [`Graph::grad`] then runs the nodes as `torch.autograd.grad` does: each gradient reduced
//! to its input's shape with `sum_to` and cast to its dtype (the engine's
//! `validate_outputs`), gradients of one input accumulated as torch accumulates them, and
//! torch's errors where torch raises them.
//!
//! Composite ops (`matmul`, `einsum`, `reshape`, indexing, `broadcast_tensors`) record the
//! primitives they are made of, as in torch, so their gradients come out with torch's
//! layouts. Nothing is recorded, and nothing allocated, outside [`Graph::run`].
//!
//! ```
//! use bcast_engine::autograd::Graph;
//! use bcast_engine::ops::{binary, BinaryOp};
//! use bcast_engine::Tensor;
//! let mut g = Graph::new();
//! let a = g.leaf(&Tensor::from_vec(vec![1.0f32, 2.0, 3.0], &[3]).unwrap()).unwrap();
//! let b = g.leaf(&Tensor::from_vec(vec![10.0f32, 20.0], &[2, 1]).unwrap()).unwrap();
//! let c = g.run(|| binary(BinaryOp::Mul, &a, &b, None)).unwrap();
//! assert_eq!(c.shape(), &[2, 3]);
//! let up = Tensor::from_vec(vec![1.0f32; 6], &[2, 3]).unwrap();
//! let grads = g.grad(&[(c, up)], &[a, b]).unwrap();
//! // b was stretched along dim 1: its gradient is summed back to (2, 1).
//! let gb = grads[1].as_ref().unwrap();
//! assert_eq!((gb.shape(), gb.to_vec::<f32>().unwrap()), (&[2, 1][..], vec![6.0, 6.0]));
//! assert_eq!(grads[0].as_ref().unwrap().to_vec::<f32>().unwrap(), vec![30.0, 30.0, 30.0]);
//! ```

mod complex_views;
pub(crate) mod elementwise;
mod graph;
pub(crate) mod linalg;
mod math;
pub(crate) mod reduce;
mod sum_to;
pub(crate) mod ternary;
pub(crate) mod views;

pub use elementwise::{check_autograd_call, not_differentiable};
pub use graph::Graph;
pub use sum_to::sum_to;
pub use ternary::with_aten_name;

pub(crate) use graph::{
    check_inplace, is_leaf_requiring_grad, out_error, record, record_inplace, requires_grad, saved,
    Grads, Node,
};

use std::cell::{Cell, RefCell};

thread_local! {
    /// The graph being recorded on this thread, while [`Graph::run`] runs.
    static TAPE: RefCell<Option<Graph>> = const { RefCell::new(None) };
    /// Whether an op called now records itself: inside [`Graph::run`], outside the body of
    /// an op that is recording itself as one node.
    static ACTIVE: Cell<bool> = const { Cell::new(false) };
}

/// Whether the engine's ops record themselves on this thread now (inside [`Graph::run`]).
#[inline]
pub fn recording() -> bool {
    ACTIVE.with(Cell::get)
}

/// Runs `f` (an op's own body, recorded as one node) with recording off, as torch's
/// `AutoDispatchBelowAutograd` does.
pub(crate) fn below<R>(f: impl FnOnce() -> R) -> R {
    let was = ACTIVE.with(|a| a.replace(false));
    let _restore = Restore(was);
    f()
}

/// Sets [`ACTIVE`] back when dropped (also when `f` panics).
struct Restore(bool);

impl Drop for Restore {
    fn drop(&mut self) {
        ACTIVE.with(|a| a.set(self.0));
    }
}

/// Runs `f` on the graph being recorded; `None` outside [`Graph::run`].
pub(crate) fn with_tape<R>(f: impl FnOnce(&mut Graph) -> R) -> Option<R> {
    TAPE.with(|t| t.borrow_mut().as_mut().map(f))
}

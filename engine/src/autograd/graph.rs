//! The recorded graph and its backward: variables (a leaf, or an output of a node, with the
//! shape and dtype it had when it was made: torch's input metadata), nodes (a formula, the
//! variables it sends gradients to, the tensors it saved), storage versions (torch's version
//! counters, which a view shares with its base), and the run of [`Graph::grad`] after
//! torch's engine (`torch/csrc/autograd/engine.cpp`).

use super::complex_views::take_real_views;
use super::sum_to::sum_to;
use super::views::copy_slices_grad;
use super::{below, with_tape, ACTIVE, TAPE};
use crate::ops::{binary, binary_, BinaryOp};
use crate::shape::{format_shape, is_expandable_to};
use crate::{DType, Error, Result, Scalar, Storage, Tensor};

/// The gradients flowing into a node (one per output) or out of it (one per input); `None`
/// where there is none.
pub(crate) type Grads = Vec<Option<Tensor>>;

/// A node's backward: the gradients of its outputs and which inputs need one, to the
/// gradients of its inputs.
pub(crate) type Formula = Box<dyn FnOnce(Grads, &[bool]) -> Result<Grads>>;

/// A node as an op records it.
pub(crate) struct Node {
    /// torch's class name (`MulBackward0`), which its version-counter message names.
    pub name: &'static str,
    /// The differentiable inputs, in the formula's order; `None` for one that is not a
    /// tensor.
    pub inputs: Vec<Option<Tensor>>,
    /// The tensors the formula saved, in the order torch unpacks them (see [`saved`]).
    pub saved: Vec<Saved>,
    /// The backward.
    pub formula: Formula,
}

/// A tensor a formula saved, with the version of its storage when it was saved.
pub(crate) struct Saved {
    tensor: Tensor,
    version: u64,
}

/// A variable: a tensor that requires grad, at one point of its history.
#[derive(Debug)]
struct Var {
    tensor: Tensor,
    shape: Vec<usize>,
    dtype: DType,
    /// The node that made it and which of its outputs it is; `None` for a leaf.
    grad_fn: Option<(usize, usize)>,
}

/// A recorded node.
struct NodeRec {
    name: &'static str,
    next: Vec<Option<usize>>,
    saved: Vec<Saved>,
    formula: Option<Formula>,
    outputs: Vec<usize>,
}

/// A recorded computation, and its backward.
///
/// Make the leaves with [`Graph::leaf`], run the computation with [`Graph::run`] (the
/// engine's ops record themselves), then ask for gradients with [`Graph::grad`]. See the
/// [module](super) for an example.
#[derive(Default)]
pub struct Graph {
    vars: Vec<Var>,
    nodes: Vec<NodeRec>,
    /// Version counters, by storage identity.
    versions: Vec<(usize, u64)>,
    /// Tensors that are views of a base that requires no grad (a case's named views), each
    /// with its base's length when marked: an in-place write on one goes through torch's
    /// `CopySlices`.
    views: Vec<(Tensor, usize)>,
    /// The complex storage each real view's values come from (a gradient `at::real` made):
    /// the float storage holding them, then the complex one.
    real_views: Vec<(Storage, Storage)>,
    /// The error torch's `set_history` raised during the forward (an output of a
    /// differentiable op with a dtype that cannot require grad), first one only.
    forward_error: Option<Error>,
}

impl std::fmt::Debug for Graph {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Graph")
            .field("vars", &self.vars.len())
            .field(
                "nodes",
                &self.nodes.iter().map(|n| n.name).collect::<Vec<_>>(),
            )
            .finish()
    }
}

/// Whether a dtype can require grad.
pub(crate) fn differentiable(dtype: DType) -> bool {
    dtype.is_floating() || dtype.is_complex()
}

impl Graph {
    /// An empty graph.
    pub fn new() -> Graph {
        Graph::default()
    }

    /// `view.detach().requires_grad_()`: a new tensor object with `view`'s storage and layout
    /// that requires grad, a leaf of its own (two views of one storage are two leaves).
    ///
    /// # Errors
    /// torch's, for a dtype that cannot require grad:
    ///
    /// ```
    /// use bcast_engine::autograd::Graph;
    /// use bcast_engine::Tensor;
    /// let x = Tensor::from_vec(vec![1i64, 2], &[2]).unwrap();
    /// let err = Graph::new().leaf(&x).unwrap_err();
    /// assert_eq!(err.message(), "only Tensors of floating point dtype can require gradients");
    /// ```
    pub fn leaf(&mut self, view: &Tensor) -> Result<Tensor> {
        if !differentiable(view.dtype()) {
            return Err(Error::runtime(
                "only Tensors of floating point dtype can require gradients",
            ));
        }
        let leaf = view.detached();
        self.vars.push(Var {
            tensor: leaf.clone(),
            shape: leaf.shape().to_vec(),
            dtype: leaf.dtype(),
            grad_fn: None,
        });
        Ok(leaf)
    }

    /// Marks `t` as a view of a base that requires no grad (as a fixture's named views are
    /// views of their storage in torch): an in-place op that makes it require grad then
    /// records torch's `CopySlices`, whose formula sees a contiguous copy of the gradient as the
    /// base's gradient views it.
    pub fn mark_view(&mut self, t: &Tensor) {
        let base_len = t.storage().len();
        self.views.push((t.clone(), base_len));
    }

    /// The error the forward raised in torch's autograd after an op ran: `set_history` of an
    /// output whose dtype cannot require grad (`Autograd not support dtype: Long`, e.g.
    /// `x.sum(dtype=torch.int64)` of an `x` that requires grad). Taken: a second call gives
    /// `None`.
    pub fn take_forward_error(&mut self) -> Option<Error> {
        self.forward_error.take()
    }

    /// Whether `t` requires grad in this graph.
    pub fn requires_grad(&self, t: &Tensor) -> bool {
        self.var_of(t).is_some()
    }

    /// Runs `f` with this graph recording the engine's ops (see the [module](super)).
    pub fn run<R>(&mut self, f: impl FnOnce() -> R) -> R {
        struct Uninstall;
        impl Drop for Uninstall {
            fn drop(&mut self) {
                ACTIVE.with(|a| a.set(false));
            }
        }
        TAPE.with(|t| *t.borrow_mut() = Some(std::mem::take(self)));
        ACTIVE.with(|a| a.set(true));
        let result = {
            let _uninstall = Uninstall;
            f()
        };
        if let Some(g) = TAPE.with(|t| t.borrow_mut().take()) {
            *self = g;
        }
        result
    }

    /// `torch.autograd.grad([r for r, _ in roots], inputs, [g for _, g in roots],
    /// allow_unused=True)`: the gradient of each of `inputs` (leaves of this graph), `None`
    /// for one the roots do not depend on.
    ///
    /// # Errors
    /// torch's: a root that does not require grad (`element 0 of tensors does not require
    /// grad and does not have a grad_fn`), a saved tensor written in place since (torch's
    /// version counter), and whatever a formula raises (`the derivative for 'zeta' is not
    /// implemented.`).
    pub fn grad(&mut self, roots: &[(Tensor, Tensor)], inputs: &[Tensor]) -> Result<Grads> {
        let mut root_vars = Vec::with_capacity(roots.len());
        for (i, (out, _)) in roots.iter().enumerate() {
            match self.var_of(out) {
                Some(v) => root_vars.push(v),
                None => {
                    return Err(Error::runtime(format!(
                        "element {i} of tensors does not require grad and does not have a grad_fn"
                    )))
                }
            }
        }
        let inputs: Vec<Option<usize>> = inputs.iter().map(|t| self.var_of(t)).collect();
        let mut buffers: Grads = vec![None; self.vars.len()];
        let result = self.backward(roots, &root_vars, &mut buffers);
        self.real_views.extend(take_real_views());
        result?;
        Ok(inputs
            .iter()
            .map(|v| v.and_then(|v| buffers[v].take()))
            .collect())
    }

    /// Sends the roots' gradients through every node, newest first.
    fn backward(
        &mut self,
        roots: &[(Tensor, Tensor)],
        root_vars: &[usize],
        buffers: &mut Grads,
    ) -> Result<()> {
        for ((_, upstream), &v) in roots.iter().zip(root_vars) {
            let g = validate(upstream.clone(), &self.vars[v], "GraphRoot", 0)?;
            accumulate(&mut buffers[v], g)?;
        }
        for id in (0..self.nodes.len()).rev() {
            let node = &mut self.nodes[id];
            if node.outputs.iter().all(|&o| buffers[o].is_none()) {
                continue;
            }
            for s in std::mem::take(&mut node.saved) {
                check_version(&s, &self.vars, &self.versions, &self.nodes_names())?;
            }
            let node = &mut self.nodes[id];
            let grads: Grads = node.outputs.iter().map(|&o| buffers[o].take()).collect();
            let needs: Vec<bool> = node.next.iter().map(Option::is_some).collect();
            let Some(formula) = node.formula.take() else {
                return Err(Error::internal(format!("{} ran twice", node.name)));
            };
            let results = formula(grads, &needs)?;
            let node = &self.nodes[id];
            if results.len() != node.next.len() {
                return Err(Error::internal(format!(
                    "{} returned {} gradients for {} inputs",
                    node.name,
                    results.len(),
                    node.next.len()
                )));
            }
            let name = node.name;
            let next = node.next.clone();
            for (i, (g, v)) in results.into_iter().zip(next).enumerate() {
                if let (Some(g), Some(v)) = (g, v) {
                    let g = validate(g, &self.vars[v], name, i)?;
                    accumulate(&mut buffers[v], g)?;
                }
            }
        }
        Ok(())
    }

    fn nodes_names(&self) -> Vec<&'static str> {
        self.nodes.iter().map(|n| n.name).collect()
    }

    /// The storage a gradient's values belong to: its own, or for a real view of a complex
    /// tensor (`at::real`, which the engine holds as a copy) the complex tensor's.
    pub fn storage_of<'a>(&'a self, t: &'a Tensor) -> &'a Storage {
        self.real_views
            .iter()
            .find(|(copy, _)| copy.same_as(t.storage()))
            .map_or(t.storage(), |(_, complex)| complex)
    }

    /// The newest variable of the tensor object `t`.
    fn var_of(&self, t: &Tensor) -> Option<usize> {
        self.vars.iter().rposition(|v| v.tensor.is_same(t))
    }

    fn version(&self, storage: &Storage) -> u64 {
        self.versions
            .iter()
            .find(|(id, _)| *id == storage.id())
            .map_or(0, |(_, v)| *v)
    }

    fn bump(&mut self, storage: &Storage) {
        match self.versions.iter_mut().find(|(id, _)| *id == storage.id()) {
            Some((_, v)) => *v += 1,
            None => self.versions.push((storage.id(), 1)),
        }
    }

    /// Records `node` with `outputs`: each output of a differentiable dtype becomes a
    /// variable (torch gives no history to an integer or bool output of a functional op).
    fn add(&mut self, node: Node, outputs: &[Tensor], in_place: bool) {
        let next: Vec<Option<usize>> = node
            .inputs
            .iter()
            .map(|t| t.as_ref().and_then(|t| self.var_of(t)))
            .collect();
        if next.iter().all(Option::is_none) {
            return;
        }
        if !in_place
            && self.forward_error.is_none()
            && let Some(out) = outputs.iter().find(|o| !differentiable(o.dtype()))
        {
            self.forward_error = Some(Error::runtime(format!(
                "Autograd not support dtype: {}",
                out.dtype().scalar_type_name()
            )));
        }
        let id = self.nodes.len();
        let mut vars = Vec::new();
        for (k, out) in outputs.iter().enumerate() {
            if differentiable(out.dtype()) {
                vars.push(self.vars.len());
                self.vars.push(Var {
                    tensor: out.clone(),
                    shape: out.shape().to_vec(),
                    dtype: out.dtype(),
                    grad_fn: Some((id, k)),
                });
            }
        }
        self.nodes.push(NodeRec {
            name: node.name,
            next,
            saved: node.saved,
            formula: Some(node.formula),
            outputs: vars,
        });
    }
}

/// `torch.autograd`'s name of a node in its version-counter message: `MulBackward0` is
/// `Mul`, `PowBackward1` is `Pow1`.
fn short_name(name: &str) -> String {
    match name.strip_suffix("Backward0") {
        Some(base) => base.to_string(),
        None => name.replacen("Backward", "", 1),
    }
}

/// torch's `SavedVariable::unpack` check: the tensor's storage has not been written since it
/// was saved.
fn check_version(s: &Saved, vars: &[Var], versions: &[(usize, u64)], names: &[&str]) -> Result<()> {
    let current = versions
        .iter()
        .find(|(id, _)| *id == s.tensor.storage().id())
        .map_or(0, |(_, v)| *v);
    if current == s.version {
        return Ok(());
    }
    let var = vars.iter().rev().find(|v| v.tensor.is_same(&s.tensor));
    let which = match var.and_then(|v| v.grad_fn) {
        // A case's view written in place hangs `CopySlices` on its storage; the view's own
        // `grad_fn` is regenerated from how it was made, `as_strided` of the storage.
        Some((node, output)) if names.get(node) == Some(&"CopySlices") => {
            format!(", which is output {output} of AsStrided,")
        }
        Some((node, output)) => format!(
            ", which is output {output} of {},",
            short_name(names.get(node).copied().unwrap_or(""))
        ),
        None => String::new(),
    };
    Err(Error::runtime(format!(
        "one of the variables needed for gradient computation has been modified by an inplace operation: [{} {}]{which} is at version {current}; expected version {} instead. Hint: enable anomaly detection to find the operation that failed to compute its gradient, with torch.autograd.set_detect_anomaly(True, check_nan=False).",
        s.tensor.dtype().tensor_type_name(),
        format_shape(s.tensor.shape()),
        s.version
    )))
}

/// torch's `validate_outputs` for one gradient: reduced to the variable's shape with
/// `sum_to`, checked, and cast to its dtype.
fn validate(grad: Tensor, var: &Var, node: &str, index: usize) -> Result<Tensor> {
    let grad = if grad.shape() == var.shape.as_slice() {
        grad
    } else if is_expandable_to(&var.shape, grad.shape()) {
        sum_to(&grad, &var.shape)?
    } else {
        return Err(Error::internal(format!(
            "Function {node} returned an invalid gradient at index {index} - got {} but expected shape compatible with {}",
            format_shape(grad.shape()),
            format_shape(&var.shape)
        )));
    };
    if !(grad.dtype().is_floating() || var.dtype.is_complex() == grad.dtype().is_complex()) {
        return Err(Error::runtime(
            "Expected isFloatingType(grad.scalar_type()) || (input_is_complex == grad_is_complex) to be true, but got false.  (Could this error message be improved?  If so, please report an enhancement request to PyTorch.)",
        ));
    }
    let grad = grad.to_dtype(var.dtype)?;
    // A variable requires grad, so its dtype is floating or complex and so is the cast.
    if !differentiable(grad.dtype()) {
        return Err(Error::internal(format!(
            "a gradient of dtype {} for a variable",
            grad.dtype().name()
        )));
    }
    Ok(grad)
}

/// torch's `InputBuffer::accumulate`: the first gradient is kept; a later one is added, in
/// place into the first when nothing else holds it and its layout is dense (torch steals
/// it), else into a new tensor.
fn accumulate(slot: &mut Option<Tensor>, g: Tensor) -> Result<()> {
    *slot = Some(match slot.take() {
        None => g,
        Some(old) => {
            let add = BinaryOp::Add(Scalar::Int(1));
            if old.layout().is_non_overlapping_and_dense() && old.storage().is_unique() {
                binary_(add, &old, &g)?
            } else {
                binary(add, &old, &g, None)?
            }
        }
    });
    Ok(())
}

/// Whether `t` requires grad in the graph being recorded.
pub(crate) fn requires_grad(t: &Tensor) -> bool {
    with_tape(|g| g.requires_grad(t)).unwrap_or(false)
}

/// `t` saved by a formula: its storage's version now.
pub(crate) fn saved(t: &Tensor) -> Saved {
    let version = with_tape(|g| g.version(t.storage())).unwrap_or(0);
    Saved {
        tensor: t.clone(),
        version,
    }
}

/// Whether `t` is a leaf that requires grad (a tensor the graph knows with no `grad_fn`).
pub(crate) fn is_leaf_requiring_grad(t: &Tensor) -> bool {
    with_tape(|g| g.var_of(t).is_some_and(|v| g.vars[v].grad_fn.is_none())) == Some(true)
}

/// torch's `check_inplace`: an in-place op on a leaf that requires grad.
pub(crate) fn check_inplace(t: &Tensor) -> Result<()> {
    if is_leaf_requiring_grad(t) {
        return Err(Error::runtime(
            "a leaf Variable that requires grad is being used in an in-place operation.",
        ));
    }
    Ok(())
}

/// torch's error for `out=` when an argument requires grad, naming the ATen op.
pub(crate) fn out_error(aten: &str) -> Error {
    Error::runtime(format!(
        "{aten}(): functions with out=... arguments don't support automatic differentiation, but one of the arguments requires grad."
    ))
}

/// Records a node whose outputs are new tensors.
pub(crate) fn record(node: Node, outputs: &[Tensor]) {
    with_tape(|g| g.add(node, outputs, false));
}

/// Records an in-place node: `target` was written (its version moves on) and is now the
/// node's output. A target that required no grad and is a view of a case's storage gets
/// torch's `CopySlices`: the formula sees a contiguous copy of the gradient as the base's
/// gradient views it ([`copy_slices_grad`]: summed over the elements of an expanded view
/// that share memory).
pub(crate) fn record_inplace(mut node: Node, target: &Tensor) {
    with_tape(|g| {
        g.bump(target.storage());
        if node.inputs.iter().flatten().all(|t| g.var_of(t).is_none()) {
            return;
        }
        let base_len = g
            .views
            .iter()
            .find(|(v, _)| v.is_same(target))
            .map(|(_, len)| *len)
            .filter(|_| g.var_of(target).is_none());
        let Some(base_len) = base_len else {
            g.add(node, std::slice::from_ref(target), true);
            return;
        };
        // `CopySlices` takes the gradient of the base (a new tensor of the base's length) as
        // the view: a view an `out=` resized past its storage's end is out of its bounds.
        let bounds = crate::layout::check_in_bounds(
            &crate::shape::signed_sizes(target.shape()),
            &crate::shape::signed_sizes(target.strides()),
            target.offset() as i64,
            target.dtype().itemsize(),
            base_len,
        );
        if node.name == "NotImplemented" {
            // torch's `CopySlices` of an op without a derivative sends no gradient (and
            // raises nothing else). It takes the base's edge (which requires no grad here) in
            // place of the first input that wants a gradient, so it runs, and views the
            // gradient, only when two inputs want one (torch 2.13.0: with one, the gradient
            // is None and nothing is raised).
            let n = node.inputs.len();
            node.formula = Box::new(move |_, needs: &[bool]| {
                if needs.iter().filter(|&&need| need).count() > 1 {
                    bounds.clone()?;
                }
                Ok(vec![None; n])
            });
            node.name = "CopySlices";
        } else {
            let formula = node.formula;
            let view = target.clone();
            node.formula = Box::new(move |mut grads: Grads, needs: &[bool]| {
                bounds.clone()?;
                if let Some(Some(grad)) = grads.first_mut().map(Option::take) {
                    grads[0] = Some(below(|| copy_slices_grad(&grad, base_len, &view))?);
                }
                formula(grads, needs)
            });
            node.name = "CopySlices";
        }
        g.add(node, std::slice::from_ref(target), true);
    });
}

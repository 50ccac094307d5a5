//! The cases with gradients (schema 3) in libtorch, as `run_case` of
//! `python/bcast_suite/torch_exec.py` runs them in Python: each `wrt` view made a leaf of its
//! own (`detach()`, then `requires_grad_()`), `clone` names passed to the call as
//! `leaf.clone()`, and `torch.autograd.grad(results, leaves, upstreams, allow_unused=True)`
//! through the shim (tch's own backward takes no upstream gradients).

use super::describe::describe_tensor;
use super::{python_error, shim, TchInputs, TchValue};
use crate::backend::BackendFailure;
use crate::case::{ErrorOutcome, ErrorStage, GradSpec, OkOutcome};
use std::collections::BTreeMap;
use tch::{TchError, Tensor};

/// The leaves of a case, by name, in `wrt`'s order.
pub struct Leaves(Vec<(String, Tensor)>);

/// Makes the leaves and the inputs the call sees (the leaves, or their clones, in place of
/// the `wrt` views); the error of `requires_grad_()` (an integer tensor) comes back staged.
pub fn make_leaves(
    spec: &GradSpec,
    inputs: &TchInputs,
) -> Result<Result<(TchInputs, Leaves), ErrorOutcome>, BackendFailure> {
    let mut leaves = Vec::new();
    for name in &spec.wrt {
        let view = inputs
            .tensors
            .get(name)
            .ok_or_else(|| BackendFailure::bad_input(format!("grad: no tensor {name}")))?;
        // Python's `requires_grad_` checks the dtype itself, in its own words (libtorch's
        // says "Only Tensors of floating point and complex dtype ..."):
        // torch/csrc/autograd/utils/python_arg_parsing.h, `set_requires_grad`.
        if !(view.is_floating_point() || view.is_complex()) {
            return Ok(Err(ErrorOutcome {
                stage: Some(ErrorStage::RequiresGrad),
                ..ErrorOutcome::new(
                    "RuntimeError",
                    "only Tensors of floating point dtype can require gradients",
                )
            }));
        }
        let mut leaf = view.f_detach().map_err(super::failure)?;
        let _ = leaf.f_requires_grad_(true).map_err(super::failure)?;
        leaves.push((name.clone(), leaf));
    }
    let mut call_inputs = inputs.shallow_clone();
    for (name, leaf) in &leaves {
        let seen = if spec.is_clone(name) {
            shim::clone(leaf).map_err(super::failure)?
        } else {
            leaf.shallow_clone()
        };
        call_inputs.tensors.insert(name.clone(), seen);
    }
    Ok(Ok((call_inputs, Leaves(leaves))))
}

/// Takes the gradients of the call's results back to the leaves and writes them into `ok`
/// (`grads`), or the error that raised (`backward_error`).
pub fn backward(
    spec: &GradSpec,
    value: &TchValue,
    inputs: &TchInputs,
    leaves: &Leaves,
    ok: &mut OkOutcome,
) -> Result<(), BackendFailure> {
    let results: Vec<&Tensor> = match value {
        TchValue::Tensor(t) => vec![t],
        TchValue::Tensors(ts) => ts.iter().collect(),
        _ => vec![],
    };
    let mut pairs = Vec::new();
    for (result, upstream) in results.into_iter().zip(&spec.upstream) {
        let Some(name) = upstream else { continue };
        let g = inputs
            .tensors
            .get(name)
            .ok_or_else(|| BackendFailure::bad_input(format!("grad: no upstream {name}")))?;
        pairs.push((result, g));
    }
    let leaf_tensors: Vec<&Tensor> = leaves.0.iter().map(|(_, t)| t).collect();
    shim::reset_exception_class();
    match shim::autograd_grad(&pairs, &leaf_tensors) {
        Ok(grads) => {
            let mut described = BTreeMap::new();
            for ((name, _), g) in leaves.0.iter().zip(grads) {
                let d =
                    g.map(|g| describe_tensor(&g, inputs))
                        .transpose()
                        .map_err(|e: TchError| match e {
                            TchError::Kind(m) => BackendFailure::outside_schema(m),
                            e => super::failure(e),
                        })?;
                described.insert(name.clone(), d);
            }
            ok.grads = Some(described);
        }
        Err(e) => match python_error(&e) {
            Some(err) => ok.backward_error = Some(Box::new(err)),
            None => return Err(super::failure(e)),
        },
    }
    Ok(())
}

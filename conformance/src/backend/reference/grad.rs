//! A case with gradients (schema 3) in the engine, as `python/bcast_suite/torch_exec.py`
//! runs it in torch: each `wrt` view becomes a leaf of its own that requires grad
//! (`view.detach().requires_grad_()`), the call gets the leaf (or `leaf.clone()` for a
//! `clone` name), the forward runs with the engine's autograd recording
//! ([`bcast_engine::autograd::Graph::run`]), and `torch.autograd.grad` of the results with
//! their upstream gradients gives each leaf's gradient, described as results are.

use super::describe::describe_tensor_over;
use super::{forward_outcome, interpret, CallError, Inputs, Value};
use crate::backend::BackendFailure;
use crate::case::{Case, ErrorOutcome, ErrorStage, GradSpec, Outcome};
use bcast_engine::autograd::Graph;
use bcast_engine::Tensor;
use std::collections::BTreeMap;

/// Runs a case that has `grad`: the forward outcome with `grads` or `backward_error`, or the
/// error making a leaf raised (`stage: requires_grad`).
pub fn run_grad_case(case: &Case, spec: &GradSpec) -> Result<Outcome, BackendFailure> {
    let inputs = Inputs::build(case).map_err(BackendFailure::bad_input)?;
    let mut graph = Graph::new();
    for t in inputs.tensors.values() {
        graph.mark_view(t);
    }
    let mut leaves: Vec<(String, Tensor)> = Vec::with_capacity(spec.wrt.len());
    for name in &spec.wrt {
        let view = inputs.tensors.get(name).ok_or_else(|| {
            BackendFailure::bad_input(format!("grad: wrt names unknown tensor {name}"))
        })?;
        match graph.leaf(view) {
            Ok(leaf) => leaves.push((name.clone(), leaf)),
            Err(e) => {
                let mut error = ErrorOutcome::new(e.kind().name(), e.message());
                error.stage = Some(ErrorStage::RequiresGrad);
                return Ok(Outcome::Error(error));
            }
        }
    }
    let mut call_inputs = inputs.clone();
    for (name, leaf) in &leaves {
        let given = if spec.is_clone(name) {
            graph
                .run(|| leaf.clone_tensor())
                .map_err(|e| BackendFailure::unsupported(e.message().to_string()))?
        } else {
            leaf.clone()
        };
        call_inputs.tensors.insert(name.clone(), given);
    }
    let before = inputs.snapshot();
    let called = graph.run(|| interpret(case, &call_inputs));
    if let Some(e) = graph.take_forward_error() {
        return super::call_error_outcome(CallError::Engine(e));
    }
    let value = match called {
        Ok(value) => value,
        Err(e) => return super::call_error_outcome(e),
    };
    let mut outcome = forward_outcome(case, &inputs, &value, &before);
    if let Outcome::Ok(ok) = &mut outcome {
        let results: Vec<Tensor> = match &value {
            Value::Tensor(t) => vec![t.clone()],
            Value::Tensors(ts) => ts.clone(),
            _ => Vec::new(),
        };
        let mut roots = Vec::new();
        for (result, upstream) in results.iter().zip(&spec.upstream) {
            if let Some(name) = upstream {
                let up = inputs.tensors.get(name).ok_or_else(|| {
                    BackendFailure::bad_input(format!("grad: upstream names unknown tensor {name}"))
                })?;
                roots.push((result.clone(), up.clone()));
            }
        }
        let wrt: Vec<Tensor> = leaves.iter().map(|(_, l)| l.clone()).collect();
        match graph.grad(&roots, &wrt) {
            Ok(grads) => {
                let described: BTreeMap<String, _> = leaves
                    .iter()
                    .zip(grads)
                    .map(|((name, _), g)| {
                        let d = g.map(|g| describe_tensor_over(&g, graph.storage_of(&g), &inputs));
                        (name.clone(), d)
                    })
                    .collect();
                ok.grads = Some(described);
            }
            Err(e) if e.is_refusal() => {
                return Err(BackendFailure::unsupported(format!(
                    "the engine refuses (undefined in torch, or a resource limit): {}",
                    e.message()
                )))
            }
            Err(e) => {
                ok.backward_error = Some(Box::new(ErrorOutcome::new(e.kind().name(), e.message())));
            }
        }
    }
    Ok(outcome)
}

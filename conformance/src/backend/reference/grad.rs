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

/// Why the engine's backward declines a case with gradients it is known not to compute as
/// torch does: `matmul` of two batched operands whose batch dims differ, where torch picks
/// between folding and `bmm` by which operand requires grad (the result's strides and the
/// error message differ by path) and the engine does not follow it yet.
pub(super) fn declined(case: &Case) -> Option<String> {
    case.grad.as_ref()?;
    let matmul = matches!(
        case.call.fn_.as_str(),
        "torch.matmul" | "Tensor.matmul" | "Tensor.__matmul__" | "Tensor.__rmatmul__"
    );
    let shapes: Vec<&[usize]> = case
        .call
        .args
        .iter()
        .filter_map(|a| match a {
            bcast_case::Arg::Tensor(name) => case.tensors.get(name).map(|t| t.shape.as_slice()),
            _ => None,
        })
        .collect();
    match shapes.as_slice() {
        [a, b]
            if matmul && a.len() >= 3 && b.len() >= 3 && a[..a.len() - 2] != b[..b.len() - 2] =>
        {
            Some(
                "gradients of matmul over batch dims that broadcast (torch's fold-or-bmm choice \
                 by requires_grad is not in the engine)"
                    .to_string(),
            )
        }
        _ => None,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn matmul(a: &[usize], b: &[usize], grad: bool) -> Case {
        let mut case: Case = serde_json::from_value(serde_json::json!({
            "id": "m", "storages": {"s": {"dtype": "float32", "fill": {"kind": "random", "len": 1, "seed": 1}}},
            "tensors": {"a": {"storage": "s", "shape": a, "strides": vec![0; a.len()]},
                        "b": {"storage": "s", "shape": b, "strides": vec![0; b.len()]}},
            "call": {"fn": "torch.matmul", "args": [{"tensor": "a"}, {"tensor": "b"}]},
            "expect": {"error": {"type": "RuntimeError", "message": "m"}}
        }))
        .unwrap();
        if grad {
            case.grad = Some(
                serde_json::from_value(serde_json::json!({"wrt": ["a"], "upstream": []})).unwrap(),
            );
        }
        case
    }

    #[test]
    fn only_gradients_of_batched_matmul_with_broadcast_batch_dims_are_declined() {
        assert!(declined(&matmul(&[1, 2, 2], &[3, 2, 1], true)).is_some());
        assert!(declined(&matmul(&[1, 2, 2], &[3, 2, 1], false)).is_none());
        assert!(declined(&matmul(&[3, 2, 2], &[3, 2, 1], true)).is_none());
        assert!(declined(&matmul(&[2, 2], &[3, 2, 1], true)).is_none());
    }
}

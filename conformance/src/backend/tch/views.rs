//! Shape ops and views: `expand` and friends, dim bookkeeping, `view`/`reshape`, and the
//! copies of the family (`contiguous`, `clone`, `repeat`). `torch.broadcast_shapes` is a
//! Python function with no libtorch twin, so it is not here.

use super::{unsupported, CallResult, TchArgs, TchCallError, TchValue};
use crate::case::Arg;
use tch::Tensor;

fn missing(name: &str) -> TchCallError {
    TchCallError::Unsupported(format!("{name}: missing argument"))
}

/// Runs a view, copy or query op of the catalogue (the caller routes only those here).
pub fn dispatch(name: &str, a: &TchArgs) -> Option<CallResult> {
    Some(run(name, a))
}

fn run(name: &str, a: &TchArgs) -> CallResult {
    let tensor = |t: Result<Tensor, tch::TchError>| -> CallResult { Ok(TchValue::Tensor(t?)) };
    let arg = |i: usize| a.get(i).ok_or_else(|| missing(name));
    match name {
        "torch.broadcast_tensors" => Ok(TchValue::Tensors(Tensor::f_broadcast_tensors(
            &a.tensor_list(0)?,
        )?)),
        "Tensor.expand" => tensor(a.tensor(0)?.f_expand(a.sizes_from(1)?, false)),
        "Tensor.expand_as" => tensor(a.tensor(0)?.f_expand_as(&a.tensor(1)?)),
        "torch.broadcast_to" | "Tensor.broadcast_to" => {
            tensor(a.tensor(0)?.f_broadcast_to(a.sizes_from(1)?))
        }
        "torch.unsqueeze" | "Tensor.unsqueeze" => tensor(a.tensor(0)?.f_unsqueeze(a.int(1)?)),
        "torch.squeeze" | "Tensor.squeeze" => match a.param(1, "dim") {
            None => tensor(a.tensor(0)?.f_squeeze()),
            Some(Arg::Int(d)) => tensor(a.tensor(0)?.f_squeeze_dim(*d)),
            Some(other) => tensor(a.tensor(0)?.f_squeeze_dims(a.as_ints(other)?)),
        },
        "torch.permute" | "Tensor.permute" => tensor(a.tensor(0)?.f_permute(a.sizes_from(1)?)),
        "torch.transpose" | "Tensor.transpose" => {
            tensor(a.tensor(0)?.f_transpose(a.int(1)?, a.int(2)?))
        }
        "torch.t" | "Tensor.t" => tensor(a.tensor(0)?.f_tr()),
        "torch.narrow" | "Tensor.narrow" => {
            tensor(a.tensor(0)?.f_narrow(a.int(1)?, a.int(2)?, a.int(3)?))
        }
        "torch.select" | "Tensor.select" => tensor(a.tensor(0)?.f_select(a.int(1)?, a.int(2)?)),
        "torch.as_strided" | "Tensor.as_strided" => {
            let size = a.as_ints(arg(1)?)?;
            let stride = a.as_ints(arg(2)?)?;
            let offset = match a.get(3).or_else(|| a.kwarg("storage_offset")) {
                Some(Arg::None(())) | None => None,
                Some(o) => Some(a.as_int(o)?),
            };
            tensor(a.tensor(0)?.f_as_strided(size, stride, offset))
        }
        "Tensor.view" => match a.get(1) {
            Some(Arg::Dtype(_)) => unsupported("Tensor.view(dtype) reinterprets bytes"),
            _ => tensor(a.tensor(0)?.f_view_(a.sizes_from(1)?)),
        },
        "torch.reshape" | "Tensor.reshape" => tensor(a.tensor(0)?.f_reshape(a.sizes_from(1)?)),
        "Tensor.contiguous" => tensor(a.tensor(0)?.f_contiguous()),
        // at::clone with the default preserve format is empty_like (same layout rules) then
        // copy_; tch exposes only clone_out.
        "torch.clone" | "Tensor.clone" => {
            let x = a.tensor(0)?;
            let mut copy = x.f_empty_like()?;
            copy.f_copy_(&x)?;
            Ok(TchValue::Tensor(copy))
        }
        "Tensor.repeat" => tensor(a.tensor(0)?.f_repeat(a.sizes_from(1)?)),
        "torch.numel" | "Tensor.numel" => Ok(TchValue::Int(a.tensor(0)?.numel() as i64)),
        "Tensor.dim" => Ok(TchValue::Int(a.tensor(0)?.dim() as i64)),
        "Tensor.size" => match a.get(1) {
            None => Ok(TchValue::Size(a.tensor(0)?.size())),
            Some(_) => unsupported("Tensor.size(dim): tch has no size(dim) that raises"),
        },
        _ => unsupported(format!("{name}: not a view op")),
    }
}

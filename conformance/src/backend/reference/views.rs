//! Shape algebra and view ops: `expand` and friends, dim bookkeeping, `view`/`reshape`,
//! indexing, and the copies of the view family (`contiguous`, `clone`, `repeat`).

use super::{Args, CallError, Value};
use crate::case::{Arg, IndexItem};
use bcast_engine::shape::broadcast_shapes;
use bcast_engine::views::{broadcast_tensors, TensorIndex};

/// Runs `name` if it is a view op; `None` when it is not.
pub fn dispatch(name: &str, a: &Args) -> Option<Result<Value, CallError>> {
    run(name, a).transpose()
}

fn run(name: &str, a: &Args) -> Result<Option<Value>, CallError> {
    let tensor = |t: bcast_engine::Result<bcast_engine::Tensor>| -> Result<Value, CallError> {
        Ok(Value::Tensor(t?))
    };
    let value = match name {
        "torch.broadcast_shapes" => {
            let shapes: Vec<_> = (0..a.len())
                .filter_map(|i| a.get(i))
                .map(|arg| a.as_shape_arg(arg))
                .collect();
            Ok(Value::Size(broadcast_shapes(&shapes)?))
        }
        "torch.broadcast_tensors" => Ok(Value::Tensors(broadcast_tensors(&a.tensor_list(0)?)?)),
        "Tensor.expand" => tensor(a.tensor(0)?.expand(&a.sizes_from(1)?)),
        "Tensor.expand_as" => tensor(a.tensor(0)?.expand_as(&a.tensor(1)?)),
        "torch.broadcast_to" | "Tensor.broadcast_to" => {
            tensor(a.tensor(0)?.broadcast_to(&a.sizes_from(1)?))
        }
        "Tensor.unsqueeze" | "torch.unsqueeze" => tensor(a.tensor(0)?.unsqueeze(a.int(1)?)),
        "Tensor.squeeze" | "torch.squeeze" => match a.get(1) {
            None => tensor(a.tensor(0)?.squeeze()),
            Some(Arg::Int(d)) => tensor(a.tensor(0)?.squeeze_dims(&[*d])),
            Some(other) => tensor(a.tensor(0)?.squeeze_dims(&a.as_ints(other)?)),
        },
        "Tensor.permute" | "torch.permute" => tensor(a.tensor(0)?.permute(&a.sizes_from(1)?)),
        "Tensor.transpose" | "torch.transpose" => {
            tensor(a.tensor(0)?.transpose(a.int(1)?, a.int(2)?))
        }
        "Tensor.t" | "torch.t" => tensor(a.tensor(0)?.t()),
        "Tensor.narrow" | "torch.narrow" => {
            tensor(a.tensor(0)?.narrow(a.int(1)?, a.int(2)?, a.int(3)?))
        }
        "Tensor.select" | "torch.select" => tensor(a.tensor(0)?.select(a.int(1)?, a.int(2)?)),
        "Tensor.as_strided" | "torch.as_strided" => {
            let x = a.tensor(0)?;
            let size = a.as_ints(a.get(1).ok_or_else(|| missing(name))?)?;
            let stride = a.as_ints(a.get(2).ok_or_else(|| missing(name))?)?;
            let offset = match a.get(3).or_else(|| a.kwarg("storage_offset")) {
                Some(Arg::None(())) | None => None,
                Some(arg) => Some(a.as_int(arg)?),
            };
            tensor(x.as_strided(&size, &stride, offset))
        }
        "Tensor.view" => tensor(a.tensor(0)?.view(&a.sizes_from(1)?)),
        "Tensor.reshape" | "torch.reshape" => tensor(a.tensor(0)?.reshape(&a.sizes_from(1)?)),
        "Tensor.contiguous" => tensor(a.tensor(0)?.contiguous()),
        "Tensor.clone" | "torch.clone" => tensor(a.tensor(0)?.clone_tensor()),
        "Tensor.repeat" => tensor(a.tensor(0)?.repeat(&a.sizes_from(1)?)),
        "Tensor.numel" | "torch.numel" => Ok(Value::Int(a.tensor(0)?.numel() as i64)),
        "Tensor.dim" => Ok(Value::Int(a.tensor(0)?.ndim() as i64)),
        "Tensor.size" => Ok(Value::Size(a.tensor(0)?.shape().to_vec())),
        "getitem" => {
            let items: Vec<TensorIndex> = a
                .as_index(a.get(1).ok_or_else(|| missing(name))?)?
                .iter()
                .map(|i| match *i {
                    IndexItem::Slice([start, stop, step]) => TensorIndex::Slice(start, stop, step),
                    IndexItem::Int(k) => TensorIndex::Int(k),
                    IndexItem::None(()) => TensorIndex::None,
                    IndexItem::Ellipsis(()) => TensorIndex::Ellipsis,
                })
                .collect();
            tensor(a.tensor(0)?.index(&items))
        }
        _ => return Ok(None),
    };
    value.map(Some)
}
fn missing(name: &str) -> CallError {
    CallError::Unsupported(format!("{name}: missing argument"))
}

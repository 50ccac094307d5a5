//! Element-wise calls on strided views, drawn from fuzz bytes, for the element-wise and
//! in-place oracles: a [`Scene`] of storages and named views (laid out by
//! [`CaseBuilder`], built by the reference backend's
//! [`Inputs`]), and a [`Call`] of one engine op on them. Both print as a case, so a finding
//! can be read and rebuilt.

use crate::generators::{python_number, CaseBuilder, GenResult};
use arbitrary::Unstructured;
use bcast_conformance::backend::reference::Inputs;
use bcast_conformance::case::NumScalar;
use bcast_conformance::case::{Arg, Case};
use bcast_engine::ops::{self, AddcOp, BinaryOp, BitwiseOp, CompareOp, Operand, UnaryOp};
use bcast_engine::overlap::order_dependent;
use bcast_engine::shape::infer_size;
use bcast_engine::{kernels, Result, Scalar, Storage, Tensor};
use std::collections::BTreeMap;

/// Storages and named strided views over them (a case without a call).
#[derive(Debug, Clone)]
pub struct Scene {
    case: Case,
}

impl Scene {
    /// The scene laid out so far by `b`.
    pub fn new(b: CaseBuilder) -> Scene {
        Scene {
            case: b.finish("scene", vec![]),
        }
    }

    /// A scene read back from the case JSON a finding printed ([`Scene::json`]).
    pub fn from_json(json: &str) -> serde_json::Result<Scene> {
        Ok(Scene {
            case: serde_json::from_str(json)?,
        })
    }

    /// Fresh storages and views, the same every time.
    pub fn build(&self) -> Inputs {
        Inputs::build(&self.case).unwrap_or_else(|e| panic!("scene does not build: {e}"))
    }

    /// The scene as case JSON, for messages.
    pub fn json(&self) -> String {
        serde_json::to_string(&self.case).unwrap_or_default()
    }
}

/// A Python number operand (edge values included).
pub fn number(u: &mut Unstructured) -> GenResult<Scalar> {
    Ok(match python_number(u)? {
        Arg::Bool(v) => Scalar::Bool(v),
        Arg::Int(v) => Scalar::Int(v),
        Arg::Float(v) => v.to_scalar(),
        _ => Scalar::Int(0),
    })
}

/// An input of a call: a named view of the scene, or a Python number.
#[derive(Debug, Clone, PartialEq)]
pub enum Input {
    Tensor(String),
    Number(Scalar),
}

/// The engine op a [`Call`] makes.
#[derive(Debug, Clone, Copy, PartialEq)]
pub enum Kernel {
    /// `unary(op, x, out)`.
    Unary(UnaryOp),
    /// `binary(op, a, b, out)`.
    Binary(BinaryOp),
    /// `compare(op, a, b, out)`.
    Compare(CompareOp),
    /// `where(condition, a, b, out)`.
    Where,
    /// `out.copy_(src)` (the out is required).
    Copy,
    /// The raw copy kernel into a new zeroed tensor of the source's shape and `b`'s dtype.
    CopyInto,
    /// `bitwise(op, a, b, out)`.
    Bitwise(BitwiseOp),
    /// `clamp(x, min, max, out)`: number bounds where both are numbers, else tensor bounds.
    Clamp,
    /// `lerp(x, end, weight, out)` (`x` for a number `end`).
    Lerp,
    /// `addcmul`/`addcdiv(x, t1, t2, value=2, out)` (`x` for a number factor).
    Addc(AddcOp),
}

/// The kernels drawn besides the original six (on their own draw, so the inputs that drew
/// those still do): the integer ops and the ops of three tensor operands.
pub fn extra_kernel(u: &mut Unstructured) -> GenResult<Kernel> {
    Ok(match u.int_in_range(0..=3)? {
        0 => Kernel::Bitwise(*u.choose(&BitwiseOp::ALL)?),
        1 => Kernel::Clamp,
        2 => Kernel::Lerp,
        _ => Kernel::Addc(*u.choose(&[AddcOp::Mul, AddcOp::Div])?),
    })
}

/// One engine call on a scene: the op, its inputs in torch's order, and the written tensor
/// (`out=`, or the first input for an in-place call).
#[derive(Debug, Clone)]
pub struct Call {
    pub kernel: Kernel,
    pub inputs: Vec<Input>,
    pub out: Option<String>,
}

impl Call {
    /// The named views the call reads.
    pub fn tensor_inputs(&self) -> impl Iterator<Item = &str> {
        self.inputs.iter().filter_map(|i| match i {
            Input::Tensor(name) => Some(name.as_str()),
            Input::Number(_) => None,
        })
    }

    /// Runs the call on built `inputs`.
    pub fn run(&self, inputs: &Inputs) -> Result<Tensor> {
        let tensor = |name: &str| {
            inputs
                .tensors
                .get(name)
                .unwrap_or_else(|| panic!("the call names unknown view {name}"))
                .clone()
        };
        let arg = |k: usize| match &self.inputs[k] {
            Input::Tensor(name) => Operand::Tensor(tensor(name)),
            Input::Number(v) => Operand::Number(*v),
        };
        let out = self.out.as_deref().map(tensor);
        let out = out.as_ref();
        match self.kernel {
            Kernel::Unary(op) => ops::unary(op, &tensor_of(arg(0)), out),
            Kernel::Binary(op) => ops::binary(op, arg(0), arg(1), out),
            Kernel::Compare(op) => ops::compare(op, arg(0), arg(1), out),
            Kernel::Where => ops::r#where(&tensor_of(arg(0)), arg(1), arg(2), out),
            Kernel::Copy => ops::copy_(out.expect("copy_ writes a view"), arg(0)),
            Kernel::CopyInto => {
                let (src, like) = (tensor_of(arg(0)), tensor_of(arg(1)));
                let dst = Tensor::zeros(src.shape(), like.dtype())?;
                kernels::copy_into(&dst, &src)?;
                Ok(dst)
            }
            Kernel::Bitwise(op) => ops::bitwise(op, arg(0), arg(1), out),
            Kernel::Clamp => {
                let x = tensor_of(arg(0));
                match (arg(1), arg(2)) {
                    (Operand::Tensor(lo), Operand::Tensor(hi)) => {
                        ops::clamp_tensors(&x, Some(&lo), Some(&hi), out, true)
                    }
                    (Operand::Number(lo), Operand::Number(hi)) => {
                        ops::clamp_numbers(&x, Some(lo), Some(hi), out)
                    }
                    // A number beside a tensor bound (which Python refuses) as a 0-d tensor.
                    (lo, hi) => {
                        let bound = |o: Operand| match o {
                            Operand::Number(v) => Tensor::scalar_tensor(v, v.wrapped_dtype()),
                            Operand::Tensor(t) => t,
                        };
                        let (lo, hi) = (bound(lo), bound(hi));
                        ops::clamp_tensors(&x, Some(&lo), Some(&hi), out, true)
                    }
                }
            }
            Kernel::Lerp => {
                let x = tensor_of(arg(0));
                let end = arg(1).as_tensor().cloned().unwrap_or_else(|| x.clone());
                ops::lerp(&x, &end, arg(2), out)
            }
            Kernel::Addc(op) => {
                let x = tensor_of(arg(0));
                let factor = |k: usize| arg(k).as_tensor().cloned().unwrap_or_else(|| x.clone());
                ops::addc(op, &x, &factor(1), &factor(2), Scalar::Int(2), out)
            }
        }
    }
}

/// Whether torch itself gives loop-order-dependent values for `call`: its written tensor
/// overlaps an input in a way torch's checks let through, or an `out=` that will be resized
/// shares a storage with an input (resizing happens after the checks).
pub fn call_is_order_dependent(scene: &Scene, call: &Call) -> bool {
    let Some(out) = &call.out else {
        return false;
    };
    let inputs = scene.build();
    let written = &inputs.tensors[out];
    let reads: Vec<&Tensor> = call.tensor_inputs().map(|n| &inputs.tensors[n]).collect();
    let broadcast = reads.iter().try_fold(bcast_engine::Dims::new(), |acc, t| {
        infer_size(&acc, t.shape()).ok()
    });
    let in_place = reads.iter().any(|t| t.is_same(written));
    let resized = !in_place
        && call.kernel != Kernel::Copy
        && broadcast.is_some_and(|s| s.as_slice() != written.shape());
    reads
        .iter()
        .any(|t| order_dependent(written, t) || (resized && written.shares_storage(t)))
}

fn tensor_of(operand: Operand) -> Tensor {
    match operand {
        Operand::Tensor(t) => t,
        Operand::Number(v) => panic!("the call passes the number {v:?} where a tensor goes"),
    }
}

/// The bytes of a storage, little-endian, each element at its own width.
pub fn storage_bytes(storage: &Storage) -> Vec<u8> {
    storage.read().to_le_bytes()
}

/// Every storage's bytes, by name.
pub fn snapshot(inputs: &Inputs) -> BTreeMap<String, Vec<u8>> {
    inputs
        .storages
        .iter()
        .map(|(name, s)| (name.clone(), storage_bytes(s)))
        .collect()
}

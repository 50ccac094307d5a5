//! The reference engine as a benchmark peer.

use super::workload::{Arg, Bin, Cmp, Dt, Expr, Red, Ter, Un, Workload};
use super::{prepare_from, Backend, Call, Output, Peer};
use bcast_engine::half::{BFloat16, Half};
use bcast_engine::ops::{
    addc, binary, clamp_tensors, compare, lerp, r#where, unary, AddcOp, BinaryOp, CompareOp,
    Operand, UnaryOp,
};
use bcast_engine::{reduce, Error, Result, Scalar, Tensor};

/// The engine, with [`bcast_engine::iter::set_num_threads`] threads.
#[derive(Debug, Default)]
pub struct EnginePeer;

impl Peer for EnginePeer {
    fn name(&self) -> &'static str {
        "engine"
    }

    fn set_threads(&mut self, n: usize) -> usize {
        bcast_engine::iter::set_num_threads(n);
        bcast_engine::iter::num_threads()
    }

    fn prepare(&self, w: &Workload, data: &[Vec<f64>]) -> Option<Box<dyn Call>> {
        prepare_from::<EnginePeer>(w, data, operand)
    }
}

/// Its calls are frames of their own (not inlined), by which `scripts/profile-row.sh` tells
/// the engine's samples.
impl Backend for EnginePeer {
    type Operand = Operand;
    type Result = Tensor;

    #[inline(never)]
    fn new_result(expr: &Expr, ops: &[Operand]) -> Option<Tensor> {
        compute(expr, ops, None).ok()
    }

    #[inline(never)]
    fn write_into(expr: &Expr, ops: &mut [Operand], out: Option<&mut Tensor>) -> Option<()> {
        let target = match out {
            Some(out) => out,
            None => tensor(ops.first()?)?,
        };
        compute(expr, ops, Some(target)).ok().map(drop)
    }

    fn like(r: &Tensor) -> Option<Tensor> {
        Tensor::zeros(r.shape(), r.dtype()).ok()
    }

    fn output(t: &Tensor) -> Output {
        output(t)
    }

    fn operand_output(op: &Operand) -> Option<Output> {
        tensor(op).map(output)
    }
}

fn bin(op: Bin) -> BinaryOp {
    match op {
        Bin::Add => BinaryOp::Add(1.into()),
        Bin::Sub => BinaryOp::Sub(1.into()),
        Bin::Mul => BinaryOp::Mul,
        Bin::Div => BinaryOp::Div,
        Bin::Pow => BinaryOp::Pow,
        Bin::Remainder => BinaryOp::Remainder,
    }
}

fn cmp(op: Cmp) -> CompareOp {
    match op {
        Cmp::Lt => CompareOp::Lt,
        Cmp::Gt => CompareOp::Gt,
        Cmp::Eq => CompareOp::Eq,
        Cmp::LogicalAnd => CompareOp::LogicalAnd,
        Cmp::LogicalXor => CompareOp::LogicalXor,
    }
}

fn un(op: Un) -> UnaryOp {
    match op {
        Un::Sqrt => UnaryOp::Sqrt,
        Un::Abs => UnaryOp::Abs,
        Un::Neg => UnaryOp::Neg,
        Un::Exp => UnaryOp::Exp,
    }
}

/// A value of `dtype` as the scalar that converts to it exactly.
fn scalar(v: f64, dtype: Dt) -> Scalar {
    match dtype {
        Dt::Bool => Scalar::Bool(v != 0.0),
        d if d.is_float() => Scalar::Float(v),
        _ => Scalar::Int(v as i64),
    }
}

/// The engine operand of `arg`, from its storage-order `data`.
fn operand(arg: &Arg, data: &[f64]) -> Option<Operand> {
    Some(match arg {
        Arg::Tensor { dtype, .. } => {
            let scalars: Vec<Scalar> = data.iter().map(|&v| scalar(v, *dtype)).collect();
            let t = Tensor::from_scalars(&scalars, dtype.engine(), &arg.storage_shape()).ok()?;
            Operand::Tensor(match arg.view_perm() {
                Some(p) => t
                    .permute(&p.iter().map(|&d| d as i64).collect::<Vec<_>>())
                    .ok()?,
                None => t,
            })
        }
        Arg::ZeroDim(d, v) => Operand::Tensor(Tensor::scalar_tensor(scalar(*v, *d), d.engine())),
        Arg::Float(v) => Operand::Number(Scalar::Float(*v)),
        Arg::Int(v) => Operand::Number(Scalar::Int(*v)),
    })
}

fn tensor(op: &Operand) -> Option<&Tensor> {
    match op {
        Operand::Tensor(t) => Some(t),
        Operand::Number(_) => None,
    }
}

fn reduced(r: Red, x: &Tensor, dims: &[i64]) -> Result<Tensor> {
    match r {
        Red::Sum => reduce::sum(x, dims, true, None),
        Red::Mean => reduce::mean(x, dims, true, None),
        Red::Amax => reduce::amax(x, dims, true),
    }
}

/// The workload's expression on the engine, into `out` when given.
fn compute(expr: &Expr, ops: &[Operand], out: Option<&Tensor>) -> Result<Tensor> {
    let first = || tensor(&ops[0]).expect("the first operand is a tensor");
    match expr {
        Expr::Binary(op) => binary(bin(*op), ops[0].clone(), ops[1].clone(), out),
        Expr::Compare(op) => compare(cmp(*op), ops[0].clone(), ops[1].clone(), out),
        Expr::Where => r#where(first(), ops[1].clone(), ops[2].clone(), out),
        Expr::Unary(op) => unary(un(*op), first(), out),
        Expr::Ternary(op) => {
            let nth = |k: usize| tensor(&ops[k]).ok_or_else(|| Error::type_error("a number"));
            match op {
                Ter::Addcmul => addc(AddcOp::Mul, first(), nth(1)?, nth(2)?, Scalar::Int(1), out),
                Ter::Lerp => lerp(first(), nth(1)?, ops[2].clone(), out),
                Ter::Clamp => clamp_tensors(first(), Some(nth(1)?), Some(nth(2)?), out, true),
            }
        }
        Expr::Reduce(r, dims) => reduced(*r, first(), dims),
        Expr::ReduceBack(r, dims, op) => {
            let x = first();
            let m = reduced(*r, x, dims)?;
            binary(bin(*op), x, &m, out)
        }
    }
}

/// The bits of an engine tensor, row-major.
fn output(t: &Tensor) -> Output {
    let dtype = Dt::of_engine(t.dtype()).expect("a dtype of the suite");
    let bits: Vec<u64> = match dtype {
        Dt::Bool => t
            .to_vec::<bool>()
            .map(|v| v.iter().map(|&x| x as u64).collect()),
        Dt::U8 => t
            .to_vec::<u8>()
            .map(|v| v.iter().map(|&x| x as u64).collect()),
        Dt::I32 => t
            .to_vec::<i32>()
            .map(|v| v.iter().map(|&x| x as i64 as u64).collect()),
        Dt::I64 => t
            .to_vec::<i64>()
            .map(|v| v.iter().map(|&x| x as u64).collect()),
        Dt::F16 => t
            .to_vec::<Half>()
            .map(|v| v.iter().map(|x| x.to_bits().into()).collect()),
        Dt::BF16 => t
            .to_vec::<BFloat16>()
            .map(|v| v.iter().map(|x| x.to_bits().into()).collect()),
        Dt::F32 => t
            .to_vec::<f32>()
            .map(|v| v.iter().map(|x| x.to_bits().into()).collect()),
        Dt::F64 => t
            .to_vec::<f64>()
            .map(|v| v.iter().map(|x| x.to_bits()).collect()),
    }
    .expect("the tensor's own dtype");
    Output {
        dtype,
        shape: t.shape().to_vec(),
        bits,
    }
}

//! The engine on the broad suite's workloads.

use super::workload::{Arg, Bin, Cmp, Dt, Expr, Red, Un, Workload, Write};
use super::{Output, WorkCall};
use bcast_engine::half::{BFloat16, Half};
use bcast_engine::ops::{binary, compare, r#where, unary, BinaryOp, CompareOp, Operand, UnaryOp};
use bcast_engine::{reduce, Result, Scalar, Tensor};

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
pub(crate) fn operand(arg: &Arg, data: &[f64]) -> Option<Operand> {
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

/// The workload's expression on the engine.
fn compute(expr: &Expr, ops: &[Operand], out: Option<&Tensor>) -> Result<Tensor> {
    let first = || tensor(&ops[0]).expect("the first operand is a tensor");
    match expr {
        Expr::Binary(op) => binary(bin(*op), ops[0].clone(), ops[1].clone(), out),
        Expr::Compare(op) => compare(cmp(*op), ops[0].clone(), ops[1].clone(), out),
        Expr::Where => r#where(first(), ops[1].clone(), ops[2].clone(), out),
        Expr::Unary(op) => unary(un(*op), first(), out),
        Expr::Reduce(r, dims) => reduced(*r, first(), dims),
        Expr::ReduceBack(r, dims, op) => {
            let x = first();
            let m = reduced(*r, x, dims)?;
            binary(bin(*op), x, &m, out)
        }
    }
}

/// The bits of an engine tensor, row-major.
pub(crate) fn output(t: &Tensor) -> Output {
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

struct EngineWork {
    expr: Expr,
    ops: Vec<Operand>,
    write: Write,
    out: Option<Tensor>,
}

impl WorkCall for EngineWork {
    fn run(&mut self) {
        let target = match self.write {
            Write::Alloc => None,
            Write::Out => self.out.as_ref(),
        };
        let r = compute(&self.expr, &self.ops, target).expect("the workloads are valid");
        if self.write == Write::Alloc {
            self.out = Some(r);
        }
    }

    fn reset(&mut self) {
        if self.write == Write::Alloc {
            self.out = None;
        }
    }

    fn output(&self) -> Output {
        output(self.out.as_ref().expect("run first"))
    }
}

/// A prepared engine call of `w`.
pub(crate) fn prepare(w: &Workload, data: &[Vec<f64>]) -> Option<Box<dyn WorkCall>> {
    let ops: Vec<Operand> = w
        .args
        .iter()
        .zip(data)
        .map(|(a, d)| operand(a, d))
        .collect::<Option<_>>()?;
    let out = match w.write {
        Write::Alloc => None,
        Write::Out => {
            let r = compute(&w.expr, &ops, None).ok()?;
            Some(Tensor::zeros(r.shape(), r.dtype()).ok()?)
        }
    };
    Some(Box::new(EngineWork {
        expr: w.expr.clone(),
        ops,
        write: w.write,
        out,
    }))
}

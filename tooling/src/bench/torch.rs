//! libtorch through tch as a benchmark peer (feature `torch`). Python numbers go through
//! torch's `Scalar` overloads (`add(Tensor, Scalar)`, which wrap the number as Python does),
//! so those rows are measured allocating or in place only; in-place arithmetic calls torch's
//! in-place methods (`x.add_(b)`).

use super::workload::{Arg, Bin, Cmp, Dt, Expr, Red, Ter, Un, Workload};
use super::{prepare, Backend, Call, Output, Peer};
use tch::{Kind, Tensor};

/// libtorch, with `at::set_num_threads` threads.
#[derive(Debug, Default)]
pub struct TorchPeer;

impl TorchPeer {
    /// libtorch; with `huge_pages`, its allocator asks for transparent huge pages on large
    /// allocations (`THP_MEM_ALLOC_ENABLE=1`, off by default, read once per process: call
    /// this before any other use of libtorch).
    pub fn new(huge_pages: bool) -> TorchPeer {
        if huge_pages {
            // SAFETY: no other thread reads the environment meanwhile: `bench::peers` makes
            // this peer before the benchmark's first call, so neither libtorch nor the
            // engine's pool has started a thread yet.
            unsafe { std::env::set_var("THP_MEM_ALLOC_ENABLE", "1") };
        }
        TorchPeer
    }
}

impl Peer for TorchPeer {
    fn name(&self) -> &'static str {
        "torch"
    }

    fn set_threads(&mut self, n: usize) -> usize {
        tch::set_num_threads(n as i32);
        tch::get_num_threads() as usize
    }

    fn prepare(&self, w: &Workload, data: &[Vec<f64>]) -> Option<Box<dyn Call>> {
        let ops = w
            .args
            .iter()
            .zip(data)
            .map(|(a, d)| operand(a, d))
            .collect();
        prepare::<TorchPeer>(w, ops)
    }
}

/// Its calls are frames of their own (not inlined), by which `scripts/profile-row.sh` tells
/// the torch's samples.
impl Backend for TorchPeer {
    type Operand = Op;
    type Result = Tensor;

    #[inline(never)]
    fn new_result(expr: &Expr, ops: &[Op]) -> Option<Tensor> {
        compute(expr, ops, None)
    }

    #[inline(never)]
    fn write_into(expr: &Expr, ops: &mut [Op], out: Option<&mut Tensor>) -> Option<()> {
        match out {
            Some(out) => compute(expr, ops, Some(out)).map(drop),
            None => in_place(expr, ops),
        }
    }

    fn like(r: &Tensor) -> Option<Tensor> {
        Some(Tensor::zeros(r.size(), (r.kind(), tch::Device::Cpu)))
    }

    fn output(t: &Tensor) -> Output {
        output(t)
    }

    fn operand_output(op: &Op) -> Option<Output> {
        match op {
            Op::T(t) => Some(output(t)),
            _ => None,
        }
    }
}

fn kind(d: Dt) -> Kind {
    match d {
        Dt::Bool => Kind::Bool,
        Dt::U8 => Kind::Uint8,
        Dt::I32 => Kind::Int,
        Dt::I64 => Kind::Int64,
        Dt::F16 => Kind::Half,
        Dt::BF16 => Kind::BFloat16,
        Dt::F32 => Kind::Float,
        Dt::F64 => Kind::Double,
    }
}

fn dt(k: Kind) -> Option<Dt> {
    Dt::ALL.into_iter().find(|&d| kind(d) == k)
}

/// An operand: a tensor (0-d ones included) or a Python number.
pub enum Op {
    T(Tensor),
    F(f64),
    I(i64),
}

fn i64s(v: &[usize]) -> Vec<i64> {
    v.iter().map(|&d| d as i64).collect()
}

fn operand(arg: &Arg, data: &[f64]) -> Op {
    match arg {
        Arg::Tensor { dtype, .. } => {
            let t = Tensor::from_slice(data)
                .to_kind(kind(*dtype))
                .reshape(i64s(&arg.storage_shape()));
            Op::T(match arg.view_perm() {
                Some(p) => t.permute(i64s(&p)),
                None => t,
            })
        }
        Arg::ZeroDim(d, v) => Op::T(
            Tensor::from_slice(&[*v])
                .to_kind(kind(*d))
                .reshape(Vec::<i64>::new()),
        ),
        Arg::Float(v) => Op::F(*v),
        Arg::Int(v) => Op::I(*v),
    }
}

fn reduced(r: Red, x: &Tensor, dims: &[i64]) -> Tensor {
    let dims = if dims.is_empty() {
        (0..x.dim() as i64).collect()
    } else {
        dims.to_vec()
    };
    match r {
        Red::Sum => x.sum_dim_intlist(dims.as_slice(), true, None),
        Red::Mean => x.mean_dim(dims.as_slice(), true, None),
        Red::Amax => x.amax(dims.as_slice(), true),
    }
}

fn binary(op: Bin, a: &Tensor, b: &Tensor, out: Option<&Tensor>) -> Tensor {
    match (op, out) {
        (Bin::Add, None) => a.g_add(b),
        (Bin::Add, Some(o)) => a.add_out(o, b),
        (Bin::Sub, None) => a.g_sub(b),
        (Bin::Sub, Some(o)) => a.sub_out(o, b),
        (Bin::Mul, None) => a.g_mul(b),
        (Bin::Mul, Some(o)) => a.mul_out(o, b),
        (Bin::Div, None) => a.g_div(b),
        (Bin::Div, Some(o)) => a.div_out(o, b),
        (Bin::Pow, None) => a.pow(b),
        (Bin::Pow, Some(o)) => a.pow_tensor_tensor_out(o, b),
        (Bin::Remainder, None) => a.remainder_tensor(b),
        (Bin::Remainder, Some(o)) => a.remainder_tensor_out(o, b),
    }
}

/// The workload in torch, into `out` when given; `None` for a form this peer does not write
/// (a number into `out=`).
fn compute(expr: &Expr, ops: &[Op], out: Option<&Tensor>) -> Option<Tensor> {
    let t = |k: usize| match &ops[k] {
        Op::T(t) => Some(t),
        _ => None,
    };
    Some(match expr {
        Expr::Binary(op) => match (&ops[1], out) {
            (Op::T(b), _) => binary(*op, t(0)?, b, out),
            (Op::F(s), None) => number_binary(*op, t(0)?, *s),
            (Op::I(s), None) => number_binary(*op, t(0)?, *s),
            _ => return None,
        },
        Expr::Compare(op) => {
            let a = t(0)?;
            match (&ops[1], out, op) {
                (Op::T(b), None, Cmp::Lt) => a.lt_tensor(b),
                (Op::T(b), Some(o), Cmp::Lt) => a.lt_tensor_out(o, b),
                (Op::T(b), None, Cmp::Gt) => a.gt_tensor(b),
                (Op::T(b), Some(o), Cmp::Gt) => a.gt_tensor_out(o, b),
                (Op::T(b), None, Cmp::Eq) => a.eq_tensor(b),
                (Op::T(b), Some(o), Cmp::Eq) => a.eq_tensor_out(o, b),
                (Op::T(b), None, Cmp::LogicalAnd) => a.logical_and(b),
                (Op::T(b), Some(o), Cmp::LogicalAnd) => a.logical_and_out(o, b),
                (Op::T(b), None, Cmp::LogicalXor) => a.logical_xor(b),
                (Op::T(b), Some(o), Cmp::LogicalXor) => a.logical_xor_out(o, b),
                (Op::F(s), None, Cmp::Gt) => a.gt(*s),
                (Op::F(s), None, Cmp::Lt) => a.lt(*s),
                _ => return None,
            }
        }
        Expr::Where => match out {
            None => t(1)?.where_self(t(0)?, t(2)?),
            Some(o) => t(1)?.where_self_out(o, t(0)?, t(2)?),
        },
        Expr::Unary(op) => {
            let a = t(0)?;
            match (op, out) {
                (Un::Sqrt, None) => a.sqrt(),
                (Un::Sqrt, Some(o)) => a.sqrt_out(o),
                (Un::Abs, None) => a.abs(),
                (Un::Abs, Some(o)) => a.abs_out(o),
                (Un::Neg, None) => a.neg(),
                (Un::Neg, Some(o)) => a.neg_out(o),
                (Un::Exp, None) => a.exp(),
                (Un::Exp, Some(o)) => a.exp_out(o),
            }
        }
        Expr::Ternary(op) => {
            let (a, b) = (t(0)?, t(1)?);
            match (op, &ops[2], out) {
                (Ter::Addcmul, Op::T(c), None) => a.addcmul(b, c),
                (Ter::Addcmul, Op::T(c), Some(o)) => a.addcmul_out(o, b, c),
                (Ter::Lerp, Op::T(c), None) => a.lerp_tensor(b, c),
                (Ter::Lerp, Op::T(c), Some(o)) => a.lerp_tensor_out(o, b, c),
                (Ter::Lerp, Op::F(w), None) => a.lerp(b, *w),
                (Ter::Lerp, Op::F(w), Some(o)) => a.lerp_scalar_out(o, b, *w),
                (Ter::Clamp, Op::T(c), None) => a.clamp_tensor(Some(b), Some(c)),
                (Ter::Clamp, Op::T(c), Some(o)) => a.clamp_tensor_out(o, Some(b), Some(c)),
                _ => return None,
            }
        }
        Expr::Reduce(r, dims) => reduced(*r, t(0)?, dims),
        Expr::ReduceBack(r, dims, op) => {
            let x = t(0)?;
            let m = reduced(*r, x, dims);
            binary(*op, x, &m, out)
        }
    })
}

fn number_binary<S: Into<tch::Scalar> + Copy>(op: Bin, a: &Tensor, s: S) -> Tensor {
    match op {
        Bin::Add => a.g_add_scalar(s),
        Bin::Sub => a.g_sub_scalar(s),
        Bin::Mul => a.g_mul_scalar(s),
        Bin::Div => a.g_div_scalar(s),
        Bin::Pow => a.pow_tensor_scalar(s),
        Bin::Remainder => a.remainder(s),
    }
}

/// The workload written into its first operand: arithmetic with torch's in-place methods
/// (`x.add_(b)`), anything else as `out=` the first operand.
fn in_place(expr: &Expr, ops: &mut [Op]) -> Option<()> {
    let (Op::T(a), rest) = ops.split_first_mut()? else {
        return None;
    };
    let _ = match (expr, rest.first()) {
        (Expr::Binary(op), Some(Op::T(b))) => match op {
            Bin::Add => a.g_add_(b),
            Bin::Sub => a.g_sub_(b),
            Bin::Mul => a.g_mul_(b),
            Bin::Div => a.g_div_(b),
            Bin::Pow => a.pow_tensor_(b),
            Bin::Remainder => a.remainder_tensor_(b),
        },
        _ => {
            let target = a.shallow_clone();
            compute(expr, ops, Some(&target))?
        }
    };
    Some(())
}

fn output(t: &Tensor) -> Output {
    let dtype = dt(t.kind()).expect("a dtype of the suite");
    let flat = t.contiguous().view(-1);
    let bits: Vec<u64> = match dtype {
        Dt::Bool | Dt::U8 => Vec::<u8>::try_from(&flat.to_kind(Kind::Uint8))
            .expect("bytes")
            .iter()
            .map(|&x| x as u64)
            .collect(),
        Dt::I32 => Vec::<i32>::try_from(&flat)
            .expect("int32")
            .iter()
            .map(|&x| x as i64 as u64)
            .collect(),
        Dt::I64 => Vec::<i64>::try_from(&flat)
            .expect("int64")
            .iter()
            .map(|&x| x as u64)
            .collect(),
        Dt::F16 | Dt::BF16 => Vec::<i16>::try_from(&flat.view_dtype(Kind::Int16))
            .expect("16-bit")
            .iter()
            .map(|&x| u64::from(x as u16))
            .collect(),
        Dt::F32 => Vec::<f32>::try_from(&flat)
            .expect("float32")
            .iter()
            .map(|x| x.to_bits().into())
            .collect(),
        Dt::F64 => Vec::<f64>::try_from(&flat)
            .expect("float64")
            .iter()
            .map(|x| x.to_bits())
            .collect(),
    };
    Output {
        dtype,
        shape: t.size().iter().map(|&d| d as usize).collect(),
        bits,
    }
}

//! The reference engine as a benchmark peer.

use super::pattern::{BenchDType, Op, Pattern, Variant};
use super::{Call, Peer};
use bcast_engine::half::{BFloat16, Half};
use bcast_engine::ops::{binary, binary_, BinaryOp};
use bcast_engine::Tensor;

/// The engine, with [`bcast_engine::iter::set_num_threads`] threads.
#[derive(Debug, Default)]
pub struct EnginePeer;

fn binary_op(op: Op) -> BinaryOp {
    match op {
        Op::Add => BinaryOp::Add(1.into()),
        Op::Sub => BinaryOp::Sub(1.into()),
        Op::Mul => BinaryOp::Mul,
    }
}

struct EngineCall {
    op: BinaryOp,
    variant: Variant,
    dtype: BenchDType,
    a: Tensor,
    b: Tensor,
    out: Option<Tensor>,
}

/// An engine tensor of `dtype` from values it holds exactly.
fn tensor(values: &[f32], shape: &[usize], dtype: BenchDType) -> Option<Tensor> {
    match dtype {
        BenchDType::Float32 => Tensor::from_vec(values.to_vec(), shape),
        BenchDType::Float16 => {
            Tensor::from_vec(values.iter().map(|&x| Half::from_f32(x)).collect(), shape)
        }
        BenchDType::BFloat16 => Tensor::from_vec(
            values.iter().map(|&x| BFloat16::from_f32(x)).collect(),
            shape,
        ),
        BenchDType::Int32 => Tensor::from_vec(values.iter().map(|&x| x as i32).collect(), shape),
    }
    .ok()
}

impl Call for EngineCall {
    fn run(&mut self) {
        let result = match self.variant {
            Variant::Alloc => binary(self.op, &self.a, &self.b, None),
            Variant::Out => binary(self.op, &self.a, &self.b, self.out.as_ref()),
            Variant::InPlace => binary_(self.op, &self.a, &self.b),
        };
        let result = result.expect("the patterns are valid");
        if self.variant == Variant::Alloc {
            self.out = Some(result);
        }
    }

    fn reset(&mut self) {
        if self.variant == Variant::Alloc {
            self.out = None;
        }
    }

    fn output(&self) -> Vec<u32> {
        let t = match self.variant {
            Variant::InPlace => &self.a,
            _ => self.out.as_ref().expect("run first"),
        };
        let bits = match self.dtype {
            BenchDType::Float32 => t
                .to_vec::<f32>()
                .map(|v| v.iter().map(|x| x.to_bits()).collect()),
            BenchDType::Float16 => t
                .to_vec::<Half>()
                .map(|v| v.iter().map(|x| x.to_bits().into()).collect()),
            BenchDType::BFloat16 => t
                .to_vec::<BFloat16>()
                .map(|v| v.iter().map(|x| x.to_bits().into()).collect()),
            BenchDType::Int32 => t
                .to_vec::<i32>()
                .map(|v| v.iter().map(|&x| x as u32).collect()),
        };
        bits.expect("the result has the row's dtype")
    }
}

impl Peer for EnginePeer {
    fn name(&self) -> &'static str {
        "engine"
    }

    fn set_threads(&mut self, n: usize) -> usize {
        bcast_engine::iter::set_num_threads(n);
        bcast_engine::iter::num_threads()
    }

    fn prepare(
        &self,
        p: &Pattern,
        v: Variant,
        dtype: BenchDType,
        a: &[f32],
        b: &[f32],
    ) -> Option<Box<dyn Call>> {
        let mut ta = tensor(a, p.a, dtype)?;
        if p.transposed {
            let n = p.a.len() as i64;
            ta = ta.transpose(n - 2, n - 1).ok()?;
        }
        let tb = tensor(b, p.b, dtype)?;
        let out = match v {
            Variant::Out => Some(Tensor::zeros(&p.out_shape(), dtype.engine()).ok()?),
            _ => None,
        };
        Some(Box::new(EngineCall {
            op: binary_op(p.op),
            variant: v,
            dtype,
            a: ta,
            b: tb,
            out,
        }))
    }

    fn prepare_workload(
        &self,
        w: &super::broad::workload::Workload,
        data: &[Vec<f64>],
    ) -> Option<Box<dyn super::broad::WorkCall>> {
        super::broad::engine::prepare(w, data)
    }
}

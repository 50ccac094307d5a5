//! The reference engine as a benchmark peer.

use super::pattern::{Op, Pattern, Variant};
use super::{Call, Peer};
use bcast_engine::ops::{binary, binary_, BinaryOp};
use bcast_engine::{DType, Tensor};

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
    a: Tensor,
    b: Tensor,
    out: Option<Tensor>,
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

    fn output(&self) -> Vec<f32> {
        let t = match self.variant {
            Variant::InPlace => &self.a,
            _ => self.out.as_ref().expect("run first"),
        };
        t.to_vec::<f32>().expect("float32")
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

    fn prepare(&self, p: &Pattern, v: Variant, a: &[f32], b: &[f32]) -> Option<Box<dyn Call>> {
        let mut ta = Tensor::from_vec(a.to_vec(), p.a).ok()?;
        if p.transposed {
            let n = p.a.len() as i64;
            ta = ta.transpose(n - 2, n - 1).ok()?;
        }
        let tb = Tensor::from_vec(b.to_vec(), p.b).ok()?;
        let out = match v {
            Variant::Out => Some(Tensor::zeros(&p.out_shape(), DType::Float32).ok()?),
            _ => None,
        };
        Some(Box::new(EngineCall {
            op: binary_op(p.op),
            variant: v,
            a: ta,
            b: tb,
            out,
        }))
    }
}

//! libtorch through tch as a benchmark peer (feature `torch`).

use super::pattern::{BenchDType, Op, Pattern, Variant};
use super::{Call, Peer};
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
            std::env::set_var("THP_MEM_ALLOC_ENABLE", "1");
        }
        TorchPeer
    }
}

struct TorchCall {
    op: Op,
    variant: Variant,
    dtype: BenchDType,
    a: Tensor,
    b: Tensor,
    out: Option<Tensor>,
}

/// torch's dtype of a row (the values convert to it exactly).
fn kind(dtype: BenchDType) -> Kind {
    match dtype {
        BenchDType::Float32 => Kind::Float,
        BenchDType::Float16 => Kind::Half,
        BenchDType::BFloat16 => Kind::BFloat16,
        BenchDType::Int32 => Kind::Int,
    }
}

fn shape(s: &[usize]) -> Vec<i64> {
    s.iter().map(|&d| d as i64).collect()
}

impl Call for TorchCall {
    fn run(&mut self) {
        let (a, b) = (&self.a, &self.b);
        match self.variant {
            Variant::Alloc => {
                self.out = Some(match self.op {
                    Op::Add => a.g_add(b),
                    Op::Sub => a.g_sub(b),
                    Op::Mul => a.g_mul(b),
                })
            }
            Variant::Out => {
                let out = self.out.as_ref().expect("prepared");
                let _ = match self.op {
                    Op::Add => a.add_out(out, b),
                    Op::Sub => a.sub_out(out, b),
                    Op::Mul => a.mul_out(out, b),
                };
            }
            Variant::InPlace => {
                let _ = match self.op {
                    Op::Add => self.a.g_add_(b),
                    Op::Sub => self.a.g_sub_(b),
                    Op::Mul => self.a.g_mul_(b),
                };
            }
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
        let flat = t.contiguous().view(-1);
        match self.dtype {
            BenchDType::Float32 => Vec::<f32>::try_from(&flat)
                .expect("float32")
                .iter()
                .map(|x| x.to_bits())
                .collect(),
            BenchDType::Int32 => Vec::<i32>::try_from(&flat)
                .expect("int32")
                .iter()
                .map(|&x| x as u32)
                .collect(),
            BenchDType::Float16 | BenchDType::BFloat16 => {
                Vec::<i16>::try_from(&flat.view_dtype(Kind::Int16))
                    .expect("16-bit")
                    .iter()
                    .map(|&x| u32::from(x as u16))
                    .collect()
            }
        }
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

    fn prepare(
        &self,
        p: &Pattern,
        v: Variant,
        dtype: BenchDType,
        a: &[f32],
        b: &[f32],
    ) -> Option<Box<dyn Call>> {
        let kind = kind(dtype);
        let mut ta = Tensor::from_slice(a)
            .to_kind(kind)
            .view(shape(p.a).as_slice());
        if p.transposed {
            let n = p.a.len() as i64;
            ta = ta.transpose(n - 2, n - 1);
        }
        let tb = Tensor::from_slice(b)
            .to_kind(kind)
            .view(shape(p.b).as_slice());
        let out = match v {
            Variant::Out => Some(Tensor::zeros(
                shape(&p.out_shape()).as_slice(),
                (kind, tch::Device::Cpu),
            )),
            _ => None,
        };
        Some(Box::new(TorchCall {
            op: p.op,
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
        super::broad::torch::prepare(w, data)
    }
}

//! The `ndarray` crate as a benchmark peer (feature `ndarray`): its operators on references
//! (which co-broadcast and allocate), `Zip` with `and_broadcast` for `out=`, and the assign
//! operators in place, on arrays of static dimensionality. ndarray runs on one thread: its
//! operators have no parallel form (the `rayon` feature adds `par_` methods, not threaded
//! operators), and this build does not enable it.

use super::pattern::{Op, Pattern, Variant};
use super::{Call, Peer};
use ndarray::{Array, ArrayBase, Data, DimMax, Dimension, Ix1, Ix2, Ix3, Ix4, Zip};

/// ndarray 0.16.
#[derive(Debug, Default)]
pub struct NdarrayPeer;

type Out<D1, D2> = Array<f32, <D1 as DimMax<D2>>::Output>;

struct NdCall<D1: Dimension + DimMax<D2>, D2: Dimension> {
    op: Op,
    variant: Variant,
    transposed: bool,
    a: Array<f32, D1>,
    b: Array<f32, D2>,
    out: Option<Out<D1, D2>>,
}

/// `a OP b` with ndarray's operators.
fn apply<S, D1, D2>(op: Op, a: &ArrayBase<S, D1>, b: &Array<f32, D2>) -> Out<D1, D2>
where
    S: Data<Elem = f32>,
    D1: Dimension + DimMax<D2>,
    D2: Dimension,
{
    match op {
        Op::Add => a + b,
        Op::Sub => a - b,
        Op::Mul => a * b,
    }
}

impl<D1: Dimension + DimMax<D2>, D2: Dimension> Call for NdCall<D1, D2> {
    fn run(&mut self) {
        let op = self.op;
        match self.variant {
            Variant::Alloc => {
                self.out = Some(if self.transposed {
                    apply(op, &self.a.t(), &self.b)
                } else {
                    apply(op, &self.a, &self.b)
                });
            }
            Variant::Out => {
                let out = self.out.as_mut().expect("prepared");
                let a = if self.transposed {
                    self.a.t()
                } else {
                    self.a.view()
                };
                Zip::from(out)
                    .and_broadcast(&a)
                    .and_broadcast(&self.b)
                    .for_each(|o, &x, &y| *o = op.apply(x, y));
            }
            Variant::InPlace => match op {
                Op::Add => self.a += &self.b,
                Op::Sub => self.a -= &self.b,
                Op::Mul => self.a *= &self.b,
            },
        }
    }

    fn reset(&mut self) {
        if self.variant == Variant::Alloc {
            self.out = None;
        }
    }

    fn output(&self) -> Vec<f32> {
        match self.variant {
            Variant::InPlace => self.a.iter().copied().collect(),
            _ => self
                .out
                .as_ref()
                .expect("run first")
                .iter()
                .copied()
                .collect(),
        }
    }
}

fn call<D1, D2>(p: &Pattern, v: Variant, a: &[f32], b: &[f32]) -> Option<Box<dyn Call>>
where
    D1: Dimension + DimMax<D2> + 'static,
    D2: Dimension + 'static,
{
    let a = Array::from_shape_vec(p.a.to_vec(), a.to_vec())
        .ok()?
        .into_dimensionality::<D1>()
        .ok()?;
    let b = Array::from_shape_vec(p.b.to_vec(), b.to_vec())
        .ok()?
        .into_dimensionality::<D2>()
        .ok()?;
    let out = match v {
        Variant::Out => Some(
            Array::zeros(p.out_shape())
                .into_dimensionality::<<D1 as DimMax<D2>>::Output>()
                .ok()?,
        ),
        _ => None,
    };
    Some(Box::new(NdCall {
        op: p.op,
        variant: v,
        transposed: p.transposed,
        a,
        b,
        out,
    }))
}

impl Peer for NdarrayPeer {
    fn name(&self) -> &'static str {
        "ndarray"
    }

    fn set_threads(&mut self, _n: usize) -> usize {
        1
    }

    fn prepare(&self, p: &Pattern, v: Variant, a: &[f32], b: &[f32]) -> Option<Box<dyn Call>> {
        match (p.a.len(), p.b.len()) {
            (1, 1) => call::<Ix1, Ix1>(p, v, a, b),
            (2, 1) => call::<Ix2, Ix1>(p, v, a, b),
            (2, 2) => call::<Ix2, Ix2>(p, v, a, b),
            (4, 3) => call::<Ix4, Ix3>(p, v, a, b),
            (4, 4) => call::<Ix4, Ix4>(p, v, a, b),
            _ => None,
        }
    }
}

//! The `ndarray` crate as a benchmark peer (feature `ndarray`): its operators on references
//! (which co-broadcast and allocate), `Zip` with `and_broadcast` for `out=`, and the assign
//! operators in place, on arrays of static dimensionality, in float32 and int32 (ndarray has no
//! half-precision element type). ndarray runs on one thread: its
//! operators have no parallel form (the `rayon` feature adds `par_` methods, not threaded
//! operators), and this build does not enable it.

use super::pattern::{BenchDType, Op, Pattern, Variant};
use super::{Call, Peer};
use ndarray::{Array, ArrayBase, Data, DimMax, Dimension, Ix1, Ix2, Ix3, Ix4, LinalgScalar, Zip};
use std::ops::{AddAssign, MulAssign, SubAssign};

/// ndarray 0.16.
#[derive(Debug, Default)]
pub struct NdarrayPeer;

/// An element type measured with ndarray: `f32` or `i32`.
trait Elem: LinalgScalar + AddAssign + SubAssign + MulAssign + Send + Sync {
    fn from_f32(x: f32) -> Self;
    fn bits(self) -> u32;
}

impl Elem for f32 {
    fn from_f32(x: f32) -> f32 {
        x
    }
    fn bits(self) -> u32 {
        self.to_bits()
    }
}

impl Elem for i32 {
    fn from_f32(x: f32) -> i32 {
        x as i32
    }
    fn bits(self) -> u32 {
        self as u32
    }
}

type Out<T, D1, D2> = Array<T, <D1 as DimMax<D2>>::Output>;

struct NdCall<T: Elem, D1: Dimension + DimMax<D2>, D2: Dimension> {
    op: Op,
    variant: Variant,
    transposed: bool,
    a: Array<T, D1>,
    b: Array<T, D2>,
    out: Option<Out<T, D1, D2>>,
}

/// `a OP b` with ndarray's operators.
fn apply<T, S, D1, D2>(op: Op, a: &ArrayBase<S, D1>, b: &Array<T, D2>) -> Out<T, D1, D2>
where
    T: Elem,
    S: Data<Elem = T>,
    D1: Dimension + DimMax<D2>,
    D2: Dimension,
{
    match op {
        Op::Add => a + b,
        Op::Sub => a - b,
        Op::Mul => a * b,
    }
}

impl<T: Elem, D1: Dimension + DimMax<D2>, D2: Dimension> Call for NdCall<T, D1, D2> {
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

    fn output(&self) -> Vec<u32> {
        match self.variant {
            Variant::InPlace => self.a.iter().map(|x| x.bits()).collect(),
            _ => self
                .out
                .as_ref()
                .expect("run first")
                .iter()
                .map(|x| x.bits())
                .collect(),
        }
    }
}

fn call<T, D1, D2>(p: &Pattern, v: Variant, a: &[f32], b: &[f32]) -> Option<Box<dyn Call>>
where
    T: Elem,
    D1: Dimension + DimMax<D2> + 'static,
    D2: Dimension + 'static,
{
    let convert = |v: &[f32]| v.iter().map(|&x| T::from_f32(x)).collect::<Vec<T>>();
    let a = Array::from_shape_vec(p.a.to_vec(), convert(a))
        .ok()?
        .into_dimensionality::<D1>()
        .ok()?;
    let b = Array::from_shape_vec(p.b.to_vec(), convert(b))
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

/// [`call`] with the pattern's static dimensionalities.
fn call_dims<T: Elem>(p: &Pattern, v: Variant, a: &[f32], b: &[f32]) -> Option<Box<dyn Call>> {
    match (p.a.len(), p.b.len()) {
        (1, 1) => call::<T, Ix1, Ix1>(p, v, a, b),
        (2, 1) => call::<T, Ix2, Ix1>(p, v, a, b),
        (2, 2) => call::<T, Ix2, Ix2>(p, v, a, b),
        (4, 3) => call::<T, Ix4, Ix3>(p, v, a, b),
        (4, 4) => call::<T, Ix4, Ix4>(p, v, a, b),
        _ => None,
    }
}

impl Peer for NdarrayPeer {
    fn name(&self) -> &'static str {
        "ndarray"
    }

    fn set_threads(&mut self, _n: usize) -> usize {
        1
    }

    fn prepare(
        &self,
        p: &Pattern,
        v: Variant,
        dtype: BenchDType,
        a: &[f32],
        b: &[f32],
    ) -> Option<Box<dyn Call>> {
        match dtype {
            BenchDType::Float32 => call_dims::<f32>(p, v, a, b),
            BenchDType::Int32 => call_dims::<i32>(p, v, a, b),
            BenchDType::Float16 | BenchDType::BFloat16 => None,
        }
    }

    fn prepare_workload(
        &self,
        w: &super::broad::workload::Workload,
        data: &[Vec<f64>],
    ) -> Option<Box<dyn super::broad::WorkCall>> {
        super::broad::ndarray::prepare(w, data)
    }
}

//! ndarray on the broad suite's workloads where it has the op: same-dtype arithmetic and
//! comparisons between tensors (operators, `Zip` with `and_broadcast` for `out=` and for
//! `bool` results), `sqrt`, and sums and means over one axis (`sum_axis`, `mean_axis`) with the
//! broadcast back. Arrays are `ArrayD` (dynamic dimensionality, which costs ndarray some speed
//! against the static dimensions of the pattern suite's peer); one thread.

use super::workload::{Arg, Bin, Cmp, Dt, Expr, Red, Un, Workload, Write};
use super::{Output, WorkCall};
use ndarray::{ArrayD, Axis, IxDyn, LinalgScalar, Zip};

/// An element type measured with ndarray.
trait El: LinalgScalar + PartialOrd + Send + Sync + std::fmt::Debug {
    const DT: Dt;
    fn from_f64(v: f64) -> Self;
    fn bits(self) -> u64;
    fn sqrt(self) -> Option<Self>;
}

macro_rules! int_el {
    ($t:ty, $dt:expr) => {
        impl El for $t {
            const DT: Dt = $dt;
            fn from_f64(v: f64) -> Self {
                v as $t
            }
            fn bits(self) -> u64 {
                self as i64 as u64
            }
            fn sqrt(self) -> Option<Self> {
                None
            }
        }
    };
}
int_el!(u8, Dt::U8);
int_el!(i32, Dt::I32);
int_el!(i64, Dt::I64);

impl El for f32 {
    const DT: Dt = Dt::F32;
    fn from_f64(v: f64) -> Self {
        v as f32
    }
    fn bits(self) -> u64 {
        self.to_bits().into()
    }
    fn sqrt(self) -> Option<Self> {
        Some(f32::sqrt(self))
    }
}

impl El for f64 {
    const DT: Dt = Dt::F64;
    fn from_f64(v: f64) -> Self {
        v
    }
    fn bits(self) -> u64 {
        self.to_bits()
    }
    fn sqrt(self) -> Option<Self> {
        Some(f64::sqrt(self))
    }
}

fn array<T: El>(arg: &Arg, data: &[f64]) -> Option<ArrayD<T>> {
    let Arg::Tensor { dtype, .. } = arg else {
        return None;
    };
    if *dtype != T::DT {
        return None;
    }
    let a = ArrayD::from_shape_vec(
        IxDyn(&arg.storage_shape()),
        data.iter().map(|&v| T::from_f64(v)).collect(),
    )
    .ok()?;
    Some(match arg.view_perm() {
        Some(p) => a.permuted_axes(IxDyn(&p)),
        None => a,
    })
}

enum Res<T> {
    Values(ArrayD<T>),
    Bools(ArrayD<bool>),
}

struct NdWork<T: El> {
    expr: Expr,
    ops: Vec<ArrayD<T>>,
    write: Write,
    out: Option<Res<T>>,
}

fn apply<T: El>(op: Bin, x: T, y: T) -> T {
    match op {
        Bin::Add => x + y,
        Bin::Sub => x - y,
        Bin::Mul => x * y,
        _ => x / y,
    }
}

/// The axis of a one-dim reduction of an `ndim`-d array.
fn axis(dims: &[i64], ndim: usize) -> Option<Axis> {
    match dims {
        [d] => Some(Axis(if *d < 0 {
            (ndim as i64 + d) as usize
        } else {
            *d as usize
        })),
        _ => None,
    }
}

fn reduced<T: El>(r: Red, x: &ArrayD<T>, ax: Axis) -> Option<ArrayD<T>> {
    let m = match r {
        Red::Sum => x.sum_axis(ax),
        // ndarray's `mean_axis`: the sum over the count.
        Red::Mean => {
            let n = T::from_f64(x.len_of(ax) as f64);
            x.sum_axis(ax).mapv(|v| v / n)
        }
        Red::Amax => return None,
    };
    Some(m.insert_axis(ax))
}

impl<T: El> NdWork<T> {
    fn compute(&mut self) -> Option<()> {
        let ops = &self.ops;
        let op = |k: usize| &ops[k];
        let out = &mut self.out;
        match (&self.expr, self.write) {
            (Expr::Binary(b), Write::Alloc) => {
                let b = *b;
                *out = Some(Res::Values(match b {
                    Bin::Add => op(0) + op(1),
                    Bin::Sub => op(0) - op(1),
                    Bin::Mul => op(0) * op(1),
                    _ => op(0) / op(1),
                }));
            }
            (Expr::Binary(b), Write::Out) => {
                let Some(Res::Values(o)) = out else {
                    return None;
                };
                let b = *b;
                Zip::from(o)
                    .and_broadcast(op(0))
                    .and_broadcast(op(1))
                    .for_each(|o, &x, &y| *o = apply(b, x, y));
            }
            (Expr::Compare(c), w) => {
                let c = *c;
                let f = move |x: T, y: T| if c == Cmp::Lt { x < y } else { x == y };
                if w == Write::Alloc {
                    let shape =
                        bcast_engine::shape::infer_size(op(0).shape(), op(1).shape()).ok()?;
                    *out = Some(Res::Bools(ArrayD::from_elem(IxDyn(&shape), false)));
                }
                let Some(Res::Bools(o)) = out else {
                    return None;
                };
                Zip::from(o)
                    .and_broadcast(op(0))
                    .and_broadcast(op(1))
                    .for_each(|o, &x, &y| *o = f(x, y));
            }
            (Expr::Unary(Un::Sqrt), Write::Alloc) => {
                *out = Some(Res::Values(op(0).mapv(|v| v.sqrt().unwrap_or(v))));
            }
            (Expr::Unary(Un::Sqrt), Write::Out) => {
                let Some(Res::Values(o)) = out else {
                    return None;
                };
                Zip::from(o)
                    .and(op(0))
                    .for_each(|o, &x| *o = x.sqrt().unwrap_or(x));
            }
            (Expr::Reduce(r, dims), Write::Alloc) => {
                let x = op(0);
                *out = Some(Res::Values(reduced(*r, x, axis(dims, x.ndim())?)?));
            }
            (Expr::ReduceBack(r, dims, b), w) => {
                let x = op(0);
                let m = reduced(*r, x, axis(dims, x.ndim())?)?;
                let b = *b;
                match w {
                    Write::Alloc => {
                        *out = Some(Res::Values(match b {
                            Bin::Sub => x - &m,
                            _ => x / &m,
                        }))
                    }
                    Write::Out => {
                        let Some(Res::Values(o)) = out else {
                            return None;
                        };
                        Zip::from(o)
                            .and(x)
                            .and_broadcast(&m)
                            .for_each(|o, &x, &y| *o = apply(b, x, y));
                    }
                }
            }
            _ => return None,
        }
        Some(())
    }
}

impl<T: El> WorkCall for NdWork<T> {
    fn run(&mut self) {
        self.compute().expect("prepared");
    }

    fn reset(&mut self) {
        if self.write == Write::Alloc {
            self.out = None;
        }
    }

    fn output(&self) -> Output {
        let (dtype, shape, bits) = match self.out.as_ref().expect("run first") {
            Res::Values(a) => (
                T::DT,
                a.shape().to_vec(),
                a.iter().map(|x| x.bits()).collect(),
            ),
            Res::Bools(a) => (
                Dt::Bool,
                a.shape().to_vec(),
                a.iter().map(|&x| x as u64).collect(),
            ),
        };
        Output { dtype, shape, bits }
    }
}

/// Whether ndarray computes `w` as torch does (its true division of integers, comparisons
/// other than `<` and `==`, numbers and 0-d operands are left out).
fn expressible(w: &Workload) -> bool {
    let tensors = w.args.iter().all(|a| matches!(a, Arg::Tensor { .. }));
    let same = w.args.windows(2).all(|p| match (&p[0], &p[1]) {
        (Arg::Tensor { dtype: a, .. }, Arg::Tensor { dtype: b, .. }) => a == b,
        _ => false,
    });
    let float = matches!(&w.args[0], Arg::Tensor { dtype, .. } if dtype.is_float());
    tensors
        && same
        && match &w.expr {
            Expr::Binary(Bin::Add | Bin::Sub | Bin::Mul) => true,
            Expr::Binary(Bin::Div) => float,
            Expr::Compare(Cmp::Lt | Cmp::Eq) => true,
            Expr::Unary(Un::Sqrt) => float,
            Expr::Reduce(Red::Sum, d) => d.len() == 1,
            Expr::Reduce(Red::Mean, d) => float && d.len() == 1,
            Expr::ReduceBack(Red::Sum | Red::Mean, d, Bin::Sub | Bin::Div) => float && d.len() == 1,
            _ => false,
        }
}

fn typed<T: El>(w: &Workload, data: &[Vec<f64>]) -> Option<Box<dyn WorkCall>> {
    let ops: Vec<ArrayD<T>> = w
        .args
        .iter()
        .zip(data)
        .map(|(a, d)| array::<T>(a, d))
        .collect::<Option<_>>()?;
    let mut call = NdWork {
        expr: w.expr.clone(),
        ops,
        write: Write::Alloc,
        out: None,
    };
    call.compute()?;
    if w.write == Write::Out {
        call.out = match call.out.take()? {
            Res::Values(a) => Some(Res::Values(ArrayD::zeros(a.raw_dim()))),
            Res::Bools(a) => Some(Res::Bools(ArrayD::from_elem(a.raw_dim(), false))),
        };
        call.write = Write::Out;
    }
    Some(Box::new(call))
}

/// A prepared ndarray call of `w`, where ndarray has the op.
pub(crate) fn prepare(w: &Workload, data: &[Vec<f64>]) -> Option<Box<dyn WorkCall>> {
    if !expressible(w) {
        return None;
    }
    let Arg::Tensor { dtype, .. } = &w.args[0] else {
        return None;
    };
    match dtype {
        Dt::F32 => typed::<f32>(w, data),
        Dt::F64 => typed::<f64>(w, data),
        Dt::I32 => typed::<i32>(w, data),
        Dt::I64 => typed::<i64>(w, data),
        Dt::U8 => typed::<u8>(w, data),
        _ => None,
    }
}

//! The `ndarray` crate as a benchmark peer (feature `ndarray`), where it has the op: same-dtype
//! arithmetic and comparisons between tensors (the operators, which co-broadcast and allocate;
//! `Zip` with `and_broadcast` for `out=` and for `bool` results; the assign operators in place),
//! `sqrt`, and sums and means over one axis with the broadcast back. Arrays have static
//! dimensionality (an operand of fewer dims gets leading axes of length 1, as broadcasting
//! gives it), in uint8, int32, int64, float32 and float64 (ndarray has no half-precision
//! type). One thread: ndarray's operators have no parallel form (the `rayon` feature adds
//! `par_` methods, not threaded operators), and this build does not enable it.

use super::workload::{Arg, Bin, Cmp, Dt, Expr, Red, Un, Workload, Write};
use super::{prepare, Backend, Call, Output, Peer};
use ndarray::{
    Array, ArrayD, Axis, DimMax, Dimension, Ix1, Ix2, Ix3, Ix4, LinalgScalar, RemoveAxis, Zip,
};
use std::marker::PhantomData;
use std::ops::{AddAssign, MulAssign, SubAssign};

/// ndarray 0.16.
#[derive(Debug, Default)]
pub struct NdarrayPeer;

impl Peer for NdarrayPeer {
    fn name(&self) -> &'static str {
        "ndarray"
    }

    fn prepare(&self, w: &Workload, data: &[Vec<f64>]) -> Option<Box<dyn Call>> {
        if !expressible(w) {
            return None;
        }
        let Arg::Tensor { dtype, .. } = &w.args[0] else {
            return None;
        };
        match dtype {
            Dt::F32 => with_dims::<f32>(w, data),
            Dt::F64 => with_dims::<f64>(w, data),
            Dt::I32 => with_dims::<i32>(w, data),
            Dt::I64 => with_dims::<i64>(w, data),
            Dt::U8 => with_dims::<u8>(w, data),
            _ => None,
        }
    }
}

/// An element type measured with ndarray.
trait El:
    LinalgScalar + PartialOrd + AddAssign + SubAssign + MulAssign + Send + Sync + 'static
{
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

/// Whether ndarray computes `w` as torch does (its true division of integers, comparisons
/// other than `<` and `==`, numbers and 0-d operands are left out).
fn expressible(w: &Workload) -> bool {
    let tensors = w.args.iter().all(|a| matches!(a, Arg::Tensor { .. }));
    let same = w.args.windows(2).all(|p| match (&p[0], &p[1]) {
        (Arg::Tensor { dtype: a, .. }, Arg::Tensor { dtype: b, .. }) => a == b,
        _ => false,
    });
    let float = matches!(&w.args[0], Arg::Tensor { dtype, .. } if dtype.is_float());
    let in_place = w.write == Write::InPlace;
    tensors
        && same
        && match &w.expr {
            Expr::Binary(Bin::Add | Bin::Sub | Bin::Mul) => true,
            Expr::Binary(Bin::Div) => float && !in_place,
            Expr::Compare(Cmp::Lt | Cmp::Eq) => !in_place,
            Expr::Unary(Un::Sqrt) => float && !in_place,
            Expr::Reduce(Red::Sum, d) => d.len() == 1 && !in_place,
            Expr::Reduce(Red::Mean, d) => float && d.len() == 1 && !in_place,
            Expr::ReduceBack(Red::Sum | Red::Mean, d, Bin::Sub | Bin::Div) => {
                float && d.len() == 1 && !in_place
            }
            _ => false,
        }
}

/// The array of a tensor operand of dtype `T`, from its storage-order `data`.
fn array<T: El>(arg: &Arg, data: &[f64]) -> Option<ArrayD<T>> {
    let Arg::Tensor { dtype, .. } = arg else {
        return None;
    };
    if *dtype != T::DT {
        return None;
    }
    let a = ArrayD::from_shape_vec(
        arg.storage_shape(),
        data.iter().map(|&v| T::from_f64(v)).collect(),
    )
    .ok()?;
    Some(match arg.view_perm() {
        Some(p) => a.permuted_axes(p),
        None => a,
    })
}

/// A call of `w` on arrays of `T`, all of the most dims among the operands (up to four).
fn with_dims<T: El>(w: &Workload, data: &[Vec<f64>]) -> Option<Box<dyn Call>> {
    let arrays: Vec<ArrayD<T>> = w
        .args
        .iter()
        .zip(data)
        .map(|(a, d)| array::<T>(a, d))
        .collect::<Option<_>>()?;
    let ndim = arrays.iter().map(|a| a.ndim()).max()?;
    let padded = arrays.into_iter().map(|mut a| {
        while a.ndim() < ndim {
            a = a.insert_axis(Axis(0));
        }
        a
    });
    match ndim {
        1 => typed::<T, Ix1>(w, padded),
        2 => typed::<T, Ix2>(w, padded),
        3 => typed::<T, Ix3>(w, padded),
        4 => typed::<T, Ix4>(w, padded),
        _ => None,
    }
}

fn typed<T: El, D>(w: &Workload, arrays: impl Iterator<Item = ArrayD<T>>) -> Option<Box<dyn Call>>
where
    D: RemoveAxis + DimMax<D, Output = D> + 'static,
{
    let ops = arrays
        .map(|a| a.into_dimensionality::<D>().ok())
        .collect::<Option<_>>()?;
    prepare::<Nd<T, D>>(w, ops)
}

/// A result: numbers, or `bool` for a comparison.
enum Res<T, D> {
    Values(Array<T, D>),
    Bools(Array<bool, D>),
}

/// ndarray on elements `T` in arrays of dims `D`.
struct Nd<T, D>(PhantomData<(T, D)>);

/// `x OP y` with ndarray's operators (`OP` one of `+ - * /`).
fn arith<T: El, D: Dimension + DimMax<D, Output = D>>(
    op: Bin,
    x: &Array<T, D>,
    y: &Array<T, D>,
) -> Array<T, D> {
    match op {
        Bin::Add => x + y,
        Bin::Sub => x - y,
        Bin::Mul => x * y,
        _ => x / y,
    }
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

/// `x.OP(dims, keepdim=True)`: ndarray's `sum_axis`, and for the mean the sum over the count.
fn reduced<T: El, D: RemoveAxis>(r: Red, x: &Array<T, D>, dims: &[i64]) -> Option<Array<T, D>> {
    let ax = axis(dims, x.ndim())?;
    let m = match r {
        Red::Sum => x.sum_axis(ax),
        Red::Mean => {
            let n = T::from_f64(x.len_of(ax) as f64);
            x.sum_axis(ax).mapv_into(|v| v / n)
        }
        Red::Amax => return None,
    };
    m.insert_axis(ax).into_dimensionality::<D>().ok()
}

/// `x < y` or `x == y` of every broadcast pair, into `o`.
fn compare<T: El, D: Dimension>(c: Cmp, o: &mut Array<bool, D>, x: &Array<T, D>, y: &Array<T, D>) {
    let f = move |x: T, y: T| if c == Cmp::Lt { x < y } else { x == y };
    Zip::from(o)
        .and_broadcast(x)
        .and_broadcast(y)
        .for_each(|o, &x, &y| *o = f(x, y));
}

impl<T: El, D> Backend for Nd<T, D>
where
    D: RemoveAxis + DimMax<D, Output = D> + 'static,
{
    type Operand = Array<T, D>;
    type Result = Res<T, D>;

    fn new_result(expr: &Expr, ops: &[Array<T, D>]) -> Option<Res<T, D>> {
        let x = ops.first()?;
        Some(match expr {
            Expr::Binary(b) => Res::Values(arith(*b, x, ops.get(1)?)),
            Expr::Compare(c) => {
                let y = ops.get(1)?;
                let shape = bcast_engine::shape::infer_size(x.shape(), y.shape()).ok()?;
                let mut dim = x.raw_dim();
                dim.slice_mut().copy_from_slice(&shape);
                let mut o = Array::from_elem(dim, false);
                compare(*c, &mut o, x, y);
                Res::Bools(o)
            }
            Expr::Unary(Un::Sqrt) => Res::Values(x.mapv(|v| v.sqrt().unwrap_or(v))),
            Expr::Reduce(r, dims) => Res::Values(reduced(*r, x, dims)?),
            Expr::ReduceBack(r, dims, b) => Res::Values(arith(*b, x, &reduced(*r, x, dims)?)),
            _ => return None,
        })
    }

    fn write_into(expr: &Expr, ops: &mut [Array<T, D>], out: Option<&mut Res<T, D>>) -> Option<()> {
        let Some(out) = out else {
            let (a, rest) = ops.split_first_mut()?;
            let b = rest.first()?;
            match expr {
                Expr::Binary(Bin::Add) => *a += b,
                Expr::Binary(Bin::Sub) => *a -= b,
                Expr::Binary(Bin::Mul) => *a *= b,
                _ => return None,
            }
            return Some(());
        };
        let x = ops.first()?;
        match (expr, out) {
            (Expr::Binary(b), Res::Values(o)) => {
                let b = *b;
                Zip::from(o)
                    .and_broadcast(x)
                    .and_broadcast(ops.get(1)?)
                    .for_each(|o, &x, &y| *o = apply(b, x, y));
            }
            (Expr::Compare(c), Res::Bools(o)) => compare(*c, o, x, ops.get(1)?),
            (Expr::Unary(Un::Sqrt), Res::Values(o)) => {
                Zip::from(o)
                    .and(x)
                    .for_each(|o, &x| *o = x.sqrt().unwrap_or(x));
            }
            (Expr::ReduceBack(r, dims, b), Res::Values(o)) => {
                let m = reduced(*r, x, dims)?;
                let b = *b;
                Zip::from(o)
                    .and(x)
                    .and_broadcast(&m)
                    .for_each(|o, &x, &y| *o = apply(b, x, y));
            }
            _ => return None,
        }
        Some(())
    }

    fn like(r: &Res<T, D>) -> Option<Res<T, D>> {
        Some(match r {
            Res::Values(a) => Res::Values(Array::zeros(a.raw_dim())),
            Res::Bools(a) => Res::Bools(Array::from_elem(a.raw_dim(), false)),
        })
    }

    fn output(r: &Res<T, D>) -> Output {
        match r {
            Res::Values(a) => Self::operand_output(a).expect("an array"),
            Res::Bools(a) => Output {
                dtype: Dt::Bool,
                shape: a.shape().to_vec(),
                bits: a.iter().map(|&x| x as u64).collect(),
            },
        }
    }

    fn operand_output(a: &Array<T, D>) -> Option<Output> {
        Some(Output {
            dtype: T::DT,
            shape: a.shape().to_vec(),
            bits: a.iter().map(|x| x.bits()).collect(),
        })
    }
}

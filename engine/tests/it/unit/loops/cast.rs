//! Inputs of another dtype, converted as the loop loads them: the bits of the same loop over
//! their conversion, for every dtype pair; the index map converts the input first instead.

use bcast_engine::__internals::loops::cast::converted_on_load as converted;
use bcast_engine::config::{with_strategy, Strategy};
use bcast_engine::loops::{map_binary, map_ternary, map_unary};
use bcast_engine::{dispatch_dtype, DType, Scalar, Tensor};

/// A value's bits, NaN payloads included.
fn bits(s: &Scalar) -> (u64, u64) {
    match *s {
        Scalar::Bool(b) => (b as u64, 0),
        Scalar::Int(i) => (i as u64, 1),
        Scalar::Float(f) => (f.to_bits(), 2),
        Scalar::Complex(re, im) => (re.to_bits(), im.to_bits()),
    }
}

fn same_values(a: &Tensor, b: &Tensor) -> bool {
    let (x, y) = (a.to_scalars(), b.to_scalars());
    x.len() == y.len() && x.iter().zip(&y).all(|(p, q)| bits(p) == bits(q))
}

/// `(rows, cols)` values of `dtype` with edges every dtype converts in its own way
/// (NaN, infinities, negative zero, values past each integer range, fractions).
fn values(dtype: DType, rows: usize, cols: usize) -> Tensor {
    const EDGES: [f64; 14] = [
        0.0,
        -0.0,
        1.5,
        -2.5,
        255.0,
        256.0,
        -129.0,
        70000.0,
        1e-8,
        3.0e38,
        1e19,
        f64::INFINITY,
        f64::NEG_INFINITY,
        f64::NAN,
    ];
    let v: Vec<f64> = (0..rows * cols)
        .map(|i| EDGES[i % EDGES.len()] * if i % 3 == 0 { 1.0 } else { -0.75 })
        .collect();
    Tensor::from_vec(v, &[rows, cols])
        .unwrap()
        .to_dtype(dtype)
        .unwrap()
}

/// Every dtype pair: an input read through a cast gives the bits of the same loop over
/// its conversion, in rows longer than a chunk, in columns of a transposed input, over a
/// strided one, over broadcast ones (stride 0 across and along rows), with a stride-0
/// input beside it, and as each operand of three.
#[test]
fn every_dtype_pair_loads_as_its_conversion() {
    for from in DType::ALL {
        for to in DType::ALL {
            let base = values(from, 3, 700);
            let inputs = [
                base.clone(),
                values(from, 700, 3).t().unwrap(),
                base.narrow(1, 1, 600)
                    .unwrap()
                    .slice(1, Some(0), Some(600), 2)
                    .unwrap(),
                values(from, 1, 700).expand(&[3, 700]).unwrap(),
                values(from, 3, 1).expand(&[3, 700]).unwrap(),
            ];
            for x in &inputs {
                let y = values(to, 1, x.shape()[1]);
                dispatch_dtype!(to, D => {
                    let before = converted();
                    let out = Tensor::zeros(x.shape(), to).unwrap();
                    map_binary(&out, x, &y, |a: D, _b: D| a).unwrap();
                    assert!(from == to || converted() > before, "{from:?} {to:?}");
                    let expected = Tensor::zeros(x.shape(), to).unwrap();
                    let first = x.to_dtype(to).unwrap();
                    map_binary(&expected, &first, &y, |a: D, _b: D| a).unwrap();
                    assert!(same_values(&out, &expected), "{from:?} to {to:?}, {x:?}");

                    // The converted input second, and beside a stride-0 input.
                    map_binary(&out, &y, x, |_a: D, b: D| b).unwrap();
                    assert!(same_values(&out, &expected), "{from:?} to {to:?} second");
                    map_ternary(&out, &y, &y, x, |_a: D, _b: D, c: D| c).unwrap();
                    assert!(same_values(&out, &expected), "{from:?} to {to:?} third");
                    let out1 = Tensor::zeros(x.shape(), to).unwrap();
                    map_unary(&out1, x, |a: D| a).unwrap();
                    assert!(same_values(&out1, &expected), "{from:?} to {to:?} unary");
                });
            }
        }
    }
}

/// The index map, which reads single elements, gets the input converted first instead.
#[test]
fn the_index_map_converts_first() {
    let x = values(DType::Int64, 2, 300);
    let y = values(DType::Float32, 2, 300);
    let out = Tensor::zeros(&[2, 300], DType::Float32).unwrap();
    let before = converted();
    with_strategy(Strategy::IndexMap, || {
        map_binary(&out, &x, &y, |a: f32, b: f32| a + b).unwrap()
    });
    assert_eq!(converted(), before);
    let expected = Tensor::zeros(&[2, 300], DType::Float32).unwrap();
    map_binary(
        &expected,
        &x.to_dtype(DType::Float32).unwrap(),
        &y,
        |a: f32, b: f32| a + b,
    )
    .unwrap();
    assert!(same_values(&out, &expected));
    map_binary(&out, &x, &y, |a: f32, b: f32| a + b).unwrap();
    assert_eq!(converted(), before + 600);
    assert!(same_values(&out, &expected));
}

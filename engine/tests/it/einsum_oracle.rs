//! `einsum` agrees with brute force: the output element for an assignment of the output labels
//! is the sum, over every assignment of the other labels, of the product of the operands'
//! elements (read through the naive index map; a size-1 dim broadcasts and reads index 0).
//! Random equations with shared, repeated and summed labels, implicit and explicit outputs, and
//! random layouts.

use crate::common;

use bcast_engine::{index_map, linalg, DType, Tensor};
use common::{at, build, view_recipe, ViewRecipe};
use proptest::prelude::*;

const LABELS: &[u8] = b"abcd";

/// An equation over `LABELS`: each operand's labels, and the output labels (`None`: implicit).
#[derive(Debug, Clone)]
struct Equation {
    inputs: Vec<Vec<u8>>,
    output: Option<Vec<u8>>,
}

impl Equation {
    fn text(&self) -> String {
        let ins: Vec<String> = self
            .inputs
            .iter()
            .map(|l| String::from_utf8(l.clone()).unwrap())
            .collect();
        let mut s = ins.join(",");
        if let Some(out) = &self.output {
            s.push_str("->");
            s.push_str(std::str::from_utf8(out).unwrap());
        }
        s
    }

    /// The output labels: explicit, or those seen exactly once, in alphabetical order.
    fn output_labels(&self) -> Vec<u8> {
        self.output.clone().unwrap_or_else(|| {
            let all: Vec<u8> = self.inputs.concat();
            LABELS
                .iter()
                .copied()
                .filter(|l| all.iter().filter(|x| *x == l).count() == 1)
                .collect()
        })
    }
}

fn equation() -> impl Strategy<Value = Equation> {
    (
        prop::collection::vec(
            prop::collection::vec(prop::sample::select(LABELS.to_vec()), 0..=3),
            1..=3,
        ),
        any::<bool>(),
        Just(LABELS.to_vec()).prop_shuffle(),
        prop::collection::vec(any::<bool>(), LABELS.len()),
    )
        .prop_map(|(inputs, implicit, order, keep)| {
            let used: Vec<u8> = order
                .into_iter()
                .filter(|l| inputs.iter().flatten().any(|x| x == l))
                .collect();
            let output = (!implicit).then(|| {
                used.iter()
                    .zip(&keep)
                    .filter(|(_, k)| **k)
                    .map(|(l, _)| *l)
                    .collect()
            });
            Equation { inputs, output }
        })
}

/// An equation, a size per label, operands (some dims squeezed to 1) with random layouts.
fn case() -> impl Strategy<Value = (Equation, Vec<usize>, Vec<Tensor>)> {
    (
        equation(),
        prop::collection::vec(common::size(3), LABELS.len()),
    )
        .prop_flat_map(|(eq, sizes)| {
            let shapes: Vec<Vec<usize>> = eq
                .inputs
                .iter()
                .map(|labels| labels.iter().map(|l| sizes[(l - b'a') as usize]).collect())
                .collect();
            let recipes: Vec<BoxedStrategy<ViewRecipe>> = shapes
                .iter()
                .map(|s| view_recipe(s.len()).boxed())
                .collect();
            let squeeze = prop::collection::vec(prop::bool::weighted(0.15), LABELS.len());
            (
                Just(eq),
                Just(sizes),
                Just(shapes),
                recipes,
                squeeze,
                prop::sample::select(vec![DType::Int64, DType::Float64]),
            )
        })
        .prop_map(|(eq, sizes, shapes, recipes, squeeze, dtype)| {
            let ops = shapes
                .iter()
                .zip(&eq.inputs)
                .zip(&recipes)
                .map(|((shape, labels), r)| {
                    // A label squeezed to 1 in one operand broadcasts against the others.
                    let shape: Vec<usize> = shape
                        .iter()
                        .zip(labels)
                        .map(|(&s, l)| {
                            if squeeze[(l - b'a') as usize]
                                && labels.iter().filter(|x| *x == l).count() == 1
                            {
                                1
                            } else {
                                s
                            }
                        })
                        .collect();
                    build(&shape, dtype, r)
                })
                .collect();
            (eq, sizes, ops)
        })
}

/// The brute-force einsum: output shape and row-major values.
fn naive(eq: &Equation, sizes: &[usize], ops: &[Tensor]) -> (Vec<usize>, Vec<i64>) {
    let out = eq.output_labels();
    let all: Vec<u8> = LABELS
        .iter()
        .copied()
        .filter(|l| eq.inputs.iter().flatten().any(|x| x == l))
        .collect();
    // A label's size is its non-1 size in any operand (1 if it is 1 everywhere).
    let size_of = |l: u8| -> usize {
        let mut s = 1;
        for (labels, op) in eq.inputs.iter().zip(ops) {
            for (k, x) in labels.iter().enumerate() {
                if *x == l && op.shape()[k] != 1 {
                    s = op.shape()[k];
                }
            }
        }
        let _ = sizes;
        s
    };
    let all_sizes: Vec<usize> = all.iter().map(|&l| size_of(l)).collect();
    let out_shape: Vec<usize> = out.iter().map(|&l| size_of(l)).collect();
    let mut values = vec![0i64; out_shape.iter().product()];
    for a in 0..all_sizes.iter().product::<usize>() {
        let assign = index_map::unravel(a, &all_sizes);
        let value_of = |l: u8| assign[all.iter().position(|x| *x == l).unwrap()];
        let product: i64 = eq
            .inputs
            .iter()
            .zip(ops)
            .map(|(labels, op)| {
                let index: Vec<usize> = labels
                    .iter()
                    .enumerate()
                    .map(|(k, &l)| if op.shape()[k] == 1 { 0 } else { value_of(l) })
                    .collect();
                at(op, &index).to_f64() as i64
            })
            .product();
        let o: Vec<usize> = out.iter().map(|&l| value_of(l)).collect();
        let pos = o
            .iter()
            .zip(&out_shape)
            .fold(0, |acc, (&i, &s)| acc * s + i);
        values[pos] += product;
    }
    (out_shape, values)
}

proptest! {
    #![proptest_config(ProptestConfig { cases: 10_000, max_shrink_iters: 200, failure_persistence: None, ..ProptestConfig::default() })]

    #[test]
    fn einsum_matches_brute_force((eq, sizes, ops) in case()) {
        let got = linalg::einsum(&eq.text(), &ops);
        // A repeated label over dims of different sizes (one squeezed) is rejected; every other
        // generated equation is valid.
        let got = got.unwrap();
        let (shape, want) = naive(&eq, &sizes, &ops);
        prop_assert_eq!(got.shape(), &shape[..], "{}", eq.text());
        let values: Vec<i64> = got.to_scalars().into_iter().map(|v| v.to_f64() as i64).collect();
        prop_assert_eq!(values, want, "{}", eq.text());
    }
}

//! The iteration plan's reordered walks against the naive index map, on long shapes: an inner
//! dim shorter than 32 beside a long one (repeated rows), two dims of 16 or more with a
//! transposed operand (tiles, partial edge tiles included), and more than 2^18 elements
//! (split over 2 or 3 threads). Each call runs once per strategy on identical random strided
//! inputs (transposed, stepped, expanded, offset, of every dtype); the outcome, the result's
//! geometry and values, and every element of every storage must agree. Cases whose values
//! depend on loop order even in torch ([`order_dependent`]) are skipped.
//!
//! Short shapes of every kind go through the fuzz oracles instead
//! (`fuzzing/tests/it/plan_matches_index_map.rs`).

use bcast_engine::iter::{set_num_threads, with_strategy, Strategy as Loops};
use bcast_engine::layout::contiguous_strides;
use bcast_engine::ops::{binary, copy_, r#where, unary, BinaryOp, Operand, UnaryOp};
use bcast_engine::overlap::order_dependent;
use bcast_engine::{kernels, Buffer, DType, Layout, Result, Scalar, Storage, Tensor};
use proptest::prelude::*;

/// A view over storage `storage` of a case.
#[derive(Debug, Clone)]
struct View {
    storage: usize,
    shape: Vec<usize>,
    /// Memory order of the dims, outermost first.
    order: Vec<usize>,
    steps: Vec<usize>,
    /// Dims whose stride is 0.
    zeroed: Vec<bool>,
    offset: usize,
}

impl View {
    fn strides(&self) -> Vec<usize> {
        let mem_shape: Vec<usize> = self
            .order
            .iter()
            .map(|&d| self.shape[d].max(1) * self.steps[d])
            .collect();
        let mem_strides = contiguous_strides(&mem_shape);
        let mut strides = vec![0; self.shape.len()];
        for (k, &d) in self.order.iter().enumerate() {
            strides[d] = if self.zeroed[d] {
                0
            } else {
                mem_strides[k] * self.steps[d]
            };
        }
        strides
    }

    fn layout(&self) -> Layout {
        Layout::new(self.shape.clone(), self.strides(), self.offset).expect("small layout")
    }

    fn extent(&self) -> usize {
        self.layout().required_storage_len().expect("small layout")
    }
}

/// Storages (dtype and seed of their values) and views over them.
#[derive(Debug, Clone)]
struct Inputs {
    storages: Vec<(DType, u64)>,
    views: Vec<View>,
}

fn splitmix(state: &mut u64) -> u64 {
    *state = state.wrapping_add(0x9E37_79B9_7F4A_7C15);
    let mut z = *state;
    z = (z ^ (z >> 30)).wrapping_mul(0xBF58_476D_1CE4_E5B9);
    z = (z ^ (z >> 27)).wrapping_mul(0x94D0_49BB_1331_11EB);
    z ^ (z >> 31)
}

fn value(dtype: DType, state: &mut u64) -> Scalar {
    let r = splitmix(state) >> 40;
    let edge = r.is_multiple_of(16);
    match dtype {
        DType::Bool => Scalar::Bool(r & 1 == 1),
        DType::Int64 if edge => Scalar::Int([i64::MIN, i64::MAX, 0][(r % 3) as usize]),
        DType::Int64 => Scalar::Int((r % 21) as i64 - 10),
        _ if edge => Scalar::Float([f64::NAN, f64::INFINITY, -0.0, 1e30][(r % 4) as usize]),
        _ => Scalar::Float(((r % 33) as f64 - 16.0) / 4.0),
    }
}

impl Inputs {
    /// Fresh storages and the views over them.
    fn build(&self) -> (Vec<Storage>, Vec<Tensor>) {
        let storages: Vec<Storage> = self
            .storages
            .iter()
            .enumerate()
            .map(|(k, &(dtype, seed))| {
                let len = self
                    .views
                    .iter()
                    .filter(|v| v.storage == k)
                    .map(|v| v.extent() + 1)
                    .max()
                    .unwrap_or(1);
                let mut state = seed;
                let values: Vec<Scalar> = (0..len).map(|_| value(dtype, &mut state)).collect();
                Storage::new(Buffer::from_scalars(dtype, &values))
            })
            .collect();
        let tensors = self
            .views
            .iter()
            .map(|v| Tensor::from_storage(&storages[v.storage], v.layout()).expect("in bounds"))
            .collect();
        (storages, tensors)
    }
}

/// A shape that broadcasts with `shape` (leading dims dropped or added, some dims 1), rarely
/// one that does not.
fn partner(shape: Vec<usize>) -> impl Strategy<Value = Vec<usize>> {
    let n = shape.len();
    (
        0..=n,
        prop::collection::vec(any::<bool>(), n),
        prop::collection::vec(1usize..=3, 0..=1),
        0u8..20,
    )
        .prop_map(move |(keep, ones, lead, mismatch)| {
            let mut out: Vec<usize> = shape[n - keep..].to_vec();
            for (d, one) in out.iter_mut().zip(&ones) {
                if *one {
                    *d = 1;
                }
            }
            let mut full = lead;
            full.extend(out);
            if mismatch == 0 && !full.is_empty() {
                full[0] = 5;
            }
            full
        })
}

fn view(storage: usize, shape: Vec<usize>, expandable: bool) -> impl Strategy<Value = View> {
    let n = shape.len();
    (
        Just((0..n).collect::<Vec<usize>>()).prop_shuffle(),
        prop::collection::vec(prop_oneof![3 => Just(1usize), 1 => 2usize..=3], n),
        prop::collection::vec(any::<u8>(), n),
        prop_oneof![2 => Just(0usize), 1 => 1usize..=5],
        any::<bool>(),
    )
        .prop_map(move |(order, steps, zero_draws, offset, permuted)| {
            let order = if permuted { order } else { (0..n).collect() };
            let zeroed = zero_draws
                .iter()
                .map(|z| expandable && z % 5 == 0)
                .collect();
            View {
                storage,
                shape: shape.clone(),
                order,
                steps,
                zeroed,
                offset,
            }
        })
}

fn dtype() -> impl Strategy<Value = DType> {
    prop::sample::select(DType::ALL.to_vec())
}

/// Two inputs in their own storages, the first of a shape from `shapes` (with stride-0 dims
/// only when `expandable`), the second of a shape that broadcasts with it.
fn two_inputs_from(
    shapes: impl Strategy<Value = Vec<usize>>,
    expandable: bool,
) -> impl Strategy<Value = Inputs> {
    shapes
        .prop_flat_map(|a| (Just(a.clone()), partner(a)))
        .prop_flat_map(move |(a, b)| {
            (
                view(0, a, expandable),
                view(1, b, true),
                dtype(),
                dtype(),
                any::<u64>(),
                any::<u64>(),
            )
        })
        .prop_map(|(va, vb, da, db, sa, sb)| Inputs {
            storages: vec![(da, sa), (db, sb)],
            views: vec![va, vb],
        })
}

fn number() -> impl Strategy<Value = Scalar> {
    prop_oneof![
        any::<bool>().prop_map(Scalar::Bool),
        prop::sample::select(vec![0i64, 1, -3, 7, i64::MAX]).prop_map(Scalar::Int),
        prop::sample::select(vec![0.5, -2.5, 0.0, f64::NAN, f64::INFINITY, 3.0])
            .prop_map(Scalar::Float),
    ]
}

/// A result tensor as observed: shape, strides, offset, dtype and value bits.
type ObservedTensor = (Vec<usize>, Vec<usize>, usize, DType, Vec<u64>);

/// Everything observable after a call: the outcome, and every storage's contents.
#[derive(Debug)]
struct Observed {
    result: std::result::Result<ObservedTensor, String>,
    storages: Vec<Vec<u64>>,
}

fn bits(values: Vec<Scalar>) -> Vec<u64> {
    values
        .into_iter()
        .map(|v| match v {
            Scalar::Bool(b) => b as u64,
            Scalar::Int(i) => i as u64,
            Scalar::Float(f) if f.is_nan() => u64::MAX,
            Scalar::Float(f) => f.to_bits(),
            Scalar::Complex(re, im) => re.to_bits() ^ im.to_bits().rotate_left(32),
        })
        .collect()
}

fn observe(storages: &[Storage], result: Result<Tensor>) -> Observed {
    Observed {
        result: result
            .map(|t| {
                (
                    t.shape().to_vec(),
                    t.strides().to_vec(),
                    t.offset(),
                    t.dtype(),
                    bits(t.to_scalars()),
                )
            })
            .map_err(|e| e.to_string()),
        storages: storages.iter().map(|s| bits(s.to_scalars())).collect(),
    }
}

/// Runs `call` on fresh copies of `inputs` under each strategy and asserts they agree.
fn agree(
    inputs: &Inputs,
    call: impl Fn(&[Tensor]) -> Result<Tensor>,
) -> std::result::Result<(), TestCaseError> {
    let run = |loops: Loops| {
        let (storages, tensors) = inputs.build();
        let result = with_strategy(loops, || call(&tensors));
        observe(&storages, result)
    };
    let (plan, naive) = (run(Loops::Plan), run(Loops::IndexMap));
    match difference(&plan, &naive) {
        None => Ok(()),
        Some(d) => Err(TestCaseError::fail(d)),
    }
}

/// Where two values lists first differ, with the values there.
fn first_difference(plan: &[u64], naive: &[u64]) -> Option<String> {
    if plan.len() != naive.len() {
        return Some(format!("{} values against {}", plan.len(), naive.len()));
    }
    let i = plan.iter().zip(naive).position(|(p, n)| p != n)?;
    Some(format!(
        "at {i} of {}: plan {:#x}, index map {:#x}",
        plan.len(),
        plan[i],
        naive[i]
    ))
}

/// What differs between two runs, briefly (long shapes hold too many values to print).
fn difference(plan: &Observed, naive: &Observed) -> Option<String> {
    match (&plan.result, &naive.result) {
        (Ok(p), Ok(n)) => {
            if (&p.0, &p.1, p.2, p.3) != (&n.0, &n.1, n.2, n.3) {
                return Some(format!(
                    "result geometry: plan {:?}, index map {:?}",
                    (&p.0, &p.1, p.2, p.3),
                    (&n.0, &n.1, n.2, n.3)
                ));
            }
            if let Some(d) = first_difference(&p.4, &n.4) {
                return Some(format!("result values {d}"));
            }
        }
        (p, n) if p != n => {
            let brief = |r: &std::result::Result<ObservedTensor, String>| match r {
                Ok(t) => format!("a result of shape {:?}", t.0),
                Err(e) => e.clone(),
            };
            return Some(format!("plan: {}; index map: {}", brief(p), brief(n)));
        }
        _ => {}
    }
    plan.storages
        .iter()
        .zip(&naive.storages)
        .enumerate()
        .find_map(|(k, (p, n))| first_difference(p, n).map(|d| format!("storage {k} {d}")))
}

fn operand(t: &Tensor, number: Option<Scalar>) -> Operand {
    match number {
        Some(v) => Operand::Number(v),
        None => Operand::Tensor(t.clone()),
    }
}

/// Cases per property on long shapes (each costs up to a few hundred thousand elements).
const LONG_CASES: u32 = 64;

/// Shapes that take the plan's reordered walks: a short inner dim beside a long one, two
/// long dims, or enough elements to split over threads.
fn long_shape() -> impl Strategy<Value = Vec<usize>> {
    prop_oneof![
        (1usize..=31, 33usize..=2500, 1usize..=2).prop_map(|(n0, n1, n2)| vec![n2, n1, n0]),
        (1usize..=2, 16usize..=90, 16usize..=90).prop_map(|(n2, n1, n0)| vec![n2, n1, n0]),
        (300usize..=640, 600usize..=800).prop_map(|(n1, n0)| vec![n1, n0]),
        (2usize..=8, 300usize..=600, 1usize..=31).prop_map(|(n2, n1, n0)| vec![n2, n1 * 40, n0]),
    ]
}

/// Runs `call` on `inputs` with `threads` threads for the plan (and the index map), then
/// restores the default.
fn agree_threaded(
    inputs: &Inputs,
    threads: usize,
    call: impl Fn(&[Tensor]) -> Result<Tensor>,
) -> std::result::Result<(), TestCaseError> {
    set_num_threads(threads);
    let result = agree(inputs, call);
    set_num_threads(0);
    result
}

proptest! {
    #![proptest_config(ProptestConfig {
        max_global_rejects: LONG_CASES * 10,
        ..ProptestConfig::with_cases(LONG_CASES)
    })]

    #[test]
    fn long_binary_ops(
        inputs in two_inputs_from(long_shape(), true),
        op in prop::sample::select(BinaryOp::ALL.to_vec()),
        number in prop::option::weighted(0.1, number()),
        threads in 1usize..=3,
    ) {
        agree_threaded(&inputs, threads, |t| binary(op, &t[0], operand(&t[1], number), None))?;
    }

    #[test]
    fn long_unary_and_where(
        inputs in long_shape().prop_flat_map(|a| {
            (Just(a.clone()), partner(a.clone()), partner(a))
        }).prop_flat_map(|(a, b, c)| {
            (view(0, a, true), view(1, b, true), view(2, c, true), dtype(), dtype(), any::<[u64; 3]>())
        }).prop_map(|(va, vb, vc, da, db, seeds)| Inputs {
            storages: vec![(da, seeds[0]), (db, seeds[1]), (DType::Bool, seeds[2])],
            views: vec![va, vb, vc],
        }),
        threads in 1usize..=3,
        which in 0u8..2,
    ) {
        agree_threaded(&inputs, threads, |t| match which {
            0 => unary(UnaryOp::Neg, &t[0], None),
            _ => r#where(&t[2], &t[0], &t[1], None),
        })?;
    }

    /// In place into a tensor of its own storage (the target is its own first input), and
    /// copies into it and out of it.
    #[test]
    fn long_inplace_and_copies(
        inputs in two_inputs_from(long_shape(), false),
        op in prop::sample::select(vec![BinaryOp::Add(Scalar::Int(1)), BinaryOp::Sub(Scalar::Float(0.5)), BinaryOp::Mul, BinaryOp::Maximum]),
        threads in 1usize..=3,
        which in 0u8..3,
    ) {
        agree_threaded(&inputs, threads, |t| match which {
            0 => binary(op, &t[0], &t[1], Some(&t[0])),
            1 => copy_(&t[0], &t[1]),
            _ => {
                let dst = Tensor::zeros(t[0].shape(), t[1].dtype())?;
                kernels::copy_into(&dst, &t[0])?;
                Ok(dst)
            }
        })?;
    }

    /// A written tensor and an input over one storage, on long shapes.
    #[test]
    fn long_aliased(
        inputs in long_shape()
            .prop_flat_map(|t| (Just(t.clone()), partner(t)))
            .prop_flat_map(|(t, i)| (view(0, t, false), view(0, i, true), dtype(), any::<u64>()))
            .prop_map(|(vt, vi, d, s)| Inputs { storages: vec![(d, s)], views: vec![vt, vi] }),
        threads in 1usize..=3,
    ) {
        let (_, tensors) = inputs.build();
        prop_assume!(!order_dependent(&tensors[0], &tensors[1]));
        agree_threaded(&inputs, threads, |t| binary(BinaryOp::Add(Scalar::Int(1)), &t[0], &t[1], Some(&t[0])))?;
    }
}

/// Outputs past the size where the plan writes with non-temporal stores (32 MiB, into an
/// output that is not newly allocated), on one and two threads: plain rows, a stride-0
/// input, and repeated short rows.
#[test]
fn streamed_outputs_match_the_index_map() {
    let values = |n: usize, seed: u64| -> Vec<f32> {
        let mut state = seed;
        (0..n)
            .map(|_| (splitmix(&mut state) % 1000) as f32 / 8.0)
            .collect()
    };
    let cases: [(&[usize], &[usize]); 3] = [
        (&[2049, 4097], &[4097]),
        (&[2049, 4097], &[2049, 1]),
        (&[2_800_001, 3], &[3]),
    ];
    for (threads, (a, b)) in [1, 2].into_iter().flat_map(|t| cases.map(|c| (t, c))) {
        let ta = Tensor::from_vec(values(a.iter().product(), 1), a).unwrap();
        let tb = Tensor::from_vec(values(b.iter().product(), 2), b).unwrap();
        let shape = bcast_engine::shape::infer_size(a, b).unwrap();
        let n: usize = shape.iter().product();
        let plan = Tensor::from_vec(vec![f32::NAN; n], &shape).unwrap();
        set_num_threads(threads);
        binary(BinaryOp::Sub(Scalar::Int(1)), &ta, &tb, Some(&plan)).unwrap();
        set_num_threads(0);
        let naive = with_strategy(Loops::IndexMap, || {
            binary(BinaryOp::Sub(Scalar::Int(1)), &ta, &tb, None)
        })
        .unwrap();
        let (p, n) = (
            plan.to_vec::<f32>().unwrap(),
            naive.to_vec::<f32>().unwrap(),
        );
        assert!(p.len() * 4 >= 32 << 20, "{a:?}: output too small to stream");
        assert!(p == n, "{a:?} - {b:?} on {threads} thread(s)");
    }
}

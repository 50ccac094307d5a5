//! Chains of view ops checked against an independent model. The storage holds
//! `0, 1, 2, ...`, so every element's value is its storage position; the model applies each
//! op's definition to an explicit array of values (index by index, no strides), and the
//! engine's result must hold exactly those values, stay inside its storage, and share it
//! when the op is a view.

use arbitrary::Unstructured;
use bcast_engine::index_map::unravel;
use bcast_engine::shape::wrap_dim;
use bcast_engine::views::TensorIndex;
use bcast_engine::{DType, Storage, Tensor};

/// A shape and its elements in row-major order.
#[derive(Debug, Clone, PartialEq)]
struct Model {
    shape: Vec<usize>,
    values: Vec<i64>,
}

impl Model {
    /// A new model of `shape` whose element at `out` is the old element at `source(out)`.
    fn map(&self, shape: Vec<usize>, source: impl Fn(&[usize]) -> Vec<usize>) -> Model {
        let n = shape.iter().fold(1usize, |n, &s| n.wrapping_mul(s));
        let values = (0..n)
            .map(|i| {
                let from = source(&unravel(i, &shape));
                self.values[linear(&from, &self.shape)]
            })
            .collect();
        Model { shape, values }
    }
}

fn linear(index: &[usize], shape: &[usize]) -> usize {
    index.iter().zip(shape).fold(0, |acc, (&i, &s)| acc * s + i)
}

#[derive(Debug, Clone)]
enum Op {
    Expand(Vec<i64>),
    Permute(Vec<i64>),
    Transpose(i64, i64),
    T,
    Unsqueeze(i64),
    Squeeze,
    SqueezeDims(Vec<i64>),
    Narrow(i64, i64, i64),
    Select(i64, i64),
    View(Vec<i64>),
    Reshape(Vec<i64>),
    Contiguous,
    Clone,
    Repeat(Vec<i64>),
    Index(Vec<TensorIndex>),
}

impl Op {
    fn is_view(&self) -> bool {
        !matches!(
            self,
            Op::Contiguous | Op::Clone | Op::Repeat(_) | Op::Reshape(_)
        )
    }
}

fn draw_op(u: &mut Unstructured, shape: &[usize]) -> arbitrary::Result<Op> {
    let ndim = shape.len() as i64;
    let dim = |u: &mut Unstructured| u.int_in_range(-ndim - 1..=ndim);
    let small = |u: &mut Unstructured| u.int_in_range(-1..=4i64);
    Ok(match u.int_in_range(0..=14)? {
        0 => Op::Expand(
            (0..u.int_in_range(0..=shape.len() + 2)?)
                .map(|_| small(u))
                .collect::<arbitrary::Result<_>>()?,
        ),
        1 => {
            let mut p: Vec<i64> = (0..ndim).collect();
            for i in (1..p.len()).rev() {
                let j = u.int_in_range(0..=i)?;
                p.swap(i, j);
            }
            Op::Permute(p)
        }
        2 => Op::Transpose(dim(u)?, dim(u)?),
        3 => Op::T,
        4 => Op::Unsqueeze(dim(u)?),
        5 => Op::Squeeze,
        6 => Op::SqueezeDims(
            (0..u.int_in_range(0..=2)?)
                .map(|_| dim(u))
                .collect::<arbitrary::Result<_>>()?,
        ),
        7 => Op::Narrow(dim(u)?, small(u)?, small(u)?),
        8 => Op::Select(dim(u)?, small(u)?),
        9 => Op::View(
            (0..u.int_in_range(0..=3)?)
                .map(|_| small(u))
                .collect::<arbitrary::Result<_>>()?,
        ),
        10 => Op::Reshape(
            (0..u.int_in_range(0..=3)?)
                .map(|_| small(u))
                .collect::<arbitrary::Result<_>>()?,
        ),
        11 => Op::Contiguous,
        12 => Op::Clone,
        13 => Op::Repeat(
            (0..u.int_in_range(0..=shape.len() + 1)?)
                .map(|_| u.int_in_range(0..=2))
                .collect::<arbitrary::Result<_>>()?,
        ),
        _ => {
            let items = (0..u.int_in_range(0..=3)?)
                .map(|_| -> arbitrary::Result<TensorIndex> {
                    Ok(match u.int_in_range(0..=3)? {
                        0 => TensorIndex::Int(small(u)?),
                        1 => TensorIndex::None,
                        2 => TensorIndex::Ellipsis,
                        _ => TensorIndex::Slice(
                            if u.arbitrary()? {
                                None
                            } else {
                                Some(u.int_in_range(-5..=5)?)
                            },
                            if u.arbitrary()? {
                                None
                            } else {
                                Some(u.int_in_range(-5..=5)?)
                            },
                            if u.arbitrary()? {
                                None
                            } else {
                                Some(u.int_in_range(1..=3)?)
                            },
                        ),
                    })
                })
                .collect::<arbitrary::Result<Vec<_>>>()?;
            Op::Index(items)
        }
    })
}

fn run(t: &Tensor, op: &Op) -> bcast_engine::Result<Tensor> {
    match op {
        Op::Expand(s) => t.expand(s),
        Op::Permute(p) => t.permute(p),
        Op::Transpose(a, b) => t.transpose(*a, *b),
        Op::T => t.t(),
        Op::Unsqueeze(d) => t.unsqueeze(*d),
        Op::Squeeze => t.squeeze(),
        Op::SqueezeDims(d) => t.squeeze_dims(d),
        Op::Narrow(d, s, l) => t.narrow(*d, *s, *l),
        Op::Select(d, i) => t.select(*d, *i),
        Op::View(s) => t.view(s),
        Op::Reshape(s) => t.reshape(s),
        Op::Contiguous => t.contiguous(),
        Op::Clone => t.clone_tensor(),
        Op::Repeat(r) => t.repeat(r),
        Op::Index(items) => t.index(items),
    }
}

/// What the op must produce, computed from its definition. `result` supplies only what the
/// definition leaves to the implementation (the shape `view` resolves `-1` to is checked by
/// numel).
fn expected(m: &Model, op: &Op, result: &Tensor) -> Model {
    let ndim = m.shape.len();
    let wrap = |d: i64| wrap_dim(d, ndim).expect("the engine accepted this dim");
    match op {
        Op::Expand(sizes) => {
            let lead = sizes.len() - ndim;
            let shape: Vec<usize> = sizes
                .iter()
                .enumerate()
                // -1 keeps an existing size; anything else (even a negative size beside a 0,
                // which torch keeps) is taken as given.
                .map(|(i, &s)| {
                    if s == -1 && i >= lead && ndim > 0 {
                        m.shape[i - lead]
                    } else {
                        s as usize
                    }
                })
                .collect();
            m.map(shape, |out| {
                (0..ndim)
                    .map(|d| if m.shape[d] == 1 { 0 } else { out[d + lead] })
                    .collect()
            })
        }
        Op::Permute(p) => {
            let p: Vec<usize> = p.iter().map(|&d| wrap(d)).collect();
            let shape = p.iter().map(|&d| m.shape[d]).collect();
            m.map(shape, |out| {
                let mut src = vec![0; ndim];
                for (i, &d) in p.iter().enumerate() {
                    src[d] = out[i];
                }
                src
            })
        }
        Op::Transpose(a, b) if ndim > 0 => {
            let mut p: Vec<i64> = (0..ndim as i64).collect();
            p.swap(wrap(*a), wrap(*b));
            expected(m, &Op::Permute(p), result)
        }
        Op::T if ndim == 2 => expected(m, &Op::Permute(vec![1, 0]), result),
        Op::Transpose(..) | Op::T | Op::Contiguous | Op::Clone => m.clone(),
        Op::Unsqueeze(d) => {
            let d = wrap_dim(*d, ndim + 1).expect("accepted");
            let mut shape = m.shape.clone();
            shape.insert(d, 1);
            m.map(shape, |out| {
                out.iter()
                    .enumerate()
                    .filter(|(i, _)| *i != d)
                    .map(|(_, &v)| v)
                    .collect()
            })
        }
        Op::Squeeze | Op::SqueezeDims(_) => {
            let dims: Vec<usize> = match op {
                Op::SqueezeDims(ds) => ds.iter().map(|&d| wrap(d)).collect(),
                _ => (0..ndim).collect(),
            };
            let keep: Vec<usize> = (0..ndim)
                .filter(|d| !(dims.contains(d) && m.shape[*d] == 1))
                .collect();
            let shape = keep.iter().map(|&d| m.shape[d]).collect();
            m.map(shape, |out| {
                let mut src = vec![0; ndim];
                for (i, &d) in keep.iter().enumerate() {
                    src[d] = out[i];
                }
                src
            })
        }
        Op::Narrow(d, start, len) => {
            let d = wrap(*d);
            let start = start.rem_euclid(m.shape[d].max(1) as i64) as usize;
            let start = if m.shape[d] == 0 { 0 } else { start };
            let mut shape = m.shape.clone();
            shape[d] = *len as usize;
            m.map(shape, |out| {
                let mut src = out.to_vec();
                src[d] += start;
                src
            })
        }
        Op::Select(d, i) => {
            let d = wrap(*d);
            let i = i.rem_euclid(m.shape[d] as i64) as usize;
            let mut shape = m.shape.clone();
            shape.remove(d);
            m.map(shape, |out| {
                let mut src = out.to_vec();
                src.insert(d, i);
                src
            })
        }
        Op::View(_) | Op::Reshape(_) => {
            assert_eq!(
                result.numel(),
                m.values.len(),
                "{op:?} changed the number of elements"
            );
            Model {
                shape: result.shape().to_vec(),
                values: m.values.clone(),
            }
        }
        Op::Repeat(reps) => {
            let lead = reps.len() - ndim;
            let padded: Vec<usize> = std::iter::repeat_n(1, lead)
                .chain(m.shape.iter().copied())
                .collect();
            let shape = padded
                .iter()
                .zip(reps)
                .map(|(&p, &r)| p * r as usize)
                .collect();
            m.map(shape, |out| {
                (0..ndim).map(|d| out[d + lead] % m.shape[d]).collect()
            })
        }
        Op::Index(_) => {
            // Indexing is a composition of the ops above; the engine's own view machinery is
            // what is under test, so check only what indexing must preserve.
            let mut values = result.to_vec::<i64>().expect("int64");
            let input: std::collections::HashSet<i64> = m.values.iter().copied().collect();
            values.retain(|v| !input.contains(v));
            assert!(
                values.is_empty(),
                "{op:?} produced elements that were not in its input: {values:?}"
            );
            Model {
                shape: result.shape().to_vec(),
                values: result.to_vec::<i64>().expect("int64"),
            }
        }
    }
}

/// Elements a result may have for its values to be checked: views are free, but the model
/// and the comparison materialise every element, and eight expands can reach 4^16 of them.
/// A larger result still has its storage bounds and sharing checked; the chain ends there.
const MAX_CHECKED_ELEMENTS: usize = 1 << 16;

/// Runs a chain of up to 8 view ops drawn from `bytes` and checks each step; panics on a
/// disagreement. Returns how many op results it checked.
///
/// ```
/// bcast_fuzzing::oracles::view_chain::check(&[2, 3, 7, 1, 9, 4, 4, 0, 13, 2, 8, 1]);
/// ```
pub fn check(bytes: &[u8]) -> usize {
    let mut checked = 0;
    let mut u = Unstructured::new(bytes);
    let Ok(shape) = (0..u.int_in_range(0..=4).unwrap_or(0))
        .map(|_| u.int_in_range(0..=4usize))
        .collect::<arbitrary::Result<Vec<usize>>>()
    else {
        return checked;
    };
    let Ok(spec) = crate::generators::random_view(&mut u, &shape, true) else {
        return checked;
    };
    let storage = Storage::new(bcast_engine::Buffer::from(
        (0..spec.storage_len as i64).collect::<Vec<i64>>(),
    ));
    let layout = bcast_engine::Layout::new(shape.clone(), spec.strides.clone(), spec.offset)
        .expect("generated layout");
    let mut t = Tensor::from_storage(&storage, layout).expect("generated view fits");
    let mut model = Model {
        shape: shape.clone(),
        values: t.to_vec::<i64>().expect("int64"),
    };
    for _ in 0..8 {
        let Ok(op) = draw_op(&mut u, t.shape()) else {
            return checked;
        };
        let Ok(result) = run(&t, &op) else { continue };
        checked += 1;
        assert_eq!(result.dtype(), DType::Int64);
        let len = result.storage().len();
        assert!(
            result
                .layout()
                .required_storage_len()
                .is_some_and(|n| n <= len),
            "{op:?} made a view reaching past its storage: {:?} over {len} elements",
            result.layout()
        );
        if op.is_view() {
            assert!(
                result.shares_storage(&t),
                "{op:?} copied instead of viewing"
            );
        }
        if result.numel() > MAX_CHECKED_ELEMENTS {
            return checked;
        }
        let want = expected(&model, &op, &result);
        let got = Model {
            shape: result.shape().to_vec(),
            values: result.to_vec::<i64>().expect("int64"),
        };
        assert_eq!(
            got,
            want,
            "{op:?} on shape {:?} strides {:?}",
            t.shape(),
            t.strides()
        );
        t = result;
        model = got;
    }
    checked
}

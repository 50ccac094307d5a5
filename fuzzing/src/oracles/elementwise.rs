//! The element-wise kernels' iteration plan (reordered, coalesced dims; contiguous and
//! stride-0 inner loops) against the naive index map: one call, drawn from bytes, runs twice
//! on identical fresh inputs, once per loop strategy, and both runs must agree on the outcome
//! (errors included, by class and message), the result's geometry and value bits, and every
//! byte of every storage afterwards. A NaN is compared as any NaN: its sign and payload are
//! not part of IEEE 754's contract for arithmetic, and the compiler may order a commutative
//! operation's operands differently in each copy of a loop (torch's own vectorised and scalar
//! loops give NaNs of different signs), so both runs are observed with every NaN made canonical.
//!
//! Inputs are random strided views: transposed, stepped (sliced), expanded (stride 0),
//! offset, zero-size and 0-d, of every dtype, with edge values; written tensors (`out=`, in
//! place, `copy_`) may share a storage with inputs. Calls whose values depend on loop order
//! even in torch ([`order_dependent`](bcast_engine::overlap::order_dependent)) are skipped.

use super::scene::{
    call_is_order_dependent, extra_kernel, number, snapshot, Call, Input, Kernel, Scene,
};
use crate::generators::{
    broadcast_partner, random_dtype, random_shape, views_of_one_storage, CaseBuilder, GenResult,
    ShapeLimits,
};
use arbitrary::Unstructured;
use bcast_engine::iter::{with_strategy, Strategy};
use bcast_engine::ops::{BinaryOp, CompareOp, UnaryOp};
use bcast_engine::shape::infer_size;
use bcast_engine::{DType, Scalar, Tensor};
use std::collections::BTreeMap;

/// Shapes a little larger than the generators' defaults, so inner loops run several blocks.
const LIMITS: ShapeLimits = ShapeLimits {
    max_ndim: 5,
    max_size: 6,
    zero_size_percent: 4,
};

/// What is observable after one call.
#[derive(Debug, PartialEq)]
struct Observed {
    /// The error (class and message), or the result's shape, strides, offset, dtype, the
    /// storage it views (by name; `None` for new memory) and its values' bits.
    result: Result<ResultTensor, String>,
    /// Every storage's bytes afterwards.
    storages: BTreeMap<String, Vec<u8>>,
}

type ResultTensor = (
    Vec<usize>,
    Vec<usize>,
    usize,
    DType,
    Option<String>,
    Vec<u64>,
);

fn value_bits(t: &Tensor) -> Vec<u64> {
    let canonical = |f: f64| if f.is_nan() { f64::NAN } else { f };
    t.to_scalars()
        .into_iter()
        .map(|v| match v {
            Scalar::Bool(b) => b as u64,
            Scalar::Int(i) => i as u64,
            Scalar::Float(f) => canonical(f).to_bits(),
            Scalar::Complex(re, im) => {
                canonical(re).to_bits() ^ canonical(im).to_bits().rotate_left(32)
            }
        })
        .collect()
}

/// `bytes` of elements of `dtype` with every NaN (of a float, or of either part of a complex
/// number) replaced by the same quiet NaN.
#[doc(hidden)]
pub fn canonical_nans(dtype: DType, mut bytes: Vec<u8>) -> Vec<u8> {
    // (bytes of one float, its exponent mask, its mantissa mask, its canonical NaN)
    let (width, exponent, mantissa, nan): (usize, u64, u64, u64) = match dtype {
        DType::Float16 | DType::Complex32 => (2, 0x7c00, 0x03ff, 0x7e00),
        DType::BFloat16 => (2, 0x7f80, 0x007f, 0x7fc0),
        DType::Float32 | DType::Complex64 => (4, 0x7f80_0000, 0x007f_ffff, 0x7fc0_0000),
        DType::Float64 | DType::Complex128 => (
            8,
            0x7ff0_0000_0000_0000,
            0x000f_ffff_ffff_ffff,
            0x7ff8_0000_0000_0000,
        ),
        _ => return bytes,
    };
    for chunk in bytes.chunks_exact_mut(width) {
        let mut word = [0u8; 8];
        word[..width].copy_from_slice(chunk);
        let bits = u64::from_le_bytes(word);
        if bits & exponent == exponent && bits & mantissa != 0 {
            chunk.copy_from_slice(&nan.to_le_bytes()[..width]);
        }
    }
    bytes
}

/// Runs `call` on fresh inputs of `scene` with kernels walking their elements by `strategy`.
fn observe(scene: &Scene, call: &Call, strategy: Strategy) -> Observed {
    let inputs = scene.build();
    let result = with_strategy(strategy, || call.run(&inputs));
    let result = result
        .map(|t| {
            let storage = inputs
                .storages
                .iter()
                .find(|(_, s)| s.same_as(t.storage()))
                .map(|(name, _)| name.clone());
            (
                t.shape().to_vec(),
                t.strides().to_vec(),
                t.offset(),
                t.dtype(),
                storage,
                value_bits(&t),
            )
        })
        .map_err(|e| e.to_string());
    Observed {
        result,
        storages: snapshot(&inputs)
            .into_iter()
            .map(|(name, bytes)| {
                let dtype = inputs.storages[&name].dtype();
                (name, canonical_nans(dtype, bytes))
            })
            .collect(),
    }
}

/// Draws one call and the views it works on.
fn draw(u: &mut Unstructured) -> GenResult<(Scene, Call)> {
    let mut b = CaseBuilder::default();
    let kernel = match u.int_in_range(0..=5)? {
        0 => Kernel::Unary(*u.choose(&UnaryOp::ALL)?),
        1 => {
            let ops: Vec<BinaryOp> = BinaryOp::ALL.into_iter().chain(BinaryOp::MATH).collect();
            let op = *u.choose(&ops)?;
            let alpha = *u.choose(&[
                Scalar::Int(1),
                Scalar::Int(-2),
                Scalar::Float(0.5),
                Scalar::Bool(true),
            ])?;
            Kernel::Binary(op.with_alpha(alpha).unwrap_or(op))
        }
        2 => Kernel::Compare(*u.choose(&CompareOp::ALL)?),
        3 => Kernel::Where,
        4 => Kernel::Copy,
        _ if u.ratio(1, 2)? => Kernel::CopyInto,
        _ => extra_kernel(u)?,
    };
    let arity = match kernel {
        Kernel::Unary(_) => 1,
        Kernel::Where | Kernel::Clamp | Kernel::Lerp | Kernel::Addc(_) => 3,
        _ => 2,
    };
    let first = random_shape(u, LIMITS)?;
    let mut shapes = vec![first.clone()];
    for _ in 1..arity {
        shapes.push(broadcast_partner(u, &first, 5)?);
    }
    // `where`'s condition comes first; `copy_` writes its first shape.
    let broadcast = shapes.iter().try_fold(Vec::new(), |acc, s| {
        infer_size(&acc, s).ok().map(|d| d.to_vec())
    });
    let out_shape = match (u.int_in_range(0..=3)?, &broadcast) {
        (0, _) | (_, None) => broadcast_partner(u, &first, 10)?,
        (_, Some(shape)) => shape.clone(),
    };
    let written = match kernel {
        Kernel::Copy => Written::Out,
        Kernel::CopyInto => Written::New,
        Kernel::Where => *u.choose(&[Written::New, Written::Out])?,
        _ => *u.choose(&[Written::New, Written::New, Written::Out, Written::InPlace])?,
    };
    let aliased = u.ratio(1, 3)?;
    let mut all: Vec<(&[usize], bool)> = shapes.iter().map(|s| (&s[..], true)).collect();
    if written == Written::Out {
        all.push((&out_shape, u.ratio(1, 6)?));
    }
    let names = if aliased {
        let dtype = random_dtype(u)?;
        views_of_one_storage(u, &mut b, dtype, &all)?
    } else {
        let mut names = Vec::new();
        for (k, (shape, expandable)) in all.iter().enumerate() {
            let dtype = if kernel == Kernel::Where && k == 0 && !u.ratio(1, 10)? {
                DType::Bool
            } else {
                random_dtype(u)?
            };
            names.push(b.view(u, dtype, shape, *expandable)?);
        }
        names
    };
    let mut inputs: Vec<Input> = names[..arity]
        .iter()
        .map(|n| Input::Tensor(n.clone()))
        .collect();
    let number_slots = match kernel {
        Kernel::Binary(_) | Kernel::Compare(_) | Kernel::Bitwise(_) => vec![0, 1],
        Kernel::Where | Kernel::Clamp => vec![1, 2],
        Kernel::Lerp => vec![2],
        Kernel::Copy => vec![1],
        _ => vec![],
    };
    if !number_slots.is_empty() && u.ratio(1, 5)? {
        let slot = *u.choose(&number_slots)?;
        if !(written == Written::InPlace && slot == 0) {
            inputs[slot] = Input::Number(number(u)?);
        }
    }
    let out = match written {
        Written::New => None,
        Written::Out => Some(names[arity].clone()),
        Written::InPlace => match &inputs[0] {
            Input::Tensor(n) => Some(n.clone()),
            Input::Number(_) => None,
        },
    };
    if kernel == Kernel::Copy {
        // copy_(dst, src): the written view is the destination, the second shape the source.
        inputs = vec![inputs[1].clone()];
        return Ok((
            Scene::new(b),
            Call {
                kernel,
                inputs,
                out: Some(names[0].clone()),
            },
        ));
    }
    Ok((
        Scene::new(b),
        Call {
            kernel,
            inputs,
            out,
        },
    ))
}

#[derive(Debug, Clone, Copy, PartialEq)]
enum Written {
    New,
    Out,
    InPlace,
}

/// Checks one call drawn from `bytes`: the plan and the index map agree on everything
/// observable. Panics on a disagreement, naming the scene (as case JSON) and the call.
/// Returns whether a call was checked (order-dependent ones are not).
///
/// ```
/// let checked = (0..64u8)
///     .filter(|&k| bcast_fuzzing::oracles::elementwise::check(&[k; 64]))
///     .count();
/// assert!(checked > 32);
/// ```
pub fn check(bytes: &[u8]) -> bool {
    let mut u = Unstructured::new(bytes);
    let Ok((scene, call)) = draw(&mut u) else {
        return false;
    };
    if call_is_order_dependent(&scene, &call) {
        return false;
    }
    let plan = observe(&scene, &call, Strategy::Plan);
    let naive = observe(&scene, &call, Strategy::IndexMap);
    assert_eq!(
        plan,
        naive,
        "the plan (left) and the index map (right) disagree on {call:?} over {}",
        scene.json()
    );
    true
}

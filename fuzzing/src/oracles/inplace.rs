//! In-place and `out=` calls whose written tensor shares a storage with its inputs (or is one
//! of them). Three things must hold, under both loop strategies:
//!
//! - torch's overlap classification (`MemoryOverlap.cpp`, [`bcast_engine::overlap`]) is sound
//!   against the addresses themselves: `No` internal overlap means no address repeats, `Yes`
//!   means one does; a `No` overlap status means no address is shared, `Partial` that some
//!   is, `Full` that the same addresses are used;
//! - the call fails on overlap exactly when those rules say: the same call with the written
//!   tensor moved to a private copy of its storage (its "twin", which overlaps no input) must
//!   fail the same way, except that a partial overlap with an input adds torch's partial
//!   overlap error;
//! - no byte outside the written tensor's elements changes, in any storage; a failed call
//!   writes only inside the written tensor too (torch raises a division by zero mid-loop).

use super::scene::{
    call_is_order_dependent, extra_kernel, number, snapshot, Call, Input, Kernel, Scene,
};
use crate::generators::{
    broadcast_partner, random_dtype, random_shape, views_of_one_storage, CaseBuilder, GenResult,
    ShapeLimits,
};
use arbitrary::Unstructured;
use bcast_conformance::backend::reference::Inputs;
use bcast_engine::index_map::storage_indices;
use bcast_engine::iter::{with_strategy, Strategy};
use bcast_engine::layout::contiguous_strides;
use bcast_engine::ops::{BinaryOp, CompareOp, UnaryOp};
use bcast_engine::overlap::{
    get_overlap_status, has_internal_overlap, order_dependent, MemOverlap, MemOverlapStatus,
};
use bcast_engine::resize::resize_output;
use bcast_engine::shape::infer_size;
use bcast_engine::{DType, Scalar, Storage, Tensor};
use std::collections::BTreeSet;

/// torch's message for a written tensor that overlaps itself.
const INTERNAL: &str =
    "more than one element of the written-to tensor refers to a single memory location";
/// torch's message for an input that partly overlaps the written tensor.
const PARTIAL: &str =
    "some elements of the input tensor and the written-to tensor refer to a single memory location";

/// Draws a written view, inputs that alias it (or are it), and the call.
fn draw(u: &mut Unstructured) -> GenResult<(Scene, Call)> {
    let mut b = CaseBuilder::default();
    let kernel = match u.int_in_range(0..=4)? {
        0 => Kernel::Unary(*u.choose(&UnaryOp::ALL)?),
        1 => {
            // ldexp and float_power are composites (a power, conversions) whose first steps
            // allocate; their overlap checks are those of the ops they call.
            let ops: Vec<BinaryOp> = BinaryOp::ALL
                .into_iter()
                .chain(BinaryOp::MATH)
                .filter(|op| !matches!(op, BinaryOp::Ldexp | BinaryOp::FloatPower))
                .collect();
            let op = *u.choose(&ops)?;
            Kernel::Binary(
                op.with_alpha(*u.choose(&[1.into(), 2.into()])?)
                    .unwrap_or(op),
            )
        }
        2 => Kernel::Compare(*u.choose(&CompareOp::ALL)?),
        3 => Kernel::Where,
        _ if u.ratio(1, 2)? => Kernel::Copy,
        _ => extra_kernel(u)?,
    };
    let arity = match kernel {
        Kernel::Unary(_) | Kernel::Copy => 1,
        Kernel::Where | Kernel::Clamp | Kernel::Lerp | Kernel::Addc(_) => 3,
        _ => 2,
    };
    let target_shape = random_shape(u, ShapeLimits::default())?;
    let mut shapes: Vec<Vec<usize>> = Vec::new();
    for _ in 0..arity {
        shapes.push(if u.ratio(1, 3)? {
            target_shape.clone()
        } else {
            broadcast_partner(u, &target_shape, 5)?
        });
    }
    let dtype = if kernel == Kernel::Where {
        DType::Bool
    } else {
        random_dtype(u)?
    };
    let mut views: Vec<(&[usize], bool)> = vec![(&target_shape, u.ratio(1, 3)?)];
    views.extend(shapes.iter().map(|s| (&s[..], true)));
    let names = views_of_one_storage(u, &mut b, dtype, &views)?;
    let (target, aliases) = (names[0].clone(), &names[1..]);
    let mut inputs = Vec::new();
    for (k, alias) in aliases.iter().enumerate() {
        inputs.push(match u.int_in_range(0..=7)? {
            // The written tensor itself.
            0 | 1 => Input::Tensor(target.clone()),
            // A separate tensor of any dtype.
            2 => {
                let dtype = random_dtype(u)?;
                Input::Tensor(b.view(u, dtype, &shapes[k], true)?)
            }
            3 if k > 0
                || !matches!(
                    kernel,
                    Kernel::Where | Kernel::Clamp | Kernel::Lerp | Kernel::Addc(_)
                ) =>
            {
                Input::Number(number(u)?)
            }
            _ => Input::Tensor(alias.clone()),
        });
    }
    // In place: the written tensor is the first input of a unary, binary or comparison.
    let in_place = matches!(
        kernel,
        Kernel::Unary(_)
            | Kernel::Binary(_)
            | Kernel::Compare(_)
            | Kernel::Bitwise(_)
            | Kernel::Clamp
            | Kernel::Lerp
            | Kernel::Addc(_)
    ) && u.ratio(1, 2)?;
    if in_place {
        inputs[0] = Input::Tensor(target.clone());
    }
    if let (Kernel::Unary(_), Input::Number(_)) = (kernel, &inputs[0]) {
        inputs[0] = Input::Tensor(aliases[0].clone());
    }
    Ok((
        Scene::new(b),
        Call {
            kernel,
            inputs,
            out: Some(target),
        },
    ))
}

fn addresses(t: &Tensor) -> Vec<usize> {
    storage_indices(t.layout())
}

/// The overlap rules agree with the addresses themselves.
/// Empty tensors are left out: torch classifies their layouts without addresses.
fn check_classification(written: &Tensor, reads: &[&Tensor]) {
    if written.numel() == 0 {
        return;
    }
    let mine = addresses(written);
    let distinct: BTreeSet<usize> = mine.iter().copied().collect();
    match has_internal_overlap(written) {
        MemOverlap::No => assert_eq!(
            distinct.len(),
            mine.len(),
            "internal overlap `No` for {:?}, yet an address repeats",
            written.layout()
        ),
        MemOverlap::Yes => assert!(
            distinct.len() < mine.len(),
            "internal overlap `Yes` for {:?}, yet no address repeats",
            written.layout()
        ),
        MemOverlap::TooHard => {}
    }
    for input in reads {
        if !input.shares_storage(written) || input.numel() == 0 {
            continue;
        }
        let theirs: BTreeSet<usize> = addresses(input).into_iter().collect();
        let shared = distinct.intersection(&theirs).count();
        let what = format!("{:?} and {:?}", written.layout(), input.layout());
        match get_overlap_status(written, input) {
            MemOverlapStatus::No => assert_eq!(shared, 0, "overlap `No` for {what}"),
            MemOverlapStatus::Partial => assert!(shared > 0, "overlap `Partial` for {what}"),
            MemOverlapStatus::Full => assert_eq!(distinct, theirs, "overlap `Full` for {what}"),
            MemOverlapStatus::TooHard => {}
        }
    }
}

/// The written tensor as torch's overlap checks see it, and whether they compare it with the
/// inputs. `pow(number, tensor, out=)` resizes its `out` to the exponent's shape (row-major)
/// first (torch's structured `pow.Scalar_out` sets its output in the meta function), then
/// builds the TensorIterator on it; with base 1 it only fills the output with ones
/// (`fill_`, which checks no overlap at all: the flag is false). Every other call is
/// checked before any resize, against every input.
fn as_checked(call: &Call, probe: &Inputs) -> (Tensor, bool) {
    let written = &probe.tensors[call.out.as_deref().expect("a written tensor")];
    match (call.kernel, &call.inputs[..]) {
        (Kernel::Binary(BinaryOp::Pow), [Input::Number(base), Input::Tensor(exponent)]) => {
            let shape = probe.tensors[exponent].shape();
            let resized = resize_output(written, shape, &contiguous_strides(shape))
                .unwrap_or(written.clone());
            let fills = matches!(base, Scalar::Int(1)) || *base == Scalar::Float(1.0);
            (resized, !fills)
        }
        _ => (written.clone(), true),
    }
}

/// Whether the call ends in `out.copy_(base)` after the output is resized, and that copy's
/// own overlap check finds a partial overlap: `pow(tensor, 1)` (or `True`) copies its base
/// into the (resized) output, so an output that overlapped the base in a way too hard to
/// judge before the resize can overlap it partially after.
#[doc(hidden)]
pub fn copy_after_resize_overlaps(call: &Call, probe: &Inputs) -> bool {
    let (Kernel::Binary(BinaryOp::Pow), [Input::Tensor(base), Input::Number(exponent)]) =
        (call.kernel, &call.inputs[..])
    else {
        return false;
    };
    if !matches!(
        exponent,
        Scalar::Int(1) | Scalar::Float(1.0) | Scalar::Bool(true)
    ) {
        return false;
    }
    let written = &probe.tensors[call.out.as_deref().expect("a written tensor")];
    // A resized `out=` takes the layout TensorIterator gives a new output, which follows the
    // base's memory order: the call's own result without `out=`.
    let fresh = Call {
        out: None,
        ..call.clone()
    };
    let Ok(fresh) = fresh.run(probe) else {
        return false;
    };
    let base = &probe.tensors[base];
    let resized = resize_output(written, base.shape(), fresh.strides()).unwrap_or(written.clone());
    get_overlap_status(&resized, base) == MemOverlapStatus::Partial
}

/// The addresses an `out=` resized to the inputs' broadcast shape may cover.
fn resized_range(call: &Call, inputs: &Inputs, written: &Tensor) -> std::ops::Range<usize> {
    let broadcast = call
        .tensor_inputs()
        .try_fold(bcast_engine::Dims::new(), |acc, n| {
            infer_size(&acc, inputs.tensors[n].shape()).ok()
        });
    match broadcast {
        Some(shape) if shape.as_slice() != written.shape() => {
            let numel = shape.iter().product::<usize>();
            written.offset()..written.offset() + numel
        }
        _ => 0..0,
    }
}

/// Whether `copy_` returns at once: the source is the destination's data, same dtype.
fn copy_is_noop(call: &Call, inputs: &Inputs, written: &Tensor) -> bool {
    let Some(Input::Tensor(src)) = call.inputs.first() else {
        return false;
    };
    let s = &inputs.tensors[src];
    call.kernel == Kernel::Copy
        && s.shares_storage(written)
        && s.offset() == written.offset()
        && s.strides() == written.strides()
        && s.shape() == written.shape()
        && s.dtype() == written.dtype()
}

/// Runs `call` with its written tensor moved to a private copy of its storage.
fn run_twin(scene: &Scene, call: &Call, strategy: Strategy) -> Result<(), String> {
    let mut inputs = scene.build();
    let out = call.out.as_deref().expect("a written tensor");
    let written = &inputs.tensors[out];
    let copy = Storage::new(written.storage().read().clone());
    let twin = Tensor::from_storage(&copy, written.layout().clone()).expect("same layout");
    inputs.tensors.insert(out.to_string(), twin);
    with_strategy(strategy, || call.run(&inputs))
        .map(drop)
        .map_err(|e| e.to_string())
}

/// One oracle check of `call` over `scene` under `strategy`; panics on a violation.
#[doc(hidden)]
pub fn check_with(scene: &Scene, call: &Call, strategy: Strategy) {
    let context = || format!("{call:?} ({strategy:?}) over {}", scene.json());
    let out = call.out.as_deref().expect("a written tensor");
    // What the overlap rules see, on a build of its own (it may be resized).
    let probe = scene.build();
    let (checked, overlap_checked) = as_checked(call, &probe);
    let reads: Vec<&Tensor> = call
        .tensor_inputs()
        .filter(|_| overlap_checked)
        .map(|n| &probe.tensors[n])
        .collect();
    check_classification(&checked, &reads);
    let internal = overlap_checked && has_internal_overlap(&checked) == MemOverlap::Yes;
    let partial = reads
        .iter()
        .any(|t| get_overlap_status(&checked, t) == MemOverlapStatus::Partial)
        || copy_after_resize_overlaps(call, &probe);
    let noop = copy_is_noop(call, &probe, &checked);
    let racy =
        call_is_order_dependent(scene, call) || reads.iter().any(|t| order_dependent(&checked, t));

    let inputs = scene.build();
    let written = inputs.tensors[out].clone();

    let before = snapshot(&inputs);
    let result = with_strategy(strategy, || call.run(&inputs)).map_err(|e| e.to_string());
    let after = snapshot(&inputs);

    // Errors: as the twin's, plus the partial-overlap error the aliasing brings.
    let twin = run_twin(scene, call, strategy);
    match (&result, noop) {
        (Ok(_), true) => {}
        (Err(e), true) => panic!("copy_ of the same data failed ({e}): {}", context()),
        _ if internal => assert!(
            result.is_err() && result.as_ref().err() == twin.as_ref().err(),
            "an internally overlapping written tensor: {result:?}, its twin {twin:?}: {}",
            context()
        ),
        _ if partial => match &result {
            Err(e) if e.contains(PARTIAL) || Some(e) == twin.as_ref().err() => {}
            other => panic!(
                "a partial overlap must fail with torch's error, got {other:?} (twin {twin:?}): {}",
                context()
            ),
        },
        // Values (and so a ZeroDivisionError) may depend on loop order here, even in torch.
        _ if racy => {}
        _ => assert_eq!(
            result.as_ref().map(drop).map_err(String::clone),
            twin,
            "no certain overlap: the call and its twin must fail alike: {}",
            context()
        ),
    }
    if let Err(e) = &result {
        assert!(
            (internal || !e.contains(INTERNAL)) && (partial || !e.contains(PARTIAL)),
            "an overlap error the rules do not call for: {e}: {}",
            context()
        );
    }

    // Writes stay inside the written tensor's elements.
    let target_storage = inputs
        .storages
        .iter()
        .find(|(_, s)| s.same_as(written.storage()))
        .map(|(name, _)| name.clone())
        .expect("the written tensor views a scene storage");
    let allowed: BTreeSet<usize> = match &result {
        Ok(t) => {
            assert!(
                t.shares_storage(&written),
                "the result of an out=/in-place call is not the written tensor: {}",
                context()
            );
            addresses(t).into_iter().collect()
        }
        // torch raises some errors (integer division by zero) mid-loop, after writes.
        // An out= resized before that error holds a permutation of row-major strides over the
        // broadcast shape, from its offset on.
        Err(_) => addresses(&written)
            .into_iter()
            .chain(addresses(&checked))
            .chain(resized_range(call, &inputs, &written))
            .collect(),
    };
    for (name, old) in &before {
        let new = &after[name];
        let width = inputs.storages[name].dtype().itemsize();
        assert!(
            new.len() >= old.len(),
            "storage {name} shrank: {}",
            context()
        );
        for (k, (x, y)) in old.chunks(width).zip(new.chunks(width)).enumerate() {
            let may_write = *name == target_storage && allowed.contains(&k);
            assert!(
                x == y || may_write,
                "element {k} of storage {name} changed, outside the written tensor: {}",
                context()
            );
        }
    }
}

/// Checks one in-place or `out=` call drawn from `bytes` under both loop strategies; panics
/// on a violation, naming the call and the scene (as case JSON).
///
/// ```
/// for k in 0..32u8 {
///     bcast_fuzzing::oracles::inplace::check(&[k; 48]);
/// }
/// ```
pub fn check(bytes: &[u8]) {
    let mut u = Unstructured::new(bytes);
    let Ok((scene, call)) = draw(&mut u) else {
        return;
    };
    for strategy in [Strategy::Plan, Strategy::IndexMap] {
        check_with(&scene, &call, strategy);
    }
}

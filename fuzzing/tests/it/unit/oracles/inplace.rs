//! `oracles::inplace`: calls whose copy after a resize overlaps, and `pow` calls that only
//! fill, checked by the oracle under both loop strategies.

use bcast_engine::iter::Strategy;
use bcast_engine::ops::BinaryOp;
use bcast_engine::Scalar;
use bcast_fuzzing::__internals::oracles::inplace::{check_with, copy_after_resize_overlaps};
use bcast_fuzzing::oracles::scene::{Call, Input, Kernel, Scene};

/// `pow(t1, True, out=t0)`: `t0` (not dense) and `t1` overlap too hard to judge, so the
/// first check passes; `t0` is then resized to `t1`'s shape, contiguous, and the exponent
/// 1 makes torch `copy_` `t1` into it, whose check finds the partial overlap (torch
/// 2.13.0 raises it; 2 as exponent passes, `False` fills). Found by the proptest of this
/// oracle in CI.
#[test]
fn pow_by_one_copies_after_the_resize_and_checks_that_copy() {
    let scene = Scene::from_json(
        r#"{"id":"","source":{},"tags":["aliased"],
           "storages":{"s0":{"dtype":"int64","fill":{"kind":"random","len":28,"seed":1694973351}}},
           "tensors":{"t0":{"storage":"s0","shape":[4,1,2],"strides":[8,4,2],"offset":0},
                      "t1":{"storage":"s0","shape":[4,1,1],"strides":[1,1,1],"offset":2}},
           "call":{"fn":"scene","args":[]}}"#,
    )
    .expect("scene JSON");
    for exponent in [
        Scalar::Bool(true),
        Scalar::Int(1),
        Scalar::Int(2),
        Scalar::Bool(false),
    ] {
        let call = Call {
            kernel: Kernel::Binary(BinaryOp::Pow),
            inputs: vec![Input::Tensor("t1".into()), Input::Number(exponent)],
            out: Some("t0".into()),
        };
        let fails = call.run(&scene.build()).is_err();
        assert_eq!(fails, copy_after_resize_overlaps(&call, &scene.build()));
        assert_eq!(
            fails,
            matches!(exponent, Scalar::Bool(true) | Scalar::Int(1))
        );
        for strategy in [Strategy::Plan, Strategy::IndexMap] {
            check_with(&scene, &call, strategy);
        }
    }
}

/// `pow(1, t, out=t)` with an expanded `t`: torch only fills the output (`fill_` checks
/// no overlap), so it succeeds; `pow(t, 0, out=t)` and `pow(True, t, out=t)` build a
/// TensorIterator first and raise. Found by the `differential_torch` fuzz target.
#[test]
fn pow_of_one_fills_without_an_overlap_check() {
    let scene = Scene::from_json(
        r#"{"id":"","source":{},"tags":[],
           "storages":{"s0":{"dtype":"int64","values":[3,3]}},
           "tensors":{"t0":{"storage":"s0","shape":[4],"strides":[0],"offset":1}},
           "call":{"fn":"scene","args":[]}}"#,
    )
    .expect("scene JSON");
    let cases = [
        (
            vec![Input::Number(Scalar::Int(1)), Input::Tensor("t0".into())],
            true,
        ),
        (
            vec![
                Input::Number(Scalar::Float(1.0)),
                Input::Tensor("t0".into()),
            ],
            true,
        ),
        (
            vec![
                Input::Number(Scalar::Bool(true)),
                Input::Tensor("t0".into()),
            ],
            false,
        ),
        (
            vec![Input::Tensor("t0".into()), Input::Number(Scalar::Int(0))],
            false,
        ),
    ];
    for (inputs, succeeds) in cases {
        let call = Call {
            kernel: Kernel::Binary(BinaryOp::Pow),
            inputs,
            out: Some("t0".into()),
        };
        let built = scene.build();
        assert_eq!(call.run(&built).is_ok(), succeeds, "{call:?}");
        if succeeds {
            assert_eq!(built.tensors["t0"].to_vec::<i64>().unwrap(), vec![1; 4]);
        }
        for strategy in [Strategy::Plan, Strategy::IndexMap] {
            check_with(&scene, &call, strategy);
        }
    }
}

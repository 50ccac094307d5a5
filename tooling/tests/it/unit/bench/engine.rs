//! `bench::engine`: the engine's prepared calls write where their workload says and keep
//! their operands' layouts.

use bcast_tooling::bench::engine::EnginePeer;
use bcast_tooling::bench::workload::{Arg, Bin, Dt, Expr, Layout, Workload, Write};
use bcast_tooling::bench::{inputs, Output, Peer};

fn add(args: Vec<Arg>, write: Write) -> Workload {
    Workload {
        group: "pattern",
        pattern: None,
        label: "test".into(),
        expr: Expr::Binary(Bin::Add),
        args,
        write,
    }
}

fn int32(shape: Vec<usize>, bits: impl Iterator<Item = f64>) -> Output {
    Output {
        dtype: Dt::I32,
        shape,
        bits: bits.map(|v| v as i64 as u64).collect(),
    }
}

#[test]
fn in_place_calls_write_their_first_operand() {
    let w = add(
        vec![Arg::t(&[2, 3], Dt::I32), Arg::t(&[3], Dt::I32)],
        Write::InPlace,
    );
    let data = inputs(&w);
    let mut call = EnginePeer.prepare(&w, &data).expect("the engine adds");
    let (a, b) = (&data[0], &data[1]);
    for times in 1..=2 {
        call.reset();
        call.run();
        let want = (0..6).map(|i| a[i] + times as f64 * b[i % 3]);
        assert_eq!(call.output(), int32(vec![2, 3], want));
    }
    // A result wider than the first operand cannot be written into it.
    let wider = add(
        vec![Arg::t(&[3], Dt::I32), Arg::t(&[2, 3], Dt::I32)],
        Write::InPlace,
    );
    assert!(EnginePeer.prepare(&wider, &inputs(&wider)).is_none());
}

#[test]
fn operands_keep_their_layout_and_outputs_their_write() {
    // (3,2) storage seen transposed, plus a row-major (2,3).
    let transposed = Arg::Tensor {
        shape: vec![2, 3],
        dtype: Dt::I32,
        layout: Layout::Permuted(vec![1, 0]),
    };
    for write in [Write::Alloc, Write::Out] {
        let w = add(vec![transposed.clone(), Arg::t(&[2, 3], Dt::I32)], write);
        let data = inputs(&w);
        let mut call = EnginePeer.prepare(&w, &data).expect("the engine adds");
        call.run();
        let want = (0..6).map(|i| data[0][(i % 3) * 2 + i / 3] + data[1][i]);
        assert_eq!(call.output(), int32(vec![2, 3], want), "{write:?}");
    }
}

//! Errors raised from arguments the fixture schema cannot write (a Python complex `alpha`),
//! checked against torch's text in `tests/data/api_messages.json` (written by
//! `python/bcast_suite/engine_tables.py`).

use crate::tables;

use bcast_engine::ops::{self, BinaryOp};
use bcast_engine::{Scalar, Tensor};

#[test]
fn complex_alpha_is_refused_as_torch_refuses_it() {
    let rows = tables::load("api_messages");
    assert!(!rows.is_empty());
    for row in rows {
        let dtype = tables::dtype(&row["dtype"]);
        let alpha = Scalar::Complex(
            row["alpha"][0].as_f64().unwrap(),
            row["alpha"][1].as_f64().unwrap(),
        );
        let a = Tensor::full(&[2], Scalar::Int(1), dtype).unwrap();
        let op = match row["op"].as_str().unwrap() {
            "add" => BinaryOp::Add(alpha),
            "sub" => BinaryOp::Sub(alpha),
            other => panic!("no op {other}"),
        };
        let err = ops::binary(op, &a, &a, None).expect_err("torch raises");
        assert_eq!(
            err.kind().to_string(),
            row["error"].as_str().unwrap(),
            "{row}"
        );
        assert_eq!(err.message(), row["message"].as_str().unwrap(), "{row}");
    }
}

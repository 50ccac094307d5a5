//! Every error message the element-wise ops can raise is carried by a torch-labelled fixture
//! (and `fixtures.rs` checks the engine reproduces each fixture exactly). This test fails when
//! a message drops out of the corpus.

use bcast_conformance::case::{load_dir, Outcome};
use std::path::Path;

/// The start of each message, as torch 2.13.0 prints it.
const MESSAGES: &[&str] = &[
    "unsupported operation: more than one element of the written-to tensor refers to a single memory location. Please clone() the tensor before performing the operation.",
    "unsupported operation: some elements of the input tensor and the written-to tensor refer to a single memory location. Please clone() the tensor before performing the operation.",
    "output with shape [",
    "The size of tensor a (",
    "result type Float can't be cast to the desired output type Long",
    "result type Long can't be cast to the desired output type Bool",
    "Found dtype ",
    "Expected out type to be ",
    "where expected condition to be a boolean tensor, but got a tensor with dtype ",
    "Subtraction, the `-` operator, with two bool tensors is not supported. Use the `^` or `logical_xor()` operator instead.",
    "Subtraction, the `-` operator, with a bool tensor is not supported. If you are trying to invert a mask, use the `~` or `logical_not()` operator instead.",
    "Negation, the `-` operator, on a bool tensor is not supported. If you are trying to invert a mask, use the `~` or `logical_not()` operator instead.",
    "Boolean alpha only supported for Boolean results.",
    "For integral input tensors, argument alpha must not be a floating point number.",
    "\"abs_cpu\" not implemented for 'Bool'",
    "\"floor_vml_cpu\" not implemented for 'Bool'",
    "\"ceil_vml_cpu\" not implemented for 'Bool'",
    "\"pow\" not implemented for 'Bool'",
    "\"remainder_cpu\" not implemented for 'Bool'",
    "ZeroDivisionError",
    "Integers to negative integer powers are not allowed.",
    "maximum(): argument 'other' (position 2) must be Tensor, not ",
    "logical_and(): argument 'other' (position 2) must be Tensor, not ",
    "where(): argument 'input' (position 2) must be Tensor, not ",
    "(): argument 'input' (position 1) must be Tensor, not ",
    "div expected rounding_mode to be one of None, 'trunc', or 'floor' but found '",
    "\"div_floor_cpu\" not implemented for 'Bool'",
    "\"hypot_cpu\" not implemented for '",
    "heaviside is not yet implemented for complex tensors.",
    "heaviside is not yet implemented for tensors with different dtypes.",
    "fmax not implemented for complex tensors.",
    "ldexp can't be cast to the desired output type ",
    "the output given to float_power has dtype ",
    "the base given to float_power_ has dtype ",
    "fmax(): argument 'other' (position 2) must be Tensor, not ",
];

#[test]
fn every_elementwise_message_is_in_the_corpus() {
    let root = Path::new(env!("CARGO_MANIFEST_DIR")).join("../fixtures/torch");
    let cases = load_dir(&root).expect("fixtures load");
    let messages: Vec<String> = cases
        .iter()
        .filter_map(|c| match &c.case.expect {
            Some(Outcome::Error(e)) => Some(e.message.clone()),
            _ => None,
        })
        .collect();
    let missing: Vec<&&str> = MESSAGES
        .iter()
        .filter(|m| {
            !messages
                .iter()
                .any(|got| got.starts_with(**m) || got.contains(**m))
        })
        .collect();
    assert!(
        missing.is_empty(),
        "messages without a fixture: {missing:#?}"
    );
}

//! The einsum equation's parser: labels, the inputs' subscripts and the output's, and torch's
//! messages for a bad equation.

use bcast_engine::__internals::linalg::einsum::parse::{
    label_char, parse_inputs, parse_output, Subscript,
};

/// Were the doctests of `label_char`, `parse_inputs` and `parse_output` while the parser
/// was public (`linalg::einsum_parse`).
#[test]
fn labels_inputs_and_output() {
    assert_eq!((label_char(0), label_char(26)), ('A', 'a'));
    let ops = parse_inputs("i...,j", 2).unwrap();
    assert_eq!(ops[0], vec![Subscript::Label(34), Subscript::Ellipsis]);
    assert_eq!(
        parse_inputs("i,j", 1).unwrap_err().message(),
        "einsum(): fewer operands were provided than specified in the equation"
    );
    let mut counts = [0usize; 52];
    counts[34] = 1; // `i`
    assert_eq!(
        parse_output(" i", 5, &counts).unwrap(),
        vec![Subscript::Label(34)]
    );
    let err = parse_output("i1", 5, &counts).unwrap_err();
    assert_eq!(
        err.message(),
        "einsum(): invalid subscript given at index 6 in the equation string, subscripts must be in [a-zA-Z]"
    );
}

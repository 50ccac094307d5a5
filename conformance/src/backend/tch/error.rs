//! libtorch errors as Python sees them: the exception class torch's bindings raise and
//! `str(e)`, which is the C++ message without its backtrace.

use super::shim;
use crate::case::ErrorOutcome;
use tch::TchError;

/// What separates a c10 error's message from the backtrace tch keeps after it.
const BACKTRACE: &str = "\nException raised from";

/// The text of a tch error up to its C++ backtrace.
///
/// ```
/// use bcast_conformance::backend::tch::trim_backtrace;
/// let e = tch::TchError::Torch("bad size\nException raised from f at a.cpp:1".into());
/// assert_eq!(trim_backtrace(&e), "bad size");
/// ```
pub fn trim_backtrace(e: &TchError) -> String {
    let text = match e {
        TchError::Torch(text) => text.clone(),
        other => other.to_string(),
    };
    match text.find(BACKTRACE) {
        Some(i) => text[..i].to_string(),
        None => text,
    }
}

/// Python's `torch::processErrorMsg`: the bindings rename ATen type names in every message
/// (`CPUDoubleType` reads `torch.DoubleTensor`), in this order, when it mentions "Type".
///
/// ```
/// use bcast_conformance::backend::tch::python_message;
/// assert_eq!(python_message("expand(CPULongType{[2]})"), "expand(torch.LongTensor{[2]})");
/// assert_eq!(python_message("SparseCPUIntType"), "torch.sparse.IntTensor");
/// ```
pub fn python_message(message: &str) -> String {
    const BACKENDS: [(&str, &str); 4] = [
        ("SparseCUDA", "torch.cuda.sparse."),
        ("SparseCPU", "torch.sparse."),
        ("CUDA", "torch.cuda."),
        ("CPU", "torch."),
    ];
    const SCALARS: [&str; 8] = [
        "Byte", "Char", "Double", "Float", "Int", "Long", "Short", "Half",
    ];
    let mut text = message.to_string();
    if !text.contains("Type") {
        return text;
    }
    for (aten, python) in BACKENDS {
        for scalar in SCALARS {
            text = text.replace(
                &format!("{aten}{scalar}Type"),
                &format!("{python}{scalar}Tensor"),
            );
        }
    }
    text
}

/// The Python exception for an error libtorch raised (the class recorded when it was thrown,
/// see `shim.cpp`), or `None` for errors tch itself made up.
pub fn python_error(e: &TchError) -> Option<ErrorOutcome> {
    match e {
        TchError::Torch(_) => Some(ErrorOutcome::new(
            shim::last_exception_class()
                .unwrap_or("RuntimeError")
                .to_string(),
            python_message(&trim_backtrace(e)),
        )),
        _ => None,
    }
}

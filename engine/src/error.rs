//! The engine's one error type: torch's Python exception class and its exact message.
//!
//! ```
//! use bcast_engine::{Error, ErrorKind};
//! let e = Error::runtime("numel: integer multiplication overflow");
//! assert_eq!(e.kind(), ErrorKind::RuntimeError);
//! assert_eq!(e.to_string(), "RuntimeError: numel: integer multiplication overflow");
//! ```

use std::fmt;

/// The Python exception class torch raises for an error.
///
/// Non-exhaustive: a later version may raise another class, so a `match` outside the engine
/// needs a `_` arm (or use [`ErrorKind::name`]).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord)]
#[non_exhaustive]
pub enum ErrorKind {
    /// `RuntimeError`: torch's default (`TORCH_CHECK`).
    RuntimeError,
    /// `ValueError`.
    ValueError,
    /// `IndexError` (`TORCH_CHECK_INDEX`).
    IndexError,
    /// `TypeError`.
    TypeError,
    /// `NotImplementedError`: torch has no kernel for a dtype.
    NotImplementedError,
}

impl ErrorKind {
    /// Every kind, in declaration order.
    pub const ALL: [ErrorKind; 5] = [
        ErrorKind::RuntimeError,
        ErrorKind::ValueError,
        ErrorKind::IndexError,
        ErrorKind::TypeError,
        ErrorKind::NotImplementedError,
    ];

    /// The Python class name, e.g. `"RuntimeError"`.
    pub fn name(self) -> &'static str {
        match self {
            ErrorKind::RuntimeError => "RuntimeError",
            ErrorKind::ValueError => "ValueError",
            ErrorKind::IndexError => "IndexError",
            ErrorKind::TypeError => "TypeError",
            ErrorKind::NotImplementedError => "NotImplementedError",
        }
    }

    /// Parses a Python class name; `None` for a class the engine never raises.
    pub fn from_name(name: &str) -> Option<ErrorKind> {
        ErrorKind::ALL.into_iter().find(|k| k.name() == name)
    }
}

impl fmt::Display for ErrorKind {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.name())
    }
}

/// An error as torch reports it: the exception class and the message `str(e)` gives.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Error {
    kind: ErrorKind,
    message: String,
    refusal: bool,
}

/// The engine's result type.
pub type Result<T> = std::result::Result<T, Error>;

impl Error {
    /// An error of any kind.
    pub fn new(kind: ErrorKind, message: impl Into<String>) -> Error {
        Error {
            kind,
            message: message.into(),
            refusal: false,
        }
    }

    /// A `RuntimeError`, torch's default (`TORCH_CHECK`).
    pub fn runtime(message: impl Into<String>) -> Error {
        Error::new(ErrorKind::RuntimeError, message)
    }

    /// A `ValueError`.
    pub fn value(message: impl Into<String>) -> Error {
        Error::new(ErrorKind::ValueError, message)
    }

    /// An `IndexError` (`TORCH_CHECK_INDEX`).
    pub fn index(message: impl Into<String>) -> Error {
        Error::new(ErrorKind::IndexError, message)
    }

    /// A `TypeError`.
    pub fn type_error(message: impl Into<String>) -> Error {
        Error::new(ErrorKind::TypeError, message)
    }

    /// A `NotImplementedError`.
    pub fn not_implemented(message: impl Into<String>) -> Error {
        Error::new(ErrorKind::NotImplementedError, message)
    }

    /// A misuse of the engine's Rust API or a broken invariant: never one of torch's error
    /// paths, so no fixture can cover it (a `RuntimeError` whose message says so).
    pub fn internal(message: impl Into<String>) -> Error {
        Error::new(
            ErrorKind::RuntimeError,
            format!("internal engine error: {}", message.into()),
        )
    }

    /// The allocator could not provide `bytes`: torch's message for the same failure (which
    /// depends on the machine, so no fixture pins it).
    pub fn out_of_memory(bytes: u128) -> Error {
        Error::runtime(format!(
            "DefaultCPUAllocator: can't allocate memory: you tried to allocate {bytes} bytes. Error code 12 (Cannot allocate memory)"
        ))
        .into_refusal()
    }

    /// A limit of the reference engine (not of torch) was reached, e.g. the work one call may
    /// do; torch itself would go on, so no fixture can pin this message.
    pub fn limit(message: impl Into<String>) -> Error {
        Error::new(
            ErrorKind::RuntimeError,
            format!("engine limit: {}", message.into()),
        )
        .into_refusal()
    }

    /// An op the engine does not implement yet for a dtype torch supports (a refusal: no
    /// fixture can pin this message).
    pub fn unsupported_dtype(what: &str, dtype: crate::DType) -> Error {
        Error::limit(format!(
            "{what} is not implemented for {} yet",
            dtype.name()
        ))
    }

    /// Where torch's behaviour is undefined (it reads out of bounds), the engine refuses with
    /// its own message rather than guess; no fixture can pin it.
    pub fn undefined_in_torch(kind: ErrorKind, message: impl Into<String>) -> Error {
        Error::new(kind, message).into_refusal()
    }

    /// Whether the engine refused rather than answered as torch: where torch's behaviour is
    /// undefined ([`Error::undefined_in_torch`]) or a resource runs out
    /// ([`Error::out_of_memory`], [`Error::limit`]). Comparing such a case with torch says
    /// nothing about semantics.
    pub fn is_refusal(&self) -> bool {
        self.refusal
    }

    fn into_refusal(mut self) -> Error {
        self.refusal = true;
        self
    }

    /// The exception class.
    pub fn kind(&self) -> ErrorKind {
        self.kind
    }

    /// The message, exactly as `str(e)` prints it in Python.
    pub fn message(&self) -> &str {
        &self.message
    }
}

impl fmt::Display for Error {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{}: {}", self.kind, self.message)
    }
}

impl std::error::Error for Error {}

/// Returns early with a `RuntimeError` when `cond` is false, like `TORCH_CHECK`.
///
/// ```
/// # use bcast_engine::{check, Result};
/// fn positive(n: i64) -> Result<i64> {
///     check!(n > 0, "expected a positive number, got {}", n);
///     Ok(n)
/// }
/// assert!(positive(-1).is_err());
/// ```
#[macro_export]
macro_rules! check {
    ($cond:expr, $($fmt:tt)+) => {
        if !$cond {
            return Err($crate::Error::runtime(format!($($fmt)+)));
        }
    };
}

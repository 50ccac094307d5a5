//! Turning a `--backend` spec into a backend: the name of an in-process backend (`reference`,
//! or a foreign crate compiled in by its cargo feature), or else the command line of a
//! protocol adapter.

use super::reference::ReferenceBackend;
use super::subprocess::{AdapterConfig, SubprocessBackend};
use super::{foreign, Backend};
use std::time::Duration;

/// A backend that runs inside this process.
#[derive(Debug, Clone, Copy)]
pub struct InProcess {
    pub name: &'static str,
    /// The cargo feature that compiles it in (empty: always there).
    pub feature: &'static str,
    /// Its constructor, or `None` when the feature is off.
    pub make: Option<fn() -> Box<dyn Backend>>,
}

fn reference() -> Box<dyn Backend> {
    Box::new(ReferenceBackend)
}

/// Every in-process backend this runner knows, compiled in or not.
pub const IN_PROCESS: &[InProcess] = &[
    InProcess {
        name: "reference",
        feature: "",
        make: Some(reference),
    },
    InProcess {
        name: "ndarray",
        feature: "ndarray",
        make: foreign::NDARRAY,
    },
    InProcess {
        name: "candle",
        feature: "candle",
        make: foreign::CANDLE,
    },
    // libtorch through tch: the `torch` feature's backend sets `make` here, as the foreign
    // crates do (`#[cfg(feature = "torch")]` constructor, `None` otherwise).
    InProcess {
        name: "libtorch",
        feature: "torch",
        make: None,
    },
];

/// Timeouts for protocol adapters.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct AdapterTimeouts {
    pub case: Duration,
    pub handshake: Duration,
}

impl Default for AdapterTimeouts {
    fn default() -> AdapterTimeouts {
        AdapterTimeouts {
            case: AdapterConfig::DEFAULT_CASE_TIMEOUT,
            handshake: AdapterConfig::DEFAULT_HANDSHAKE_TIMEOUT,
        }
    }
}

/// Opens the backend a spec names: an in-process backend by name, else a protocol adapter
/// started from the spec as a command line. A protocol adapter that fails its first start is an
/// error here, so that a broken adapter command is reported once, not per case.
///
/// ```
/// use bcast_conformance::backend::registry::{open_backend, AdapterTimeouts};
/// let backend = open_backend("reference", AdapterTimeouts::default()).unwrap();
/// assert_eq!(backend.name(), "reference");
/// assert!(open_backend("/no/such/adapter", AdapterTimeouts::default()).is_err());
/// ```
pub fn open_backend(spec: &str, timeouts: AdapterTimeouts) -> Result<Box<dyn Backend>, String> {
    if let Some(known) = IN_PROCESS.iter().find(|b| b.name == spec) {
        return match known.make {
            Some(make) => Ok(make()),
            None => Err(format!(
                "backend {spec} is not compiled in (build with --features {})",
                known.feature
            )),
        };
    }
    let mut config = AdapterConfig::from_command_line(spec)?;
    config.case_timeout = timeouts.case;
    config.handshake_timeout = timeouts.handshake;
    let backend = SubprocessBackend::new(config);
    match backend.start_error() {
        Some(why) => Err(format!("adapter {spec:?}: {why}")),
        None => Ok(Box::new(backend)),
    }
}

//! Turning a `--backend` spec into a backend: the name of an in-process backend (`reference`,
//! or a foreign crate compiled in by its cargo feature), or else the command line of a
//! protocol adapter.

use super::reference::ReferenceBackend;
use super::subprocess::{AdapterConfig, SubprocessBackend, MAX_LINE_BYTES};
use super::{foreign, Backend};
use std::path::{Path, PathBuf};
use std::time::Duration;

/// A backend that runs inside this process.
#[derive(Debug, Clone, Copy)]
pub struct InProcess {
    pub name: &'static str,
    /// The cargo feature that compiles it in (empty: always there).
    pub feature: &'static str,
    /// Its constructor, or `None` when the feature is off.
    pub make: Option<Make>,
}

/// Makes an in-process backend, or says why it cannot start.
pub type Make = fn() -> Result<Box<dyn Backend>, String>;

fn reference() -> Result<Box<dyn Backend>, String> {
    Ok(Box::new(ReferenceBackend))
}

/// libtorch through tch, when the `torch` feature is on.
#[cfg(feature = "torch")]
const LIBTORCH: Option<Make> =
    Some(|| super::tch::TchBackend::new().map(|b| Box::new(b) as Box<dyn Backend>));
/// libtorch through tch, when the `torch` feature is on.
#[cfg(not(feature = "torch"))]
const LIBTORCH: Option<Make> = None;

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
    InProcess {
        name: "libtorch",
        feature: "torch",
        make: LIBTORCH,
    },
];

/// Timeouts for protocol adapters.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct AdapterLimits {
    pub case: Duration,
    pub handshake: Duration,
    /// The longest answer line read, in bytes.
    pub max_line_bytes: u64,
}

impl Default for AdapterLimits {
    fn default() -> AdapterLimits {
        AdapterLimits {
            case: AdapterConfig::DEFAULT_CASE_TIMEOUT,
            handshake: AdapterConfig::DEFAULT_HANDSHAKE_TIMEOUT,
            max_line_bytes: MAX_LINE_BYTES,
        }
    }
}

/// Opens the backend a spec names: an in-process backend by name, else a protocol adapter
/// started from the spec as a command line. A protocol adapter that fails its first start is an
/// error here, so that a broken adapter command is reported once, not per case.
///
/// ```
/// use bcast_conformance::backend::registry::{open_backend, AdapterLimits};
/// let backend = open_backend("reference", AdapterLimits::default()).unwrap();
/// assert_eq!(backend.name(), "reference");
/// assert!(open_backend("/no/such/adapter", AdapterLimits::default()).is_err());
/// ```
pub fn open_backend(spec: &str, timeouts: AdapterLimits) -> Result<Box<dyn Backend>, String> {
    if let Some(known) = IN_PROCESS.iter().find(|b| b.name == spec) {
        return match known.make {
            Some(make) => make(),
            None => Err(format!(
                "backend {spec} is not compiled in (build with --features {})",
                known.feature
            )),
        };
    }
    let mut config = AdapterConfig::from_command_line(spec)?;
    config.case_timeout = timeouts.case;
    config.handshake_timeout = timeouts.handshake;
    config.max_line_bytes = timeouts.max_line_bytes;
    let backend = SubprocessBackend::new(config);
    match backend.start_error() {
        Some(why) => Err(format!("adapter {spec:?}: {why}")),
        None => Ok(Box::new(backend)),
    }
}

/// One implementation the matrix measures.
pub struct Implementation {
    pub backend: Box<dyn Backend>,
    /// How it is reached (`in-process`, `protocol: numpy_adapter.py`).
    pub via: String,
    /// Opens another instance of it (another adapter process), for a measurement with more
    /// than one job.
    pub open_another: Box<OpenAnother>,
}

/// Opens one more instance of an implementation, in the thread that will use it.
pub type OpenAnother = dyn Fn() -> Result<Box<dyn Backend>, String> + Send + Sync;

/// Opens the backend a spec names (as [`open_backend`]) with how it is reached: `in-process`
/// for a backend name, `protocol: COMMAND LINE` for an adapter.
///
/// ```
/// use bcast_conformance::backend::registry::{open_implementation, AdapterLimits};
/// let imp = open_implementation("reference", AdapterLimits::default()).unwrap();
/// assert_eq!(imp.via, "in-process");
/// ```
pub fn open_implementation(spec: &str, timeouts: AdapterLimits) -> Result<Implementation, String> {
    let via = if IN_PROCESS.iter().any(|b| b.name == spec) {
        "in-process".to_string()
    } else {
        format!("protocol: {spec}")
    };
    let again = spec.to_string();
    Ok(Implementation {
        backend: open_backend(spec, timeouts)?,
        via,
        open_another: Box::new(move || open_backend(&again, timeouts)),
    })
}

/// The Python adapters of `scripts/adapters/` the matrix runs, by file name.
pub const PYTHON_ADAPTERS: &[&str] = &[
    "torch_adapter.py",
    "numpy_adapter.py",
    "jax_adapter.py",
    "array_api_strict_adapter.py",
];

/// The adapters whose libraries `scripts/setup-adapters.sh` installs in a venv of their own
/// (JAX pins its own numpy), rather than the torch venv.
pub const SEPARATE_VENV_ADAPTERS: &[&str] = &["jax_adapter.py", "array_api_strict_adapter.py"];

/// The python of `scripts/setup-adapters.sh`: `$BCAST_ADAPTERS_PYTHON`, else its venv
/// (`~/.cache/bcast-adapters/venv/bin/python`) when it exists.
pub fn adapters_python() -> Option<PathBuf> {
    if let Some(p) = std::env::var_os("BCAST_ADAPTERS_PYTHON") {
        return Some(PathBuf::from(p));
    }
    let home = std::env::var_os("HOME")?;
    let venv = Path::new(&home).join(".cache/bcast-adapters/venv/bin/python");
    venv.exists().then_some(venv)
}

/// The python that runs one of [`PYTHON_ADAPTERS`]: for JAX and array-api-strict the venv of
/// `scripts/setup-adapters.sh` when there is one, else (and for the others) `python`.
pub fn python_for_adapter(script: &str, python: Option<&Path>) -> Option<PathBuf> {
    if SEPARATE_VENV_ADAPTERS.contains(&script)
        && let Some(own) = adapters_python()
    {
        return Some(own);
    }
    python.map(Path::to_path_buf)
}

/// The python that has torch and numpy: `$BCAST_PYTHON`, else the project's venv
/// (`~/.cache/bcast-torch/venv/bin/python`) when it exists.
pub fn default_python() -> Option<PathBuf> {
    if let Some(p) = std::env::var_os("BCAST_PYTHON") {
        return Some(PathBuf::from(p));
    }
    let home = std::env::var_os("HOME")?;
    let venv = Path::new(&home).join(".cache/bcast-torch/venv/bin/python");
    venv.exists().then_some(venv)
}

/// `scripts/adapters/` of the working directory, else of the source tree this was built from.
pub fn adapters_dir() -> PathBuf {
    let here = PathBuf::from("scripts/adapters");
    if here.is_dir() {
        return here;
    }
    Path::new(env!("CARGO_MANIFEST_DIR")).join("../scripts/adapters")
}

/// The adapter `scripts/adapters/SCRIPT` run by `python`, started (see
/// [`SubprocessBackend::start_error`] for whether it said hello).
pub fn python_adapter(python: &Path, script: &str, timeouts: AdapterLimits) -> SubprocessBackend {
    let path = adapters_dir().join(script);
    SubprocessBackend::new(AdapterConfig {
        command: vec![python.display().to_string(), path.display().to_string()],
        case_timeout: timeouts.case,
        handshake_timeout: timeouts.handshake,
        max_failed_starts: 3,
        max_line_bytes: timeouts.max_line_bytes,
    })
}

/// Every implementation available here: the in-process backends compiled in, and the Python
/// adapters when a python is found for them (see [`python_for_adapter`]) and they start. The
/// second list says what is absent and why.
pub fn available_implementations(
    python: Option<&Path>,
    timeouts: AdapterLimits,
) -> (Vec<Implementation>, Vec<String>) {
    let mut found = Vec::new();
    let mut absent = Vec::new();
    for known in IN_PROCESS {
        let Some(make) = known.make else {
            absent.push(format!(
                "{} (built without feature `{}`)",
                known.name, known.feature
            ));
            continue;
        };
        match make() {
            Ok(backend) => found.push(Implementation {
                backend,
                via: "in-process".to_string(),
                open_another: Box::new(make),
            }),
            Err(why) => absent.push(format!("{} ({why})", known.name)),
        }
    }
    for script in PYTHON_ADAPTERS {
        let Some(python) = python_for_adapter(script, python) else {
            let how = if SEPARATE_VENV_ADAPTERS.contains(script) {
                "set BCAST_ADAPTERS_PYTHON or run scripts/setup-adapters.sh"
            } else {
                "set --python or BCAST_PYTHON, or create the venv"
            };
            absent.push(format!("{script} (no python: {how})"));
            continue;
        };
        let backend = python_adapter(&python, script, timeouts);
        match backend.start_error() {
            Some(why) => absent.push(format!("{script} ({why})")),
            None => found.push(Implementation {
                backend: Box::new(backend),
                via: format!("protocol: {script}"),
                open_another: Box::new(move || {
                    let another = python_adapter(&python, script, timeouts);
                    match another.start_error() {
                        Some(why) => Err(format!("{script}: {why}")),
                        None => Ok(Box::new(another) as Box<dyn Backend>),
                    }
                }),
            }),
        }
    }
    (found, absent)
}

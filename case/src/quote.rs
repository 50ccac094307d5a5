//! Quoting text that came from a backend (error messages, failure reasons, stderr) in console,
//! JUnit and JSON output: at most [`QUOTE_BYTES`] of it, so that an adapter answering a
//! 100 MB message costs a few KiB of output, not 100 MB.

/// The most bytes of backend text that reports quote.
pub const QUOTE_BYTES: usize = 4096;

/// `text`, cut to at most [`QUOTE_BYTES`] at a character boundary, with a note of its full
/// length when it was cut.
///
/// ```
/// use bcast_case::quote::{clip_text, QUOTE_BYTES};
/// assert_eq!(clip_text("short"), "short");
/// let long = "é".repeat(QUOTE_BYTES);
/// let clipped = clip_text(&long);
/// assert!(clipped.len() < QUOTE_BYTES + 40);
/// assert!(clipped.ends_with(&format!("... ({} bytes in all)", long.len())));
/// ```
pub fn clip_text(text: &str) -> String {
    clip_to(text, QUOTE_BYTES)
}

/// `text`, cut to at most `max` bytes at a character boundary, with a note of its full length
/// when it was cut.
pub fn clip_to(text: &str, max: usize) -> String {
    if text.len() <= max {
        return text.to_string();
    }
    let mut end = max;
    while !text.is_char_boundary(end) {
        end -= 1;
    }
    format!("{}... ({} bytes in all)", &text[..end], text.len())
}

use crate::{sample_positions, MAX_FULL_VALUES};
use crate::{ErrorOutcome, Outcome, ResultValue, TensorResult};

impl Outcome {
    /// This outcome as a report keeps it, once it has been compared: messages and warnings
    /// [clipped](clip_text), a result's values above [`MAX_FULL_VALUES`] kept as the usual 64
    /// samples, and a storage above that many elements cut to its first ones. A run keeps what
    /// every case answered, so each answer must cost little.
    ///
    /// ```
    /// use bcast_case::{ErrorOutcome, Outcome};
    /// let huge = Outcome::Error(ErrorOutcome::new("RuntimeError", "x".repeat(1 << 20)));
    /// let Outcome::Error(kept) = huge.clipped_for_report() else { unreachable!() };
    /// assert!(kept.message.len() < 5000);
    /// ```
    pub fn clipped_for_report(self) -> Outcome {
        match self {
            Outcome::Error(e) => Outcome::Error(ErrorOutcome {
                kind: clip_text(&e.kind),
                message: clip_text(&e.message),
                stage: e.stage,
            }),
            Outcome::Ok(mut ok) => {
                ok.result = match ok.result {
                    ResultValue::Tensor(t) => ResultValue::Tensor(clip_tensor(t)),
                    ResultValue::Tensors(ts) => {
                        ResultValue::Tensors(ts.into_iter().map(clip_tensor).collect())
                    }
                    other => other,
                };
                for values in ok.storages.iter_mut().flat_map(|s| s.values_mut()) {
                    values.truncate(MAX_FULL_VALUES);
                    values.shrink_to_fit();
                }
                if let Some(warnings) = &mut ok.warnings {
                    warnings.truncate(16);
                    for w in warnings.iter_mut() {
                        *w = clip_text(w);
                    }
                }
                Outcome::Ok(ok)
            }
        }
    }
}

fn clip_tensor(mut t: TensorResult) -> TensorResult {
    t.dtype = clip_text(&t.dtype);
    if let Some(values) = t.values.take() {
        match sample_positions(values.len()) {
            None => t.values = Some(values),
            Some(positions) => {
                t.samples = Some(positions.into_iter().map(|i| (i, values[i])).collect());
            }
        }
    }
    if let Some(samples) = &mut t.samples {
        samples.truncate(MAX_FULL_VALUES);
    }
    t
}

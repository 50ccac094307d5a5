//! Decoding with bounded memory: an adapter's answer is untrusted, so the runner decodes it
//! under an [element budget](with_element_budget) (every element value of every `values`,
//! `samples` and storage array counts) and with [bounded lists](bounded_vec) for shapes,
//! strides and result lists. A fixture is decoded the same way, without a budget.

use serde::de::{Deserializer, SeqAccess, Visitor};
use serde::Deserialize;
use std::cell::Cell;
use std::fmt;
use std::marker::PhantomData;

/// The most dims a shape or strides list may have (torch's own limit is far lower).
pub const MAX_DIMS: usize = 1024;
/// The most tensors one result may list.
pub const MAX_RESULT_TENSORS: usize = 1 << 16;
/// The most bytes of an outcome's text (an error message, its class, a dtype name) kept when
/// decoding; a longer text is kept clipped, with its length noted, and so equals no torch text.
pub const MAX_TEXT_BYTES: usize = 64 << 10;

thread_local! {
    static ELEMENTS_LEFT: Cell<Option<usize>> = const { Cell::new(None) };
    static LIMIT: Cell<usize> = const { Cell::new(0) };
}

/// Runs `decode` with at most `limit` element values allowed to be decoded on this thread;
/// one more makes the decoding fail (every [`Num`](crate::Num) decoded counts one).
///
/// ```
/// use bcast_case::{with_element_budget, Num};
/// let small: Result<Vec<Num>, _> = with_element_budget(3, || serde_json::from_str("[1, 2, 3]"));
/// assert!(small.is_ok());
/// let big: Result<Vec<Num>, _> = with_element_budget(3, || serde_json::from_str("[1, 2, 3, 4]"));
/// assert!(big.unwrap_err().to_string().contains("more than 3 element values"));
/// ```
pub fn with_element_budget<T>(limit: usize, decode: impl FnOnce() -> T) -> T {
    struct Restore(Option<usize>, usize);
    impl Drop for Restore {
        fn drop(&mut self) {
            ELEMENTS_LEFT.with(|c| c.set(self.0));
            LIMIT.with(|c| c.set(self.1));
        }
    }
    let _restore = Restore(
        ELEMENTS_LEFT.with(|c| c.replace(Some(limit))),
        LIMIT.with(|c| c.replace(limit)),
    );
    decode()
}

/// Counts one decoded element value against the budget, if one is set; an error once it is
/// spent.
pub(crate) fn charge_element<E: serde::de::Error>() -> Result<(), E> {
    ELEMENTS_LEFT.with(|c| match c.get() {
        None => Ok(()),
        Some(0) => Err(E::custom(format!(
            "more than {} element values, more than the case's results and storages can hold",
            LIMIT.with(Cell::get)
        ))),
        Some(n) => {
            c.set(Some(n - 1));
            Ok(())
        }
    })
}

/// Deserializes a list of at most `N` items; a longer one is an error that says so, raised
/// before the extra items are stored.
pub fn bounded_vec<'de, D, T, const N: usize>(d: D) -> Result<Vec<T>, D::Error>
where
    D: Deserializer<'de>,
    T: Deserialize<'de>,
{
    struct Bounded<T, const N: usize>(PhantomData<T>);
    impl<'de, T: Deserialize<'de>, const N: usize> Visitor<'de> for Bounded<T, N> {
        type Value = Vec<T>;
        fn expecting(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
            write!(f, "a list of at most {N} items")
        }
        fn visit_seq<A: SeqAccess<'de>>(self, mut seq: A) -> Result<Vec<T>, A::Error> {
            let mut out = Vec::with_capacity(seq.size_hint().unwrap_or(0).min(64));
            while let Some(item) = seq.next_element()? {
                if out.len() == N {
                    return Err(serde::de::Error::custom(format!(
                        "a list of more than {N} items"
                    )));
                }
                out.push(item);
            }
            Ok(out)
        }
    }
    d.deserialize_seq(Bounded::<T, N>(PhantomData))
}

/// [`bounded_vec`] with [`MAX_DIMS`], for shapes and strides.
pub fn dims_vec<'de, D, T>(d: D) -> Result<Vec<T>, D::Error>
where
    D: Deserializer<'de>,
    T: Deserialize<'de>,
{
    bounded_vec::<D, T, MAX_DIMS>(d)
}

/// [`bounded_vec`] with [`MAX_RESULT_TENSORS`], for results that list tensors.
pub fn results_vec<'de, D, T>(d: D) -> Result<Vec<T>, D::Error>
where
    D: Deserializer<'de>,
    T: Deserialize<'de>,
{
    bounded_vec::<D, T, MAX_RESULT_TENSORS>(d)
}

/// Deserializes a string, kept whole up to [`MAX_TEXT_BYTES`] and clipped beyond (see
/// [`clip_to`](crate::quote::clip_to)), without holding a second copy of a long one.
///
/// ```
/// use bcast_case::ErrorOutcome;
/// let long = "x".repeat(1 << 20);
/// let json = format!(r#"{{"type": "RuntimeError", "message": "{long}"}}"#);
/// let e: ErrorOutcome = serde_json::from_str(&json).unwrap();
/// assert!(e.message.len() < 70_000 && e.message.ends_with("(1048576 bytes in all)"));
/// ```
pub fn clipped_string<'de, D: Deserializer<'de>>(d: D) -> Result<String, D::Error> {
    struct Clipped;
    impl Visitor<'_> for Clipped {
        type Value = String;
        fn expecting(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
            f.write_str("a string")
        }
        fn visit_str<E: serde::de::Error>(self, v: &str) -> Result<String, E> {
            Ok(crate::quote::clip_to(v, MAX_TEXT_BYTES))
        }
        fn visit_string<E: serde::de::Error>(self, v: String) -> Result<String, E> {
            if v.len() <= MAX_TEXT_BYTES {
                Ok(v)
            } else {
                Ok(crate::quote::clip_to(&v, MAX_TEXT_BYTES))
            }
        }
    }
    d.deserialize_str(Clipped)
}

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

/// Whether decoding runs under an element budget, as an adapter's answer does (a fixture does
/// not): then an integer out of its field's range is kept as [`BEYOND_I64`] or
/// [`BEYOND_USIZE`], to be reported as a difference, where a fixture's is an error.
fn decoding_an_answer() -> bool {
    ELEMENTS_LEFT.with(|c| c.get().is_some())
}

/// An answer's shape or size entry beyond the int64 range, as decoded: `i64::MIN`, a size no
/// torch tensor has (torch's SymInt reserves it), so it differs from every expectation.
pub const BEYOND_I64: i64 = i64::MIN;
/// An answer's stride, offset or sample index beyond the range of `usize`, as decoded:
/// `usize::MAX`, above every stride, offset and index torch's int64 can hold.
pub const BEYOND_USIZE: usize = usize::MAX;

/// An integer of any magnitude a JSON number can write (up to about 1.8e308; serde_json reads
/// an integer above `u64::MAX` as a float), decoded into `[min, max]`: outside it, `beyond` in
/// an answer and an error in a fixture; a negative one where `min` is 0 (a stride, an offset,
/// a sample index) is an error in both.
struct WideInt {
    min: i128,
    max: i128,
    beyond: i128,
}

impl<'de> Visitor<'de> for WideInt {
    type Value = i128;
    fn expecting(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str("an integer")
    }
    fn visit_i64<E: serde::de::Error>(self, v: i64) -> Result<i128, E> {
        self.visit_i128(i128::from(v))
    }
    fn visit_u64<E: serde::de::Error>(self, v: u64) -> Result<i128, E> {
        self.visit_i128(i128::from(v))
    }
    fn visit_u128<E: serde::de::Error>(self, v: u128) -> Result<i128, E> {
        self.visit_i128(i128::try_from(v).unwrap_or(i128::MAX))
    }
    fn visit_i128<E: serde::de::Error>(self, v: i128) -> Result<i128, E> {
        if (self.min..=self.max).contains(&v) {
            Ok(v)
        } else if v < 0 && self.min == 0 {
            // torch has no negative stride or offset (`as_strided` refuses them): in an answer
            // as in a fixture, one is outside the schema, not a wrong value.
            Err(E::custom(format!(
                "{v} is negative, and a stride, storage offset or sample index never is"
            )))
        } else if decoding_an_answer() {
            Ok(self.beyond)
        } else {
            Err(E::custom(format!(
                "integer {v} out of range [{}, {}]",
                self.min, self.max
            )))
        }
    }
    fn visit_f64<E: serde::de::Error>(self, v: f64) -> Result<i128, E> {
        // serde_json reads an integer literal beyond u64 and i64 as a float; a float that
        // int64 could hold was written as one (`3.0`), which is no size.
        if !v.is_finite() || v.fract() != 0.0 || v.abs() < 9.2e18 {
            return Err(E::invalid_type(serde::de::Unexpected::Float(v), &self));
        }
        // Beyond i128's range the cast saturates, which is beyond the field's range too.
        self.visit_i128(v as i128)
    }
}

/// One shape or size entry of any magnitude (see [`WideInt`]).
struct WideI64(i64);

impl<'de> Deserialize<'de> for WideI64 {
    fn deserialize<D: Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
        let v = d.deserialize_i64(WideInt {
            min: i128::from(i64::MIN),
            max: i128::from(i64::MAX),
            beyond: i128::from(BEYOND_I64),
        })?;
        Ok(WideI64(v as i64))
    }
}

/// One stride, offset or sample index of any magnitude (see [`WideInt`]).
struct WideUsize(usize);

impl<'de> Deserialize<'de> for WideUsize {
    fn deserialize<D: Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
        let v = d.deserialize_u64(WideInt {
            min: 0,
            max: usize::MAX as i128,
            beyond: BEYOND_USIZE as i128,
        })?;
        Ok(WideUsize(v as usize))
    }
}

/// A shape or size (signed entries), at most [`MAX_DIMS`] long; an entry beyond int64 in an
/// answer is kept as [`BEYOND_I64`].
///
/// ```
/// use bcast_case::{with_element_budget, TensorResult, BEYOND_I64, BEYOND_USIZE};
/// let huge = r#"{"shape": [36893488147419103232, 2], "dtype": "float32",
///     "strides": [1e30, 1], "offset": 18446744073709551616,
///     "samples": [[340282366920938463463374607431768211456, 1.0]]}"#;
/// let t: TensorResult = with_element_budget(10, || serde_json::from_str(huge)).unwrap();
/// assert_eq!(t.shape, [BEYOND_I64, 2]);
/// assert_eq!((t.strides[0], t.offset), (BEYOND_USIZE, BEYOND_USIZE));
/// assert_eq!(t.samples.unwrap()[0].0, BEYOND_USIZE);
/// // A float is no size, in an answer or a fixture.
/// let float = r#"{"shape": [3.0], "dtype": "float32", "strides": [1]}"#;
/// assert!(with_element_budget(10, || serde_json::from_str::<TensorResult>(float)).is_err());
/// // In a fixture, out of range is an error.
/// assert!(serde_json::from_str::<TensorResult>(huge).unwrap_err().to_string().contains("out of range"));
/// // A negative stride, offset or sample index is outside the schema, in an answer too.
/// for negative in [r#""strides": [-1]"#, r#""strides": [1], "offset": -1"#,
///                  r#""strides": [1], "samples": [[-1, 0.0]]"#, r#""strides": [-1e30]"#] {
///     let t = format!(r#"{{"shape": [2], "dtype": "float32", {negative}}}"#);
///     let e = with_element_budget(10, || serde_json::from_str::<TensorResult>(&t)).unwrap_err();
///     assert!(e.to_string().contains("is negative, and a stride"), "{e}");
/// }
/// ```
pub fn wide_shape<'de, D: Deserializer<'de>>(d: D) -> Result<Vec<i64>, D::Error> {
    let v: Vec<WideI64> = dims_vec(d)?;
    Ok(v.into_iter().map(|w| w.0).collect())
}

/// Strides, at most [`MAX_DIMS`] long; an entry beyond `usize` in an answer is kept as
/// [`BEYOND_USIZE`].
pub fn wide_strides<'de, D: Deserializer<'de>>(d: D) -> Result<Vec<usize>, D::Error> {
    let v: Vec<WideUsize> = dims_vec(d)?;
    Ok(v.into_iter().map(|w| w.0).collect())
}

/// A storage offset; beyond `usize` in an answer, [`BEYOND_USIZE`].
pub fn wide_offset<'de, D: Deserializer<'de>>(d: D) -> Result<usize, D::Error> {
    WideUsize::deserialize(d).map(|w| w.0)
}

/// `[flat_index, value]` samples; an index beyond `usize` in an answer is kept as
/// [`BEYOND_USIZE`], which no expected sample has.
pub fn wide_samples<'de, D: Deserializer<'de>>(
    d: D,
) -> Result<Option<Vec<(usize, crate::Num)>>, D::Error> {
    let v: Option<Vec<(WideUsize, crate::Num)>> = Option::deserialize(d)?;
    Ok(v.map(|v| v.into_iter().map(|(i, n)| (i.0, n)).collect()))
}

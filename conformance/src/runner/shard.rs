//! `--shard K/N`: a stable K-th of N parts of the selected cases, so the jobs of a CI matrix
//! split the corpus between machines and together run every case exactly once.
//!
//! A case's part is decided by a hash of its id alone (FNV-1a, 64-bit), not by its position:
//! adding or removing other cases moves no case to another part.
//!
//! ```
//! use bcast_conformance::runner::shard::Shard;
//! let parts: Vec<Shard> = (1..=3).map(|k| Shard::parse(&format!("{k}/3")).unwrap()).collect();
//! for id in ["expand/0", "expand/1", "docs/002/L163-outer-sum"] {
//!     assert_eq!(parts.iter().filter(|s| s.contains(id)).count(), 1);
//! }
//! assert!(Shard::parse("0/3").is_err());
//! assert!(Shard::parse("4/3").is_err());
//! ```

use serde::{Deserialize, Deserializer, Serialize, Serializer};
use std::fmt;

/// Part `index` (1-based) of `count`.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub struct Shard {
    /// Which part, from 1 to `count`.
    pub index: u64,
    /// How many parts.
    pub count: u64,
}

impl Shard {
    /// The one part of a run that is not sharded: `1/1`.
    pub const WHOLE: Shard = Shard { index: 1, count: 1 };

    /// Parses `K/N` with `1 <= K <= N`.
    pub fn parse(text: &str) -> Result<Shard, String> {
        let bad = || format!("--shard {text:?}: give K/N with 1 <= K <= N, e.g. 2/4");
        let (k, n) = text.split_once('/').ok_or_else(bad)?;
        let index: u64 = k.trim().parse().map_err(|_| bad())?;
        let count: u64 = n.trim().parse().map_err(|_| bad())?;
        if index == 0 || index > count {
            return Err(bad());
        }
        Ok(Shard { index, count })
    }

    /// Whether the case with this id belongs to this part.
    pub fn contains(&self, id: &str) -> bool {
        fnv1a(id.as_bytes()) % self.count == self.index - 1
    }
}

impl fmt::Display for Shard {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{}/{}", self.index, self.count)
    }
}

/// In a report, a shard is its text, `"2/3"`.
impl Serialize for Shard {
    fn serialize<S: Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        s.collect_str(self)
    }
}

impl<'de> Deserialize<'de> for Shard {
    fn deserialize<D: Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
        let text = std::borrow::Cow::<str>::deserialize(d)?;
        Shard::parse(&text).map_err(serde::de::Error::custom)
    }
}

/// The cases a run's filters selected, before `--shard` took its part: how many, and a digest
/// of their ids (FNV-1a of the sorted ids, each ended by a newline), so that the parts of one
/// run can be told from the parts of another.
///
/// ```
/// use bcast_conformance::runner::shard::Selection;
/// let one = Selection::of(["b/1", "a/1"]);
/// assert_eq!(one, Selection::of(["a/1", "b/1"]));
/// assert_eq!((one.cases, one.digest.len()), (2, 16));
/// assert_ne!(one, Selection::of(["a/1", "b/2"]));
/// ```
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Selection {
    /// How many cases.
    pub cases: usize,
    /// The digest of their ids, 16 hexadecimal digits.
    pub digest: String,
}

impl Selection {
    /// The selection of the cases with these ids.
    pub fn of<'a>(ids: impl IntoIterator<Item = &'a str>) -> Selection {
        let mut ids: Vec<&str> = ids.into_iter().collect();
        ids.sort_unstable();
        let digest = ids.iter().fold(FNV_OFFSET, |h, id| {
            fnv1a_from(fnv1a_from(h, id.as_bytes()), b"\n")
        });
        Selection {
            cases: ids.len(),
            digest: format!("{digest:016x}"),
        }
    }
}

/// The FNV-1a offset basis.
const FNV_OFFSET: u64 = 0xcbf2_9ce4_8422_2325;

/// The 64-bit FNV-1a hash: stable across platforms, releases and runs.
fn fnv1a(bytes: &[u8]) -> u64 {
    fnv1a_from(FNV_OFFSET, bytes)
}

/// FNV-1a, going on from the hash `h` of what came before.
fn fnv1a_from(h: u64, bytes: &[u8]) -> u64 {
    bytes.iter().fold(h, |h, &b| {
        (h ^ u64::from(b)).wrapping_mul(0x0000_0100_0000_01b3)
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn parts_cover_every_id_once_and_are_roughly_even() {
        let ids: Vec<String> = (0..4000).map(|i| format!("family/{i}")).collect();
        let parts: Vec<Shard> = (1..=4).map(|k| Shard { index: k, count: 4 }).collect();
        let sizes: Vec<usize> = parts
            .iter()
            .map(|p| ids.iter().filter(|id| p.contains(id)).count())
            .collect();
        assert_eq!(sizes.iter().sum::<usize>(), ids.len());
        for size in sizes {
            assert!((800..1200).contains(&size), "uneven part: {size}");
        }
        assert!(ids
            .iter()
            .all(|id| parts.iter().filter(|p| p.contains(id)).count() == 1));
    }

    #[test]
    fn the_hash_is_fnv1a() {
        // Published FNV-1a 64 test vectors.
        assert_eq!(fnv1a(b""), 0xcbf2_9ce4_8422_2325);
        assert_eq!(fnv1a(b"a"), 0xaf63_dc4c_8601_ec8c);
        assert_eq!(fnv1a(b"foobar"), 0x8594_4171_f739_67e8);
    }

    #[test]
    fn malformed_parts_are_refused() {
        for bad in ["", "1", "1/0", "0/1", "3/2", "a/b", "-1/2"] {
            assert!(Shard::parse(bad).is_err(), "{bad}");
        }
        assert_eq!(
            Shard::parse(" 2 / 5 ").unwrap(),
            Shard { index: 2, count: 5 }
        );
    }
}

//! Random shapes, and shapes that broadcast (or deliberately fail to) against them.

use super::GenResult;
use arbitrary::Unstructured;

/// Bounds for generated shapes. Small by default, so a corpus runs in seconds.
#[derive(Debug, Clone, Copy)]
pub struct ShapeLimits {
    pub max_ndim: usize,
    pub max_size: usize,
    /// Percent chance that a dim is 0.
    pub zero_size_percent: u8,
}

impl Default for ShapeLimits {
    fn default() -> ShapeLimits {
        ShapeLimits {
            max_ndim: 4,
            max_size: 4,
            zero_size_percent: 4,
        }
    }
}

fn percent(u: &mut Unstructured, p: u8) -> GenResult<bool> {
    Ok(u.int_in_range(0..=99u8)? < p)
}

/// A shape within `limits` (0-d included).
pub fn random_shape(u: &mut Unstructured, limits: ShapeLimits) -> GenResult<Vec<usize>> {
    let ndim = u.int_in_range(0..=limits.max_ndim)?;
    (0..ndim)
        .map(|_| {
            if percent(u, limits.zero_size_percent)? {
                Ok(0)
            } else {
                u.int_in_range(1..=limits.max_size.max(1))
            }
        })
        .collect()
}

/// A shape that broadcasts with `shape`: some leading dims dropped or added, some dims set to
/// 1. With `mismatch_percent` chance one dim is changed so the pair no longer broadcasts.
///
/// ```
/// # use bcast_fuzzing::generators::broadcast_partner;
/// # use bcast_engine::shape::infer_size;
/// let mut u = arbitrary::Unstructured::new(&[7, 1, 200, 3, 9, 4, 4, 4]);
/// let b = broadcast_partner(&mut u, &[5, 3, 4], 0).unwrap();
/// assert!(infer_size(&[5, 3, 4], &b).is_ok());
/// ```
pub fn broadcast_partner(
    u: &mut Unstructured,
    shape: &[usize],
    mismatch_percent: u8,
) -> GenResult<Vec<usize>> {
    let keep = u.int_in_range(0..=shape.len())?;
    let mut out: Vec<usize> = shape[shape.len() - keep..].to_vec();
    for d in out.iter_mut() {
        if u.ratio(1, 3)? {
            *d = 1;
        }
    }
    let extra = if u.ratio(1, 4)? {
        u.int_in_range(1..=2)?
    } else {
        0
    };
    for _ in 0..extra {
        out.insert(0, u.int_in_range(1..=3)?);
    }
    if !out.is_empty() && percent(u, mismatch_percent)? {
        let d = u.choose_index(out.len())?;
        let other = shape
            .len()
            .checked_sub(out.len() - d)
            .map(|k| shape[k])
            .unwrap_or(1);
        out[d] = if other == 2 { 3 } else { 2 };
    }
    Ok(out)
}

//! Shape algebra as torch defines it: pairwise broadcast (`infer_size`), n-ary
//! `torch.broadcast_shapes`, checked `numel`, and dim wrapping.
//!
//! ```
//! use bcast_engine::shape::{infer_size, wrap_dim};
//! assert_eq!(&infer_size(&[5, 1, 4, 1], &[3, 1, 1]).unwrap()[..], &[5, 3, 4, 1]);
//! let err = infer_size(&[5, 2, 4, 1], &[3, 1, 1]).unwrap_err();
//! assert_eq!(err.message(), "The size of tensor a (2) must match the size of tensor b (3) at non-singleton dimension 1");
//! assert_eq!(wrap_dim(-1, 3).unwrap(), 2);
//! ```

use crate::dims::SignedDims;
use crate::{Dims, Error, Result};

/// Formats sizes as torch prints an `IntArrayRef`: `[1, 3, 1]`.
pub fn format_sizes<T: std::fmt::Display>(sizes: &[T]) -> String {
    let parts: Vec<String> = sizes.iter().map(|s| s.to_string()).collect();
    format!("[{}]", parts.join(", "))
}

/// Formats a Python tuple: `(3, 1, 1)`, `(3,)`, `()`.
pub fn format_tuple<T: std::fmt::Display>(items: &[T]) -> String {
    let parts: Vec<String> = items.iter().map(|s| s.to_string()).collect();
    match parts.len() {
        1 => format!("({},)", parts[0]),
        _ => format!("({})", parts.join(", ")),
    }
}

/// Pairwise broadcast of two shapes, torch's `infer_size`: dims line up from the right, a
/// missing dim counts as 1, and a 1 stretches to the other size (even 0).
///
/// # Errors
/// `RuntimeError` naming the first mismatching dim from the right, in the result's numbering.
pub fn infer_size(a: &[usize], b: &[usize]) -> Result<Dims> {
    let ndim = a.len().max(b.len());
    let mut out: Dims = smallvec::smallvec![0; ndim];
    for i in (0..ndim).rev() {
        let offset = ndim - 1 - i;
        let size_a = if offset < a.len() {
            a[a.len() - 1 - offset]
        } else {
            1
        };
        let size_b = if offset < b.len() {
            b[b.len() - 1 - offset]
        } else {
            1
        };
        if !(size_a == size_b || size_a == 1 || size_b == 1) {
            return Err(Error::runtime(format!(
                "The size of tensor a ({size_a}) must match the size of tensor b ({size_b}) at non-singleton dimension {i}"
            )));
        }
        out[i] = if size_a == 1 { size_b } else { size_a };
    }
    Ok(out)
}

/// torch's `is_expandable_to(shape, desired)`: whether `shape` broadcasts to `desired` itself
/// (`infer_size(desired, shape)` is `desired`): no more dims, and each of its dims, lined up
/// from the right, is `desired`'s or 1.
///
/// ```
/// # use bcast_engine::shape::is_expandable_to;
/// assert!(is_expandable_to(&[3, 1], &[2, 3, 4]));
/// assert!(is_expandable_to(&[1], &[0]));
/// assert!(!is_expandable_to(&[0], &[1]));
/// assert!(!is_expandable_to(&[1, 1], &[1]));
/// ```
pub fn is_expandable_to(shape: &[usize], desired: &[usize]) -> bool {
    shape.len() <= desired.len()
        && shape
            .iter()
            .rev()
            .zip(desired.iter().rev())
            .all(|(&s, &d)| s == d || s == 1)
}

/// Broadcasts many shapes by folding [`infer_size`] from the left, as TensorIterator does.
///
/// ```
/// # use bcast_engine::shape::broadcast_all;
/// assert_eq!(&broadcast_all(&[&[3, 1], &[1, 4], &[]]).unwrap()[..], &[3, 4]);
/// ```
pub fn broadcast_all(shapes: &[&[usize]]) -> Result<Dims> {
    let mut out = Dims::new();
    for shape in shapes {
        out = infer_size(&out, shape)?;
    }
    Ok(out)
}

/// One argument of `torch.broadcast_shapes`, with its Python type (it shows in messages).
#[derive(Debug, Clone, PartialEq)]
pub enum ShapeArg {
    /// A plain `int`, treated as the 1-tuple `(n,)`.
    Int(i64),
    /// A tuple of ints.
    Tuple(Vec<i64>),
    /// A list of ints.
    List(Vec<i64>),
    /// A `torch.Size`.
    Size(Vec<i64>),
    /// `None`, which is skipped.
    None,
    /// Anything else, by its Python `repr` (e.g. `2.0`): rejected.
    Other(String),
}

impl ShapeArg {
    fn dims(&self) -> Option<Vec<i64>> {
        match self {
            ShapeArg::Int(n) => Some(vec![*n]),
            ShapeArg::Tuple(v) | ShapeArg::List(v) | ShapeArg::Size(v) => Some(v.clone()),
            ShapeArg::None | ShapeArg::Other(_) => None,
        }
    }

    /// The Python `repr` of the shape as `broadcast_shapes` sees it (an int becomes a 1-tuple).
    pub fn repr(&self) -> String {
        match self {
            ShapeArg::Int(n) => format_tuple(&[*n]),
            ShapeArg::Tuple(v) => format_tuple(v),
            ShapeArg::List(v) => format_sizes(v),
            ShapeArg::Size(v) => format!("torch.Size({})", format_sizes(v)),
            ShapeArg::None => "None".to_string(),
            ShapeArg::Other(r) => r.clone(),
        }
    }
}

/// `torch.broadcast_shapes(*shapes)`, with its exception classes and messages.
///
/// ```
/// use bcast_engine::shape::{broadcast_shapes, ShapeArg};
/// let shape = broadcast_shapes(&[ShapeArg::Int(2), ShapeArg::Tuple(vec![3, 1])]).unwrap();
/// assert_eq!(shape, vec![3, 2]);
/// let err = broadcast_shapes(&[ShapeArg::Tuple(vec![-1])]).unwrap_err();
/// assert_eq!(err.message(), "Attempting to broadcast a dimension with negative length!");
/// ```
pub fn broadcast_shapes(args: &[ShapeArg]) -> Result<Vec<usize>> {
    let shapes: Vec<&ShapeArg> = args.iter().filter(|a| **a != ShapeArg::None).collect();
    if let Some(bad) = shapes.iter().find(|a| matches!(a, ShapeArg::Other(_))) {
        return Err(Error::runtime(format!(
            "Input shapes should be of type ints, a tuple of ints, or a list of ints, got {}",
            bad.repr()
        )));
    }
    let dims: Vec<Vec<i64>> = shapes.iter().filter_map(|s| s.dims()).collect();
    let ndim = dims.iter().map(Vec::len).max().unwrap_or(0);
    let mut common: Vec<i64> = vec![1; ndim];
    for (arg_idx, shape) in dims.iter().enumerate() {
        for back in 1..=shape.len() {
            let size = shape[shape.len() - back];
            let slot = ndim - back;
            if size == common[slot] {
                continue;
            }
            if common[slot] == 1 {
                if size < 0 {
                    return Err(Error::value(
                        "Attempting to broadcast a dimension with negative length!",
                    ));
                }
                common[slot] = size;
            }
            if size == 1 {
                continue;
            }
            if common[slot] != size {
                return Err(Error::runtime(format!(
                    "Attempting to broadcast a dimension of length {size} at -{back}! Mismatching argument at index {arg_idx} had {}; but expected shape should be broadcastable to {}",
                    shapes[arg_idx].repr(),
                    format_sizes(&common)
                )));
            }
        }
    }
    // Every entry is non-negative here: a negative size either hit the ValueError or a mismatch.
    Ok(common.into_iter().map(|s| s as usize).collect())
}

/// The number of elements of `sizes`, with torch's overflow check (`safe_compute_numel`):
/// sizes are multiplied as unsigned 64-bit numbers, so a negative size overflows.
///
/// ```
/// # use bcast_engine::shape::numel;
/// assert_eq!(numel(&[2, 3, 0]).unwrap(), 0);
/// assert_eq!(numel(&[-2, 3]).unwrap_err().message(), "numel: integer multiplication overflow");
/// ```
pub fn numel(sizes: &[i64]) -> Result<usize> {
    let mut n: u64 = 1;
    let mut overflow = false;
    for &s in sizes {
        let (prod, o) = n.overflowing_mul(s as u64);
        n = prod;
        overflow |= o;
    }
    if overflow || n > i64::MAX as u64 {
        return Err(Error::runtime("numel: integer multiplication overflow"));
    }
    // n <= i64::MAX, which fits in usize on the 64-bit targets the engine supports.
    Ok(n as usize)
}

/// [`numel`] of a tensor's shape. A shape holds torch's `int64` sizes bit for bit: torch lets
/// a negative size through when another size is 0 (`expand(0, -2)`), and so does the engine.
pub fn numel_of(shape: &[usize]) -> Result<usize> {
    numel(&signed_sizes(shape))
}

/// A shape's sizes as torch's signed `int64` values.
pub fn signed_sizes(shape: &[usize]) -> SignedDims {
    shape.iter().map(|&s| s as i64).collect()
}

/// Formats a tensor's shape as torch prints it, sizes signed: `[0, -2, 3]`.
pub fn format_shape(shape: &[usize]) -> String {
    format_sizes(&signed_sizes(shape))
}

/// torch's error for a dim listed twice (`sum(x, (0, 0))`, `squeeze(x, (1, 1))`).
pub fn duplicate_dim(dim: usize) -> Error {
    Error::runtime(format!(
        "dim {dim} appears multiple times in the list of dims"
    ))
}

/// Wraps a possibly negative `dim` into `0..ndim`, as `maybe_wrap_dim` does; a 0-d tensor
/// accepts the dims of a 1-d one (`-1` and `0`).
///
/// # Errors
/// `IndexError: Dimension out of range (expected to be in range of [-2, 1], but got 5)`.
pub fn wrap_dim(dim: i64, ndim: usize) -> Result<usize> {
    let post = (ndim as i64).max(1);
    let (min, max) = (-post, post - 1);
    if dim < min || dim > max {
        return Err(Error::index(format!(
            "Dimension out of range (expected to be in range of [{min}, {max}], but got {dim})"
        )));
    }
    Ok(if dim < 0 { dim + post } else { dim } as usize)
}

/// Converts user sizes to `usize`, failing on a negative one like torch's `check_size_nonnegative`.
pub fn nonnegative_sizes(sizes: &[i64]) -> Result<Dims> {
    sizes
        .iter()
        .map(|&s| {
            usize::try_from(s).map_err(|_| {
                Error::runtime(format!(
                    "Trying to create tensor with negative dimension {s}: {}",
                    format_sizes(sizes)
                ))
            })
        })
        .collect()
}

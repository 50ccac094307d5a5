//! Reductions as torch computes them: `sum`, `mean`, `amax`, `amin`, `var` and `std` over a
//! list of dims, with torch's dim checks (in torch's order), dtype rules, `keepdim`, and
//! contiguous results.
//!
//! An empty dim list reduces every dim, as `dim=None` does.
//!
//! ```
//! use bcast_engine::{reduce, Tensor};
//! let x = Tensor::from_vec((0..6i64).collect(), &[2, 3]).unwrap();
//! let s = reduce::sum(&x, &[1], true, None).unwrap();
//! assert_eq!((s.shape(), s.to_vec::<i64>().unwrap()), (&[2, 1][..], vec![3, 12]));
//! let err = reduce::sum(&x, &[0, -2], false, None).unwrap_err();
//! assert_eq!(err.message(), "dim 0 appears multiple times in the list of dims");
//! ```

mod dims;
pub(crate) mod extrema;
mod indexed;
mod moments;
pub(crate) mod plan;
mod sum;
pub(crate) mod walk;
pub(crate) mod wide_row;

pub use dims::{reduced_shape, reduction_mask, DimCheck};
pub use extrema::{amax, amin};
pub use indexed::{max_all, max_dim, min_all, min_dim};
pub use moments::{moment_over, std, var};
pub use plan::MAX_WORK;
pub(crate) use plan::{check_work, strided_positions, typed_slice, ReducePlan};
pub use sum::{mean, sum};
pub(crate) use walk::{fold_tensor, FoldWith};

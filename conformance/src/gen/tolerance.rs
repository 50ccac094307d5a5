//! Value tolerances of generated cases with floating results: summation and product order may
//! change the last bits of a float, nothing more; integers stay exact.

use super::CaseBuilder;
use bcast_engine::DType;

/// Sets the tolerance for a case whose operands (or requested result) have `dtypes`: float32
/// wins over float64; no tolerance without a float.
///
/// ```
/// use bcast_conformance::gen::{float_tolerance, CaseBuilder};
/// use bcast_engine::DType;
/// let mut b = CaseBuilder::default();
/// float_tolerance(&mut b, &[DType::Int64, DType::Float64]);
/// let case = b.finish("torch.sum", vec![]);
/// assert_eq!(case.tolerance.map(|t| t.rtol), Some(1e-12));
/// ```
pub fn float_tolerance(b: &mut CaseBuilder, dtypes: &[DType]) {
    if dtypes.contains(&DType::Float32) {
        b.tolerance(1e-5, 1e-5);
    } else if dtypes.contains(&DType::Float64) {
        b.tolerance(1e-12, 1e-12);
    }
}

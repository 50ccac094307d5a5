//! torch's `at::sum_to` (`ATen/ExpandUtils.h`): a gradient summed back to the shape of the
//! input that was broadcast, as the autograd engine's `validate_outputs` and the `expand`
//! formula reduce it.

use crate::reduce::sum;
use crate::shape::signed_sizes;
use crate::{Result, Tensor};

/// `at::sum_to(t, shape)`: `t` summed over its leading dims and over every dim where `shape`
/// has 1 and `t` does not (kept, then viewed away with the leading ones); `t` itself when
/// nothing is summed. `shape` must be expandable to `t`'s shape.
///
/// ```
/// use bcast_engine::autograd::sum_to;
/// use bcast_engine::Tensor;
/// let g = Tensor::from_vec((0..24i64).map(|v| v as f32).collect(), &[2, 3, 4]).unwrap();
/// let s = sum_to(&g, &[3, 1]).unwrap();
/// assert_eq!(s.shape(), &[3, 1]);
/// assert_eq!(s.to_vec::<f32>().unwrap(), vec![60.0, 92.0, 124.0]);
/// assert!(sum_to(&g, &[2, 3, 4]).unwrap().is_same(&g));
/// ```
pub fn sum_to(t: &Tensor, shape: &[usize]) -> Result<Tensor> {
    if shape.is_empty() {
        return sum(t, &[], false, None);
    }
    let sizes = t.shape();
    let leading = sizes.len() - shape.len();
    let mut dims: Vec<i64> = (0..leading as i64).collect();
    for i in leading..sizes.len() {
        if shape[i - leading] == 1 && sizes[i] != 1 {
            dims.push(i as i64);
        }
    }
    let summed = if dims.is_empty() {
        t.clone()
    } else {
        sum(t, &dims, true, None)?
    };
    if leading > 0 {
        summed.view(&signed_sizes(shape))
    } else {
        Ok(summed)
    }
}

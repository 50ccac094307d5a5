//! `torch.matmul`, composed from the primitives exactly as torch's `_matmul_impl` composes
//! them. Which primitive runs decides the error message, and for inputs of 3 or more dims it
//! depends on the strides ("folding" into `mm`/`mv` happens only when it needs no copy).

use super::products::{bmm, dot, mm, mv};
use crate::shape::{infer_size, signed_sizes};
use crate::{Error, Result, Tensor};

/// `x.mT`: the last two dims swapped.
fn mt(x: &Tensor) -> Result<Tensor> {
    x.transpose(-2, -1)
}

/// torch's `should_fold`: whether the larger operand (transposed when it is the second one) can
/// be folded into a matrix without a copy, so that `mm`/`mv` replace `bmm`.
fn should_fold(tensor1: &Tensor, tensor2: &Tensor) -> Result<bool> {
    let tensor1_larger = tensor1.ndim() >= tensor2.ndim();
    let (t1, dim_t2) = if tensor1_larger {
        (tensor1.clone(), tensor2.ndim())
    } else {
        (mt(tensor2)?, tensor1.ndim())
    };
    let dim_t1 = t1.ndim();
    if !(dim_t1 >= 3 && dim_t2 <= 2) {
        return Ok(false);
    }
    // torch folds when the smaller operand requires grad (its gradient is then one `mm`).
    let smaller = if tensor1_larger { tensor2 } else { tensor1 };
    if crate::autograd::requires_grad(smaller) {
        return Ok(true);
    }
    if tensor1.ndim() == 2 {
        return Ok(false);
    }
    if t1.numel() == 0 {
        return Ok(true);
    }
    let (shape, strides) = (t1.shape(), t1.strides());
    Ok((0..dim_t1 - 2).all(|i| strides[i] == strides[i + 1].wrapping_mul(shape[i + 1])))
}

/// `torch.matmul(tensor1, tensor2)`: 1-d operands get a dim prepended (first) or appended
/// (second) that is removed afterwards, leading batch dims broadcast, and the product is a
/// `dot`, `mv`, `mm` or `bmm` with their messages.
///
/// ```
/// use bcast_engine::{linalg, Tensor};
/// let batch = Tensor::from_vec(vec![1.0f64; 24], &[2, 1, 3, 4]).unwrap();
/// let mat = Tensor::from_vec(vec![1.0f64; 20], &[5, 4, 1]).unwrap();
/// let out = linalg::matmul(&batch, &mat).unwrap();
/// assert_eq!((out.shape(), out.strides()), (&[2, 5, 3, 1][..], &[15, 3, 1, 1][..]));
/// let v = Tensor::from_vec(vec![1.0f64; 3], &[3]).unwrap();
/// let err = linalg::matmul(&v, &mat).unwrap_err();
/// assert_eq!(err.message(), "Expected size for first two dimensions of batch2 tensor to be: [5, 3] but got: [5, 4].");
/// ```
///
/// # Errors
/// A 0-d operand; batch dims that do not broadcast; then the primitive's errors.
pub fn matmul(tensor1: &Tensor, tensor2: &Tensor) -> Result<Tensor> {
    let (dim1, dim2) = (tensor1.ndim(), tensor2.ndim());
    if dim1 == 0 || dim2 == 0 {
        return Err(Error::runtime(format!(
            "both arguments to matmul need to be at least 1D, but they are {dim1}D and {dim2}D"
        )));
    }
    match (dim1, dim2) {
        (1, 1) => dot(tensor1, tensor2),
        (2, 1) => mv(tensor1, tensor2),
        (1, 2) => mm(&tensor1.unsqueeze(0)?, tensor2)?.squeeze_dims(&[0]),
        (2, 2) => mm(tensor1, tensor2),
        _ if should_fold(tensor1, tensor2)? => folded(tensor1, tensor2),
        _ => match squeezed_batch(tensor1, tensor2)? {
            Some((t1, t2)) => matmul(&t1, &t2),
            None => batched(tensor1, tensor2),
        },
    }
}

/// torch's way around `bmm` for two 3-d operands whose batch sizes differ: an operand with a
/// batch of 1 that requires grad loses that dim (the first such, `tensor1` before `tensor2`),
/// and the product is the matmul of the rest, so that its gradient is one `mm` (the result's
/// strides and the errors then follow the folding path).
fn squeezed_batch(tensor1: &Tensor, tensor2: &Tensor) -> Result<Option<(Tensor, Tensor)>> {
    let (s1, s2) = (tensor1.shape(), tensor2.shape());
    if s1.len() != 3 || s2.len() != 3 || s1[0] == s2[0] {
        return Ok(None);
    }
    let requires_grad = crate::autograd::requires_grad;
    if s1[0] == 1 && requires_grad(tensor1) {
        return Ok(Some((tensor1.squeeze_dims(&[0])?, tensor2.clone())));
    }
    if s2[0] == 1 && requires_grad(tensor2) {
        return Ok(Some((tensor1.clone(), tensor2.squeeze_dims(&[0])?)));
    }
    Ok(None)
}

/// The folding path: the larger operand's leading dims are flattened into the rows of a matrix.
fn folded(tensor1: &Tensor, tensor2: &Tensor) -> Result<Tensor> {
    let transpose = tensor2.ndim() > tensor1.ndim();
    let (t1, t2) = if transpose {
        let t2 = if tensor1.ndim() == 2 {
            tensor1.t()?
        } else {
            tensor1.clone()
        };
        (mt(tensor2)?, t2)
    } else {
        (tensor1.clone(), tensor2.clone())
    };
    let sizes1 = t1.shape();
    let mut output_shape = signed_sizes(&sizes1[..sizes1.len() - 1]);
    let folded_dim1 = output_shape.iter().fold(1i64, |n, &s| n.wrapping_mul(s));
    let t1_folded = t1.reshape(&[folded_dim1, sizes1[sizes1.len() - 1] as i64])?;
    if t2.ndim() == 2 {
        output_shape.push(t2.shape()[1] as i64);
        let output = mm(&t1_folded, &t2)?.view(&output_shape)?;
        if transpose {
            mt(&output)?.contiguous()
        } else {
            Ok(output)
        }
    } else {
        mv(&t1_folded, &t2)?.view(&output_shape)
    }
}

/// The general path: both operands expanded to the broadcast batch shape, flattened to 3-d,
/// multiplied with `bmm`, and viewed back.
fn batched(tensor1: &Tensor, tensor2: &Tensor) -> Result<Tensor> {
    let (s1, s2) = (tensor1.shape(), tensor2.shape());
    let (dim1, dim2) = (s1.len(), s2.len());
    let n = if dim1 > 1 { s1[dim1 - 2] } else { 1 } as i64;
    let m1 = s1[dim1 - 1] as i64;
    let batch1 = &s1[..dim1.saturating_sub(2)];
    let m2 = if dim2 > 1 { s2[dim2 - 2] } else { s2[0] } as i64;
    let p = if dim2 > 1 { s2[dim2 - 1] } else { 1 } as i64;
    let batch2 = &s2[..dim2.saturating_sub(2)];

    let mut output_shape = signed_sizes(&infer_size(batch1, batch2)?);
    // Wrapping like torch's `multiply_integers`; an overflow surfaces in `expand`.
    let batch_product = output_shape.iter().fold(1i64, |n, &s| n.wrapping_mul(s));

    let mut expand1 = output_shape.clone();
    expand1.extend([n, m1]);
    let tensor1_expanded = tensor1.expand(&expand1)?.reshape(&[batch_product, n, m1])?;
    let vector_rhs = dim2 == 1;
    let mut expand2 = output_shape.clone();
    let tensor2_expanded = if vector_rhs {
        expand2.push(m2);
        tensor2
            .expand(&expand2)?
            .reshape(&[batch_product, m2])?
            .unsqueeze(2)?
    } else {
        expand2.extend([m2, p]);
        tensor2.expand(&expand2)?.reshape(&[batch_product, m2, p])?
    };
    if dim1 > 1 {
        output_shape.push(n);
    }
    if dim2 > 1 {
        output_shape.push(p);
    }
    let product = bmm(&tensor1_expanded, &tensor2_expanded)?;
    let product = if vector_rhs {
        product.squeeze_dims(&[-1])?
    } else {
        product
    };
    product.view(&output_shape)
}

//! The product primitives `dot`, `mv`, `mm` and `bmm`, each with torch's checks in torch's
//! order. All of them skip the kernel (and its dtype dispatch) when the result is empty or the
//! inner size is 0; that is why some dtype errors vanish for zero-size operands.

use super::kernel::batched_product;
use crate::reduce::check_work;
use crate::shape::signed_sizes;
use crate::{alloc, DType, Error, Result, Tensor};

/// `addmm_impl_cpu_`'s first check, on its two matrices (`mm`, and `bmm` batch by batch).
fn check_m1_m2_dtypes(m1: DType, m2: DType) -> Result<()> {
    if m1 != m2 {
        return Err(Error::runtime(format!(
            "expected m1 and m2 to have the same dtype, but got: {} != {}",
            m1.type_meta_name(),
            m2.type_meta_name()
        )));
    }
    Ok(())
}

/// `NotImplementedError: "<kernel>" not implemented for 'Bool'`: no product kernel takes
/// `bool` or `complex32`.
fn reject_no_kernel(kernel: &str, dtype: DType) -> Result<()> {
    if matches!(dtype, DType::Bool | DType::Complex32) {
        return Err(crate::ops::not_implemented(kernel, dtype));
    }
    Ok(())
}

/// The product of `a` (`B, n, k`) and `b` (`B, k, p`) as a new tensor of `dtype` and
/// `result_shape` (the same elements as `(B, n, p)`): allocated first (so a negative size
/// fails as torch's allocation does), zeros when empty or `k == 0`, else the kernel after
/// `dispatch` has checked the dtypes (`dispatch` is torch's kernel dispatch, which only runs
/// for a non-trivial product).
fn product_3d(
    a: &Tensor,
    b: &Tensor,
    dtype: DType,
    result_shape: &[usize],
    dispatch: impl FnOnce() -> Result<()>,
) -> Result<Tensor> {
    let out = alloc::empty(&signed_sizes(result_shape), dtype)?;
    let (batch, n, k, p) = (a.shape()[0], a.shape()[1], a.shape()[2], b.shape()[2]);
    if out.numel() == 0 || k == 0 {
        return Ok(out);
    }
    dispatch()?;
    check_work(batch as u128 * n as u128 * k as u128 * p as u128)?;
    batched_product(a, b)?.view(&signed_sizes(result_shape))
}

/// `torch.dot(a, b)`: the inner product of two vectors, a 0-d tensor.
///
/// ```
/// use bcast_engine::{linalg, Tensor};
/// let a = Tensor::from_vec(vec![1i64, 2, 3], &[3]).unwrap();
/// assert_eq!(linalg::dot(&a, &a).unwrap().to_vec::<i64>().unwrap(), vec![14]);
/// let b = Tensor::from_vec(vec![1i64; 4], &[4]).unwrap();
/// assert!(linalg::dot(&a, &b).unwrap_err().message().starts_with("inconsistent tensor size"));
/// ```
///
/// # Errors
/// Not two 1-d tensors; different dtypes; different lengths; `bool` or `complex32` (even when
/// empty).
pub fn dot(a: &Tensor, b: &Tensor) -> Result<Tensor> {
    if crate::autograd::recording() {
        return crate::autograd::linalg::dot(a, b);
    }
    if a.ndim() != 1 || b.ndim() != 1 {
        return Err(Error::runtime(format!(
            "1D tensors expected, but got {}D and {}D tensors",
            a.ndim(),
            b.ndim()
        )));
    }
    if a.dtype() != b.dtype() {
        return Err(Error::runtime(format!(
            "dot : expected both vectors to have same dtype, but found {} and {}",
            a.dtype().scalar_type_name(),
            b.dtype().scalar_type_name()
        )));
    }
    let (n, m) = (a.shape()[0] as i64, b.shape()[0] as i64);
    if n != m {
        return Err(Error::runtime(format!(
            "inconsistent tensor size, expected tensor [{n}] and src [{m}] to have the same number of elements, but got {n} and {m} elements respectively"
        )));
    }
    reject_no_kernel("dot", a.dtype())?;
    let row = a.unsqueeze(0)?.unsqueeze(0)?;
    let col = b.unsqueeze(0)?.unsqueeze(2)?;
    product_3d(&row, &col, a.dtype(), &[], || Ok(()))
}

/// `torch.mv(mat, vec)`: a matrix times a vector. The result has `vec`'s dtype.
///
/// ```
/// use bcast_engine::{linalg, Tensor};
/// let m = Tensor::from_vec(vec![1i64, 2, 3, 4], &[2, 2]).unwrap();
/// let v = Tensor::from_vec(vec![1i64, 1], &[2]).unwrap();
/// assert_eq!(linalg::mv(&m, &v).unwrap().to_vec::<i64>().unwrap(), vec![3, 7]);
/// let w = Tensor::from_vec(vec![1.0f32, 1.0], &[2]).unwrap();
/// let err = linalg::mv(&m, &w).unwrap_err();
/// assert_eq!(err.message(), "addmv input tensors must have the same dtype, but got Float, Long, and Float");
/// ```
///
/// # Errors
/// Not a matrix and a vector; mismatched sizes; different dtypes; `bool` or `complex32` unless
/// the product is trivial.
pub fn mv(mat: &Tensor, vec: &Tensor) -> Result<Tensor> {
    if crate::autograd::recording() {
        return crate::autograd::linalg::mv(mat, vec);
    }
    // torch sizes the result by `self.size(0)` before it checks the dims.
    if mat.ndim() == 0 {
        return Err(Error::index(
            "Dimension specified as 0 but tensor has no dimensions",
        ));
    }
    if mat.ndim() != 2 || vec.ndim() != 1 {
        return Err(Error::runtime(format!(
            "vector + matrix @ vector expected, got 1, {}, {}",
            mat.ndim(),
            vec.ndim()
        )));
    }
    let (rows, cols, len) = (
        mat.shape()[0] as i64,
        mat.shape()[1] as i64,
        vec.shape()[0] as i64,
    );
    if cols != len {
        return Err(Error::runtime(format!(
            "size mismatch, got input ({rows}), mat ({rows}x{cols}), vec ({len})"
        )));
    }
    if mat.dtype() != vec.dtype() {
        let v = vec.dtype().scalar_type_name();
        return Err(Error::runtime(format!(
            "addmv input tensors must have the same dtype, but got {v}, {}, and {v}",
            mat.dtype().scalar_type_name()
        )));
    }
    let a = mat.unsqueeze(0)?;
    let b = vec.unsqueeze(0)?.unsqueeze(2)?;
    product_3d(&a, &b, vec.dtype(), &mat.shape()[..1], || {
        reject_no_kernel("addmv_impl_cpu", mat.dtype())
    })
}

/// `torch.mm(a, b)`: a matrix product, with `a`'s dtype.
///
/// ```
/// use bcast_engine::{linalg, Tensor};
/// let a = Tensor::from_vec(vec![1i64, 2, 3, 4], &[2, 2]).unwrap();
/// let b = Tensor::from_vec(vec![1.0f64; 4], &[2, 2]).unwrap();
/// let err = linalg::mm(&a, &b).unwrap_err();
/// assert_eq!(err.message(), "expected m1 and m2 to have the same dtype, but got: long int != double");
/// assert_eq!(linalg::mm(&a, &a).unwrap().to_vec::<i64>().unwrap(), vec![7, 10, 15, 22]);
/// ```
///
/// # Errors
/// Not two matrices; mismatched inner sizes (`mat1 and mat2 shapes cannot be multiplied`);
/// different dtypes; `bool` or `complex32` unless the product is trivial.
pub fn mm(a: &Tensor, b: &Tensor) -> Result<Tensor> {
    if crate::autograd::recording() {
        return crate::autograd::linalg::mm(a, b);
    }
    if a.ndim() != 2 {
        return Err(Error::runtime("self must be a matrix"));
    }
    if b.ndim() != 2 {
        return Err(Error::runtime("mat2 must be a matrix"));
    }
    let (sa, sb) = (signed_sizes(a.shape()), signed_sizes(b.shape()));
    if sa[1] != sb[0] {
        return Err(Error::runtime(format!(
            "mat1 and mat2 shapes cannot be multiplied ({}x{} and {}x{})",
            sa[0], sa[1], sb[0], sb[1]
        )));
    }
    check_m1_m2_dtypes(a.dtype(), b.dtype())?;
    let shape = [a.shape()[0], b.shape()[1]];
    product_3d(
        &a.unsqueeze(0)?,
        &b.unsqueeze(0)?,
        a.dtype(),
        &shape,
        || reject_no_kernel("addmm_impl_cpu_", a.dtype()),
    )
}

/// `torch.bmm(a, b)`: a batch of matrix products. The result takes `b`'s dtype, and the dtypes
/// are only compared when there is something to compute: a trivial product of mismatched
/// dtypes succeeds.
///
/// A non-trivial product takes one of torch's three CPU paths (`bmm_out_or_baddbmm_`), and
/// each checks dtypes its own way (`bmm_path`): below 400 multiply-adds per matrix (`k *
/// m * n`, batch not counted) the `bmm` kernel, from 400 on a batched gemm for a `float32`,
/// `float64` or complex result when both operands' matrices are contiguous or transposed, else
/// one `addmm_impl_cpu_` per batch entry. So bool fails as `"bmm"` below the threshold and as
/// `"addmm_impl_cpu_"` from it on. (Before these, torch hands a product whose three tensors
/// are all `bfloat16` to oneDNN on a CPU with AVX-512: that changes how the sum is taken, never
/// an error.)
///
/// ```
/// use bcast_engine::{linalg, DType, Tensor};
/// let a = Tensor::zeros(&[0, 2, 3], DType::Float32).unwrap();
/// let b = Tensor::zeros(&[0, 3, 4], DType::Float64).unwrap();
/// assert_eq!(linalg::bmm(&a, &b).unwrap().dtype(), DType::Float64);
/// let c = Tensor::zeros(&[1, 2, 3], DType::Float32).unwrap();
/// let d = Tensor::zeros(&[1, 3, 4], DType::Float64).unwrap();
/// assert_eq!(linalg::bmm(&c, &d).unwrap_err().message(), "expected scalar type Float but found Double");
/// ```
///
/// ```
/// use bcast_engine::{linalg, DType, Tensor};
/// let bools = |shape: &[usize]| Tensor::zeros(shape, DType::Bool).unwrap();
/// // k * m * n = 21 * 19 * 1 = 399, in each of 2 batches
/// let small = linalg::bmm(&bools(&[2, 19, 21]), &bools(&[2, 21, 1])).unwrap_err();
/// assert_eq!(small.message(), "\"bmm\" not implemented for 'Bool'");
/// let large = linalg::bmm(&bools(&[1, 20, 20]), &bools(&[1, 20, 1])).unwrap_err();
/// assert_eq!(large.message(), "\"addmm_impl_cpu_\" not implemented for 'Bool'");
/// ```
///
/// # Errors
/// Not two 3-d tensors; batch or inner sizes that differ; then, for a non-trivial product,
/// `bool`, `complex32` or dtypes that differ, each with the message of the path torch takes.
pub fn bmm(a: &Tensor, b: &Tensor) -> Result<Tensor> {
    if crate::autograd::recording() {
        return crate::autograd::linalg::bmm(a, b);
    }
    if a.ndim() != 3 {
        return Err(Error::runtime("batch1 must be a 3D tensor"));
    }
    if b.ndim() != 3 {
        return Err(Error::runtime("batch2 must be a 3D tensor"));
    }
    let (sa, sb) = (signed_sizes(a.shape()), signed_sizes(b.shape()));
    if sb[0] != sa[0] || sb[1] != sa[2] {
        return Err(Error::runtime(format!(
            "Expected size for first two dimensions of batch2 tensor to be: [{}, {}] but got: [{}, {}].",
            sa[0], sa[2], sb[0], sb[1]
        )));
    }
    let shape = [a.shape()[0], a.shape()[1], b.shape()[2]];
    crate::shape::numel_of(&shape)?;
    product_3d(a, b, b.dtype(), &shape, || match bmm_path(a, b) {
        // The kernel dispatches on `a`'s dtype, then reads the result (`b`'s dtype) as it.
        BmmPath::Small => {
            reject_no_kernel("bmm", a.dtype())?;
            check_scalar_type(a.dtype(), b.dtype())
        }
        // The gemm dispatches on the result's dtype (`b`'s), then reads `a` as it.
        BmmPath::Gemm => {
            reject_no_kernel("baddbmm_with_gemm", b.dtype())?;
            check_scalar_type(b.dtype(), a.dtype())
        }
        BmmPath::PerBatch => {
            check_m1_m2_dtypes(a.dtype(), b.dtype())?;
            reject_no_kernel("addmm_impl_cpu_", b.dtype())
        }
    })
}

/// The path torch's CPU `bmm` takes for a non-trivial product (`bmm_out_or_baddbmm_`).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum BmmPath {
    /// `k * m * n < 400` (in wrapping `int64`, batch not counted): the `bmm` kernel.
    Small,
    /// A `float32`, `float64` or complex result (not `float16` nor `bfloat16`) and both
    /// operands' matrices contiguous or transposed: MKL's batched gemm (torch's x86 builds have
    /// MKL; the result is new, so contiguous).
    Gemm,
    /// Otherwise one `addmm_impl_cpu_` per batch entry.
    PerBatch,
}

/// Which [`BmmPath`] `a @ b` (3-d, non-trivial) takes.
fn bmm_path(a: &Tensor, b: &Tensor) -> BmmPath {
    let (m, k, n) = (
        a.shape()[1] as i64,
        a.shape()[2] as i64,
        b.shape()[2] as i64,
    );
    if k.wrapping_mul(m).wrapping_mul(n) < 400 {
        BmmPath::Small
    } else if gemm_dtype(b.dtype())
        && matrices_contiguous_or_transposed(a)
        && matrices_contiguous_or_transposed(b)
    {
        BmmPath::Gemm
    } else {
        BmmPath::PerBatch
    }
}

/// The result dtypes MKL's batched gemm takes in torch's `bmm`: floating but not reduced, or
/// complex.
fn gemm_dtype(dtype: DType) -> bool {
    (dtype.is_floating() && !dtype.is_reduced_float()) || dtype.is_complex()
}

/// torch's `batch_items_contiguous_or_transposed`: each matrix of a 3-d tensor is row-major or
/// column-major (a size-1 dim's stride does not count), possibly with padded rows or columns.
fn matrices_contiguous_or_transposed(t: &Tensor) -> bool {
    let sizes = signed_sizes(t.shape());
    let strides: Vec<i64> = t.strides().iter().map(|&s| s as i64).collect();
    (strides[2] == 1 && (sizes[1] == 1 || strides[1] >= sizes[2]))
        || (strides[1] == 1 && (sizes[2] == 1 || strides[2] >= sizes[1]))
}

/// A typed read of a tensor of dtype `found` as `expected` (torch's `data_ptr<T>` check).
fn check_scalar_type(expected: DType, found: DType) -> Result<()> {
    if expected != found {
        return Err(Error::runtime(format!(
            "expected scalar type {} but found {}",
            expected.scalar_type_name(),
            found.scalar_type_name()
        )));
    }
    Ok(())
}

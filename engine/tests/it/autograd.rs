//! The engine's backward (`bcast_engine::autograd`): the broadcast-reduction law (a
//! gradient has its input's shape and dtype, summed over the dims the forward stretched) and
//! a handful of torch's formulas, tie rules included. Every expectation is torch 2.13.0's
//! `torch.autograd.grad` of the same computation (the line above each).

use bcast_engine::autograd::Graph;
use bcast_engine::complex::Complex;
use bcast_engine::linalg::matmul;
use bcast_engine::ops::{binary, clamp_numbers, r#where, BinaryOp};
use bcast_engine::reduce::{max_all, max_dim, mean};
use bcast_engine::{DType, Scalar, Tensor};

fn f32s(values: &[f32], shape: &[usize]) -> Tensor {
    Tensor::from_vec(values.to_vec(), shape).unwrap()
}

/// The gradients of `f(leaves)` with `upstream`, one per leaf.
fn grads(leaves: &[Tensor], upstream: Tensor, f: impl FnOnce(&[Tensor]) -> Tensor) -> Vec<Tensor> {
    let mut g = Graph::new();
    let leaves: Vec<Tensor> = leaves.iter().map(|t| g.leaf(t).unwrap()).collect();
    let out = g.run(|| f(&leaves));
    g.grad(&[(out, upstream)], &leaves)
        .unwrap()
        .into_iter()
        .map(|g| g.expect("every leaf is used"))
        .collect()
}

#[test]
fn a_broadcast_input_gets_the_upstream_summed_over_its_stretched_dims() {
    // a = [1, 2, 3]; b = [[10], [20]]; grad(a * b, (a, b), [[1, 2, 3], [4, 5, 6]])
    let a = f32s(&[1.0, 2.0, 3.0], &[3]);
    let b = f32s(&[10.0, 20.0], &[2, 1]);
    let up = f32s(&[1.0, 2.0, 3.0, 4.0, 5.0, 6.0], &[2, 3]);
    let g = grads(&[a, b], up, |l| {
        binary(BinaryOp::Mul, &l[0], &l[1], None).unwrap()
    });
    assert_eq!(g[0].shape(), &[3]);
    assert_eq!(g[0].to_vec::<f32>().unwrap(), vec![90.0, 120.0, 150.0]);
    assert_eq!(g[1].shape(), &[2, 1]);
    assert_eq!(g[1].to_vec::<f32>().unwrap(), vec![14.0, 32.0]);
}

#[test]
fn each_gradient_has_its_inputs_dtype_after_promotion() {
    // x = arange(6, float64).reshape(2, 1, 3); y = ones(4, 1, float32);
    // grad(x + y, (x, y), arange(24, float64).reshape(2, 4, 3))
    let x = Tensor::from_vec((0..6).map(f64::from).collect::<Vec<_>>(), &[2, 1, 3]).unwrap();
    let y = f32s(&[1.0; 4], &[4, 1]);
    let up = Tensor::from_vec((0..24).map(f64::from).collect::<Vec<_>>(), &[2, 4, 3]).unwrap();
    let g = grads(&[x, y], up, |l| {
        binary(BinaryOp::Add(Scalar::Int(1)), &l[0], &l[1], None).unwrap()
    });
    assert_eq!(
        (g[0].shape(), g[0].dtype()),
        (&[2, 1, 3][..], DType::Float64)
    );
    assert_eq!(
        g[0].to_vec::<f64>().unwrap(),
        vec![18.0, 22.0, 26.0, 66.0, 70.0, 74.0]
    );
    assert_eq!((g[1].shape(), g[1].dtype()), (&[4, 1][..], DType::Float32));
    assert_eq!(g[1].to_vec::<f32>().unwrap(), vec![42.0, 60.0, 78.0, 96.0]);
}

#[test]
fn an_expanded_view_gets_its_gradient_summed_back() {
    // x = [[1], [2]]; grad(x.expand(2, 3), x, [[1, 2, 3], [4, 5, 6]])
    let x = f32s(&[1.0, 2.0], &[2, 1]);
    let up = f32s(&[1.0, 2.0, 3.0, 4.0, 5.0, 6.0], &[2, 3]);
    let g = grads(&[x], up, |l| l[0].expand(&[2, 3]).unwrap());
    assert_eq!(g[0].shape(), &[2, 1]);
    assert_eq!(g[0].to_vec::<f32>().unwrap(), vec![6.0, 15.0]);
}

#[test]
fn maximum_splits_a_tie_in_half() {
    // a = [1, 2, 3]; b = [1, 5, 0]; grad(maximum(a, b), (a, b), [2, 4, 8])
    let a = f32s(&[1.0, 2.0, 3.0], &[3]);
    let b = f32s(&[1.0, 5.0, 0.0], &[3]);
    let up = f32s(&[2.0, 4.0, 8.0], &[3]);
    let g = grads(&[a, b], up, |l| {
        binary(BinaryOp::Maximum, &l[0], &l[1], None).unwrap()
    });
    assert_eq!(g[0].to_vec::<f32>().unwrap(), vec![1.0, 0.0, 8.0]);
    assert_eq!(g[1].to_vec::<f32>().unwrap(), vec![1.0, 4.0, 0.0]);
}

#[test]
fn clamp_passes_the_gradient_at_its_bounds() {
    // x = [0, 1, 2, 3]; grad(clamp(x, 1, 2), x, ones(4))
    let x = f32s(&[0.0, 1.0, 2.0, 3.0], &[4]);
    let g = grads(&[x], f32s(&[1.0; 4], &[4]), |l| {
        clamp_numbers(
            &l[0],
            Some(Scalar::Float(1.0)),
            Some(Scalar::Float(2.0)),
            None,
        )
        .unwrap()
    });
    assert_eq!(g[0].to_vec::<f32>().unwrap(), vec![0.0, 1.0, 1.0, 0.0]);
}

#[test]
fn where_sends_each_branch_its_share_summed_to_its_shape() {
    // x = [1, 2]; y = 5.0 (0-d); cond = [[T, F], [F, F]];
    // grad(where(cond, x, y), (x, y), [[1, 2], [3, 4]])
    let x = f32s(&[1.0, 2.0], &[2]);
    let y = f32s(&[5.0], &[]);
    let cond = Tensor::from_vec(vec![true, false, false, false], &[2, 2]).unwrap();
    let up = f32s(&[1.0, 2.0, 3.0, 4.0], &[2, 2]);
    let g = grads(&[x, y], up, |l| r#where(&cond, &l[0], &l[1], None).unwrap());
    assert_eq!(g[0].to_vec::<f32>().unwrap(), vec![1.0, 0.0]);
    assert_eq!(
        (g[1].shape(), g[1].to_vec::<f32>().unwrap()),
        (&[][..], vec![9.0])
    );
}

#[test]
fn pow_of_two_tensors_masks_a_zero_exponent_and_a_zero_base() {
    // x = [2, 0]; e = [3, 0]; grad(pow(x, e), (x, e), ones(2))
    let x = f32s(&[2.0, 0.0], &[2]);
    let e = f32s(&[3.0, 0.0], &[2]);
    let g = grads(&[x, e], f32s(&[1.0, 1.0], &[2]), |l| {
        binary(BinaryOp::Pow, &l[0], &l[1], None).unwrap()
    });
    assert_eq!(g[0].to_vec::<f32>().unwrap(), vec![12.0, 0.0]);
    let ge = g[1].to_vec::<f32>().unwrap();
    assert!((ge[0] - 5.545_177_5).abs() < 1e-5 && ge[1] == 0.0, "{ge:?}");
}

#[test]
fn mean_over_a_dim_shares_the_gradient_among_its_elements() {
    // x = arange(6.).reshape(2, 3); grad(x.mean(1), x, [3, 6])
    let x = f32s(&[0.0, 1.0, 2.0, 3.0, 4.0, 5.0], &[2, 3]);
    let g = grads(&[x], f32s(&[3.0, 6.0], &[2]), |l| {
        mean(&l[0], &[1], false, None).unwrap()
    });
    assert_eq!(
        g[0].to_vec::<f32>().unwrap(),
        vec![1.0, 1.0, 1.0, 2.0, 2.0, 2.0]
    );
}

#[test]
fn a_complex_product_gets_the_conjugate_gradient() {
    // a = [1+2j]; b = [3-1j]; grad(a * b, a, [1+1j])
    let a = Tensor::from_vec(vec![Complex::new(1.0f32, 2.0)], &[1]).unwrap();
    let b = Tensor::from_vec(vec![Complex::new(3.0f32, -1.0)], &[1]).unwrap();
    let up = Tensor::from_vec(vec![Complex::new(1.0f32, 1.0)], &[1]).unwrap();
    let g = grads(&[a], up, |l| {
        binary(BinaryOp::Mul, &l[0], &b, None).unwrap()
    });
    assert_eq!(
        g[0].to_vec::<Complex<f32>>().unwrap(),
        vec![Complex::new(2.0, 4.0)]
    );
}

#[test]
fn max_over_a_dim_sends_the_gradient_to_the_first_index_of_a_tie() {
    // x = [[5, 1, 5], [2, 7, 7]]; v, i = torch.max(x, 1); grad(v, x, [10, 20]); i == [0, 1]
    let x = f32s(&[5.0, 1.0, 5.0, 2.0, 7.0, 7.0], &[2, 3]);
    let mut indices = None;
    let g = grads(&[x], f32s(&[10.0, 20.0], &[2]), |l| {
        let (values, i) = max_dim(&l[0], 1, false).unwrap();
        indices = Some(i);
        values
    });
    assert_eq!(indices.unwrap().to_vec::<i64>().unwrap(), vec![0, 1]);
    assert_eq!(
        (g[0].shape(), g[0].to_vec::<f32>().unwrap()),
        (&[2, 3][..], vec![10.0, 0.0, 0.0, 0.0, 20.0, 0.0])
    );
}

#[test]
fn max_of_every_element_splits_a_tie_evenly() {
    // x = [[5, 1, 5], [2, 7, 7]]; g = grad(torch.max(x.t()), x, 6.): [[0, 0, 0], [0, 3, 3]],
    // strides (1, 2) (the transposed view's contiguous zeros, transposed back)
    let x = f32s(&[5.0, 1.0, 5.0, 2.0, 7.0, 7.0], &[2, 3]);
    let g = grads(&[x], f32s(&[6.0], &[]), |l| {
        max_all(&l[0].t().unwrap()).unwrap()
    });
    assert_eq!(
        g[0].to_vec::<f32>().unwrap(),
        vec![0.0, 0.0, 0.0, 0.0, 3.0, 3.0]
    );
    assert_eq!(g[0].strides(), &[1, 2]);
}

#[test]
fn matmul_drops_the_unit_batch_of_an_operand_that_requires_grad() {
    // a = ones(1, 2, 3, requires_grad=True); b = ones(4, 4, 5): torch.matmul(a, b) folds into
    // mm ("mat1 and mat2 shapes cannot be multiplied (20x4 and 3x2)"); with a not requiring
    // grad it is bmm ("Expected size for first two dimensions of batch2 tensor to be: [4, 3]
    // but got: [4, 4].")
    let a = f32s(&[1.0; 6], &[1, 2, 3]);
    let b = f32s(&[1.0; 80], &[4, 4, 5]);
    let mut g = Graph::new();
    let leaf = g.leaf(&a).unwrap();
    let folded = g.run(|| matmul(&leaf, &b)).unwrap_err();
    assert_eq!(
        folded.message(),
        "mat1 and mat2 shapes cannot be multiplied (20x4 and 3x2)"
    );
    let batched = matmul(&a, &b).unwrap_err();
    assert_eq!(
        batched.message(),
        "Expected size for first two dimensions of batch2 tensor to be: [4, 3] but got: [4, 4]."
    );
    // a = arange(6.).reshape(1, 2, 3); b = arange(60.).reshape(4, 3, 5);
    // grad(a @ b, a, ones(4, 2, 5)): [[[490, 590, 690]] * 2], strides (6, 3, 1)
    let a = f32s(&(0..6).map(|v| v as f32).collect::<Vec<_>>(), &[1, 2, 3]);
    let b = f32s(&(0..60).map(|v| v as f32).collect::<Vec<_>>(), &[4, 3, 5]);
    let ga = grads(&[a], f32s(&[1.0; 40], &[4, 2, 5]), |l| {
        matmul(&l[0], &b).unwrap()
    });
    assert_eq!(
        (ga[0].shape(), ga[0].strides()),
        (&[1, 2, 3][..], &[6, 3, 1][..])
    );
    assert_eq!(
        ga[0].to_vec::<f32>().unwrap(),
        vec![490.0, 590.0, 690.0, 490.0, 590.0, 690.0]
    );
}

/// `bitwise_not` has no derivative: into an `out=` that is a leaf requiring grad torch refuses
/// the call as autograd's (before the kernel's dtype check); into another `out=` the kernel's
/// dtype error comes, whatever requires grad (found by `bcast diff --seed 1201001`).
#[test]
fn bitwise_not_into_a_leaf_out_is_refused_by_autograd_first() {
    use bcast_engine::ops::{unary, UnaryOp};
    // x = torch.tensor([1.5, 2.], requires_grad=True); torch.bitwise_not(x, out=x)
    let mut g = Graph::new();
    let x = g.leaf(&f32s(&[1.5, 2.0], &[2])).unwrap();
    let err = g
        .run(|| unary(UnaryOp::BitwiseNot, &x, Some(&x)))
        .unwrap_err();
    assert_eq!(
        err.message(),
        "aten::bitwise_not(): functions with out=... arguments don't support automatic differentiation, but one of the arguments requires grad."
    );
    // torch.bitwise_not(x, out=torch.empty(2)): NotImplementedError, the kernel's.
    let out = f32s(&[0.0, 0.0], &[2]);
    let err = g
        .run(|| unary(UnaryOp::BitwiseNot, &x, Some(&out)))
        .unwrap_err();
    assert_eq!(
        err.message(),
        "\"bitwise_not_cpu\" not implemented for 'Float'"
    );
    // y = x.clone(); torch.bitwise_not(torch.tensor([1., 0.]), out=y): the kernel's too.
    let y = g.run(|| x.clone_tensor()).unwrap();
    let err = g
        .run(|| unary(UnaryOp::BitwiseNot, &f32s(&[1.0, 0.0], &[2]), Some(&y)))
        .unwrap_err();
    assert_eq!(
        err.message(),
        "\"bitwise_not_cpu\" not implemented for 'Float'"
    );
}

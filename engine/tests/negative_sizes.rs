//! Views can hold a negative size beside a 0 (`expand(0, -2)`), as torch's signed sizes can.
//! Reductions and products of such views never panic; where they fail, they fail with the
//! messages torch 2.13.0 gave for the same calls (recorded by running it:
//! `torch.empty(1, 1).expand(0, -2)` and friends).

use bcast_engine::{linalg, reduce, DType, Tensor};

fn odd() -> Tensor {
    Tensor::zeros(&[1, 1], DType::Float32)
        .unwrap()
        .expand(&[0, -2])
        .unwrap()
}

#[test]
fn reducing_the_negative_dim_gives_an_empty_result() {
    let x = odd();
    let s = reduce::sum(&x, &[1], true, None).unwrap();
    assert_eq!((s.shape(), s.strides()), (&[0, 1][..], &[1, 1][..]));
    assert_eq!(reduce::std(&x, &[1], 1.0, false).unwrap().shape(), &[0]);
    assert_eq!(reduce::amin(&x, &[1], false).unwrap().shape(), &[0]);
}

#[test]
fn keeping_the_negative_dim_fails_like_torch() {
    let x = odd();
    let e = reduce::sum(&x, &[0], true, None).unwrap_err();
    assert_eq!(
        e.message(),
        "Trying to create tensor with negative dimension -2: [1, -2]"
    );
    let e = reduce::std(&x, &[0], 1.0, false).unwrap_err();
    assert_eq!(e.message(), "numel: integer multiplication overflow");
    let e = reduce::amax(&x, &[0], false).unwrap_err();
    assert_eq!(
        e.message(),
        "amax(): Expected reduction dim 0 to have non-zero size."
    );
}

#[test]
fn products_with_a_negative_dim_fail_like_torch() {
    let x = odd();
    let a = Tensor::zeros(&[3, 0], DType::Float32).unwrap();
    let e = linalg::mm(&a, &x).unwrap_err();
    assert_eq!(
        e.message(),
        "Trying to create tensor with negative dimension -2: [3, -2]"
    );
    let e = linalg::matmul(&x.t().unwrap(), &a.t().unwrap()).unwrap_err();
    assert_eq!(
        e.message(),
        "Trying to create tensor with negative dimension -2: [-2, 3]"
    );
    let v = Tensor::zeros(&[0], DType::Float32).unwrap();
    let e = linalg::mv(&x.t().unwrap(), &v).unwrap_err();
    assert_eq!(
        e.message(),
        "Trying to create tensor with negative dimension -2: [-2]"
    );
    let e = linalg::einsum("ij->j", std::slice::from_ref(&x)).unwrap_err();
    assert_eq!(
        e.message(),
        "Trying to create tensor with negative dimension -2: [-2]"
    );
    assert_eq!(linalg::einsum("ij->i", &[x]).unwrap().shape(), &[0]);
}

#[test]
fn huge_expanded_views_are_refused_not_computed() {
    let x = Tensor::zeros(&[1], DType::Float64)
        .unwrap()
        .expand(&[1 << 40])
        .unwrap();
    assert!(reduce::sum(&x, &[], false, None).is_err());
    let m = Tensor::zeros(&[1, 1], DType::Float64)
        .unwrap()
        .expand(&[1 << 20, 1 << 20])
        .unwrap();
    assert!(linalg::matmul(&m, &m).is_err());
}

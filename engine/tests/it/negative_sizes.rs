//! Views can hold a negative size beside a 0 (`expand(0, -2)`), as torch's signed sizes can.
//! Reductions and products of such views never panic; where they fail, they fail with the
//! messages torch 2.13.0 gave for the same calls (recorded by running it:
//! `torch.empty(1, 1).expand(0, -2)` and friends; slices of them with `torch.zeros`).

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

/// Shape, strides and offset of a view, signed as torch prints them.
fn geometry(t: &Tensor) -> (Vec<i64>, Vec<i64>, usize) {
    let signed = |v: &[usize]| v.iter().map(|&s| s as i64).collect::<Vec<i64>>();
    (signed(t.shape()), signed(t.strides()), t.offset())
}

#[test]
fn slicing_a_negative_dim_follows_atens_branches() {
    use bcast_engine::views::TensorIndex::Slice;
    let full = Slice(None, None, None);
    // x = torch.zeros(1, 1).expand(0, -2); x[:, 1:], x[:, -1:], x[:, ::2]
    let x = odd();
    let r = x.index(&[full, Slice(Some(1), None, None)]).unwrap();
    assert_eq!(geometry(&r), (vec![0, 0], vec![0, 0], 0));
    let r = x.index(&[full, Slice(Some(-1), None, None)]).unwrap();
    assert_eq!(geometry(&r), (vec![0, -2], vec![0, 0], 0));
    let r = x.index(&[full, Slice(None, None, Some(2))]).unwrap();
    assert_eq!(geometry(&r), (vec![0, 0], vec![0, 0], 0));
}

#[test]
fn a_whole_dim_slice_keeps_the_dim_only_in_an_index_tuple() {
    use bcast_engine::views::TensorIndex::Slice;
    let full = Slice(None, None, None);
    // x[:, 0:]: torch's applySlice keeps the dim as it is (size -2).
    let r = odd().index(&[full, Slice(Some(0), None, None)]).unwrap();
    assert_eq!(geometry(&r), (vec![0, -2], vec![0, 0], 0));
    // y = torch.zeros(1, 1).expand(-2, 0): y[0:] slices (a lone slice skips the shortcut),
    // y[0:, :] keeps the dim, y[-1:] and y[1:, :] slice.
    let y = Tensor::zeros(&[1, 1], DType::Float32)
        .unwrap()
        .expand(&[-2, 0])
        .unwrap();
    let r = y.index(&[Slice(Some(0), None, None)]).unwrap();
    assert_eq!(geometry(&r), (vec![0, 0], vec![0, 0], 0));
    let r = y.index(&[Slice(Some(0), None, None), full]).unwrap();
    assert_eq!(geometry(&r), (vec![-2, 0], vec![0, 0], 0));
    let r = y.index(&[Slice(Some(-1), None, None)]).unwrap();
    assert_eq!(geometry(&r), (vec![-2, 0], vec![0, 0], 0));
    let r = y.index(&[Slice(Some(1), None, None), full]).unwrap();
    assert_eq!(geometry(&r), (vec![0, 0], vec![0, 0], 0));
}

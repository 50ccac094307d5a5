//! `max` and `min` with indices: ties, NaNs, torch's order of checks, 0-d inputs.

use bcast_engine::reduce::{max_all, max_dim, min_dim};
use bcast_engine::{DType, Tensor};

#[test]
fn ties_pick_the_first_index_and_nan_the_first_nan() {
    // x = torch.tensor([[0., -0., 0.], [5., 5., 1.]], dtype=torch.float64):
    // torch.max(x, 1).indices == [0, 0]; torch.min(x, 0, True).indices == [[0, 0, 0]];
    // torch.min(torch.tensor([1., nan, nan]), 0).indices == 1 (torch 2.13.0)
    let x = Tensor::from_vec(vec![0.0f64, -0.0, 0.0, 5.0, 5.0, 1.0], &[2, 3]).unwrap();
    let (v, i) = max_dim(&x, 1, false).unwrap();
    assert_eq!(i.to_vec::<i64>().unwrap(), vec![0, 0]);
    assert_eq!(v.to_vec::<f64>().unwrap()[0].to_bits(), 0.0f64.to_bits());
    let (_, i) = min_dim(&x, 0, true).unwrap();
    assert_eq!(
        (i.shape(), i.to_vec::<i64>().unwrap()),
        (&[1, 3][..], vec![0, 0, 0])
    );
    let n = Tensor::from_vec(vec![1.0f32, f32::NAN, f32::NAN], &[3]).unwrap();
    assert_eq!(
        min_dim(&n, 0, false).unwrap().1.to_vec::<i64>().unwrap(),
        vec![1]
    );
}

#[test]
fn torch_checks_the_dim_then_the_size_then_the_dtype() {
    let c = Tensor::zeros(&[0, 3], DType::Complex64).unwrap();
    let e = max_dim(&c, 5, false).unwrap_err();
    assert!(e.message().starts_with("Dimension out of range"));
    let e = max_dim(&c, 0, false).unwrap_err();
    assert_eq!(
        e.message(),
        "max(): Expected reduction dim 0 to have non-zero size."
    );
    let e = min_dim(&c, 1, false).unwrap_err();
    assert_eq!(e.message(), "min(): does not support complex input");
    let (v, i) = max_dim(&Tensor::zeros(&[0, 3], DType::Float32).unwrap(), 1, true).unwrap();
    assert_eq!(
        (v.shape(), i.shape(), i.dtype()),
        (&[0, 1][..], &[0, 1][..], DType::Int64)
    );
    let e = max_all(&Tensor::zeros(&[2], DType::Complex128).unwrap()).unwrap_err();
    assert_eq!(
        e.message(),
        "\"max_all\" not implemented for 'ComplexDouble'"
    );
}

#[test]
fn a_0_d_input_is_its_own_maximum_at_index_0() {
    let x = Tensor::from_vec(vec![2.5f32], &[]).unwrap();
    let (v, i) = max_dim(&x, -1, true).unwrap();
    assert_eq!((v.shape(), i.to_vec::<i64>().unwrap()), (&[][..], vec![0]));
    assert!(max_dim(&x, 1, false).is_err());
}

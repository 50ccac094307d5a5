//! The batched product kernel ([`batched_product`]): its values, `float16`'s one rounding,
//! empty products and integer wrapping.

use bcast_engine::__internals::linalg::kernel::batched_product;
use bcast_engine::half::Half;
use bcast_engine::Tensor;

/// Was the doctest of `batched_product` while it was public.
#[test]
fn multiplies_by_a_permutation() {
    let a = Tensor::from_vec(vec![1i64, 2, 3, 4], &[1, 2, 2]).unwrap();
    let i = Tensor::from_vec(vec![0i64, 1, 1, 0], &[1, 2, 2]).unwrap();
    assert_eq!(
        batched_product(&a, &i).unwrap().to_vec::<i64>().unwrap(),
        vec![2, 1, 4, 3]
    );
}

/// float16 sums in float32 and rounds once: 2048 + 1 + 1 is 2050, where rounding after
/// each add would stay at 2048 (2049 is a tie, to even).
#[test]
fn half_products_round_once() {
    let half = |v: &[f32], shape: &[usize]| {
        let v = v.iter().map(|&x| Half::from_f32(x)).collect();
        Tensor::from_vec::<Half>(v, shape).unwrap()
    };
    let a = half(&[2048.0, 1.0, 1.0], &[1, 1, 3]);
    let b = half(&[1.0, 1.0, 1.0], &[1, 3, 1]);
    let out = batched_product(&a, &b).unwrap().to_vec::<Half>().unwrap();
    assert_eq!(out[0].to_f32(), 2050.0);
}

/// An empty result lists no rows of `b`, however long its empty dims: (1, 0, 2^40) by
/// (1, 2^40, 0) is done at once.
#[test]
fn an_empty_product_reads_nothing() {
    let k = 1usize << 40;
    let a = Tensor::from_vec(Vec::<f32>::new(), &[1, 0, k]).unwrap();
    let b = Tensor::from_vec(Vec::<f32>::new(), &[1, k, 0]).unwrap();
    assert_eq!(batched_product(&a, &b).unwrap().shape(), &[1, 0, 0]);
}

/// Integers wrap in their own dtype: 100 * 2 + 127 = 327 is 71 in int8.
#[test]
fn int8_products_wrap() {
    let a = Tensor::from_vec(vec![100i8, 127], &[1, 1, 2]).unwrap();
    let b = Tensor::from_vec(vec![2i8, 1], &[1, 2, 1]).unwrap();
    assert_eq!(
        batched_product(&a, &b).unwrap().to_vec::<i8>().unwrap(),
        vec![71]
    );
}

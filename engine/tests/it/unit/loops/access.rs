//! When a loop writes the zeros its output's new storage owes: never where it writes the
//! whole storage, first where the output views part of it or an input shares it.

use bcast_engine::__internals::storage::zeros_written;
use bcast_engine::config::{with_strategy, Strategy};
use bcast_engine::loops::{map_binary, map_unary};
use bcast_engine::ops::{binary, r#where, BinaryOp};
use bcast_engine::{Buffer, DType, Scalar, Storage, Tensor};

#[test]
fn an_output_written_whole_never_gets_its_zeros() {
    for strategy in [Strategy::Plan, Strategy::IndexMap] {
        with_strategy(strategy, || {
            let a = Tensor::from_vec(vec![1.0f32, 2.0, 3.0], &[3, 1]).unwrap();
            let b = Tensor::from_vec(vec![10.0f32, 20.0], &[2]).unwrap();
            let out = Tensor::zeros(&[3, 2], DType::Float32).unwrap();
            assert_eq!(out.storage().len(), 6);
            let before = zeros_written();
            map_binary(&out, &a, &b, |x: f32, y: f32| x + y).unwrap();
            assert_eq!(zeros_written(), before, "{strategy:?}");
            assert_eq!(
                out.to_vec::<f32>().unwrap(),
                vec![11.0, 21.0, 12.0, 22.0, 13.0, 23.0]
            );
            assert_eq!(out.storage().len(), 6);
        });
    }
}

#[test]
fn a_permuted_dense_output_is_written_whole() {
    let a = Tensor::from_vec((0..6).map(|i| i as i64).collect(), &[2, 3]).unwrap();
    let out = Tensor::zeros(&[3, 2], DType::Int64)
        .unwrap()
        .permute(&[1, 0])
        .unwrap();
    let before = zeros_written();
    map_unary(&out, &a, |x: i64| x * 10).unwrap();
    assert_eq!(zeros_written(), before);
    assert_eq!(out.to_vec::<i64>().unwrap(), vec![0, 10, 20, 30, 40, 50]);
    assert_eq!(out.storage().to_scalars().len(), 6);
}

#[test]
fn an_output_that_views_part_of_its_storage_gets_its_zeros_first() {
    let whole = Tensor::zeros(&[4], DType::Int32).unwrap();
    let out = whole.narrow(0, 1, 2).unwrap();
    let a = Tensor::from_vec(vec![7i32, 8], &[2]).unwrap();
    let before = zeros_written();
    map_unary(&out, &a, |x: i32| x).unwrap();
    assert_eq!(zeros_written(), before + 1);
    assert_eq!(whole.to_vec::<i32>().unwrap(), vec![0, 7, 8, 0]);
}

#[test]
fn an_output_an_input_shares_gets_its_zeros_first() {
    let out = Tensor::zeros(&[3], DType::Float64).unwrap();
    let before = zeros_written();
    map_unary(&out, &out, |x: f64| x + 1.0).unwrap();
    assert_eq!(zeros_written(), before + 1);
    assert_eq!(out.to_vec::<f64>().unwrap(), vec![1.0; 3]);
}

#[test]
fn a_failed_loop_leaves_the_zeros_owed() {
    let out = Tensor::zeros(&[2, 2], DType::Float32).unwrap();
    let a = Tensor::from_vec(vec![1.0f32, 2.0, 3.0], &[3]).unwrap();
    let err = map_unary(&out, &a, |x: f32| x).unwrap_err();
    assert!(err.message().contains("does not broadcast"), "{err:?}");
    assert_eq!(out.storage().len(), 4);
    let before = zeros_written();
    assert_eq!(out.to_vec::<f32>().unwrap(), vec![0.0; 4]);
    assert_eq!(zeros_written(), before + 1);
}

#[test]
fn an_op_allocating_its_output_skips_the_zeros() {
    let a = Tensor::from_vec((0..64).map(|i| i as f32).collect(), &[8, 8]).unwrap();
    let b = Tensor::from_vec((0..8).map(|i| i as f32).collect(), &[8]).unwrap();
    let before = zeros_written();
    let sum = binary(BinaryOp::Add(1.into()), &a, &b, None).unwrap();
    assert_eq!(zeros_written(), before);
    let expected: Vec<f32> = (0..64).map(|i| (i + i % 8) as f32).collect();
    assert_eq!(sum.to_vec::<f32>().unwrap(), expected);
}

/// `torch.where` writes into `empty(0)` that the iteration resizes: the grown storage owes its
/// zeros as a new one does, and the loop that writes every element never writes them.
#[test]
fn a_where_into_a_resized_empty_output_skips_the_zeros() {
    let c = Tensor::from_vec(vec![true, false, true], &[3, 1]).unwrap();
    let a = Tensor::from_vec(vec![1.0f32, 2.0], &[1, 2]).unwrap();
    let before = zeros_written();
    let r = r#where(&c, &a, -1.0, None).unwrap();
    assert_eq!(zeros_written(), before);
    assert_eq!(
        r.to_vec::<f32>().unwrap(),
        vec![1.0, 2.0, -1.0, -1.0, 1.0, 2.0]
    );
}

/// A storage grown from empty reads as zeros (written once, when first read); one grown
/// from a non-empty buffer keeps its elements.
#[test]
fn a_grown_storage_reads_zeros_after_its_elements() {
    let empty = Storage::zeros(DType::Int64, 0).unwrap();
    empty.grow_to(4).unwrap();
    assert_eq!(empty.len(), 4);
    let before = zeros_written();
    assert_eq!(empty.to_scalars(), vec![Scalar::Int(0); 4]);
    assert_eq!(zeros_written(), before + 1);
    let held = Storage::new(Buffer::from(vec![7i64, 8]));
    held.grow_to(4).unwrap();
    held.grow_to(3).unwrap();
    let values = [7, 8, 0, 0].map(Scalar::Int).to_vec();
    assert_eq!(held.to_scalars(), values);
}

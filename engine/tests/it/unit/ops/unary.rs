//! The sign ops of `float16` and `bfloat16` (`neg`, `abs`) on every bit pattern, against the
//! element function in `f32`.

use bcast_engine::__internals::ops::unary::{real_op, SIGN_BIT};
use bcast_engine::half::{BFloat16, Half};
use bcast_engine::ops::{unary, UnaryOp};
use bcast_engine::{DType, Element, Tensor};

/// `op` on every bit pattern of `T`, as a contiguous tensor (the vectorised rows) and as
/// every other element of one (the strided rows).
fn every_pattern<T: Element>(op: UnaryOp, of_bits: fn(u16) -> T, bits: fn(T) -> u16) {
    let all: Vec<T> = (0..=u16::MAX).map(of_bits).collect();
    let x = Tensor::from_vec(all.clone(), &[1 << 16]).unwrap();
    let strided = Tensor::from_vec(all.iter().flat_map(|&v| [v, v]).collect(), &[1 << 16, 2])
        .unwrap()
        .select(1, 0)
        .unwrap();
    let widened = |v: T| T::from_f32(real_op::<f32>(op, v.cast::<f32>()));
    for input in [x, strided] {
        let got = unary(op, &input, None).unwrap().to_vec::<T>().unwrap();
        for (&v, &g) in all.iter().zip(&got) {
            let want = widened(v);
            let nan = want.cast::<f32>().is_nan();
            if T::DTYPE == DType::Float16 && nan {
                // torch keeps a float16 NaN's payload (its conversion is the hardware's):
                // only the sign changes.
                let sign = bits(want) & SIGN_BIT;
                assert_eq!(
                    bits(g),
                    sign | bits(v) & !SIGN_BIT,
                    "{op:?} {:#06x}",
                    bits(v)
                );
            } else {
                assert_eq!(bits(g), bits(want), "{op:?} {:#06x}", bits(v));
            }
        }
    }
}

#[test]
fn half_sign_ops_change_only_the_sign() {
    for op in [UnaryOp::Neg, UnaryOp::Abs] {
        every_pattern::<Half>(op, Half, |h| h.0);
        every_pattern::<BFloat16>(op, BFloat16, |b| b.0);
    }
}

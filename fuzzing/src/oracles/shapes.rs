//! Shape algebra agrees with itself: pairwise and n-ary broadcasting, `expand` to the
//! broadcast shape, `numel`'s overflow rule and dim wrapping.

use arbitrary::Unstructured;
use bcast_engine::shape::{broadcast_shapes, infer_size, numel, wrap_dim, ShapeArg};
use bcast_engine::{DType, Tensor};

fn small_shape(u: &mut Unstructured) -> arbitrary::Result<Vec<usize>> {
    let n = u.int_in_range(0..=5)?;
    (0..n).map(|_| u.int_in_range(0..=4)).collect()
}

/// Checks the shape-algebra invariants on shapes drawn from `bytes`; panics on a violation.
///
/// ```
/// bcast_fuzzing::oracles::shapes::check(&[3, 1, 4, 1, 5, 9, 2, 6, 5, 3, 5]);
/// ```
pub fn check(bytes: &[u8]) {
    let mut u = Unstructured::new(bytes);
    let (Ok(a), Ok(b)) = (small_shape(&mut u), small_shape(&mut u)) else {
        return;
    };
    let ab = infer_size(&a, &b);
    let ba = infer_size(&b, &a);
    assert_eq!(
        ab.as_ref().ok(),
        ba.as_ref().ok(),
        "infer_size is not symmetric for {a:?} {b:?}"
    );
    let tuple = |s: &[usize]| ShapeArg::Tuple(s.iter().map(|&d| d as i64).collect());
    let nary = broadcast_shapes(&[tuple(&a), tuple(&b)]);
    assert_eq!(
        ab.as_ref().ok().map(|d| d.as_slice()),
        nary.as_ref().ok().map(|d| d.as_slice()),
        "infer_size and broadcast_shapes disagree on {a:?} {b:?}"
    );
    if let Ok(out) = &ab {
        assert_eq!(out.len(), a.len().max(b.len()));
        let x = Tensor::zeros(&a, DType::Float32).expect("small tensor");
        let target: Vec<i64> = out.iter().map(|&d| d as i64).collect();
        let e = x
            .expand(&target)
            .unwrap_or_else(|err| panic!("expand {a:?} to {out:?}: {err}"));
        assert_eq!(e.shape(), &out[..]);
        let lead = out.len() - a.len();
        for (d, &stride) in e.strides().iter().enumerate() {
            let stretched = d < lead || (a[d - lead] == 1 && out[d] != 1);
            if stretched && out[d] > 1 {
                assert_eq!(
                    stride, 0,
                    "stretched dim {d} of {a:?} -> {out:?} must have stride 0"
                );
            }
        }
    }
    if let Ok(sizes) = (0..u.int_in_range(0..=4).unwrap_or(0))
        .map(|_| u.arbitrary::<i64>())
        .collect::<arbitrary::Result<Vec<i64>>>()
    {
        let mut product: u128 = 1;
        let mut overflow = false;
        for &s in &sizes {
            // product < 2^64, so the exact product fits in u128.
            product *= s as u64 as u128;
            overflow |= product > u64::MAX as u128;
            product %= 1u128 << 64;
        }
        let fits = !overflow && product <= i64::MAX as u128;
        assert_eq!(
            numel(&sizes).is_ok(),
            fits,
            "numel overflow rule for {sizes:?}"
        );
    }
    if let (Ok(dim), Ok(ndim)) = (u.arbitrary::<i64>(), u.int_in_range(0usize..=6)) {
        let n = ndim.max(1) as i64;
        let expected = (-n..n).contains(&dim).then(|| dim.rem_euclid(n) as usize);
        assert_eq!(
            wrap_dim(dim, ndim).ok(),
            expected,
            "wrap_dim({dim}, {ndim})"
        );
    }
}

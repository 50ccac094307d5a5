//! Writes with non-temporal stores ([`streamed`]): every element type it can align, every
//! alignment and length.

use bcast_engine::__internals::loops::stream::{can_stream, fence, streamed};

/// `streamed` writes exactly `f(i)` at every position, whatever the start's alignment
/// and the length (head, whole buffers, tail).
fn check<R: Copy + PartialEq + std::fmt::Debug>(f: impl Fn(usize) -> R, fill: R) {
    assert!(can_stream::<R>());
    for skip in 0..4 {
        for len in [0, 1, 2, 3, 5, 17, 255, 256, 257, 1000, 4099] {
            let mut v = vec![fill; len + skip + 3];
            // SAFETY: `skip + len` elements fit in `v`.
            unsafe {
                streamed(v.as_mut_ptr().add(skip), len, |start, buf| {
                    for (i, slot) in buf.iter_mut().enumerate() {
                        slot.write(f(start + i));
                    }
                });
            }
            fence();
            for (i, x) in v.iter().enumerate() {
                let want = if i >= skip && i < skip + len {
                    f(i - skip)
                } else {
                    fill
                };
                assert_eq!(*x, want, "skip {skip}, len {len}, at {i}");
            }
        }
    }
}

#[test]
fn streams_every_element_type() {
    check(|i| i as f32 * 0.5, -1.0f32);
    check(|i| i as f64 - 3.0, 7.0f64);
    check(|i| i as i64 * -3, 1i64);
    check(|i| i % 3 == 0, true);
    check(|i| (i % 251) as u8, 255u8);
}

#[test]
fn refuses_types_it_cannot_align() {
    assert!(!can_stream::<[u8; 3]>());
    assert!(!can_stream::<[f32; 2]>());
    assert!(!can_stream::<()>());
}

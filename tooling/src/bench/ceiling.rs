//! The memory-bandwidth ceiling: a plain copy of the same bytes, split over the same threads.

/// Copies `src` into `dst` with `threads` threads, each a contiguous share.
///
/// ```
/// # use bcast_tooling::bench::ceiling::copy_split;
/// let src: Vec<f32> = (0..10).map(|i| i as f32).collect();
/// let mut dst = vec![0.0; 10];
/// copy_split(&mut dst, &src, 3);
/// assert_eq!(dst, src);
/// ```
pub fn copy_split(dst: &mut [f32], src: &[f32], threads: usize) {
    let threads = threads.max(1);
    if threads == 1 {
        dst.copy_from_slice(src);
        return;
    }
    let chunk = src.len().div_ceil(threads).max(1);
    std::thread::scope(|s| {
        for (d, c) in dst.chunks_mut(chunk).zip(src.chunks(chunk)) {
            s.spawn(move || d.copy_from_slice(c));
        }
    });
}

/// A copy of `src` into new memory, allocated as the engine allocates a new output
/// (zero-initialised, so its pages are untouched until written, with the same huge-page
/// advice).
pub fn copy_alloc(src: &[f32], threads: usize) -> Vec<f32> {
    let mut dst = vec![0.0f32; src.len()];
    bcast_engine::memory::advise_huge_pages(dst.as_ptr() as *const u8, 4 * dst.len());
    copy_split(&mut dst, src, threads);
    dst
}

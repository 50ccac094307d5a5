//! Advice to the operating system about large new buffers. A new output of many megabytes is
//! fresh memory whose every 4 KiB page faults on its first write; on Linux, asking for
//! transparent huge pages (`madvise(MADV_HUGEPAGE)`, honoured when
//! `/sys/kernel/mm/transparent_hugepage/enabled` is `always` or `madvise`) makes that one
//! fault per 2 MiB. The advice never changes contents: the memory stays zero until written.

/// Buffers at least this large (in bytes) are advised.
pub const HUGE_PAGE_MIN_BYTES: usize = 4 << 20;

/// Advises that the `len` bytes at `ptr` be backed by huge pages when the system allows it.
/// Does nothing for small buffers or on other systems.
///
/// ```
/// let v = vec![0u8; 8 << 20];
/// bcast_engine::memory::advise_huge_pages(v.as_ptr(), v.len());
/// assert!(v.iter().all(|&b| b == 0));
/// ```
pub fn advise_huge_pages(ptr: *const u8, len: usize) {
    if len < HUGE_PAGE_MIN_BYTES {
        return;
    }
    #[cfg(target_os = "linux")]
    {
        const PAGE: usize = 4096;
        let start = (ptr as usize).next_multiple_of(PAGE);
        let end = (ptr as usize + len) / PAGE * PAGE;
        if end > start {
            // SAFETY: madvise with MADV_HUGEPAGE only changes how the kernel backs pages of
            // this buffer's own whole pages; it never changes their contents or mapping.
            // A failure (e.g. no THP support) leaves everything as it was.
            unsafe {
                libc::madvise(start as *mut libc::c_void, end - start, libc::MADV_HUGEPAGE);
            }
        }
    }
    #[cfg(not(target_os = "linux"))]
    let _ = ptr;
}

/// Collects `len` values into a new vector whose memory was advised ([`advise_huge_pages`])
/// before the values were written, so a large one is backed by huge pages from its first
/// touch (advice given after the writes changes nothing until the kernel's background
/// collapsing gets to it). Values past `len` are not taken; fewer leave the vector shorter.
///
/// ```
/// let v = bcast_engine::memory::collect_advised(3, (1..).map(|i| i * 2));
/// assert_eq!(v, vec![2, 4, 6]);
/// ```
pub fn collect_advised<T>(len: usize, values: impl IntoIterator<Item = T>) -> Vec<T> {
    let mut v: Vec<T> = Vec::with_capacity(len);
    advise_huge_pages(v.as_ptr().cast::<u8>(), len * std::mem::size_of::<T>());
    v.extend(values.into_iter().take(len));
    v
}

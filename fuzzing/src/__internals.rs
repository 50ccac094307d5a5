//! Items that the crate's own tests (`fuzzing/tests/it/unit/`) reach, re-exported under the
//! paths of the modules that hold them. Not API: hidden from the documentation, not for other
//! crates, and free to change in any release.

/// From [`crate::oracles`].
pub mod oracles {
    /// From [`crate::oracles::elementwise`].
    pub mod elementwise {
        pub use crate::oracles::elementwise::canonical_nans;
    }

    /// From [`crate::oracles::inplace`].
    pub mod inplace {
        pub use crate::oracles::inplace::{check_with, copy_after_resize_overlaps};
    }
}

/// From [`crate::shrink`].
pub mod shrink {
    pub use crate::shrink::{needed_len, storage_len};
}

//! Crate-private items that the engine's own tests (`engine/tests/it/unit/`) reach, re-exported
//! under the paths of the modules that hold them. Not API: hidden from the documentation, not
//! for other crates, and free to change in any release.

/// From [`crate::half`].
pub mod half {
    pub use crate::half::WidenSlice;
}

/// From [`crate::linalg`].
pub mod linalg {
    /// From `linalg::einsum`.
    pub mod einsum {
        /// From `linalg::einsum::parse`.
        pub mod parse {
            pub use crate::linalg::einsum::parse::{
                label_char, parse_inputs, parse_output, Subscript,
            };
        }
    }

    /// From `linalg::kernel`.
    pub mod kernel {
        pub use crate::linalg::kernel::batched_product;
    }
}

/// From [`crate::loops`].
pub mod loops {
    /// From `loops::cast`.
    pub mod cast {
        pub use crate::loops::cast::converted_on_load;
    }

    /// From `loops::exec`.
    pub mod exec {
        pub use crate::loops::exec::{independent, split_dim, threads_for};
    }

    /// From `loops::kernel`.
    pub mod kernel {
        pub use crate::loops::kernel::{
            Binary, GuardedBinary, Rect, Rows, RunBinary, RunUnary, Ternary, WidenedBinary,
        };
    }

    /// From `loops::pool`.
    pub mod pool {
        pub use crate::loops::pool::run_pieces;
    }

    /// From `loops::repeat`.
    pub mod repeat {
        pub use crate::loops::repeat::{applies, gcd};
    }

    /// From `loops::stream`.
    pub mod stream {
        pub use crate::loops::stream::{can_stream, fence, streamed};
    }

    /// From `loops::tile`.
    pub mod tile {
        pub use crate::loops::tile::tiled_plan;
    }
}

/// From [`crate::ops`].
pub mod ops {
    /// From [`crate::ops::expf`].
    pub mod expf {
        pub use crate::ops::expf::run;
    }

    /// From [`crate::ops::powf`].
    #[cfg(target_arch = "x86_64")]
    pub mod powf {
        pub use crate::ops::powf::{powf_slice_counted, probe_pairs, run};
    }

    /// From `ops::unary`.
    pub mod unary {
        pub use crate::ops::unary::{real_op, SIGN_BIT};
    }
}

/// From [`crate::reduce`].
pub mod reduce {
    /// From `reduce::extrema`.
    pub mod extrema {
        pub use crate::reduce::extrema::{Extremum, ExtremumFold};
    }

    /// From `reduce::plan`.
    pub mod plan {
        pub use crate::reduce::plan::ReducePlan;
    }

    /// From `reduce::walk`.
    pub mod walk {
        pub use crate::reduce::walk::{fold_row, Fold, FoldWith, ReduceWalk};
    }

    /// From `reduce::wide_row`.
    pub mod wide_row {
        pub use crate::reduce::wide_row::{
            add_rows_portable, sum_row, sum_row_portable, WideElement,
        };
    }
}

/// From [`crate::storage`].
pub mod storage {
    pub use crate::storage::zeros_written;
}

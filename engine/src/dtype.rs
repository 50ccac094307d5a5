//! The four dtypes and torch's promotion and casting rules among them.
//!
//! ```
//! use bcast_engine::DType;
//! assert_eq!(DType::Int64.promote(DType::Float32), DType::Float32);
//! assert!(!DType::Float32.can_cast_to(DType::Int64));
//! assert_eq!(DType::Float32.scalar_type_name(), "Float");
//! ```

use std::fmt;

/// An element type. The order is torch's promotion lattice for these four types.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub enum DType {
    /// `torch.bool`, as Rust `bool`.
    Bool,
    /// `torch.int64`, as Rust `i64`.
    Int64,
    /// `torch.float32`, as Rust `f32`.
    Float32,
    /// `torch.float64`, as Rust `f64`.
    Float64,
}

/// Which of torch's type categories a dtype belongs to.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord)]
pub enum Category {
    /// `bool`.
    Bool,
    /// The integer dtypes (`int64`).
    Integral,
    /// The floating-point dtypes (`float32`, `float64`).
    Floating,
}

impl DType {
    /// Every dtype, in promotion order.
    pub const ALL: [DType; 4] = [DType::Bool, DType::Int64, DType::Float32, DType::Float64];

    /// The name used in fixtures and in Python, e.g. `"float32"` for `torch.float32`.
    pub fn name(self) -> &'static str {
        match self {
            DType::Bool => "bool",
            DType::Int64 => "int64",
            DType::Float32 => "float32",
            DType::Float64 => "float64",
        }
    }

    /// Parses [`DType::name`].
    pub fn from_name(name: &str) -> Option<DType> {
        DType::ALL.into_iter().find(|d| d.name() == name)
    }

    /// The C++ `ScalarType` name torch prints in messages, e.g. `"Long"`.
    pub fn scalar_type_name(self) -> &'static str {
        match self {
            DType::Bool => "Bool",
            DType::Int64 => "Long",
            DType::Float32 => "Float",
            DType::Float64 => "Double",
        }
    }

    /// The type name torch prints for a tensor in messages such as `expand`'s: the legacy
    /// `torch.FloatTensor` names, except bool, which has none there (`CPUBoolType`).
    pub fn tensor_type_name(self) -> &'static str {
        match self {
            DType::Bool => "CPUBoolType",
            DType::Int64 => "torch.LongTensor",
            DType::Float32 => "torch.FloatTensor",
            DType::Float64 => "torch.DoubleTensor",
        }
    }

    /// Bytes per element.
    pub fn itemsize(self) -> usize {
        match self {
            DType::Bool => 1,
            DType::Float32 => 4,
            DType::Int64 | DType::Float64 => 8,
        }
    }

    /// The type category.
    pub fn category(self) -> Category {
        match self {
            DType::Bool => Category::Bool,
            DType::Int64 => Category::Integral,
            DType::Float32 | DType::Float64 => Category::Floating,
        }
    }

    /// Whether this is a floating-point dtype.
    pub fn is_floating(self) -> bool {
        self.category() == Category::Floating
    }

    /// `torch.promote_types(self, other)`.
    pub fn promote(self, other: DType) -> DType {
        self.max(other)
    }

    /// `torch.can_cast(self, to)`: no cast to a lower category.
    pub fn can_cast_to(self, to: DType) -> bool {
        self.category() <= to.category()
    }
}

impl fmt::Display for DType {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "torch.{}", self.name())
    }
}

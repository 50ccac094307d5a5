//! The dtypes a case can name, as the schema spells them.

/// A dtype of the schema.
///
/// ```
/// use bcast_case::DType;
/// assert_eq!(DType::from_name("float32"), Some(DType::Float32));
/// assert_eq!(DType::Int64.name(), "int64");
/// assert!(DType::from_name("f32").is_none());
/// ```
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash)]
#[non_exhaustive]
pub enum DType {
    /// `torch.bool`.
    Bool,
    /// `torch.int64`.
    Int64,
    /// `torch.float32`.
    Float32,
    /// `torch.float64`.
    Float64,
}

impl DType {
    /// Every dtype, in the schema's order.
    pub const ALL: [DType; 4] = [DType::Bool, DType::Int64, DType::Float32, DType::Float64];

    /// The name fixtures use (torch's, without `torch.`).
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

    /// Whether its values are floating point.
    pub fn is_floating(self) -> bool {
        matches!(self, DType::Float32 | DType::Float64)
    }
}

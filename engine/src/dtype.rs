//! The thirteen dtypes and torch's promotion and casting rules among them.
//!
//! ```
//! use bcast_engine::DType;
//! assert_eq!(DType::Int64.promote(DType::Float32), DType::Float32);
//! assert!(!DType::Float32.can_cast_to(DType::Int64));
//! assert_eq!(DType::Float32.scalar_type_name(), "Float");
//! ```

use std::fmt;

/// An element type: the twelve dtypes torch broadcasts and `complex32`, which torch computes a
/// `float16` tensor with a complex number in, in torch's `ScalarType` order within each
/// category.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub enum DType {
    /// `torch.bool`, as Rust `bool`.
    Bool,
    /// `torch.uint8`, as Rust `u8`.
    UInt8,
    /// `torch.int8`, as Rust `i8`.
    Int8,
    /// `torch.int16`, as Rust `i16`.
    Int16,
    /// `torch.int32`, as Rust `i32`.
    Int32,
    /// `torch.int64`, as Rust `i64`.
    Int64,
    /// `torch.float16`, as [`Half`](crate::half::Half).
    Float16,
    /// `torch.bfloat16`, as [`BFloat16`](crate::half::BFloat16).
    BFloat16,
    /// `torch.float32`, as Rust `f32`.
    Float32,
    /// `torch.float64`, as Rust `f64`.
    Float64,
    /// `torch.complex32` (`ComplexHalf`), as [`Complex<Half>`](crate::complex::Complex).
    Complex32,
    /// `torch.complex64`, as [`Complex<f32>`](crate::complex::Complex).
    Complex64,
    /// `torch.complex128`, as [`Complex<f64>`](crate::complex::Complex).
    Complex128,
}

/// Which of torch's type categories a dtype belongs to, in promotion order.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord)]
pub enum Category {
    /// `bool`.
    Bool,
    /// The integer dtypes (`uint8`, `int8`, `int16`, `int32`, `int64`).
    Integral,
    /// The real floating-point dtypes (`float16`, `bfloat16`, `float32`, `float64`).
    Floating,
    /// The complex dtypes (`complex32`, `complex64`, `complex128`).
    Complex,
}

impl DType {
    /// Every dtype, in declaration order.
    pub const ALL: [DType; 13] = [
        DType::Bool,
        DType::UInt8,
        DType::Int8,
        DType::Int16,
        DType::Int32,
        DType::Int64,
        DType::Float16,
        DType::BFloat16,
        DType::Float32,
        DType::Float64,
        DType::Complex32,
        DType::Complex64,
        DType::Complex128,
    ];

    /// The name used in fixtures and in Python, e.g. `"float32"` for `torch.float32`.
    pub fn name(self) -> &'static str {
        match self {
            DType::Bool => "bool",
            DType::UInt8 => "uint8",
            DType::Int8 => "int8",
            DType::Int16 => "int16",
            DType::Int32 => "int32",
            DType::Int64 => "int64",
            DType::Float16 => "float16",
            DType::BFloat16 => "bfloat16",
            DType::Float32 => "float32",
            DType::Float64 => "float64",
            DType::Complex32 => "complex32",
            DType::Complex64 => "complex64",
            DType::Complex128 => "complex128",
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
            DType::UInt8 => "Byte",
            DType::Int8 => "Char",
            DType::Int16 => "Short",
            DType::Int32 => "Int",
            DType::Int64 => "Long",
            DType::Float16 => "Half",
            DType::BFloat16 => "BFloat16",
            DType::Float32 => "Float",
            DType::Float64 => "Double",
            DType::Complex32 => "ComplexHalf",
            DType::Complex64 => "ComplexFloat",
            DType::Complex128 => "ComplexDouble",
        }
    }

    /// The C++ type c10 names in its checked-conversion messages (`value cannot be converted
    /// to type int8_t without overflow`).
    ///
    /// ```
    /// use bcast_engine::DType;
    /// assert_eq!(DType::Int32.cpp_type_name(), "int");
    /// ```
    pub fn cpp_type_name(self) -> &'static str {
        match self {
            DType::Bool => "bool",
            DType::UInt8 => "uint8_t",
            DType::Int8 => "int8_t",
            DType::Int16 => "int16_t",
            DType::Int32 => "int",
            DType::Int64 => "int64_t",
            DType::Float16 => "c10::Half",
            DType::BFloat16 => "c10::BFloat16",
            DType::Float32 => "float",
            DType::Float64 => "double",
            DType::Complex32 => "c10::complex<c10::Half>",
            DType::Complex64 => "c10::complex<float>",
            DType::Complex128 => "c10::complex<double>",
        }
    }

    /// The demangled C++ type name `caffe2::TypeMeta` prints (`mm`'s dtype message): the
    /// integer types by their builtin names.
    ///
    /// ```
    /// use bcast_engine::DType;
    /// assert_eq!(DType::Int8.type_meta_name(), "signed char");
    /// ```
    pub fn type_meta_name(self) -> &'static str {
        match self {
            DType::UInt8 => "unsigned char",
            DType::Int8 => "signed char",
            DType::Int16 => "short int",
            DType::Int64 => "long int",
            other => other.cpp_type_name(),
        }
    }

    /// The type name torch prints for a tensor in messages such as `expand`'s: the legacy
    /// `torch.FloatTensor` names, and `CPU…Type` for the dtypes that have none there.
    pub fn tensor_type_name(self) -> &'static str {
        match self {
            DType::Bool => "CPUBoolType",
            DType::UInt8 => "torch.ByteTensor",
            DType::Int8 => "torch.CharTensor",
            DType::Int16 => "torch.ShortTensor",
            DType::Int32 => "torch.IntTensor",
            DType::Int64 => "torch.LongTensor",
            DType::Float16 => "torch.HalfTensor",
            DType::BFloat16 => "CPUBFloat16Type",
            DType::Float32 => "torch.FloatTensor",
            DType::Float64 => "torch.DoubleTensor",
            DType::Complex32 => "CPUComplexHalfType",
            DType::Complex64 => "CPUComplexFloatType",
            DType::Complex128 => "CPUComplexDoubleType",
        }
    }

    /// Bytes per element.
    pub fn itemsize(self) -> usize {
        match self {
            DType::Bool | DType::UInt8 | DType::Int8 => 1,
            DType::Int16 | DType::Float16 | DType::BFloat16 => 2,
            DType::Int32 | DType::Float32 | DType::Complex32 => 4,
            DType::Int64 | DType::Float64 | DType::Complex64 => 8,
            DType::Complex128 => 16,
        }
    }

    /// The type category.
    pub fn category(self) -> Category {
        match self {
            DType::Bool => Category::Bool,
            DType::UInt8 | DType::Int8 | DType::Int16 | DType::Int32 | DType::Int64 => {
                Category::Integral
            }
            DType::Float16 | DType::BFloat16 | DType::Float32 | DType::Float64 => {
                Category::Floating
            }
            DType::Complex32 | DType::Complex64 | DType::Complex128 => Category::Complex,
        }
    }

    /// Whether this is a real floating-point dtype (`torch.is_floating_point`).
    pub fn is_floating(self) -> bool {
        self.category() == Category::Floating
    }

    /// Whether this is a complex dtype (`torch.is_complex`).
    pub fn is_complex(self) -> bool {
        self.category() == Category::Complex
    }

    /// Whether this is an integer dtype (bool excluded).
    pub fn is_integral(self) -> bool {
        self.category() == Category::Integral
    }

    /// `float16` or `bfloat16`, which torch's kernels compute in `float32`.
    pub fn is_reduced_float(self) -> bool {
        matches!(self, DType::Float16 | DType::BFloat16)
    }

    /// The real dtype of a complex one (`complex64` → `float32`, `complex32` → `float16`);
    /// itself otherwise.
    pub fn to_real(self) -> DType {
        match self {
            DType::Complex32 => DType::Float16,
            DType::Complex64 => DType::Float32,
            DType::Complex128 => DType::Float64,
            d => d,
        }
    }

    /// The complex dtype of a floating one (`float64` → `complex128`, `float16` →
    /// `complex32`, else `complex64`), as torch's `toComplexType`; itself for a complex dtype.
    pub fn to_complex(self) -> DType {
        match self {
            DType::Float64 | DType::Complex128 => DType::Complex128,
            DType::Float16 | DType::Complex32 => DType::Complex32,
            _ => DType::Complex64,
        }
    }

    /// `torch.promote_types(self, other)`.
    pub fn promote(self, other: DType) -> DType {
        use DType::*;
        if self == other {
            return self;
        }
        let (lo, hi) = if self < other {
            (self, other)
        } else {
            (other, self)
        };
        match (lo.category(), hi.category()) {
            (Category::Bool, _) => hi,
            // uint8 with a signed int: the smallest signed int that holds both.
            (Category::Integral, Category::Integral) => match (lo, hi) {
                (UInt8, Int8) => Int16,
                _ => hi,
            },
            (Category::Integral, _) => hi,
            (Category::Floating, Category::Floating) => match (lo, hi) {
                (Float16, BFloat16) => Float32,
                _ => hi,
            },
            // A floating dtype keeps its precision in a complex one: `float32` and `bfloat16`
            // with `complex32` are `complex64`.
            (Category::Floating, _) => match (lo, hi) {
                (Float64, _) => Complex128,
                (BFloat16 | Float32, Complex32) => Complex64,
                _ => hi,
            },
            (Category::Complex, _) => hi,
        }
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

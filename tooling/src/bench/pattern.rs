//! The measured patterns: shapes, op and how the result is written, with the input data every
//! implementation starts from.

/// The element-wise op of a pattern.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Op {
    Add,
    Sub,
    Mul,
}

impl Op {
    /// The op on one pair of elements.
    pub fn apply<T>(self, x: T, y: T) -> T
    where
        T: std::ops::Add<Output = T> + std::ops::Sub<Output = T> + std::ops::Mul<Output = T>,
    {
        match self {
            Op::Add => x + y,
            Op::Sub => x - y,
            Op::Mul => x * y,
        }
    }
}

/// How a call writes its result.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Variant {
    /// A new output allocated by every call (`a + b`).
    Alloc,
    /// Into an existing row-major output (`torch.add(a, b, out=out)`).
    Out,
    /// Into the first operand (`x.add_(b)`).
    InPlace,
}

impl Variant {
    /// The short name in tables and on the command line.
    pub fn name(self) -> &'static str {
        match self {
            Variant::Alloc => "alloc",
            Variant::Out => "out=",
            Variant::InPlace => "in-place",
        }
    }
}

/// The element type a row is measured in.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum BenchDType {
    Float32,
    Float16,
    BFloat16,
    Int32,
}

/// Every element type, in table order.
pub const DTYPES: [BenchDType; 4] = [
    BenchDType::Float32,
    BenchDType::Float16,
    BenchDType::BFloat16,
    BenchDType::Int32,
];

impl BenchDType {
    /// torch's name, as tables and the command line write it.
    ///
    /// ```
    /// use bcast_tooling::bench::pattern::{BenchDType, DTYPES};
    /// assert_eq!(BenchDType::BFloat16.name(), "bfloat16");
    /// assert_eq!(DTYPES.iter().find(|d| d.name() == "int32"), Some(&BenchDType::Int32));
    /// ```
    pub fn name(self) -> &'static str {
        match self {
            BenchDType::Float32 => "float32",
            BenchDType::Float16 => "float16",
            BenchDType::BFloat16 => "bfloat16",
            BenchDType::Int32 => "int32",
        }
    }

    /// Bytes per element.
    pub fn size(self) -> usize {
        match self {
            BenchDType::Float32 | BenchDType::Int32 => 4,
            BenchDType::Float16 | BenchDType::BFloat16 => 2,
        }
    }

    /// The engine's dtype.
    pub fn engine(self) -> bcast_engine::DType {
        match self {
            BenchDType::Float32 => bcast_engine::DType::Float32,
            BenchDType::Float16 => bcast_engine::DType::Float16,
            BenchDType::BFloat16 => bcast_engine::DType::BFloat16,
            BenchDType::Int32 => bcast_engine::DType::Int32,
        }
    }
}

/// One broadcasting pattern: `a OP b`, with `a` transposed (its last two
/// dims swapped, a view) when `transposed`.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Pattern {
    /// A short name for the command line.
    pub name: &'static str,
    /// The expression as a table shows it.
    pub label: &'static str,
    pub a: &'static [usize],
    pub b: &'static [usize],
    pub op: Op,
    pub transposed: bool,
    /// Written in place into `a` instead of into an output.
    pub in_place: bool,
}

/// Every pattern, in table order.
///
/// ```
/// use bcast_tooling::bench::pattern::PATTERNS;
/// assert!(PATTERNS.iter().any(|p| p.name == "small-inner"));
/// ```
pub const PATTERNS: [Pattern; 8] = [
    Pattern {
        name: "same",
        label: "(16M,) + (16M,)",
        a: &[1 << 24],
        b: &[1 << 24],
        op: Op::Add,
        transposed: false,
        in_place: false,
    },
    Pattern {
        name: "bias",
        label: "(16384,1024) + (1024,)",
        a: &[16384, 1024],
        b: &[1024],
        op: Op::Add,
        transposed: false,
        in_place: false,
    },
    Pattern {
        name: "channel",
        label: "(32,64,64,128) * (64,1,1)",
        a: &[32, 64, 64, 128],
        b: &[64, 1, 1],
        op: Op::Mul,
        transposed: false,
        in_place: false,
    },
    Pattern {
        name: "outer",
        label: "(4096,1) + (1,4096)",
        a: &[4096, 1],
        b: &[1, 4096],
        op: Op::Add,
        transposed: false,
        in_place: false,
    },
    Pattern {
        name: "small-inner",
        label: "(5M,3) + (3,)",
        a: &[5_000_000, 3],
        b: &[3],
        op: Op::Add,
        transposed: false,
        in_place: false,
    },
    Pattern {
        name: "issue-57611",
        label: "(1,32,32,2) - (1024,1,1,2)",
        a: &[1, 32, 32, 2],
        b: &[1024, 1, 1, 2],
        op: Op::Sub,
        transposed: false,
        in_place: false,
    },
    Pattern {
        name: "transposed",
        label: "(4096,4096).T + (4096,4096)",
        a: &[4096, 4096],
        b: &[4096, 4096],
        op: Op::Add,
        transposed: true,
        in_place: false,
    },
    Pattern {
        name: "inplace-bias",
        label: "x(16384,1024).add_((1024,))",
        a: &[16384, 1024],
        b: &[1024],
        op: Op::Add,
        transposed: false,
        in_place: true,
    },
];

impl Pattern {
    /// The shape `a` has as an operand (after the transpose).
    pub fn a_view_shape(&self) -> Vec<usize> {
        let mut s = self.a.to_vec();
        if self.transposed && s.len() >= 2 {
            let n = s.len();
            s.swap(n - 2, n - 1);
        }
        s
    }

    /// The broadcast shape of the result.
    pub fn out_shape(&self) -> Vec<usize> {
        bcast_engine::shape::infer_size(&self.a_view_shape(), self.b)
            .expect("the patterns broadcast")
            .to_vec()
    }

    /// The variants measured: in-place patterns have one.
    pub fn variants(&self) -> &'static [Variant] {
        if self.in_place {
            &[Variant::InPlace]
        } else {
            &[Variant::Alloc, Variant::Out]
        }
    }

    /// Bytes one call reads and writes in `dtype`: each input once (a broadcast input is read
    /// at its own size), the output once (the in-place target counts as read and written).
    pub fn bytes(&self, dtype: BenchDType) -> usize {
        let n = |s: &[usize]| s.iter().product::<usize>();
        let out = n(&self.out_shape());
        dtype.size() * (n(self.a) + n(self.b) + out)
    }

    /// The data of `a` (in its storage order, before the transpose) and of `b`, as `f32`
    /// values that `dtype` holds exactly (every implementation converts them to `dtype`
    /// without rounding, so all start from the same bits): multiples of 1/64 below 16 for
    /// float32 and float16, of 1/16 below 16 for bfloat16 (8 significant bits), integers
    /// below 1021 for int32.
    ///
    /// ```
    /// use bcast_tooling::bench::pattern::{BenchDType, PATTERNS};
    /// let (a, _) = PATTERNS[1].inputs(BenchDType::BFloat16);
    /// assert!(a.iter().all(|&x| x == bcast_engine::half::BFloat16::from_f32(x).to_f32()));
    /// ```
    pub fn inputs(&self, dtype: BenchDType) -> (Vec<f32>, Vec<f32>) {
        let (modulus, scale) = match dtype {
            BenchDType::Float32 | BenchDType::Float16 => (1021, 64.0),
            BenchDType::BFloat16 => (256, 16.0),
            BenchDType::Int32 => (1021, 1.0),
        };
        let fill = |len: usize, seed: usize| -> Vec<f32> {
            (0..len)
                .map(|i| {
                    ((i.wrapping_mul(2_654_435_761).wrapping_add(seed)) % modulus) as f32 / scale
                })
                .collect()
        };
        (
            fill(self.a.iter().product(), 1),
            fill(self.b.iter().product(), 7),
        )
    }
}

//! The benchmark's rows: what each computes, on which operands (shape, dtype, layout, 0-d
//! tensors and Python numbers), and how the result is written; plus the data every
//! implementation starts from. The eight broadcasting patterns (group `pattern`, in four dtypes)
//! and the broad rows (every op family, dtype, mixed dtypes, reductions, layouts, sizes, tiny
//! calls, outputs no input shapes and three-operand ops) are rows of the same list; a suite
//! is a set of groups.

/// An element type of the benchmark.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Dt {
    Bool,
    U8,
    I32,
    I64,
    F16,
    BF16,
    F32,
    F64,
}

impl Dt {
    /// Every element type.
    pub const ALL: [Dt; 8] = [
        Dt::Bool,
        Dt::U8,
        Dt::I32,
        Dt::I64,
        Dt::F16,
        Dt::BF16,
        Dt::F32,
        Dt::F64,
    ];

    /// torch's name.
    ///
    /// ```
    /// use bcast_tooling::bench::workload::Dt;
    /// assert_eq!(Dt::BF16.name(), "bfloat16");
    /// ```
    pub fn name(self) -> &'static str {
        match self {
            Dt::Bool => "bool",
            Dt::U8 => "uint8",
            Dt::I32 => "int32",
            Dt::I64 => "int64",
            Dt::F16 => "float16",
            Dt::BF16 => "bfloat16",
            Dt::F32 => "float32",
            Dt::F64 => "float64",
        }
    }

    /// Bytes per element.
    pub fn size(self) -> usize {
        match self {
            Dt::Bool | Dt::U8 => 1,
            Dt::F16 | Dt::BF16 => 2,
            Dt::I32 | Dt::F32 => 4,
            Dt::I64 | Dt::F64 => 8,
        }
    }

    /// The engine's dtype.
    pub fn engine(self) -> bcast_engine::DType {
        use bcast_engine::DType;
        match self {
            Dt::Bool => DType::Bool,
            Dt::U8 => DType::UInt8,
            Dt::I32 => DType::Int32,
            Dt::I64 => DType::Int64,
            Dt::F16 => DType::Float16,
            Dt::BF16 => DType::BFloat16,
            Dt::F32 => DType::Float32,
            Dt::F64 => DType::Float64,
        }
    }

    /// The dtype of an engine tensor, if the suite has it.
    pub fn of_engine(d: bcast_engine::DType) -> Option<Dt> {
        Dt::ALL.into_iter().find(|t| t.engine() == d)
    }

    /// Whether values of this dtype are floating point.
    pub fn is_float(self) -> bool {
        matches!(self, Dt::F16 | Dt::BF16 | Dt::F32 | Dt::F64)
    }
}

/// How a tensor operand's storage is laid out.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Layout {
    /// Row-major.
    Contiguous,
    /// A 4-d `(N, C, H, W)` tensor stored as `(N, H, W, C)` (torch's channels-last).
    ChannelsLast,
    /// The view `s.permute(perm)` of a row-major tensor `s` (view dim `i` is dim `perm[i]`
    /// of `s`).
    Permuted(Vec<usize>),
}

/// One operand.
#[derive(Debug, Clone, PartialEq)]
pub enum Arg {
    /// A tensor of this (logical) shape.
    Tensor {
        shape: Vec<usize>,
        dtype: Dt,
        layout: Layout,
    },
    /// A 0-d tensor holding `value`.
    ZeroDim(Dt, f64),
    /// A Python float.
    Float(f64),
    /// A Python int.
    Int(i64),
}

impl Arg {
    /// A contiguous tensor.
    pub fn t(shape: &[usize], dtype: Dt) -> Arg {
        Arg::Tensor {
            shape: shape.to_vec(),
            dtype,
            layout: Layout::Contiguous,
        }
    }

    /// Bytes a call reads of this operand (0 for a number).
    pub fn bytes(&self) -> usize {
        match self {
            Arg::Tensor { shape, dtype, .. } => shape.iter().product::<usize>() * dtype.size(),
            Arg::ZeroDim(d, _) => d.size(),
            Arg::Float(_) | Arg::Int(_) => 0,
        }
    }

    /// The storage shape of a tensor: its shape for a contiguous one, else the shape its
    /// memory is row-major in.
    pub fn storage_shape(&self) -> Vec<usize> {
        match self {
            Arg::Tensor { shape, layout, .. } => match layout {
                Layout::Contiguous => shape.clone(),
                Layout::ChannelsLast => vec![shape[0], shape[2], shape[3], shape[1]],
                Layout::Permuted(perm) => {
                    // view dim i is storage dim perm[i]: storage dim perm[i] has shape[i].
                    let mut s = vec![0; shape.len()];
                    for (i, &p) in perm.iter().enumerate() {
                        s[p] = shape[i];
                    }
                    s
                }
            },
            _ => Vec::new(),
        }
    }

    /// The permutation that turns the storage-shaped tensor into the view (identity for a
    /// contiguous one).
    pub fn view_perm(&self) -> Option<Vec<usize>> {
        match self {
            Arg::Tensor { layout, .. } => match layout {
                Layout::Contiguous => None,
                Layout::ChannelsLast => Some(vec![0, 3, 1, 2]),
                Layout::Permuted(p) => Some(p.clone()),
            },
            _ => None,
        }
    }
}

/// A binary arithmetic op.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Bin {
    Add,
    Sub,
    Mul,
    Div,
    Pow,
    Remainder,
}

/// A comparison or logical op (result `bool`).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Cmp {
    Lt,
    Gt,
    Eq,
    LogicalAnd,
    LogicalXor,
}

/// A unary op.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Un {
    Sqrt,
    Abs,
    Neg,
    Exp,
}

/// A reduction.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Red {
    Sum,
    Mean,
    Amax,
}

/// A three-operand element-wise op.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Ter {
    /// `torch.addcmul(a, b, c)` (`value` 1).
    Addcmul,
    /// `torch.lerp(a, b, c)`, `c` a tensor or a Python float.
    Lerp,
    /// `torch.clamp(a, min=b, max=c)` with tensor bounds.
    Clamp,
}

/// What a workload computes from its operands.
#[derive(Debug, Clone, PartialEq)]
pub enum Expr {
    /// `a OP b`.
    Binary(Bin),
    /// `a OP b`, a `bool` result.
    Compare(Cmp),
    /// `torch.where(cond, a, b)`.
    Where,
    /// `OP(a)`.
    Unary(Un),
    /// `OP(a, b, c)`.
    Ternary(Ter),
    /// `a.OP(dims, keepdim=True)` (all dims when empty).
    Reduce(Red, Vec<i64>),
    /// `a OP2 a.OP1(dims, keepdim=True)`: a reduction and the broadcast back.
    ReduceBack(Red, Vec<i64>, Bin),
}

/// How a call writes its result.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Write {
    /// A new output per call.
    Alloc,
    /// Into an existing row-major output of the result's shape and dtype.
    Out,
    /// Into the first operand (`x.add_(b)`).
    InPlace,
}

impl Write {
    /// The short name in tables.
    pub fn name(self) -> &'static str {
        match self {
            Write::Alloc => "alloc",
            Write::Out => "out=",
            Write::InPlace => "in-place",
        }
    }
}

/// One measured workload.
#[derive(Debug, Clone, PartialEq)]
pub struct Workload {
    /// The group it belongs to (a table section; see [`SUITES`]).
    pub group: &'static str,
    /// The pattern's short name (`--patterns`), for the rows of the eight patterns.
    pub pattern: Option<&'static str>,
    /// The expression as the table shows it.
    pub label: String,
    pub expr: Expr,
    pub args: Vec<Arg>,
    pub write: Write,
}

impl Workload {
    /// The dtype of its first operand (the one `--dtypes` selects by).
    pub fn dtype(&self) -> Option<Dt> {
        match self.args.first()? {
            Arg::Tensor { dtype, .. } | Arg::ZeroDim(dtype, _) => Some(*dtype),
            Arg::Float(_) | Arg::Int(_) => None,
        }
    }

    /// Whether results may differ in the last bits between implementations, compared within
    /// `1e-5` relative then: a reduction of floats sums in an order of its own, and torch's
    /// CPU `sqrt`, `exp` and `pow` of float32 tensors go through vendor vector math (MKL's VML,
    /// SLEEF) that is not correctly rounded (torch 2.13: `sqrt(3.03125)` is `1.7410484552`
    /// where IEEE's, the engine's, is `1.7410485744`).
    pub fn approximate(&self) -> bool {
        matches!(
            self.expr,
            Expr::Reduce(..)
                | Expr::ReduceBack(..)
                | Expr::Unary(Un::Sqrt | Un::Exp)
                | Expr::Binary(Bin::Pow)
        )
    }
}

/// Deterministic values for `len` elements of `dtype`, exact in it: multiples of 1/64 in
/// `[1/64, 16)` for float32/float64/float16, of 1/16 for bfloat16, integers in `[1, 1021]`
/// (`[1, 250]` for uint8), alternating-ish truth for bool. No zeros, so division and
/// remainder stay finite.
///
/// ```
/// use bcast_tooling::bench::workload::{values, Dt};
/// let v = values(100, Dt::BF16, 3);
/// assert!(v.iter().all(|&x| x > 0.0 && (x * 16.0).fract() == 0.0));
/// ```
pub fn values(len: usize, dtype: Dt, seed: usize) -> Vec<f64> {
    let h = |i: usize| {
        i.wrapping_mul(2_654_435_761)
            .wrapping_add(seed.wrapping_mul(97))
    };
    (0..len)
        .map(|i| match dtype {
            Dt::Bool => ((h(i) >> 3) & 1) as f64,
            Dt::U8 => (h(i) % 250 + 1) as f64,
            Dt::I32 | Dt::I64 => (h(i) % 1021 + 1) as f64,
            Dt::BF16 => (h(i) % 255 + 1) as f64 / 16.0,
            Dt::F16 | Dt::F32 | Dt::F64 => (h(i) % 1023 + 1) as f64 / 64.0,
        })
        .collect()
}

fn w(group: &'static str, label: &str, expr: Expr, args: Vec<Arg>, write: Write) -> Workload {
    Workload {
        group,
        pattern: None,
        label: label.to_string(),
        expr,
        args,
        write,
    }
}

/// Both variants of one workload.
fn both(group: &'static str, label: &str, expr: Expr, args: Vec<Arg>) -> Vec<Workload> {
    vec![
        w(group, label, expr.clone(), args.clone(), Write::Alloc),
        w(group, label, expr, args, Write::Out),
    ]
}

/// One of the eight broadcasting patterns: `a OP b`, with `a` transposed (a view of its
/// storage with the last two dims swapped) when `transposed`, written into `a` when `in_place`.
struct Pattern {
    /// The short name `--patterns` takes.
    name: &'static str,
    label: &'static str,
    op: Bin,
    a: &'static [usize],
    b: &'static [usize],
    transposed: bool,
    in_place: bool,
}

const fn pattern(
    name: &'static str,
    label: &'static str,
    op: Bin,
    a: &'static [usize],
    b: &'static [usize],
) -> Pattern {
    Pattern {
        name,
        label,
        op,
        a,
        b,
        transposed: false,
        in_place: false,
    }
}

/// The eight patterns, in table order.
const PATTERNS: [Pattern; 8] = [
    pattern("same", "(16M,) + (16M,)", Bin::Add, &[1 << 24], &[1 << 24]),
    pattern(
        "bias",
        "(16384,1024) + (1024,)",
        Bin::Add,
        &[16384, 1024],
        &[1024],
    ),
    pattern(
        "channel",
        "(32,64,64,128) * (64,1,1)",
        Bin::Mul,
        &[32, 64, 64, 128],
        &[64, 1, 1],
    ),
    pattern(
        "outer",
        "(4096,1) + (1,4096)",
        Bin::Add,
        &[4096, 1],
        &[1, 4096],
    ),
    pattern(
        "small-inner",
        "(5M,3) + (3,)",
        Bin::Add,
        &[5_000_000, 3],
        &[3],
    ),
    pattern(
        "issue-57611",
        "(1,32,32,2) - (1024,1,1,2)",
        Bin::Sub,
        &[1, 32, 32, 2],
        &[1024, 1, 1, 2],
    ),
    Pattern {
        transposed: true,
        ..pattern(
            "transposed",
            "(4096,4096).T + (4096,4096)",
            Bin::Add,
            &[4096, 4096],
            &[4096, 4096],
        )
    },
    Pattern {
        in_place: true,
        ..pattern(
            "inplace-bias",
            "x(16384,1024).add_((1024,))",
            Bin::Add,
            &[16384, 1024],
            &[1024],
        )
    },
];

/// The element types the patterns are measured in, in table order.
const PATTERN_DTYPES: [Dt; 4] = [Dt::F32, Dt::F16, Dt::BF16, Dt::I32];

/// The rows of the eight patterns in `dtype` (its name before the label, but for float32).
fn pattern_rows(dtype: Dt) -> impl Iterator<Item = Workload> {
    PATTERNS.iter().flat_map(move |p| {
        let a = if p.transposed {
            let mut perm: Vec<usize> = (0..p.a.len()).collect();
            perm.swap(p.a.len() - 2, p.a.len() - 1);
            Arg::Tensor {
                shape: perm.iter().map(|&d| p.a[d]).collect(),
                dtype,
                layout: Layout::Permuted(perm),
            }
        } else {
            Arg::t(p.a, dtype)
        };
        let label = match dtype {
            Dt::F32 => p.label.to_string(),
            d => format!("{} {}", d.name(), p.label),
        };
        let writes: &[Write] = if p.in_place {
            &[Write::InPlace]
        } else {
            &[Write::Alloc, Write::Out]
        };
        let args = vec![a, Arg::t(p.b, dtype)];
        writes.iter().map(move |&write| Workload {
            pattern: Some(p.name),
            ..w("pattern", &label, Expr::Binary(p.op), args.clone(), write)
        })
    })
}

/// The suites `--suite` names, each a list of groups (a table section): `patterns`, the eight
/// patterns in float32, float16, bfloat16 and int32; `broad`, the rows beyond them.
pub const SUITES: [(&str, &[&str]); 2] = [
    ("patterns", &["pattern"]),
    (
        "broad",
        &[
            "dtype", "size", "tiny", "op", "mixed", "reduce", "layout", "outer", "ternary",
        ],
    ),
];

/// The groups of suite `name` (`all`: every group).
///
/// ```
/// use bcast_tooling::bench::workload::suite_groups;
/// assert_eq!(suite_groups("patterns").unwrap(), ["pattern"]);
/// assert_eq!(suite_groups("all").unwrap().len(), 10);
/// assert!(suite_groups("nope").is_err());
/// ```
///
/// # Errors
/// A name that is no suite's.
pub fn suite_groups(name: &str) -> Result<Vec<&'static str>, String> {
    let mut groups = SUITES
        .iter()
        .filter(|(suite, _)| name == "all" || *suite == name)
        .flat_map(|(_, groups)| groups.iter().copied())
        .peekable();
    if groups.peek().is_none() {
        let names: Vec<&str> = SUITES.iter().map(|(n, _)| *n).collect();
        return Err(format!("no suite named {name} ({}, all)", names.join(", ")));
    }
    Ok(groups.collect())
}

/// Every row, in table order: the patterns in each of their dtypes, then the broad rows.
///
/// ```
/// use bcast_tooling::bench::workload::workloads;
/// let all = workloads();
/// assert!(all.iter().any(|w| w.group == "reduce"));
/// assert_eq!(all.iter().filter(|w| w.pattern == Some("bias")).count(), 8);
/// ```
pub fn workloads() -> Vec<Workload> {
    use Arg::{Float, Int, ZeroDim};
    use Dt::*;
    let t = Arg::t;
    let (m, n) = (4096usize, 1024usize);
    let mut all: Vec<Workload> = PATTERN_DTYPES.into_iter().flat_map(pattern_rows).collect();
    // Every dtype on the bias add, a 16 MiB float32 matrix (half the last-level cache).
    for d in [F32, F64, I32, I64, F16, BF16, U8] {
        all.extend(both(
            "dtype",
            &format!("{} (4096,1024) + (1024,)", d.name()),
            Expr::Binary(Bin::Add),
            vec![t(&[m, n], d), t(&[n], d)],
        ));
    }
    // Sizes from L1-resident to twice the last-level cache.
    for rows in [4usize, 64, 1024, 16384] {
        let bytes = rows * n * 4;
        let size = if bytes >= 1 << 20 {
            format!("{} MiB", bytes >> 20)
        } else {
            format!("{} KiB", bytes >> 10)
        };
        all.extend(both(
            "size",
            &format!("({rows},1024) + (1024,), {size}"),
            Expr::Binary(Bin::Add),
            vec![t(&[rows, n], F32), t(&[n], F32)],
        ));
    }
    // The fixed cost of a call.
    let tiny = |label: &str, expr: Expr, args: Vec<Arg>, write| w("tiny", label, expr, args, write);
    all.push(tiny(
        "(4,) + (4,)",
        Expr::Binary(Bin::Add),
        vec![t(&[4], F32), t(&[4], F32)],
        Write::Alloc,
    ));
    all.push(tiny(
        "(2,3) + (3,) out=",
        Expr::Binary(Bin::Add),
        vec![t(&[2, 3], F32), t(&[3], F32)],
        Write::Out,
    ));
    all.push(tiny(
        "0-d * 0-d",
        Expr::Binary(Bin::Mul),
        vec![ZeroDim(F32, 1.5), ZeroDim(F32, 2.5)],
        Write::Alloc,
    ));
    all.push(tiny(
        "(4,) + 2.5",
        Expr::Binary(Bin::Add),
        vec![t(&[4], F32), Float(2.5)],
        Write::Alloc,
    ));
    all.push(tiny(
        "(2,3) < (3,)",
        Expr::Compare(Cmp::Lt),
        vec![t(&[2, 3], F32), t(&[3], F32)],
        Write::Alloc,
    ));
    all.push(tiny(
        "(16,).sum()",
        Expr::Reduce(Red::Sum, vec![]),
        vec![t(&[16], F32)],
        Write::Alloc,
    ));
    // Op families, float32 (4096,1024) against a (1024,) row unless named.
    let mat = || t(&[m, n], F32);
    let row = || t(&[n], F32);
    all.extend(both(
        "op",
        "(4096,1024) < (1024,) -> bool",
        Expr::Compare(Cmp::Lt),
        vec![mat(), row()],
    ));
    all.push(w(
        "op",
        "int64 (4096,1024) == (1024,) -> bool",
        Expr::Compare(Cmp::Eq),
        vec![t(&[m, n], I64), t(&[n], I64)],
        Write::Alloc,
    ));
    all.push(w(
        "op",
        "(4096,1024) > 0.5 -> bool",
        Expr::Compare(Cmp::Gt),
        vec![mat(), Float(0.5)],
        Write::Alloc,
    ));
    all.push(w(
        "op",
        "logical_and bool (4096,1024), (1024,)",
        Expr::Compare(Cmp::LogicalAnd),
        vec![t(&[m, n], Bool), t(&[n], Bool)],
        Write::Alloc,
    ));
    all.push(w(
        "op",
        "logical_xor (4096,1024), (1024,)",
        Expr::Compare(Cmp::LogicalXor),
        vec![mat(), row()],
        Write::Alloc,
    ));
    all.extend(both(
        "op",
        "where(bool (4096,1024), (4096,1024), 0-d)",
        Expr::Where,
        vec![t(&[m, n], Bool), mat(), ZeroDim(F32, 0.0)],
    ));
    all.push(w(
        "op",
        "where(bool (4096,1024), 0-d, 0-d)",
        Expr::Where,
        vec![t(&[m, n], Bool), ZeroDim(F32, 1.0), ZeroDim(F32, -1.0)],
        Write::Alloc,
    ));
    all.push(w(
        "op",
        "(4096,1024) ** 2",
        Expr::Binary(Bin::Pow),
        vec![mat(), Int(2)],
        Write::Alloc,
    ));
    all.push(w(
        "op",
        "pow((4096,1024), (1024,))",
        Expr::Binary(Bin::Pow),
        vec![mat(), row()],
        Write::Alloc,
    ));
    all.push(w(
        "op",
        "remainder((4096,1024), (1024,))",
        Expr::Binary(Bin::Remainder),
        vec![mat(), row()],
        Write::Alloc,
    ));
    all.push(w(
        "op",
        "int64 remainder((4096,1024), (1024,))",
        Expr::Binary(Bin::Remainder),
        vec![t(&[m, n], I64), t(&[n], I64)],
        Write::Alloc,
    ));
    all.push(w(
        "op",
        "(4096,1024) / (1024,)",
        Expr::Binary(Bin::Div),
        vec![mat(), row()],
        Write::Alloc,
    ));
    all.extend(both(
        "op",
        "sqrt (4096,1024)",
        Expr::Unary(Un::Sqrt),
        vec![mat()],
    ));
    all.push(w(
        "op",
        "exp (4096,1024)",
        Expr::Unary(Un::Exp),
        vec![mat()],
        Write::Alloc,
    ));
    all.push(w(
        "op",
        "int32 abs (4096,1024)",
        Expr::Unary(Un::Abs),
        vec![t(&[m, n], I32)],
        Write::Alloc,
    ));
    all.push(w(
        "op",
        "bfloat16 neg (4096,1024)",
        Expr::Unary(Un::Neg),
        vec![t(&[m, n], BF16)],
        Write::Alloc,
    ));
    // Mixed dtypes.
    all.extend(both(
        "mixed",
        "float32 (4096,1024) + int64 (1024,)",
        Expr::Binary(Bin::Add),
        vec![mat(), t(&[n], I64)],
    ));
    all.push(w(
        "mixed",
        "float32 (4096,1024) + 0-d float64",
        Expr::Binary(Bin::Add),
        vec![mat(), ZeroDim(F64, 0.25)],
        Write::Alloc,
    ));
    all.push(w(
        "mixed",
        "float32 (4096,1024) + 2.5",
        Expr::Binary(Bin::Add),
        vec![mat(), Float(2.5)],
        Write::Alloc,
    ));
    all.push(w(
        "mixed",
        "int32 (4096,1024) * float32 (1024,)",
        Expr::Binary(Bin::Mul),
        vec![t(&[m, n], I32), row()],
        Write::Alloc,
    ));
    all.push(w(
        "mixed",
        "float16 (4096,1024) + float32 (1024,)",
        Expr::Binary(Bin::Add),
        vec![t(&[m, n], F16), row()],
        Write::Alloc,
    ));
    all.push(w(
        "mixed",
        "int64 (4096,1024) * 2.5",
        Expr::Binary(Bin::Mul),
        vec![t(&[m, n], I64), Float(2.5)],
        Write::Alloc,
    ));
    all.push(w(
        "mixed",
        "uint8 (4096,1024) + int64 (1024,)",
        Expr::Binary(Bin::Add),
        vec![t(&[m, n], U8), t(&[n], I64)],
        Write::Alloc,
    ));
    // Reductions, and reductions broadcast back.
    let red = |label: &str, r: Red, dims: Vec<i64>, d: Dt| {
        w(
            "reduce",
            label,
            Expr::Reduce(r, dims),
            vec![t(&[m, n], d)],
            Write::Alloc,
        )
    };
    all.push(red("(4096,1024).sum(-1, keepdim)", Red::Sum, vec![-1], F32));
    all.push(red("(4096,1024).sum(0, keepdim)", Red::Sum, vec![0], F32));
    all.push(red("(4096,1024).sum()", Red::Sum, vec![], F32));
    all.push(red(
        "(4096,1024).mean(-1, keepdim)",
        Red::Mean,
        vec![-1],
        F32,
    ));
    all.push(red(
        "(4096,1024).amax(-1, keepdim)",
        Red::Amax,
        vec![-1],
        F32,
    ));
    all.push(red("(4096,1024).amax(0, keepdim)", Red::Amax, vec![0], F32));
    all.push(red(
        "float64 (4096,1024).sum(-1, keepdim)",
        Red::Sum,
        vec![-1],
        F64,
    ));
    all.push(red(
        "int64 (4096,1024).sum(0, keepdim)",
        Red::Sum,
        vec![0],
        I64,
    ));
    let back = |label: &str, r: Red, dims: Vec<i64>, op: Bin, write| {
        w(
            "reduce",
            label,
            Expr::ReduceBack(r, dims, op),
            vec![mat()],
            write,
        )
    };
    all.push(back(
        "x - x.mean(-1, keepdim=True), out=",
        Red::Mean,
        vec![-1],
        Bin::Sub,
        Write::Out,
    ));
    all.push(back(
        "x - x.mean(0, keepdim=True), out=",
        Red::Mean,
        vec![0],
        Bin::Sub,
        Write::Out,
    ));
    all.push(back(
        "x - x.amax(-1, keepdim=True), out=",
        Red::Amax,
        vec![-1],
        Bin::Sub,
        Write::Out,
    ));
    all.push(back(
        "x / x.sum(-1, keepdim=True)",
        Red::Sum,
        vec![-1],
        Bin::Div,
        Write::Alloc,
    ));
    // Reductions over each dim of a 3-d tensor, and in the other dtypes.
    let cube = |d: Dt| t(&[64, 256, 256], d);
    for (label, dims) in [
        ("(64,256,256).sum(0, keepdim)", vec![0]),
        ("(64,256,256).sum(1, keepdim)", vec![1]),
        ("(64,256,256).sum(2, keepdim)", vec![2]),
        ("(64,256,256).sum((0,2), keepdim)", vec![0, 2]),
    ] {
        all.push(w(
            "reduce",
            label,
            Expr::Reduce(Red::Sum, dims),
            vec![cube(F32)],
            Write::Alloc,
        ));
    }
    for (d, r, dims) in [
        (F16, Red::Sum, vec![-1]),
        (BF16, Red::Sum, vec![0]),
        (I32, Red::Sum, vec![-1]),
        (F64, Red::Mean, vec![0]),
        (I64, Red::Amax, vec![-1]),
        (F16, Red::Amax, vec![0]),
    ] {
        let name = match r {
            Red::Sum => "sum",
            Red::Mean => "mean",
            Red::Amax => "amax",
        };
        all.push(red(
            &format!("{} (4096,1024).{name}({}, keepdim)", d.name(), dims[0]),
            r,
            dims,
            d,
        ));
    }
    // Outputs no input shapes: a column against a row (and a 0-d third operand), 64 MiB of
    // float32 out, in every element-wise family.
    let (col, line) = (|d: Dt| t(&[4096, 1], d), |d: Dt| t(&[1, 4096], d));
    all.extend(both(
        "outer",
        "(4096,1) * (1,4096)",
        Expr::Binary(Bin::Mul),
        vec![col(F32), line(F32)],
    ));
    for (label, op, a, b) in [
        ("float64 (4096,1) - (1,4096)", Bin::Sub, F64, F64),
        ("int64 (4096,1) * (1,4096)", Bin::Mul, I64, I64),
        ("float32 (4096,1) + int64 (1,4096)", Bin::Add, F32, I64),
        ("float16 (4096,1) + (1,4096)", Bin::Add, F16, F16),
    ] {
        let args = vec![col(a), line(b)];
        all.push(w("outer", label, Expr::Binary(op), args, Write::Alloc));
    }
    all.extend(both(
        "outer",
        "(4096,1) < (1,4096) -> bool",
        Expr::Compare(Cmp::Lt),
        vec![col(F32), line(F32)],
    ));
    all.extend(both(
        "outer",
        "where(bool (4096,1), (1,4096), 0-d)",
        Expr::Where,
        vec![col(Bool), line(F32), ZeroDim(F32, 0.0)],
    ));
    all.extend(both(
        "outer",
        "addcmul(0-d, (4096,1), (1,4096))",
        Expr::Ternary(Ter::Addcmul),
        vec![ZeroDim(F32, 0.5), col(F32), line(F32)],
    ));
    all.extend(both(
        "outer",
        "lerp((4096,1), (1,4096), 0-d)",
        Expr::Ternary(Ter::Lerp),
        vec![col(F32), line(F32), ZeroDim(F32, 0.25)],
    ));
    all.extend(both(
        "outer",
        "clamp((4096,1), (1,4096), 0-d)",
        Expr::Ternary(Ter::Clamp),
        vec![col(F32), line(F32), ZeroDim(F32, 8.0)],
    ));
    // Three-operand ops on a matrix, a row and a 0-d tensor or number.
    all.extend(both(
        "ternary",
        "addcmul((4096,1024), (4096,1024), (1024,))",
        Expr::Ternary(Ter::Addcmul),
        vec![mat(), mat(), row()],
    ));
    all.extend(both(
        "ternary",
        "lerp((4096,1024), (1024,), 0.25)",
        Expr::Ternary(Ter::Lerp),
        vec![mat(), row(), Float(0.25)],
    ));
    all.push(w(
        "ternary",
        "lerp((4096,1024), (4096,1024), (1024,))",
        Expr::Ternary(Ter::Lerp),
        vec![mat(), mat(), row()],
        Write::Alloc,
    ));
    all.extend(both(
        "ternary",
        "clamp((4096,1024), 0-d, 0-d)",
        Expr::Ternary(Ter::Clamp),
        vec![mat(), ZeroDim(F32, 2.0), ZeroDim(F32, 8.0)],
    ));
    all.push(w(
        "ternary",
        "clamp((4096,1024), (1024,), 0-d)",
        Expr::Ternary(Ter::Clamp),
        vec![mat(), row(), ZeroDim(F32, 8.0)],
        Write::Alloc,
    ));
    all.push(w(
        "ternary",
        "int32 clamp((4096,1024), (1024,), 0-d)",
        Expr::Ternary(Ter::Clamp),
        vec![t(&[m, n], I32), t(&[n], I32), ZeroDim(I32, 500.0)],
        Write::Alloc,
    ));
    // Layouts.
    let cl = Arg::Tensor {
        shape: vec![32, 64, 64, 64],
        dtype: F32,
        layout: Layout::ChannelsLast,
    };
    all.extend(both(
        "layout",
        "channels-last (32,64,64,64) * (64,1,1)",
        Expr::Binary(Bin::Mul),
        vec![cl.clone(), t(&[64, 1, 1], F32)],
    ));
    all.push(w(
        "layout",
        "channels-last (32,64,64,64) + contiguous",
        Expr::Binary(Bin::Add),
        vec![cl, t(&[32, 64, 64, 64], F32)],
        Write::Alloc,
    ));
    all.extend(both(
        "layout",
        "(256,256,64).permute(2,0,1) + (256,)",
        Expr::Binary(Bin::Add),
        vec![
            Arg::Tensor {
                shape: vec![64, 256, 256],
                dtype: F32,
                layout: Layout::Permuted(vec![2, 0, 1]),
            },
            t(&[256], F32),
        ],
    ));
    all
}

/// Which workloads a run keeps.
#[derive(Debug, Clone)]
pub struct Selection {
    /// Group names (see [`suite_groups`]); empty keeps every group.
    pub groups: Vec<String>,
    /// Short names of patterns (`same`, `bias`, `channel`, `outer`, `small-inner`,
    /// `issue-57611`, `transposed`, `inplace-bias`); when any, only those patterns' rows.
    pub patterns: Vec<String>,
    /// Parts of labels: a workload is kept when its label contains one of them; empty keeps
    /// every label. For running one row alone, under a profiler for instance.
    pub rows: Vec<String>,
    /// dtype names; when any, only rows whose first operand has one of them.
    pub dtypes: Vec<String>,
    /// The write variants kept.
    pub writes: Vec<Write>,
}

/// Checks that every one of `asked` is one of `known` (`what` names them in the error).
fn check_names<'a>(
    asked: &[String],
    known: impl Iterator<Item = &'a str> + Clone,
    what: &str,
) -> Result<(), String> {
    match asked
        .iter()
        .find(|a| !known.clone().any(|k| k == a.as_str()))
    {
        Some(a) => Err(format!(
            "no {what} named {a} ({})",
            known.collect::<Vec<_>>().join(", ")
        )),
        None => Ok(()),
    }
}

/// The workloads `selection` keeps, in table order.
///
/// ```
/// use bcast_tooling::bench::workload::{select, Selection, Write};
/// let rows = select(&Selection {
///     groups: vec!["reduce".into()],
///     patterns: vec![],
///     rows: vec!["sum(-1".into()],
///     dtypes: vec!["float32".into()],
///     writes: vec![Write::Alloc],
/// })
/// .unwrap();
/// assert!(rows.iter().all(|w| w.label.contains("sum(-1") && w.write == Write::Alloc));
/// ```
///
/// # Errors
/// A group, pattern or dtype name the benchmark does not have, or a selection that keeps no
/// workload.
pub fn select(selection: &Selection) -> Result<Vec<Workload>, String> {
    let Selection {
        groups,
        patterns,
        rows,
        dtypes,
        writes,
    } = selection;
    let all_groups = SUITES.iter().flat_map(|(_, g)| g.iter().copied());
    check_names(groups, all_groups, "group")?;
    check_names(patterns, PATTERNS.iter().map(|p| p.name), "pattern")?;
    check_names(dtypes, Dt::ALL.iter().map(|d| d.name()), "dtype")?;
    let any = |names: &[String], name: &str| names.is_empty() || names.iter().any(|n| n == name);
    let kept: Vec<Workload> = workloads()
        .into_iter()
        .filter(|w| any(groups, w.group))
        .filter(|w| patterns.is_empty() || w.pattern.is_some_and(|p| any(patterns, p)))
        .filter(|w| dtypes.is_empty() || w.dtype().is_some_and(|d| any(dtypes, d.name())))
        .filter(|w| rows.is_empty() || rows.iter().any(|r| w.label.contains(r.as_str())))
        .filter(|w| writes.contains(&w.write))
        .collect();
    if kept.is_empty() {
        return Err("no row of the benchmark matches the selection".into());
    }
    Ok(kept)
}

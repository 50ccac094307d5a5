//! torch's parser signatures (`"add(Tensor input, Tensor other, *, Scalar alpha=1, Tensor
//! out=None)"`), parsed as `FunctionSignature` and `FunctionParameter` in
//! `torch/csrc/utils/python_arg_parser.cpp` parse them.
//!
//! ```
//! use bcast_case::pyargs::Signature;
//! let s = Signature::parse("sum(Tensor input, IntArrayRef[1]? dim, bool keepdim=False)").unwrap();
//! assert_eq!((s.name.as_str(), s.min_args, s.max_pos_args), ("sum", 2, 3));
//! assert_eq!(s.to_string(), "(Tensor input, tuple of ints dim, bool keepdim = False)");
//! ```

use std::fmt;

/// A parameter's type, as the parser checks a Python value against it.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum ParamType {
    /// `Tensor`.
    Tensor,
    /// `Scalar`: a Python number or a 0-d tensor.
    Scalar,
    /// `int64_t`.
    Int64,
    /// `SymInt`.
    SymInt,
    /// `double`.
    Double,
    /// `complex`.
    Complex,
    /// `TensorList` (and lists of optional tensors).
    TensorList,
    /// `IntArrayRef`.
    IntList,
    /// `SymIntArrayRef`.
    SymIntList,
    /// `ArrayRef<double>`.
    FloatList,
    /// `bool`.
    Bool,
    /// `ScalarType`: a `torch.dtype`.
    ScalarType,
    /// `std::string` / `c10::string_view`.
    String,
    /// `ScalarList`.
    ScalarList,
    /// `PyObject*`: anything.
    PyObject,
    /// A type no case argument can be (`Generator`, `Layout`, `Device`, `Dimname`, ...): the
    /// name torch prints for it.
    Opaque(&'static str),
}

impl ParamType {
    fn from_cpp(name: &str) -> Option<ParamType> {
        use ParamType::*;
        Some(match name {
            "Tensor" => Tensor,
            "Scalar" => Scalar,
            "int64_t" => Int64,
            "SymInt" => SymInt,
            "double" => Double,
            "complex" => Complex,
            "TensorList" | "c10::List<::std::optional<Tensor>>" => TensorList,
            "IntArrayRef" => IntList,
            "SymIntArrayRef" => SymIntList,
            "ArrayRef<double>" => FloatList,
            "bool" => Bool,
            "ScalarType" => ScalarType,
            "std::string" | "c10::string_view" => String,
            "ScalarList" => ScalarList,
            "PyObject*" => PyObject,
            "Generator" => Opaque("torch.Generator"),
            "Storage" => Opaque("torch.Storage"),
            "Layout" => Opaque("torch.layout"),
            "MemoryFormat" => Opaque("torch.memory_format"),
            "QScheme" => Opaque("torch.qscheme"),
            "Device" => Opaque("torch.device"),
            "Stream" => Opaque("torch.Stream"),
            "Dimname" => Opaque("name"),
            "DimnameList" => Opaque("tuple of names"),
            _ => return None,
        })
    }

    /// The name torch's messages give the type (`FunctionParameter::type_name`).
    pub fn type_name(self) -> &'static str {
        use ParamType::*;
        match self {
            Tensor => "Tensor",
            Scalar => "Number",
            Int64 | SymInt => "int",
            Double => "float",
            Complex => "complex",
            TensorList => "tuple of Tensors",
            IntList | SymIntList => "tuple of ints",
            FloatList => "tuple of floats",
            Bool => "bool",
            ScalarType => "torch.dtype",
            String => "str",
            ScalarList => "tuple of Scalars",
            PyObject => "object",
            Opaque(name) => name,
        }
    }
}

/// One parameter of a signature.
#[derive(Debug, Clone, PartialEq)]
pub struct Param {
    /// Its name (the keyword a caller may use).
    pub name: String,
    /// Its type.
    pub ty: ParamType,
    /// `IntArrayRef[2]`: the size that also lets a single int stand for the list; 0 if none.
    pub size: usize,
    /// It has a default, so a caller may leave it out.
    pub optional: bool,
    /// `None` stands for leaving it out (`Tensor?`, or a `None` default).
    pub allow_none: bool,
    /// After `*`: only by keyword.
    pub keyword_only: bool,
    /// The default as the signature writes it (`1`, `None`, `False`).
    pub default: Option<String>,
    /// A Python number may stand for this tensor (torch's `should_allow_numbers_as_tensors`).
    pub numbers_as_tensors: bool,
}

/// The NumPy spellings torch's parser also accepts for a keyword (`axis` for `dim`), by
/// parameter name.
const NUMPY_SPELLINGS: [(&str, &[&str]); 4] = [
    ("dim", &["axis"]),
    ("keepdim", &["keepdims"]),
    ("input", &["x", "a", "x1"]),
    ("other", &["x2"]),
];

impl Param {
    /// The NumPy spellings torch also accepts for this keyword (`axis` for `dim`).
    pub fn numpy_names(&self) -> &'static [&'static str] {
        NUMPY_SPELLINGS
            .iter()
            .find(|(name, _)| *name == self.name)
            .map_or(&[], |(_, spellings)| spellings)
    }
}

/// The parameter a keyword names: itself, or the parameter a NumPy spelling stands for.
///
/// ```
/// use bcast_case::pyargs::parameter_of_keyword;
/// assert_eq!(parameter_of_keyword("axis"), "dim");
/// assert_eq!(parameter_of_keyword("alpha"), "alpha");
/// ```
pub fn parameter_of_keyword(keyword: &str) -> &str {
    NUMPY_SPELLINGS
        .iter()
        .find(|(_, spellings)| spellings.contains(&keyword))
        .map_or(keyword, |(name, _)| name)
}

/// One signature of a parser.
#[derive(Debug, Clone, PartialEq)]
pub struct Signature {
    /// The signature string it was parsed from.
    pub text: String,
    /// The function's name as messages give it (`add`, `add_`).
    pub name: String,
    /// Its parameters, in order.
    pub params: Vec<Param>,
    /// How many parameters have no default.
    pub min_args: usize,
    /// How many parameters there are.
    pub max_args: usize,
    /// How many may be given by position.
    pub max_pos_args: usize,
    /// `|hidden` or `|deprecated`: tried, but never listed in a message.
    pub hidden: bool,
    /// `|deprecated`: tried after every other signature.
    pub deprecated: bool,
}

impl Signature {
    /// Parses a signature string; `Err` names what torch's parser would not accept.
    pub fn parse(fmt: &str) -> Result<Signature, String> {
        Signature::parse_with(fmt, &[])
    }

    /// Parses a signature string, `numbers_as_tensors` naming the functions whose tensor
    /// parameters take Python numbers too.
    pub fn parse_with(fmt: &str, numbers_as_tensors: &[String]) -> Result<Signature, String> {
        let open = fmt
            .find('(')
            .ok_or_else(|| format!("missing opening parenthesis: {fmt}"))?;
        let close = fmt
            .rfind(')')
            .ok_or_else(|| format!("missing closing parenthesis: {fmt}"))?;
        let name = fmt[..open].to_string();
        let numbers = numbers_as_tensors.contains(&name);
        let mut params = Vec::new();
        let mut keyword_only = false;
        let inner = &fmt[open + 1..close];
        if !inner.is_empty() {
            for item in inner.split(", ") {
                if item == "*" {
                    keyword_only = true;
                    continue;
                }
                params.push(parse_param(item, keyword_only, numbers)?);
            }
        }
        let (hidden, deprecated) = match &fmt[close + 1..] {
            "" => (false, false),
            "|deprecated" => (true, true),
            "|hidden" => (true, false),
            other => return Err(format!("unknown signature suffix {other:?}: {fmt}")),
        };
        Ok(Signature {
            text: fmt.to_string(),
            name,
            min_args: params.iter().filter(|p| !p.optional).count(),
            max_args: params.len(),
            max_pos_args: params.iter().filter(|p| !p.keyword_only).count(),
            params,
            hidden,
            deprecated,
        })
    }
}

fn parse_param(item: &str, keyword_only: bool, numbers: bool) -> Result<Param, String> {
    let (ty, rest) = item
        .split_once(' ')
        .ok_or_else(|| format!("missing type: {item}"))?;
    let mut allow_none = ty.contains('?');
    let ty = ty.replace('?', "");
    let (ty, size) = match ty.find('[') {
        Some(b) => (
            ty[..b].to_string(),
            ty[b + 1..ty.len() - 1].parse().unwrap_or(0),
        ),
        None => (ty, 0),
    };
    let ty = ParamType::from_cpp(&ty).ok_or_else(|| format!("invalid type string: {ty}"))?;
    let (name, default) = match rest.split_once('=') {
        Some((n, d)) => (n.to_string(), Some(d.to_string())),
        None => (rest.to_string(), None),
    };
    if default.as_deref() == Some("None") {
        allow_none = true;
    }
    Ok(Param {
        name,
        ty,
        size,
        optional: default.is_some(),
        allow_none,
        keyword_only,
        default,
        numbers_as_tensors: numbers && ty == ParamType::Tensor,
    })
}

/// The signature as torch lists it in a message: `(Tensor input, *, Number alpha = 1)`.
impl fmt::Display for Signature {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str("(")?;
        let mut starred = false;
        for (i, p) in self.params.iter().enumerate() {
            if i > 0 {
                f.write_str(", ")?;
            }
            if p.keyword_only && !starred {
                f.write_str("*, ")?;
                starred = true;
            }
            write!(f, "{} {}", p.ty.type_name(), p.name)?;
            if let Some(d) = &p.default {
                write!(f, " = {d}")?;
            }
        }
        f.write_str(")")
    }
}

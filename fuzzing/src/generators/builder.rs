//! Assembling a generated case: storages, named views, then the call.

use super::{random_view, GenResult, ViewSpec};
use arbitrary::Unstructured;
use bcast_conformance::case::{
    Arg, Call, Case, Fill, FillKind, Num, Source, StorageSpec, TensorSpec, Tolerance,
};
use bcast_engine::DType;
use std::collections::BTreeMap;

/// Builds one case step by step.
///
/// ```
/// use bcast_fuzzing::generators::CaseBuilder;
/// use bcast_conformance::case::Arg;
/// use bcast_engine::DType;
/// let mut u = arbitrary::Unstructured::new(&[1, 2, 3, 4, 5, 6, 7, 8]);
/// let mut b = CaseBuilder::default();
/// let x = b.view(&mut u, DType::Float32, &[2, 3], true).unwrap();
/// let case = b.finish("torch.neg", vec![Arg::Tensor(x)]);
/// assert_eq!(case.tensors.len(), 1);
/// ```
#[derive(Debug, Clone, Default)]
pub struct CaseBuilder {
    storages: BTreeMap<String, StorageSpec>,
    tensors: BTreeMap<String, TensorSpec>,
    kwargs: BTreeMap<String, Arg>,
    tags: Vec<String>,
    tolerance: Option<Tolerance>,
}

/// Values worth trying at the edges of each dtype, each exact in it.
fn edge_values(dtype: DType) -> Vec<Num> {
    let ints = |min: i64, max: i64| {
        vec![
            Num::Int(0),
            Num::Int(-1),
            Num::Int(min),
            Num::Int(max),
            Num::Int(7),
        ]
    };
    let floats = |huge: f64| {
        vec![
            Num::Float(f64::NAN),
            Num::Float(f64::INFINITY),
            Num::Float(f64::NEG_INFINITY),
            Num::Float(-0.0),
            Num::Float(0.0),
            Num::Float(huge),
            Num::Float(-2.5),
        ]
    };
    match dtype {
        DType::Bool => vec![Num::Bool(true), Num::Bool(false)],
        DType::UInt8 => vec![Num::Int(0), Num::Int(255), Num::Int(7)],
        DType::Int8 => ints(i8::MIN.into(), i8::MAX.into()),
        DType::Int16 => ints(i16::MIN.into(), i16::MAX.into()),
        DType::Int32 => ints(i32::MIN.into(), i32::MAX.into()),
        DType::Int64 => ints(i64::MIN, i64::MAX),
        // The largest finite value of each half-precision dtype.
        DType::Float16 => floats(65504.0),
        DType::BFloat16 => floats(2f64.powi(127) * (2.0 - 2f64.powi(-7))),
        DType::Float32 | DType::Float64 => floats(1e30),
        // Each part exactly a float16 value.
        DType::Complex32 => vec![
            Num::Complex(f64::NAN, 0.0),
            Num::Complex(0.0, f64::NAN),
            Num::Complex(f64::INFINITY, -1.0),
            Num::Complex(1.0, f64::NEG_INFINITY),
            Num::Complex(-0.0, 0.0),
            Num::Complex(0.0, -0.0),
            Num::Complex(65504.0, -2.5),
            Num::Complex(-2.5, 0.5),
        ],
        DType::Complex64 | DType::Complex128 => vec![
            Num::Complex(f64::NAN, 0.0),
            Num::Complex(0.0, f64::NAN),
            Num::Complex(f64::INFINITY, -1.0),
            Num::Complex(1.0, f64::NEG_INFINITY),
            Num::Complex(-0.0, 0.0),
            Num::Complex(0.0, -0.0),
            Num::Complex(1e30, -2.5),
            Num::Complex(-2.5, 0.5),
        ],
    }
}

impl CaseBuilder {
    /// A builder holding `case`'s storages, tensors, keywords, tags and tolerance, to add to
    /// (the call is given again to [`finish`](Self::finish)).
    ///
    /// ```
    /// use bcast_conformance::case::Arg;
    /// use bcast_fuzzing::generators::CaseBuilder;
    /// use bcast_engine::DType;
    /// let mut u = arbitrary::Unstructured::new(&[1, 2, 3, 4, 5, 6, 7, 8]);
    /// let mut b = CaseBuilder::default();
    /// let x = b.view(&mut u, DType::Float32, &[2], false).unwrap();
    /// let case = b.finish("torch.neg", vec![Arg::Tensor(x)]);
    /// let again = CaseBuilder::of(&case).finish("torch.neg", case.call.args.clone());
    /// assert_eq!(again, case);
    /// ```
    pub fn of(case: &Case) -> CaseBuilder {
        CaseBuilder {
            storages: case.storages.clone(),
            tensors: case.tensors.clone(),
            kwargs: case.call.kwargs.clone(),
            tags: case.tags.clone(),
            tolerance: case.tolerance,
        }
    }

    /// Adds a storage of `len` elements: usually a random fill, sometimes literal edge values.
    pub fn storage(&mut self, u: &mut Unstructured, dtype: DType, len: usize) -> GenResult<String> {
        if len > 0 && u.ratio(1, 8)? {
            let edges = edge_values(dtype);
            let values = (0..len)
                .map(|_| u.choose(&edges).copied())
                .collect::<GenResult<Vec<Num>>>()?;
            return Ok(self.literal_storage(dtype, values));
        }
        self.random_fill_storage(u, dtype, len)
    }

    /// Adds a storage of literal `values` (tagged `edge-values`).
    ///
    /// ```
    /// use bcast_conformance::case::Num;
    /// use bcast_fuzzing::generators::CaseBuilder;
    /// use bcast_engine::DType;
    /// let mut b = CaseBuilder::default();
    /// let s = b.literal_storage(DType::Int64, vec![Num::Int(i64::MAX), Num::Int(-1)]);
    /// assert_eq!(b.storage_spec(&s).and_then(|s| s.values.as_ref()).map(Vec::len), Some(2));
    /// ```
    pub fn literal_storage(&mut self, dtype: DType, values: Vec<Num>) -> String {
        let name = format!("s{}", self.storages.len());
        self.tag("edge-values");
        let spec = StorageSpec {
            dtype: dtype.name().into(),
            values: Some(values),
            fill: None,
        };
        self.storages.insert(name.clone(), spec);
        name
    }

    /// Gives `storage` literal values drawn from three values of its dtype (for the floating
    /// dtypes sometimes a NaN too), so that elements tie (tagged `ties`): `maximum`, `amax`,
    /// `max(dim)` and `clamp` split or route their gradients by ties, and a selecting
    /// reduction picks the first index of equal elements.
    ///
    /// ```
    /// use bcast_conformance::case::Num;
    /// use bcast_fuzzing::generators::CaseBuilder;
    /// use bcast_engine::DType;
    /// let mut u = arbitrary::Unstructured::new(&[7; 64]);
    /// let mut b = CaseBuilder::default();
    /// let s = b.random_fill_storage(&mut u, DType::Float32, 6).unwrap();
    /// b.tie_values(&mut u, &s).unwrap();
    /// let values = b.storage_spec(&s).and_then(|s| s.values.clone()).unwrap();
    /// assert_eq!(values.len(), 6);
    /// ```
    pub fn tie_values(&mut self, u: &mut Unstructured, storage: &str) -> GenResult<()> {
        let Some(spec) = self.storages.get(storage) else {
            return Ok(());
        };
        let Some(dtype) = DType::from_name(&spec.dtype) else {
            return Ok(());
        };
        let len = match (&spec.values, &spec.fill) {
            (Some(v), _) => v.len(),
            (None, Some(f)) => f.len,
            (None, None) => 0,
        };
        let mut few = match dtype {
            DType::Bool => vec![Num::Bool(false), Num::Bool(true)],
            DType::UInt8 => vec![Num::Int(0), Num::Int(1), Num::Int(2)],
            d if d.is_complex() => vec![
                Num::Complex(1.0, 0.0),
                Num::Complex(0.0, 1.0),
                Num::Complex(-1.0, 0.5),
            ],
            d if d.is_floating() => vec![Num::Float(0.0), Num::Float(1.0), Num::Float(-0.5)],
            _ => vec![Num::Int(0), Num::Int(1), Num::Int(-1)],
        };
        if dtype.is_floating() && u.ratio(1, 6)? {
            few.push(Num::Float(f64::NAN));
        }
        let values = (0..len)
            .map(|_| u.choose(&few).copied())
            .collect::<GenResult<Vec<Num>>>()?;
        if let Some(spec) = self.storages.get_mut(storage) {
            spec.values = Some(values);
            spec.fill = None;
        }
        self.tag("ties");
        Ok(())
    }

    /// Adds a storage of `len` elements filled from a random seed (never literal values, so a
    /// large storage stays small on disk).
    pub fn random_fill_storage(
        &mut self,
        u: &mut Unstructured,
        dtype: DType,
        len: usize,
    ) -> GenResult<String> {
        let name = format!("s{}", self.storages.len());
        let spec = StorageSpec {
            dtype: dtype.name().into(),
            values: None,
            fill: Some(Fill {
                kind: FillKind::Random,
                len,
                seed: u.arbitrary::<u32>()? as u64,
            }),
        };
        self.storages.insert(name.clone(), spec);
        Ok(name)
    }

    /// Adds a named view of an existing storage.
    pub fn tensor(&mut self, storage: &str, shape: &[usize], spec: &ViewSpec) -> String {
        let name = format!("t{}", self.tensors.len());
        self.tensors.insert(
            name.clone(),
            TensorSpec {
                storage: storage.to_string(),
                shape: shape.to_vec(),
                strides: spec.strides.clone(),
                offset: spec.offset,
            },
        );
        name
    }

    /// Adds a new storage and a random view of `shape` over it; returns the tensor's name.
    pub fn view(
        &mut self,
        u: &mut Unstructured,
        dtype: DType,
        shape: &[usize],
        allow_expanded: bool,
    ) -> GenResult<String> {
        let spec = random_view(u, shape, allow_expanded)?;
        let storage = self.storage(u, dtype, spec.storage_len)?;
        for t in spec.kind.tags() {
            self.tag(t);
        }
        if shape.is_empty() {
            self.tag("0-d");
        }
        if shape.contains(&0) {
            self.tag("zero-size");
        }
        Ok(self.tensor(&storage, shape, &spec))
    }

    /// The spec of a storage added before.
    pub fn storage_spec(&self, name: &str) -> Option<&StorageSpec> {
        self.storages.get(name)
    }

    /// Whether some storage added so far has a dtype that satisfies `test`.
    pub fn has_dtype(&self, test: impl Fn(DType) -> bool) -> bool {
        self.dtypes().any(test)
    }

    /// The dtypes of the storages drawn so far, one per storage.
    pub fn dtypes(&self) -> impl Iterator<Item = DType> + '_ {
        self.storages
            .values()
            .filter_map(|s| DType::from_name(&s.dtype))
    }

    /// Rewrites the literal values of `storage` with `f` (a random fill stays as it is).
    pub fn map_values(&mut self, storage: &str, f: impl Fn(Num) -> Num) {
        if let Some(values) = self
            .storages
            .get_mut(storage)
            .and_then(|s| s.values.as_mut())
        {
            for v in values.iter_mut() {
                *v = f(*v);
            }
        }
    }

    /// The largest finite magnitude in the storage under tensor `name` (0 when it has none).
    pub fn largest_finite(&self, name: &str) -> f64 {
        self.tensor_spec(name)
            .and_then(|t| self.storage_spec(&t.storage))
            .and_then(|s| bcast_conformance::case::storage_values(s).ok())
            .unwrap_or_default()
            .into_iter()
            .map(|v| v.to_f64().abs())
            .filter(|v| v.is_finite())
            .fold(0.0, f64::max)
    }

    /// Every tensor added so far, with its name.
    pub fn named_tensor_specs(&self) -> impl Iterator<Item = (&str, &TensorSpec)> {
        self.tensors.iter().map(|(n, t)| (n.as_str(), t))
    }

    /// The spec of a tensor added before.
    pub fn tensor_spec(&self, name: &str) -> Option<&TensorSpec> {
        self.tensors.get(name)
    }

    /// Adds a keyword argument.
    pub fn kwarg(&mut self, name: &str, value: Arg) {
        self.kwargs.insert(name.to_string(), value);
    }

    /// Adds a tag (once).
    pub fn tag(&mut self, tag: &str) {
        if !self.tags.iter().any(|t| t == tag) {
            self.tags.push(tag.to_string());
        }
    }

    /// Sets the value tolerance.
    pub fn tolerance(&mut self, rtol: f64, atol: f64) {
        self.tolerance = Some(Tolerance { rtol, atol });
    }

    /// The finished case (id and source are set by [`generate`](super::generate)).
    pub fn finish(self, fn_name: &str, args: Vec<Arg>) -> Case {
        Case {
            id: String::new(),
            source: Source::default(),
            tags: self.tags,
            storages: self.storages,
            tensors: self.tensors,
            call: Call {
                fn_: fn_name.to_string(),
                args,
                kwargs: self.kwargs,
            },
            expect: None,
            tolerance: self.tolerance,
            doc: None,
            grad: None,
        }
    }
}

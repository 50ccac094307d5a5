//! Setting up one element-wise call the way TensorIterator's `build` does, in its order:
//! overlap checks, the broadcast shape, whether the output is resized, then (the op's part)
//! dtypes, then the output's layout. Each step raises torch's error at the point torch does.

use super::{broadcast_strides, compute_shape, fast_setup, output_alloc, reorder_dims};
use crate::overlap::{assert_no_internal_overlap, assert_no_partial_overlap};
use crate::result_type::{result_type, Participant};
use crate::shape::format_shape;
use crate::{alloc, loops, resize, DType, Dims, Error, Layout, Result, Scalar, Tensor};
use smallvec::SmallVec;

/// What a call asks of the setup (the parts of torch's `TensorIteratorConfig` used here).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct IterConfig {
    /// Refuse an output that overlaps itself or partially overlaps an input.
    pub check_mem_overlap: bool,
    /// Resize an `out=` tensor of another shape (not an in-place target, which is also an
    /// input) instead of failing.
    pub resize_outputs: bool,
}

impl Default for IterConfig {
    fn default() -> IterConfig {
        IterConfig {
            check_mem_overlap: true,
            resize_outputs: true,
        }
    }
}

/// One input: a tensor, or a Python number wrapped as a 0-d tensor (which ranks lowest in
/// [`result_type`]).
#[derive(Debug, Clone)]
pub struct IterInput {
    tensor: Tensor,
    number: Option<Scalar>,
}

/// A tensor input that takes the handle.
impl From<Tensor> for IterInput {
    fn from(tensor: Tensor) -> IterInput {
        IterInput {
            tensor,
            number: None,
        }
    }
}

impl IterInput {
    /// A tensor input.
    pub fn tensor(t: &Tensor) -> IterInput {
        IterInput::from(t.clone())
    }

    /// A Python number, wrapped as torch wraps it: a 0-d `bool`, `int64`, `float64` or
    /// `complex128` tensor.
    pub fn number(value: Scalar) -> IterInput {
        let dtype = match value {
            Scalar::Bool(_) => DType::Bool,
            Scalar::Int(_) => DType::Int64,
            Scalar::Float(_) => DType::Float64,
            Scalar::Complex(..) => DType::Complex128,
        };
        IterInput {
            tensor: Tensor::scalar_tensor(value, dtype),
            number: Some(value),
        }
    }

    /// The tensor (for a number, its 0-d wrapper).
    pub fn as_tensor(&self) -> &Tensor {
        &self.tensor
    }

    /// The Python number, when this input is one.
    pub fn number_value(&self) -> Option<Scalar> {
        self.number
    }

    /// How `result_type` sees this input.
    pub fn participant(&self) -> Participant {
        match self.number {
            Some(v) => Participant::number(v),
            None => Participant::tensor(self.tensor.dtype(), self.tensor.ndim()),
        }
    }
}

/// The output slot: the tensor the caller gave (`out=` or the in-place target), and the
/// temporary the kernel writes when that tensor's dtype is not the compute dtype.
#[derive(Debug, Clone, Default)]
struct Output {
    given: Option<Tensor>,
    temp: Option<Tensor>,
    will_resize: bool,
}

impl Output {
    /// The tensor the kernel writes, if one exists yet.
    fn target(&self) -> Option<&Tensor> {
        self.temp.as_ref().or(self.given.as_ref())
    }
}

/// A call being set up: one output slot, then the inputs.
///
/// ```
/// use bcast_engine::iter::{IterConfig, IterInput, IterSetup};
/// use bcast_engine::{DType, Tensor};
/// let a = Tensor::from_vec(vec![1.0f32, 2.0, 3.0], &[3, 1]).unwrap();
/// let setup = IterSetup::new(IterConfig::default(), None, vec![IterInput::tensor(&a), IterInput::number(2.into())]).unwrap();
/// assert_eq!(setup.shape(), &[3, 1]);
/// assert_eq!(setup.result_type(), DType::Float32);
/// let iter = setup.finish(DType::Float32).unwrap();
/// assert_eq!(iter.output().strides(), &[1, 1]);
/// ```
#[derive(Debug, Clone)]
pub struct IterSetup {
    output: Output,
    inputs: Vec<IterInput>,
    shape: Dims,
    same_shape: bool,
}

impl IterSetup {
    /// Checks overlaps, computes the broadcast shape and decides whether `out` is resized.
    ///
    /// # Errors
    /// In torch's order: internal overlap of `out`, partial overlap of an input with `out`,
    /// shapes that do not broadcast, and an `out` (or in-place target) of the wrong shape.
    pub fn new(config: IterConfig, out: Option<&Tensor>, inputs: Vec<IterInput>) -> Result<Self> {
        let read_write = out.is_some_and(|o| inputs.iter().any(|i| i.tensor.is_same(o)));
        if let (true, Some(o)) = (config.check_mem_overlap, out) {
            assert_no_internal_overlap(o)?;
            for input in inputs.iter().filter(|i| !i.tensor.is_same(o)) {
                assert_no_partial_overlap(o, &input.tensor)?;
            }
        }
        let (shape, same_shape) = {
            let mut shapes: SmallVec<[&[usize]; 4]> = SmallVec::new();
            if let (false, Some(o)) = (config.resize_outputs, out) {
                shapes.push(o.shape());
            }
            shapes.extend(inputs.iter().map(|i| i.tensor.shape()));
            compute_shape(&shapes)?
        };
        let mut will_resize = false;
        if let Some(o) = out
            && o.shape() != shape.as_slice()
        {
            if config.resize_outputs && !read_write {
                will_resize = true;
            } else {
                return Err(Error::runtime(format!(
                    "output with shape {} doesn't match the broadcast shape {}",
                    format_shape(o.shape()),
                    format_shape(&shape)
                )));
            }
        }
        Ok(IterSetup {
            output: Output {
                given: out.cloned(),
                temp: None,
                will_resize,
            },
            inputs,
            shape,
            same_shape,
        })
    }

    /// The broadcast shape.
    pub fn shape(&self) -> &[usize] {
        &self.shape
    }

    /// The inputs, in order.
    pub fn inputs(&self) -> &[IterInput] {
        &self.inputs
    }

    /// torch's `result_type` over the inputs.
    pub fn result_type(&self) -> DType {
        let parts: SmallVec<[Participant; 4]> =
            self.inputs.iter().map(IterInput::participant).collect();
        result_type(&parts)
    }

    /// For ops that compute in their inputs' own dtype (`check_all_same_dtype`): the first
    /// input's dtype, when the output and every input have it.
    ///
    /// # Errors
    /// `Found dtype Long but expected Float`, naming the first operand (output first) whose
    /// dtype differs.
    pub fn check_all_same_dtype(&self) -> Result<DType> {
        let common = self
            .inputs
            .first()
            .map(|i| i.tensor.dtype())
            .ok_or_else(|| Error::internal("an iteration needs an input"))?;
        let operands = self
            .output
            .given
            .iter()
            .chain(self.inputs.iter().map(|i| &i.tensor));
        for t in operands {
            if t.dtype() != common {
                return Err(Error::runtime(format!(
                    "Found dtype {} but expected {}",
                    t.dtype().scalar_type_name(),
                    common.scalar_type_name()
                )));
            }
        }
        Ok(common)
    }

    /// torch's `enforce_safe_casting_to_output`: the result may not go down a category.
    ///
    /// # Errors
    /// `result type Float can't be cast to the desired output type Long`.
    pub fn check_safe_cast(&self, common: DType) -> Result<()> {
        if let Some(o) = &self.output.given
            && o.dtype() != common
            && !common.can_cast_to(o.dtype())
        {
            return Err(cast_refused(
                common.scalar_type_name(),
                o.dtype().scalar_type_name(),
            ));
        }
        Ok(())
    }

    /// torch's `cast_common_dtype_to_outputs`: an output of another dtype is computed into a
    /// contiguous temporary of `dtype` (torch's `empty_like` in the contiguous format) and
    /// copied back at the end.
    ///
    /// # Errors
    /// When the temporary cannot be allocated.
    pub fn compute_output_in(&mut self, dtype: DType) -> Result<()> {
        if let Some(o) = &self.output.given
            && o.dtype() != dtype
        {
            self.output.temp = Some(alloc::empty_in_format(
                o.shape(),
                &crate::layout::contiguous_strides(o.shape()),
                dtype,
            )?);
        }
        Ok(())
    }

    /// torch's `promote_inputs_to_common_dtype`: each input of another dtype is replaced by
    /// its conversion ([`Tensor::to_dtype`], which decides its layout), except an input of
    /// the broadcast shape whose layout is dense: the loops convert that one as they load it
    /// (see [`crate::loops`]), and its conversion would have had its strides, so the
    /// output's layout is the same.
    ///
    /// A broadcast input is converted first, once, rather than each time the loop reads its
    /// elements again.
    ///
    /// # Errors
    /// When a conversion cannot be allocated.
    pub fn promote_inputs(&mut self, dtype: DType) -> Result<()> {
        self.convert_inputs(dtype, true)
    }

    /// [`IterSetup::promote_inputs`] converting every input first, for an op whose kernel
    /// picks its loop by its input's dtype.
    ///
    /// # Errors
    /// When a conversion cannot be allocated.
    pub fn promote_inputs_first(&mut self, dtype: DType) -> Result<()> {
        self.convert_inputs(dtype, false)
    }

    fn convert_inputs(&mut self, dtype: DType, on_load: bool) -> Result<()> {
        for input in &mut self.inputs {
            let t = &input.tensor;
            let loads_converted = on_load
                && t.shape() == self.shape.as_slice()
                && t.layout().is_non_overlapping_and_dense();
            if t.dtype() != dtype && !loads_converted {
                input.tensor = t.to_dtype(dtype)?;
            }
        }
        Ok(())
    }

    /// Lays out the output: allocates it (of `new_dtype`) when none was given, resizes a
    /// given one of another shape (and its temporary), with the fast setup's strides or the
    /// dim order's. A new output is allocated as TensorIterator does it ([`OutputAlloc`]):
    /// `empty` for a row-major or channels-last one, `empty_strided` otherwise.
    ///
    /// [`OutputAlloc`]: super::OutputAlloc
    ///
    /// # Errors
    /// A storage size that overflows (torch's message for the allocating call), or memory
    /// that cannot be allocated.
    pub fn finish(self, new_dtype: DType) -> Result<Iter> {
        let IterSetup {
            mut output,
            inputs,
            shape,
            same_shape,
        } = self;
        let needs_layout = output.given.is_none() || output.will_resize;
        if needs_layout {
            let (fast, perm) = {
                let mut layouts: SmallVec<[&Layout; 4]> = SmallVec::new();
                if !output.will_resize {
                    layouts.extend(output.target().map(Tensor::layout));
                }
                layouts.extend(inputs.iter().map(|i| i.tensor.layout()));
                let fast = fast_setup(same_shape, &layouts);
                let perm = match fast {
                    Some(_) => Dims::new(),
                    None => {
                        let strides: SmallVec<[Dims; 4]> = layouts
                            .iter()
                            .map(|l| broadcast_strides(&shape, l))
                            .collect();
                        let views: SmallVec<[&[usize]; 4]> =
                            strides.iter().map(|s| s.as_slice()).collect();
                        reorder_dims(&shape, &views)
                    }
                };
                (fast, perm)
            };
            // torch counts the strides in bytes of the dtype the kernel writes.
            let target_dtype = output.target().map_or(new_dtype, Tensor::dtype);
            let layout = output_alloc(&shape, fast.as_ref(), &perm, target_dtype.itemsize());
            match &output.given {
                None => output.given = Some(layout.allocate(&shape, new_dtype)?),
                Some(given) => {
                    output.given = Some(resize::resize_output(given, &shape, layout.strides())?);
                    if let Some(temp) = &output.temp {
                        output.temp = Some(resize::resize_output(temp, &shape, layout.strides())?);
                    }
                }
            }
        }
        let Output { given, temp, .. } = output;
        let (target, copy_back) = match (given, temp) {
            (Some(given), Some(temp)) => (temp, Some(given)),
            (Some(given), None) => (given, None),
            (None, _) => return Err(Error::internal("no output")),
        };
        Ok(Iter {
            target,
            copy_back,
            inputs,
            shape,
        })
    }
}

/// torch's error for a result dtype the written tensor may not take: `result type Float can't
/// be cast to the desired output type Long` (some ops name the output's C++ type: `int`).
pub(crate) fn cast_refused(result: &str, output: &str) -> Error {
    Error::runtime(format!(
        "result type {result} can't be cast to the desired output type {output}"
    ))
}

/// A call ready to run: the output the kernel writes, and the inputs, all of the broadcast
/// shape or broadcastable to it.
#[derive(Debug, Clone)]
pub struct Iter {
    target: Tensor,
    copy_back: Option<Tensor>,
    inputs: Vec<IterInput>,
    shape: Dims,
}

impl Iter {
    /// The tensor the kernel writes (a temporary when the output's dtype differs).
    pub fn output(&self) -> &Tensor {
        &self.target
    }

    /// The inputs, as the kernel reads them: converted where the op promoted them, except
    /// those the loops convert as they load them ([`IterSetup::promote_inputs`]).
    pub fn inputs(&self) -> &[IterInput] {
        &self.inputs
    }

    /// The broadcast shape.
    pub fn shape(&self) -> &[usize] {
        &self.shape
    }

    /// The number of elements the kernel writes.
    pub fn numel(&self) -> usize {
        self.shape.iter().product()
    }

    /// Copies a temporary back into the given output (torch's `cast_outputs`) and returns
    /// the result: the given output (resized if it was), or the new one.
    ///
    /// # Errors
    /// When the copy fails.
    pub fn into_result(self) -> Result<Tensor> {
        match self.copy_back {
            Some(given) => {
                loops::copy_into(&given, &self.target)?;
                Ok(given)
            }
            None => Ok(self.target),
        }
    }
}

//! Random strided views of a logical shape: contiguous, permuted (transposed), expanded
//! (stride 0), stepped (sliced with a step), offset, and combinations.

use super::GenResult;
use arbitrary::Unstructured;
use bcast_engine::layout::contiguous_strides;

/// Which layout tricks a view uses.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub struct ViewKind {
    pub permuted: bool,
    pub expanded: bool,
    pub stepped: bool,
    pub offset: bool,
}

impl ViewKind {
    /// Tag words for a case's `tags`.
    pub fn tags(&self) -> Vec<&'static str> {
        let mut t = Vec::new();
        if self.permuted {
            t.push("transposed");
        }
        if self.expanded {
            t.push("expanded");
        }
        if self.stepped {
            t.push("stepped");
        }
        if self.offset {
            t.push("offset");
        }
        if t.is_empty() {
            t.push("contiguous");
        }
        t
    }
}

/// A view's strides and offset, and how long its storage must be.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ViewSpec {
    pub strides: Vec<usize>,
    pub offset: usize,
    pub storage_len: usize,
    pub kind: ViewKind,
}

/// A random layout for `shape`. With `allow_expanded` false no stride is 0 across a dim of
/// size above 1 (so the view can be written to).
pub fn random_view(
    u: &mut Unstructured,
    shape: &[usize],
    allow_expanded: bool,
) -> GenResult<ViewSpec> {
    let ndim = shape.len();
    let mut kind = ViewKind::default();
    if ndim >= 2 && u.ratio(1, 3)? {
        kind.permuted = true;
    }
    if ndim >= 1 && u.ratio(1, 4)? {
        kind.stepped = true;
    }
    if allow_expanded && ndim >= 1 && u.ratio(1, 5)? {
        kind.expanded = true;
    }
    if u.ratio(1, 4)? {
        kind.offset = true;
    }
    // Memory order: a permutation of the dims, outermost first.
    let mut order: Vec<usize> = (0..ndim).collect();
    if kind.permuted {
        for i in (1..ndim).rev() {
            let j = u.int_in_range(0..=i)?;
            order.swap(i, j);
        }
    }
    ordered_view(u, shape, &order, kind)
}

/// A layout for `shape` whose dims lie in memory in `order` (outermost first), with the tricks
/// `kind` asks for (its `permuted` flag is only reported): some dims stepped, some zeroed
/// (expanded), an offset, and slack at the end of the storage.
///
/// ```
/// # use bcast_fuzzing::generators::{ordered_view, ViewKind};
/// let mut u = arbitrary::Unstructured::new(&[]);
/// let cl = ordered_view(&mut u, &[2, 3, 4, 5], &[0, 2, 3, 1], ViewKind::default()).unwrap();
/// assert_eq!(cl.strides, vec![60, 1, 15, 3]);
/// ```
pub fn ordered_view(
    u: &mut Unstructured,
    shape: &[usize],
    order: &[usize],
    kind: ViewKind,
) -> GenResult<ViewSpec> {
    let ndim = shape.len();
    let mut steps = vec![1usize; ndim];
    if kind.stepped {
        for s in steps.iter_mut() {
            if u.ratio(1, 2)? {
                *s = u.int_in_range(2..=3)?;
            }
        }
    }
    // Sizes in memory order, with gaps for steps, then strides mapped back to logical dims.
    let mem_shape: Vec<usize> = order.iter().map(|&d| shape[d] * steps[d]).collect();
    let mem_strides = contiguous_strides(&mem_shape);
    let mut strides = vec![0usize; ndim];
    for (k, &d) in order.iter().enumerate() {
        strides[d] = mem_strides[k] * steps[d];
    }
    if kind.expanded {
        for stride in strides.iter_mut() {
            if u.ratio(1, 2)? {
                *stride = 0;
            }
        }
    }
    let offset = if kind.offset {
        u.int_in_range(1..=5)?
    } else {
        0
    };
    let extent = if shape.contains(&0) {
        0
    } else {
        shape
            .iter()
            .zip(&strides)
            .map(|(&s, &st)| (s - 1) * st)
            .sum::<usize>()
            + 1
    };
    let slack = u.int_in_range(0..=2)?;
    Ok(ViewSpec {
        strides,
        offset,
        storage_len: offset + extent + slack,
        kind,
    })
}

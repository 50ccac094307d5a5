//! Parsing an einsum equation the way torch does, byte by byte, with its messages: the input
//! side first (it only needs the operand count), the output side later (it needs the label
//! counts of the inputs).

use crate::{Error, Result};

/// The 52 labels `A..Z`, `a..z`, in that order.
pub(crate) const TOTAL_LABELS: usize = 52;

/// One subscript of an operand: a label (`0..52`) or the ellipsis.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Subscript {
    /// A letter, numbered `A..Z` then `a..z`.
    Label(usize),
    /// `...`.
    Ellipsis,
}

/// The number of a letter: `A..Z` are `0..26`, `a..z` are `26..52`.
fn label_index(c: u8) -> usize {
    if c.is_ascii_uppercase() {
        (c - b'A') as usize
    } else {
        (c - b'a') as usize + 26
    }
}

/// The letter of a label number.
pub fn label_char(label: usize) -> char {
    if label < 26 {
        (b'A' + label as u8) as char
    } else {
        (b'a' + (label - 26) as u8) as char
    }
}

/// Whether `text[i..]` starts the rest of an ellipsis (`i` at its first dot).
fn ellipsis_at(text: &[u8], i: usize) -> bool {
    i + 2 < text.len() && text[i + 1] == b'.' && text[i + 2] == b'.'
}

/// The subscripts of each operand, from the part of the equation before `->`.
///
/// # Errors
/// A stray `.`, a second ellipsis in one operand, a character that is not a letter, or more or
/// fewer operands than `num_ops`.
pub fn parse_inputs(lhs: &str, num_ops: usize) -> Result<Vec<Vec<Subscript>>> {
    let text = lhs.as_bytes();
    let mut ops: Vec<Vec<Subscript>> = vec![Vec::new(); num_ops.max(1)];
    let mut ellipsis_seen = false;
    let mut current = 0usize;
    let mut i = 0usize;
    while i < text.len() {
        match text[i] {
            b' ' => {}
            b'.' => {
                if ellipsis_seen {
                    return Err(Error::runtime(format!(
                        "einsum(): found '.' for operand {current} for which an ellipsis was already found"
                    )));
                }
                if !ellipsis_at(text, i) {
                    return Err(Error::runtime(format!(
                        "einsum(): found '.' for operand {current} that is not part of any ellipsis"
                    )));
                }
                i += 2;
                ops[current].push(Subscript::Ellipsis);
                ellipsis_seen = true;
            }
            b',' => {
                current += 1;
                if current >= num_ops {
                    return Err(Error::runtime(
                        "einsum(): fewer operands were provided than specified in the equation",
                    ));
                }
                ellipsis_seen = false;
            }
            c if c.is_ascii_alphabetic() => ops[current].push(Subscript::Label(label_index(c))),
            _ => return Err(invalid_subscript(i)),
        }
        i += 1;
    }
    if current + 1 != num_ops {
        return Err(Error::runtime(
            "einsum(): more operands were provided than specified in the equation",
        ));
    }
    Ok(ops)
}

/// The subscripts of the output, from the part after `->` (`offset` is its byte position in
/// the equation, for messages). `label_count[l]` is how often label `l` occurs in the inputs.
///
/// # Errors
/// A stray `.`, a second ellipsis, a character that is not a letter, a label no input has, or
/// a label given twice.
pub fn parse_output(rhs: &str, offset: usize, label_count: &[usize]) -> Result<Vec<Subscript>> {
    let text = rhs.as_bytes();
    let mut out = Vec::new();
    let mut seen = [false; TOTAL_LABELS];
    let mut ellipsis_seen = false;
    let mut i = 0usize;
    while i < text.len() {
        match text[i] {
            b' ' => {}
            b'.' => {
                if ellipsis_seen {
                    return Err(Error::runtime(
                        "einsum(): found '.' for output but an ellipsis (...) was already found",
                    ));
                }
                if !ellipsis_at(text, i) {
                    return Err(Error::runtime(
                        "einsum(): found '.' for output that is not part of any ellipsis (...)",
                    ));
                }
                i += 2;
                out.push(Subscript::Ellipsis);
                ellipsis_seen = true;
            }
            c if c.is_ascii_alphabetic() => {
                let label = label_index(c);
                if label_count[label] == 0 || seen[label] {
                    let why = if seen[label] {
                        "appears more than once in the output"
                    } else {
                        "does not appear in the equation for any input operand"
                    };
                    return Err(Error::runtime(format!(
                        "einsum(): output subscript {} {why}",
                        c as char
                    )));
                }
                seen[label] = true;
                out.push(Subscript::Label(label));
            }
            _ => return Err(invalid_subscript(offset + i)),
        }
        i += 1;
    }
    Ok(out)
}

/// torch's error for a character that is not a subscript, at `index` in the equation.
fn invalid_subscript(index: usize) -> Error {
    Error::runtime(format!(
        "einsum(): invalid subscript given at index {index} in the equation string, subscripts must be in [a-zA-Z]"
    ))
}

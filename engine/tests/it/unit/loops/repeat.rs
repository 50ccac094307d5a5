//! When the walk of short inner dims beside a repeating input applies ([`applies`]), and its
//! rows' length ([`gcd`]).

use bcast_engine::__internals::loops::repeat::{applies, gcd};
use bcast_engine::iter::Plan;
use bcast_engine::Layout;

fn plan(out: &[usize], inputs: &[Layout]) -> Plan {
    let out = Layout::contiguous(out);
    let mut layouts = vec![&out];
    layouts.extend(inputs);
    Plan::new(out.shape(), &layouts)
}

#[test]
fn takes_short_inner_dims_with_a_repeating_input() {
    let rows = Layout::contiguous(&[5000, 3]);
    let bias = Layout::contiguous(&[3]);
    assert!(applies(&plan(&[5000, 3], &[rows, bias.clone()])));
    // PyTorch issue 57611: (1,32,32,2) - (1024,1,1,2).
    let a = Layout::contiguous(&[1, 32, 32, 2]);
    let b = Layout::contiguous(&[1024, 1, 1, 2]);
    assert!(applies(&plan(&[1024, 32, 32, 2], &[a, b])));
    // A long inner dim, or no repeating input, keeps the plain walk.
    let wide = Layout::contiguous(&[64, 1024]);
    assert!(!applies(&plan(
        &[64, 1024],
        &[wide, Layout::contiguous(&[1024])]
    )));
    let flat = Layout::contiguous(&[5000, 3]);
    assert!(!applies(&plan(&[5000, 3], &[flat.clone(), flat])));
    // A tiny loop.
    let tiny = Layout::contiguous(&[2, 3]);
    assert!(!applies(&plan(&[2, 3], &[tiny, bias])));
}

#[test]
fn rows_are_whole_cache_lines() {
    assert_eq!(gcd(64, 12), 4);
    assert_eq!(gcd(64, 31), 1);
    assert_eq!(gcd(7, 0), 7);
}

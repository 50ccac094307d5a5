//! The iteration plan ([`Plan`]): which outputs are injective, how the benchmark's patterns
//! order and coalesce, its blocks and slices.

use bcast_engine::iter::Plan;
use bcast_engine::Layout;

#[test]
fn injective_outputs() {
    let plan = |l: Layout| Plan::new(l.shape(), &[&l]);
    assert!(plan(Layout::contiguous(&[3, 4])).is_injective(0));
    assert!(plan(Layout::new(vec![3, 4], vec![1, 3], 0).unwrap()).is_injective(0));
    assert!(plan(Layout::new(vec![3, 4], vec![10, 2], 0).unwrap()).is_injective(0));
    assert!(!plan(Layout::new(vec![3, 4], vec![0, 1], 0).unwrap()).is_injective(0));
    assert!(!plan(Layout::new(vec![3, 4], vec![2, 1], 0).unwrap()).is_injective(0));
    assert!(plan(Layout::new(vec![1, 4], vec![0, 1], 0).unwrap()).is_injective(0));
}

/// The benchmark's patterns (`bcast-dev bench`), ordered and coalesced as TensorIterator
/// does: one long inner dim where the operands allow it.
#[test]
fn benchmark_patterns_coalesce() {
    let plan = |out: &[usize], ins: &[Layout]| {
        let o = Layout::contiguous(out);
        let mut all = vec![&o];
        all.extend(ins);
        Plan::new(out, &all)
    };
    let c = Layout::contiguous;
    let same = plan(&[1 << 24], &[c(&[1 << 24]), c(&[1 << 24])]);
    assert_eq!((same.shape(), same.strides(2)), (&[1 << 24][..], &[1][..]));
    let bias = plan(&[16384, 1024], &[c(&[16384, 1024]), c(&[1024])]);
    assert_eq!(
        (bias.shape(), bias.strides(2)),
        (&[1024, 16384][..], &[1, 0][..])
    );
    let channel = plan(&[32, 64, 64, 128], &[c(&[32, 64, 64, 128]), c(&[64, 1, 1])]);
    assert_eq!(channel.shape(), &[64 * 128, 64, 32]);
    assert_eq!(channel.strides(2), &[0, 1, 0]);
    let outer = plan(&[4096, 4096], &[c(&[4096, 1]), c(&[1, 4096])]);
    assert_eq!(
        (outer.strides(1), outer.strides(2)),
        (&[0, 1][..], &[1, 0][..])
    );
    let small = plan(&[5_000_000, 3], &[c(&[5_000_000, 3]), c(&[3])]);
    assert_eq!(small.shape(), &[3, 5_000_000]);
    let t = Layout::new(vec![4096, 4096], vec![1, 4096], 0).unwrap();
    let transposed = plan(&[4096, 4096], &[t, c(&[4096, 4096])]);
    // The out= form: the output row-major, the transposed input far along the inner dim.
    assert_eq!(transposed.strides(1), &[4096, 1]);
}

#[test]
fn blocks_visit_every_element() {
    let out = Layout::contiguous(&[2, 3]);
    let row = Layout::contiguous(&[3]);
    let plan = Plan::new(&[2, 3], &[&out, &row]);
    let mut visited = 0;
    plan.for_each_block(|b| visited += b.len * b.rows);
    assert_eq!(visited, 6);
}

#[test]
fn slices_cover_their_part() {
    let c = Layout::contiguous(&[6, 5]);
    let row = Layout::new(vec![5], vec![1], 7).unwrap();
    let plan = Plan::new(&[6, 5], &[&c, &row]);
    assert_eq!(plan.shape(), &[5, 6]);
    let part = plan.slice(1, 2, 3);
    assert_eq!(part.shape(), &[5, 3]);
    assert_eq!(part.offsets(), &[10, 7]);
}

/// The short path for operands all contiguous over the whole shape gives the general path's
/// plan: 0-d, size-1 dims anywhere, long and short shapes, storage offsets, two to four
/// operands; and it leaves the others (a broadcast operand, a transposed one, one element,
/// none) to the general path.
#[test]
fn contiguous_operands_plan_as_the_general_path_does() {
    let shapes: [&[usize]; 9] = [
        &[],
        &[4],
        &[2, 3],
        &[1, 5],
        &[5, 1],
        &[3, 1, 4, 1],
        &[2, 3, 4, 5, 6, 7, 2],
        &[1],
        &[3, 0],
    ];
    for shape in shapes {
        for n in 2..=4 {
            let layouts: Vec<Layout> = (0..n)
                .map(|k| {
                    Layout::new(
                        shape.to_vec(),
                        Layout::contiguous(shape).strides().to_vec(),
                        3 * k,
                    )
                    .unwrap()
                })
                .collect();
            let refs: Vec<&Layout> = layouts.iter().collect();
            assert_eq!(
                Plan::new(shape, &refs),
                Plan::general(shape, &refs),
                "{shape:?}, {n} operands"
            );
        }
    }
    let c = Layout::contiguous;
    let t = Layout::new(vec![3, 4], vec![1, 3], 0).unwrap();
    for (shape, others) in [(&[2, 3][..], c(&[3])), (&[3, 4][..], t)] {
        let out = c(shape);
        assert_eq!(
            Plan::new(shape, &[&out, &others]),
            Plan::general(shape, &[&out, &others])
        );
    }
}

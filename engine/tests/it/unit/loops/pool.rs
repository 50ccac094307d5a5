//! The helper threads' pool ([`run_pieces`]): every piece once, each thread's own run of
//! pieces first, concurrent callers, and a panic raised in its own caller only.

use bcast_engine::__internals::loops::pool::run_pieces;
use std::panic::catch_unwind;
use std::sync::atomic::{AtomicUsize, Ordering};

#[test]
fn every_piece_runs_once() {
    for helpers in [0, 1, 3] {
        let counts: Vec<AtomicUsize> = (0..100).map(|_| AtomicUsize::new(0)).collect();
        run_pieces(100, helpers, &|p| {
            counts[p].fetch_add(1, Ordering::Relaxed);
        });
        assert!(counts.iter().all(|c| c.load(Ordering::Relaxed) == 1));
    }
}

/// Each thread takes its own run from the front, in order, then pieces from the back of the
/// other's run: the caller's run is the first half, the helper's the second, however the two
/// threads interleave (a late helper leaves the caller all of it). A caller that finds the
/// pool busy (another test's loop) runs every piece itself, in order.
#[test]
fn each_thread_takes_its_own_run_first() {
    use std::sync::Mutex;
    let caller = std::thread::current().id();
    for _ in 0..200 {
        let taken: Mutex<Vec<(bool, usize)>> = Mutex::new(Vec::new());
        run_pieces(8, 1, &|p| {
            let mine = std::thread::current().id() == caller;
            taken.lock().unwrap().push((mine, p));
        });
        let taken = taken.into_inner().unwrap();
        if taken == (0..8).map(|p| (true, p)).collect::<Vec<_>>() {
            continue; // the pool was busy: no job was posted
        }
        for (me, home, other) in [(true, 0..4, 4..8), (false, 4..8, 0..4)] {
            let order: Vec<usize> = taken.iter().filter(|t| t.0 == me).map(|t| t.1).collect();
            let own = order.iter().take_while(|&&p| home.contains(&p)).count();
            let want_own: Vec<usize> = home.clone().take(own).collect();
            assert_eq!(order[..own], want_own[..], "caller {me}: {order:?}");
            let want_stolen: Vec<usize> = other.clone().rev().take(order.len() - own).collect();
            assert_eq!(order[own..], want_stolen[..], "caller {me}: {order:?}");
        }
        assert_eq!(taken.len(), 8);
    }
}

#[test]
fn concurrent_callers_each_finish() {
    std::thread::scope(|s| {
        for _ in 0..4 {
            s.spawn(|| {
                for _ in 0..50 {
                    let sum = AtomicUsize::new(0);
                    run_pieces(40, 2, &|p| {
                        sum.fetch_add(p, Ordering::Relaxed);
                    });
                    assert_eq!(sum.load(Ordering::Relaxed), 40 * 39 / 2);
                }
            });
        }
    });
}

/// A panic of one caller's piece is raised in that caller only, however callers overlap.
#[test]
fn a_panic_reaches_its_own_caller_only() {
    std::thread::scope(|s| {
        s.spawn(|| {
            for _ in 0..100 {
                let r = catch_unwind(|| {
                    run_pieces(8, 2, &|p| {
                        // Pieces that take a while, so that helpers take some and piece 5
                        // often runs on after its caller is done with the others (the
                        // verdict holds whichever thread runs what, and when).
                        let spins = if p == 5 { 300_000 } else { 100_000 };
                        for _ in 0..spins {
                            std::hint::spin_loop();
                        }
                        assert!(p != 5, "piece 5");
                    })
                });
                assert!(r.is_err());
            }
        });
        for _ in 0..2 {
            s.spawn(|| {
                for _ in 0..400 {
                    let sum = AtomicUsize::new(0);
                    run_pieces(8, 2, &|p| {
                        sum.fetch_add(p, Ordering::Relaxed);
                    });
                    assert_eq!(sum.load(Ordering::Relaxed), 28);
                }
            });
        }
    });
}

#[test]
fn a_panicking_piece_reaches_the_caller_and_the_pool_goes_on() {
    let result = catch_unwind(|| run_pieces(64, 2, &|p| assert!(p != 37, "piece 37")));
    assert!(result.is_err());
    let n = AtomicUsize::new(0);
    run_pieces(64, 2, &|_| {
        n.fetch_add(1, Ordering::Relaxed);
    });
    assert_eq!(n.load(Ordering::Relaxed), 64);
}

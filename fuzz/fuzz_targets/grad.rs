#![no_main]
//! Fuzz target: `bcast_fuzzing::oracles::grad` (finite differences of the engine's backward,
//! and the broadcast law of gradients).

use libfuzzer_sys::fuzz_target;

fuzz_target!(|data: &[u8]| {
    bcast_engine::storage::set_allocation_limit(1 << 22);
    bcast_fuzzing::oracles::grad(data);
});

#![no_main]
//! Fuzz target (feature `torch`): `bcast_fuzzing::oracles::differential::check`.

use libfuzzer_sys::fuzz_target;

fuzz_target!(|data: &[u8]| {
    bcast_engine::storage::set_allocation_limit(1 << 22);
    bcast_fuzzing::oracles::differential::check(data);
});

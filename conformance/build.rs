//! With the `torch` feature: compiles the small C++ shim of the tch backend
//! (`src/backend/tch/shim.cpp`) against the libtorch that tch links, and gives every binary of
//! this crate an rpath to that libtorch so it runs without `LD_LIBRARY_PATH`.
//!
//! The libtorch directory is `BCAST_TORCH_LIB` when set, else the one torch-sys found (from
//! `LIBTORCH` or from the python on `PATH` with `LIBTORCH_USE_PYTORCH=1`).

fn main() {
    println!("cargo:rerun-if-changed=build.rs");
    #[cfg(feature = "torch")]
    torch::build();
}

#[cfg(feature = "torch")]
mod torch {
    use std::env;
    use std::path::PathBuf;

    const SHIM: &str = "src/backend/tch/shim.cpp";

    pub fn build() {
        println!("cargo:rerun-if-env-changed=BCAST_TORCH_LIB");
        println!("cargo:rerun-if-changed={SHIM}");
        let lib = env::var_os("BCAST_TORCH_LIB")
            .or_else(|| env::var_os("DEP_TCH_LIBTORCH_LIB"))
            .map(PathBuf::from)
            .expect("torch-sys reported no libtorch directory; set BCAST_TORCH_LIB");
        let root = lib
            .parent()
            .expect("the libtorch lib directory has a parent");
        let include = root.join("include");
        cc::Build::new()
            .cpp(true)
            .file(SHIM)
            .include(&include)
            .include(include.join("torch/csrc/api/include"))
            .flag("-std=c++17")
            .define("_GLIBCXX_USE_CXX11_ABI", "1")
            .define("AT_PER_OPERATOR_HEADERS", None)
            .warnings(false)
            .compile("bcast_tch_shim");
        // The shim replaces `__cxa_throw` for libtorch (to learn each exception's class), so
        // the executable must export it.
        println!("cargo:rustc-link-arg=-Wl,--export-dynamic-symbol=__cxa_throw");
        println!("cargo:rustc-link-arg=-Wl,-rpath,{}", lib.display());
    }
}

//! With the `torch` feature, links the fuzz binaries as `conformance/build.rs` links that
//! crate's own binaries (a build script's link arguments reach only its own crate): an rpath
//! to libtorch, and `__cxa_throw` exported so the tch backend's shim sees libtorch's
//! exceptions. The directory is `BCAST_TORCH_LIB` when set, else the one torch-sys found.

fn main() {
    println!("cargo:rerun-if-changed=build.rs");
    println!("cargo:rerun-if-env-changed=BCAST_TORCH_LIB");
    if std::env::var_os("CARGO_FEATURE_TORCH").is_none() {
        return;
    }
    let lib = std::env::var_os("BCAST_TORCH_LIB")
        .or_else(|| std::env::var_os("DEP_TCH_LIBTORCH_LIB"))
        .expect("torch-sys reported no libtorch directory; set BCAST_TORCH_LIB");
    println!("cargo:rustc-link-arg=-Wl,--export-dynamic-symbol=__cxa_throw");
    println!(
        "cargo:rustc-link-arg=-Wl,-rpath,{}",
        std::path::Path::new(&lib).display()
    );
}

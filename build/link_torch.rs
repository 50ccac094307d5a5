//! The build script of every crate whose binaries or tests may link libtorch (`cli`,
//! `fuzzing`, `tooling`, `fuzz`; `conformance/build.rs` does the same for its own): with the
//! `torch` feature, an rpath to libtorch, and `__cxa_throw` exported so the tch backend's shim
//! sees libtorch's exceptions. A build script's link arguments reach only its own crate, hence
//! one shared file. The directory is `BCAST_TORCH_LIB` when set, else the one torch-sys found
//! (each such crate lists `torch-sys` as an optional dependency for its `links` metadata).
//!
//! The crates that are packaged (`cli`, `fuzzing`) reach it as `build.rs`, a symbolic link to
//! this file (`cargo package` refuses a build script outside the package and copies the file a
//! link points to); `tooling` and `fuzz` name it with `build = "../build/link_torch.rs"`.

fn main() {
    // Relative to the package (every user is one directory below the root). Naming `build.rs`,
    // which tooling and fuzz lack, made cargo rerun this script, and rebuild its crate, every
    // time. (A packaged crate has no ../build: there it reruns on each build of that crate.)
    println!("cargo:rerun-if-changed=../build/link_torch.rs");
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

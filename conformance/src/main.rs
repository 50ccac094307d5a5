fn main() -> std::process::ExitCode {
    bcast_conformance::cli::main()
}

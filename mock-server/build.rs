//! Links the `mock-server` executable position-dependent on Linux.
//!
//! A position-independent executable has its ~24,000 relative relocations applied at every
//! exec, each one a write to a page that the kernel must copy first: about 100 page faults and
//! 1-2 ms of a start that is otherwise ~6 ms (measured on a 2-vCPU VM). The mock is started
//! once per test run, often many times in CI, and "ready" is one of its benchmark figures
//! (bench/README.md). The cost is address-space layout randomization of the executable's own
//! code, which a local mock does not need; the library and the test binaries are unchanged.
fn main() {
    println!("cargo:rerun-if-changed=build.rs");
    if std::env::var("CARGO_CFG_TARGET_OS").as_deref() == Ok("linux") {
        println!("cargo:rustc-link-arg-bin=mock-server=-no-pie");
    }
}

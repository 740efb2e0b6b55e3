//! The `warden` binary: a thin dispatcher over `cli`.
//!
//! `#![no_main]`: Hermes starts the binary for every tool call, so start-up is on the hot
//! path. Rust's usual entry (`lang_start`) locates the main thread's stack guard by reading
//! `/proc/self/maps`, installs a stack-overflow handler on an alternate signal stack and
//! names the thread: about a dozen system calls and ~80,000 instructions, 9% of a hook call
//! (`benches/hook_startup.sh`: 1.54× → 1.43× `true`, side by side). The C `main` below keeps
//! what matters of it: SIGPIPE ignored (a write to a closed pipe or socket is an error, not
//! a silent death, which `warden serve` relies on) and stdout flushed by `process::exit`.
//! Arguments are still read through `std::env::args` (glibc hands them to std before
//! `main`). A stack overflow ends the process with SIGSEGV instead of std's message; the
//! parser and checker bound nesting depth, so none is expected.
// the unit tests of `cli` keep the test harness's own entry
#![cfg_attr(not(test), no_main)]

mod arena;
mod cli;

/// The system allocator, with a bump arena for the short-lived `warden hook` process.
#[global_allocator]
static ALLOC: arena::HookArena = arena::HookArena::new();

/// The process entry point (see the module comment for why it is not Rust's `fn main`).
#[cfg(not(test))]
#[no_mangle]
extern "C" fn main(
    _argc: std::ffi::c_int,
    _argv: *const *const std::ffi::c_char,
) -> std::ffi::c_int {
    #[cfg(unix)]
    // SAFETY: called first, before any other thread exists; SIG_IGN is a valid disposition.
    unsafe {
        libc::signal(libc::SIGPIPE, libc::SIG_IGN);
    }
    std::process::exit(cli::run());
}

/// Under `cargo test` the harness provides the entry; this keeps `cli` reachable there too.
#[cfg(test)]
fn main() {
    std::process::exit(cli::run());
}

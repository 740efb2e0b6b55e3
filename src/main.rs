//! The `warden` binary: a thin dispatcher over `cli`.

mod arena;
mod cli;

/// The system allocator, with a bump arena for the short-lived `warden hook` process.
#[global_allocator]
static ALLOC: arena::HookArena = arena::HookArena::new();

fn main() {
    std::process::exit(cli::run());
}

//! The `warden` binary: a thin dispatcher over `cli`.

mod cli;

fn main() {
    std::process::exit(cli::run());
}

//! `warden hook`: the Hermes shell hook (placeholder until its own issue).

#[derive(clap::Args)]
pub(crate) struct Args {}

pub(crate) fn run(_a: Args) -> i32 {
    2
}

//! `warden eval --policy PATH --event FILE|-`: print the verdict as JSON.
//! The decision is `warden::runtime::decide` over the whole policy, as
//! `warden serve` makes it.

use super::{PolicyArgs, EXIT_OK, EXIT_POLICY, EXIT_USAGE};
use std::path::PathBuf;
use warden::host::HostSpec;
use warden::runtime::{self, Failure, Loaded, Options, Payload, PolicyRef};
use warden::CompileOptions;

#[derive(clap::Args)]
pub(crate) struct Args {
    #[command(flatten)]
    policy: PolicyArgs,
    /// The event: a Hermes hook payload as a JSON file, or `-` for stdin.
    #[arg(long, value_name = "FILE|-")]
    event: PathBuf,
}

pub(crate) fn run(a: Args) -> i32 {
    let bytes = match super::input::read_bytes(&a.event) {
        Ok(b) => b,
        Err(e) => {
            eprintln!("error: {e}");
            return EXIT_USAGE;
        }
    };
    let loaded = match Loaded::load(&a.policy.source(), &CompileOptions::from_env()) {
        Ok(l) => l,
        Err(e) => {
            eprintln!("error: {e}\n(run `warden check` for every finding with source context)");
            return EXIT_POLICY;
        }
    };
    let opts = Options {
        host: HostSpec::hermes_unknown(),
        fail_open: false,
    };
    let d = runtime::decide(Payload::Bytes(&bytes), PolicyRef::Loaded(&loaded), &opts);
    match d.verdict {
        Ok(verdict) => {
            outln!(
                "{}",
                serde_json::to_string_pretty(&verdict).unwrap_or_default()
            );
            EXIT_OK
        }
        Err(Failure::Payload(e)) => {
            eprintln!("error: {}: {e}", a.event.display());
            EXIT_USAGE
        }
        Err(e) => {
            eprintln!("error: {}", e.cause());
            EXIT_POLICY
        }
    }
}

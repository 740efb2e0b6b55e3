//! `warden eval --policy PATH --event FILE|-`: print the verdict as JSON.

use super::{PolicyArgs, EXIT_OK, EXIT_POLICY, EXIT_USAGE};
use std::io::Read;
use std::path::PathBuf;

#[derive(clap::Args)]
pub(crate) struct Args {
    #[command(flatten)]
    policy: PolicyArgs,
    /// The event: a Hermes hook payload as a JSON file, or `-` for stdin.
    #[arg(long, value_name = "FILE|-")]
    event: PathBuf,
}

pub(crate) fn run(a: Args) -> i32 {
    let text = if a.event.as_os_str() == "-" {
        let mut s = String::new();
        if let Err(e) = std::io::stdin().read_to_string(&mut s) {
            eprintln!("error: cannot read stdin: {e}");
            return EXIT_USAGE;
        }
        s
    } else {
        match std::fs::read_to_string(&a.event) {
            Ok(s) => s,
            Err(e) => {
                eprintln!("error: cannot read {}: {e}", a.event.display());
                return EXIT_USAGE;
            }
        }
    };
    let event = match serde_json::from_str(&text)
        .map_err(warden::host::hermes::PayloadError::from)
        .and_then(|v| warden::host::hermes::parse_event(&v))
    {
        Ok(ev) => ev,
        Err(e) => {
            eprintln!("error: {}: {e}", a.event.display());
            return EXIT_USAGE;
        }
    };
    let policy = match a.policy.load() {
        Ok(p) => p,
        Err(e) => {
            eprintln!("error: {e}\n(run `warden check` for every finding with source context)");
            return EXIT_POLICY;
        }
    };
    let set = match policy.compile() {
        Ok(s) => s,
        Err(e) => {
            eprintln!("error: {e}");
            return EXIT_POLICY;
        }
    };
    let verdict = set.evaluate(&event);
    println!(
        "{}",
        serde_json::to_string_pretty(&verdict).unwrap_or_default()
    );
    EXIT_OK
}

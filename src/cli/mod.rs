//! The command line: one module per verb; this file holds the clap
//! definitions and the dispatcher.

/// `print!` to stdout that never panics: a closed pipe (`warden fmt … | head`) ends the
/// output quietly (see [`emit`]).
macro_rules! out {
    ($($t:tt)*) => { $crate::cli::emit(&format!($($t)*)) };
}

/// `println!` to stdout that never panics (see [`out!`]).
macro_rules! outln {
    ($($t:tt)*) => { $crate::cli::emit(&(format!($($t)*) + "\n")) };
}

mod check;
mod deadline;
mod diff;
mod doctor;
mod eval;
mod explain;
mod fmt;
mod hook;
mod input;
mod install;
mod redact;
pub(crate) mod render;
mod sarif;
mod serve;
mod test;

use clap::{Parser, Subcommand};
use std::path::PathBuf;

/// Write to stdout, ignoring a closed pipe: SIGPIPE is ignored (see `main.rs`), so a write
/// after the reader left is an error, which `print!` would turn into a panic.
pub(crate) fn emit(s: &str) {
    use std::io::Write;
    let mut out = std::io::stdout().lock();
    let _ = out.write_all(s.as_bytes()).and_then(|()| out.flush());
}

/// Exit code: success.
pub const EXIT_OK: i32 = 0;
/// Exit code: the policy has errors (or a test failed).
pub const EXIT_POLICY: i32 = 1;
/// Exit code: usage or I/O error.
pub const EXIT_USAGE: i32 = 2;

#[derive(Parser)]
#[command(
    name = "warden",
    version,
    about = "A policy-as-data rules engine for AI-agent hooks",
    long_about = "warden checks every agent event against declarative policies: it blocks, sends to a human, \
rewrites tool calls, and redacts secrets from what the model reads.\n\n\
Policies are `.warden` files (or their `.warden.yaml` / `.warden.json` form). Without --policy, \
commands use $WARDEN_POLICY (paths separated by `:`), else the packs shipped inside the binary; \
`check` and `test` without a PATH check the shipped packs.",
    after_help = "Examples:\n  warden check policies/\n  warden test policies/ --coverage\n  warden explain --policy policies/ --tool terminal --args '{\"command\":\"rm -rf /\"}'\n  warden eval --policy policies/ --event examples/rm-rf.json\n  echo '{...}' | warden hook --policy ~/.hermes/policies"
)]
struct Cli {
    #[command(subcommand)]
    command: Command,
}

#[derive(Subcommand)]
enum Command {
    /// Check policy files for errors and lint warnings (exit 0 clean, 1 errors, 2 usage/IO error).
    #[command(after_help = check::AFTER_HELP)]
    Check(check::Args),
    /// Evaluate one event against a policy and print the verdict as JSON.
    #[command(
        after_help = "Examples:\n  warden eval --policy policies/ --event examples/rm-rf.json\n  echo '{\"hook_event_name\":\"pre_tool_call\",\"tool_name\":\"terminal\",\"tool_input\":{\"command\":\"rm -rf /\"}}' | warden eval --event -"
    )]
    Eval(eval::Args),
    /// Run as a Hermes shell hook: one event on stdin, one JSON answer on stdout.
    #[command(after_help = hook::AFTER_HELP)]
    Hook(hook::Args),
    /// Redact secrets and personal data: stdin → stdout, a pipe filter for tool results and logs.
    #[command(
        after_help = "Examples:\n  cat build.log | warden redact > build.redacted.log\n  warden redact --event transform-terminal-output --report findings.json < out.txt\n  echo '{\"token\":\"ghp_...\"}' | warden redact --format json\n\nText is streamed in 64 KiB chunks with an overlap, so memory stays bounded on any input size\nand a secret that straddles a chunk boundary is still caught. JSON input is redacted inside\nstring values and stays valid JSON."
    )]
    Redact(redact::Args),
    /// Format policy files canonically, or convert them to YAML/JSON and back.
    #[command(after_help = fmt::AFTER_HELP)]
    Fmt(fmt::Args),
    /// Run the policy tests (`*.test.yaml`) beside the policies (exit 0 all passed, 1 a test failed, 2 usage/IO/policy error).
    #[command(after_help = test::AFTER_HELP)]
    Test(test::Args),
    /// Show how one event is evaluated: prefilter, conditions, exemptions, decision, timings.
    #[command(after_help = explain::AFTER_HELP)]
    Explain(explain::Args),
    /// Serve decisions to a host plugin over stdio (JSON lines), the policy hot and hot-reloaded.
    #[command(after_help = serve::AFTER_HELP)]
    Serve(serve::Args),
    /// Install warden as a Hermes shell hook (or --remove it): edits $HERMES_HOME/config.yaml, keeps comments.
    #[command(after_help = install::AFTER_HELP)]
    Install(install::Args),
    /// Check that warden is installed and really protecting Hermes (exit 0 ok, 1 a required check failed).
    #[command(after_help = doctor::AFTER_HELP)]
    Doctor(doctor::Args),
}

/// Policy sources shared by every verb.
#[derive(clap::Args, Clone, Debug, Default)]
pub(crate) struct PolicyArgs {
    /// Policy file or directory (repeatable). Default: $WARDEN_POLICY, else the shipped packs.
    #[arg(long = "policy", short = 'p', value_name = "PATH")]
    pub(crate) policy: Vec<PathBuf>,
}

impl PolicyArgs {
    /// The paths to load; empty means the shipped packs.
    pub(crate) fn paths(&self) -> Vec<PathBuf> {
        if !self.policy.is_empty() {
            return self.policy.clone();
        }
        match std::env::var_os("WARDEN_POLICY") {
            Some(v) if !v.is_empty() => std::env::split_paths(&v).collect(),
            _ => Vec::new(),
        }
    }

    /// Where the policy comes from (`~` expanded).
    pub(crate) fn source(&self) -> warden::policy::Source {
        let paths = self.paths();
        if paths.is_empty() {
            warden::policy::Source::Builtin
        } else {
            warden::policy::Source::Paths(
                paths
                    .iter()
                    .map(|p| warden::paths::expand_home(p))
                    .collect(),
            )
        }
    }

    /// Load the policy set these arguments name.
    pub(crate) fn load(&self) -> Result<warden::Policy, warden::LoadError> {
        let paths = self.paths();
        if paths.is_empty() {
            warden::Policy::builtin()
        } else {
            warden::Policy::load(&paths)
        }
    }
}

/// `warden hook` alone: the hook runs once per tool call, so it parses only
/// its own flags instead of building every subcommand's definition.
#[derive(Parser)]
#[command(
    name = "warden hook",
    version,
    about = "Run as a Hermes shell hook: one event on stdin, one JSON answer on stdout",
    after_help = hook::AFTER_HELP
)]
struct HookOnly {
    #[command(flatten)]
    args: hook::Args,
}

/// Parse the command line and run it; returns the exit code.
pub fn run() -> i32 {
    let mut argv = std::env::args_os();
    if argv.nth(1).is_some_and(|a| a == "hook") {
        // one event, then exit: allocation is a bump (see `arena.rs`)
        crate::ALLOC.enable();
        let rest = std::iter::once(std::ffi::OsString::from("warden hook")).chain(argv);
        return match HookOnly::try_parse_from(rest) {
            Ok(h) => hook::run(h.args),
            Err(e) if !e.use_stderr() => {
                let _ = e.print();
                EXIT_OK
            }
            Err(e) => {
                let _ = e.print();
                // A typo in the hook's command line must not switch protection
                // off: Hermes reads an empty stdout as "allow".
                hook::bad_arguments(&e.kind().to_string())
            }
        };
    }
    run_full()
}

fn run_full() -> i32 {
    let cli = match Cli::try_parse() {
        Ok(c) => c,
        Err(e) => {
            let code = if e.use_stderr() { EXIT_USAGE } else { EXIT_OK };
            let _ = e.print();
            return code;
        }
    };
    match cli.command {
        Command::Check(a) => check::run(a),
        Command::Eval(a) => eval::run(a),
        Command::Hook(a) => hook::run(a),
        Command::Redact(a) => redact::run(a),
        Command::Fmt(a) => fmt::run(a),
        Command::Test(a) => test::run(a),
        Command::Explain(a) => explain::run(a),
        Command::Install(a) => install::run(a),
        Command::Doctor(a) => doctor::run(a),
        Command::Serve(a) => serve::run(a),
    }
}

//! `warden doctor`: is warden really protecting this Hermes install? The
//! checks are Hermes knowledge (`warden::host::hermes::doctor`); this verb
//! parses the flags and renders the report for a human or as JSON.

use serde_json::{json, Value as Json};
use std::io::Write;
use std::path::PathBuf;
use warden::host::hermes::doctor::{self, Status};

pub(crate) const AFTER_HELP: &str = "\
Exit codes: 0 = every required check passed (warnings allowed), 1 = a required check failed,
2 = usage error.

Required: config.yaml parses; it has a warden pre_tool_call hook; the hook's binary exists and is
executable; its policy loads and compiles; the hook command answers a harmless probe with one JSON
object (the probe is a real run of the configured command); Hermes has consent for the exact
(event, command) pair. Warnings: HERMES_SAFE_MODE, a matcher that leaves out `terminal`, a Hermes
timeout shorter than warden's deadline, no pre_llm_call hook, a --host that does not match the
installed Hermes (a FAIL when it claims directives the installed version drops). Info: the Hermes
version and what it honours, the events warden runs on and which packs are live on each.

With the Python plugin (`warden install hermes --plugin`) the plugin path replaces the hook checks:
the plugin is installed and enabled; the `warden serve` of its warden.json exists, its policy
compiles and it answers a live probe (`rm -rf /` must be blocked); the last serve's status file
(a refused policy edit shows as a warning); which path is live, and a warning when the shell hook
is installed as well. With only the shell hook, its lone-surrogate gap on Hermes 0.19.0 is named.

Examples:
  warden doctor
  warden doctor --hermes-home /srv/hermes --format json
  HERMES_PYTHON=~/.venvs/hermes/bin/python warden doctor";

#[derive(clap::ValueEnum, Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum Format {
    Human,
    Json,
}

#[derive(clap::Args)]
pub(crate) struct Args {
    /// Hermes home directory. Default: $HERMES_HOME, else ~/.hermes.
    #[arg(long, value_name = "DIR")]
    hermes_home: Option<PathBuf>,
    /// Output format.
    #[arg(long, value_enum, default_value = "human")]
    format: Format,
    /// Python of the Hermes install, whose package metadata gives the version (default
    /// $HERMES_PYTHON; else the interpreter of the `hermes` on PATH, from its shebang; only
    /// when that finds nothing, `hermes --version`).
    #[arg(long, value_name = "PATH", env = "HERMES_PYTHON")]
    hermes_python: Option<PathBuf>,
}

pub(crate) fn run(a: Args) -> i32 {
    let Some(home) = doctor::home(a.hermes_home.as_deref()) else {
        eprintln!("warden doctor: cannot find the Hermes home: set $HERMES_HOME or $HOME, or pass --hermes-home");
        return super::EXIT_USAGE;
    };
    let r = doctor::run(&home, a.hermes_python.as_deref());
    let ok = r.ok();
    match a.format {
        Format::Human => {
            let mut out = std::io::stdout().lock();
            let _ = writeln!(out, "warden doctor: Hermes home {}", home.display());
            for c in &r.checks {
                let _ = writeln!(out, "{} {}", c.status.mark(), c.message);
                for d in &c.detail {
                    let _ = writeln!(out, "    {d}");
                }
            }
            let fails = r.checks.iter().filter(|c| c.status == Status::Fail).count();
            let _ = if ok {
                writeln!(out, "\nAll required checks passed.")
            } else {
                writeln!(
                    out,
                    "\n{fails} required check(s) failed: warden is not protecting this Hermes."
                )
            };
        }
        Format::Json => {
            let checks: Vec<Json> = r
                .checks
                .iter()
                .map(|c| json!({"id": c.id, "status": c.status.name(), "message": c.message, "detail": c.detail}))
                .collect();
            let version = r.detected.version.as_ref();
            let doc = json!({
                "ok": ok,
                "hermes_home": home.to_string_lossy(),
                "hermes_version": version.map(|v| v.version.clone()),
                "hermes_distribution": version.map(|v| v.dist.clone()),
                "hermes_version_source": r.detected.source,
                "capabilities": version.map(|v| v.spec().caps),
                "dropped_directives": version.map(|v| v.spec().caps.dropped()).unwrap_or_default(),
                "checks": checks,
            });
            let _ = writeln!(
                std::io::stdout().lock(),
                "{}",
                serde_json::to_string_pretty(&doc).expect("JSON serialises")
            );
        }
    }
    if ok {
        super::EXIT_OK
    } else {
        super::EXIT_POLICY
    }
}

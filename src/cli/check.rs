//! `warden check PATH...`: load, check and compile; lint; report every
//! finding as text, JSON, SARIF 2.1.0 or GitHub workflow commands.

use super::{render, sarif, EXIT_OK, EXIT_POLICY, EXIT_USAGE};
use codespan_reporting::term::termcolor::{ColorChoice, StandardStream};
use std::io::IsTerminal;
use std::path::PathBuf;
use warden::{LoadError, Policy, Severity};

pub(crate) const AFTER_HELP: &str = "\
Examples:
  warden check policies/
  warden check site.warden policies/ --deny-warnings
  warden check --format sarif policies/ > warden.sarif     # GitHub code scanning
  warden check --format github policies/                   # annotations in a workflow log

Warnings (exit 0 unless --deny-warnings):
  unreachable-rule     the condition can never hold (`tool == \"a\" and tool == \"b\"`, `x and not x`, `false`)
  shadowed-rule        an earlier rule with the same (or a broader) condition and a stronger-or-equal action always wins
  no-prefilter         no literal for the prefilter: the rule's whole condition runs on every event of its hooks
  broad-pattern        a pattern that matches everything (`/.*/`, `contains \"\"`, glob `**`, `under \"/\"`)
  untested-rule        no test in the *.test.yaml files beside the policies exercises the rule
  approve-without-key  an approval without a `key` cannot be remembered per scope
  exemption-expired    the exemption's `until` date has passed; it no longer applies

Exit codes:
  0  no errors (warnings are allowed unless --deny-warnings)
  1  the policy has errors, or warnings with --deny-warnings
  2  usage or I/O error (unreadable path, directory without policy files)";

/// Output formats of `check`.
#[derive(clap::ValueEnum, Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum Format {
    /// Source snippets with carets (colour on a TTY), on stderr.
    Human,
    /// A JSON array of findings.
    Json,
    /// SARIF 2.1.0, for GitHub code scanning and other SARIF viewers.
    Sarif,
    /// GitHub Actions workflow commands (`::error file=…::message`).
    Github,
}

#[derive(clap::Args)]
pub(crate) struct Args {
    /// Policy files or directories. Default: the shipped packs.
    #[arg(value_name = "PATH")]
    paths: Vec<PathBuf>,
    /// Output format.
    #[arg(long, value_enum, default_value = "human")]
    format: Format,
    /// Exit 1 on warnings too.
    #[arg(long)]
    deny_warnings: bool,
}

pub(crate) fn run(a: Args) -> i32 {
    let loaded = if a.paths.is_empty() {
        Policy::builtin()
    } else {
        Policy::load(&a.paths)
    };
    let (mut diags, ok) = match loaded {
        Ok(p) => {
            let mut d = p.warnings.clone();
            match p.compile_with(&warden::CompileOptions {
                lazy: true,
                ..warden::CompileOptions::from_env()
            }) {
                Ok(set) => d.extend(warden::lint::lint(&p, &set, &a.paths)),
                Err(e) => {
                    eprintln!("error: {e}");
                    return EXIT_POLICY;
                }
            }
            let ok = !d.iter().any(|x| x.severity == Severity::Error);
            (d, ok)
        }
        Err(LoadError::Invalid { diagnostics }) => (diagnostics, false),
        Err(e) => {
            eprintln!("error: {e}");
            return EXIT_USAGE;
        }
    };
    diags.sort_by(|x, y| (x.path(), x.span.start, x.code).cmp(&(y.path(), y.span.start, y.code)));
    match a.format {
        Format::Human => {
            let color = if std::io::stderr().is_terminal() {
                ColorChoice::Auto
            } else {
                ColorChoice::Never
            };
            let mut out = StandardStream::stderr(color);
            render::human(&diags, &mut out);
            eprintln!("{}", render::summary(&diags));
        }
        Format::Json => super::emit(
            &(serde_json::to_string_pretty(&render::json(&diags)).unwrap_or_default() + "\n"),
        ),
        Format::Sarif => super::emit(
            &(serde_json::to_string_pretty(&sarif::log(&diags)).unwrap_or_default() + "\n"),
        ),
        Format::Github => {
            for d in &diags {
                super::emit(&(sarif::github(d) + "\n"));
            }
            eprintln!("{}", render::summary(&diags));
        }
    }
    let warnings = diags.iter().any(|d| d.severity == Severity::Warning);
    if !ok || (a.deny_warnings && warnings) {
        EXIT_POLICY
    } else {
        EXIT_OK
    }
}

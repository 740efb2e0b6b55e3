//! `warden check PATH...`: load, check and compile; report every finding.

use super::{render, EXIT_OK, EXIT_POLICY, EXIT_USAGE};
use codespan_reporting::term::termcolor::{ColorChoice, StandardStream};
use std::io::IsTerminal;
use std::path::PathBuf;
use warden::{Diagnostic, LoadError, Policy, Severity};

/// Output formats of `check`.
#[derive(clap::ValueEnum, Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum Format {
    /// Source snippets with carets (colour on a TTY).
    Human,
    /// A JSON array of findings.
    Json,
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
    let loaded = if a.paths.is_empty() { Policy::builtin() } else { Policy::load(&a.paths) };
    let (mut diags, ok) = match loaded {
        Ok(p) => {
            let mut d = p.warnings.clone();
            match p.compile_with(&warden::CompileOptions { lazy: true, ..warden::CompileOptions::from_env() }) {
                Ok(set) => d.extend(lints(&p, &set)),
                Err(e) => {
                    eprintln!("error: {e}");
                    return EXIT_POLICY;
                }
            }
            (d, true)
        }
        Err(LoadError::Invalid { diagnostics }) => (diagnostics, false),
        Err(e) => {
            eprintln!("error: {e}");
            return EXIT_USAGE;
        }
    };
    diags.sort_by(|x, y| (x.path(), x.span.start).cmp(&(y.path(), y.span.start)));
    match a.format {
        Format::Human => {
            let color = if std::io::stderr().is_terminal() { ColorChoice::Auto } else { ColorChoice::Never };
            let mut out = StandardStream::stderr(color);
            render::human(&diags, &mut out);
            eprintln!("{}", render::summary(&diags));
        }
        Format::Json => println!("{}", serde_json::to_string_pretty(&render::json(&diags)).unwrap_or_default()),
    }
    let warnings = diags.iter().any(|d| d.severity == Severity::Warning);
    if !ok || (a.deny_warnings && warnings) {
        EXIT_POLICY
    } else {
        EXIT_OK
    }
}

/// Warnings that need the compiled set.
fn lints(p: &Policy, set: &warden::MatcherSet) -> Vec<Diagnostic> {
    let _ = p;
    set.unfiltered_rules()
        .into_iter()
        .map(|(id, origin)| {
            Diagnostic::warning("no-prefilter", &origin.file, origin.span, format!("rule `{id}` has no literal the prefilter can use"))
                .with_label("evaluated on every event of its hooks")
                .with_help("add a literal test (==, in, contains, starts_with, or a regex with a fixed prefix) so the aho-corasick pass can skip it; as written it costs a full condition evaluation per call")
        })
        .collect()
}

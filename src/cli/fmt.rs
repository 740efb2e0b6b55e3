//! `warden fmt`: canonical formatting, and conversion between the language
//! and its YAML/JSON form.

use super::{EXIT_OK, EXIT_POLICY, EXIT_USAGE};
use std::path::{Path, PathBuf};
use std::sync::Arc;
use warden::diag::SourceFile;
use warden::syntax::{self, ast::PolicyFile, Format};

pub(crate) const AFTER_HELP: &str = "\
Examples:
  warden fmt --check policies/
  warden fmt -w site.warden
  warden fmt --to yaml policies/fs.warden > fs.warden.yaml
  warden fmt --to warden fs.warden.yaml

Exit codes:
  0  formatted (or, with --check, already formatted)
  1  --check found a file that is not formatted, or a file does not parse
  2  usage or I/O error (unreadable path, cannot write)";

#[derive(clap::ValueEnum, Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum To {
    /// The warden language.
    Warden,
    /// The syntax tree as YAML.
    Yaml,
    /// The syntax tree as JSON.
    Json,
}

#[derive(clap::Args)]
pub(crate) struct Args {
    /// Policy files or directories to format (`-` reads stdin).
    #[arg(value_name = "PATH", required = true)]
    paths: Vec<PathBuf>,
    /// Exit 1 and print a diff when a file is not formatted; change nothing.
    #[arg(long, conflicts_with_all = ["write", "to"])]
    check: bool,
    /// Rewrite files in place (atomically: write a temp file, then rename).
    #[arg(short = 'w', long, conflicts_with = "to")]
    write: bool,
    /// Convert to another form and print it.
    #[arg(long, value_enum)]
    to: Option<To>,
}

/// Render a tree in a form.
pub(crate) fn render(tree: &PolicyFile, to: To) -> Result<String, String> {
    match to {
        To::Warden => Ok(syntax::print::print(tree)),
        To::Yaml => syntax::to_yaml(tree).map_err(|e| e.to_string()),
        To::Json => serde_json::to_string_pretty(tree)
            .map(|s| s + "\n")
            .map_err(|e| e.to_string()),
    }
}

fn files(paths: &[PathBuf]) -> Result<Vec<(PathBuf, String)>, String> {
    let mut out = Vec::new();
    for p in paths {
        if p.as_os_str() == "-" {
            out.push((PathBuf::from("<stdin>"), super::input::read_text(p)?));
        } else {
            out.extend(warden::policy::read_sources(&[p]).map_err(|e| e.to_string())?);
        }
    }
    Ok(out)
}

pub(crate) fn run(a: Args) -> i32 {
    let sources = match files(&a.paths) {
        Ok(s) => s,
        Err(e) => {
            eprintln!("error: {e}");
            return EXIT_USAGE;
        }
    };
    let mut status = EXIT_OK;
    for (path, text) in sources {
        let format = Format::of_path(&path).unwrap_or(Format::Warden);
        let file = Arc::new(SourceFile {
            path: path.clone(),
            text,
        });
        let (tree, diags) = syntax::parse_file(&file, format);
        if !diags.is_empty() {
            let mut out = codespan_reporting::term::termcolor::StandardStream::stderr(
                codespan_reporting::term::termcolor::ColorChoice::Never,
            );
            super::render::human(&diags, &mut out);
            status = EXIT_POLICY;
            continue;
        }
        let to = a.to.unwrap_or(match format {
            Format::Warden => To::Warden,
            Format::Yaml => To::Yaml,
            Format::Json => To::Json,
        });
        if to != To::Warden && !tree.comments.is_empty() {
            // the data forms have no place for comments: say so rather than lose them quietly
            eprintln!(
                "warning: {}: {} comment{} not carried into the {} form (comments live only in the .warden text)",
                path.display(),
                tree.comments.len(),
                if tree.comments.len() == 1 { "" } else { "s" },
                if to == To::Yaml { "YAML" } else { "JSON" },
            );
        }
        let formatted = match render(&tree, to) {
            Ok(s) => s,
            Err(e) => {
                eprintln!("error: {}: {e}", path.display());
                status = EXIT_USAGE;
                continue;
            }
        };
        if a.check {
            if formatted != file.text {
                let name = path.display().to_string();
                out!(
                    "{}",
                    super::diff::unified_diff(
                        &file.text,
                        &formatted,
                        &name,
                        &format!("{name} (formatted)")
                    )
                );
                status = status.max(EXIT_POLICY);
            }
        } else if a.write {
            if formatted != file.text {
                if let Err(e) = write_atomic(&path, &formatted) {
                    eprintln!("error: cannot write {}: {e}", path.display());
                    status = EXIT_USAGE;
                } else {
                    eprintln!("formatted {}", path.display());
                }
            }
        } else {
            out!("{formatted}");
        }
    }
    status
}

/// Write beside the target, then rename over it.
fn write_atomic(path: &Path, text: &str) -> std::io::Result<()> {
    let dir = path
        .parent()
        .filter(|d| !d.as_os_str().is_empty())
        .unwrap_or(Path::new("."));
    let name = path
        .file_name()
        .map(|n| n.to_string_lossy().into_owned())
        .unwrap_or_default();
    let tmp = dir.join(format!(".{name}.warden-fmt.{}", std::process::id()));
    std::fs::write(&tmp, text)?;
    if let Ok(meta) = std::fs::metadata(path) {
        let _ = std::fs::set_permissions(&tmp, meta.permissions());
    }
    std::fs::rename(&tmp, path).inspect_err(|_| {
        let _ = std::fs::remove_file(&tmp);
    })
}

//! Rendering diagnostics for humans (codespan-reporting: `file:line:col`,
//! the source line and a caret) and for machines.

use codespan_reporting::diagnostic::{Diagnostic as CsDiagnostic, Label};
use codespan_reporting::files::SimpleFiles;
use codespan_reporting::term::{self, termcolor::WriteColor, Config};
use std::collections::HashMap;
use warden::{Diagnostic, Severity};

/// Write `diags` with source snippets to `out`.
pub(crate) fn human(diags: &[Diagnostic], out: &mut dyn WriteColor) {
    let mut files = SimpleFiles::new();
    let mut ids: HashMap<*const warden::diag::SourceFile, usize> = HashMap::new();
    let config = Config {
        chars: term::Chars::ascii(),
        ..Config::default()
    };
    for d in diags {
        let mut cs = match d.severity {
            Severity::Error => CsDiagnostic::error(),
            Severity::Warning => CsDiagnostic::warning(),
        }
        .with_code(d.code)
        .with_message(&d.message);
        if let Some(f) = &d.file {
            let id = *ids
                .entry(std::sync::Arc::as_ptr(f))
                .or_insert_with(|| files.add(f.path.display().to_string(), f.text.clone()));
            let end = d.span.end.max(d.span.start).min(f.text.len());
            let start = d.span.start.min(end);
            cs = cs.with_labels(vec![Label::primary(id, start..end).with_message(&d.label)]);
        }
        if let Some(h) = &d.help {
            cs = cs.with_notes(vec![format!("help: {h}")]);
        }
        let _ = term::emit(out, &config, &files, &cs);
    }
}

/// A `N error(s), M warning(s)` summary line.
pub(crate) fn summary(diags: &[Diagnostic]) -> String {
    let e = diags
        .iter()
        .filter(|d| d.severity == Severity::Error)
        .count();
    let w = diags.len() - e;
    format!(
        "{e} error{}, {w} warning{}",
        if e == 1 { "" } else { "s" },
        if w == 1 { "" } else { "s" }
    )
}

/// Diagnostics as JSON objects.
pub(crate) fn json(diags: &[Diagnostic]) -> serde_json::Value {
    serde_json::Value::Array(
        diags
            .iter()
            .map(|d| {
                let (line, col) = d.file.as_ref().map_or((0, 0), |f| f.line_col(d.span.start));
                let (end_line, end_col) =
                    d.file.as_ref().map_or((0, 0), |f| f.line_col(d.span.end));
                serde_json::json!({
                    "severity": d.severity,
                    "code": d.code,
                    "message": d.message,
                    "file": d.path().map(|p| p.display().to_string()),
                    "line": line, "column": col, "end_line": end_line, "end_column": end_col,
                    "label": d.label,
                    "help": d.help,
                })
            })
            .collect(),
    )
}

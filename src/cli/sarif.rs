//! Diagnostics as SARIF 2.1.0 (GitHub code scanning) and as GitHub
//! Actions workflow commands.

use serde_json::{json, Value};
use std::path::Path;
use warden::diag::Code;
use warden::{Diagnostic, Severity};

/// What a diagnostic code means, for SARIF `shortDescription`: the one table in
/// [`warden::diag::Code`] (every code a diagnostic can carry is in it).
fn describe(code: &str) -> &'static str {
    Code::from_id(code).map_or("", Code::summary)
}

fn level(s: Severity) -> &'static str {
    match s {
        Severity::Error => "error",
        Severity::Warning => "warning",
    }
}

/// A path relative to the current directory when it lies below it, with `/` separators.
pub(crate) fn relative(p: &Path) -> String {
    let cwd = std::env::current_dir().ok();
    let rel = match (&cwd, p.is_absolute()) {
        (Some(c), true) => p.strip_prefix(c).unwrap_or(p),
        _ => p,
    };
    let s = rel.to_string_lossy().replace('\\', "/");
    s.strip_prefix("./").map(String::from).unwrap_or(s)
}

/// Percent-encode what a URI reference cannot hold.
fn uri(path: &str) -> String {
    let mut out = String::with_capacity(path.len());
    for b in path.bytes() {
        if b.is_ascii_alphanumeric() || b"-._~/!$&'()*+,;=:@".contains(&b) {
            out.push(b as char);
        } else {
            out.push_str(&format!("%{b:02X}"));
        }
    }
    if path.starts_with('/') {
        format!("file://{out}")
    } else {
        out
    }
}

fn text(d: &Diagnostic) -> String {
    let mut t = d.message.clone();
    if !d.label.is_empty() {
        t.push_str(&format!(" ({})", d.label));
    }
    if let Some(h) = &d.help {
        t.push_str(&format!(". Help: {h}"));
    }
    t
}

/// `(startLine, startColumn, endLine, endColumn)`, end column exclusive, all 1-based.
fn region(d: &Diagnostic) -> Option<(usize, usize, usize, usize)> {
    let f = d.file.as_ref()?;
    let (l, c) = f.line_col(d.span.start);
    let (el, ec) = f.line_col(d.span.end.max(d.span.start));
    // An empty span still marks one character.
    let ec = if (el, ec) == (l, c) { c + 1 } else { ec };
    Some((l, c, el, ec))
}

/// A SARIF 2.1.0 log of `diags`.
pub(crate) fn log(diags: &[Diagnostic]) -> Value {
    let mut codes: Vec<(&str, Severity)> = Vec::new();
    for d in diags {
        match codes.iter_mut().find(|(c, _)| *c == d.code) {
            Some((_, s)) => *s = (*s).max(d.severity),
            None => codes.push((d.code, d.severity)),
        }
    }
    codes.sort_by(|a, b| a.0.cmp(b.0));
    let rules: Vec<Value> = codes
        .iter()
        .map(|(code, sev)| {
            // the table's default level, raised if this run reported it more severely
            let sev = Code::from_id(code).map_or(*sev, |c| c.severity().max(*sev));
            json!({
                "id": code,
                "name": code.split('-').map(|w| { let mut c = w.chars(); c.next().map_or(String::new(), |f| f.to_uppercase().collect::<String>() + c.as_str()) }).collect::<String>(),
                "shortDescription": { "text": describe(code) },
                "defaultConfiguration": { "level": level(sev) },
            })
        })
        .collect();
    let results: Vec<Value> = diags
        .iter()
        .map(|d| {
            let idx = codes.iter().position(|(c, _)| *c == d.code).unwrap_or(0);
            let mut r = json!({
                "ruleId": d.code,
                "ruleIndex": idx,
                "level": level(d.severity),
                "message": { "text": text(d) },
            });
            if let (Some(path), Some((l, c, el, ec))) = (d.path(), region(d)) {
                r["locations"] = json!([{
                    "physicalLocation": {
                        "artifactLocation": { "uri": uri(&relative(path)) },
                        "region": { "startLine": l, "startColumn": c, "endLine": el, "endColumn": ec }
                    }
                }]);
            }
            r
        })
        .collect();
    json!({
        "$schema": "https://json.schemastore.org/sarif-2.1.0.json",
        "version": "2.1.0",
        "runs": [{
            "tool": { "driver": {
                "name": "warden",
                "version": env!("CARGO_PKG_VERSION"),
                "rules": rules,
            }},
            "columnKind": "unicodeCodePoints",
            "results": results,
        }]
    })
}

fn escape_data(s: &str) -> String {
    s.replace('%', "%25")
        .replace('\r', "%0D")
        .replace('\n', "%0A")
}

fn escape_prop(s: &str) -> String {
    escape_data(s).replace(':', "%3A").replace(',', "%2C")
}

/// One GitHub Actions workflow command (`::error file=…,line=…::message`).
pub(crate) fn github(d: &Diagnostic) -> String {
    let mut props = Vec::new();
    if let (Some(path), Some((l, c, el, ec))) = (d.path(), region(d)) {
        props.push(format!("file={}", escape_prop(&relative(path))));
        props.push(format!("line={l}"));
        props.push(format!("col={c}"));
        props.push(format!("endLine={el}"));
        props.push(format!("endColumn={ec}"));
    }
    props.push(format!("title={}", escape_prop(d.code)));
    let mut msg = d.message.clone();
    if !d.label.is_empty() {
        msg.push_str(&format!(" ({})", d.label));
    }
    if let Some(h) = &d.help {
        msg.push_str(&format!("\nhelp: {h}"));
    }
    format!(
        "::{} {}::{}",
        level(d.severity),
        props.join(","),
        escape_data(&msg)
    )
}

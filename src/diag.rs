//! Located diagnostics shared by every stage: a message, a severity and a
//! byte span in one source file. Rendering (with line:col and a caret) lives
//! at the CLI edge in `cli::render`; the library only produces data.

use std::fmt;
use std::path::{Path, PathBuf};
use std::sync::Arc;

/// A half-open byte range `[start, end)` in one source file.
#[derive(
    Clone,
    Copy,
    Debug,
    Default,
    PartialEq,
    Eq,
    Hash,
    PartialOrd,
    Ord,
    serde::Serialize,
    serde::Deserialize,
)]
pub struct Span {
    /// First byte.
    pub start: usize,
    /// One past the last byte.
    pub end: usize,
}

impl Span {
    /// A span from `start` to `end`.
    pub fn new(start: usize, end: usize) -> Span {
        Span { start, end }
    }
}

/// How serious a diagnostic is.
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord, serde::Serialize)]
#[serde(rename_all = "lowercase")]
pub enum Severity {
    /// Worth knowing; never changes an exit code.
    Warning,
    /// The policy cannot be used.
    Error,
}

/// One source file of a policy set, kept so diagnostics can show the line.
#[derive(Debug)]
pub struct SourceFile {
    /// The path as given (or a pseudo-path such as `<builtin>/fs.warden`).
    pub path: PathBuf,
    /// The full text.
    pub text: String,
}

impl SourceFile {
    /// 1-based line and column (in characters) of a byte offset.
    pub fn line_col(&self, offset: usize) -> (usize, usize) {
        let offset = offset.min(self.text.len());
        let before = &self.text[..floor_char_boundary(&self.text, offset)];
        let line = before.matches('\n').count() + 1;
        let line_start = before.rfind('\n').map_or(0, |i| i + 1);
        let col = before[line_start..].chars().count() + 1;
        (line, col)
    }
}

fn floor_char_boundary(s: &str, mut i: usize) -> usize {
    while i > 0 && !s.is_char_boundary(i) {
        i -= 1;
    }
    i
}

/// A finding about a policy: where, how bad, what, and how to fix it.
#[derive(Clone, Debug)]
pub struct Diagnostic {
    /// Error or warning.
    pub severity: Severity,
    /// A stable short code, e.g. `unknown-field`.
    pub code: &'static str,
    /// The headline, in plain words.
    pub message: String,
    /// The file it is about (`None` for set-wide findings).
    pub file: Option<Arc<SourceFile>>,
    /// The primary location in `file`.
    pub span: Span,
    /// Text under the caret.
    pub label: String,
    /// A suggestion, e.g. "did you mean `args.command`?".
    pub help: Option<String>,
}

impl Diagnostic {
    /// A new error at `span` of `file`.
    pub fn error(
        code: &'static str,
        file: &Arc<SourceFile>,
        span: Span,
        message: impl Into<String>,
    ) -> Self {
        Diagnostic {
            severity: Severity::Error,
            code,
            message: message.into(),
            file: Some(file.clone()),
            span,
            label: String::new(),
            help: None,
        }
    }

    /// A new warning at `span` of `file`.
    pub fn warning(
        code: &'static str,
        file: &Arc<SourceFile>,
        span: Span,
        message: impl Into<String>,
    ) -> Self {
        Diagnostic {
            severity: Severity::Warning,
            ..Diagnostic::error(code, file, span, message)
        }
    }

    /// Set the text shown under the caret.
    pub fn with_label(mut self, label: impl Into<String>) -> Self {
        self.label = label.into();
        self
    }

    /// Set the help line.
    pub fn with_help(mut self, help: impl Into<String>) -> Self {
        self.help = Some(help.into());
        self
    }

    /// Set the help line if there is one.
    pub fn with_help_opt(mut self, help: Option<String>) -> Self {
        self.help = help;
        self
    }

    /// `path:line:col` of the primary location, or `<policy>`.
    pub fn location(&self) -> String {
        match &self.file {
            Some(f) => {
                let (l, c) = f.line_col(self.span.start);
                format!("{}:{}:{}", f.path.display(), l, c)
            }
            None => "<policy>".to_string(),
        }
    }

    /// Path of the file, if any.
    pub fn path(&self) -> Option<&Path> {
        self.file.as_ref().map(|f| f.path.as_path())
    }
}

impl fmt::Display for Diagnostic {
    /// One line: `path:line:col: error: message` (used by the hook's block message).
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let sev = match self.severity {
            Severity::Error => "error",
            Severity::Warning => "warning",
        };
        write!(f, "{}: {}: {}", self.location(), sev, self.message)?;
        if let Some(h) = &self.help {
            write!(f, " ({h})")?;
        }
        Ok(())
    }
}

/// The closest candidate to `word` by edit distance, if it is close enough to
/// be a plausible typo.
pub fn did_you_mean<'a>(
    word: &str,
    candidates: impl IntoIterator<Item = &'a str>,
) -> Option<&'a str> {
    let mut best: Option<(&str, usize)> = None;
    for c in candidates {
        let d = edit_distance(word, c);
        if best.is_none_or(|(_, bd)| d < bd) {
            best = Some((c, d));
        }
    }
    let (c, d) = best?;
    let limit = (word.chars().count().max(c.chars().count()) / 3).max(1);
    (d <= limit || c.starts_with(word) || word.starts_with(c)).then_some(c)
}

/// Optimal-string-alignment distance: edits, with a swap of two neighbours
/// counting as one (`hihg` → `high`).
fn edit_distance(a: &str, b: &str) -> usize {
    let a: Vec<char> = a.chars().collect();
    let b: Vec<char> = b.chars().collect();
    let mut d = vec![vec![0usize; b.len() + 1]; a.len() + 1];
    for (i, row) in d.iter_mut().enumerate() {
        row[0] = i;
    }
    for (j, cell) in d[0].iter_mut().enumerate() {
        *cell = j;
    }
    for i in 1..=a.len() {
        for j in 1..=b.len() {
            let cost = usize::from(a[i - 1] != b[j - 1]);
            let mut v = (d[i - 1][j] + 1)
                .min(d[i][j - 1] + 1)
                .min(d[i - 1][j - 1] + cost);
            if i > 1 && j > 1 && a[i - 1] == b[j - 2] && a[i - 2] == b[j - 1] {
                v = v.min(d[i - 2][j - 2] + 1);
            }
            d[i][j] = v;
        }
    }
    d[a.len()][b.len()]
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn line_col_counts_from_one() {
        let f = SourceFile {
            path: "x".into(),
            text: "ab\ncdé\nf".into(),
        };
        assert_eq!(f.line_col(0), (1, 1));
        assert_eq!(f.line_col(3), (2, 1));
        assert_eq!(f.line_col(7), (2, 4));
        assert_eq!(f.line_col(8), (3, 1));
    }

    #[test]
    fn suggestions_are_close_typos_only() {
        let c = ["args.command", "args.path", "cwd"];
        assert_eq!(did_you_mean("args.comand", c), Some("args.command"));
        assert_eq!(did_you_mean("zzzzzz", c), None);
        assert_eq!(did_you_mean("hihg", ["high", "low"]), Some("high"));
    }
}

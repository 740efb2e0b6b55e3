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

/// Declares [`Code`]: one variant per diagnostic, with its id, default severity and
/// summary, so the renderers (human, JSON, SARIF, GitHub) share one table that cannot
/// drift from what the code base emits.
macro_rules! codes {
    ($($variant:ident => ($id:literal, $sev:ident, $summary:literal),)*) => {
        /// Every diagnostic warden can report. Constructors take a `Code`, so a
        /// diagnostic without an entry here does not compile.
        #[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
        pub enum Code { $(#[doc = $summary] $variant,)* }

        impl Code {
            /// Every code, in table order.
            pub const ALL: &'static [Code] = &[$(Code::$variant,)*];

            /// The stable id, e.g. `unknown-field` (SARIF `ruleId`, JSON `code`).
            pub fn id(self) -> &'static str {
                match self { $(Code::$variant => $id,)* }
            }

            /// One line on what the finding means.
            pub fn summary(self) -> &'static str {
                match self { $(Code::$variant => $summary,)* }
            }

            /// The severity it is reported with.
            pub fn severity(self) -> Severity {
                match self { $(Code::$variant => Severity::$sev,)* }
            }

            /// The code with this id.
            pub fn from_id(id: &str) -> Option<Code> {
                match id { $($id => Some(Code::$variant),)* _ => None }
            }
        }
    };
}

codes! {
    ActionNotOnEvent => ("action-not-on-event", Error, "An action that one of the rule's events cannot take"),
    ApproveWithoutKey => ("approve-without-key", Warning, "An approval without a scope key"),
    BadCapture => ("bad-capture", Error, "A capture group the regex does not have"),
    BadDate => ("bad-date", Error, "A malformed date"),
    BadEscape => ("bad-escape", Error, "An invalid escape in a string"),
    BadGlob => ("bad-glob", Error, "An invalid glob pattern"),
    BadModifyTarget => ("bad-modify-target", Error, "A modify assigns something other than an argument"),
    BadRegex => ("bad-regex", Error, "An invalid regular expression"),
    BadSeverity => ("bad-severity", Error, "An unknown severity"),
    BadTemplate => ("bad-template", Error, "A malformed message template"),
    BadTestFile => ("bad-test-file", Warning, "A policy test file that cannot be read"),
    BadVersion => ("bad-version", Error, "A malformed version or version requirement"),
    BroadPattern => ("broad-pattern", Warning, "A pattern that matches every value"),
    DuplicateEntry => ("duplicate-entry", Error, "A rule entry is given twice"),
    DuplicateName => ("duplicate-name", Error, "Two lists or defines with the same name"),
    DuplicatePack => ("duplicate-pack", Error, "A file declares more than one pack"),
    DuplicateRule => ("duplicate-rule", Error, "Two rules with the same id"),
    EmptyMessage => ("empty-message", Error, "A block or approve with an empty message"),
    EmptyPolicy => ("empty-policy", Error, "A policy set with no rules, which would allow everything"),
    ExemptNeedsReason => ("exempt-needs-reason", Error, "An exemption without `because`"),
    ExemptUnknownRule => ("exempt-unknown-rule", Error, "An exemption names no existing rule"),
    ExemptionExpired => ("exemption-expired", Warning, "An exemption past its `until` date"),
    FieldNotOnEvent => ("field-not-on-event", Error, "A field is not available on one of the rule's events"),
    IncompatiblePack => ("incompatible-pack", Error, "A pack requires another version of warden"),
    MissingAction => ("missing-action", Error, "A rule has no action"),
    MissingOn => ("missing-on", Error, "A rule names no event"),
    MissingWhen => ("missing-when", Error, "A rule has no condition"),
    NoPrefilter => ("no-prefilter", Warning, "A rule the literal prefilter cannot skip: evaluated on every event"),
    OptionNeedsRedact => ("option-needs-redact", Error, "A redaction option on a rule that does not redact"),
    PlaceholderNeedsLlm => ("placeholder-needs-llm", Error, "A placeholder on a rule that is not on pre_llm_call"),
    RecursiveDefine => ("recursive-define", Error, "A define refers to itself"),
    RegexTooBig => ("regex-too-big", Error, "A regex the engine refuses for its size: it could never match"),
    SeveralActions => ("several-actions", Error, "A rule has more than one kind of action"),
    ShadowedRule => ("shadowed-rule", Warning, "A rule that an earlier, stronger-or-equal rule always overrides"),
    ShellMixedEvents => ("shell-mixed-events", Error, "A shell predicate in a rule that also runs on events without a command line"),
    ShellNotOnEvent => ("shell-not-on-event", Error, "A shell predicate on an event that has no command line"),
    Syntax => ("syntax", Error, "The policy text does not parse"),
    TooDeep => ("too-deep", Error, "A condition nested too deeply, or expanding to too many conditions"),
    Type => ("type", Error, "A comparison between incompatible types"),
    UnknownEvent => ("unknown-event", Error, "An unknown hook event"),
    UnknownField => ("unknown-field", Error, "A condition reads a field that does not exist"),
    UnknownList => ("unknown-list", Error, "An unknown list name"),
    UnknownName => ("unknown-name", Error, "A name that is neither a define nor a list"),
    UnknownValidator => ("unknown-validator", Error, "An unknown redaction validator"),
    UnanchoredRedaction => ("unanchored-redaction", Warning, "A redaction regex with no keyword and no run gate: searched over the whole of every text"),
    UnreachableRule => ("unreachable-rule", Warning, "A rule whose condition can never hold"),
    UntestedRule => ("untested-rule", Warning, "A rule that no policy test exercises"),
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
        code: Code,
        file: &Arc<SourceFile>,
        span: Span,
        message: impl Into<String>,
    ) -> Self {
        Diagnostic {
            severity: Severity::Error,
            code: code.id(),
            message: message.into(),
            file: Some(file.clone()),
            span,
            label: String::new(),
            help: None,
        }
    }

    /// A new warning at `span` of `file`.
    pub fn warning(
        code: Code,
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

    /// The table is the only source of codes: ids are unique and described, and no file
    /// under `src/` builds a diagnostic from a bare string (each constructor call names a
    /// `Code::` variant), so a code cannot be emitted without an entry.
    #[test]
    fn every_code_is_in_the_table() {
        let mut ids: Vec<&str> = Code::ALL.iter().map(|c| c.id()).collect();
        ids.sort_unstable();
        ids.dedup();
        assert_eq!(ids.len(), Code::ALL.len(), "duplicate ids");
        for c in Code::ALL {
            assert!(!c.summary().is_empty(), "{c:?}");
            assert_eq!(Code::from_id(c.id()), Some(*c));
        }
        let mut stack = vec![std::path::PathBuf::from(concat!(
            env!("CARGO_MANIFEST_DIR"),
            "/src"
        ))];
        let mut calls = 0;
        while let Some(dir) = stack.pop() {
            for e in std::fs::read_dir(&dir).unwrap() {
                let p = e.unwrap().path();
                if p.is_dir() {
                    stack.push(p);
                    continue;
                }
                if p.ends_with("diag.rs") {
                    continue; // the constructors and this test
                }
                let text = std::fs::read_to_string(&p).unwrap();
                for ctor in ["Diagnostic::error(", "Diagnostic::warning("] {
                    for (i, _) in text.match_indices(ctor) {
                        if text[..i].ends_with(|c: char| c.is_alphanumeric() || c == '_') {
                            continue; // another type's constructor (`CsDiagnostic::error()`)
                        }
                        let arg = text[i + ctor.len()..].trim_start();
                        calls += 1;
                        assert!(
                            arg.starts_with("Code::"),
                            "{}: a diagnostic built without a `Code`: {}",
                            p.display(),
                            &arg[..arg.len().min(40)]
                        );
                        let name: String = arg["Code::".len()..]
                            .chars()
                            .take_while(char::is_ascii_alphanumeric)
                            .collect();
                        assert!(
                            Code::ALL.iter().any(|c| format!("{c:?}") == name),
                            "{}: unknown code {name}",
                            p.display()
                        );
                    }
                }
            }
        }
        assert!(
            calls > 40,
            "the scan should see the code base's diagnostics: {calls}"
        );
    }

    #[test]
    fn suggestions_are_close_typos_only() {
        let c = ["args.command", "args.path", "cwd"];
        assert_eq!(did_you_mean("args.comand", c), Some("args.command"));
        assert_eq!(did_you_mean("zzzzzz", c), None);
        assert_eq!(did_you_mean("hihg", ["high", "low"]), Some("high"));
    }
}

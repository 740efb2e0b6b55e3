//! The checked policy: names resolved, fields typed against the event
//! schema, macros inlined, exemptions attached. Everything here is known to
//! be valid; `compile` turns it into matchers.

use crate::diag::{SourceFile, Span};
use crate::event::{Field, Hook};
use crate::syntax::ast::{RedactOptions, RedactReplace, RegexLit, Scalar};
use serde::{Deserialize, Serialize};
use std::sync::Arc;

/// Where a checked item came from.
#[derive(Clone, Debug)]
pub struct Origin {
    /// The source file (text empty when loaded from the compiled-policy cache).
    pub file: Arc<SourceFile>,
    /// The span of the item's name.
    pub span: Span,
    /// 1-based line of `span.start`.
    pub line: usize,
    /// 1-based column of `span.start`.
    pub col: usize,
}

impl Origin {
    /// The origin of `span` in `file`.
    pub fn new(file: &Arc<SourceFile>, span: Span) -> Origin {
        let (line, col) = file.line_col(span.start);
        Origin {
            file: file.clone(),
            span,
            line,
            col,
        }
    }

    /// The origin of `span` in `file`, its line found in `line_starts` (the byte offsets
    /// at which `file`'s lines start, ascending): for callers that make many origins in
    /// one file, where [`Origin::new`] would count lines from the start each time.
    pub fn indexed(file: &Arc<SourceFile>, span: Span, line_starts: &[usize]) -> Origin {
        let line = line_starts.partition_point(|&s| s <= span.start).max(1);
        let start = line_starts.get(line - 1).copied().unwrap_or(0);
        let end = span.start.min(file.text.len());
        let col = file
            .text
            .get(start..end)
            .map_or(1, |s| s.chars().count() + 1);
        Origin {
            file: file.clone(),
            span,
            line,
            col,
        }
    }

    /// `path:line:col`.
    pub fn location(&self) -> String {
        format!("{}:{}:{}", self.file.path.display(), self.line, self.col)
    }
}

#[derive(Serialize, Deserialize)]
struct OriginWire {
    path: std::path::PathBuf,
    start: usize,
    end: usize,
    line: usize,
    col: usize,
}

impl Serialize for Origin {
    fn serialize<S: serde::Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        OriginWire {
            path: self.file.path.clone(),
            start: self.span.start,
            end: self.span.end,
            line: self.line,
            col: self.col,
        }
        .serialize(s)
    }
}

impl<'de> Deserialize<'de> for Origin {
    fn deserialize<D: serde::Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
        let w = OriginWire::deserialize(d)?;
        let file = Arc::new(SourceFile {
            path: w.path,
            text: String::new(),
        });
        Ok(Origin {
            file,
            span: Span::new(w.start, w.end),
            line: w.line,
            col: w.col,
        })
    }
}

/// A resolved condition.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub enum Expr {
    /// All hold.
    And(Vec<Expr>),
    /// One holds.
    Or(Vec<Expr>),
    /// Does not hold.
    Not(Box<Expr>),
    /// A constant.
    Const(bool),
    /// A test on one field.
    Atom(Atom),
}

impl Expr {
    /// Call `f` with every atom of the condition, left to right.
    pub fn for_each_atom<'a>(&'a self, f: &mut dyn FnMut(&'a Atom)) {
        match self {
            Expr::And(v) | Expr::Or(v) => v.iter().for_each(|c| c.for_each_atom(f)),
            Expr::Not(c) => c.for_each_atom(f),
            Expr::Const(_) => {}
            Expr::Atom(a) => f(a),
        }
    }
}

/// A test on one field.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct Atom {
    /// The field tested.
    pub field: Field,
    /// The test.
    pub test: Test,
    /// Where it was written (in the rule's file, or a `define`'s).
    pub span: Span,
}

/// What an atom checks.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub enum Test {
    /// Equal to the scalar (strings: optionally ignoring case).
    Eq {
        /// The value.
        value: Scalar,
        /// Ignore case.
        nocase: bool,
    },
    /// Equal to one of the scalars.
    In {
        /// The values.
        values: Vec<Scalar>,
        /// Ignore case.
        nocase: bool,
    },
    /// Contains one of the strings.
    Contains {
        /// The needles.
        needles: Vec<String>,
        /// Ignore case.
        nocase: bool,
    },
    /// Starts with one of the strings.
    StartsWith {
        /// The prefixes.
        needles: Vec<String>,
        /// Ignore case.
        nocase: bool,
    },
    /// Ends with one of the strings.
    EndsWith {
        /// The suffixes.
        needles: Vec<String>,
        /// Ignore case.
        nocase: bool,
    },
    /// Matches the regex.
    Matches {
        /// The regex, flags inlined.
        regex: String,
    },
    /// Matches one of the glob patterns.
    Glob {
        /// The patterns.
        patterns: Vec<String>,
    },
    /// The path lies under one of the targets.
    Under {
        /// What it must lie under.
        target: UnderTarget,
    },
    /// The field is present (and not null).
    Exists,
    /// A predicate over the parsed command line in the field.
    Shell(ShellTest),
    /// A redaction rule whose id matches one of the patterns finds something.
    Detects {
        /// Rule-id patterns (`secret.*`).
        patterns: Vec<String>,
    },
}

/// A checked shell predicate.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub enum ShellTest {
    /// Some simple command runs one of `programs` and satisfies every qualifier.
    Command {
        /// Program names (`x*` = prefix).
        programs: Vec<String>,
        /// Qualifiers on the same command.
        quals: Vec<Qual>,
    },
    /// What runs cannot be known statically.
    Unknown,
    /// A command in `from` feeds one in `to`.
    Pipe {
        /// Producers.
        from: Vec<String>,
        /// Consumers.
        to: Vec<String>,
    },
    /// A write redirection's target lies under one of the paths.
    RedirectUnder(Vec<String>),
    /// A write redirection's target matches one of the globs.
    RedirectGlob(Vec<String>),
}

/// A qualifier of a `command` predicate.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub enum Qual {
    /// Every flag present (names such as `recursive`, or raw `-f`).
    Flags(Vec<String>),
    /// At least one flag present.
    AnyFlag(Vec<String>),
    /// The leading positional words are one of these sequences.
    Subcommand(Vec<Vec<String>>),
    /// Some argument is not statically known.
    DynamicArgs,
    /// Some argument's path lies under one of the paths.
    ArgUnder(Vec<String>),
    /// Some argument's path is one of the paths.
    ArgIs(Vec<String>),
    /// Some argument names a package one typo away from one of the names (and is none).
    ArgResembles(Vec<String>),
    /// Some argument's text satisfies the test.
    Arg(Box<Test>),
    /// Some argument's text, or the normalised path it names, satisfies the test.
    ArgPath(Box<Test>),
}

/// The right-hand side of `path(x) under …`.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub enum UnderTarget {
    /// Literal paths (`~` and `$HOME` not yet expanded).
    Paths(Vec<String>),
    /// A field of the event, e.g. `cwd`.
    Field(Field),
}

/// A message with `{field}` holes.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct Template {
    /// Literal text and fields, in order.
    pub parts: Vec<TemplatePart>,
}

/// One piece of a [`Template`].
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub enum TemplatePart {
    /// Text as is.
    Lit(String),
    /// A field's value.
    Field(Field),
    /// The labels of what a `detects` test found, e.g. `aws-access-key, card-number`.
    Findings,
}

/// A `modify` right-hand side.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub enum ValueExpr {
    /// A scalar.
    Const(Scalar),
    /// A string template.
    Template(Template),
    /// Another field.
    Field(Field),
    /// `replace(input, /re/, "with")`.
    Replace {
        /// The input.
        input: Box<ValueExpr>,
        /// Regex source, flags inlined.
        regex: String,
        /// Replacement (`$1` for groups).
        with: String,
    },
}

/// A checked action.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub enum Action {
    /// Block the call or the turn.
    Block {
        /// The message.
        message: Template,
        /// pre_llm_call transcript placeholder.
        placeholder: Option<String>,
    },
    /// Ask a human.
    Approve {
        /// The message.
        message: Template,
        /// Scope key.
        key: Option<String>,
    },
    /// Set top-level argument keys.
    Modify(Vec<(String, ValueExpr)>),
    /// Add context to the user message.
    Context(Template),
    /// Redact (or withhold) what a detector finds.
    Redact(Box<RedactRule>),
}

impl Action {
    /// The action's keyword.
    pub fn kind(&self) -> &'static str {
        match self {
            Action::Block { .. } => "block",
            Action::Approve { .. } => "approve",
            Action::Modify(_) => "modify",
            Action::Context(_) => "context",
            Action::Redact(r) if matches!(r.replace, RedactReplace::Withhold(_)) => "withhold",
            Action::Redact(_) => "redact",
        }
    }
}

/// A checked redaction rule, handed to the redaction engine.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct RedactRule {
    /// The detector regex.
    pub pattern: RegexLit,
    /// Replacement or withholding.
    pub replace: RedactReplace,
    /// Options as written.
    pub options: RedactOptions,
}

/// A checked rule.
#[derive(Clone, Debug, Serialize, Deserialize)]
pub struct Rule {
    /// Dotted id.
    pub id: String,
    /// Description.
    pub description: Option<String>,
    /// Severity (`medium` when not given).
    pub severity: String,
    /// Tags.
    pub tags: Vec<String>,
    /// The hooks it applies to.
    pub hooks: Vec<Hook>,
    /// Condition (`Const(true)` when absent).
    pub when: Expr,
    /// Exception.
    pub unless: Option<Expr>,
    /// Action.
    pub action: Action,
    /// Pack it came from.
    pub pack: Option<String>,
    /// Where it was written.
    pub origin: Origin,
}

/// A checked exemption.
#[derive(Clone, Debug, Serialize, Deserialize)]
pub struct Exemption {
    /// Exact id, or `prefix.` for `prefix.*`, or empty for `*`.
    pub pattern: String,
    /// True when `pattern` is a prefix.
    pub is_prefix: bool,
    /// Condition (`None` = always).
    pub when: Option<Expr>,
    /// Why.
    pub because: String,
    /// Last day, `YYYY-MM-DD`.
    pub until: Option<String>,
    /// Where it was written.
    pub origin: Origin,
}

impl Exemption {
    /// True if the exemption names `rule_id`.
    pub fn covers(&self, rule_id: &str) -> bool {
        if self.is_prefix {
            rule_id.starts_with(&self.pattern)
        } else {
            rule_id == self.pattern
        }
    }
}

/// A loaded pack header.
#[derive(Clone, Debug, Serialize, Deserialize)]
pub struct Pack {
    /// Name.
    pub name: String,
    /// Version.
    pub version: String,
    /// Where it was declared.
    pub origin: Origin,
}

/// A whole checked policy set.
#[derive(Clone, Debug, Default, Serialize, Deserialize)]
pub struct CheckedPolicy {
    /// Rules in load order (files in path order, rules in file order).
    pub rules: Vec<Rule>,
    /// Exemptions that are still in force.
    pub exemptions: Vec<Exemption>,
    /// Pack headers.
    pub packs: Vec<Pack>,
}

//! The syntax tree of one policy file, exactly as written.
//!
//! Names are not resolved here (that is `check`'s job). Every node that can be
//! the subject of an error carries a [`Span`]. The tree also (de)serialises
//! with serde, spans omitted, which is the YAML/JSON form of a policy:
//! `warden fmt --to yaml` writes it and a `.warden.yaml` file is read back
//! into the same tree.

use crate::diag::Span;
use serde::{Deserialize, Serialize};

/// A value with the location it was written at. Serialises as the bare value.
#[derive(Clone, Debug, Default, Serialize, Deserialize)]
#[serde(transparent)]
pub struct Spanned<T> {
    /// The value.
    pub node: T,
    /// Where it was written (zero for trees read from YAML/JSON).
    #[serde(skip)]
    pub span: Span,
}

impl<T: PartialEq> PartialEq for Spanned<T> {
    /// Spans never take part in equality: two trees are equal when they say the same.
    fn eq(&self, other: &Self) -> bool {
        self.node == other.node
    }
}

impl<T> Spanned<T> {
    /// Wrap `node` with `span`.
    pub fn new(node: T, span: Span) -> Self {
        Spanned { node, span }
    }
}

/// A whole policy file.
#[derive(Clone, Debug, Default, PartialEq, Serialize, Deserialize)]
pub struct PolicyFile {
    /// Top-level items in source order.
    pub items: Vec<Item>,
    /// `# …` comments with their byte offsets (text form only; kept for `fmt`).
    #[serde(skip)]
    pub comments: Vec<(usize, String)>,
}

/// One top-level item. (Rules dominate the size; a file holds tens to
/// hundreds of items, built once, so boxing would only add indirection.)
#[allow(clippy::large_enum_variant)]
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum Item {
    /// `pack NAME version X [requires warden >= Y]`
    Pack(PackDecl),
    /// `list NAME = [...]`
    List(ListDef),
    /// `define NAME = CONDITION`
    Define(Define),
    /// `rule ID { ... }`
    Rule(Rule),
    /// `exempt ID [when ...] because "..." [until DATE]`
    Exempt(Exempt),
}

impl Item {
    /// Where the item starts in its file.
    pub fn span(&self) -> Span {
        match self {
            Item::Pack(p) => p.name.span,
            Item::List(l) => l.name.span,
            Item::Define(d) => d.name.span,
            Item::Rule(r) => r.id.span,
            Item::Exempt(e) => e.rule.span,
        }
    }
}

/// A pack header.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct PackDecl {
    /// Dotted pack name.
    pub name: Spanned<String>,
    /// Semantic version of the pack.
    pub version: Spanned<String>,
    /// Version requirement on warden, e.g. `>= 0.1`.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub requires: Option<Spanned<String>>,
}

/// A named list of scalars.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct ListDef {
    /// The name conditions refer to.
    pub name: Spanned<String>,
    /// The members.
    pub values: Vec<Spanned<Scalar>>,
}

/// A named, reusable condition.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct Define {
    /// The name conditions refer to.
    pub name: Spanned<String>,
    /// The condition it stands for.
    pub condition: Cond,
}

/// A rule: when its condition holds on one of its events, its action applies.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct Rule {
    /// Dotted id, unique in the policy set.
    pub id: Spanned<String>,
    /// What the rule is for.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub description: Option<Spanned<String>>,
    /// `info`, `low`, `medium`, `high` or `critical`.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub severity: Option<Spanned<String>>,
    /// Free-form tags.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub tags: Option<Spanned<Vec<String>>>,
    /// Hook events the rule applies to.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub on: Vec<Spanned<String>>,
    /// The condition (absent = always, allowed for redaction rules).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub when: Option<Cond>,
    /// An exception: the rule does not apply when this holds.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub unless: Option<Cond>,
    /// The actions, in source order (several only for `modify`).
    pub actions: Vec<Spanned<Action>>,
    /// Options of a redaction rule.
    #[serde(default, skip_serializing_if = "RedactOptions::is_empty")]
    pub options: RedactOptions,
}

/// What a rule does when it matches.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum Action {
    /// Stop the call (or the turn) with a message.
    Block {
        /// Message template shown to the model (or user).
        message: String,
        /// pre_llm_call: what stands in the transcript for the withheld message.
        #[serde(default, skip_serializing_if = "Option::is_none")]
        placeholder: Option<String>,
    },
    /// Ask a human.
    Approve {
        /// Message template for the approval prompt.
        message: String,
        /// Approval scope key.
        #[serde(default, skip_serializing_if = "Option::is_none")]
        key: Option<String>,
    },
    /// Change one argument.
    Modify {
        /// The field assigned, e.g. `args.command`.
        field: Spanned<FieldPath>,
        /// Its new value.
        value: Expr,
    },
    /// Add context to the user message (pre_llm_call).
    Context {
        /// Text template.
        text: String,
    },
    /// Redact what a regex finds.
    Redact {
        /// The detector regex.
        pattern: RegexLit,
        /// How a finding is replaced.
        replace: RedactReplace,
    },
}

/// The replacement of a redaction rule.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum RedactReplace {
    /// `with "[REDACTED:label]"`: the finding is replaced.
    With(String),
    /// `withhold "message"`: the whole text is replaced.
    Withhold(String),
}

/// Options only redaction rules take.
#[derive(Clone, Debug, Default, Serialize, Deserialize)]
pub struct RedactOptions {
    /// Capture group holding the secret.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub capture: Option<Spanned<u32>>,
    /// Anchor literals (default: extracted from the regex).
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub keywords: Vec<String>,
    /// Validator name (`luhn`, `iban`, `ssn`, `github_crc32`, `jwt`).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub validate: Option<Spanned<String>>,
    /// Shannon-entropy floor, bits per character.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub min_entropy: Option<f64>,
    /// Allowlisted exact values.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub allow: Vec<String>,
    /// Allowlisted value patterns.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub allow_patterns: Vec<RegexLit>,
    /// Replacement style.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub style: Option<Spanned<Style>>,
    /// Also redact inside JSON object keys.
    #[serde(default, skip_serializing_if = "std::ops::Not::not")]
    pub keys: bool,
    /// Where redaction options were written (for "only redaction rules take options").
    #[serde(skip)]
    pub first_span: Option<Span>,
}

impl PartialEq for RedactOptions {
    /// Equal when every option is; where they were written does not count.
    fn eq(&self, o: &Self) -> bool {
        self.capture == o.capture
            && self.keywords == o.keywords
            && self.validate == o.validate
            && self.min_entropy == o.min_entropy
            && self.allow == o.allow
            && self.allow_patterns == o.allow_patterns
            && self.style == o.style
            && self.keys == o.keys
    }
}

impl RedactOptions {
    /// True when no option is set.
    pub fn is_empty(&self) -> bool {
        self.capture.is_none()
            && self.keywords.is_empty()
            && self.validate.is_none()
            && self.min_entropy.is_none()
            && self.allow.is_empty()
            && self.allow_patterns.is_empty()
            && self.style.is_none()
            && !self.keys
    }
}

/// How a redacted value is shown.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum Style {
    /// The rule's replacement text (default).
    Label,
    /// Keep the first N characters, then `…[REDACTED]`.
    Prefix(u32),
    /// `[NAME_1]`, the same number for the same value within one input.
    Numbered(String),
}

/// A `/pattern/flags` literal.
#[derive(Clone, Debug, Serialize, Deserialize)]
pub struct RegexLit {
    /// The pattern, with `\/` already unescaped.
    pub pattern: String,
    /// Flags: any of `i`, `s`, `m`, `x`.
    #[serde(default, skip_serializing_if = "String::is_empty")]
    pub flags: String,
    /// Where the pattern body starts (for errors pointing into the regex).
    #[serde(skip)]
    pub span: Span,
}

impl PartialEq for RegexLit {
    /// Equal when pattern and flags are; the span does not count.
    fn eq(&self, o: &Self) -> bool {
        self.pattern == o.pattern && self.flags == o.flags
    }
}

impl RegexLit {
    /// The pattern with its flags inlined, as the `regex` crate takes it.
    pub fn source(&self) -> String {
        if self.flags.is_empty() {
            self.pattern.clone()
        } else {
            format!("(?{}){}", self.flags, self.pattern)
        }
    }
}

/// A condition.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum Cond {
    /// All must hold.
    And(Vec<Cond>),
    /// At least one must hold.
    Or(Vec<Cond>),
    /// Must not hold.
    Not(Box<Cond>),
    /// `true` / `false`.
    Const(bool),
    /// A `define`d condition, by name.
    Ref(Spanned<String>),
    /// `FIELD OP OPERAND [nocase]`.
    Compare(Compare),
    /// `FIELD exists`.
    Exists(Spanned<FieldPath>),
    /// `path(FIELD) under TARGET`.
    Under(Under),
    /// A predicate over the parsed command line (`command rm with …`).
    Shell(Spanned<ShellPred>),
}

/// A predicate over the simple commands a command line would run.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum ShellPred {
    /// `command PROGRAMS [with QUAL, …]`: some simple command runs one of
    /// the programs and satisfies every qualifier.
    Command {
        /// Program names (`python*` matches by prefix).
        programs: Words,
        /// Qualifiers that must all hold for the same command.
        #[serde(default, skip_serializing_if = "Vec::is_empty")]
        with: Vec<ShellQual>,
    },
    /// `command unknown`: what runs cannot be known statically.
    Unknown,
    /// `pipe from A to B`: output of a command in A feeds one in B.
    Pipe {
        /// Producers.
        from: Words,
        /// Consumers.
        to: Words,
    },
    /// `redirect to under PATHS` / `redirect to glob PATTERNS`: a write redirection's target.
    Redirect {
        /// Under one of these paths.
        #[serde(default, skip_serializing_if = "Option::is_none")]
        under: Option<Operand>,
        /// Matching one of these globs.
        #[serde(default, skip_serializing_if = "Option::is_none")]
        glob: Option<Operand>,
    },
}

/// Words in a shell predicate: one (quoted or bare) or a list.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum Words {
    /// A quoted word: always literal.
    Quoted(String),
    /// A bare word: a `list` name if one exists, else literal.
    Bare(String),
    /// `[a, b]`.
    List(Vec<String>),
}

/// A qualifier of `command … with`.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum ShellQual {
    /// `flags [a, b]`: every flag present.
    Flags(Words),
    /// `any_flag [a, b]`: at least one present.
    AnyFlag(Words),
    /// `flag a`.
    Flag(String),
    /// `subcommand push` / `subcommand ["delete namespace"]`: the leading
    /// positional words.
    Subcommand(Words),
    /// `dynamic_args`: some argument is not statically known.
    DynamicArgs,
    /// `arg under PATHS`: some argument's path lies under one.
    ArgUnder(Operand),
    /// `arg is PATHS`: some argument's path is one (`/*` counts as `/`).
    ArgIs(Operand),
    /// `arg resembles NAMES`: some argument names a package one typo away from one of
    /// the names but is none of them (`reqeusts` for `requests`, `crossenv` for `cross-env`).
    ArgResembles(Operand),
    /// `arg OP OPERAND [nocase]`: some argument's text satisfies the test;
    /// `arg path OP OPERAND [nocase]`: some argument's text or the path it names
    /// (normalised: `~`, `.`, `..`, `//` and a relative path after `cd` resolved) does.
    Arg {
        /// The operator.
        op: Op,
        /// The operand.
        operand: Operand,
        /// Ignore case.
        #[serde(default, skip_serializing_if = "std::ops::Not::not")]
        nocase: bool,
        /// `arg path …`: the normalised path is tested too.
        #[serde(default, skip_serializing_if = "std::ops::Not::not")]
        path: bool,
    },
}

/// A comparison atom.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct Compare {
    /// Left-hand side.
    pub field: Spanned<FieldPath>,
    /// The operator.
    pub op: Spanned<Op>,
    /// Right-hand side.
    pub operand: Spanned<Operand>,
    /// Compare ignoring ASCII/Unicode case.
    #[serde(default, skip_serializing_if = "std::ops::Not::not")]
    pub nocase: bool,
}

/// `path(FIELD) under TARGET`.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct Under {
    /// The field holding a path.
    pub field: Spanned<FieldPath>,
    /// A path, a list of paths, a list name or a field (`cwd`).
    pub target: Spanned<Operand>,
}

/// Comparison operators.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum Op {
    /// `==`
    Eq,
    /// `!=`
    Ne,
    /// `in`
    In,
    /// `contains`
    Contains,
    /// `starts_with`
    StartsWith,
    /// `ends_with`
    EndsWith,
    /// `matches`
    Matches,
    /// `glob`
    Glob,
    /// `detects`
    Detects,
}

impl Op {
    /// The operator as written.
    pub fn as_str(self) -> &'static str {
        match self {
            Op::Eq => "==",
            Op::Ne => "!=",
            Op::In => "in",
            Op::Contains => "contains",
            Op::StartsWith => "starts_with",
            Op::EndsWith => "ends_with",
            Op::Matches => "matches",
            Op::Glob => "glob",
            Op::Detects => "detects",
        }
    }
}

/// The right-hand side of a comparison.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum Operand {
    /// A single scalar.
    Value(Scalar),
    /// A literal list.
    List(Vec<Scalar>),
    /// A bare name: a `list`, or (for `under`) a field such as `cwd`.
    Name(FieldPath),
    /// A regex literal.
    Regex(RegexLit),
}

/// A scalar literal. In YAML/JSON it is the bare value; in binary formats
/// (the compiled-policy cache) it is tagged, as those cannot guess a type.
#[derive(Clone, Debug, PartialEq)]
pub enum Scalar {
    /// `null`
    Null,
    /// `true` / `false`
    Bool(bool),
    /// A number.
    Num(serde_json::Number),
    /// A string.
    Str(String),
}

#[derive(Serialize, Deserialize)]
#[serde(untagged)]
enum BareScalar {
    Null(()),
    Bool(bool),
    Num(serde_json::Number),
    Str(String),
}

#[derive(Serialize, Deserialize)]
enum TaggedScalar {
    Null,
    Bool(bool),
    Num(String),
    Str(String),
}

impl Serialize for Scalar {
    fn serialize<S: serde::Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        if s.is_human_readable() {
            match self {
                Scalar::Null => s.serialize_unit(),
                Scalar::Bool(b) => s.serialize_bool(*b),
                Scalar::Num(n) => n.serialize(s),
                Scalar::Str(x) => s.serialize_str(x),
            }
        } else {
            match self {
                Scalar::Null => TaggedScalar::Null,
                Scalar::Bool(b) => TaggedScalar::Bool(*b),
                Scalar::Num(n) => TaggedScalar::Num(n.to_string()),
                Scalar::Str(x) => TaggedScalar::Str(x.clone()),
            }
            .serialize(s)
        }
    }
}

impl<'de> Deserialize<'de> for Scalar {
    fn deserialize<D: serde::Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
        if d.is_human_readable() {
            Ok(match BareScalar::deserialize(d)? {
                BareScalar::Null(()) => Scalar::Null,
                BareScalar::Bool(b) => Scalar::Bool(b),
                BareScalar::Num(n) if Scalar::writable(&n) => Scalar::Num(n),
                BareScalar::Num(n) => {
                    return Err(serde::de::Error::custom(format!(
                        "number {n} out of range: {NUMBER_RANGE}"
                    )))
                }
                BareScalar::Str(s) => Scalar::Str(s),
            })
        } else {
            Ok(match TaggedScalar::deserialize(d)? {
                TaggedScalar::Null => Scalar::Null,
                TaggedScalar::Bool(b) => Scalar::Bool(b),
                TaggedScalar::Num(n) => Scalar::Num(n.parse().map_err(serde::de::Error::custom)?),
                TaggedScalar::Str(s) => Scalar::Str(s),
            })
        }
    }
}

/// What a policy's number may be (the message of a number that is not).
pub(crate) const NUMBER_RANGE: &str =
    "an integer must fit in 64 bits, a decimal between about 1e-5 and 1e16";

impl Scalar {
    /// Can the formatter write `n` back in the grammar (`-?digits(.digits)?`)? An integer
    /// that fits in 64 bits, or a decimal whose nearest f64 prints without an exponent
    /// (73 sevens become `7.777777777777778e72`, which no policy text can hold).
    pub(crate) fn writable(n: &serde_json::Number) -> bool {
        n.is_i64() || n.is_u64() || !n.to_string().contains(['e', 'E'])
    }

    /// The string, if this is one.
    pub fn as_str(&self) -> Option<&str> {
        match self {
            Scalar::Str(s) => Some(s),
            _ => None,
        }
    }

    /// As a JSON value.
    pub fn to_json(&self) -> serde_json::Value {
        match self {
            Scalar::Null => serde_json::Value::Null,
            Scalar::Bool(b) => serde_json::Value::Bool(*b),
            Scalar::Num(n) => serde_json::Value::Number(n.clone()),
            Scalar::Str(s) => serde_json::Value::String(s.clone()),
        }
    }
}

/// An expression on the right of a `modify`.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum Expr {
    /// A literal (strings are templates).
    Value(Scalar),
    /// Another field's value.
    Field(Spanned<FieldPath>),
    /// `replace(EXPR, /re/, "replacement")`.
    Replace {
        /// The input.
        input: Box<Expr>,
        /// What to find.
        pattern: RegexLit,
        /// What to put instead (`$1` refers to groups).
        with: String,
    },
}

/// A dotted field path as written: `args.edits[0].path`.
#[derive(Clone, Debug, PartialEq, Eq, Hash)]
pub struct FieldPath {
    /// Segments; the first is always a key.
    pub segments: Vec<Segment>,
}

/// One segment of a field path.
#[derive(Clone, Debug, PartialEq, Eq, Hash)]
pub enum Segment {
    /// `.name`
    Key(String),
    /// `[3]`
    Index(usize),
}

impl FieldPath {
    /// The first segment's name.
    pub fn root(&self) -> &str {
        match self.segments.first() {
            Some(Segment::Key(k)) => k,
            _ => "",
        }
    }

    /// Parse `a.b[0].c`; `None` if malformed.
    pub fn parse(text: &str) -> Option<FieldPath> {
        let mut segments = Vec::new();
        for (i, part) in text.split('.').enumerate() {
            let (name, mut rest) = match part.find('[') {
                Some(p) => (&part[..p], &part[p..]),
                None => (part, ""),
            };
            if name.is_empty() && (i == 0 || rest.is_empty()) {
                return None;
            }
            if !name.is_empty() {
                segments.push(Segment::Key(name.to_string()));
            }
            while let Some(r) = rest.strip_prefix('[') {
                let close = r.find(']')?;
                segments.push(Segment::Index(r[..close].parse().ok()?));
                rest = &r[close + 1..];
            }
            if !rest.is_empty() {
                return None;
            }
        }
        (!segments.is_empty()).then_some(FieldPath { segments })
    }
}

impl std::fmt::Display for FieldPath {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        for (i, s) in self.segments.iter().enumerate() {
            match s {
                Segment::Key(k) if i == 0 => write!(f, "{k}")?,
                Segment::Key(k) => write!(f, ".{k}")?,
                Segment::Index(n) => write!(f, "[{n}]")?,
            }
        }
        Ok(())
    }
}

impl Serialize for FieldPath {
    fn serialize<S: serde::Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        s.collect_str(self)
    }
}

impl<'de> Deserialize<'de> for FieldPath {
    fn deserialize<D: serde::Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
        let text = String::deserialize(d)?;
        FieldPath::parse(&text)
            .ok_or_else(|| serde::de::Error::custom(format!("malformed field path `{text}`")))
    }
}

/// An exemption carved out of a rule.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct Exempt {
    /// The rule id (or `prefix.*`) it applies to.
    pub rule: Spanned<String>,
    /// Only when this holds (absent = always).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub when: Option<Cond>,
    /// Why; required.
    pub because: String,
    /// Last day it applies, `YYYY-MM-DD`.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub until: Option<Spanned<String>>,
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn field_paths_round_trip() {
        for p in [
            "tool",
            "args.command",
            "args.edits[0].path",
            "extra.a[1][2].b-c",
        ] {
            assert_eq!(FieldPath::parse(p).unwrap().to_string(), p);
        }
        for bad in ["", ".a", "a..b", "a[x]", "a[1"] {
            assert!(FieldPath::parse(bad).is_none(), "{bad}");
        }
    }
}

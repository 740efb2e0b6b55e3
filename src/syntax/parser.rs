//! Text → [`PolicyFile`]: the pest binding and the tree builder.
//!
//! A syntax error does not stop the parse: the parser records it, skips to the
//! next line that starts a top-level item (`rule`, `list`, …) and goes on, so
//! one run reports every broken item in a file.
//!
//! Over 800 lines on purpose: one builder per grammar rule (about 60), its error recovery
//! and the words for pest's rule names belong together; its tests are a third of it.

use super::ast::*;
use crate::diag::{Code, Diagnostic, SourceFile, Span};
use pest::iterators::Pair;
use pest::Parser;
use std::sync::Arc;

/// The pest binding; private, so its generated `Rule` enum stays an
/// implementation detail (errors are described in words by `rule_words`).
mod grammar {
    #[derive(pest_derive::Parser)]
    #[grammar = "../grammar/policy.pest"]
    pub(super) struct PolicyParser;
}
use grammar::{PolicyParser, Rule};

/// Parse one policy file. Returns the tree of everything that parsed and the
/// diagnostics for what did not.
pub fn parse(file: &Arc<SourceFile>) -> (PolicyFile, Vec<Diagnostic>) {
    let text = file.text.as_str();
    let mut out = PolicyFile {
        items: Vec::new(),
        comments: collect_comments(text),
    };
    let mut diags = Vec::new();
    let mut offset = 0;
    while offset < text.len() {
        let rest = &text[offset..];
        match PolicyParser::parse(Rule::file, rest) {
            Ok(mut pairs) => {
                // The tree builder, the checker and every later stage recurse over
                // conditions: refuse absurd nesting here, with a located error.
                if let Some((at, depth)) = too_deep(pairs.clone()) {
                    let at = offset + at;
                    diags.push(
                        Diagnostic::error(
                            Code::TooDeep,
                            file,
                            Span::new(at, at + 1),
                            format!("this condition is nested {depth} levels deep; the limit is {MAX_DEPTH}"),
                        )
                        .with_label("too deeply nested")
                        .with_help("split it into named conditions (`define`) of a few levels each"),
                    );
                    break;
                }
                let b = Builder {
                    file,
                    offset,
                    diags: &mut diags,
                };
                b.file(pairs.next().expect("file rule"), &mut out.items);
                break;
            }
            Err(e) => {
                let (pos, message, help) = describe(&e, rest);
                let at = offset + pos;
                let end = token_end(text, at);
                diags.push(
                    Diagnostic::error(Code::Syntax, file, Span::new(at, end), message)
                        .with_label("here")
                        .with_help_opt(help),
                );
                // Parse the items before the error (they may be fine) from a truncated copy.
                let item_start = last_item_start(text, offset, at);
                if item_start > offset {
                    if let Ok(mut pairs) =
                        PolicyParser::parse(Rule::file, &text[offset..item_start])
                    {
                        let b = Builder {
                            file,
                            offset,
                            diags: &mut diags,
                        };
                        b.file(pairs.next().expect("file rule"), &mut out.items);
                    }
                }
                match next_item_start(text, at) {
                    Some(next) => offset = next,
                    None => break,
                }
            }
        }
    }
    (out, diags)
}

/// The deepest a condition may nest (parentheses, `not`s and `replace(…)` calls
/// together). Written policies stay far below it; the stages after parsing recurse
/// over conditions, so without a bound a hostile file could overflow the stack.
pub const MAX_DEPTH: usize = 100;

/// The first place (offset, depth) where a parse nests deeper than [`MAX_DEPTH`].
/// Iterative over pest's flat token queue, so it cannot overflow itself.
fn too_deep(pairs: pest::iterators::Pairs<Rule>) -> Option<(usize, usize)> {
    // ends of the open nesting pairs, each with the depth it adds
    let mut open: Vec<(usize, usize)> = Vec::new();
    let mut depth = 0;
    for p in pairs.flatten() {
        let span = p.as_span();
        while open.last().is_some_and(|&(end, _)| end <= span.start()) {
            depth -= open.pop().map_or(0, |(_, d)| d);
        }
        let add = match p.as_rule() {
            Rule::condition | Rule::replace_call | Rule::not_op => 1,
            Rule::unary => 0,
            _ => continue,
        };
        // a `not` applies to the rest of its `unary` (the pair just before it)
        let end = if p.as_rule() == Rule::not_op {
            open.last().map_or(span.end(), |&(end, _)| end)
        } else {
            span.end()
        };
        depth += add;
        if depth > MAX_DEPTH {
            return Some((span.start(), depth));
        }
        open.push((end, add));
    }
    None
}

const ITEM_KEYWORDS: [&str; 5] = ["rule", "list", "define", "exempt", "pack"];

fn line_starts_item(line: &str) -> bool {
    let t = line.trim_start();
    ITEM_KEYWORDS.iter().any(|k| {
        t.strip_prefix(k)
            .is_some_and(|r| r.starts_with([' ', '\t']))
    })
}

/// Byte offset of the first line after `at` that starts a top-level item.
fn next_item_start(text: &str, at: usize) -> Option<usize> {
    let mut pos = text[at..].find('\n').map(|i| at + i + 1)?;
    while pos < text.len() {
        let line_end = text[pos..].find('\n').map_or(text.len(), |i| pos + i);
        if line_starts_item(&text[pos..line_end]) {
            return Some(pos);
        }
        pos = line_end + 1;
    }
    None
}

/// Start of the line of the last top-level item that begins at or before `at`.
fn last_item_start(text: &str, from: usize, at: usize) -> usize {
    let mut best = from;
    let mut pos = from;
    while pos <= at && pos < text.len() {
        let line_end = text[pos..].find('\n').map_or(text.len(), |i| pos + i);
        if line_starts_item(&text[pos..line_end]) {
            best = pos;
        }
        pos = line_end + 1;
    }
    best
}

fn token_end(text: &str, at: usize) -> usize {
    let rest = &text[at.min(text.len())..];
    let n = rest.find(|c: char| c.is_whitespace()).unwrap_or(rest.len());
    let n = if n == 0 {
        rest.chars().next().map_or(0, char::len_utf8)
    } else {
        n
    };
    at + n
}

fn collect_comments(text: &str) -> Vec<(usize, String)> {
    // A `#` starts a comment unless it is inside a string or a regex literal.
    let mut out = Vec::new();
    let bytes = text.as_bytes();
    let mut i = 0;
    let mut in_str = false;
    let mut in_re = false;
    while i < bytes.len() {
        let c = bytes[i];
        if in_str || in_re {
            if c == b'\\' {
                i += 2;
                continue;
            }
            if (in_str && c == b'"') || (in_re && c == b'/') || c == b'\n' {
                in_str = false;
                in_re = false;
            }
        } else if c == b'"' {
            in_str = true;
        } else if c == b'/' {
            in_re = true;
        } else if c == b'#' {
            let end = text[i..].find('\n').map_or(text.len(), |n| i + n);
            out.push((i, text[i..end].trim_end().to_string()));
            i = end;
            continue;
        }
        i += 1;
    }
    out
}

/// Human words for what the parser expected.
fn rule_words(r: &Rule) -> Option<&'static str> {
    Some(match r {
        Rule::EOI => "end of file",
        Rule::item | Rule::pack | Rule::list_def | Rule::define | Rule::rule | Rule::exempt => {
            "a top-level item (`rule`, `list`, `define`, `exempt` or `pack`)"
        }
        Rule::rule_id | Rule::rule_pattern => "a dotted id such as `git.force_push`",
        Rule::ident | Rule::macro_ref | Rule::list_ref => "a name",
        Rule::string | Rule::str_inner => "a string in double quotes",
        Rule::regex | Rule::regex_body => "a regex such as /pattern/i",
        Rule::regex_flags => "regex flags (i, s, m, x)",
        Rule::list_lit => "a list such as [\"a\", \"b\"]",
        Rule::number | Rule::integer => "a number",
        Rule::semver => "a version such as 1.2.0",
        Rule::version_req => "a version requirement such as >= 0.1",
        Rule::date => "a date such as 2027-03-31",
        Rule::condition | Rule::or_cond | Rule::and_cond | Rule::unary | Rule::atom | Rule::compare => {
            "a condition"
        }
        Rule::field => "a field such as args.command",
        Rule::op | Rule::in_op | Rule::contains_op | Rule::starts_op | Rule::ends_op | Rule::matches_op | Rule::glob_op | Rule::detects_op => {
            "an operator (==, !=, in, contains, starts_with, ends_with, matches, glob, detects)"
        }
        Rule::expr | Rule::replace_call => "a value, a field or replace(...)",
        Rule::description
        | Rule::severity
        | Rule::tags
        | Rule::on_events
        | Rule::when_clause
        | Rule::unless_clause
        | Rule::block_action
        | Rule::approve_action
        | Rule::modify_action
        | Rule::context_action
        | Rule::redact_action
        | Rule::capture_opt
        | Rule::keywords_opt
        | Rule::validate_opt
        | Rule::entropy_opt
        | Rule::allow_opt
        | Rule::style_opt
        | Rule::keys_opt => "a rule entry (`on`, `when`, `unless`, `block`, `approve`, `modify`, `context`, `redact`, …)",
        Rule::redact_with | Rule::redact_withhold => "`with \"replacement\"` or `withhold \"message\"`",
        Rule::style_label | Rule::style_prefix | Rule::style_numbered => "a style (`label`, `prefix N`, `numbered \"NAME\"`)",
        Rule::bool_lit => "true or false",
        Rule::null_lit => "null",
        Rule::nocase => "`nocase`",
        _ => return None,
    })
}

fn describe(e: &pest::error::Error<Rule>, text: &str) -> (usize, String, Option<String>) {
    let pos = match e.location {
        pest::error::InputLocation::Pos(p) => p,
        pest::error::InputLocation::Span((s, _)) => s,
    };
    let found = match text[pos..].chars().next() {
        None => "end of file".to_string(),
        Some(_) => {
            let tok: String = text[pos..]
                .chars()
                .take_while(|c| !c.is_whitespace())
                .take(20)
                .collect();
            format!("`{tok}`")
        }
    };
    let mut expected: Vec<&str> = match &e.variant {
        pest::error::ErrorVariant::ParsingError { positives, .. } => {
            positives.iter().filter_map(rule_words).collect()
        }
        pest::error::ErrorVariant::CustomError { .. } => Vec::new(),
    };
    expected.sort_unstable();
    expected.dedup();
    const ENTRY: &str = "a rule entry (`on`, `when`, `unless`, `block`, `approve`, `modify`, `context`, `redact`, …)";
    const OPERATOR: &str =
        "an operator (==, !=, in, contains, starts_with, ends_with, matches, glob, detects)";
    // After a field, an operator is what was meant; "or a rule entry" is noise.
    if expected.contains(&OPERATOR) {
        expected.retain(|e| *e != ENTRY);
    }
    let line_end = text[pos..].find('\n').map_or(text.len(), |i| pos + i);
    let rest_of_line = &text[pos..line_end];
    // A string that opens here and never closes on its line.
    if rest_of_line.starts_with('"') && !rest_of_line[1..].replace("\\\"", "").contains('"') {
        return (
            pos,
            "this string is never closed".into(),
            Some("strings end with `\"` on the same line".into()),
        );
    }
    if rest_of_line.starts_with('[') && !rest_of_line.contains(']') {
        return (
            pos,
            "this list is never closed: missing `]`".into(),
            Some("lists look like [\"a\", \"b\"]".into()),
        );
    }
    if let Some(h) = unclosed_hint(text, pos) {
        return (
            pos,
            format!("expected {}, found {found}", join_or(&expected)),
            Some(h),
        );
    }
    // End of file inside a rule: the rule's `{` was never closed.
    if found == "end of file" && expected.contains(&ENTRY) {
        if let Some(i) = text[..pos].rfind("rule ") {
            let name: String = text[i + 5..]
                .chars()
                .take_while(|c| !c.is_whitespace() && *c != '{')
                .collect();
            let brace = text[i..pos].find('{').map_or(i, |b| i + b);
            let msg = format!("rule `{name}` is never closed: missing `}}`");
            return (
                brace,
                msg,
                Some("this `{` opens the rule body; close it with `}`".into()),
            );
        }
    }
    let help = if expected.contains(&OPERATOR)
        && rest_of_line.starts_with('=')
        && !rest_of_line.starts_with("==")
    {
        Some("did you mean `==`?".to_string())
    } else {
        None
    };
    let message = if expected.is_empty() {
        format!("unexpected {found}")
    } else {
        format!("expected {}, found {found}", join_or(&expected))
    };
    (pos, message, help)
}

fn unclosed_hint(text: &str, pos: usize) -> Option<String> {
    let line_start = text[..pos].rfind('\n').map_or(0, |i| i + 1);
    let line = &text[line_start..pos];
    let quotes = line.bytes().filter(|&b| b == b'"').count() - line.matches("\\\"").count();
    (quotes % 2 == 1)
        .then(|| "a string is not closed on this line; strings end with `\"`".to_string())
}

fn join_or(words: &[&str]) -> String {
    match words {
        [] => String::new(),
        [one] => (*one).to_string(),
        [init @ .., last] => format!("{} or {}", init.join(", "), last),
    }
}

struct Builder<'a> {
    file: &'a Arc<SourceFile>,
    offset: usize,
    diags: &'a mut Vec<Diagnostic>,
}

impl Builder<'_> {
    fn span(&self, p: &Pair<Rule>) -> Span {
        let s = p.as_span();
        Span::new(self.offset + s.start(), self.offset + s.end())
    }

    fn spanned<T>(&self, p: &Pair<Rule>, node: T) -> Spanned<T> {
        Spanned::new(node, self.span(p))
    }

    fn error(&mut self, span: Span, msg: String) {
        self.diags
            .push(Diagnostic::error(Code::Syntax, self.file, span, msg).with_label("here"));
    }

    fn file(mut self, p: Pair<Rule>, items: &mut Vec<Item>) {
        for item in p.into_inner() {
            let built = match item.as_rule() {
                Rule::pack => Some(Item::Pack(self.pack(item))),
                Rule::list_def => {
                    let mut it = item.into_inner();
                    let name = it.next().expect("name");
                    let name = self.spanned(&name, name.as_str().to_string());
                    let values = self.list_lit(it.next().expect("list"));
                    Some(Item::List(ListDef { name, values }))
                }
                Rule::define => {
                    let mut it = item.into_inner();
                    let name = it.next().expect("name");
                    let name = self.spanned(&name, name.as_str().to_string());
                    let condition = self.condition(it.next().expect("condition"));
                    Some(Item::Define(Define { name, condition }))
                }
                Rule::rule => Some(Item::Rule(self.rule(item))),
                Rule::exempt => Some(Item::Exempt(self.exempt(item))),
                _ => None,
            };
            items.extend(built);
        }
    }

    fn pack(&mut self, p: Pair<Rule>) -> PackDecl {
        let mut it = p.into_inner();
        let name = it.next().expect("name");
        let version = it.next().expect("version");
        let requires = it.next().map(|r| {
            let v = r.into_inner().next().expect("req");
            self.spanned(&v, v.as_str().to_string())
        });
        PackDecl {
            name: self.spanned(&name, name.as_str().to_string()),
            version: self.spanned(&version, version.as_str().to_string()),
            requires,
        }
    }

    fn rule(&mut self, p: Pair<Rule>) -> Rule_ {
        let mut it = p.into_inner();
        let id = it.next().expect("id");
        let mut r = Rule_ {
            id: self.spanned(&id, id.as_str().to_string()),
            description: None,
            severity: None,
            tags: None,
            on: Vec::new(),
            when: None,
            unless: None,
            actions: Vec::new(),
            options: RedactOptions::default(),
        };
        for entry in it {
            let span = self.span(&entry);
            let kind = entry.as_rule();
            if is_option(kind) && r.options.first_span.is_none() {
                r.options.first_span = Some(span);
            }
            let mut inner = entry.into_inner();
            match kind {
                Rule::description => {
                    let d = self.string(inner.next().expect("s"));
                    self.once(&mut r.description, span, "description", |_| {
                        Spanned::new(d, span)
                    })
                }
                Rule::severity => {
                    let s = inner.next().expect("sev");
                    let v = self.spanned(&s, s.as_str().to_string());
                    self.once(&mut r.severity, span, "severity", |_| v)
                }
                Rule::tags => {
                    let tags = self.list_lit(inner.next().expect("tags"));
                    let tags = tags.into_iter().map(|t| scalar_text(&t.node)).collect();
                    self.once(&mut r.tags, span, "tags", |_| Spanned::new(tags, span))
                }
                Rule::on_events => {
                    r.on.extend(inner.map(|e| self.spanned(&e, e.as_str().to_string())))
                }
                Rule::when_clause => {
                    let c = self.condition(inner.next().expect("cond"));
                    self.once(&mut r.when, span, "when", |_| c)
                }
                Rule::unless_clause => {
                    let c = self.condition(inner.next().expect("cond"));
                    self.once(&mut r.unless, span, "unless", |_| c)
                }
                Rule::block_action => {
                    let message = self.string(inner.next().expect("msg"));
                    let placeholder = inner.next().map(|p| self.string(p));
                    r.actions.push(Spanned::new(
                        Action::Block {
                            message,
                            placeholder,
                        },
                        span,
                    ));
                }
                Rule::approve_action => {
                    let message = self.string(inner.next().expect("msg"));
                    let key = inner.next().map(|p| self.string(p));
                    r.actions
                        .push(Spanned::new(Action::Approve { message, key }, span));
                }
                Rule::modify_action => {
                    let f = inner.next().expect("field");
                    let field = self.field(f);
                    let value = self.expr(inner.next().expect("expr"));
                    r.actions
                        .push(Spanned::new(Action::Modify { field, value }, span));
                }
                Rule::context_action => {
                    let text = self.string(inner.next().expect("text"));
                    r.actions.push(Spanned::new(Action::Context { text }, span));
                }
                Rule::redact_action => {
                    let pattern = self.regex(inner.next().expect("re"));
                    let how = inner.next().expect("with");
                    let kind = how.as_rule();
                    let s = self.string(how.into_inner().next().expect("s"));
                    let replace = if kind == Rule::redact_with {
                        RedactReplace::With(s)
                    } else {
                        RedactReplace::Withhold(s)
                    };
                    r.actions
                        .push(Spanned::new(Action::Redact { pattern, replace }, span));
                }
                Rule::capture_opt => {
                    let n = inner.next().expect("n");
                    match n.as_str().parse::<u32>() {
                        Ok(v) => {
                            let v = self.spanned(&n, v);
                            self.once(&mut r.options.capture, span, "capture", |_| v)
                        }
                        Err(_) => self.error(span, "capture group number is too large".into()),
                    }
                }
                Rule::keywords_opt => {
                    let list = self.list_lit(inner.next().expect("list"));
                    r.options
                        .keywords
                        .extend(list.into_iter().map(|s| scalar_text(&s.node)));
                }
                Rule::validate_opt => {
                    let v = inner.next().expect("v");
                    let v = self.spanned(&v, v.as_str().to_string());
                    self.once(&mut r.options.validate, span, "validate", |_| v)
                }
                Rule::entropy_opt => {
                    let n = inner.next().expect("n");
                    let v = n.as_str().parse::<f64>().unwrap_or(0.0);
                    self.once(&mut r.options.min_entropy, span, "min_entropy", |_| v)
                }
                Rule::allow_opt => {
                    let a = inner.next().expect("allow");
                    if a.as_rule() == Rule::regex {
                        let re = self.regex(a);
                        r.options.allow_patterns.push(re);
                    } else {
                        let list = self.list_lit(a);
                        r.options
                            .allow
                            .extend(list.into_iter().map(|s| scalar_text(&s.node)));
                    }
                }
                Rule::style_opt => {
                    let s = inner.next().expect("style");
                    let style = match s.as_rule() {
                        Rule::style_prefix => Style::Prefix(
                            s.into_inner()
                                .next()
                                .expect("n")
                                .as_str()
                                .parse()
                                .unwrap_or(4),
                        ),
                        Rule::style_numbered => {
                            Style::Numbered(self.string(s.into_inner().next().expect("s")))
                        }
                        _ => Style::Label,
                    };
                    self.once(&mut r.options.style, span, "style", |_| {
                        Spanned::new(style, span)
                    })
                }
                Rule::keys_opt => r.options.keys = true,
                _ => {}
            }
        }
        r
    }

    /// Set a once-only rule entry, reporting a duplicate.
    fn once<T>(
        &mut self,
        slot: &mut Option<T>,
        span: Span,
        what: &str,
        make: impl FnOnce(&mut Self) -> T,
    ) {
        if slot.is_some() {
            self.diags.push(
                Diagnostic::error(
                    Code::DuplicateEntry,
                    self.file,
                    span,
                    format!("`{what}` is given twice in this rule"),
                )
                .with_label("second one here")
                .with_help(match what {
                    "when" | "unless" => "combine the conditions with `and` / `or`".to_string(),
                    _ => format!("keep one `{what}`"),
                }),
            );
        } else {
            *slot = Some(make(self));
        }
    }

    fn exempt(&mut self, p: Pair<Rule>) -> Exempt {
        let mut rule = None;
        let mut when = None;
        let mut because = String::new();
        let mut until = None;
        for part in p.into_inner() {
            match part.as_rule() {
                Rule::rule_pattern => rule = Some(self.spanned(&part, part.as_str().to_string())),
                Rule::condition => when = Some(self.condition(part)),
                Rule::string => because = self.string(part),
                Rule::date => until = Some(self.spanned(&part, part.as_str().to_string())),
                _ => {}
            }
        }
        Exempt {
            rule: rule.expect("rule pattern"),
            when,
            because,
            until,
        }
    }

    fn condition(&mut self, p: Pair<Rule>) -> Cond {
        match p.as_rule() {
            Rule::condition => self.condition(p.into_inner().next().expect("or")),
            Rule::or_cond | Rule::and_cond => {
                let is_or = p.as_rule() == Rule::or_cond;
                let mut parts: Vec<Cond> = p
                    .into_inner()
                    .filter(|c| !matches!(c.as_rule(), Rule::kw_and | Rule::kw_or))
                    .map(|c| self.condition(c))
                    .collect();
                if parts.len() == 1 {
                    parts.pop().expect("one")
                } else if is_or {
                    Cond::Or(parts)
                } else {
                    Cond::And(parts)
                }
            }
            Rule::unary => {
                let mut nots = 0;
                let mut inner = None;
                for c in p.into_inner() {
                    if c.as_rule() == Rule::not_op {
                        nots += 1;
                    } else {
                        inner = Some(self.condition(c));
                    }
                }
                let mut c = inner.expect("primary");
                for _ in 0..nots {
                    c = Cond::Not(Box::new(c));
                }
                c
            }
            Rule::atom => self.condition(p.into_inner().next().expect("atom")),
            Rule::shell_command | Rule::shell_pipe | Rule::shell_redirect => {
                let span = self.span(&p);
                let pred = self.shell(p);
                Cond::Shell(Spanned::new(pred, span))
            }
            Rule::bool_lit => Cond::Const(p.as_str().starts_with('t')),
            Rule::macro_ref => Cond::Ref(self.spanned(&p, p.as_str().to_string())),
            Rule::exists_test => Cond::Exists(self.field(p.into_inner().next().expect("field"))),
            Rule::under_test => {
                let mut it = p.into_inner();
                let field = self.field(it.next().expect("field"));
                let t = it.next().expect("target");
                let span = self.span(&t);
                let target = Spanned::new(self.operand(t), span);
                Cond::Under(Under { field, target })
            }
            Rule::compare => {
                let mut it = p.into_inner();
                let field = self.field(it.next().expect("field"));
                let op_pair = it.next().expect("op");
                let op = self.spanned(&op_pair, parse_op(op_pair.as_str()));
                let o = it.next().expect("operand");
                let span = self.span(&o);
                let operand = Spanned::new(self.operand(o), span);
                let nocase = it.next().is_some();
                Cond::Compare(Compare {
                    field,
                    op,
                    operand,
                    nocase,
                })
            }
            other => unreachable!("unexpected condition node {other:?}"),
        }
    }

    fn shell(&mut self, p: Pair<Rule>) -> ShellPred {
        match p.as_rule() {
            Rule::shell_command => {
                let mut it = p.into_inner();
                let first = it.next().expect("programs");
                if first.as_rule() == Rule::kw_unknown {
                    return ShellPred::Unknown;
                }
                let programs = self.words(first);
                let with = it
                    .map(|q| self.qual(q.into_inner().next().expect("qual")))
                    .collect();
                ShellPred::Command { programs, with }
            }
            Rule::shell_pipe => {
                let mut it = p.into_inner();
                let from = self.words(it.next().expect("from"));
                let to = self.words(it.next().expect("to"));
                ShellPred::Pipe { from, to }
            }
            _ => {
                let t = p.into_inner().next().expect("redirect test");
                let is_under = t.as_rule() == Rule::redir_under;
                let o = self.operand(t.into_inner().next().expect("target"));
                if is_under {
                    ShellPred::Redirect {
                        under: Some(o),
                        glob: None,
                    }
                } else {
                    ShellPred::Redirect {
                        under: None,
                        glob: Some(o),
                    }
                }
            }
        }
    }

    fn qual(&mut self, q: Pair<Rule>) -> ShellQual {
        let kind = q.as_rule();
        if kind == Rule::q_dynamic {
            return ShellQual::DynamicArgs;
        }
        let mut it = q.into_inner();
        let inner = it.next().expect("qual body");
        match kind {
            Rule::q_flags => ShellQual::Flags(self.words(inner)),
            Rule::q_any_flag => ShellQual::AnyFlag(self.words(inner)),
            Rule::q_flag => ShellQual::Flag(self.word(inner)),
            Rule::q_subcommand => ShellQual::Subcommand(self.words(inner)),
            _ => match inner.as_rule() {
                Rule::arg_under => {
                    ShellQual::ArgUnder(self.operand(inner.into_inner().next().expect("t")))
                }
                Rule::arg_is => {
                    ShellQual::ArgIs(self.operand(inner.into_inner().next().expect("t")))
                }
                Rule::arg_resembles => {
                    ShellQual::ArgResembles(self.operand(inner.into_inner().next().expect("t")))
                }
                _ => {
                    let path = inner.as_rule() == Rule::arg_path;
                    let mut it = inner.into_inner();
                    let op = parse_op(it.next().expect("op").as_str());
                    let operand = self.operand(it.next().expect("operand"));
                    let nocase = it.next().is_some();
                    ShellQual::Arg {
                        op,
                        operand,
                        nocase,
                        path,
                    }
                }
            },
        }
    }

    fn words(&mut self, p: Pair<Rule>) -> Words {
        let inner = p.into_inner().next().expect("words");
        match inner.as_rule() {
            Rule::word_list => Words::List(inner.into_inner().map(|w| self.word(w)).collect()),
            Rule::string => Words::Quoted(self.string(inner)),
            _ => Words::Bare(inner.as_str().to_string()),
        }
    }

    fn word(&mut self, p: Pair<Rule>) -> String {
        if p.as_rule() == Rule::string {
            self.string(p)
        } else {
            p.as_str().to_string()
        }
    }

    fn operand(&mut self, p: Pair<Rule>) -> Operand {
        match p.as_rule() {
            Rule::regex => Operand::Regex(self.regex(p)),
            Rule::list_lit => Operand::List(self.list_lit(p).into_iter().map(|s| s.node).collect()),
            Rule::list_ref | Rule::field => {
                let text = p.as_str();
                Operand::Name(FieldPath::parse(text).unwrap_or(FieldPath {
                    segments: vec![Segment::Key(text.into())],
                }))
            }
            _ => Operand::Value(self.scalar(p)),
        }
    }

    fn expr(&mut self, p: Pair<Rule>) -> Expr {
        let inner = p.into_inner().next().expect("expr");
        match inner.as_rule() {
            Rule::replace_call => {
                let mut it = inner.into_inner();
                let input = Box::new(self.expr(it.next().expect("input")));
                let pattern = self.regex(it.next().expect("re"));
                let with = self.string(it.next().expect("with"));
                Expr::Replace {
                    input,
                    pattern,
                    with,
                }
            }
            Rule::field => Expr::Field(self.field(inner)),
            _ => Expr::Value(self.scalar(inner)),
        }
    }

    fn field(&mut self, p: Pair<Rule>) -> Spanned<FieldPath> {
        let mut segments = Vec::new();
        for part in p.clone().into_inner() {
            match part.as_rule() {
                Rule::ident | Rule::key => segments.push(Segment::Key(part.as_str().to_string())),
                Rule::index => match part.as_str().parse() {
                    Ok(n) => segments.push(Segment::Index(n)),
                    Err(_) => {
                        let span = self.span(&part);
                        self.error(span, "array index is too large".into());
                    }
                },
                _ => {}
            }
        }
        self.spanned(&p, FieldPath { segments })
    }

    fn list_lit(&mut self, p: Pair<Rule>) -> Vec<Spanned<Scalar>> {
        p.into_inner()
            .map(|s| {
                let v = self.scalar(s.clone());
                self.spanned(&s, v)
            })
            .collect()
    }

    fn scalar(&mut self, p: Pair<Rule>) -> Scalar {
        match p.as_rule() {
            Rule::string => Scalar::Str(self.string(p)),
            // kept only if the formatter can write it back (see `Scalar::writable`)
            Rule::number => match p.as_str().parse::<serde_json::Number>() {
                Ok(n) if Scalar::writable(&n) => Scalar::Num(n),
                _ => {
                    let span = self.span(&p);
                    self.error(span, format!("number out of range: {NUMBER_RANGE}"));
                    Scalar::Null
                }
            },
            Rule::bool_lit => Scalar::Bool(p.as_str().starts_with('t')),
            _ => Scalar::Null,
        }
    }

    fn string(&mut self, p: Pair<Rule>) -> String {
        let inner = p.clone().into_inner().next().expect("inner");
        let base = self.span(&inner).start;
        let raw = inner.as_str();
        let mut out = String::with_capacity(raw.len());
        let mut chars = raw.char_indices();
        while let Some((i, c)) = chars.next() {
            if c != '\\' {
                out.push(c);
                continue;
            }
            match chars.next() {
                Some((_, 'n')) => out.push('\n'),
                Some((_, 't')) => out.push('\t'),
                Some((_, 'r')) => out.push('\r'),
                Some((_, '0')) => out.push('\0'),
                Some((_, '"')) => out.push('"'),
                Some((_, '\\')) => out.push('\\'),
                Some((j, other)) => {
                    let span = Span::new(base + i, base + j + other.len_utf8());
                    self.diags.push(
                        Diagnostic::error(Code::BadEscape, self.file, span, format!("unknown escape `\\{other}` in a string"))
                            .with_label("here")
                            .with_help("strings know \\n, \\t, \\r, \\0, \\\" and \\\\; write \\\\ for a backslash"),
                    );
                }
                None => {}
            }
        }
        out
    }

    fn regex(&mut self, p: Pair<Rule>) -> RegexLit {
        let mut it = p.into_inner();
        let body = it.next().expect("body");
        let flags = it
            .next()
            .map(|f| f.as_str().to_string())
            .unwrap_or_default();
        let span = self.span(&body);
        RegexLit {
            pattern: unescape_slash(body.as_str()),
            flags,
            span,
        }
    }
}

type Rule_ = super::ast::Rule;

fn is_option(r: Rule) -> bool {
    matches!(
        r,
        Rule::capture_opt
            | Rule::keywords_opt
            | Rule::validate_opt
            | Rule::entropy_opt
            | Rule::allow_opt
            | Rule::style_opt
            | Rule::keys_opt
    )
}

fn parse_op(s: &str) -> Op {
    match s {
        "==" => Op::Eq,
        "!=" => Op::Ne,
        "in" => Op::In,
        "contains" => Op::Contains,
        "starts_with" => Op::StartsWith,
        "ends_with" => Op::EndsWith,
        "matches" => Op::Matches,
        "detects" => Op::Detects,
        _ => Op::Glob,
    }
}

/// `\/` → `/`, every other escape kept for the regex engine.
pub(crate) fn unescape_slash(body: &str) -> String {
    let mut out = String::with_capacity(body.len());
    let mut chars = body.chars();
    while let Some(c) = chars.next() {
        if c == '\\' {
            match chars.next() {
                Some('/') => out.push('/'),
                Some(n) => {
                    out.push('\\');
                    out.push(n);
                }
                None => out.push('\\'),
            }
        } else {
            out.push(c);
        }
    }
    out
}

fn scalar_text(s: &Scalar) -> String {
    match s {
        Scalar::Str(s) => s.clone(),
        other => other.to_json().to_string(),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn parse_str(text: &str) -> (PolicyFile, Vec<Diagnostic>) {
        let f = Arc::new(SourceFile {
            path: "t.warden".into(),
            text: text.into(),
        });
        parse(&f)
    }

    #[test]
    fn parses_the_issue_example() {
        let (f, d) = parse_str(
            r#"
list system_paths = ["/", "/etc", "~"]
rule git.force_push {
  description "Force-pushes rewrite shared history"
  on pre_tool_call
  when tool == "terminal" and args.command matches /\bgit\s+push\b.*\s(--force|-f)\b/
  approve "Force-push needs a human: {args.command}" key "git:force-push"
}
rule tf.plan_first {
  on pre_tool_call
  when tool == "terminal" and args.command starts_with "terraform apply"
  modify args.command = replace(args.command, /^terraform apply/, "terraform plan")
}
exempt git.force_push when args.command contains "--force-with-lease" because "ok" until 2027-03-31
"#,
        );
        assert!(d.is_empty(), "{d:?}");
        assert_eq!(f.items.len(), 4);
        let Item::Rule(r) = &f.items[1] else { panic!() };
        assert_eq!(r.id.node, "git.force_push");
        assert!(matches!(r.when, Some(Cond::And(ref v)) if v.len() == 2));
    }

    /// Fuzz finding `policy-number-the-formatter-cannot-write` (`policy` target, 684 k
    /// executions on c775ea7): a 73-digit number in a list parsed to the f64
    /// `7.777777777777778e72`, which the formatter wrote back in a form the grammar rejects.
    /// A number the formatter cannot write back is an error; every accepted one round-trips.
    #[test]
    fn a_number_is_accepted_only_if_it_prints_back() {
        for bad in [
            "7".repeat(73),
            "18446744073709551616".into(),
            "0.000001".into(),
        ] {
            let (_, d) = parse_str(&format!("list l = [\"a\", {bad}]"));
            assert!(
                d.iter()
                    .any(|d| d.message.starts_with("number out of range")),
                "{bad}: {d:?}"
            );
        }
        for good in [
            "0",
            "-9223372036854775808",
            "18446744073709551615",
            "0.00001",
            "1234567890123456.5",
            "2.5",
        ] {
            let text = format!("list l = [\"a\", {good}]");
            let (f, d) = parse_str(&text);
            assert!(d.is_empty(), "{good}: {d:?}");
            let (back, d) = parse_str(&crate::syntax::print::print(&f));
            assert!(d.is_empty(), "{good} printed back: {d:?}");
            assert_eq!(back.items, f.items, "{good}");
        }
        // the YAML form holds the same numbers, no others
        let (f, _) = parse_str("list l = [\"a\", 7]");
        let yaml = crate::syntax::to_yaml(&f).unwrap();
        assert!(crate::syntax::from_yaml(&yaml).is_ok());
        let huge = yaml.replacen("- 7", &format!("- {}", "7".repeat(73)), 1);
        assert_ne!(huge, yaml);
        let e = crate::syntax::from_yaml(&huge).unwrap_err();
        assert!(format!("{e}").contains("out of range"), "{e}");
    }

    #[test]
    fn precedence_is_not_and_or() {
        let (f, d) = parse_str("define x = not a and b or c");
        assert!(d.is_empty(), "{d:?}");
        let Item::Define(def) = &f.items[0] else {
            panic!()
        };
        let Cond::Or(parts) = &def.condition else {
            panic!("{:?}", def.condition)
        };
        assert!(matches!(&parts[0], Cond::And(a) if matches!(a[0], Cond::Not(_))));
    }

    #[test]
    fn keywords_are_not_swallowed_by_names() {
        let (f, d) = parse_str("define x = android and order or notable");
        assert!(d.is_empty(), "{d:?}");
        let Item::Define(def) = &f.items[0] else {
            panic!()
        };
        assert!(matches!(&def.condition, Cond::Or(p) if p.len() == 2));
    }

    #[test]
    fn reports_errors_in_several_items() {
        let (f, d) = parse_str(
            "rule a { on pre_tool_call when tool == }\nlist ok = [\"x\"]\nrule b { when }\n",
        );
        assert_eq!(d.len(), 2, "{d:?}");
        assert_eq!(f.items.len(), 1);
        assert!(d[0].message.contains("expected"), "{}", d[0].message);
    }

    #[test]
    fn regex_slash_escapes_and_comments() {
        let (f, d) = parse_str("# head\ndefine x = args.p matches /a\\/b#c/i # tail\n");
        assert!(d.is_empty(), "{d:?}");
        assert_eq!(f.comments.len(), 2);
        let Item::Define(def) = &f.items[0] else {
            panic!()
        };
        let Cond::Compare(c) = &def.condition else {
            panic!()
        };
        let Operand::Regex(re) = &c.operand.node else {
            panic!()
        };
        assert_eq!(re.pattern, "a/b#c");
        assert_eq!(re.source(), "(?i)a/b#c");
    }

    #[test]
    fn string_escapes() {
        let (f, d) = parse_str(r#"define x = args.a == "q\"\\n\n""#);
        assert!(d.is_empty());
        let Item::Define(def) = &f.items[0] else {
            panic!()
        };
        let Cond::Compare(c) = &def.condition else {
            panic!()
        };
        assert_eq!(
            c.operand.node,
            Operand::Value(Scalar::Str("q\"\\n\n".into()))
        );
        let (_, d) = parse_str(r#"define x = args.a == "\q""#);
        assert_eq!(d[0].code, "bad-escape");
    }
}

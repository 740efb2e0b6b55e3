//! `warden check PATH...`: load, check and compile; lint; report every
//! finding as text, JSON, SARIF 2.1.0 or GitHub workflow commands.

use super::{render, sarif, EXIT_OK, EXIT_POLICY, EXIT_USAGE};
use codespan_reporting::term::termcolor::{ColorChoice, StandardStream};
use std::collections::{HashMap, HashSet};
use std::io::IsTerminal;
use std::path::PathBuf;
use std::sync::Arc;
use warden::check::ir::{Action, Expr, Rule, Test};
use warden::diag::{SourceFile, Span};
use warden::event::Field;
use warden::syntax::ast::{self, Cond, Item, Op, Operand, Scalar};
use warden::{Diagnostic, LoadError, Policy, Severity};

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
                Ok(set) => {
                    for (id, origin, msg) in set.regex_failures() {
                        d.push(
                            Diagnostic::error("regex-too-big", &origin.file, origin.span, format!("rule `{id}`: the regex engine refuses a regex: {msg}"))
                                .with_label("this rule")
                                .with_help("simplify the regex (smaller repetitions, fewer alternatives); as is it could never match"),
                        );
                    }
                    d.extend(lints(&p, &set, &a.paths))
                }
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
        Format::Json => super::sarif::emit(
            &(serde_json::to_string_pretty(&render::json(&diags)).unwrap_or_default() + "\n"),
        ),
        Format::Sarif => sarif::emit(
            &(serde_json::to_string_pretty(&sarif::log(&diags)).unwrap_or_default() + "\n"),
        ),
        Format::Github => {
            for d in &diags {
                sarif::emit(&(sarif::github(d) + "\n"));
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

/// Warnings beyond the checker's: they need the whole set, the compiled
/// prefilter, or the tests.
pub(crate) fn lints(p: &Policy, set: &warden::MatcherSet, paths: &[PathBuf]) -> Vec<Diagnostic> {
    let mut out = Vec::new();
    no_prefilter(p, set, &mut out);
    unreachable(p, &mut out);
    shadowed(p, &mut out);
    broad_patterns(p, &mut out);
    if !paths.is_empty() {
        untested(p, set, paths, &mut out);
    }
    out
}

fn no_prefilter(p: &Policy, set: &warden::MatcherSet, out: &mut Vec<Diagnostic>) {
    let by_id: HashMap<&str, &Rule> = p.checked.rules.iter().map(|r| (r.id.as_str(), r)).collect();
    for (id, origin) in set.unfiltered_rules() {
        let rule = by_id.get(id);
        if rule.is_some_and(|r| matches!(r.when, Expr::Const(false))) {
            continue; // reported as unreachable
        }
        let hooks = rule.map_or(String::new(), |r| {
            r.hooks
                .iter()
                .map(|h| h.name())
                .collect::<Vec<_>>()
                .join(", ")
        });
        let mut regexes = Vec::new();
        if let Some(r) = rule {
            atoms(&r.when, &mut |a| {
                if let Test::Matches { regex } = &a.test {
                    if warden::compile::prefilter::regex_literals(regex).is_none() {
                        regexes.push(format!("/{regex}/"));
                    }
                }
            });
        }
        let label = if regexes.is_empty() {
            format!("evaluated on every {hooks} event")
        } else {
            format!("{} has no extractable literal", regexes.join(", "))
        };
        out.push(
            Diagnostic::warning("no-prefilter", &origin.file, origin.span, format!("rule `{id}` has no literal the prefilter can use"))
                .with_label(label)
                .with_help(format!(
                    "it costs a full condition evaluation on every {hooks} event (regexes included) instead of being skipped by the \
                     one aho-corasick pass; add a literal test (==, in, contains, starts_with, a `command` predicate, or a regex \
                     with a fixed prefix or suffix) to the `and`"
                )),
        );
    }
}

fn atoms<'a>(e: &'a Expr, f: &mut dyn FnMut(&'a warden::check::ir::Atom)) {
    match e {
        Expr::And(v) | Expr::Or(v) => v.iter().for_each(|c| atoms(c, f)),
        Expr::Not(c) => atoms(c, f),
        Expr::Const(_) => {}
        Expr::Atom(a) => f(a),
    }
}

// ---------------------------------------------------------------- unreachable

/// One literal of a conjunction: an atom or its negation.
#[derive(Clone, Copy)]
struct Lit<'a> {
    atom: &'a warden::check::ir::Atom,
    pos: bool,
}

const DNF_LIMIT: usize = 512;

/// The condition as a disjunction of conjunctions (`None` if too large).
fn dnf(e: &Expr, neg: bool) -> Option<Vec<Vec<Lit<'_>>>> {
    Some(match (e, neg) {
        (Expr::Const(b), _) => {
            if *b != neg {
                vec![Vec::new()]
            } else {
                Vec::new()
            }
        }
        (Expr::Atom(a), _) => vec![vec![Lit { atom: a, pos: !neg }]],
        (Expr::Not(c), _) => dnf(c, !neg)?,
        (Expr::And(v), false) | (Expr::Or(v), true) => {
            let mut acc: Vec<Vec<Lit>> = vec![Vec::new()];
            for c in v {
                let d = dnf(c, neg)?;
                let mut next = Vec::with_capacity(acc.len() * d.len());
                for a in &acc {
                    for b in &d {
                        let mut x = a.clone();
                        x.extend(b.iter().copied());
                        next.push(x);
                    }
                }
                if next.len() > DNF_LIMIT {
                    return None;
                }
                acc = next;
            }
            acc
        }
        (Expr::Or(v), false) | (Expr::And(v), true) => {
            let mut acc = Vec::new();
            for c in v {
                acc.extend(dnf(c, neg)?);
                if acc.len() > DNF_LIMIT {
                    return None;
                }
            }
            acc
        }
    })
}

/// Values an `==`/`in` atom allows, folded when `nocase`.
fn eq_values(t: &Test) -> Option<(Vec<Scalar>, bool)> {
    match t {
        Test::Eq { value, nocase } => Some((vec![value.clone()], *nocase)),
        Test::In { values, nocase } => Some((values.clone(), *nocase)),
        _ => None,
    }
}

fn scalars_meet(a: &Scalar, b: &Scalar, nocase: bool) -> bool {
    match (a, b) {
        (Scalar::Str(x), Scalar::Str(y)) if nocase => x.to_lowercase() == y.to_lowercase(),
        (Scalar::Num(x), Scalar::Num(y)) => x.as_f64() == y.as_f64(),
        _ => a == b,
    }
}

/// Why a conjunction can never hold, if it cannot.
fn contradiction(c: &[Lit]) -> Option<String> {
    for (i, x) in c.iter().enumerate() {
        for y in &c[i + 1..] {
            let (a, b) = (x.atom, y.atom);
            if a.field != b.field {
                continue;
            }
            let text = |l: &Lit| warden::eval::explain::atom_text(&l.atom.field, &l.atom.test);
            if a.test == b.test && x.pos != y.pos {
                return Some(format!(
                    "`{}` and `not {}` cannot both hold",
                    text(x),
                    text(x)
                ));
            }
            // A missing field makes every atom false: `not f exists` rules out any positive test on f.
            if (matches!(a.test, Test::Exists) && !x.pos && y.pos)
                || (matches!(b.test, Test::Exists) && !y.pos && x.pos)
            {
                return Some(format!(
                    "`{}` needs {} to be present, but `not {} exists` needs it missing",
                    text(if x.pos { x } else { y }),
                    a.field,
                    a.field
                ));
            }
            // Multi-valued fields can hold several values at once.
            if a.field == Field::History || !x.pos || !y.pos {
                continue;
            }
            if let (Some((va, na)), Some((vb, nb))) = (eq_values(&a.test), eq_values(&b.test)) {
                let meet = va
                    .iter()
                    .any(|p| vb.iter().any(|q| scalars_meet(p, q, na || nb)));
                if !meet {
                    return Some(format!(
                        "{} cannot satisfy both `{}` and `{}`",
                        a.field,
                        text(x),
                        text(y)
                    ));
                }
            }
            if let (
                Test::StartsWith {
                    needles: na,
                    nocase: false,
                },
                Test::StartsWith {
                    needles: nb,
                    nocase: false,
                },
            ) = (&a.test, &b.test)
            {
                let meet = na.iter().any(|p| {
                    nb.iter()
                        .any(|q| p.starts_with(q.as_str()) || q.starts_with(p.as_str()))
                });
                if !meet {
                    return Some(format!(
                        "{} cannot start with both: `{}` and `{}`",
                        a.field,
                        text(x),
                        text(y)
                    ));
                }
            }
        }
    }
    None
}

fn unreachable(p: &Policy, out: &mut Vec<Diagnostic>) {
    for r in &p.checked.rules {
        let why = if matches!(r.unless, Some(Expr::Const(true))) {
            Some("its `unless` is always true".to_string())
        } else {
            match dnf(&r.when, false) {
                Some(d) if d.is_empty() => Some("its condition is `false`".to_string()),
                Some(d) => {
                    let reasons: Option<Vec<String>> = d.iter().map(|c| contradiction(c)).collect();
                    reasons.map(|mut v| {
                        v.dedup();
                        v.join("; ")
                    })
                }
                None => None,
            }
        };
        if let Some(why) = why {
            out.push(
                Diagnostic::warning(
                    "unreachable-rule",
                    &r.origin.file,
                    r.origin.span,
                    format!("rule `{}` can never match", r.id),
                )
                .with_label(why)
                .with_help("fix the condition, or delete the rule: as written it never applies"),
            );
        }
    }
}

// ------------------------------------------------------------------ shadowed

/// A span-free, order-free key of a condition.
fn key(e: &Expr) -> String {
    match e {
        Expr::And(v) | Expr::Or(v) => {
            let mut ks: Vec<String> = v.iter().map(key).collect();
            ks.sort();
            format!(
                "{}({})",
                if matches!(e, Expr::And(_)) {
                    "and"
                } else {
                    "or"
                },
                ks.join(",")
            )
        }
        Expr::Not(c) => format!("not({})", key(c)),
        Expr::Const(b) => b.to_string(),
        Expr::Atom(a) => format!("{}|{:?}", a.field, a.test),
    }
}

/// The keys of the conjuncts of a condition (`true` has none).
fn conjuncts(e: &Expr) -> HashSet<String> {
    match e {
        Expr::And(v) => v.iter().flat_map(conjuncts).collect(),
        Expr::Const(true) => HashSet::new(),
        other => HashSet::from([key(other)]),
    }
}

/// block > approve > modify > context; redaction rules take no part.
fn strength(a: &Action) -> Option<u8> {
    match a {
        Action::Block { .. } => Some(4),
        Action::Approve { .. } => Some(3),
        Action::Modify(_) => Some(2),
        Action::Context(_) => Some(1),
        _ => None,
    }
}

fn shadowed(p: &Policy, out: &mut Vec<Diagnostic>) {
    let rules = &p.checked.rules;
    let sets: Vec<HashSet<String>> = rules.iter().map(|r| conjuncts(&r.when)).collect();
    let exempted: Vec<bool> = rules
        .iter()
        .map(|r| p.checked.exemptions.iter().any(|e| e.covers(&r.id)))
        .collect();
    for (j, later) in rules.iter().enumerate() {
        let Some(sj) = strength(&later.action) else {
            continue;
        };
        for (i, earlier) in rules[..j].iter().enumerate() {
            let Some(si) = strength(&earlier.action) else {
                continue;
            };
            // Equal modifies merge (the later one wins per key) and contexts join: neither hides the other.
            let wins = si > sj || (si == sj && si >= 3);
            if !wins
                || earlier.unless.is_some()
                || exempted[i]
                || !later.hooks.iter().all(|h| earlier.hooks.contains(h))
            {
                continue;
            }
            if !sets[i].is_subset(&sets[j]) {
                continue;
            }
            let how = if sets[i] == sets[j] {
                "the same condition"
            } else {
                "a broader condition"
            };
            let why = if si == sj {
                format!("the first {} in policy order wins", earlier.action.kind())
            } else {
                format!("{} beats {}", earlier.action.kind(), later.action.kind())
            };
            out.push(
                Diagnostic::warning("shadowed-rule", &later.origin.file, later.origin.span, format!("rule `{}` is shadowed by `{}`", later.id, earlier.id))
                    .with_label(format!("`{}` never decides", later.id))
                    .with_help(format!(
                        "`{}` at {} has {how} and {why}, so this rule never changes a decision; remove it, or narrow `{}`",
                        earlier.id,
                        earlier.origin.location(),
                        earlier.id
                    )),
            );
            break;
        }
    }
}

// -------------------------------------------------------------- broad patterns

fn broad_patterns(p: &Policy, out: &mut Vec<Diagnostic>) {
    let mut lists: HashMap<&str, Vec<Scalar>> = HashMap::new();
    for tree in &p.trees {
        for item in &tree.items {
            if let Item::List(l) = item {
                lists.insert(
                    l.name.node.as_str(),
                    l.values.iter().map(|v| v.node.clone()).collect(),
                );
            }
        }
    }
    for (file, tree) in p.sources.iter().zip(&p.trees) {
        let mut w = Broad {
            file,
            lists: &lists,
            out: &mut *out,
        };
        for item in &tree.items {
            match item {
                Item::Rule(r) => {
                    if let Some(c) = &r.when {
                        w.cond(c);
                    }
                    if let Some(c) = &r.unless {
                        w.cond(c);
                    }
                    for a in &r.actions {
                        if let ast::Action::Redact { pattern, .. } = &a.node {
                            if regex_matches_everything(&pattern.source()) {
                                let span = Span::new(
                                    pattern.span.start,
                                    pattern.span.start + pattern.pattern.len(),
                                );
                                w.out.push(
                                    Diagnostic::warning("broad-pattern", file, span, format!("redaction regex /{}/ matches the empty string", pattern.pattern))
                                        .with_label("matches everywhere")
                                        .with_help("a detector that matches the empty string finds something in every text; require at least one character"),
                                );
                            }
                        }
                    }
                }
                Item::Define(d) => w.cond(&d.condition),
                Item::Exempt(e) => {
                    if let Some(c) = &e.when {
                        w.cond(c);
                    }
                }
                _ => {}
            }
        }
    }
}

struct Broad<'a, 'o> {
    file: &'a Arc<SourceFile>,
    lists: &'a HashMap<&'a str, Vec<Scalar>>,
    out: &'o mut Vec<Diagnostic>,
}

impl Broad<'_, '_> {
    fn strings(&self, o: &Operand) -> Vec<String> {
        let vals: Vec<Scalar> = match o {
            Operand::Value(v) => vec![v.clone()],
            Operand::List(v) => v.clone(),
            Operand::Name(n) => self
                .lists
                .get(n.to_string().as_str())
                .cloned()
                .unwrap_or_default(),
            Operand::Regex(_) => Vec::new(),
        };
        vals.into_iter()
            .filter_map(|s| s.as_str().map(String::from))
            .collect()
    }

    fn warn(&mut self, span: Span, message: String, label: &str, help: &str) {
        self.out.push(
            Diagnostic::warning("broad-pattern", self.file, span, message)
                .with_label(label)
                .with_help(help),
        );
    }

    fn cond(&mut self, c: &Cond) {
        match c {
            Cond::And(v) | Cond::Or(v) => v.iter().for_each(|c| self.cond(c)),
            Cond::Not(c) => self.cond(c),
            Cond::Compare(cmp) => {
                let span = cmp.operand.span;
                let field = &cmp.field.node;
                match (cmp.op.node, &cmp.operand.node) {
                    (Op::Matches, Operand::Regex(re)) if regex_matches_everything(&re.source()) => {
                        self.warn(
                            span,
                            format!("`{field} matches /{}/` holds for every value", re.pattern),
                            "this regex matches the empty string",
                            "a regex that matches the empty string matches every text; anchor it or require at least one character, or use `exists`",
                        );
                    }
                    (Op::Contains | Op::StartsWith | Op::EndsWith, o)
                        if self.strings(o).iter().any(String::is_empty) =>
                    {
                        self.warn(
                            span,
                            format!("`{field} {} \"\"` holds for every value", cmp.op.node.as_str()),
                            "the empty string is in every text",
                            "remove the empty string; to test that the field is set, write `exists`",
                        );
                    }
                    (Op::Glob, o) => {
                        if let Some(g) = self
                            .strings(o)
                            .into_iter()
                            .find(|g| glob_matches_everything(g))
                        {
                            self.warn(
                                span,
                                format!("`{field} glob \"{g}\"` holds for every value"),
                                "this glob matches everything",
                                "narrow the pattern, or write `exists` if that is what you mean",
                            );
                        }
                    }
                    _ => {}
                }
            }
            Cond::Under(u)
                if self
                    .strings(&u.target.node)
                    .iter()
                    .any(|s| s.trim_end_matches('/').is_empty() && !s.is_empty()) =>
            {
                self.warn(
                    u.target.span,
                    format!("`path({}) under \"/\"` holds for every absolute path", u.field.node),
                    "every path is under /",
                    "to match the root itself, compare the path: `path(x) == \"/\"` or a `command … with arg is \"/\"` predicate",
                );
            }
            _ => {}
        }
    }
}

/// True when the regex can match the empty string without any anchor or
/// word boundary: it then matches (at offset 0) in every text. Decided on
/// the syntax tree, without compiling the regex.
fn regex_matches_everything(source: &str) -> bool {
    regex_syntax::Parser::new().parse(source).is_ok_and(|h| {
        h.properties().minimum_len() == Some(0) && h.properties().look_set().is_empty()
    })
}

fn glob_matches_everything(g: &str) -> bool {
    if !g.is_empty() && g.chars().all(|c| c == '*') {
        return true;
    }
    globset::GlobBuilder::new(g)
        .literal_separator(true)
        .build()
        .map(|g| g.compile_matcher())
        .is_ok_and(|m| {
            ["a", "a/b", "/x/y/z", ".hidden"]
                .iter()
                .all(|p| m.is_match(p))
        })
}

// ------------------------------------------------------------------ untested

fn untested(p: &Policy, set: &warden::MatcherSet, paths: &[PathBuf], out: &mut Vec<Diagnostic>) {
    let files = warden::testing::discover(paths);
    if files.is_empty() {
        return;
    }
    let mut results = Vec::new();
    for f in &files {
        match warden::testing::load_file(f) {
            Ok(tf) => results.extend(
                tf.cases
                    .iter()
                    .map(|c| warden::testing::run_case(set, &tf.path, c)),
            ),
            Err(e) => {
                let text = std::fs::read_to_string(f).unwrap_or_default();
                let file = Arc::new(SourceFile {
                    path: f.clone(),
                    text,
                });
                let (line, col) = match &e {
                    warden::testing::TestFileError::Invalid { line, column, .. } => {
                        (*line, *column)
                    }
                    _ => (0, 0),
                };
                let off = offset_of(&file.text, line, col);
                out.push(
                    Diagnostic::warning(
                        "bad-test-file",
                        &file,
                        Span::new(off, off),
                        format!("cannot use this test file: {e}"),
                    )
                    .with_label("here")
                    .with_help(
                        "run `warden test` for details; coverage is computed without this file",
                    ),
                );
            }
        }
    }
    for (id, covered) in
        warden::testing::coverage(p.checked.rules.iter().map(|r| r.id.as_str()), &results)
    {
        if covered {
            continue;
        }
        let Some(r) = p.checked.rules.iter().find(|r| r.id == id) else {
            continue;
        };
        out.push(
            Diagnostic::warning("untested-rule", &r.origin.file, r.origin.span, format!("no test exercises rule `{id}`"))
                .with_label("not matched by any test")
                .with_help(format!(
                    "add a case to a *.test.yaml file beside the policy ({} found) whose event this rule matches",
                    files.len()
                )),
        );
    }
}

fn offset_of(text: &str, line: usize, col: usize) -> usize {
    if line == 0 {
        return 0;
    }
    let start: usize = text
        .split_inclusive('\n')
        .take(line - 1)
        .map(str::len)
        .sum();
    (start + col.saturating_sub(1)).min(text.len())
}

#[cfg(test)]
mod tests {
    use super::*;

    fn lint(src: &str) -> Vec<(String, String)> {
        let p = Policy::from_sources(vec![("t.warden".into(), src.into())]).unwrap();
        let set = p.compile().unwrap();
        lints(&p, &set, &[])
            .into_iter()
            .map(|d| (d.code.to_string(), d.message))
            .collect()
    }

    fn codes(src: &str) -> Vec<String> {
        let mut v: Vec<String> = lint(src).into_iter().map(|(c, _)| c).collect();
        v.sort();
        v
    }

    #[test]
    fn contradictions_are_unreachable() {
        assert_eq!(
            codes(r#"rule a { on pre_tool_call when tool == "a" and tool == "b" block "m" }"#),
            ["unreachable-rule"]
        );
        assert_eq!(
            codes(r#"rule a { on pre_tool_call when tool == "a" and not tool == "a" block "m" }"#),
            ["unreachable-rule"]
        );
        assert!(codes(r#"rule a { on pre_tool_call when false block "m" }"#)
            .contains(&"unreachable-rule".to_string()));
        assert_eq!(
            codes(
                r#"rule a { on pre_tool_call when tool in ["a", "b"] and tool == "b" block "m" }"#
            ),
            Vec::<String>::new()
        );
        assert_eq!(
            codes(
                r#"rule a { on pre_tool_call when (tool == "a" or tool == "c") and tool == "c" block "m" }"#
            ),
            Vec::<String>::new()
        );
        assert_eq!(
            codes(
                r#"rule a { on pre_tool_call when tool == "a" and (tool == "b" or tool == "c") block "m" }"#
            ),
            ["unreachable-rule"]
        );
    }

    #[test]
    fn shadowing_needs_a_stronger_or_equal_earlier_rule() {
        let src = r#"
rule a { on pre_tool_call when tool == "terminal" block "m" }
rule b { on pre_tool_call when tool == "terminal" and args.command contains "x" approve "n" key "k" }
"#;
        assert_eq!(codes(src), ["shadowed-rule"]);
        let src = r#"
rule a { on pre_tool_call when tool == "terminal" approve "n" key "k" }
rule b { on pre_tool_call when tool == "terminal" block "m" }
"#;
        assert_eq!(codes(src), Vec::<String>::new());
    }

    #[test]
    fn broad_patterns_are_flagged() {
        assert_eq!(
            codes(
                r#"rule a { on pre_tool_call when tool == "t" and args.command matches /.*/ block "m" }"#
            ),
            ["broad-pattern"]
        );
        assert_eq!(
            codes(
                r#"rule a { on pre_tool_call when tool == "t" and args.command contains "" block "m" }"#
            ),
            ["broad-pattern"]
        );
        assert_eq!(
            codes(
                r#"rule a { on pre_tool_call when tool == "t" and args.path glob "**" block "m" }"#
            ),
            ["broad-pattern"]
        );
        assert_eq!(
            codes(
                r#"rule a { on pre_tool_call when tool == "t" and args.command matches /^$/ block "m" }"#
            ),
            Vec::<String>::new()
        );
    }
}

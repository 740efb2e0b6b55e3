//! Differential test of the engine core: random policies and events, the
//! compiled [`MatcherSet`] (prefilter + matchers + combination) against a
//! naive reference interpreter kept in this file.
//!
//! The reference evaluates the *checked IR* (`policy.checked.rules[i].when`)
//! directly against the event, with no prefilter, and combines the matches
//! with Hermes's rules: block beats approve beats modify/context/none; the
//! first block/approve in policy order decides; modify shallow-merges over the
//! original args with the later rule winning per key; context pieces are
//! joined with a blank line.
//!
//! Independently, every generated condition is also evaluated from the
//! generator's own tree, which checks that the text → AST → IR path
//! (precedence, `!=`, `nocase` on regexes, `define`/`list` inlining) keeps
//! the meaning of what was written.

use proptest::prelude::*;
use proptest::test_runner::{Config, TestCaseError, TestRunner};
use regex::bytes::{Regex, RegexBuilder};
use serde_json::{json, Map, Value};
use std::cell::RefCell;
use std::collections::HashMap;
use std::path::PathBuf;
use warden::check::ir::{Expr, Test};
use warden::eval::DEFAULT_PLACEHOLDER;
use warden::event::PathSeg;
use warden::syntax::ast::Scalar;
use warden::{CompileOptions, Decision, Event, Field, Hook, Policy, Verdict};

// ---------------------------------------------------------------------------
// The reference interpreter (over the checked IR)
// ---------------------------------------------------------------------------

thread_local! {
    static REGEX_CACHE: RefCell<HashMap<String, Regex>> = RefCell::new(HashMap::new());
}

fn regex_is_match(source: &str, text: &str) -> bool {
    REGEX_CACHE.with(|c| {
        let mut c = c.borrow_mut();
        // The documented mode: ASCII classes and case folding unless the pattern needs Unicode.
        let unicode = warden::syntax::regex_needs_unicode(source);
        let re = c.entry(source.to_string()).or_insert_with(|| {
            RegexBuilder::new(source)
                .unicode(unicode)
                .build()
                .expect("checked regex compiles")
        });
        re.is_match(text.as_bytes())
    })
}

/// The values of a field in an event: missing → none; arrays fan out.
fn ref_values(ev: &Event, f: &Field) -> Vec<Value> {
    fn walk(v: &Value, path: &[PathSeg], out: &mut Vec<Value>) {
        match path.split_first() {
            None => match v {
                Value::Array(items) => items.iter().for_each(|i| walk(i, &[], out)),
                other => out.push(other.clone()),
            },
            Some((PathSeg::Key(k), rest)) => match v {
                Value::Object(m) => {
                    if let Some(v) = m.get(k.as_ref()) {
                        walk(v, rest, out)
                    }
                }
                Value::Array(items) => items.iter().for_each(|i| walk(i, path, out)),
                _ => {}
            },
            Some((PathSeg::Index(i), rest)) => {
                if let Some(v) = v.as_array().and_then(|a| a.get(*i)) {
                    walk(v, rest, out)
                }
            }
        }
    }
    let s = |o: &Option<String>| o.iter().map(|s| Value::String(s.clone())).collect();
    match f {
        Field::Args(path) => {
            let mut out = Vec::new();
            walk(&ev.args, path, &mut out);
            out
        }
        Field::Tool => s(&ev.tool),
        Field::Cwd => s(&ev.cwd),
        Field::UserMessage => s(&ev.user_message),
        other => panic!("the generator never uses field {other}"),
    }
}

fn ref_eval(e: &Expr, ev: &Event) -> bool {
    match e {
        Expr::And(v) => v.iter().all(|e| ref_eval(e, ev)),
        Expr::Or(v) => v.iter().any(|e| ref_eval(e, ev)),
        Expr::Not(e) => !ref_eval(e, ev),
        Expr::Const(b) => *b,
        Expr::Atom(a) => {
            let vals = ref_values(ev, &a.field);
            match &a.test {
                Test::Exists => vals.iter().any(|v| !v.is_null()),
                // Lexical normalisation is the spec (`warden::paths`); what is checked here
                // is that the prefilter's ancestor index never drops a rule that holds.
                Test::Under {
                    target: warden::check::ir::UnderTarget::Paths(dirs),
                } => vals.iter().any(|v| {
                    let norm =
                        |p: &str, base: Option<&str>| warden::paths::normalize(p, base, None);
                    v.as_str()
                        .and_then(|s| norm(s, ev.cwd.as_deref()))
                        .is_some_and(|p| {
                            dirs.iter().any(|d| {
                                norm(d, None).is_some_and(|d| warden::paths::is_under(&p, &d))
                            })
                        })
                }),
                t => vals.iter().any(|v| ref_test(t, v)),
            }
        }
        #[allow(unreachable_patterns)]
        other => panic!("the generator never produces {other:?}"),
    }
}

fn lower(s: &str) -> String {
    s.to_lowercase()
}

/// The documented `nocase` rule: an ASCII literal folds ASCII letters, a
/// non-ASCII literal folds Unicode lowercase.
fn fold_for(text: &str, literal: &str) -> (String, String) {
    if literal.is_ascii() {
        (text.to_ascii_lowercase(), literal.to_ascii_lowercase())
    } else {
        (lower(text), lower(literal))
    }
}

fn ref_eq(v: &Value, s: &Scalar, nocase: bool) -> bool {
    match (v, s) {
        (Value::String(a), Scalar::Str(b)) => {
            if nocase {
                let (x, y) = fold_for(a, b);
                x == y
            } else {
                a == b
            }
        }
        _ => false,
    }
}

fn ref_str(v: &Value, needles: &[String], nocase: bool, f: fn(&str, &str) -> bool) -> bool {
    let Value::String(h) = v else {
        panic!("the generator only puts strings in tested fields, got {v}")
    };
    needles.iter().any(|n| {
        if nocase {
            let (x, y) = fold_for(h, n);
            f(&x, &y)
        } else {
            f(h, n)
        }
    })
}

fn ref_test(t: &Test, v: &Value) -> bool {
    match t {
        Test::Eq { value, nocase } => ref_eq(v, value, *nocase),
        Test::In { values, nocase } => values.iter().any(|s| ref_eq(v, s, *nocase)),
        Test::Contains { needles, nocase } => ref_str(v, needles, *nocase, |h, n| h.contains(n)),
        Test::StartsWith { needles, nocase } => {
            ref_str(v, needles, *nocase, |h, n| h.starts_with(n))
        }
        Test::EndsWith { needles, nocase } => ref_str(v, needles, *nocase, |h, n| h.ends_with(n)),
        Test::Matches { regex } => match v {
            Value::String(s) => regex_is_match(regex, s),
            other => panic!("the generator only puts strings in tested fields, got {other}"),
        },
        Test::Exists => !v.is_null(),
        other => panic!("the generator never produces {other:?}"),
    }
}

/// What the reference expects for one event.
#[derive(Debug, PartialEq)]
struct RefVerdict {
    decision: Decision,
    matches: Vec<(String, &'static str)>,
}

/// What each generated rule does, in policy order (kept beside the checked
/// rules because the reference must not depend on compiled actions).
#[derive(Clone, Debug)]
enum GAction {
    Block { placeholder: bool },
    Approve { key: bool },
    Modify(Vec<(&'static str, Value)>),
    Context,
}

fn message(id: &str) -> String {
    format!("blocked by {id}")
}

fn ref_verdict(policy: &Policy, actions: &HashMap<String, GAction>, ev: &Event) -> RefVerdict {
    let mut matches = Vec::new();
    let mut block = None;
    let mut approve = None;
    let mut modify: Option<(Vec<String>, Map<String, Value>)> = None;
    let mut context: Option<(Vec<String>, Vec<String>)> = None;
    for r in &policy.checked.rules {
        if !r.hooks.contains(&ev.hook) {
            continue;
        }
        if !ref_eval(&r.when, ev) || r.unless.as_ref().is_some_and(|u| ref_eval(u, ev)) {
            continue;
        }
        let id = r.id.clone();
        let kind = match &actions[&id] {
            GAction::Block { placeholder } => {
                if block.is_none() {
                    let ph = (ev.hook == Hook::PreLlmCall).then(|| {
                        if *placeholder {
                            format!("[withheld by {id}]")
                        } else {
                            DEFAULT_PLACEHOLDER.to_string()
                        }
                    });
                    block = Some(Decision::Block {
                        rule: id.clone(),
                        message: message(&id),
                        placeholder: ph,
                    });
                }
                "block"
            }
            GAction::Approve { key } => {
                if approve.is_none() {
                    approve = Some(Decision::Approve {
                        rule: id.clone(),
                        message: format!("approve {id}"),
                        rule_key: key.then(|| format!("key:{id}")),
                    });
                }
                "approve"
            }
            GAction::Modify(sets) => {
                let (rules, args) = modify.get_or_insert_with(|| {
                    (Vec::new(), ev.args.as_object().cloned().unwrap_or_default())
                });
                for (k, v) in sets {
                    args.insert(k.to_string(), v.clone());
                }
                rules.push(id.clone());
                "modify"
            }
            GAction::Context => {
                let (rules, texts) = context.get_or_insert_with(Default::default);
                rules.push(id.clone());
                texts.push(format!("context from {id}"));
                "context"
            }
        };
        matches.push((id, kind));
    }
    let decision = block
        .or(approve)
        .or_else(|| modify.map(|(rules, args)| Decision::Modify { rules, args }))
        .or_else(|| {
            context.map(|(rules, t)| Decision::Context {
                rules,
                text: t.join("\n\n"),
            })
        })
        .unwrap_or(Decision::Allow);
    RefVerdict { decision, matches }
}

fn engine(v: &Verdict) -> RefVerdict {
    RefVerdict {
        decision: v.decision.clone(),
        matches: v
            .matches
            .iter()
            .map(|m| (m.rule.clone(), m.action))
            .collect(),
    }
}

// ---------------------------------------------------------------------------
// The generator: conditions, rules, policies and events
// ---------------------------------------------------------------------------

/// Fields the generator tests.
#[derive(Clone, Copy, Debug, PartialEq)]
enum F {
    Tool,
    Command,
    Path,
    Cwd,
    UserMessage,
}

impl F {
    fn text(self) -> &'static str {
        match self {
            F::Tool => "tool",
            F::Command => "args.command",
            F::Path => "args.path",
            F::Cwd => "cwd",
            F::UserMessage => "user_message",
        }
    }
}

const TOOL_FIELDS: &[F] = &[F::Tool, F::Command, F::Path, F::Cwd];
const LLM_FIELDS: &[F] = &[F::UserMessage, F::Cwd];
const ANY_FIELDS: &[F] = &[F::Cwd];

/// Literal vocabulary: shared words (so many rules share literals), case
/// variants, non-ASCII (`é`, `É`, `ß`), the empty string, and characters
/// outside ASCII whose lowercase is (or starts with) an ASCII letter:
/// KELVIN SIGN `K` → `k`, `İ` → `i̇`.
///
/// `WARDEN_DIFF_ASCII=1` keeps only the ASCII words and regexes (to look for
/// other classes of bugs while a Unicode one is open).
const VOCAB: &[&str] = &[
    "terminal",
    "read_file",
    "write_file",
    "git",
    "push",
    "git push",
    "--force",
    "rm",
    "-rf",
    "/",
    "/etc",
    "/etc/passwd",
    "/tmp",
    "Git",
    "GIT PUSH",
    "Terminal",
    "k",
    "i",
    "",
    "a",
    "ab",
    "x y",
    "prod",
    "café",
    "CAFÉ",
    "ß",
    "\u{212A}",
    "\u{130}",
];

fn ascii_only() -> bool {
    std::env::var_os("WARDEN_DIFF_ASCII").is_some_and(|v| v == "1")
}

fn vocab() -> Vec<&'static str> {
    VOCAB
        .iter()
        .copied()
        .filter(|w| !ascii_only() || w.is_ascii())
        .collect()
}

fn regexes() -> Vec<&'static str> {
    REGEXES
        .iter()
        .copied()
        .filter(|w| !ascii_only() || w.is_ascii())
        .collect()
}

/// Simple regexes (as written, before `/` escaping): anchors, classes,
/// alternations, inline flags, and some with no usable literal.
const REGEXES: &[&str] = &[
    r"\bgit\s+push\b",
    r"^rm\s+-rf",
    r"(push|pull)",
    r"git.*--force",
    r"[a-z]+",
    r"\.env$",
    r"(?:ca|CA)f",
    r"^/etc(/|$)",
    r".*",
    r"k",
    r"caf[eé]",
    r"^$",
    r"\d+",
    r"(?i)git",
    r"PUSH|rm",
    r"é",
    r"a?b",
    r"^terminal$",
    r"i",
    r"x\sy",
    r"(?i:PROD)",
];

#[derive(Clone, Copy, Debug)]
enum Op {
    Eq,
    Ne,
    In,
    Contains,
    StartsWith,
    EndsWith,
}

#[derive(Clone, Debug)]
enum Cond {
    Cmp {
        field: F,
        op: Op,
        values: Vec<String>,
        list_name: Option<usize>,
        nocase: bool,
    },
    Matches {
        field: F,
        re: String,
        flag_i: bool,
        nocase: bool,
    },
    Exists(F),
    Const(bool),
    Ref(usize),
    Not(Box<Cond>),
    And(Vec<Cond>),
    Or(Vec<Cond>),
    Paren(Box<Cond>),
}

/// The two `list`s every generated policy declares.
const LISTS: [&[&str]; 2] = [&["git", "rm", "Terminal"], &["/etc", "/tmp", "ab", "prod"]];

fn word() -> impl Strategy<Value = String> {
    prop::sample::select(vocab()).prop_map(str::to_string)
}

fn atom(fields: &'static [F], defines: bool) -> BoxedStrategy<Cond> {
    let field = prop::sample::select(fields);
    let cmp = (
        field.clone(),
        prop_oneof![
            Just(Op::Eq),
            Just(Op::Ne),
            Just(Op::In),
            Just(Op::Contains),
            Just(Op::StartsWith),
            Just(Op::EndsWith)
        ],
        prop::collection::vec(word(), 1..4),
        prop::option::weighted(0.15, 0..2usize),
        prop::bool::weighted(0.3),
    )
        .prop_map(|(field, op, mut values, list_name, nocase)| {
            let list_name = match op {
                Op::Eq | Op::Ne => {
                    values.truncate(1);
                    None
                }
                _ => list_name,
            };
            if matches!(op, Op::Contains | Op::StartsWith | Op::EndsWith)
                && values.len() > 1
                && list_name.is_none()
            {
                // Keep some single-string forms: `contains "x"` as well as `contains ["x", "y"]`.
                if values[0].len() % 2 == 0 {
                    values.truncate(1);
                }
            }
            Cond::Cmp {
                field,
                op,
                values,
                list_name,
                nocase,
            }
        });
    let matches = (
        field.clone(),
        prop::sample::select(regexes()),
        prop::sample::select(regexes()),
        0..3u8,
        any::<bool>(),
        prop::bool::weighted(0.2),
    )
        .prop_map(|(field, a, b, shape, flag_i, nocase)| {
            let re = match shape {
                0 => a.to_string(),
                1 => format!("{a}|{b}"),
                _ => format!("(?:{a})(?:{b})"),
            };
            Cond::Matches {
                field,
                re,
                flag_i,
                nocase,
            }
        });
    let mut options: Vec<(u32, BoxedStrategy<Cond>)> = vec![
        (6, cmp.boxed()),
        (4, matches.boxed()),
        (1, field.prop_map(Cond::Exists).boxed()),
        (1, any::<bool>().prop_map(Cond::Const).boxed()),
    ];
    if defines {
        options.push((1, (0..2usize).prop_map(Cond::Ref).boxed()));
    }
    prop::strategy::Union::new_weighted(options).boxed()
}

fn cond(fields: &'static [F], defines: bool) -> BoxedStrategy<Cond> {
    atom(fields, defines)
        .prop_recursive(3, 12, 3, |inner| {
            prop_oneof![
                2 => inner.clone().prop_map(|c| Cond::Not(Box::new(c))),
                3 => prop::collection::vec(inner.clone(), 2..4).prop_map(Cond::And),
                3 => prop::collection::vec(inner.clone(), 2..4).prop_map(Cond::Or),
                1 => inner.prop_map(|c| Cond::Paren(Box::new(c))),
            ]
        })
        .boxed()
}

fn quote(s: &str) -> String {
    let mut out = String::from("\"");
    for c in s.chars() {
        match c {
            '"' => out.push_str("\\\""),
            '\\' => out.push_str("\\\\"),
            c => out.push(c),
        }
    }
    out.push('"');
    out
}

fn list_text(values: &[String]) -> String {
    format!(
        "[{}]",
        values
            .iter()
            .map(|v| quote(v))
            .collect::<Vec<_>>()
            .join(", ")
    )
}

fn prec(c: &Cond) -> u8 {
    match c {
        Cond::Or(_) => 1,
        Cond::And(_) => 2,
        Cond::Not(_) => 3,
        _ => 4,
    }
}

/// Render with the fewest parentheses the precedence `or < and < not < atom`
/// allows (plus the generator's explicit `Paren`s).
fn render(c: &Cond, min: u8) -> String {
    let s = match c {
        Cond::Cmp {
            field,
            op,
            values,
            list_name,
            nocase,
        } => {
            let operand = match (op, list_name) {
                (_, Some(i)) => format!("l{i}"),
                (Op::Eq | Op::Ne, None) => quote(&values[0]),
                (Op::In, None) => list_text(values),
                (_, None) if values.len() == 1 => quote(&values[0]),
                _ => list_text(values),
            };
            let op = match op {
                Op::Eq => "==",
                Op::Ne => "!=",
                Op::In => "in",
                Op::Contains => "contains",
                Op::StartsWith => "starts_with",
                Op::EndsWith => "ends_with",
            };
            format!(
                "{} {op} {operand}{}",
                field.text(),
                if *nocase { " nocase" } else { "" }
            )
        }
        Cond::Matches {
            field,
            re,
            flag_i,
            nocase,
        } => format!(
            "{} matches /{}/{}{}",
            field.text(),
            re.replace('/', "\\/"),
            if *flag_i { "i" } else { "" },
            if *nocase { " nocase" } else { "" }
        ),
        Cond::Exists(f) => format!("{} exists", f.text()),
        Cond::Const(b) => b.to_string(),
        Cond::Ref(i) => format!("d{i}"),
        Cond::Not(c) => format!("not {}", render(c, 3)),
        Cond::And(v) => v
            .iter()
            .map(|c| render(c, 3))
            .collect::<Vec<_>>()
            .join(" and "),
        Cond::Or(v) => v
            .iter()
            .map(|c| render(c, 2))
            .collect::<Vec<_>>()
            .join(" or "),
        Cond::Paren(c) => return format!("({})", render(c, 0)),
    };
    if prec(c) < min {
        format!("({s})")
    } else {
        s
    }
}

/// The generator's own meaning of a condition (independent of the IR).
fn model_eval(c: &Cond, ev: &Event, defines: &[Cond; 2]) -> bool {
    let strings = |f: F| -> Vec<String> {
        let v = match f {
            F::Tool => return ev.tool.iter().cloned().collect(),
            F::Cwd => return ev.cwd.iter().cloned().collect(),
            F::UserMessage => return ev.user_message.iter().cloned().collect(),
            F::Command => ev.args.get("command"),
            F::Path => ev.args.get("path"),
        };
        match v {
            Some(Value::String(s)) => vec![s.clone()],
            Some(Value::Array(a)) => a
                .iter()
                .map(|x| x.as_str().expect("string element").to_string())
                .collect(),
            None => vec![],
            Some(other) => panic!("unexpected {other}"),
        }
    };
    match c {
        Cond::Cmp {
            field,
            op,
            values,
            list_name,
            nocase,
        } => {
            let values: Vec<String> = match list_name {
                Some(i) => LISTS[*i].iter().map(|s| s.to_string()).collect(),
                None => values.clone(),
            };
            let vals = strings(*field);
            let any = |f: &dyn Fn(&str, &str) -> bool| {
                vals.iter().any(|h| {
                    values.iter().any(|n| {
                        if *nocase {
                            let (x, y) = fold_for(h, n);
                            f(&x, &y)
                        } else {
                            f(h, n)
                        }
                    })
                })
            };
            match op {
                Op::Eq | Op::In => any(&|h, n| h == n),
                Op::Ne => !any(&|h, n| h == n),
                Op::Contains => any(&|h, n| h.contains(n)),
                Op::StartsWith => any(&|h, n| h.starts_with(n)),
                Op::EndsWith => any(&|h, n| h.ends_with(n)),
            }
        }
        Cond::Matches {
            field,
            re,
            flag_i,
            nocase,
        } => {
            let src = if *flag_i || *nocase {
                format!("(?i){re}")
            } else {
                re.clone()
            };
            strings(*field).iter().any(|s| regex_is_match(&src, s))
        }
        Cond::Exists(f) => !strings(*f).is_empty(),
        Cond::Const(b) => *b,
        Cond::Ref(i) => model_eval(&defines[*i], ev, defines),
        Cond::Not(c) => !model_eval(c, ev, defines),
        Cond::And(v) => v.iter().all(|c| model_eval(c, ev, defines)),
        Cond::Or(v) => v.iter().any(|c| model_eval(c, ev, defines)),
        Cond::Paren(c) => model_eval(c, ev, defines),
    }
}

#[derive(Clone, Copy, Debug, PartialEq)]
enum Hooks {
    Tool,
    Llm,
    Both,
}

#[derive(Clone, Debug)]
struct GRule {
    hooks: Hooks,
    when: Cond,
    unless: Option<Cond>,
    action: GAction,
}

fn modify_sets() -> impl Strategy<Value = Vec<(&'static str, Value)>> {
    let value = prop_oneof![
        word().prop_map(Value::String),
        (0..100i64).prop_map(|n| json!(n))
    ];
    prop::collection::vec(
        (
            prop::sample::select(&["command", "timeout", "path", "note"][..]),
            value,
        ),
        1..3,
    )
}

fn rule() -> impl Strategy<Value = GRule> {
    let tool = (
        cond(TOOL_FIELDS, true),
        prop::option::weighted(0.15, cond(TOOL_FIELDS, true)),
        prop_oneof![
            // A tool block takes no placeholder (that is pre_llm_call only).
            3 => Just(GAction::Block { placeholder: false }),
            2 => any::<bool>().prop_map(|key| GAction::Approve { key }),
            3 => modify_sets().prop_map(GAction::Modify),
        ],
    )
        .prop_map(|(when, unless, action)| GRule {
            hooks: Hooks::Tool,
            when,
            unless,
            action,
        });
    let llm = (
        cond(LLM_FIELDS, true),
        prop::option::weighted(0.15, cond(LLM_FIELDS, true)),
        prop_oneof![
            1 => any::<bool>().prop_map(|placeholder| GAction::Block { placeholder }),
            2 => Just(GAction::Context),
        ],
    )
        .prop_map(|(when, unless, action)| GRule {
            hooks: Hooks::Llm,
            when,
            unless,
            action,
        });
    let both = cond(ANY_FIELDS, true).prop_map(|when| GRule {
        hooks: Hooks::Both,
        when,
        unless: None,
        action: GAction::Block { placeholder: false },
    });
    prop_oneof![5 => tool, 3 => llm, 1 => both]
}

#[derive(Clone, Debug)]
struct GPolicy {
    defines: [Cond; 2],
    rules: Vec<GRule>,
}

fn policy() -> impl Strategy<Value = GPolicy> {
    // Defines only test `cwd` (every event has it), so any rule may use them.
    (
        cond(ANY_FIELDS, false),
        cond(ANY_FIELDS, false),
        prop::collection::vec(rule(), 1..9),
    )
        .prop_map(|(d0, d1, rules)| GPolicy {
            defines: [d0, d1],
            rules,
        })
}

impl GPolicy {
    /// The policy text (split over two files when there are enough rules) and each rule's action.
    fn sources(&self) -> (Vec<(PathBuf, String)>, HashMap<String, GAction>) {
        let mut head = String::from("# generated\n");
        for (i, l) in LISTS.iter().enumerate() {
            head += &format!(
                "list l{i} = {}\n",
                list_text(&l.iter().map(|s| s.to_string()).collect::<Vec<_>>())
            );
        }
        for (i, d) in self.defines.iter().enumerate() {
            head += &format!("define d{i} = {}\n", render(d, 0));
        }
        let mut files = vec![head, String::new()];
        let mut actions = HashMap::new();
        for (i, r) in self.rules.iter().enumerate() {
            let id = format!("g.r{i}");
            let on = match r.hooks {
                Hooks::Tool => "pre_tool_call",
                Hooks::Llm => "pre_llm_call",
                Hooks::Both => "pre_tool_call, pre_llm_call",
            };
            let mut text = format!("rule {id} {{\n  on {on}\n  when {}\n", render(&r.when, 0));
            if let Some(u) = &r.unless {
                text += &format!("  unless {}\n", render(u, 0));
            }
            text += &match &r.action {
                GAction::Block { placeholder: true } => format!(
                    "  block {} placeholder {}\n",
                    quote(&message(&id)),
                    quote(&format!("[withheld by {id}]"))
                ),
                GAction::Block { placeholder: false } => {
                    format!("  block {}\n", quote(&message(&id)))
                }
                GAction::Approve { key: true } => {
                    format!("  approve \"approve {id}\" key \"key:{id}\"\n")
                }
                GAction::Approve { key: false } => format!("  approve \"approve {id}\"\n"),
                GAction::Modify(sets) => sets
                    .iter()
                    .map(|(k, v)| match v {
                        Value::String(s) => format!("  modify args.{k} = {}\n", quote(s)),
                        other => format!("  modify args.{k} = {other}\n"),
                    })
                    .collect(),
                GAction::Context => format!("  context \"context from {id}\"\n"),
            };
            text += "}\n\n";
            // Rules in load order across files: the first half in a.warden, the rest in b.warden.
            files[usize::from(i >= self.rules.len().div_ceil(2))] += &text;
            actions.insert(id, r.action.clone());
        }
        let sources = vec![
            (PathBuf::from("a.warden"), files.remove(0)),
            (PathBuf::from("b.warden"), files.remove(0)),
        ];
        (sources, actions)
    }
}

fn event_string() -> impl Strategy<Value = String> {
    (
        prop::collection::vec(word(), 0..4),
        prop::sample::select(&[" ", "/", "", "-"][..]),
    )
        .prop_map(|(w, sep)| w.join(sep))
}

/// A field value: missing, a string, or (for args) an array of strings.
fn arg_value() -> impl Strategy<Value = Option<Value>> {
    prop_oneof![
        1 => Just(None),
        5 => event_string().prop_map(|s| Some(Value::String(s))),
        1 => prop::collection::vec(event_string(), 0..3).prop_map(|v| Some(json!(v))),
    ]
}

fn event() -> impl Strategy<Value = Event> {
    let tool = (
        prop::option::weighted(0.9, prop_oneof![word(), event_string()]),
        arg_value(),
        arg_value(),
        prop::option::weighted(0.8, event_string()),
        prop::bool::weighted(0.1),
    )
        .prop_map(|(tool, command, path, cwd, null_args)| {
            let mut args = Map::new();
            if let Some(c) = command {
                args.insert("command".into(), c);
            }
            if let Some(p) = path {
                args.insert("path".into(), p);
            }
            args.insert("timeout".into(), json!(30));
            let mut ev = Event::new(Hook::PreToolCall);
            ev.tool = tool;
            ev.args = if null_args {
                Value::Null
            } else {
                Value::Object(args)
            };
            ev.cwd = cwd;
            ev
        });
    let llm = (
        prop::option::weighted(0.9, event_string()),
        prop::option::weighted(0.8, event_string()),
    )
        .prop_map(|(m, cwd)| {
            let mut ev = Event::new(Hook::PreLlmCall);
            ev.user_message = m;
            ev.cwd = cwd;
            ev
        });
    prop_oneof![3 => tool, 2 => llm]
}

fn load(sources: Vec<(PathBuf, String)>) -> Policy {
    match Policy::from_sources(sources.clone()) {
        Ok(p) => p,
        Err(warden::LoadError::Invalid { diagnostics }) => {
            let text: String = sources
                .iter()
                .map(|(p, t)| format!("== {}\n{t}", p.display()))
                .collect();
            panic!(
                "generated policy rejected:\n{}\n{text}",
                diagnostics
                    .iter()
                    .map(|d| d.to_string())
                    .collect::<Vec<_>>()
                    .join("\n")
            )
        }
        Err(e) => panic!("{e}"),
    }
}

fn check_case(p: &GPolicy, events: &[Event], lazy: bool) -> Result<(), TestCaseError> {
    let (sources, actions) = p.sources();
    let policy = load(sources.clone());
    prop_assert_eq!(policy.checked.rules.len(), p.rules.len());
    let set = policy
        .compile_with(&CompileOptions { home: None, lazy })
        .expect("compile");
    let text = || {
        sources
            .iter()
            .map(|(p, t)| format!("== {}\n{t}", p.display()))
            .collect::<String>()
    };
    for ev in events {
        // The parser and checker keep the meaning of what was written.
        for (g, r) in p.rules.iter().zip(&policy.checked.rules) {
            let applies = match g.hooks {
                Hooks::Tool => ev.hook == Hook::PreToolCall,
                Hooks::Llm => ev.hook == Hook::PreLlmCall,
                Hooks::Both => true,
            };
            if applies {
                prop_assert_eq!(
                    model_eval(&g.when, ev, &p.defines),
                    ref_eval(&r.when, ev),
                    "IR of `{}` changed its meaning\n{}\n{:?}",
                    r.id,
                    text(),
                    ev
                );
            }
        }
        let want = ref_verdict(&policy, &actions, ev);
        STATS.with(|s| {
            let mut s = s.borrow_mut();
            let kind = match &want.decision {
                Decision::Allow => 0,
                Decision::Block { .. } => 1,
                Decision::Approve { .. } => 2,
                Decision::Modify { .. } => 3,
                _ => 4,
            };
            s[kind] += 1;
            s[5] += want.matches.len();
        });
        let got = engine(&set.evaluate(ev));
        prop_assert_eq!(
            &got,
            &want,
            "engine vs reference\n{}\nevent: {:?}",
            text(),
            ev
        );
    }
    Ok(())
}

thread_local! {
    /// Decisions seen: allow, block, approve, modify, context; then total matches.
    static STATS: RefCell<[usize; 6]> = const { RefCell::new([0; 6]) };
}

#[test]
fn engine_matches_reference_interpreter() {
    let cases = std::env::var("WARDEN_DIFF_CASES")
        .ok()
        .and_then(|s| s.parse().ok())
        .unwrap_or(2000);
    let mut runner = TestRunner::new(Config {
        cases,
        failure_persistence: None,
        ..Config::default()
    });
    let strategy = (
        policy(),
        prop::collection::vec(event(), 1..7),
        any::<bool>(),
    );
    let result = runner.run(&strategy, |(p, events, lazy)| check_case(&p, &events, lazy));
    let [allow, block, approve, modify, context, matches] = STATS.with(|s| *s.borrow());
    let events = allow + block + approve + modify + context;
    eprintln!("{cases} policies, {events} events: {allow} allow, {block} block, {approve} approve, {modify} modify, {context} context; {matches} rule matches");
    if let Err(e) = result {
        panic!("{e}");
    }
    // The generator must exercise every outcome, or the comparison proves little.
    assert!(
        [allow, block, approve, modify, context]
            .iter()
            .all(|&n| n * 50 >= events),
        "skewed generator: {allow} {block} {approve} {modify} {context}"
    );
}

// ---------------------------------------------------------------------------
// Hand-written cases that stress the prefilter
// ---------------------------------------------------------------------------

fn tool_event(tool: &str, command: Option<&str>, path: Option<Value>) -> Event {
    let mut args = Map::new();
    if let Some(c) = command {
        args.insert("command".into(), json!(c));
    }
    if let Some(p) = path {
        args.insert("path".into(), p);
    }
    let mut ev = Event::tool_call(tool, Value::Object(args));
    ev.cwd = Some("/work/p".into());
    ev
}

/// Run one policy text against an event: the engine and the reference must
/// agree, and both must match exactly `want` (rule ids, in order).
fn agree(policy_text: &str, ev: &Event, want: &[&str]) {
    let policy = load(vec![(
        PathBuf::from("hand.warden"),
        policy_text.to_string(),
    )]);
    for lazy in [false, true] {
        let set = policy
            .compile_with(&CompileOptions { home: None, lazy })
            .expect("compile");
        let got: Vec<String> = set
            .evaluate(ev)
            .matches
            .into_iter()
            .map(|m| m.rule)
            .collect();
        let reference: Vec<String> = policy
            .checked
            .rules
            .iter()
            .filter(|r| {
                r.hooks.contains(&ev.hook)
                    && ref_eval(&r.when, ev)
                    && !r.unless.as_ref().is_some_and(|u| ref_eval(u, ev))
            })
            .map(|r| r.id.clone())
            .collect();
        assert_eq!(
            reference, want,
            "reference disagrees with the hand-written expectation\n{policy_text}\n{ev:?}"
        );
        assert_eq!(
            got, want,
            "engine (lazy={lazy}) disagrees\n{policy_text}\n{ev:?}"
        );
    }
}

#[test]
fn only_literal_inside_an_or() {
    // Different fields in the `or`: no single-field requirement, the rule must run unfiltered.
    let p = r#"
rule a { on pre_tool_call when tool == "terminal" or args.command contains "rm" block "a" }
rule b { on pre_tool_call when args.command contains "git" or args.command matches /^rm\s/ block "b" }
rule c { on pre_tool_call when (args.command starts_with "x" or args.path ends_with ".env") and tool == "patch" block "c" }
"#;
    agree(
        p,
        &tool_event("read_file", Some("rm -rf build"), None),
        &["a", "b"],
    );
    agree(p, &tool_event("terminal", Some("ls"), None), &["a"]);
    agree(
        p,
        &tool_event("patch", Some("ls"), Some(json!("/p/.env"))),
        &["c"],
    );
    agree(p, &tool_event("patch", Some("xs"), None), &["c"]);
}

#[test]
fn not_over_a_literal() {
    let p = r#"
rule a { on pre_tool_call when not args.command contains "git" block "a" }
rule b { on pre_tool_call when args.command != "ls" block "b" }
rule c { on pre_tool_call when tool == "terminal" and not (args.command matches /push/ or args.command matches /pull/) block "c" }
rule d { on pre_tool_call when not not args.command contains "git" block "d" }
"#;
    agree(p, &tool_event("terminal", Some("ls"), None), &["a", "c"]);
    agree(
        p,
        &tool_event("terminal", Some("git push"), None),
        &["b", "d"],
    );
    // Missing field: every atom false, so `not contains` and `!=` hold.
    agree(p, &tool_event("terminal", None, None), &["a", "b", "c"]);
}

#[test]
fn case_insensitive_literals() {
    let p = r#"
rule a { on pre_tool_call when args.command matches /GIT\s+PUSH/i block "a" }
rule b { on pre_tool_call when args.command contains "PUSH" nocase block "b" }
rule c { on pre_tool_call when tool == "Terminal" nocase block "c" }
rule d { on pre_tool_call when args.command matches /(?i)force/ block "d" }
rule e { on pre_tool_call when args.command matches /push/ nocase block "e" }
rule f { on pre_tool_call when args.command contains "CAFÉ" nocase block "f" }
rule g { on pre_tool_call when args.command contains "push" block "g" }
"#;
    agree(
        p,
        &tool_event("TERMINAL", Some("Git  Push --FORCE"), None),
        &["a", "b", "c", "d", "e"],
    );
    agree(
        p,
        &tool_event("terminal", Some("git push"), None),
        &["a", "b", "c", "e", "g"],
    );
    agree(p, &tool_event("terminal", Some("café"), None), &["c", "f"]);
}

/// `(?i)` folds Unicode case in the regex engine (`/é/i` matches `É`), so the
/// literals the prefilter extracts must include the Unicode case variants.
#[test]
fn case_insensitive_regex_with_non_ascii_literals() {
    let p = r#"
rule e_acute { on pre_tool_call when args.path matches /é/i block "e" }
rule cafe { on pre_tool_call when args.path matches /caf[eé]/i or args.path in ["x"] block "cafe" }
rule sharp { on pre_tool_call when args.path matches /straße/i block "s" }
rule kelvin { on pre_tool_call when args.path matches /k/i block "k" }
"#;
    // Policy regexes fold ASCII case only (documented; the prefilter agrees):
    // `É` is not `é`, and KELVIN SIGN is not `k`.
    agree(
        p,
        &tool_event("read_file", None, Some(json!("CAFÉ"))),
        &["cafe"],
    );
    agree(
        p,
        &tool_event("read_file", None, Some(json!("café"))),
        &["e_acute", "cafe"],
    );
    agree(
        p,
        &tool_event("read_file", None, Some(json!("STRASSE"))),
        &[],
    );
    agree(
        p,
        &tool_event("read_file", None, Some(json!("STRAßE"))),
        &["sharp"],
    );
    agree(
        p,
        &tool_event("read_file", None, Some(json!("\u{212A}"))),
        &[],
    );
    agree(
        p,
        &tool_event("read_file", None, Some(json!("K"))),
        &["kelvin"],
    );
}

/// Characters outside ASCII whose lowercase contains an ASCII letter:
/// KELVIN SIGN (U+212A) lowercases to `k`, and `İ` (U+0130) to `i` + U+0307.
/// `nocase` on an ASCII literal folds ASCII letters only, so none of these
/// pass for `k`/`i` — in the engine, its prefilter and the reference alike;
/// a non-ASCII literal (`"\u{212A}"`) folds Unicode and skips the prefilter.
#[test]
fn nocase_literals_whose_unicode_fold_is_ascii() {
    let p = r#"
rule kelvin { on pre_tool_call when args.command contains "k" nocase block "k" }
rule dotted { on pre_tool_call when args.command starts_with "i" nocase block "i" }
rule eq { on pre_tool_call when args.command == "ok" nocase block "eq" }
rule re { on pre_tool_call when args.command matches /k/i block "re" }
rule uni { on pre_tool_call when args.command contains "K" nocase block "u" }
"#;
    agree(p, &tool_event("terminal", Some("\u{212A}"), None), &["uni"]);
    agree(p, &tool_event("terminal", Some("\u{130}x"), None), &[]);
    agree(
        p,
        &tool_event("terminal", Some("O\u{212A}"), None),
        &["uni"],
    );
    agree(
        p,
        &tool_event("terminal", Some("OK"), None),
        &["kelvin", "eq", "re", "uni"],
    );
    agree(p, &tool_event("terminal", Some("Ix"), None), &["dotted"]);
}

/// `path(F) under "/dir"` goes through the prefilter's ancestor index:
/// relative paths, `..`, the root and several values must all still reach it.
#[test]
fn path_under_index() {
    let p = r#"
rule data { on pre_tool_call when tool in ["write_file"] and path(args.path) under "/srv/data" block "d" }
rule root { on pre_tool_call when path(args.path) under "/" block "r" }
rule etc { on pre_tool_call when path(args.path) under ["/etc", "/work/p/secret"] block "e" }
rule deep { on pre_tool_call when path(args.path) under "/srv/data/a/b" block "b" }
"#;
    agree(
        p,
        &tool_event("write_file", None, Some(json!("/srv/data/x"))),
        &["data", "root"],
    );
    agree(
        p,
        &tool_event("write_file", None, Some(json!("/srv/database"))),
        &["root"],
    );
    agree(
        p,
        &tool_event("write_file", None, Some(json!("secret/k"))),
        &["root", "etc"],
    );
    agree(
        p,
        &tool_event("write_file", None, Some(json!("../../srv/data/a/b/c"))),
        &["data", "root", "deep"],
    );
    agree(
        p,
        &tool_event("write_file", None, Some(json!("/etc/../srv/data"))),
        &["data", "root"],
    );
    agree(
        p,
        &tool_event("write_file", None, Some(json!(["/tmp/x", "/etc/passwd"]))),
        &["root", "etc"],
    );
    agree(
        p,
        &tool_event("read_file", None, Some(json!("/srv/data/a/b"))),
        &["root", "deep"],
    );
}

#[test]
fn literals_shared_by_many_rules() {
    let mut p = String::new();
    for i in 0..150 {
        // 150 rules (more than two bitset words) share `git`; each has its own second literal.
        p += &format!("rule r{i} {{ on pre_tool_call when args.command contains \"git\" and args.command contains \"s{i}x\" block \"r{i}\" }}\n");
    }
    p += "rule all { on pre_tool_call when args.command matches /\\bgit\\b/ block \"all\" }\n";
    p += "rule none_lit { on pre_tool_call when args.command matches /.+/ block \"none\" }\n";
    let ids: Vec<String> = (0..150)
        .filter(|i| i % 7 == 3)
        .map(|i| format!("r{i}"))
        .collect();
    let cmd = format!(
        "git {}",
        ids.iter()
            .map(|id| format!("s{}x", &id[1..]))
            .collect::<Vec<_>>()
            .join(" ")
    );
    let mut want: Vec<&str> = ids.iter().map(String::as_str).collect();
    want.extend(["all", "none_lit"]);
    agree(&p, &tool_event("terminal", Some(&cmd), None), &want);
    agree(
        &p,
        &tool_event("terminal", Some("svn s3x"), None),
        &["none_lit"],
    );
}

#[test]
fn multi_valued_and_empty_literals() {
    let p = r#"
rule a { on pre_tool_call when args.path starts_with "/etc" block "a" }
rule b { on pre_tool_call when args.command contains "" block "b" }
rule c { on pre_tool_call when args.path in ["/tmp/x", "/p/y"] block "c" }
rule d { on pre_tool_call when args.path exists block "d" }
"#;
    agree(
        p,
        &tool_event("patch", None, Some(json!(["/p/y", "/etc/passwd"]))),
        &["a", "c", "d"],
    );
    agree(p, &tool_event("patch", Some(""), Some(json!([]))), &["b"]);
}

#[test]
fn and_picks_one_requirement_but_all_children_hold() {
    // The prefilter keys `a` on its most selective literal; the others must still be confirmed.
    let p = r#"
rule a { on pre_tool_call when tool == "terminal" and args.command contains "terraform apply" and args.path matches /\.tf$/ block "a" }
rule b { on pre_tool_call, pre_llm_call when cwd starts_with "/work" block "b" }
"#;
    agree(
        p,
        &tool_event(
            "terminal",
            Some("terraform apply -auto"),
            Some(json!("main.tf")),
        ),
        &["a", "b"],
    );
    agree(
        p,
        &tool_event(
            "terminal",
            Some("terraform apply -auto"),
            Some(json!("main.tfvars")),
        ),
        &["b"],
    );
    let mut llm = Event::llm_call("hello");
    llm.cwd = Some("/work/x".into());
    agree(p, &llm, &["b"]);
}

//! Explaining one evaluation: which rules the literal prefilter admitted
//! (and which literal, in which field, admitted them), each candidate's
//! condition tree with the value of every sub-term and why (the literal
//! found, the regex span matched, the path as normalised), the exemptions
//! that applied, and how the matches combined into the decision.
//!
//! [`MatcherSet::explain`] walks the same compiled matchers the evaluator
//! runs, without short-circuiting so every sub-term gets a value, and then
//! calls the evaluator itself for the verdict, so an explanation can never
//! disagree with `warden eval`.
//!
//! Over 800 lines on purpose: it mirrors `eval` node for node (so an explanation cannot
//! disagree with a verdict; its test checks that) and says why for every kind of test.

use super::{shell_test, test_value, Decision, Run, Verdict};
use crate::check::ir::{Qual, ShellTest, Test};
use crate::compile::prefilter::Admit;
use crate::compile::{CAction, CAtom, CTest, MatcherSet, Node};
use crate::event::values::{for_each_value, Val};
use crate::event::{Event, Field};
use crate::syntax::ast::Scalar;
use serde::Serialize;
use std::time::Instant;

/// Values longer than this (characters) are shortened in explanations.
const SHOW_MAX: usize = 120;

/// Everything about one evaluation, for a human or a tool.
#[derive(Clone, Debug, Serialize)]
pub struct Explanation {
    /// The hook evaluated.
    pub event: &'static str,
    /// What the literal prefilter did.
    pub prefilter: PrefilterTrace,
    /// Every candidate rule, in policy order.
    pub rules: Vec<RuleTrace>,
    /// How the matches combined, one step per line.
    pub combination: Vec<String>,
    /// The verdict, exactly as [`MatcherSet::evaluate`] returns it.
    pub verdict: Verdict,
    /// Time of the prefilter pass and of a plain evaluation, in microseconds.
    pub timings: EvalTimings,
}

/// Stage times of one evaluation of this event.
#[derive(Clone, Copy, Debug, Default, Serialize)]
pub struct EvalTimings {
    /// The aho-corasick pass alone.
    pub prefilter_us: f64,
    /// A whole evaluation (prefilter, conditions, combination).
    pub evaluate_us: f64,
}

/// The literal prefilter's view of the event.
#[derive(Clone, Debug, Serialize)]
pub struct PrefilterTrace {
    /// Rules in the policy set.
    pub rules_total: usize,
    /// Decision rules that apply to this hook.
    pub rules_on_hook: usize,
    /// Redaction rules on this hook (run by the redaction engine, not here).
    pub redaction_rules: usize,
    /// Rules with no required literal: evaluated on every event of the hook.
    pub unfiltered: Vec<String>,
    /// Literals found in the event's fields.
    pub hits: Vec<LiteralHit>,
    /// Rules whose condition was evaluated, in policy order.
    pub candidates: Vec<String>,
    /// Rules on the hook the prefilter ruled out without evaluating them.
    pub skipped: usize,
}

/// One prefilter literal found in one field.
#[derive(Clone, Debug, Serialize)]
pub struct LiteralHit {
    /// The field, e.g. `args.command`.
    pub field: String,
    /// The literal (the automaton ignores ASCII case).
    pub literal: String,
    /// Byte range of the first occurrence in the field's value.
    pub start: usize,
    /// End of that range.
    pub end: usize,
    /// Rules this literal admitted.
    pub rules: Vec<String>,
}

/// What happened to one candidate rule.
#[derive(Clone, Debug, Serialize)]
pub struct RuleTrace {
    /// Rule id.
    pub rule: String,
    /// Action keyword.
    pub action: &'static str,
    /// `path:line:col` of the rule.
    pub location: String,
    /// Why the prefilter let it through.
    pub considered_because: String,
    /// The `when` tree with values.
    pub when: CondTrace,
    /// The `unless` tree with values, if the rule has one.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub unless: Option<CondTrace>,
    /// Exemptions naming this rule (evaluated only when the rule matched).
    #[serde(skip_serializing_if = "Vec::is_empty")]
    pub exemptions: Vec<ExemptionTrace>,
    /// The result.
    pub outcome: Outcome,
}

/// The result for one candidate rule.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize)]
#[serde(rename_all = "snake_case")]
pub enum Outcome {
    /// Matched and counts toward the decision.
    Matched,
    /// The `when` condition is false.
    NoMatch,
    /// `when` held but `unless` held too.
    Unless,
    /// Matched, but an exemption applies.
    Exempted,
}

/// One node of a condition tree, with its value.
#[derive(Clone, Debug, Serialize)]
pub struct CondTrace {
    /// `and`, `or`, `not`, `const` or `atom`.
    pub op: &'static str,
    /// The sub-term as written (canonical form).
    pub text: String,
    /// Its value on this event.
    pub value: bool,
    /// Why (atoms): the literal found, the span matched, the normalised path…
    #[serde(skip_serializing_if = "Option::is_none")]
    pub detail: Option<String>,
    /// Sub-terms.
    #[serde(skip_serializing_if = "Vec::is_empty")]
    pub children: Vec<CondTrace>,
}

/// One exemption of a matched rule.
#[derive(Clone, Debug, Serialize)]
pub struct ExemptionTrace {
    /// `path:line:col` of the exemption.
    pub location: String,
    /// Its reason.
    pub because: String,
    /// Its last day.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub until: Option<String>,
    /// Its condition, if it has one.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub when: Option<CondTrace>,
    /// Whether it applied.
    pub applies: bool,
}

impl MatcherSet {
    /// Explain how `event` is evaluated. The verdict inside is the one
    /// [`MatcherSet::evaluate`] returns.
    pub fn explain(&self, event: &Event) -> Explanation {
        let run = Run::new(self, event);
        // One pass of the prefilter, the one `evaluate` runs, told why it admits each rule.
        let mut found: Vec<(usize, usize, usize, usize, usize)> = Vec::new();
        let mut programs: Vec<(usize, u32)> = Vec::new();
        let mut under: Vec<(u32, String)> = Vec::new();
        let t = Instant::now();
        let bits = run.candidates_traced(&mut |admit, r| match admit {
            Admit::Literal {
                filter,
                literal,
                value,
                start,
                end,
            } => found.push((filter, value, end, start, literal)),
            Admit::Program { command } => programs.push((command, r)),
            Admit::Under { field, path, dir } => under.push((
                r,
                format!("normalised {field} {} is under {}", quote(path), quote(dir)),
            )),
        });
        let prefilter_us = t.elapsed().as_secs_f64() * 1e6;
        let t = Instant::now();
        let verdict = self.evaluate(event);
        let evaluate_us = t.elapsed().as_secs_f64() * 1e6;

        let idx = self.index(event.hook);
        let on_hook = |r: &crate::compile::CRule| r.hooks & event.hook.bit() != 0;
        let rules_on_hook = self
            .rules
            .iter()
            .filter(|r| on_hook(r) && !matches!(r.action, CAction::Redact))
            .count();
        let redaction_rules = self
            .rules
            .iter()
            .filter(|r| on_hook(r) && matches!(r.action, CAction::Redact))
            .count();

        // Literal hits, first occurrence per (field, literal), in order of position in each
        // value (the search reports one occurrence per admitted rule: keep one).
        found.sort_by_key(|&(filter, value, end, start, _)| (filter, value, end, start));
        found.dedup();
        let mut hits: Vec<LiteralHit> = Vec::new();
        let mut admitted_by: Vec<Vec<String>> = vec![Vec::new(); self.rules.len()];
        for (filter, _, end, start, p) in found {
            let f = &idx.filters[filter];
            let field = f.field.to_string();
            let lit = &f.literals[p];
            if hits.iter().any(|h| h.field == field && &h.literal == lit) {
                continue;
            }
            let rules: Vec<String> = f.targets[p]
                .iter()
                .map(|&r| self.rules[r as usize].id.clone())
                .collect();
            for &r in &f.targets[p] {
                admitted_by[r as usize].push(format!(
                    "literal {} found in {} at {}..{}",
                    quote(lit),
                    field,
                    start,
                    end
                ));
            }
            hits.push(LiteralHit {
                field,
                literal: lit.clone(),
                start,
                end,
                rules,
            });
        }

        // Program names of the parsed command line (shell predicates' prefilter), one hit
        // per command that admitted rules.
        if let Some(a) = run.shell() {
            for group in programs.chunk_by(|x, y| x.0 == y.0) {
                let program = &a.commands[group[0].0].program;
                for &(_, r) in group {
                    let why = format!("program `{program}` runs in the command line");
                    if !admitted_by[r as usize].contains(&why) {
                        admitted_by[r as usize].push(why);
                    }
                }
                hits.push(LiteralHit {
                    field: "the program names of the command line".into(),
                    literal: program.clone(),
                    start: 0,
                    end: 0,
                    rules: group
                        .iter()
                        .map(|&(_, r)| self.rules[r as usize].id.clone())
                        .collect(),
                });
            }
        }
        // Paths under an indexed directory (`path(F) under "/dir"`).
        for (r, why) in under {
            if !admitted_by[r as usize].contains(&why) {
                admitted_by[r as usize].push(why);
            }
        }

        let mut traces = Vec::new();
        let mut candidates = Vec::new();
        for (i, rule) in self.rules.iter().enumerate() {
            if bits[i / 64] & (1 << (i % 64)) == 0 {
                continue;
            }
            candidates.push(rule.id.clone());
            let considered_because = if idx.unfiltered.contains(&(i as u32)) {
                "no literal the prefilter can use: evaluated on every event of this hook"
                    .to_string()
            } else {
                admitted_by[i].join("; ")
            };
            let when = trace_node(&run, &rule.when);
            let unless = rule.unless.as_ref().map(|u| trace_node(&run, u));
            let mut exemptions = Vec::new();
            let mut outcome = if !when.value {
                Outcome::NoMatch
            } else if unless.as_ref().is_some_and(|u| u.value) {
                Outcome::Unless
            } else {
                Outcome::Matched
            };
            if outcome == Outcome::Matched {
                let mut applied = false;
                for &e in &rule.exemptions {
                    let ex = &self.exemptions[e as usize];
                    let w = ex.when.as_ref().map(|w| trace_node(&run, w));
                    // Like the evaluator: the first exemption that holds applies.
                    let applies = !applied && w.as_ref().is_none_or(|w| w.value);
                    applied |= applies;
                    exemptions.push(ExemptionTrace {
                        location: ex.origin.location(),
                        because: ex.because.clone(),
                        until: ex.until.clone(),
                        when: w,
                        applies,
                    });
                }
                if applied {
                    outcome = Outcome::Exempted;
                }
            }
            traces.push(RuleTrace {
                rule: rule.id.clone(),
                action: rule.kind,
                location: rule.origin.location(),
                considered_because,
                when,
                unless,
                exemptions,
                outcome,
            });
        }
        let skipped = rules_on_hook.saturating_sub(candidates.len());
        let unfiltered = idx
            .unfiltered
            .iter()
            .map(|&r| self.rules[r as usize].id.clone())
            .collect();
        let combination = combination(&verdict, redaction_rules, event);
        Explanation {
            event: event.hook.name(),
            prefilter: PrefilterTrace {
                rules_total: self.rules.len(),
                rules_on_hook,
                redaction_rules,
                unfiltered,
                hits,
                candidates,
                skipped,
            },
            rules: traces,
            combination,
            verdict,
            timings: EvalTimings {
                prefilter_us,
                evaluate_us,
            },
        }
    }
}

/// The steps from the matches to the decision, in words.
fn combination(v: &Verdict, redaction_rules: usize, event: &Event) -> Vec<String> {
    let mut out = Vec::new();
    let of = |kind: &str| -> Vec<String> {
        v.matches
            .iter()
            .filter(|m| m.action == kind)
            .map(|m| format!("`{}`", m.rule))
            .collect()
    };
    let (blocks, approves, modifies, contexts) =
        (of("block"), of("approve"), of("modify"), of("context"));
    for e in &v.exempted {
        out.push(format!(
            "`{}` matched but is exempted ({}: \"{}\"), so it does not count",
            e.rule, e.exemption, e.because
        ));
    }
    if v.matches.is_empty() && v.decision == Decision::Allow {
        out.push("no rule matched: allow".into());
    }
    let list = |v: &[String]| v.join(", ");
    // "KIND by `rule`", and which later rules of the same kind it wins over.
    let first_wins = |kind: &str, rule: &str, all: &[String]| {
        let others: Vec<String> = all
            .iter()
            .filter(|b| **b != format!("`{rule}`"))
            .cloned()
            .collect();
        if others.is_empty() {
            format!("{kind} by `{rule}`")
        } else {
            format!(
                "{kind} by `{rule}`: the first {kind} in policy order wins over {}",
                others.join(", ")
            )
        }
    };
    match &v.decision {
        Decision::Redact {
            rules,
            findings,
            withheld_by,
            ..
        } => {
            out.push(match withheld_by {
                Some(w) => format!("withheld: `{w}` replaced the whole text"),
                None => format!(
                    "redacted {} finding(s) by {}",
                    findings.len(),
                    rules
                        .iter()
                        .map(|r| format!("`{r}`"))
                        .collect::<Vec<_>>()
                        .join(", ")
                ),
            });
        }
        Decision::Block { rule, .. } => {
            out.push(first_wins("block", rule, &blocks));
            let mut beaten = Vec::new();
            for (k, v) in [
                ("approve", &approves),
                ("modify", &modifies),
                ("context", &contexts),
            ] {
                if !v.is_empty() {
                    beaten.push(format!("{k} {}", list(v)));
                }
            }
            if !beaten.is_empty() {
                out.push(format!("block beats {}", beaten.join("; ")));
            }
        }
        Decision::Approve { rule, .. } => {
            out.push(first_wins("approve", rule, &approves));
            if !modifies.is_empty() {
                out.push(format!("approve beats modify {}", list(&modifies)));
            }
            if !contexts.is_empty() {
                out.push(format!("approve beats context {}", list(&contexts)));
            }
        }
        Decision::Modify { rules, .. } => {
            out.push(if rules.len() > 1 {
                format!("modify: the arguments of {} are merged over the original, the later rule winning per key", list(&modifies))
            } else {
                format!("modify by `{}`: its assignments are merged over the original arguments", rules[0])
            });
            if !contexts.is_empty() {
                out.push(format!("modify beats context {}", list(&contexts)));
            }
        }
        Decision::Context { rules, .. } => {
            out.push(if rules.len() > 1 {
                format!(
                    "context: the pieces of {} are joined with a blank line",
                    list(&contexts)
                )
            } else {
                format!("context from `{}`", rules[0])
            });
        }
        Decision::Allow if !v.matches.is_empty() => {
            out.push("the matches carry no decision: allow".into())
        }
        Decision::Allow => {}
    }
    if redaction_rules > 0
        && event.hook.is_transform()
        && !matches!(v.decision, Decision::Redact { .. })
    {
        out.push(format!(
            "{redaction_rules} redaction rule(s) on {} found nothing to redact",
            event.hook.name()
        ));
    }
    out
}

fn trace_node(run: &Run, n: &Node) -> CondTrace {
    match n {
        Node::And(v) | Node::Or(v) => {
            let is_and = matches!(n, Node::And(_));
            let children: Vec<CondTrace> = v.iter().map(|c| trace_node(run, c)).collect();
            let value = if is_and {
                children.iter().all(|c| c.value)
            } else {
                children.iter().any(|c| c.value)
            };
            let sep = if is_and { " and " } else { " or " };
            let text = children
                .iter()
                .map(|c| paren(c, is_and))
                .collect::<Vec<_>>()
                .join(sep);
            CondTrace {
                op: if is_and { "and" } else { "or" },
                text,
                value,
                detail: None,
                children,
            }
        }
        Node::Not(c) => {
            let child = trace_node(run, c);
            let text = format!(
                "not {}",
                if child.op == "atom" || child.op == "const" {
                    child.text.clone()
                } else {
                    format!("({})", child.text)
                }
            );
            CondTrace {
                op: "not",
                text,
                value: !child.value,
                detail: None,
                children: vec![child],
            }
        }
        Node::Const(b) => CondTrace {
            op: "const",
            text: b.to_string(),
            value: *b,
            detail: None,
            children: Vec::new(),
        },
        Node::Atom(a) => {
            let atom = &run.set.atoms[*a as usize];
            let (value, detail) = trace_atom(run, atom);
            CondTrace {
                op: "atom",
                text: atom_text(&atom.field, &atom.source),
                value,
                detail: Some(detail),
                children: Vec::new(),
            }
        }
    }
}

/// A child's text inside its parent: `or` under `and` needs parentheses.
fn paren(c: &CondTrace, parent_is_and: bool) -> String {
    if (parent_is_and && c.op == "or") || (!parent_is_and && c.op == "and") {
        format!("({})", c.text)
    } else {
        c.text.clone()
    }
}

/// An atom's value and the reason for it.
fn trace_atom(run: &Run, a: &CAtom) -> (bool, String) {
    let home = run.set.home.as_deref();
    let event = run.event;
    if let CTest::Shell(st) = a.test() {
        let Some(an) = run.shell() else {
            return (false, "the event has no command line".into());
        };
        let value = shell_test(st, an, event, home);
        let cmds: Vec<String> = an
            .commands
            .iter()
            .map(|c| {
                // the analysed form: substituted, decoded, expanded; with the
                // files it writes and what it was reached through
                let mut s = c.program.clone();
                for arg in &c.args {
                    s.push(' ');
                    s.push_str(&arg.text);
                }
                for r in c.redirects.iter().filter(|r| r.writes()) {
                    s.push_str(" [writes ");
                    s.push_str(r.path.as_deref().unwrap_or(&r.target));
                    s.push(']');
                }
                let mut q = quote(s.trim_start());
                if !c.via.is_empty() {
                    q.push_str(&format!(" (via {})", c.via.join(" > ")));
                }
                q
            })
            .collect();
        let mut d = if cmds.is_empty() {
            "the command line runs no command".to_string()
        } else {
            format!("the command line runs {}", cmds.join(", "))
        };
        if an.has_unknown() {
            d.push_str(" (some of what runs is not statically known)");
        }
        return (value, d);
    }
    let mut values: Vec<Val> = Vec::new();
    for_each_value(event, &a.field, &mut |v| {
        values.push(v);
        values.len() >= 64
    });
    let field = a.field.to_string();
    if values.is_empty() {
        return (false, format!("{field} is missing"));
    }
    if let CTest::Exists = a.test() {
        let present = values
            .iter()
            .any(|v| !matches!(v, Val::Json(serde_json::Value::Null)));
        return (
            present,
            if present {
                format!("{field} is present")
            } else {
                format!("{field} is null")
            },
        );
    }
    let several = values.len() > 1;
    for (n, v) in values.iter().enumerate() {
        if test_value(a.test(), v, event, home) {
            let which = if several {
                format!("{field}[{n}]")
            } else {
                field.clone()
            };
            return (true, why_true(a, v, &which, event, home));
        }
    }
    let shown: Vec<String> = values.iter().take(3).map(|v| show(v)).collect();
    let more = if values.len() > 3 {
        format!(" (and {} more)", values.len() - 3)
    } else {
        String::new()
    };
    let base = format!("{field} = {}{more}", shown.join(", "));
    let extra = match a.test() {
        CTest::Under(_) | CTest::UnderField(_) => {
            let t = values[0].as_text();
            let target = match a.test() {
                CTest::UnderField(f) => {
                    let mut d = String::new();
                    for_each_value(event, f, &mut |v| {
                        d = v.as_text().into_owned();
                        true
                    });
                    if d.is_empty() {
                        format!("{f} (missing)")
                    } else {
                        format!("{f} = {}", quote(&d))
                    }
                }
                _ => match &a.source {
                    Test::Under {
                        target: crate::check::ir::UnderTarget::Paths(p),
                    } => p.iter().map(|s| quote(s)).collect::<Vec<_>>().join(", "),
                    _ => String::new(),
                },
            };
            match crate::paths::normalize(&t, event.cwd.as_deref(), home) {
                Some(p) if p != t.as_ref() => {
                    format!("; normalised to {}, not under {target}", quote(&p))
                }
                Some(_) => format!("; not under {target}"),
                None => {
                    "; cannot be normalised (relative path without cwd, or unknown home)".into()
                }
            }
        }
        _ => String::new(),
    };
    (false, base + &extra)
}

fn why_true(a: &CAtom, v: &Val, field: &str, event: &Event, home: Option<&str>) -> String {
    let text = v.as_text();
    let find = |needles: &[crate::compile::Needle],
                nocase: bool,
                f: &dyn Fn(&str, &str) -> Option<usize>|
     -> String {
        let hay = if nocase {
            text.to_lowercase()
        } else {
            text.to_string()
        };
        for n in needles.iter().map(|n| n.text.as_str()) {
            if let Some(at) = f(&hay, n) {
                return format!(
                    "found {} at {}..{} in {field} = {}",
                    quote(n),
                    at,
                    at + n.len(),
                    show(v)
                );
            }
        }
        format!("{field} = {}", show(v))
    };
    match a.test() {
        CTest::Eq { .. } | CTest::In { .. } => format!("{field} = {}", show(v)),
        CTest::Contains { needles, nocase } => find(needles, *nocase, &|h, n| h.find(n)),
        CTest::StartsWith { needles, nocase } => {
            find(needles, *nocase, &|h, n| h.starts_with(n).then_some(0))
        }
        CTest::EndsWith { needles, nocase } => find(needles, *nocase, &|h, n| {
            h.ends_with(n).then(|| h.len() - n.len())
        }),
        CTest::Matches(re) => match re.get().and_then(|re| re.find(text.as_bytes())) {
            Some(m) => format!(
                "regex matched {} at {}..{} of {field}",
                quote(&String::from_utf8_lossy(m.as_bytes())),
                m.start(),
                m.end()
            ),
            None => format!("{field} = {}", show(v)),
        },
        CTest::Glob(g) => {
            let pats = match &a.source {
                Test::Glob { patterns } => patterns.clone(),
                _ => Vec::new(),
            };
            let hit: Vec<String> = g
                .get()
                .matches(text.as_ref())
                .into_iter()
                .filter_map(|i| pats.get(i))
                .map(|p| quote(p))
                .collect();
            format!("{field} = {} matches glob {}", show(v), hit.join(", "))
        }
        CTest::Under(targets) => {
            let p = crate::paths::normalize(&text, event.cwd.as_deref(), home).unwrap_or_default();
            let mut dir = String::new();
            targets.iter().any(|t| {
                t.any_dir(event, home, |d| {
                    let hit = crate::paths::is_under(&p, d);
                    if hit {
                        dir = d.to_string();
                    }
                    hit
                })
            });
            format!(
                "path {} normalised to {}, which is under {}",
                show(v),
                quote(&p),
                quote(&dir)
            )
        }
        CTest::UnderField(f) => {
            let p = crate::paths::normalize(&text, event.cwd.as_deref(), home).unwrap_or_default();
            let mut dir = String::new();
            for_each_value(event, f, &mut |d| match crate::paths::normalize(
                &d.as_text(),
                None,
                home,
            ) {
                Some(x) if crate::paths::is_under(&p, &x) => {
                    dir = x;
                    true
                }
                _ => false,
            });
            format!(
                "path {} normalised to {}, which is under {f} = {}",
                show(v),
                quote(&p),
                quote(&dir)
            )
        }
        CTest::Exists => format!("{field} is present"),
        CTest::Shell(_) => format!("{field} = {}", show(v)),
        CTest::Detects { .. } => format!("a redaction rule found something in {field}"),
    }
}

/// An atom as written, canonically.
pub fn atom_text(field: &Field, test: &Test) -> String {
    let nc = |b: bool| if b { " nocase" } else { "" };
    let strs = |v: &[String]| {
        if v.len() == 1 {
            quote(&v[0])
        } else {
            format!(
                "[{}]",
                v.iter().map(|s| quote(s)).collect::<Vec<_>>().join(", ")
            )
        }
    };
    match test {
        Test::Eq { value, nocase } => format!("{field} == {}{}", scalar(value), nc(*nocase)),
        Test::In { values, nocase } => {
            format!(
                "{field} in [{}]{}",
                values.iter().map(scalar).collect::<Vec<_>>().join(", "),
                nc(*nocase)
            )
        }
        Test::Contains { needles, nocase } => {
            format!("{field} contains {}{}", strs(needles), nc(*nocase))
        }
        Test::StartsWith { needles, nocase } => {
            format!("{field} starts_with {}{}", strs(needles), nc(*nocase))
        }
        Test::EndsWith { needles, nocase } => {
            format!("{field} ends_with {}{}", strs(needles), nc(*nocase))
        }
        Test::Matches { regex } => format!("{field} matches /{}/", regex.replace('/', "\\/")),
        Test::Glob { patterns } => format!("{field} glob {}", strs(patterns)),
        Test::Under {
            target: crate::check::ir::UnderTarget::Paths(p),
        } => format!("path({field}) under {}", strs(p)),
        Test::Under {
            target: crate::check::ir::UnderTarget::Field(f),
        } => format!("path({field}) under {f}"),
        Test::Exists => format!("{field} exists"),
        Test::Shell(st) => shell_text(st),
        Test::Detects { patterns } => format!("{field} detects {}", strs(patterns)),
    }
}

fn shell_text(st: &ShellTest) -> String {
    let words = |v: &[String]| {
        if v.len() == 1 {
            v[0].clone()
        } else {
            format!("[{}]", v.join(", "))
        }
    };
    let strs = |v: &[String]| {
        if v.len() == 1 {
            quote(&v[0])
        } else {
            format!(
                "[{}]",
                v.iter().map(|s| quote(s)).collect::<Vec<_>>().join(", ")
            )
        }
    };
    match st {
        ShellTest::Unknown => "command unknown".into(),
        ShellTest::Pipe { from, to } => format!("pipe from {} to {}", words(from), words(to)),
        ShellTest::RedirectUnder(p) => format!("redirect to under {}", strs(p)),
        ShellTest::RedirectGlob(g) => format!("redirect to glob {}", strs(g)),
        ShellTest::Command { programs, quals } => {
            let mut s = format!("command {}", words(programs));
            for (i, q) in quals.iter().enumerate() {
                s.push_str(if i == 0 { " with " } else { ", " });
                s.push_str(&match q {
                    Qual::Flags(f) => format!("flags {}", words(f)),
                    Qual::AnyFlag(f) => format!("any_flag {}", words(f)),
                    Qual::Subcommand(seqs) => {
                        let v: Vec<String> = seqs.iter().map(|s| s.join(" ")).collect();
                        format!("subcommand {}", words(&v))
                    }
                    Qual::DynamicArgs => "dynamic_args".into(),
                    Qual::ArgUnder(p) => format!("arg under {}", strs(p)),
                    Qual::ArgIs(p) => format!("arg is {}", strs(p)),
                    Qual::ArgResembles(p) => format!("arg resembles {}", strs(p)),
                    Qual::Arg(t) => {
                        atom_text(&Field::Args(Vec::new()), t).replacen("args", "arg", 1)
                    }
                    Qual::ArgPath(t) => {
                        atom_text(&Field::Args(Vec::new()), t).replacen("args", "arg path", 1)
                    }
                });
            }
            s
        }
    }
}

fn scalar(s: &Scalar) -> String {
    match s {
        Scalar::Str(s) => quote(s),
        other => other.to_json().to_string(),
    }
}

/// A value for display: strings quoted and shortened.
fn show(v: &Val) -> String {
    match v {
        Val::Str(s) => quote(s),
        other => other.as_text().into_owned(),
    }
}

/// JSON-quote a string, shortened to [`SHOW_MAX`] characters.
fn quote(s: &str) -> String {
    if s.chars().count() > SHOW_MAX {
        let cut: String = s.chars().take(SHOW_MAX).collect();
        format!("{}…", serde_json::Value::String(cut))
    } else {
        serde_json::Value::String(s.to_string()).to_string()
    }
}

#[cfg(test)]
mod tests {
    use crate::{Event, Policy};
    use serde_json::json;

    #[test]
    fn explanation_agrees_with_evaluate_and_says_why() {
        let p = Policy::from_sources(vec![(
            "p.warden".into(),
            r#"
rule fs.rm_root {
  on pre_tool_call
  when tool == "terminal" and args.command matches /\brm\s+-rf\s+\/(\s|$)/
  block "root"
}
rule any.approve {
  on pre_tool_call
  when not tool == "read_file"
  approve "ask" key "k"
}
rule other { on pre_tool_call when args.command contains "zzz" block "no" }
"#
            .into(),
        )])
        .unwrap();
        let set = p.compile().unwrap();
        let ev = Event::tool_call("terminal", json!({"command": "rm -rf /"}));
        let x = set.explain(&ev);
        assert_eq!(x.verdict, set.evaluate(&ev));
        assert_eq!(x.prefilter.candidates, ["fs.rm_root", "any.approve"]);
        assert_eq!(x.prefilter.skipped, 1);
        let rm = &x.rules[0];
        assert!(
            rm.considered_because.contains("literal \"rm"),
            "{}",
            rm.considered_because
        );
        assert!(rm.when.value);
        assert!(rm.when.children[1]
            .detail
            .as_deref()
            .unwrap()
            .contains("regex matched \"rm -rf /\" at 0..8"));
        assert!(x.rules[1].considered_because.contains("every event"));
        assert!(
            x.combination
                .iter()
                .any(|c| c.contains("block beats approve `any.approve`")),
            "{:?}",
            x.combination
        );
    }

    /// `arg path …` tests an argument as written and the path it names: relative to the
    /// directory a `cd` moved to, with `.`, `..` and `//` resolved; `arg …` tests the text only.
    #[test]
    fn arg_path_tests_the_path_an_argument_names() {
        let p = Policy::from_sources(vec![(
            "p.warden".into(),
            r#"
rule k.path { on pre_tool_call when command cat with arg path matches /(?:^|\/)\.kube\/config$/ block "p" }
rule k.text { on pre_tool_call when command cat with arg matches /(?:^|\/)\.kube\/config$/ block "t" }
"#
            .into(),
        )])
        .unwrap();
        let set = p.compile().unwrap();
        let fired = |cmd: &str| {
            let mut ev = Event::tool_call("terminal", json!({ "command": cmd }));
            ev.cwd = Some("/w".into());
            let x = set.explain(&ev);
            assert_eq!(x.verdict, set.evaluate(&ev));
            let on = |id: &str| x.rules.iter().any(|r| r.rule == id && r.when.value);
            (on("k.path"), on("k.text"))
        };
        for (cmd, want) in [
            ("cat ~/.kube/config", (true, true)),
            ("cat ~/.kube/./config", (true, false)),
            ("cat ~/.kube//config", (true, false)),
            ("cd ~/.kube && cat config", (true, false)),
            ("cd /tmp/.kube; cat ../.kube/config", (true, true)),
            ("cd ~/.kube/x && cat ../config", (true, false)),
            ("cat config", (false, false)),
            ("cd ~/.kube && ls config", (false, false)),
        ] {
            assert_eq!(fired(cmd), want, "{cmd}");
        }
        let mut ev = Event::tool_call("terminal", json!({ "command": "cd ~/.kube; cat config" }));
        ev.cwd = Some("/w".into());
        let x = set.explain(&ev);
        let text = &x
            .rules
            .iter()
            .find(|r| r.rule == "k.path")
            .unwrap()
            .when
            .text;
        assert!(text.contains("arg path matches"), "{text}");
    }

    /// The prefilter's own search says why it admitted each rule: a literal (at its first
    /// occurrence, in position order), a program of the command line, a path ancestor.
    #[test]
    fn reasons_come_from_the_prefilter_search() {
        let p = Policy::from_sources(vec![(
            "p.warden".into(),
            r#"
rule a.late { on pre_tool_call when args.command contains "tail" block "a" }
rule b.early { on pre_tool_call when args.command contains "head" block "b" }
rule c.prog { on pre_tool_call when command curl approve "c" key "c" }
rule d.etc { on pre_tool_call when path(args.path) under "/etc" block "d" }
"#
            .into(),
        )])
        .unwrap();
        let set = p.compile().unwrap();
        let ev = Event::tool_call(
            "terminal",
            json!({"command": "head x | tail y; curl z", "path": "/etc/ssh/sshd_config"}),
        );
        let x = set.explain(&ev);
        assert_eq!(x.verdict, set.evaluate(&ev));
        assert_eq!(
            x.prefilter.candidates,
            ["a.late", "b.early", "c.prog", "d.etc"]
        );
        // position order in the value, not rule order
        let lits: Vec<_> = x
            .prefilter
            .hits
            .iter()
            .map(|h| h.literal.as_str())
            .collect();
        assert_eq!(lits, ["head", "tail", "curl"]);
        assert_eq!(
            (x.prefilter.hits[1].start, x.prefilter.hits[1].end),
            (9, 13)
        );
        let why = |id: &str| {
            x.rules
                .iter()
                .find(|r| r.rule == id)
                .unwrap()
                .considered_because
                .clone()
        };
        assert_eq!(
            why("a.late"),
            "literal \"tail\" found in args.command at 9..13"
        );
        assert_eq!(why("c.prog"), "program `curl` runs in the command line");
        assert_eq!(
            why("d.etc"),
            "normalised args.path \"/etc/ssh/sshd_config\" is under \"/etc\""
        );
    }
}

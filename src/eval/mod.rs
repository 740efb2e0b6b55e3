//! Stage 4, eval: [`MatcherSet`] + [`Event`] → [`Verdict`].
//!
//! The prefilter marks candidate rules (one aho-corasick pass per field),
//! the candidates' conditions are confirmed in policy order, exemptions are
//! applied, and the matches are combined exactly as Hermes combines hook
//! results: block beats approve, approve beats modify and nothing, the first
//! block/approve in policy order wins, modify shallow-merges with the later
//! rule winning per key, and `context` pieces are joined with a blank line.
//!
//! The prefilter (building and searching: `compile::prefilter`), the per-event memo it
//! shares with the evaluator (`event::memo`) and field reading (`event::values`) live in
//! their own files.

pub mod explain;

use crate::check::ir::{Template, TemplatePart};
use crate::compile::{
    CAction, CAtom, CQual, CShell, CTest, CValue, MatcherSet, Needle, Node, UnderPath,
};
use crate::event::memo::EventMemo;
use crate::event::values::{for_each_value, Val};
use crate::event::{Event, Hook};
use crate::shell;
use crate::syntax::ast::Scalar;
use serde::Serialize;
use serde_json::{Map, Value};

/// What Hermes shows in the transcript instead of a withheld user message.
pub const DEFAULT_PLACEHOLDER: &str = "[Message withheld: a pre_llm_call policy hook blocked it.]";

/// Longest interpolated value in a message, in characters.
pub const TEMPLATE_VALUE_MAX: usize = 200;

/// The combined decision for one event.
#[derive(Clone, Debug, PartialEq, Serialize)]
#[serde(tag = "action", rename_all = "snake_case")]
pub enum Decision {
    /// Nothing applies: let it run.
    Allow,
    /// Stop the call (pre_tool_call) or the turn (pre_llm_call).
    Block {
        /// The deciding rule.
        rule: String,
        /// Message for the model (tool) or the user (turn).
        message: String,
        /// pre_llm_call: what stands in the transcript instead of the user's text.
        #[serde(skip_serializing_if = "Option::is_none")]
        placeholder: Option<String>,
    },
    /// Ask a human first.
    Approve {
        /// The deciding rule.
        rule: String,
        /// Why approval is needed.
        message: String,
        /// Approval scope.
        #[serde(skip_serializing_if = "Option::is_none")]
        rule_key: Option<String>,
    },
    /// Run with changed arguments.
    Modify {
        /// The rules that contributed, in order.
        rules: Vec<String>,
        /// The full merged arguments.
        args: Map<String, Value>,
    },
    /// Add context to the user message.
    Context {
        /// The rules that contributed.
        rules: Vec<String>,
        /// The pieces joined with a blank line.
        text: String,
    },
    /// Replace a transform event's text (tool result, terminal output, reply).
    Redact {
        /// The rules that found something, in order of first finding.
        rules: Vec<String>,
        /// The replacement text.
        text: String,
        /// What was redacted, where (never the secret itself).
        findings: Vec<FindingReport>,
        /// The rule that withheld the whole text, if one did.
        #[serde(skip_serializing_if = "Option::is_none")]
        withheld_by: Option<String>,
    },
}

/// One redacted span, for reports and the audit log.
#[derive(Clone, Debug, PartialEq, Serialize)]
pub struct FindingReport {
    /// Rule id.
    pub rule: String,
    /// The placeholder it used.
    pub label: String,
    /// Byte offset in the input where the secret started.
    pub start: usize,
    /// Byte offset one past its end.
    pub end: usize,
}

/// One rule whose condition held.
#[derive(Clone, Debug, PartialEq, Serialize)]
pub struct RuleMatch {
    /// Rule id.
    pub rule: String,
    /// Its action keyword.
    pub action: &'static str,
    /// Its severity.
    pub severity: String,
    /// Rendered message, if the action has one.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub message: Option<String>,
}

/// A match an exemption suppressed.
#[derive(Clone, Debug, PartialEq, Serialize)]
pub struct ExemptedMatch {
    /// Rule id.
    pub rule: String,
    /// The exemption's reason.
    pub because: String,
    /// Where the exemption is written.
    pub exemption: String,
    /// Its last day, if any.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub until: Option<String>,
}

/// Everything evaluation found about one event.
#[derive(Clone, Debug, PartialEq, Serialize)]
pub struct Verdict {
    /// The hook evaluated.
    pub event: &'static str,
    /// The combined decision.
    pub decision: Decision,
    /// Every matching rule, in policy order (exempted ones excluded).
    pub matches: Vec<RuleMatch>,
    /// Matches suppressed by exemptions.
    #[serde(skip_serializing_if = "Vec::is_empty")]
    pub exempted: Vec<ExemptedMatch>,
}

/// Per-evaluation state: the event and the candidate bitset.
pub(crate) struct Run<'a> {
    pub(crate) set: &'a MatcherSet,
    pub(crate) event: &'a Event,
    /// The prefilter index of the event's hook.
    idx: &'a crate::compile::prefilter::HookIndex,
    /// The command line parsed and the paths normalised, once per run (shared with the
    /// prefilter's search).
    memo: EventMemo<'a>,
    /// Labels of what `detects` tests found, for `{findings}`.
    detected: std::cell::RefCell<Vec<String>>,
    /// Per regex group of the hook: which patterns matched, once computed.
    groups: std::cell::RefCell<Vec<Option<Vec<bool>>>>,
}

impl MatcherSet {
    /// Redact a transform event's text with the hook's redaction rules.
    /// `None` when the event has no such text or nothing was found.
    pub fn transform(&self, event: &Event) -> Option<crate::redact::Redaction<'static>> {
        let field = event.hook.transform_field()?;
        let r = match self.redactor(event.hook) {
            Ok(Some(r)) => r,
            Ok(None) => return None,
            // Fail closed: a transform whose rules cannot run withholds the text.
            Err(e) => {
                return Some(crate::redact::Redaction {
                    text: format!("[warden: output withheld: {e}]").into(),
                    findings: Vec::new(),
                    withheld_by: Some("<internal>".into()),
                })
            }
        };
        let mut text = None;
        for_each_value(event, &field, &mut |v| {
            text = Some(v.as_text().into_owned());
            true
        });
        let red = r.redact(text.as_deref()?);
        red.changed().then(|| red.into_owned())
    }

    /// Evaluate one event.
    pub fn evaluate(&self, event: &Event) -> Verdict {
        let run = Run::new(self, event);
        let bits = run.candidates();
        let mut matched: Vec<u32> = Vec::new();
        let mut exempted = Vec::new();
        for (w, word) in bits.iter().enumerate() {
            let mut word = *word;
            while word != 0 {
                let i = w * 64 + word.trailing_zeros() as usize;
                word &= word - 1;
                let rule = &self.rules[i];
                if !run.node(&rule.when) || rule.unless.as_ref().is_some_and(|u| run.node(u)) {
                    continue;
                }
                match rule
                    .exemptions
                    .iter()
                    .map(|&e| &self.exemptions[e as usize])
                    .find(|e| e.when.as_ref().is_none_or(|w| run.node(w)))
                {
                    Some(e) => exempted.push(ExemptedMatch {
                        rule: rule.id.clone(),
                        because: e.because.clone(),
                        exemption: e.origin.location(),
                        until: e.until.clone(),
                    }),
                    None => matched.push(i as u32),
                }
            }
        }
        run.verdict(&matched, exempted)
    }
}

impl<'a> Run<'a> {
    pub(crate) fn new(set: &'a MatcherSet, event: &'a Event) -> Run<'a> {
        Run {
            set,
            event,
            idx: set.index(event.hook),
            memo: EventMemo::new(event, set.home.as_deref()),
            detected: Default::default(),
            groups: Default::default(),
        }
    }

    /// The parsed command line of the event (see [`EventMemo::shell`]).
    pub(crate) fn shell(&self) -> Option<&shell::Analysis> {
        self.memo.shell()
    }

    /// A regex atom answered by its hook's `RegexSet` (one pass for all the
    /// unfiltered rules' regexes on a field), computed once per run.
    fn grouped(&self, atom: u32) -> Option<bool> {
        let idx = self.idx;
        // atoms of rules compiled after the index was built are in no group
        let &(g, i) = idx.atom_group.get(atom as usize)?;
        if g == u32::MAX {
            return None;
        }
        let mut cache = self.groups.borrow_mut();
        if cache.is_empty() {
            cache.resize(idx.regex_groups.len(), None);
        }
        if cache[g as usize].is_none() {
            let group = &idx.regex_groups[g as usize];
            let set = group.set()?;
            let mut hits = vec![false; set.len()];
            for_each_value(self.event, &group.field, &mut |v| {
                for m in set.matches(v.as_text().as_bytes()).iter() {
                    hits[m] = true;
                }
                false
            });
            cache[g as usize] = Some(hits);
        }
        cache[g as usize].as_ref().map(|h| h[i as usize])
    }

    /// `text` as a path normalised against the event's cwd and home, once per run.
    pub(crate) fn normalized(&self, text: &str) -> Option<String> {
        self.memo.normalized(text)
    }

    /// Candidate rules after the literal prefilter, as a bitset in policy order.
    pub(crate) fn candidates(&self) -> Vec<u64> {
        self.idx.candidates(&self.memo, &mut |_, _| {})
    }

    /// The candidates, and `trace` told why each was admitted (for `warden explain`).
    pub(crate) fn candidates_traced(
        &self,
        trace: &mut impl FnMut(crate::compile::prefilter::Admit<'_>, u32),
    ) -> Vec<u64> {
        self.idx.candidates(&self.memo, trace)
    }
}

impl Run<'_> {
    fn verdict(&self, matched: &[u32], exempted: Vec<ExemptedMatch>) -> Verdict {
        let mut matches = Vec::with_capacity(matched.len());
        let mut block: Option<(String, String, Option<String>)> = None;
        let mut approve: Option<(String, String, Option<String>)> = None;
        let mut modify: Option<(Vec<String>, Map<String, Value>)> = None;
        let mut context: Option<(Vec<String>, String)> = None;
        for &i in matched {
            let rule = &self.set.rules[i as usize];
            let message = match &rule.action {
                CAction::Block {
                    message,
                    placeholder,
                } => {
                    let m = self.render(message);
                    if block.is_none() && !m.trim().is_empty() {
                        let ph = (self.event.hook == Hook::PreLlmCall).then(|| {
                            placeholder
                                .clone()
                                .unwrap_or_else(|| DEFAULT_PLACEHOLDER.to_string())
                        });
                        block = Some((rule.id.clone(), m.clone(), ph));
                    }
                    Some(m)
                }
                CAction::Approve { message, key } => {
                    let m = self.render(message);
                    if approve.is_none() {
                        approve = Some((rule.id.clone(), m.clone(), key.clone()));
                    }
                    Some(m)
                }
                CAction::Modify(sets) => {
                    let (rules, args) = modify.get_or_insert_with(|| {
                        (
                            Vec::new(),
                            self.event.args.as_object().cloned().unwrap_or_default(),
                        )
                    });
                    for (k, v) in sets {
                        let value = self.value(v);
                        args.insert(k.clone(), value);
                    }
                    rules.push(rule.id.clone());
                    None
                }
                CAction::Context(t) => {
                    let text = self.render(t);
                    let (rules, acc) = context.get_or_insert_with(Default::default);
                    if !acc.is_empty() {
                        acc.push_str("\n\n");
                    }
                    acc.push_str(&text);
                    rules.push(rule.id.clone());
                    Some(text)
                }
                CAction::Redact => None,
            };
            matches.push(RuleMatch {
                rule: rule.id.clone(),
                action: rule.kind,
                severity: rule.severity.clone(),
                message,
            });
        }
        if let Some(red) = self.set.transform(self.event) {
            let mut rules: Vec<String> = Vec::new();
            let findings = red
                .findings
                .iter()
                .map(|f| FindingReport {
                    rule: f.rule_id.to_string(),
                    label: f.label.to_string(),
                    start: f.start,
                    end: f.end,
                })
                .collect::<Vec<_>>();
            for f in &findings {
                if !rules.contains(&f.rule) {
                    rules.push(f.rule.clone());
                }
            }
            if let Some(w) = &red.withheld_by {
                if !rules.iter().any(|r| r == w.as_ref()) {
                    rules.push(w.to_string());
                }
            }
            for r in &rules {
                let action = if red.withheld_by.as_deref() == Some(r.as_str()) {
                    "withhold"
                } else {
                    "redact"
                };
                let severity = self
                    .set
                    .rules
                    .iter()
                    .find(|x| &x.id == r)
                    .map_or_else(|| "medium".to_string(), |x| x.severity.clone());
                matches.push(RuleMatch {
                    rule: r.clone(),
                    action,
                    severity,
                    message: None,
                });
            }
            let withheld_by = red.withheld_by.map(|w| w.to_string());
            return Verdict {
                event: self.event.hook.name(),
                decision: Decision::Redact {
                    rules,
                    text: red.text.into_owned(),
                    findings,
                    withheld_by,
                },
                matches,
                exempted,
            };
        }
        let decision = if let Some((rule, message, placeholder)) = block {
            Decision::Block {
                rule,
                message,
                placeholder,
            }
        } else if let Some((rule, message, rule_key)) = approve {
            Decision::Approve {
                rule,
                message,
                rule_key,
            }
        } else if let Some((rules, args)) = modify {
            Decision::Modify { rules, args }
        } else if let Some((rules, text)) = context {
            Decision::Context { rules, text }
        } else {
            Decision::Allow
        };
        Verdict {
            event: self.event.hook.name(),
            decision,
            matches,
            exempted,
        }
    }

    pub(crate) fn node(&self, n: &Node) -> bool {
        match n {
            Node::And(v) => v.iter().all(|n| self.node(n)),
            Node::Or(v) => v.iter().any(|n| self.node(n)),
            Node::Not(n) => !self.node(n),
            Node::Const(b) => *b,
            Node::Atom(a) => self
                .grouped(*a)
                .unwrap_or_else(|| self.atom(&self.set.atoms[*a as usize])),
        }
    }

    fn atom(&self, a: &CAtom) -> bool {
        match a.test() {
            CTest::Exists => {
                return for_each_value(self.event, &a.field, &mut |v| {
                    !matches!(v, Val::Json(Value::Null))
                })
            }
            CTest::Shell(st) => {
                return self
                    .shell()
                    .is_some_and(|an| shell_test(st, an, self.event, self.set.home.as_deref()))
            }
            CTest::Under(targets) => {
                let home = self.set.home.as_deref();
                return for_each_value(self.event, &a.field, &mut |v| {
                    self.normalized(&v.as_text())
                        .is_some_and(|p| under_any(&p, targets, self.event, home))
                });
            }
            CTest::Detects { patterns, redactor } => {
                let Some(r) = redactor.get_or_init(|| self.set.redactor_for(patterns)) else {
                    return false;
                };
                return for_each_value(self.event, &a.field, &mut |v| {
                    let mut found = false;
                    for f in r.detects(&v.as_text()) {
                        found = true;
                        // a withheld finding's label is a whole sentence: name it by its rule
                        // (`secret.private_key` -> `private key`)
                        let label = if r.is_withhold(f.rule as u32) {
                            let id = f.rule_id.rsplit('.').next().unwrap_or(&f.rule_id);
                            id.replace('_', " ")
                        } else {
                            f.label
                                .trim_start_matches("[REDACTED:")
                                .trim_start_matches('[')
                                .trim_end_matches(']')
                                .to_string()
                        };
                        let mut d = self.detected.borrow_mut();
                        if !d.contains(&label) {
                            d.push(label);
                        }
                    }
                    found
                });
            }
            _ => {}
        }
        let home = self.set.home.as_deref();
        for_each_value(self.event, &a.field, &mut |v| {
            test_value(a.test(), &v, self.event, home)
        })
    }

    fn render(&self, t: &Template) -> String {
        render_template(t, self.event, &self.detected.borrow())
    }

    fn value(&self, v: &CValue) -> Value {
        match v {
            CValue::Const(c) => c.clone(),
            CValue::Template(t) => Value::String(template_raw(t, self.event)),
            CValue::Field(f) => {
                let mut out = Value::Null;
                for_each_value(self.event, f, &mut |v| {
                    out = v.to_json();
                    true
                });
                out
            }
            CValue::Replace { input, regex, with } => {
                let input = self.value(input);
                let text = match &input {
                    Value::String(s) => s.clone(),
                    Value::Null => return Value::Null,
                    other => other.to_string(),
                };
                match regex.get() {
                    Some(re) => {
                        let out = re.replace_all(text.as_bytes(), with.as_bytes());
                        Value::String(String::from_utf8_lossy(&out).into_owned())
                    }
                    None => Value::String(text),
                }
            }
        }
    }
}

fn test_value(t: &CTest, v: &Val, event: &Event, home: Option<&str>) -> bool {
    match t {
        CTest::Eq {
            value,
            nocase,
            unicode,
        } => eq_scalar(v, value, *nocase, *unicode),
        CTest::In {
            ascii,
            unicode,
            others,
            nocase,
        } => match v {
            Val::Str(s) if *nocase => {
                ascii.contains(&s.to_ascii_lowercase())
                    || (!unicode.is_empty() && unicode.contains(&s.to_lowercase()))
            }
            Val::Str(s) => ascii.contains(*s),
            _ => others.iter().any(|o| eq_scalar(v, o, false, false)),
        },
        CTest::Contains { needles, nocase } => str_test(v, needles, *nocase, |h, n| h.contains(n)),
        CTest::StartsWith { needles, nocase } => {
            str_test(v, needles, *nocase, |h, n| h.starts_with(n))
        }
        CTest::EndsWith { needles, nocase } => str_test(v, needles, *nocase, |h, n| h.ends_with(n)),
        CTest::Matches(re) => re.is_match(v.as_text().as_bytes()),
        CTest::Glob(g) => g.get().is_match(v.as_text().as_ref()),
        CTest::Under(targets) => crate::paths::normalize(&v.as_text(), event.cwd.as_deref(), home)
            .is_some_and(|p| under_any(&p, targets, event, home)),
        CTest::UnderField(f) => {
            let Some(p) = crate::paths::normalize(&v.as_text(), event.cwd.as_deref(), home) else {
                return false;
            };
            for_each_value(event, f, &mut |d| {
                crate::paths::normalize(&d.as_text(), None, home)
                    .is_some_and(|dir| crate::paths::is_under(&p, &dir))
            })
        }
        CTest::Exists => true,
        // These read state of the run, handled in `Run::atom`.
        CTest::Shell(_) | CTest::Detects { .. } => false,
    }
}

fn under_any(path: &str, targets: &[UnderPath], event: &Event, home: Option<&str>) -> bool {
    targets
        .iter()
        .any(|t| t.any_dir(event, home, |dir| crate::paths::is_under(path, dir)))
}

/// `/x/*` counts as `/x`: deleting everything in a directory is deleting it.
fn is_any(path: &str, targets: &[UnderPath], event: &Event, home: Option<&str>) -> bool {
    targets
        .iter()
        .any(|t| t.any_dir(event, home, |dir| shell::is_same(path, dir)))
}

fn shell_test(st: &CShell, an: &shell::Analysis, event: &Event, home: Option<&str>) -> bool {
    match st {
        CShell::Unknown => an.has_unknown(),
        CShell::Pipe { from, to } => an.feeds_any(from, to),
        CShell::RedirectUnder(targets) => an.redirects().any(|(_, r)| {
            r.writes()
                && r.path
                    .as_deref()
                    .is_some_and(|p| under_any(p, targets, event, home))
        }),
        CShell::RedirectGlob(g) => an.redirects().any(|(_, r)| {
            r.writes()
                && (g.get().is_match(&r.target)
                    || r.path.as_deref().is_some_and(|p| g.get().is_match(p)))
        }),
        CShell::Command { programs, quals } => an.commands.iter().any(|c| {
            programs
                .iter()
                .any(|p| shell::program_matches(p, &c.program))
                && quals.iter().all(|q| qual(q, c, event, home))
        }),
    }
}

fn flag_present(c: &shell::SimpleCommand, name: &str) -> bool {
    if name.starts_with('-') {
        c.has_flag(&[name])
    } else {
        c.flag(name)
    }
}

fn qual(q: &CQual, c: &shell::SimpleCommand, event: &Event, home: Option<&str>) -> bool {
    match q {
        CQual::Flags(f) => f.iter().all(|n| flag_present(c, n)),
        CQual::AnyFlag(f) => f.iter().any(|n| flag_present(c, n)),
        CQual::Subcommand(seqs) => seqs.iter().any(|seq| {
            let mut subs = c.subcommands();
            seq.iter().all(|w| subs.next() == Some(w.as_str()))
        }),
        CQual::DynamicArgs => c.has_dynamic_args(),
        CQual::ArgUnder(t) => c.paths().any(|p| under_any(p, t, event, home)),
        CQual::ArgIs(t) => c.paths().any(|p| is_any(p, t, event, home)),
        CQual::ArgResembles(n) => n.any_resembled(&c.program, &c.args),
        CQual::Arg(t) => c
            .args
            .iter()
            .any(|a| test_value(t, &Val::Str(&a.text), event, home)),
        CQual::ArgPath(t) => c.args.iter().any(|a| {
            test_value(t, &Val::Str(&a.text), event, home)
                || a.path
                    .as_deref()
                    .is_some_and(|p| p != a.text && test_value(t, &Val::Str(p), event, home))
        }),
    }
}

fn str_test(v: &Val, needles: &[Needle], nocase: bool, f: impl Fn(&str, &str) -> bool) -> bool {
    let text = v.as_text();
    if nocase {
        let (ascii, uni) = (std::cell::OnceCell::new(), std::cell::OnceCell::new());
        needles
            .iter()
            .any(|n| f(fold(&text, n.unicode, &ascii, &uni), &n.text))
    } else {
        needles.iter().any(|n| f(&text, &n.text))
    }
}

/// `nocase` folding of the text for one literal (see [`Needle`]): ASCII
/// letters for an ASCII literal — so the prefilter's ASCII-case-insensitive
/// automaton sees every match, and `K` (Kelvin) or `İ` do not pass for `k`
/// or `i` — and Unicode lowercase for a literal with non-ASCII letters
/// (those skip the prefilter).
fn fold<'t>(
    text: &str,
    unicode: bool,
    ascii: &'t std::cell::OnceCell<String>,
    uni: &'t std::cell::OnceCell<String>,
) -> &'t str {
    if unicode {
        uni.get_or_init(|| text.to_lowercase())
    } else {
        ascii.get_or_init(|| text.to_ascii_lowercase())
    }
}

fn eq_scalar(v: &Val, s: &Scalar, nocase: bool, unicode: bool) -> bool {
    match (v, s) {
        (Val::Str(a), Scalar::Str(b)) => {
            if nocase && !unicode {
                a.eq_ignore_ascii_case(b)
            } else if nocase {
                a.to_lowercase() == *b
            } else {
                *a == b
            }
        }
        (Val::Json(Value::Number(a)), Scalar::Num(b)) => a.as_f64() == b.as_f64(),
        (Val::Int(a), Scalar::Num(b)) => b.as_f64() == Some(*a as f64),
        (Val::Json(Value::Bool(a)) | Val::Bool(a), Scalar::Bool(b)) => a == b,
        (Val::Json(Value::Null), Scalar::Null) => true,
        _ => false,
    }
}

/// Render a message template: each field's value truncated to
/// [`TEMPLATE_VALUE_MAX`] characters and its control characters escaped.
pub fn render_template(t: &Template, event: &Event, findings: &[String]) -> String {
    let mut out = String::new();
    for p in &t.parts {
        match p {
            TemplatePart::Lit(s) => out.push_str(s),
            TemplatePart::Findings if findings.is_empty() => out.push_str("<none>"),
            TemplatePart::Findings => out.push_str(&findings.join(", ")),
            TemplatePart::Field(f) => {
                let mut first = None;
                for_each_value(event, f, &mut |v| {
                    first = Some(v.as_text().into_owned());
                    true
                });
                match first {
                    Some(v) => push_escaped(&mut out, &v),
                    None => out.push_str("<unset>"),
                }
            }
        }
    }
    out
}

/// A template used as a `modify` value: fields inserted verbatim.
fn template_raw(t: &Template, event: &Event) -> String {
    let mut out = String::new();
    for p in &t.parts {
        match p {
            TemplatePart::Lit(s) => out.push_str(s),
            TemplatePart::Findings => {}
            TemplatePart::Field(f) => {
                for_each_value(event, f, &mut |v| {
                    out.push_str(&v.as_text());
                    true
                });
            }
        }
    }
    out
}

fn push_escaped(out: &mut String, v: &str) {
    for (n, c) in v.chars().enumerate() {
        if n == TEMPLATE_VALUE_MAX {
            out.push('…');
            return;
        }
        match c {
            '\n' => out.push_str("\\n"),
            '\r' => out.push_str("\\r"),
            '\t' => out.push_str("\\t"),
            c if c.is_control() => out.push_str(&format!("\\u{{{:x}}}", c as u32)),
            c => out.push(c),
        }
    }
}

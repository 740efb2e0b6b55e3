//! Policy tests: `*.test.yaml` files beside the policies, each a list of
//! events and the decision expected for them, and the runner behind
//! `warden test` (and the `untested-rule` lint of `warden check`).
//!
//! ```yaml
//! tests:
//!   - name: rm -rf / is blocked
//!     tool: terminal                 # event defaults to pre_tool_call
//!     args: {command: "rm -rf /"}
//!     cwd: /home/u/project           # optional
//!     env: {HERMES_HOME: /srv/hermes} # optional: what `$HERMES_HOME` targets see
//!     expect: {decision: block, rule: fs.rm_root, message_contains: "root"}
//!   - name: user message
//!     event: pre_llm_call
//!     message: "my key is ..."
//!     expect: {decision: block, rule: inbound.secret}
//!   - name: aws key in a tool result
//!     event: transform_tool_result
//!     tool: terminal
//!     result: "export AWS_ACCESS_KEY_ID=AKIAQ3EGPLVZ5XKJRM7T"
//!     expect:
//!       redacted: "export AWS_ACCESS_KEY_ID=[REDACTED:aws-access-key]"   # or `redacted: unchanged`
//!       rules: [secret.aws_access_key]
//! ```
//!
//! A test asserts the decision **and** the rule that decided it when it
//! names one (`rule`: the deciding rule of a block/approve, one of the
//! contributing rules of a modify/context; `rules`: exactly the set of
//! deciding rules, or of redaction rules that fired), plus any of
//! `message`, `message_contains`, `placeholder`, `rule_key`, `args` (keys
//! of the merged arguments), `context`, `context_contains`, `redacted`.
//!
//! Over 800 lines on purpose: the test-file schema, its loader and the runner with its
//! expectation checks are one concern (`warden test`); about 85 lines are its own tests.

use crate::eval::Decision;
use crate::event::{Event, Hook};
use crate::MatcherSet;
use serde::{Deserialize, Serialize};
use serde_json::{Map, Value};
use std::path::{Path, PathBuf};
use std::time::{Duration, Instant};

/// The suffix of a test file.
pub const TEST_SUFFIX: &str = ".test.yaml";

/// A test file that could not be used.
#[derive(Debug, thiserror::Error)]
pub enum TestFileError {
    /// It could not be read.
    #[error("cannot read {}: {source}", path.display())]
    Io {
        /// The file.
        path: PathBuf,
        /// The OS error.
        source: std::io::Error,
    },
    /// It is not a valid test file.
    #[error("{}:{line}:{column}: {message}", path.display())]
    Invalid {
        /// The file.
        path: PathBuf,
        /// 1-based line (0 when unknown).
        line: usize,
        /// 1-based column (0 when unknown).
        column: usize,
        /// What is wrong.
        message: String,
    },
}

#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
struct RawFile {
    tests: Vec<TestCase>,
}

/// One test: an event and what is expected of it.
#[derive(Clone, Debug, Default, Deserialize, Serialize)]
#[serde(deny_unknown_fields)]
pub struct TestCase {
    /// Shown in reports; `--filter` matches it.
    pub name: String,
    /// The hook (default `pre_tool_call`).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub event: Option<String>,
    /// Tool name.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub tool: Option<String>,
    /// Tool arguments.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub args: Option<Value>,
    /// Working directory.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub cwd: Option<String>,
    /// The deciding process's environment as policies read it (`HERMES_HOME: /srv/hermes`;
    /// see [`Event::env`]). Without it, `$VAR` targets match nothing.
    #[serde(default, skip_serializing_if = "std::collections::BTreeMap::is_empty")]
    pub env: std::collections::BTreeMap<String, String>,
    /// pre_llm_call: the user's message.
    #[serde(
        default,
        alias = "user_message",
        skip_serializing_if = "Option::is_none"
    )]
    pub message: Option<String>,
    /// pre_llm_call: the conversation so far.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub history: Vec<String>,
    /// transform_tool_result / post_tool_call: the result text.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub result: Option<String>,
    /// transform_terminal_output: the command.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub command: Option<String>,
    /// transform_terminal_output: its output.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub output: Option<String>,
    /// transform_terminal_output: its exit code.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub exit_code: Option<i64>,
    /// transform_llm_output: the reply.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub response_text: Option<String>,
    /// Model name.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub model: Option<String>,
    /// Platform.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub platform: Option<String>,
    /// Host profile.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub profile: Option<String>,
    /// Session id.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub session_id: Option<String>,
    /// pre_llm_call: sender.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub sender_id: Option<String>,
    /// pre_llm_call: first turn.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub is_first_turn: Option<bool>,
    /// Anything else the host sends.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub extra: Option<Value>,
    /// What must happen.
    pub expect: Expect,
    /// Line of the test in its file (1-based; 0 when unknown).
    #[serde(skip)]
    pub line: usize,
}

/// The expectations of a test. Only what is given is checked.
#[derive(Clone, Debug, Default, Deserialize, Serialize)]
#[serde(deny_unknown_fields)]
pub struct Expect {
    /// `allow`, `block`, `approve`, `modify`, `context` or `redact`.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub decision: Option<String>,
    /// The deciding rule.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub rule: Option<String>,
    /// Exactly these deciding (or, on transform events, redaction) rules.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub rules: Option<Vec<String>>,
    /// The exact message of a block or approve.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub message: Option<String>,
    /// A substring of the message.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub message_contains: Option<String>,
    /// The pre_llm_call transcript placeholder.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub placeholder: Option<String>,
    /// The approval key.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub rule_key: Option<String>,
    /// Keys of the merged arguments of a modify.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub args: Option<Map<String, Value>>,
    /// The exact context text.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub context: Option<String>,
    /// A substring of the context text.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub context_contains: Option<String>,
    /// Transform events: the text after redaction, or `unchanged`.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub redacted: Option<String>,
}

/// A parsed test file.
#[derive(Clone, Debug)]
pub struct TestFile {
    /// Where it was read from.
    pub path: PathBuf,
    /// Its tests, in order.
    pub cases: Vec<TestCase>,
}

const DECISIONS: [&str; 6] = ["allow", "block", "approve", "modify", "context", "redact"];

/// Read and validate a test file.
pub fn load_file(path: &Path) -> Result<TestFile, TestFileError> {
    let text = std::fs::read_to_string(path).map_err(|source| TestFileError::Io {
        path: path.to_path_buf(),
        source,
    })?;
    parse_file(path, &text)
}

/// Parse and validate the text of a test file.
pub fn parse_file(path: &Path, text: &str) -> Result<TestFile, TestFileError> {
    let invalid = |line: usize, column: usize, message: String| TestFileError::Invalid {
        path: path.to_path_buf(),
        line,
        column,
        message,
    };
    let raw: RawFile = serde_yaml_ng::from_str(text).map_err(|e| {
        let (l, c) = e.location().map_or((0, 0), |l| (l.line(), l.column()));
        let msg = e.to_string();
        // serde_yaml_ng appends " at line N column M"; the location is shown already.
        let msg = msg.split(" at line ").next().unwrap_or(&msg).to_string();
        invalid(l, c, msg)
    })?;
    let lines = name_lines(text);
    let mut cases = raw.tests;
    for (i, c) in cases.iter_mut().enumerate() {
        c.line = lines.get(i).copied().unwrap_or(0);
        if let Some(e) = &c.event {
            if Hook::from_name(e).is_none() {
                let names: Vec<&str> = Hook::ALL.iter().map(|h| h.name()).collect();
                let hint = crate::diag::did_you_mean(e, names.iter().copied())
                    .map_or(String::new(), |s| format!(" (did you mean `{s}`?)"));
                return Err(invalid(
                    c.line,
                    0,
                    format!("test `{}`: unknown event `{e}`{hint}", c.name),
                ));
            }
        }
        if let Some(d) = &c.expect.decision {
            if !DECISIONS.contains(&d.as_str()) {
                return Err(invalid(
                    c.line,
                    0,
                    format!(
                        "test `{}`: unknown decision `{d}` (one of {})",
                        c.name,
                        DECISIONS.join(", ")
                    ),
                ));
            }
        }
        let e = &c.expect;
        let hook = c.hook();
        if e.decision.is_none()
            && e.redacted.is_none()
            && !(hook.is_transform() && e.rules.is_some())
        {
            return Err(invalid(
                c.line,
                0,
                format!("test `{}`: `expect` needs a `decision` (or, on a transform event, `redacted` / `rules`)", c.name),
            ));
        }
        if e.redacted.is_some() && !hook.is_transform() {
            return Err(invalid(
                c.line,
                0,
                format!(
                    "test `{}`: `redacted` needs a transform_* event, not {}",
                    c.name,
                    hook.name()
                ),
            ));
        }
    }
    Ok(TestFile {
        path: path.to_path_buf(),
        cases,
    })
}

/// Lines of the `- name:` entries, in order.
fn name_lines(text: &str) -> Vec<usize> {
    text.lines()
        .enumerate()
        .filter(|(_, l)| {
            let t = l.trim_start();
            t.strip_prefix('-')
                .is_some_and(|r| r.trim_start().starts_with("name:"))
        })
        .map(|(i, _)| i + 1)
        .collect()
}

impl TestCase {
    /// The hook of the test's event.
    pub fn hook(&self) -> Hook {
        self.event
            .as_deref()
            .and_then(Hook::from_name)
            .unwrap_or(Hook::PreToolCall)
    }

    /// The event the test describes.
    pub fn to_event(&self) -> Event {
        let hook = self.hook();
        let mut ev = Event::new(hook);
        ev.tool = self.tool.clone();
        let tool_event = matches!(
            hook,
            Hook::PreToolCall | Hook::PostToolCall | Hook::TransformToolResult
        );
        ev.args = match &self.args {
            Some(a) => a.clone(),
            None if tool_event => Value::Object(Map::new()),
            None => Value::Null,
        };
        ev.cwd = self.cwd.clone();
        ev.env = self
            .env
            .iter()
            .map(|(k, v)| (k.clone(), v.clone()))
            .collect();
        ev.user_message = self.message.clone();
        ev.history = self.history.clone();
        ev.result = self.result.clone();
        ev.command = self.command.clone();
        ev.output = self.output.clone();
        ev.exit_code = self.exit_code;
        ev.response_text = self.response_text.clone();
        ev.model = self.model.clone();
        ev.platform = self.platform.clone();
        ev.profile = self.profile.clone();
        ev.session_id = self.session_id.clone();
        ev.sender_id = self.sender_id.clone();
        ev.is_first_turn = self.is_first_turn;
        ev.extra = self.extra.clone().unwrap_or(Value::Null);
        ev
    }
}

/// One expectation that did not hold.
#[derive(Clone, Debug, PartialEq, Serialize)]
pub struct Mismatch {
    /// The key of `expect`, e.g. `decision`.
    pub what: String,
    /// What the test expected.
    pub expected: String,
    /// What happened.
    pub actual: String,
}

/// The result of one test.
#[derive(Clone, Debug, Serialize)]
pub struct CaseResult {
    /// The test file.
    pub file: PathBuf,
    /// The test's name.
    pub name: String,
    /// Its line in the file.
    pub line: usize,
    /// Expectations that did not hold (empty = passed).
    pub failures: Vec<Mismatch>,
    /// Rules the event exercised (matched, exempted, or redacted with).
    pub exercised: Vec<String>,
    /// Wall time.
    #[serde(skip)]
    pub duration: Duration,
}

impl CaseResult {
    /// True when every expectation held.
    pub fn passed(&self) -> bool {
        self.failures.is_empty()
    }
}

/// What a transform did, independent of the redaction engine's types.
#[derive(Clone, Debug, PartialEq)]
pub struct Transformed {
    /// The rewritten text.
    pub text: String,
    /// Ids of the rules that found something, in order of first finding.
    pub rules: Vec<String>,
}

/// The one place the runner calls the redaction engine: `Ok(None)` when the
/// text is unchanged.
fn transform(set: &MatcherSet, event: &Event) -> Result<Option<Transformed>, String> {
    Ok(set.transform(event).map(|r| {
        let mut rules: Vec<String> = Vec::new();
        for id in r
            .findings
            .iter()
            .map(|f| &f.rule_id)
            .chain(r.withheld_by.as_ref())
        {
            if !rules.iter().any(|x| **x == **id) {
                rules.push(id.to_string());
            }
        }
        Transformed {
            text: r.text.into_owned(),
            rules,
        }
    }))
}

/// Run one test against a compiled set.
pub fn run_case(set: &MatcherSet, file: &Path, case: &TestCase) -> CaseResult {
    let start = Instant::now();
    let event = case.to_event();
    let e = &case.expect;
    let mut failures = Vec::new();
    let mut exercised = Vec::new();
    let mut fail = |what: &str, expected: String, actual: String| {
        failures.push(Mismatch {
            what: what.into(),
            expected,
            actual,
        })
    };

    let checks_redaction = case.hook().is_transform()
        && (e.redacted.is_some() || (e.rules.is_some() && e.decision.is_none()));
    if checks_redaction {
        match transform(set, &event) {
            Ok(t) => {
                let original = event.hook.transform_field().and_then(|f| {
                    let mut s = None;
                    crate::event::values::for_each_value(&event, &f, &mut |v| {
                        s = Some(v.as_text().into_owned());
                        true
                    });
                    s
                });
                let (text, rules) = match &t {
                    Some(t) => (t.text.clone(), t.rules.clone()),
                    None => (original.clone().unwrap_or_default(), Vec::new()),
                };
                exercised.extend(rules.iter().cloned());
                if let Some(want) = &e.redacted {
                    let unchanged = t.is_none() || Some(&text) == original.as_ref();
                    if want == "unchanged" {
                        if !unchanged {
                            fail("redacted", "unchanged".into(), show_str(&text));
                        }
                    } else if *want != text {
                        fail(
                            "redacted",
                            show_str(want),
                            if unchanged {
                                format!("unchanged ({})", show_str(&text))
                            } else {
                                show_str(&text)
                            },
                        );
                    }
                }
                if let Some(want) = &e.rules {
                    if !same_set(want, &rules) {
                        fail("rules", show_list(want), show_list(&rules));
                    }
                }
            }
            Err(msg) => fail(
                "redacted",
                e.redacted
                    .clone()
                    .map_or_else(|| "a redaction".into(), |s| show_str(&s)),
                format!("error: {msg}"),
            ),
        }
    }

    if e.decision.is_some() || !checks_redaction {
        let v = set.evaluate(&event);
        exercised.extend(v.matches.iter().map(|m| m.rule.clone()));
        exercised.extend(v.exempted.iter().map(|m| m.rule.clone()));
        let (name, deciding, message, placeholder, key, args, context): (
            &str,
            Vec<String>,
            _,
            _,
            _,
            _,
            _,
        ) = match &v.decision {
            Decision::Allow => ("allow", vec![], None, None, None, None, None),
            Decision::Block {
                rule,
                message,
                placeholder,
            } => (
                "block",
                vec![rule.clone()],
                Some(message),
                placeholder.as_ref(),
                None,
                None,
                None,
            ),
            Decision::Approve {
                rule,
                message,
                rule_key,
            } => (
                "approve",
                vec![rule.clone()],
                Some(message),
                None,
                rule_key.as_ref(),
                None,
                None,
            ),
            Decision::Modify { rules, args } => {
                ("modify", rules.clone(), None, None, None, Some(args), None)
            }
            Decision::Context { rules, text } => {
                ("context", rules.clone(), None, None, None, None, Some(text))
            }
            Decision::Redact { rules, .. } => {
                ("redact", rules.clone(), None, None, None, None, None)
            }
        };
        if let Some(want) = &e.decision {
            if want != name {
                let why = if v.matches.is_empty() {
                    String::new()
                } else {
                    format!(
                        " (matched: {})",
                        v.matches
                            .iter()
                            .map(|m| format!("{} {}", m.rule, m.action))
                            .collect::<Vec<_>>()
                            .join(", ")
                    )
                };
                fail("decision", want.clone(), format!("{name}{why}"));
            }
        }
        if let Some(want) = &e.rule {
            let ok = match name {
                "block" | "approve" => deciding.first() == Some(want),
                _ => deciding.contains(want),
            };
            if !ok {
                let actual = if deciding.is_empty() {
                    "(no rule decided)".to_string()
                } else {
                    deciding.join(", ")
                };
                fail("rule", want.clone(), actual);
            }
        }
        if let Some(want) = &e.rules {
            if !checks_redaction && !same_set(want, &deciding) {
                fail("rules", show_list(want), show_list(&deciding));
            }
        }
        let none = || "(none)".to_string();
        if let Some(want) = &e.message {
            if message != Some(want) {
                fail(
                    "message",
                    show_str(want),
                    message.map_or_else(none, |m| show_str(m)),
                );
            }
        }
        if let Some(want) = &e.message_contains {
            if !message.is_some_and(|m| m.contains(want.as_str())) {
                fail(
                    "message_contains",
                    show_str(want),
                    message.map_or_else(none, |m| show_str(m)),
                );
            }
        }
        if let Some(want) = &e.placeholder {
            if placeholder != Some(want) {
                fail(
                    "placeholder",
                    show_str(want),
                    placeholder.map_or_else(none, |m| show_str(m)),
                );
            }
        }
        if let Some(want) = &e.rule_key {
            if key != Some(want) {
                fail(
                    "rule_key",
                    show_str(want),
                    key.map_or_else(none, |m| show_str(m)),
                );
            }
        }
        if let Some(want) = &e.args {
            for (k, wv) in want {
                let got = args.and_then(|a| a.get(k));
                if got != Some(wv) {
                    fail(
                        &format!("args.{k}"),
                        wv.to_string(),
                        got.map_or_else(
                            || {
                                if args.is_some() {
                                    "(unset)".into()
                                } else {
                                    "(no modify)".into()
                                }
                            },
                            Value::to_string,
                        ),
                    );
                }
            }
        }
        if let Some(want) = &e.context {
            if context != Some(want) {
                fail(
                    "context",
                    show_str(want),
                    context.map_or_else(none, |m| show_str(m)),
                );
            }
        }
        if let Some(want) = &e.context_contains {
            if !context.is_some_and(|m| m.contains(want.as_str())) {
                fail(
                    "context_contains",
                    show_str(want),
                    context.map_or_else(none, |m| show_str(m)),
                );
            }
        }
    }
    let mut seen = std::collections::HashSet::new();
    exercised.retain(|r| seen.insert(r.clone()));
    CaseResult {
        file: file.to_path_buf(),
        name: case.name.clone(),
        line: case.line,
        failures,
        exercised,
        duration: start.elapsed(),
    }
}

fn same_set(a: &[String], b: &[String]) -> bool {
    let mut a: Vec<&String> = a.iter().collect();
    let mut b: Vec<&String> = b.iter().collect();
    a.sort();
    a.dedup();
    b.sort();
    b.dedup();
    a == b
}

fn show_str(s: &str) -> String {
    Value::String(s.to_string()).to_string()
}

fn show_list(v: &[String]) -> String {
    format!("[{}]", v.join(", "))
}

/// Test files beside the policies: every `*.test.yaml` under a directory
/// (recursively), and `NAME.test.yaml` beside a policy file `NAME.warden`.
pub fn discover<P: AsRef<Path>>(policy_paths: &[P]) -> Vec<PathBuf> {
    let mut out = Vec::new();
    for p in policy_paths {
        let p = p.as_ref();
        if p.is_dir() {
            collect(p, &mut out);
        } else if let Some(name) = p.file_name().and_then(|n| n.to_str()) {
            let stem = ["warden.yaml", "warden.yml", "warden.json", "warden"]
                .iter()
                .find_map(|ext| name.strip_suffix(&format!(".{ext}")));
            if let Some(stem) = stem {
                let t = p.with_file_name(format!("{stem}{TEST_SUFFIX}"));
                if t.is_file() {
                    out.push(t);
                }
            }
        }
    }
    out.sort();
    out.dedup();
    out
}

/// Test files under `dir`, beside the policies the loader would read: subdirectories named
/// [`crate::policy::OPTIONAL_DIR`] are skipped as the loader skips them, and a directory
/// already being walked (a symlink loop) is not entered again.
fn collect(dir: &Path, out: &mut Vec<PathBuf>) {
    collect_in(dir, &mut Vec::new(), out)
}

fn collect_in(dir: &Path, ancestors: &mut Vec<PathBuf>, out: &mut Vec<PathBuf>) {
    let Ok(real) = std::fs::canonicalize(dir) else {
        return;
    };
    if ancestors.contains(&real) {
        return;
    }
    let Ok(rd) = std::fs::read_dir(dir) else {
        return;
    };
    ancestors.push(real);
    for entry in rd.flatten() {
        let path = entry.path();
        if path.is_dir() {
            if entry.file_name() != crate::policy::OPTIONAL_DIR {
                collect_in(&path, ancestors, out);
            }
        } else if is_test_file(&path) {
            out.push(path);
        }
    }
    ancestors.pop();
}

/// True for `*.test.yaml`.
pub fn is_test_file(p: &Path) -> bool {
    p.file_name()
        .and_then(|n| n.to_str())
        .is_some_and(|n| n.ends_with(TEST_SUFFIX))
}

/// Which rules the tests exercised: `(rule id, covered)` in policy order.
pub fn coverage<'a>(
    rule_ids: impl IntoIterator<Item = &'a str>,
    results: &[CaseResult],
) -> Vec<(&'a str, bool)> {
    let hit: std::collections::HashSet<&str> = results
        .iter()
        .flat_map(|r| r.exercised.iter().map(String::as_str))
        .collect();
    rule_ids
        .into_iter()
        .map(|id| (id, hit.contains(id)))
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::Policy;

    const POLICY: &str = r#"
rule fs.rm_root {
  on pre_tool_call
  when tool == "terminal" and args.command contains "rm -rf /"
  block "Refusing to delete the root directory"
}
rule tf.plan_first {
  on pre_tool_call
  when tool == "terminal" and args.command starts_with "terraform apply"
  modify args.command = replace(args.command, /^terraform apply/, "terraform plan")
}
rule ctx.prod {
  on pre_llm_call
  when user_message contains "prod" nocase
  context "Reminder: production changes need a ticket."
}
"#;

    const TESTS: &str = r#"
tests:
  - name: rm is blocked
    tool: terminal
    args: {command: "rm -rf /"}
    expect: {decision: block, rule: fs.rm_root, message_contains: "root"}
  - name: harmless
    tool: terminal
    args: {command: "ls"}
    expect: {decision: allow}
  - name: modify
    tool: terminal
    args: {command: "terraform apply"}
    expect: {decision: modify, rule: tf.plan_first, args: {command: "terraform plan"}}
  - name: context
    event: pre_llm_call
    message: "deploy to PROD"
    expect: {decision: context, context_contains: "ticket"}
  - name: wrong on purpose
    tool: terminal
    args: {command: "rm -rf /"}
    expect: {decision: allow, rule: fs.other}
"#;

    #[test]
    fn runs_and_reports_mismatches() {
        let p = Policy::from_sources(vec![("p.warden".into(), POLICY.into())]).unwrap();
        let set = p.compile().unwrap();
        let f = parse_file(Path::new("p.test.yaml"), TESTS).unwrap();
        assert_eq!(f.cases[0].line, 3);
        let r: Vec<CaseResult> = f.cases.iter().map(|c| run_case(&set, &f.path, c)).collect();
        for x in &r[..4] {
            assert!(x.passed(), "{}: {:?}", x.name, x.failures);
        }
        let what: Vec<&str> = r[4].failures.iter().map(|m| m.what.as_str()).collect();
        assert_eq!(what, ["decision", "rule"]);
        let cov = coverage(p.checked.rules.iter().map(|r| r.id.as_str()), &r);
        assert!(cov.iter().all(|(_, c)| *c));
    }

    #[test]
    fn bad_files_say_where() {
        let e = parse_file(
            Path::new("t.test.yaml"),
            "tests:\n  - name: x\n    evnt: pre_llm_call\n    expect: {decision: allow}\n",
        )
        .unwrap_err();
        assert!(e.to_string().contains("t.test.yaml:3"), "{e}");
        let e = parse_file(
            Path::new("t.test.yaml"),
            "tests:\n  - name: x\n    event: pre_llm_cal\n    expect: {decision: allow}\n",
        )
        .unwrap_err();
        assert!(e.to_string().contains("did you mean `pre_llm_call`"), "{e}");
        let e = parse_file(
            Path::new("t.test.yaml"),
            "tests:\n  - name: x\n    expect: {decision: blok}\n",
        )
        .unwrap_err();
        assert!(e.to_string().contains("unknown decision"), "{e}");
    }
}

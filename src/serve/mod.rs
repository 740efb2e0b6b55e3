//! The `warden serve` protocol: JSON lines over a byte stream, one request
//! in, one response out, for host plugins that keep warden running beside
//! them (the Hermes Python plugin in `integrations/hermes/`).
//!
//! Version 1. Every request is one JSON object on one line:
//!
//! ```text
//! {"id": 7, "op": "hello", "host": "hermes", "host_version": "0.19.0"}
//! {"id": 8, "op": "decide", "payload": {"hook_event_name": "pre_tool_call", "tool_name": "terminal", "tool_input": {...}}}
//! {"id": 9, "op": "redact", "event": "transform_tool_result", "texts": ["...", "..."]}
//! {"id": 10, "op": "status"}
//! ```
//!
//! A `redact` may carry its texts raw instead, to spare both sides the JSON
//! escaping of large strings: `"raw": [n1, n2]` (byte lengths) in place of
//! `"texts"`, and the n1 + n2 bytes of UTF-8 follow the line directly. The
//! answer then says `"raw": [m1, null]` (the redacted text's length, or null
//! when nothing was found) and the changed texts' bytes follow its line.
//!
//! and every response echoes the id, says `ok`, and carries the policy
//! `status` (`"ok"`, or why the last edit of the policy was refused and the
//! last good one is still in force):
//!
//! ```text
//! {"id": 8, "ok": true, "status": "ok", "decision": {"action": "block", "rule": "...", "message": "..."}}
//! {"id": null, "ok": false, "status": "ok", "error": "malformed request: ..."}
//! ```
//!
//! A client must treat `ok: false`, a missing line, or an id it did not send
//! as a refusal (fail closed). The [`Engine`] holds the whole compiled policy
//! for every event; [`Engine::reload`] swaps in a new one atomically, or keeps
//! the last good one when the new text is invalid.

use crate::compile::{CompileOptions, MatcherSet};
use crate::eval::{Decision, Verdict};
use crate::event::{Event, Hook};
use crate::host::HostSpec;
use crate::policy;
use crate::redact::KnownValues;
use crate::runtime::{self, Payload, PolicyRef};
use serde_json::{json, Map, Value};
use std::borrow::Cow;
use std::path::PathBuf;
use std::sync::{Arc, Mutex, RwLock};

/// The protocol version spoken by this build.
pub const PROTOCOL: u64 = 1;

/// Largest accepted request line, bytes (a tool result to redact included).
pub const DEFAULT_MAX_REQUEST: usize = 16 << 20;

/// One compiled policy generation.
pub struct Loaded {
    /// The whole policy, every event compiled (what [`runtime::decide`] evaluates).
    pub policy: runtime::Loaded,
    /// Digest of the sources (hex), as the audit log records it.
    pub hash: String,
    /// What it was loaded from, for `hello` and logs.
    pub origin: String,
}

impl Loaded {
    /// The compiled set.
    pub fn set(&self) -> &MatcherSet {
        self.policy.set()
    }
}

/// Why the policy could not be (re)loaded.
#[derive(Debug, thiserror::Error)]
pub enum ServeError {
    /// The policy does not load.
    #[error(transparent)]
    Load(#[from] crate::LoadError),
}

/// Where the policy comes from and how it is compiled.
#[derive(Clone, Debug)]
pub struct Config {
    /// The policy sources.
    pub source: policy::Source,
    /// Compile options (home directory).
    pub compile: CompileOptions,
    /// Append one audit line per decision here.
    pub audit: Option<PathBuf>,
    /// Exact values to mask in every redaction (the host process's own secrets), besides
    /// the policy's rules. Built once; never logged.
    pub known: Option<Arc<KnownValues>>,
}

/// The host the plugin runs in, from its `hello` (unknown until then).
fn host_spec(version: Option<&str>) -> HostSpec {
    version
        .filter(|v| !v.is_empty())
        .and_then(|v| HostSpec::parse(&format!("hermes@{v}")).ok())
        .unwrap_or_else(HostSpec::hermes_unknown)
}

/// What is in force: a policy generation and, while the last edit is refused, why.
/// Published as one value, so an answer never pairs one generation's decision with
/// another's status.
pub struct State {
    /// The policy generation that decides.
    pub loaded: Arc<Loaded>,
    /// Set while the last reload failed: the reason, shown in every response.
    pub stale: Option<String>,
}

impl State {
    /// The status string every response carries.
    pub fn status(&self) -> String {
        match &self.stale {
            None => "ok".into(),
            Some(e) => format!(
                "stale: the policy edit was refused ({e}); still enforcing the last good policy {}",
                self.loaded.hash
            ),
        }
    }
}

/// The serving state: the current [`State`], swapped atomically.
pub struct Engine {
    config: Config,
    state: RwLock<Arc<State>>,
    /// Held through a reload, load and publish, so two reloads publish in order.
    reloading: Mutex<()>,
    /// The host named in `hello`.
    host: RwLock<HostSpec>,
    /// The audit log, opened once.
    audit: Mutex<Option<std::fs::File>>,
}

/// Load and compile the whole policy named by `config` (every event, eagerly).
pub fn load(config: &Config) -> Result<Loaded, ServeError> {
    let origin = match &config.source {
        policy::Source::Builtin => "the shipped packs".to_string(),
        policy::Source::Paths(p) => p
            .iter()
            .map(|p| p.display().to_string())
            .collect::<Vec<_>>()
            .join(", "),
    };
    let opts = CompileOptions {
        lazy: false,
        ..config.compile.clone()
    };
    let policy = runtime::Loaded::load(&config.source, &opts)?;
    // A regex the engine refuses (size limits) could only never match: an error.
    if let Some((id, origin, message)) = policy.set().regex_failures().into_iter().next() {
        return Err(ServeError::Load(crate::LoadError::Compile(
            crate::compile::CompileError {
                location: format!("{} (rule {id})", origin.location()),
                message,
            },
        )));
    }
    warm(policy.set());
    Ok(Loaded {
        hash: format!("{:016x}", policy.hash()),
        policy,
        origin,
    })
}

/// Build every redaction rule's regex now (the engine builds a rule's regex when a
/// keyword first admits it): a text holding every keyword admits every rule, so no
/// request pays for a regex build.
fn warm(set: &MatcherSet) {
    let mut all = String::new();
    for hook in Hook::TRANSFORMS {
        if let Ok(Some(r)) = set.redactor(hook) {
            let mut text = String::new();
            for i in 0..r.len() {
                for k in r.keywords_of(i) {
                    text.push_str(&k);
                    text.push_str(" =x ");
                }
            }
            let _ = r.redact_text(&text);
            all.push_str(&text);
        }
    }
    // `detects` conditions (the inbound pack) build their detectors on first use too
    let _ = set.evaluate(&Event::llm_call(&all));
}

impl Engine {
    /// Load the policy; an error here means serving cannot start.
    pub fn new(config: Config) -> Result<Engine, ServeError> {
        let loaded = load(&config)?;
        Ok(Engine {
            config,
            state: RwLock::new(Arc::new(State {
                loaded: Arc::new(loaded),
                stale: None,
            })),
            reloading: Mutex::new(()),
            host: RwLock::new(HostSpec::hermes_unknown()),
            audit: Mutex::new(None),
        })
    }

    /// The state in force: one snapshot, consistent with itself.
    pub fn state(&self) -> Arc<State> {
        match self.state.read() {
            Ok(g) => Arc::clone(&g),
            Err(p) => Arc::clone(&p.into_inner()),
        }
    }

    /// The policy generation in force.
    pub fn current(&self) -> Arc<Loaded> {
        Arc::clone(&self.state().loaded)
    }

    /// The status string of the state in force (see [`State::status`]).
    pub fn status(&self) -> String {
        self.state().status()
    }

    /// Reload the policy from its sources. On success the new generation replaces the old
    /// one, its status cleared, in one pointer swap (requests in flight finish on the
    /// state they started with); on failure the last good generation stays, the error is
    /// returned and published with it.
    pub fn reload(&self) -> Result<Arc<Loaded>, String> {
        let _one = self.reloading.lock().unwrap_or_else(|p| p.into_inner());
        let loaded = load(&self.config);
        let mut g = match self.state.write() {
            Ok(g) => g,
            Err(p) => p.into_inner(),
        };
        match loaded {
            Ok(l) => {
                let l = Arc::new(l);
                *g = Arc::new(State {
                    loaded: Arc::clone(&l),
                    stale: None,
                });
                Ok(l)
            }
            Err(e) => {
                let msg = e.to_string();
                *g = Arc::new(State {
                    loaded: Arc::clone(&g.loaded),
                    stale: Some(msg.clone()),
                });
                Err(msg)
            }
        }
    }

    /// The policy files to watch for changes (empty for the shipped packs).
    pub fn watched(&self) -> Vec<PathBuf> {
        match &self.config.source {
            policy::Source::Builtin => Vec::new(),
            policy::Source::Paths(p) => p.clone(),
        }
    }

    /// Answer one request line without a raw body (the JSON answer's line only). Never
    /// panics on input; every error is an answer.
    pub fn handle(&self, line: &[u8]) -> Value {
        match parse_request(line) {
            Ok(req) => self.answer(&req, &[]).head,
            Err((id, e)) => self.reject(id, e).head,
        }
    }

    /// Answer a parsed request; `body` holds the [`Request::body_len`] raw bytes that
    /// followed its line.
    pub fn answer(&self, req: &Request, body: &[u8]) -> Response {
        // one snapshot decides and reports: a reload cannot land between the two
        let state = self.state();
        let mut raw_out = Vec::new();
        let result = self.dispatch(req, body, &state, &mut raw_out);
        let mut out = Map::new();
        out.insert("id".into(), req.id.clone());
        match result {
            Ok(m) => {
                out.insert("ok".into(), Value::Bool(true));
                out.extend(m);
            }
            Err(e) => {
                raw_out.clear();
                out.insert("ok".into(), Value::Bool(false));
                out.insert("error".into(), Value::String(e));
            }
        }
        out.insert("status".into(), Value::String(state.status()));
        Response {
            head: Value::Object(out),
            body: raw_out,
        }
    }

    /// The answer to a request that could not be read or parsed.
    pub fn reject(&self, id: Value, error: String) -> Response {
        Response {
            head: error_line(id, &error, &self.status()),
            body: Vec::new(),
        }
    }

    fn dispatch(
        &self,
        req: &Request,
        body: &[u8],
        state: &State,
        raw_out: &mut Vec<u8>,
    ) -> Result<Map<String, Value>, String> {
        let f = &req.fields;
        let l = &state.loaded;
        let op = f
            .get("op")
            .and_then(Value::as_str)
            .ok_or("request has no \"op\"")?;
        if !req.raw.is_empty() && op != "redact" {
            return Err(format!("op {op:?} takes no raw body"));
        }
        let v = match op {
            "hello" => self.hello(f, l),
            "status" => {
                json!({"policy_hash": l.hash, "policy": l.origin, "stale": state.stale,
                       "known_values": self.config.known.as_ref().map_or(0, |k| k.len())})
            }
            "decide" => {
                let payload = f.get("payload").ok_or("decide without \"payload\"")?;
                self.decide(payload, l)?
            }
            "redact" => return self.redact(req, body, l, raw_out),
            other => return Err(format!("unknown op {other:?}")),
        };
        match v {
            Value::Object(m) => Ok(m),
            other => Ok(Map::from_iter([("result".to_string(), other)])),
        }
    }

    fn hello(&self, req: &Map<String, Value>, l: &Loaded) -> Value {
        let host = req.get("host").and_then(Value::as_str).unwrap_or("hermes");
        let version = req.get("host_version").and_then(Value::as_str);
        let spec = host_spec(version);
        if let Ok(mut g) = self.host.write() {
            *g = spec;
        }
        json!({
            "protocol": PROTOCOL,
            "warden": env!("CARGO_PKG_VERSION"),
            "policy_hash": l.hash,
            "policy": l.origin,
            "rules": l.set().rule_count(),
            "capabilities": crate::host::hermes::plugin::capabilities(host, version),
            "known_values": self.config.known.as_ref().map_or(0, |k| k.len()),
        })
    }

    /// Decide one host payload (the shell hook's payload shape) on the generation `l`,
    /// through the one decision pipeline ([`runtime::decide`]).
    fn decide(&self, payload: &Value, l: &Loaded) -> Result<Value, String> {
        let opts = runtime::Options {
            host: self
                .host
                .read()
                .map(|h| h.clone())
                .unwrap_or_else(|_| HostSpec::hermes_unknown()),
            fail_open: false,
        };
        let d = runtime::decide(Payload::Json(payload), PolicyRef::Loaded(&l.policy), &opts);
        let mut rec = d.audit;
        let result = match &d.verdict {
            Ok(v) => {
                // what the plugin enforces is the policy's decision itself (it has every mechanism)
                rec.sent = rec.decision.clone();
                // only worth redacting the arguments when they are written somewhere
                if let (Some(e), Some(_)) = (&d.event, &self.config.audit) {
                    rec.args = redact_value(l.set(), self.known(), &e.args);
                }
                Ok(json!({"decision": plugin_decision(v), "policy_hash": l.hash}))
            }
            Err(f) => Err(f.cause()),
        };
        rec.host = format!("{}+plugin", rec.host);
        self.log(&rec);
        result
    }

    /// Append one audit line (the log is opened once and kept).
    fn log(&self, rec: &crate::audit::Record) {
        let Some(path) = &self.config.audit else {
            return;
        };
        let mut g = match self.audit.lock() {
            Ok(g) => g,
            Err(p) => p.into_inner(),
        };
        if g.is_none() {
            match crate::audit::open(path) {
                Ok(f) => *g = Some(f),
                Err(e) => {
                    eprintln!(
                        "warden serve: cannot open audit log {}: {e}",
                        path.display()
                    );
                    return;
                }
            }
        }
        if let Some(f) = g.as_mut() {
            if let Err(e) = crate::audit::write_line(f, &crate::audit::line(rec)) {
                eprintln!(
                    "warden serve: cannot write audit log {}: {e}",
                    path.display()
                );
                *g = None;
            }
        }
    }

    /// The known values masked in every redaction, if any.
    fn known(&self) -> Option<&KnownValues> {
        self.config.known.as_deref().filter(|k| !k.is_empty())
    }

    /// Redact many texts with one event's redaction rules (and the known values): each
    /// text comes back redacted, or null when nothing was found. The texts come from the
    /// `texts` array, or raw from `body` (see the module docs), and go back the same way.
    fn redact(
        &self,
        req: &Request,
        body: &[u8],
        l: &Loaded,
        raw_out: &mut Vec<u8>,
    ) -> Result<Map<String, Value>, String> {
        let f = &req.fields;
        let name = f
            .get("event")
            .and_then(Value::as_str)
            .unwrap_or("transform_tool_result");
        let hook = Hook::from_name(name)
            .filter(|h| h.is_transform())
            .ok_or_else(|| format!("redact: {name:?} is not a transform event"))?;
        let mut texts: Vec<&str> = Vec::new();
        if req.raw.is_empty() {
            let arr = f
                .get("texts")
                .and_then(Value::as_array)
                .ok_or("redact without \"texts\" (an array of strings) or \"raw\"")?;
            for t in arr {
                texts.push(t.as_str().ok_or("redact: texts must be strings")?);
            }
        } else {
            let mut at = 0;
            for (i, n) in req.raw.iter().enumerate() {
                let chunk = body
                    .get(at..at + n)
                    .ok_or("redact: the raw body is shorter than its lengths")?;
                at += n;
                texts.push(
                    std::str::from_utf8(chunk)
                        .map_err(|e| format!("redact: raw text {i} is not valid UTF-8: {e}"))?,
                );
            }
        }
        let redactor = l.set().redactor(hook)?;
        let known = self.known();
        let mut out = Vec::with_capacity(texts.len());
        let mut rules: Vec<String> = Vec::new();
        let mut note = |id: &str| {
            if !rules.iter().any(|x| x == id) {
                rules.push(id.to_string());
            }
        };
        for t in texts {
            let red: Option<Cow<str>> = match redactor {
                Some(r) => {
                    let red = r.redact_with(t, known);
                    if red.changed() {
                        for f in &red.findings {
                            note(&f.rule_id);
                        }
                        if let Some(w) = &red.withheld_by {
                            note(w);
                        }
                        Some(red.text)
                    } else {
                        None
                    }
                }
                None => match known.map(|k| k.mask(t)) {
                    Some(Cow::Owned(s)) => {
                        note(crate::redact::KNOWN_RULE_ID);
                        Some(Cow::Owned(s))
                    }
                    _ => None,
                },
            };
            out.push(red);
        }
        if !rules.is_empty() && self.config.audit.is_some() {
            let rec = crate::audit::Record {
                event: Some(hook.name().into()),
                session_id: f
                    .get("session_id")
                    .and_then(Value::as_str)
                    .map(str::to_string),
                rules: rules.clone(),
                decision: "redact".into(),
                sent: "redact".into(),
                policy_hash: Some(l.hash.clone()),
                host: format!(
                    "{}+plugin",
                    self.host.read().map(|h| h.name()).unwrap_or_default()
                ),
                ..Default::default()
            };
            self.log(&rec);
        }
        let mut m = Map::new();
        if req.raw.is_empty() {
            let texts = out
                .into_iter()
                .map(|t| t.map_or(Value::Null, |t| Value::String(t.into_owned())))
                .collect();
            m.insert("texts".into(), Value::Array(texts));
        } else {
            let mut lens = Vec::with_capacity(out.len());
            for t in out {
                match t {
                    Some(t) => {
                        lens.push(Value::from(t.len()));
                        raw_out.extend_from_slice(t.as_bytes());
                    }
                    None => lens.push(Value::Null),
                }
            }
            m.insert("raw".into(), Value::Array(lens));
        }
        m.insert(
            "rules".into(),
            Value::Array(rules.into_iter().map(Value::String).collect()),
        );
        Ok(m)
    }
}

/// `text` through the tool-result redaction rules (and the known values); withheld when
/// they cannot run.
fn redact_str(set: &MatcherSet, known: Option<&KnownValues>, text: &str) -> String {
    match set.redactor(Hook::TransformToolResult) {
        Ok(Some(r)) => r.redact_with(text, known).text.into_owned(),
        Ok(None) => known
            .map_or(Cow::Borrowed(text), |k| k.mask(text))
            .into_owned(),
        Err(_) => "[warden: withheld]".into(),
    }
}

/// A JSON value with every string (keys included) redacted, so the audit log keeps
/// argument values that can be replayed but never a secret they held.
pub fn redact_value(set: &MatcherSet, known: Option<&KnownValues>, v: &Value) -> Value {
    match v {
        Value::String(s) => Value::String(redact_str(set, known, s)),
        Value::Array(a) => Value::Array(a.iter().map(|x| redact_value(set, known, x)).collect()),
        Value::Object(m) => Value::Object(
            m.iter()
                .map(|(k, x)| (redact_str(set, known, k), redact_value(set, known, x)))
                .collect(),
        ),
        other => other.clone(),
    }
}

/// A verdict in the shape the plugin acts on.
pub fn plugin_decision(v: &Verdict) -> Value {
    match &v.decision {
        Decision::Allow => json!({"action": "allow"}),
        Decision::Block {
            rule,
            message,
            placeholder,
        } => {
            let mut o = json!({"action": "block", "rule": rule, "message": message});
            if let Some(p) = placeholder {
                o["placeholder"] = json!(p);
            }
            o
        }
        Decision::Approve {
            rule,
            message,
            rule_key,
        } => json!({"action": "approve", "rule": rule, "message": message, "rule_key": rule_key}),
        Decision::Modify { rules, args } => {
            json!({"action": "modify", "rules": rules, "args": args})
        }
        Decision::Context { rules, text } => {
            json!({"action": "context", "rules": rules, "text": text})
        }
        Decision::Redact {
            rules,
            text,
            withheld_by,
            ..
        } => {
            json!({"action": "redact", "rules": rules, "text": text, "withheld": withheld_by.is_some()})
        }
    }
}

/// One request, read from its line.
pub struct Request {
    /// Its id (a number or a string), echoed in the answer.
    pub id: Value,
    fields: Map<String, Value>,
    /// Byte lengths of the raw texts that follow the line (`redact` only).
    raw: Vec<usize>,
}

impl Request {
    /// How many raw bytes follow the request line.
    pub fn body_len(&self) -> usize {
        self.raw.iter().fold(0usize, |a, n| a.saturating_add(*n))
    }
}

/// An answer: its JSON line, then the raw bytes of a raw `redact` (empty otherwise).
pub struct Response {
    /// The answer's JSON object.
    pub head: Value,
    /// Raw bytes that follow the line.
    pub body: Vec<u8>,
}

impl Response {
    /// Append the answer as it goes on the wire (compact JSON line, then the body) to `out`.
    pub fn write_to(&self, out: &mut Vec<u8>) {
        // serialising a Value into memory cannot fail
        let _ = serde_json::to_writer(&mut *out, &self.head);
        out.push(b'\n');
        out.extend_from_slice(&self.body);
    }
}

/// Why a request line was refused: the id (null if unknown) and the cause.
pub type RequestError = (Value, String);

/// Parse one request line: strict UTF-8, one JSON object, an `id` (number or string),
/// and for a raw `redact` the lengths of the texts that follow.
pub fn parse_request(line: &[u8]) -> Result<Request, RequestError> {
    let text = std::str::from_utf8(line)
        .map_err(|e| (Value::Null, format!("request is not valid UTF-8: {e}")))?;
    let v: Value =
        serde_json::from_str(text).map_err(|e| (Value::Null, format!("malformed request: {e}")))?;
    let Value::Object(m) = v else {
        return Err((Value::Null, "request is not a JSON object".into()));
    };
    let id = match m.get("id") {
        Some(id @ (Value::Number(_) | Value::String(_))) => id.clone(),
        Some(_) => {
            return Err((
                Value::Null,
                "request id must be a number or a string".into(),
            ))
        }
        None => return Err((Value::Null, "request has no id".into())),
    };
    if let Some(v) = m.get("v").and_then(Value::as_u64) {
        if v != PROTOCOL {
            return Err((
                id,
                format!("protocol version {v} not supported (this warden speaks {PROTOCOL})"),
            ));
        }
    }
    let raw = match m.get("raw") {
        None => Vec::new(),
        Some(Value::Array(a)) => {
            let mut out = Vec::with_capacity(a.len());
            for n in a {
                match n.as_u64().and_then(|n| usize::try_from(n).ok()) {
                    Some(n) => out.push(n),
                    None => {
                        return Err((id, "\"raw\" must be an array of byte lengths".into()));
                    }
                }
            }
            out
        }
        Some(_) => return Err((id, "\"raw\" must be an array of byte lengths".into())),
    };
    Ok(Request { id, fields: m, raw })
}

/// A one-line answer for a request that could not even be read (too large, I/O).
pub fn error_line(id: Value, error: &str, status: &str) -> Value {
    json!({"id": id, "ok": false, "error": error, "status": status})
}

#[cfg(test)]
mod tests;

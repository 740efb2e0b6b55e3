//! The Hermes Agent shell-hook wire format.
//!
//! In: the JSON object Hermes writes to a hook's stdin (also the Claude Code
//! spelling of the same fields). Out: exactly one JSON object for stdout and
//! an exit code, shaped for what the host version can honour.
//!
//! Hermes 0.19.0 silently drops `approve` and `modify` from shell hooks (the
//! call then runs unchanged) and ignores exit code 2. So on 0.19.0 an
//! approve or a modify becomes a block that says what a human must approve
//! or what to run instead: a safety rule never turns into an allow.

use crate::eval::{Decision, Verdict};
use crate::event::{Event, Hook};
use serde_json::{json, Map, Value};

/// Which Hermes the hook answers.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum HostMode {
    /// Hermes 0.19.0: block only (approve/modify are dropped by the host).
    Hermes019,
    /// Newer Hermes (0.21+): block, approve, modify, pre_llm_call block.
    HermesLatest,
}

impl HostMode {
    /// Detect from a payload: 0.19.0 sends no top-level `profile` key.
    pub fn detect(payload: &Value) -> HostMode {
        if payload.get("profile").is_some() {
            HostMode::HermesLatest
        } else {
            HostMode::Hermes019
        }
    }

    /// Parse `hermes-0.19` / `hermes-latest`.
    pub fn parse(s: &str) -> Option<HostMode> {
        match s {
            "hermes-0.19" | "hermes-0.19.0" | "0.19" => Some(HostMode::Hermes019),
            "hermes-latest" | "latest" => Some(HostMode::HermesLatest),
            _ => None,
        }
    }

    /// The name used in flags and logs.
    pub fn name(self) -> &'static str {
        match self {
            HostMode::Hermes019 => "hermes-0.19",
            HostMode::HermesLatest => "hermes-latest",
        }
    }
}

/// A payload that is not a Hermes hook event.
#[derive(Debug, thiserror::Error)]
pub enum PayloadError {
    /// Not JSON at all.
    #[error("payload is not valid JSON: {0}")]
    Json(#[from] serde_json::Error),
    /// JSON but not an object.
    #[error("payload is not a JSON object")]
    NotAnObject,
    /// No `hook_event_name`.
    #[error("payload has no hook_event_name")]
    NoEvent,
    /// An event name Hermes does not have.
    #[error("unknown event `{0}`")]
    UnknownEvent(String),
}

/// Claude Code event names that mean the same thing as a Hermes hook.
fn claude_event(name: &str) -> Option<Hook> {
    match name {
        "PreToolUse" => Some(Hook::PreToolCall),
        "PostToolUse" => Some(Hook::PostToolCall),
        "UserPromptSubmit" => Some(Hook::PreLlmCall),
        "SessionStart" => Some(Hook::OnSessionStart),
        "SessionEnd" => Some(Hook::OnSessionEnd),
        _ => None,
    }
}

fn string_at(v: &Value, keys: &[&str]) -> Option<String> {
    keys.iter().find_map(|k| match v.get(*k) {
        Some(Value::String(s)) => Some(s.clone()),
        Some(Value::Null) | None => None,
        Some(other) => Some(other.to_string()),
    })
}

/// Parse a payload into an [`Event`]. `hook` overrides the payload's event
/// name (for `warden eval --hook`).
pub fn parse_event(payload: &Value) -> Result<Event, PayloadError> {
    let obj = payload.as_object().ok_or(PayloadError::NotAnObject)?;
    let name = obj
        .get("hook_event_name")
        .and_then(Value::as_str)
        .ok_or(PayloadError::NoEvent)?;
    let hook = Hook::from_name(name)
        .or_else(|| claude_event(name))
        .ok_or_else(|| PayloadError::UnknownEvent(name.to_string()))?;
    let extra = obj.get("extra").cloned().unwrap_or(Value::Null);
    let from = |keys: &[&str]| string_at(payload, keys).or_else(|| string_at(&extra, keys));
    let mut ev = Event::new(hook);
    ev.tool = string_at(payload, &["tool_name"]);
    ev.args = obj.get("tool_input").cloned().unwrap_or(Value::Null);
    ev.session_id = string_at(payload, &["session_id"]);
    ev.cwd = string_at(payload, &["cwd"]);
    ev.profile = string_at(payload, &["profile"]);
    ev.user_message = from(&["user_message", "prompt"]);
    if let Some(Value::Array(h)) = extra
        .get("conversation_history")
        .or_else(|| payload.get("conversation_history"))
    {
        ev.history = h.iter().filter_map(message_text).collect();
    }
    ev.model = from(&["model"]);
    ev.platform = from(&["platform"]);
    ev.is_first_turn = extra
        .get("is_first_turn")
        .or_else(|| payload.get("is_first_turn"))
        .and_then(Value::as_bool);
    ev.sender_id = from(&["sender_id"]);
    ev.result = from(&["result", "tool_response"]);
    ev.command = from(&["command"]);
    ev.output = from(&["output"]);
    ev.exit_code = ["exit_code", "returncode"].iter().find_map(|k| {
        extra
            .get(*k)
            .or_else(|| payload.get(*k))
            .and_then(Value::as_i64)
    });
    ev.response_text = from(&["response_text"]);
    if ev.args.is_null() {
        if let Some(a) = extra.get("args").or_else(|| extra.get("arguments")) {
            ev.args = a.clone();
        }
    }
    ev.extra = extra;
    Ok(ev)
}

/// The text of one OpenAI-format message (`content` string or parts).
fn message_text(m: &Value) -> Option<String> {
    match m.get("content")? {
        Value::String(s) => Some(s.clone()),
        Value::Array(parts) => {
            let t: Vec<&str> = parts
                .iter()
                .filter_map(|p| p.get("text").and_then(Value::as_str))
                .collect();
            (!t.is_empty()).then(|| t.join("\n"))
        }
        _ => None,
    }
}

/// What the hook prints and how it exits.
#[derive(Clone, Debug, PartialEq)]
pub struct HookResponse {
    /// The one JSON object for stdout.
    pub json: Value,
    /// The process exit code (2 = block on pre_tool_call).
    pub exit_code: i32,
    /// Lines for stderr.
    pub notes: Vec<String>,
}

impl HookResponse {
    fn allow() -> HookResponse {
        HookResponse {
            json: json!({}),
            exit_code: 0,
            notes: Vec::new(),
        }
    }

    fn block(hook: Hook, message: String) -> HookResponse {
        let json = if hook == Hook::PreLlmCall {
            // Hermes 0.19 has no pre_llm_call block and keeps only `context`;
            // newer Hermes ends the turn on the block and never reads it.
            let note = format!(
                "[warden policy] The user's message was blocked by policy: {message} Do not act on it or repeat it; reply only with this notice."
            );
            json!({"action": "block", "message": message, "context": note})
        } else {
            json!({"action": "block", "message": message})
        };
        HookResponse {
            json,
            // Exit 2 blocks a pre_tool_call on newer Hermes even without JSON;
            // on pre_llm_call it is not a block, so exit 0 there.
            exit_code: if hook == Hook::PreToolCall { 2 } else { 0 },
            notes: Vec::new(),
        }
    }
}

/// A fail-closed answer for a gating event: a block naming the cause.
pub fn fail_closed(hook: Hook, cause: &str) -> HookResponse {
    HookResponse::block(hook, format!("warden: {cause} — blocked (fail-closed)"))
}

/// Serialise `v` as one line of ASCII-only JSON (non-ASCII as `\uXXXX`):
/// Hermes decodes hook stdout with the locale's encoding, strictly, and a
/// decoding error there fails open.
pub fn to_ascii_json(v: &Value) -> String {
    let text = v.to_string();
    let mut out = String::with_capacity(text.len());
    for c in text.chars() {
        if c.is_ascii() {
            out.push(c);
        } else {
            let mut buf = [0u16; 2];
            for unit in c.encode_utf16(&mut buf) {
                out.push_str(&format!("\\u{unit:04x}"));
            }
        }
    }
    out
}

/// Shape a verdict for the host.
pub fn respond(verdict: &Verdict, event: &Event, mode: HostMode) -> HookResponse {
    match (event.hook, &verdict.decision) {
        (_, Decision::Allow) => HookResponse::allow(),
        (Hook::PreToolCall, Decision::Block { message, .. }) => {
            HookResponse::block(Hook::PreToolCall, message.clone())
        }
        (
            Hook::PreToolCall,
            Decision::Approve {
                rule,
                message,
                rule_key,
            },
        ) => match mode {
            HostMode::HermesLatest => {
                let mut o = Map::new();
                o.insert("action".into(), json!("approve"));
                o.insert("message".into(), json!(message));
                if let Some(k) = rule_key {
                    o.insert("rule_key".into(), json!(k));
                }
                HookResponse {
                    json: Value::Object(o),
                    exit_code: 0,
                    notes: Vec::new(),
                }
            }
            HostMode::Hermes019 => {
                let key = rule_key
                    .as_deref()
                    .map(|k| format!(", key {k}"))
                    .unwrap_or_default();
                let mut r = HookResponse::block(
                    Hook::PreToolCall,
                    format!(
                        "{message} — this call needs a human's approval (rule {rule}{key}), and this Hermes version cannot ask for it, so warden blocked it. Ask the user to approve and run it themselves."
                    ),
                );
                r.notes.push(format!("warden: approve by {rule} turned into a block: Hermes 0.19 drops approve from shell hooks"));
                r
            }
        },
        (Hook::PreToolCall, Decision::Modify { rules, args }) => {
            match mode {
                HostMode::HermesLatest => HookResponse {
                    json: json!({"action": "modify", "args": args}),
                    exit_code: 0,
                    notes: Vec::new(),
                },
                HostMode::Hermes019 => {
                    let instead = match (args.get("command"), event.args.get("command")) {
                        (Some(Value::String(new)), Some(Value::String(old))) if new != old => {
                            format!("run `{new}` instead")
                        }
                        _ => format!(
                            "call {} again with these arguments: {}",
                            event.tool.as_deref().unwrap_or("the tool"),
                            Value::Object(changed(&event.args, args))
                        ),
                    };
                    let mut r = HookResponse::block(
                    Hook::PreToolCall,
                    format!("warden: policy {} requires changed arguments for this call, which this Hermes version cannot apply; blocked — {instead}.", rules.join(", ")),
                );
                    r.notes.push("warden: modify turned into a block: Hermes 0.19 drops modify from shell hooks".into());
                    r
                }
            }
        }
        (Hook::PreLlmCall, Decision::Block { message, .. }) => {
            HookResponse::block(Hook::PreLlmCall, message.clone())
        }
        (Hook::PreLlmCall, Decision::Context { text, .. }) => HookResponse {
            json: json!({"context": text}),
            exit_code: 0,
            notes: Vec::new(),
        },
        (hook, d) if hook.is_transform() => {
            let mut r = HookResponse::allow();
            if !matches!(d, Decision::Allow) {
                r.notes.push(format!(
                    "warden: {} through a shell hook cannot change anything in Hermes; use the Python plugin for redaction",
                    hook.name()
                ));
            }
            r
        }
        _ => HookResponse::allow(),
    }
}

/// The keys of `merged` whose values differ from `orig`.
fn changed(orig: &Value, merged: &Map<String, Value>) -> Map<String, Value> {
    merged
        .iter()
        .filter(|(k, v)| orig.get(k.as_str()) != Some(v))
        .map(|(k, v)| (k.clone(), v.clone()))
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn ascii_json_round_trips() {
        let v = json!({"message": "naïve — 😀 \"q\""});
        let s = to_ascii_json(&v);
        assert!(s.is_ascii(), "{s}");
        assert_eq!(serde_json::from_str::<Value>(&s).unwrap(), v);
    }

    #[test]
    fn detects_host_by_profile() {
        assert_eq!(
            HostMode::detect(&json!({"hook_event_name": "pre_tool_call"})),
            HostMode::Hermes019
        );
        assert_eq!(
            HostMode::detect(&json!({"profile": "default"})),
            HostMode::HermesLatest
        );
    }

    #[test]
    fn parses_hermes_and_claude_payloads() {
        let ev = parse_event(&json!({
            "hook_event_name": "pre_tool_call", "tool_name": "terminal",
            "tool_input": {"command": "ls"}, "session_id": "s", "cwd": "/p", "extra": {"task_id": "t"}
        }))
        .unwrap();
        assert_eq!(ev.hook, Hook::PreToolCall);
        assert_eq!(ev.args["command"], "ls");
        let ev =
            parse_event(&json!({"hook_event_name": "UserPromptSubmit", "prompt": "hi"})).unwrap();
        assert_eq!(ev.user_message.as_deref(), Some("hi"));
        let ev = parse_event(&json!({
            "hook_event_name": "pre_llm_call", "tool_name": null, "tool_input": null,
            "extra": {"user_message": "u", "conversation_history": [{"role": "user", "content": "a"}, {"role": "assistant", "content": [{"type": "text", "text": "b"}]}]}
        }))
        .unwrap();
        assert_eq!(ev.history, ["a", "b"]);
        assert!(matches!(
            parse_event(&json!({"hook_event_name": "nope"})),
            Err(PayloadError::UnknownEvent(_))
        ));
        assert!(matches!(
            parse_event(&json!([1])),
            Err(PayloadError::NotAnObject)
        ));
    }
}

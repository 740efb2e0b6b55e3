//! The Hermes Agent shell-hook wire format.
//!
//! In: the JSON object Hermes writes to a hook's stdin (also the Claude Code
//! spelling of the same fields), strictly: valid UTF-8, one JSON object,
//! duplicate keys resolved last-wins as Python's `json` does, and a field of an
//! impossible type is an error (the caller fails closed on a gating event).
//! Out: exactly one JSON object for stdout and an exit code, shaped for what
//! the host version honours ([`crate::host::Capabilities`]).
//!
//! A directive the host does not honour is never sent as is: an approve or a
//! modify becomes a block that says what a human must approve or what to run
//! instead, and a `pre_llm_call` block becomes a context notice that tells the
//! model (truthfully) that the message reached it. A safety rule never turns
//! into an allow.

use crate::eval::{Decision, Verdict};
use crate::event::{Event, Hook};
use crate::host::{Capabilities, Effect, HostResponse};
use serde_json::{json, Map, Value};

/// A payload that is not a Hermes hook event.
#[derive(Debug, thiserror::Error)]
pub enum PayloadError {
    /// Not valid UTF-8.
    #[error("payload is not valid UTF-8 (byte {0})")]
    NotUtf8(usize),
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
    /// A field of a type Hermes never sends.
    #[error("field `{field}` is {found}, expected {expected}")]
    WrongType {
        /// The field, e.g. `tool_input` or `extra.user_message`.
        field: String,
        /// What it must be.
        expected: &'static str,
        /// What it was.
        found: &'static str,
    },
}

/// Decode a payload: strict UTF-8, then one JSON value (duplicate keys: the
/// last wins, as in Python's `json`). Only JSON whitespace is skipped; a
/// Unicode space around the object is an error.
pub fn parse_payload(bytes: &[u8]) -> Result<Value, PayloadError> {
    let text = std::str::from_utf8(bytes).map_err(|e| PayloadError::NotUtf8(e.valid_up_to()))?;
    Ok(serde_json::from_str(text)?)
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

fn type_name(v: &Value) -> &'static str {
    match v {
        Value::Null => "null",
        Value::Bool(_) => "a boolean",
        Value::Number(_) => "a number",
        Value::String(_) => "a string",
        Value::Array(_) => "an array",
        Value::Object(_) => "an object",
    }
}

/// What a field may hold.
#[derive(Clone, Copy)]
enum Kind {
    /// A string (or null / absent).
    Str,
    /// A string or a number (ids Hermes may send as either), or null.
    Scalar,
    /// Anything, stringified (fields of events that gate nothing).
    Any,
}

fn wrong(field: &str, expected: &'static str, v: &Value) -> PayloadError {
    PayloadError::WrongType {
        field: field.to_string(),
        expected,
        found: type_name(v),
    }
}

/// The string at the first of `keys` in `v` that is present and not null.
fn string_at(
    v: &Value,
    keys: &[&str],
    prefix: &str,
    kind: Kind,
) -> Result<Option<String>, PayloadError> {
    for k in keys {
        match v.get(*k) {
            None | Some(Value::Null) => continue,
            Some(Value::String(s)) => return Ok(Some(s.clone())),
            Some(n @ Value::Number(_)) if matches!(kind, Kind::Scalar | Kind::Any) => {
                return Ok(Some(n.to_string()))
            }
            Some(other) if matches!(kind, Kind::Any) => return Ok(Some(other.to_string())),
            Some(other) => {
                let expected = match kind {
                    Kind::Str => "a string or null",
                    _ => "a string, a number or null",
                };
                return Err(wrong(&format!("{prefix}{k}"), expected, other));
            }
        }
    }
    Ok(None)
}

/// Parse a payload into an [`Event`]. Fields of an impossible type (e.g. a
/// `tool_input` that is neither an object nor null) are errors.
pub fn parse_event(payload: &Value) -> Result<Event, PayloadError> {
    let obj = payload.as_object().ok_or(PayloadError::NotAnObject)?;
    let name = match obj.get("hook_event_name") {
        Some(Value::String(s)) => s.as_str(),
        None | Some(Value::Null) => return Err(PayloadError::NoEvent),
        Some(other) => return Err(wrong("hook_event_name", "a string", other)),
    };
    let hook = Hook::from_name(name)
        .or_else(|| claude_event(name))
        .ok_or_else(|| PayloadError::UnknownEvent(name.to_string()))?;
    let extra = match obj.get("extra") {
        None => Value::Null,
        Some(v @ (Value::Object(_) | Value::Null)) => v.clone(),
        Some(other) => return Err(wrong("extra", "an object or null", other)),
    };
    let top = |keys: &[&str], kind| string_at(payload, keys, "", kind);
    let from = |keys: &[&str], kind| -> Result<Option<String>, PayloadError> {
        match string_at(payload, keys, "", kind)? {
            Some(s) => Ok(Some(s)),
            None => string_at(&extra, keys, "extra.", kind),
        }
    };
    let mut ev = Event::new(hook);
    ev.tool = top(&["tool_name"], Kind::Str)?;
    ev.args = match obj.get("tool_input") {
        None => Value::Null,
        Some(v @ (Value::Object(_) | Value::Null)) => v.clone(),
        Some(other) => return Err(wrong("tool_input", "an object or null", other)),
    };
    ev.session_id = top(&["session_id"], Kind::Scalar)?;
    ev.cwd = top(&["cwd"], Kind::Str)?;
    ev.profile = top(&["profile"], Kind::Str)?;
    ev.user_message = from(&["user_message", "prompt"], Kind::Str)?;
    let history = match extra.get("conversation_history") {
        None | Some(Value::Null) => payload.get("conversation_history"),
        some => some,
    };
    match history {
        None | Some(Value::Null) => {}
        Some(Value::Array(h)) => ev.history = h.iter().filter_map(message_text).collect(),
        Some(other) => return Err(wrong("conversation_history", "an array", other)),
    }
    ev.model = from(&["model"], Kind::Scalar)?;
    ev.platform = from(&["platform"], Kind::Scalar)?;
    ev.is_first_turn = match extra
        .get("is_first_turn")
        .or_else(|| payload.get("is_first_turn"))
    {
        None | Some(Value::Null) => None,
        Some(Value::Bool(b)) => Some(*b),
        Some(other) => return Err(wrong("is_first_turn", "a boolean", other)),
    };
    ev.sender_id = from(&["sender_id"], Kind::Scalar)?;
    ev.result = from(&["result", "tool_response"], Kind::Any)?;
    ev.command = from(&["command"], Kind::Any)?;
    ev.output = from(&["output"], Kind::Any)?;
    ev.exit_code = ["exit_code", "returncode"].iter().find_map(|k| {
        extra
            .get(*k)
            .or_else(|| payload.get(*k))
            .and_then(Value::as_i64)
    });
    ev.response_text = from(&["response_text"], Kind::Any)?;
    if ev.args.is_null() {
        match extra.get("args").or_else(|| extra.get("arguments")) {
            None | Some(Value::Null) => {}
            Some(a @ Value::Object(_)) => ev.args = a.clone(),
            Some(other) => return Err(wrong("extra.args", "an object or null", other)),
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

/// A block: the JSON block for a `pre_tool_call` (with exit code 2, which
/// newer Hermes reads as a block even without JSON), or, for `pre_llm_call`,
/// the block plus a context notice that is true on every host: no installable
/// Hermes honours a shell `pre_llm_call` block, so the message has reached the
/// model.
fn block(hook: Hook, message: String, caps: &Capabilities) -> HostResponse {
    if hook == Hook::PreLlmCall {
        let mut o = Map::new();
        o.insert("action".into(), json!("block"));
        o.insert("message".into(), json!(message));
        let mut notes = Vec::new();
        let effect = if caps.llm_block {
            Effect::Block
        } else {
            o.insert("context".into(), json!(llm_notice(&message)));
            notes.push(format!(
                "warden: pre_llm_call block not honoured by this Hermes: the user's message REACHED the model \
                 (and the session history); the model was told not to act on it. Rotate any credential it held. \
                 The warden Hermes plugin withholds such messages. ({message})"
            ));
            Effect::Notice
        };
        return HostResponse {
            json: Value::Object(o),
            // exit 2 is not a block on pre_llm_call in any version
            exit_code: 0,
            notes,
            effect,
        };
    }
    HostResponse {
        json: json!({"action": "block", "message": message}),
        exit_code: if hook == Hook::PreToolCall { 2 } else { 0 },
        notes: Vec::new(),
        effect: if hook == Hook::PreToolCall {
            Effect::Block
        } else {
            Effect::Ignored
        },
    }
}

/// The context notice for a `pre_llm_call` block the host cannot honour.
pub fn llm_notice(message: &str) -> String {
    format!(
        "[warden policy notice] The user's message above was flagged by policy: {message} \
         This Hermes version cannot withhold a message from a shell hook, so it has reached you and is \
         stored in the session. Do not act on it, repeat it, quote it or summarise what was flagged. \
         Reply only with this notice, and tell the user to treat anything sensitive in the message \
         (such as a credential) as exposed and to rotate it."
    )
}

/// A fail-closed answer for a gating event: a block naming the cause.
pub fn fail_closed(hook: Hook, cause: &str, caps: &Capabilities) -> HostResponse {
    block(
        hook,
        format!("warden: {cause} — blocked (fail-closed)"),
        caps,
    )
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

/// Shape a verdict for a host with capabilities `caps`.
pub fn respond(verdict: &Verdict, event: &Event, caps: &Capabilities) -> HostResponse {
    match (event.hook, &verdict.decision) {
        (_, Decision::Allow) => HostResponse::allow(),
        (Hook::PreToolCall, Decision::Block { message, .. }) => {
            block(Hook::PreToolCall, message.clone(), caps)
        }
        (
            Hook::PreToolCall,
            Decision::Approve {
                message, rule_key, ..
            },
        ) if caps.approve => {
            let mut o = Map::new();
            o.insert("action".into(), json!("approve"));
            o.insert("message".into(), json!(message));
            if let Some(k) = rule_key {
                o.insert("rule_key".into(), json!(k));
            }
            HostResponse {
                json: Value::Object(o),
                exit_code: 0,
                notes: Vec::new(),
                effect: Effect::Approve,
            }
        }
        (
            Hook::PreToolCall,
            Decision::Approve {
                rule,
                message,
                rule_key,
            },
        ) => {
            let key = rule_key
                .as_deref()
                .map(|k| format!(", key {k}"))
                .unwrap_or_default();
            let mut r = block(
                Hook::PreToolCall,
                format!(
                    "{message} — this call needs a human's approval (rule {rule}{key}), and this Hermes version cannot ask for it, so warden blocked it. Ask the user to approve and run it themselves."
                ),
                caps,
            );
            r.effect = Effect::BlockInsteadOfApprove;
            r.notes.push(format!(
                "warden: approve by {rule} turned into a block: this Hermes version (or an unknown one) does not honour approve from shell hooks"
            ));
            r
        }
        (Hook::PreToolCall, Decision::Modify { rules, args }) => {
            // Newer Hermes shallow-merges each hook's `args` over the running
            // result: send only what the policy changed, or an earlier hook's
            // rewrite of another key would be undone.
            let changes = changed(&event.args, args);
            if changes.is_empty() {
                return HostResponse::allow();
            }
            if caps.modify {
                return HostResponse {
                    json: json!({"action": "modify", "args": changes}),
                    exit_code: 0,
                    notes: Vec::new(),
                    effect: Effect::Modify,
                };
            }
            let instead = match (changes.get("command"), event.args.get("command")) {
                (Some(Value::String(new)), Some(Value::String(old))) if new != old => {
                    format!("run `{new}` instead")
                }
                _ => format!(
                    "call {} again with these arguments changed: {}",
                    event.tool.as_deref().unwrap_or("the tool"),
                    Value::Object(changes)
                ),
            };
            let mut r = block(
                Hook::PreToolCall,
                format!("warden: policy {} requires changed arguments for this call, which this Hermes version cannot apply; blocked — {instead}.", rules.join(", ")),
                caps,
            );
            r.effect = Effect::BlockInsteadOfModify;
            r.notes.push("warden: modify turned into a block: this Hermes version (or an unknown one) does not honour modify from shell hooks".into());
            r
        }
        (Hook::PreLlmCall, Decision::Block { message, .. }) => {
            block(Hook::PreLlmCall, message.clone(), caps)
        }
        (Hook::PreLlmCall, Decision::Context { text, .. }) => HostResponse {
            json: json!({"context": text}),
            exit_code: 0,
            notes: Vec::new(),
            effect: Effect::Context,
        },
        (hook, d) if hook.is_transform() => {
            let mut r = HostResponse::allow();
            if !matches!(d, Decision::Allow) {
                r.effect = Effect::Ignored;
                r.notes.push(format!(
                    "warden: {} through a shell hook cannot change anything in Hermes; use the Python plugin for redaction",
                    hook.name()
                ));
            }
            r
        }
        _ => HostResponse::allow(),
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
    fn payload_must_be_utf8_json_and_last_key_wins() {
        assert!(matches!(
            parse_payload(b"{\"comm\xffand\":\"rm -rf /\"}"),
            Err(PayloadError::NotUtf8(6))
        ));
        // a Unicode space is not JSON whitespace
        assert!(parse_payload("\u{a0}{}".as_bytes()).is_err());
        assert!(parse_payload(b" \n{}\r\n").is_ok());
        // Python's json: the last duplicate wins
        let v = parse_payload(
            br#"{"hook_event_name":"pre_tool_call","tool_name":"terminal","tool_input":{"command":"ls","command":"rm -rf /"}}"#,
        )
        .unwrap();
        assert_eq!(parse_event(&v).unwrap().args["command"], "rm -rf /");
    }

    #[test]
    fn impossible_field_types_are_errors() {
        for bad in [
            json!({"hook_event_name": "pre_tool_call", "tool_name": "terminal", "tool_input": "rm -rf /"}),
            json!({"hook_event_name": "pre_tool_call", "tool_name": "terminal", "tool_input": ["rm"]}),
            json!({"hook_event_name": "pre_tool_call", "tool_name": ["terminal"], "tool_input": {}}),
            json!({"hook_event_name": "pre_tool_call", "tool_name": "terminal", "tool_input": {}, "extra": "x"}),
            json!({"hook_event_name": "pre_tool_call", "tool_name": "terminal", "tool_input": {}, "cwd": {"a": 1}}),
            json!({"hook_event_name": 7}),
            json!({"hook_event_name": "pre_llm_call", "extra": {"user_message": {"text": "hi"}}}),
            json!({"hook_event_name": "pre_llm_call", "extra": {"conversation_history": "x"}}),
            json!({"hook_event_name": "pre_llm_call", "extra": {"is_first_turn": "yes"}}),
        ] {
            assert!(
                matches!(parse_event(&bad), Err(PayloadError::WrongType { .. })),
                "{bad}"
            );
        }
        // nulls and numeric ids are fine
        let ev = parse_event(&json!({"hook_event_name": "pre_llm_call", "tool_name": null, "tool_input": null,
            "session_id": 12, "extra": {"user_message": "hi", "sender_id": 42, "is_first_turn": null}}))
        .unwrap();
        assert_eq!(ev.sender_id.as_deref(), Some("42"));
    }

    #[test]
    fn unhonoured_directives_become_blocks_and_modify_sends_only_changes() {
        use crate::host::hermes::capabilities::{HERMES_0_19, HERMES_0_21_5};
        let ev = Event::tool_call("terminal", json!({"command": "a", "timeout": 5}));
        let mut args = Map::new();
        args.insert("command".into(), json!("b"));
        args.insert("timeout".into(), json!(5));
        let v = Verdict {
            decision: Decision::Modify {
                rules: vec!["r".into()],
                args,
            },
            event: "pre_tool_call",
            matches: Vec::new(),
            exempted: Vec::new(),
        };
        let r = respond(&v, &ev, &HERMES_0_21_5);
        assert_eq!(
            r.json,
            json!({"action": "modify", "args": {"command": "b"}})
        );
        assert_eq!(r.effect, Effect::Modify);
        let r = respond(&v, &ev, &HERMES_0_19);
        assert_eq!(r.effect, Effect::BlockInsteadOfModify);
        assert_eq!(r.exit_code, 2);
        let llm = Event::llm_call("key AKIA...");
        let v = Verdict {
            decision: Decision::Block {
                rule: "r".into(),
                message: "m".into(),
                placeholder: None,
            },
            event: "pre_tool_call",
            matches: Vec::new(),
            exempted: Vec::new(),
        };
        for caps in [HERMES_0_19, HERMES_0_21_5, Capabilities::SAFE] {
            let r = respond(&v, &llm, &caps);
            assert_eq!(r.effect, Effect::Notice);
            let notice = r.json["context"].as_str().unwrap();
            assert!(
                notice.contains("has reached you") && !notice.contains("not sent"),
                "{notice}"
            );
            assert!(r.notes[0].contains("Rotate"), "{:?}", r.notes);
        }
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

//! The decision log: one JSON line per decision, appended with a single
//! `write` on an `O_APPEND` file so concurrent hooks never interleave or tear
//! a line (POSIX appends of one buffer are atomic with respect to each other
//! on local file systems).
//!
//! Argument values never reach the log: each is replaced by its type and
//! length ([`summarize_args`]), so the log cannot leak a secret an argument
//! held. (Running the redaction rules instead would make every hook process
//! load the ~300 secret detectors, which its start-up cannot afford.)

use serde_json::{json, Map, Value};
use std::io::Write;
use std::path::Path;

/// One decision to log.
#[derive(Debug)]
pub struct Record<'a> {
    /// The hook.
    pub event: &'a str,
    /// Tool name, if any.
    pub tool: Option<&'a str>,
    /// Session id, if any.
    pub session_id: Option<&'a str>,
    /// Tool arguments, already redacted or summarised.
    pub args: &'a Value,
    /// Matched rule ids.
    pub rules: Vec<&'a str>,
    /// The decision keyword (`allow`, `block`, …).
    pub decision: &'a str,
    /// The message, if any.
    pub message: Option<&'a str>,
    /// Time spent, microseconds.
    pub latency_us: u128,
    /// Hash of the policy sources.
    pub policy_hash: &'a str,
    /// Host mode.
    pub host: &'a str,
}

/// Keys of `args` with each value's type and length instead of the value.
pub fn summarize_args(args: &Value) -> Value {
    match args {
        Value::Object(m) => {
            let mut out = Map::new();
            for (k, v) in m {
                let (ty, len) = match v {
                    Value::String(s) => ("string", s.chars().count()),
                    Value::Array(a) => ("array", a.len()),
                    Value::Object(o) => ("object", o.len()),
                    Value::Number(_) => ("number", 0),
                    Value::Bool(_) => ("bool", 0),
                    Value::Null => ("null", 0),
                };
                out.insert(k.clone(), json!({"type": ty, "len": len}));
            }
            Value::Object(out)
        }
        Value::Null => Value::Null,
        _ => json!({"type": "non-object"}),
    }
}

/// Seconds since the epoch with microseconds, as RFC 3339 UTC.
fn timestamp() -> String {
    let d = std::time::SystemTime::now()
        .duration_since(std::time::UNIX_EPOCH)
        .unwrap_or_default();
    let secs = d.as_secs();
    let date = crate::check::today_from_secs(secs);
    let t = secs % 86_400;
    format!(
        "{date}T{:02}:{:02}:{:02}.{:06}Z",
        t / 3600,
        (t / 60) % 60,
        t % 60,
        d.subsec_micros()
    )
}

/// Append `rec` to `path` as one line with one `write` call.
pub fn append(path: &Path, rec: &Record) -> std::io::Result<()> {
    let line = json!({
        "time": timestamp(),
        "event": rec.event,
        "tool": rec.tool,
        "session_id": rec.session_id,
        "args": rec.args,
        "rules": rec.rules,
        "decision": rec.decision,
        "message": rec.message,
        "latency_us": rec.latency_us as u64,
        "policy_hash": rec.policy_hash,
        "host": rec.host,
    });
    let mut buf = line.to_string().into_bytes();
    buf.push(b'\n');
    let mut f = std::fs::OpenOptions::new()
        .create(true)
        .append(true)
        .open(path)?;
    f.write_all(&buf)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn args_are_summarised_not_logged() {
        let s = summarize_args(&json!({"command": "export TOKEN=ghp_secret", "n": 2}));
        assert_eq!(s["command"], json!({"type": "string", "len": 23}));
        assert!(!s.to_string().contains("ghp_secret"));
    }

    #[test]
    fn concurrent_appends_never_tear() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("audit.jsonl");
        let args = json!({"command": "x".repeat(3000)});
        std::thread::scope(|s| {
            for _ in 0..8 {
                s.spawn(|| {
                    for _ in 0..50 {
                        let rec = Record {
                            event: "pre_tool_call",
                            tool: Some("terminal"),
                            session_id: None,
                            args: &args,
                            rules: vec!["a.b"],
                            decision: "block",
                            message: Some(&"m".repeat(2000)),
                            latency_us: 1,
                            policy_hash: "h",
                            host: "hermes-0.19",
                        };
                        append(&path, &rec).unwrap();
                    }
                });
            }
        });
        let text = std::fs::read_to_string(&path).unwrap();
        assert_eq!(text.lines().count(), 400);
        for l in text.lines() {
            serde_json::from_str::<Value>(l).unwrap();
        }
    }
}

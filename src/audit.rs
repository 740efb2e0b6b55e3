//! The decision log: one JSON line per decision — fail-closed ones included,
//! with their cause — appended with a single `write` on an `O_APPEND` file so
//! concurrent hooks never interleave or tear a line (POSIX appends of one
//! buffer are atomic with respect to each other on local file systems).
//!
//! Values never reach the log: each argument is replaced by its type and
//! length ([`summarize_args`]), and the logged message is the rule's template
//! rendered with placeholders instead of field values ([`redacted_message`]),
//! so neither can leak a secret an argument held. (Running the redaction
//! rules instead would make every hook process load the ~300 secret
//! detectors, which its start-up cannot afford.)
//!
//! The log is opened without blocking and only if it is a regular file: a
//! FIFO or a device at the path must never hold a hook past its answer.

use crate::check::ir::{Template, TemplatePart};
use crate::event::{Event, Field, PathSeg};
use serde_json::{json, Map, Value};
use std::io::Write;
use std::path::Path;

/// One decision to log.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct Record {
    /// The hook (`None` when the payload named none).
    pub event: Option<String>,
    /// Tool name, if any.
    pub tool: Option<String>,
    /// Session id, if any.
    pub session_id: Option<String>,
    /// Tool arguments, summarised (see [`summarize_args`]).
    pub args: Value,
    /// Matched rule ids.
    pub rules: Vec<String>,
    /// The policy's decision keyword (`allow`, `block`, …; `error` when the
    /// policy could not decide).
    pub decision: String,
    /// What the host was told, as it will act on it (an approve this host
    /// drops went out as a block; see [`crate::host::Effect`]).
    pub sent: String,
    /// The message, with field values replaced by placeholders.
    pub message: Option<String>,
    /// Why the decision failed closed (or open), if it did.
    pub cause: Option<String>,
    /// Time spent, microseconds.
    pub latency_us: u64,
    /// Hash of the policy sources, when they were read.
    pub policy_hash: Option<String>,
    /// The host and version answered (`hermes`, `hermes-agent@0.19.0`).
    pub host: String,
}

/// Keys of `args` with each value's type and length instead of the value.
pub fn summarize_args(args: &Value) -> Value {
    match args {
        Value::Object(m) => {
            let mut out = Map::new();
            for (k, v) in m {
                let (ty, len) = shape(v);
                out.insert(k.clone(), json!({"type": ty, "len": len}));
            }
            Value::Object(out)
        }
        Value::Null => Value::Null,
        _ => json!({"type": "non-object"}),
    }
}

fn shape(v: &Value) -> (&'static str, usize) {
    match v {
        Value::String(s) => ("string", s.chars().count()),
        Value::Array(a) => ("array", a.len()),
        Value::Object(o) => ("object", o.len()),
        Value::Number(_) => ("number", 0),
        Value::Bool(_) => ("bool", 0),
        Value::Null => ("null", 0),
    }
}

/// A message template rendered for the log: literal text as is, each field
/// as `<field: type, N chars>` (never its value), findings as `<findings>`.
pub fn redacted_message(t: &Template, event: &Event) -> String {
    let mut out = String::new();
    for p in &t.parts {
        match p {
            TemplatePart::Lit(s) => out.push_str(s),
            TemplatePart::Findings => out.push_str("<findings>"),
            TemplatePart::Field(f) => {
                out.push('<');
                out.push_str(&f.to_string());
                match field_shape(f, event) {
                    Some(("string", n)) => out.push_str(&format!(": string, {n} chars")),
                    Some(("array" | "object", n)) => out.push_str(&format!(": {n} items")),
                    Some((ty, _)) => {
                        out.push_str(": ");
                        out.push_str(ty);
                    }
                    None => out.push_str(": unset"),
                }
                out.push('>');
            }
        }
    }
    out
}

/// The type and length of a field's value in `event`.
fn field_shape(f: &Field, event: &Event) -> Option<(&'static str, usize)> {
    let text = |s: &Option<String>| s.as_ref().map(|s| ("string", s.chars().count()));
    let walk = |mut v: &Value, path: &[PathSeg]| {
        for seg in path {
            v = match seg {
                PathSeg::Key(k) => v.get(k.as_ref())?,
                PathSeg::Index(i) => v.get(*i)?,
            };
        }
        (!v.is_null()).then(|| shape(v))
    };
    match f {
        Field::Args(p) => walk(&event.args, p),
        Field::Extra(p) => walk(&event.extra, p),
        Field::Tool => text(&event.tool),
        Field::Cwd => text(&event.cwd),
        Field::SessionId => text(&event.session_id),
        Field::Profile => text(&event.profile),
        Field::UserMessage => text(&event.user_message),
        Field::Model => text(&event.model),
        Field::Platform => text(&event.platform),
        Field::SenderId => text(&event.sender_id),
        Field::Result => text(&event.result),
        Field::Command => text(&event.command),
        Field::Output => text(&event.output),
        Field::ResponseText => text(&event.response_text),
        Field::History => Some(("array", event.history.len())),
        _ => None,
    }
}

/// Seconds since the epoch with microseconds, as RFC 3339 UTC.
fn timestamp() -> String {
    crate::date::rfc3339_micros(std::time::SystemTime::now())
}

/// The line for `rec`, newline included.
pub fn line(rec: &Record) -> Vec<u8> {
    let mut o = json!({
        "time": timestamp(),
        "event": rec.event,
        "tool": rec.tool,
        "session_id": rec.session_id,
        "args": rec.args,
        "rules": rec.rules,
        "decision": rec.decision,
        "sent": rec.sent,
        "message": rec.message,
        "latency_us": rec.latency_us,
        "policy_hash": rec.policy_hash,
        "host": rec.host,
    });
    if let Some(c) = &rec.cause {
        o["cause"] = json!(c);
    }
    let mut buf = o.to_string().into_bytes();
    buf.push(b'\n');
    buf
}

/// `O_NONBLOCK` without the `libc` crate (the library stays free of it; a
/// test under the `cli` feature checks the value against `libc`).
#[cfg(any(
    target_os = "macos",
    target_os = "ios",
    target_os = "freebsd",
    target_os = "openbsd",
    target_os = "netbsd",
    target_os = "dragonfly"
))]
const O_NONBLOCK: i32 = 0x0004;
#[cfg(all(
    any(target_os = "linux", target_os = "android"),
    any(
        target_arch = "x86_64",
        target_arch = "x86",
        target_arch = "aarch64",
        target_arch = "arm",
        target_arch = "riscv64",
        target_arch = "powerpc64",
        target_arch = "s390x",
        target_arch = "loongarch64"
    )
))]
const O_NONBLOCK: i32 = 0o4000;
#[cfg(not(any(
    target_os = "macos",
    target_os = "ios",
    target_os = "freebsd",
    target_os = "openbsd",
    target_os = "netbsd",
    target_os = "dragonfly",
    all(
        any(target_os = "linux", target_os = "android"),
        any(
            target_arch = "x86_64",
            target_arch = "x86",
            target_arch = "aarch64",
            target_arch = "arm",
            target_arch = "riscv64",
            target_arch = "powerpc64",
            target_arch = "s390x",
            target_arch = "loongarch64"
        )
    )
)))]
const O_NONBLOCK: i32 = 0;

/// Open the log for appending without ever blocking: `O_NONBLOCK` (a FIFO
/// with no reader fails instead of waiting), and anything but a regular file
/// (a FIFO, a device, a socket) is refused before and after opening.
pub fn open(path: &Path) -> std::io::Result<std::fs::File> {
    let refuse = || {
        std::io::Error::new(
            std::io::ErrorKind::InvalidInput,
            "not a regular file (refused: writing to it could block)",
        )
    };
    match std::fs::metadata(path) {
        Ok(m) if !m.is_file() => return Err(refuse()),
        _ => {}
    }
    let mut opts = std::fs::OpenOptions::new();
    opts.create(true).append(true);
    #[cfg(unix)]
    {
        use std::os::unix::fs::OpenOptionsExt;
        opts.custom_flags(O_NONBLOCK);
    }
    let f = opts.open(path)?;
    if !f.metadata()?.is_file() {
        return Err(refuse());
    }
    Ok(f)
}

/// Append one prepared line (see [`line`]) with one `write` call.
pub fn write_line(f: &mut std::fs::File, line: &[u8]) -> std::io::Result<()> {
    f.write_all(line)
}

/// Append `rec` to `path` as one line with one `write` call.
pub fn append(path: &Path, rec: &Record) -> std::io::Result<()> {
    write_line(&mut open(path)?, &line(rec))
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

    #[cfg(all(unix, feature = "cli"))]
    #[test]
    fn nonblock_flag_matches_libc() {
        assert_eq!(O_NONBLOCK, libc::O_NONBLOCK);
    }

    #[cfg(unix)]
    #[test]
    fn refuses_a_fifo_without_blocking() {
        let dir = tempfile::tempdir().unwrap();
        let fifo = dir.path().join("fifo");
        let ok = std::process::Command::new("mkfifo")
            .arg(&fifo)
            .status()
            .unwrap();
        assert!(ok.success());
        let err = append(&fifo, &Record::default()).unwrap_err();
        assert!(err.to_string().contains("regular file"), "{err}");
        assert!(open(Path::new("/dev/null")).is_err());
    }

    #[test]
    fn messages_are_logged_without_values() {
        let t = Template {
            parts: vec![
                TemplatePart::Lit("Blocked: ".into()),
                TemplatePart::Field(Field::Args(vec![PathSeg::Key("command".into())])),
                TemplatePart::Lit(" (".into()),
                TemplatePart::Findings,
                TemplatePart::Lit(")".into()),
            ],
        };
        let ev = Event::tool_call("terminal", json!({"command": "echo ghp_secret"}));
        let m = redacted_message(&t, &ev);
        assert_eq!(m, "Blocked: <args.command: string, 15 chars> (<findings>)");
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
                            event: Some("pre_tool_call".into()),
                            tool: Some("terminal".into()),
                            session_id: None,
                            args: args.clone(),
                            rules: vec!["a.b".into()],
                            decision: "block".into(),
                            sent: "block".into(),
                            message: Some("m".repeat(2000)),
                            cause: None,
                            latency_us: 1,
                            policy_hash: Some("h".into()),
                            host: "hermes-agent@0.19.0".into(),
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

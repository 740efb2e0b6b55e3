//! Hermes's consent file, `$HERMES_HOME/shell-hooks-allowlist.json`: Hermes
//! runs a shell hook only if the exact `(event, command)` pair is in it (or
//! the user accepts interactively, or `--accept-hooks` / `HERMES_ACCEPT_HOOKS`
//! / `hooks_auto_accept`). Written the way Hermes's `_record_approval` does.

use super::config::{io_err, is_warden_command, write_with_backup, Refusal};
use super::shlex::shlex_split;
use crate::date::iso_utc;
use crate::paths::expand_home;
use serde_json::Value as Json;
use std::fmt::Write as _;
use std::io;
use std::path::Path;
use std::time::SystemTime;

/// The consent file's name, beside config.yaml.
pub const ALLOWLIST: &str = "shell-hooks-allowlist.json";

/// A change to the consent file: its text before (`None`: no file) and after.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Edit {
    /// The old text, if the file existed.
    pub old_text: Option<String>,
    /// The new text.
    pub new_text: String,
}

/// The allowlist as JSON (`{"approvals": []}` when missing).
pub fn read_allowlist(path: &Path) -> Result<Option<Json>, Refusal> {
    match std::fs::read_to_string(path) {
        Ok(t) if t.trim().is_empty() => Ok(None),
        Ok(t) => match serde_json::from_str::<Json>(&t) {
            Ok(v @ Json::Object(_)) => Ok(Some(v)),
            _ => Err(Refusal::Refused(format!(
                "{} is not a JSON object; fix or remove it first (nothing was changed)",
                path.display()
            ))),
        },
        Err(e) if e.kind() == io::ErrorKind::NotFound => Ok(None),
        Err(e) => Err(io_err("read", path, e)),
    }
}

/// Does the allowlist hold this exact `(event, command)`?
pub fn allowlist_entry(data: &Json, event: &str, command: &str) -> Option<Json> {
    data.get("approvals")?
        .as_array()?
        .iter()
        .find(|e| {
            e.get("event").and_then(Json::as_str) == Some(event)
                && e.get("command").and_then(Json::as_str) == Some(command)
        })
        .cloned()
}

/// Does the allowlist at `path` hold this exact `(event, command)`?
pub fn allowlist_has(path: &Path, event: &str, command: &str) -> Result<bool, Refusal> {
    Ok(read_allowlist(path)?.is_some_and(|d| allowlist_entry(&d, event, command).is_some()))
}

/// Consent for each `(event, command)`, as Hermes's `_record_approval` records it;
/// earlier warden entries for those events are replaced. `None`: nothing to change.
pub fn allowlist_add(path: &Path, pairs: &[(&str, &str)]) -> Result<Option<Edit>, Refusal> {
    let old = read_allowlist(path)?;
    let mut data = old
        .clone()
        .unwrap_or_else(|| serde_json::json!({"approvals": []}));
    if !data.get("approvals").is_some_and(Json::is_array) {
        data["approvals"] = Json::Array(Vec::new());
    }
    if pairs
        .iter()
        .all(|(ev, c)| allowlist_entry(&data, ev, c).is_some())
    {
        return Ok(None);
    }
    let list = data["approvals"]
        .as_array_mut()
        .expect("made an array above");
    for (event, command) in pairs {
        let mtime = shlex_split(command)
            .and_then(|t| t.into_iter().next())
            .and_then(|exe| std::fs::metadata(expand_home(Path::new(&exe))).ok())
            .and_then(|m| m.modified().ok())
            .map(|t| Json::String(iso_utc(t)));
        // Earlier warden commands (a previous install) and this one: replaced.
        list.retain(|e| {
            !(e.get("event").and_then(Json::as_str) == Some(event)
                && e.get("command")
                    .and_then(Json::as_str)
                    .is_some_and(|c| c == *command || is_warden_command(c)))
        });
        list.push(serde_json::json!({
            "event": event,
            "command": command,
            "approved_at": iso_utc(SystemTime::now()),
            "script_mtime_at_approval": mtime.unwrap_or(Json::Null),
        }));
    }
    edit(path, old.is_some(), &data).map(Some)
}

/// Remove the consent entries of warden commands on `events`; how many, and the edit.
pub fn allowlist_remove(
    path: &Path,
    events: &[&str],
    commands: &[String],
) -> Result<(usize, Option<Edit>), Refusal> {
    let Some(old) = read_allowlist(path)? else {
        return Ok((0, None));
    };
    let mut data = old;
    let Some(list) = data.get_mut("approvals").and_then(Json::as_array_mut) else {
        return Ok((0, None));
    };
    let before = list.len();
    list.retain(|e| {
        !(e.get("event")
            .and_then(Json::as_str)
            .is_some_and(|ev| events.contains(&ev))
            && e.get("command")
                .and_then(Json::as_str)
                .is_some_and(|c| commands.iter().any(|k| k == c) || is_warden_command(c)))
    });
    let n = before - list.len();
    if n == 0 {
        return Ok((0, None));
    }
    Ok((n, Some(edit(path, true, &data)?)))
}

fn edit(path: &Path, existed: bool, data: &Json) -> Result<Edit, Refusal> {
    let old_text = if existed {
        Some(std::fs::read_to_string(path).map_err(|e| io_err("read", path, e))?)
    } else {
        None
    };
    Ok(Edit {
        old_text,
        new_text: python_json(data),
    })
}

/// Write an edit (a copy of the old file goes to `.bak`).
pub fn write(path: &Path, edit: &Edit) -> Result<(), Refusal> {
    if let Some(dir) = path.parent() {
        std::fs::create_dir_all(dir).map_err(|e| io_err("create", dir, e))?;
    }
    write_with_backup(path, &edit.new_text, edit.old_text.is_some())
}

/// `json.dumps(data, indent=2, sort_keys=True)` (ASCII-escaped, no trailing newline).
pub fn python_json(v: &Json) -> String {
    fn sorted(v: &Json) -> Json {
        match v {
            Json::Object(m) => {
                let mut keys: Vec<&String> = m.keys().collect();
                keys.sort();
                let mut out = serde_json::Map::new();
                for k in keys {
                    out.insert(k.clone(), sorted(&m[k]));
                }
                Json::Object(out)
            }
            Json::Array(a) => Json::Array(a.iter().map(sorted).collect()),
            other => other.clone(),
        }
    }
    let pretty = serde_json::to_string_pretty(&sorted(v)).expect("JSON serialises");
    let mut out = String::with_capacity(pretty.len());
    for c in pretty.chars() {
        if c.is_ascii() {
            out.push(c);
        } else {
            let mut buf = [0u16; 2];
            for u in c.encode_utf16(&mut buf) {
                let _ = write!(out, "\\u{u:04x}");
            }
        }
    }
    out
}

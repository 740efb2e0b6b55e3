//! Editing Hermes's `config.yaml`: warden's hook entries (`hooks.pre_tool_call`
//! and `hooks.pre_llm_call`) added, replaced or removed.
//!
//! The file is edited as text, never re-serialised, so the user's comments,
//! key order and quoting survive. Every edit is checked by parsing the result
//! and comparing it with the original: only our one entry per event may
//! differ, otherwise nothing is written.

use super::shlex::{shell_quote, shlex_split};
use crate::paths::expand_home;
use serde_yaml_ng::Value as Yaml;
use std::fmt::Write as _;
use std::io;
use std::path::{Path, PathBuf};

/// The tools the `pre_tool_call` hook is spawned for. Real tool names of Hermes
/// 0.19.0 (`tools/terminal_tool.py`, `tools/file_tools.py`,
/// `tools/code_execution_tool.py`): the ones that run code or touch files.
pub const DEFAULT_MATCHER: &str = "terminal|write_file|patch|read_file|execute_code";
/// The comment that marks the entries we manage.
pub const MARKER: &str = "# managed by warden";

/// Why nothing was written.
#[derive(Debug)]
pub enum Refusal {
    /// An I/O error (exit 2).
    Io(String),
    /// The files are in a state we will not edit, or the policy is broken (exit 1).
    Refused(String),
}

impl std::fmt::Display for Refusal {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            Refusal::Io(s) | Refusal::Refused(s) => f.write_str(s),
        }
    }
}

pub(crate) fn io_err(what: &str, p: &Path, e: io::Error) -> Refusal {
    Refusal::Io(format!("cannot {what} {}: {e}", p.display()))
}

/// `--hermes-home`, else `$HERMES_HOME`, else `~/.hermes` (as Hermes resolves it).
pub fn hermes_home(flag: Option<&Path>) -> Option<PathBuf> {
    if let Some(p) = flag {
        let p = expand_home(p);
        return Some(std::path::absolute(&p).unwrap_or(p));
    }
    if let Some(h) = std::env::var_os("HERMES_HOME").filter(|v| !v.is_empty()) {
        return Some(expand_home(Path::new(&h)));
    }
    std::env::var_os("HOME")
        .filter(|v| !v.is_empty())
        .map(|h| PathBuf::from(h).join(".hermes"))
}

/// Is this hook command one of ours (`…warden… hook …`)?
pub fn is_warden_command(cmd: &str) -> bool {
    match shlex_split(cmd) {
        Some(t) if t.len() >= 2 => {
            let name = Path::new(&t[0])
                .file_name()
                .map(|n| n.to_string_lossy().into_owned())
                .unwrap_or_default();
            name.contains("warden") && t[1] == "hook"
        }
        Some(_) => false,
        None => cmd.contains("warden") && cmd.contains(" hook"),
    }
}

/// The `command:` string: this binary, `hook`, the policies, the host.
pub fn hook_command(exe: &Path, policies: &[PathBuf], timeout: u64, host: &str) -> String {
    let mut parts = vec![shell_quote(&exe.to_string_lossy()), "hook".to_string()];
    for p in policies {
        parts.push("--policy".into());
        parts.push(shell_quote(&p.to_string_lossy()));
    }
    // the Hermes version the answers are shaped for (see `warden hook --help`)
    parts.push("--host".into());
    parts.push(shell_quote(host));
    // warden's own deadline (default 1000 ms) must end before Hermes kills
    // the hook, or the kill fails open.
    if timeout <= 1 {
        parts.push("--deadline".into());
        parts.push("700".into());
    }
    parts.join(" ")
}

/// Our hook entries in a parsed config: `(index in hooks.<event>, command)`.
pub fn warden_entries(cfg: &Yaml, event: &str) -> Vec<(usize, String)> {
    let Some(list) = cfg
        .get("hooks")
        .and_then(|h| h.get(event))
        .and_then(Yaml::as_sequence)
    else {
        return Vec::new();
    };
    list.iter()
        .enumerate()
        .filter_map(|(i, e)| {
            let c = e.get("command")?.as_str()?;
            is_warden_command(c).then(|| (i, c.trim().to_string()))
        })
        .collect()
}

// ---------------------------------------------------------------------------
// config.yaml as text
// ---------------------------------------------------------------------------

/// The entry we write under `hooks.<event>`.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Entry {
    /// The hook event (`pre_tool_call`, `pre_llm_call`).
    pub event: &'static str,
    /// The tool-name regex (tool events only; Hermes ignores it elsewhere).
    pub matcher: Option<String>,
    /// The hook command line.
    pub command: String,
    /// Hermes's per-call timeout, seconds.
    pub timeout: u64,
    /// `fail_closed: true` (read by newer Hermes on `pre_tool_call` only; it warns elsewhere).
    pub fail_closed: bool,
}

impl Entry {
    fn render(&self, indent: usize, nl: &str) -> String {
        let pad = " ".repeat(indent);
        let q = |s: &str| serde_json::to_string(s).expect("string serialises");
        let mut out = match &self.matcher {
            Some(m) => format!(
                "{pad}- matcher: {}  {MARKER}{nl}{pad}  command: {}{nl}",
                q(m),
                q(&self.command)
            ),
            None => format!("{pad}- command: {}  {MARKER}{nl}", q(&self.command)),
        };
        let _ = write!(out, "{pad}  timeout: {}{nl}", self.timeout);
        if self.fail_closed {
            let _ = write!(out, "{pad}  fail_closed: true{nl}");
        }
        out
    }
}

#[derive(Clone, Copy, PartialEq, Eq, Debug)]
enum Kind {
    Blank,
    Comment,
    Content,
}

struct Line {
    /// The whole line, terminator included.
    raw: String,
    indent: usize,
    kind: Kind,
}

impl Line {
    fn body(&self) -> &str {
        self.raw.trim_end_matches(['\n', '\r'])
    }
    fn rest(&self) -> &str {
        &self.body()[self.indent..]
    }
}

fn split_lines(text: &str) -> Vec<Line> {
    text.split_inclusive('\n')
        .map(|raw| {
            let body = raw.trim_end_matches(['\n', '\r']);
            let indent = body.len() - body.trim_start_matches(' ').len();
            let rest = body[indent..].trim_start();
            let kind = if rest.is_empty() {
                Kind::Blank
            } else if rest.starts_with('#') {
                Kind::Comment
            } else {
                Kind::Content
            };
            Line {
                raw: raw.to_string(),
                indent,
                kind,
            }
        })
        .collect()
}

/// If `rest` is `key:` (plain or quoted), the value text after the colon
/// without its comment, and the comment (with its leading space).
fn key_value<'a>(rest: &'a str, key: &str) -> Option<(&'a str, &'a str)> {
    let after = [key.to_string(), format!("\"{key}\""), format!("'{key}'")]
        .iter()
        .find_map(|k| {
            rest.strip_prefix(k.as_str())
                .map(|r| r.trim_start_matches([' ', '\t']))
        })?
        .strip_prefix(':')?;
    if !(after.is_empty() || after.starts_with([' ', '\t'])) {
        return None;
    }
    let (value, comment) = match after.find(" #").or_else(|| after.find("\t#")) {
        Some(i) => (&after[..i], &after[i..]),
        None => (after, ""),
    };
    Some((value.trim(), comment))
}

/// Where the sequence item lines at `seq_indent` start, within `[from, to)`.
fn item_starts(lines: &[Line], from: usize, to: usize, seq_indent: usize) -> Vec<usize> {
    (from..to)
        .filter(|&i| {
            let l = &lines[i];
            l.kind == Kind::Content && l.indent == seq_indent && is_dash(l.rest())
        })
        .collect()
}

fn is_dash(rest: &str) -> bool {
    rest == "-" || rest.starts_with("- ") || rest.starts_with("-\t")
}

/// Move `end` back over blank lines and comments at indent <= `max_indent`.
fn trim_back(lines: &[Line], start: usize, mut end: usize, max_indent: usize) -> usize {
    while end > start {
        let l = &lines[end - 1];
        match l.kind {
            Kind::Blank => end -= 1,
            Kind::Comment if l.indent <= max_indent => end -= 1,
            _ => break,
        }
    }
    end
}

/// The structure of the `hooks:` / `<event>:` part of a config.
struct Layout {
    nl: String,
    unit: usize,
    /// `hooks:` line and the end of its block (exclusive, trailing blanks trimmed).
    hooks: Option<(usize, usize)>,
    /// The indent of the children of `hooks:`.
    child_indent: Option<usize>,
    /// `<event>:` line and the end of its block.
    ptc: Option<(usize, usize)>,
    /// The indent of the sequence items.
    seq_indent: Option<usize>,
    /// Each item's `[start, end)`.
    items: Vec<(usize, usize)>,
}

const EMPTY_VALUES: [&str; 5] = ["", "~", "null", "{}", "[]"];

/// The text's `hooks.<event>` items must be exactly the parsed list's, or
/// editing by lines could touch the wrong entry.
fn lined_up(lay: &Layout, old_cfg: &Yaml, event: &str) -> Result<(), Refusal> {
    let parsed = old_cfg
        .get("hooks")
        .and_then(|h| h.get(event))
        .and_then(Yaml::as_sequence)
        .map_or(0, Vec::len);
    if lay.items.len() == parsed {
        Ok(())
    } else {
        Err(unsupported(&format!(
            "cannot line up the `{event}` list items"
        )))
    }
}

fn unsupported(what: &str) -> Refusal {
    Refusal::Refused(format!(
        "config.yaml: {what}; warden edits only block-style YAML. Nothing was changed: add the entry by hand (see `warden install --help`)"
    ))
}

fn layout(lines: &mut [Line], text: &str, event: &str) -> Result<Layout, Refusal> {
    let nl = if text.contains("\r\n") { "\r\n" } else { "\n" }.to_string();
    let unit = lines
        .iter()
        .filter(|l| l.kind == Kind::Content && l.indent > 0)
        .map(|l| l.indent)
        .min()
        .unwrap_or(2)
        .clamp(1, 8);
    let mut lay = Layout {
        nl,
        unit,
        hooks: None,
        child_indent: None,
        ptc: None,
        seq_indent: None,
        items: Vec::new(),
    };
    let top: Vec<usize> = (0..lines.len())
        .filter(|&i| lines[i].kind == Kind::Content && lines[i].indent == 0)
        .collect();
    let hooks_at: Vec<usize> = top
        .iter()
        .copied()
        .filter(|&i| key_value(lines[i].rest(), "hooks").is_some())
        .collect();
    let Some(&h) = hooks_at.first() else {
        return Ok(lay);
    };
    if hooks_at.len() > 1 {
        return Err(unsupported("`hooks:` appears more than once"));
    }
    let (value, _) = key_value(lines[h].rest(), "hooks").expect("matched above");
    if !EMPTY_VALUES.contains(&value) {
        return Err(unsupported(
            "`hooks:` is written in flow style or has an anchor/tag",
        ));
    }
    let next_top = top.iter().copied().find(|&i| i > h).unwrap_or(lines.len());
    let h_end = trim_back(lines, h + 1, next_top, 0);
    lay.hooks = Some((h, h_end));
    let Some(ci) = (h + 1..h_end)
        .filter(|&i| lines[i].kind == Kind::Content)
        .map(|i| lines[i].indent)
        .min()
    else {
        return Ok(lay);
    };
    lay.child_indent = Some(ci);
    let ptcs: Vec<usize> = (h + 1..h_end)
        .filter(|&i| {
            lines[i].kind == Kind::Content
                && lines[i].indent == ci
                && key_value(lines[i].rest(), event).is_some()
        })
        .collect();
    let Some(&p) = ptcs.first() else {
        return Ok(lay);
    };
    if ptcs.len() > 1 {
        return Err(unsupported(&format!(
            "`{event}:` appears more than once under `hooks:`"
        )));
    }
    let (value, _) = key_value(lines[p].rest(), event).expect("matched above");
    if !EMPTY_VALUES.contains(&value) {
        return Err(unsupported(&format!(
            "`hooks.{event}` is written in flow style"
        )));
    }
    let p_next = (p + 1..h_end)
        .find(|&i| {
            let l = &lines[i];
            l.kind == Kind::Content && (l.indent < ci || (l.indent == ci && !is_dash(l.rest())))
        })
        .unwrap_or(h_end);
    let p_end = trim_back(lines, p + 1, p_next, ci);
    lay.ptc = Some((p, p_end));
    let Some(si) = (p + 1..p_end)
        .find(|&i| lines[i].kind == Kind::Content)
        .map(|i| lines[i].indent)
    else {
        return Ok(lay);
    };
    lay.seq_indent = Some(si);
    let starts = item_starts(lines, p + 1, p_end, si);
    if starts.first()
        != (p + 1..p_end)
            .find(|&i| lines[i].kind == Kind::Content)
            .as_ref()
    {
        return Err(unsupported(&format!("`hooks.{event}` is not a list")));
    }
    for (k, &s) in starts.iter().enumerate() {
        let next = starts.get(k + 1).copied().unwrap_or(p_end);
        lay.items.push((s, trim_back(lines, s + 1, next, si)));
    }
    Ok(lay)
}

pub(crate) fn parse_yaml(text: &str, what: &str) -> Result<Yaml, Refusal> {
    let v: Yaml = serde_yaml_ng::from_str(text).map_err(|e| {
        Refusal::Refused(format!(
            "{what} is not valid YAML ({e}); nothing was changed"
        ))
    })?;
    match v {
        Yaml::Null | Yaml::Mapping(_) => Ok(v),
        _ => Err(Refusal::Refused(format!(
            "{what} is not a YAML mapping; nothing was changed"
        ))),
    }
}

/// Rewrite `key: {}` / `key: ~` to `key:` (keeping a trailing comment).
fn clear_inline_value(line: &mut Line, key: &str, nl: &str) {
    let (value, comment) = key_value(line.rest(), key).expect("key line");
    if value.is_empty() {
        return;
    }
    let comment = comment.to_string();
    let head = &line.body()[..line.indent];
    let name_end = line.rest().find(':').expect("key line has a colon");
    let name = line.rest()[..name_end].trim_end().to_string();
    line.raw = format!("{head}{name}:{comment}{nl}");
}

fn join(lines: &[Line]) -> String {
    lines.iter().map(|l| l.raw.as_str()).collect()
}

/// The config text with our entry added or replaced.
pub fn install_text(old: &str, entry: &Entry) -> Result<String, Refusal> {
    let event = entry.event;
    let old_cfg = parse_yaml(old, "config.yaml")?;
    let ours = warden_entries(&old_cfg, event);
    let mut lines = split_lines(old);
    let lay = layout(&mut lines, old, event)?;
    let nl = lay.nl.clone();
    let unit = lay.unit;
    let new = match (lay.hooks, lay.ptc) {
        (None, _) => {
            let mut t = old.to_string();
            if !t.is_empty() && !t.ends_with('\n') {
                t.push_str(&nl);
            }
            if !t.trim().is_empty() && !t.ends_with(&format!("{nl}{nl}")) {
                t.push_str(&nl);
            }
            let _ = write!(
                t,
                "hooks:{nl}{}{event}:{nl}{}",
                " ".repeat(unit),
                entry.render(2 * unit, &nl)
            );
            t
        }
        (Some((h, h_end)), None) => {
            clear_inline_value(&mut lines[h], "hooks", &nl);
            let ci = lay.child_indent.unwrap_or(unit);
            let block = format!(
                "{}{event}:{nl}{}",
                " ".repeat(ci),
                entry.render(ci + unit, &nl)
            );
            ensure_newline(&mut lines, h_end);
            let mut out = join(&lines[..h_end]);
            out.push_str(&block);
            out.push_str(&join(&lines[h_end..]));
            out
        }
        (Some(_), Some((p, p_end))) => {
            clear_inline_value(&mut lines[p], event, &nl);
            let ci = lay.child_indent.expect("the event key has an indent");
            let si = lay.seq_indent.unwrap_or(ci + unit);
            lined_up(&lay, &old_cfg, event)?;
            let rendered = entry.render(si, &nl);
            if let Some(&(first, _)) = ours.first() {
                // Replace our first entry in place, drop any others.
                let mut out = String::new();
                let mut pos = 0;
                for (k, &(idx, _)) in ours.iter().enumerate() {
                    let (s, e) = lay.items[idx];
                    ensure_newline(&mut lines, e);
                    out.push_str(&join(&lines[pos..s]));
                    if k == 0 && idx == first {
                        out.push_str(&rendered);
                    }
                    pos = e;
                }
                out.push_str(&join(&lines[pos..]));
                out
            } else {
                ensure_newline(&mut lines, p_end);
                let mut out = join(&lines[..p_end]);
                out.push_str(&rendered);
                out.push_str(&join(&lines[p_end..]));
                out
            }
        }
    };
    validate(&old_cfg, &new, event, Some(entry))?;
    Ok(new)
}

/// Make sure the line before `at` ends with a newline.
fn ensure_newline(lines: &mut [Line], at: usize) {
    if at > 0 {
        let l = &mut lines[at - 1];
        if !l.raw.ends_with('\n') {
            l.raw.push('\n');
        }
    }
}

/// The config text without our entries, and their commands.
pub fn uninstall_text(old: &str, event: &str) -> Result<(String, Vec<String>), Refusal> {
    let old_cfg = parse_yaml(old, "config.yaml")?;
    let ours = warden_entries(&old_cfg, event);
    if ours.is_empty() {
        return Ok((old.to_string(), Vec::new()));
    }
    let mut lines = split_lines(old);
    let lay = layout(&mut lines, old, event)?;
    let (Some((h, h_end)), Some((p, p_end))) = (lay.hooks, lay.ptc) else {
        return Err(unsupported(&format!(
            "cannot find the `hooks.{event}` list"
        )));
    };
    lined_up(&lay, &old_cfg, event)?;
    let mut drop = vec![false; lines.len()];
    for &(idx, _) in &ours {
        let (s, e) = lay.items[idx];
        drop[s..e].iter_mut().for_each(|d| *d = true);
    }
    let left = |from: usize, to: usize, drop: &[bool]| {
        (from..to).any(|i| !drop[i] && lines[i].kind != Kind::Blank)
    };
    if !left(p + 1, p_end, &drop) {
        // The list is now empty: drop the key (Hermes warns about a null list).
        drop[p..p_end].iter_mut().for_each(|d| *d = true);
        if !left(h + 1, h_end, &drop) {
            drop[h..h_end].iter_mut().for_each(|d| *d = true);
            // And the blank line install put before a `hooks:` it appended.
            let rest_empty = (h_end..lines.len()).all(|i| lines[i].kind == Kind::Blank);
            if rest_empty && h > 0 && lines[h - 1].kind == Kind::Blank {
                drop[h - 1] = true;
            }
        }
    }
    let new: String = lines
        .iter()
        .zip(&drop)
        .filter(|(_, d)| !**d)
        .map(|(l, _)| l.raw.as_str())
        .collect();
    validate(&old_cfg, &new, event, None)?;
    Ok((new, ours.into_iter().map(|(_, c)| c).collect()))
}

/// The edit changed our entry and nothing else.
fn validate(old: &Yaml, new_text: &str, event: &str, entry: Option<&Entry>) -> Result<(), Refusal> {
    let fail = |why: &str| {
        Refusal::Refused(format!(
            "internal check failed: the edited config.yaml {why}; nothing was changed. Please report this, and add the entry by hand."
        ))
    };
    let new = parse_yaml(new_text, "the edited config.yaml").map_err(|_| fail("does not parse"))?;
    let empty = serde_yaml_ng::Mapping::new();
    let om = old.as_mapping().unwrap_or(&empty);
    let nm = new.as_mapping().unwrap_or(&empty);
    let hooks_key = Yaml::String("hooks".into());
    let others = |m: &serde_yaml_ng::Mapping| {
        m.iter()
            .filter(|(k, _)| **k != hooks_key)
            .map(|(k, v)| (k.clone(), v.clone()))
            .collect::<Vec<_>>()
    };
    if others(om) != others(nm) {
        return Err(fail("would change other top-level keys"));
    }
    let sub = |m: &serde_yaml_ng::Mapping| -> (Vec<(Yaml, Yaml)>, Vec<Yaml>) {
        let h = m.get(&hooks_key).and_then(Yaml::as_mapping);
        let ev = Yaml::String(event.into());
        let keys = h
            .map(|h| {
                h.iter()
                    .filter(|(k, _)| **k != ev)
                    .map(|(k, v)| (k.clone(), v.clone()))
                    .collect()
            })
            .unwrap_or_default();
        let list = h
            .and_then(|h| h.get(&ev))
            .and_then(Yaml::as_sequence)
            .cloned()
            .unwrap_or_default();
        (keys, list)
    };
    let (ok, ol) = sub(om);
    let (nk, nl) = sub(nm);
    if ok != nk {
        return Err(fail("would change other hooks"));
    }
    let not_ours = |l: &[Yaml]| -> Vec<Yaml> {
        l.iter()
            .filter(|e| {
                !e.get("command")
                    .and_then(Yaml::as_str)
                    .is_some_and(is_warden_command)
            })
            .cloned()
            .collect()
    };
    if not_ours(&ol) != not_ours(&nl) {
        return Err(fail(&format!("would change other {event} entries")));
    }
    let mine: Vec<&Yaml> = nl
        .iter()
        .filter(|e| {
            e.get("command")
                .and_then(Yaml::as_str)
                .is_some_and(is_warden_command)
        })
        .collect();
    match entry {
        None if !mine.is_empty() => Err(fail("still has a warden entry")),
        None => Ok(()),
        Some(want) => {
            let [e] = mine.as_slice() else {
                return Err(fail("does not have exactly one warden entry"));
            };
            let ok = e.get("command").and_then(Yaml::as_str) == Some(want.command.as_str())
                && e.get("matcher").and_then(Yaml::as_str) == want.matcher.as_deref()
                && e.get("timeout").and_then(Yaml::as_u64) == Some(want.timeout)
                && e.get("fail_closed").and_then(Yaml::as_bool) == want.fail_closed.then_some(true);
            if ok {
                Ok(())
            } else {
                Err(fail("does not hold the intended entry"))
            }
        }
    }
}

// ---------------------------------------------------------------------------
// Files
// ---------------------------------------------------------------------------

/// Write `text` to `path` atomically, copying the old file to `path.bak` first.
pub fn write_with_backup(path: &Path, text: &str, backup: bool) -> Result<(), Refusal> {
    // Edit the target of a symlinked config, not the link.
    let target = match std::fs::symlink_metadata(path) {
        Ok(m) if m.file_type().is_symlink() => {
            std::fs::canonicalize(path).map_err(|e| io_err("resolve", path, e))?
        }
        _ => path.to_path_buf(),
    };
    if backup {
        let bak = bak_path(path);
        std::fs::copy(&target, &bak).map_err(|e| io_err("write", &bak, e))?;
    }
    write_atomic(&target, text.as_bytes())
}

fn bak_path(path: &Path) -> PathBuf {
    let mut s = path.as_os_str().to_os_string();
    s.push(".bak");
    PathBuf::from(s)
}

fn write_atomic(path: &Path, data: &[u8]) -> Result<(), Refusal> {
    use std::io::Write;
    let dir = path.parent().unwrap_or(Path::new("."));
    let name = path
        .file_name()
        .map(|n| n.to_string_lossy().into_owned())
        .unwrap_or_default();
    let tmp = dir.join(format!(".{name}.warden-{}.tmp", std::process::id()));
    let result = (|| -> io::Result<()> {
        let mut f = std::fs::File::create(&tmp)?;
        if let Ok(m) = std::fs::metadata(path) {
            f.set_permissions(m.permissions())?;
        }
        f.write_all(data)?;
        f.sync_all()?;
        std::fs::rename(&tmp, path)
    })();
    result.map_err(|e| {
        let _ = std::fs::remove_file(&tmp);
        io_err("write", path, e)
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    fn entry() -> Entry {
        Entry {
            event: "pre_tool_call",
            matcher: Some(DEFAULT_MATCHER.into()),
            command: "/opt/bin/warden hook --policy /p".into(),
            timeout: 5,
            fail_closed: true,
        }
    }

    fn llm_entry() -> Entry {
        Entry {
            event: "pre_llm_call",
            matcher: None,
            command: "/opt/bin/warden hook --policy /p".into(),
            timeout: 5,
            fail_closed: false,
        }
    }

    /// Both events installed one after the other come out in reverse order byte for byte.
    #[test]
    fn both_events_install_and_uninstall() {
        for old in [
            "",
            "model: x\n",
            "hooks:\n  post_tool_call:\n    - command: \"log.sh\"\n",
        ] {
            let one = install_text(old, &entry()).unwrap();
            let two = install_text(&one, &llm_entry()).unwrap();
            assert!(two.contains("  pre_llm_call:\n    - command: \"/opt/bin/warden hook --policy /p\"  # managed by warden\n      timeout: 5\n"), "{two}");
            assert_eq!(install_text(&two, &llm_entry()).unwrap(), two);
            assert_eq!(install_text(&two, &entry()).unwrap(), two);
            let (back, removed) = uninstall_text(&two, "pre_llm_call").unwrap();
            assert_eq!(back, one);
            assert_eq!(removed, vec![llm_entry().command]);
            assert_eq!(uninstall_text(&back, "pre_tool_call").unwrap().0, old);
        }
    }

    #[test]
    fn is_ours() {
        assert!(is_warden_command("/x/warden hook --policy p"));
        assert!(is_warden_command("~/.local/bin/warden hook"));
        assert!(!is_warden_command("/x/warden eval"));
        assert!(!is_warden_command("python3 hook.py"));
    }

    #[test]
    fn install_shapes_and_uninstall_restores() {
        let cases = [
            "",
            "# just a comment\n",
            "model: x\n",
            "model: x",
            "hooks:\n  post_tool_call:\n    - command: \"log.sh\"\n",
            "hooks: {}  # none yet\nother: 1\n",
            "hooks:\n  pre_tool_call:\n  - matcher: terminal\n    command: other.sh\n  # trailing\nx: 1\n",
            "hooks:\n    pre_tool_call: []\n",
            "a: 1\r\nhooks:\r\n  pre_tool_call:\r\n    - command: other.sh\r\n",
        ];
        for old in cases {
            let new = install_text(old, &entry()).unwrap_or_else(|e| panic!("{old:?}: {e}"));
            assert!(new.contains(MARKER), "{new}");
            assert_eq!(
                install_text(&new, &entry()).unwrap(),
                new,
                "idempotent for {old:?}"
            );
            let (back, removed) = uninstall_text(&new, "pre_tool_call").unwrap();
            assert_eq!(removed, vec![entry().command]);
            if !old.contains("{}") && !old.contains("[]") && old.ends_with('\n') || old.is_empty() {
                assert_eq!(back, old, "uninstall restores {old:?}");
            }
            assert_eq!(uninstall_text(&back, "pre_tool_call").unwrap().0, back);
        }
    }

    #[test]
    fn replaces_our_old_entry_in_place() {
        let old = "hooks:\n  pre_tool_call:\n    - command: a.sh\n    - matcher: terminal\n      command: /old/warden hook\n    - command: b.sh\n";
        let new = install_text(old, &entry()).unwrap();
        let a = new.find("a.sh").unwrap();
        let w = new.find("/opt/bin/warden").unwrap();
        let b = new.find("b.sh").unwrap();
        assert!(a < w && w < b, "{new}");
        assert!(!new.contains("/old/warden"));
    }

    #[test]
    fn refuses_flow_style_and_broken_yaml() {
        assert!(install_text("hooks: {pre_tool_call: [{command: x}]}\n", &entry()).is_err());
        assert!(install_text("a: [\n", &entry()).is_err());
        assert!(install_text("- a\n- b\n", &entry()).is_err());
    }
}

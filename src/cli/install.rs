//! `warden install hermes`: register warden as a Hermes `pre_tool_call`
//! shell hook, and `warden install hermes --remove` to take it out again.
//!
//! `config.yaml` is edited as text, never re-serialised, so the user's
//! comments, key order and quoting survive. Every edit is checked by parsing
//! the result and comparing it with the original: only our one entry may
//! differ, otherwise nothing is written.

#[path = "install_plugin.rs"]
pub(crate) mod plugin;

use super::diff::unified_diff;
use serde_json::Value as Json;
use serde_yaml_ng::Value as Yaml;
use std::fmt::Write as _;
use std::io;
use std::path::{Path, PathBuf};
use std::time::SystemTime;

/// The tools the hook is spawned for. Real tool names of Hermes 0.19.0
/// (`tools/terminal_tool.py`, `tools/file_tools.py`,
/// `tools/code_execution_tool.py`): the ones that run code or touch files.
pub(crate) const DEFAULT_MATCHER: &str = "terminal|write_file|patch|read_file|execute_code";
/// The hook event warden is installed on.
pub(crate) const EVENT: &str = "pre_tool_call";
/// The comment that marks the entry we manage.
pub(crate) const MARKER: &str = "# managed by warden";
/// The consent file Hermes keeps beside config.yaml.
pub(crate) const ALLOWLIST: &str = "shell-hooks-allowlist.json";

pub(crate) const AFTER_HELP: &str = "\
Adds one `pre_tool_call` entry to $HERMES_HOME/config.yaml (default ~/.hermes):
  hooks:
    pre_tool_call:
      - matcher: \"terminal|write_file|patch|read_file|execute_code\"  # managed by warden
        command: \"/abs/path/to/warden hook --policy /abs/policies\"
        timeout: 5
        fail_closed: true
The file is edited as text: comments and every other key are kept. A copy of the
old file is written to config.yaml.bak and the change is shown as a unified diff.
Running it again changes nothing. --remove takes the entry (and its consent) out.

Consent: Hermes runs a shell hook only if the exact (event, command) pair is in
$HERMES_HOME/shell-hooks-allowlist.json. --accept records it (that is your
decision to make); otherwise start Hermes once with `hermes --accept-hooks`,
or set HERMES_ACCEPT_HOOKS=1. A hook without consent does NOT run in a
non-interactive Hermes (gateway, cron, CI): no protection at all.

Examples:
  warden install hermes --dry-run
  warden install hermes --policy ~/.hermes/policies --accept
  warden install hermes --hermes-home /srv/hermes --matcher 'terminal|execute_code' --timeout 10
  warden install hermes --remove
  warden doctor";

#[derive(clap::ValueEnum, Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum Target {
    /// Hermes Agent (shell hooks in $HERMES_HOME/config.yaml).
    Hermes,
}

#[derive(clap::Args)]
pub(crate) struct Args {
    /// The agent to install into.
    #[arg(value_enum)]
    target: Target,
    /// Hermes home directory. Default: $HERMES_HOME, else ~/.hermes.
    #[arg(long, value_name = "DIR")]
    hermes_home: Option<PathBuf>,
    /// Tools the hook runs for (Python re.fullmatch on the tool name).
    #[arg(long, value_name = "REGEX", default_value = DEFAULT_MATCHER)]
    matcher: String,
    /// Policy file or directory the hook loads (repeatable; stored as an
    /// absolute path). Default: the packs shipped inside the binary.
    #[arg(long = "policy", short = 'p', value_name = "PATH")]
    policy: Vec<PathBuf>,
    /// Hermes's per-call timeout for the hook, in seconds (1-300).
    #[arg(long, value_name = "SECS", default_value_t = 5,
          value_parser = clap::value_parser!(u64).range(1..=300))]
    timeout: u64,
    /// Also record consent in shell-hooks-allowlist.json, so Hermes runs the
    /// hook without asking (needed for gateway, cron and CI runs).
    #[arg(long)]
    accept: bool,
    /// Show the changes; write nothing.
    #[arg(long)]
    dry_run: bool,
    /// Install the Python plugin instead of the shell hook (enforces block, approve, modify,
    /// redaction and turn blocks on Hermes 0.19.0); with --remove, remove the plugin.
    #[arg(long)]
    plugin: bool,
    /// Uninstall: remove warden's entry and its consent, keep everything else.
    #[arg(long, conflicts_with_all = ["matcher", "policy", "timeout", "accept"])]
    remove: bool,
}

pub(crate) fn run(a: Args) -> i32 {
    match a.target {
        Target::Hermes => match run_hermes(&a) {
            Ok(code) => code,
            Err(e) => {
                eprintln!("warden install: {e}");
                e.code()
            }
        },
    }
}

/// Why nothing was written.
#[derive(Debug)]
pub(crate) enum Refusal {
    /// An I/O error (exit 2).
    Io(String),
    /// The files are in a state we will not edit, or the policy is broken (exit 1).
    Refused(String),
}

impl Refusal {
    fn code(&self) -> i32 {
        match self {
            Refusal::Io(_) => super::EXIT_USAGE,
            Refusal::Refused(_) => super::EXIT_POLICY,
        }
    }
}

impl std::fmt::Display for Refusal {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            Refusal::Io(s) | Refusal::Refused(s) => f.write_str(s),
        }
    }
}

fn io_err(what: &str, p: &Path, e: io::Error) -> Refusal {
    Refusal::Io(format!("cannot {what} {}: {e}", p.display()))
}

fn run_hermes(a: &Args) -> Result<i32, Refusal> {
    if a.plugin {
        return plugin::run(a);
    }
    let home = hermes_home(a.hermes_home.as_deref()).ok_or_else(|| {
        Refusal::Io(
            "cannot find the Hermes home: set $HERMES_HOME or $HOME, or pass --hermes-home".into(),
        )
    })?;
    let config_path = home.join("config.yaml");
    let allow_path = home.join(ALLOWLIST);
    let old = match std::fs::read_to_string(&config_path) {
        Ok(t) => Some(t),
        Err(e) if e.kind() == io::ErrorKind::NotFound => None,
        Err(e) => return Err(io_err("read", &config_path, e)),
    };
    let old_text = old.clone().unwrap_or_default();
    let tag = if a.dry_run {
        " (dry run: nothing written)"
    } else {
        ""
    };

    if a.remove {
        let (new_text, removed) = match &old {
            Some(t) => uninstall_text(t)?,
            None => (String::new(), Vec::new()),
        };
        if old.is_none() || new_text == old_text {
            println!(
                "{}: no warden hook to remove; nothing to change.",
                config_path.display()
            );
        } else {
            print!(
                "{}",
                unified_diff(&old_text, &new_text, "config.yaml", "config.yaml")
            );
            if !a.dry_run {
                write_with_backup(&config_path, &new_text, true)?;
            }
            println!("{}: removed the warden hook{tag}.", config_path.display());
        }
        let mut commands = removed;
        commands.retain(|c| !c.is_empty());
        match allowlist_remove(&allow_path, &commands, a.dry_run)? {
            0 => println!(
                "{}: no warden consent entry; nothing to change.",
                allow_path.display()
            ),
            n => println!(
                "{}: removed {n} warden consent entr{}{tag}.",
                allow_path.display(),
                if n == 1 { "y" } else { "ies" }
            ),
        }
        return Ok(super::EXIT_OK);
    }

    let policies = absolute_policies(&a.policy)?;
    check_policy(&policies)?;
    if policies.is_empty() {
        if let Some(v) = std::env::var_os("WARDEN_POLICY").filter(|v| !v.is_empty()) {
            eprintln!(
                "warden install: note: WARDEN_POLICY={} is set here; the hook uses it only if Hermes runs with it too. Pass --policy to pin the policy in the command.",
                v.to_string_lossy()
            );
        } else {
            println!("Policy: the packs shipped inside warden (pass --policy to use your own).");
        }
    }
    if regex::Regex::new(&format!("^(?:{})$", a.matcher)).is_err() {
        return Err(Refusal::Refused(format!(
            "--matcher {:?} is not a valid regular expression (Hermes would match it as a literal string)",
            a.matcher
        )));
    }
    let exe = std::env::current_exe()
        .map_err(|e| Refusal::Io(format!("cannot find the path of this warden binary: {e}")))?;
    let entry = Entry {
        matcher: a.matcher.clone(),
        command: hook_command(&exe, &policies, a.timeout),
        timeout: a.timeout,
    };
    let new_text = install_text(&old_text, &entry)?;
    if old.is_some() && new_text == old_text {
        println!(
            "{}: warden hook already installed; nothing to change.",
            config_path.display()
        );
    } else {
        let from = if old.is_some() {
            "config.yaml"
        } else {
            "/dev/null"
        };
        print!(
            "{}",
            unified_diff(&old_text, &new_text, from, "config.yaml")
        );
        if !a.dry_run {
            std::fs::create_dir_all(&home).map_err(|e| io_err("create", &home, e))?;
            write_with_backup(&config_path, &new_text, old.is_some())?;
        }
        let verb = if old.is_some() { "updated" } else { "created" };
        println!(
            "{}: {verb}{tag}. Hook command: {}",
            config_path.display(),
            entry.command
        );
    }

    let approved = allowlist_has(&allow_path, EVENT, &entry.command)?;
    if a.accept {
        if approved {
            println!(
                "{}: consent already recorded; nothing to change.",
                allow_path.display()
            );
        } else {
            allowlist_add(&allow_path, &entry.command, a.dry_run)?;
            println!(
                "{}: consent recorded for this exact command{tag}.",
                allow_path.display()
            );
        }
    } else if approved {
        println!("{}: consent already recorded.", allow_path.display());
    } else {
        println!(
            "\nConsent needed: Hermes runs a shell hook only once you approve this exact command.\n\
             Do one of:\n  \
             warden install hermes{} --accept   (records it now)\n  \
             hermes --accept-hooks                  (records it on the next start)\n  \
             HERMES_ACCEPT_HOOKS=1                  (in Hermes's environment)\n\
             An interactive Hermes asks once. A non-interactive Hermes (gateway, cron, CI) silently\n\
             SKIPS an unconsented hook: warden would not run and nothing would be checked.",
            rerun_hint(a)
        );
    }
    if !a.dry_run {
        println!("Check it with: warden doctor{}", home_hint(a));
    }
    Ok(super::EXIT_OK)
}

fn home_hint(a: &Args) -> String {
    match &a.hermes_home {
        Some(h) => format!(" --hermes-home {}", shell_quote(&h.to_string_lossy())),
        None => String::new(),
    }
}

fn rerun_hint(a: &Args) -> String {
    let mut s = home_hint(a);
    if a.matcher != DEFAULT_MATCHER {
        let _ = write!(s, " --matcher {}", shell_quote(&a.matcher));
    }
    for p in &a.policy {
        let _ = write!(s, " --policy {}", shell_quote(&p.to_string_lossy()));
    }
    if a.timeout != 5 {
        let _ = write!(s, " --timeout {}", a.timeout);
    }
    s
}

// ---------------------------------------------------------------------------
// Shared with `warden doctor`
// ---------------------------------------------------------------------------

/// `--hermes-home`, else `$HERMES_HOME`, else `~/.hermes` (as Hermes resolves it).
pub(crate) fn hermes_home(flag: Option<&Path>) -> Option<PathBuf> {
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

/// `~`, `~/x`, `$HOME/x` → absolute. Hermes expands only a leading `~` of
/// the whole hook command line, so `warden hook --policy ~/.hermes/policies`
/// receives the `~` as is; the hook and the installer expand it the same way.
pub(crate) fn expand_home(p: &Path) -> PathBuf {
    let s = p.to_string_lossy();
    let home = std::env::var("HOME").unwrap_or_default();
    for prefix in ["~", "$HOME", "${HOME}"] {
        if let Some(rest) = s.strip_prefix(prefix) {
            if !home.is_empty() && (rest.is_empty() || rest.starts_with('/')) {
                return PathBuf::from(format!("{home}{rest}"));
            }
        }
    }
    p.to_path_buf()
}

/// Is this hook command one of ours (`…warden… hook …`)?
pub(crate) fn is_warden_command(cmd: &str) -> bool {
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

/// Python's `shlex.split(s)` (POSIX mode, no comments): what Hermes does to
/// the command. `None` on an unterminated quote or a trailing backslash.
pub(crate) fn shlex_split(s: &str) -> Option<Vec<String>> {
    let mut out = Vec::new();
    let mut cur = String::new();
    let mut in_token = false;
    let mut it = s.chars().peekable();
    while let Some(c) = it.next() {
        match c {
            ' ' | '\t' | '\n' | '\r' => {
                if in_token {
                    out.push(std::mem::take(&mut cur));
                    in_token = false;
                }
            }
            '\'' => {
                in_token = true;
                loop {
                    match it.next()? {
                        '\'' => break,
                        ch => cur.push(ch),
                    }
                }
            }
            '"' => {
                in_token = true;
                loop {
                    match it.next()? {
                        '"' => break,
                        '\\' => match it.peek() {
                            Some(&n) if n == '"' || n == '\\' => {
                                cur.push(n);
                                it.next();
                            }
                            Some(_) => cur.push('\\'),
                            None => return None,
                        },
                        ch => cur.push(ch),
                    }
                }
            }
            '\\' => {
                in_token = true;
                cur.push(it.next()?);
            }
            ch => {
                in_token = true;
                cur.push(ch);
            }
        }
    }
    if in_token {
        out.push(cur);
    }
    Some(out)
}

/// Python's `shlex.quote`.
pub(crate) fn shell_quote(s: &str) -> String {
    let safe = |c: char| c.is_ascii_alphanumeric() || "@%+=:,./-_".contains(c);
    if !s.is_empty() && s.chars().all(safe) {
        s.to_string()
    } else {
        format!("'{}'", s.replace('\'', "'\"'\"'"))
    }
}

/// The `command:` string: this binary, `hook`, the policies.
fn hook_command(exe: &Path, policies: &[PathBuf], timeout: u64) -> String {
    let mut parts = vec![shell_quote(&exe.to_string_lossy()), "hook".to_string()];
    for p in policies {
        parts.push("--policy".into());
        parts.push(shell_quote(&p.to_string_lossy()));
    }
    // warden's own deadline (default 1000 ms) must end before Hermes kills
    // the hook, or the kill fails open.
    if timeout <= 1 {
        parts.push("--deadline".into());
        parts.push("700".into());
    }
    parts.join(" ")
}

fn absolute_policies(paths: &[PathBuf]) -> Result<Vec<PathBuf>, Refusal> {
    let cwd = std::env::current_dir()
        .map_err(|e| Refusal::Io(format!("cannot read the current directory: {e}")))?;
    let home = std::env::var("HOME").ok().filter(|h| !h.is_empty());
    paths
        .iter()
        .map(|p| {
            let s = p.to_string_lossy();
            warden::paths::normalize(&s, cwd.to_str(), home.as_deref())
                .map(PathBuf::from)
                .ok_or_else(|| Refusal::Io(format!("cannot make {} absolute", p.display())))
        })
        .collect()
}

/// The policy the hook will load must load and compile, or every tool call
/// would be blocked (fail-closed).
fn check_policy(paths: &[PathBuf]) -> Result<(), Refusal> {
    let loaded = if paths.is_empty() {
        warden::Policy::builtin()
    } else {
        warden::Policy::load(paths)
    };
    let what = if paths.is_empty() {
        "the shipped packs".to_string()
    } else {
        paths
            .iter()
            .map(|p| p.display().to_string())
            .collect::<Vec<_>>()
            .join(", ")
    };
    match loaded {
        Ok(p) => p.compile().map(|_| ()).map_err(|e| {
            Refusal::Refused(format!(
                "policy {what} does not compile: {e}; nothing installed"
            ))
        }),
        Err(e) => Err(Refusal::Refused(format!(
            "policy {what} does not load: {}; nothing installed (the hook would block every call)",
            describe_load_error(&e)
        ))),
    }
}

/// A load error with its first diagnostics, one per line.
pub(crate) fn describe_load_error(e: &warden::LoadError) -> String {
    match e {
        warden::LoadError::Invalid { diagnostics } => {
            let errs: Vec<_> = diagnostics
                .iter()
                .filter(|d| d.severity == warden::Severity::Error)
                .collect();
            let mut s = format!("{} error(s)", errs.len());
            for d in errs.iter().take(3) {
                let _ = write!(s, "\n  {d}");
            }
            if errs.len() > 3 {
                let _ = write!(s, "\n  … and {} more", errs.len() - 3);
            }
            s
        }
        other => other.to_string(),
    }
}

/// Our hook entries in a parsed config: `(index in pre_tool_call, command)`.
pub(crate) fn warden_entries(cfg: &Yaml) -> Vec<(usize, String)> {
    let Some(list) = cfg
        .get("hooks")
        .and_then(|h| h.get(EVENT))
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

/// The entry we write.
struct Entry {
    matcher: String,
    command: String,
    timeout: u64,
}

impl Entry {
    fn render(&self, indent: usize, nl: &str) -> String {
        let pad = " ".repeat(indent);
        let q = |s: &str| serde_json::to_string(s).expect("string serialises");
        format!(
            "{pad}- matcher: {}  {MARKER}{nl}{pad}  command: {}{nl}{pad}  timeout: {}{nl}{pad}  fail_closed: true{nl}",
            q(&self.matcher),
            q(&self.command),
            self.timeout
        )
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

/// The structure of the `hooks:` / `pre_tool_call:` part of a config.
struct Layout {
    nl: String,
    unit: usize,
    /// `hooks:` line and the end of its block (exclusive, trailing blanks trimmed).
    hooks: Option<(usize, usize)>,
    /// The indent of the children of `hooks:`.
    child_indent: Option<usize>,
    /// `pre_tool_call:` line and the end of its block.
    ptc: Option<(usize, usize)>,
    /// The indent of the sequence items.
    seq_indent: Option<usize>,
    /// Each item's `[start, end)`.
    items: Vec<(usize, usize)>,
}

const EMPTY_VALUES: [&str; 5] = ["", "~", "null", "{}", "[]"];

/// The text's `pre_tool_call` items must be exactly the parsed list's, or
/// editing by lines could touch the wrong entry.
fn lined_up(lay: &Layout, old_cfg: &Yaml) -> Result<(), Refusal> {
    let parsed = old_cfg
        .get("hooks")
        .and_then(|h| h.get(EVENT))
        .and_then(Yaml::as_sequence)
        .map_or(0, Vec::len);
    if lay.items.len() == parsed {
        Ok(())
    } else {
        Err(unsupported("cannot line up the `pre_tool_call` list items"))
    }
}

fn unsupported(what: &str) -> Refusal {
    Refusal::Refused(format!(
        "config.yaml: {what}; warden edits only block-style YAML. Nothing was changed: add the entry by hand (see `warden install --help`)"
    ))
}

fn layout(lines: &mut [Line], text: &str) -> Result<Layout, Refusal> {
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
                && key_value(lines[i].rest(), EVENT).is_some()
        })
        .collect();
    let Some(&p) = ptcs.first() else {
        return Ok(lay);
    };
    if ptcs.len() > 1 {
        return Err(unsupported(
            "`pre_tool_call:` appears more than once under `hooks:`",
        ));
    }
    let (value, _) = key_value(lines[p].rest(), EVENT).expect("matched above");
    if !EMPTY_VALUES.contains(&value) {
        return Err(unsupported(
            "`hooks.pre_tool_call` is written in flow style",
        ));
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
        return Err(unsupported("`hooks.pre_tool_call` is not a list"));
    }
    for (k, &s) in starts.iter().enumerate() {
        let next = starts.get(k + 1).copied().unwrap_or(p_end);
        lay.items.push((s, trim_back(lines, s + 1, next, si)));
    }
    Ok(lay)
}

fn parse_yaml(text: &str, what: &str) -> Result<Yaml, Refusal> {
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
fn install_text(old: &str, entry: &Entry) -> Result<String, Refusal> {
    let old_cfg = parse_yaml(old, "config.yaml")?;
    let ours = warden_entries(&old_cfg);
    let mut lines = split_lines(old);
    let lay = layout(&mut lines, old)?;
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
                "hooks:{nl}{}{EVENT}:{nl}{}",
                " ".repeat(unit),
                entry.render(2 * unit, &nl)
            );
            t
        }
        (Some((h, h_end)), None) => {
            clear_inline_value(&mut lines[h], "hooks", &nl);
            let ci = lay.child_indent.unwrap_or(unit);
            let block = format!(
                "{}{EVENT}:{nl}{}",
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
            clear_inline_value(&mut lines[p], EVENT, &nl);
            let ci = lay.child_indent.expect("pre_tool_call has an indent");
            let si = lay.seq_indent.unwrap_or(ci + unit);
            lined_up(&lay, &old_cfg)?;
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
    validate(&old_cfg, &new, Some(entry))?;
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
fn uninstall_text(old: &str) -> Result<(String, Vec<String>), Refusal> {
    let old_cfg = parse_yaml(old, "config.yaml")?;
    let ours = warden_entries(&old_cfg);
    if ours.is_empty() {
        return Ok((old.to_string(), Vec::new()));
    }
    let mut lines = split_lines(old);
    let lay = layout(&mut lines, old)?;
    let (Some((h, h_end)), Some((p, p_end))) = (lay.hooks, lay.ptc) else {
        return Err(unsupported("cannot find the `hooks.pre_tool_call` list"));
    };
    lined_up(&lay, &old_cfg)?;
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
    validate(&old_cfg, &new, None)?;
    Ok((new, ours.into_iter().map(|(_, c)| c).collect()))
}

/// The edit changed our entry and nothing else.
fn validate(old: &Yaml, new_text: &str, entry: Option<&Entry>) -> Result<(), Refusal> {
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
        let ev = Yaml::String(EVENT.into());
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
        return Err(fail("would change other pre_tool_call entries"));
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
                && e.get("matcher").and_then(Yaml::as_str) == Some(want.matcher.as_str())
                && e.get("timeout").and_then(Yaml::as_u64) == Some(want.timeout)
                && e.get("fail_closed").and_then(Yaml::as_bool) == Some(true);
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
fn write_with_backup(path: &Path, text: &str, backup: bool) -> Result<(), Refusal> {
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

/// The allowlist as JSON (`{"approvals": []}` when missing).
pub(crate) fn read_allowlist(path: &Path) -> Result<Option<Json>, Refusal> {
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
pub(crate) fn allowlist_entry(data: &Json, event: &str, command: &str) -> Option<Json> {
    data.get("approvals")?
        .as_array()?
        .iter()
        .find(|e| {
            e.get("event").and_then(Json::as_str) == Some(event)
                && e.get("command").and_then(Json::as_str) == Some(command)
        })
        .cloned()
}

fn allowlist_has(path: &Path, event: &str, command: &str) -> Result<bool, Refusal> {
    Ok(read_allowlist(path)?.is_some_and(|d| allowlist_entry(&d, event, command).is_some()))
}

/// Record consent as Hermes's `_record_approval` does.
fn allowlist_add(path: &Path, command: &str, dry_run: bool) -> Result<(), Refusal> {
    let old = read_allowlist(path)?;
    let mut data = old
        .clone()
        .unwrap_or_else(|| serde_json::json!({"approvals": []}));
    if !data.get("approvals").is_some_and(Json::is_array) {
        data["approvals"] = Json::Array(Vec::new());
    }
    let mtime = shlex_split(command)
        .and_then(|t| t.into_iter().next())
        .and_then(|exe| std::fs::metadata(expand_home(Path::new(&exe))).ok())
        .and_then(|m| m.modified().ok())
        .map(|t| Json::String(iso_utc(t)));
    let list = data["approvals"]
        .as_array_mut()
        .expect("made an array above");
    // Earlier warden commands (a previous install) and this one: replaced.
    list.retain(|e| {
        !(e.get("event").and_then(Json::as_str) == Some(EVENT)
            && e.get("command")
                .and_then(Json::as_str)
                .is_some_and(|c| c == command || is_warden_command(c)))
    });
    list.push(serde_json::json!({
        "event": EVENT,
        "command": command,
        "approved_at": iso_utc(SystemTime::now()),
        "script_mtime_at_approval": mtime.unwrap_or(Json::Null),
    }));
    write_allowlist(path, old.as_ref(), &data, dry_run)
}

/// Remove the consent entries of warden commands; returns how many.
fn allowlist_remove(path: &Path, commands: &[String], dry_run: bool) -> Result<usize, Refusal> {
    let Some(old) = read_allowlist(path)? else {
        return Ok(0);
    };
    let mut data = old.clone();
    let Some(list) = data.get_mut("approvals").and_then(Json::as_array_mut) else {
        return Ok(0);
    };
    let before = list.len();
    list.retain(|e| {
        !(e.get("event").and_then(Json::as_str) == Some(EVENT)
            && e.get("command")
                .and_then(Json::as_str)
                .is_some_and(|c| commands.iter().any(|k| k == c) || is_warden_command(c)))
    });
    let n = before - list.len();
    if n > 0 {
        write_allowlist(path, Some(&old), &data, dry_run)?;
    }
    Ok(n)
}

fn write_allowlist(
    path: &Path,
    old: Option<&Json>,
    data: &Json,
    dry_run: bool,
) -> Result<(), Refusal> {
    let text = python_json(data);
    let old_text = match old {
        Some(_) => std::fs::read_to_string(path).unwrap_or_default(),
        None => String::new(),
    };
    let name = ALLOWLIST;
    print!(
        "{}",
        unified_diff(
            &old_text,
            &text,
            if old.is_some() { name } else { "/dev/null" },
            name
        )
    );
    if dry_run {
        return Ok(());
    }
    if let Some(dir) = path.parent() {
        std::fs::create_dir_all(dir).map_err(|e| io_err("create", dir, e))?;
    }
    write_with_backup(path, &text, old.is_some())
}

/// `json.dumps(data, indent=2, sort_keys=True)` (ASCII-escaped, no trailing newline).
fn python_json(v: &Json) -> String {
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

/// Python's `datetime.fromtimestamp(t, tz=utc).isoformat()` with `Z`.
pub(crate) fn iso_utc(t: SystemTime) -> String {
    let d = t.duration_since(SystemTime::UNIX_EPOCH).unwrap_or_default();
    let secs = d.as_secs() as i64;
    let micros = d.subsec_micros();
    let rem = secs.rem_euclid(86_400);
    let date = warden::check::today_from_secs(secs.max(0) as u64);
    let mut s = format!(
        "{date}T{:02}:{:02}:{:02}",
        rem / 3600,
        rem % 3600 / 60,
        rem % 60
    );
    if micros != 0 {
        let _ = write!(s, ".{micros:06}");
    }
    s.push('Z');
    s
}

#[cfg(test)]
mod tests {
    use super::*;

    fn entry() -> Entry {
        Entry {
            matcher: DEFAULT_MATCHER.into(),
            command: "/opt/bin/warden hook --policy /p".into(),
            timeout: 5,
        }
    }

    #[test]
    fn shlex_round_trip() {
        for s in [
            "/a b/warden",
            "it's",
            "",
            "plain/path-1.2",
            "$HOME",
            "a\"b\\c",
        ] {
            let q = shell_quote(s);
            assert_eq!(shlex_split(&q).unwrap(), vec![s.to_string()], "{q}");
        }
        assert_eq!(
            shlex_split(r#"a "b \" c" 'd e'\ f"#).unwrap(),
            vec!["a", "b \" c", "d e f"]
        );
        assert!(shlex_split("'open").is_none());
    }

    #[test]
    fn is_ours() {
        assert!(is_warden_command("/x/warden hook --policy p"));
        assert!(is_warden_command("~/.local/bin/warden hook"));
        assert!(!is_warden_command("/x/warden eval"));
        assert!(!is_warden_command("python3 hook.py"));
    }

    #[test]
    fn iso_times() {
        let t = SystemTime::UNIX_EPOCH + std::time::Duration::from_micros(1_700_000_000_123_456);
        assert_eq!(iso_utc(t), "2023-11-14T22:13:20.123456Z");
        let t = SystemTime::UNIX_EPOCH + std::time::Duration::from_secs(951_782_400);
        assert_eq!(iso_utc(t), "2000-02-29T00:00:00Z");
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
            let (back, removed) = uninstall_text(&new).unwrap();
            assert_eq!(removed, vec![entry().command]);
            if !old.contains("{}") && !old.contains("[]") && old.ends_with('\n') || old.is_empty() {
                assert_eq!(back, old, "uninstall restores {old:?}");
            }
            assert_eq!(uninstall_text(&back).unwrap().0, back);
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

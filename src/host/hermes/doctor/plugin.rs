//! The plugin path: is the warden plugin installed and enabled, does its
//! `warden serve` start and decide, did the running one refuse a policy edit —
//! and which path (plugin or shell hook) is live.

use super::probe::run_with_timeout;
use super::{check_binary, check_policy, Report, Status};
use crate::host::hermes::plugin_install::{
    dir, installed, is_disabled, is_enabled, CONFIG_FILE, NAME, STATUS_FILE,
};
use serde_json::{json, Value as Json};
use serde_yaml_ng::Value as Yaml;
use std::path::Path;
use std::process::Command;
use std::time::Duration;

/// How long the probe waits for `warden serve` to load, compile and answer.
const PROBE_LIMIT: Duration = Duration::from_secs(60);

/// Check the plugin; true when it is the live path (installed and enabled).
/// `hook_installed`: warden's shell hook is in config.yaml too.
pub(super) fn check(home: &Path, cfg: &Yaml, hook_installed: bool, r: &mut Report) -> bool {
    let dir = dir(home);
    let on_disk = installed(home);
    let enabled = is_enabled(cfg) && !is_disabled(cfg);
    if !on_disk && !enabled {
        if hook_installed {
            r.add("path", Status::Info, "live path: the shell hook (what this Hermes honours from it: see below; on 0.19.0 no redaction, approve, modify or turn block). `warden install hermes --plugin` enforces all of them");
            r.add("path", Status::Warn, "shell path gap: Hermes 0.19.0 skips a shell hook entirely (and runs the tool) when a tool argument holds a lone surrogate such as \"\\udcff\"; the plugin path is immune");
        }
        return false;
    }
    if on_disk && !enabled {
        r.add("plugin", Status::Fail, format!("{} is installed but not enabled in config.yaml plugins.enabled (or it is in plugins.disabled): Hermes does not load it", dir.display()))
            .detail
            .push("fix: warden install hermes --plugin".into());
        return false;
    }
    if !on_disk {
        r.add(
            "plugin",
            Status::Fail,
            format!(
                "plugins.enabled lists {NAME:?} but {} is missing",
                dir.display()
            ),
        )
        .detail
        .push("fix: warden install hermes --plugin".into());
        return false;
    }
    r.add(
        "plugin",
        Status::Pass,
        format!("plugin {} installed and enabled", dir.display()),
    );
    let cfg_path = dir.join(CONFIG_FILE);
    let pcfg: Json = match std::fs::read_to_string(&cfg_path).map(|t| serde_json::from_str(&t)) {
        Ok(Ok(v)) => v,
        _ => {
            r.add(
                "plugin",
                Status::Fail,
                format!("{} is missing or not JSON", cfg_path.display()),
            )
            .detail
            .push("fix: warden install hermes --plugin".into());
            return true;
        }
    };
    let binary = pcfg["binary"].as_str().unwrap_or("warden").to_string();
    let args: Vec<String> = pcfg["args"]
        .as_array()
        .map(|a| {
            a.iter()
                .filter_map(|v| v.as_str().map(str::to_string))
                .collect()
        })
        .unwrap_or_default();
    if check_binary(&binary, r) {
        let argv = probe_argv(&binary, &args);
        check_policy(&argv, r);
        probe_serve(&argv, r);
    }
    report_status(&dir.join(STATUS_FILE), r);
    r.add("path", Status::Info, "live path: the plugin (block and redaction in tool_execution, approve via pre_tool_call, modify via tool_request, turn block in llm_execution, provider payload redaction in llm_request, terminal/output redaction)");
    if hook_installed {
        r.add("path", Status::Warn, "warden's shell hook is ALSO installed: every tool call is decided twice (run `warden install hermes --plugin` again to remove it)");
    }
    true
}

/// `binary serve ARGS` without `--status-file`: the probe must not overwrite
/// the running co-process's status file.
fn probe_argv(binary: &str, args: &[String]) -> Vec<String> {
    let mut argv = vec![binary.to_string(), "serve".into()];
    let mut it = args.iter();
    while let Some(a) = it.next() {
        if a == "--status-file" {
            it.next();
        } else if !a.starts_with("--status-file=") {
            argv.push(a.clone());
        }
    }
    argv
}

/// What the last `warden serve` wrote in its status file (a refused policy edit shows here).
fn report_status(path: &Path, r: &mut Report) {
    let Ok(Ok(s)) = std::fs::read_to_string(path).map(|t| serde_json::from_str::<Json>(&t)) else {
        return;
    };
    match s["status"].as_str() {
        Some("ok") => {
            r.add(
                "serve",
                Status::Pass,
                format!(
                    "the last warden serve (pid {}) enforces policy {}",
                    s["pid"],
                    s["policy_hash"].as_str().unwrap_or("?")
                ),
            );
        }
        Some(other) => {
            r.add(
                "serve",
                Status::Warn,
                format!("the last warden serve (pid {}) reported: {other}", s["pid"]),
            );
        }
        None => {}
    }
}

/// Start `warden serve` as the plugin would, say hello, and ask for a decision that must block.
fn probe_serve(argv: &[String], r: &mut Report) {
    let mut input = String::new();
    for q in [
        json!({"id": 1, "op": "hello", "host": "hermes"}),
        json!({"id": 2, "op": "decide", "payload": {"hook_event_name": "pre_tool_call", "tool_name": "terminal", "tool_input": {"command": "rm -rf /"}}}),
    ] {
        input.push_str(&q.to_string());
        input.push('\n');
    }
    // stdin closes after the two requests: serve answers them and exits on EOF
    let out = match run_with_timeout(
        Command::new(&argv[0]).args(&argv[1..]),
        Some(input.as_bytes()),
        PROBE_LIMIT,
    ) {
        Ok(Some(o)) => o,
        Ok(None) => {
            r.add(
                "serve",
                Status::Fail,
                format!(
                    "warden serve did not answer within {} s (the plugin refuses every call that times out)",
                    PROBE_LIMIT.as_secs()
                ),
            );
            return;
        }
        Err(e) => {
            r.add(
                "serve",
                Status::Fail,
                format!("cannot start {}: {e}", argv.join(" ")),
            );
            return;
        }
    };
    let (_, stdout, stderr, _) = out;
    let answers: Vec<Json> = stdout
        .lines()
        .map_while(|l| serde_json::from_str::<Json>(l).ok())
        .take(2)
        .collect();
    let c = match answers.as_slice() {
        [h, d] if h["ok"] == true && d["decision"]["action"] == "block" => {
            r.add(
                "serve",
                Status::Pass,
                format!(
                    "warden serve answers (protocol {}, policy {}); `rm -rf /` is blocked",
                    h["protocol"],
                    h["policy_hash"].as_str().unwrap_or("?")
                ),
            );
            return;
        }
        [h, ..] if h["ok"] != true => r.add(
            "serve",
            Status::Fail,
            format!(
                "warden serve refuses: {} (the plugin then refuses every call)",
                h["error"].as_str().unwrap_or("?")
            ),
        ),
        _ => r.add(
            "serve",
            Status::Fail,
            "warden serve did not answer the probe as expected (the plugin refuses every call)",
        ),
    };
    if let Some(last) = stderr.lines().rev().find(|l| !l.trim().is_empty()) {
        c.detail.push(format!("its stderr: {}", last.trim()));
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_probe_leaves_the_status_file_alone() {
        let args: Vec<String> = [
            "--policy",
            "/p",
            "--status-file",
            "/s.json",
            "--status-file=/t.json",
        ]
        .iter()
        .map(|s| s.to_string())
        .collect();
        assert_eq!(
            probe_argv("/w", &args),
            vec!["/w", "serve", "--policy", "/p"]
        );
    }

    #[test]
    fn shell_path_only_reports_the_gap() {
        let home =
            std::env::temp_dir().join(format!("warden-doctor-plugin-{}", std::process::id()));
        let mut r = Report::default();
        assert!(!check(&home, &Yaml::Null, true, &mut r));
        let msgs: Vec<&str> = r.checks.iter().map(|c| c.message.as_str()).collect();
        assert!(msgs[0].starts_with("live path: the shell hook"), "{msgs:?}");
        assert!(msgs[1].contains("lone surrogate"), "{msgs:?}");
        let mut r = Report::default();
        assert!(!check(&home, &Yaml::Null, false, &mut r));
        assert!(r.checks.is_empty());
        let cfg: Yaml = serde_yaml_ng::from_str("plugins:\n  enabled: [warden]\n").unwrap();
        let mut r = Report::default();
        assert!(!check(&home, &cfg, false, &mut r));
        assert_eq!(r.checks[0].status, Status::Fail);
        assert!(r.checks[0].message.contains("is missing"), "{:?}", r.checks);
    }
}

//! `warden doctor` for the plugin path: is the warden plugin installed and
//! enabled, does its `warden serve` start and decide, did the running one
//! refuse a policy edit — and which path (plugin or shell hook) is live.

use super::super::install::plugin::{installed, is_disabled, is_enabled, NAME};
use super::{check_binary, check_policy, Report, Status};
use serde_json::{json, Value as Json};
use serde_yaml_ng::Value as Yaml;
use std::io::{BufRead, Write};
use std::path::Path;
use std::process::{Command, Stdio};

/// Check the plugin; true when it is the live path (installed and enabled).
pub(super) fn check(home: &Path, cfg: &Yaml, hook_installed: bool, r: &mut Report) -> bool {
    let dir = home.join("plugins").join(NAME);
    let on_disk = installed(home);
    let enabled = is_enabled(cfg) && !is_disabled(cfg);
    if !on_disk && !enabled {
        if hook_installed {
            r.add("path", Status::Info, "live path: the shell hook (pre_tool_call blocks only on Hermes 0.19.0; no redaction, approve, modify or turn block). `warden install hermes --plugin` enforces all of them");
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
    let cfg_path = dir.join("warden.json");
    let pcfg: Json = match std::fs::read_to_string(&cfg_path).map(|t| serde_json::from_str(&t)) {
        Ok(Ok(v)) => v,
        _ => {
            r.add(
                "plugin",
                Status::Fail,
                format!("{} is missing or not JSON", cfg_path.display()),
            );
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
        // the probe must not overwrite the running co-process's status file
        let mut argv = vec![binary.clone(), "serve".into()];
        let mut it = args.iter();
        while let Some(a) = it.next() {
            if a == "--status-file" {
                it.next();
            } else {
                argv.push(a.clone());
            }
        }
        check_policy(&argv, r);
        probe_serve(&argv, r);
    }
    let status = dir.join("serve-status.json");
    if let Ok(Ok(s)) = std::fs::read_to_string(&status).map(|t| serde_json::from_str::<Json>(&t)) {
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
    r.add("path", Status::Info, "live path: the plugin (block and redaction in tool_execution, approve via pre_tool_call, modify via tool_request, turn block in llm_execution, provider payload redaction in llm_request, terminal/output redaction)");
    if hook_installed {
        r.add("path", Status::Warn, "warden's shell hook is ALSO installed: every tool call is decided twice (run `warden install hermes --plugin` again to remove it)");
    }
    true
}

/// Start `warden serve` as the plugin would, say hello, and ask for a decision that must block.
fn probe_serve(argv: &[String], r: &mut Report) {
    let child = Command::new(&argv[0])
        .args(&argv[1..])
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::null())
        .spawn();
    let mut child = match child {
        Ok(c) => c,
        Err(e) => {
            r.add(
                "serve",
                Status::Fail,
                format!("cannot start {}: {e}", argv.join(" ")),
            );
            return;
        }
    };
    let reqs = [
        json!({"id": 1, "op": "hello", "host": "hermes"}),
        json!({"id": 2, "op": "decide", "payload": {"hook_event_name": "pre_tool_call", "tool_name": "terminal", "tool_input": {"command": "rm -rf /"}}}),
    ];
    let mut lines = String::new();
    if let Some(mut stdin) = child.stdin.take() {
        for q in &reqs {
            lines.push_str(&q.to_string());
            lines.push('\n');
        }
        let _ = stdin.write_all(lines.as_bytes());
    }
    let mut answers = Vec::new();
    if let Some(out) = child.stdout.take() {
        for l in std::io::BufReader::new(out).lines().take(2) {
            match l.ok().and_then(|l| serde_json::from_str::<Json>(&l).ok()) {
                Some(v) => answers.push(v),
                None => break,
            }
        }
    }
    let _ = child.kill();
    let _ = child.wait();
    match answers.as_slice() {
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
        }
        [h, ..] if h["ok"] != true => {
            r.add(
                "serve",
                Status::Fail,
                format!(
                    "warden serve refuses: {} (the plugin then refuses every call)",
                    h["error"].as_str().unwrap_or("?")
                ),
            );
        }
        _ => {
            r.add(
                "serve",
                Status::Fail,
                "warden serve did not answer the probe as expected (the plugin refuses every call)",
            );
        }
    }
}

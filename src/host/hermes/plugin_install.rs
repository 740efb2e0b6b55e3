//! The warden Python plugin in a Hermes home: its files (shipped inside
//! warden, from `integrations/hermes/warden/`) under
//! `$HERMES_HOME/plugins/warden/`, its `warden.json` (how it starts
//! `warden serve`), and its item in `config.yaml` `plugins.enabled`, edited as
//! text like the hook entries ([`super::config`]): every edit is parsed and
//! compared with the original, only that one list may differ.
//!
//! The plugin decides the same events as warden's shell hooks, so installing
//! it takes those hooks out ([`remove_shell_hooks`]) and their consent
//! ([`remove_hook_consent`]): two deciders
//! would run every check twice. `warden install hermes --plugin` prints and
//! writes; the knowledge is here.

use super::config::{io_err, parse_yaml, uninstall_text, Refusal, MARKER};
use super::consent::{self, ALLOWLIST};
use serde_json::Value as Json;
use serde_yaml_ng::Value as Yaml;
use std::path::{Path, PathBuf};

/// The plugin's name in `plugins.enabled` and its folder under `$HERMES_HOME/plugins/`.
pub const NAME: &str = "warden";

/// The file the running `warden serve` keeps its status in (pid, policy hash,
/// `ok` or why the last policy edit was refused), inside the plugin folder.
pub const STATUS_FILE: &str = "serve-status.json";

/// The plugin's own configuration file, inside the plugin folder.
pub const CONFIG_FILE: &str = "warden.json";

/// The plugin's files, as shipped in `integrations/hermes/warden/`.
const FILES: &[(&str, &str)] = &[
    (
        "__init__.py",
        include_str!("../../../integrations/hermes/warden/__init__.py"),
    ),
    (
        "client.py",
        include_str!("../../../integrations/hermes/warden/client.py"),
    ),
    (
        "plugin.yaml",
        include_str!("../../../integrations/hermes/warden/plugin.yaml"),
    ),
];

/// The plugin folder of the Hermes at `home`.
pub fn dir(home: &Path) -> PathBuf {
    home.join("plugins").join(NAME)
}

/// Is the plugin installed under `home`?
pub fn installed(home: &Path) -> bool {
    dir(home).join("__init__.py").is_file()
}

/// The plugin's `warden.json`: `exe serve --policy … --status-file …`, the
/// per-request timeout and where `warden serve` logs.
pub fn serve_config(home: &Path, exe: &Path, policies: &[PathBuf]) -> Json {
    let mut args: Vec<String> = Vec::new();
    for p in policies {
        args.push("--policy".into());
        args.push(p.to_string_lossy().into_owned());
    }
    args.push("--status-file".into());
    args.push(dir(home).join(STATUS_FILE).to_string_lossy().into_owned());
    serde_json::json!({
        "binary": exe.to_string_lossy(),
        "args": args,
        "timeout_s": 5,
        "start_timeout_s": 30,
        "serve_log": home.join("logs").join("warden-serve.log").to_string_lossy(),
    })
}

/// Write the plugin's files and its `warden.json` (`config`, from [`serve_config`]).
pub fn write_files(home: &Path, config: &Json) -> Result<(), Refusal> {
    let dir = dir(home);
    std::fs::create_dir_all(&dir).map_err(|e| io_err("create", &dir, e))?;
    for (name, text) in FILES {
        let p = dir.join(name);
        std::fs::write(&p, text).map_err(|e| io_err("write", &p, e))?;
    }
    let p = dir.join(CONFIG_FILE);
    let body = serde_json::to_string_pretty(config).expect("JSON serialises") + "\n";
    std::fs::write(&p, body).map_err(|e| io_err("write", &p, e))
}

/// Remove the plugin folder; false if there was none.
pub fn remove_files(home: &Path) -> Result<bool, Refusal> {
    let dir = dir(home);
    if !dir.exists() {
        return Ok(false);
    }
    std::fs::remove_dir_all(&dir).map_err(|e| io_err("remove", &dir, e))?;
    Ok(true)
}

/// `config.yaml` without warden's shell hooks on every event of
/// [`super::EVENTS`] (the plugin decides those events), and the removed
/// hook commands (for their consent entries).
pub fn remove_shell_hooks(text: &str) -> Result<(String, Vec<String>), Refusal> {
    let mut new_text = text.to_string();
    let mut removed = Vec::new();
    // the reverse of install's order, as `warden install hermes --remove` does
    for ev in super::EVENTS.iter().rev() {
        let (t, r) = uninstall_text(&new_text, ev.name())?;
        new_text = t;
        removed.extend(r.into_iter().filter(|c| !c.is_empty()));
    }
    Ok((new_text, removed))
}

/// The consent entries of warden's shell hooks (`commands`, on every event of
/// [`super::EVENTS`]) taken out of `home`'s consent file: how many, and the
/// edit (not written: [`consent::write`]).
pub fn remove_hook_consent(
    home: &Path,
    commands: &[String],
) -> Result<(usize, Option<consent::Edit>), Refusal> {
    let events = super::EVENTS.map(crate::Hook::name);
    consent::allowlist_remove(&home.join(ALLOWLIST), &events, commands)
}

/// Is `warden` in `plugins.enabled`?
pub fn is_enabled(cfg: &Yaml) -> bool {
    list_has(cfg, "enabled")
}

/// Is `warden` in `plugins.disabled` (which always wins in Hermes)?
pub fn is_disabled(cfg: &Yaml) -> bool {
    list_has(cfg, "disabled")
}

fn list_has(cfg: &Yaml, key: &str) -> bool {
    cfg.get("plugins")
        .and_then(|p| p.get(key))
        .and_then(Yaml::as_sequence)
        .is_some_and(|s| s.iter().any(|v| v.as_str() == Some(NAME)))
}

fn indent_of(line: &str) -> usize {
    line.len() - line.trim_start_matches(' ').len()
}

fn is_key(line: &str, indent: usize, key: &str) -> bool {
    indent_of(line) == indent
        && line[indent..].starts_with(key)
        && line[indent + key.len()..].starts_with(':')
}

/// `config.yaml` with `warden` added to `plugins.enabled`, edited as text. The result is
/// parsed and compared with the original: only that one list may differ.
pub fn enable_text(old: &str) -> Result<String, Refusal> {
    let old_cfg = if old.trim().is_empty() {
        Yaml::Mapping(Default::default())
    } else {
        parse_yaml(old, "config.yaml")?
    };
    if is_disabled(&old_cfg) {
        return Err(Refusal::Refused(format!(
            "config.yaml lists {NAME:?} under plugins.disabled, which always wins: take it out there first"
        )));
    }
    if is_enabled(&old_cfg) {
        return Ok(old.to_string());
    }
    let nl = if old.contains("\r\n") { "\r\n" } else { "\n" };
    let mut lines: Vec<String> = old.lines().map(str::to_string).collect();
    let item = |indent: usize| format!("{}- {NAME}  {MARKER}", " ".repeat(indent));
    match lines.iter().position(|l| is_key(l, 0, "plugins")) {
        None => {
            if lines.last().is_some_and(|l| !l.trim().is_empty()) {
                lines.push(String::new());
            }
            lines.push("plugins:".into());
            lines.push("  enabled:".into());
            lines.push(item(4));
        }
        Some(p) => {
            let rest = lines[p]["plugins:".len()..].trim();
            if !(rest.is_empty() || rest.starts_with('#')) {
                return Err(unsupported());
            }
            // the section's lines and its child indent
            let end = (p + 1..lines.len())
                .find(|&i| {
                    !lines[i].trim().is_empty()
                        && indent_of(&lines[i]) == 0
                        && !lines[i].trim_start().starts_with('#')
                })
                .unwrap_or(lines.len());
            let child = (p + 1..end)
                .find(|&i| !lines[i].trim().is_empty() && !lines[i].trim_start().starts_with('#'))
                .map(|i| indent_of(&lines[i]))
                .unwrap_or(2);
            match (p + 1..end).find(|&i| is_key(&lines[i], child, "enabled")) {
                None => {
                    lines.insert(p + 1, format!("{}enabled:", " ".repeat(child)));
                    lines.insert(p + 2, item(child + 2));
                }
                Some(e) => {
                    let value = lines[e][child + "enabled:".len()..].trim().to_string();
                    let value = value.split(" #").next().unwrap_or("").trim().to_string();
                    if value.is_empty() {
                        let seq = (e + 1..end)
                            .find(|&i| {
                                !lines[i].trim().is_empty()
                                    && !lines[i].trim_start().starts_with('#')
                            })
                            .map(|i| indent_of(&lines[i]))
                            .filter(|&n| n >= child)
                            .unwrap_or(child + 2);
                        // after the list's last item, so the order stays the user's
                        let mut at = e + 1;
                        for (i, line) in lines.iter().enumerate().take(end).skip(e + 1) {
                            let t = line.trim_start();
                            if t.is_empty() || t.starts_with('#') {
                                continue;
                            }
                            if indent_of(line) < seq
                                || (indent_of(line) == child && !t.starts_with('-'))
                            {
                                break;
                            }
                            at = i + 1;
                        }
                        lines.insert(at, item(seq));
                    } else if value == "[]" || value == "null" || value == "~" {
                        lines[e] = format!("{}enabled:", " ".repeat(child));
                        lines.insert(e + 1, item(child + 2));
                    } else if value.starts_with('[') && value.ends_with(']') {
                        let inner = value[1..value.len() - 1].trim();
                        lines[e] =
                            format!("{}enabled: [{inner}, {NAME}]  {MARKER}", " ".repeat(child));
                    } else {
                        return Err(unsupported());
                    }
                }
            }
        }
    }
    let mut new = lines.join(nl);
    new.push_str(nl);
    let new_cfg = parse_yaml(&new, "the edited config.yaml")?;
    let mut want = old_cfg.clone();
    add_enabled(&mut want);
    if new_cfg != want {
        return Err(unsupported());
    }
    Ok(new)
}

fn add_enabled(cfg: &mut Yaml) {
    if !cfg.is_mapping() {
        *cfg = Yaml::Mapping(Default::default());
    }
    let m = cfg.as_mapping_mut().expect("mapping");
    let plugins = m
        .entry(Yaml::String("plugins".into()))
        .or_insert_with(|| Yaml::Mapping(Default::default()));
    if !plugins.is_mapping() {
        *plugins = Yaml::Mapping(Default::default());
    }
    let pm = plugins.as_mapping_mut().expect("mapping");
    let enabled = pm
        .entry(Yaml::String("enabled".into()))
        .or_insert_with(|| Yaml::Sequence(Vec::new()));
    if !enabled.is_sequence() {
        *enabled = Yaml::Sequence(Vec::new());
    }
    enabled
        .as_sequence_mut()
        .expect("sequence")
        .push(Yaml::String(NAME.into()));
}

/// `config.yaml` without `warden` in `plugins.enabled` (other entries kept).
pub fn disable_text(old: &str) -> Result<String, Refusal> {
    if old.trim().is_empty() {
        return Ok(old.to_string());
    }
    let old_cfg = parse_yaml(old, "config.yaml")?;
    if !is_enabled(&old_cfg) {
        return Ok(old.to_string());
    }
    let nl = if old.contains("\r\n") { "\r\n" } else { "\n" };
    let mut lines: Vec<String> = old.lines().map(str::to_string).collect();
    let item = format!("- {NAME}");
    if let Some(i) = lines.iter().position(|l| {
        let t = l.trim_start();
        t == item || t.starts_with(&format!("{item} ")) || t.starts_with(&format!("{item}\t"))
    }) {
        lines.remove(i);
    } else if let Some(i) = lines.iter().position(|l| l.contains(&format!(", {NAME}]"))) {
        lines[i] = lines[i]
            .replace(&format!(", {NAME}]"), "]")
            .replace(&format!("  {MARKER}"), "");
    } else {
        return Err(unsupported());
    }
    let mut new = lines.join(nl);
    new.push_str(nl);
    let new_cfg = parse_yaml(&new, "the edited config.yaml")?;
    let mut want = old_cfg.clone();
    if let Some(s) = want
        .get_mut("plugins")
        .and_then(|p| p.get_mut("enabled"))
        .and_then(Yaml::as_sequence_mut)
    {
        s.retain(|v| v.as_str() != Some(NAME));
    }
    // an emptied block list parses as null
    let norm = |mut c: Yaml| {
        if let Some(e) = c.get_mut("plugins").and_then(|p| p.get_mut("enabled")) {
            if e.is_null() {
                *e = Yaml::Sequence(Vec::new());
            }
        }
        c
    };
    if norm(new_cfg) != norm(want) {
        return Err(unsupported());
    }
    Ok(new)
}

fn unsupported() -> Refusal {
    Refusal::Refused(format!(
        "config.yaml's plugins section has a layout this installer does not edit; add {NAME:?} to plugins.enabled by hand (or run `hermes plugins enable {NAME}`)"
    ))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn enables_in_every_layout_and_disables_back() {
        for old in [
            "",
            "model: x\n",
            "plugins:\n  enabled:\n    - other\n",
            "plugins:\n  enabled: []\n",
            "plugins:\n  enabled: [a, b]\n",
            "plugins:\n  disabled: []\n# c\nmodel: m\n",
        ] {
            let new = enable_text(old).unwrap_or_else(|e| panic!("{old:?}: {e}"));
            let cfg: Yaml = serde_yaml_ng::from_str(&new).unwrap();
            assert!(is_enabled(&cfg), "{old:?} -> {new}");
            assert_eq!(enable_text(&new).unwrap(), new, "idempotent");
            let back = disable_text(&new).unwrap();
            let cfg: Yaml = serde_yaml_ng::from_str(&back).unwrap_or(Yaml::Null);
            assert!(!is_enabled(&cfg), "{back}");
        }
    }

    #[test]
    fn shell_hooks_of_both_events_and_their_consent_come_out() {
        use super::super::config::{install_text, Entry};
        let cmd = "/opt/warden hook --host hermes";
        let mut text = "hooks:\n  post_tool_call:\n    - command: mine\n".to_string();
        for (event, matcher) in [
            ("pre_tool_call", Some("terminal".to_string())),
            ("pre_llm_call", None),
        ] {
            let e = Entry {
                event,
                matcher,
                command: cmd.into(),
                timeout: 5,
                fail_closed: false,
            };
            text = install_text(&text, &e).unwrap();
        }
        let (new, removed) = remove_shell_hooks(&enable_text(&text).unwrap()).unwrap();
        assert_eq!(removed, [cmd, cmd]);
        let cfg: Yaml = serde_yaml_ng::from_str(&new).unwrap();
        assert!(is_enabled(&cfg), "{new}");
        assert!(!new.contains("warden hook"), "{new}");
        assert_eq!(
            cfg["hooks"]["post_tool_call"][0]["command"].as_str(),
            Some("mine")
        );

        let home =
            std::env::temp_dir().join(format!("warden-plugin-install-{}", std::process::id()));
        std::fs::create_dir_all(&home).unwrap();
        let path = home.join(ALLOWLIST);
        // someone else's consent first (allowlist_add replaces warden's entries on an event)
        let other = [("pre_tool_call", "/usr/bin/other-guard")];
        for pairs in [&other[..], &[("pre_tool_call", cmd), ("pre_llm_call", cmd)]] {
            let edit = consent::allowlist_add(&path, pairs).unwrap().unwrap();
            consent::write(&path, &edit).unwrap();
        }
        let (n, edit) = remove_hook_consent(&home, &removed).unwrap();
        assert_eq!(n, 2);
        let left = edit.unwrap().new_text;
        assert!(
            left.contains("other-guard") && !left.contains("warden"),
            "{left}"
        );
        std::fs::remove_dir_all(&home).unwrap();
    }

    #[test]
    fn refuses_when_disabled() {
        assert!(enable_text("plugins:\n  disabled: [warden]\n").is_err());
    }
}

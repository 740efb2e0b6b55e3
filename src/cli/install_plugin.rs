//! `warden install hermes --plugin`: the Python plugin path. Writes the plugin
//! (shipped inside the binary) to `$HERMES_HOME/plugins/warden/` with a
//! `warden.json` naming this binary and the policy, enables it in
//! `config.yaml` (`plugins.enabled`, edited as text like the hook entry), and
//! takes warden's shell-hook entry out (the plugin decides the same events; two
//! deciders would run every check twice). `--remove --plugin` reverses it.

use super::{
    absolute_policies, check_policy, hermes_home, io_err, parse_yaml, unified_diff, uninstall_text,
    write_with_backup, Args, Refusal, ALLOWLIST, MARKER,
};
use serde_yaml_ng::Value as Yaml;
use std::path::Path;

/// The plugin's name in `plugins.enabled` and its folder under `$HERMES_HOME/plugins/`.
pub(crate) const NAME: &str = "warden";

/// The plugin's files, as shipped in `integrations/hermes/warden/`.
const FILES: &[(&str, &str)] = &[
    (
        "__init__.py",
        include_str!("../../integrations/hermes/warden/__init__.py"),
    ),
    (
        "client.py",
        include_str!("../../integrations/hermes/warden/client.py"),
    ),
    (
        "plugin.yaml",
        include_str!("../../integrations/hermes/warden/plugin.yaml"),
    ),
];

pub(super) fn run(a: &Args) -> Result<i32, Refusal> {
    let home = hermes_home(a.hermes_home.as_deref()).ok_or_else(|| {
        Refusal::Io(
            "cannot find the Hermes home: set $HERMES_HOME or $HOME, or pass --hermes-home".into(),
        )
    })?;
    let config_path = home.join("config.yaml");
    let dir = home.join("plugins").join(NAME);
    let tag = if a.dry_run {
        " (dry run: nothing written)"
    } else {
        ""
    };
    let old = match std::fs::read_to_string(&config_path) {
        Ok(t) => Some(t),
        Err(e) if e.kind() == std::io::ErrorKind::NotFound => None,
        Err(e) => return Err(io_err("read", &config_path, e)),
    };
    let old_text = old.clone().unwrap_or_default();

    if a.remove {
        let new_text = disable_text(&old_text)?;
        if new_text != old_text {
            print!(
                "{}",
                unified_diff(&old_text, &new_text, "config.yaml", "config.yaml")
            );
            if !a.dry_run {
                write_with_backup(&config_path, &new_text, true)?;
            }
            println!("{}: plugin {NAME} disabled{tag}.", config_path.display());
        }
        if dir.exists() {
            if !a.dry_run {
                std::fs::remove_dir_all(&dir).map_err(|e| io_err("remove", &dir, e))?;
            }
            println!("{}: removed{tag}.", dir.display());
        } else if new_text == old_text {
            println!("no warden plugin to remove; nothing to change.");
        }
        return Ok(super::super::EXIT_OK);
    }

    let policies = absolute_policies(&a.policy)?;
    check_policy(&policies)?;
    let exe = std::env::current_exe()
        .map_err(|e| Refusal::Io(format!("cannot find the path of this warden binary: {e}")))?;
    let mut args: Vec<String> = Vec::new();
    for p in &policies {
        args.push("--policy".into());
        args.push(p.to_string_lossy().into_owned());
    }
    args.push("--status-file".into());
    args.push(dir.join("serve-status.json").to_string_lossy().into_owned());
    let cfg = serde_json::json!({
        "binary": exe.to_string_lossy(),
        "args": args,
        "timeout_s": 5,
        "serve_log": home.join("logs").join("warden-serve.log").to_string_lossy(),
    });

    // 1. the plugin files
    if !a.dry_run {
        std::fs::create_dir_all(&dir).map_err(|e| io_err("create", &dir, e))?;
        for (name, text) in FILES {
            let p = dir.join(name);
            std::fs::write(&p, text).map_err(|e| io_err("write", &p, e))?;
        }
        let p = dir.join("warden.json");
        let body = serde_json::to_string_pretty(&cfg).unwrap_or_default() + "\n";
        std::fs::write(&p, body).map_err(|e| io_err("write", &p, e))?;
    }
    println!(
        "{}: plugin written{tag} (warden serve: {})",
        dir.display(),
        exe.display()
    );

    // 2. enabled in config.yaml; warden's shell hook out (one decider per event)
    let enabled = enable_text(&old_text)?;
    let (new_text, removed) = uninstall_text(&enabled)?;
    if new_text == old_text && old.is_some() {
        println!(
            "{}: plugin already enabled; nothing to change.",
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
        println!("{}: plugin {NAME} enabled{tag}.", config_path.display());
    }
    let removed: Vec<String> = removed.into_iter().filter(|c| !c.is_empty()).collect();
    if !removed.is_empty() {
        println!(
            "{}: warden's shell hook removed{tag}: the plugin decides the same events (no double decisions).",
            config_path.display()
        );
        let n = super::allowlist_remove(&home.join(ALLOWLIST), &removed, a.dry_run)?;
        if n > 0 {
            println!(
                "{}: removed {n} warden consent entr{}{tag}.",
                home.join(ALLOWLIST).display(),
                if n == 1 { "y" } else { "ies" }
            );
        }
    }
    if a.accept {
        println!("Plugins need no shell-hook consent: enabling it in config.yaml is the opt-in.");
    }
    if !a.dry_run {
        println!("Check it with: warden doctor");
    }
    Ok(super::super::EXIT_OK)
}

/// Is `warden` in `plugins.enabled`?
pub(crate) fn is_enabled(cfg: &Yaml) -> bool {
    list_has(cfg, "enabled")
}

/// Is `warden` in `plugins.disabled` (which always wins in Hermes)?
pub(crate) fn is_disabled(cfg: &Yaml) -> bool {
    list_has(cfg, "disabled")
}

fn list_has(cfg: &Yaml, key: &str) -> bool {
    cfg.get("plugins")
        .and_then(|p| p.get(key))
        .and_then(Yaml::as_sequence)
        .is_some_and(|s| s.iter().any(|v| v.as_str() == Some(NAME)))
}

/// Is the plugin installed under `home`?
pub(crate) fn installed(home: &Path) -> bool {
    home.join("plugins")
        .join(NAME)
        .join("__init__.py")
        .is_file()
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
pub(crate) fn enable_text(old: &str) -> Result<String, Refusal> {
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
pub(crate) fn disable_text(old: &str) -> Result<String, Refusal> {
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
        for (old, has) in [
            ("", false),
            ("model: x\n", false),
            ("plugins:\n  enabled:\n    - other\n", true),
            ("plugins:\n  enabled: []\n", true),
            ("plugins:\n  enabled: [a, b]\n", true),
            ("plugins:\n  disabled: []\n# c\nmodel: m\n", true),
        ] {
            let new = enable_text(old).unwrap_or_else(|e| panic!("{old:?}: {e}"));
            let cfg: Yaml = serde_yaml_ng::from_str(&new).unwrap();
            assert!(is_enabled(&cfg), "{old:?} -> {new}");
            assert_eq!(enable_text(&new).unwrap(), new, "idempotent");
            let back = disable_text(&new).unwrap();
            let cfg: Yaml = serde_yaml_ng::from_str(&back).unwrap_or(Yaml::Null);
            assert!(!is_enabled(&cfg), "{back}");
            let _ = has;
        }
    }

    #[test]
    fn refuses_when_disabled() {
        assert!(enable_text("plugins:\n  disabled: [warden]\n").is_err());
    }
}

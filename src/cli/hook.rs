//! `warden hook`: the Hermes shell hook. One event on stdin, exactly one
//! JSON object on stdout, logs on stderr, and fail-closed on every error of
//! a gating event (`pre_tool_call`, `pre_llm_call`).

use super::install::expand_home;
use super::PolicyArgs;
use std::io::{Read, Write};
use std::path::PathBuf;
use std::time::{Duration, Instant};
use warden::host::hermes::{self, HookResponse, HostMode};
use warden::policy::Source;
use warden::{CompileOptions, Decision, Hook};

/// `--help` epilogue: setup, fail-closed behaviour and exit codes.
pub(crate) const AFTER_HELP: &str = "In ~/.hermes/config.yaml (or let `warden install hermes` write it):
  hooks:
    pre_tool_call:
      - matcher: \"terminal|write_file|patch|read_file|execute_code\"
        command: \"/usr/local/bin/warden hook --policy /etc/warden/policies\"
        timeout: 5
        fail_closed: true

Example:
  echo '{\"hook_event_name\":\"pre_tool_call\",\"tool_name\":\"terminal\",\"tool_input\":{\"command\":\"rm -rf /\"}}' | warden hook

Any error on pre_tool_call or pre_llm_call (bad payload, missing or invalid policy, bad
arguments, deadline, panic) answers with a block naming the cause.

Exit codes: 0 = allow/approve/modify/context, 2 = block (pre_tool_call; also every failure).";

/// Largest accepted payload.
const DEFAULT_MAX_INPUT: usize = 8 << 20;

#[derive(clap::ValueEnum, Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum HostArg {
    /// Detect from the payload (0.19.0 sends no top-level `profile`).
    Auto,
    /// Hermes 0.19.0: approve and modify become blocks that say what to do.
    #[value(name = "hermes-0.19")]
    Hermes019,
    /// Newer Hermes: approve and modify are sent as they are.
    #[value(name = "hermes-latest")]
    HermesLatest,
}

#[derive(clap::Args)]
pub(crate) struct Args {
    #[command(flatten)]
    policy: PolicyArgs,
    /// Which host to answer. Overrides detection; default $WARDEN_HOST, else auto.
    #[arg(long, value_enum, env = "WARDEN_HOST", default_value = "auto")]
    host: HostArg,
    /// Append one JSON line per decision to FILE (default $WARDEN_AUDIT).
    #[arg(long, value_name = "FILE", env = "WARDEN_AUDIT")]
    audit: Option<PathBuf>,
    /// Internal deadline in milliseconds; past it a gating event is blocked.
    #[arg(long, value_name = "MS", default_value_t = 1000)]
    deadline: u64,
    /// Largest accepted payload in bytes; a larger one is blocked.
    #[arg(long, value_name = "BYTES", default_value_t = DEFAULT_MAX_INPUT)]
    max_input: usize,
    /// On an internal error, allow instead of block. Not recommended.
    #[arg(long)]
    fail_open: bool,
    /// Compiled-policy cache directory (default $WARDEN_CACHE_DIR, else ~/.cache/warden).
    #[arg(long, value_name = "DIR")]
    cache_dir: Option<PathBuf>,
    /// Do not read or write the compiled-policy cache.
    #[arg(long)]
    no_cache: bool,
}

/// The outcome the worker hands back.
struct Outcome {
    response: HookResponse,
    audit: Option<AuditInfo>,
}

struct AuditInfo {
    event: warden::Event,
    logged_args: serde_json::Value,
    rules: Vec<String>,
    decision: &'static str,
    message: Option<String>,
    policy_hash: String,
    host: HostMode,
}

pub(crate) fn run(a: Args) -> i32 {
    let start = Instant::now();
    let fail_open = a.fail_open;
    std::panic::set_hook(Box::new(move |info| {
        // Exactly one JSON object on stdout: if the answer already went out
        // (a panic while writing the audit log), a second one would turn it
        // into unparsable output, which Hermes treats as "allow".
        if EMITTED.load(std::sync::atomic::Ordering::SeqCst) {
            eprintln!("warden: internal error after answering: {info}");
            std::process::exit(EXIT_CODE.load(std::sync::atomic::Ordering::SeqCst));
        }
        let cause = format!("internal error ({})", info.to_string().replace('\n', " "));
        emit(&failure(Hook::PreToolCall, &cause, fail_open));
        std::process::exit(if fail_open { 0 } else { 2 });
    }));
    let deadline = Duration::from_millis(a.deadline);
    // At the deadline (it also covers reading stdin) a prepared block goes out unless an
    // answer already did (a timer signal on Unix: a watchdog thread cost a sixth of a call).
    let overrun = failure(
        Hook::PreToolCall,
        &format!("internal deadline of {} ms exceeded", deadline.as_millis()),
        fail_open,
    );
    let (note, answer) = rendered(&overrun);
    let claim = || !EMITTED.swap(true, std::sync::atomic::Ordering::SeqCst);
    if let Err(e) = super::deadline::arm(deadline, claim, note, answer, overrun.response.exit_code)
    {
        return emit(&failure(
            Hook::PreToolCall,
            &format!("cannot arm the deadline: {e}"),
            fail_open,
        ));
    }
    let mut input = Vec::new();
    let read = std::io::stdin()
        .lock()
        .take(a.max_input as u64 + 1)
        .read_to_end(&mut input);
    if let Err(e) = read {
        return emit(&failure(
            Hook::PreToolCall,
            &format!("cannot read stdin: {e}"),
            fail_open,
        ));
    }
    if input.len() > a.max_input {
        return emit(&failure(
            Hook::PreToolCall,
            &format!("payload larger than {} bytes", a.max_input),
            fail_open,
        ));
    }
    let audit_path = a.audit.as_deref().map(expand_home);
    let want_audit = audit_path.is_some();
    let outcome = decide(&a, &input, want_audit);
    let code = emit(&outcome);
    if let (Some(path), Some(info)) = (audit_path, &outcome.audit) {
        let rec = warden::audit::Record {
            event: info.event.hook.name(),
            tool: info.event.tool.as_deref(),
            session_id: info.event.session_id.as_deref(),
            args: &info.logged_args,
            rules: info.rules.iter().map(String::as_str).collect(),
            decision: info.decision,
            message: info.message.as_deref(),
            latency_us: start.elapsed().as_micros(),
            policy_hash: &info.policy_hash,
            host: info.host.name(),
        };
        if let Err(e) = warden::audit::append(&path, &rec) {
            // The decision already went out: a log failure never turns a block into an allow.
            eprintln!("warden: cannot write audit log {}: {e}", path.display());
        }
    }
    code
}

/// The answer when the hook's own arguments do not parse: a block.
pub(crate) fn bad_arguments(what: &str) -> i32 {
    emit(&failure(
        Hook::PreToolCall,
        &format!("bad hook arguments ({what}); see `warden hook --help`"),
        false,
    ))
}

/// Set once the answer is on stdout, with the exit code it carries.
static EMITTED: std::sync::atomic::AtomicBool = std::sync::atomic::AtomicBool::new(false);
static EXIT_CODE: std::sync::atomic::AtomicI32 = std::sync::atomic::AtomicI32::new(2);

/// Print the outcome (at most once per process); return the exit code of the answer that
/// went out.
fn emit(o: &Outcome) -> i32 {
    try_emit(o).unwrap_or_else(|| EXIT_CODE.load(std::sync::atomic::Ordering::SeqCst))
}

/// Print the outcome and return its exit code, unless an answer already went out.
fn try_emit(o: &Outcome) -> Option<i32> {
    if EMITTED.swap(true, std::sync::atomic::Ordering::SeqCst) {
        return None;
    }
    EXIT_CODE.store(o.response.exit_code, std::sync::atomic::Ordering::SeqCst);
    let (note, answer) = rendered(o);
    let _ = std::io::stderr().write_all(&note);
    let mut out = std::io::stdout().lock();
    let _ = out.write_all(&answer);
    let _ = out.flush();
    Some(o.response.exit_code)
}

/// What an outcome prints: its notes for stderr and its one JSON line for stdout.
fn rendered(o: &Outcome) -> (Vec<u8>, Vec<u8>) {
    let mut note = Vec::new();
    for n in &o.response.notes {
        note.extend_from_slice(n.as_bytes());
        note.push(b'\n');
    }
    let mut answer = hermes::to_ascii_json(&o.response.json).into_bytes();
    answer.push(b'\n');
    (note, answer)
}

/// The answer for an internal failure: a block, unless `--fail-open`.
fn failure(hook: Hook, cause: &str, fail_open: bool) -> Outcome {
    let mut response = hermes::fail_closed(hook, cause);
    let gating = matches!(hook, Hook::PreToolCall | Hook::PreLlmCall);
    if fail_open || !gating {
        let what = if gating {
            "ALLOWING because --fail-open is set"
        } else {
            "nothing to block on this event"
        };
        response = HookResponse {
            json: serde_json::json!({}),
            exit_code: 0,
            notes: vec![],
        };
        response
            .notes
            .push(format!("warden: ERROR: {cause} — {what}"));
    } else {
        response
            .notes
            .push(format!("warden: error: {cause} — blocking (fail-closed)"));
    }
    Outcome {
        response,
        audit: None,
    }
}

fn decide(a: &Args, input: &[u8], want_audit: bool) -> Outcome {
    let text = String::from_utf8_lossy(input);
    let payload: serde_json::Value = match serde_json::from_str(text.trim()) {
        Ok(v) => v,
        Err(e) => {
            return failure(
                Hook::PreToolCall,
                &format!("malformed payload: {e}"),
                a.fail_open,
            )
        }
    };
    let event = match hermes::parse_event(&payload) {
        Ok(e) => e,
        Err(e) => {
            return failure(
                Hook::PreToolCall,
                &format!("malformed payload: {e}"),
                a.fail_open,
            )
        }
    };
    let hook = event.hook;
    let mode = match a.host {
        HostArg::Auto => HostMode::detect(&payload),
        HostArg::Hermes019 => HostMode::Hermes019,
        HostArg::HermesLatest => HostMode::HermesLatest,
    };
    let paths: Vec<PathBuf> = a.policy.paths().iter().map(|p| expand_home(p)).collect();
    let source = if paths.is_empty() {
        Source::Builtin
    } else {
        Source::Paths(paths)
    };
    let opts = CompileOptions {
        lazy: true,
        ..CompileOptions::from_env()
    };
    let cache_dir = if a.no_cache {
        None
    } else {
        a.cache_dir
            .as_deref()
            .map(expand_home)
            .or_else(warden::compile::cache::default_dir)
    };
    let (verdict, key) =
        match warden::policy::decide_for_hook(&source, &event, &opts, cache_dir.as_deref()) {
            Ok(v) => v,
            Err(e) => return failure(hook, &format!("policy {e}"), a.fail_open),
        };
    let response = hermes::respond(&verdict, &event, mode);
    let audit = want_audit.then(|| {
        let (decision, message) = match &verdict.decision {
            Decision::Allow => ("allow", None),
            Decision::Block { message, .. } => ("block", Some(message.clone())),
            Decision::Approve { message, .. } => ("approve", Some(message.clone())),
            Decision::Modify { .. } => ("modify", None),
            Decision::Context { .. } => ("context", None),
            Decision::Redact { .. } => ("redact", None),
        };
        // What the host was actually told (an approve on 0.19 went out as a block).
        let sent =
            response
                .json
                .get("action")
                .and_then(|v| v.as_str())
                .map_or(decision, |s| match s {
                    "block" => "block",
                    "approve" => "approve",
                    "modify" => "modify",
                    _ => decision,
                });
        let logged_args = warden::audit::summarize_args(&event.args);
        AuditInfo {
            logged_args,
            rules: verdict.matches.iter().map(|m| m.rule.clone()).collect(),
            decision: sent,
            message,
            policy_hash: format!("{key:016x}"),
            host: mode,
            event,
        }
    });
    Outcome { response, audit }
}

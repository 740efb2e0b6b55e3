//! `warden serve`: the co-process behind host plugins. JSON lines on stdin and
//! stdout (protocol in `warden::serve`), logs on stderr, the whole policy
//! compiled once and swapped when its files change, a deadline per request,
//! and a clean exit on EOF.

use super::PolicyArgs;
use serde_json::Value;
use std::fs::File;
use std::io::{BufRead, Read, Write};
use std::path::{Path, PathBuf};
use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::{Arc, Mutex};
use std::time::{Duration, Instant, SystemTime};
use warden::paths::expand_home;
use warden::policy::Source;
use warden::redact::KnownValues;
use warden::serve::{error_line, parse_request, Config, Engine, Response, DEFAULT_MAX_REQUEST};
use warden::CompileOptions;

/// `--help` epilogue.
pub(crate) const AFTER_HELP: &str = "Protocol (version 1), one JSON object per line each way:
  {\"id\":1,\"op\":\"hello\",\"host\":\"hermes\",\"host_version\":\"0.19.0\"}
  {\"id\":2,\"op\":\"decide\",\"payload\":{\"hook_event_name\":\"pre_tool_call\",\"tool_name\":\"terminal\",\"tool_input\":{\"command\":\"rm -rf /\"}}}
  {\"id\":3,\"op\":\"redact\",\"event\":\"transform_tool_result\",\"texts\":[\"...\"]}
  {\"id\":4,\"op\":\"status\"}
A redact may send its texts raw: \"raw\":[N,...] (byte lengths) instead of \"texts\", the bytes
right after the line; the answer then has \"raw\":[M or null,...] and the redacted bytes after its line.
Every answer echoes the id and carries \"ok\" and the policy \"status\". A client must treat
ok=false, a late answer or a missing one as a refusal.

The policy files are watched: a valid edit is swapped in atomically; an invalid one is
refused (said on stderr and in every answer's status) and the last good policy stays.

Exit codes: 0 on EOF of stdin, 2 on a usage error.";

#[derive(clap::Args)]
pub(crate) struct Args {
    #[command(flatten)]
    policy: PolicyArgs,
    /// Append one JSON line per decision to FILE, argument values redacted (default $WARDEN_AUDIT).
    #[arg(long, value_name = "FILE", env = "WARDEN_AUDIT")]
    audit: Option<PathBuf>,
    /// Per-request deadline in milliseconds; past it the request is answered with an error.
    #[arg(long, value_name = "MS", default_value_t = 1000)]
    deadline: u64,
    /// Largest accepted request line in bytes; a larger one is answered with an error.
    #[arg(long, value_name = "BYTES", default_value_t = DEFAULT_MAX_REQUEST)]
    max_request: usize,
    /// How often to look for policy edits, milliseconds (0: never reload).
    #[arg(long, value_name = "MS", default_value_t = 500)]
    reload_interval: u64,
    /// Write the serving status (policy hash, refused edit) as JSON to FILE, for `warden doctor`.
    #[arg(long, value_name = "FILE")]
    status_file: Option<PathBuf>,
    /// Also mask, in every redaction, the exact values of this process's secret-looking
    /// environment variables (the host's own secrets: the plugin's co-process inherits them).
    #[arg(long)]
    known_from_env: bool,
    /// Also mask every line of FILE as a known value (with or without --known-from-env).
    #[arg(long, value_name = "FILE")]
    known_file: Option<PathBuf>,
}

/// Where answers go: stdout without its line buffering, so one answer is one `write`.
type Out = Mutex<File>;

/// The known values asked for, or the error that stops serving (never the values).
fn known_values(a: &Args) -> Result<Option<Arc<KnownValues>>, String> {
    if !a.known_from_env && a.known_file.is_none() {
        return Ok(None);
    }
    let file = a.known_file.as_deref().map(expand_home);
    let k = if a.known_from_env {
        KnownValues::from_env_and_file(file.as_deref())
    } else {
        KnownValues::from_file(file.as_deref().unwrap_or(Path::new("")))
    };
    k.map(|k| Some(Arc::new(k)))
        .map_err(|e| format!("cannot read the known-values file: {e}"))
}

/// This process's stdout as a plain file (a duplicate of fd 1).
fn raw_stdout() -> std::io::Result<File> {
    use std::os::fd::AsFd;
    Ok(File::from(std::io::stdout().as_fd().try_clone_to_owned()?))
}

/// The request in flight, for the deadline watchdog.
struct Inflight {
    /// Sequence number of the request being worked on (0: none).
    seq: AtomicU64,
    /// Its start, milliseconds since `epoch`.
    started_ms: AtomicU64,
    /// Its id, to answer it on timeout.
    id: Mutex<Value>,
    epoch: Instant,
}

pub(crate) fn run(a: Args) -> i32 {
    let paths: Vec<PathBuf> = a.policy.paths().iter().map(|p| expand_home(p)).collect();
    let source = if paths.is_empty() {
        Source::Builtin
    } else {
        Source::Paths(paths)
    };
    let status_file = a.status_file.as_deref().map(expand_home);
    let out: Arc<Out> = match raw_stdout() {
        Ok(f) => Arc::new(Mutex::new(f)),
        Err(e) => {
            eprintln!("warden serve: cannot use stdout: {e}");
            return 1;
        }
    };
    let known = match known_values(&a) {
        Ok(k) => k,
        Err(cause) => {
            eprintln!("warden serve: ERROR: {cause} — refusing every request");
            write_status(status_file.as_deref(), None, &cause);
            return refuse_all(&out, &cause, a.max_request);
        }
    };
    if let Some(k) = &known {
        // the count only: the values are never logged
        eprintln!("warden serve: masking {} known value(s)", k.len());
    }
    let config = Config {
        source,
        compile: CompileOptions::from_env(),
        audit: a.audit.as_deref().map(expand_home),
        known,
    };
    let engine = match Engine::new(config) {
        Ok(e) => Arc::new(e),
        Err(e) => {
            let cause = format!("cannot load the policy: {e}");
            eprintln!("warden serve: ERROR: {cause} — refusing every request");
            write_status(status_file.as_deref(), None, &cause);
            return refuse_all(&out, &cause, a.max_request);
        }
    };
    let l = engine.current();
    eprintln!(
        "warden serve: policy {} loaded from {} ({} rules)",
        l.hash,
        l.origin,
        l.set().rule_count()
    );
    write_status(status_file.as_deref(), Some(&l.hash), "ok");
    drop(l);
    let inflight = Arc::new(Inflight {
        seq: AtomicU64::new(0),
        started_ms: AtomicU64::new(0),
        id: Mutex::new(Value::Null),
        epoch: Instant::now(),
    });
    if a.deadline > 0 {
        spawn_watchdog(
            Arc::clone(&engine),
            Arc::clone(&out),
            Arc::clone(&inflight),
            Duration::from_millis(a.deadline),
        );
    }
    if a.reload_interval > 0 && !engine.watched().is_empty() {
        spawn_reloader(
            Arc::clone(&engine),
            Duration::from_millis(a.reload_interval),
            status_file,
        );
    }
    let stdin = std::io::stdin();
    let mut input = std::io::BufReader::with_capacity(64 << 10, stdin.lock());
    let mut buf = Vec::with_capacity(4096);
    let mut body = Vec::new();
    let mut wire = Vec::with_capacity(4096);
    let mut seq = 0u64;
    loop {
        buf.clear();
        if input.buffer().is_empty() {
            await_request(SPIN);
        }
        let line = match read_line(&mut input, a.max_request, &mut buf) {
            Ok(l) => l,
            Err(e) => {
                eprintln!("warden serve: cannot read stdin: {e}; exiting");
                return 0;
            }
        };
        let response = match line {
            Line::Eof => return 0,
            Line::TooLong => engine.reject(
                Value::Null,
                format!("request larger than {} bytes", a.max_request),
            ),
            Line::Full => {
                if buf.iter().all(u8::is_ascii_whitespace) {
                    continue;
                }
                seq += 1;
                inflight.started_ms.store(
                    inflight.epoch.elapsed().as_millis() as u64,
                    Ordering::SeqCst,
                );
                let req = match parse_request(&buf) {
                    Ok(r) => r,
                    Err((id, e)) => {
                        if !send(&out, &engine.reject(id, e), &mut wire) {
                            return 0;
                        }
                        continue;
                    }
                };
                let n = req.body_len();
                body.clear();
                if n > a.max_request {
                    // the client sent the bytes anyway: read past them to stay in step
                    if skip(&mut input, n).is_err() {
                        return 0;
                    }
                    let r = engine.reject(
                        req.id.clone(),
                        format!("request larger than {} bytes", a.max_request),
                    );
                    if !send(&out, &r, &mut wire) {
                        return 0;
                    }
                    continue;
                }
                body.resize(n, 0);
                if let Err(e) = input.read_exact(&mut body) {
                    eprintln!(
                        "warden serve: the raw body of a request was cut short ({e}); exiting"
                    );
                    return 0;
                }
                if let Ok(mut g) = inflight.id.lock() {
                    *g = req.id.clone();
                }
                inflight.seq.store(seq, Ordering::SeqCst);
                let r = engine.answer(&req, &body);
                // the watchdog may have answered already (it zeroes `seq` when it does)
                if inflight
                    .seq
                    .compare_exchange(seq, 0, Ordering::SeqCst, Ordering::SeqCst)
                    .is_err()
                {
                    continue;
                }
                r
            }
        };
        if !send(&out, &response, &mut wire) {
            return 0;
        }
    }
}

/// How long `serve` polls stdin after an answer before it blocks in `read`. A plugin's
/// requests come in bursts (a tool call's decision, then its result's redaction), and on a
/// virtual machine a vCPU that blocks halts: waking it for the next request costs the
/// hypervisor 100–200 µs, several times a decision. Polling this long keeps it awake
/// through a burst, for at most this much CPU time per request.
const SPIN: Duration = Duration::from_micros(300);

/// Return when stdin has input or `spin` has passed, whichever is first (the caller then
/// reads, blocking if need be).
#[cfg(unix)]
fn await_request(spin: Duration) {
    let start = Instant::now();
    let mut p = libc::pollfd {
        fd: 0,
        events: libc::POLLIN,
        revents: 0,
    };
    // SAFETY: one valid pollfd, a zero timeout
    while unsafe { libc::poll(&mut p, 1, 0) } == 0 && start.elapsed() < spin {
        // the plugin, woken by the answer, may be queued on this very CPU
        std::thread::yield_now();
    }
}

/// Elsewhere the read blocks at once.
#[cfg(not(unix))]
fn await_request(_spin: Duration) {}

/// Read and drop `n` bytes.
fn skip(r: &mut impl Read, n: usize) -> std::io::Result<()> {
    let got = std::io::copy(&mut r.take(n as u64), &mut std::io::sink())?;
    if (got as usize) < n {
        return Err(std::io::ErrorKind::UnexpectedEof.into());
    }
    Ok(())
}

/// Write one answer in a single `write` (reusing `wire`); false when stdout is gone (the
/// client exited).
fn send(out: &Out, r: &Response, wire: &mut Vec<u8>) -> bool {
    wire.clear();
    r.write_to(wire);
    let mut g = match out.lock() {
        Ok(g) => g,
        Err(p) => p.into_inner(),
    };
    g.write_all(wire).is_ok()
}

fn spawn_watchdog(engine: Arc<Engine>, out: Arc<Out>, inflight: Arc<Inflight>, deadline: Duration) {
    let tick = (deadline / 4).clamp(Duration::from_millis(1), Duration::from_millis(50));
    std::thread::spawn(move || loop {
        std::thread::sleep(tick);
        let seq = inflight.seq.load(Ordering::SeqCst);
        if seq == 0 {
            continue;
        }
        let started = inflight.started_ms.load(Ordering::SeqCst);
        let now = inflight.epoch.elapsed().as_millis() as u64;
        if now.saturating_sub(started) < deadline.as_millis() as u64 {
            continue;
        }
        if inflight
            .seq
            .compare_exchange(seq, 0, Ordering::SeqCst, Ordering::SeqCst)
            .is_ok()
        {
            let id = inflight.id.lock().map(|g| g.clone()).unwrap_or(Value::Null);
            eprintln!(
                "warden serve: request {id} exceeded the deadline of {} ms",
                deadline.as_millis()
            );
            let r = engine.reject(
                id,
                format!("deadline of {} ms exceeded", deadline.as_millis()),
            );
            if !send(&out, &r, &mut Vec::new()) {
                return;
            }
        }
    });
}

fn spawn_reloader(engine: Arc<Engine>, every: Duration, status_file: Option<PathBuf>) {
    // The baseline is taken before the thread starts (and before any request is read): taken
    // inside it, an edit made right after start-up could become the baseline and never load.
    let paths = engine.watched();
    let mut last = fingerprint(&paths);
    std::thread::spawn(move || {
        loop {
            std::thread::sleep(every);
            let now = fingerprint(&paths);
            if now == last {
                continue;
            }
            // an editor may still be writing: reload once the files hold still for one interval
            std::thread::sleep(every);
            if fingerprint(&paths) != now {
                continue;
            }
            last = now;
            match engine.reload() {
                Ok(l) => {
                    eprintln!(
                        "warden serve: policy reloaded: {} ({} rules)",
                        l.hash,
                        l.set().rule_count()
                    );
                    write_status(status_file.as_deref(), Some(&l.hash), "ok");
                }
                Err(e) => {
                    let s = engine.state();
                    eprintln!(
                        "warden serve: ERROR: the policy edit is INVALID and was NOT applied: {e}\nwarden serve: still enforcing the last good policy {}",
                        s.loaded.hash
                    );
                    write_status(status_file.as_deref(), Some(&s.loaded.hash), &s.status());
                }
            }
        }
    });
}

/// Paths, sizes and modification times of every file under `paths`.
fn fingerprint(paths: &[PathBuf]) -> Vec<(PathBuf, u64, Option<SystemTime>)> {
    fn walk(p: &Path, out: &mut Vec<(PathBuf, u64, Option<SystemTime>)>, depth: u32) {
        let Ok(meta) = std::fs::metadata(p) else {
            out.push((p.to_path_buf(), u64::MAX, None));
            return;
        };
        if meta.is_dir() {
            if depth > 16 {
                return;
            }
            if let Ok(rd) = std::fs::read_dir(p) {
                let mut kids: Vec<PathBuf> = rd.filter_map(|e| e.ok().map(|e| e.path())).collect();
                kids.sort();
                for k in kids {
                    walk(&k, out, depth + 1);
                }
            }
        } else {
            out.push((p.to_path_buf(), meta.len(), meta.modified().ok()));
        }
    }
    let mut out = Vec::new();
    for p in paths {
        walk(p, &mut out, 0);
    }
    out
}

fn write_status(path: Option<&Path>, policy_hash: Option<&str>, status: &str) {
    let Some(path) = path else { return };
    let v = serde_json::json!({
        "pid": std::process::id(),
        "policy_hash": policy_hash,
        "status": status,
    });
    let tmp = path.with_extension("tmp");
    let ok = std::fs::write(&tmp, v.to_string()).and_then(|_| std::fs::rename(&tmp, path));
    if let Err(e) = ok {
        eprintln!("warden serve: cannot write {}: {e}", path.display());
    }
}

/// No policy: every request is answered with the cause (the plugin refuses and says why).
fn refuse_all(out: &Out, cause: &str, max: usize) -> i32 {
    let stdin = std::io::stdin();
    let mut input = stdin.lock();
    let mut buf = Vec::new();
    let mut wire = Vec::new();
    loop {
        buf.clear();
        match read_line(&mut input, max, &mut buf) {
            Ok(Line::Eof) | Err(_) => return 0,
            Ok(Line::TooLong) => {}
            Ok(Line::Full) if buf.iter().all(u8::is_ascii_whitespace) => continue,
            Ok(Line::Full) => {}
        }
        let (id, n) = match parse_request(&buf) {
            Ok(r) => (r.id.clone(), r.body_len()),
            Err((id, _)) => (id, 0),
        };
        if n > 0 && skip(&mut input, n).is_err() {
            return 0;
        }
        let r = Response {
            head: error_line(id, cause, cause),
            body: Vec::new(),
        };
        if !send(out, &r, &mut wire) {
            return 0;
        }
    }
}

/// What [`read_line`] read.
#[derive(Debug, PartialEq)]
enum Line {
    /// A whole line (without its newline) is in the buffer; also a last line without one.
    Full,
    /// The line was longer than the limit; it was read and dropped.
    TooLong,
    /// End of input.
    Eof,
}

/// Read one `\n`-terminated line into `buf`, holding at most `max` bytes of it.
fn read_line(r: &mut impl BufRead, max: usize, buf: &mut Vec<u8>) -> std::io::Result<Line> {
    let mut too_long = false;
    let mut any = false;
    loop {
        let avail = match r.fill_buf() {
            Ok(a) => a,
            Err(e) if e.kind() == std::io::ErrorKind::Interrupted => continue,
            Err(e) => return Err(e),
        };
        if avail.is_empty() {
            return Ok(match (any, too_long) {
                (false, _) => Line::Eof,
                (true, true) => Line::TooLong,
                (true, false) => Line::Full,
            });
        }
        any = true;
        let (chunk, done) = match memchr::memchr(b'\n', avail) {
            Some(i) => (&avail[..i], Some(i + 1)),
            None => (avail, None),
        };
        if !too_long {
            if buf.len() + chunk.len() > max {
                too_long = true;
                buf.clear();
            } else {
                buf.extend_from_slice(chunk);
            }
        }
        let used = done.unwrap_or(avail.len());
        r.consume(used);
        if done.is_some() {
            return Ok(if too_long { Line::TooLong } else { Line::Full });
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn lines_are_bounded_and_eof_is_clean() {
        let data = b"{\"a\":1}\nxxxxxxxxxxxxxxxxxxxx\n{\"b\":2}\nlast".to_vec();
        let mut r = std::io::BufReader::with_capacity(4, &data[..]);
        let mut buf = Vec::new();
        assert_eq!(read_line(&mut r, 10, &mut buf).unwrap(), Line::Full);
        assert_eq!(buf, b"{\"a\":1}");
        buf.clear();
        assert_eq!(read_line(&mut r, 10, &mut buf).unwrap(), Line::TooLong);
        assert!(buf.is_empty());
        buf.clear();
        assert_eq!(read_line(&mut r, 10, &mut buf).unwrap(), Line::Full);
        assert_eq!(buf, b"{\"b\":2}");
        buf.clear();
        assert_eq!(read_line(&mut r, 10, &mut buf).unwrap(), Line::Full);
        assert_eq!(buf, b"last");
        buf.clear();
        assert_eq!(read_line(&mut r, 10, &mut buf).unwrap(), Line::Eof);
    }
}

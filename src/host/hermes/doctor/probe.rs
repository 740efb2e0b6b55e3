//! The live probe: run the configured hook command once, as Hermes would, on a
//! harmless call, and judge its stdout as Hermes does.

use super::{Report, Status, EVENT};
use serde_json::{json, Value as Json};
use std::io::{Read, Write};
use std::process::{Command, Stdio};
use std::time::{Duration, Instant};

/// Run the configured command once, as Hermes would, on a harmless call.
pub(super) fn probe(argv: &[String], timeout_s: u64, r: &mut Report) {
    let payload = json!({
        "hook_event_name": EVENT,
        "tool_name": "terminal",
        "tool_input": {"command": "echo warden-doctor-probe"},
        "session_id": "warden-doctor",
        "cwd": std::env::current_dir().map(|p| p.to_string_lossy().into_owned()).unwrap_or_default(),
        "extra": {"task_id": "warden-doctor", "tool_call_id": "warden-doctor", "turn_id": "",
                  "api_request_id": "", "middleware_trace": [], "telemetry_schema_version": "hermes.observer.v1"},
    });
    let limit = Duration::from_secs(timeout_s.clamp(1, 30));
    let out = match run_with_timeout(
        Command::new(&argv[0]).args(&argv[1..]),
        Some(payload.to_string().as_bytes()),
        limit,
    ) {
        Ok(o) => o,
        Err(e) => {
            r.add(
                "probe",
                Status::Fail,
                format!("the hook command did not run: {e}"),
            );
            return;
        }
    };
    let Some((code, stdout, stderr, took)) = out else {
        r.add(
            "probe",
            Status::Fail,
            format!("the hook command did not answer within {} s (Hermes would kill it and ALLOW the call)", limit.as_secs()),
        );
        return;
    };
    let text = stdout.trim();
    let parsed: Option<Json> = serde_json::from_str(text).ok().filter(Json::is_object);
    match parsed {
        Some(v)
            if v.get("action").and_then(Json::as_str) == Some("block")
                || v.get("decision").and_then(Json::as_str) == Some("block") =>
        {
            let msg = v
                .get("message")
                .or_else(|| v.get("reason"))
                .and_then(Json::as_str)
                .unwrap_or("");
            r.add(
                "probe",
                Status::Fail,
                format!("the hook blocks a harmless `echo`: {msg}"),
            );
        }
        Some(_) => {
            r.add(
                "probe",
                Status::Pass,
                format!(
                    "the hook answers a harmless probe with one JSON object ({} ms, exit {code})",
                    took.as_millis()
                ),
            );
        }
        None => {
            let c = r.add(
                "probe",
                Status::Fail,
                "the hook's stdout is not exactly one JSON object: Hermes would ignore it and ALLOW every call",
            );
            c.detail.push(format!("stdout: {:?}", truncate(text, 300)));
            if !stderr.trim().is_empty() {
                c.detail
                    .push(format!("stderr: {:?}", truncate(stderr.trim(), 300)));
            }
        }
    }
}

fn truncate(s: &str, n: usize) -> String {
    if s.chars().count() <= n {
        s.to_string()
    } else {
        format!("{}…", s.chars().take(n).collect::<String>())
    }
}

type RunOutput = Option<(i32, String, String, Duration)>;

/// Spawn, feed stdin, wait at most `limit` (then kill). `Ok(None)` on timeout.
pub(super) fn run_with_timeout(
    cmd: &mut Command,
    input: Option<&[u8]>,
    limit: Duration,
) -> std::io::Result<RunOutput> {
    let start = Instant::now();
    let mut child = cmd
        .stdin(if input.is_some() {
            Stdio::piped()
        } else {
            Stdio::null()
        })
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()?;
    if let (Some(data), Some(mut stdin)) = (input, child.stdin.take()) {
        let data = data.to_vec();
        std::thread::spawn(move || {
            let _ = stdin.write_all(&data);
        });
    }
    let mut so = child.stdout.take().expect("piped");
    let mut se = child.stderr.take().expect("piped");
    let t_out = std::thread::spawn(move || {
        let mut b = Vec::new();
        let _ = so.read_to_end(&mut b);
        b
    });
    let t_err = std::thread::spawn(move || {
        let mut b = Vec::new();
        let _ = se.read_to_end(&mut b);
        b
    });
    loop {
        if let Some(status) = child.try_wait()? {
            let took = start.elapsed();
            let out = t_out.join().unwrap_or_default();
            let err = t_err.join().unwrap_or_default();
            return Ok(Some((
                status.code().unwrap_or(-1),
                String::from_utf8_lossy(&out).into_owned(),
                String::from_utf8_lossy(&err).into_owned(),
                took,
            )));
        }
        if start.elapsed() > limit {
            let _ = child.kill();
            let _ = child.wait();
            return Ok(None);
        }
        std::thread::sleep(Duration::from_millis(10));
    }
}

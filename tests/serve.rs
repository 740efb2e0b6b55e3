//! `warden serve` as a process: framing, oversized lines, ids, clean exit on EOF,
//! hot reload of an edited policy file (an invalid edit keeps the last good policy).

use serde_json::{json, Value};
use std::io::{BufRead, BufReader, Write};
use std::process::{Child, ChildStdin, ChildStdout, Command, Stdio};
use std::time::{Duration, Instant};

const POLICY: &str = r#"rule t.block {
  on pre_tool_call
  when tool == "terminal" and args.command contains "danger"
  block "first message"
}
"#;

struct Serve {
    child: Child,
    stdin: Option<ChildStdin>,
    out: BufReader<ChildStdout>,
}

impl Serve {
    fn start(args: &[&str]) -> Serve {
        let mut child = Command::new(env!("CARGO_BIN_EXE_warden"))
            .arg("serve")
            .args(args)
            .stdin(Stdio::piped())
            .stdout(Stdio::piped())
            .stderr(Stdio::null())
            .spawn()
            .unwrap();
        let stdin = child.stdin.take();
        let out = BufReader::new(child.stdout.take().unwrap());
        Serve { child, stdin, out }
    }

    fn send_raw(&mut self, line: &[u8]) -> Value {
        let s = self.stdin.as_mut().unwrap();
        s.write_all(line).unwrap();
        s.write_all(b"\n").unwrap();
        s.flush().unwrap();
        let mut l = String::new();
        self.out.read_line(&mut l).unwrap();
        serde_json::from_str(&l).unwrap_or_else(|e| panic!("{e}: {l:?}"))
    }

    fn decide(&mut self, id: u64, command: &str) -> Value {
        let q = json!({"id": id, "op": "decide", "payload": {"hook_event_name": "pre_tool_call",
            "tool_name": "terminal", "tool_input": {"command": command}}});
        self.send_raw(q.to_string().as_bytes())
    }

    fn finish(mut self) -> i32 {
        drop(self.stdin.take());
        let t = Instant::now();
        loop {
            if let Some(s) = self.child.try_wait().unwrap() {
                return s.code().unwrap_or(-1);
            }
            assert!(
                t.elapsed() < Duration::from_secs(30),
                "serve did not exit on EOF"
            );
            std::thread::sleep(Duration::from_millis(20));
        }
    }
}

#[test]
fn framing_limits_ids_and_eof() {
    let dir = tempfile::tempdir().unwrap();
    let p = dir.path().join("p.warden");
    std::fs::write(&p, POLICY).unwrap();
    let mut s = Serve::start(&["--policy", p.to_str().unwrap(), "--max-request", "300"]);
    let h = s.send_raw(br#"{"id":"a","op":"hello","host":"hermes","host_version":"0.19.0"}"#);
    assert_eq!(h["id"], "a");
    assert_eq!(h["protocol"], 1);
    let big = format!(r#"{{"id":1,"op":"decide","x":"{}"}}"#, "y".repeat(1000));
    let r = s.send_raw(big.as_bytes());
    assert_eq!(r["ok"], false);
    assert!(
        r["error"].as_str().unwrap().contains("larger than 300"),
        "{r}"
    );
    // the stream is still in step after an oversized line
    assert_eq!(s.decide(7, "danger")["decision"]["action"], "block");
    assert_eq!(s.decide(8, "ls")["id"], 8);
    let r = s.send_raw(b"{\"id\":9,\"op\":\"hello\"\xff}");
    assert_eq!(r["ok"], false);
    assert_eq!(s.finish(), 0);
}

#[test]
fn an_invalid_edit_keeps_the_last_good_policy_then_a_valid_one_is_swapped_in() {
    let dir = tempfile::tempdir().unwrap();
    let p = dir.path().join("p.warden");
    std::fs::write(&p, POLICY).unwrap();
    let mut s = Serve::start(&[
        "--policy",
        dir.path().to_str().unwrap(),
        "--reload-interval",
        "50",
    ]);
    assert_eq!(
        s.decide(1, "danger")["decision"]["message"],
        "first message"
    );
    std::fs::write(&p, "rule broken {").unwrap();
    let wait = |s: &mut Serve, id: u64, pred: &dyn Fn(&Value) -> bool| {
        let t = Instant::now();
        loop {
            let r = s.decide(id, "danger");
            if pred(&r) {
                return r;
            }
            assert!(t.elapsed() < Duration::from_secs(60), "no reload: {r}");
            std::thread::sleep(Duration::from_millis(50));
        }
    };
    let r = wait(&mut s, 2, &|r| r["status"] != "ok");
    assert_eq!(r["decision"]["message"], "first message", "{r}");
    assert!(r["status"].as_str().unwrap().starts_with("stale"));
    std::fs::write(&p, POLICY.replace("first message", "second message")).unwrap();
    let r = wait(&mut s, 3, &|r| r["decision"]["message"] == "second message");
    assert_eq!(r["status"], "ok", "{r}");
    assert_eq!(s.finish(), 0);
}

//! `warden serve` as a process: framing, oversized lines, ids, clean exit on EOF,
//! hot reload of an edited policy file (an invalid edit keeps the last good policy),
//! raw redaction bodies and known-value masking from the environment.

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
        Serve::start_env(args, &[])
    }

    fn start_env(args: &[&str], env: &[(&str, &str)]) -> Serve {
        let mut child = Command::new(env!("CARGO_BIN_EXE_warden"))
            .arg("serve")
            .args(args)
            .envs(env.iter().copied())
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
        self.send_body(line, b"")
    }

    /// A request line followed by `body` (a raw `redact`).
    fn send_body(&mut self, line: &[u8], body: &[u8]) -> Value {
        let s = self.stdin.as_mut().unwrap();
        s.write_all(line).unwrap();
        s.write_all(b"\n").unwrap();
        s.write_all(body).unwrap();
        s.flush().unwrap();
        let mut l = String::new();
        self.out.read_line(&mut l).unwrap();
        serde_json::from_str(&l).unwrap_or_else(|e| panic!("{e}: {l:?}"))
    }

    /// The `n` raw bytes after an answer's line.
    fn body(&mut self, n: usize) -> Vec<u8> {
        let mut b = vec![0; n];
        std::io::Read::read_exact(&mut self.out, &mut b).unwrap();
        b
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

#[test]
fn raw_redaction_bodies_stay_in_step() {
    let mut s = Serve::start(&["--max-request", "2000"]);
    let token = "ghp_R8mK2pQ7xW4nB9vL3tZ6yH1cF5dJ0sA2eG8u";
    let a = "nothing to see\n".to_string();
    let b = format!("line one\ntoken {token}\n\"quoted\" ünïcode");
    let line = format!(
        r#"{{"id":1,"op":"redact","raw":[{},{}]}}"#,
        a.len(),
        b.len()
    );
    let r = s.send_body(line.as_bytes(), format!("{a}{b}").as_bytes());
    assert_eq!(r["ok"], true, "{r}");
    assert_eq!(r["raw"][0], Value::Null);
    let n = r["raw"][1].as_u64().unwrap() as usize;
    let out = String::from_utf8(s.body(n)).unwrap();
    assert!(!out.contains(token) && out.contains("ünïcode"), "{out}");
    // a body larger than the limit is read past and refused; the stream stays in step
    let big = "x".repeat(3000);
    let line = format!(r#"{{"id":2,"op":"redact","raw":[{}]}}"#, big.len());
    let r = s.send_body(line.as_bytes(), big.as_bytes());
    assert_eq!(
        (r["id"].as_u64(), r["ok"].as_bool()),
        (Some(2), Some(false))
    );
    assert!(r["error"].as_str().unwrap().contains("larger than"), "{r}");
    // invalid UTF-8 in a body: an error answer, no body after it
    let r = s.send_body(br#"{"id":3,"op":"redact","raw":[2]}"#, b"\xff\xfe");
    assert_eq!(
        (r["id"].as_u64(), r["ok"].as_bool()),
        (Some(3), Some(false))
    );
    assert_eq!(s.decide(4, "ls")["id"], 4);
    assert_eq!(s.finish(), 0);
}

#[test]
fn known_values_from_the_environment_are_masked() {
    // no rule recognises this value; only the environment says it is a secret
    let value = "Zq8vLm3Tr9Wx2Kp7Yb4NcD6h";
    let mut s = Serve::start_env(&["--known-from-env"], &[("DEPLOY_TOKEN", value)]);
    let h = s.send_raw(br#"{"id":1,"op":"hello"}"#);
    assert!(h["known_values"].as_u64().unwrap() >= 1, "{h}");
    let text = format!("build {value} finished");
    let q = json!({"id": 2, "op": "redact", "texts": [text]});
    let r = s.send_raw(q.to_string().as_bytes());
    let t = r["texts"][0].as_str().unwrap_or_else(|| panic!("{r}"));
    assert!(
        !t.contains(value) && t.contains("[REDACTED:known-secret]"),
        "{t}"
    );
    assert_eq!(s.finish(), 0);
    // without the switch the value passes (the control)
    let mut s = Serve::start_env(&[], &[("DEPLOY_TOKEN", value)]);
    let q = json!({"id": 3, "op": "redact", "texts": [format!("build {value} finished")]});
    assert_eq!(
        s.send_raw(q.to_string().as_bytes())["texts"][0],
        Value::Null
    );
    assert_eq!(s.finish(), 0);
}

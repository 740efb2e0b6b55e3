//! Golden tests for `warden check` diagnostics.
//!
//! Every `tests/golden/NAME.warden` (or directory `tests/golden/NAME/`, for
//! findings that span several files) is a small broken policy. The test runs
//! the built binary, `warden check NAME…`, from `tests/golden/` with
//! `NO_COLOR=1`, and compares its exact stderr with `tests/golden/NAME.expected`.
//!
//! `UPDATE_GOLDEN=1 cargo test --test golden_diagnostics` rewrites the
//! expected files; read the diff before committing it.
//!
//! Besides the exact comparison, every diagnostic is held to the shape a
//! human needs: a `file:line:col` location, the source line, a caret, and a
//! message without parser-internal names or Rust debug output.

use std::path::{Path, PathBuf};
use std::process::Command;

fn golden_dir() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("tests")
        .join("golden")
}

/// Every case: (name, the path argument relative to `tests/golden`).
fn cases() -> Vec<(String, String)> {
    let mut out = Vec::new();
    for entry in std::fs::read_dir(golden_dir()).expect("tests/golden") {
        let path = entry.expect("dir entry").path();
        let name = path.file_name().unwrap().to_string_lossy().into_owned();
        if path.is_dir() {
            out.push((name.clone(), name));
        } else if let Some(stem) = name.strip_suffix(".warden") {
            out.push((stem.to_string(), name.clone()));
        }
    }
    out.sort();
    out
}

/// Run `warden check ARG` in `tests/golden`; (exit code, stderr).
fn check(arg: &str) -> (i32, String) {
    let out = Command::new(env!("CARGO_BIN_EXE_warden"))
        .arg("check")
        .arg(arg)
        .current_dir(golden_dir())
        .env("NO_COLOR", "1")
        .env_remove("WARDEN_POLICY")
        .output()
        .expect("run warden");
    assert!(
        out.stdout.is_empty(),
        "{arg}: `check` printed to stdout: {}",
        String::from_utf8_lossy(&out.stdout)
    );
    (
        out.status.code().unwrap_or(-1),
        String::from_utf8(out.stderr).expect("stderr is UTF-8"),
    )
}

/// Words that would mean a raw pest rule name or Rust debug output leaked.
const LEAKS: &[&str] = &[
    "Rule::",
    "rule_item",
    "or_cond",
    "and_cond",
    "str_inner",
    "regex_body",
    "list_lit",
    "when_clause",
    "block_action",
    "EOI",
    "SOI",
    "Some(",
    "None",
    "Span {",
    "Err(",
    "Ok(",
    "\\\"",
    "panicked",
];

/// The shape every rendered diagnostic must have.
fn assert_human(name: &str, stderr: &str) {
    let blocks: Vec<&str> = stderr
        .split("\n\n")
        .filter(|b| b.starts_with("error[") || b.starts_with("warning["))
        .collect();
    assert!(
        !blocks.is_empty(),
        "{name}: no diagnostic at all:\n{stderr}"
    );
    for b in &blocks {
        let loc = b
            .lines()
            .find_map(|l| l.trim_start().strip_prefix("--> "))
            .unwrap_or_else(|| panic!("{name}: no `--> file:line:col`:\n{b}"));
        let parts: Vec<&str> = loc.rsplitn(3, ':').collect();
        assert!(
            parts.len() == 3
                && parts[0].parse::<usize>().is_ok()
                && parts[1].parse::<usize>().is_ok()
                && parts[2].ends_with(".warden"),
            "{name}: location `{loc}` is not file:line:col"
        );
        let line: usize = parts[1].parse().unwrap();
        assert!(
            b.lines()
                .any(|l| l.trim_start().starts_with(&format!("{line} |"))),
            "{name}: source line {line} not shown:\n{b}"
        );
        assert!(b.lines().any(|l| l.contains('^')), "{name}: no caret:\n{b}");
        let headline = b.lines().next().unwrap();
        let msg = headline
            .split_once("]: ")
            .map(|(_, m)| m)
            .unwrap_or_else(|| panic!("{name}: no message in `{headline}`"));
        assert!(msg.len() >= 10, "{name}: message too short: `{msg}`");
    }
    for leak in LEAKS {
        assert!(
            !stderr.contains(leak),
            "{name}: output contains `{leak}`:\n{stderr}"
        );
    }
    let summary = stderr.trim_end().lines().last().unwrap_or_default();
    assert!(
        summary.contains("error") && summary.contains("warning"),
        "{name}: no summary line, last line is `{summary}`"
    );
}

#[test]
fn golden_diagnostics() {
    let update = std::env::var_os("UPDATE_GOLDEN").is_some_and(|v| !v.is_empty() && v != "0");
    let cases = cases();
    assert!(
        cases.len() >= 22,
        "expected at least 22 golden cases, found {}",
        cases.len()
    );
    let mut failures = Vec::new();
    for (name, arg) in &cases {
        let (code, stderr) = check(arg);
        let expected_path = golden_dir().join(format!("{name}.expected"));
        let errors = stderr.lines().filter(|l| l.starts_with("error[")).count();
        // Exit 1 exactly when there is an error; a warning alone never fails `check`.
        let want_code = if errors > 0 { 1 } else { 0 };
        if code != want_code {
            failures.push(format!(
                "{name}: exit code {code}, expected {want_code}\n{stderr}"
            ));
        }
        assert_human(name, &stderr);
        if update {
            std::fs::write(&expected_path, &stderr).expect("write expected");
            continue;
        }
        let expected = std::fs::read_to_string(&expected_path).unwrap_or_else(|_| {
            panic!(
                "{}: missing; run UPDATE_GOLDEN=1 cargo test --test golden_diagnostics",
                expected_path.display()
            )
        });
        if expected != stderr {
            failures.push(format!("{name}: stderr differs from {name}.expected\n--- expected\n{expected}\n--- actual\n{stderr}"));
        }
    }
    // No stale expected files without a policy.
    for entry in std::fs::read_dir(golden_dir()).unwrap() {
        let p = entry.unwrap().path();
        if let Some(stem) = p
            .file_name()
            .unwrap()
            .to_str()
            .unwrap()
            .strip_suffix(".expected")
        {
            if !cases.iter().any(|(n, _)| n == stem) {
                failures.push(format!("{}: no policy for this expected file", p.display()));
            }
        }
    }
    assert!(
        failures.is_empty(),
        "{} golden failure(s):\n\n{}",
        failures.len(),
        failures.join("\n\n")
    );
}

/// Cases whose point is a specific finding: the code and the place must stay
/// right even when wording changes (and `UPDATE_GOLDEN` is run carelessly).
#[test]
fn golden_findings_are_the_intended_ones() {
    let want: &[(&str, &[&str], &str)] = &[
        (
            "syntax_unclosed_string",
            &["syntax"],
            "syntax_unclosed_string.warden:3:",
        ),
        (
            "syntax_missing_brace",
            &["syntax"],
            "syntax_missing_brace.warden:",
        ),
        (
            "syntax_bad_operator",
            &["syntax"],
            "syntax_bad_operator.warden:3:13",
        ),
        (
            "syntax_missing_condition",
            &["syntax"],
            "syntax_missing_condition.warden:",
        ),
        (
            "syntax_junk_top_level",
            &["syntax"],
            "syntax_junk_top_level.warden:7:1",
        ),
        (
            "syntax_two_broken_rules",
            &["syntax", "syntax"],
            "syntax_two_broken_rules.warden:15:",
        ),
        (
            "unknown_field",
            &["unknown-field"],
            "did you mean `user_message`?",
        ),
        (
            "field_not_on_event",
            &["field-not-on-event"],
            "field_not_on_event.warden:3:8",
        ),
        (
            "unknown_event",
            &["unknown-event"],
            "did you mean `pre_tool_call`?",
        ),
        ("bad_regex", &["bad-regex"], "bad_regex.warden:3:42"),
        ("bad_glob", &["bad-glob"], "bad_glob.warden:3:"),
        (
            "unknown_list",
            &["unknown-list"],
            "did you mean `system_paths`?",
        ),
        (
            "unknown_define",
            &["unknown-name"],
            "did you mean `is_file_write`?",
        ),
        (
            "recursive_define",
            &["recursive-define"],
            "recursive_define.warden:",
        ),
        (
            "duplicate_rule",
            &["duplicate-rule"],
            "duplicate_rule/a.warden:1:6",
        ),
        (
            "exempt_unknown_rule",
            &["exempt-unknown-rule"],
            "did you mean `git.force_push`?",
        ),
        (
            "exempt_no_reason",
            &["exempt-needs-reason"],
            "exempt_no_reason.warden:7:",
        ),
        (
            "exempt_expired",
            &["exemption-expired"],
            "exempt_expired.warden:7:",
        ),
        (
            "block_empty_message",
            &["empty-message"],
            "block_empty_message.warden:4:",
        ),
        (
            "approve_on_llm",
            &["action-not-on-event"],
            "approve_on_llm.warden:2:6",
        ),
        (
            "modify_non_args",
            &["bad-modify-target"],
            "modify_non_args.warden:4:10",
        ),
        (
            "two_actions",
            &["several-actions"],
            "two_actions.warden:5:3",
        ),
        (
            "requires_incompatible",
            &["incompatible-pack"],
            "requires warden >= 99",
        ),
        ("bad_template", &["bad-template"], "bad_template.warden:4:"),
    ];
    for (name, codes, needle) in want {
        let arg = if golden_dir().join(name).is_dir() {
            name.to_string()
        } else {
            format!("{name}.warden")
        };
        let (_, stderr) = check(&arg);
        let got: Vec<&str> = stderr
            .lines()
            .filter_map(|l| {
                l.strip_prefix("error[")
                    .or_else(|| l.strip_prefix("warning["))
            })
            .filter_map(|l| l.split_once(']').map(|(c, _)| c))
            .collect();
        assert_eq!(&got, codes, "{name}: diagnostic codes\n{stderr}");
        assert!(
            stderr.contains(needle),
            "{name}: expected `{needle}` in\n{stderr}"
        );
    }
}

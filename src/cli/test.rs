//! `warden test PATH...`: run the `*.test.yaml` policy tests beside the
//! policies and report failures (with an expected/actual diff), coverage,
//! and JUnit XML for CI.

use super::{EXIT_OK, EXIT_POLICY, EXIT_USAGE};
use std::path::{Path, PathBuf};
use std::time::Duration;
use warden::testing::{self, CaseResult, TestFile};
use warden::{LoadError, Policy};

pub(crate) const AFTER_HELP: &str = "\
Examples:
  warden test policies/
  warden test policies/ --coverage --coverage-threshold 90
  warden test policies/fs.warden policies/fs.test.yaml --filter 'rm -rf'
  warden test policies/ --format junit > warden-tests.xml

A test file (NAME.test.yaml) lists events and what must happen:
  tests:
    - name: rm -rf / is blocked
      tool: terminal                  # event defaults to pre_tool_call
      args: {command: \"rm -rf /\"}
      expect: {decision: block, rule: fs.rm_root, message_contains: \"root\"}
    - name: aws key in a tool result
      event: transform_tool_result
      result: \"AKIAQ3EGPLVZ5XKJRM7T\"
      expect: {redacted: \"[REDACTED:aws-access-key]\", rules: [secret.aws_access_key]}

Where tests are found: every *.test.yaml under a directory PATH; NAME.test.yaml beside a
policy file NAME.warden; test files given as PATH (their directories are then the policies,
unless policy paths are given too). Without PATH: the shipped packs, with the tests in
./policies/*.test.yaml (the tests are not embedded in the binary).

Exit codes:
  0  every test passed (and coverage is at least --coverage-threshold)
  1  a test failed, or coverage is below --coverage-threshold
  2  usage, I/O or policy error (unreadable path, invalid test file, policy errors, no tests found)";

/// Output formats of `test`.
#[derive(clap::ValueEnum, Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum Format {
    /// Failures with an expected/actual diff, then `N passed, N failed`.
    Human,
    /// JUnit XML on stdout (the summary line goes to stderr).
    Junit,
    /// One JSON object with every result.
    Json,
}

#[derive(clap::Args)]
pub(crate) struct Args {
    /// Policy files or directories, and test files. Default: the shipped packs and ./policies/*.test.yaml.
    #[arg(value_name = "PATH")]
    paths: Vec<PathBuf>,
    /// Output format.
    #[arg(long, value_enum, default_value = "human")]
    format: Format,
    /// Report the rules no test exercises, and the coverage percentage.
    #[arg(long)]
    coverage: bool,
    /// Fail (exit 1) when fewer than N percent of the rules are exercised (implies --coverage).
    #[arg(long, value_name = "N")]
    coverage_threshold: Option<f64>,
    /// Run only the tests whose name contains SUBSTRING.
    #[arg(long, value_name = "SUBSTRING")]
    filter: Option<String>,
    /// List passing tests too.
    #[arg(short, long)]
    verbose: bool,
}

/// What to load: policy paths (empty = the shipped packs) and test files.
fn plan(paths: &[PathBuf]) -> (Vec<PathBuf>, Vec<PathBuf>) {
    if paths.is_empty() {
        // The tests beside each shipped pack: policies/NAME.test.yaml for NAME.warden
        // (not policies/optional/, whose packs are not shipped enabled).
        let packs: Vec<PathBuf> = warden::policy::BUILTIN_PACKS
            .iter()
            .map(|(name, _)| PathBuf::from("policies").join(name))
            .collect();
        return (Vec::new(), testing::discover(&packs));
    }
    let (explicit_tests, policies): (Vec<PathBuf>, Vec<PathBuf>) = paths
        .iter()
        .cloned()
        .partition(|p| testing::is_test_file(p));
    let mut tests = testing::discover(&policies);
    tests.extend(explicit_tests.iter().cloned());
    tests.sort();
    tests.dedup();
    let policies = if policies.is_empty() {
        let mut dirs: Vec<PathBuf> = explicit_tests
            .iter()
            .map(|t| {
                t.parent()
                    .filter(|d| !d.as_os_str().is_empty())
                    .unwrap_or(Path::new("."))
                    .to_path_buf()
            })
            .collect();
        dirs.sort();
        dirs.dedup();
        dirs
    } else {
        policies
    };
    (policies, tests)
}

pub(crate) fn run(a: Args) -> i32 {
    let (policy_paths, test_paths) = plan(&a.paths);
    let loaded = if policy_paths.is_empty() {
        Policy::builtin()
    } else {
        Policy::load(&policy_paths)
    };
    let policy = match loaded {
        Ok(p) => p,
        Err(LoadError::Invalid { diagnostics }) => {
            let mut out = codespan_reporting::term::termcolor::StandardStream::stderr(
                codespan_reporting::term::termcolor::ColorChoice::Never,
            );
            super::render::human(&diagnostics, &mut out);
            eprintln!("error: the policy has errors; no test was run (see `warden check`)");
            return EXIT_USAGE;
        }
        Err(e) => {
            eprintln!("error: {e}");
            return EXIT_USAGE;
        }
    };
    let set = match policy.compile() {
        Ok(s) => s,
        Err(e) => {
            eprintln!("error: {e}");
            return EXIT_USAGE;
        }
    };
    if test_paths.is_empty() {
        let wher = if a.paths.is_empty() {
            "./policies".to_string()
        } else {
            a.paths
                .iter()
                .map(|p| p.display().to_string())
                .collect::<Vec<_>>()
                .join(", ")
        };
        eprintln!(
            "error: no test files (*{}) found in {wher}",
            testing::TEST_SUFFIX
        );
        return EXIT_USAGE;
    }
    let mut files: Vec<TestFile> = Vec::new();
    for t in &test_paths {
        match testing::load_file(t) {
            Ok(f) => files.push(f),
            Err(e) => {
                eprintln!("error: {e}");
                return EXIT_USAGE;
            }
        }
    }
    let mut results: Vec<CaseResult> = Vec::new();
    let mut all: Vec<CaseResult> = Vec::new();
    for f in &files {
        for c in &f.cases {
            let r = testing::run_case(&set, &f.path, c);
            if a.filter.as_deref().is_none_or(|s| c.name.contains(s)) {
                results.push(r.clone());
            }
            all.push(r);
        }
    }
    if results.is_empty() {
        eprintln!(
            "error: no test matches --filter {:?}",
            a.filter.unwrap_or_default()
        );
        return EXIT_USAGE;
    }
    let rule_ids: Vec<&str> = policy.checked.rules.iter().map(|r| r.id.as_str()).collect();
    let cov = testing::coverage(rule_ids.iter().copied(), &results);
    let covered = cov.iter().filter(|(_, c)| *c).count();
    let pct = if cov.is_empty() {
        100.0
    } else {
        100.0 * covered as f64 / cov.len() as f64
    };
    let passed = results.iter().filter(|r| r.passed()).count();
    let failed = results.len() - passed;
    let summary = format!("{passed} passed, {failed} failed");
    let show_cov = a.coverage || a.coverage_threshold.is_some();
    match a.format {
        Format::Human => {
            super::emit(&human(&results, &files, a.verbose));
            if show_cov {
                super::emit(&coverage_text(&policy, &cov, covered, pct));
            }
            super::emit(&format!("{summary}\n"));
        }
        Format::Junit => {
            super::emit(&junit(&results, &files));
            if show_cov {
                eprint!("{}", coverage_text(&policy, &cov, covered, pct));
            }
            eprintln!("{summary}");
        }
        Format::Json => {
            let v = serde_json::json!({
                "passed": passed,
                "failed": failed,
                "results": results.iter().map(|r| serde_json::json!({
                    "file": r.file.display().to_string(),
                    "line": r.line,
                    "name": r.name,
                    "passed": r.passed(),
                    "failures": r.failures,
                    "exercised": r.exercised,
                })).collect::<Vec<_>>(),
                "coverage": {
                    "rules": cov.len(),
                    "covered": covered,
                    "percent": (pct * 10.0).round() / 10.0,
                    "not_exercised": cov.iter().filter(|(_, c)| !c).map(|(id, _)| id).collect::<Vec<_>>(),
                },
            });
            super::emit(&(serde_json::to_string_pretty(&v).unwrap_or_default() + "\n"));
        }
    }
    if failed > 0 {
        return EXIT_POLICY;
    }
    if let Some(t) = a.coverage_threshold {
        if pct + 1e-9 < t {
            eprintln!("error: coverage {pct:.1}% is below the threshold of {t}%");
            return EXIT_POLICY;
        }
    }
    EXIT_OK
}

fn find_case<'a>(files: &'a [TestFile], r: &CaseResult) -> Option<&'a testing::TestCase> {
    files
        .iter()
        .find(|f| f.path == r.file)?
        .cases
        .iter()
        .find(|c| c.name == r.name && c.line == r.line)
}

/// A one-line description of a test's event.
fn event_line(c: &testing::TestCase) -> String {
    let mut parts = vec![c.hook().name().to_string()];
    let q = |v: &str| serde_json::Value::String(v.to_string()).to_string();
    if let Some(t) = &c.tool {
        parts.push(format!("tool={}", q(t)));
    }
    if let Some(a) = &c.args {
        parts.push(format!("args={a}"));
    }
    for (k, v) in [
        ("cwd", &c.cwd),
        ("message", &c.message),
        ("result", &c.result),
        ("command", &c.command),
        ("output", &c.output),
        ("response_text", &c.response_text),
    ] {
        if let Some(v) = v {
            parts.push(format!("{k}={}", q(v)));
        }
    }
    parts.join(" ")
}

fn location(r: &CaseResult) -> String {
    if r.line > 0 {
        format!("{}:{}", r.file.display(), r.line)
    } else {
        r.file.display().to_string()
    }
}

fn human(results: &[CaseResult], files: &[TestFile], verbose: bool) -> String {
    let mut out = String::new();
    for r in results {
        if r.passed() {
            if verbose {
                out.push_str(&format!("PASS {}: {}\n", location(r), r.name));
            }
            continue;
        }
        out.push_str(&format!("FAIL {}: {}\n", location(r), r.name));
        if let Some(c) = find_case(files, r) {
            out.push_str(&format!("     event: {}\n", event_line(c)));
        }
        out.push_str("     --- expected\n     +++ actual\n");
        for m in &r.failures {
            out.push_str(&format!("     - {}: {}\n", m.what, m.expected));
            out.push_str(&format!("     + {}: {}\n", m.what, m.actual));
        }
        out.push('\n');
    }
    out
}

fn coverage_text(policy: &Policy, cov: &[(&str, bool)], covered: usize, pct: f64) -> String {
    let mut out = format!(
        "coverage: {covered}/{} rules exercised ({pct:.1}%)\n",
        cov.len()
    );
    for (id, c) in cov {
        if !c {
            let loc = policy
                .checked
                .rules
                .iter()
                .find(|r| r.id == *id)
                .map(|r| r.origin.location())
                .unwrap_or_default();
            out.push_str(&format!("  not exercised: {id} ({loc})\n"));
        }
    }
    out
}

fn xml(s: &str) -> String {
    let mut out = String::with_capacity(s.len());
    for c in s.chars() {
        match c {
            '&' => out.push_str("&amp;"),
            '<' => out.push_str("&lt;"),
            '>' => out.push_str("&gt;"),
            '"' => out.push_str("&quot;"),
            '\'' => out.push_str("&apos;"),
            '\n' | '\t' => out.push(c),
            '\r' => out.push_str("&#13;"),
            c if (c as u32) < 0x20 || c == '\u{FFFE}' || c == '\u{FFFF}' => {
                out.push_str(&format!("\\u{{{:x}}}", c as u32))
            }
            c => out.push(c),
        }
    }
    out
}

fn secs(d: Duration) -> String {
    format!("{:.6}", d.as_secs_f64())
}

/// JUnit XML: one `testsuite` per test file, one `testcase` per test.
fn junit(results: &[CaseResult], files: &[TestFile]) -> String {
    let total_fail = results.iter().filter(|r| !r.passed()).count();
    let total_time: Duration = results.iter().map(|r| r.duration).sum();
    let mut out = String::from("<?xml version=\"1.0\" encoding=\"UTF-8\"?>\n");
    out.push_str(&format!(
        "<testsuites name=\"warden\" tests=\"{}\" failures=\"{total_fail}\" errors=\"0\" time=\"{}\">\n",
        results.len(),
        secs(total_time)
    ));
    let mut order: Vec<&Path> = Vec::new();
    for r in results {
        if !order.contains(&r.file.as_path()) {
            order.push(&r.file);
        }
    }
    for file in order {
        let rs: Vec<&CaseResult> = results.iter().filter(|r| r.file == file).collect();
        let fails = rs.iter().filter(|r| !r.passed()).count();
        let time: Duration = rs.iter().map(|r| r.duration).sum();
        let name = xml(&file.display().to_string());
        out.push_str(&format!(
            "  <testsuite name=\"{name}\" tests=\"{}\" failures=\"{fails}\" errors=\"0\" skipped=\"0\" time=\"{}\">\n",
            rs.len(),
            secs(time)
        ));
        for r in rs {
            out.push_str(&format!(
                "    <testcase name=\"{}\" classname=\"{name}\" file=\"{name}\" line=\"{}\" time=\"{}\"",
                xml(&r.name),
                r.line,
                secs(r.duration)
            ));
            if r.passed() {
                out.push_str("/>\n");
                continue;
            }
            let first = &r.failures[0];
            let msg = format!(
                "{}: expected {}, got {}",
                first.what, first.expected, first.actual
            );
            let mut body = String::new();
            if let Some(c) = find_case(files, r) {
                body.push_str(&format!("event: {}\n", event_line(c)));
            }
            for m in &r.failures {
                body.push_str(&format!(
                    "- {}: {}\n+ {}: {}\n",
                    m.what, m.expected, m.what, m.actual
                ));
            }
            out.push_str(&format!(">\n      <failure message=\"{}\" type=\"mismatch\">{}</failure>\n    </testcase>\n", xml(&msg), xml(&body)));
        }
        out.push_str("  </testsuite>\n");
    }
    out.push_str("</testsuites>\n");
    out
}

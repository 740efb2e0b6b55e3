//! Evaluation and compile benchmarks of the engine core.
//!
//! Policy sets of 10, 100 and 1,000 generated rules shaped like real packs:
//! mostly `tool == "terminal" and args.command matches /…distinct literal…/`
//! or `contains`, some file-tool rules with `path(args.path) under …`, some
//! `in` lists, and a few with no literal at all (evaluated on every event).
//! Each set is evaluated against an allowed `git status` and against a
//! command that one rule blocks. A last group measures parse + check +
//! compile of the 1,000-rule set.
//!
//! Run: `cargo bench --bench evaluate -- --warm-up-time 1 --measurement-time 3`

use criterion::{black_box, criterion_group, criterion_main, BenchmarkId, Criterion};
use serde_json::json;
use std::path::PathBuf;
use warden::{CompileOptions, Decision, Event, Policy};

/// Distinct, realistic-looking command words: `kubectl3`, `terraform17`, …
fn word(i: usize) -> String {
    const STEMS: &[&str] = &[
        "kubectl",
        "terraform",
        "docker",
        "helm",
        "aws",
        "gcloud",
        "psql",
        "mysql",
        "redis-cli",
        "npm",
        "cargo",
        "pip",
        "rsync",
        "scp",
        "ssh",
        "curl",
        "wget",
        "systemctl",
        "iptables",
        "crontab",
        "mkfs",
        "dd",
        "chown",
        "chmod",
    ];
    format!("{}{}", STEMS[i % STEMS.len()], i / STEMS.len())
}

/// The text of a policy set of `n` rules.
pub fn policy_text(n: usize) -> String {
    policy_text_with(n, true)
}

/// `unfiltered`: include the 1-in-100 rules with no usable literal.
pub fn policy_text_with(n: usize, unfiltered: bool) -> String {
    let mut s = String::from(
        "pack bench.generated version 1.0.0\n\nlist file_tools = [\"write_file\", \"patch\"]\n\n",
    );
    for i in 0..n {
        let w = word(i);
        let body = match i % 20 {
            // A few rules with no literal the prefilter can use.
            19 if unfiltered && i % 100 == 99 => {
                format!("when args.command matches /^\\s*$/ or args.path ends_with \".pem{i}\"\n  block \"Blank command or key file {i}\"")
            }
            // File-tool rules.
            0 | 10 => format!(
                "when tool in file_tools and path(args.path) under \"/srv/data{i}\"\n  approve \"Write under /srv/data{i}: {{args.path}}\" key \"fs:data{i}\""
            ),
            // `in` lists of exact commands.
            5 => format!(
                "when tool == \"terminal\" and args.command in [\"{w} --reset\", \"{w} --wipe\", \"{w} purge\"]\n  block \"Exact command {i} is blocked\""
            ),
            // `contains`.
            1 | 6 | 11 | 16 => {
                format!("when tool == \"terminal\" and args.command contains \"{w} delete\"\n  block \"{w} delete is blocked: {{args.command}}\"")
            }
            // Regexes with a distinct literal.
            _ => format!(
                "when tool == \"terminal\" and args.command matches /\\b{w}\\s+(destroy|drop|rm)\\b/\n  block \"{w} destroy is blocked: {{args.command}}\""
            ),
        };
        s += &format!("rule gen.r{i} {{\n  severity high\n  on pre_tool_call\n  {body}\n}}\n\n");
    }
    s
}

fn load(n: usize) -> Policy {
    Policy::from_sources(vec![(
        PathBuf::from(format!("bench{n}.warden")),
        policy_text(n),
    )])
    .expect("generated policy is valid")
}

fn terminal(command: &str) -> Event {
    let mut ev = Event::tool_call("terminal", json!({"command": command, "timeout": 120}));
    ev.cwd = Some("/work/project".into());
    ev.session_id = Some("20260101_000000_abcdef".into());
    ev
}

/// A command that the `n`-rule set blocks (a regex rule near the middle).
fn blocked_command(n: usize) -> String {
    let i = (n / 2..n)
        .find(|i| matches!(i % 20, 2 | 3 | 4 | 7 | 8 | 9))
        .expect("a regex rule");
    format!("{} destroy --all", word(i))
}

fn bench_evaluate(c: &mut Criterion) {
    let mut g = c.benchmark_group("evaluate");
    for n in [10usize, 100, 1000] {
        let policy = load(n);
        let set = policy
            .compile_with(&CompileOptions {
                home: Some("/home/u".into()),
                lazy: false,
            })
            .expect("compile");
        let allowed = terminal("git status --short");
        let blocked = terminal(&blocked_command(n));
        assert!(matches!(set.evaluate(&allowed).decision, Decision::Allow));
        assert!(
            matches!(set.evaluate(&blocked).decision, Decision::Block { .. }),
            "{:?}",
            set.evaluate(&blocked)
        );
        g.bench_with_input(BenchmarkId::new("allowed", n), &allowed, |b, ev| {
            b.iter(|| set.evaluate(black_box(ev)))
        });
        g.bench_with_input(BenchmarkId::new("blocked", n), &blocked, |b, ev| {
            b.iter(|| set.evaluate(black_box(ev)))
        });
        // A file write that no rule's path matches: the file-tool rules pass the prefilter.
        let write = {
            let mut ev = Event::tool_call(
                "write_file",
                json!({"path": "src/main.rs", "content": "fn main() {}"}),
            );
            ev.cwd = Some("/work/project".into());
            ev
        };
        assert!(matches!(set.evaluate(&write).decision, Decision::Allow));
        g.bench_with_input(BenchmarkId::new("write_file", n), &write, |b, ev| {
            b.iter(|| set.evaluate(black_box(ev)))
        });
        // The same set without its no-literal rules: what the prefilter alone costs.
        let lit_only = Policy::from_sources(vec![(
            PathBuf::from("l.warden"),
            policy_text_with(n, false),
        )])
        .unwrap();
        let lit_set = lit_only
            .compile_with(&CompileOptions {
                home: Some("/home/u".into()),
                lazy: false,
            })
            .unwrap();
        g.bench_with_input(
            BenchmarkId::new("allowed_literal_rules_only", n),
            &allowed,
            |b, ev| b.iter(|| lit_set.evaluate(black_box(ev))),
        );
    }
    g.finish();
}

fn bench_compile(c: &mut Criterion) {
    let mut g = c.benchmark_group("compile");
    g.sample_size(10);
    let text = policy_text(1000);
    let opts = CompileOptions {
        home: Some("/home/u".into()),
        lazy: false,
    };
    g.bench_function("parse_check_compile/1000", |b| {
        b.iter(|| {
            let p = Policy::from_sources(vec![(
                PathBuf::from("bench.warden"),
                black_box(text.clone()),
            )])
            .unwrap();
            p.compile_with(&opts).unwrap()
        })
    });
    g.bench_function("parse_check/1000", |b| {
        b.iter(|| {
            Policy::from_sources(vec![(
                PathBuf::from("bench.warden"),
                black_box(text.clone()),
            )])
            .unwrap()
        })
    });
    let p = load(1000);
    g.bench_function("compile_only/1000", |b| {
        b.iter(|| p.compile_with(&opts).unwrap())
    });
    let lazy = CompileOptions {
        home: Some("/home/u".into()),
        lazy: true,
    };
    g.bench_function("compile_lazy_then_one_event/1000", |b| {
        let ev = terminal("git status");
        b.iter(|| {
            let set = p.compile_with(&lazy).unwrap();
            set.evaluate(&ev)
        })
    });
    g.finish();
}

criterion_group!(benches, bench_evaluate, bench_compile);
criterion_main!(benches);

//! Redaction throughput with both shipped packs (secrets + pii) loaded, one thread.
//!
//! `cargo bench --bench redact`. Clean text is real Rust source from the local cargo
//! registry plus synthetic log lines; dense text is the same with a secret sample (from
//! the secrets pack's own tests) inserted every ~2 KB.
use criterion::{black_box, criterion_group, criterion_main, Criterion, Throughput};
use serde_json::Value;
use warden::redact::Redactor;

/// The shipped packs' redactor for tool results, and the secret samples of their tests.
fn shipped() -> (warden::MatcherSet, Vec<String>) {
    let policy = warden::Policy::load(&["policies/secrets.warden", "policies/pii.warden"])
        .expect("shipped packs load");
    let set = policy
        .compile_with(&warden::CompileOptions {
            lazy: true,
            home: None,
        })
        .expect("compile");
    let tests: Value = serde_yaml_ng::from_str(
        &std::fs::read_to_string("policies/secrets.test.yaml").expect("tests"),
    )
    .expect("yaml");
    let secrets = tests["tests"]
        .as_array()
        .expect("tests")
        .iter()
        .filter(|c| {
            c["expect"]["redacted"]
                .as_str()
                .is_some_and(|r| r != "unchanged")
        })
        .filter(|c| {
            !c["expect"]["rules"][0]
                .as_str()
                .unwrap_or("")
                .contains("private_key")
        })
        .filter_map(|c| c["result"].as_str().map(str::to_string))
        .collect();
    (set, secrets)
}

/// ~4 MiB of real source text (the regex/aho-corasick crates' own sources) plus log lines.
pub fn clean_corpus() -> String {
    let mut s = String::new();
    let home = std::env::var("HOME").unwrap();
    let reg = std::fs::read_dir(format!("{home}/.cargo/registry/src"))
        .unwrap()
        .next()
        .unwrap()
        .unwrap()
        .path();
    for krate in [
        "regex-automata-0.4.19/src",
        "aho-corasick-1.1.5/src",
        "serde_json-1.0.154/src",
    ] {
        let dir = reg.join(krate);
        let mut stack = vec![dir];
        while let Some(d) = stack.pop() {
            if let Ok(rd) = std::fs::read_dir(&d) {
                for e in rd.flatten() {
                    let p = e.path();
                    if p.is_dir() {
                        stack.push(p);
                    } else if p.extension().map(|x| x == "rs").unwrap_or(false) {
                        s.push_str(&std::fs::read_to_string(&p).unwrap_or_default());
                    }
                }
            }
        }
    }
    for i in 0..20000 {
        s.push_str(&format!("2026-05-17T10:{:02}:{:02}Z INFO request id={i} path=/api/v1/items status=200 dur={}ms user_agent=\"curl/8.5\"\n", i % 60, i % 60, i % 97));
    }
    s
}

fn bench(c: &mut Criterion) {
    let t0 = std::time::Instant::now();
    let (set, secrets) = shipped();
    let r: &Redactor = set
        .redactor(warden::Hook::TransformToolResult)
        .expect("redactor")
        .expect("rules");
    eprintln!(
        "load + Redactor::new: {:?} ({} rules, {} keywordless)",
        t0.elapsed(),
        r.len(),
        r.keywordless_rules()
    );
    let clean = clean_corpus();
    let mut dense = String::with_capacity(clean.len() + clean.len() / 10);
    let mut k = 0;
    for (i, ch) in clean.char_indices() {
        dense.push(ch);
        if ch == '\n' && dense.len() / 2048 > k {
            k = dense.len() / 2048;
            dense.push_str(&secrets[i % secrets.len()]);
            dense.push('\n');
        }
    }
    let o = r.redact_text(&dense);
    eprintln!(
        "clean {} bytes, dense {} bytes with {} findings (clean findings: {})",
        clean.len(),
        dense.len(),
        o.findings.len(),
        r.redact_text(&clean).findings.len()
    );
    // 1 KiB tool result
    let one_k: String = clean[100_000..].chars().take(1024).collect();
    let mut g = c.benchmark_group("redact");
    g.sample_size(10);
    g.throughput(Throughput::Bytes(clean.len() as u64));
    g.bench_function("clean_text", |b| {
        b.iter(|| black_box(r.redact_text(black_box(&clean)).findings.len()))
    });
    g.throughput(Throughput::Bytes(dense.len() as u64));
    g.bench_function("dense_text", |b| {
        b.iter(|| black_box(r.redact_text(black_box(&dense)).findings.len()))
    });
    g.finish();
    let mut g = c.benchmark_group("latency");
    g.throughput(Throughput::Bytes(one_k.len() as u64));
    g.bench_function("tool_result_1k", |b| {
        b.iter(|| black_box(r.redact(black_box(&one_k)).findings.len()))
    });
    g.finish();
}

criterion_group!(benches, bench);
criterion_main!(benches);

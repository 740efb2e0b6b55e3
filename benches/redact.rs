//! Redaction throughput with both shipped packs (secrets + pii) loaded, one thread.
//!
//! `cargo bench --bench redact`. Clean text is real Rust source from the local cargo
//! registry plus synthetic log lines; dense text is the same with a secret sample (from
//! the secrets pack's own tests) inserted every ~2 KB.
use criterion::{black_box, criterion_group, criterion_main, Criterion, Throughput};
use warden::redact::Redactor;

#[path = "support/redact_corpus.rs"]
mod redact_corpus;
use redact_corpus::{clean_corpus, dense_corpus, shipped};

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
    let dense = dense_corpus(&clean, &secrets);
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

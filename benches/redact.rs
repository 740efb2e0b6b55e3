//! cargo bench --bench redact   (both shipped packs loaded; one thread)
use criterion::{black_box, criterion_group, criterion_main, Criterion, Throughput};
use redact_dev::redact::*;
use serde_json::Value;

pub fn specs(packs: &[&str]) -> (Vec<DetectorSpec>, Vec<String>) {
    let v: Value = serde_json::from_str(include_str!("../tests/fixtures/packs.json")).unwrap();
    let mut out = Vec::new();
    for pack in packs {
        for r in v["packs"][pack].as_array().unwrap() {
            let s = |k: &str| r[k].as_str().map(|x| x.to_string());
            let list = |k: &str| {
                r[k].as_array()
                    .map(|a| a.iter().map(|x| x.as_str().unwrap().to_string()).collect())
                    .unwrap_or_default()
            };
            let rep = if let Some(w) = s("withhold") {
                Replacement::Withhold(w)
            } else if let Some(st) = r["style"].as_array() {
                Replacement::Numbered(st[1].as_str().unwrap().into())
            } else {
                Replacement::Label(s("label").unwrap())
            };
            let mut d = DetectorSpec::new(s("id").unwrap(), s("regex").unwrap(), rep);
            d.capture = r["capture"].as_u64().map(|c| c as usize);
            d.keywords = list("keywords");
            d.validator = r["validator"]
                .as_str()
                .map(|v| Validator::from_name(v).unwrap());
            d.min_entropy = r["min_entropy"].as_f64();
            d.allow_values = list("allow");
            d.allow_patterns = list("allow_re");
            out.push(d);
        }
    }
    let secrets: Vec<String> = v["tests"]["secrets"]
        .as_array()
        .unwrap()
        .iter()
        .filter(|c| {
            c["redacted"].is_string() && !c["rules"][0].as_str().unwrap().contains("private_key")
        })
        .map(|c| c["result"].as_str().unwrap().to_string())
        .collect();
    (out, secrets)
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
    let (sp, secrets) = specs(&["secrets", "pii"]);
    let t0 = std::time::Instant::now();
    let r = Redactor::new(sp).unwrap();
    eprintln!(
        "Redactor::new: {:?} ({} rules, {} keywordless)",
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

#[allow(dead_code)]
fn _unused() {}
criterion_group!(benches, bench);
criterion_main!(benches);

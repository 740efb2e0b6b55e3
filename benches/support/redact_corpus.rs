//! What the redaction speed measurements run: the secrets + pii packs, the secret samples of
//! their tests, ~6 MB of clean text (real Rust source from the local cargo registry plus log
//! lines) and the same text made secret-dense. Shared by `benches/redact.rs` and
//! `examples/redact_profile.rs` (`#[path]` includes).

use serde_json::Value;

/// The shipped packs' redactor for tool results, and the secret samples of their tests.
pub fn shipped() -> (warden::MatcherSet, Vec<String>) {
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

/// `clean` with one of `secrets` inserted on a line of its own every ~2 KB.
pub fn dense_corpus(clean: &str, secrets: &[String]) -> String {
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
    dense
}

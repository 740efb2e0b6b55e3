//! Fixed-work driver for the redaction engine: the corpus of `benches/redact.rs` (clean or
//! secret-dense text, secrets + pii packs) or a file, redacted `N` times in text mode after one
//! warm-up run (which compiles the regexes the text reaches). Prints the time per run and MB/s.
//!
//! ```text
//! cargo build --release --example redact_profile
//! target/release/examples/redact_profile dense 10
//! valgrind --tool=callgrind target/release/examples/redact_profile clean 1
//! ```
//!
//! Instructions per run = Ir with `N` = 2 minus Ir with `N` = 1. Two trees side by side
//! (timings alternated in one session): `benches/redact_side_by_side.sh`.

#[path = "../benches/support/redact_corpus.rs"]
mod redact_corpus;

fn main() {
    let mut args = std::env::args().skip(1);
    let which = args.next().unwrap_or_else(|| "clean".into());
    let n: u32 = args.next().and_then(|s| s.parse().ok()).unwrap_or(10);
    let (set, secrets) = redact_corpus::shipped();
    let r = set
        .redactor(warden::Hook::TransformToolResult)
        .expect("redactor")
        .expect("rules");
    let clean = redact_corpus::clean_corpus();
    let text = match which.as_str() {
        "clean" => clean,
        "dense" => redact_corpus::dense_corpus(&clean, &secrets),
        path => std::fs::read_to_string(path).unwrap_or_else(|e| {
            eprintln!("usage: redact_profile clean|dense|FILE [N]  ({path}: {e})");
            std::process::exit(2);
        }),
    };
    let findings = r.redact_text(&text).findings.len();
    let t0 = std::time::Instant::now();
    for _ in 0..n {
        std::hint::black_box(r.redact_text(std::hint::black_box(&text)));
    }
    let per = t0.elapsed() / n.max(1);
    println!(
        "{which}: {:.2} ms per run, {:.0} MB/s ({} bytes, {findings} findings)",
        per.as_secs_f64() * 1e3,
        text.len() as f64 / per.as_secs_f64() / 1e6,
        text.len()
    );
}

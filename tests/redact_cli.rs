//! `warden redact` end to end: JSON Lines equals per-document redaction, known-value masking
//! from the environment and a file, and auto mode streaming a big text that starts with `[`.

use std::io::Write;
use std::process::{Command, Stdio};

/// A few rules of the shipped kinds (a debug build compiles the whole packs slowly, and
/// these tests start many processes).
const POLICY: &str = r#"
pack test.redact version 0.1.0

rule secret.aws {
  redact /\b((?:AKIA|ASIA)[A-Z2-7]{16})\b/ with "[REDACTED:aws]"
  capture 1
}

rule secret.password {
  redact /(?i)\bpassw(?:or)?d[ \t]*[=:][ \t]*(?:"([^"\n]{4,})"|([^\s"]{4,}))/ with "[REDACTED:password]"
  capture 1
  validate secret_value
}

rule secret.url_password {
  redact /\b[a-z]+:\/\/[^\s:@\/]{1,64}:([^\s@\/]{3,128})@/ with "[REDACTED:url-password]"
  capture 1
}

rule secret.private_key {
  redact /-----BEGIN[ A-Z]{0,30} PRIVATE KEY-----/ withhold "[withheld: private key]"
}

rule pii.email {
  redact /\b[A-Za-z0-9._%+-]{1,64}@[A-Za-z0-9-]{1,63}(?:\.[A-Za-z0-9-]{1,63}){0,4}\.[A-Za-z]{2,24}\b/ with "[EMAIL]"
  keywords ["@"]
  style numbered "EMAIL"
}

rule pii.card {
  redact /\b(?:4|5[1-5])\d(?:[ -]?\d){10,17}\b/ with "[REDACTED:card]"
  validate luhn
}
"#;

fn warden() -> Command {
    static DIR: std::sync::OnceLock<tempfile::TempDir> = std::sync::OnceLock::new();
    let dir = DIR.get_or_init(|| {
        let d = tempfile::tempdir().unwrap();
        std::fs::write(d.path().join("p.warden"), POLICY).unwrap();
        d
    });
    let mut c = Command::new(env!("CARGO_BIN_EXE_warden"));
    c.env_remove("WARDEN_POLICY")
        .env("WARDEN_POLICY", dir.path().join("p.warden"))
        .env("XDG_CACHE_HOME", dir.path());
    c
}

fn redact(args: &[&str], input: &[u8], env: &[(&str, &str)]) -> Vec<u8> {
    let mut c = warden();
    c.arg("redact").args(args);
    for (k, v) in env {
        c.env(k, v);
    }
    let mut p = c
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .expect("spawn warden");
    let mut stdin = p.stdin.take().unwrap();
    let data = input.to_vec();
    let w = std::thread::spawn(move || {
        let _ = stdin.write_all(&data);
    });
    let out = p.wait_with_output().unwrap();
    w.join().unwrap();
    assert!(
        out.status.success(),
        "warden redact {args:?} failed: {}",
        String::from_utf8_lossy(&out.stderr)
    );
    out.stdout
}

/// A small deterministic generator (no dependency needed for this).
struct Lcg(u64);
impl Lcg {
    fn next(&mut self) -> usize {
        self.0 = self
            .0
            .wrapping_mul(6364136223846793005)
            .wrapping_add(1442695040888963407);
        (self.0 >> 33) as usize
    }
    fn pick<'a>(&mut self, xs: &[&'a str]) -> &'a str {
        xs[self.next() % xs.len()]
    }
}

const PIECES: &[&str] = &[
    "password=Hunter2Hunter2",
    "AKIAQ3EGPLVZ5XKJRM7T",
    "mail bob@example.org now",
    "card 4539 1488 0343 6467",
    "token: ghp_aB3dE5fG7hJ9kL1mN3pQ5rS7tU9vW1xY3zA5",
    "DB_PASSWORD=\"correct horse battery staple\"",
    "postgresql://app:S3cr3t-Pa55@db.internal:5432/x",
    "nothing to see",
    "api_key = ${API_KEY}",
    "$2b$12$KIXQJ2vV4o6tH8r1mN3pQeRsTuVwXyZaBcDeFgHiJkLmNoPqRsTuV",
    "-----BEGIN RSA PRIVATE KEY-----",
    "",
];

fn random_line(g: &mut Lcg) -> String {
    let text: String = (0..1 + g.next() % 4)
        .map(|_| g.pick(PIECES))
        .collect::<Vec<_>>()
        .join(" ");
    match g.next() % 8 {
        0 => text,
        // a bare JSON string, with the escaped quotes a text rule could swallow
        5 => serde_json::json!(format!("-H \"Authorization: Bearer $API_KEY\" {text}")).to_string(),
        // a bare JSON number that reads like a card number
        6 => "4539148803436467".to_string(),
        7 => format!("4539148803436467 {text}"),
        1 => serde_json::json!({ "output": text, "exit_code": 0 }).to_string(),
        2 => serde_json::json!([text, 1234, { "k": text }]).to_string(),
        // JSON inside a string value
        3 => serde_json::json!({ "result": serde_json::json!({ "out": text }).to_string() })
            .to_string(),
        _ => format!("[INFO] {text}"),
    }
}

#[test]
fn jsonl_equals_each_line_redacted_alone() {
    let mut g = Lcg(0x5eed_2026_1203);
    let lines: Vec<String> = (0..100).map(|_| random_line(&mut g)).collect();
    let input = lines.join("\n") + "\n";
    let out = String::from_utf8(redact(&["--format", "jsonl"], input.as_bytes(), &[])).unwrap();
    let got: Vec<&str> = out.split('\n').collect();
    assert_eq!(got.len(), lines.len() + 1, "one line out per line in");
    for (i, line) in lines.iter().enumerate() {
        let alone = String::from_utf8(redact(&[], line.as_bytes(), &[])).unwrap();
        assert_eq!(got[i], alone, "line {i}: {line:?}");
        // a line that is JSON, whatever its type, comes out as JSON
        if serde_json::from_str::<serde_json::Value>(line).is_ok() {
            serde_json::from_str::<serde_json::Value>(got[i])
                .unwrap_or_else(|e| panic!("line {i} is not JSON ({e}): {}", got[i]));
        }
    }
}

#[test]
fn known_values_from_env_and_file_are_masked() {
    let secret = "Vx9-qLm2!pR7wTz";
    let b64 = "Vng5LXFMbTIhcFI3d1R6"; // base64 of the value
    let input = format!("printenv: MY_SERVICE_TOKEN={secret}\nb64: {b64}\nplain text\n");
    let env = [("MY_SERVICE_TOKEN", secret)];
    let out = String::from_utf8(redact(&["--known-from-env"], input.as_bytes(), &env)).unwrap();
    assert!(!out.contains(secret), "{out}");
    assert!(!out.contains(b64), "{out}");
    assert!(out.contains("plain text"));
    // without the switch the base64 form is left
    let out = String::from_utf8(redact(&[], input.as_bytes(), &env)).unwrap();
    assert!(out.contains(b64));
    // a file of extra values
    let dir = tempfile::tempdir().unwrap();
    let f = dir.path().join("known.txt");
    std::fs::write(&f, "# comment\nq8ZrT2mWx7LpK4\n").unwrap();
    let out = String::from_utf8(redact(
        &["--known-file", f.to_str().unwrap()],
        b"id q8ZrT2mWx7LpK4 end",
        &[],
    ))
    .unwrap();
    assert_eq!(out, "id [REDACTED:known-secret] end");
}

#[test]
fn auto_mode_streams_a_big_text_that_starts_with_a_bracket() {
    // more than the 64 MiB read whole for JSON: a log, not a document
    let line = "[INFO] request served in 3 ms for bob@example.org\n";
    let n = (65 << 20) / line.len() + 1; // 65 MiB
    let mut input = Vec::with_capacity(n * line.len());
    for _ in 0..n {
        input.extend_from_slice(line.as_bytes());
    }
    let out = redact(&[], &input, &[]);
    let lines = out.iter().filter(|&&b| b == b'\n').count();
    assert_eq!(lines, n, "every line out");
    let head = String::from_utf8_lossy(&out[..200]);
    assert!(
        head.starts_with("[INFO] request served in 3 ms for [EMAIL_1]\n"),
        "{head}"
    );
}

#[test]
fn a_bare_json_value_is_json_up_to_64_kib_in_auto_and_jsonl_modes() {
    for (pad, json) in [(60_000, true), (70_000, false)] {
        // decoded, the quoted password is found; in the escaped text it is not
        let text = format!("password: \"Qm7vX2pLk9wR\" {}", "x".repeat(pad));
        let doc = serde_json::json!(text).to_string();
        let auto = String::from_utf8(redact(&[], doc.as_bytes(), &[])).unwrap();
        let as_text =
            String::from_utf8(redact(&["--format", "text"], doc.as_bytes(), &[])).unwrap();
        if json {
            assert!(!auto.contains("Qm7vX2pLk9wR"), "{pad}");
            serde_json::from_str::<serde_json::Value>(&auto).expect("JSON out");
        } else {
            assert_eq!(auto, as_text, "a longer bare string is text ({pad})");
        }
        let jsonl = String::from_utf8(redact(&["--format", "jsonl"], doc.as_bytes(), &[])).unwrap();
        assert_eq!(jsonl, auto, "jsonl gives what auto mode gives ({pad})");
    }
    // `\r` progress output that starts like a number is streamed, not read whole
    let progress = "  5% [==>  ] 1.2MB/s\r".repeat(10_000);
    let out = redact(&[], progress.as_bytes(), &[]);
    assert_eq!(out, progress.as_bytes());
}

use super::*;

/// A small deterministic generator (xorshift64) for the randomized tests of the redact
/// modules: the same seed gives the same texts on every run.
pub(super) struct Rng(pub(super) u64);

impl Rng {
    /// The next 64 random bits (the seed must not be 0).
    pub(super) fn bits(&mut self) -> u64 {
        let x = &mut self.0;
        *x ^= *x << 13;
        *x ^= *x >> 7;
        *x ^= *x << 17;
        *x
    }

    /// A number in `0..n`.
    pub(super) fn below(&mut self, n: usize) -> usize {
        (self.bits() % n as u64) as usize
    }
}

fn label(id: &str, re: &str, l: &str) -> DetectorSpec {
    DetectorSpec::new(id, re, Replacement::Label(l.into()))
}

fn small() -> Redactor {
    let mut aws_secret = label(
        "secret.aws_secret",
        r#"(?i)aws_?secret_?access_?key\s*[=:]\s*["']?([A-Za-z0-9/+]{40})\b"#,
        "[REDACTED:aws-secret-key]",
    );
    aws_secret.capture = Some(1);
    let mut pw = label(
        "secret.password_field",
        r#"(?i)\b(?:password|passwd|secret)["']?\s*[=:]\s*["']?([^\s"'&]{6,})"#,
        "[REDACTED:password]",
    );
    pw.capture = Some(1);
    pw.min_entropy = Some(2.5);
    let mut card = label("pii.card", r"\b(?:\d[ -]?){12,18}\d\b", "[REDACTED:card]");
    card.validator = Some(Validator::Luhn);
    let mut email = DetectorSpec::new(
        "pii.email",
        r"\b[A-Za-z0-9._%+-]+@[A-Za-z0-9.-]+\.[A-Za-z]{2,}\b",
        Replacement::Numbered("EMAIL".into()),
    );
    email.keywords = vec!["@".into()];
    let mut openai = DetectorSpec::new(
        "secret.openai",
        r"\bsk-(?:proj-)?[A-Za-z0-9_-]{20,}",
        Replacement::Prefix {
            label: "[REDACTED]".into(),
            keep: 3,
        },
    );
    openai.keywords = vec!["sk-".into()];
    let mut aws = label(
        "secret.aws_access_key",
        r"\b((?:AKIA|ASIA)[A-Z2-7]{16})\b",
        "[REDACTED:aws-access-key]",
    );
    aws.capture = Some(1);
    aws.allow_values = vec!["AKIAIOSFODNN7EXAMPLE".into()];
    let pk = DetectorSpec::new(
        "secret.private_key",
        r"-----BEGIN[A-Z ]{0,30} PRIVATE KEY( BLOCK)?-----",
        Replacement::Withhold("[Withheld: the result contained a private key]".into()),
    );
    let mut ghp = label(
        "secret.github_pat",
        r"\bgh[pousr]_[A-Za-z0-9]{36}\b",
        "[REDACTED:github-token]",
    );
    ghp.validator = None;
    let mut long = label(
        "secret.long_unbounded",
        r"LONGTOKEN[a-z]+",
        "[REDACTED:long]",
    );
    long.keywords = vec!["longtoken".into()];
    let mut jkey = label(
        "secret.key_in_keys",
        r"\bsekrit_[a-z0-9]{8}\b",
        "[REDACTED:k]",
    );
    jkey.keys = true;
    Redactor::new(vec![
        aws_secret, pw, card, email, openai, aws, pk, ghp, long, jkey,
    ])
    .unwrap()
}

#[test]
fn basic_label_and_capture() {
    let r = small();
    let t = "export AWS_ACCESS_KEY_ID=AKIAQ3EGPLVZ5XKJRM7T rest";
    let o = r.redact_text(t);
    assert_eq!(
        o.text,
        "export AWS_ACCESS_KEY_ID=[REDACTED:aws-access-key] rest"
    );
    assert_eq!(o.findings.len(), 1);
    assert_eq!(&*o.findings[0].rule_id, "secret.aws_access_key");
    assert_eq!(
        &t[o.findings[0].start..o.findings[0].end],
        "AKIAQ3EGPLVZ5XKJRM7T"
    );
    // allow value
    assert!(!r.redact_text("key AKIAIOSFODNN7EXAMPLE").changed());
    // lowercase mid-line secret key
    let t = "cfg: aws_secret_access_key = 'wJalrXUtnFEMIK7MDENGbPxRfiCYzq8e3Lq4Zp0a' done";
    assert_eq!(
        r.redact_text(t).text,
        "cfg: aws_secret_access_key = '[REDACTED:aws-secret-key]' done"
    );
}

#[test]
fn clean_text_is_borrowed() {
    let r = small();
    let o = r.redact_text("fn main() { println!(\"hello\"); }");
    assert!(matches!(o.text, Cow::Borrowed(_)));
    assert!(o.findings.is_empty());
}

#[test]
fn validators_filter() {
    let r = small();
    assert_eq!(
        r.redact_text("card 4539 1488 0343 6467 ok").text,
        "card [REDACTED:card] ok"
    );
    assert!(!r.redact_text("card 4539 1488 0343 6468 ok").changed());
}

#[test]
fn numbered_consistent() {
    let r = small();
    let o = r.redact_text("a@x.io b@y.org a@x.io");
    assert_eq!(o.text, "[EMAIL_1] [EMAIL_2] [EMAIL_1]");
}

#[test]
fn prefix_style() {
    let r = small();
    let o = r.redact_text("key=sk-proj-AbCdEfGhIjKlMnOpQrStUvWx1234 end");
    assert_eq!(o.text, "key=sk-…[REDACTED] end");
}

#[test]
fn withhold() {
    let r = small();
    let o = r.redact_text(
        "here:\n-----BEGIN RSA PRIVATE KEY-----\nMIIE...\n-----END RSA PRIVATE KEY-----\n",
    );
    assert_eq!(o.text, "[Withheld: the result contained a private key]");
    assert_eq!(o.withheld_by.as_deref(), Some("secret.private_key"));
}

#[test]
fn overlaps_merge_and_idempotent() {
    let r = small();
    // password field whose value is also an OpenAI key: one span, no fragment left
    let t = "password=sk-AbCdEfGhIjKlMnOpQrStUvWx99 tail";
    let o = r.redact_text(t);
    assert_eq!(o.findings.len(), 1, "{:?}", o.findings);
    assert!(!o.text.contains("AbCd"));
    let again = r.redact_text(&o.text);
    assert_eq!(again.text, o.text);
    let t2 = "secret: hunter2hunter2x and a@b.co and AKIAQ3EGPLVZ5XKJRM7T";
    let o2 = r.redact_text(t2);
    assert_eq!(r.redact_text(&o2.text).text, o2.text);
    assert!(r.redact_text(&o2.text).findings.is_empty());
}

#[test]
fn unbounded_window_grows() {
    let r = small();
    // a long body without placeholder-like runs
    let body: String = (0..5000u32)
        .map(|i| (b'a' + (i * 7 % 26) as u8) as char)
        .collect();
    let t = format!("x LONGTOKEN{body} y");
    let o = r.redact_text(&t);
    assert_eq!(o.text, "x [REDACTED:long] y");
}

#[test]
fn json_shape_kept() {
    let r = small();
    let j = r#"{"user":"bob","password":"Tr0ub4dor&3xyz","nested":[{"note":"mail a@x.io"}],"n":4539148803436467,"sekrit_abcd1234":1}"#;
    let o = r.redact(j);
    let v: serde_json::Value = serde_json::from_str(&o.text).expect("valid json");
    assert_eq!(v["user"], "bob");
    assert_eq!(v["password"], "[REDACTED:password]&3xyz"); // value stops at '&'
    assert_eq!(v["nested"][0]["note"], "mail [EMAIL_1]");
    assert_eq!(v["n"], "[REDACTED:card]");
    assert!(v.get("[REDACTED:k]").is_some(), "{}", o.text);
    for f in &o.findings {
        assert!(f.end <= j.len());
    }
}

#[test]
fn json_escaped_strings() {
    let r = small();
    let j = r#"{"out":"line1\nAKIAQ3EGPLVZ5XKJRM7T\t\u0041KIAQ3EGPLVZ5XKJRM7X"}"#;
    let o = r.redact(j);
    let v: serde_json::Value = serde_json::from_str(&o.text).unwrap();
    assert_eq!(
        v["out"],
        "line1\n[REDACTED:aws-access-key]\t[REDACTED:aws-access-key]"
    );
    assert_eq!(o.findings.len(), 2);
    assert_eq!(
        &j[o.findings[0].start..o.findings[0].end],
        "AKIAQ3EGPLVZ5XKJRM7T"
    );
}

#[test]
fn json_invalid_falls_back_to_text() {
    let r = small();
    let o = r.redact("{not json AKIAQ3EGPLVZ5XKJRM7T");
    assert_eq!(o.text, "{not json [REDACTED:aws-access-key]");
}

#[test]
fn json_scalar_documents_are_json_in_and_out() {
    let r = small();
    // (input, output): a document that is one JSON string or number stays JSON; a text that
    // only starts like one is text
    let table = [
        (
            r#""line1\nAKIAQ3EGPLVZ5XKJRM7T""#,
            r#""line1\n[REDACTED:aws-access-key]""#,
        ),
        (r#" "a \"b\" c" "#, r#" "a \"b\" c" "#),
        ("4539148803436467", r#""[REDACTED:card]""#),
        (
            "4539148803436467 AKIAQ3EGPLVZ5XKJRM7T",
            "[REDACTED:card] [REDACTED:aws-access-key]",
        ),
        (
            r#""AKIAQ3EGPLVZ5XKJRM7T" tail"#,
            r#""[REDACTED:aws-access-key]" tail"#,
        ),
        ("null", "null"),
        ("-rw-r--r-- 1 root", "-rw-r--r-- 1 root"),
    ];
    for (input, want) in table {
        assert_eq!(r.redact(input).text, want, "{input:?}");
    }
    assert!(super::may_be_json(b" \n\"x\""));
    assert!(!super::may_be_json(b"AKIA"));
    assert!(!super::may_be_json(b"\x0c{}"));
}

struct Trickle<'a>(&'a [u8], usize, usize);
impl std::io::Read for Trickle<'_> {
    fn read(&mut self, buf: &mut [u8]) -> std::io::Result<usize> {
        self.2 = (self.2 * 7 + 3) % 13 + 1;
        let n = self.2.min(buf.len()).min(self.0.len() - self.1);
        buf[..n].copy_from_slice(&self.0[self.1..self.1 + n]);
        self.1 += n;
        Ok(n)
    }
}

#[test]
fn stream_matches_text_at_every_boundary_position() {
    let r = small();
    let chunk = 64;
    let secrets = [
        "AKIAQ3EGPLVZ5XKJRM7T",
        "aws_secret_access_key=wJalrXUtnFEMIK7MDENGbPxRfiCYzq8e3Lq4Zp0a",
        "4539 1488 0343 6467",
        "someone@example.org",
    ];
    for s in secrets {
        for off in 0..(chunk * 2 + 40) {
            let text = format!(
                "{}{} {}",
                "x ".repeat(off / 2),
                if off % 2 == 1 { " " } else { "" },
                s
            ) + &" tail".repeat(30);
            let want = r.redact_text(&text);
            let mut out = Vec::new();
            let f = r
                .redact_stream_chunked(text.as_bytes(), &mut out, chunk)
                .unwrap();
            assert_eq!(
                String::from_utf8(out.clone()).unwrap(),
                want.text,
                "secret {s} off {off}"
            );
            assert_eq!(f, want.findings, "secret {s} off {off}");
            let mut out2 = Vec::new();
            let f2 = r
                .redact_stream_chunked(Trickle(text.as_bytes(), 0, off), &mut out2, chunk)
                .unwrap();
            assert_eq!(out2, out);
            assert_eq!(f2, f);
        }
    }
}

#[test]
fn stream_big_input_bounded() {
    let r = small();
    let mut text = String::new();
    for i in 0..20000 {
        text.push_str(&format!("line {i} some log text here "));
        if i % 97 == 0 {
            text.push_str("AKIAQ3EGPLVZ5XKJRM7T ");
        }
    }
    let want = r.redact_text(&text);
    let mut out = Vec::new();
    let f = r.redact_stream(text.as_bytes(), &mut out).unwrap();
    assert_eq!(String::from_utf8(out).unwrap(), want.text);
    assert_eq!(f.len(), want.findings.len());
}

#[test]
fn unicode_text_spans_on_boundaries() {
    let r = small();
    let t = "héllo wörld password=ünïcødé密码密码 AKIAQ3EGPLVZ5XKJRM7T ✓";
    let o = r.redact_text(t);
    for f in &o.findings {
        assert!(t.is_char_boundary(f.start) && t.is_char_boundary(f.end));
    }
    assert!(o.text.contains("[REDACTED:aws-access-key] ✓"));
}

#[test]
fn errors() {
    assert!(matches!(
        Redactor::new(vec![label("a", "(unclosed", "x")]),
        Err(RedactError::Regex { .. })
    ));
    let mut s = label("a", "abc(d)", "x");
    s.capture = Some(3);
    assert!(matches!(
        Redactor::new(vec![s]),
        Err(RedactError::Capture { .. })
    ));
    assert!(matches!(
        Redactor::new(vec![label("a", "abc", "x"), label("a", "abd", "x")]),
        Err(RedactError::Duplicate(_))
    ));
}

#[test]
fn detects_api() {
    let r = small();
    assert!(r.is_sensitive("my key is AKIAQ3EGPLVZ5XKJRM7T"));
    assert!(!r.is_sensitive("nothing here"));
    let f: Vec<_> = r.detects("a@b.io and AKIAQ3EGPLVZ5XKJRM7T").collect();
    assert_eq!(f.len(), 2);
}

#[test]
fn send_sync() {
    fn ss<T: Send + Sync>() {}
    ss::<Redactor>();
}

// ---- JSON mode on decoded values (issue 13 item 1, issue 15 item 7) ----

fn json(r: &Redactor, j: &str) -> serde_json::Value {
    let o = r.redact(j);
    serde_json::from_str(&o.text).unwrap_or_else(|e| panic!("invalid JSON out ({e}): {}", o.text))
}

#[test]
fn json_detects_on_decoded_values_and_keeps_the_next_line() {
    let r = small();
    // the escaped `\n` ends the value: the next line is kept, not swallowed
    let v = json(
        &r,
        r#"{"output":"cfg\npassword=Hunter2Hunter2\nnext line kept","exit_code":0}"#,
    );
    assert_eq!(
        v["output"],
        "cfg\npassword=[REDACTED:password]\nnext line kept"
    );
    assert_eq!(v["exit_code"], 0);
    // a secret after a JSON-escaped quote
    let v = json(&r, r#"{"o":"say \"AKIAQ3EGPLVZ5XKJRM7T\""}"#);
    assert_eq!(v["o"], "say \"[REDACTED:aws-access-key]\"");
}

#[test]
fn json_name_value_pairs_name_their_value() {
    let r = shipped(crate::Hook::TransformToolResult);
    // ECS / Kubernetes env entries and CloudFormation parameters: the value's context is
    // the name member's string; other pairs and a value before its name are left alone
    let v = json(
        r,
        r#"{"env":[{"name":"STRIPE_TOKEN","value":"DhgNrdV5pzt8Z8KAvYNsXXaZQDxibPqIgv0LDKic"},{"name":"LOG_LEVEL","value":"DhgNrdV5pzt8Z8KAvYNsXXaZQDxibPqIgv0"}],"params":[{"ParameterKey":"DbPassword","ParameterValue":"Xk3mP9qLw2Zr7TbN"},{"ParameterKey":"Env","ParameterValue":"prod"}]}"#,
    );
    assert_eq!(v["env"][0]["value"], "[REDACTED:secret]");
    assert_eq!(v["env"][1]["value"], "DhgNrdV5pzt8Z8KAvYNsXXaZQDxibPqIgv0");
    assert_eq!(v["params"][0]["ParameterValue"], "[REDACTED:secret]");
    assert_eq!(v["params"][1]["ParameterValue"], "prod");
    assert_eq!(v["env"][0]["name"], "STRIPE_TOKEN");
}

#[test]
fn json_value_members_are_read_with_their_object() {
    let r = shipped(crate::Hook::TransformToolResult);
    // rules that read sibling members (`az storage account keys list`, SSM `get-parameter`,
    // a Key Vault secret) fire on a bare document as on the terminal's text; a `value`
    // whose siblings name nothing secret is left, and so is a member before its context
    let key = "q8Xk2m9PzT4vR7wY1nB3cD5fG6hJ8kL0pQ2sU4xZ7aE9iO1uY3tR5eW7qS9dF1gH3jK5lZ7xC9vB1nM3A==";
    let doc = format!(
        r#"[{{"creationTime":"2026-11-02T10:11:12Z","keyName":"key1","permissions":"FULL","value":"{key}"}},
{{"Parameter":{{"Name":"/prod/db/conn","Type":"SecureString","Value":"Tr0ub4dor-x9z","Version":3}}}},
{{"attributes":{{"enabled":true}},"id":"https://kv1.vault.azure.net/secrets/db/0123456789abcdef","name":"db","value":"S3cr3t-Value-99"}},
{{"keyName":"primary","value":"not-base64 at all"}},
{{"value":"{key}","keyName":"key2"}}]"#
    );
    let v = json(r, &doc);
    assert_eq!(v[0]["value"], "[REDACTED:azure-storage-key]");
    assert_eq!(v[1]["Parameter"]["Value"], "[REDACTED:secret]");
    assert_eq!(v[2]["value"], "[REDACTED:secret]");
    assert_eq!(v[3]["value"], "not-base64 at all");
    assert_eq!(v[4]["value"], key);
    assert_eq!(v[0]["keyName"], "key1");
    assert_eq!(v[1]["Parameter"]["Type"], "SecureString");
}

#[test]
fn json_inside_a_string_is_redacted_recursively_and_stays_json() {
    let r = small();
    let inner = r#"{"password":"Tr0ub4dor-x9z","list":["a@x.io"]}"#;
    let outer = serde_json::json!({ "result": inner, "n": [1, 2] }).to_string();
    let v = json(&r, &outer);
    let back: serde_json::Value =
        serde_json::from_str(v["result"].as_str().unwrap()).expect("inner stays JSON");
    assert_eq!(back["password"], "[REDACTED:password]");
    assert_eq!(back["list"][0], "[EMAIL_1]");
    assert_eq!(v["n"], serde_json::json!([1, 2]));
}

#[test]
fn json_secret_used_as_a_key_is_redacted() {
    let r = small();
    let v = json(&r, r#"{"AKIAQ3EGPLVZ5XKJRM7T":{"note":"x"},"user":"bob"}"#);
    let keys: Vec<&String> = v.as_object().unwrap().keys().collect();
    assert!(
        keys.iter().any(|k| *k == "[REDACTED:aws-access-key]"),
        "{keys:?}"
    );
    assert_eq!(v["user"], "bob");
}

#[test]
fn json_long_values_are_redacted_whole() {
    let r = small();
    let body: String = (0..40_000u32)
        .map(|i| (b'a' + (i * 11 % 26) as u8) as char)
        .collect();
    let j = serde_json::json!({ "out": format!("x LONGTOKEN{body} y"), "pad": "z".repeat(3000) })
        .to_string();
    let v = json(&r, &j);
    assert_eq!(v["out"], "x [REDACTED:long] y");
}

#[test]
fn json_withheld_is_a_json_string() {
    let r = small();
    let j = r#"{"o":"-----BEGIN RSA PRIVATE KEY-----\nMIIE\n"}"#;
    let o = r.redact(j);
    assert_eq!(o.withheld_by.as_deref(), Some("secret.private_key"));
    let v: serde_json::Value = serde_json::from_str(&o.text).unwrap();
    assert_eq!(v, "[Withheld: the result contained a private key]");
}

#[test]
fn json_many_values_batched_same_as_one_by_one() {
    let r = small();
    // more than one scan batch of values; every value is decided alone
    let vals: Vec<String> = (0..60_000)
        .map(|i| match i % 3 {
            0 => format!("u{i}@ex.io"),
            1 => "AKIAQ3EGPLVZ5XKJRM7T".to_string(),
            _ => format!("plain {i}"),
        })
        .collect();
    let j = serde_json::to_string(&vals).unwrap();
    let v = json(&r, &j);
    let a = v.as_array().unwrap();
    assert_eq!(a.len(), vals.len());
    assert_eq!(a[1], "[REDACTED:aws-access-key]");
    assert_eq!(a[59_999], "plain 59999");
    assert!(a[59_997].as_str().unwrap().starts_with("[EMAIL_"));
}

#[test]
fn redaction_is_idempotent_on_mixed_texts() {
    let r = small();
    let parts = [
        "e@o.uk",
        ".@o.uk",
        "AKIAQ3EGPLVZ5XKJRM7T",
        "4539 1488 0343 6467",
        "password=Hunter2Hunter2",
        " ",
        "\n",
        "sk-AbCdEfGhIjKlMnOpQrStUvWx99",
        "x",
    ];
    let mut seed = 7u64;
    for _ in 0..400 {
        let mut t = String::new();
        for _ in 0..6 {
            seed = seed
                .wrapping_mul(6364136223846793005)
                .wrapping_add(1442695040888963407);
            t.push_str(parts[(seed >> 33) as usize % parts.len()]);
        }
        let once = r.redact_text(&t).text.into_owned();
        let twice = r.redact_text(&once).text.into_owned();
        assert_eq!(once, twice, "not idempotent on {t:?}");
        let j = serde_json::json!({ "o": t }).to_string();
        let once = r.redact(&j).text.into_owned();
        assert_eq!(r.redact(&once).text, once, "JSON not idempotent on {t:?}");
    }
}

#[test]
fn known_values_in_text_json_and_stream() {
    let r = small();
    let k = KnownValues::new(["Zq9-xLm2!pR7wT"]);
    let o = r.redact_text_with("env: Zq9-xLm2!pR7wT and a@x.io", Some(&k));
    assert_eq!(o.text, format!("env: {KNOWN_LABEL} and [EMAIL_1]"));
    assert_eq!(&*o.findings[0].rule_id, KNOWN_RULE_ID);
    let v: serde_json::Value =
        serde_json::from_str(&r.redact_with(r#"{"o":"Zq9-xLm2!pR7wT"}"#, Some(&k)).text).unwrap();
    assert_eq!(v["o"], KNOWN_LABEL);
    let input = format!(
        "{}Zq9-xLm2!pR7wT{}",
        "a ".repeat(40_000),
        " b".repeat(40_000)
    );
    let mut out = Vec::new();
    let n = r
        .redact_stream_with(input.as_bytes(), &mut out, Some(&k), None)
        .unwrap();
    assert_eq!(n, 1);
    assert!(String::from_utf8(out).unwrap().contains(KNOWN_LABEL));
}

#[test]
fn later_capture_group_holds_the_secret_when_the_first_did_not_match() {
    let mut s = label("t.quoted", r#"pw=(?:"([^"\n]+)"|([^\s"]+))"#, "[R]");
    s.capture = Some(1);
    let r = Redactor::new(vec![s]).unwrap();
    assert_eq!(r.redact_text(r#"pw="a b c" x"#).text, r#"pw="[R]" x"#);
    assert_eq!(r.redact_text("pw=abc x").text, "pw=[R] x");
}

/// Text mode is a fixed point: a replacement that uncovers a match the first pass's
/// overlapping candidates hid is redacted too (fuzz findings, see fuzz/findings/README.md).
#[test]
fn text_redaction_is_a_fixed_point_on_fuzz_findings() {
    let r = shipped(crate::Hook::TransformToolResult);
    for text in [
        "sla@ck.comsk-SSOSSSSSSSa@ck.comsk-SSOSSSSSSSSSSSSSSSSSSSSSSSSSSSSSSSSSse",
        "22\t+2222222+222222322222/:2 TsASIAass2npm_2222222",
    ] {
        let once = r.redact_text(text).text.into_owned();
        let twice = r.redact_text(&once).text.into_owned();
        assert_eq!(once, twice, "{text:?}");
        assert_eq!(r.detects(&once).count(), 0, "{once:?}");
        for f in r.redact_text(text).findings {
            assert!(f.start <= f.end && f.end <= text.len(), "{f:?}");
        }
    }
}

/// A later fixed-point pass scans only around replacements (`Redactor::rescan`): matches
/// uncovered by a replacement are still found when the findings lie far apart, near the
/// text's ends, and closer together than the rescan's reach.
#[test]
fn later_passes_find_uncovered_matches_anywhere_in_a_long_text() {
    let uncovering = [
        "sla@ck.comsk-SSOSSSSSSSa@ck.comsk-SSOSSSSSSSSSSSSSSSSSSSSSSSSSSSSSSSSSse",
        "22\t+2222222+222222322222/:2 TsASIAass2npm_2222222",
    ];
    let filler = |n: usize| "lorem ipsum dolor sit amet 12 ".repeat(n / 30 + 1);
    for gap in [0, 1, 100, 2047, 2048, 2049, 6000, 20_000] {
        let mut text = String::new();
        for (k, u) in uncovering.iter().cycle().take(5).enumerate() {
            text.push_str(&filler(gap * k % 7919));
            text.push_str(u);
            text.push_str("\nSSN 404-93-1865\n");
        }
        assert_fuzz_invariants(crate::Hook::TransformToolResult, &text);
    }
}

/// The shipped packs' redactor for `hook` (the packs compiled once for all tests).
fn shipped(hook: crate::Hook) -> &'static Redactor {
    static SET: std::sync::OnceLock<crate::MatcherSet> = std::sync::OnceLock::new();
    SET.get_or_init(|| crate::Policy::builtin().unwrap().compile().unwrap())
        .redactor(hook)
        .unwrap()
        .expect("the shipped packs redact")
}

/// The `redact` fuzz target's invariants (fuzz/fuzz_targets/redact.rs) on one input, with the
/// shipped packs: nothing detected is left, text and JSON modes are idempotent, streaming at
/// every chunk size gives exactly the text mode's output and findings, and a JSON document
/// comes out as JSON with nothing detected in any string or key.
/// Streaming `text` in chunks of each size gives `t`, the text mode's output and findings
/// (`what` names the case in a failure).
fn assert_stream_equals_text(
    r: &Redactor,
    text: &str,
    t: &Redaction<'_>,
    chunks: &[usize],
    what: &str,
) {
    for &chunk in chunks {
        let mut out = Vec::new();
        let f = r
            .redact_stream_chunked(text.as_bytes(), &mut out, chunk)
            .unwrap();
        let out = String::from_utf8(out).unwrap();
        assert_eq!(out, t.text, "{what}, chunk {chunk}");
        assert_eq!(f, t.findings, "{what}: findings, chunk {chunk}");
    }
}

fn assert_fuzz_invariants(hook: crate::Hook, text: &str) {
    let r = shipped(hook);
    let t = r.redact_text(text);
    assert!(t.withheld_by.is_none(), "{text:?}");
    let left: Vec<_> = r.detects(&t.text).collect();
    assert!(left.is_empty(), "text mode left {left:?} in {:?}", t.text);
    assert_eq!(
        r.redact_text(&t.text).text,
        t.text,
        "text mode not idempotent"
    );
    assert_stream_equals_text(r, text, &t, &[16, 17, 64, 100, 1000, 4096], "stream");
    if let Ok(doc) = serde_json::from_str::<serde_json::Value>(text) {
        let j = r.redact(text);
        let out: serde_json::Value = serde_json::from_str(&j.text).unwrap();
        assert_eq!(r.redact(&j.text).text, j.text, "JSON mode not idempotent");
        fn strings<'a>(v: &'a serde_json::Value, out: &mut Vec<&'a str>) {
            match v {
                serde_json::Value::String(s) => out.push(s),
                serde_json::Value::Array(a) => a.iter().for_each(|x| strings(x, out)),
                serde_json::Value::Object(o) => o.iter().for_each(|(k, x)| {
                    out.push(k);
                    strings(x, out)
                }),
                _ => {}
            }
        }
        let mut all = Vec::new();
        strings(&out, &mut all);
        for s in all {
            let left: Vec<_> = r.detects(s).collect();
            assert!(left.is_empty(), "JSON mode left {left:?} in {s:?}");
        }
        assert_eq!(
            doc.as_object().map(|o| o.len()),
            out.as_object().map(|o| o.len())
        );
    }
}

/// Fuzz finding `text-email-left-after-redaction`: the first address's placeholder ends the
/// overlapping second one (`ck.comsk-SSO…a@ck.comsk`, skipped by left-to-right matching) and
/// gives its rest a boundary, so text mode needed a second pass; streaming made only one.
#[test]
fn fuzz_finding_email_after_a_placeholder_is_redacted_in_every_mode() {
    let text = "\\htoks.sla@ck.comsk-SSOSSSSSSSa@ck.comsk-SSOSSSSSSSSSSSSSSSSSSSSSSSSSSSSSSSSSse";
    assert_fuzz_invariants(crate::Hook::TransformToolResult, text);
    let r = shipped(crate::Hook::TransformToolResult);
    assert_eq!(
        r.redact_text(text).text,
        "\\[EMAIL_1][EMAIL_2]-SSOSSSSSSSSSSSSSSSSSSSSSSSSSSSSSSSSSse"
    );
}

/// Fuzz finding `text-phone-left-after-redaction`: `+22222232` follows a digit (no phone
/// number) until the phone number before it becomes `[PHONE_1]`.
#[test]
fn fuzz_finding_phone_after_a_placeholder_is_redacted_in_every_mode() {
    let text = "22\t+2222222+22222232\u{12}2222/:2\0TsASIAass2npm_2222222";
    assert_fuzz_invariants(crate::Hook::TransformLlmOutput, text);
    assert_fuzz_invariants(crate::Hook::TransformToolResult, text);
}

/// Fuzz findings `json-string-start-password` / `json-string-start-api-token`: a
/// line-anchored rule must see the start of a JSON string as a line start.
#[test]
fn fuzz_finding_secret_at_a_json_string_start_is_redacted() {
    for text in [
        r#"["password: Xk9mQ2vLp7Rw4Tz8"]"#,
        r#"{"stdout": "api_token: Xk9mQ2vLp7Rw4Tz8Yq"}"#,
    ] {
        assert_fuzz_invariants(crate::Hook::TransformToolResult, text);
        let r = shipped(crate::Hook::TransformToolResult);
        assert!(!r.redact(text).text.contains("Xk9mQ2vLp7Rw4Tz8"), "{text}");
    }
}

/// Fuzz finding `json-key-lightstep-token`: a secret inside an object key is redacted (the
/// key changes, the document keeps its shape).
#[test]
fn fuzz_finding_secret_in_a_json_key_is_redacted() {
    let text = "{\"ouRuiJVi0g2D3Yj/nhwPgXoq/6Q3j4QkvGo+JiSnmViwXqespBv5dq90dQdtgaSm9zGglpDVoPpGTLa/Yv0VdbfCsX+qOnOkyE6j91omcQ8m\\nSENTRY_AUTH_TOKEN9ca8e0c18adb21016eea8c00857d691ff08d20bab9472bb12f9c32a46a6e6a205\\nLIGHTSTEP_ACCESS_TOKEN=Q2z2d6Es1eApk3TW/iUNwc/C3KzKM/c4fhN2WpdtpCw6hWehfz6k2IvNWe2NbnkYE/5SslV35fvvKubHFvLcsJG2MMnQ90meta\": {\"n\": 78}}";
    assert_fuzz_invariants(crate::Hook::TransformLlmOutput, text);
    let r = shipped(crate::Hook::TransformLlmOutput);
    assert!(!r.redact(text).text.contains("Q2z2d6Es1eApk3TW"));
}

/// Fuzz finding (`redact` target, 1.7 M executions): in JSON mode a quoted value left open in
/// one string (`'lSum… for prxd`) matched on into the next string's closing quote; that
/// match crossed two values, so it was dropped, but only after it had been merged with the
/// `token: gloas-…` match inside the second value, which went with it. Crossing matches are
/// now dropped before merging.
#[test]
fn fuzz_finding_match_across_json_values_hid_one_inside() {
    let text = r#"{"output": "AWS_SElV35fvvKubHFvLcsJG2MMnQ90KgyK/kvDpgHq0BhYpbiKw", "exit_code": 0, "items": ["define( 'AUTH_KEY', 'lSumXWWqsN0SSE91TQqMokwdseYp2pt for prxd", "token: gloas-N1OCIcYjRHTWvScxFQmuFN' );", "freshdesk_pia_key0= \"XbKNpakEBm8dUfpPOkjc\"", "TWILIO_ACCOUNT_SID=AC0964b2eddddddfad73ada78d6f630e17b98ec0"], "meta": {"n": 78}}"#;
    assert_fuzz_invariants(crate::Hook::TransformToolResult, text);
}

/// Fuzz finding `redact-json-keys-redacted-to-one` (`redact` target, 1.6 M executions): two
/// keys that differ only in their secrets were redacted to the same text, and the object lost
/// a member. A redacted key is numbered until it is unique in its object; a key the input
/// repeats stays repeated, and a key that already reads like the placeholder is kept.
#[test]
fn fuzz_finding_keys_redacted_to_the_same_text_stay_apart() {
    let r = shipped(crate::Hook::TransformToolResult);
    let keys = |text: &str| -> Vec<String> {
        if text.len() < 1000 {
            assert_fuzz_invariants(crate::Hook::TransformToolResult, text);
        }
        let out = r.redact(text).text.into_owned();
        let mut v = Vec::new();
        // serde_json's map would merge repeated keys: read them in order
        let mut de = serde_json::Deserializer::from_str(&out);
        struct Keys<'v>(&'v mut Vec<String>);
        impl<'de> serde::de::Visitor<'de> for Keys<'_> {
            type Value = ();
            fn expecting(&self, f: &mut std::fmt::Formatter) -> std::fmt::Result {
                f.write_str("an object")
            }
            fn visit_map<A: serde::de::MapAccess<'de>>(self, mut m: A) -> Result<(), A::Error> {
                while let Some((k, _)) = m.next_entry::<String, serde::de::IgnoredAny>()? {
                    self.0.push(k);
                }
                Ok(())
            }
        }
        serde::Deserializer::deserialize_map(&mut de, Keys(&mut v)).unwrap();
        v
    };
    let a = "FASTLY_API_TOKEN=gu2eO5UfLj2Cb0PLaLBGBhKedSnjJU";
    let b = "FASTLY_API_TOKEN=gu2eO5UfLj2Cb0PLaLBGChKedSnjJU";
    let same = "FASTLY_API_TOKEN=[REDACTED:secret]";
    assert_eq!(
        keys(&format!(r#"{{"{a}": 1, "n": 2, "{b}": 3}}"#)),
        [same, "n", &format!("{same} (2)")]
    );
    assert_eq!(
        keys(&format!(r#"{{"{a}": 1, "{a}": 2}}"#)),
        [same, same],
        "a repeated key stays repeated"
    );
    assert_eq!(
        keys(&format!(r#"{{"{same}": 1, "{a}": 2}}"#)),
        [same, &format!("{same} (2)")]
    );
    assert_eq!(
        keys(&format!(r#"{{"{a}": 1, "{b}": 2, "{a}": 3}}"#)),
        [same, &format!("{same} (2)"), same],
        "a repeated key keeps its number"
    );
    // many keys with one placeholder text: each gets the next number
    let many: Vec<String> = (0..300)
        .map(|i| format!(r#""FASTLY_API_TOKEN=gu2eO5UfLj2Cb0PLaLBGBhK{i:05}""#))
        .collect();
    let doc = format!(
        "{{{}}}",
        many.iter()
            .map(|k| format!("{k}: 0"))
            .collect::<Vec<_>>()
            .join(", ")
    );
    let got = keys(&doc);
    assert_eq!(got.len(), 300);
    assert_eq!(got[299], format!("{same} (300)"));
}

/// Fuzz finding `text-email-chain` (`redact` target, 1.1 M executions on 946ba1a): six
/// overlapping addresses in a row (`…[EMAIL_6]-x555…x@example.comFttoxoxp-xiut555…`), each
/// matched only once the one before it is replaced, needed more passes than the fixed point
/// allowed (4), so text mode left one. Later passes now rescan only around the replacements
/// the pass before added, so many cost little; past the cap the stretch is replaced whole.
#[test]
fn fuzz_finding_chain_of_overlapping_addresses_is_redacted_whole() {
    let r = shipped(crate::Hook::TransformToolResult);
    for links in [6, 40, 200] {
        let text = format!(
            "say {}.",
            "x555ti5u5555555555555555HjR89u0QiE96755w9a52x@example.comFttoxoxp-".repeat(links)
        );
        let out = r.redact_text(&text).text.into_owned();
        assert!(!out.contains("@example"), "{links} links: {out}");
        assert_eq!(
            r.redact_text(&out).text,
            out,
            "{links} links: not idempotent"
        );
        // streaming: a widened match may reach back into text already written
        for chunk in [64, 1000] {
            let mut s = Vec::new();
            r.redact_stream_chunked(text.as_bytes(), &mut s, chunk)
                .unwrap();
            let s = String::from_utf8(s).unwrap();
            assert!(!s.contains("@example"), "{links} links, chunk {chunk}: {s}");
        }
        if links <= 40 {
            assert_fuzz_invariants(crate::Hook::TransformToolResult, &text);
        }
    }
}

/// Fuzz finding `redact-json-key-redacted-by-context-of-previous-value` (`redact` target,
/// 555 k executions on d090016): a value ending in `Authorization: Bearer ` made the next
/// key a bearer token. JSON mode scans values and keys as segments of one buffer, and the
/// rule's `\s+` crossed the separator; only the secret's span was checked to lie in one
/// segment. Now no match crosses a segment's end (`SEGMENT_MARK`): dropping crossing
/// matches afterwards would lose the ones they hid (the last loop).
#[test]
fn fuzz_finding_context_from_the_previous_value_does_not_reach_the_next_key() {
    let r = shipped(crate::Hook::TransformToolResult);
    let key = "exittBTIb4aFhKSxXY1fDJhnO";
    for text in [
        format!(r#"{{"output": "curl -H Authorization: Bearer ", "{key}": {{"n": 84}}}}"#),
        format!(r#"{{"output": "Authorization: Bearer ", "{key}": 1}}"#),
        format!(r#"["Authorization: Bearer ", "{key}"]"#),
    ] {
        let out: serde_json::Value = serde_json::from_str(&r.redact(&text).text).unwrap();
        assert!(
            out.to_string().contains(key),
            "{key} was redacted by another value's context: {out}"
        );
        assert_fuzz_invariants(crate::Hook::TransformToolResult, &text);
    }
    // the same context inside one value still decides
    for text in [
        format!(r#"{{"output": "Authorization: Bearer {key}"}}"#),
        format!(r#"{{"output": "Authorization: Bearer\n{key}"}}"#),
        format!(r#"{{"Authorization": "Bearer {key}"}}"#),
    ] {
        let out = r.redact(&text).text.into_owned();
        assert!(!out.contains(key), "{key} left in {out}");
    }
    // a match from one value into the next would start before, and so hide, the one inside
    for (text, secret) in [
        (
            r#"{"a": "token: ", "token: ghx7Kq2mZp9LwR4tYv8N3bJcFh6D": 1}"#,
            "ghx7Kq2mZp9LwR4tYv8N3bJcFh6D",
        ),
        (
            r#"{"a": "password = ", "password = Xk9mP2vL7qR4tW8zN5": 1}"#,
            "Xk9mP2vL7qR4tW8zN5",
        ),
        (
            r#"["password: ", "password: Xk9mP2vL7qR4tW8zN5"]"#,
            "Xk9mP2vL7qR4tW8zN5",
        ),
    ] {
        let out = r.redact(text).text.into_owned();
        assert!(!out.contains(secret), "{secret} left in {out}");
        assert_fuzz_invariants(crate::Hook::TransformToolResult, text);
    }
}

/// Fuzz finding `redact-json-long-key-context` (`redact` target, 1.08 M executions on
/// 1529ed4): JSON mode was not idempotent. A key holding a rule keyword makes a second,
/// `"key": "value"` segment, so the value is judged with its key as context — but only keys
/// up to 130 bytes did. A 190-byte key with three addresses was redacted to 85 bytes, so the
/// second pass judged the value in context and redacted what the first had left. A key now
/// decides the same before and after its redaction: any length, decoded (its escapes are
/// re-encoded), and keywords inside a placeholder (`[REDACTED:secret]`) do not count.
#[test]
fn fuzz_finding_a_key_is_context_the_same_before_and_after_redaction() {
    let r = shipped(crate::Hook::TransformToolResult);
    let value =
        r#"--D token: ntn_KYOfnqDZvin_api_key = \"96b2fb66-2d2e-9f5c-b900-0ib0df before Friday"#;
    let long = format!(
        "{}x@example.com okput",
        "outle.co55p5w9a52x@example.com-".repeat(6)
    );
    for key in [
        long.as_str(),
        "a@example.com-b@example.com-c@example.com",
        "x\\u0078oxp_note",
        "[REDACTED:secret] note",
    ] {
        let text = format!(r#"{{"{key}": "{value}", "exit_code": 0}}"#);
        let once = r.redact(&text).text.into_owned();
        assert_eq!(r.redact(&once).text, once, "not idempotent: {text}");
        assert_fuzz_invariants(crate::Hook::TransformToolResult, &text);
    }
    // the finding's own input
    let text = r#"{"outle.co55p5w9a52x@exampl555555HjR89u0QiE9671vw0a52x@ple.c\u0042xoxpttoxoxp-xinpm_ttU+a8ie.comFttoxoxp-55555555HjR89u0QiE9671vw0a52x@ple.c\u0042xoxpttoxoxp-xinpm_ttU+a8ixitt8iL8iL2Qht@http@example.comsho//:okput": "--D token: ntn_KYOfnqDZvin_api_key = \"96b2fb66-2d2e-9f5c-b900-0ib0df-----BEGIN otate the key ending in .PRIVATE KEY-----..8T before Friday", "exit_code": 0, "items": ["client_secyIUCWquvdmfTYPR"], "meta": {"n": 60}}"#;
    assert_fuzz_invariants(crate::Hook::TransformToolResult, text);
}

/// A rule whose context crosses anything (`[^"]*`, as a policy author may write) still never
/// joins two JSON values: the scan buffer is cut into pieces at each segment's end, so the
/// match that would run from one value into the next neither fires nor hides the match that
/// lies wholly inside the next value (dropping crossing matches afterwards would lose it).
#[test]
fn json_matches_never_cross_from_one_value_into_the_next() {
    let mut spec = label(
        "secret.ticket",
        r#"ticket[^"]*?:\s*([A-Za-z0-9]{12,})"#,
        "[REDACTED:ticket]",
    );
    spec.capture = Some(1);
    spec.keywords = vec!["ticket".into()];
    let r = Redactor::new(vec![spec]).unwrap();
    // in one text the rule fires across lines
    assert!(r.is_sensitive("ticket\nref: A1b2C3d4E5f6G7"));
    // across two values it does not
    let out = r
        .redact(r#"["ticket", "ref: A1b2C3d4E5f6G7"]"#)
        .text
        .into_owned();
    assert_eq!(out, r#"["ticket", "ref: A1b2C3d4E5f6G7"]"#);
    // and the crossing match (`ticket` in the first value, up to `:` in the second) does
    // not hide the match inside the second value
    let out = r
        .redact(r#"["ticket", "ticket x: A1b2C3d4E5f6G7"]"#)
        .text
        .into_owned();
    assert_eq!(out, r#"["ticket", "ticket x: [REDACTED:ticket]"]"#);
}

/// A rule whose regex cannot be built (here: past the size limit) fails closed in every
/// mode: the window it would have searched is redacted whole — in JSON mode cut to each
/// value it covers, never dropped for reaching into the separator between values.
#[test]
fn a_rule_that_cannot_compile_redacts_its_window_in_json_mode_too() {
    let mut spec = label("big", r"tok\p{L}{5000}", "[REDACTED:big]");
    spec.keywords = vec!["tok".into()];
    let r = Redactor::new(vec![spec]).unwrap();
    assert!(!r.redact_text("x tok abc").text.contains("tok abc"));
    for doc in [
        r#"["tok abc"]"#,
        r#"["tok abc", "second value", {"k": "tok"}]"#,
        r#"{"note": "tok abc", "password": "tok"}"#,
    ] {
        let out = r.redact(doc).text.into_owned();
        let v: serde_json::Value = serde_json::from_str(&out).unwrap();
        assert!(!out.contains("tok"), "{doc} came out as {v}");
    }
}

/// Only a whole numbered placeholder (`[EMAIL_12]`) is one: `[EMAIL_` followed by other text
/// up to some later `]` is input like any other, so what it holds is redacted, and whether a
/// keyword in it counts (JSON key context) cannot change when a later `]` is inserted.
#[test]
fn only_a_whole_numbered_placeholder_is_a_placeholder() {
    let r = small();
    let out = r.redact_text("[EMAIL_ bob@example.com] and [EMAIL_7]");
    assert_eq!(out.text, "[EMAIL_ [EMAIL_1]] and [EMAIL_7]");
    assert!(r.has_keyword(b"[EMAIL_ password]"));
    assert!(!r.has_keyword(b"[REDACTED:password] [EMAIL_3]"));
}

/// The shipped rules that name a secret by its key (`api_key = …`, `token: …`) search only
/// the line of their keyword hit: every match holds a keyword (so windows may be clamped, see
/// `gate::keywords_required`) and no line break (`(?m)^`, not a class holding `\n`, starts
/// them). These rules open a window at nearly every hit of common words (`key`, `token`), so
/// a window of several lines made them most of the time spent on secret-dense text.
#[test]
fn key_named_secret_rules_search_only_the_hits_line() {
    let r = shipped(crate::Hook::TransformToolResult);
    for id in [
        "secret.yaml_secret_field",
        "secret.config_assignment",
        "secret.generic_key_assignment",
        "secret.generic_secret_assignment",
        "secret.env_assignment",
        "secret.quoted_name_value_pair",
        "secret.cli_secret_flag",
    ] {
        let rule = r.rules.iter().find(|x| &*x.id == id).expect(id);
        assert_eq!(rule.nl_budget, Some(0), "{id}");
    }
}

/// `Rule::lead` holds on the shipped packs' own samples: every match of a rule with a lead
/// holds one of its keywords ending at most that far from the match's start (windows open
/// only that far before a hit).
#[test]
fn every_match_holds_a_keyword_within_its_rules_lead() {
    let r = shipped(crate::Hook::TransformToolResult);
    let mut texts = Vec::new();
    for pack in ["policies/secrets.test.yaml", "policies/pii.test.yaml"] {
        let y: serde_json::Value =
            serde_yaml_ng::from_str(&std::fs::read_to_string(pack).unwrap()).unwrap();
        for t in y["tests"].as_array().unwrap() {
            texts.extend(t["result"].as_str().map(str::to_string));
        }
    }
    let mut checked = 0;
    for (i, rule) in r.rules.iter().enumerate() {
        let Some(lead) = rule.lead else { continue };
        let kws = r.keywords_of(i);
        let re = regex::bytes::Regex::new(&rule.spec.regex).unwrap();
        for t in &texts {
            let low = t.to_ascii_lowercase();
            for m in re.find_iter(t.as_bytes()) {
                let head = &low.as_bytes()[m.start()..(m.start() + lead).min(m.end())];
                assert!(
                    kws.iter()
                        .any(|k| head.windows(k.len()).any(|w| w == k.as_bytes())),
                    "{}: no keyword within {lead} bytes of {:?}",
                    rule.id,
                    &t[m.start()..m.end()]
                );
                checked += 1;
            }
        }
    }
    assert!(checked > 300, "{checked} matches checked");
}

/// A rule whose every match starts at its keyword is profiled (`profile.rs`), and the profile
/// would turn most hits away before the regex runs; a rule whose regex cannot be built must
/// not be turned away by it: its window opens anyway and is redacted whole (fail closed).
#[test]
fn a_profiled_rule_that_cannot_compile_still_opens_its_window() {
    // 20,000 twelve-letter alternatives after `tok`: every match starts with `tok` and then a
    // lower-case letter (the profile), and the NFA is past the size limit
    let words: Vec<String> = (0..20_000u32)
        .map(|i| {
            let mut w = String::from("q");
            let mut n = i;
            for _ in 0..11 {
                w.push((b'a' + (n % 26) as u8) as char);
                n = n / 26 + 7;
            }
            w
        })
        .collect();
    let spec = label(
        "big",
        &format!("tok(?:{})", words.join("|")),
        "[REDACTED:big]",
    );
    let r = Redactor::new(vec![spec]).unwrap();
    let rule = &r.rules[0];
    assert!(rule.start_profile.is_some(), "the rule is profiled");
    assert!(rule.compiled().is_err(), "the rule cannot compile");
    // `tok` then a space: the profile alone would say no match starts here
    let p = rule.start_profile.as_ref().unwrap();
    assert!(!p.admits(b"tok ZZZ", 0));
    let out = r.redact_text("x tok ZZZ y").text.into_owned();
    assert!(!out.contains("tok"), "{out}");
}

/// A value of an unbounded rule longer than the stream's lookahead (fuzz finding
/// `redact-stream-long-value`: a 2,053-byte `KEY=` value) is redacted whole in streaming mode,
/// as in text mode: the round reads on past its lookahead instead of cutting the match, so no
/// tail of the value is written out.
#[test]
fn a_value_longer_than_the_lookahead_streams_as_in_text_mode() {
    let mut spec = label("env", r"(?m)^[A-Z_]*KEY=(\S+)", "[REDACTED:secret]");
    spec.keywords = vec!["key=".into()];
    spec.capture = Some(1);
    let r = Redactor::new(vec![spec]).unwrap();
    for len in [
        r.stream_overlap() - 20,
        r.stream_overlap() + 1,
        3 * r.stream_overlap(),
        MAX_WINDOW - 2 * UNBOUNDED_WINDOW,
    ] {
        let value: String = (0..len)
            .map(|i| (b'a' + (i * 7 % 26) as u8) as char)
            .collect();
        let text = format!("head\nAPI_KEY={value}}}\nnext line\n");
        let t = r.redact_text(&text);
        assert_eq!(
            t.text, "head\nAPI_KEY=[REDACTED:secret]\nnext line\n",
            "{len}"
        );
        assert_stream_equals_text(
            &r,
            &text,
            &t,
            &[16, 1000, 64 * 1024],
            &format!("value of {len} bytes"),
        );
    }
}

/// A quoted value longer than a window's first size: a rule whose match needs a terminator
/// (the closing quote) cannot grow its window from a match touching the edge, as none is
/// found at all; its window is the hit's whole line (up to [`LINE_WINDOW`]) from the start,
/// and a stream whose buffer ends inside that line reads on. Both used to leave the value
/// whole.
#[test]
fn a_quoted_value_longer_than_a_window_is_redacted_whole() {
    let mut spec = label(
        "yaml",
        r#"(?m)^[a-z_]*token: "([^"\n]{4,})""#,
        "[REDACTED:secret]",
    );
    spec.keywords = vec!["token".into()];
    spec.capture = Some(1);
    let r = Redactor::new(vec![spec]).unwrap();
    for len in [
        UNBOUNDED_WINDOW + 1,
        3 * r.stream_overlap(),
        LINE_WINDOW - 100,
    ] {
        let value: String = (0..len)
            .map(|i| (b'a' + (i * 7 % 26) as u8) as char)
            .collect();
        let head = "x\n".repeat(1500);
        let text = format!("{head}api_token: \"{value}\"\nnext line\n");
        let t = r.redact_text(&text);
        assert_eq!(
            t.text,
            format!("{head}api_token: \"[REDACTED:secret]\"\nnext line\n"),
            "{len}"
        );
        assert_stream_equals_text(
            &r,
            &text,
            &t,
            &[16, 1000, 4000, 64 * 1024],
            &format!("value of {len} bytes"),
        );
    }
}

/// The same with the shipped packs: long credential values in the usual assignment forms
/// are redacted whole in every mode (the `redact` fuzz target's invariants).
#[test]
fn long_credential_values_are_redacted_whole_with_the_shipped_packs() {
    let mut rng = Rng(0x2545_f491_4f6c_dd1d);
    let alnum = b"ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789";
    for len in [1500, 5000] {
        let value: String = (0..len)
            .map(|_| alnum[rng.below(alnum.len())] as char)
            .collect();
        for form in [
            "session_token: \"{}\"",
            "SESSION_TOKEN=\"{}\"",
            "\"api_key\" => \"{}\"",
            "client_secret := `{}`",
            "<sessionToken>\n  {}\n</sessionToken>",
        ] {
            let text = format!("line before\n{}\nline after\n", form.replace("{}", &value));
            let t = shipped(crate::Hook::TransformToolResult).redact_text(&text);
            assert!(
                !t.text.contains(&value[..100]),
                "{form} ({len}): {}",
                t.text
            );
            assert_fuzz_invariants(crate::Hook::TransformToolResult, &text);
        }
    }
}

/// Fuzz finding `redact-rejected-match-hides-next`: a match that fails its check (here a
/// `*_key` value of low entropy, which runs on through `|b_key`) used to hide a match starting
/// inside it, so the result depended on where the window started, and a second redaction,
/// whose windows start elsewhere, redacted what the first had left.
#[test]
fn a_match_inside_a_rejected_one_is_found() {
    let r = shipped(crate::Hook::TransformToolResult);
    for text in [
        "a_key=aaaaaaaaaaaaaaaa|b_key = \"Zq8vR3kT9wLm2XpNhY\"",
        "x a_key=aaaaaaaaaaaaaaaa|b_key = \"Zq8vR3kT9wLm2XpNhY\" y",
        "token: aaaaaaaaaaaa|c_key=\"Zq8vR3kT9wLm2XpNhY\"",
    ] {
        let out = r.redact_text(text);
        assert!(
            !out.text.contains("Zq8vR3kT9wLm2XpNhY"),
            "{text:?} -> {:?}",
            out.text
        );
        assert_fuzz_invariants(crate::Hook::TransformToolResult, text);
    }
}

/// [`LineBreaks`] answers as a direct search of the text does, whether a block is listed
/// or not, across block borders, at every `k`, bound and region; random texts with few and
/// many line breaks, each asked enough to get some of its blocks listed.
#[test]
fn line_breaks_answer_as_a_direct_search() {
    let mut rng = Rng(0x853c_49e6_748f_ea9b);
    let mut next = |n: usize| rng.below(n);
    let mut listed = 0;
    for round in 0..12 {
        let n = 1 + next(3 * LINE_BLOCK);
        let every = [3, 40, 5000][round % 3];
        let hay: Vec<u8> = (0..n)
            .map(|_| if next(every) == 0 { b'\n' } else { b'a' })
            .collect();
        let lo = next(n / 4 + 1);
        let hi = lo + next(n - lo + 1);
        let lines = LineBreaks::new(&hay, lo, hi);
        for _ in 0..3000 {
            let at = lo + next(hi - lo + 1);
            let k = next(4);
            let floor = lo + next(at - lo + 1);
            let ceil = at + next(hi - at + 1);
            let want = memchr::memrchr_iter(b'\n', &hay[floor..at])
                .nth(k)
                .map(|i| floor + i);
            assert_eq!(
                lines.before(at, k, floor),
                want,
                "before {at} k {k} floor {floor}"
            );
            let want = memchr::memchr_iter(b'\n', &hay[at..ceil])
                .nth(k)
                .map(|i| at + i);
            assert_eq!(
                lines.after(at, k, ceil),
                want,
                "after {at} k {k} ceil {ceil}"
            );
        }
        listed += lines.blocks.iter().filter(|b| b.0.get().is_some()).count();
    }
    assert!(listed > 10, "some blocks were listed: {listed}");
}

/// `call_closers`: one line per case — (match text before the value, value, the byte after
/// it, `)` left out).
#[test]
fn call_closers_table() {
    for (before, value, after, want) in [
        ("(password=", "hunter2)", None, 1), // connect(password=hunter2)
        ("(token: ", "abc123)", Some(b'\n'), 1), // init(token: abc123)
        ("(password=", "hunter2)", Some(b';'), 1), // connect(password=hunter2);
        ("(password=", "hunter2))", None, 1), // the value's own `)` stays in it
        ("((password=", "hunter2))", None, 2), // two calls opened in the match
        ("(password=", "ab)c)", None, 1),    // only trailing `)` can close the call
        ("(password=", "a(b)", None, 0),     // the value's `)` closes its own `(`
        (" password=", "hunter2)", None, 0), // no call opened before it
        ("(x) password=", "hunter2)", None, 0), // the call before it is closed
        ("(password=\"", "hunter2)", Some(b'"'), 0), // quoted: the `)` is the secret's
        ("us(er:", "Pa55w0rd)", Some(b'@'), 0), // a URL's password ends at `@`
        ("(password=", "hunter2", None, 0),
    ] {
        assert_eq!(
            super::call_closers(before.as_bytes(), value.as_bytes(), after),
            want,
            "{before}{value}"
        );
    }
}

/// A credential passed as a call's argument (`connect(password=…)`, `init(token: …)`) loses
/// its value, not the call's closing parenthesis; a value with its own `)` is still whole.
#[test]
fn a_call_argument_secret_keeps_the_calls_closing_parenthesis() {
    let r = shipped(crate::Hook::TransformToolResult);
    for (text, want) in [
        (
            "db = connect(password=Xk9fj3kLq2Zp)",
            "db = connect(password=[REDACTED:secret])",
        ),
        (
            "Sdk.initialize(token: 9f3a7c1e5b2d8f4a6c0e)",
            "Sdk.initialize(token: [REDACTED:secret])",
        ),
        (
            "connect(password=Xk9f)j3kLq2Zp)",
            "connect(password=[REDACTED:secret])",
        ),
        ("password=Xk9fj3kLq2Zp)", "password=[REDACTED:secret]"),
        (
            "connect(password=\"Zq8kd93Lm2)\")",
            "connect(password=\"[REDACTED:secret]\")",
        ),
        (
            "login(password='Pa55w0rdQx))')",
            "login(password='[REDACTED:secret]')",
        ),
        (
            "mongodb://us(er:Pa55w0rdXq7)@db.example.net/app",
            "mongodb://us(er:[REDACTED:db-password]@db.example.net/app",
        ),
    ] {
        assert_eq!(r.redact_text(text).text, want, "{text}");
        assert_fuzz_invariants(crate::Hook::TransformToolResult, text);
    }
}

/// Later passes reject a capture rule's match whose secret must be one of our placeholders
/// without computing its captures (`Redactor::captures_placeholder`). On random texts of
/// secret-named keys, quotes, brackets, parentheses, placeholders and values, debug builds
/// assert every such verdict against the captures, and the fuzz invariants hold.
#[test]
fn placeholder_captures_are_rejected_as_the_captures_would_be() {
    let pieces = [
        "password: ",
        "PASSWORD=",
        "db_password = ",
        "api_key: ",
        "token=",
        "\"",
        "'",
        "[REDACTED:secret]",
        "[REDACTED:db-password]",
        "[EMAIL_1]",
        "[",
        "]",
        "(",
        ")",
        " ",
        "\n",
        "Zq8vR3kT9wLm2XpN",
        "hunter2x",
        "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",
    ];
    let mut rng = Rng(0x9e37_79b9_7f4a_7c15);
    for _ in 0..600 {
        let n = 2 + rng.below(24);
        let text: String = (0..n).map(|_| pieces[rng.below(pieces.len())]).collect();
        assert_fuzz_invariants(crate::Hook::TransformToolResult, &text);
    }
}

/// `captures_placeholder` one case a line: `(text, tail, min, want)`, the match being the
/// whole text and `[x]` / `(x))` the placeholders.
#[test]
fn captures_placeholder_table() {
    let r = Redactor::new(vec![
        label("t.a", r"pw=(\w+)", "[x]"),
        label("t.b", r"pw=(\w+)", "(x))"),
    ])
    .unwrap();
    for (text, tail, min, want) in [
        ("pw=[x]", 0, 1, true),
        ("pw=\"[x]\"", 1, 1, false), // the group may be the closing quote alone
        ("pw=\"[x]\"", 1, 3, true),  // not when it holds 3 bytes or more
        ("pw=[x]abc", 0, 3, false),  // the group's bytes miss the placeholder
        ("pw=ab[x]y", 4, 2, false),  // the furthest end (`ab`) misses it
        ("pw=ab[x]y", 3, 2, true),
        ("pw=[x", 0, 1, false),   // no placeholder
        ("pw=(x))", 0, 1, false), // a `)` the call check could trim: captures decide
        ("[x]", 2, 2, true),      // no 2-byte group can end 2 bytes before the end
    ] {
        let hay = text.as_bytes();
        assert_eq!(
            r.captures_placeholder(hay, 0, hay.len(), tail, min),
            want,
            "{text:?} tail {tail} min {min}"
        );
    }
}

/// A table whose header names a credential column, streamed in chunks far smaller than the
/// table: every row's cell is redacted as in text mode (the stream keeps the open table's
/// header as context, `table::open_header`).
#[test]
fn streamed_tables_keep_their_header() {
    let r = shipped(crate::Hook::TransformToolResult);
    let mut text = String::from(
        "$ psql -c 'select id, api_key from clients'\n id | api_key\n----+---------\n",
    );
    for i in 0..400u32 {
        // a random-looking token per row (a xorshift of the row number)
        let mut x = i.wrapping_mul(2_654_435_761).wrapping_add(12_345);
        let tok: String = (0..24)
            .map(|_| {
                x ^= x << 13;
                x ^= x >> 17;
                x ^= x << 5;
                b"ABCDEFGHJKLMNPQRSTUVWXYZabcdefghijkmnopqrstuvwxyz23456789"[(x % 57) as usize]
                    as char
            })
            .collect();
        text.push_str(&format!(" {i} | ak_{tok}\n"));
    }
    text.push_str("(400 rows)\n");
    let t = r.redact_text(&text);
    assert_eq!(t.findings.len(), 400, "text mode");
    assert_stream_equals_text(r, &text, &t, &[256, 1024, 4096], "a streamed table");
}

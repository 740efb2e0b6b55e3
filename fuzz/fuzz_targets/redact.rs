//! Redaction of tool results, terminal output and model replies with the shipped packs, in
//! its three modes: text, JSON (structure-aware) and streaming (chunked).
//!
//! The first input byte picks the event and the stream chunk size; the rest is the text.
//! Invariants:
//! * no panic;
//! * no detected secret left: the redactor finds nothing in its own output;
//! * idempotent: redacting the output again changes nothing;
//! * JSON in, JSON out: a JSON document comes out as valid JSON of the same shape (same
//!   keys, except keys that are themselves secrets; same array lengths and value types);
//! * streaming gives exactly the text mode's output and findings, at any chunk size;
//! * bounded memory: the heap a call uses beyond what it had is linear in the input.
#![no_main]

use libfuzzer_sys::fuzz_target;
use serde_json::Value;
use std::alloc::{GlobalAlloc, Layout, System};
use std::sync::atomic::{AtomicUsize, Ordering::Relaxed};
use std::sync::OnceLock;
use warden::redact::Redactor;
use warden::{CompileOptions, Hook, MatcherSet, Policy};

/// Counts live heap bytes and their peak, for the memory bound.
struct Counting;
static LIVE: AtomicUsize = AtomicUsize::new(0);
static PEAK: AtomicUsize = AtomicUsize::new(0);

unsafe impl GlobalAlloc for Counting {
    unsafe fn alloc(&self, l: Layout) -> *mut u8 {
        let p = System.alloc(l);
        if !p.is_null() {
            let now = LIVE.fetch_add(l.size(), Relaxed) + l.size();
            PEAK.fetch_max(now, Relaxed);
        }
        p
    }
    unsafe fn dealloc(&self, p: *mut u8, l: Layout) {
        System.dealloc(p, l);
        LIVE.fetch_sub(l.size(), Relaxed);
    }
    unsafe fn realloc(&self, p: *mut u8, l: Layout, new: usize) -> *mut u8 {
        let q = System.realloc(p, l, new);
        if !q.is_null() {
            if new >= l.size() {
                let now = LIVE.fetch_add(new - l.size(), Relaxed) + (new - l.size());
                PEAK.fetch_max(now, Relaxed);
            } else {
                LIVE.fetch_sub(l.size() - new, Relaxed);
            }
        }
        q
    }
}

#[global_allocator]
static ALLOC: Counting = Counting;

const HOOKS: [Hook; 3] = [
    Hook::TransformToolResult,
    Hook::TransformTerminalOutput,
    Hook::TransformLlmOutput,
];

fn set() -> &'static MatcherSet {
    static S: OnceLock<MatcherSet> = OnceLock::new();
    S.get_or_init(|| {
        let set = Policy::builtin()
            .expect("shipped packs load")
            .compile_with(&CompileOptions {
                home: Some("/home/fuzz".into()),
                lazy: false,
            })
            .expect("shipped packs compile");
        // Warm every redactor (rules compile on first use), so the memory bound sees only
        // what one call costs.
        for h in HOOKS {
            if let Ok(Some(r)) = set.redactor(h) {
                let _ = r.redact("password=hunter2hunter2 AKIAQ3EGPLVZ5XKJRM7T a@b.example");
            }
        }
        set
    })
}

/// `s` is a number's text with at least one part replaced by a placeholder (`[EMAIL_1]`,
/// `[REDACTED:card]`).
fn is_redacted_number(s: &str) -> bool {
    let mut rest = s;
    let mut placeholders = 0;
    while let Some(i) = rest.find('[') {
        let Some(j) = rest[i..].find(']') else {
            return false;
        };
        let inside = &rest[i + 1..i + j];
        let numbered = inside.rsplit_once('_').is_some_and(|(name, n)| {
            !name.is_empty()
                && name.bytes().all(|b| b.is_ascii_uppercase() || b == b'_')
                && !n.is_empty()
                && n.bytes().all(|b| b.is_ascii_digit())
        });
        if !(inside.starts_with("REDACTED") || numbered) {
            return false;
        }
        if !rest[..i].bytes().all(|b| b"0123456789+-.eE".contains(&b)) {
            return false;
        }
        placeholders += 1;
        rest = &rest[i + j + 1..];
    }
    placeholders > 0 && rest.bytes().all(|b| b"0123456789+-.eE".contains(&b))
}

/// Same shape: same kinds, array lengths and object keys (a key may differ only if the
/// redactor detects a secret in it).
fn same_shape(r: &Redactor, a: &Value, b: &Value) -> Result<(), String> {
    match (a, b) {
        (Value::Object(x), Value::Object(y)) => {
            if x.len() != y.len() {
                return Err(format!(
                    "object of {} keys became {} keys",
                    x.len(),
                    y.len()
                ));
            }
            // serde_json's map is sorted, so a redacted key moves: pair keys by name, not
            // by position. Every key the redactor does not flag must survive with a value of
            // the same shape; the flagged ones become as many keys that are not in the input.
            let mut flagged = 0;
            for (ka, va) in x {
                match y.get(ka) {
                    Some(vb) => same_shape(r, va, vb)?,
                    None if r.is_sensitive(ka) => flagged += 1,
                    None => return Err(format!("key {ka:?} is gone")),
                }
            }
            let new = y.keys().filter(|k| !x.contains_key(*k)).count();
            if new != flagged {
                return Err(format!("{flagged} flagged keys became {new} new keys"));
            }
            Ok(())
        }
        (Value::Array(x), Value::Array(y)) => {
            if x.len() != y.len() {
                return Err(format!("array of {} became {}", x.len(), y.len()));
            }
            x.iter().zip(y).try_for_each(|(a, b)| same_shape(r, a, b))
        }
        (Value::String(_), Value::String(_)) => Ok(()),
        (a, b) if a == b => Ok(()),
        // A number or literal that held a secret may come out as a placeholder string.
        (a, Value::String(_)) if r.is_sensitive(&a.to_string()) => Ok(()),
        // ... also when part of a long number was one: its digits around placeholders (the
        // parsed number cannot be checked again, it lost digits to floating point)
        (Value::Number(_), Value::String(s)) if is_redacted_number(s) => Ok(()),
        (a, b) => Err(format!("{a} became {b}")),
    }
}

fuzz_target!(|data: &[u8]| {
    let Some((&sel, rest)) = data.split_first() else {
        return;
    };
    let Ok(text) = std::str::from_utf8(rest) else {
        return;
    };
    let set = set();
    let Ok(Some(r)) = set.redactor(HOOKS[usize::from(sel % 3)]) else {
        return;
    };
    let base = LIVE.load(Relaxed);
    PEAK.store(base, Relaxed);

    // Text mode.
    let t = r.redact_text(text);
    if t.withheld_by.is_none() {
        let left: Vec<_> = r.detects(&t.text).collect();
        assert!(
            left.is_empty(),
            "text mode left a secret: {left:?} in {:?}",
            t.text
        );
        let again = r.redact_text(&t.text);
        assert_eq!(again.text, t.text, "text mode is not idempotent");
    }

    // Streaming mode at a chunk size chosen by the input: the same output and findings.
    let chunk = [16, 17, 64, 100, 1000, 4096][usize::from(sel / 3) % 6];
    let mut out = Vec::new();
    let f = r
        .redact_stream_chunked(text.as_bytes(), &mut out, chunk)
        .expect("streaming into memory cannot fail");
    if t.withheld_by.is_none() {
        assert_eq!(
            String::from_utf8(out).expect("stream output is UTF-8"),
            t.text,
            "stream (chunk {chunk}) differs from text mode"
        );
        assert_eq!(f, t.findings, "stream findings differ from text mode");
    }

    // JSON mode: a document comes back as valid JSON of the same shape, secret-free and stable.
    let j = r.redact(text);
    // Any JSON document counts: a bare string or number too.
    if let Ok(doc) = serde_json::from_str::<Value>(text) {
        if j.withheld_by.is_none() {
            let out: Value = serde_json::from_str(&j.text)
                .unwrap_or_else(|e| panic!("JSON mode output is not JSON ({e}): {}", j.text));
            if let Err(e) = same_shape(r, &doc, &out) {
                panic!(
                    "JSON mode changed the document's shape: {e}\nout: {}",
                    j.text
                );
            }
            let again = r.redact(&j.text);
            assert_eq!(again.text, j.text, "JSON mode is not idempotent");
            let mut strings = Vec::new();
            collect_strings(&out, &mut strings);
            for s in strings {
                let left: Vec<_> = r.detects(&s).collect();
                assert!(
                    left.is_empty(),
                    "JSON mode left a secret in {s:?}: {left:?}"
                );
            }
        }
    }

    let used = PEAK.load(Relaxed).saturating_sub(base);
    let bound = (8 << 20) + 64 * text.len();
    assert!(
        used <= bound,
        "{used} heap bytes for a {}-byte input",
        text.len()
    );
});

fn collect_strings<'a>(v: &'a Value, out: &mut Vec<&'a str>) {
    match v {
        Value::String(s) => out.push(s),
        Value::Array(a) => a.iter().for_each(|x| collect_strings(x, out)),
        Value::Object(o) => o.iter().for_each(|(k, x)| {
            out.push(k);
            collect_strings(x, out)
        }),
        _ => {}
    }
}

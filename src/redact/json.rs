//! Structure-aware redaction of JSON input.
//!
//! The raw JSON text is scanned once as text (so rules that need key context, e.g.
//! `"password": "..."`, still see it); each finding is then clipped to the string tokens it
//! touches, so replacements only ever land inside string contents and the output stays valid
//! JSON of the same shape. Details:
//! - strings without escapes are edited in place (the raw bytes are the value);
//! - strings with escapes are decoded, scanned again on their decoded value (so `\n` inside a
//!   PEM block or `\/` in a URL do not hide a secret), redacted, and re-encoded; raw findings
//!   that touch them are mapped into decoded offsets through a per-byte offset map;
//! - a finding that covers part of a number (a card number stored as a JSON number) replaces
//!   that number with the placeholder as a JSON string;
//! - object keys are only edited by rules with `keys` set;
//! - a `Withhold` rule replaces the whole input (with its plain message, not JSON).
//!
//! Finding spans are byte offsets in the original input.

use super::{merge, Cand, Finding, Numbering, Redaction, Redactor};
use std::borrow::Cow;

#[derive(Debug, Clone, Copy, PartialEq)]
enum Kind {
    Str { key: bool, esc: bool },
    Num,
}

#[derive(Debug, Clone, Copy)]
struct Tok {
    start: usize,
    end: usize,
    kind: Kind,
}

struct Lexer<'a> {
    b: &'a [u8],
    i: usize,
    toks: Vec<Tok>,
}

const MAX_DEPTH: usize = 256;

impl<'a> Lexer<'a> {
    fn ws(&mut self) {
        while self.i < self.b.len() && matches!(self.b[self.i], b' ' | b'\t' | b'\n' | b'\r') {
            self.i += 1;
        }
    }
    fn value(&mut self, depth: usize) -> Option<()> {
        if depth > MAX_DEPTH {
            return None;
        }
        self.ws();
        match *self.b.get(self.i)? {
            b'{' => {
                self.i += 1;
                self.ws();
                if self.b.get(self.i) == Some(&b'}') {
                    self.i += 1;
                    return Some(());
                }
                loop {
                    self.ws();
                    if self.b.get(self.i) != Some(&b'"') {
                        return None;
                    }
                    self.string(true)?;
                    self.ws();
                    if self.b.get(self.i) != Some(&b':') {
                        return None;
                    }
                    self.i += 1;
                    self.value(depth + 1)?;
                    self.ws();
                    match self.b.get(self.i)? {
                        b',' => self.i += 1,
                        b'}' => {
                            self.i += 1;
                            return Some(());
                        }
                        _ => return None,
                    }
                }
            }
            b'[' => {
                self.i += 1;
                self.ws();
                if self.b.get(self.i) == Some(&b']') {
                    self.i += 1;
                    return Some(());
                }
                loop {
                    self.value(depth + 1)?;
                    self.ws();
                    match self.b.get(self.i)? {
                        b',' => self.i += 1,
                        b']' => {
                            self.i += 1;
                            return Some(());
                        }
                        _ => return None,
                    }
                }
            }
            b'"' => self.string(false),
            b't' => self.lit(b"true"),
            b'f' => self.lit(b"false"),
            b'n' => self.lit(b"null"),
            b'-' | b'0'..=b'9' => self.number(),
            _ => None,
        }
    }
    fn lit(&mut self, l: &[u8]) -> Option<()> {
        if self.b[self.i..].starts_with(l) {
            self.i += l.len();
            Some(())
        } else {
            None
        }
    }
    fn number(&mut self) -> Option<()> {
        let s = self.i;
        if self.b[self.i] == b'-' {
            self.i += 1;
        }
        let d0 = self.i;
        while self.i < self.b.len() && self.b[self.i].is_ascii_digit() {
            self.i += 1;
        }
        if self.i == d0 {
            return None;
        }
        if self.b.get(self.i) == Some(&b'.') {
            self.i += 1;
            let d = self.i;
            while self.i < self.b.len() && self.b[self.i].is_ascii_digit() {
                self.i += 1;
            }
            if self.i == d {
                return None;
            }
        }
        if matches!(self.b.get(self.i), Some(b'e') | Some(b'E')) {
            self.i += 1;
            if matches!(self.b.get(self.i), Some(b'+') | Some(b'-')) {
                self.i += 1;
            }
            let d = self.i;
            while self.i < self.b.len() && self.b[self.i].is_ascii_digit() {
                self.i += 1;
            }
            if self.i == d {
                return None;
            }
        }
        self.toks.push(Tok {
            start: s,
            end: self.i,
            kind: Kind::Num,
        });
        Some(())
    }
    fn string(&mut self, key: bool) -> Option<()> {
        let s = self.i;
        self.i += 1;
        let mut esc = false;
        loop {
            // fast skip to the next quote / backslash / control
            let rest = &self.b[self.i..];
            let off = memchr::memchr2(b'"', b'\\', rest)?;
            if rest[..off].iter().any(|&c| c < 0x20) {
                return None;
            }
            self.i += off;
            if self.b[self.i] == b'"' {
                self.i += 1;
                break;
            }
            esc = true;
            self.i += 1;
            match *self.b.get(self.i)? {
                b'"' | b'\\' | b'/' | b'b' | b'f' | b'n' | b'r' | b't' => self.i += 1,
                b'u' => {
                    let h = self.b.get(self.i + 1..self.i + 5)?;
                    if !h.iter().all(|c| c.is_ascii_hexdigit()) {
                        return None;
                    }
                    self.i += 5;
                }
                _ => return None,
            }
        }
        self.toks.push(Tok {
            start: s,
            end: self.i,
            kind: Kind::Str { key, esc },
        });
        Some(())
    }
}

/// Decode a JSON string token (with quotes) into bytes + the raw offset of every decoded byte
/// (plus one sentinel = offset of the closing quote).
fn decode(raw: &[u8], base: usize) -> Option<(Vec<u8>, Vec<usize>)> {
    let mut out = Vec::with_capacity(raw.len());
    let mut map = Vec::with_capacity(raw.len() + 1);
    let mut i = 1;
    let end = raw.len() - 1;
    while i < end {
        let c = raw[i];
        if c != b'\\' {
            out.push(c);
            map.push(base + i);
            i += 1;
            continue;
        }
        let at = base + i;
        let e = raw[i + 1];
        i += 2;
        let ch = match e {
            b'"' => '"',
            b'\\' => '\\',
            b'/' => '/',
            b'b' => '\u{8}',
            b'f' => '\u{c}',
            b'n' => '\n',
            b'r' => '\r',
            b't' => '\t',
            b'u' => {
                let hex = |s: &[u8]| u32::from_str_radix(std::str::from_utf8(s).ok()?, 16).ok();
                let mut cp = hex(&raw[i..i + 4])?;
                i += 4;
                if (0xD800..0xDC00).contains(&cp)
                    && raw.get(i) == Some(&b'\\')
                    && raw.get(i + 1) == Some(&b'u')
                {
                    let lo = hex(raw.get(i + 2..i + 6)?)?;
                    if (0xDC00..0xE000).contains(&lo) {
                        cp = 0x10000 + ((cp - 0xD800) << 10) + (lo - 0xDC00);
                        i += 6;
                    }
                }
                char::from_u32(cp).unwrap_or('\u{FFFD}')
            }
            _ => return None,
        };
        let mut buf = [0u8; 4];
        for &b in ch.encode_utf8(&mut buf).as_bytes() {
            out.push(b);
            map.push(at);
        }
    }
    map.push(base + end);
    Some((out, map))
}

fn encode(s: &[u8], out: &mut Vec<u8>) {
    let st = String::from_utf8_lossy(s);
    out.extend_from_slice(serde_json::to_string(st.as_ref()).unwrap().as_bytes());
}

pub(super) fn redact_json<'a>(rd: &Redactor, input: &'a str) -> Option<Redaction<'a>> {
    let b = input.as_bytes();
    let mut lx = Lexer {
        b,
        i: 0,
        toks: Vec::new(),
    };
    lx.value(0)?;
    lx.ws();
    if lx.i != b.len() {
        return None;
    }
    let toks = lx.toks;

    // 1. raw scan
    let raw = merge(rd.candidates(b, 0, b.len(), false));
    // 2. decoded scan of escaped strings
    let mut per_tok: Vec<(usize, Vec<Cand>)> = Vec::new(); // (token index, decoded-offset cands)
    let mut decoded: Vec<Option<(Vec<u8>, Vec<usize>)>> = vec![None; toks.len()];
    for (ti, t) in toks.iter().enumerate() {
        if let Kind::Str { key, esc: true } = t.kind {
            let (d, map) = decode(&b[t.start..t.end], t.start)?;
            let c = rd.candidates(&d, 0, d.len(), key);
            if !c.is_empty() {
                per_tok.push((ti, c));
            }
            decoded[ti] = Some((d, map));
        }
    }
    if raw.is_empty() && per_tok.is_empty() {
        return Some(Redaction {
            text: Cow::Borrowed(input),
            findings: Vec::new(),
            withheld_by: None,
        });
    }

    // 3. clip raw candidates to tokens
    // edits: (raw_start, raw_end, cand-with-value-range, kind)
    enum Edit {
        Raw(Cand),               // replace b[start..end] inside an unescaped string
        Num(Cand, usize, usize), // replace the number token [s,e) by a quoted placeholder
    }
    let mut edits: Vec<Edit> = Vec::new();
    let mut findings: Vec<Finding> = Vec::new();
    let mut withheld = None;
    for &c in &raw {
        if matches!(
            rd.rule_spec(c.rule).replacement,
            super::Replacement::Withhold(_)
        ) && withheld.is_none()
        {
            withheld = Some(c.rule);
        }
        // first token whose end > c.start
        let mut ti = toks.partition_point(|t| t.end <= c.start);
        while ti < toks.len() && toks[ti].start < c.end {
            let t = toks[ti];
            match t.kind {
                Kind::Str { key, esc } => {
                    if key && !rd.rule_spec(c.rule).keys {
                        ti += 1;
                        continue;
                    }
                    let (cs, ce) = (t.start + 1, t.end - 1);
                    let (s, e) = (c.start.max(cs), c.end.min(ce));
                    if s < e {
                        if esc {
                            let map = &decoded[ti].as_ref().unwrap().1;
                            let ds = map.partition_point(|&o| o < s);
                            let de = map.partition_point(|&o| o < e);
                            if ds < de {
                                match per_tok.iter_mut().find(|(i, _)| *i == ti) {
                                    Some((_, v)) => v.push(Cand {
                                        start: ds,
                                        end: de,
                                        rule: c.rule,
                                    }),
                                    None => per_tok.push((
                                        ti,
                                        vec![Cand {
                                            start: ds,
                                            end: de,
                                            rule: c.rule,
                                        }],
                                    )),
                                }
                            }
                        } else {
                            edits.push(Edit::Raw(Cand {
                                start: s,
                                end: e,
                                rule: c.rule,
                            }));
                        }
                    }
                }
                Kind::Num => edits.push(Edit::Num(c, t.start, t.end)),
            }
            ti += 1;
        }
    }
    // collect all edits as (start, end, bytes) in order
    let mut numbering = Numbering::default();
    let mut pieces: Vec<(usize, usize, Vec<u8>)> = Vec::new();
    let mut num_done = std::collections::HashSet::new();
    for e in &edits {
        match *e {
            Edit::Raw(c) => {
                let mut rep = Vec::new();
                rd.replacement(c, &b[c.start..c.end], &mut numbering, &mut rep);
                findings.push(rd.finding(c, 0));
                pieces.push((c.start, c.end, rep));
            }
            Edit::Num(c, s, e) => {
                if !num_done.insert(s) {
                    continue;
                }
                let mut rep = Vec::new();
                rd.replacement(c, &b[s..e], &mut numbering, &mut rep);
                let mut q = Vec::new();
                encode(&rep, &mut q);
                findings.push(rd.finding(
                    Cand {
                        start: s,
                        end: e,
                        rule: c.rule,
                    },
                    0,
                ));
                pieces.push((s, e, q));
            }
        }
    }
    for (ti, cands) in per_tok {
        let t = toks[ti];
        let (d, map) = decoded[ti].as_ref().unwrap();
        let merged = merge(cands);
        if withheld.is_none() {
            withheld = rd.withhold_rule(&merged);
        }
        let mut out = Vec::with_capacity(d.len());
        let mut last = 0;
        for &c in &merged {
            out.extend_from_slice(&d[last..c.start]);
            rd.replacement(c, &d[c.start..c.end], &mut numbering, &mut out);
            last = c.end;
            let rs = map[c.start];
            let re = if c.end < map.len() - 1 {
                map[c.end]
            } else {
                map[map.len() - 1]
            };
            findings.push(rd.finding(
                Cand {
                    start: rs,
                    end: re.max(rs + 1),
                    rule: c.rule,
                },
                0,
            ));
        }
        out.extend_from_slice(&d[last..]);
        let mut enc = Vec::new();
        encode(&out, &mut enc);
        pieces.push((t.start, t.end, enc));
    }
    findings.sort_by_key(|f| (f.start, f.end));
    if let Some(r) = withheld {
        let id: std::sync::Arc<str> = rd.rule_id(r as usize).into();
        let msg = rd.rule_spec(r).replacement.label().to_string();
        return Some(Redaction {
            text: Cow::Owned(msg),
            findings,
            withheld_by: Some(id),
        });
    }
    pieces.sort_by_key(|p| p.0);
    let mut out = Vec::with_capacity(b.len());
    let mut last = 0;
    for (s, e, rep) in pieces {
        if s < last {
            continue; // cannot happen (disjoint by construction); be safe
        }
        out.extend_from_slice(&b[last..s]);
        out.extend_from_slice(&rep);
        last = e;
    }
    out.extend_from_slice(&b[last..]);
    let text = String::from_utf8(out).ok()?;
    Some(Redaction {
        text: Cow::Owned(text),
        findings,
        withheld_by: None,
    })
}

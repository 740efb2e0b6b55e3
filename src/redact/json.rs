//! Structure-aware redaction of JSON input: detection runs on the **decoded** values.
//!
//! One pass over the document validates it and collects *segments* into a scan buffer:
//! - every string value, decoded (escapes resolved), exactly as text mode would see it;
//! - for a member whose key, decoded, holds a keyword of some rule (outside placeholders), a
//!   second, key-context segment `"key": "value"` (so rules that need the key, e.g.
//!   `"password": "…"`, still fire);
//! - every object key of at least [`MIN_KEY`] bytes (a secret used as a key is redacted too);
//! - every number of at least [`MIN_NUM`] characters (a card number stored as a number).
//!
//! Segments are separated by a line holding only [`SEGMENT_MARK`], a byte no UTF-8 text holds,
//! and the detectors never match across it: each segment is searched as if it were the text
//! (but for a line break on either side: multi-line `^`/`$` match at its start and end, while
//! `\A` and `\z` do not). A candidate is cut to its segment, and one inside a key-context
//! segment to the value part. The buffer is
//! scanned and applied in batches of about [`BATCH`] bytes, so memory stays proportional to
//! the input and the output, never to the number of values. A string value that is itself a
//! JSON document (after leading white space, `{` or `[` and it parses) is redacted
//! recursively ([`MAX_NEST`] levels) and re-encoded. Redacted strings are re-encoded as
//! `serde_json` would, so the output is always valid JSON of the same shape (a redacted number
//! becomes a string; a redacted key that would repeat another key of its object is
//! numbered). A `Withhold` rule replaces the whole document by its message as a JSON
//! string. Finding spans are byte offsets of the original input (for an escaped string, of the
//! escape sequences that produced the secret; inside a nested document, the whole string).

use super::{merge, Cand, Finding, KnownValues, Numbering, Redaction, Redactor, SEGMENT_MARK};
use std::borrow::Cow;
use std::sync::Arc;

/// Scan-buffer size at which a batch is scanned and applied.
const BATCH: usize = 1 << 20;
/// Shortest object key scanned on its own.
const MIN_KEY: usize = 6;
/// Shortest number scanned (no detector matches fewer characters).
const MIN_NUM: usize = 6;
/// Keys of a member that names the credential another member of its object holds
/// (Kubernetes / ECS env entries, CloudFormation parameters, settings lists, a password
/// manager's fields, a HAR file's headers).
const PAIR_NAMES: &[&[u8]] = &[
    b"\"name\"",
    b"\"Name\"",
    b"\"key\"",
    b"\"Key\"",
    b"\"ParameterKey\"",
    b"\"variable\"",
    b"\"label\"",
    b"\"Label\"",
];
/// Keys of the member that holds the value [`PAIR_NAMES`] named; such a value also gets an
/// object-context segment (see [`Ctx`]).
const PAIR_VALUES: &[&[u8]] = &[b"\"value\"", b"\"Value\"", b"\"ParameterValue\""];
/// Deepest JSON-inside-a-string nesting redacted recursively.
const MAX_NEST: usize = 4;
/// Deepest array / object nesting accepted.
const MAX_DEPTH: usize = 256;
/// Between segments: a line break on either side of [`SEGMENT_MARK`] (so a segment starts
/// and ends a line for anchored rules), which no match crosses.
const SEP: &[u8] = &[b'\n', SEGMENT_MARK, b'\n'];

/// What a value is read with besides itself: the member's key (or the string of the member
/// that names it, [`PAIR_NAMES`]; for an array's element, the array's), and for a
/// [`PAIR_VALUES`] member the object's text before the value (all of it: a cut would move as
/// earlier members are redacted), so rules that read sibling members as a terminal prints them
/// (`"keyName": "key1", "value": "…"`, `"Type": "SecureString", "Value": "…"`) fire on a
/// document too.
#[derive(Clone, Copy, Default)]
struct Ctx {
    key: Option<(usize, usize)>,
    object: Option<(usize, usize)>,
    /// The value is an array's element: its key-context segment reads `"key": ["value"`.
    element: bool,
}

#[derive(Clone, Copy, PartialEq)]
enum Kind {
    Key,
    Str,
    Num,
}

/// A token that got at least one segment: raw span (quotes included for strings).
#[derive(Clone, Copy)]
struct Tok {
    start: usize,
    end: usize,
    kind: Kind,
    esc: bool,
    /// For a key: where its object's `{` is in the input.
    obj: usize,
}

/// A redacted object key: `out[start..end]` is its encoded text, `b[raw.0..raw.1]` the
/// input's, in the object whose `{` is at input offset `obj`.
struct RedactedKey {
    obj: usize,
    raw: (usize, usize),
    start: usize,
    end: usize,
}

/// `buf[start..end]` is a segment of token `tok`; candidates before `part` are context.
struct Seg {
    start: usize,
    part: usize,
    end: usize,
    tok: usize,
}

/// The segment that holds all of `c` (`segs` sorted, disjoint); `None` if `c` crosses a
/// boundary or lies between segments.
fn seg_of<'s>(segs: &'s [Seg], c: &Cand) -> Option<&'s Seg> {
    let g = segs.get(segs.partition_point(|g| g.end <= c.start))?;
    (c.start >= g.start && c.end <= g.end).then_some(g)
}

/// `c` cut to the segment it belongs to (the first that ends after `c` starts: `c` may start
/// in the separator before it); `None` if nothing of it is left. No match crosses a
/// segment's end ([`Redactor::confirm`] searches piece by piece), so this trims only bytes of
/// a separator, or of a key-context segment's closing quote — and cuts the window a rule
/// that cannot compile reports whole, which must be redacted, not dropped.
fn clip(segs: &[Seg], c: Cand) -> Option<Cand> {
    let g = segs.get(segs.partition_point(|g| g.end <= c.start))?;
    let (start, end) = (c.start.max(g.start), c.end.min(g.end));
    (start < end).then_some(Cand {
        start,
        end,
        rule: c.rule,
    })
}

struct Walk<'a, 'r> {
    rd: &'r Redactor,
    known: Option<&'r KnownValues>,
    b: &'a [u8],
    i: usize,
    nest: usize,
    buf: Vec<u8>,
    toks: Vec<Tok>,
    segs: Vec<Seg>,
    out: Vec<u8>,
    /// `b[..last]` is already in `out` (or unchanged, while `out` is empty)
    last: usize,
    findings: Vec<Finding>,
    withheld: Option<Arc<str>>,
    numbering: &'r mut Numbering,
    /// Keys redacted so far (checked for collisions once the output is complete).
    keys: Vec<RedactedKey>,
    /// Keys that may read like a placeholder (they hold a `[`): `(object, raw start, end)`.
    /// Only they can equal a redacted key's text, which always holds its placeholder.
    bracketed: Vec<(usize, usize, usize)>,
}

/// Decode a JSON string token (quotes included, already validated) into `out`.
fn decode_into(raw: &[u8], out: &mut Vec<u8>, map: Option<&mut Vec<usize>>) {
    let track = map.is_some();
    let mut dummy = Vec::new();
    let map = map.unwrap_or(&mut dummy);
    let end = raw.len() - 1;
    let mut i = 1;
    while i < end {
        let c = raw[i];
        if c != b'\\' {
            let n = memchr::memchr(b'\\', &raw[i..end]).unwrap_or(end - i);
            out.extend_from_slice(&raw[i..i + n]);
            if track {
                map.extend(i..i + n);
            }
            i += n;
            continue;
        }
        let at = i;
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
            _ => {
                let hex = |s: &[u8]| {
                    std::str::from_utf8(s)
                        .ok()
                        .and_then(|s| u32::from_str_radix(s, 16).ok())
                };
                let mut cp = hex(&raw[i..i + 4]).unwrap_or(0xFFFD);
                i += 4;
                if (0xD800..0xDC00).contains(&cp)
                    && raw.get(i) == Some(&b'\\')
                    && raw.get(i + 1) == Some(&b'u')
                {
                    if let Some(lo) = raw.get(i + 2..i + 6).and_then(hex) {
                        if (0xDC00..0xE000).contains(&lo) {
                            cp = 0x10000 + ((cp - 0xD800) << 10) + (lo - 0xDC00);
                            i += 6;
                        }
                    }
                }
                char::from_u32(cp).unwrap_or('\u{FFFD}')
            }
        };
        let mut tmp = [0u8; 4];
        let s = ch.encode_utf8(&mut tmp).as_bytes();
        out.extend_from_slice(s);
        if track {
            map.extend(std::iter::repeat_n(at, s.len()));
        }
    }
    if track {
        map.push(end);
    }
}

/// The bytes a JSON string cannot hold as they are.
static ESCAPED: [bool; 256] = {
    let mut t = [false; 256];
    let mut i = 0;
    while i < 0x20 {
        t[i] = true;
        i += 1;
    }
    t[b'"' as usize] = true;
    t[b'\\' as usize] = true;
    t
};

/// `s` as a JSON string, quotes included, escaped as `serde_json` does (`"`, `\\` and the
/// control characters; everything else as is). Invalid UTF-8 (never produced: values are
/// decoded from valid JSON) would become U+FFFD.
fn encode(s: &[u8], out: &mut Vec<u8>) {
    let s = match std::str::from_utf8(s) {
        Ok(t) => Cow::Borrowed(t),
        Err(_) => String::from_utf8_lossy(s),
    };
    let b = s.as_bytes();
    out.reserve(b.len() + 2);
    out.push(b'"');
    let mut last = 0;
    for (i, &c) in b.iter().enumerate() {
        if !ESCAPED[c as usize] {
            continue;
        }
        let esc: &[u8] = match c {
            b'"' => b"\\\"",
            b'\\' => b"\\\\",
            b'\n' => b"\\n",
            b'\r' => b"\\r",
            b'\t' => b"\\t",
            0x08 => b"\\b",
            0x0c => b"\\f",
            _ => b"",
        };
        out.extend_from_slice(&b[last..i]);
        if esc.is_empty() {
            out.extend_from_slice(format!("\\u{c:04x}").as_bytes());
        } else {
            out.extend_from_slice(esc);
        }
        last = i + 1;
    }
    out.extend_from_slice(&b[last..]);
    out.push(b'"');
}

impl<'a> Walk<'a, '_> {
    fn ws(&mut self) {
        while self.i < self.b.len() && matches!(self.b[self.i], b' ' | b'\t' | b'\n' | b'\r') {
            self.i += 1;
        }
    }

    fn value(&mut self, depth: usize, ctx: Ctx) -> Option<()> {
        if depth > MAX_DEPTH {
            return None;
        }
        self.ws();
        match *self.b.get(self.i)? {
            b'{' => {
                let obj = self.i;
                self.i += 1;
                self.ws();
                if self.b.get(self.i) == Some(&b'}') {
                    self.i += 1;
                    return Some(());
                }
                // a name / value pair (`{"name": "DB_PASSWORD", "value": "…"}`): the
                // value's context is the name member's string, not the key `value`
                let mut named = None;
                loop {
                    self.ws();
                    if self.b.get(self.i) != Some(&b'"') {
                        return None;
                    }
                    let ks = self.i;
                    let esc = self.string()?;
                    let ke = self.i;
                    self.key(ks, ke, esc, obj);
                    self.ws();
                    if self.b.get(self.i) != Some(&b':') {
                        return None;
                    }
                    self.i += 1;
                    let k = &self.b[ks..ke];
                    let pair_value = PAIR_VALUES.contains(&k);
                    let key = match named {
                        Some(n) if pair_value => n,
                        _ => (ks, ke),
                    };
                    self.ws();
                    let vs = self.i;
                    let object = (pair_value && ks > obj + 1).then_some((obj, vs));
                    let ctx = Ctx {
                        key: Some(key),
                        object,
                        element: false,
                    };
                    self.value(depth + 1, ctx)?;
                    if PAIR_NAMES.contains(&k) && self.b[vs] == b'"' {
                        named = Some((vs, self.i));
                    }
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
                // an array's strings are read with the array's key, as a terminal shows the first
                // (`"unseal_keys_b64": ["…"`)
                let each = Ctx {
                    key: ctx.key,
                    object: None,
                    element: true,
                };
                loop {
                    self.value(depth + 1, each)?;
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
            b'"' => {
                let s = self.i;
                let esc = self.string()?;
                self.string_value(s, self.i, esc, ctx);
                Some(())
            }
            b't' => self.lit(b"true"),
            b'f' => self.lit(b"false"),
            b'n' => self.lit(b"null"),
            b'-' | b'0'..=b'9' => {
                let s = self.i;
                self.number()?;
                if self.i - s >= MIN_NUM {
                    // an array's numbers are read alone, as before
                    let key = if ctx.element { None } else { ctx.key };
                    self.number_value(s, self.i, key);
                }
                Some(())
            }
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

    fn digits(&mut self) -> Option<()> {
        let d = self.i;
        while self.i < self.b.len() && self.b[self.i].is_ascii_digit() {
            self.i += 1;
        }
        (self.i > d).then_some(())
    }

    fn number(&mut self) -> Option<()> {
        if self.b[self.i] == b'-' {
            self.i += 1;
        }
        self.digits()?;
        if self.b.get(self.i) == Some(&b'.') {
            self.i += 1;
            self.digits()?;
        }
        if matches!(self.b.get(self.i), Some(b'e') | Some(b'E')) {
            self.i += 1;
            if matches!(self.b.get(self.i), Some(b'+') | Some(b'-')) {
                self.i += 1;
            }
            self.digits()?;
        }
        Some(())
    }

    /// Lex a string token at `self.i`; returns whether it has escapes.
    fn string(&mut self) -> Option<bool> {
        self.i += 1;
        let mut esc = false;
        loop {
            let rest = &self.b[self.i..];
            let off = memchr::memchr2(b'"', b'\\', rest)?;
            if rest[..off].iter().any(|&c| c < 0x20) {
                return None;
            }
            self.i += off;
            if self.b[self.i] == b'"' {
                self.i += 1;
                return Some(esc);
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
    }

    fn push_tok(&mut self, start: usize, end: usize, kind: Kind, esc: bool) -> usize {
        self.toks.push(Tok {
            start,
            end,
            kind,
            esc,
            obj: 0,
        });
        self.toks.len() - 1
    }

    /// Append the decoded content of the string token `[s, e)` to the buffer.
    fn push_decoded(&mut self, s: usize, e: usize, esc: bool) {
        if esc {
            decode_into(&self.b[s..e], &mut self.buf, None);
        } else {
            self.buf.extend_from_slice(&self.b[s + 1..e - 1]);
        }
    }

    fn end_seg(&mut self, start: usize, part: usize, tok: usize) {
        self.segs.push(Seg {
            start,
            part,
            end: self.buf.len(),
            tok,
        });
        self.buf.extend_from_slice(SEP);
    }

    fn key(&mut self, s: usize, e: usize, esc: bool, obj: usize) {
        let raw = &self.b[s..e];
        if memchr::memchr(b'[', raw).is_some()
            || (esc && memchr::memmem::find(raw, b"\\u").is_some())
        {
            self.bracketed.push((obj, s, e));
        }
        if e - s - 2 < MIN_KEY {
            return;
        }
        let t = self.push_tok(s, e, Kind::Key, esc);
        self.toks[t].obj = obj;
        let start = self.buf.len();
        self.push_decoded(s, e, esc);
        self.end_seg(start, start, t);
        self.maybe_flush();
    }

    /// Does the key `[s, e)`, decoded and in its quotes, hold a keyword of some rule (then it
    /// is context for the value)? The quotes let a keyword name one exact key (`"value"`).
    /// Its redacted form must decide the same (so idempotence holds): no length limit, as
    /// redaction shortens a key, and decoded, as redaction re-encodes its escapes.
    fn key_is_context(&self, key: Option<(usize, usize)>) -> Option<(usize, usize)> {
        let (s, e) = key?;
        let raw = &self.b[s..e];
        let hit = if memchr::memchr(b'\\', raw).is_some() {
            let mut d = vec![b'"'];
            self.push_decoded_into(s, e, true, &mut d);
            d.push(b'"');
            self.rd.has_keyword(&d)
        } else {
            self.rd.has_keyword(raw)
        };
        hit.then_some((s, e))
    }

    fn string_value(&mut self, s: usize, e: usize, esc: bool, ctx: Ctx) {
        // JSON inside the string: redact it as a document, recursively.
        if self.nest < MAX_NEST && e - s > 3 {
            let mut d = Vec::new();
            self.push_decoded_into(s, e, esc, &mut d);
            let first = d.iter().find(|c| !c.is_ascii_whitespace());
            if matches!(first, Some(b'{') | Some(b'[')) {
                if let Ok(text) = std::str::from_utf8(&d) {
                    self.flush();
                    if let Some(r) =
                        redact_doc(self.rd, self.known, text, self.nest + 1, self.numbering)
                    {
                        if r.withheld_by.is_some() && self.withheld.is_none() {
                            self.withheld = r.withheld_by.clone();
                        }
                        for f in &r.findings {
                            self.findings.push(Finding {
                                start: s,
                                end: e,
                                ..f.clone()
                            });
                        }
                        if r.changed() {
                            let mut enc = Vec::new();
                            encode(r.text.as_bytes(), &mut enc);
                            self.edit(s, e, &enc);
                        }
                        return;
                    }
                }
            }
        }
        let t = self.push_tok(s, e, Kind::Str, esc);
        let start = self.buf.len();
        self.push_decoded(s, e, esc);
        self.end_seg(start, start, t);
        if let Some((ks, ke)) = self.key_is_context(ctx.key) {
            let start = self.buf.len();
            self.buf.push(b'"');
            let kesc = self.b[ks..ke].contains(&b'\\');
            self.push_decoded(ks, ke, kesc);
            let sep: &[u8] = if ctx.element { b"\": [\"" } else { b"\": \"" };
            self.buf.extend_from_slice(sep);
            self.value_part(start, s, e, esc, t);
        }
        // the object's text before the value, as is (its escapes are what a terminal shows)
        if let Some((os, oe)) = ctx.object {
            if self.rd.has_keyword(&self.b[os..oe]) {
                let start = self.buf.len();
                self.buf.extend_from_slice(&self.b[os..=oe]);
                self.value_part(start, s, e, esc, t);
            }
        }
        self.maybe_flush();
    }

    /// End the context segment begun at `start` with the decoded string value `[s, e)` of
    /// token `t` (the value part) and its closing quote.
    fn value_part(&mut self, start: usize, s: usize, e: usize, esc: bool, t: usize) {
        let part = self.buf.len();
        self.push_decoded(s, e, esc);
        self.buf.push(b'"');
        self.segs.push(Seg {
            start,
            part,
            end: self.buf.len() - 1,
            tok: t,
        });
        self.buf.extend_from_slice(SEP);
    }

    fn push_decoded_into(&self, s: usize, e: usize, esc: bool, out: &mut Vec<u8>) {
        if esc {
            decode_into(&self.b[s..e], out, None);
        } else {
            out.extend_from_slice(&self.b[s + 1..e - 1]);
        }
    }

    fn number_value(&mut self, s: usize, e: usize, key: Option<(usize, usize)>) {
        let t = self.push_tok(s, e, Kind::Num, false);
        let start = self.buf.len();
        self.buf.extend_from_slice(&self.b[s..e]);
        self.end_seg(start, start, t);
        if let Some((ks, ke)) = self.key_is_context(key) {
            let start = self.buf.len();
            self.buf.push(b'"');
            let kesc = self.b[ks..ke].contains(&b'\\');
            self.push_decoded(ks, ke, kesc);
            self.buf.extend_from_slice(b"\": ");
            let part = self.buf.len();
            self.buf.extend_from_slice(&self.b[s..e]);
            self.end_seg(start, part, t);
        }
        self.maybe_flush();
    }

    fn maybe_flush(&mut self) {
        if self.buf.len() >= BATCH {
            self.flush();
        }
    }

    /// Replace `b[s..e]` by `rep` in the output.
    fn edit(&mut self, s: usize, e: usize, rep: &[u8]) {
        if self.out.capacity() == 0 {
            self.out.reserve(self.b.len() + 64);
        }
        self.out.extend_from_slice(&self.b[self.last..s]);
        self.out.extend_from_slice(rep);
        self.last = e;
    }

    /// Scan the buffered segments, apply what was found, clear the batch.
    fn flush(&mut self) {
        if self.segs.is_empty() {
            self.buf.clear();
            self.toks.clear();
            return;
        }
        let rd = self.rd;
        // the same fixed point as text mode (see `Redactor::fixed_point`), over the segments,
        // of the matches that stay inside one segment
        let segs = &self.segs;
        let cands = rd.fixed_point_within(&self.buf, self.known, |c| clip(segs, c));
        // per token: candidates in decoded-value offsets
        let mut per: Vec<(usize, Cand)> = Vec::new();
        for c in cands {
            let Some(g) = seg_of(segs, &c) else { continue };
            if c.end <= g.part {
                continue;
            }
            let s = c.start.max(g.part) - g.part;
            per.push((
                g.tok,
                Cand {
                    start: s,
                    end: c.end - g.part,
                    rule: c.rule,
                },
            ));
        }
        per.sort_by_key(|&(t, c)| (t, c.start));
        let mut i = 0;
        let mut value = Vec::new();
        let mut map = Vec::new();
        while i < per.len() {
            let t = per[i].0;
            let mut j = i;
            while j < per.len() && per[j].0 == t {
                j += 1;
            }
            let merged = merge(per[i..j].iter().map(|p| p.1).collect());
            i = j;
            let tok = self.toks[t];
            value.clear();
            map.clear();
            if tok.kind == Kind::Num {
                value.extend_from_slice(&self.b[tok.start..tok.end]);
            } else if tok.esc {
                decode_into(&self.b[tok.start..tok.end], &mut value, Some(&mut map));
            } else {
                value.extend_from_slice(&self.b[tok.start + 1..tok.end - 1]);
            }
            let raw = |o: usize| -> usize {
                match tok.kind {
                    Kind::Num => tok.start + o,
                    _ if tok.esc => tok.start + map[o.min(map.len() - 1)],
                    _ => tok.start + 1 + o,
                }
            };
            let mut rep = Vec::with_capacity(value.len());
            let mut last = 0;
            for &c in &merged {
                if rd.is_withhold(c.rule) && self.withheld.is_none() {
                    self.withheld = Some(rd.rule_id_of(c.rule));
                }
                let (rs, re) = (raw(c.start), raw(c.end).max(raw(c.start) + 1));
                self.findings.push(rd.finding(
                    Cand {
                        start: rs,
                        end: re,
                        rule: c.rule,
                    },
                    0,
                ));
                rep.extend_from_slice(&value[last..c.start]);
                rd.replacement(c, &value[c.start..c.end], self.numbering, &mut rep);
                last = c.end;
            }
            rep.extend_from_slice(&value[last..]);
            let mut enc = Vec::with_capacity(rep.len() + 2);
            encode(&rep, &mut enc);
            self.edit(tok.start, tok.end, &enc);
            if tok.kind == Kind::Key {
                let end = self.out.len();
                self.keys.push(RedactedKey {
                    obj: tok.obj,
                    raw: (tok.start, tok.end),
                    start: end - enc.len(),
                    end,
                });
            }
        }
        self.buf.clear();
        self.toks.clear();
        self.segs.clear();
    }
}

/// Redact a JSON document; `None` if `input` is not one (then the caller treats it as text).
pub(super) fn redact_doc<'a>(
    rd: &Redactor,
    known: Option<&KnownValues>,
    input: &'a str,
    nest: usize,
    numbering: &mut Numbering,
) -> Option<Redaction<'a>> {
    let b = input.as_bytes();
    let mut w = Walk {
        rd,
        known,
        b,
        i: 0,
        nest,
        buf: Vec::new(),
        toks: Vec::new(),
        segs: Vec::new(),
        out: Vec::new(),
        last: 0,
        findings: Vec::new(),
        withheld: None,
        numbering,
        keys: Vec::new(),
        bracketed: Vec::new(),
    };
    w.value(0, Ctx::default())?;
    w.ws();
    if w.i != b.len() {
        return None;
    }
    w.flush();
    let mut findings = w.findings;
    findings.sort_by_key(|f| (f.start, f.end));
    if let Some(id) = w.withheld {
        let msg = rd.withhold_message(&id);
        return Some(Redaction {
            text: Cow::Owned(serde_json::Value::String(msg).to_string()),
            findings,
            withheld_by: Some(id),
        });
    }
    if w.out.capacity() == 0 {
        return Some(Redaction {
            text: Cow::Borrowed(input),
            findings,
            withheld_by: None,
        });
    }
    let mut out = w.out;
    out.extend_from_slice(&b[w.last..]);
    if !w.keys.is_empty() {
        out = unique_keys(b, out, &mut w.keys, &w.bracketed);
    }
    let text = String::from_utf8(out).ok()?;
    Some(Redaction {
        text: Cow::Owned(text),
        findings,
        withheld_by: None,
    })
}

/// Keep every member: a key redacted to the text of another key of its object (two keys
/// that differ only in their secrets, or a key that reads like a placeholder) is numbered,
/// `[EMAIL_1]` → `[EMAIL_1] (2)`, until it is unique. A key repeated in the input stays
/// repeated. `out` is the whole output; `bracketed` the input keys that hold a `[` (the only
/// ones a redacted key's text can equal), by object, in input order.
fn unique_keys(
    b: &[u8],
    out: Vec<u8>,
    keys: &mut [RedactedKey],
    bracketed: &[(usize, usize, usize)],
) -> Vec<u8> {
    use std::collections::HashMap;
    let decode = |raw: &[u8]| {
        let mut v = Vec::new();
        decode_into(raw, &mut v, None);
        v
    };
    keys.sort_by_key(|k| (k.obj, k.start));
    let mut edits: Vec<(usize, usize, Vec<u8>)> = Vec::new();
    for group in keys.chunk_by(|a, b| a.obj == b.obj) {
        let obj = group[0].obj;
        // output key text → the input key that has it
        let mut taken: HashMap<Vec<u8>, Vec<u8>> = bracketed
            .iter()
            .filter(|k| k.0 == obj)
            .map(|&(_, s, e)| {
                let k = decode(&b[s..e]);
                (k.clone(), k)
            })
            .collect();
        // the next number to try for a text (many keys can share one: `[REDACTED:secret]`)
        let mut next: HashMap<Vec<u8>, usize> = HashMap::new();
        // input key → its output text (a repeated key gets the same)
        let mut assigned: HashMap<Vec<u8>, Vec<u8>> = HashMap::new();
        for k in group {
            let orig = decode(&b[k.raw.0..k.raw.1]);
            let text = decode(&out[k.start..k.end]);
            let mut unique = text.clone();
            if let Some(u) = assigned.get(&orig) {
                unique.clone_from(u);
            } else if taken.get(&unique).is_some_and(|o| *o != orig) {
                let n = next.entry(text.clone()).or_insert(2);
                loop {
                    unique = [&text[..], format!(" ({n})").as_bytes()].concat();
                    *n += 1;
                    if taken.get(&unique).is_none_or(|o| *o == orig) {
                        break;
                    }
                }
            }
            if unique != text {
                let mut enc = Vec::with_capacity(unique.len() + 2);
                encode(&unique, &mut enc);
                edits.push((k.start, k.end, enc));
            }
            taken.insert(unique.clone(), orig.clone());
            assigned.insert(orig, unique);
        }
    }
    if edits.is_empty() {
        return out;
    }
    edits.sort_by_key(|e| e.0);
    let mut fixed = Vec::with_capacity(out.len() + 8 * edits.len());
    let mut last = 0;
    for (s, e, enc) in edits {
        fixed.extend_from_slice(&out[last..s]);
        fixed.extend_from_slice(&enc);
        last = e;
    }
    fixed.extend_from_slice(&out[last..]);
    fixed
}

#[cfg(test)]
mod tests {
    #[test]
    fn encode_escapes_as_serde_json_does() {
        let all: String = (0u8..0x80).map(char::from).collect();
        for s in [all.as_str(), "", "plain", "é ☃ 𝄞 \u{7f}", "a\"b\\c\u{1f}"] {
            let mut out = Vec::new();
            super::encode(s.as_bytes(), &mut out);
            assert_eq!(
                String::from_utf8(out).unwrap(),
                serde_json::to_string(s).unwrap()
            );
        }
        let mut out = Vec::new();
        super::encode(b"a\xffb", &mut out);
        assert_eq!(out, "\"a\u{fffd}b\"".as_bytes());
    }
}

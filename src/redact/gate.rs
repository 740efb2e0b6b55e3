//! Cheap, sound pre-checks derived from a rule's parsed regex.
//!
//! * [`newline_budget`]: the most `\n` bytes any match can contain (`None` = unbounded). A
//!   keyword window never needs to reach past that many line breaks on either side of the
//!   hit, so line-oriented rules get line-sized windows instead of `2 × side` bytes.
//! * [`RunGate`]: for keywordless rules, the set of bytes a match can consume, its minimum
//!   length and minimum number of ASCII digits. Every match lies inside one maximal run of
//!   alphabet bytes, so only runs that are long enough and hold enough digits are searched.
//! * [`keywords_required`] / [`keywords_required_upper`]: whether every match contains a
//!   keyword (in upper case), decided from the small finite string sets sub-expressions
//!   match, each built once, bottom-up, and not at all once provably too large.
//! * [`keyword_lead`]: how far into a match its keyword can lie at most. A window then needs
//!   only that much text before a hit, not the rule's whole reach.
//! * [`required_bytes`]: punctuation every match holds (the `=` of an assignment, the `<` of
//!   an XML element). A window whose whole search region lacks one cannot hold a match, so
//!   its regex search is skipped after a `memchr`.
//! * [`capture_tail`]: how far before a match's end the reported capture group ends at most,
//!   and how short it can be. A match found by the DFA alone whose last bytes lie in one of
//!   our placeholders then provably captures placeholder text, and its (costly) captures are
//!   never computed.

use regex_syntax::hir::{Class, Hir, HirKind};

/// Most `\n` bytes a match of `h` can contain; `None` if unbounded.
pub fn newline_budget(h: &Hir) -> Option<usize> {
    match h.kind() {
        HirKind::Empty | HirKind::Look(_) => Some(0),
        HirKind::Literal(l) => Some(l.0.iter().filter(|&&b| b == b'\n').count()),
        HirKind::Class(c) => Some(usize::from(class_has(c, b'\n'))),
        HirKind::Repetition(r) => {
            let sub = newline_budget(&r.sub)?;
            if sub == 0 {
                Some(0)
            } else {
                r.max.map(|m| (m as usize).saturating_mul(sub))
            }
        }
        HirKind::Capture(c) => newline_budget(&c.sub),
        HirKind::Concat(subs) => subs
            .iter()
            .try_fold(0usize, |a, s| Some(a.saturating_add(newline_budget(s)?))),
        HirKind::Alternation(subs) => subs
            .iter()
            .try_fold(0usize, |a, s| Some(a.max(newline_budget(s)?))),
    }
}

fn class_has(c: &Class, b: u8) -> bool {
    match c {
        Class::Bytes(cb) => cb.ranges().iter().any(|r| r.start() <= b && b <= r.end()),
        Class::Unicode(cu) => {
            let ch = b as char;
            cu.ranges().iter().any(|r| r.start() <= ch && ch <= r.end())
        }
    }
}

/// Alphabet / length / digit requirements of a keywordless rule.
#[derive(Debug, Clone)]
pub struct RunGate {
    pub alphabet: [bool; 256],
    pub min_len: usize,
    pub min_digits: usize,
    /// bytes a match can start with
    pub first: [bool; 256],
    /// every match starts at an (ASCII) word boundary
    pub word_start: bool,
}

/// Adds the bytes a non-empty match of `h` can start with to `a`; returns whether `h` can
/// match the empty string.
fn add_first(h: &Hir, a: &mut [bool; 256]) -> bool {
    match h.kind() {
        HirKind::Empty | HirKind::Look(_) => true,
        HirKind::Literal(l) => match l.0.first() {
            Some(&b) => {
                a[b as usize] = true;
                false
            }
            None => true,
        },
        HirKind::Class(_) => {
            add_alphabet(h, a);
            false
        }
        HirKind::Repetition(r) => {
            if r.max == Some(0) {
                return true;
            }
            add_first(&r.sub, a) || r.min == 0
        }
        HirKind::Capture(c) => add_first(&c.sub, a),
        HirKind::Concat(subs) => {
            for s in subs {
                if !add_first(s, a) {
                    return false;
                }
            }
            true
        }
        HirKind::Alternation(subs) => {
            let mut nullable = false;
            for s in subs {
                nullable |= add_first(s, a);
            }
            nullable
        }
    }
}

#[inline]
fn is_word(b: u8) -> bool {
    b.is_ascii_alphanumeric() || b == b'_'
}

fn add_alphabet(h: &Hir, a: &mut [bool; 256]) {
    match h.kind() {
        HirKind::Empty | HirKind::Look(_) => {}
        HirKind::Literal(l) => {
            for &b in l.0.iter() {
                a[b as usize] = true;
            }
        }
        HirKind::Class(Class::Bytes(cb)) => {
            for r in cb.ranges() {
                for b in r.start()..=r.end() {
                    a[b as usize] = true;
                }
            }
        }
        HirKind::Class(Class::Unicode(cu)) => {
            for r in cu.ranges() {
                let (s, e) = (r.start() as u32, r.end() as u32);
                for b in s.min(0x80)..=e.min(0x7F) {
                    a[b as usize] = true;
                }
                if e >= 0x80 {
                    for x in a.iter_mut().skip(0x80) {
                        *x = true;
                    }
                }
            }
        }
        HirKind::Repetition(r) => {
            if r.max != Some(0) {
                add_alphabet(&r.sub, a)
            }
        }
        HirKind::Capture(c) => add_alphabet(&c.sub, a),
        HirKind::Concat(subs) | HirKind::Alternation(subs) => {
            for s in subs {
                add_alphabet(s, a)
            }
        }
    }
}

fn is_digit_class(c: &Class) -> bool {
    match c {
        Class::Bytes(cb) => {
            !cb.ranges().is_empty()
                && cb
                    .ranges()
                    .iter()
                    .all(|r| r.start() >= b'0' && r.end() <= b'9')
        }
        Class::Unicode(cu) => {
            !cu.ranges().is_empty()
                && cu
                    .ranges()
                    .iter()
                    .all(|r| r.start() >= '0' && r.end() <= '9')
        }
    }
}

fn min_digits(h: &Hir) -> usize {
    match h.kind() {
        HirKind::Empty | HirKind::Look(_) => 0,
        HirKind::Literal(l) => l.0.iter().filter(|b| b.is_ascii_digit()).count(),
        HirKind::Class(c) => usize::from(is_digit_class(c)),
        HirKind::Repetition(r) => (r.min as usize).saturating_mul(min_digits(&r.sub)),
        HirKind::Capture(c) => min_digits(&c.sub),
        HirKind::Concat(subs) => subs.iter().map(min_digits).fold(0, usize::saturating_add),
        HirKind::Alternation(subs) => subs.iter().map(min_digits).min().unwrap_or(0),
    }
}

impl RunGate {
    /// Can a match start in the run `b[s..e]` (leaving room for `min_len` bytes)?
    fn can_start(&self, b: &[u8], s: usize, e: usize) -> bool {
        (s..=e - self.min_len).any(|i| {
            self.first[b[i] as usize]
                && (!self.word_start || i == 0 || is_word(b[i - 1]) != is_word(b[i]))
        })
    }

    /// A gate for `h`, or `None` when it would not be selective (the alphabet holds
    /// lower-case letters, or matches can be very short).
    pub fn new(h: &Hir) -> Option<RunGate> {
        let mut alphabet = [false; 256];
        add_alphabet(h, &mut alphabet);
        let min_len = h.properties().minimum_len()?;
        let min_digits = min_digits(h);
        let lower = alphabet[b'a' as usize..=b'z' as usize].iter().any(|&x| x);
        if lower || min_len < 6 || min_digits < 2 || alphabet[0x80] {
            return None;
        }
        let mut first = [false; 256];
        if add_first(h, &mut first) {
            first = [true; 256];
        }
        let word_start = h
            .properties()
            .look_set_prefix()
            .contains(regex_syntax::hir::Look::WordAscii);
        Some(RunGate {
            alphabet,
            min_len,
            min_digits,
            first,
            word_start,
        })
    }
}

/// Position of the first ASCII digit in `b[from..]` (16 bytes at a time on x86-64, else 8).
fn next_digit(b: &[u8], mut from: usize) -> Option<usize> {
    #[cfg(target_arch = "x86_64")]
    while let Some(chunk) = b.get(from..from + 16) {
        let m = digits16(chunk.try_into().unwrap());
        if m != 0 {
            return Some(from + m.trailing_zeros() as usize);
        }
        from += 16;
    }
    const LO: u64 = 0x0101_0101_0101_0101;
    const HI: u64 = 0x8080_8080_8080_8080;
    while from + 8 <= b.len() {
        let x = u64::from_le_bytes(b[from..from + 8].try_into().unwrap()) ^ (LO * 0x30);
        // any byte < 10 (i.e. original byte in '0'..='9')
        if (x.wrapping_sub(LO * 10) & !x & HI) != 0 {
            break;
        }
        from += 8;
    }
    b[from..]
        .iter()
        .position(|c| c.is_ascii_digit())
        .map(|i| from + i)
}

/// Bit `i` set when `chunk[i]` is an ASCII digit.
#[cfg(target_arch = "x86_64")]
#[inline(always)]
fn digits16(chunk: &[u8; 16]) -> u32 {
    use std::arch::x86_64::*;
    // SAFETY: SSE2 instructions only, part of the x86-64 baseline (every x86-64 CPU has them,
    // so the compiler enables them and inlines these intrinsics); the load reads the 16 bytes
    // `chunk` holds, unaligned.
    unsafe {
        let x = _mm_loadu_si128(chunk.as_ptr().cast());
        // a digit is a byte `c` with `c - b'0'` at most 9, unsigned
        let t = _mm_sub_epi8(x, _mm_set1_epi8(b'0' as i8));
        let digit = _mm_cmpeq_epi8(_mm_min_epu8(t, _mm_set1_epi8(9)), t);
        _mm_movemask_epi8(digit) as u32
    }
}

/// The gates of up to 32 keywordless rules, searched together: `member[b]` has bit `k` set
/// when byte `b` is in gate `k`'s alphabet.
#[derive(Debug, Clone)]
pub struct RunGates {
    gates: Vec<RunGate>,
    member: [u32; 256],
    /// the shortest run and fewest digits any gate accepts
    min_len: usize,
    min_digits: usize,
}

impl RunGates {
    /// Most gates one set holds (one bit each in `member`).
    pub const MAX: usize = 32;

    /// The set of `gates` (at most [`RunGates::MAX`]).
    pub fn new(gates: Vec<RunGate>) -> RunGates {
        assert!(gates.len() <= Self::MAX, "at most {} gates", Self::MAX);
        let mut member = [0u32; 256];
        for (k, g) in gates.iter().enumerate() {
            for (m, &a) in member.iter_mut().zip(g.alphabet.iter()) {
                *m |= u32::from(a) << k;
            }
        }
        RunGates {
            min_len: gates.iter().map(|g| g.min_len).min().unwrap_or(usize::MAX),
            min_digits: gates
                .iter()
                .map(|g| g.min_digits)
                .min()
                .unwrap_or(usize::MAX),
            gates,
            member,
        }
    }

    /// For each gate `k`, push `(k, start, end)` for every maximal run of its alphabet in
    /// `hay[lo..hi]` that is at least `min_len` long, holds `min_digits` digits and has a
    /// byte a match can start at. Every gate needs digits, so only the runs of the union of
    /// the alphabets around a digit are read, each once: one walk over such a run follows
    /// every gate's runs inside it (a gate's run opens or closes where its bit in `member`
    /// flips), and a gate's digits are the union run's digit count between those points.
    pub fn runs(&self, hay: &[u8], lo: usize, hi: usize, out: &mut Vec<(usize, usize, usize)>) {
        let b = &hay[..hi];
        let mut start = [0usize; Self::MAX];
        let mut digits_at_start = [0usize; Self::MAX];
        let mut pos = lo;
        while let Some(d) = next_digit(b, pos) {
            let mut total = 1;
            let mut s = d;
            while s > lo && self.member[b[s - 1] as usize] != 0 {
                s -= 1;
                total += usize::from(b[s].is_ascii_digit());
            }
            let mut e = d + 1;
            while e < hi && self.member[b[e] as usize] != 0 {
                total += usize::from(b[e].is_ascii_digit());
                e += 1;
            }
            pos = e;
            // only the gates the whole union run is long enough and has digits enough for
            let active = self.fitting(e - s, total);
            if active == 0 {
                continue;
            }
            let mut open = 0u32;
            let mut digits = 0usize;
            for (i, &c) in b.iter().enumerate().take(e).skip(s) {
                let m = self.member[c as usize] & active;
                if m != open {
                    for k in bits(open & !m) {
                        self.emit(k, b, start[k], i, digits - digits_at_start[k], out);
                    }
                    for k in bits(m & !open) {
                        start[k] = i;
                        digits_at_start[k] = digits;
                    }
                    open = m;
                }
                digits += usize::from(c.is_ascii_digit());
            }
            for k in bits(open) {
                self.emit(k, b, start[k], e, digits - digits_at_start[k], out);
            }
        }
    }

    /// The gates (a bit each) whose runs can be `len` bytes long holding `digits` digits.
    fn fitting(&self, len: usize, digits: usize) -> u32 {
        if len < self.min_len || digits < self.min_digits {
            return 0;
        }
        let mut m = 0;
        for (k, g) in self.gates.iter().enumerate() {
            m |= u32::from(len >= g.min_len && digits >= g.min_digits) << k;
        }
        m
    }

    /// Push gate `k`'s run `b[s..e]` (holding `digits` digits) if it can hold a match.
    #[inline]
    fn emit(
        &self,
        k: usize,
        b: &[u8],
        s: usize,
        e: usize,
        digits: usize,
        out: &mut Vec<(usize, usize, usize)>,
    ) {
        let g = &self.gates[k];
        if e - s >= g.min_len && digits >= g.min_digits && g.can_start(b, s, e) {
            out.push((k, s, e));
        }
    }
}

/// The indices of the set bits of `x`, lowest first.
fn bits(mut x: u32) -> impl Iterator<Item = usize> {
    std::iter::from_fn(move || {
        (x != 0).then(|| {
            let k = x.trailing_zeros() as usize;
            x &= x - 1;
            k
        })
    })
}

/// Most members a literal set may have and still count as small.
const MAX_SET: usize = 512;

/// Most members the product of a run of concatenated neighbours may have (each is checked
/// for keywords at every step of the run, so this bounds that work).
const MAX_RUN: usize = 64;

/// Deepest node (the root is depth 0) whose exact set is tested against the keywords.
const MAX_WALK_DEPTH: usize = 10;

/// A small finite string set: members sorted, distinct, at most [`MAX_SET`] of them, stored
/// back to back in one buffer (no allocation per member).
#[derive(Debug, Default)]
struct Set {
    bytes: Vec<u8>,
    /// end of each member in `bytes`
    ends: Vec<u32>,
}

impl Set {
    /// The set holding only `s`.
    fn one(s: &[u8]) -> Set {
        Set {
            bytes: s.to_vec(),
            ends: vec![s.len() as u32],
        }
    }

    fn len(&self) -> usize {
        self.ends.len()
    }

    fn iter(&self) -> impl Iterator<Item = &[u8]> + '_ {
        let starts = std::iter::once(0).chain(self.ends.iter().copied());
        starts
            .zip(self.ends.iter().copied())
            .map(|(s, e)| &self.bytes[s as usize..e as usize])
    }

    /// True if the set is not empty and all its members have the same length.
    fn uniform(&self) -> bool {
        let Some(&n) = self.ends.first() else {
            return false;
        };
        let n = n as usize;
        self.ends.len() * n == self.bytes.len()
            && (self.ends.iter().enumerate()).all(|(i, &e)| e as usize == (i + 1) * n)
    }

    fn push(&mut self, parts: &[&[u8]]) {
        for p in parts {
            self.bytes.extend_from_slice(p);
        }
        self.ends.push(self.bytes.len() as u32);
    }

    /// The set of `members` (in any order, repeats allowed); `None` if it has more than
    /// [`MAX_SET`].
    fn of<'m>(members: impl Iterator<Item = &'m [u8]>) -> Option<Set> {
        let mut v: Vec<&[u8]> = members.collect();
        v.sort_unstable();
        v.dedup();
        if v.len() > MAX_SET {
            return None;
        }
        let mut out = Set {
            bytes: Vec::with_capacity(v.iter().map(|m| m.len()).sum()),
            ends: Vec::with_capacity(v.len()),
        };
        for m in v {
            out.push(&[m]);
        }
        Some(out)
    }
}

/// True if every match of `h` contains one of `kws` (lower-case), case-insensitively:
/// some sub-expression every match passes through matches only strings that do.
pub fn keywords_required(h: &Hir, kws: &[Vec<u8>]) -> bool {
    let finders: Vec<memchr::memmem::Finder> = kws
        .iter()
        .filter(|k| !k.is_empty())
        .map(memchr::memmem::Finder::new)
        .collect();
    let covered = |s: &[u8]| finders.iter().any(|f| f.find(s).is_some());
    Required {
        fold: true,
        covered: &covered,
    }
    .holds(h)
}

/// True if every match of `h` contains one of `kws` (lower-case) written in upper case (no
/// ASCII lower-case letter in the occurrence). Then a keyword hit that contains a lower-case
/// letter can be ignored for this rule: the upper-case occurrence of the same match is a hit
/// of its own.
pub fn keywords_required_upper(h: &Hir, kws: &[Vec<u8>]) -> bool {
    let upper: Vec<Vec<u8>> = kws
        .iter()
        .filter(|k| !k.is_empty())
        .map(|k| k.to_ascii_uppercase())
        .collect();
    let finders: Vec<memchr::memmem::Finder> =
        upper.iter().map(memchr::memmem::Finder::new).collect();
    let covered = |s: &[u8]| {
        finders.iter().any(|f| {
            let n = f.needle().len();
            f.find_iter(s)
                .any(|i| !s[i..i + n].iter().any(u8::is_ascii_lowercase))
        })
    };
    Required {
        fold: false,
        covered: &covered,
    }
    .holds(h)
}

/// Byte sets of which every match of `h` holds at least one byte, kept only where they are
/// cheap and telling to look for: one to three punctuation bytes (no letter, digit,
/// whitespace or non-ASCII byte, which nearly every region holds), each set sorted,
/// deduplicated, at most [`MAX_REQUIRED`] of them. An alternation requires the union of one
/// such set from each branch (the narrowest), or nothing if a branch has none.
///
/// `(?i)password\s*[:=]\s*(\S+)` requires `[:=]`; `<(\w+)>` requires `<` and `>`;
/// `key(?:=|: )` requires `[:=]`; `(?:^|,)key` requires nothing.
pub fn required_bytes(h: &Hir) -> Vec<Vec<u8>> {
    let mut sets = Vec::new();
    add_required(h, &mut sets);
    let mut out: Vec<Vec<u8>> = Vec::new();
    for s in sets {
        let bytes = members(&s);
        if telling(&bytes) && !out.contains(&bytes) && out.len() < MAX_REQUIRED {
            out.push(bytes);
        }
    }
    out
}

/// Most byte sets [`required_bytes`] keeps for one rule.
pub const MAX_REQUIRED: usize = 4;

/// The bytes a set holds, in order.
fn members(s: &[bool; 256]) -> Vec<u8> {
    (0u8..=255).filter(|&b| s[b as usize]).collect()
}

/// A required byte set worth a `memchr`: one to three punctuation bytes.
fn telling(bytes: &[u8]) -> bool {
    (1..=3).contains(&bytes.len()) && bytes.iter().all(|&b| b.is_ascii_punctuation() && b != b'_')
}

/// Pushes onto `out` byte sets of which every match of `h` holds a byte.
fn add_required(h: &Hir, out: &mut Vec<[bool; 256]>) {
    match h.kind() {
        HirKind::Empty | HirKind::Look(_) => {}
        HirKind::Literal(l) => {
            for &b in l.0.iter() {
                let mut s = [false; 256];
                s[b as usize] = true;
                out.push(s);
            }
        }
        HirKind::Class(_) => {
            let mut s = [false; 256];
            add_alphabet(h, &mut s);
            out.push(s);
        }
        HirKind::Repetition(r) => {
            if r.min >= 1 {
                add_required(&r.sub, out);
            }
        }
        HirKind::Capture(c) => add_required(&c.sub, out),
        HirKind::Concat(subs) => {
            for s in subs {
                add_required(s, out);
            }
        }
        HirKind::Alternation(subs) => {
            let mut union = [false; 256];
            for s in subs {
                let mut sets = Vec::new();
                add_required(s, &mut sets);
                let narrowest = sets
                    .iter()
                    .filter(|s| telling(&members(s)))
                    .min_by_key(|s| s.iter().filter(|&&x| x).count());
                match narrowest {
                    Some(n) => {
                        for (u, &x) in union.iter_mut().zip(n.iter()) {
                            *u |= x;
                        }
                    }
                    None => return,
                }
            }
            out.push(union);
        }
    }
}

/// The most bytes from the start of any match of `h` to the end of a keyword occurrence
/// inside it: the longest match of the shortest leading run of `h`'s top-level concatenation
/// whose every match holds a keyword (in upper case if `upper`, as for
/// [`keywords_required_upper`]). `None` if no such bounded run exists.
///
/// Every match of `h` is a match of that run followed by the rest, so it holds a keyword
/// occurrence ending at most this far from its start, and the keyword pass reports that
/// occurrence: a window opened at a hit's end minus this lead reaches the start of every
/// match that holds the hit in its leading run.
pub fn keyword_lead(h: &Hir, kws: &[Vec<u8>], upper: bool) -> Option<usize> {
    let mut h = h;
    while let HirKind::Capture(c) = h.kind() {
        h = &c.sub;
    }
    let required = |p: &Hir| {
        if upper {
            keywords_required_upper(p, kws)
        } else {
            keywords_required(p, kws)
        }
    };
    let HirKind::Concat(subs) = h.kind() else {
        return if required(h) {
            h.properties().maximum_len()
        } else {
            None
        };
    };
    let mut lead = 0usize;
    for i in 0..subs.len() {
        lead = lead.checked_add(subs[i].properties().maximum_len()?)?;
        if required(&Hir::concat(subs[..=i].to_vec())) {
            return Some(lead);
        }
    }
    None
}

/// One bottom-up pass deciding whether every match of a HIR contains a keyword.
///
/// A node every match passes through (the root; from a node on that path: each member of a
/// concatenation, a capture's sub, the sub of a repetition with `min >= 1`, every branch of
/// an alternation), at most [`MAX_WALK_DEPTH`] deep, *requires* a keyword when the set of
/// strings it matches exactly is small and every member is covered; a concatenation requires
/// one if any member does, an alternation if every branch does. Each node's exact set is
/// built once, from its children's sets, and not at all once its parent's set is known to
/// be too large.
struct Required<'a> {
    /// exact sets are ASCII-lower-cased (case preserved otherwise)
    fold: bool,
    /// does one member of an exact set contain a keyword?
    covered: &'a dyn Fn(&[u8]) -> bool,
}

impl Required<'_> {
    fn holds(&self, h: &Hir) -> bool {
        self.visit(h, Some(0), false).1
    }

    /// `h`'s exact set (when `want` or `h` is walked) and, if `walk` holds its depth on the
    /// required path, whether it requires a keyword.
    fn visit(&self, h: &Hir, walk: Option<usize>, want: bool) -> (Option<Set>, bool) {
        if walk.is_none() && !want {
            return (None, false);
        }
        // children of a walked node are walked one level deeper, up to the limit
        let deeper = walk.filter(|&d| d < MAX_WALK_DEPTH).map(|d| d + 1);
        let (set, kids) = match h.kind() {
            HirKind::Empty | HirKind::Look(_) => (Some(Set::one(b"")), false),
            HirKind::Literal(l) if self.fold => (Some(Set::one(&l.0.to_ascii_lowercase())), false),
            HirKind::Literal(l) => (Some(Set::one(&l.0)), false),
            HirKind::Class(c) => (self.class_set(c), false),
            HirKind::Capture(c) => self.visit(&c.sub, deeper, true),
            HirKind::Repetition(r) => {
                let max = r.max.filter(|&m| m <= 4).map(|m| m as usize);
                let sub_walk = if r.min >= 1 { deeper } else { None };
                let (sub, req) = self.visit(&r.sub, sub_walk, max.is_some());
                let set = match (max, sub) {
                    (Some(max), Some(sub)) => repeat(&sub, r.min as usize, max),
                    _ => None,
                };
                (set, r.min >= 1 && req)
            }
            HirKind::Concat(subs) => {
                // the members' sets, while the product can still be small
                let mut parts = Some(Vec::with_capacity(subs.len()));
                // the product's exact size while every step so far was injective (a side
                // of one length), and whether all its members have one length
                let mut size = Some((1usize, true));
                let mut any = false;
                // the product of the latest run of neighbours with small sets: every match
                // passes through the run, so if all its members hold a keyword, so do all
                // matches (`[a-z]{0,60}key`: the run `k`,`e`,`y` after the repetition)
                let mut run: Option<Set> = None;
                for s in subs {
                    // a run needs the sets of literals and classes (cheap) even once the
                    // product is too large
                    let cheap = matches!(s.kind(), HirKind::Literal(_) | HirKind::Class(_));
                    let (ss, req) =
                        self.visit(s, deeper, parts.is_some() || (cheap && walk.is_some()));
                    any |= req;
                    if walk.is_some() {
                        run = ss.as_ref().filter(|ss| ss.len() <= MAX_RUN).and_then(|ss| {
                            run.as_ref()
                                .filter(|r| r.len() * ss.len() <= MAX_RUN)
                                .and_then(|r| cross(r, ss))
                                .or_else(|| Set::of(ss.iter()))
                        });
                        any = any || run.as_ref().is_some_and(|r| self.all_covered(r));
                    }
                    let (Some(mut p), Some(ss)) = (parts.take(), ss) else {
                        continue;
                    };
                    if let Some((n, all_uniform)) = size {
                        // exactly the check `cross` will make at this step
                        if n.saturating_mul(ss.len()) > MAX_SET {
                            continue;
                        }
                        let uniform = ss.uniform();
                        size = (all_uniform || uniform)
                            .then(|| (n * ss.len(), all_uniform && uniform));
                    }
                    p.push(ss);
                    parts = Some(p);
                }
                let set =
                    parts.and_then(|p| p.iter().try_fold(Set::one(b""), |cur, ss| cross(&cur, ss)));
                (set, any)
            }
            HirKind::Alternation(subs) => {
                let mut all = Some(Vec::new());
                let mut every = true;
                for s in subs {
                    let (ss, req) = self.visit(s, deeper, all.is_some());
                    every &= req;
                    all = match (all, ss) {
                        (Some(mut a), Some(ss)) => {
                            a.push(ss);
                            Some(a)
                        }
                        _ => None,
                    };
                }
                let set = all.and_then(|a| Set::of(a.iter().flat_map(Set::iter)));
                (set, every)
            }
        };
        let required =
            walk.is_some() && (kids || set.as_ref().is_some_and(|s| self.all_covered(s)));
        (set, required)
    }

    fn all_covered(&self, set: &Set) -> bool {
        set.len() > 0 && set.iter().all(|s| (self.covered)(s))
    }

    /// The one-byte strings of an ASCII class with at most 8 members (after folding).
    fn class_set(&self, c: &Class) -> Option<Set> {
        // a class with non-ASCII members is not a small literal set
        let non_ascii = match c {
            Class::Bytes(cb) => cb.ranges().iter().any(|r| r.end() >= 0x80),
            Class::Unicode(cu) => cu.ranges().iter().any(|r| r.end() as u32 >= 0x80),
        };
        if non_ascii {
            return None;
        }
        let mut seen = [false; 128];
        let mut add = |lo: u32, hi: u32| {
            for b in lo..=hi.min(127) {
                let b = b as u8;
                seen[usize::from(if self.fold { b.to_ascii_lowercase() } else { b })] = true;
            }
        };
        match c {
            Class::Bytes(cb) => cb
                .ranges()
                .iter()
                .for_each(|r| add(u32::from(r.start()), u32::from(r.end()))),
            Class::Unicode(cu) => cu
                .ranges()
                .iter()
                .for_each(|r| add(r.start() as u32, r.end() as u32)),
        }
        if seen.iter().filter(|&&x| x).count() > 8 {
            return None;
        }
        let mut v = Set::default();
        for b in (0u8..128).filter(|&b| seen[usize::from(b)]) {
            v.push(&[&[b]]);
        }
        Some(v)
    }
}

/// `sub` repeated `min..=max` times; `None` if a step's product (including the one past
/// `max`, so a set is small only if one more repetition would still be buildable) is too big.
fn repeat(sub: &Set, min: usize, max: usize) -> Option<Set> {
    // members of one length: |sub^n| = |sub|^n, so the last check can be made up front
    if sub.uniform()
        && (0..=max)
            .try_fold(1usize, |n, _| {
                n.checked_mul(sub.len()).filter(|&n| n <= MAX_SET)
            })
            .is_none()
    {
        return None;
    }
    let mut powers = Vec::with_capacity(max + 1);
    powers.push(Set::one(b""));
    for n in 1..=max {
        let next = cross(&powers[n - 1], sub)?;
        powers.push(next);
    }
    // the step past `max` is never used; only its size counts
    if powers[max].len().saturating_mul(sub.len()) > MAX_SET {
        return None;
    }
    Set::of(powers[min.min(max + 1)..].iter().flat_map(Set::iter))
}

/// Every `x ++ y`; `None` unless the product has at most [`MAX_SET`] members (checked before
/// anything is built).
fn cross(a: &Set, b: &Set) -> Option<Set> {
    if a.len().saturating_mul(b.len()) > MAX_SET {
        return None;
    }
    let mut out = Set {
        bytes: Vec::with_capacity(a.bytes.len() * b.len() + b.bytes.len() * a.len()),
        ends: Vec::with_capacity(a.len() * b.len()),
    };
    for x in a.iter() {
        for y in b.iter() {
            out.push(&[x, y]);
        }
    }
    // members of one length on both sides: the product is already sorted and distinct
    if a.uniform() && b.uniform() {
        return Some(out);
    }
    Set::of(out.iter())
}

/// Where the capture a rule reports can end, for a rule whose secret is capture group `g`
/// (the group, or the first later one that took part): `(tail, min)`, where every such group
/// ends at most `tail` bytes before the match's end and is at least `min` bytes long. `None`
/// when some group can be followed by unboundedly much text (or a group sits inside an
/// unbounded repetition).
///
/// With it, a match `[ms, me)` captures text overlapping `[me - t - min, me - t)` for some
/// `t <= tail`, without running the capture engine.
pub fn capture_tail(h: &Hir, g: u32) -> Option<(usize, usize)> {
    let mut acc = TailAcc {
        tail: Some(0),
        min: usize::MAX,
    };
    tail_walk(h, Some(0), g, &mut acc);
    match (acc.tail, acc.min) {
        (_, usize::MAX) => None,
        (Some(t), min) => Some((t, min)),
        (None, _) => None,
    }
}

struct TailAcc {
    /// the largest tail seen (`None`: unbounded)
    tail: Option<usize>,
    /// the shortest group seen
    min: usize,
}

/// Visit the groups `>= g` of `h`, which `after` bytes at most follow to the match's end.
fn tail_walk(h: &Hir, after: Option<usize>, g: u32, acc: &mut TailAcc) {
    let add = |a: Option<usize>, b: Option<usize>| a?.checked_add(b?);
    match h.kind() {
        HirKind::Empty | HirKind::Look(_) | HirKind::Literal(_) | HirKind::Class(_) => {}
        HirKind::Capture(c) => {
            if c.index >= g {
                acc.tail = acc.tail.zip(after).map(|(a, b)| a.max(b));
                acc.min = acc
                    .min
                    .min(c.sub.properties().minimum_len().unwrap_or(usize::MAX));
            }
            tail_walk(&c.sub, after, g, acc);
        }
        HirKind::Concat(subs) => {
            let mut rest = after;
            for s in subs.iter().rev() {
                tail_walk(s, rest, g, acc);
                rest = add(rest, s.properties().maximum_len());
            }
        }
        HirKind::Alternation(subs) => subs.iter().for_each(|s| tail_walk(s, after, g, acc)),
        HirKind::Repetition(r) => {
            // a group in one iteration is followed by the later iterations
            let more = r.max.and_then(|m| {
                (r.sub.properties().maximum_len()?).checked_mul(m.saturating_sub(1) as usize)
            });
            tail_walk(&r.sub, add(after, more), g, acc);
        }
    }
}

/// `h` with every look-around assertion (`\b`, `^`, ...) removed: it matches a superset of
/// what `h` matches, and needs no context around the match.
pub fn strip_looks(h: &Hir) -> Hir {
    match h.kind() {
        HirKind::Look(_) => Hir::empty(),
        HirKind::Empty | HirKind::Literal(_) | HirKind::Class(_) => h.clone(),
        HirKind::Repetition(r) => Hir::repetition(regex_syntax::hir::Repetition {
            min: r.min,
            max: r.max,
            greedy: r.greedy,
            sub: Box::new(strip_looks(&r.sub)),
        }),
        HirKind::Capture(c) => strip_looks(&c.sub),
        HirKind::Concat(subs) => Hir::concat(subs.iter().map(strip_looks).collect()),
        HirKind::Alternation(subs) => Hir::alternation(subs.iter().map(strip_looks).collect()),
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::redact::tests::Rng;

    /// The pre-rewrite implementation, kept verbatim (bar names) as the reference: each walked
    /// node rebuilt its whole subtree's exact set.
    mod reference {
        use super::super::{class_has, MAX_SET};
        use regex_syntax::hir::{Class, Hir, HirKind};

        pub fn exact_set_case(h: &Hir, fold: bool) -> Option<Vec<Vec<u8>>> {
            let exact_set = |h: &Hir| exact_set_case(h, fold);
            match h.kind() {
                HirKind::Empty | HirKind::Look(_) => Some(vec![Vec::new()]),
                HirKind::Literal(l) => Some(vec![if fold {
                    l.0.to_ascii_lowercase()
                } else {
                    l.0.to_vec()
                }]),
                HirKind::Class(c) => {
                    let mut v: Vec<Vec<u8>> = Vec::new();
                    for b in 0u8..=127 {
                        if class_has(c, b) {
                            let l = if fold { b.to_ascii_lowercase() } else { b };
                            if !v.iter().any(|x| x[0] == l) {
                                v.push(vec![l]);
                            }
                        }
                    }
                    let non_ascii = match c {
                        Class::Bytes(cb) => cb.ranges().iter().any(|r| r.end() >= 0x80),
                        Class::Unicode(cu) => cu.ranges().iter().any(|r| r.end() as u32 >= 0x80),
                    };
                    (!non_ascii && v.len() <= 8).then_some(v)
                }
                HirKind::Capture(c) => exact_set(&c.sub),
                HirKind::Repetition(r) => {
                    let max = r.max? as usize;
                    if max > 4 {
                        return None;
                    }
                    let sub = exact_set(&r.sub)?;
                    let mut all = Vec::new();
                    let mut cur = vec![Vec::new()];
                    for n in 0..=max {
                        if n >= r.min as usize {
                            all.extend(cur.iter().cloned());
                        }
                        cur = cross(&cur, &sub)?;
                    }
                    dedup(all)
                }
                HirKind::Concat(subs) => {
                    let mut cur = vec![Vec::new()];
                    for s in subs {
                        cur = cross(&cur, &exact_set(s)?)?;
                    }
                    Some(cur)
                }
                HirKind::Alternation(subs) => {
                    let mut all = Vec::new();
                    for s in subs {
                        all.extend(exact_set(s)?);
                    }
                    dedup(all)
                }
            }
        }

        fn cross(a: &[Vec<u8>], b: &[Vec<u8>]) -> Option<Vec<Vec<u8>>> {
            if a.len().saturating_mul(b.len()) > MAX_SET {
                return None;
            }
            let mut out = Vec::with_capacity(a.len() * b.len());
            for x in a {
                for y in b {
                    let mut z = x.clone();
                    z.extend_from_slice(y);
                    out.push(z);
                }
            }
            dedup(out)
        }

        fn dedup(mut v: Vec<Vec<u8>>) -> Option<Vec<Vec<u8>>> {
            v.sort();
            v.dedup();
            (v.len() <= MAX_SET).then_some(v)
        }

        pub fn keywords_required(h: &Hir, kws: &[Vec<u8>]) -> bool {
            fn covered(set: &[Vec<u8>], kws: &[Vec<u8>]) -> bool {
                !set.is_empty()
                    && set.iter().all(|s| {
                        kws.iter()
                            .any(|k| !k.is_empty() && memchr::memmem::find(s, k).is_some())
                    })
            }
            walk_required(h, kws, true, &covered, 0)
        }

        pub fn keywords_required_upper(h: &Hir, kws: &[Vec<u8>]) -> bool {
            fn covered(set: &[Vec<u8>], kws: &[Vec<u8>]) -> bool {
                !set.is_empty()
                    && set.iter().all(|s| {
                        kws.iter().any(|k| {
                            let up = k.to_ascii_uppercase();
                            !up.is_empty()
                                && memchr::memmem::find_iter(s, &up)
                                    .any(|i| !s[i..i + up.len()].iter().any(u8::is_ascii_lowercase))
                        })
                    })
            }
            walk_required(h, kws, false, &covered, 0)
        }

        type Covered = dyn Fn(&[Vec<u8>], &[Vec<u8>]) -> bool;

        fn walk_required(
            h: &Hir,
            kws: &[Vec<u8>],
            fold: bool,
            covered: &Covered,
            depth: usize,
        ) -> bool {
            if depth > 10 {
                return false;
            }
            if let Some(set) = exact_set_case(h, fold) {
                if covered(&set, kws) {
                    return true;
                }
            }
            let walk = |s: &Hir| walk_required(s, kws, fold, covered, depth + 1);
            match h.kind() {
                HirKind::Concat(subs) => subs.iter().any(walk),
                HirKind::Capture(c) => walk(&c.sub),
                HirKind::Repetition(r) if r.min >= 1 => walk(&r.sub),
                HirKind::Alternation(subs) => subs.iter().all(walk),
                _ => false,
            }
        }
    }

    /// The new pass's exact set of `h` (sorted), as the reference would build it.
    fn exact(h: &Hir, fold: bool) -> Option<Vec<Vec<u8>>> {
        let covered = |_: &[u8]| false;
        let set = Required {
            fold,
            covered: &covered,
        }
        .visit(h, None, true)
        .0?;
        let v: Vec<Vec<u8>> = set.iter().map(<[u8]>::to_vec).collect();
        assert!(v.windows(2).all(|w| w[0] < w[1]), "sorted and distinct");
        Some(v)
    }

    fn nodes<'h>(h: &'h Hir, out: &mut Vec<&'h Hir>) {
        out.push(h);
        match h.kind() {
            HirKind::Capture(c) => nodes(&c.sub, out),
            HirKind::Repetition(r) => nodes(&r.sub, out),
            HirKind::Concat(subs) | HirKind::Alternation(subs) => {
                subs.iter().for_each(|s| nodes(s, out))
            }
            _ => {}
        }
    }

    /// Compares the new pass with the reference on one regex: the exact set of every node
    /// (both cases) and both keyword verdicts for `kws` and for the regex's own keywords.
    /// Returns the two verdicts for the rule's keywords.
    fn same_as_reference(id: &str, regex: &str, kws: &[Vec<u8>]) -> (bool, bool) {
        let (h, _) = crate::redact::parse(id, regex).unwrap();
        let mut all = Vec::new();
        nodes(&h, &mut all);
        for n in all {
            for fold in [true, false] {
                let want = reference::exact_set_case(n, fold).map(|mut v| {
                    v.sort();
                    v
                });
                assert_eq!(exact(n, fold), want, "{id}: exact set of {n} (fold {fold})");
            }
        }
        let auto = crate::redact::literals::required_keywords(&h).unwrap_or_default();
        // the verdicts: every "required" of the reference still holds; the new pass may prove
        // more (runs of concatenated neighbours, checked by `runs_of_neighbours_are_sound`)
        for k in [
            kws,
            &auto[..],
            &[b"key".to_vec(), b"x".to_vec()][..],
            &[][..],
        ] {
            assert!(
                keywords_required(&h, k) || !reference::keywords_required(&h, k),
                "{id}: keywords_required {k:?}"
            );
            assert!(
                keywords_required_upper(&h, k) || !reference::keywords_required_upper(&h, k),
                "{id}: keywords_required_upper {k:?}"
            );
        }
        (keywords_required(&h, kws), keywords_required_upper(&h, kws))
    }

    /// `keywords_required` on runs of concatenated neighbours (`[a-z]{0,3}key`: `k`,`e`,`y`
    /// after a repetition) agrees with brute force: every string of a small alphabet up to
    /// length 7 that the regex matches whole holds a keyword when the verdict says so, and
    /// the verdict is "required" where the run proves it.
    #[test]
    fn runs_of_neighbours_are_sound() {
        let alphabet = b"kKeyY_x";
        let mut texts: Vec<Vec<u8>> = vec![Vec::new()];
        let mut last = vec![Vec::new()];
        for _ in 0..7 {
            last = last
                .iter()
                .flat_map(|t| {
                    alphabet.iter().map(move |&b| {
                        let mut t = t.clone();
                        t.push(b);
                        t
                    })
                })
                .collect();
            texts.extend(last.iter().cloned());
        }
        for (re, proven) in [
            ("(?i)[a-z_]{0,3}key", true),
            ("(?i)[a-z_]{0,3}ke[a-z]", false),
            ("x*K[Ee]Y_?[xy]*", true),
            ("(?i)[xy]{0,2}(?:k|x)ey", false),
            ("(?i)x?k(?:e|E)y|keyx", true),
            ("(?:_|x){0,4}(?i:k)(?i:e)y", true),
        ] {
            let (h, _) = crate::redact::parse(re, re).unwrap();
            let kws = [b"key".to_vec()];
            let verdict = keywords_required(&h, &kws);
            assert_eq!(verdict, proven, "{re}");
            let whole = regex::bytes::Regex::new(&format!("^(?:{re})$")).unwrap();
            let mut matched = 0;
            for t in &texts {
                if whole.is_match(t) {
                    matched += 1;
                    let holds = t.to_ascii_lowercase().windows(3).any(|w| w == b"key");
                    assert!(
                        holds || !verdict,
                        "{re} matches {:?}",
                        String::from_utf8_lossy(t)
                    );
                }
            }
            assert!(matched > 0, "{re} matched nothing");
        }
    }

    /// Every maximal run of each gate's alphabet in `hay[lo..hi]`, long enough, with enough
    /// digits and a possible start: the definition `RunGates::runs` must meet, gate by gate.
    fn runs_by_brute_force(
        gates: &[RunGate],
        hay: &[u8],
        lo: usize,
        hi: usize,
    ) -> Vec<(usize, usize, usize)> {
        let mut out = Vec::new();
        for (k, g) in gates.iter().enumerate() {
            let mut i = lo;
            while i < hi {
                if !g.alphabet[hay[i] as usize] {
                    i += 1;
                    continue;
                }
                let s = i;
                while i < hi && g.alphabet[hay[i] as usize] {
                    i += 1;
                }
                let digits = hay[s..i].iter().filter(|c| c.is_ascii_digit()).count();
                if i - s >= g.min_len && digits >= g.min_digits && g.can_start(hay, s, i) {
                    out.push((k, s, i));
                }
            }
        }
        out.sort_unstable();
        out
    }

    /// The vector, word and byte steps of `next_digit` agree with a plain search, at every
    /// start, on texts whose digits sit at every offset of a 16-byte chunk (and bytes just
    /// outside `0..=9`, which a signed compare would take).
    #[test]
    fn next_digit_finds_the_first_digit() {
        let mut rng = Rng(0x9e37_79b9_7f4a_7c15);
        for n in [0usize, 1, 7, 8, 15, 16, 17, 31, 33, 100] {
            for density in [0u64, 3, 40] {
                let b: Vec<u8> = (0..n)
                    .map(|_| {
                        let x = rng.bits();
                        if x % 100 < density {
                            b'0' + (x % 10) as u8
                        } else {
                            [b'/', b':', 0x80 + b'0', 0xff, b'a', b' '][(x % 6) as usize]
                        }
                    })
                    .collect();
                for from in 0..=n {
                    let want = b[from..]
                        .iter()
                        .position(u8::is_ascii_digit)
                        .map(|i| from + i);
                    assert_eq!(next_digit(&b, from), want, "{b:?} from {from}");
                }
            }
        }
    }

    /// One walk over the union runs finds exactly the runs each gate finds alone, on random
    /// texts of digits, capitals, separators and letters, at random bounds.
    #[test]
    fn run_gates_find_each_gates_runs() {
        let gates: Vec<RunGate> = [
            r"\b\d{3}-\d{2}-\d{4}\b",
            r"[A-Z]{2}\d{2}[A-Z0-9 ]{6,20}",
            r"\+?\d[\d .()-]{6,}\d",
            r"\d{8,12}",
            r"[0-9]{2}(?::[0-9A-F]{2}){3}",
        ]
        .iter()
        .map(|re| {
            let (h, _) = crate::redact::parse(re, re).unwrap();
            RunGate::new(&h).unwrap_or_else(|| panic!("{re} is gated"))
        })
        .collect();
        let set = RunGates::new(gates.clone());
        let mut rng = Rng(0x2545_f491_4f6c_dd1d);
        let mut next = |n: u64| rng.below(n as usize);
        let alphabet = b"0123456789012345ABCDEFGZ -.():+_ab\n";
        let mut found = 0;
        for round in 0..400 {
            let n = 1 + next(300) + if round % 50 == 0 { 5000 } else { 0 };
            let hay: Vec<u8> = (0..n)
                .map(|_| alphabet[next(alphabet.len() as u64)])
                .collect();
            let lo = next(n as u64 / 3 + 1);
            let hi = (lo + next((n - lo) as u64 + 1)).max(lo);
            let want = runs_by_brute_force(&gates, &hay, lo, hi);
            let mut got = Vec::new();
            set.runs(&hay, lo, hi, &mut got);
            got.sort_unstable();
            assert_eq!(
                got,
                want,
                "{:?} [{lo}..{hi}]",
                String::from_utf8_lossy(&hay)
            );
            found += got.len();
        }
        assert!(found > 500, "the texts exercise the gates: {found} runs");
    }

    /// Every shipped redaction rule (built-in and optional packs) gets the exact sets the
    /// reference implementation computed, and every keyword verdict it proved.
    #[test]
    fn shipped_rules_match_the_reference() {
        let optional = concat!(env!("CARGO_MANIFEST_DIR"), "/policies/optional");
        let mut rules = 0;
        let mut required = [0; 2];
        for policy in [
            crate::Policy::builtin().unwrap(),
            crate::Policy::load(&[optional]).unwrap(),
        ] {
            let set = policy.compile().unwrap();
            for (id, _, r) in &set.redact_rules {
                // as `Redactor::new` derives them
                let regex = r.pattern.source();
                let (h, _) = crate::redact::parse(id, &regex).unwrap();
                let kws: Vec<Vec<u8>> = if r.options.keywords.is_empty() {
                    crate::redact::literals::required_keywords(&h).unwrap_or_default()
                } else {
                    r.options
                        .keywords
                        .iter()
                        .filter(|k| !k.is_empty())
                        .map(|k| k.as_bytes().to_ascii_lowercase())
                        .collect()
                };
                let (a, b) = same_as_reference(id, &regex, &kws);
                required[0] += usize::from(a);
                required[1] += usize::from(b);
                rules += 1;
            }
        }
        // the comparison saw the real packs, and both verdicts occur in them
        assert!(rules > 300, "{rules} rules");
        assert!(required[0] > 50 && required[0] < rules, "{required:?}");
        assert!(required[1] > 0 && required[1] < rules, "{required:?}");
    }

    /// Where a reported capture group ends and how short it is, one regex a line.
    #[test]
    fn capture_tail_table() {
        let tail = |re: &str, g: u32| capture_tail(&crate::redact::parse(re, re).unwrap().0, g);
        assert_eq!(tail(r"key=(\S{4,})", 1), Some((0, 4)));
        assert_eq!(tail(r#"key="([^"]{4,})""#, 1), Some((1, 4)));
        assert_eq!(tail(r#"k=(?:"([^"]{4,})"|(\w{6,})\b)"#, 1), Some((1, 4)));
        // only groups from `g` on are reported
        assert_eq!(tail(r"(key)=(\w{3})x{0,5}", 2), Some((5, 3)));
        assert_eq!(tail(r"(key)=(\w{3})x{0,5}", 1), Some((9, 3)));
        // a nested group ends before its parent's rest
        assert_eq!(tail(r"k=((ab)cd)e", 2), Some((3, 2)));
        // later iterations follow a group inside a repetition
        assert_eq!(tail(r"(?:(ab)c){1,3}", 1), Some((7, 2)));
        assert_eq!(tail(r"(?:(ab)c)+", 1), None);
        assert_eq!(tail(r"k=(\w+) .*", 1), None);
        assert_eq!(tail(r"k=(\w+)(?m:$)", 1), Some((0, 1)));
    }

    /// How far into a match its keyword can end, one regex a line.
    #[test]
    fn keyword_lead_is_the_longest_leading_run_holding_a_keyword() {
        let lead = |re: &str, kw: &str, upper: bool| {
            let h = regex_syntax::ParserBuilder::new()
                .unicode(false)
                .utf8(false)
                .build()
                .parse(re)
                .unwrap();
            keyword_lead(&h, &[kw.as_bytes().to_vec()], upper)
        };
        assert_eq!(
            lead(
                r#"(?i)["']?[a-z_]{0,10}token[a-z]{0,5}: (\S+)"#,
                "token",
                false
            ),
            Some(16)
        );
        assert_eq!(lead(r"(?i)token", "token", false), Some(5));
        assert_eq!(lead(r"(?i)(token)=(\S+)", "token", false), Some(5));
        assert_eq!(
            lead(r"(?i)<([a-z]{0,9}(?:key|token))>(\S+)</", "key", false),
            None
        );
        assert_eq!(
            lead(r"(?i)<([a-z]{0,9}(?:key|secret_key))>(\S+)</", "key", false),
            Some(20)
        );
        assert_eq!(lead(r"(?i)value=(\S+) token", "token", false), None);
        assert_eq!(lead(r"(?i)(?:x|token)abc", "token", false), None);
        // "KEY=" is one literal: the run ends after its "="
        assert_eq!(lead(r"(?m)^[A-Z_]{0,8}KEY=(\S+)", "key", true), Some(12));
        assert_eq!(
            lead(r"(?m)^[A-Z_]{0,8}(?:KEY|key)=(\S+)", "key", true),
            None
        );
    }

    /// Edge cases of the bounds (compared with the reference as above): sets right at and
    /// past [`MAX_SET`], repetitions whose next (unused) step overflows, folding that merges
    /// class members, non-ASCII classes, deep nesting past the walk limit, empty alternation
    /// branches.
    #[test]
    fn edge_cases_match_the_reference() {
        let kw = |k: &[&str]| k.iter().map(|s| s.as_bytes().to_vec()).collect::<Vec<_>>();
        for (re, kws) in [
            ("(?i)password", kw(&["password"])),
            ("(?i)passwords", kw(&["password"])),
            ("(?i)(?:api|auth)_?key[=:]", kw(&["key"])),
            ("[ab]{1,4}[cd]{0,4}key", kw(&["key"])),
            ("[a-h]{3}", kw(&["a"])),
            ("[a-h]{3}[a-b]", kw(&["a"])),
            ("[a-h][a-h][a-h][ab]", kw(&["a"])),
            ("(?:[a-h]{2}|[0-7]{2}){1,2}", kw(&["a"])),
            ("(?:ab|AB|aB){4}", kw(&["ab"])),
            ("(?:ab|cd){2,4}x", kw(&["ab", "cd"])),
            ("x(?:ab)?y(?:KEY)*z", kw(&["key"])),
            ("[Kk][Ee][Yy]", kw(&["key"])),
            ("[é]key|KEY", kw(&["key"])),
            ("((((((((((((KEY))))))))))))", kw(&["key"])),
            (
                "a(b(c(d(e(f(g(h(i(j(k(KEY)l)m)n)o)p)q)r)s)t)u)v",
                kw(&["key"]),
            ),
            ("(?:KEY|)x", kw(&["key"])),
            ("(?:SECRET|TOKEN)_[A-Z]{2}=\\d+", kw(&["secret", "token"])),
            ("\\bghp_[A-Za-z0-9]{36}\\b", kw(&["ghp_"])),
            ("(?-u:\\xff)key", kw(&["key"])),
        ] {
            same_as_reference(re, re, &kws);
        }
    }

    #[test]
    fn required_bytes_table() {
        let req = |re: &str| {
            let (h, _) = crate::redact::parse(re, re).unwrap();
            required_bytes(&h)
                .into_iter()
                .map(|b| String::from_utf8(b).unwrap())
                .collect::<Vec<_>>()
        };
        let none: Vec<String> = Vec::new();
        assert_eq!(req(r"(?i)password\s*[:=]\s*(\S+)"), [":="]);
        assert_eq!(req(r"<(\w+)>"), ["<", ">"]);
        assert_eq!(req(r"key(?:=|: )"), [":="]);
        assert_eq!(req(r#"(?:"|')key(?:"|')"#), [r#""'"#]);
        assert_eq!(
            req(r"(?:^|,)key"),
            none,
            "a look-around branch requires nothing"
        );
        assert_eq!(req(r"key=?"), none, "optional");
        assert_eq!(req(r"key[=:;,]"), none, "four bytes are not worth a search");
        assert_eq!(
            req(r"[a-z_]+ [A-Z]"),
            none,
            "letters, `_` and blanks are everywhere"
        );
        assert_eq!(req(r"a=b=c"), ["="], "each set once");
        // the first narrowest set of each branch: `-=` gives `-`, so `[-=]`, not `=`
        assert_eq!(req(r"--?key(?:-=|=)"), ["-", "-="]);
        assert_eq!(req(r"(?:x|y)=[é]"), ["="], "a non-ASCII class is not kept");
    }
}

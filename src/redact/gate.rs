//! Cheap, sound pre-checks derived from a rule's parsed regex.
//!
//! * [`newline_budget`]: the most `\n` bytes any match can contain (`None` = unbounded). A
//!   keyword window never needs to reach past that many line breaks on either side of the
//!   hit, so line-oriented rules get line-sized windows instead of `2 × side` bytes.
//! * [`RunGate`]: for keywordless rules, the set of bytes a match can consume, its minimum
//!   length and minimum number of ASCII digits. Every match lies inside one maximal run of
//!   alphabet bytes, so only runs that are long enough and hold enough digits are searched.

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

/// Position of the first ASCII digit in `b[from..]` (8 bytes at a time).
fn next_digit(b: &[u8], mut from: usize) -> Option<usize> {
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

/// For each gated rule `k`, push `(k, start, end)` for every maximal run of its alphabet in
/// `hay[lo..hi]` that is at least `min_len` long and holds `min_digits` digits. Every gate
/// needs digits, so runs are only looked for around digits.
pub fn gated_runs(
    gates: &[RunGate],
    hay: &[u8],
    lo: usize,
    hi: usize,
    out: &mut Vec<(usize, usize, usize)>,
) {
    let b = &hay[..hi];
    let mut done = vec![lo; gates.len()];
    // every gate's run lies inside the run of the union alphabet around the same digit
    let mut union = [false; 256];
    for g in gates {
        for (u, &a) in union.iter_mut().zip(g.alphabet.iter()) {
            *u |= a;
        }
    }
    let min_len = gates.iter().map(|g| g.min_len).min().unwrap_or(usize::MAX);
    let min_digits = gates
        .iter()
        .map(|g| g.min_digits)
        .min()
        .unwrap_or(usize::MAX);
    let mut pos = lo;
    while let Some(d) = next_digit(b, pos) {
        let mut s = d;
        while s > lo && union[b[s - 1] as usize] {
            s -= 1;
        }
        let mut e = d + 1;
        let mut digits = 1;
        while e < hi && union[b[e] as usize] {
            digits += usize::from(b[e].is_ascii_digit());
            e += 1;
        }
        if e - s < min_len || digits < min_digits {
            pos = e.max(d + 1);
            continue;
        }
        let mut next = usize::MAX;
        for (k, g) in gates.iter().enumerate() {
            if d < done[k] {
                next = next.min(done[k]);
                continue;
            }
            // the gate's run lies inside this union run: too short or too few digits here
            if e - s < g.min_len || digits < g.min_digits {
                done[k] = e;
                next = next.min(e);
                continue;
            }
            if !g.alphabet[b[d] as usize] {
                next = next.min(d + 1);
                continue;
            }
            let mut s = d;
            while s > lo && g.alphabet[b[s - 1] as usize] {
                s -= 1;
            }
            let mut e = d + 1;
            let mut digits = 1;
            while e < hi && g.alphabet[b[e] as usize] {
                digits += usize::from(b[e].is_ascii_digit());
                e += 1;
            }
            if e - s >= g.min_len && digits >= g.min_digits && g.can_start(b, s, e) {
                out.push((k, s, e));
            }
            done[k] = e;
            next = next.min(e);
        }
        pos = if next == usize::MAX {
            d + 1
        } else {
            next.max(d + 1)
        };
    }
}

const MAX_SET: usize = 512;

/// The finite set of strings `h` matches exactly, if small; ASCII-lower-cased if `fold`,
/// case preserved otherwise.
fn exact_set_case(h: &Hir, fold: bool) -> Option<Vec<Vec<u8>>> {
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
            // a class with non-ASCII members is not a small literal set
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

/// True if every match of `h` contains one of `kws` (lower-case), case-insensitively:
/// some sub-expression every match passes through matches only strings that do.
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

/// True if every match of `h` contains one of `kws` (lower-case) written in upper case (no
/// ASCII lower-case letter in the occurrence). Then a keyword hit that contains a lower-case
/// letter can be ignored for this rule: the upper-case occurrence of the same match is a hit
/// of its own.
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

fn walk_required(h: &Hir, kws: &[Vec<u8>], fold: bool, covered: &Covered, depth: usize) -> bool {
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

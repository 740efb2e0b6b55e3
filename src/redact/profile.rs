//! A regex's byte profile: which bytes each of a match's first offsets can hold.
//!
//! A rule whose every match starts at a keyword hit checks, at each hit, whether a match can
//! start there before it opens a window (`Rule::start_check`). Asking the regex costs a
//! search call (a few hundred nanoseconds); on common keywords (`pat` in `path`, `pattern`)
//! that is most of the keyword pass. A [`Profile`] answers "no" for nearly all of those in a
//! few table lookups: `pat[a-zA-Z0-9]{14}\.` cannot start at `path=/api`, because no match
//! holds `=` at offset 4. It is sound (a superset of "some match starts here"), so the regex
//! still confirms what it lets through.
//!
//! Only byte-oriented regexes are profiled (Unicode off): each class then consumes exactly one
//! byte, so offsets are exact.

use regex_syntax::hir::{Class, Hir, HirKind};

/// Offsets profiled at most (the first bytes of a match).
pub const PROFILE_LEN: usize = 32;

/// Most nodes one profile may visit: nested repetitions revisit their parts once per round,
/// so a policy could otherwise make this walk take exponential time. Past it, no profile.
const WALK_BUDGET: usize = 100_000;

/// A set of bytes, one bit each.
type ByteSet = [u64; 4];

/// For each offset `j` of the first [`Profile::len`] bytes of any match, the set of bytes a
/// match can hold there. Offsets where every byte is possible are left out.
#[derive(Debug, Clone)]
pub struct Profile {
    /// (offset, bytes a match can hold at that offset), only constraining offsets
    at: Vec<(usize, ByteSet)>,
    /// every match is at least this long (capped at [`PROFILE_LEN`])
    len: usize,
}

impl Profile {
    /// The profile of `h` (parsed with Unicode off); `None` if it constrains no offset or
    /// the regex can consume more than one byte per class.
    pub fn new(h: &Hir) -> Option<Profile> {
        let len = h.properties().minimum_len()?.min(PROFILE_LEN);
        let mut sets = [[0u64; 4]; PROFILE_LEN];
        let mut budget = WALK_BUDGET;
        walk(h, 1, &mut sets, &mut budget)?;
        let at: Vec<(usize, ByteSet)> = sets[..len]
            .iter()
            .enumerate()
            .filter(|(_, s)| **s != [u64::MAX; 4])
            .map(|(j, s)| (j, *s))
            .collect();
        (!at.is_empty()).then_some(Profile { at, len })
    }

    /// Can a match of the profiled regex start at `hay[at..]`? `false` only if none can.
    #[inline]
    pub fn admits(&self, hay: &[u8], at: usize) -> bool {
        let Some(rest) = hay.get(at..) else {
            return false;
        };
        if rest.len() < self.len {
            return false;
        }
        self.at.iter().all(|&(j, s)| {
            let b = rest[j] as usize;
            s[b >> 6] >> (b & 63) & 1 == 1
        })
    }
}

/// Marks in `sets` the bytes `h` can hold at each offset, for matches of `h` starting at any
/// offset in `starts` (bit `j`: offset `j`; bit [`PROFILE_LEN`]: beyond the profile), and
/// returns the offsets where those matches can end. `None` for a Unicode class (its width in
/// bytes varies) or once `budget` nodes were visited.
fn walk(
    h: &Hir,
    starts: u64,
    sets: &mut [ByteSet; PROFILE_LEN],
    budget: &mut usize,
) -> Option<u64> {
    const BEYOND: u64 = 1 << PROFILE_LEN;
    if starts & (BEYOND - 1) == 0 {
        // only "beyond the profile" (or nothing): nothing to mark, and it stays there
        return Some(starts);
    }
    *budget = budget.checked_sub(1)?;
    match h.kind() {
        HirKind::Empty | HirKind::Look(_) => Some(starts),
        HirKind::Literal(l) => {
            let mut cur = starts;
            for &b in l.0.iter() {
                if cur & (BEYOND - 1) == 0 {
                    // past the profile: the rest of the literal marks nothing
                    break;
                }
                let mut one = [0u64; 4];
                one[usize::from(b >> 6)] |= 1 << (b & 63);
                cur = step(cur, &one, sets);
            }
            Some(cur)
        }
        HirKind::Class(Class::Bytes(c)) => {
            let mut set = [0u64; 4];
            for r in c.ranges() {
                for b in r.start()..=r.end() {
                    set[usize::from(b >> 6)] |= 1 << (b & 63);
                }
            }
            Some(step(starts, &set, sets))
        }
        HirKind::Class(Class::Unicode(_)) => None,
        HirKind::Capture(c) => walk(&c.sub, starts, sets, budget),
        HirKind::Concat(subs) => subs
            .iter()
            .try_fold(starts, |cur, s| walk(s, cur, sets, budget)),
        HirKind::Alternation(subs) => subs
            .iter()
            .try_fold(0, |ends, s| Some(ends | walk(s, starts, sets, budget)?)),
        HirKind::Repetition(r) => {
            let mut cur = starts;
            for _ in 0..r.min {
                let next = walk(&r.sub, cur, sets, budget)?;
                if next == cur {
                    // nothing moves any more (all beyond the profile, or an empty sub)
                    break;
                }
                cur = next;
            }
            // optional rounds, walked from every offset reached so far until none is new
            let mut all = cur;
            let mut left = r.max.map(|m| m - r.min);
            while left != Some(0) {
                let next = all | walk(&r.sub, all, sets, budget)?;
                if next == all {
                    break;
                }
                all = next;
                left = left.map(|l| l - 1);
            }
            Some(all)
        }
    }
}

/// One byte from `set` read at each offset in `cur`: marks it and returns the next offsets.
fn step(cur: u64, set: &ByteSet, sets: &mut [ByteSet; PROFILE_LEN]) -> u64 {
    let beyond = 1u64 << PROFILE_LEN;
    let mut bits = cur & (beyond - 1);
    while bits != 0 {
        let j = bits.trailing_zeros() as usize;
        for (a, b) in sets[j].iter_mut().zip(set) {
            *a |= b;
        }
        bits &= bits - 1;
    }
    // offsets move on by one; the last profiled offset and beyond stay beyond
    ((cur & (beyond - 1)) << 1) | (cur & beyond)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::redact::tests::Rng;
    use regex::bytes::Regex;

    /// The profile of `re` as the redactor parses it.
    fn profile(re: &str) -> Option<Profile> {
        Profile::new(&crate::redact::parse(re, re).unwrap().0)
    }

    #[test]
    fn a_profile_turns_away_hits_no_match_can_start_at() {
        let p = profile(r"pat[a-zA-Z0-9]{14}\.[a-f0-9]{64}").unwrap();
        assert!(!p.admits(b"path=/api/v1/items", 0));
        assert!(!p.admits(b"pattern matching", 0));
        let key = format!("patABCDEFGHIJKLMN.{}", "a1".repeat(32));
        assert!(p.admits(key.as_bytes(), 0));
        assert!(!p.admits(key.as_bytes(), 1), "too short from there");
    }

    #[test]
    fn alternations_and_optional_parts_keep_every_possible_byte() {
        let p = profile(r"(?:sk|rk)_(?:live|test)_?[0-9A-Z]{8}").unwrap();
        for s in ["sk_live_ABCD1234", "rk_test12345678", "sk_live12345678"] {
            assert!(p.admits(s.as_bytes(), 0), "{s}");
        }
        assert!(!p.admits(b"sk-live_ABCD1234", 0));
    }

    /// Nested repetitions revisit their parts once per round; the walk stays bounded (this
    /// test does not finish without the bound) and a regex too costly to profile gets none.
    #[test]
    fn nested_repetitions_stay_cheap() {
        let mut re = String::from("a");
        for _ in 0..60 {
            re = format!("(?:{re}|b{{0,3}}){{1,900}}c?");
        }
        let _ = profile(&re);
        let mut re = String::from("[ab]");
        for _ in 0..70 {
            re = format!("(?:x?{re}){{2,1000}}");
        }
        let _ = profile(&re);
    }

    #[test]
    fn nothing_to_check_means_no_profile() {
        assert!(profile(r"(?s).{4}").is_none());
        assert!(profile(r"(?s)a{0,3}.{2}").is_none());
    }

    /// The profile never turns away a position where the regex has an anchored match, over
    /// random texts and a table of regex shapes.
    #[test]
    fn a_profile_never_rejects_a_match() {
        // (regex, the pieces its random texts are made of)
        let shapes: [(&str, &[&str]); 8] = [
            (
                r"ab{2,5}c?[0-9]{3}",
                &["ab", "bb", "b", "c", "0", "19", "123", "x"],
            ),
            (
                r"(?:a|bc|)x{0,40}[xy]z",
                &["a", "bc", "xxxx", "x", "y", "z"],
            ),
            (
                r"(?i)tok[a-z_]{0,3}(?:=|:)\s*[a-z0-9]{4,}",
                &["tok", "TOK", "_", "en", "=", ":", " ", "9e", "abcd", "-"],
            ),
            (r"a(?:b(?:c|d)*)+e{1,2}f", &["a", "b", "c", "d", "e", "f"]),
            (r"[ab]{20}c{2}d", &["abababababababab", "a", "b", "cc", "d"]),
            (r"(?:ab){18}c", &["abababababababab", "ab", "c"]),
            (r"(?:x{3}){2,}y", &["x", "xxx", "y"]),
            (r"(?:ab|a)(?:bc|c)?d{0,2}[de]", &["a", "b", "c", "d", "e"]),
        ];
        let mut rng = Rng(0x2545_f491_4f6c_dd1d);
        let mut next = move || rng.bits();
        for (shape, pieces) in shapes {
            let p = profile(shape);
            let re = Regex::new(&format!(r"\A(?:{shape})")).unwrap();
            let mut matches = 0;
            for _ in 0..3000 {
                let n = next() % 30;
                let hay: Vec<u8> = (0..n)
                    .flat_map(|_| pieces[(next() % pieces.len() as u64) as usize].bytes())
                    .collect();
                for at in 0..=hay.len() {
                    if re.is_match(&hay[at..]) {
                        matches += 1;
                        assert!(
                            p.as_ref().is_none_or(|p| p.admits(&hay, at)),
                            "{shape} at {at} of {:?}",
                            String::from_utf8_lossy(&hay)
                        );
                    }
                }
            }
            assert!(matches > 20, "{shape}: only {matches} matches tried");
        }
    }
}

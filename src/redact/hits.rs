//! Keyword hits carried from a fixed point's first pass into its later passes.
//!
//! A later pass scans the previous pass's output: the input with some spans replaced
//! ([`super::PassOutput`]). A keyword occurrence that touches no replaced span is an
//! occurrence in the input as well, at the same place shifted by the replacements before it;
//! one that touches a replacement lies within a keyword's length of it. So a later pass does
//! not walk the keyword automaton over its stretches again (on secret-dense text they cover
//! nearly all of it, and the walk was a quarter of a pass): it takes the first pass's hits
//! that no replacement touches, moved to output offsets, and walks only the bytes around each
//! replacement ([`stretch`]). The first pass keeps its hits as the walk's match states
//! ([`lanes::End`]), which it lists anyway. The hits are exactly the set a walk would report;
//! a debug assertion in `Redactor::rescan` and the tests below check it.

use aho_corasick::automaton::Automaton;
use aho_corasick::dfa::DFA;

use super::{lanes, map_back, Replaced};

/// One keyword occurrence: (pattern, start, end).
pub(crate) type Hit = (usize, usize, usize);

/// The hits of the output stretch `[lo, hi)`, whose bytes are `text`, as offsets in `text`
/// (onto `out`, cleared first; in order of their end): the first pass's hits (`input`: its
/// walk's match states at input offsets, in order) that touch no replacement of `map`, moved to
/// output offsets, and the occurrences that touch a replacement, found by walking `dfa` over
/// each replacement and the `dfa.max_pattern_len() - 1` bytes on either side of it.
pub(crate) fn stretch(
    dfa: &DFA,
    input: &[lanes::End],
    map: &[Replaced],
    text: &[u8],
    (lo, hi): (usize, usize),
    out: &mut Vec<Hit>,
) {
    out.clear();
    // input hits ending in the stretch's input span (a superset; the exact test is below)
    let (in_lo, in_hi) = (map_back(map, lo, false), map_back(map, hi, true));
    let first = input.partition_point(|h| h.1 <= in_lo);
    // replacements starting before the hit's end; the last of them is the only one that can
    // touch it (the others end before it starts), and gives its shift if it does not
    let mut j = map.partition_point(|r| r.input.0 < input.get(first).map_or(0, |h| h.1));
    for &end in input[first..].iter().take_while(|h| h.1 <= in_hi) {
        while j < map.len() && map[j].input.0 < end.1 {
            j += 1;
        }
        let last = j.checked_sub(1).map(|i| map[i]);
        lanes::each_hit(dfa, end, &mut |p, s, e| {
            let (s, e) = match last {
                None => (s, e),
                Some(r) if r.input.1 <= s => (s - r.input.1 + r.out.1, e - r.input.1 + r.out.1),
                Some(_) => return,
            };
            if s >= lo && e <= hi {
                out.push((p, s - lo, e - lo));
            }
        });
    }
    let back = dfa.max_pattern_len().saturating_sub(1);
    let mut near: Vec<Hit> = Vec::new();
    // the first replacement that ends at or after `lo`
    let mut i = map.partition_point(|r| r.out.1 < lo);
    // an occurrence touching two replacements is taken with the first
    let mut prev_end = i.checked_sub(1).map_or(0, |k| map[k].out.1);
    while let Some(r) = map.get(i).filter(|r| r.out.0 < hi) {
        let (oa, ob) = r.out;
        let (a, b) = (oa.saturating_sub(back).max(lo), (ob + back).min(hi));
        lanes::for_each_match(dfa, &text[a - lo..b - lo], |p, s, e| {
            let (s, e) = (s + a, e + a);
            // (an empty replacement, `oa == ob`, is touched by what straddles it)
            if s < ob && e > oa && s >= prev_end {
                near.push((p, s - lo, e - lo));
            }
        });
        prev_end = ob;
        i += 1;
    }
    // two runs in order of their end, merged by the stable sort (the windows built from the
    // hits then come out nearly sorted, as after a walk)
    near.sort_unstable_by_key(|h| (h.2, h.0));
    out.append(&mut near);
    out.sort_by_key(|h| (h.2, h.0));
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::redact::tests::Rng;
    use aho_corasick::MatchKind;

    fn dfa(pats: &[&str]) -> DFA {
        aho_corasick::dfa::Builder::new()
            .match_kind(MatchKind::Standard)
            .ascii_case_insensitive(true)
            .build(pats)
            .unwrap()
    }

    fn walk(d: &DFA, hay: &[u8]) -> Vec<Hit> {
        let mut v = Vec::new();
        lanes::for_each_match(d, hay, |p, s, e| v.push((p, s, e)));
        v.sort_unstable_by_key(|h| (h.2, h.0));
        v
    }

    /// `input` with the (sorted, disjoint) spans `cuts` replaced by the texts `reps`, and the
    /// replacement map.
    fn replace(input: &[u8], cuts: &[(usize, usize, &str)]) -> (Vec<u8>, Vec<Replaced>) {
        let (mut outb, mut map, mut at) = (Vec::new(), Vec::new(), 0);
        for &(a, b, rep) in cuts {
            outb.extend_from_slice(&input[at..a]);
            let o = outb.len();
            outb.extend_from_slice(rep.as_bytes());
            map.push(Replaced {
                out: (o, outb.len()),
                input: (a, b),
                rep: 0,
            });
            at = b;
        }
        outb.extend_from_slice(&input[at..]);
        (outb, map)
    }

    #[test]
    fn carried_hits_equal_a_walk_of_the_output() {
        // a small alphabet, keywords that straddle, and replacements that make and break
        // occurrences: empty ones, adjacent ones, ones holding keywords themselves
        let pats = [
            "ab", "aba", "bab", "key", "KEY=", "[r:ab]", "b[", "]a", "abcab",
        ];
        let d = dfa(&pats);
        let reps = ["", "[r:ab]", "k", "ey", "[r:key]", "aba"];
        let mut rng = Rng(0x2545_f491_4f6c_dd1d);
        let mut next = |m: u64| rng.below(m as usize);
        for round in 0..400 {
            let n = [0, 5, 40, 300, 5000][round % 5];
            let input: Vec<u8> = (0..n).map(|_| b"abcke y=[]"[next(10)]).collect();
            let mut cuts = Vec::new();
            let mut at = 0;
            loop {
                at += next(12);
                let len = 1 + next(6);
                if at + len > n {
                    break;
                }
                cuts.push((at, at + len, reps[next(reps.len() as u64)]));
                at += len;
            }
            let (output, map) = replace(&input, &cuts);
            let mut carried = Vec::new();
            lanes::match_ends(&d, &input, 0, &mut carried);
            let m = output.len();
            for (lo, hi) in [(0, m), (m / 3, m), (0, m / 2), (m / 4, m / 4 + m / 3)] {
                let mut got = Vec::new();
                stretch(&d, &carried, &map, &output[lo..hi], (lo, hi), &mut got);
                assert_eq!(got, walk(&d, &output[lo..hi]), "round {round}, {lo}..{hi}");
            }
        }
    }
}

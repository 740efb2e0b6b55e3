//! Keyword (anchor literal) extraction from a parsed regex.
//!
//! A rule without explicit keywords gets the *rarest required literal set* of its regex: for
//! every sub-expression that every match must pass through (top level, concatenation members,
//! capture groups, repetitions with min >= 1) we take its prefix literal set; a set is usable
//! if it is finite and every literal is >= 3 bytes. Among usable sets the one whose shortest
//! literal is longest wins (ties: fewer literals). If none is usable the rule is keywordless.

use regex_syntax::hir::literal::{ExtractKind, Extractor};
use regex_syntax::hir::{Hir, HirKind};

const MIN_KEYWORD: usize = 3;

pub(crate) fn prefix_set(h: &Hir) -> Option<Vec<Vec<u8>>> {
    let mut ex = Extractor::new();
    ex.kind(ExtractKind::Prefix)
        .limit_class(4)
        .limit_repeat(4)
        .limit_literal_len(24)
        .limit_total(96);
    let seq = ex.extract(h);
    let lits = seq.literals()?;
    if lits.is_empty() {
        return None;
    }
    let mut out: Vec<Vec<u8>> = lits
        .iter()
        .map(|l| l.as_bytes().to_ascii_lowercase())
        .collect();
    out.sort();
    out.dedup();
    if out.iter().any(|l| l.len() < MIN_KEYWORD) {
        return None;
    }
    Some(out)
}

fn collect(h: &Hir, out: &mut Vec<Vec<Vec<u8>>>, depth: usize) {
    if depth > 8 {
        return;
    }
    if let Some(s) = prefix_set(h) {
        out.push(s);
    }
    match h.kind() {
        HirKind::Concat(subs) => {
            for s in subs {
                collect(s, out, depth + 1);
            }
        }
        HirKind::Capture(c) => collect(&c.sub, out, depth + 1),
        HirKind::Repetition(r) if r.min >= 1 => collect(&r.sub, out, depth + 1),
        _ => {}
    }
}

/// The best required keyword set (lower-cased, deduplicated), or `None` if the regex has none.
pub fn required_keywords(h: &Hir) -> Option<Vec<Vec<u8>>> {
    let mut cands = Vec::new();
    collect(h, &mut cands, 0);
    cands.into_iter().max_by_key(|set| {
        let min = set.iter().map(|l| l.len()).min().unwrap_or(0);
        (min.min(12), usize::MAX - set.len())
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    fn kw(re: &str) -> Option<Vec<String>> {
        let (h, _) = crate::redact::parse(re, re).unwrap();
        required_keywords(&h).map(|v| {
            v.into_iter()
                .map(|b| String::from_utf8(b).unwrap())
                .collect()
        })
    }

    #[test]
    fn extracts() {
        assert_eq!(
            kw(r"\b(AKIA|ASIA)[A-Z2-7]{16}\b").unwrap(),
            vec!["akia", "asia"]
        );
        assert_eq!(
            kw(r"(?i)\bxox[bp]-[0-9]{10}").unwrap(),
            vec!["xoxb-", "xoxp-"]
        );
        // the rarer, longer literal in the middle wins over nothing
        assert_eq!(
            kw(r"[a-z0-9]{8}\.apps\.googleusercontent\.com").unwrap(),
            vec![".apps.googleusercontent."]
        );
        assert!(kw(r"\b\d{3}-\d{2}-\d{4}\b").is_none());
    }
}

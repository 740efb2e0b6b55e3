//! Unified diffs of two texts, as `diff -u` prints them: the one home for
//! `warden install` (config and consent edits) and `warden fmt --diff`.

use std::fmt::Write as _;

/// A unified diff of two texts (3 lines of context); empty when equal.
pub(crate) fn unified_diff(old: &str, new: &str, old_name: &str, new_name: &str) -> String {
    if old == new {
        return String::new();
    }
    let a: Vec<&str> = old.split_inclusive('\n').collect();
    let b: Vec<&str> = new.split_inclusive('\n').collect();
    // (tag, index in a, index in b): ' ' both, '-' a only, '+' b only.
    let mut ops: Vec<(char, usize, usize)> = Vec::new();
    let pre = a.iter().zip(&b).take_while(|(x, y)| x == y).count();
    let suf = a[pre..]
        .iter()
        .rev()
        .zip(b[pre..].iter().rev())
        .take_while(|(x, y)| x == y)
        .count();
    (0..pre).for_each(|i| ops.push((' ', i, i)));
    let (am, bm) = (&a[pre..a.len() - suf], &b[pre..b.len() - suf]);
    let (n, m) = (am.len(), bm.len());
    if n * m <= 4_000_000 {
        let mut lcs = vec![0u32; (n + 1) * (m + 1)];
        let at = |i: usize, j: usize| i * (m + 1) + j;
        for i in (0..n).rev() {
            for j in (0..m).rev() {
                lcs[at(i, j)] = if am[i] == bm[j] {
                    lcs[at(i + 1, j + 1)] + 1
                } else {
                    lcs[at(i + 1, j)].max(lcs[at(i, j + 1)])
                };
            }
        }
        let (mut i, mut j) = (0, 0);
        while i < n || j < m {
            if i < n && j < m && am[i] == bm[j] {
                ops.push((' ', pre + i, pre + j));
                i += 1;
                j += 1;
            } else if i < n && (j == m || lcs[at(i + 1, j)] >= lcs[at(i, j + 1)]) {
                ops.push(('-', pre + i, pre + j));
                i += 1;
            } else {
                ops.push(('+', pre + i, pre + j));
                j += 1;
            }
        }
    } else {
        (0..n).for_each(|i| ops.push(('-', pre + i, pre)));
        (0..m).for_each(|j| ops.push(('+', pre + n, pre + j)));
    }
    (0..suf).for_each(|k| ops.push((' ', a.len() - suf + k, b.len() - suf + k)));

    const CTX: usize = 3;
    let changes: Vec<usize> = (0..ops.len()).filter(|&k| ops[k].0 != ' ').collect();
    let mut out = format!("--- {old_name}\n+++ {new_name}\n");
    let mut g = 0;
    while g < changes.len() {
        let mut last = g;
        while last + 1 < changes.len() && changes[last + 1] - changes[last] <= 2 * CTX {
            last += 1;
        }
        let start = changes[g].saturating_sub(CTX);
        let end = (changes[last] + CTX + 1).min(ops.len());
        let hunk = &ops[start..end];
        let a_len = hunk.iter().filter(|o| o.0 != '+').count();
        let b_len = hunk.iter().filter(|o| o.0 != '-').count();
        let a_start = hunk[0].1 + usize::from(a_len > 0);
        let b_start = hunk[0].2 + usize::from(b_len > 0);
        let _ = writeln!(out, "@@ -{a_start},{a_len} +{b_start},{b_len} @@");
        for &(tag, i, j) in hunk {
            let line = if tag == '+' { b[j] } else { a[i] };
            let _ = writeln!(out, "{tag}{}", line.trim_end_matches(['\n', '\r']));
            if !line.ends_with('\n') {
                out.push_str("\\ No newline at end of file\n");
            }
        }
        g = last + 1;
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn diff_shape() {
        let d = unified_diff("a\nb\nc\n", "a\nB\nc\n", "x", "x");
        assert_eq!(d, "--- x\n+++ x\n@@ -1,3 +1,3 @@\n a\n-b\n+B\n c\n");
        let d = unified_diff("", "a\n", "/dev/null", "x");
        assert!(d.contains("@@ -0,0 +1,1 @@\n+a\n"), "{d}");
    }
}

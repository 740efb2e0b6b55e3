//! Unified diffs of two texts, as GNU `diff -u` prints them: the one home for
//! `warden install` (config and consent edits) and `warden fmt --check`.
//!
//! The `similar` crate does the work (Myers' algorithm, 3 lines of context). Its hunk
//! headers are GNU's: a range of one line is written without its count (`@@ -0,0 +1 @@`),
//! where the hand-written diff this replaces wrote `+1,1`.

/// A unified diff of two texts (3 lines of context); empty when equal.
pub(crate) fn unified_diff(old: &str, new: &str, old_name: &str, new_name: &str) -> String {
    if old == new {
        return String::new();
    }
    similar::TextDiff::from_lines(old, new)
        .unified_diff()
        .context_radius(3)
        .header(old_name, new_name)
        .to_string()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn diff_shape() {
        let d = unified_diff("a\nb\nc\n", "a\nB\nc\n", "x", "x");
        assert_eq!(d, "--- x\n+++ x\n@@ -1,3 +1,3 @@\n a\n-b\n+B\n c\n");
        let d = unified_diff("", "a\n", "/dev/null", "x");
        assert!(d.contains("@@ -0,0 +1 @@\n+a\n"), "{d}");
    }

    /// Each expected text is what GNU diffutils 3.8 prints for the same two files
    /// (`diff -u --label OLD --label NEW`).
    #[test]
    fn same_as_gnu_diff() {
        assert_eq!(unified_diff("a\n", "a\n", "x", "x"), "");
        assert_eq!(
            unified_diff("", "a\n", "/dev/null", "x"),
            "--- /dev/null\n+++ x\n@@ -0,0 +1 @@\n+a\n"
        );
        assert_eq!(
            unified_diff("a\nb\n", "", "x", "/dev/null"),
            "--- x\n+++ /dev/null\n@@ -1,2 +0,0 @@\n-a\n-b\n"
        );
        assert_eq!(
            unified_diff("a\n", "a", "x", "x"),
            "--- x\n+++ x\n@@ -1 +1 @@\n-a\n+a\n\\ No newline at end of file\n"
        );
        let old: String = (1..=20).map(|i| format!("{i}\n")).collect();
        let new = old
            .replacen("\n2\n", "\ntwo\n", 1)
            .replacen("\n18\n", "\neighteen\n", 1);
        assert_eq!(
            unified_diff(&old, &new, "config.yaml", "config.yaml"),
            "--- config.yaml\n+++ config.yaml\n\
             @@ -1,5 +1,5 @@\n 1\n-2\n+two\n 3\n 4\n 5\n\
             @@ -15,6 +15,6 @@\n 15\n 16\n 17\n-18\n+eighteen\n 19\n 20\n"
        );
    }
}

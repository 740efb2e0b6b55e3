//! Lexical path normalisation for `path(x) under …`: `~` and `$HOME`
//! expansion, relative paths against a base, `.`/`..` folding. Nothing
//! touches the file system (symlinks are not resolved: the path is judged as
//! the agent wrote it).

/// Normalise `path` to an absolute path. `base` resolves relative paths;
/// `home` expands `~`, `~/…`, `$HOME` and `${HOME}` (without a home the
/// result keeps a leading `~`). Returns `None` for a relative path with no
/// base. One implementation serves policies and the shell analyser.
pub fn normalize(path: &str, base: Option<&str>, home: Option<&str>) -> Option<String> {
    for var in ["${HOME}", "$HOME"] {
        if let Some(rest) = path.strip_prefix(var) {
            if rest.is_empty() || rest.starts_with('/') {
                return crate::shell::normalize(&format!("~{rest}"), base, home);
            }
        }
    }
    crate::shell::normalize(path, base, home)
}

/// True if normalised `path` equals `dir` or lies inside it.
pub use crate::shell::is_under;

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn normalises() {
        let h = Some("/home/u");
        assert_eq!(
            normalize("~/.ssh/id_rsa", None, h).as_deref(),
            Some("/home/u/.ssh/id_rsa")
        );
        assert_eq!(normalize("$HOME", None, h).as_deref(), Some("/home/u"));
        assert_eq!(
            normalize("${HOME}/x/../y", None, h).as_deref(),
            Some("/home/u/y")
        );
        assert_eq!(
            normalize("src/../../etc/passwd", Some("/work/p"), h).as_deref(),
            Some("/work/etc/passwd")
        );
        assert_eq!(normalize("/../..", None, h).as_deref(), Some("/"));
        assert_eq!(normalize("rel", None, h), None);
        assert_eq!(normalize("~/x", None, None).as_deref(), Some("~/x"));
        assert_eq!(normalize("~x", Some("/b"), h).as_deref(), Some("/b/~x"));
    }

    #[test]
    fn under_respects_segment_boundaries() {
        assert!(is_under("/etc/passwd", "/etc"));
        assert!(is_under("/etc", "/etc"));
        assert!(!is_under("/etcetera", "/etc"));
        assert!(is_under("/anything", "/"));
    }
}

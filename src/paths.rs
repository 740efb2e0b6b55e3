//! Lexical path normalisation for `path(x) under …`: `~` and `$HOME`
//! expansion, relative paths against a base, `.`/`..` folding. Nothing
//! touches the file system (symlinks are not resolved: the path is judged as
//! the agent wrote it).

/// Normalise `path` to an absolute path. `base` resolves relative paths;
/// `home` expands `~`, `~/…`, `$HOME` and `${HOME}`. Returns `None` when the
/// path is relative and there is no base, or it needs a home that is unknown.
pub fn normalize(path: &str, base: Option<&str>, home: Option<&str>) -> Option<String> {
    let expanded: String;
    let p = if let Some(rest) = strip_home(path) {
        let h = home?;
        expanded = format!(
            "{}/{}",
            h.trim_end_matches('/'),
            rest.trim_start_matches('/')
        );
        expanded.as_str()
    } else {
        path
    };
    let joined: String;
    let p = if p.starts_with('/') {
        p
    } else {
        let b = normalize(base?, None, home).filter(|b| b.starts_with('/'))?;
        joined = format!("{b}/{p}");
        joined.as_str()
    };
    let mut parts: Vec<&str> = Vec::new();
    for seg in p.split('/') {
        match seg {
            "" | "." => {}
            ".." => {
                parts.pop();
            }
            s => parts.push(s),
        }
    }
    let mut out = String::with_capacity(p.len());
    for s in &parts {
        out.push('/');
        out.push_str(s);
    }
    if out.is_empty() {
        out.push('/');
    }
    Some(out)
}

/// The rest of a path that starts with a home reference.
fn strip_home(p: &str) -> Option<&str> {
    for prefix in ["~", "$HOME", "${HOME}"] {
        if let Some(rest) = p.strip_prefix(prefix) {
            if rest.is_empty() || rest.starts_with('/') {
                return Some(rest);
            }
        }
    }
    None
}

/// True if normalised `path` equals `dir` or lies inside it.
pub fn is_under(path: &str, dir: &str) -> bool {
    if dir == "/" {
        return path.starts_with('/');
    }
    path.strip_prefix(dir)
        .is_some_and(|rest| rest.is_empty() || rest.starts_with('/'))
}

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

//! Lexical path normalisation for `path(x) under …`: `~` and `$HOME`
//! expansion, relative paths against a base, `.`/`..` folding. Nothing
//! touches the file system (symlinks are not resolved: the path is judged as
//! the agent wrote it). Also the one home of home-directory expansion for
//! paths warden itself opens ([`expand_home`]).

use std::path::{Path, PathBuf};

/// `$HOME`, if set and not empty.
pub fn home_dir() -> Option<String> {
    std::env::var("HOME").ok().filter(|h| !h.is_empty())
}

/// `~`, `~/x`, `$HOME/x`, `${HOME}/x` → under `$HOME`; anything else as is.
/// Hermes expands only a leading `~` of the whole hook command line, so
/// `warden hook --policy ~/.hermes/policies` receives the `~` as is; the hook,
/// the installer and doctor expand it the same way, here.
pub fn expand_home(p: &Path) -> PathBuf {
    let s = p.to_string_lossy();
    let Some(home) = home_dir() else {
        return p.to_path_buf();
    };
    for prefix in ["~", "$HOME", "${HOME}"] {
        if let Some(rest) = s.strip_prefix(prefix) {
            if rest.is_empty() || rest.starts_with('/') {
                return PathBuf::from(format!("{home}{rest}"));
            }
        }
    }
    p.to_path_buf()
}

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

/// The environment variables that locate warden's and the host's files, which a policy's
/// `under` targets may name (`"$HERMES_HOME/config.yaml"`, `"${WARDEN_CACHE_DIR}"`) and the
/// hook hands to every event ([`location_env`]). `HOME` is not among them: `~` and `$HOME`
/// are expanded when the policy compiles.
pub const LOCATION_VARS: &[&str] = &[
    "HERMES_HOME",
    "WARDEN_CACHE_DIR",
    "WARDEN_POLICY",
    "WARDEN_AUDIT",
    "XDG_CACHE_HOME",
    "XDG_CONFIG_HOME",
    "XDG_DATA_HOME",
    "XDG_STATE_HOME",
];

/// This process's values of [`LOCATION_VARS`] (set and not empty), for [`Event::env`]:
/// `$WARDEN_POLICY` is split into its paths (`:`-separated, like `$PATH`).
///
/// [`Event::env`]: crate::Event::env
pub fn location_env() -> Vec<(String, String)> {
    let mut out = Vec::new();
    for &k in LOCATION_VARS {
        let Some(v) = std::env::var_os(k).filter(|v| !v.is_empty()) else {
            continue;
        };
        let parts: Vec<PathBuf> = if k == "WARDEN_POLICY" {
            std::env::split_paths(&v).collect()
        } else {
            vec![PathBuf::from(v)]
        };
        for p in parts {
            let p = p.to_string_lossy();
            if !p.is_empty() {
                out.push((k.to_string(), p.into_owned()));
            }
        }
    }
    out
}

/// `$NAME/rest` or `${NAME}/rest` (also without `/rest`) → `(NAME, rest)`; `HOME` excluded.
pub fn split_var(p: &str) -> Option<(&str, &str)> {
    let s = p.strip_prefix('$')?;
    let (name, rest) = match s.strip_prefix('{') {
        Some(b) => {
            let e = b.find('}')?;
            (&b[..e], &b[e + 1..])
        }
        None => {
            let e = s
                .find(|c: char| !(c.is_ascii_alphanumeric() || c == '_'))
                .unwrap_or(s.len());
            (&s[..e], &s[e..])
        }
    };
    let ok = name
        .chars()
        .next()
        .is_some_and(|c| c.is_ascii_alphabetic() || c == '_')
        && name.chars().all(|c| c.is_ascii_alphanumeric() || c == '_');
    (ok && name != "HOME" && (rest.is_empty() || rest.starts_with('/'))).then_some((name, rest))
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
    fn splits_variable_targets() {
        assert_eq!(
            split_var("$HERMES_HOME/config.yaml"),
            Some(("HERMES_HOME", "/config.yaml"))
        );
        assert_eq!(
            split_var("${WARDEN_CACHE_DIR}"),
            Some(("WARDEN_CACHE_DIR", ""))
        );
        assert_eq!(split_var("$HOME/x"), None);
        assert_eq!(split_var("$HERMES_HOMEx/y"), Some(("HERMES_HOMEx", "/y")));
        assert_eq!(split_var("$HERMES_HOME.bak"), None);
        assert_eq!(split_var("${1X}/y"), None);
        assert_eq!(split_var("/abs"), None);
    }

    #[test]
    fn under_respects_segment_boundaries() {
        assert!(is_under("/etc/passwd", "/etc"));
        assert!(is_under("/etc", "/etc"));
        assert!(!is_under("/etcetera", "/etc"));
        assert!(is_under("/anything", "/"));
    }
}

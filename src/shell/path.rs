//! Path normalisation (purely lexical: no filesystem access, symlinks are not resolved).

/// Normalise `p` to an absolute, lexically clean path.
///
/// `~` and `~/x` expand to `home`; when `home` is `None` the result keeps a
/// leading `~` (e.g. `~/.ssh`) so callers can still compare against `~`.
/// Relative paths are joined to `cwd`; without a `cwd` they give `None`.
/// `.`/`..`/empty components are resolved (`..` never climbs above `/` or `~`).
/// Glob characters are kept literally (`/*` stays `/*`).
pub fn normalize(p: &str, cwd: Option<&str>, home: Option<&str>) -> Option<String> {
    if p.is_empty() {
        return None;
    }
    if p.starts_with('/') {
        if is_clean_abs(p) {
            return Some(p.to_string());
        }
        let mut out = String::with_capacity(p.len());
        push_components(&mut out, p, 0);
        return Some(finish(out));
    }
    let tilde = p == "~" || p.starts_with("~/");
    if tilde {
        let rest = &p[1..];
        return Some(match home {
            Some(h) => {
                let mut out = String::with_capacity(h.len() + rest.len());
                push_components(&mut out, h, 0);
                push_components(&mut out, rest, 0);
                finish(out)
            }
            None => {
                let mut out = String::with_capacity(p.len());
                out.push('~');
                push_components(&mut out, rest, 1);
                out
            }
        });
    }
    let cwd = cwd?;
    if !p.contains('/') && p != "." && p != ".." && cwd.starts_with('/') && is_clean_abs(cwd) {
        let mut out = String::with_capacity(cwd.len() + p.len() + 1);
        out.push_str(cwd);
        if cwd.len() > 1 {
            out.push('/');
        }
        out.push_str(p);
        return Some(out);
    }
    let mut out = String::with_capacity(cwd.len() + p.len() + 1);
    let floor = if cwd == "~" || cwd.starts_with("~/") {
        out.push('~');
        push_components(&mut out, &cwd[1..], 1);
        1
    } else {
        push_components(&mut out, cwd, 0);
        0
    };
    push_components(&mut out, p, floor);
    if floor == 1 {
        Some(out)
    } else {
        Some(finish(out))
    }
}

fn finish(out: String) -> String {
    if out.is_empty() {
        "/".to_string()
    } else {
        out
    }
}

fn is_clean_abs(p: &str) -> bool {
    if p == "/" {
        return true;
    }
    if p.ends_with('/') || p.ends_with("/.") || p.ends_with("/..") {
        return false;
    }
    !(p.contains("//") || p.contains("/./") || p.contains("/../"))
}

fn push_components(out: &mut String, s: &str, floor: usize) {
    for comp in s.split('/') {
        match comp {
            "" | "." => {}
            ".." => {
                if out.len() > floor {
                    let cut = out.rfind('/').unwrap_or(0).max(floor);
                    out.truncate(cut);
                }
            }
            c => {
                out.push('/');
                out.push_str(c);
            }
        }
    }
}

/// Is `path` equal to `base` or inside it (component-wise; both normalised)?
/// A `base` of `/` contains every absolute path.
///
/// A `*` component in `base` matches any one component (`/home/*/.ssh`
/// contains `/home/alice/.ssh/id_rsa`): the packs protect every user's home.
pub fn is_under(path: &str, base: &str) -> bool {
    let base = if base.len() > 1 {
        base.trim_end_matches('/')
    } else {
        base
    };
    if base.contains('*') {
        return glob_prefix(path, base, false);
    }
    if base == "/" {
        return path.starts_with('/');
    }
    path == base || (path.starts_with(base) && path.as_bytes().get(base.len()) == Some(&b'/'))
}

/// Is `path` the same as `base` (both normalised)? `x/*` counts as `x`
/// (deleting everything in a directory is deleting it), and a `*` component
/// in `base` matches any one component (`/home/*`).
pub fn is_same(path: &str, base: &str) -> bool {
    let path = path
        .strip_suffix("/*")
        .map(|b| if b.is_empty() { "/" } else { b })
        .unwrap_or(path);
    if base.contains('*') {
        glob_prefix(path, base, true)
    } else {
        path == base
    }
}

/// Component-wise match of `path` against `base` with `*` components;
/// `exact`: same number of components, else `path` may go deeper.
fn glob_prefix(path: &str, base: &str, exact: bool) -> bool {
    let mut p = path.split('/');
    for b in base.split('/') {
        match p.next() {
            Some(c) if b == "*" && !c.is_empty() => {}
            Some(c) if b.contains('*') => {
                if c.is_empty() || !super::expand::glob_match(b, c) {
                    return false;
                }
            }
            Some(c) if c == b => {}
            _ => return false,
        }
    }
    !exact || p.next().is_none()
}

/// The path an argument names, if it plausibly names one: option values
/// (`--file=/x`, `of=/dev/sda`) when they start with `/` or `~`; URLs and
/// `host:path` remote specs give `None`.
pub(crate) fn arg_path(t: &str, cwd: Option<&str>, home: Option<&str>) -> Option<String> {
    if t.is_empty() || t.contains("://") {
        return None;
    }
    // curl-style `@file` (`-d @~/.ssh/id_rsa`, `-F k=@file`)
    if let Some(f) = t.strip_prefix('@') {
        return if f.is_empty() || f == "-" {
            None
        } else {
            normalize(f, cwd, home)
        };
    }
    if let Some(eq) = t.find('=') {
        let key = &t[..eq];
        let v = &t[eq + 1..];
        let keyish = key
            .trim_start_matches('-')
            .bytes()
            .all(|b| b.is_ascii_alphanumeric() || b == b'_' || b == b'-');
        if keyish && !key.is_empty() {
            let v = v.strip_prefix('@').unwrap_or(v);
            if v.starts_with('/')
                || v.starts_with('~')
                || v.starts_with("./")
                || v.starts_with("../")
                || (v.starts_with('.') && v.len() > 1)
            {
                return normalize(v, cwd, home);
            }
            return None;
        }
    }
    if t.starts_with('-') {
        return None;
    }
    if t.find(':').is_some_and(|c| !t[..c].contains('/')) {
        return None;
    }
    normalize(t, cwd, home)
}

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

/// `p` (starting with `/`) has no empty, `.` or `..` component and no trailing `/`.
fn is_clean_abs(p: &str) -> bool {
    let b = p.as_bytes();
    b == b"/"
        || b[1..]
            .split(|&c| c == b'/')
            .all(|c| !(c.is_empty() || c == b"." || c == b".."))
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
    let (p, mut b) = (path.as_bytes(), base.as_bytes());
    while b.len() > 1 && b[b.len() - 1] == b'/' {
        b = &b[..b.len() - 1];
    }
    if b.contains(&b'*') {
        return glob_prefix(p, b, false);
    }
    if b == b"/" {
        return p.first() == Some(&b'/');
    }
    p.starts_with(b) && (p.len() == b.len() || p[b.len()] == b'/')
}

/// Is `path` the same as `base` (both normalised)? `x/*` counts as `x`
/// (deleting everything in a directory is deleting it), and a `*` component
/// in `base` matches any one component (`/home/*`).
pub fn is_same(path: &str, base: &str) -> bool {
    let path = path
        .strip_suffix("/*")
        .map(|b| if b.is_empty() { "/" } else { b })
        .unwrap_or(path);
    if base.as_bytes().contains(&b'*') {
        glob_prefix(path.as_bytes(), base.as_bytes(), true)
    } else {
        path == base
    }
}

/// Component-wise match of `path` against `base` with `*` components;
/// `exact`: same number of components, else `path` may go deeper.
/// Bytes, not chars (`/` never occurs inside a UTF-8 sequence), and the
/// literal head of `base` (up to the `/` before its first `*`) is compared
/// first: most paths differ there. Runs for every protected-path entry.
fn glob_prefix(path: &[u8], base: &[u8], exact: bool) -> bool {
    let star = base.iter().position(|&c| c == b'*').unwrap_or(base.len());
    let head = base[..star]
        .iter()
        .rposition(|&c| c == b'/')
        .map_or(0, |i| i + 1);
    if !path.starts_with(&base[..head]) {
        return false;
    }
    let mut p = path[head..].split(|&c| c == b'/');
    for b in base[head..].split(|&c| c == b'/') {
        match p.next() {
            Some(c) if c == b => {}
            Some(c) if !c.is_empty() && b.contains(&b'*') => {
                if b != b"*" {
                    let (Ok(b), Ok(c)) = (std::str::from_utf8(b), std::str::from_utf8(c)) else {
                        return false;
                    };
                    if !super::expand::glob_match(b, c) {
                        return false;
                    }
                }
            }
            _ => return false,
        }
    }
    !exact || p.next().is_none()
}

/// The path an argument names, if it plausibly names one: option values
/// (`--file=/x`, `of=/dev/sda`) when they start with `/`, `~` or `.`, or whatever follows
/// `@` (`-F k=@id_rsa`) or a file-valued key (`if=`, `--post-file=`); URLs and
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
            // `k=@file` (curl -F) and the operands of options that always name a file
            // (dd's `if=` / `of=`, `--input=`, `--post-file=`) are files even when relative
            let at = v.strip_prefix('@');
            // curl -F's `@file;type=…;filename=…`: the file ends at the first `;`
            let v = at.map_or(v, |f| f.split(';').next().unwrap_or(f));
            let file_key = matches!(
                key,
                "if" | "of"
                    | "--input"
                    | "--post-file"
                    | "--body-file"
                    | "--upload-file"
                    | "--file"
            );
            if (at.is_some() || file_key) && !v.is_empty() && v != "-" {
                return normalize(v, cwd, home);
            }
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

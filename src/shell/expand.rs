//! Static expansions and decoders the walker applies to known text: brace
//! expansion, globs over the well-known entries of `/`, the home, `/etc` and the
//! program directories, `printf`/`echo -e` escapes, and the decoders an evasion pipes
//! into a shell (`base64 -d`, `xxd -r -p`, `rev`, `tr`). Everything is bounded.

/// Most words one brace or glob expansion yields.
pub(crate) const MAX_EXPANSION: usize = 64;

/// Top-level directories a glob under `/` is matched against.
const TOP: &[&str] = &[
    "bin", "boot", "dev", "etc", "home", "lib", "lib32", "lib64", "libx32", "media", "mnt", "opt",
    "proc", "root", "run", "sbin", "snap", "srv", "sys", "tmp", "usr", "var", "Users",
];

/// Home entries a glob under `~` is matched against (credentials, start-up
/// files, configuration and the usual data folders).
const HOME_NAMES: &[&str] = &[
    ".ssh",
    ".aws",
    ".gnupg",
    ".kube",
    ".docker",
    ".azure",
    ".config",
    ".local",
    ".cache",
    ".bashrc",
    ".bash_profile",
    ".bash_login",
    ".profile",
    ".zshrc",
    ".zshenv",
    ".zprofile",
    ".netrc",
    ".git-credentials",
    ".pgpass",
    ".npmrc",
    ".pypirc",
    ".env",
    ".password-store",
    ".hermes",
    ".bash_history",
    ".zsh_history",
    "Documents",
    "Desktop",
    "Downloads",
    "Pictures",
    "projects",
    "src",
    "code",
    "work",
];

/// Bash brace expansion of one word (`a{b,c}d`, `{1..3}`, nested); `None`
/// when the word has no expandable brace. Empty results are dropped.
pub(crate) fn braces(text: &str) -> Option<Vec<String>> {
    let b = text.as_bytes();
    // find the first `{` with a matching `}` and a top-level `,` or `..`
    let mut i = 0;
    while i < b.len() {
        if b[i] == b'{' {
            let mut depth = 0usize;
            let mut commas = Vec::new();
            let mut close = None;
            for (j, &c) in b.iter().enumerate().skip(i) {
                match c {
                    b'{' => depth += 1,
                    b'}' => {
                        depth -= 1;
                        if depth == 0 {
                            close = Some(j);
                            break;
                        }
                    }
                    b',' if depth == 1 => commas.push(j),
                    _ => {}
                }
            }
            let close = close?;
            let (pre, body, post) = (&text[..i], &text[i + 1..close], &text[close + 1..]);
            let parts: Vec<String> = if !commas.is_empty() {
                let mut v = Vec::new();
                let mut s = i + 1;
                for &c in &commas {
                    v.push(text[s..c].to_string());
                    s = c + 1;
                }
                v.push(text[s..close].to_string());
                v
            } else if let Some((a, z)) = body.split_once("..") {
                match (a.parse::<i64>(), z.parse::<i64>()) {
                    (Ok(a), Ok(z)) if (a - z).abs() < MAX_EXPANSION as i64 => {
                        let (lo, hi) = (a.min(z), a.max(z));
                        (lo..=hi).map(|n| n.to_string()).collect()
                    }
                    _ => {
                        i = close + 1;
                        continue;
                    }
                }
            } else {
                i = close + 1;
                continue;
            };
            let mut out = Vec::new();
            for p in parts {
                let w = format!("{pre}{p}{post}");
                match braces(&w) {
                    Some(more) => out.extend(more),
                    None => out.push(w),
                }
                if out.len() >= MAX_EXPANSION {
                    out.truncate(MAX_EXPANSION);
                    break;
                }
            }
            out.retain(|w| !w.is_empty());
            return Some(out);
        }
        i += 1;
    }
    None
}

/// Does `name` match the glob `pat` (`*`, `?`, `[…]`)?
pub(crate) fn glob_match(pat: &str, name: &str) -> bool {
    fn go(p: &[char], n: &[char], budget: &mut u32) -> bool {
        if *budget == 0 {
            return false;
        }
        *budget -= 1;
        match p.first() {
            None => n.is_empty(),
            Some('*') => (0..=n.len()).any(|k| go(&p[1..], &n[k..], budget)),
            Some('?') => !n.is_empty() && go(&p[1..], &n[1..], budget),
            Some('[') => {
                let Some(end) = p.iter().skip(2).position(|&c| c == ']').map(|e| e + 2) else {
                    return n.first() == Some(&'[') && go(&p[1..], &n[1..], budget);
                };
                let Some(&c) = n.first() else { return false };
                let (neg, set) = match p[1] {
                    '!' | '^' => (true, &p[2..end]),
                    _ => (false, &p[1..end]),
                };
                let mut hit = false;
                let mut k = 0;
                while k < set.len() {
                    if k + 2 < set.len() && set[k + 1] == '-' {
                        hit |= set[k] <= c && c <= set[k + 2];
                        k += 3;
                    } else {
                        hit |= set[k] == c;
                        k += 1;
                    }
                }
                hit != neg && go(&p[end + 1..], &n[1..], budget)
            }
            Some(&c) => n.first() == Some(&c) && go(&p[1..], &n[1..], budget),
        }
    }
    let p: Vec<char> = pat.chars().collect();
    let n: Vec<char> = name.chars().collect();
    let mut budget = 10_000;
    go(&p, &n, &mut budget)
}

fn has_glob(s: &str) -> bool {
    s.contains(['*', '?', '['])
}

/// Entries of `/etc` a glob there is matched against (credentials, accounts, start-up and
/// name-resolution files).
const ETC_NAMES: &[&str] = &[
    "shadow",
    "gshadow",
    "passwd",
    "group",
    "sudoers",
    "sudoers.d",
    "hosts",
    "crontab",
    "cron.d",
    "ssh",
    "profile",
    "profile.d",
    "bashrc",
    "environment",
    "ld.so.preload",
    "resolv.conf",
    "systemd",
    "pam.d",
];

/// Programs a glob in a system program directory (`/bin/r?`, `/usr/bin/c?rl`) is matched
/// against: the ones the packs judge.
const BIN_NAMES: &[&str] = &[
    "rm", "rmdir", "shred", "dd", "mkfs", "wipefs", "chmod", "chown", "mv", "cp", "cat", "tee",
    "sh", "bash", "dash", "zsh", "ksh", "curl", "wget", "nc", "ncat", "socat", "scp", "rsync",
    "ssh", "python", "python3", "perl", "ruby", "node", "php", "base64", "xxd", "kill", "pkill",
    "killall", "shutdown", "reboot", "halt", "poweroff", "iptables", "crontab", "sudo", "su",
    "find", "xargs", "tar", "git", "docker", "kubectl", "env", "truncate", "ln",
];

/// Entries of the home's credential folders a glob there is matched against (the key files
/// and their public halves, so `id_*.pub` still names only public keys).
const SSH_NAMES: &[&str] = &[
    "id_rsa",
    "id_ed25519",
    "id_ecdsa",
    "id_dsa",
    "id_ed25519_sk",
    "id_ecdsa_sk",
    "id_rsa.pub",
    "id_ed25519.pub",
    "id_ecdsa.pub",
    "id_dsa.pub",
    "authorized_keys",
    "known_hosts",
    "config",
];
const AWS_NAMES: &[&str] = &["credentials", "config", "sso"];
const KUBE_NAMES: &[&str] = &["config"];
const DOCKER_NAMES: &[&str] = &["config.json"];
const GNUPG_NAMES: &[&str] = &[
    "private-keys-v1.d",
    "secring.gpg",
    "pubring.kbx",
    "trustdb.gpg",
];
const CONFIG_NAMES: &[&str] = &[
    "gcloud", "gh", "hermes", "rclone", "op", "hub", "git", "systemd",
];

/// The well-known entries of `dir` (a path so far) a glob component there is matched
/// against; `None` when warden keeps no list for it.
fn known_entries(dir: &str, home: Option<&str>) -> Option<&'static [&'static str]> {
    // a path under the home: the part after `~` (or after the home's own path)
    let in_home = if dir == "~" || dir.starts_with("~/") {
        Some(&dir[1..])
    } else {
        home.filter(|h| h.len() > 1)
            .and_then(|h| dir.strip_prefix(h))
            .filter(|r| r.is_empty() || r.starts_with('/'))
    };
    if let Some(rest) = in_home {
        return match rest {
            "" => Some(HOME_NAMES),
            "/.ssh" => Some(SSH_NAMES),
            "/.aws" => Some(AWS_NAMES),
            "/.kube" => Some(KUBE_NAMES),
            "/.docker" => Some(DOCKER_NAMES),
            "/.gnupg" => Some(GNUPG_NAMES),
            "/.config" => Some(CONFIG_NAMES),
            _ => None,
        };
    }
    match dir {
        "/" => Some(TOP),
        "/etc" => Some(ETC_NAMES),
        "/bin" | "/sbin" | "/usr/bin" | "/usr/sbin" | "/usr/local/bin" => Some(BIN_NAMES),
        _ => None,
    }
}

/// What `ls PATH` prints when warden knows: the entry names of a directory it keeps a list
/// for (`~/.aws` → `credentials`, `config`, `sso`), or the path itself when it is one of
/// those entries (`~/.ssh/id_rsa`, what a glob there expanded to). `None` otherwise.
pub(crate) fn listing(path: &str, home: Option<&str>) -> Option<Vec<String>> {
    let path = path.trim_end_matches('/');
    if let Some(names) = known_entries(path, home) {
        return Some(names.iter().map(|n| n.to_string()).collect());
    }
    // a file in a credential folder (its folders, `sso` and `private-keys-v1.d`, list
    // contents warden does not know)
    let (dir, name) = path.rsplit_once('/')?;
    let names = known_entries(dir, home).filter(|n| credential_folder(n))?;
    (names.contains(&name) && !matches!(name, "sso" | "private-keys-v1.d"))
        .then(|| vec![path.to_string()])
}

/// Is `names` the entry list of a credential folder (`~/.ssh`, `~/.aws`, `~/.kube`,
/// `~/.docker`, `~/.gnupg`), where even a lone `*` is read as the entries it names?
fn credential_folder(names: &[&str]) -> bool {
    [SSH_NAMES, AWS_NAMES, KUBE_NAMES, DOCKER_NAMES, GNUPG_NAMES]
        .iter()
        .any(|l| std::ptr::eq(*l, names))
}

/// Globs in the components of an absolute or `~` path, each matched against the
/// well-known entries of the directory before it (see [`known_entries`]): `/h?me` →
/// `/home`, `/home/*` → the home, `~/.s?h/id_rsa` → `~/.ssh/id_rsa`, `~/.ssh/id_[re]*` → the
/// RSA, Ed25519 and ECDSA keys, `~/.*` → every home dot-entry, `/e?c/sh*w` → `/etc/shadow`, `/b??/r?` →
/// `/bin/rm`. A component in a directory without a list stays
/// as written, and so does everything after it. `None` when no glob was expanded, or
/// nothing matches. `/*` is left alone (the packs read `x/*` as `x`).
pub(crate) fn top_glob(text: &str, home: Option<&str>) -> Option<Vec<String>> {
    let (start, rest) = if let Some(r) = home
        .filter(|h| h.len() > 1)
        .and_then(|h| text.strip_prefix(h).map(|r| (h, r)))
        .and_then(|(h, r)| r.strip_prefix('/').map(|r| (h, r)))
    {
        (r.0.to_string(), r.1)
    } else if let Some(r) = text.strip_prefix("~/") {
        ("~".to_string(), r)
    } else if let Some(r) = text.strip_prefix('/') {
        (String::new(), r)
    } else {
        return None;
    };
    // the paths so far (several once a glob matched several entries)
    let mut paths: Vec<String> = vec![start];
    let mut expanded = false;
    let mut parts = rest.split('/');
    while let Some(part) = parts.next() {
        // `//` and `/./` change nothing, `..` goes up (lexically: symlinks are not read)
        if part.is_empty() || part == "." {
            continue;
        }
        if part == ".." {
            for p in &mut paths {
                if p.as_str() == "~" {
                    if let Some(h) = home {
                        *p = h.to_string();
                    }
                }
                // the root is the empty path; it has no parent
                if let Some(k) = p.rfind('/') {
                    p.truncate(k);
                }
            }
            continue;
        }
        // a lone `*` stays (`x/*` reads as `x`), except in a credential folder (its files)
        let mut next = Vec::with_capacity(paths.len());
        let mut stop = false;
        for p in &paths {
            let dir = if p.is_empty() { "/" } else { p.as_str() };
            // the directory holding the home (not `/`): a glob there names the home (`/home/*`)
            let home_base = home
                .and_then(|h| h.rsplit_once('/'))
                .filter(|&(parent, base)| parent == p && !parent.is_empty() && !base.is_empty())
                .map(|(_, base)| base);
            if let Some(base) = home_base.filter(|b| has_glob(part) && glob_match(part, b)) {
                expanded = true;
                next.push(format!("{p}/{base}"));
                continue;
            }
            let entries = known_entries(dir, home);
            let glob = has_glob(part) && (part != "*" || entries.is_some_and(credential_folder));
            match entries.filter(|_| glob) {
                Some(names) => {
                    expanded = true;
                    next.extend(
                        names
                            .iter()
                            .filter(|n| glob_match(part, n))
                            .map(|n| format!("{p}/{n}")),
                    );
                }
                None => {
                    stop |= glob;
                    next.push(format!("{p}/{part}"));
                }
            }
        }
        next.truncate(MAX_EXPANSION);
        paths = next;
        if stop || paths.is_empty() {
            // the rest stays as written
            let tail = parts.collect::<Vec<&str>>().join("/");
            if !tail.is_empty() {
                for p in &mut paths {
                    p.push('/');
                    p.push_str(&tail);
                }
            }
            break;
        }
    }
    (expanded && !paths.is_empty()).then_some(paths)
}

/// Backslash escapes of `printf`'s format and `echo -e` (`\x72`, `\162`,
/// `\0162`, `\n`, `\u263a`); `octal0` is echo's `\0NNN` form.
pub(crate) fn unescape(s: &str, octal0: bool) -> String {
    let b = s.as_bytes();
    let mut out: Vec<u8> = Vec::with_capacity(b.len());
    let mut i = 0;
    while i < b.len() {
        if b[i] != b'\\' || i + 1 >= b.len() {
            out.push(b[i]);
            i += 1;
            continue;
        }
        let e = b[i + 1];
        i += 2;
        match e {
            b'n' => out.push(b'\n'),
            b't' => out.push(b'\t'),
            b'r' => out.push(b'\r'),
            b'a' => out.push(7),
            b'b' => out.push(8),
            b'f' => out.push(12),
            b'v' => out.push(11),
            b'e' | b'E' => out.push(27),
            b'\\' => out.push(b'\\'),
            b'0'..=b'7' => {
                let max = if octal0 && e == b'0' { 3 } else { 2 };
                let mut v = if octal0 && e == b'0' {
                    0u32
                } else {
                    (e - b'0') as u32
                };
                let mut n = 0;
                while n < max && i < b.len() && (b'0'..=b'7').contains(&b[i]) {
                    v = v * 8 + (b[i] - b'0') as u32;
                    i += 1;
                    n += 1;
                }
                out.push(v as u8);
            }
            b'x' | b'u' | b'U' => {
                let max = match e {
                    b'x' => 2,
                    b'u' => 4,
                    _ => 8,
                };
                let mut v: u32 = 0;
                let mut n = 0;
                while n < max && i < b.len() && (b[i] as char).is_ascii_hexdigit() {
                    v = v * 16 + (b[i] as char).to_digit(16).unwrap_or(0);
                    i += 1;
                    n += 1;
                }
                if n == 0 {
                    out.extend_from_slice(&[b'\\', e]);
                } else if e == b'x' {
                    out.push(v as u8);
                } else {
                    let c = char::from_u32(v).unwrap_or('\u{FFFD}');
                    let mut tmp = [0u8; 4];
                    out.extend_from_slice(c.encode_utf8(&mut tmp).as_bytes());
                }
            }
            _ => out.extend_from_slice(&[b'\\', e]),
        }
    }
    String::from_utf8_lossy(&out).into_owned()
}

/// `printf FORMAT ARGS…` output: escapes in the format, `%s`/`%b`/`%d`/`%c`
/// taken from the arguments (`%b` arguments have their escapes expanded too),
/// the format reused while arguments remain (bounded).
pub(crate) fn printf(args: &[&str]) -> String {
    let Some((fmt, mut rest)) = args.split_first() else {
        return String::new();
    };
    let mut out = String::new();
    for _round in 0..16 {
        let mut used = false;
        let mut it = fmt.char_indices().peekable();
        let mut lit = String::new();
        while let Some((_, c)) = it.next() {
            if c != '%' {
                lit.push(c);
                continue;
            }
            // skip flags/width
            let mut conv = None;
            while let Some(&(_, d)) = it.peek() {
                it.next();
                if d.is_ascii_alphabetic() || d == '%' {
                    conv = Some(d);
                    break;
                }
            }
            out.push_str(&unescape(&std::mem::take(&mut lit), false));
            match conv {
                Some('%') => out.push('%'),
                Some(k) => {
                    let a = rest.first().copied().unwrap_or("");
                    if !rest.is_empty() {
                        rest = &rest[1..];
                        used = true;
                    }
                    match k {
                        'b' => out.push_str(&unescape(a, true)),
                        'c' => out.extend(a.chars().next()),
                        _ => out.push_str(a),
                    }
                }
                None => {}
            }
        }
        out.push_str(&unescape(&lit, false));
        if !used || rest.is_empty() {
            break;
        }
    }
    out
}

/// Standard or URL-safe base64 (whitespace ignored, padding optional).
pub(crate) fn base64(s: &str) -> Option<Vec<u8>> {
    let mut out = Vec::with_capacity(s.len() * 3 / 4);
    let mut acc = 0u32;
    let mut bits = 0;
    for c in s.bytes() {
        let v = match c {
            b'A'..=b'Z' => c - b'A',
            b'a'..=b'z' => c - b'a' + 26,
            b'0'..=b'9' => c - b'0' + 52,
            b'+' | b'-' => 62,
            b'/' | b'_' => 63,
            b'=' | b' ' | b'\n' | b'\r' | b'\t' => continue,
            _ => return None,
        };
        acc = (acc << 6) | v as u32;
        bits += 6;
        if bits >= 8 {
            bits -= 8;
            out.push((acc >> bits) as u8);
            acc &= (1 << bits) - 1;
        }
    }
    Some(out)
}

/// Plain hex (`xxd -r -p`), whitespace ignored.
pub(crate) fn hex(s: &str) -> Option<Vec<u8>> {
    let d: Vec<u8> = s
        .bytes()
        .filter(|c| !c.is_ascii_whitespace())
        .map(|c| (c as char).to_digit(16).map(|v| v as u8))
        .collect::<Option<_>>()?;
    if d.len() % 2 != 0 {
        return None;
    }
    Some(d.chunks(2).map(|p| p[0] * 16 + p[1]).collect())
}

fn tr_set(s: &str) -> Vec<char> {
    let s = unescape(s, false);
    let c: Vec<char> = s.chars().collect();
    let mut out = Vec::new();
    let mut i = 0;
    while i < c.len() && out.len() < 4096 {
        if i + 2 < c.len() && c[i + 1] == '-' && c[i] <= c[i + 2] {
            let (a, z) = (c[i] as u32, c[i + 2] as u32);
            out.extend((a..=z.min(a + 4096)).filter_map(char::from_u32));
            i += 3;
        } else {
            out.push(c[i]);
            i += 1;
        }
    }
    out
}

/// `tr SET1 SET2` / `tr -d SET` over `input` (ranges and escapes; classes unsupported → `None`).
pub(crate) fn tr(args: &[&str], input: &str) -> Option<String> {
    if args.iter().any(|a| a.contains("[:")) {
        return None;
    }
    match args {
        ["-d", set] => {
            let s = tr_set(set);
            Some(input.chars().filter(|c| !s.contains(c)).collect())
        }
        [a, b] if !a.starts_with('-') => {
            let (s1, s2) = (tr_set(a), tr_set(b));
            let last = *s2.last()?;
            Some(
                input
                    .chars()
                    .map(|c| match s1.iter().position(|&x| x == c) {
                        Some(k) => *s2.get(k).unwrap_or(&last),
                        None => c,
                    })
                    .collect(),
            )
        }
        _ => None,
    }
}

/// `rev`: every line reversed.
pub(crate) fn rev(input: &str) -> String {
    input
        .split('\n')
        .map(|l| l.chars().rev().collect::<String>())
        .collect::<Vec<_>>()
        .join("\n")
}

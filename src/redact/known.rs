//! Known-value masking: the exact values of the user's own secrets, wherever they appear.
//!
//! A [`KnownValues`] is built once (from the secret-looking environment variables of the
//! process, an optional file of extra values, or a list) and holds one Aho-Corasick automaton
//! over every value and the forms it is commonly printed in: the value itself, its base64 in
//! the standard and URL-safe alphabets at each of the three byte alignments (so it is found
//! inside a longer base64 blob, e.g. `base64 ~/.env`), and its percent-encoding. The values
//! are never logged: `Debug` prints only the count, and findings carry only spans.
//!
//! Use it with [`Redactor::redact_with`](super::Redactor::redact_with),
//! [`Redactor::redact_stream_with`](super::Redactor::redact_stream_with), or on its own with
//! [`KnownValues::mask`]. Findings are reported under the rule id [`KNOWN_RULE_ID`] and
//! replaced by [`KNOWN_LABEL`].

use super::{shannon_entropy, Cand};
use aho_corasick::{AhoCorasick, MatchKind};
use std::borrow::Cow;
use std::path::Path;

/// Rule id of a known-value finding.
pub const KNOWN_RULE_ID: &str = "known-value";
/// What replaces a known value.
pub const KNOWN_LABEL: &str = "[REDACTED:known-secret]";
/// Shortest value (and shortest encoded form) that is masked.
pub const KNOWN_MIN_LEN: usize = 8;
/// Lowest Shannon entropy (bits per character) of an environment value taken as a secret.
pub const KNOWN_MIN_ENTROPY: f64 = 2.5;

/// Words in an environment variable's name that make its value a secret.
const NAME_WORDS: &[&str] = &[
    "KEY",
    "SECRET",
    "TOKEN",
    "PASSWORD",
    "PASSWD",
    "PASS",
    "PWD",
    "CREDENTIAL",
    "CREDS",
    "AUTH",
    "PRIVATE",
    "DSN",
    "CONNECTION_STRING",
    "CONN_STR",
    "DATABASE_URL",
    "COOKIE",
    "SESSION",
    "SIGNATURE",
    "WEBHOOK",
];
/// Names that match a word above but never hold a secret.
const NAME_EXCLUDED: &[&str] = &[
    "PWD",
    "OLDPWD",
    "SSH_AUTH_SOCK",
    "XAUTHORITY",
    "GPG_AGENT_INFO",
    "KEYTIMEOUT",
    "SESSION_MANAGER",
    "DBUS_SESSION_BUS_ADDRESS",
    "XDG_SESSION_ID",
    "XDG_SESSION_TYPE",
    "XDG_SESSION_CLASS",
    "XDG_SESSION_DESKTOP",
    "DESKTOP_SESSION",
    "TERM_SESSION_ID",
];

/// The exact values of known secrets, in one automaton. Cheap to share (`Send + Sync`).
pub struct KnownValues {
    ac: Option<AhoCorasick>,
    values: usize,
    longest: usize,
}

impl std::fmt::Debug for KnownValues {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(f, "KnownValues({} values)", self.values)
    }
}

/// Is `name` the name of an environment variable whose value is a secret?
pub fn is_secret_name(name: &str) -> bool {
    let up = name.to_ascii_uppercase();
    if NAME_EXCLUDED.contains(&up.as_str()) {
        return false;
    }
    NAME_WORDS.iter().any(|w| up.contains(w))
}

/// Is `value` (of a secret-named variable) worth masking: long enough, not low-entropy, not a
/// path, a number or a boolean?
pub fn is_secret_value(value: &str) -> bool {
    let v = value.trim();
    v.len() >= KNOWN_MIN_LEN
        && shannon_entropy(v.as_bytes()) >= KNOWN_MIN_ENTROPY
        && !v.starts_with('/')
        && !v.starts_with("~/")
        && !v.bytes().all(|b| b.is_ascii_digit())
        && !matches!(v.to_ascii_lowercase().as_str(), "true" | "false")
}

const STD: &[u8; 64] = b"ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/";
const URL: &[u8; 64] = b"ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789-_";

/// Base64 of `b` without padding.
fn b64(b: &[u8], alpha: &[u8; 64]) -> Vec<u8> {
    let mut out = Vec::with_capacity(b.len().div_ceil(3) * 4);
    for ch in b.chunks(3) {
        let n = (u32::from(ch[0]) << 16)
            | (u32::from(*ch.get(1).unwrap_or(&0)) << 8)
            | u32::from(*ch.get(2).unwrap_or(&0));
        let k = ch.len() + 1;
        for i in 0..k {
            out.push(alpha[((n >> (18 - 6 * i)) & 63) as usize]);
        }
    }
    out
}

/// The forms a value is printed in (value, base64 at three alignments and two alphabets,
/// percent-encoding, the password of a URL's userinfo).
fn variants(v: &[u8], out: &mut Vec<Vec<u8>>) {
    out.push(v.to_vec());
    for alpha in [STD, URL] {
        for k in 0..3usize {
            let mut padded = vec![0u8; k];
            padded.extend_from_slice(v);
            let enc = b64(&padded, alpha);
            // characters fully determined by the value's own bits
            let (s, e) = ((4 * k).div_ceil(3), (4 * (k + v.len())) / 3);
            if e > s && e - s >= KNOWN_MIN_LEN {
                out.push(enc[s..e].to_vec());
            }
        }
    }
    if v.iter()
        .any(|b| !b.is_ascii_alphanumeric() && !b"-_.~".contains(b))
    {
        let mut p = Vec::new();
        for &b in v {
            if b.is_ascii_alphanumeric() || b"-_.~".contains(&b) {
                p.push(b);
            } else {
                p.extend_from_slice(format!("%{b:02X}").as_bytes());
            }
        }
        out.push(p);
    }
    // scheme://user:password@host: the password on its own
    if let Some(p) = std::str::from_utf8(v).ok().and_then(url_password) {
        if p.len() >= KNOWN_MIN_LEN {
            out.push(p.as_bytes().to_vec());
        }
    }
}

fn url_password(v: &str) -> Option<&str> {
    let rest = &v[v.find("://")? + 3..];
    let auth = &rest[..rest.find(['/', '?', '#']).unwrap_or(rest.len())];
    let userinfo = &auth[..auth.rfind('@')?];
    Some(&userinfo[userinfo.find(':')? + 1..])
}

impl KnownValues {
    /// Known values from a list (each value and its encoded forms); values shorter than
    /// [`KNOWN_MIN_LEN`] are ignored.
    pub fn new<I, S>(values: I) -> KnownValues
    where
        I: IntoIterator<Item = S>,
        S: AsRef<str>,
    {
        let mut pats: Vec<Vec<u8>> = Vec::new();
        let mut n = 0;
        for v in values {
            let v = v.as_ref().trim_matches(['\r', '\n']);
            if v.len() < KNOWN_MIN_LEN {
                continue;
            }
            n += 1;
            variants(v.as_bytes(), &mut pats);
        }
        pats.retain(|p| p.len() >= KNOWN_MIN_LEN);
        pats.sort();
        pats.dedup();
        let longest = pats.iter().map(Vec::len).max().unwrap_or(0);
        let ac = if pats.is_empty() {
            None
        } else {
            AhoCorasick::builder()
                .match_kind(MatchKind::LeftmostLongest)
                .build(&pats)
                .ok()
        };
        KnownValues {
            ac,
            values: n,
            longest,
        }
    }

    /// The values of this process's environment variables whose name is secret-looking
    /// ([`is_secret_name`]) and whose value passes [`is_secret_value`].
    pub fn from_env() -> KnownValues {
        KnownValues::new(env_values(std::env::vars_os()))
    }

    /// [`from_env`](Self::from_env) plus every non-empty line of `file` (one value per line;
    /// lines starting with `#` are comments).
    pub fn from_env_and_file(file: Option<&Path>) -> std::io::Result<KnownValues> {
        let mut vals = env_values(std::env::vars_os());
        if let Some(f) = file {
            vals.extend(file_values(f)?);
        }
        Ok(KnownValues::new(vals))
    }

    /// Every non-empty, non-comment line of `file` as a known value (no environment).
    pub fn from_file(file: &Path) -> std::io::Result<KnownValues> {
        Ok(KnownValues::new(file_values(file)?))
    }

    /// Number of values (not counting their encoded forms).
    pub fn len(&self) -> usize {
        self.values
    }

    /// True if there is no value to mask.
    pub fn is_empty(&self) -> bool {
        self.ac.is_none()
    }

    /// Length of the longest pattern (a stream must keep this much context).
    pub fn longest(&self) -> usize {
        self.longest
    }

    /// Replace every known value in `text` by [`KNOWN_LABEL`].
    pub fn mask<'a>(&self, text: &'a str) -> Cow<'a, str> {
        let mut c = Vec::new();
        self.candidates(text.as_bytes(), 0, &mut c);
        if c.is_empty() {
            return Cow::Borrowed(text);
        }
        let mut s = String::with_capacity(text.len());
        let mut last = 0;
        for m in c {
            s.push_str(&text[last..m.start]);
            s.push_str(KNOWN_LABEL);
            last = m.end;
        }
        s.push_str(&text[last..]);
        Cow::Owned(s)
    }

    /// Push every occurrence in `hay` as a candidate of rule `rule`, on character boundaries.
    pub(crate) fn candidates(&self, hay: &[u8], rule: u32, out: &mut Vec<Cand>) {
        let Some(ac) = &self.ac else { return };
        for m in ac.find_iter(hay) {
            out.push(Cand {
                start: super::floor_char(hay, m.start()),
                end: super::ceil_char(hay, m.end()),
                rule,
            });
        }
    }
}

fn env_values<I: Iterator<Item = (std::ffi::OsString, std::ffi::OsString)>>(
    vars: I,
) -> Vec<String> {
    vars.filter_map(|(k, v)| Some((k.into_string().ok()?, v.into_string().ok()?)))
        .filter(|(k, v)| is_secret_name(k) && is_secret_value(v))
        .map(|(_, v)| v.trim().to_string())
        .collect()
}

fn file_values(f: &Path) -> std::io::Result<Vec<String>> {
    Ok(std::fs::read_to_string(f)?
        .lines()
        .map(str::trim)
        .filter(|l| !l.is_empty() && !l.starts_with('#'))
        .map(String::from)
        .collect())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn names_and_values() {
        assert!(is_secret_name("OPENAI_API_KEY"));
        assert!(is_secret_name("db_password"));
        assert!(!is_secret_name("PWD"));
        assert!(!is_secret_name("SSH_AUTH_SOCK"));
        assert!(!is_secret_name("HOME"));
        assert!(is_secret_value("s3cr3t-Value-991"));
        assert!(!is_secret_value("/home/user/.key"));
        assert!(!is_secret_value("short"));
        assert!(!is_secret_value("aaaaaaaaaaaa"));
        assert!(!is_secret_value("123456789012"));
    }

    #[test]
    fn masks_value_and_encodings() {
        let v = "Zq9-xLm2!pR7wT";
        let k = KnownValues::new([v]);
        assert_eq!(format!("{k:?}"), "KnownValues(1 values)");
        assert_eq!(k.mask(&format!("a {v} b")), format!("a {KNOWN_LABEL} b"));
        // base64 of the value alone, and inside a longer blob at every alignment
        for pre in ["", "x", "xy", "xyz"] {
            let blob = b64(format!("{pre}{v}\n").as_bytes(), STD);
            let blob = String::from_utf8(blob).unwrap();
            let m = k.mask(&blob);
            assert!(m.contains(KNOWN_LABEL), "{pre:?}: {blob} -> {m}");
        }
        let pct = "Zq9-xLm2%21pR7wT";
        assert!(k.mask(pct).contains(KNOWN_LABEL));
        assert_eq!(k.mask("nothing here"), "nothing here");
    }

    #[test]
    fn url_password_is_masked_alone() {
        let k = KnownValues::new(["postgres://app:Hj8s-Kq2Lw9x@db:5432/x"]);
        assert_eq!(k.mask("pw Hj8s-Kq2Lw9x"), format!("pw {KNOWN_LABEL}"));
    }

    #[test]
    fn env_selection() {
        let vars = [
            ("MY_API_TOKEN", "tk_9fJ2mQx81LpZ"),
            ("HOME", "tk_9fJ2mQx81LpZ_other"),
            ("DB_PASSWORD", "short"),
            ("PWD", "/work/some/where"),
        ]
        .map(|(a, b)| (a.into(), b.into()));
        let vals = env_values(vars.into_iter());
        assert_eq!(vals, vec!["tk_9fJ2mQx81LpZ".to_string()]);
    }
}

//! Python-compatible shell splitting and quoting: what Hermes does to a hook
//! command (`shlex.split` after `os.path.expanduser`), so warden writes and
//! reads hook commands exactly as Hermes will run them.

/// Python's `shlex.split(s)` (POSIX mode, no comments): what Hermes does to
/// the command. `None` on an unterminated quote or a trailing backslash.
pub fn shlex_split(s: &str) -> Option<Vec<String>> {
    let mut out = Vec::new();
    let mut cur = String::new();
    let mut in_token = false;
    let mut it = s.chars().peekable();
    while let Some(c) = it.next() {
        match c {
            ' ' | '\t' | '\n' | '\r' => {
                if in_token {
                    out.push(std::mem::take(&mut cur));
                    in_token = false;
                }
            }
            '\'' => {
                in_token = true;
                loop {
                    match it.next()? {
                        '\'' => break,
                        ch => cur.push(ch),
                    }
                }
            }
            '"' => {
                in_token = true;
                loop {
                    match it.next()? {
                        '"' => break,
                        '\\' => match it.peek() {
                            Some(&n) if n == '"' || n == '\\' => {
                                cur.push(n);
                                it.next();
                            }
                            Some(_) => cur.push('\\'),
                            None => return None,
                        },
                        ch => cur.push(ch),
                    }
                }
            }
            '\\' => {
                in_token = true;
                cur.push(it.next()?);
            }
            ch => {
                in_token = true;
                cur.push(ch);
            }
        }
    }
    if in_token {
        out.push(cur);
    }
    Some(out)
}

/// Python's `shlex.quote`.
pub fn shell_quote(s: &str) -> String {
    let safe = |c: char| c.is_ascii_alphanumeric() || "@%+=:,./-_".contains(c);
    if !s.is_empty() && s.chars().all(safe) {
        s.to_string()
    } else {
        format!("'{}'", s.replace('\'', "'\"'\"'"))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn shlex_round_trip() {
        for s in [
            "/a b/warden",
            "it's",
            "",
            "plain/path-1.2",
            "$HOME",
            "a\"b\\c",
        ] {
            let q = shell_quote(s);
            assert_eq!(shlex_split(&q).unwrap(), vec![s.to_string()], "{q}");
        }
        assert_eq!(
            shlex_split(r#"a "b \" c" 'd e'\ f"#).unwrap(),
            vec!["a", "b \" c", "d e f"]
        );
        assert!(shlex_split("'open").is_none());
    }
}

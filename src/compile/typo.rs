//! `arg resembles NAMES`: is a package-install argument a typo of a well-known package?
//!
//! Typo-squatting publishes malware under a name one slip away from a popular package
//! (`reqeusts` for `requests`, `crossenv` for `cross-env`, `python3-dateutil` for
//! `python-dateutil`). An argument *resembles* the list when its package name is none of
//! the names but is one edit away from one of them — a letter added, dropped or changed,
//! or two neighbours swapped — or the same once `-`, `_` and `.` are removed. Only names
//! of five or more characters are matched by edit (`six`, `mock`, `glob` have too many
//! honest neighbours); shorter names still count as known, so listing an honest
//! neighbour (`attr` beside `attrs`) keeps it from being flagged.
//!
//! Names are compared as package indexes compare them: lowercase, with every run of
//! `-`, `_` and `.` read as `-` (PEP 503; crates.io), after the version or extras part is
//! cut off (`requests==2.31`, `requests[socks]`, `lodash@4`, `serde@1`). Flags, paths and
//! URLs are not package names.

use std::collections::HashSet;
use std::sync::OnceLock;

/// The names of one `arg resembles` list, normalised on first use (the hook compiles
/// lazily, so a process that never meets a package install never builds the table).
pub(crate) struct PackageNames {
    raw: Vec<String>,
    table: OnceLock<Table>,
}

struct Table {
    /// Every name, normalised.
    exact: HashSet<String>,
    /// The names an argument is measured against: five characters or more.
    near: Vec<String>,
}

impl PackageNames {
    /// The list as the policy wrote it.
    pub(crate) fn new(names: &[String]) -> PackageNames {
        PackageNames {
            raw: names.to_vec(),
            table: OnceLock::new(),
        }
    }

    fn table(&self) -> &Table {
        self.table.get_or_init(|| {
            let exact: HashSet<String> = self.raw.iter().map(|n| normalise(n)).collect();
            // sorted, so a name near several listed ones always reports the same one
            let mut near: Vec<String> = exact.iter().filter(|n| n.len() >= 5).cloned().collect();
            near.sort_unstable();
            Table { exact, near }
        })
    }

    /// Whether some argument of a command line names a typo of a listed package: the
    /// package tools' own verbs (`npm exec`, not a typo of `execa`), the words after an
    /// option that takes a value (`npm i -w server chalk`) and the words not known before
    /// the command runs (`dynamic`) are no package names.
    pub(crate) fn any_resembled<'a>(
        &self,
        args: impl IntoIterator<Item = (&'a str, bool)>,
    ) -> bool {
        let mut after_option = false;
        args.into_iter().any(|(text, dynamic)| {
            let measured = !dynamic && !after_option && !TOOL_VERBS.contains(&text);
            after_option = VALUE_OPTIONS.contains(&text);
            measured && self.resembled(text).is_some()
        })
    }

    /// The listed name `arg` is a typo of, if it is one (and not itself listed).
    pub(crate) fn resembled(&self, arg: &str) -> Option<&str> {
        let name = package_name(arg)?;
        let t = self.table();
        if t.exact.contains(&name) {
            return None;
        }
        t.near
            .iter()
            .find(|n| one_edit(name.as_bytes(), n.as_bytes()) || squashed_eq(&name, n))
            .map(String::as_str)
    }
}

/// The package name an install argument names, normalised; `None` for flags, paths,
/// URLs and files.
fn package_name(arg: &str) -> Option<String> {
    if arg.starts_with('-') || arg.contains("://") || (arg.contains('/') && !arg.starts_with('@')) {
        return None;
    }
    // `@scope/name@1.2`: the version `@` is the one after the first character.
    let cut = arg
        .char_indices()
        .find(|&(i, c)| "=<>!~[;( ,".contains(c) || c == '@' && i > 0)
        .map_or(arg.len(), |(i, _)| i);
    let name = normalise(&arg[..cut]);
    (!name.is_empty()).then_some(name)
}

/// The package tools' verbs, which name no package.
const TOOL_VERBS: &[&str] = &[
    "install", "i", "add", "inject", "exec", "x", "dlx", "run", "tool", "pip",
];

/// Options of the package tools whose value is no package (`npm i -w server chalk`, `cargo
/// add -p server tokio`, `pip install -r reqs.txt`): the word after one is not measured.
const VALUE_OPTIONS: &[&str] = &[
    "-w",
    "--workspace",
    "--prefix",
    "-C",
    "--dir",
    "--cwd",
    "--filter",
    "-F",
    "-p",
    "--package",
    "--manifest-path",
    "--features",
    "--target",
    "-t",
    "-r",
    "--requirement",
    "-c",
    "--constraint",
    "-i",
    "--index-url",
    "--extra-index-url",
    "-f",
    "--find-links",
    "--root",
    "--python",
    "--python-version",
    "--platform",
    "--registry",
    "--tag",
    "-v",
    "--version",
    "--git",
    "--branch",
    "--rev",
    "--path",
];

/// Lowercase, every run of `-`, `_`, `.` as one `-`.
fn normalise(name: &str) -> String {
    let mut out = String::with_capacity(name.len());
    for c in name.chars() {
        if matches!(c, '-' | '_' | '.') {
            if !out.ends_with('-') {
                out.push('-');
            }
        } else {
            out.extend(c.to_lowercase());
        }
    }
    out
}

/// The same once separators are removed, and not the same before (`crossenv` / `cross-env`).
fn squashed_eq(a: &str, b: &str) -> bool {
    a != b
        && a.bytes()
            .filter(|&c| c != b'-')
            .eq(b.bytes().filter(|&c| c != b'-'))
}

/// Exactly one insertion, deletion, substitution or swap of neighbours apart.
fn one_edit(a: &[u8], b: &[u8]) -> bool {
    if a == b || a.len().abs_diff(b.len()) > 1 {
        return false;
    }
    let p = a.iter().zip(b).take_while(|(x, y)| x == y).count();
    let (a, b) = (&a[p..], &b[p..]);
    match a.len().cmp(&b.len()) {
        std::cmp::Ordering::Less => a == &b[1..],
        std::cmp::Ordering::Greater => &a[1..] == b,
        std::cmp::Ordering::Equal => {
            a[1..] == b[1..] || a.len() >= 2 && a[0] == b[1] && a[1] == b[0] && a[2..] == b[2..]
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn names() -> PackageNames {
        let list = [
            "requests",
            "cross-env",
            "python-dateutil",
            "attrs",
            "attr",
            "lodash",
            "six",
        ];
        PackageNames::new(&list.map(String::from))
    }

    #[test]
    fn typos_of_listed_names_resemble_them() {
        let n = names();
        for (arg, of) in [
            ("reqeusts", "requests"),
            ("request", "requests"),
            ("requestss", "requests"),
            ("requezts", "requests"),
            ("reqeusts==2.31.0", "requests"),
            ("Reqeusts[socks]", "requests"),
            ("crossenv", "cross-env"),
            ("cross.env2", "cross-env"),
            ("python3-dateutil", "python-dateutil"),
            ("lodahs@4.17.21", "lodash"),
        ] {
            assert_eq!(n.resembled(arg), Some(of), "{arg}");
        }
    }

    #[test]
    fn listed_names_flags_paths_and_short_names_do_not() {
        let n = names();
        for arg in [
            "requests",
            "Requests>=2",
            "python_dateutil",
            "cross-env@7",
            "attr",
            "attrs",
            "sox",
            "-r",
            "--upgrade",
            "./requests",
            "git+https://example.com/reqeusts",
            "numpy",
            "",
            "@types/node",
        ] {
            assert_eq!(n.resembled(arg), None, "{arg}");
        }
    }

    #[test]
    fn option_values_and_dynamic_words_are_no_package_names() {
        let n = names();
        let line = |words: &[(&'static str, bool)]| n.any_resembled(words.iter().copied());
        assert!(line(&[("install", false), ("reqeusts", false)]));
        assert!(!line(&[
            ("i", false),
            ("-w", false),
            ("lodahs", false),
            ("chalk", false)
        ]));
        assert!(line(&[
            ("i", false),
            ("-w", false),
            ("server", false),
            ("lodahs", false)
        ]));
        assert!(!line(&[("install", false), ("reqeusts", true)]));
        let n = PackageNames::new(&["execa".to_string()]);
        assert!(!n.any_resembled([("exec", false), ("--", false), ("eslint", false)]));
    }

    #[test]
    fn one_edit_is_exactly_one() {
        for (a, b, want) in [
            ("abcde", "abcde", false),
            ("abcde", "abcdf", true),
            ("abcde", "abdce", true),
            ("abcde", "abce", true),
            ("abcde", "xabcde", true),
            ("abcde", "badce", false),
            ("abcde", "abc", false),
            ("ab", "ba", true),
        ] {
            assert_eq!(one_edit(a.as_bytes(), b.as_bytes()), want, "{a} {b}");
        }
    }
}

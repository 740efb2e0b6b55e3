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

use crate::shell::Arg;

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

    /// Whether a package tool's command line (`program`, the basename, and its arguments)
    /// names a typo of a listed package. Which words name packages
    /// depends on the tool:
    /// - an installer (`pip install`, `npm i`, `gem install`, `cargo add`): every word but
    ///   the tool's verbs, options and the values of options that take one
    ///   (`npm i -w server chalk`: `server` is a workspace);
    /// - a runner (`npx`, `uvx`, `npm exec`, `pnpm dlx`, `pipx run`, `uv tool run`): the
    ///   values of `-p` / `--package` / `--from` / `--spec` / `--with`, else the first word
    ///   after the verb; the words after it are the program's own (`uvx ruff check .`);
    /// - `uv run`: only the values of `--with` (its first word is a command).
    ///
    /// Words not known before the command runs are never measured.
    pub(crate) fn any_resembled(&self, program: &str, args: &[Arg]) -> bool {
        let has = |w: &str| args.iter().any(|a| a.text == w);
        let runner = matches!(program, "npx" | "bunx" | "pnpx" | "uvx")
            || ["exec", "x", "dlx"].iter().any(|v| has(v))
            || (has("run") && (program == "pipx" || has("tool")));
        let uv_run = program == "uv" && has("run") && !has("tool");
        let hit = |text: &str, dynamic: bool| !dynamic && self.resembled(text).is_some();
        let mut by_option = false;
        let mut k = 0;
        while k < args.len() {
            let Arg { text, dynamic, .. } = &args[k];
            k += 1;
            if runner || uv_run {
                let (opt, value) = match text.split_once('=') {
                    Some((o, v)) if o.starts_with('-') => (o, Some((v, *dynamic))),
                    _ => (
                        text.as_str(),
                        args.get(k).map(|a| (a.text.as_str(), a.dynamic)),
                    ),
                };
                if RUNNER_PACKAGE_OPTIONS.contains(&opt) {
                    if value.is_some_and(|(v, d)| hit(v, d)) {
                        return true;
                    }
                    by_option = true;
                    k += usize::from(!text.contains('='));
                    continue;
                }
            }
            if VALUE_OPTIONS.contains(&text.as_str()) {
                k += 1;
            } else if !text.starts_with('-') && !TOOL_VERBS.contains(&text.as_str()) && !uv_run {
                // a runner's first word names its package unless an option did; either way
                // the words after it are the program's
                if runner {
                    return !by_option && hit(text, *dynamic);
                }
                if hit(text, *dynamic) {
                    return true;
                }
            }
        }
        false
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
/// A runner's options naming the package it runs (`npx -p x cmd`, `uvx --from x cmd`,
/// `uv run --with x python`).
const RUNNER_PACKAGE_OPTIONS: &[&str] = &["-p", "--package", "--from", "--spec", "--with"];

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

    /// A command line's arguments; `$X` stands for one not known before it runs.
    fn args(words: &str) -> Vec<Arg> {
        let arg = |w: &str| Arg {
            text: w.to_string(),
            path: None,
            dynamic: w == "$X",
        };
        words.split(' ').map(arg).collect()
    }

    #[test]
    fn package_slots_per_tool() {
        let n = names();
        let line = |program: &str, words: &str| n.any_resembled(program, &args(words));
        // installers: every word but verbs, options and option values
        assert!(line("pip", "install reqeusts"));
        assert!(line("npm", "i -w server lodahs"));
        assert!(!line("npm", "i -w lodahs chalk"));
        assert!(!line("pip", "install $X"));
        // runners: the package option's value, else the first word; then the program's
        assert!(line("uvx", "reqeusts"));
        assert!(line("npx", "-p crossenv tool"));
        assert!(line("npm", "exec --package=crossenv tool"));
        assert!(line("uv", "tool run reqeusts"));
        assert!(line("pipx", "run --spec reqeusts http"));
        assert!(!line("uvx", "ruff check . --output-format requestz"));
        assert!(!line("pnpm", "dlx create-vite app --template lodahs"));
        assert!(!line("uvx", "--from httpie requestz"));
        // `uv run`: only --with
        assert!(line("uv", "run --with=reqeusts app.py"));
        assert!(!line("uv", "run requestz.py"));
        // a verb is no package name (`exec`, one edit from `execa`)
        let n = PackageNames::new(&["execa".to_string()]);
        assert!(!n.any_resembled("npm", &args("exec -- eslint")));
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

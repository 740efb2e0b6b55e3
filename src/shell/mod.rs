//! Shell-aware command analysis: parse a command line into the simple
//! commands it would run, without running anything.
//!
//! Why no crate: `shell-words`/`shlex` only split words (no operators,
//! substitutions, heredocs); `conch-parser` is unmaintained (last release 2019)
//! and builds a heavy AST; `brush-parser`/`yash-syntax` are full interpreters'
//! parsers (large dependency trees, async in yash) with no hostile-input bounds.
//! None resolves wrappers, nested `bash -c`, or cwd. So this is std-only,
//! a single-pass byte parser built for a µs budget and bounded recursion.
//!
//! What it understands: lists and pipelines (`; && || | |& &`, newlines),
//! `( … )`, `{ …; }`, `if/while/for/case` bodies, function bodies,
//! `$(…)`, backticks, `<(…)`/`>(…)`, heredocs (`<<`, `<<-`, quoted
//! delimiters; bodies fed to a shell are parsed as scripts, unquoted bodies
//! have their substitutions parsed), redirections, all quoting forms
//! (`'…'`, `"…"`, `\x`, `$'…'`, line continuations), `~`, `$HOME`, `$PWD`.
//! Nested scripts (`bash -c`, `sh -lc`, `eval`, `su -c`, `ssh host CMD`,
//! `watch`, `parallel`, `env -S`, `flock -c`, `echo … | sh`, `sh <<EOF`,
//! `find -exec`, `xargs`, `docker|podman exec CTR CMD`, `kubectl exec POD -- CMD`,
//! `vim -c '!CMD'`, tar's `--checkpoint-action=exec=CMD` / `-I CMD` / `--to-command=CMD`,
//! `git -c alias.NAME=VALUE NAME`)
//! are analysed recursively; wrappers (`sudo`, `doas`,
//! `env`, `nice`, `nohup`, `timeout`, `time`, `command`, `exec`, `builtin`,
//! `stdbuf`, `ionice`, `chrt`, `taskset`, `setsid`, `chroot DIR`, `flock F`,
//! `busybox`, `xargs`, `pkexec`) are stripped and recorded in
//! [`SimpleCommand::via`].
//!
//! Bounds (never panics; on hostile input the analysis is marked
//! `truncated` **and** `dynamic`, never silently cut):
//! input [`MAX_INPUT`] bytes, nested-shell depth `Options::max_depth`
//! (default 8, clamped to [`MAX_DEPTH`]), syntactic nesting 32,
//! [`MAX_COMMANDS`] commands, 32 + 12 words a byte of input (parsed, added by
//! expansion or copied from a group's redirections; at most [`MAX_WORDS`]),
//! [`MAX_PARSE_BYTES`] bytes
//! parsed in total (nested scripts included), [`MAX_FEEDS`] feed edges.
//!
//! `$PWD` expands to `.` (resolved against the tracked cwd); `$HOME`/`~` to
//! `Options::home`, or to a literal `~` when unknown.

mod expand;
mod interp;
mod parse;
mod path;
mod walk;

#[cfg(test)]
mod tests;

pub use path::{is_same, is_under, normalize};

/// Programs whose arguments can name a file they write (recorded as
/// [`RedirOp::Channel`] redirections): the prefilter admits `redirect to`
/// rules for these even when the text has no `>`. Interpreters are listed
/// for the files their inline programs open for writing.
pub const WRITE_CHANNEL_PROGRAMS: &[&str] = &[
    "tee", "cp", "mv", "install", "ln", "rsync", "scp", "dd", "truncate", "shred", "sed", "perl",
    "yq", "sponge", "curl", "wget", "find", "python*", "pypy*", "ruby", "jruby", "node", "nodejs",
    "bun", "deno", "php",
];

/// Longest input analysed; longer input is cut and marked truncated.
pub const MAX_INPUT: usize = 64 * 1024;
/// Hard ceiling for `Options::max_depth`.
pub const MAX_DEPTH: usize = 16;
/// Most simple commands reported per analysis.
pub const MAX_COMMANDS: usize = 512;
/// Most words per analysis (parsed in all nested scripts together, or added by expansion).
pub const MAX_WORDS: usize = 16 * 1024;
/// Most bytes parsed per analysis (all nested scripts together).
pub const MAX_PARSE_BYTES: usize = 1024 * 1024;
/// Most feed edges recorded per analysis.
pub const MAX_FEEDS: usize = 4096;

/// Analysis options.
#[derive(Clone, Debug)]
pub struct Options<'a> {
    /// Initial working directory (absolute) used to resolve relative paths.
    pub cwd: Option<&'a str>,
    /// Home directory for `~` / `$HOME`.
    pub home: Option<&'a str>,
    /// Nested-shell depth bound (`bash -c` inside `bash -c` …); default 8.
    pub max_depth: usize,
}

impl Default for Options<'_> {
    fn default() -> Self {
        Options {
            cwd: None,
            home: None,
            max_depth: 8,
        }
    }
}

/// Redirection operator.
#[derive(Clone, Copy, PartialEq, Eq, Debug)]
pub enum RedirOp {
    /// `<`
    Read,
    /// `>`
    Write,
    /// `>>`
    Append,
    /// `>|`
    Clobber,
    /// `<>`
    ReadWrite,
    /// `&>` (and `>& file`)
    WriteAll,
    /// `&>>`
    AppendAll,
    /// `>&N` / `>&-`
    DupOut,
    /// `<&N` / `<&-`
    DupIn,
    /// `<<`
    HereDoc,
    /// `<<-`
    HereDocStrip,
    /// `<<<`
    HereString,
    /// Not a redirection: a file the program writes through its arguments
    /// (`tee F`, `cp A F`, `dd of=F`, `sed -i … F`, `find P -delete`, an
    /// interpreter body's `open(F, "w")`), so `redirect to` rules see every
    /// write channel.
    Channel,
}

/// One redirection of a simple command.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Redirect {
    /// Explicit file descriptor (`2>`), if written.
    pub fd: Option<u32>,
    /// The operator.
    pub op: RedirOp,
    /// Quote-resolved target (file name, fd number, heredoc delimiter or here-string text).
    pub target: String,
    /// Normalised target path (file redirections only).
    pub path: Option<String>,
    /// The target could not be known statically.
    pub dynamic: bool,
}

impl Redirect {
    /// Does this redirection write to (create/truncate/append) a file?
    pub fn writes(&self) -> bool {
        matches!(
            self.op,
            RedirOp::Write
                | RedirOp::Append
                | RedirOp::Clobber
                | RedirOp::ReadWrite
                | RedirOp::WriteAll
                | RedirOp::AppendAll
                | RedirOp::Channel
        )
    }
}

/// One argument of a simple command.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Arg {
    /// Quote-resolved, statically expanded text (unknown parts kept as written, e.g. `$X`).
    pub text: String,
    /// Normalised absolute path if the argument can name a path (option
    /// values like `of=/dev/sda`, `--file=/x` included; URLs and `host:path` not).
    pub path: Option<String>,
    /// Contains something unknowable statically (`$X`, `$(…)`, `{}` of find, xargs input).
    pub dynamic: bool,
}

/// A simple command that would run, wrappers stripped. A redirection-only
/// command (`> /etc/hosts`) has an empty `program`.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct SimpleCommand {
    /// Program basename (`/bin/rm` → `rm`). If `dynamic_program`, a best guess
    /// (`$(echo rm)` folds to `rm`; otherwise the text as written, e.g. `$CMD`).
    pub program: String,
    /// Arguments after the program.
    pub args: Vec<Arg>,
    /// Redirections (including those of enclosing `( … )` / `{ … }`).
    pub redirects: Vec<Redirect>,
    /// The program name is not statically known.
    pub dynamic_program: bool,
    /// This command runs code that could not be resolved statically
    /// (`bash -c "$X"`, `eval "$X"`, `sh -c "$(curl …)"`, `parallel` reading commands from stdin).
    pub nested_dynamic: bool,
    /// Nested-shell depth (0 = top level; `bash -c '…'` contents are 1).
    pub depth: u8,
    /// Tracked working directory when known.
    pub cwd: Option<String>,
    /// Wrappers and nested-shell hosts on the way, outermost first
    /// (e.g. `["sudo", "bash -c"]`).
    pub via: Vec<String>,
}

/// Result of [`analyze`].
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct Analysis {
    /// Every simple command that may run, in source order (nested ones after their host).
    pub commands: Vec<SimpleCommand>,
    /// Data-flow edges `(from, to)` over `commands` indices: pipes,
    /// process substitution, command substitution (its output becomes words
    /// of the consumer), and a nested-script host to the script's first commands.
    pub feeds: Vec<(usize, usize)>,
    /// Something that decides *what runs* is unknown (dynamic program or
    /// nested script), or a bound was hit.
    pub dynamic: bool,
    /// A bound was hit; the analysis is incomplete.
    pub truncated: bool,
    /// The parser met a syntax error (unterminated quote, unbalanced parenthesis, …);
    /// what could be parsed is reported.
    pub syntax_error: bool,
}

/// Analyse a command line. Never panics; bounded in time and memory.
pub fn analyze(command: &str, opts: &Options) -> Analysis {
    walk::run(command, opts)
}

/// Analyse a Python program (the `code` argument of Hermes's `execute_code`
/// tool) as if run by `python3 -c`: the commands it would run through
/// `os.system`/`subprocess`, the trees it deletes, the files it writes, the
/// URLs it fetches. Never panics; bounded like [`analyze`].
pub fn analyze_python(code: &str, opts: &Options) -> Analysis {
    walk::run_python(code, opts)
}

/// Does `program` match `pattern`? Exact, or prefix when the pattern ends with `*`
/// (`python*` matches `python3.12`).
pub fn program_matches(pattern: &str, program: &str) -> bool {
    match pattern.strip_suffix('*') {
        Some(pre) => program.starts_with(pre),
        None => pattern == program,
    }
}

impl Analysis {
    /// Commands whose program matches any of `programs` (see [`program_matches`]).
    pub fn find<'a>(
        &'a self,
        programs: &'a [&'a str],
    ) -> impl Iterator<Item = &'a SimpleCommand> + 'a {
        self.commands
            .iter()
            .filter(move |c| programs.iter().any(|p| program_matches(p, &c.program)))
    }

    /// Does some command of `from` feed (transitively, through pipes,
    /// process/command substitution or nested-script hosts) a command of `to`?
    /// `curl … | sudo bash`, `bash <(curl …)`, `sh -c "$(curl …)"` all answer true for
    /// `from = ["curl"], to = ["bash", "sh"]`.
    pub fn feeds_any<S: AsRef<str>>(&self, from: &[S], to: &[S]) -> bool {
        if self.feeds.is_empty() {
            return false;
        }
        let n = self.commands.len();
        let mut seen = vec![false; n];
        let mut stack: Vec<usize> = Vec::new();
        for (i, c) in self.commands.iter().enumerate() {
            if from.iter().any(|p| program_matches(p.as_ref(), &c.program)) && !seen[i] {
                seen[i] = true;
                stack.push(i);
            }
        }
        while let Some(i) = stack.pop() {
            for &(a, b) in &self.feeds {
                if a != i || b >= n {
                    continue;
                }
                // (a `to` program that is also a `from` one was seen as a start: still fed)
                if to
                    .iter()
                    .any(|p| program_matches(p.as_ref(), &self.commands[b].program))
                {
                    return true;
                }
                if !seen[b] {
                    seen[b] = true;
                    stack.push(b);
                }
            }
        }
        false
    }

    /// All redirections with their command.
    pub fn redirects(&self) -> impl Iterator<Item = (&SimpleCommand, &Redirect)> {
        self.commands
            .iter()
            .flat_map(|c| c.redirects.iter().map(move |r| (c, r)))
    }

    /// Is any command's program unknown, or the analysis dynamic/truncated?
    pub fn has_unknown(&self) -> bool {
        self.dynamic
            || self.truncated
            || self
                .commands
                .iter()
                .any(|c| c.dynamic_program || c.nested_dynamic)
    }
}

/// Global options taking a value, per program, skipped by [`SimpleCommand::subcommand`].
fn global_value_opts(program: &str) -> &'static [&'static str] {
    match program {
        "git" => &[
            "-C",
            "-c",
            "--git-dir",
            "--work-tree",
            "--namespace",
            "--exec-path",
            "--config-env",
        ],
        "kubectl" | "oc" => &[
            "-n",
            "--namespace",
            "--context",
            "--cluster",
            "--kubeconfig",
            "-s",
            "--server",
            "--user",
            "--token",
            "-l",
        ],
        "helm" => &["-n", "--namespace", "--kube-context", "--kubeconfig"],
        // with `compose`'s own (`docker compose -f prod.yml down -v` → `compose`, `down`)
        "docker" | "podman" | "docker-compose" | "podman-compose" => &[
            "-H",
            "--host",
            "-c",
            "--context",
            "--config",
            "-l",
            "--log-level",
            "-f",
            "--file",
            "-p",
            "--project-name",
            "--env-file",
            "--profile",
            "--project-directory",
        ],
        "aws" => &[
            "--profile",
            "--region",
            "--output",
            "--endpoint-url",
            "--query",
        ],
        "gcloud" => &["--project", "--account", "--configuration", "--format"],
        "npm" | "pnpm" | "yarn" => &["--prefix", "-w", "--workspace"],
        "cargo" => &["-C", "--manifest-path", "-Z", "--config"],
        "systemctl" | "journalctl" => &["-H", "--host", "-M", "--machine"],
        "apt" | "apt-get" => &["-o", "-t", "-c"],
        _ => &[],
    }
}

impl SimpleCommand {
    /// Arguments before a literal `--`.
    fn opt_args(&self) -> impl Iterator<Item = &Arg> {
        self.args.iter().take_while(|a| a.text != "--" || a.dynamic)
    }

    /// Is short option `c` present (alone or bundled: `-rf` has `r` and `f`)?
    pub fn has_short(&self, c: char) -> bool {
        self.opt_args().any(|a| {
            let t = a.text.as_str();
            let b = t.as_bytes();
            b.len() > 1
                && b[0] == b'-'
                && b[1] != b'-'
                && if c.is_ascii() {
                    b[1..].contains(&(c as u8))
                } else {
                    t[1..].contains(c)
                }
        })
    }

    /// Is long option `--name` (or `--name=value`) present? `name` is given without dashes.
    pub fn has_long(&self, name: &str) -> bool {
        self.opt_args().any(|a| {
            a.text.strip_prefix("--").is_some_and(|l| {
                l == name || (l.starts_with(name) && l.as_bytes().get(name.len()) == Some(&b'='))
            })
        })
    }

    /// Value of a long option `--name=value` or `--name value`.
    pub fn long_value(&self, name: &str) -> Option<&str> {
        let mut it = self.opt_args();
        while let Some(a) = it.next() {
            if let Some(l) = a.text.strip_prefix("--") {
                if l == name {
                    return it.next().map(|a| a.text.as_str());
                }
                if l.starts_with(name) && l.as_bytes().get(name.len()) == Some(&b'=') {
                    return Some(&l[name.len() + 1..]);
                }
            }
        }
        None
    }

    /// Any of the aliases present? `--x` is a long option, `-x` a short
    /// (bundling-aware) one, a longer single-dash alias (`-delete`,
    /// `-auto-approve`) must equal an argument, and an alias not starting
    /// with `-` (`+`, `:`) is a prefix of some positional (`git push origin +main`).
    pub fn has_flag(&self, aliases: &[&str]) -> bool {
        aliases.iter().any(|al| {
            if let Some(l) = al.strip_prefix("--") {
                self.has_long(l)
            } else if let Some(s) = al.strip_prefix('-') {
                let mut ch = s.chars();
                match (ch.next(), ch.next()) {
                    (Some(c), None) => self.has_short(c),
                    _ => self.opt_args().any(|a| a.text == *al),
                }
            } else {
                self.positionals()
                    .any(|a| a.text.starts_with(al) && a.text.len() > al.len())
            }
        })
    }

    /// Named flag, resolved with [`flag_aliases`]; unknown names fall back to
    /// `--name` (and `-n` for one-letter names).
    pub fn flag(&self, name: &str) -> bool {
        let al = flag_aliases(&self.program, name);
        if !al.is_empty() {
            return self.has_flag(al);
        }
        let mut ch = name.chars();
        match (ch.next(), ch.next()) {
            (Some(c), None) => self.has_short(c),
            _ => self.has_long(name),
        }
    }

    /// First positional argument, skipping the program's global options that
    /// take a value (`git -C dir push` → `push`, `kubectl -n x delete` → `delete`).
    pub fn subcommand(&self) -> Option<&str> {
        self.subcommands().next()
    }

    /// Positionals from the subcommand on (`aws s3 rm s3://b --recursive` → `s3`, `rm`, `s3://b`),
    /// with the global value-taking options skipped.
    pub fn subcommands(&self) -> impl Iterator<Item = &str> {
        let vopts = global_value_opts(&self.program);
        let mut skip_next = false;
        let mut after_dd = false;
        self.args.iter().filter_map(move |a| {
            let t = a.text.as_str();
            if skip_next {
                skip_next = false;
                return None;
            }
            if after_dd {
                return Some(t);
            }
            if t == "--" {
                after_dd = true;
                return None;
            }
            if t.starts_with('-') && t.len() > 1 {
                if vopts.contains(&t) {
                    skip_next = true;
                }
                return None;
            }
            Some(t)
        })
    }

    /// Arguments that are not options: not starting with `-` (a lone `-` counts),
    /// and everything after `--`.
    pub fn positionals(&self) -> impl Iterator<Item = &Arg> {
        let mut after = false;
        self.args.iter().filter(move |a| {
            if after {
                return true;
            }
            if a.text == "--" && !a.dynamic {
                after = true;
                return false;
            }
            !(a.text.starts_with('-') && a.text.len() > 1)
        })
    }

    /// Normalised paths of all arguments that have one (positionals, and
    /// option values such as `--post-file=/etc/shadow`, `-d @~/.ssh/id_rsa`, `of=/dev/sda`).
    pub fn paths(&self) -> impl Iterator<Item = &str> {
        self.args.iter().filter_map(|a| a.path.as_deref())
    }

    /// Does any argument contain unknown parts?
    pub fn has_dynamic_args(&self) -> bool {
        self.args.iter().any(|a| a.dynamic)
    }

    /// Was this command reached through wrapper/host `name` (`"sudo"`, `"bash -c"`, `"xargs"`)?
    pub fn via_has(&self, name: &str) -> bool {
        self.via
            .iter()
            .any(|v| v == name || v.split(' ').next() == Some(name))
    }
}

/// Option spellings of a named flag for a program (empty if unknown).
///
/// ```text
/// rm recursive → -r -R --recursive     force → -f --force
/// git force    → -f --force --force-with-lease --force-if-includes +   (+refspec)
/// git delete   → -d -D --delete :      (git push origin :branch)
/// chmod/chown/chgrp recursive → -R --recursive
/// ```
pub fn flag_aliases(program: &str, name: &str) -> &'static [&'static str] {
    match (program, name) {
        ("rm" | "cp" | "scp" | "rsync" | "grep" | "rg" | "ls", "recursive") => {
            &["-r", "-R", "--recursive"]
        }
        ("rm" | "cp" | "mv" | "ln", "force") => &["-f", "--force"],
        ("rm", "interactive") => &["-i", "-I", "--interactive"],
        ("rm", "dir") => &["-d", "--dir"],
        ("rm", "no-preserve-root") => &["--no-preserve-root"],
        ("cp", "archive") => &["-a", "--archive"],
        ("chmod" | "chown" | "chgrp" | "setfacl", "recursive") => &["-R", "--recursive"],
        ("git", "force") => &[
            "-f",
            "--force",
            "--force-with-lease",
            "--force-if-includes",
            "+",
        ],
        ("git", "delete") => &["-d", "-D", "--delete", ":"],
        ("git", "force-delete") => &["-D"],
        ("git", "hard") => &["--hard"],
        ("git", "all") => &["--all", "-a"],
        ("git", "mirror") => &["--mirror"],
        ("git", "prune") => &["--prune", "-p"],
        ("find", "delete") => &["-delete"],
        ("find", "exec") => &["-exec", "-execdir", "-ok", "-okdir"],
        ("kubectl" | "oc", "all") => &["--all", "-A", "--all-namespaces"],
        ("kubectl" | "oc" | "helm", "force") => &["--force"],
        ("terraform" | "tofu", "auto-approve") => &["-auto-approve", "--auto-approve"],
        ("terraform" | "tofu", "destroy") => &["-destroy", "--destroy"],
        ("aws", "recursive") => &["--recursive"],
        ("aws", "force") => &["--force"],
        ("docker" | "podman", "all") => &["-a", "--all"],
        ("docker" | "podman", "volumes") => &["--volumes"],
        ("docker" | "podman", "force") => &["-f", "--force"],
        ("shred", "remove") => &["-u", "--remove"],
        ("shred", "zero") => &["-z", "--zero"],
        ("curl", "data") => &[
            "-d",
            "--data",
            "--data-binary",
            "--data-raw",
            "--data-urlencode",
            "--data-ascii",
            "-F",
            "--form",
            "-T",
            "--upload-file",
            "--json",
        ],
        ("wget", "post") => &["--post-file", "--post-data", "--body-file", "--body-data"],
        ("sed", "in-place") => &["-i", "--in-place"],
        ("crontab", "remove") => &["-r"],
        ("iptables" | "ip6tables", "flush") => &["-F", "--flush"],
        (_, "recursive") => &["-r", "-R", "--recursive"],
        (_, "force") => &["-f", "--force"],
        _ => &[],
    }
}

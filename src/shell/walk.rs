//! AST walker: wrappers, nested scripts, cwd tracking, paths, feed edges.

use super::parse::{
    Budget, Conn, List, Node, Parser, Pipeline, RawRedir, Simple, SubKind, Word, SUB_MARKER,
};
use super::path::{arg_path, normalize};
use super::{
    Analysis, Arg, Options, RedirOp, Redirect, SimpleCommand, MAX_COMMANDS, MAX_DEPTH, MAX_FEEDS,
    MAX_INPUT, MAX_PARSE_BYTES, MAX_WORDS,
};

pub(crate) fn run(command: &str, opts: &Options) -> Analysis {
    let mut w = Walker {
        out: Analysis::default(),
        home: opts.home,
        max_depth: opts.max_depth.min(MAX_DEPTH),
        budget: Budget {
            words: MAX_WORDS,
            bytes: MAX_PARSE_BYTES,
        },
    };
    let mut src = command;
    if src.len() > MAX_INPUT {
        let mut cut = MAX_INPUT;
        while !src.is_char_boundary(cut) {
            cut -= 1;
        }
        src = &src[..cut];
        w.out.truncated = true;
    }
    let mut ctx = Ctx {
        depth: 0,
        cwd: opts.cwd.and_then(|c| normalize(c, None, opts.home)),
        via: Vec::new(),
    };
    w.script(src, &mut ctx);
    if w.out.truncated {
        w.out.dynamic = true;
    }
    w.out
}

struct Walker<'o> {
    out: Analysis,
    home: Option<&'o str>,
    max_depth: usize,
    budget: Budget,
}

#[derive(Clone)]
struct Ctx {
    depth: u8,
    cwd: Option<String>,
    via: Vec<String>,
}

#[derive(Default)]
struct Io {
    heads: Ids,
    tails: Ids,
}

/// Small set of command indices; the single-element case does not allocate.
#[derive(Clone, PartialEq, Eq)]
struct Ids {
    one: usize,
    more: Vec<usize>,
}

impl Default for Ids {
    fn default() -> Self {
        Ids {
            one: usize::MAX,
            more: Vec::new(),
        }
    }
}

impl Ids {
    fn single(i: usize) -> Self {
        Ids {
            one: i,
            more: Vec::new(),
        }
    }
    fn is_empty(&self) -> bool {
        self.one == usize::MAX
    }
    fn len(&self) -> usize {
        if self.is_empty() {
            0
        } else {
            1 + self.more.len()
        }
    }
    fn push(&mut self, i: usize) {
        if self.is_empty() {
            self.one = i;
        } else {
            self.more.push(i);
        }
    }
    fn extend(&mut self, o: Ids) {
        for i in o.iter() {
            self.push(i);
        }
    }
    fn iter(&self) -> impl Iterator<Item = usize> + '_ {
        (!self.is_empty())
            .then_some(self.one)
            .into_iter()
            .chain(self.more.iter().copied())
    }
}

/// A word after its substitutions were walked.
struct AW {
    text: String,
    dynamic: bool,
    assign: bool,
}

/// Script text arriving on stdin (heredoc, here-string, `echo … |`).
struct Stdin {
    text: String,
    dynamic: bool,
}

trait Tx {
    fn tx(&self) -> (&str, bool);
}
impl Tx for AW {
    fn tx(&self) -> (&str, bool) {
        (&self.text, self.dynamic)
    }
}
impl Tx for Arg {
    fn tx(&self) -> (&str, bool) {
        (&self.text, self.dynamic)
    }
}

/// Skip options from `i`: `short_arg` letters and `long_arg` names take a value.
/// Returns the index of the first operand (after a `--`).
fn skip_opts<T: Tx>(v: &[T], mut i: usize, short_arg: &[u8], long_arg: &[&str]) -> usize {
    while i < v.len() {
        let (t, dy) = v[i].tx();
        if dy {
            return i;
        }
        if t == "--" {
            return i + 1;
        }
        if let Some(l) = t.strip_prefix("--") {
            i += if l.contains('=') || !long_arg.contains(&l) {
                1
            } else {
                2
            };
            continue;
        }
        if t.len() > 1 && t.starts_with('-') {
            let b = t.as_bytes();
            let mut adv = 1;
            for k in 1..b.len() {
                if short_arg.contains(&b[k]) {
                    if k + 1 == b.len() {
                        adv = 2;
                    }
                    break;
                }
            }
            i += adv;
            continue;
        }
        return i;
    }
    i
}

fn has_opt<T: Tx>(v: &[T], from: usize, letters: &[u8]) -> bool {
    v[from.min(v.len())..].iter().any(|a| {
        let t = a.tx().0;
        t.len() > 1
            && t.starts_with('-')
            && !t.starts_with("--")
            && t.bytes().skip(1).any(|b| letters.contains(&b))
    })
}

fn basename(t: &str) -> &str {
    match t.rfind('/') {
        Some(p) if p + 1 < t.len() => &t[p + 1..],
        _ => t,
    }
}

fn is_assign(t: &str) -> bool {
    let b = t.as_bytes();
    if b.is_empty() || !(b[0].is_ascii_alphabetic() || b[0] == b'_') {
        return false;
    }
    let n = b
        .iter()
        .take_while(|c| c.is_ascii_alphanumeric() || **c == b'_')
        .count();
    b.get(n) == Some(&b'=')
}

const SHELLS: &[&str] = &[
    "bash",
    "sh",
    "dash",
    "zsh",
    "ksh",
    "mksh",
    "ash",
    "fish",
    "rbash",
    "csh",
    "tcsh",
    "yash",
    "posh",
    "busybox-sh",
];

fn join<T: Tx>(v: &[T]) -> (String, bool) {
    let mut s = String::new();
    let mut dy = false;
    for (k, a) in v.iter().enumerate() {
        let (t, d) = a.tx();
        if k > 0 {
            s.push(' ');
        }
        s.push_str(t);
        dy |= d;
    }
    (s, dy)
}

enum Act {
    None,
    Cd(Option<String>),
    Script {
        text: String,
        dynamic: bool,
        label: String,
        remote: bool,
    },
    Stdin {
        label: String,
        remote: bool,
    },
    Exec(Vec<Vec<AW>>, &'static str),
}

impl Walker<'_> {
    fn edge(&mut self, a: usize, b: usize) {
        if a == b {
            return;
        }
        if self.out.feeds.len() >= MAX_FEEDS {
            self.out.truncated = true;
            return;
        }
        self.out.feeds.push((a, b));
    }

    fn script(&mut self, src: &str, ctx: &mut Ctx) -> Io {
        let (list, t, e) = {
            let mut p = Parser::new(src.as_bytes(), self.home, &mut self.budget);
            let l = p.parse();
            (l, p.truncated, p.error)
        };
        self.out.truncated |= t;
        self.out.syntax_error |= e;
        self.list(list, ctx)
    }

    fn list(&mut self, list: List, ctx: &mut Ctx) -> Io {
        let mut io = Io::default();
        let mut restore: Option<Option<String>> = None;
        for (p, conn) in list.items {
            if let Some(c) = restore.take() {
                ctx.cwd = c;
            }
            if conn == Conn::Or {
                restore = Some(ctx.cwd.clone());
            }
            let pio = if conn == Conn::Bg {
                let mut c2 = ctx.clone();
                self.pipeline(p, &mut c2)
            } else {
                self.pipeline(p, ctx)
            };
            if io.heads.is_empty() && io.tails.is_empty() {
                io = pio;
            } else {
                io.heads.extend(pio.heads);
                io.tails.extend(pio.tails);
            }
        }
        io
    }

    fn pipeline(&mut self, mut p: Pipeline, ctx: &mut Ctx) -> Io {
        if p.cmds.len() == 1 {
            let n = p.cmds.pop().unwrap_or(Node::Words(Vec::new()));
            return self.node(n, ctx, None);
        }
        let mut io = Io::default();
        let mut prev = Ids::default();
        let mut stdin: Option<Stdin> = None;
        for (k, n) in p.cmds.into_iter().enumerate() {
            let mut c2 = ctx.clone();
            let nio = self.node(n, &mut c2, stdin.take());
            for t in prev.iter() {
                for h in nio.heads.iter() {
                    self.edge(t, h);
                }
            }
            if k == 0 {
                io.heads = nio.heads.clone();
            }
            stdin = self.literal_output(&nio);
            prev = nio.tails;
        }
        io.tails = prev;
        io
    }

    /// Static output of a lone `echo`/`printf` (for `echo 'rm -rf /' | sh`).
    fn literal_output(&self, io: &Io) -> Option<Stdin> {
        if io.tails.len() != 1 || io.heads != io.tails {
            return None;
        }
        let c = self.out.commands.get(io.tails.one)?;
        if !(c.program == "echo" || c.program == "printf")
            || c.dynamic_program
            || !c.redirects.is_empty()
        {
            return None;
        }
        let args: Vec<&Arg> = c
            .args
            .iter()
            .skip_while(|a| {
                c.program == "echo" && matches!(a.text.as_str(), "-n" | "-e" | "-E" | "-ne" | "-en")
            })
            .collect();
        let mut text = String::new();
        let mut dynamic = false;
        for (k, a) in args.iter().enumerate() {
            if k > 0 {
                text.push(' ');
            }
            text.push_str(&a.text);
            dynamic |= a.dynamic;
        }
        Some(Stdin { text, dynamic })
    }

    fn node(&mut self, n: Node, ctx: &mut Ctx, stdin: Option<Stdin>) -> Io {
        match n {
            Node::Simple(s) => self.simple(s, ctx, stdin),
            Node::Group {
                list,
                subshell,
                redirs,
            } => {
                let start = self.out.commands.len();
                let io = if subshell {
                    let mut c2 = ctx.clone();
                    self.list(list, &mut c2)
                } else {
                    self.list(list, ctx)
                };
                if !redirs.is_empty() {
                    let mut feeders = Vec::new();
                    let mut fed = Vec::new();
                    let (rs, _) = self.redirects(redirs, ctx, &mut feeders, &mut fed);
                    let end = self.out.commands.len();
                    for i in start..end.min(start + MAX_COMMANDS) {
                        if i < self.out.commands.len() {
                            self.out.commands[i].redirects.extend(rs.iter().cloned());
                        }
                    }
                    for &f in &feeders {
                        for h in io.heads.iter() {
                            self.edge(f, h);
                        }
                    }
                    for t in io.tails.iter() {
                        for &f in &fed {
                            self.edge(t, f);
                        }
                    }
                }
                io
            }
            Node::Words(ws) => {
                let mut feeders = Vec::new();
                let mut fed = Vec::new();
                for w in ws {
                    self.word(w, ctx, &mut feeders, &mut fed);
                }
                Io::default()
            }
        }
    }

    /// Walk a word's substitutions; fold `$(echo x)` into the text.
    fn word(&mut self, w: Word, ctx: &Ctx, feeders: &mut Vec<usize>, fed: &mut Vec<usize>) -> AW {
        let Word {
            mut text,
            dynamic,
            assign,
            subs,
            ..
        } = w;
        if subs.is_empty() {
            return AW {
                text,
                dynamic,
                assign,
            };
        }
        let mut folds: Vec<(usize, Option<String>)> = Vec::new();
        for sub in subs {
            let start = self.out.commands.len();
            let mut c2 = ctx.clone();
            let io = self.list(sub.list, &mut c2);
            match sub.kind {
                SubKind::Cmd => {
                    let f = if sub.at != usize::MAX && self.out.commands.len() == start + 1 {
                        self.literal_output(&io)
                            .filter(|s| !s.dynamic)
                            .map(|s| s.text)
                    } else {
                        None
                    };
                    folds.push((sub.at, f));
                    feeders.extend(io.tails.iter());
                }
                SubKind::In => feeders.extend(io.tails.iter()),
                SubKind::Out => fed.extend(io.heads.iter()),
            }
        }
        if !dynamic && !folds.is_empty() && folds.iter().all(|f| f.1.is_some()) {
            for (at, f) in folds.into_iter().rev() {
                let end = at + SUB_MARKER.len();
                match f {
                    Some(f)
                        if end <= text.len()
                            && text.is_char_boundary(at)
                            && text.is_char_boundary(end) =>
                    {
                        text.replace_range(at..end, f.trim_end_matches('\n'));
                    }
                    _ => {}
                }
            }
        }
        AW {
            text,
            dynamic: true,
            assign,
        }
    }

    fn redirects(
        &mut self,
        raws: Vec<RawRedir>,
        ctx: &Ctx,
        feeders: &mut Vec<usize>,
        fed: &mut Vec<usize>,
    ) -> (Vec<Redirect>, Option<Stdin>) {
        let mut out = Vec::with_capacity(raws.len());
        let mut stdin = None;
        for r in raws {
            let mut tf = Vec::new();
            let mut tfed = Vec::new();
            let target = self.word(r.target, ctx, &mut tf, &mut tfed);
            // `< <(cmd)` feeds the command; `> >(cmd)` is fed by it
            let procsub = target.text == "/dev/fd/63";
            if procsub {
                feeders.append(&mut tf);
                fed.append(&mut tfed);
            }
            let path = match r.op {
                RedirOp::HereDoc | RedirOp::HereDocStrip | RedirOp::HereString => None,
                RedirOp::DupOut | RedirOp::DupIn => None,
                _ if target.dynamic && !procsub => None,
                _ => normalize(&target.text, ctx.cwd.as_deref(), self.home),
            };
            match r.op {
                RedirOp::HereString => {
                    stdin = Some(Stdin {
                        text: target.text.clone(),
                        dynamic: target.dynamic,
                    });
                    feeders.append(&mut tf);
                }
                RedirOp::HereDoc | RedirOp::HereDocStrip => {
                    if let Some(b) = r.body {
                        let bw = self.word(b, ctx, feeders, fed);
                        stdin = Some(Stdin {
                            text: bw.text,
                            dynamic: bw.dynamic,
                        });
                    }
                }
                _ => {}
            }
            out.push(Redirect {
                fd: r.fd,
                op: r.op,
                target: target.text,
                path,
                dynamic: target.dynamic && !procsub,
            });
        }
        (out, stdin)
    }

    fn simple(&mut self, s: Simple, ctx: &mut Ctx, piped: Option<Stdin>) -> Io {
        let mut feeders = Vec::new();
        let mut fed = Vec::new();
        let mut argv: Vec<AW> = Vec::with_capacity(s.words.len());
        for w in s.words {
            let a = self.word(w, ctx, &mut feeders, &mut fed);
            argv.push(a);
        }
        let (redirects, here) = self.redirects(s.redirs, ctx, &mut feeders, &mut fed);
        let first = argv.iter().position(|a| !a.assign).unwrap_or(argv.len());
        if first >= argv.len() {
            if redirects.is_empty() || self.out.commands.len() >= MAX_COMMANDS {
                return Io::default();
            }
            // redirection-only command (`> /etc/hosts` truncates the file)
            let idx = self.out.commands.len();
            self.out.commands.push(SimpleCommand {
                program: String::new(),
                args: Vec::new(),
                redirects,
                dynamic_program: false,
                nested_dynamic: false,
                depth: ctx.depth,
                cwd: ctx.cwd.clone(),
                via: ctx.via.clone(),
            });
            for f in feeders {
                self.edge(f, idx);
            }
            return Io {
                heads: Ids::single(idx),
                tails: Ids::single(idx),
            };
        }
        let stdin = here.or(piped);
        let Some(idx) = self.emit(argv, first, redirects, ctx, stdin, None) else {
            return Io::default();
        };
        for f in feeders {
            self.edge(f, idx);
        }
        for f in fed {
            self.edge(idx, f);
        }
        Io {
            heads: Ids::single(idx),
            tails: Ids::single(idx),
        }
    }

    /// Strip wrappers starting at `argv[i]`; returns the real command index and
    /// pushes wrapper names on `via`.
    fn strip(
        &self,
        argv: &[AW],
        mut i: usize,
        via: &mut Vec<String>,
        cwd: &mut Option<Option<String>>,
        xargs: &mut bool,
        ctx: &Ctx,
    ) -> usize {
        for _ in 0..32 {
            if i >= argv.len() || argv[i].dynamic {
                break;
            }
            let name = basename(&argv[i].text);
            let a = i + 1;
            let next = match name {
                "sudo" => {
                    if has_opt(argv, a, b"lvkKe")
                        && skip_opts(argv, a, b"ugpCDhrtTUR", &[]) >= argv.len()
                    {
                        None
                    } else {
                        let mut j = skip_opts(
                            argv,
                            a,
                            b"ugpCDhrtTUR",
                            &[
                                "user",
                                "group",
                                "prompt",
                                "close-from",
                                "chdir",
                                "host",
                                "role",
                                "type",
                                "command-timeout",
                                "other-user",
                                "chroot",
                            ],
                        );
                        while j < argv.len() && is_assign(&argv[j].text) {
                            j += 1;
                        }
                        Some(j)
                    }
                }
                "doas" | "run0" | "pkexec" => Some(skip_opts(argv, a, b"uC", &["user"])),
                "env" => {
                    let mut j = a;
                    let mut split = false;
                    while j < argv.len() && !argv[j].dynamic {
                        let t = argv[j].text.as_str();
                        match t {
                            "--" => {
                                j += 1;
                                break;
                            }
                            "-u" | "--unset" => j += 2,
                            "-C" | "--chdir" => {
                                if let Some(d) = argv.get(j + 1) {
                                    *cwd = Some(normalize(&d.text, ctx.cwd.as_deref(), self.home));
                                }
                                j += 2;
                            }
                            _ if t.starts_with("--chdir=") => {
                                *cwd = Some(normalize(&t[8..], ctx.cwd.as_deref(), self.home));
                                j += 1;
                            }
                            _ if t.starts_with("-S") || t.starts_with("--split-string") => {
                                split = true;
                                break;
                            }
                            _ if t.starts_with('-') || is_assign(t) => j += 1,
                            _ => break,
                        }
                    }
                    while j < argv.len() && is_assign(&argv[j].text) {
                        j += 1;
                    }
                    if split {
                        None
                    } else {
                        Some(j)
                    }
                }
                "nice" => Some(skip_opts(argv, a, b"n", &["adjustment"])),
                "nohup" | "builtin" | "unbuffer" | "setsid" | "busybox" | "toybox"
                | "caffeinate" | "catchsegv" => Some(skip_opts(argv, a, b"", &[])),
                "exec" => Some(skip_opts(argv, a, b"a", &[])),
                "command" => {
                    if has_opt(argv, a, b"vV") {
                        None
                    } else {
                        Some(skip_opts(argv, a, b"", &[]))
                    }
                }
                "time" => Some(skip_opts(argv, a, b"fo", &["format", "output"])),
                "timeout" => Some(skip_opts(argv, a, b"sk", &["signal", "kill-after"]) + 1),
                "stdbuf" => Some(skip_opts(argv, a, b"ioe", &["input", "output", "error"])),
                "ionice" => {
                    if has_opt(argv, a, b"pP") {
                        None
                    } else {
                        Some(skip_opts(argv, a, b"cn", &["class", "classdata"]))
                    }
                }
                "chrt" => {
                    if has_opt(argv, a, b"p") {
                        None
                    } else {
                        Some(
                            skip_opts(
                                argv,
                                a,
                                b"TPD",
                                &["sched-runtime", "sched-period", "sched-deadline"],
                            ) + 1,
                        )
                    }
                }
                "taskset" => {
                    if has_opt(argv, a, b"p") {
                        None
                    } else {
                        Some(skip_opts(argv, a, b"", &[]) + 1)
                    }
                }
                "chroot" => {
                    let j = skip_opts(argv, a, b"", &["userspec", "groups"]) + 1;
                    if j < argv.len() {
                        *cwd = Some(Some("/".to_string()));
                    }
                    Some(j)
                }
                "flock" => {
                    if has_opt(argv, a, b"c")
                        || argv[a.min(argv.len())..]
                            .iter()
                            .any(|x| x.text.starts_with("--command"))
                    {
                        None
                    } else {
                        Some(skip_opts(argv, a, b"wE", &["timeout", "conflict-exit-code"]) + 1)
                    }
                }
                "xargs" => {
                    let j = skip_opts(
                        argv,
                        a,
                        b"adEILnPs",
                        &[
                            "arg-file",
                            "delimiter",
                            "max-args",
                            "max-procs",
                            "max-chars",
                            "max-lines",
                            "process-slot-var",
                        ],
                    );
                    if j < argv.len() {
                        *xargs = true;
                    }
                    Some(j)
                }
                _ => None,
            };
            match next {
                Some(j) if j < argv.len() => {
                    via.push(name.to_string());
                    i = j;
                }
                _ => break,
            }
        }
        i
    }

    fn emit(
        &mut self,
        argv: Vec<AW>,
        i0: usize,
        redirects: Vec<Redirect>,
        ctx: &mut Ctx,
        stdin: Option<Stdin>,
        extra_via: Option<&str>,
    ) -> Option<usize> {
        let mut via = ctx.via.clone();
        if let Some(v) = extra_via {
            via.push(v.to_string());
        }
        let mut cwd_override: Option<Option<String>> = None;
        let mut xargs = false;
        let i = self.strip(&argv, i0, &mut via, &mut cwd_override, &mut xargs, ctx);
        if i >= argv.len() {
            return None;
        }
        if self.out.commands.len() >= MAX_COMMANDS {
            self.out.truncated = true;
            self.out.dynamic = true;
            return None;
        }
        let cwd = match cwd_override {
            Some(c) => c,
            None => ctx.cwd.clone(),
        };
        let mut it = argv.into_iter().skip(i);
        let pw = it.next()?;
        let dynamic_program = pw.dynamic;
        let program = match pw.text.rfind('/') {
            Some(p) if p + 1 < pw.text.len() => pw.text[p + 1..].to_string(),
            _ => pw.text,
        };
        let mut args = Vec::with_capacity(it.len() + xargs as usize);
        for a in it {
            let path = if a.dynamic {
                None
            } else {
                arg_path(&a.text, cwd.as_deref(), self.home)
            };
            args.push(Arg {
                text: a.text,
                path,
                dynamic: a.dynamic,
            });
        }
        if xargs {
            args.push(Arg {
                text: "…".to_string(),
                path: None,
                dynamic: true,
            });
        }
        if dynamic_program {
            self.out.dynamic = true;
        }
        let idx = self.out.commands.len();
        self.out.commands.push(SimpleCommand {
            program,
            args,
            redirects,
            dynamic_program,
            nested_dynamic: false,
            depth: ctx.depth,
            cwd,
            via,
        });
        self.special(idx, ctx, stdin);
        Some(idx)
    }

    fn special(&mut self, idx: usize, ctx: &mut Ctx, stdin: Option<Stdin>) {
        let act = {
            let c = &self.out.commands[idx];
            let args = &c.args[..];
            let p = c.program.as_str();
            if c.dynamic_program {
                Act::None
            } else if p == "cd" || p == "pushd" {
                let t = args
                    .iter()
                    .find(|a| !(a.text.starts_with('-') && a.text.len() > 1));
                Act::Cd(match t {
                    None => Some(self.home.unwrap_or("~").to_string()),
                    Some(a) if a.dynamic || a.text == "-" || a.text.contains(['*', '?', '[']) => {
                        None
                    }
                    Some(a) => normalize(&a.text, c.cwd.as_deref(), self.home),
                })
            } else if SHELLS.contains(&p) {
                let mut has_c = false;
                let mut stdin_mode = false;
                let mut k = 0;
                while k < args.len() {
                    let t = args[k].text.as_str();
                    if args[k].dynamic {
                        break;
                    }
                    if t == "--" || t == "-" {
                        k += 1;
                        break;
                    }
                    if t.starts_with("--") {
                        k += if t == "--rcfile" || t == "--init-file" {
                            2
                        } else {
                            1
                        };
                        continue;
                    }
                    if (t.starts_with('-') || t.starts_with('+')) && t.len() > 1 {
                        let b = &t[1..];
                        has_c |= b.contains('c');
                        stdin_mode |= b.contains('s');
                        k += 1;
                        if b.contains('o') || b.contains('O') {
                            k += 1;
                        }
                        continue;
                    }
                    break;
                }
                if has_c {
                    match args.get(k) {
                        Some(a) => Act::Script {
                            text: a.text.clone(),
                            dynamic: a.dynamic,
                            label: format!("{p} -c"),
                            remote: false,
                        },
                        None => Act::None,
                    }
                } else if stdin_mode || k >= args.len() {
                    Act::Stdin {
                        label: format!("{p} <<"),
                        remote: false,
                    }
                } else {
                    Act::None
                }
            } else {
                match p {
                    "eval" => {
                        let (text, dynamic) = join(args);
                        Act::Script {
                            text,
                            dynamic,
                            label: "eval".into(),
                            remote: false,
                        }
                    }
                    "su" => {
                        let mut found = None;
                        let mut k = 0;
                        while k < args.len() {
                            let t = args[k].text.as_str();
                            if t == "-c" || t == "--command" || t == "--session-command" {
                                found = args.get(k + 1);
                                break;
                            }
                            if t == "-s" || t == "--shell" || t == "-g" || t == "--group" {
                                k += 2;
                                continue;
                            }
                            if t.starts_with('-') && !t.starts_with("--") && t.ends_with('c') {
                                found = args.get(k + 1);
                                break;
                            }
                            k += 1;
                        }
                        match found {
                            Some(a) => Act::Script {
                                text: a.text.clone(),
                                dynamic: a.dynamic,
                                label: "su -c".into(),
                                remote: false,
                            },
                            None => Act::None,
                        }
                    }
                    "ssh" => {
                        let j = skip_opts(args, 0, b"BbcDEeFIiJLlmOoPpQRSWw", &[]);
                        if j + 1 < args.len() {
                            let (text, dynamic) = join(&args[j + 1..]);
                            Act::Script {
                                text,
                                dynamic,
                                label: "ssh".into(),
                                remote: true,
                            }
                        } else if j < args.len() {
                            Act::Stdin {
                                label: "ssh".into(),
                                remote: true,
                            }
                        } else {
                            Act::None
                        }
                    }
                    "watch" => {
                        let j = skip_opts(args, 0, b"nq", &["interval", "equexit"]);
                        let (text, dynamic) = join(&args[j.min(args.len())..]);
                        Act::Script {
                            text,
                            dynamic,
                            label: "watch".into(),
                            remote: false,
                        }
                    }
                    "parallel" => {
                        let j = skip_opts(
                            args,
                            0,
                            b"jSnNLPIadEC",
                            &[
                                "jobs",
                                "sshlogin",
                                "max-args",
                                "max-replace-args",
                                "max-lines",
                                "arg-file",
                                "delimiter",
                                "colsep",
                                "results",
                                "joblog",
                                "workdir",
                                "tmpdir",
                                "eof",
                                "timeout",
                                "retries",
                                "delay",
                                "memfree",
                                "load",
                            ],
                        );
                        let end = args
                            .iter()
                            .position(|a| a.text.starts_with(":::"))
                            .unwrap_or(args.len())
                            .max(j.min(args.len()));
                        let (text, dynamic) = join(&args[j.min(end)..end]);
                        if text.is_empty() {
                            Act::Script {
                                text,
                                dynamic: true,
                                label: "parallel".into(),
                                remote: false,
                            }
                        } else {
                            Act::Script {
                                text,
                                dynamic,
                                label: "parallel".into(),
                                remote: false,
                            }
                        }
                    }
                    "env" | "flock" => {
                        let mut found = None;
                        for (k, a) in args.iter().enumerate() {
                            let t = a.text.as_str();
                            let (short, long) = if p == "env" {
                                ("-S", "--split-string")
                            } else {
                                ("-c", "--command")
                            };
                            if t == short || t == long {
                                found = args.get(k + 1).map(|a| (a.text.clone(), a.dynamic));
                                break;
                            }
                            if let Some(v) = t.strip_prefix(long).and_then(|v| v.strip_prefix('='))
                            {
                                found = Some((v.to_string(), a.dynamic));
                                break;
                            }
                            if t.len() > 2 && t.starts_with(short) {
                                found = Some((t[2..].to_string(), a.dynamic));
                                break;
                            }
                        }
                        match found {
                            Some((text, dynamic)) => Act::Script {
                                text,
                                dynamic,
                                label: format!("{p} {}", if p == "env" { "-S" } else { "-c" }),
                                remote: false,
                            },
                            None => Act::None,
                        }
                    }
                    "find" => {
                        let mut v = Vec::new();
                        let mut k = 0;
                        while k < args.len() {
                            if matches!(
                                args[k].text.as_str(),
                                "-exec" | "-execdir" | "-ok" | "-okdir"
                            ) {
                                let mut seg = Vec::new();
                                k += 1;
                                while k < args.len()
                                    && !(args[k].text == ";" || args[k].text == "+")
                                {
                                    let a = &args[k];
                                    seg.push(AW {
                                        text: a.text.clone(),
                                        dynamic: a.dynamic || a.text.contains("{}"),
                                        assign: false,
                                    });
                                    k += 1;
                                }
                                if !seg.is_empty() {
                                    v.push(seg);
                                }
                            }
                            k += 1;
                        }
                        if v.is_empty() {
                            Act::None
                        } else {
                            Act::Exec(v, "find -exec")
                        }
                    }
                    "kubectl" | "oc" if c.subcommand() == Some("exec") => {
                        match args.iter().position(|a| a.text == "--" && !a.dynamic) {
                            Some(k) if k + 1 < args.len() => Act::Exec(
                                vec![args[k + 1..]
                                    .iter()
                                    .map(|a| AW {
                                        text: a.text.clone(),
                                        dynamic: a.dynamic,
                                        assign: false,
                                    })
                                    .collect()],
                                "kubectl exec",
                            ),
                            _ => Act::None,
                        }
                    }
                    "docker" | "podman" if c.subcommand() == Some("exec") => {
                        let e = args.iter().position(|a| a.text == "exec").unwrap_or(0);
                        let j = skip_opts(
                            args,
                            e + 1,
                            b"euw",
                            &["env", "user", "workdir", "env-file", "detach-keys"],
                        ) + 1;
                        if j < args.len() {
                            Act::Exec(
                                vec![args[j..]
                                    .iter()
                                    .map(|a| AW {
                                        text: a.text.clone(),
                                        dynamic: a.dynamic,
                                        assign: false,
                                    })
                                    .collect()],
                                "docker exec",
                            )
                        } else {
                            Act::None
                        }
                    }
                    _ => Act::None,
                }
            }
        };
        match act {
            Act::None => {}
            Act::Cd(c) => ctx.cwd = c,
            Act::Script {
                text,
                dynamic,
                label,
                remote,
            } => {
                if dynamic {
                    self.out.commands[idx].nested_dynamic = true;
                    self.out.dynamic = true;
                }
                if !text.contains(SUB_MARKER) && !text.is_empty() {
                    self.nested(idx, &text, ctx, label, remote);
                }
            }
            Act::Stdin { label, remote } => {
                if let Some(s) = stdin {
                    if s.dynamic {
                        self.out.commands[idx].nested_dynamic = true;
                        self.out.dynamic = true;
                    }
                    if !s.text.contains(SUB_MARKER) {
                        self.nested(idx, &s.text, ctx, label, remote);
                    }
                }
            }
            Act::Exec(segs, label) => {
                if ctx.depth as usize + 1 > self.max_depth {
                    self.out.truncated = true;
                    self.out.dynamic = true;
                    return;
                }
                let mut c2 = Ctx {
                    depth: ctx.depth + 1,
                    cwd: self.out.commands[idx].cwd.clone(),
                    via: self.out.commands[idx].via.clone(),
                };
                for seg in segs {
                    let remote = label != "find -exec";
                    if remote {
                        c2.cwd = None;
                    }
                    self.emit(seg, 0, Vec::new(), &mut c2, None, Some(label));
                }
            }
        }
    }

    fn nested(&mut self, host: usize, text: &str, ctx: &Ctx, label: String, remote: bool) {
        if ctx.depth as usize + 1 > self.max_depth {
            self.out.truncated = true;
            self.out.dynamic = true;
            return;
        }
        let h = &self.out.commands[host];
        let mut via = h.via.clone();
        via.push(label);
        let cwd = if remote {
            Some(self.home.unwrap_or("~").to_string())
        } else {
            h.cwd.clone()
        };
        let mut c2 = Ctx {
            depth: ctx.depth + 1,
            cwd,
            via,
        };
        let io = self.script(text, &mut c2);
        for hd in io.heads.iter() {
            self.edge(host, hd);
        }
    }
}

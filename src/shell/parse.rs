//! Lexer + recursive-descent parser: command string -> small owned AST.
//!
//! The AST owns its strings (no borrows) so nested parsers over temporary
//! buffers (backticks, `bash -c` strings) can feed the same walker. Every loop
//! either consumes input or stops; recursion is bounded by [`MAX_NEST`].
//!
//! Over 800 lines on purpose: one recursive-descent parser; the lexer and every
//! production share one cursor, nesting bound and budget, so they read as one file.

use super::RedirOp;

/// Maximum syntactic nesting of `( { $( <( `` ` `` per parse.
pub(crate) const MAX_NEST: usize = 32;

/// Marker inserted into a word's text where a command substitution stood.
pub(crate) const SUB_MARKER: &str = "$(…)";

/// Connector after a pipeline in a list.
#[derive(Clone, Copy, PartialEq, Eq, Debug)]
pub(crate) enum Conn {
    Seq,
    And,
    Or,
    Bg,
}

#[derive(Default, Debug, Clone)]
pub(crate) struct List {
    pub items: Vec<(Pipeline, Conn)>,
}

#[derive(Default, Debug, Clone)]
pub(crate) struct Pipeline {
    pub cmds: Vec<Node>,
}

#[derive(Debug, Clone)]
pub(crate) enum Node {
    Simple(Simple),
    /// `( list )` (subshell = true) or `{ list; }` / case bodies (false).
    Group {
        list: List,
        subshell: bool,
        redirs: Vec<RawRedir>,
    },
    /// Words evaluated only for their substitutions (`[[ … ]]`, a `case` subject).
    Words(Vec<Word>),
    /// `for NAME [in WORDS]; do BODY; done` (`select` too): `words` `None` iterates `"$@"`;
    /// `var` is `None` for `for (( … ))`. Its redirections apply to every command of the body.
    For {
        var: Option<String>,
        words: Option<Vec<Word>>,
        body: List,
        redirs: Vec<RawRedir>,
    },
    /// `while COND; do BODY; done` (`until` too). Its redirections (`done < <(ls)`) apply to
    /// every command of the loop; a `read` in `cond` takes the loop's input a line at a time.
    While {
        cond: List,
        body: List,
        redirs: Vec<RawRedir>,
    },
    /// A function definition `name() body`: `src` is the body's source text
    /// (walked when the function is called, with its arguments bound).
    Func {
        name: String,
        src: String,
    },
}

/// A parameter expansion whose value the walker may know (`$x`, `${x}`,
/// `${x:?}`, `$1`, `$@`): `len` bytes of the word text at `at` name it.
#[derive(Clone, Debug)]
pub(crate) struct VarRef {
    pub at: usize,
    pub len: usize,
    pub name: String,
    /// Inside double quotes (no word splitting).
    pub quoted: bool,
    /// `${X:off:len}`: the characters of the value taken (offset, length).
    pub slice: Option<(usize, Option<usize>)>,
    /// `${X%word}` / `${X#word}` with a literal word: the suffix (`true`) or prefix removed.
    pub trim: Option<(bool, String)>,
}

impl VarRef {
    /// What this expansion gives for the variable's value `val`: its slice, then its trim.
    pub fn value_of(&self, val: String) -> String {
        let mut val = match self.slice {
            Some((off, len)) => slice_chars(&val, off, len),
            None => val,
        };
        match &self.trim {
            Some((true, w)) if val.ends_with(w.as_str()) => val.truncate(val.len() - w.len()),
            Some((false, w)) if val.starts_with(w.as_str()) => drop(val.drain(..w.len())),
            _ => {}
        }
        val
    }
}

#[derive(Default, Debug, Clone)]
pub(crate) struct Simple {
    pub words: Vec<Word>,
    pub redirs: Vec<RawRedir>,
}

#[derive(Default, Debug, Clone)]
pub(crate) struct Word {
    /// Quote-removed, statically expanded text.
    pub text: String,
    /// Contains a variable/arith expansion that cannot be known statically.
    pub dynamic: bool,
    /// Any quoting/escaping present.
    pub quoted: bool,
    /// Unquoted `NAME=` prefix (an assignment in command-prefix position).
    pub assign: bool,
    /// Command / process substitutions, in order.
    pub subs: Vec<Sub>,
    /// Parameter expansions the walker may resolve (their text is kept as written).
    pub vars: Vec<VarRef>,
    /// Dynamic for a reason other than `vars` (arithmetic, `${x:-…}`, `$$`, …).
    pub dyn_other: bool,
    /// An unquoted `{` occurs (brace expansion candidate).
    pub brace: bool,
    /// An unquoted `*`, `?` or `[` occurs (pathname expansion candidate).
    pub glob: bool,
}

#[derive(Clone, Copy, PartialEq, Eq, Debug)]
pub(crate) enum SubKind {
    /// `$( … )` or backticks.
    Cmd,
    /// `<( … )`: its output is read by the command.
    In,
    /// `>( … )`: the command writes into it.
    Out,
}

#[derive(Debug, Clone)]
pub(crate) struct Sub {
    pub kind: SubKind,
    /// Inside double quotes (its output is not word-split).
    pub quoted: bool,
    /// Byte offset of [`SUB_MARKER`] in the word text (Cmd only).
    pub at: usize,
    pub list: List,
}

#[derive(Debug, Clone)]
pub(crate) struct RawRedir {
    pub fd: Option<u32>,
    pub op: RedirOp,
    pub target: Word,
    /// Heredoc body (expanded like a double-quoted string unless the delimiter was quoted).
    pub body: Option<Word>,
}

/// Shared parse budget (across nested parses of one analysis).
pub(crate) struct Budget {
    pub words: usize,
    pub bytes: usize,
}

impl Budget {
    /// Take `n` words; `false` (and nothing left) when fewer remain.
    pub(crate) fn take_words(&mut self, n: usize) -> bool {
        if n > self.words {
            self.words = 0;
            return false;
        }
        self.words -= n;
        true
    }
}

pub(crate) struct Parser<'s, 'b> {
    s: &'s [u8],
    pos: usize,
    nest: usize,
    pub truncated: bool,
    pub error: bool,
    hd_nl: usize,
    hd_resume: usize,
    home: Option<&'b str>,
    budget: &'b mut Budget,
}

#[derive(Clone, Copy, PartialEq, Eq)]
enum End {
    Eof,
    Paren,
    Brace,
    Case,
    /// a `while` / `until` condition, ended by `do`
    Do,
    /// a loop's body, ended by `done`
    Done,
}

const NONE: usize = usize::MAX;

#[inline]
fn is_meta(c: u8) -> bool {
    matches!(
        c,
        b' ' | b'\t' | b'\n' | b'\r' | b';' | b'&' | b'|' | b'(' | b')' | b'<' | b'>'
    )
}

/// The characters `off..off + len` of `s` (`${X:off:len}`: characters, as bash counts them).
pub(crate) fn slice_chars(s: &str, off: usize, len: Option<usize>) -> String {
    s.chars()
        .skip(off)
        .take(len.unwrap_or(usize::MAX))
        .collect()
}

/// `:OFFSET}` or `:OFFSET:LENGTH}` after a parameter's name (`${HOME:0:1}`, `${HOME::1}`),
/// with plain decimal numbers (an empty offset is 0; anything bash would compute — `010`,
/// `1-1`, `$n`, a negative length — is left unknown): the offset, the length if given,
/// and the bytes up to and including `}`.
fn substring_op(rest: &[u8]) -> Option<(usize, Option<usize>, usize)> {
    let body = rest.strip_prefix(b":")?;
    let end = body.iter().position(|&c| c == b'}')?;
    let text = std::str::from_utf8(&body[..end]).ok()?;
    let (off, len) = match text.split_once(':') {
        Some((o, l)) => (o.trim(), Some(l.trim())),
        None => (text.trim(), None),
    };
    let number = |t: &str| {
        let plain = t.bytes().all(|c| c.is_ascii_digit()) && (t == "0" || !t.starts_with('0'));
        plain.then(|| t.parse::<usize>().ok()).flatten()
    };
    let off = if off.is_empty() { 0 } else { number(off)? };
    let len = match len {
        Some(l) => Some(number(l)?),
        None => None,
    };
    Some((off, len, end + 2))
}

#[inline]
fn is_name_start(c: u8) -> bool {
    c.is_ascii_alphabetic() || c == b'_'
}

#[inline]
fn is_name(c: u8) -> bool {
    c.is_ascii_alphanumeric() || c == b'_'
}

/// Is `s` a shell variable's name (`_a1`, not `1a` or `a-b`)?
pub(crate) fn is_var_name(s: &str) -> bool {
    s.bytes().next().is_some_and(is_name_start) && s.bytes().all(is_name)
}

fn bytes_to_string(v: Vec<u8>) -> String {
    match String::from_utf8(v) {
        Ok(s) => s,
        Err(e) => String::from_utf8_lossy(e.as_bytes()).into_owned(),
    }
}

#[derive(Default)]
struct WB {
    buf: Vec<u8>,
    dynamic: bool,
    quoted: bool,
    subs: Vec<Sub>,
    vars: Vec<VarRef>,
    brace: bool,
    glob: bool,
}

impl WB {
    fn into_word(self, quoted: bool, assign: bool) -> Word {
        Word {
            text: bytes_to_string(self.buf),
            dynamic: self.dynamic || !self.vars.is_empty(),
            quoted,
            assign,
            subs: self.subs,
            vars: self.vars,
            dyn_other: self.dynamic,
            brace: self.brace,
            glob: self.glob,
        }
    }
}

impl<'s, 'b> Parser<'s, 'b> {
    pub(crate) fn new(s: &'s [u8], home: Option<&'b str>, budget: &'b mut Budget) -> Self {
        let truncated = if budget.bytes < s.len() {
            budget.bytes = 0;
            true
        } else {
            budget.bytes -= s.len();
            false
        };
        let s = if truncated { &s[..0] } else { s };
        Parser {
            s,
            pos: 0,
            nest: 0,
            truncated,
            error: false,
            hd_nl: NONE,
            hd_resume: 0,
            home,
            budget,
        }
    }

    /// Parse the whole input as a list.
    pub(crate) fn parse(&mut self) -> List {
        let l = self.list(End::Eof);
        // stray closers at top level are skipped inside list(); anything left is an error
        if self.pos < self.s.len() && !self.truncated {
            self.error = true;
        }
        l
    }

    #[inline]
    fn peek(&self) -> Option<u8> {
        self.s.get(self.pos).copied()
    }
    #[inline]
    fn peek_at(&self, k: usize) -> Option<u8> {
        self.s.get(self.pos + k).copied()
    }

    fn stop(&mut self) {
        self.truncated = true;
        self.pos = self.s.len();
    }

    /// Consume a newline, jumping over pending heredoc bodies.
    fn newline(&mut self) {
        if self.pos == self.hd_nl {
            self.pos = self.hd_resume.max(self.pos + 1);
            self.hd_nl = NONE;
        } else {
            self.pos += 1;
        }
    }

    /// Skip blanks, line continuations and comments (not newlines).
    fn blanks(&mut self) {
        while let Some(c) = self.peek() {
            match c {
                b' ' | b'\t' | b'\r' => self.pos += 1,
                b'\\' if self.peek_at(1) == Some(b'\n') => self.pos += 2,
                b'#' => {
                    while let Some(c) = self.peek() {
                        if c == b'\n' {
                            break;
                        }
                        self.pos += 1;
                    }
                }
                _ => break,
            }
        }
    }

    fn blanks_nl(&mut self) {
        loop {
            self.blanks();
            if self.peek() == Some(b'\n') {
                self.newline();
            } else {
                break;
            }
        }
    }

    /// Is the reserved word `w` at the cursor (followed by a delimiter)?
    fn at_word(&self, w: &str) -> bool {
        let w = w.as_bytes();
        self.s[self.pos..].starts_with(w)
            && self.s.get(self.pos + w.len()).is_none_or(|&c| is_meta(c))
    }

    fn at_end(&self, end: End) -> bool {
        match end {
            End::Eof => false,
            End::Paren => self.peek() == Some(b')'),
            End::Brace => self.at_word("}"),
            End::Do => self.at_word("do"),
            End::Done => self.at_word("done"),
            End::Case => {
                self.s[self.pos..].starts_with(b";;")
                    || self.s[self.pos..].starts_with(b";&")
                    || self.at_word("esac")
            }
        }
    }

    fn enter(&mut self) -> bool {
        self.nest += 1;
        if self.nest > MAX_NEST {
            self.stop();
            return false;
        }
        true
    }

    fn list(&mut self, end: End) -> List {
        let mut list = List::default();
        loop {
            self.blanks_nl();
            if self.pos >= self.s.len() {
                if end != End::Eof {
                    self.error = true;
                }
                break;
            }
            if self.at_end(end) {
                break;
            }
            let start = self.pos;
            let p = self.pipeline(end);
            self.blanks();
            let conn = match self.peek() {
                Some(b';')
                    if end == End::Case && matches!(self.peek_at(1), Some(b';') | Some(b'&')) =>
                {
                    Conn::Seq
                }
                Some(b';') => {
                    self.pos += 1;
                    if self.peek() == Some(b';') || self.peek() == Some(b'&') {
                        // `;;` outside case: syntax error, skip
                        self.pos += 1;
                        self.error = true;
                    }
                    Conn::Seq
                }
                Some(b'&') if self.peek_at(1) == Some(b'&') => {
                    self.pos += 2;
                    Conn::And
                }
                Some(b'&') => {
                    self.pos += 1;
                    Conn::Bg
                }
                Some(b'|') if self.peek_at(1) == Some(b'|') => {
                    self.pos += 2;
                    Conn::Or
                }
                Some(b'\n') => {
                    self.newline();
                    Conn::Seq
                }
                _ => Conn::Seq,
            };
            if !p.cmds.is_empty() {
                list.items.push((p, conn));
            }
            if self.pos == start {
                // no progress: stray `)` / `}` / operator at this level
                if end != End::Eof && self.at_end(end) {
                    break;
                }
                self.error = true;
                self.pos += 1;
            }
        }
        list
    }

    fn pipeline(&mut self, end: End) -> Pipeline {
        let mut p = Pipeline::default();
        loop {
            self.blanks();
            if self.at_end(end) {
                break;
            }
            if let Some(n) = self.command(end) {
                p.cmds.push(n);
            }
            self.blanks();
            if self.peek() == Some(b'|') && self.peek_at(1) != Some(b'|') {
                self.pos += 1;
                if self.peek() == Some(b'&') {
                    self.pos += 1;
                }
                self.blanks_nl();
                continue;
            }
            break;
        }
        p
    }

    fn group(&mut self, end_kind: End) -> List {
        if !self.enter() {
            return List::default();
        }
        let l = self.list(end_kind);
        self.nest -= 1;
        l
    }

    fn command(&mut self, end: End) -> Option<Node> {
        self.blanks();
        match self.peek()? {
            b'(' => {
                if self.peek_at(1) == Some(b'(') {
                    // arithmetic command (( … )): only its substitutions run
                    let mut w = WB::default();
                    self.pos += 2;
                    self.skip_arith(&mut w);
                    return (!w.subs.is_empty())
                        .then(|| Node::Words(vec![w.into_word(false, false)]));
                }
                self.pos += 1;
                let list = self.group(End::Paren);
                if self.peek() == Some(b')') {
                    self.pos += 1;
                } else {
                    self.error = true;
                }
                let redirs = self.trailing_redirs();
                return Some(Node::Group {
                    list,
                    subshell: true,
                    redirs,
                });
            }
            b'{' if self.at_word("{") => {
                self.pos += 1;
                let list = self.group(End::Brace);
                if self.at_word("}") {
                    self.pos += 1;
                } else {
                    self.error = true;
                }
                let redirs = self.trailing_redirs();
                return Some(Node::Group {
                    list,
                    subshell: false,
                    redirs,
                });
            }
            _ => {}
        }
        let mut sc = Simple::default();
        loop {
            self.blanks();
            let Some(c) = self.peek() else { break };
            if matches!(c, b';' | b'|' | b'\n' | b')') {
                break;
            }
            if c == b'&' && self.peek_at(1) != Some(b'>') {
                break;
            }
            if sc.words.is_empty() && end == End::Brace && self.at_word("}") {
                break;
            }
            if sc.words.is_empty() && end == End::Case && self.at_end(End::Case) {
                break;
            }
            if self.try_redirect(&mut sc.redirs) {
                continue;
            }
            if c == b'(' {
                // `name ( )` function definition, or a stray paren
                if sc.words.len() == 1 {
                    let save = self.pos;
                    self.pos += 1;
                    self.blanks();
                    if self.peek() == Some(b')') {
                        self.pos += 1;
                        self.blanks_nl();
                        let name = std::mem::take(&mut sc.words[0].text);
                        return self.func_body(name, end);
                    }
                    self.pos = save;
                }
                self.error = true;
                break;
            }
            let before = self.pos;
            let Some(w) = self.word() else { break };
            if self.pos == before {
                self.pos += 1;
                self.error = true;
                continue;
            }
            if sc.words.is_empty()
                && sc.redirs.is_empty()
                && !w.quoted
                && w.subs.is_empty()
                && !w.dynamic
            {
                match w.text.as_str() {
                    "!" | "if" | "then" | "elif" | "else" | "do" | "fi" | "done" | "esac" | "}" => {
                        continue
                    }
                    "for" | "select" => return Some(self.for_loop()),
                    "while" | "until" => return Some(self.while_loop()),
                    "case" => return Some(self.case()),
                    "[[" => return Some(Node::Words(self.test_words())),
                    "function" => {
                        self.blanks();
                        let name = self.word().map(|w| w.text).unwrap_or_default();
                        self.blanks();
                        if self.peek() == Some(b'(') {
                            self.pos += 1;
                            self.blanks();
                            if self.peek() == Some(b')') {
                                self.pos += 1;
                            }
                        }
                        self.blanks_nl();
                        return self.func_body(name, end);
                    }
                    _ => {}
                }
            }
            sc.words.push(w);
        }
        if sc.words.is_empty() && sc.redirs.is_empty() {
            None
        } else {
            Some(Node::Simple(sc))
        }
    }

    /// The body of a function definition, kept as source for the walker.
    fn func_body(&mut self, name: String, end: End) -> Option<Node> {
        let start = self.pos;
        let body = self.command(end);
        let stop = self.pos.min(self.s.len());
        body.map(|_| Node::Func {
            name,
            src: String::from_utf8_lossy(&self.s[start.min(stop)..stop]).into_owned(),
        })
    }

    /// `for NAME [in WORDS]` / `for (( … ))`, then the body (see [`Self::loop_body`]).
    fn for_loop(&mut self) -> Node {
        self.blanks();
        let (mut var, mut words) = (None, None);
        if self.s[self.pos..].starts_with(b"((") {
            self.pos += 2;
            let mut w = WB::default();
            self.skip_arith(&mut w);
            words = Some(vec![w.into_word(false, false)]);
        } else {
            let name = self.word().map(|w| w.text).unwrap_or_default();
            if !is_var_name(&name) {
                self.error = true;
            }
            var = Some(name);
            self.blanks_nl();
            if self.at_word("in") {
                self.pos += 2;
                words = Some(self.words_until_sep());
            }
        }
        self.blanks();
        if self.peek() == Some(b';') {
            self.pos += 1;
        }
        let (body, redirs) = self.loop_body();
        Node::For {
            var,
            words,
            body,
            redirs,
        }
    }

    /// `while COND` / `until COND`, then the body (see [`Self::loop_body`]).
    fn while_loop(&mut self) -> Node {
        let cond = self.group(End::Do);
        let (body, redirs) = self.loop_body();
        Node::While { cond, body, redirs }
    }

    /// A loop's `do LIST done` and the redirections after it.
    fn loop_body(&mut self) -> (List, Vec<RawRedir>) {
        self.blanks_nl();
        if self.at_word("do") {
            self.pos += 2;
        } else {
            self.error = true;
        }
        let body = self.group(End::Done);
        if self.at_word("done") {
            self.pos += 4;
        } else {
            self.error = true;
        }
        (body, self.trailing_redirs())
    }

    /// A `for` loop's words, up to the `;` or line break before `do`.
    fn words_until_sep(&mut self) -> Vec<Word> {
        let mut v = Vec::new();
        loop {
            self.blanks();
            match self.peek() {
                None | Some(b';') | Some(b'\n') | Some(b'&') | Some(b'|') | Some(b')') => break,
                // a process substitution `<(…)` / `>(…)` is a word; other operators are skipped
                Some(c @ (b'<' | b'>' | b'(')) if c == b'(' || self.peek_at(1) != Some(b'(') => {
                    self.pos += 1
                }
                _ => {
                    let before = self.pos;
                    match self.word() {
                        Some(w) => v.push(w),
                        None => break,
                    }
                    if self.pos == before {
                        self.pos += 1;
                    }
                }
            }
        }
        v
    }

    fn test_words(&mut self) -> Vec<Word> {
        let mut v = Vec::new();
        loop {
            self.blanks_nl();
            let Some(c) = self.peek() else {
                self.error = true;
                break;
            };
            if self.at_word("]]") {
                self.pos += 2;
                break;
            }
            if matches!(c, b'&' | b'|' | b'<' | b'>' | b'(' | b')' | b';') {
                self.pos += 1;
                continue;
            }
            let before = self.pos;
            match self.word() {
                Some(w) => v.push(w),
                None => break,
            }
            if self.pos == before {
                self.pos += 1;
            }
        }
        v
    }

    fn case(&mut self) -> Node {
        let mut all = List::default();
        self.blanks();
        let subject = self.word();
        self.blanks_nl();
        if !self.at_word("in") {
            self.error = true;
            return Node::Words(subject.into_iter().collect());
        }
        self.pos += 2;
        if !self.enter() {
            return Node::Words(Vec::new());
        }
        loop {
            self.blanks_nl();
            if self.pos >= self.s.len() {
                self.error = true;
                break;
            }
            if self.at_word("esac") {
                self.pos += 4;
                break;
            }
            if self.peek() == Some(b'(') {
                self.pos += 1;
            }
            // pattern list
            loop {
                self.blanks();
                match self.peek() {
                    Some(b')') => {
                        self.pos += 1;
                        break;
                    }
                    Some(b'|') => self.pos += 1,
                    None | Some(b'\n') | Some(b';') => {
                        self.error = true;
                        break;
                    }
                    _ => {
                        let before = self.pos;
                        let _ = self.word();
                        if self.pos == before {
                            self.pos += 1;
                        }
                    }
                }
            }
            let l = self.list(End::Case);
            all.items.extend(l.items);
            if self.s[self.pos..].starts_with(b";;&") {
                self.pos += 3;
            } else if self.s[self.pos..].starts_with(b";;") || self.s[self.pos..].starts_with(b";&")
            {
                self.pos += 2;
            }
        }
        self.nest -= 1;
        Node::Group {
            list: all,
            subshell: false,
            redirs: Vec::new(),
        }
    }

    fn trailing_redirs(&mut self) -> Vec<RawRedir> {
        let mut v = Vec::new();
        loop {
            self.blanks();
            if !self.try_redirect(&mut v) {
                break;
            }
        }
        v
    }

    /// Parse a redirection at the cursor if there is one.
    fn try_redirect(&mut self, out: &mut Vec<RawRedir>) -> bool {
        let save = self.pos;
        let mut fd: Option<u32> = None;
        let mut k = self.pos;
        while k < self.s.len() && self.s[k].is_ascii_digit() && k - self.pos < 9 {
            k += 1;
        }
        if k > self.pos && k < self.s.len() && matches!(self.s[k], b'<' | b'>') {
            fd = std::str::from_utf8(&self.s[self.pos..k])
                .ok()
                .and_then(|t| t.parse().ok());
            self.pos = k;
        }
        let rest = &self.s[self.pos..];
        let (op, len) = if rest.starts_with(b"&>>") {
            (RedirOp::AppendAll, 3)
        } else if rest.starts_with(b"&>") {
            (RedirOp::WriteAll, 2)
        } else if rest.starts_with(b"<<<") {
            (RedirOp::HereString, 3)
        } else if rest.starts_with(b"<<-") {
            (RedirOp::HereDocStrip, 3)
        } else if rest.starts_with(b"<<") {
            (RedirOp::HereDoc, 2)
        } else if rest.starts_with(b"<&") {
            (RedirOp::DupIn, 2)
        } else if rest.starts_with(b"<>") {
            (RedirOp::ReadWrite, 2)
        } else if rest.starts_with(b"<(") || rest.starts_with(b">(") {
            if fd.is_some() {
                // `2>(…)` is `2> >(…)`? bash: `2>(` is redirect to procsub-ish; treat as write
                let op = if rest[0] == b'>' {
                    RedirOp::Write
                } else {
                    RedirOp::Read
                };
                (op, 1)
            } else {
                self.pos = save;
                return false;
            }
        } else if rest.starts_with(b"<") {
            (RedirOp::Read, 1)
        } else if rest.starts_with(b">>") {
            (RedirOp::Append, 2)
        } else if rest.starts_with(b">|") {
            (RedirOp::Clobber, 2)
        } else if rest.starts_with(b">&") {
            (RedirOp::DupOut, 2)
        } else if rest.starts_with(b">") {
            (RedirOp::Write, 1)
        } else {
            self.pos = save;
            return false;
        };
        self.pos += len;
        self.blanks();
        let target = match self.word() {
            Some(w) => w,
            None => {
                self.error = true;
                Word::default()
            }
        };
        let mut op = op;
        if op == RedirOp::DupOut
            && !(target.text == "-" || target.text.bytes().all(|b| b.is_ascii_digit()))
        {
            // `>& file` == `&> file`
            op = RedirOp::WriteAll;
        }
        let body = if matches!(op, RedirOp::HereDoc | RedirOp::HereDocStrip) {
            Some(self.heredoc(&target, op == RedirOp::HereDocStrip))
        } else {
            None
        };
        out.push(RawRedir {
            fd,
            op,
            target,
            body,
        });
        true
    }

    fn heredoc(&mut self, delim: &Word, strip: bool) -> Word {
        let start = if self.hd_nl != NONE && self.hd_nl >= self.pos {
            self.hd_resume
        } else {
            match self.s[self.pos..].iter().position(|&c| c == b'\n') {
                Some(off) => {
                    self.hd_nl = self.pos + off;
                    self.pos + off + 1
                }
                None => {
                    self.error = true;
                    return Word::default();
                }
            }
        };
        let d = delim.text.as_bytes();
        let mut i = start;
        let (body_end, resume) = loop {
            if i >= self.s.len() {
                break (self.s.len(), self.s.len());
            }
            let j = self.s[i..]
                .iter()
                .position(|&c| c == b'\n')
                .map_or(self.s.len(), |o| i + o);
            let mut line = &self.s[i..j];
            if strip {
                while let [b'\t', r @ ..] = line {
                    line = r;
                }
            }
            if line == d || (line.last() == Some(&b'\r') && &line[..line.len() - 1] == d) {
                break (i, (j + 1).min(self.s.len()));
            }
            i = j + 1;
        };
        self.hd_resume = resume;
        let raw = &self.s[start.min(body_end)..body_end];
        if delim.quoted {
            return Word {
                text: String::from_utf8_lossy(raw).into_owned(),
                quoted: true,
                ..Word::default()
            };
        }
        // unquoted: expansions and substitutions happen; parse like a dquote body
        let save = (self.pos, self.s, self.hd_nl, self.hd_resume);
        self.hd_nl = NONE;
        self.s = &save.1[..body_end];
        self.pos = start.min(body_end);
        let mut w = WB {
            buf: Vec::with_capacity(raw.len()),
            ..WB::default()
        };
        while self.pos < self.s.len() {
            let c = self.s[self.pos];
            match c {
                b'\\' if matches!(self.peek_at(1), Some(b'$') | Some(b'`') | Some(b'\\')) => {
                    w.buf.push(self.s[self.pos + 1]);
                    self.pos += 2;
                }
                b'\\' if self.peek_at(1) == Some(b'\n') => self.pos += 2,
                b'$' => self.dollar(&mut w, true),
                b'`' => self.backtick(&mut w, true),
                _ => {
                    w.buf.push(c);
                    self.pos += 1;
                }
            }
        }
        self.s = save.1;
        self.pos = save.0;
        self.hd_nl = save.2;
        self.hd_resume = save.3;
        w.brace = false;
        w.into_word(false, false)
    }

    /// Parse one word at the cursor (cursor must not be at a metacharacter
    /// other than `<(` / `>(`).
    pub(crate) fn word(&mut self) -> Option<Word> {
        if !self.budget.take_words(1) {
            self.stop();
            return None;
        }
        let start = self.pos;
        let mut w = WB::default();
        // process substitution as a whole word
        if matches!(self.peek(), Some(b'<') | Some(b'>')) && self.peek_at(1) == Some(b'(') {
            let kind = if self.peek() == Some(b'<') {
                SubKind::In
            } else {
                SubKind::Out
            };
            self.pos += 2;
            let list = self.group(End::Paren);
            if self.peek() == Some(b')') {
                self.pos += 1;
            } else {
                self.error = true;
            }
            w.buf.extend_from_slice(b"/dev/fd/63");
            w.subs.push(Sub {
                kind,
                quoted: false,
                at: 0,
                list,
            });
            return Some(w.into_word(false, false));
        }
        self.word_into(&mut w, false);
        if self.pos == start {
            return None;
        }
        // assignment: unquoted NAME= or NAME+= prefix in the raw source
        let raw = &self.s[start..self.pos];
        let mut assign = false;
        if raw.first().is_some_and(|&c| is_name_start(c)) {
            let n = raw.iter().take_while(|&&c| is_name(c)).count();
            assign = raw.get(n) == Some(&b'=')
                || (raw.get(n) == Some(&b'+') && raw.get(n + 1) == Some(&b'='));
        }
        let quoted = w.quoted;
        Some(w.into_word(quoted, assign))
    }

    /// Core word loop. `brace`: inside `${…}` (stop at unquoted `}` only).
    fn word_into(&mut self, w: &mut WB, brace: bool) {
        let start = self.pos;
        while let Some(c) = self.peek() {
            if brace {
                if c == b'}' {
                    break;
                }
            } else if is_meta(c) {
                break;
            }
            match c {
                b'\\' => match self.peek_at(1) {
                    Some(b'\n') => self.pos += 2,
                    Some(n) => {
                        w.buf.push(n);
                        w.quoted = true;
                        self.pos += 2;
                    }
                    None => self.pos += 1,
                },
                b'\'' => {
                    w.quoted = true;
                    self.pos += 1;
                    match self.s[self.pos..].iter().position(|&c| c == b'\'') {
                        Some(off) => {
                            w.buf.extend_from_slice(&self.s[self.pos..self.pos + off]);
                            self.pos += off + 1;
                        }
                        None => {
                            w.buf.extend_from_slice(&self.s[self.pos..]);
                            self.pos = self.s.len();
                            self.error = true;
                        }
                    }
                }
                b'"' => self.dquote(w),
                b'$' => self.dollar(w, false),
                b'`' => self.backtick(w, false),
                b'~' if self.pos == start && !brace => self.tilde(w),
                b'{' if !brace => {
                    w.brace = true;
                    w.buf.push(c);
                    self.pos += 1;
                }
                b'*' | b'?' | b'[' if !brace => {
                    w.glob = true;
                    w.buf.push(c);
                    self.pos += 1;
                }
                _ => {
                    w.buf.push(c);
                    self.pos += 1;
                }
            }
        }
    }

    fn tilde(&mut self, w: &mut WB) {
        let mut k = self.pos + 1;
        while k < self.s.len() && (is_name(self.s[k]) || self.s[k] == b'-' || self.s[k] == b'.') {
            k += 1;
        }
        let ends = k >= self.s.len() || self.s[k] == b'/' || is_meta(self.s[k]);
        if !ends {
            w.buf.push(b'~');
            self.pos += 1;
            return;
        }
        let user = &self.s[self.pos + 1..k];
        if user.is_empty() {
            match self.home {
                Some(h) => w.buf.extend_from_slice(h.as_bytes()),
                None => w.buf.push(b'~'),
            }
        } else if user == b"root" {
            w.buf.extend_from_slice(b"/root");
        } else {
            // ~user: conventional location; exact value unknown
            w.buf.extend_from_slice(b"/home/");
            w.buf.extend_from_slice(user);
        }
        self.pos = k;
    }

    fn dquote(&mut self, w: &mut WB) {
        w.quoted = true;
        self.pos += 1;
        loop {
            let Some(c) = self.peek() else {
                self.error = true;
                return;
            };
            match c {
                b'"' => {
                    self.pos += 1;
                    return;
                }
                b'\\' => match self.peek_at(1) {
                    Some(n @ (b'$' | b'`' | b'"' | b'\\')) => {
                        w.buf.push(n);
                        self.pos += 2;
                    }
                    Some(b'\n') => self.pos += 2,
                    _ => {
                        w.buf.push(b'\\');
                        self.pos += 1;
                    }
                },
                b'$' => self.dollar(w, true),
                b'`' => self.backtick(w, true),
                _ => {
                    w.buf.push(c);
                    self.pos += 1;
                }
            }
        }
    }

    fn push_var(&mut self, w: &mut WB, name: &[u8], raw: &[u8], in_dq: bool) {
        match name {
            b"HOME" => match self.home {
                Some(h) => w.buf.extend_from_slice(h.as_bytes()),
                None => w.buf.push(b'~'),
            },
            // $PWD is the (tracked) current directory: "." resolves against it.
            b"PWD" => w.buf.push(b'.'),
            _ => {
                w.vars.push(VarRef {
                    at: w.buf.len(),
                    len: raw.len(),
                    name: String::from_utf8_lossy(name).into_owned(),
                    quoted: in_dq,
                    slice: None,
                    trim: None,
                });
                w.buf.extend_from_slice(raw);
            }
        }
    }

    fn dollar(&mut self, w: &mut WB, in_dq: bool) {
        let start = self.pos;
        match self.peek_at(1) {
            Some(b'\'') if !in_dq => {
                w.quoted = true;
                self.pos += 2;
                self.ansi_c(w);
            }
            Some(b'"') if !in_dq => {
                self.pos += 1;
                self.dquote(w);
            }
            Some(b'(') => {
                if self.peek_at(2) == Some(b'(') {
                    self.pos += 3;
                    w.buf.extend_from_slice("$((…))".as_bytes());
                    w.dynamic = true;
                    self.skip_arith(w);
                    return;
                }
                self.pos += 2;
                let list = self.group(End::Paren);
                if self.peek() == Some(b')') {
                    self.pos += 1;
                } else {
                    self.error = true;
                }
                let at = w.buf.len();
                w.buf.extend_from_slice(SUB_MARKER.as_bytes());
                w.subs.push(Sub {
                    kind: SubKind::Cmd,
                    quoted: in_dq,
                    at,
                    list,
                });
            }
            Some(b'{') => {
                self.pos += 2;
                let ns = self.pos;
                while matches!(self.peek(), Some(b'#') | Some(b'!')) && self.pos - ns < 1 {
                    self.pos += 1;
                }
                let nstart = self.pos;
                while self
                    .peek()
                    .is_some_and(|c| is_name(c) || matches!(c, b'@' | b'*' | b'?' | b'$' | b'-'))
                {
                    self.pos += 1;
                    if !is_name(self.s[self.pos - 1]) {
                        break;
                    }
                }
                let name_end = self.pos;
                if self.peek() == Some(b'}') && nstart == ns {
                    self.pos += 1;
                    let name = &self.s[nstart..name_end];
                    let raw = &self.s[start..self.pos];
                    self.push_var(w, name, raw, in_dq);
                    return;
                }
                // `${HOME%/*}`, `${PWD%/*/*}`: the directory k levels up, `…/..` k times
                // (resolved against the tracked cwd like any `..`)
                let name = &self.s[nstart..name_end];
                if nstart == ns && matches!(name, b"HOME" | b"PWD") {
                    let rest = &self.s[name_end..];
                    let pat = rest
                        .strip_prefix(b"%")
                        .filter(|r| !r.starts_with(b"%"))
                        .and_then(|r| Some(&r[..r.iter().position(|&c| c == b'}')?]));
                    if let Some(pat) = pat.filter(|p| !p.is_empty() && p.len() % 2 == 0) {
                        if pat.chunks(2).all(|c| c == b"/*") {
                            let name = name.to_vec();
                            self.pos = name_end + 1 + pat.len() + 1;
                            let raw = self.s[start..self.pos].to_vec();
                            self.push_var(w, &name, &raw, in_dq);
                            for _ in 0..pat.len() / 2 {
                                w.buf.extend_from_slice(b"/..");
                            }
                            return;
                        }
                    }
                }
                // `${HOME:0:1}`: a slice of the known home (`/`, spelled without a slash);
                // `${PWD:0:1}`, `${PATH:0:1}` and `${SHELL:0:1}` are `/` (absolute paths);
                // `${X:2:5}` of a variable the walker tracks is a slice of its value
                if nstart == ns && !name.is_empty() && is_name_start(name[0]) {
                    if let Some((off, len, end)) = substring_op(&self.s[name_end..]) {
                        match (name, self.home, off, len) {
                            (b"HOME", Some(home), ..) => {
                                w.buf
                                    .extend_from_slice(slice_chars(home, off, len).as_bytes());
                            }
                            (b"PWD" | b"PATH" | b"SHELL", _, 0, Some(1)) => w.buf.push(b'/'),
                            (b"PWD", ..) => {
                                w.buf.extend_from_slice(&self.s[start..name_end + end]);
                                w.dynamic = true;
                            }
                            _ => {
                                let raw_len = name_end + end - start;
                                w.vars.push(VarRef {
                                    at: w.buf.len(),
                                    len: raw_len,
                                    name: String::from_utf8_lossy(name).into_owned(),
                                    quoted: in_dq,
                                    slice: Some((off, len)),
                                    trim: None,
                                });
                                w.buf.extend_from_slice(&self.s[start..name_end + end]);
                            }
                        }
                        self.pos = name_end + end;
                        return;
                    }
                }
                // `${X%word}`, `${X##word}`: a literal word (no pattern, quoting or expansion
                // characters, no `~`, which bash expands) removed from the end or the start of a
                // tracked variable's value
                let rest = &self.s[name_end..];
                let trim = match rest {
                    [b'%', b'%', ..] => Some((true, 2)),
                    [b'%', ..] => Some((true, 1)),
                    [b'#', b'#', ..] => Some((false, 2)),
                    [b'#', ..] => Some((false, 1)),
                    _ => None,
                };
                let literal = |c: &u8| {
                    !matches!(
                        c,
                        b'*' | b'?'
                            | b'['
                            | b'$'
                            | b'`'
                            | b'\\'
                            | b'"'
                            | b'\''
                            | b'{'
                            | b'('
                            | b' '
                            | b'\n'
                            | b'~'
                    )
                };
                if let Some((suffix, op)) =
                    trim.filter(|_| nstart == ns && !name.is_empty() && is_name_start(name[0]))
                {
                    let word = rest[op..]
                        .iter()
                        .position(|&c| c == b'}')
                        .map(|e| &rest[op..op + e])
                        .filter(|w| !w.is_empty() && w.iter().all(literal));
                    if let Some(word) = word {
                        let end = op + word.len() + 1;
                        w.vars.push(VarRef {
                            at: w.buf.len(),
                            len: name_end + end - start,
                            name: String::from_utf8_lossy(name).into_owned(),
                            quoted: in_dq,
                            slice: None,
                            trim: Some((suffix, String::from_utf8_lossy(word).into_owned())),
                        });
                        w.buf.extend_from_slice(&self.s[start..name_end + end]);
                        self.pos = name_end + end;
                        return;
                    }
                }
                // `${X:?msg}` / `${X?msg}` is X or an error; `${HOME:-…}` is $HOME
                let op = &self.s[name_end..self.s.len().min(name_end + 2)];
                if nstart == ns
                    && !name.is_empty()
                    && (op.first() == Some(&b'?')
                        || op == b":?"
                        || (name == b"HOME" && (op == b":-" || op.first() == Some(&b'-'))))
                {
                    let name = name.to_vec();
                    let mut depth = 0usize;
                    while let Some(c) = self.peek() {
                        self.pos += 1;
                        match c {
                            b'{' => depth += 1,
                            b'}' if depth == 0 => {
                                let raw = self.s[start..self.pos].to_vec();
                                self.push_var(w, &name, &raw, in_dq);
                                return;
                            }
                            b'}' => depth -= 1,
                            b'$' | b'`' => w.dynamic = true,
                            _ => {}
                        }
                    }
                    self.error = true;
                    return;
                }
                // operator form ${X:-word}: word may hide substitutions
                w.buf.extend_from_slice(&self.s[start..name_end]);
                w.buf.extend_from_slice("…}".as_bytes());
                w.dynamic = true;
                if !self.enter() {
                    return;
                }
                let mut inner = WB::default();
                self.word_into(&mut inner, true);
                self.nest -= 1;
                for mut s in inner.subs {
                    s.at = usize::MAX;
                    w.subs.push(s);
                }
                if self.peek() == Some(b'}') {
                    self.pos += 1;
                } else {
                    self.error = true;
                }
            }
            Some(c) if is_name_start(c) => {
                self.pos += 1;
                let ns = self.pos;
                while self.peek().is_some_and(is_name) {
                    self.pos += 1;
                }
                let name = &self.s[ns..self.pos];
                let raw = &self.s[start..self.pos];
                self.push_var(w, name, raw, in_dq);
            }
            Some(c) if c.is_ascii_digit() || matches!(c, b'@' | b'*') => {
                w.vars.push(VarRef {
                    at: w.buf.len(),
                    len: 2,
                    name: (c as char).to_string(),
                    quoted: in_dq,
                    slice: None,
                    trim: None,
                });
                w.buf.extend_from_slice(&self.s[self.pos..self.pos + 2]);
                self.pos += 2;
            }
            Some(b'#' | b'?' | b'$' | b'!' | b'-') => {
                w.buf.extend_from_slice(&self.s[self.pos..self.pos + 2]);
                w.dynamic = true;
                self.pos += 2;
            }
            _ => {
                w.buf.push(b'$');
                self.pos += 1;
            }
        }
    }

    /// Skip an arithmetic expression up to its closing `))`; a command substitution in it
    /// (`(( $(rm -rf ~) ))`) is parsed into `w`'s substitutions, which still run.
    fn skip_arith(&mut self, w: &mut WB) {
        let mut depth = 2usize;
        while let Some(c) = self.peek() {
            if c == b'$' && self.peek_at(1) == Some(b'(') {
                w.dynamic = true;
                self.dollar(w, false);
                continue;
            }
            if c == b'`' {
                w.dynamic = true;
                self.backtick(w, false);
                continue;
            }
            self.pos += 1;
            match c {
                b'(' => depth += 1,
                b')' => {
                    depth -= 1;
                    if depth == 0 {
                        return;
                    }
                }
                b'$' | b'`' => w.dynamic = true,
                _ => {}
            }
        }
        self.error = true;
    }

    fn ansi_c(&mut self, w: &mut WB) {
        loop {
            let Some(c) = self.peek() else {
                self.error = true;
                return;
            };
            self.pos += 1;
            match c {
                b'\'' => return,
                b'\\' => {
                    let Some(e) = self.peek() else {
                        self.error = true;
                        return;
                    };
                    self.pos += 1;
                    match e {
                        b'n' => w.buf.push(b'\n'),
                        b't' => w.buf.push(b'\t'),
                        b'r' => w.buf.push(b'\r'),
                        b'a' => w.buf.push(7),
                        b'b' => w.buf.push(8),
                        b'e' | b'E' => w.buf.push(27),
                        b'f' => w.buf.push(12),
                        b'v' => w.buf.push(11),
                        b'0'..=b'7' => {
                            let mut v = (e - b'0') as u32;
                            for _ in 0..2 {
                                match self.peek() {
                                    Some(d @ b'0'..=b'7') => {
                                        v = v * 8 + (d - b'0') as u32;
                                        self.pos += 1;
                                    }
                                    _ => break,
                                }
                            }
                            w.buf.push(v as u8);
                        }
                        b'x' | b'u' | b'U' => {
                            let max = match e {
                                b'x' => 2,
                                b'u' => 4,
                                _ => 8,
                            };
                            let mut v: u32 = 0;
                            let mut n = 0;
                            while n < max {
                                match self.peek().and_then(|d| (d as char).to_digit(16)) {
                                    Some(d) => {
                                        v = v * 16 + d;
                                        self.pos += 1;
                                        n += 1;
                                    }
                                    None => break,
                                }
                            }
                            if n == 0 {
                                w.buf.push(b'\\');
                                w.buf.push(e);
                            } else if e == b'x' {
                                w.buf.push(v as u8);
                            } else {
                                let ch = char::from_u32(v).unwrap_or('\u{FFFD}');
                                let mut tmp = [0u8; 4];
                                w.buf.extend_from_slice(ch.encode_utf8(&mut tmp).as_bytes());
                            }
                        }
                        b'c' => {
                            if let Some(x) = self.peek() {
                                self.pos += 1;
                                w.buf.push(x & 0x1f);
                            }
                        }
                        b'\\' | b'\'' | b'"' | b'?' => w.buf.push(e),
                        _ => {
                            w.buf.push(b'\\');
                            w.buf.push(e);
                        }
                    }
                }
                _ => w.buf.push(c),
            }
        }
    }

    fn backtick(&mut self, w: &mut WB, in_dq: bool) {
        self.pos += 1;
        let mut inner = Vec::new();
        let mut closed = false;
        while let Some(c) = self.peek() {
            self.pos += 1;
            match c {
                b'`' => {
                    closed = true;
                    break;
                }
                b'\\' => match self.peek() {
                    Some(n @ (b'`' | b'\\' | b'$')) => {
                        inner.push(n);
                        self.pos += 1;
                    }
                    _ => inner.push(b'\\'),
                },
                _ => inner.push(c),
            }
        }
        if !closed {
            self.error = true;
        }
        let list = if self.nest + 1 > MAX_NEST {
            self.stop();
            List::default()
        } else {
            let mut p = Parser::new(&inner, self.home, &mut *self.budget);
            p.nest = self.nest + 1;
            let l = p.parse();
            let (t, e) = (p.truncated, p.error);
            self.truncated |= t;
            self.error |= e;
            if t {
                self.pos = self.s.len();
            }
            l
        };
        let at = w.buf.len();
        w.buf.extend_from_slice(SUB_MARKER.as_bytes());
        w.subs.push(Sub {
            kind: SubKind::Cmd,
            quoted: in_dq,
            at,
            list,
        });
    }
}

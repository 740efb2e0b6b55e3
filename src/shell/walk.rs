//! AST walker: wrappers, nested scripts, cwd tracking, paths, feed edges.
//!
//! Over 800 lines (about 2,300): one `impl Walker` whose parts (lists and pipelines,
//! words and expansion, wrappers and special programs, write channels, builtins and
//! functions, interpreter bodies, nested shells) share the walker's state and budgets. A split
//! by those concerns into `walk/` reads better and is due; it waits because `src/shell/` is
//! being tuned for speed concurrently and a mechanical split would conflict with that work.

use super::expand;
use super::interp::{self, Found, Lang};
use super::parse::{
    is_var_name, Budget, Conn, List, Node, Parser, Pipeline, RawRedir, Simple, SubKind, Word,
    SUB_MARKER,
};
use super::path::{arg_path, normalize};
use super::{
    Analysis, Arg, Options, RedirOp, Redirect, SimpleCommand, MAX_COMMANDS, MAX_DEPTH, MAX_FEEDS,
    MAX_INPUT, MAX_PARSE_BYTES, MAX_WORDS,
};

/// Words one analysis of `text` may produce (parsed, added by expansion, or copied from a
/// group's redirections; see [`Walker::charge`]): linear in its length, at most
/// [`MAX_WORDS`]. Past it the analysis is truncated and dynamic. The few words not charged
/// (the empty program of a bare redirection) fit in what this leaves below 64 + 16 a byte,
/// the bound the `shell` fuzz target checks.
fn word_budget(text: &str) -> usize {
    MAX_WORDS.min(32 + 12 * text.len())
}

/// Analyse a Python program (Hermes's `execute_code`) as `python3 -c CODE`.
pub(crate) fn run_python(code: &str, opts: &Options) -> Analysis {
    let mut w = Walker {
        out: Analysis::default(),
        funcs: Vec::new(),
        aliases: Vec::new(),
        files: Vec::new(),
        links: Vec::new(),
        exec_children: Vec::new(),
        var_sources: Vec::new(),
        procsub_out: None,
        ran_written: None,
        active: Vec::new(),
        home: opts.home,
        max_depth: opts.max_depth.min(MAX_DEPTH),
        budget: Budget {
            words: word_budget(code),
            bytes: MAX_PARSE_BYTES,
        },
    };
    let mut code = code;
    if code.len() > MAX_INPUT {
        let mut cut = MAX_INPUT;
        while !code.is_char_boundary(cut) {
            cut -= 1;
        }
        code = &code[..cut];
        w.out.truncated = true;
    }
    let cwd = opts.cwd.and_then(|c| normalize(c, None, opts.home));
    let ctx = Ctx {
        depth: 0,
        cwd: cwd.clone(),
        via: Vec::new(),
        vars: Vec::new(),
        pos: None,
        remote: false,
        dirs: Vec::new(),
    };
    w.out.commands.push(SimpleCommand {
        program: "python3".into(),
        args: vec![
            Arg {
                text: "-c".into(),
                path: None,
                dynamic: false,
            },
            Arg {
                text: code.to_string(),
                path: None,
                dynamic: false,
            },
        ],
        redirects: Vec::new(),
        dynamic_program: false,
        nested_dynamic: false,
        depth: 0,
        cwd,
        via: vec!["execute_code".into()],
    });
    w.interpreter(0, Lang::Python, &ctx, None);
    if w.out.truncated {
        w.out.dynamic = true;
    }
    w.out
}

pub(crate) fn run(command: &str, opts: &Options) -> Analysis {
    let mut w = Walker {
        out: Analysis::default(),
        funcs: Vec::new(),
        aliases: Vec::new(),
        files: Vec::new(),
        links: Vec::new(),
        exec_children: Vec::new(),
        var_sources: Vec::new(),
        procsub_out: None,
        ran_written: None,
        active: Vec::new(),
        home: opts.home,
        max_depth: opts.max_depth.min(MAX_DEPTH),
        budget: Budget {
            words: word_budget(command),
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
        vars: Vec::new(),
        pos: None,
        remote: false,
        dirs: Vec::new(),
    };
    w.script(src, &mut ctx);
    w.uncalled_functions(&ctx);
    w.root_shells();
    if w.out.truncated {
        w.out.dynamic = true;
    }
    w.out
}

struct Walker<'o> {
    out: Analysis,
    /// Functions defined so far: name, body source, called yet.
    funcs: Vec<(String, String, bool)>,
    /// Aliases defined so far: name, value.
    aliases: Vec<(String, String)>,
    /// Files this line wrote with known text so far (`echo 'rm -rf ~' > /tmp/c.sh`,
    /// `cat > x.py <<'EOF' … EOF`): absolute path, text. A shell or interpreter later
    /// given that path runs the text, which is analysed like `-c` (see [`Walker::written`]).
    files: Vec<(String, String)>,
    /// Links this line made so far (`ln -s ~ /tmp/l`, `ln ~/.ssh/id_rsa x`): the link's
    /// absolute path and the path it leads to (`None`: not statically known). A later path
    /// through a link names the target's files (see [`Walker::through_links`]).
    links: Vec<(String, Option<String>)>,
    /// the text of a script this line wrote, when the command being walked runs it by its
    /// path (`./x.sh`; the basename alone is kept as the program)
    ran_written: Option<String>,
    /// Functions and aliases being expanded (no recursive expansion).
    active: Vec<String>,
    /// (`find` command, a command its `-exec` ran): what the child writes is `find`'s
    /// output, so whatever `find` feeds, the child feeds too.
    exec_children: Vec<(usize, usize)>,
    /// Variables holding a command's output (`k=$(gh auth token)`): name, the commands whose
    /// output it is. A later word using the variable is fed by them, as by `$(…)` in place.
    var_sources: Vec<(String, Vec<usize>)>,
    /// What the last `<(…)` walked writes, when static (a `while read` loop's input).
    procsub_out: Option<Stdin>,
    home: Option<&'o str>,
    max_depth: usize,
    budget: Budget,
}

#[derive(Clone)]
struct Ctx {
    depth: u8,
    cwd: Option<String>,
    via: Vec<String>,
    /// Shell variables assigned on this line so far (`None`: not statically known).
    vars: Vec<(String, Option<String>)>,
    /// Positional parameters when known (`set -- …`, a function call's arguments).
    pos: Option<Vec<String>>,
    /// On another machine (`ssh host CMD`): relative redirection targets
    /// name the remote's files, not this machine's.
    remote: bool,
    /// The directory stack of `pushd` / `popd` (`None`: a directory not known).
    dirs: Vec<Option<String>>,
}

/// Most variables tracked per context.
const MAX_VARS: usize = 64;
/// Most files whose written text one analysis remembers.
const MAX_FILES: usize = 16;
/// Longest written text remembered per file.
const MAX_FILE_TEXT: usize = 64 * 1024;

impl Ctx {
    fn set_var(&mut self, name: &str, value: Option<String>) {
        self.vars.retain(|(n, _)| n != name);
        if self.vars.len() >= MAX_VARS {
            self.vars.remove(0);
        }
        self.vars.push((name.to_string(), value));
    }

    /// A parameter's static value: `Some(None)` = known to be unknown,
    /// `None` = never assigned here (environment).
    fn lookup(&self, name: &str) -> Option<Option<String>> {
        if name == "@" || name == "*" {
            return self.pos.as_ref().map(|p| Some(p.join(" ")));
        }
        if let Ok(n) = name.parse::<usize>() {
            if n == 0 {
                return None;
            }
            return self
                .pos
                .as_ref()
                .map(|p| Some(p.get(n - 1).cloned().unwrap_or_default()));
        }
        self.vars
            .iter()
            .rev()
            .find(|(n, _)| n == name)
            .map(|(_, v)| v.clone())
    }
}

#[derive(Default)]
struct Io {
    heads: Ids,
    tails: Ids,
    /// Static standard output of the last stage, when known (`echo`, `printf`,
    /// a decoder fed a literal); `dynamic` when it is code nobody can read
    /// (a decoder of unknown input).
    out: Option<Stdin>,
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

/// Most `-name` tests of a `find` followed (more make what it finds unknown).
const MAX_FIND_NAMES: usize = 32;
/// Longest word a `{}` / `xargs -I` replacement may build; past it the word stays as written.
const MAX_REPLACED: usize = 4096;
/// Most variables whose command sources are remembered (`k=$(…)`).
const MAX_VAR_SOURCES: usize = 32;
/// Most values a loop's body is walked with (`for f in …`, lines a `while read` takes; the
/// home's entries first); past them the body is walked once more with the variable unknown.
const MAX_LOOP_VALUES: usize = 64;

/// A word after its substitutions were walked.
struct AW {
    text: String,
    dynamic: bool,
    assign: bool,
    /// An unquoted expansion put whitespace into the word: split it.
    split: bool,
    /// Unquoted `{` in the word: brace expansion applies.
    brace: bool,
    /// Unquoted `*`, `?` or `[` in the word: it may be a glob of relative paths.
    glob: bool,
}

/// Does a program word still hold a glob (`*`, `?`, or a `[…]` class; the `[` and `[[`
/// commands are no globs)? A relative path (`./run-tests?.sh`) names the project's own
/// script, so only absolute paths and bare names count.
fn program_glob(text: &str) -> bool {
    !text.starts_with("./")
        && !text.starts_with("../")
        && (text.contains(['*', '?'])
            || (text.contains('[') && text.contains(']') && text != "[" && text != "[["))
}

/// The words after the last `xargs` among `head` (its options and command).
fn xargs_opts(head: &[String]) -> Option<&[String]> {
    let x = head
        .iter()
        .rposition(|w| w == "xargs" || w.ends_with("/xargs"))?;
    Some(&head[x + 1..])
}

/// The argument a pattern-first tool reads as its pattern or program, not a file: grep's
/// pattern, sed's script, awk's program, jq's filter — the first positional word, unless an
/// option gives it (`-e` / `-f` / `--regexp` / `--file` / `--expression`). Options taking a
/// value are not told apart here: `grep -m 1 x f` names `1` the pattern (fail-safe: the file
/// keeps its path).
fn pattern_arg(program: &str, args: &[Arg]) -> Option<usize> {
    const PATTERN_FIRST: &[&str] = &[
        "grep", "egrep", "fgrep", "zgrep", "rg", "ag", "ack", "ugrep", "sed", "awk", "gawk",
        "mawk", "jq", "gojq", "yq",
    ];
    if !PATTERN_FIRST.contains(&program) {
        return None;
    }
    let given = args.iter().any(|a| {
        let t = a.text.as_str();
        matches!(
            t,
            "-e" | "-f" | "--regexp" | "--file" | "--expression" | "--from-file"
        ) || t.starts_with("--regexp=")
            || t.starts_with("--file=")
            || t.starts_with("--expression=")
            || (t.starts_with('-')
                && !t.starts_with("--")
                && t.len() > 2
                && t[1..].contains(['e', 'f'])
                && program != "jq")
    });
    if given {
        return None;
    }
    args.iter()
        .position(|a| a.text == "--" || !a.text.starts_with('-') || a.text == "-")
        .map(|k| if args[k].text == "--" { k + 1 } else { k })
        .filter(|&k| k < args.len())
}

/// The file a write-channel word names (`of=F`, `--target-directory=F`: after the `=`), and
/// whether that is the whole word (whose own path then names it).
fn written_file(word: &str) -> (&str, bool) {
    match word.split_once('=') {
        Some((_, v)) if word.starts_with("--") => (v, false),
        _ => (word.strip_prefix("of=").unwrap_or(word), true),
    }
}

/// The file the last `xargs` among `head` reads its arguments from (`-a F`, `--arg-file=F`).
fn xargs_arg_file(head: &[String]) -> Option<String> {
    let opts = xargs_opts(head)?;
    for (k, w) in opts.iter().enumerate() {
        match w.as_str() {
            "-a" | "--arg-file" => return opts.get(k + 1).cloned(),
            _ if w.starts_with("--arg-file=") => return Some(w[11..].to_string()),
            _ if w.starts_with("-a") && w.len() > 2 => return Some(w[2..].to_string()),
            _ => {}
        }
    }
    None
}

/// The replace string of the last `xargs` among `head` (`-I R`, `-IR`, `-i`, `--replace`).
fn xargs_replace(head: &[String]) -> Option<String> {
    let opts = xargs_opts(head)?;
    let r = opts
        .iter()
        .enumerate()
        .find_map(|(k, w)| match w.as_str() {
            "-I" => opts.get(k + 1).cloned(),
            "-i" | "--replace" => Some("{}".into()),
            _ if w.starts_with("-I") => Some(w[2..].to_string()),
            _ if w.starts_with("-i") && w.len() > 2 => Some(w[2..].to_string()),
            _ if w.starts_with("--replace=") => Some(w[10..].to_string()),
            _ => None,
        })?;
    (!r.is_empty()).then_some(r)
}

/// `text` with every `pat` replaced by `with`, and whether it fit in [`MAX_REPLACED`]
/// bytes (if not, `text` is returned as it is).
fn replaced(text: &str, pat: &str, with: &str) -> (String, bool) {
    let n = text.matches(pat).count();
    if n == 0 {
        return (text.to_string(), true);
    }
    if text.len() + n * with.len() > MAX_REPLACED {
        return (text.to_string(), false);
    }
    (text.replace(pat, with), true)
}

/// What `{}` stands for in `find START … -exec … {}` (and what `find` prints): everything
/// under START unfiltered (`START/*`, read as START), with a `-name` / `-iname` test the
/// names it admits under START (not a negated one: `! -name '*.pub'`), globbed over the
/// known entries there (`find ~/.ssh -name 'id_*'` → the key files), else `START/{}`.
/// Returns the paths and whether they are dynamic.
fn find_paths(c: &SimpleCommand, home: Option<&str>) -> (Vec<String>, bool) {
    let args = &c.args[..];
    // `{}` is something under the start path (after the symlink options `-L` / `-H` / `-P`)
    let start = args
        .iter()
        .skip_while(|a| matches!(a.text.as_str(), "-L" | "-H" | "-P"))
        .take_while(|a| !a.text.starts_with(['-', '(', '!']) || a.dynamic)
        .next();
    // unfiltered: everything under it, the start included (`x/*` is
    // read as `x`); filtered (`-name`, `-type` …): something below it
    let filtered = args.iter().any(|a| {
        a.text.starts_with('-')
            && !matches!(
                a.text.as_str(),
                "-exec"
                    | "-execdir"
                    | "-ok"
                    | "-okdir"
                    | "-depth"
                    | "-xdev"
                    | "-mount"
                    | "-L"
                    | "-P"
                    | "-H"
                    | "-maxdepth"
                    | "-mindepth"
                    | "-delete"
                    | "-print"
                    | "-print0"
            )
    });
    // the names a `-name` / `-iname` test admits (not a negated one:
    // `! -name '*.pub'`): `{}` is one of them under the start path
    // (`find ~/.ssh -name 'id_*'` → `~/.ssh/id_*`, a glob over its keys)
    // (`-iname` lower-cased: the known entries are)
    let names: Vec<String> = args
        .windows(2)
        .enumerate()
        .filter(|(j, w)| {
            matches!(w[0].text.as_str(), "-name" | "-iname")
                && !w[1].dynamic
                && !w[1].text.contains('/')
                && (*j == 0 || !matches!(args[j - 1].text.as_str(), "!" | "-not"))
        })
        .map(|(_, w)| {
            if w[0].text == "-iname" {
                w[1].text.to_ascii_lowercase()
            } else {
                w[1].text.clone()
            }
        })
        .collect();
    // more names than are followed: what is left out is unknown
    let too_many = names.len() > MAX_FIND_NAMES;
    // filtered by other tests only (`-type f`): the entries of a folder warden knows, and `{}`
    let guess = filtered && names.is_empty();
    let tails: Vec<String> = if !filtered {
        vec!["*".into()]
    } else if guess {
        vec!["*".into(), "{}".into()]
    } else {
        names.into_iter().take(MAX_FIND_NAMES).collect()
    };
    let (base, under_dyn) = match start {
        Some(a) => (
            a.text.trim_end_matches('/').to_string(),
            a.dynamic || too_many,
        ),
        None => (".".to_string(), too_many),
    };
    // a name glob over a directory with known entries is those entries
    // (also inside a word: `-F f=@{}`)
    let unders: Vec<String> = tails
        .iter()
        .flat_map(|tail| {
            let under = format!("{base}/{tail}");
            let under = if under.len() <= 3 {
                under
            } else {
                under.replace("//", "/")
            };
            let abs = match (&c.cwd, under.starts_with(['/', '~'])) {
                (Some(d), false) => format!("{}/{under}", d.trim_end_matches('/')),
                _ => under.clone(),
            };
            match (*tail != "{}" && !under_dyn)
                .then(|| expand::top_glob(&abs, home))
                .flatten()
            {
                Some(found) => found,
                // the any-entry guess of a filtered find counts only where it names entries
                None if guess && tail == "*" => Vec::new(),
                None => vec![under],
            }
        })
        .take(expand::MAX_EXPANSION)
        .collect();
    (unders, under_dyn)
}

/// What `echo` / `printf` with these arguments print (escapes applied).
fn echo_text(c: &SimpleCommand) -> Option<Stdin> {
    if !(c.program == "echo" || c.program == "printf") || c.dynamic_program {
        return None;
    }
    let mut escapes = false;
    let args: Vec<&Arg> = c
        .args
        .iter()
        .skip_while(|a| {
            let opt = c.program == "echo"
                && matches!(a.text.as_str(), "-n" | "-e" | "-E" | "-ne" | "-en");
            escapes |= opt && a.text.contains('e');
            opt
        })
        .collect();
    let dynamic = args.iter().any(|a| a.dynamic);
    if c.program == "printf" {
        let v: Vec<&str> = args.iter().map(|a| a.text.as_str()).collect();
        let v = if v.first() == Some(&"--") {
            &v[1..]
        } else {
            &v[..]
        };
        return Some(Stdin {
            text: expand::printf(v),
            dynamic,
        });
    }
    let mut text = String::new();
    for (k, a) in args.iter().enumerate() {
        if k > 0 {
            text.push(' ');
        }
        text.push_str(&a.text);
    }
    if escapes {
        text = expand::unescape(&text, true);
    }
    Some(Stdin { text, dynamic })
}

/// Is `IFS` set on this line to something other than blanks (or to an unknown value)?
fn odd_ifs(ctx: &Ctx) -> bool {
    match ctx.lookup("IFS") {
        None => false,
        Some(None) => true,
        Some(Some(v)) => v.chars().any(|c| !matches!(c, ' ' | '\t' | '\n')),
    }
}

impl AW {
    fn lit(text: String, dynamic: bool) -> AW {
        AW {
            text,
            dynamic,
            assign: false,
            split: false,
            brace: false,
            glob: false,
        }
    }
}

/// Variables whose value a program runs as a command line.
const EXEC_VARS: &[&str] = &[
    "GIT_SSH_COMMAND",
    "GIT_SSH",
    "GIT_PAGER",
    "GIT_EDITOR",
    "GIT_EXTERNAL_DIFF",
    "GIT_ASKPASS",
    "SSH_ASKPASS",
    "PAGER",
    "MANPAGER",
    "EDITOR",
    "VISUAL",
    "LESSOPEN",
    "LESSCLOSE",
    "BROWSER",
    "PROMPT_COMMAND",
    "SUDO_ASKPASS",
];

/// Variables naming a file a shell sources before it runs (`BASH_ENV=f bash -c …`, `ENV=f sh -i`).
const SOURCED_VARS: &[&str] = &["BASH_ENV", "ENV"];

/// Script text arriving on stdin (heredoc, here-string, `echo … |`).
#[derive(Clone)]
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

/// Is one of the short options `letters` among the options right after
/// `from` (up to the first operand)? `command docker run -v …` is not `command -v`.
fn has_opt<T: Tx>(v: &[T], from: usize, letters: &[u8]) -> bool {
    v[from.min(v.len())..]
        .iter()
        .take_while(|a| a.tx().0.starts_with('-') && a.tx().0 != "--")
        .any(|a| {
            let t = a.tx().0;
            t.len() > 1 && !t.starts_with("--") && t.bytes().skip(1).any(|b| letters.contains(&b))
        })
}

/// Does a script run by its path run in a shell: no `#!` line (the kernel refuses it and
/// the shell runs it itself) or a `#!` naming a shell?
fn runs_as_shell(text: &str) -> bool {
    match text.strip_prefix("#!") {
        None => true,
        Some(rest) => {
            let line = rest.lines().next().unwrap_or("");
            let mut words = line.split_whitespace();
            let prog = match words.next().map(basename) {
                Some("env") => words.find(|w| !w.starts_with('-')).unwrap_or(""),
                Some(p) => p,
                None => "",
            };
            SHELLS.contains(&prog)
        }
    }
}

fn basename(t: &str) -> &str {
    match t.rfind('/') {
        Some(p) if p + 1 < t.len() => &t[p + 1..],
        _ => t,
    }
}

/// `c` starts an interactive shell: `su [-] [user]` without `-c`, or a
/// shell with no script and no `-c`.
fn interactive_shell(c: &SimpleCommand) -> bool {
    let name = c.program.as_str();
    let rest = &c.args[..];
    if c.dynamic_program || rest.iter().any(|a| a.dynamic) {
        return false;
    }
    if name == "su" {
        return !rest.iter().any(|a| {
            a.text == "-c"
                || a.text.starts_with("--command")
                || a.text.starts_with("--session-command")
                || (a.text.starts_with('-') && !a.text.starts_with("--") && a.text.ends_with('c'))
        });
    }
    SHELLS.contains(&name)
        && rest.iter().all(|a| {
            a.text.starts_with('-') && !a.text.starts_with("--") && !a.text[1..].contains('c')
                || a.text.starts_with("--") && a.text != "--rcfile"
        })
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
        /// the script's positional parameters, when known (`sh -c '…$1…' _ ARG`)
        pos: Option<Vec<String>>,
    },
    Stdin {
        label: String,
        remote: bool,
    },
    Exec(Vec<Vec<AW>>, &'static str),
    /// A program in another language to read (`rake` reading the Rakefile this line wrote).
    Body {
        lang: Lang,
        text: String,
        label: String,
    },
}

impl Walker<'_> {
    /// Take `n` words from the analysis's word budget (words are parsed, added by expansion
    /// or copied from a group's redirections). `false` when it is spent: the analysis is then
    /// truncated and dynamic, and the caller leaves the words out.
    fn charge(&mut self, n: usize) -> bool {
        let taken = self.budget.take_words(n);
        if !taken {
            self.out.truncated = true;
            self.out.dynamic = true;
        }
        taken
    }

    /// Remember what a variable now holds the output of (`k=$(gh auth token)`): the
    /// commands that fed its assignment; none clears it. The oldest is forgotten past
    /// [`MAX_VAR_SOURCES`].
    fn set_var_sources(&mut self, name: &str, feeders: &[usize]) {
        self.var_sources.retain(|(n, _)| n != name);
        if !feeders.is_empty() {
            if self.var_sources.len() >= MAX_VAR_SOURCES {
                self.var_sources.remove(0);
            }
            self.var_sources.push((name.to_string(), feeders.to_vec()));
        }
    }

    fn edge(&mut self, a: usize, b: usize) {
        if a == b {
            return;
        }
        if self.out.feeds.len() >= MAX_FEEDS {
            self.out.truncated = true;
            return;
        }
        self.out.feeds.push((a, b));
        // `find … -exec cat {} + | nc …`: the `-exec` commands' output is find's
        let children: Vec<usize> = self
            .exec_children
            .iter()
            .filter(|&&(p, _)| p == a)
            .map(|&(_, ch)| ch)
            .collect();
        for ch in children {
            self.edge(ch, b);
        }
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
        let single = list.items.len() == 1;
        for (p, conn) in list.items {
            // (B of `A || B` runs where A started; A's own directory is kept for below)
            let success = restore
                .take()
                .map(|c| (std::mem::replace(&mut ctx.cwd, c.clone()), c));
            if conn == Conn::Or {
                restore = Some(ctx.cwd.clone());
            }
            let start = self.out.commands.len();
            let pio = if conn == Conn::Bg {
                let mut c2 = ctx.clone();
                self.pipeline(p, &mut c2)
            } else {
                self.pipeline(p, ctx)
            };
            // after `A || B`, what follows runs where A left it when B exits (`cd dir ||
            // exit 1`: had A failed, nothing would follow) or B moved nowhere (`cd dir ||
            // true`: A's success is the usual case, and the directory B would leave is A's start)
            if let Some((a_cwd, start_cwd)) = success.filter(|_| conn != Conn::Or) {
                let exits = self.out.commands[start.min(self.out.commands.len())..]
                    .iter()
                    .any(|c| c.program == "exit" || c.program == "return");
                if exits || ctx.cwd == start_cwd {
                    ctx.cwd = a_cwd;
                }
            }
            if io.heads.is_empty() && io.tails.is_empty() {
                io = pio;
            } else {
                io.heads.extend(pio.heads);
                io.tails.extend(pio.tails);
            }
        }
        if !single {
            io.out = None;
        }
        io
    }

    fn pipeline(&mut self, mut p: Pipeline, ctx: &mut Ctx) -> Io {
        if p.cmds.len() == 1 {
            let n = p.cmds.pop().unwrap_or(Node::Words(Vec::new()));
            let mut io = self.node(n, ctx, None);
            io.out = self.stage_output(&io, None);
            return io;
        }
        let mut io = Io::default();
        let mut prev = Ids::default();
        let mut stdin: Option<Stdin> = None;
        for (k, n) in p.cmds.into_iter().enumerate() {
            let mut c2 = ctx.clone();
            let fed = stdin.clone();
            let nio = self.node(n, &mut c2, stdin.take());
            for t in prev.iter() {
                for h in nio.heads.iter() {
                    self.edge(t, h);
                }
            }
            if k == 0 {
                io.heads = nio.heads.clone();
            }
            stdin = self.stage_output(&nio, fed);
            prev = nio.tails;
        }
        io.tails = prev;
        io.out = stdin;
        io
    }

    /// What a pipeline stage writes to stdout, when static: `echo`/`printf`
    /// output, a decoder's (`base64 -d`, `xxd -r -p`, `rev`, `tr`, `openssl
    /// enc -d`) output of a literal input, `cat` passing its input on, the names
    /// `ls FILE…` lists and the paths `find START -name PAT` prints. A
    /// decoder of unknown input yields dynamic output.
    fn stage_output(&self, io: &Io, input: Option<Stdin>) -> Option<Stdin> {
        if io.tails.len() != 1 || io.heads != io.tails {
            return None;
        }
        let c = self.out.commands.get(io.tails.one)?;
        if c.dynamic_program || c.redirects.iter().any(|r| r.writes() && r.fd != Some(2)) {
            return None;
        }
        let texts: Vec<&str> = c.args.iter().map(|a| a.text.as_str()).collect();
        let dynamic = c.has_dynamic_args();
        let decoded = |f: &dyn Fn(&str) -> Option<String>| -> Option<Stdin> {
            match &input {
                Some(i) if !i.dynamic => Some(match f(&i.text) {
                    Some(t) => Stdin {
                        text: t,
                        dynamic: false,
                    },
                    None => Stdin {
                        text: String::new(),
                        dynamic: true,
                    },
                }),
                _ => Some(Stdin {
                    text: String::new(),
                    dynamic: true,
                }),
            }
        };
        let lossy = |v: Vec<u8>| String::from_utf8_lossy(&v).into_owned();
        match c.program.as_str() {
            "echo" | "printf" => self.literal_output(io),
            "base64" | "basenc" if c.has_flag(&["-d", "--decode", "-D"]) => {
                if texts.iter().any(|t| !t.starts_with('-')) {
                    return decoded(&|_| None);
                }
                decoded(&|t| expand::base64(t).map(lossy))
            }
            "base32" | "uudecode" if c.has_flag(&["-d", "--decode"]) || c.program == "uudecode" => {
                decoded(&|_| None)
            }
            "openssl"
                if c.subcommand() == Some("base64")
                    || (c.subcommand() == Some("enc") && c.has_flag(&["-d"])) =>
            {
                if c.has_flag(&["-in"])
                    || !(c.has_flag(&["-a", "-base64"]) || c.subcommand() == Some("base64"))
                {
                    return decoded(&|_| None);
                }
                decoded(&|t| expand::base64(t).map(lossy))
            }
            "xxd" if c.has_flag(&["-r", "--revert"]) => {
                if c.has_flag(&["-p", "-ps", "-plain"])
                    && !texts.iter().any(|t| !t.starts_with('-'))
                {
                    decoded(&|t| expand::hex(t).map(lossy))
                } else {
                    decoded(&|_| None)
                }
            }
            "rev" if texts.is_empty() => decoded(&|t| Some(expand::rev(t))),
            "tr" if !dynamic => decoded(&|t| expand::tr(&texts, t)),
            "cat" | "tee" if texts.is_empty() || texts == ["-"] => input,
            // line filters between a listing and its reader (`ls ~/.ssh | grep -v pub |
            // head -1 | xargs cat`): a literal `grep` keeps (or with -v drops) the lines
            // holding its pattern; `head`/`tail` keep their lines. A partly known input keeps
            // all of its known lines (and stays dynamic).
            "grep" | "head" | "tail" => {
                let input = input?;
                let text = match c.program.as_str() {
                    "grep" => grep_lines(&texts, &input.text)?,
                    p => head_tail_lines(p == "head", &texts, &input.text, input.dynamic)?,
                };
                Some(Stdin {
                    text,
                    dynamic: input.dynamic,
                })
            }
            // `find START -name PAT` prints the paths its test admits (see `find_paths`)
            // (only paths resolved to known entries or exact names; any other path makes the
            // output dynamic, with the resolved ones still in its text for `xargs`)
            "find" if !c.has_flag(&["-exec", "-execdir", "-ok", "-okdir", "-delete"]) => {
                let (paths, dynamic) = find_paths(c, self.home);
                let (known, unknown): (Vec<String>, Vec<String>) = paths
                    .into_iter()
                    .partition(|p| !p.contains(['*', '?', '[']) && !p.ends_with("{}"));
                Some(Stdin {
                    text: if dynamic {
                        String::new()
                    } else {
                        known.join("\n")
                    },
                    dynamic: dynamic || !unknown.is_empty(),
                })
            }
            // `ls PATH…` lists what warden knows of each (`expand::listing`: a known folder's
            // entry names, a known entry itself, as a glob there expanded to); any other path
            // makes the output dynamic, the known part still in its text for `xargs`
            "ls" if !dynamic
                && texts.iter().any(|t| !t.starts_with('-'))
                && texts
                    .iter()
                    .all(|t| !t.starts_with('-') || matches!(*t, "-1" | "-a" | "-A")) =>
            {
                let all = texts.iter().any(|t| matches!(*t, "-a" | "-A"));
                let mut known = Vec::new();
                let mut unknown = false;
                for a in c.positionals() {
                    match a
                        .path
                        .as_deref()
                        .and_then(|p| expand::listing(p, self.home))
                    {
                        // without `-a`, a folder's listing hides its dot-entries
                        Some(names) => {
                            known.extend(names.into_iter().filter(|n| all || !n.starts_with('.')))
                        }
                        None => unknown = true,
                    }
                }
                Some(Stdin {
                    text: known.join("\n"),
                    dynamic: unknown,
                })
            }
            _ => None,
        }
    }

    /// Static output of a lone `echo`/`printf` (for `echo 'rm -rf /' | sh`).
    fn literal_output(&self, io: &Io) -> Option<Stdin> {
        if io.tails.len() != 1 || io.heads != io.tails {
            return None;
        }
        let c = self.out.commands.get(io.tails.one)?;
        if c.redirects.iter().any(|r| r.writes() && r.fd != Some(2)) {
            return None;
        }
        echo_text(c)
    }

    /// Remember the text a command writes to a file when it is known: `echo`/`printf`
    /// of literals, or `cat` / `tee` passing on a known stdin (a here-document), into
    /// one `>` / `>>` target (for `>>`, the text this line appended). Bounded: at most
    /// [`MAX_FILES`] files of [`MAX_FILE_TEXT`] bytes each.
    fn record_written(&mut self, idx: usize, stdin: Option<&Stdin>) {
        let c = &self.out.commands[idx];
        if c.dynamic_program {
            return;
        }
        let known_stdin = || stdin.filter(|s| !s.dynamic).map(|s| s.text.clone());
        let (path, text) = match c.program.as_str() {
            "tee" => {
                let mut files = c.positionals().filter(|a| !a.dynamic);
                match (files.next().and_then(|a| a.path.clone()), files.next()) {
                    (Some(p), None) => (Some(p), known_stdin()),
                    _ => return,
                }
            }
            p => {
                let mut outs = c
                    .redirects
                    .iter()
                    .filter(|r| r.writes() && r.fd.is_none_or(|f| f == 1));
                let (Some(r), None) = (outs.next(), outs.next()) else {
                    return;
                };
                let text = match p {
                    "echo" | "printf" => echo_text(c).filter(|s| !s.dynamic).map(|s| s.text),
                    "cat" if c.positionals().next().is_none() => known_stdin(),
                    _ => None,
                };
                (r.path.clone().filter(|_| !r.dynamic), text)
            }
        };
        let (Some(path), Some(text)) = (path, text) else {
            return;
        };
        if text.len() > MAX_FILE_TEXT {
            return;
        }
        self.files.retain(|(p, _)| *p != path);
        if self.files.len() >= MAX_FILES {
            self.files.remove(0);
        }
        self.files.push((path, text));
    }

    /// The script a shell or `source` reads from the file argument `a`: a file this line
    /// wrote, or a process substitution's output (`bash <(printf '…')`, `source <(…)`), and
    /// whether it is only partly known. A `<(…)` is read only when it is the one among `args`
    /// (the walker keeps the last substitution's output, and each reads as `/dev/fd/63`).
    fn script_file(&self, a: &Arg, args: &[Arg]) -> Option<(String, bool)> {
        if a.text == "/dev/fd/63" {
            let single = args.iter().filter(|x| x.text == "/dev/fd/63").count() == 1;
            return self
                .procsub_out
                .as_ref()
                .filter(|_| single)
                .map(|s| (s.text.clone(), s.dynamic));
        }
        self.written(a).map(|t| (t, false))
    }

    /// The text this line wrote to the file at `p` (relative to `cwd`), if known.
    fn written_path(&self, p: &str, cwd: Option<&str>) -> Option<String> {
        self.file_text(&normalize(p, cwd, self.home)?)
    }

    /// The text this line last wrote to the absolute path `p`, if known.
    fn file_text(&self, p: &str) -> Option<String> {
        self.files
            .iter()
            .rev()
            .find(|(f, _)| f == p)
            .map(|(_, t)| t.clone())
    }

    /// What `make` would run from makefile text this line gives it: the recipe lines
    /// (tab-indented, `@` / `-` prefixes dropped) of the makefile it reads (`-f FILE` this line
    /// wrote or a lone `<(…)`, else the `GNUmakefile`, `makefile` or `Makefile` this line
    /// wrote) and of its `--eval` / `-E` texts, and every `$(shell …)` of them, read as the
    /// shell's (see [`make_vars_to_shell`]); dynamic if the makefile was. A dry run or a
    /// makefile in another directory (`-n`, `-q`, `-C`) runs no recipe this line wrote here,
    /// but its `--eval` text and every `$(shell …)` still run when make parses.
    fn written_makefile(&self, c: &SimpleCommand) -> Option<(String, bool)> {
        let cwd = c.cwd.as_deref();
        let mut elsewhere_or_dry = false;
        // the makefile named (its argument, the file's name) and the `--eval` texts
        let mut named: Option<(&Arg, &str)> = None;
        let mut evals: Vec<(&str, bool)> = Vec::new();
        let mut k = 0;
        while k < c.args.len() {
            let a = &c.args[k];
            let t = a.text.as_str();
            k += 1;
            match t {
                "-f" | "--file" | "--makefile" => {
                    if let Some(f) = c.args.get(k) {
                        named = named.or(Some((f, f.text.as_str())));
                    }
                    k += 1;
                }
                "-E" | "--eval" => {
                    evals.extend(c.args.get(k).map(|e| (e.text.as_str(), e.dynamic)));
                    k += 1;
                }
                "-n" | "--dry-run" | "--just-print" | "--recon" | "-C" | "--directory" | "-q"
                | "--question" => elsewhere_or_dry = true,
                _ => {
                    if let Some(e) = t.strip_prefix("--eval=").or_else(|| t.strip_prefix("-E")) {
                        evals.push((e, a.dynamic));
                    } else if let Some(f) = t
                        .strip_prefix("--file=")
                        .or_else(|| t.strip_prefix("--makefile="))
                        .or_else(|| t.strip_prefix("-f"))
                    {
                        named = named.or(Some((a, f)));
                    } else {
                        elsewhere_or_dry |= t.starts_with("--directory=")
                            || (t.len() > 2
                                && t.starts_with('-')
                                && !t.starts_with("--")
                                && t[1..].contains(['n', 'C']));
                    }
                }
            }
        }
        let file = match named.filter(|_| !elsewhere_or_dry) {
            Some((a, "/dev/fd/63")) => self.script_file(a, &c.args),
            Some((_, f)) => self.written_path(f, cwd).map(|t| (t, false)),
            None if elsewhere_or_dry => None,
            None => ["GNUmakefile", "makefile", "Makefile"]
                .iter()
                .find_map(|f| self.written_path(f, cwd))
                .map(|t| (t, false)),
        };
        let (mut text, mut dynamic) = file.unwrap_or_default();
        for (e, d) in evals {
            text.push('\n');
            text.push_str(e);
            dynamic |= d;
        }
        let mut runs: Vec<&str> = match elsewhere_or_dry {
            true => Vec::new(),
            false => text
                .lines()
                .filter_map(|l| l.strip_prefix('\t'))
                .map(|l| l.trim_start_matches(['@', '-', '+']))
                .collect(),
        };
        runs.extend(make_shell_calls(&text));
        (!runs.is_empty()).then(|| (make_vars_to_shell(&runs.join("\n"), &text), dynamic))
    }

    /// What a task runner or package tool runs from a file this line wrote in the command's
    /// directory (or the one its option names): a justfile's recipe lines, a Taskfile's
    /// `cmds`, tox.ini's `commands`, an `.envrc` (direnv), a `package.json`'s scripts (npm,
    /// yarn, pnpm, bun), a Rakefile (Ruby), a `setup.py` (`pip install .` / `-e .`); for a
    /// package directory installed (`npm install /tmp/p`), the files in it.
    fn written_config(&self, c: &SimpleCommand) -> Option<Act> {
        let cwd = c.cwd.as_deref();
        let p = c.program.as_str();
        let (names, flags): (&[&str], &[&str]) = match p {
            "just" => (
                &["justfile", "Justfile", ".justfile"],
                &["-f", "--justfile"],
            ),
            "task" | "go-task" => (
                &[
                    "Taskfile.yml",
                    "Taskfile.yaml",
                    "taskfile.yml",
                    "taskfile.yaml",
                ],
                &["-t", "--taskfile"],
            ),
            "tox" => (&["tox.ini"], &["-c"]),
            "rake" => (
                &["Rakefile", "rakefile", "Rakefile.rb"],
                &["-f", "--rakefile"],
            ),
            "direnv" if matches!(c.subcommand(), Some("allow" | "exec" | "reload")) => {
                (&[".envrc"], &[])
            }
            "npm" => (&["package.json"], &["--prefix"]),
            "yarn" | "bun" => (&["package.json"], &["--cwd"]),
            "pnpm" => (&["package.json"], &["-C", "--dir"]),
            _ if (p.starts_with("pip")
                || p == "uv"
                || (p.starts_with("python") && c.args.iter().any(|a| a.text == "pip")))
                && local_packages(c).next().is_some() =>
            {
                (&["setup.py"], &[])
            }
            _ => return None,
        };
        let named = c
            .args
            .iter()
            .position(|a| flags.contains(&a.text.as_str()))
            .and_then(|k| c.args.get(k + 1))
            .filter(|a| !a.dynamic);
        let text = match named {
            // npm --prefix DIR, yarn --cwd DIR, pnpm -C DIR: the package.json in DIR
            Some(a) if names == ["package.json"] => {
                self.written_path(&format!("{}/package.json", a.text), cwd)
            }
            Some(a) => self.written_path(&a.text, cwd),
            // `npm install ./pkg`, `pip install /tmp/p`: an installed package directory's
            // install scripts (package.json's, setup.py) run; else the command's directory
            None => local_packages(c)
                .chain(std::iter::once("."))
                .find_map(|dir| {
                    names
                        .iter()
                        .find_map(|f| self.written_path(&format!("{dir}/{f}"), cwd))
                }),
        }?;
        let shell = |t: String, label: &str| script(t, false, label.to_string());
        match p {
            "just" => Some(shell(indented_lines(&text), "justfile")),
            "task" | "go-task" => Some(shell(taskfile_cmds(&text), "Taskfile")),
            "tox" => Some(shell(tox_commands(&text), "tox.ini")),
            "direnv" => Some(shell(text, ".envrc")),
            "npm" | "yarn" | "pnpm" | "bun" => Some(shell(package_scripts(&text), "npm script")),
            "rake" => Some(Act::Body {
                lang: Lang::Ruby,
                text,
                label: "Rakefile".into(),
            }),
            _ => Some(Act::Body {
                lang: Lang::Python,
                text,
                label: "setup.py".into(),
            }),
        }
    }

    /// The text this line wrote to the file `a` names, if known (see [`Self::record_written`]).
    fn written(&self, a: &Arg) -> Option<String> {
        self.file_text(a.path.as_deref().filter(|_| !a.dynamic)?)
    }

    fn node(&mut self, n: Node, ctx: &mut Ctx, stdin: Option<Stdin>) -> Io {
        match n {
            Node::Simple(s) => self.simple(s, ctx, stdin),
            Node::Group {
                list,
                subshell,
                redirs,
            } => self.compound(ctx, redirs, Vec::new(), Vec::new(), |w, ctx, _| {
                if subshell {
                    let mut c2 = ctx.clone();
                    w.list(list, &mut c2)
                } else {
                    w.list(list, ctx)
                }
            }),
            Node::For {
                var,
                words,
                body,
                redirs,
            } => {
                let mut feeders = Vec::new();
                let mut fed = Vec::new();
                let values: Vec<Option<String>> = match words {
                    Some(ws) => {
                        let argv = ws
                            .into_iter()
                            .map(|w| self.word(w, ctx, &mut feeders, &mut fed))
                            .collect();
                        self.expand_words(argv, 0, ctx.cwd.as_deref())
                            .into_iter()
                            .map(|a| (!a.dynamic).then_some(a.text))
                            .collect()
                    }
                    None => match &ctx.pos {
                        Some(p) => p.iter().cloned().map(Some).collect(),
                        None => vec![None],
                    },
                };
                let vars: Vec<String> = var.into_iter().collect();
                let rows = values.into_iter().map(|v| vec![v]).collect();
                self.compound(ctx, redirs, feeders, fed, |w, ctx, feeders| {
                    w.loop_body(&vars, rows, feeders, body, ctx)
                })
            }
            Node::While { cond, body, redirs } => {
                let mut feeders = Vec::new();
                let mut fed = Vec::new();
                self.procsub_out = None;
                let reads_procsub = redirs.iter().any(|r| {
                    r.op == RedirOp::Read
                        && r.fd.is_none_or(|f| f == 0)
                        && r.target.subs.iter().any(|s| s.kind == SubKind::In)
                });
                let (rs, here) = self.redirects(redirs, ctx, &mut feeders, &mut fed);
                let input = here
                    .or_else(|| self.procsub_out.take().filter(|_| reads_procsub))
                    .or(stdin);
                let start = self.out.commands.len();
                let vars = read_vars(&cond);
                let mut io = self.list(cond, ctx);
                // the lines known (a partly known listing: those, and one unknown row)
                let rows = match (&input, vars.is_empty()) {
                    (Some(s), false) => {
                        let mut rows = read_rows(&s.text, vars.len());
                        if s.dynamic {
                            rows.push(vec![None; vars.len()]);
                        }
                        rows
                    }
                    _ => vec![vec![None; vars.len()]],
                };
                let bio = self.loop_body(&vars, rows, &feeders, body, ctx);
                // the `read` that ends the loop found no line: its variables are empty
                for v in &vars {
                    ctx.set_var(v, Some(String::new()));
                }
                io.heads.extend(bio.heads);
                io.tails.extend(bio.tails);
                io.out = None;
                self.group_redirects(start, &io, &rs, &feeders, &fed);
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
            Node::Func { name, src } => {
                if self.funcs.len() < MAX_VARS {
                    self.funcs.push((name, src, false));
                }
                Io::default()
            }
        }
    }

    /// A group's or loop's redirections given to each of its commands (`start..`), and what
    /// feeds them (`< <(ls)`) or they feed (`> >(nc …)`) joined to its heads / tails.
    fn group_redirects(
        &mut self,
        start: usize,
        io: &Io,
        rs: &[Redirect],
        feeders: &[usize],
        fed: &[usize],
    ) {
        let end = self.out.commands.len();
        // each command of the group gets the group's redirections: charged, so nested
        // groups cannot multiply them past the analysis's word budget
        if !rs.is_empty() {
            for i in start..end.min(start + MAX_COMMANDS) {
                // (a reader of the group's input file feeds the group; it is no member)
                if !feeders.contains(&i) && self.charge(rs.len()) {
                    self.out.commands[i].redirects.extend(rs.iter().cloned());
                }
            }
        }
        for &f in feeders {
            for h in io.heads.iter() {
                self.edge(f, h);
            }
        }
        for t in io.tails.iter() {
            for &f in fed {
                self.edge(t, f);
            }
        }
    }

    /// A loop's body walked once per row of values for `vars` (a `for` word, or the fields of
    /// a line `read` takes), at most [`MAX_LOOP_VALUES`] distinct rows; past them, or with no
    /// row, once more with the variables unknown. A word using a variable is fed by
    /// `feeders`, what produced the values. Every walk after the first is charged to the
    /// word budget (nested loops cannot multiply past it).
    fn loop_body(
        &mut self,
        vars: &[String],
        mut rows: Vec<Vec<Option<String>>>,
        feeders: &[usize],
        body: List,
        ctx: &mut Ctx,
    ) -> Io {
        let mut seen = std::collections::HashSet::new();
        rows.retain(|r| seen.insert(r.clone()));
        if rows.len() > MAX_LOOP_VALUES {
            // the home's entries are what a loop over many decoys would hide
            let home = self.home.unwrap_or("~");
            rows.sort_by_key(|r| !r.iter().flatten().any(|v| v.contains(home)));
        }
        if rows.len() > MAX_LOOP_VALUES || rows.is_empty() {
            rows.truncate(MAX_LOOP_VALUES);
            rows.push(vec![None; vars.len()]);
        }
        for v in vars {
            self.set_var_sources(v, feeders);
        }
        let cost = list_words(&body);
        let mut io = Io::default();
        for (k, row) in rows.into_iter().enumerate() {
            if k > 0 && !self.charge(cost) {
                break;
            }
            for (v, value) in vars.iter().zip(row) {
                ctx.set_var(v, value);
            }
            let bio = self.list(body.clone(), ctx);
            io.heads.extend(bio.heads);
            io.tails.extend(bio.tails);
        }
        io
    }

    /// A privilege wrapper starting an interactive root shell (`sudo su`,
    /// `sudo -s`, `sudo bash`, `pkexec /bin/sh`) with nothing fed to it: the
    /// act is the wrapper, so it is recorded as a command of its own
    /// (`sudo bash`, program `sudo`) beside the shell.
    fn root_shells(&mut self) {
        let n = self.out.commands.len();
        for i in 0..n {
            let c = &self.out.commands[i];
            let Some(w) = c
                .via
                .iter()
                .rev()
                .find(|v| matches!(v.as_str(), "sudo" | "doas" | "run0" | "pkexec"))
            else {
                continue;
            };
            let fed = self.out.feeds.iter().any(|&(_, b)| b == i)
                || c.redirects.iter().any(|r| {
                    matches!(
                        r.op,
                        RedirOp::Read
                            | RedirOp::HereDoc
                            | RedirOp::HereDocStrip
                            | RedirOp::HereString
                    )
                });
            if fed || !interactive_shell(c) || self.out.commands.len() >= MAX_COMMANDS {
                continue;
            }
            let mut args = vec![Arg {
                text: c.program.clone(),
                path: None,
                dynamic: false,
            }];
            args.extend(c.args.iter().cloned());
            let sc = SimpleCommand {
                program: w.clone(),
                args,
                redirects: Vec::new(),
                dynamic_program: false,
                nested_dynamic: false,
                depth: c.depth,
                cwd: c.cwd.clone(),
                via: Vec::new(),
            };
            self.out.commands.push(sc);
        }
    }

    /// Function bodies never called on the line are still walked (unbound arguments).
    fn uncalled_functions(&mut self, ctx: &Ctx) {
        let pending: Vec<(String, String)> = self
            .funcs
            .iter()
            .filter(|f| !f.2)
            .map(|f| (f.0.clone(), f.1.clone()))
            .collect();
        for (name, src) in pending {
            let mut c2 = ctx.clone();
            c2.pos = None;
            c2.via.push(format!("function {name}"));
            self.active.push(name);
            self.script(&src, &mut c2);
            self.active.pop();
        }
    }

    /// Walk a word's substitutions; fold `$(echo x)` into the text.
    fn word(&mut self, w: Word, ctx: &Ctx, feeders: &mut Vec<usize>, fed: &mut Vec<usize>) -> AW {
        let Word {
            mut text,
            dynamic,
            assign,
            subs,
            vars,
            dyn_other,
            brace,
            glob,
            ..
        } = w;
        if subs.is_empty() && vars.is_empty() {
            return AW {
                text,
                dynamic,
                assign,
                split: false,
                brace,
                glob,
            };
        }
        let mut still_dynamic = dyn_other;
        let mut split = false;
        // (offset, length, replacement) edits over the parsed text
        let mut edits: Vec<(usize, usize, String)> = Vec::new();
        for v in &vars {
            if let Some((_, src)) = self.var_sources.iter().find(|(n, _)| *n == v.name) {
                feeders.extend(src.iter().copied());
            }
        }
        for v in vars {
            match ctx.lookup(&v.name) {
                // an `IFS` set on the line to other characters than blanks (or to an unknown
                // value) splits unquoted expansions on them (`IFS=,; c=rm,-rf,~; $c`), which
                // the analysis does not model; strict mode's `IFS=$'\n\t'` splits as before
                Some(Some(_)) if !v.quoted && odd_ifs(ctx) => still_dynamic = true,
                Some(Some(val)) => {
                    let val = v.value_of(val);
                    split |= (!v.quoted || v.name == "@") && val.contains([' ', '\t', '\n']);
                    edits.push((v.at, v.len, val));
                }
                _ => still_dynamic = true,
            }
        }
        for sub in subs {
            let mut c2 = ctx.clone();
            let quoted = sub.quoted;
            let io = self.list(sub.list, &mut c2);
            match sub.kind {
                SubKind::Cmd => {
                    let f = if sub.at != usize::MAX {
                        io.out
                            .as_ref()
                            .filter(|s| !s.dynamic)
                            .map(|s| s.text.clone())
                            .or_else(|| self.known_output(&io, &c2))
                    } else {
                        None
                    };
                    match f {
                        Some(f) => {
                            let f = f.trim_end_matches('\n').to_string();
                            split |= !quoted && f.contains([' ', '\t', '\n']);
                            edits.push((sub.at, SUB_MARKER.len(), f));
                        }
                        None => still_dynamic = true,
                    }
                    feeders.extend(io.tails.iter());
                }
                SubKind::In => {
                    still_dynamic = true;
                    feeders.extend(io.tails.iter());
                    self.procsub_out = io.out;
                }
                SubKind::Out => {
                    still_dynamic = true;
                    fed.extend(io.heads.iter());
                }
            }
        }
        edits.sort_by_key(|e| std::cmp::Reverse(e.0));
        for (at, len, val) in edits {
            let end = at + len;
            if end <= text.len() && text.is_char_boundary(at) && text.is_char_boundary(end) {
                text.replace_range(at..end, &val);
            }
        }
        if text.len() > super::MAX_INPUT {
            let mut cut = super::MAX_INPUT;
            while !text.is_char_boundary(cut) {
                cut -= 1;
            }
            text.truncate(cut);
            self.out.truncated = true;
        }
        AW {
            text,
            dynamic: still_dynamic,
            assign,
            split: split && !assign,
            brace,
            glob,
        }
    }

    /// Output of a command substitution that is harmless and known in kind:
    /// `$(which X)`/`$(command -v X)` is X, `$(pwd)` the cwd, `$(date …)`,
    /// `$(git rev-parse …)`, `$(nproc)`, `$(id -u)` … a placeholder value, `$(mktemp -d)` a
    /// path under /tmp, and `$(basename P)`/`$(dirname P)` computed.
    fn known_output(&self, io: &Io, ctx: &Ctx) -> Option<String> {
        if io.tails.len() != 1 || io.heads != io.tails {
            return None;
        }
        let c = self.out.commands.get(io.tails.one)?;
        if c.dynamic_program || c.has_dynamic_args() {
            return None;
        }
        let pos: Vec<&str> = c.positionals().map(|a| a.text.as_str()).collect();
        Some(match c.program.as_str() {
            "which" | "type" if pos.len() == 1 => basename(pos[0]).to_string(),
            "command" if c.has_short('v') && pos.len() == 1 => basename(pos[0]).to_string(),
            "pwd" => ctx.cwd.clone().unwrap_or_else(|| ".".into()),
            "date" => "2026-01-01".into(),
            "nproc" => "4".into(),
            "whoami" | "logname" => "user".into(),
            "hostname" | "uname" | "arch" => "host".into(),
            "id" if c.has_short('u') || c.has_short('g') => {
                if c.has_short('n') {
                    "user".into()
                } else {
                    "1000".into()
                }
            }
            "git" if c.subcommand() == Some("rev-parse") => {
                if c.has_flag(&["--show-toplevel"]) {
                    ctx.cwd.clone().unwrap_or_else(|| ".".into())
                } else if c.has_flag(&["--abbrev-ref"]) {
                    "main".into()
                } else {
                    "0000000".into()
                }
            }
            "git" if c.subcommand() == Some("describe") => "v0.0.0".into(),
            "basename" if !pos.is_empty() => basename(pos[0]).to_string(),
            // a new file or directory under /tmp (its template's X's stay), unless the line
            // moved the temporary directory (`TMPDIR=…`; a `TMPDIR=` prefix of mktemp itself is
            // not seen: see the README's known gaps)
            "mktemp"
                if pos.is_empty()
                    && !ctx.vars.iter().any(|(n, _)| n == "TMPDIR")
                    && c.args.iter().all(|a| {
                        matches!(a.text.as_str(), "-d" | "-q" | "--directory" | "--quiet")
                    }) =>
            {
                "/tmp/tmp.XXXXXXXXXX".into()
            }
            "mktemp" if pos.len() == 1 && pos[0].starts_with("/tmp/") && !pos[0].contains("..") => {
                pos[0].to_string()
            }
            "dirname" if pos.len() == 1 => match pos[0].rfind('/') {
                Some(0) => "/".into(),
                Some(k) => pos[0][..k].to_string(),
                None => ".".into(),
            },
            _ => return None,
        })
    }

    /// A compound command: its body walked (`walk`, given the commands feeding it), then its
    /// redirections (`{ …; } < f`, `for …; done > f`) given to the body's commands, `feeders` /
    /// `fed` already feeding or fed by it. The shell opens the redirections before the body
    /// runs, so they are resolved where the body started, not where a `cd` in it moved to.
    fn compound(
        &mut self,
        ctx: &mut Ctx,
        redirs: Vec<RawRedir>,
        mut feeders: Vec<usize>,
        mut fed: Vec<usize>,
        walk: impl FnOnce(&mut Self, &mut Ctx, &[usize]) -> Io,
    ) -> Io {
        let start = self.out.commands.len();
        let cwd0 = ctx.cwd.clone();
        let io = walk(self, ctx, &feeders);
        let after = std::mem::replace(&mut ctx.cwd, cwd0);
        let (rs, _) = self.redirects(redirs, ctx, &mut feeders, &mut fed);
        ctx.cwd = after;
        self.group_redirects(start, &io, &rs, &feeders, &fed);
        io
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
            let file = !matches!(
                r.op,
                RedirOp::HereDoc
                    | RedirOp::HereDocStrip
                    | RedirOp::HereString
                    | RedirOp::DupOut
                    | RedirOp::DupIn
            );
            if !file {
                out.push(Redirect {
                    fd: r.fd,
                    op: r.op,
                    target: target.text,
                    path: None,
                    dynamic: target.dynamic,
                });
                continue;
            }
            // bash globs a redirection's word too (`< ~/.ss?/id_rsa`): the file is one of the
            // known entries the glob names, so each is a redirection (and a reader) of its own
            let targets = match target.glob && !target.dynamic && !procsub {
                true => self.expand_words(vec![target], 0, ctx.cwd.as_deref()),
                false => vec![target],
            };
            for target in targets {
                let redirect = self.file_redirect(r.fd, r.op, target, procsub, ctx, feeders);
                out.push(redirect);
            }
        }
        (out, stdin)
    }

    /// A redirection to or from a file (`procsub`: a process substitution's `/dev/fd/63`):
    /// the path it names, and for `cmd < file` the file's reader, a command of its own
    /// feeding this one (`cat file | cmd`), so a rule about reading a file sees every way
    /// it is read.
    fn file_redirect(
        &mut self,
        fd: Option<u32>,
        op: RedirOp,
        target: AW,
        procsub: bool,
        ctx: &Ctx,
        feeders: &mut Vec<usize>,
    ) -> Redirect {
        let path = if (target.dynamic && !procsub)
            || (ctx.remote && !target.text.starts_with(['/', '~']))
        {
            None
        } else {
            normalize(&target.text, ctx.cwd.as_deref(), self.home)
        };
        let device = path.as_deref().is_some_and(|p| p.starts_with("/dev/"));
        if op == RedirOp::Read && fd.is_none_or(|f| f == 0) && !procsub && !device {
            let file = Arg {
                text: target.text.clone(),
                path: path.clone(),
                dynamic: target.dynamic,
            };
            feeders.extend(self.reader(file, ctx.depth, &ctx.cwd, &ctx.via));
        }
        Redirect {
            fd,
            op,
            target: target.text,
            path,
            dynamic: target.dynamic && !procsub,
        }
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
        let argv = self.expand_words(argv, first, ctx.cwd.as_deref());
        // assignments: tracked when alone, and run as a command when the
        // variable's value is one (`GIT_SSH_COMMAND=… git fetch`)
        for a in &argv[..first] {
            let (name, value) = a.text.split_once('=').unwrap_or((&a.text, ""));
            let name = name.trim_end_matches('+');
            self.assigned(name, value, a.dynamic, ctx.cwd.as_deref(), ctx);
            if first >= argv.len() {
                ctx.set_var(name, (!a.dynamic).then(|| value.to_string()));
                // what fed the line's words is what the variable now holds
                self.set_var_sources(name, &feeders);
            }
        }
        if first >= argv.len() {
            if redirects.is_empty() || self.out.commands.len() >= MAX_COMMANDS {
                return Io::default();
            }
            // redirection-only command (`> /etc/hosts` truncates the file); a lone input
            // redirection is its file's reader alone, `$(<file)` being bash's `$(cat file)`
            if let ([r], Some(&idx)) = (&redirects[..], feeders.last()) {
                let c = &self.out.commands[idx];
                if r.op == RedirOp::Read
                    && c.program == "cat"
                    && c.args.first().is_some_and(|a| a.text == r.target)
                {
                    return Io {
                        heads: Ids::single(idx),
                        tails: Ids::single(idx),
                        out: None,
                    };
                }
            }
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
                out: None,
            };
        }
        // `export k=$(gh auth token)` (and declare / local / readonly / typeset) assigns too
        if matches!(
            argv[first].text.as_str(),
            "export" | "declare" | "local" | "readonly" | "typeset"
        ) {
            for a in &argv[first + 1..] {
                if let Some((name, _)) = a.text.split_once('=').filter(|(n, _)| is_var_name(n)) {
                    let name = name.to_string();
                    self.set_var_sources(&name, &feeders);
                }
            }
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
            out: None,
        }
    }

    /// Word splitting of unquoted expansions, brace expansion, and globs over
    /// well-known entries (`expand::top_glob`; words from `first` on). A relative glob is
    /// read in the tracked `cwd` (`cd ~ && rm -rf .[!.]*` names the home's dot-entries).
    fn expand_words(&mut self, argv: Vec<AW>, first: usize, cwd: Option<&str>) -> Vec<AW> {
        if !argv
            .iter()
            .any(|a| a.split || a.brace || a.text.contains(['*', '?', '[']))
        {
            return argv;
        }
        let mut out: Vec<AW> = Vec::with_capacity(argv.len());
        for (k, a) in argv.into_iter().enumerate() {
            if k < first || out.len() >= MAX_WORDS {
                out.push(a);
                continue;
            }
            let words: Vec<AW> = if a.split {
                let words: Vec<AW> = a
                    .text
                    .split([' ', '\t', '\n'])
                    .filter(|w| !w.is_empty())
                    .map(|w| AW::lit(w.to_string(), a.dynamic))
                    .collect();
                // word splitting adds words too (`set -- "$@" "$@"` doubles them): charged
                if !self.charge(words.len().saturating_sub(1)) {
                    out.push(AW::lit(a.text, true));
                    continue;
                }
                words
            } else {
                vec![a]
            };
            for w in words {
                let braced = if w.brace && !w.dynamic {
                    expand::braces(&w.text)
                } else {
                    None
                };
                let list = match braced {
                    Some(v) => v
                        .into_iter()
                        .map(|t| {
                            if t == "~" || t.starts_with("~/") {
                                match self.home {
                                    Some(h) => format!("{h}{}", &t[1..]),
                                    None => t,
                                }
                            } else {
                                t
                            }
                        })
                        .collect(),
                    None => vec![w.text.clone()],
                };
                let mut produced = Vec::with_capacity(list.len());
                for t in list {
                    let relative = w.glob && !t.starts_with(['/', '~', '-']);
                    let abs = match cwd.filter(|_| relative) {
                        Some(c) => format!("{}/{t}", c.trim_end_matches('/')),
                        None => t.clone(),
                    };
                    match (!w.dynamic)
                        .then(|| expand::top_glob(&abs, self.home))
                        .flatten()
                    {
                        Some(g) => produced.extend(g.into_iter().map(|g| AW::lit(g, false))),
                        None => produced.push(AW::lit(t, w.dynamic)),
                    }
                }
                // every word an expansion adds is charged to the analysis's word budget, so
                // expansions re-parsed by `eval` or nested shells cannot multiply past it
                if self.charge(produced.len().saturating_sub(1)) {
                    out.extend(produced);
                } else {
                    out.push(AW::lit(w.text, true));
                }
            }
        }
        out
    }

    /// Walk `text` as a command line run outside any one command (a variable
    /// whose value a program runs, an alias body).
    /// A command of its own that reads `file` (`cmd < file` and `xargs -a file` are `cat file |
    /// cmd`), pushed at the current position; its index, or `None` (the analysis marked
    /// truncated) when no command fits.
    fn reader(
        &mut self,
        file: Arg,
        depth: u8,
        cwd: &Option<String>,
        via: &[String],
    ) -> Option<usize> {
        if self.out.commands.len() >= MAX_COMMANDS {
            self.out.truncated = true;
            self.out.dynamic = true;
            return None;
        }
        self.out.commands.push(SimpleCommand {
            program: "cat".to_string(),
            args: vec![file],
            redirects: Vec::new(),
            dynamic_program: false,
            nested_dynamic: false,
            depth,
            cwd: cwd.clone(),
            via: via.to_vec(),
        });
        Some(self.out.commands.len() - 1)
    }

    /// A variable assigned (`value`, `dynamic` when not known) whose value a program runs
    /// ([`EXEC_VARS`]: `GIT_SSH_COMMAND=…`) or whose file a shell sources ([`SOURCED_VARS`]:
    /// `BASH_ENV=f`, the text this line wrote to `f`, relative to `cwd`): that code is walked.
    fn assigned(&mut self, name: &str, value: &str, dynamic: bool, cwd: Option<&str>, ctx: &Ctx) {
        if EXEC_VARS.contains(&name) {
            self.free_script(value, dynamic, ctx, format!("{name}="));
        }
        if SOURCED_VARS.contains(&name) && !dynamic {
            if let Some(text) = self.written_path(value, cwd) {
                self.free_script(&text, false, ctx, format!("{name}="));
            }
        }
    }

    fn free_script(&mut self, text: &str, dynamic: bool, ctx: &Ctx, label: String) {
        if dynamic {
            self.out.dynamic = true;
        }
        if text.trim().is_empty() || text.contains(SUB_MARKER) {
            return;
        }
        if ctx.depth as usize + 1 > self.max_depth {
            self.out.truncated = true;
            self.out.dynamic = true;
            return;
        }
        let mut c2 = ctx.clone();
        c2.depth += 1;
        c2.via.push(label);
        self.script(text, &mut c2);
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
                // `sshpass -p PW ssh host CMD`: the password's source, then the command
                "sshpass" => Some(skip_opts(argv, a, b"pfdP", &[])),
                "nohup" | "builtin" | "unbuffer" | "setsid" | "busybox" | "toybox" | "coproc"
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
                    // `flock [opts] FILE -c CMD`: -c may follow the lock file
                    if argv[a.min(argv.len())..].iter().any(|x| {
                        x.text.starts_with('-') && !x.text.starts_with("--") && x.text.contains('c')
                    }) || argv[a.min(argv.len())..]
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
        // the words before the command (`xargs -I{}`'s options among them)
        let argv_head: Vec<String> = if xargs {
            argv[..i].iter().map(|a| a.text.clone()).collect()
        } else {
            Vec::new()
        };
        // `HOME=DIR cd`: a builtin sees the line's own assignment
        let line_home: Option<Option<String>> = argv[..i]
            .iter()
            .rev()
            .find(|a| a.assign && a.text.starts_with("HOME="))
            .map(|a| {
                (!a.dynamic)
                    .then(|| normalize(&a.text[5..], cwd.as_deref(), self.home))
                    .flatten()
            });
        let mut it = argv.into_iter().skip(i);
        let pw = it.next()?;
        // a glob left in the program name (`/opt/tools/r?`: none of the known program
        // directories' entries, see `expand::top_glob`) names a program that cannot be known
        let dynamic_program = pw.dynamic || program_glob(&pw.text);
        self.ran_written = (!dynamic_program && pw.text.contains('/'))
            .then(|| self.written_path(&pw.text, cwd.as_deref()))
            .flatten()
            .filter(|t| runs_as_shell(t));
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
        // a search tool's pattern or a filter's program names no file (`grep id_rsa config`)
        if let Some(k) = pattern_arg(&program, &args) {
            args[k].path = None;
        }
        if xargs {
            // a literal piped into xargs gives known arguments; an input known only in part
            // (`find ~ -name .env -o -name '*.pem'`) gives those and an unknown one. With
            // `-I R`, each argument holding R is also given once for each input word, R
            // replaced (`ls ~/.aws | xargs -I{} curl -T ~/.aws/{} …`)
            // `-a FILE` reads the arguments from a file this line wrote, if known
            let from_file =
                xargs_arg_file(&argv_head).map(|f| match self.written_path(&f, cwd.as_deref()) {
                    Some(text) => Stdin {
                        text,
                        dynamic: false,
                    },
                    None => Stdin {
                        text: String::new(),
                        dynamic: true,
                    },
                });
            let known = from_file
                .as_ref()
                .or(stdin.as_ref())
                .filter(|s| !s.text.contains(SUB_MARKER));
            let mut more: Vec<String> = Vec::new();
            match xargs_replace(&argv_head) {
                // one item a line: the first takes R's place in the arguments themselves
                // (`xargs -I% sh -c '%'`), the others are appended as copies
                Some(r) => {
                    let items: Vec<&str> = known
                        .iter()
                        .flat_map(|s| s.text.lines())
                        .map(str::trim)
                        .filter(|l| !l.is_empty())
                        .take(MAX_WORDS)
                        .collect();
                    for a in args
                        .iter_mut()
                        .filter(|a| !a.dynamic && a.text.contains(r.as_str()))
                    {
                        for w in items.iter().skip(1) {
                            match replaced(&a.text, &r, w) {
                                (t, true) if more.len() < MAX_WORDS => more.push(t),
                                _ => {}
                            }
                        }
                        if let Some(w) = items.first() {
                            let (t, fits) = replaced(&a.text, &r, w);
                            a.text = t;
                            a.dynamic = !fits;
                            a.path = arg_path(&a.text, cwd.as_deref(), self.home);
                        }
                    }
                }
                None => more.extend(
                    known
                        .iter()
                        .flat_map(|s| s.text.split_whitespace())
                        .take(MAX_WORDS)
                        .map(str::to_string),
                ),
            }
            for w in more {
                args.push(Arg {
                    path: arg_path(&w, cwd.as_deref(), self.home),
                    text: w,
                    dynamic: false,
                });
            }
            if known.is_none_or(|s| s.dynamic) {
                args.push(Arg {
                    text: "…".to_string(),
                    path: None,
                    dynamic: true,
                });
            }
        }
        if dynamic_program {
            self.out.dynamic = true;
        }
        // `xargs -a FILE cmd` is `cat FILE | xargs cmd`: the file's reader feeds the command
        // (one slot is kept for the command itself)
        let reader = xargs_arg_file(&argv_head).and_then(|f| {
            if self.out.commands.len() + 1 >= MAX_COMMANDS {
                self.out.truncated = true;
                self.out.dynamic = true;
                return None;
            }
            let dynamic = f.contains('$');
            let path = (!dynamic)
                .then(|| normalize(&f, cwd.as_deref(), self.home))
                .flatten();
            let file = Arg {
                text: f,
                path,
                dynamic,
            };
            self.reader(file, ctx.depth, &cwd, &via)
        });
        // a path through a link the line made names the target's files too: the command gets
        // a copy of the argument / redirection with the target's path (added after the
        // command's own handling, so `ln` and the interpreters see the words as written)
        let (mut via_args, mut via_redirects) = (Vec::new(), Vec::new());
        if !self.links.is_empty() {
            // these act on a link named whole, not on what it leads to (`rm -rf LINK`)
            let on_link = matches!(
                program.as_str(),
                "rm" | "unlink"
                    | "rmdir"
                    | "find"
                    | "tar"
                    | "mv"
                    | "ln"
                    | "ls"
                    | "readlink"
                    | "stat"
            );
            for a in &args {
                let follow_last = !on_link || a.text.ends_with('/');
                if let Some(to) = a
                    .path
                    .as_deref()
                    .and_then(|p| self.through_links(p, follow_last))
                {
                    via_args.push(Arg {
                        text: a.text.clone(),
                        dynamic: a.dynamic || to.is_none(),
                        path: to,
                    });
                }
            }
            for r in &redirects {
                if let Some(to) = r.path.as_deref().and_then(|p| self.through_links(p, true)) {
                    via_redirects.push(Redirect {
                        dynamic: r.dynamic || to.is_none(),
                        path: to,
                        ..r.clone()
                    });
                }
            }
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
        if let Some(r) = reader {
            self.edge(r, idx);
        }
        self.special(idx, ctx, stdin, line_home);
        self.out.commands[idx].args.extend(via_args);
        self.out.commands[idx].redirects.extend(via_redirects);
        Some(idx)
    }

    /// Remember the link an `ln` command makes: `ln [-s] TARGET LINK` or `ln [-s] TARGET`
    /// (a link named like the target in the working directory). A symbolic link's relative
    /// target is read from the link's directory (from the working directory with `-r`, as
    /// `ln` itself reads it); a target directory (`-t DIR`, or more than two operands) makes
    /// links this walk does not follow.
    fn record_link(&mut self, idx: usize) {
        let c = &self.out.commands[idx];
        let (mut symbolic, mut relative, mut ops, mut opts_done) = (false, false, vec![], false);
        // GNU options may be abbreviated (`--sym`, `--target`)
        let long = |t: &str, name: &str| t.len() > 3 && name.starts_with(t);
        let mut args = c.args.iter();
        while let Some(a) = args.next() {
            let t = a.text.as_str();
            if opts_done || t == "-" || !t.starts_with('-') {
                ops.push(a);
            } else if t == "--" {
                opts_done = true;
            } else if let Some(body) = t.strip_prefix("--") {
                let name = body.split('=').next().unwrap_or(body);
                let t = &t[..2 + name.len()];
                symbolic |= long(t, "--symbolic");
                relative |= long(t, "--relative");
                if long(t, "--target-directory") || a.dynamic {
                    return;
                }
                // `--suffix SUF`: the option's value is no operand
                if long(t, "--suffix") && !body.contains('=') {
                    args.next();
                }
            } else {
                // a short cluster up to `S` (whose value follows, in the word or the next)
                let flags = t[1..].split('S').next().unwrap_or("");
                symbolic |= flags.contains('s');
                relative |= flags.contains('r');
                if flags.contains('t') || a.dynamic {
                    return;
                }
                if t.ends_with('S') {
                    args.next();
                }
            }
        }
        let base = |t: &Arg| {
            (!t.dynamic)
                .then(|| basename(t.text.trim_end_matches('/')))
                .filter(|b| !b.is_empty() && *b != "~")
                .map(str::to_string)
        };
        let (target, link) = match ops[..] {
            // `ln -s ~/.ssh /tmp/`: a directory operand gets a link named like the target
            [t, l] if l.text.ends_with('/') => (
                t,
                l.path
                    .as_deref()
                    .zip(base(t))
                    .map(|(d, b)| format!("{}/{b}", d.trim_end_matches('/'))),
            ),
            [t, l] => (t, l.path.clone()),
            [t] => (
                t,
                base(t).and_then(|b| normalize(&b, c.cwd.as_deref(), self.home)),
            ),
            _ => return,
        };
        let Some(link) = link else {
            return;
        };
        let from = if symbolic && !relative && !target.text.starts_with(['/', '~']) {
            // a relative symbolic target is read from the link's own directory
            link.rsplit_once('/').map(|(dir, _)| dir.to_string())
        } else {
            c.cwd.clone()
        };
        let to = (!target.dynamic)
            .then(|| normalize(&target.text, from.as_deref(), self.home))
            .flatten();
        self.links.retain(|(l, _)| *l != link);
        self.links.push((link, to));
    }

    /// `path` through the links this line made: `Some(resolved)` when it is a link or lies
    /// below one (`/tmp/l/x` → `/home/u/x` after `ln -s ~ /tmp/l`; `Some(None)` when the link
    /// leads somewhere unknown or links lead on past the bound), `None` when no link is on it.
    /// A path that is a link itself is followed only with `follow_last` (`rm -rf LINK` removes
    /// the link, `cat LINK` reads what it leads to).
    fn through_links(&self, path: &str, follow_last: bool) -> Option<Option<String>> {
        let mut cur = path.to_string();
        let mut moved = false;
        for _ in 0..8 {
            let Some((link, to)) = self.links.iter().rev().find(|(l, _)| {
                cur.strip_prefix(l.as_str())
                    .is_some_and(|rest| (rest.is_empty() && follow_last) || rest.starts_with('/'))
            }) else {
                return moved.then_some(Some(cur));
            };
            let Some(to) = to else {
                return Some(None);
            };
            let rest = &cur[link.len()..];
            cur = if to == "/" && !rest.is_empty() {
                rest.to_string()
            } else {
                format!("{to}{rest}")
            };
            moved = true;
        }
        Some(None)
    }

    /// What a command does to the walk beyond being a command (`line_home`: a `HOME=…`
    /// assignment on its own line, which `cd` reads).
    fn special(
        &mut self,
        idx: usize,
        ctx: &mut Ctx,
        stdin: Option<Stdin>,
        line_home: Option<Option<String>>,
    ) {
        let ran_written = self.ran_written.take();
        self.write_channels(idx);
        self.record_written(idx, stdin.as_ref());
        if self.out.commands[idx].dynamic_program {
            return;
        }
        self.builtins(idx, ctx);
        if self.out.commands[idx].program == "ln" {
            self.record_link(idx);
        }
        if self.call_defined(idx, ctx) {
            return;
        }
        if let Some(lang) = Lang::of(&self.out.commands[idx].program) {
            self.interpreter(idx, lang, ctx, stdin.as_ref());
        }
        let act = {
            let c = &self.out.commands[idx];
            let args = &c.args[..];
            let p = c.program.as_str();
            if c.dynamic_program {
                Act::None
            } else if p == "cd" || p == "pushd" || p == "popd" {
                let t = args
                    .iter()
                    .find(|a| !(a.text.starts_with('-') && a.text.len() > 1));
                let no_cd = args.iter().any(|a| a.text == "-n");
                // where `t` leads: `-` is the previous directory ($OLDPWD)
                let dest = |t: &Arg| match t {
                    a if a.text == "-" => ctx.lookup("OLDPWD").flatten(),
                    a if a.dynamic || a.text.contains(['*', '?', '[']) => None,
                    a => normalize(&a.text, c.cwd.as_deref(), self.home),
                };
                // the directory stack below the current directory: `pushd DIR` pushes the
                // current one, bare `pushd` swaps with the top, `popd` returns to the top,
                // `-n` changes only the stack
                match (p, t) {
                    ("cd", None) => Act::Cd(line_home.unwrap_or_else(|| {
                        ctx.lookup("HOME")
                            .unwrap_or_else(|| Some(self.home.unwrap_or("~").to_string()))
                    })),
                    ("cd", Some(a)) => Act::Cd(dest(a)),
                    ("pushd", Some(a)) if no_cd => {
                        let d = dest(a);
                        ctx.dirs.push(d);
                        Act::None
                    }
                    ("pushd", Some(a)) => {
                        let d = dest(a);
                        ctx.dirs.push(c.cwd.clone());
                        Act::Cd(d)
                    }
                    ("pushd", None) => match ctx.dirs.pop() {
                        Some(top) => {
                            ctx.dirs.push(c.cwd.clone());
                            Act::Cd(top)
                        }
                        None => Act::None,
                    },
                    (_, _) if no_cd => {
                        ctx.dirs.pop();
                        Act::None
                    }
                    (_, _) => match ctx.dirs.pop() {
                        Some(top) => Act::Cd(top),
                        None => Act::None,
                    },
                }
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
                            // `sh -c SCRIPT NAME ARG…`: NAME is $0, the ARGs $1…
                            pos: args
                                .get(k + 2..)
                                .filter(|v| v.iter().all(|a| !a.dynamic))
                                .map(|v| v.iter().map(|a| a.text.clone()).collect()),
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
                } else if let Some((text, dynamic)) = self.script_file(&args[k], args) {
                    // a script file this line wrote, or `<(…)`: what it runs is known
                    Act::Script {
                        pos: None,
                        text,
                        dynamic,
                        label: format!("{p} {}", args[k].text),
                        remote: false,
                    }
                } else {
                    Act::None
                }
            } else {
                let mut config = self.written_config(c);
                match p {
                    // a script this line wrote, run by its path (`./x.sh`)
                    p if ran_written.is_some() => Act::Script {
                        pos: None,
                        text: ran_written.clone().unwrap_or_default(),
                        dynamic: false,
                        label: format!("./{p}"),
                        remote: false,
                    },
                    // a task runner's or package tool's file this line wrote
                    _ if config.is_some() => config.take().unwrap_or(Act::None),
                    // `package.json` scripts set by a program that edits it (node, jq, sed)
                    "node" | "nodejs" | "jq" | "sed" | "gsed" | "perl" | "ruby" | "python"
                    | "python3"
                        if args.iter().any(|a| a.text.contains("package.json")) =>
                    {
                        script(
                            scripts_set(args, p == "sed" || p == "gsed"),
                            false,
                            "npm script".into(),
                        )
                    }
                    // a Makefile this line wrote: its recipe lines are what `make` runs
                    "make" | "gmake" => match self.written_makefile(c) {
                        Some((text, dynamic)) => Act::Script {
                            pos: None,
                            text,
                            dynamic,
                            label: "make".into(),
                            remote: false,
                        },
                        None => Act::None,
                    },
                    // `npm pkg set scripts.NAME=CMD`: CMD is what `npm run NAME` / install runs
                    "npm" | "pnpm" if c.subcommand() == Some("pkg") => {
                        match args.iter().find_map(|a| {
                            let (k, v) = a.text.split_once('=')?;
                            (k.starts_with("scripts.") && !a.dynamic).then(|| v.to_string())
                        }) {
                            Some(text) => Act::Script {
                                pos: None,
                                text,
                                dynamic: false,
                                label: "npm script".into(),
                                remote: false,
                            },
                            None => Act::None,
                        }
                    }
                    // `git -c alias.p='push --force' p origin main`: the alias runs
                    "git" => match git_alias(args) {
                        Some((text, dynamic)) => script(text, dynamic, "git alias".into()),
                        None => Act::None,
                    },
                    "source" | "." => match args.first().and_then(|a| self.script_file(a, args)) {
                        Some((text, dynamic)) => Act::Script {
                            pos: None,
                            text,
                            dynamic,
                            label: format!("{p} {}", args[0].text),
                            remote: false,
                        },
                        None => Act::None,
                    },
                    "eval" => {
                        let (text, dynamic) = join(args);
                        Act::Script {
                            pos: None,
                            text,
                            dynamic,
                            label: "eval".into(),
                            remote: false,
                        }
                    }
                    // GNU tar runs a command for these options
                    "tar" | "gtar" => {
                        let (text, dynamic) =
                            lines(args.iter().enumerate().filter_map(|(k, a)| {
                                let t = a.text.as_str();
                                let v = t
                                    .strip_prefix("--checkpoint-action=exec=")
                                    .or_else(|| t.strip_prefix("--to-command="))
                                    .or_else(|| t.strip_prefix("--use-compress-program="))
                                    .or_else(|| t.strip_prefix("--info-script="))
                                    .or_else(|| t.strip_prefix("--new-volume-script="))
                                    .map(|v| (v.to_string(), a.dynamic));
                                v.or_else(|| match t {
                                    "-I"
                                    | "--to-command"
                                    | "--use-compress-program"
                                    | "--info-script"
                                    | "-F"
                                    | "--new-volume-script" => {
                                        args.get(k + 1).map(|n| (n.text.clone(), n.dynamic))
                                    }
                                    _ => None,
                                })
                            }));
                        script(text, dynamic, "tar (command option)".into())
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
                                pos: None,
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
                        // `-o ProxyCommand=CMD` / `-o LocalCommand=CMD`: CMD runs here
                        let local =
                            args[..j.min(args.len())]
                                .iter()
                                .enumerate()
                                .find_map(|(k, a)| {
                                    let o = match a.text.as_str() {
                                        "-o" => args.get(k + 1)?,
                                        t if t.starts_with("-o") => a,
                                        _ => return None,
                                    };
                                    let t =
                                        o.text.strip_prefix("-o").unwrap_or(&o.text).trim_start();
                                    let (key, cmd) = t.split_once(['=', ' ', '\t'])?;
                                    (key.eq_ignore_ascii_case("proxycommand")
                                        || key.eq_ignore_ascii_case("localcommand"))
                                    .then(|| {
                                        (cmd.trim_start_matches(['=', ' ']).to_string(), o.dynamic)
                                    })
                                });
                        // (`ProxyCommand=none` runs nothing; with a remote command both are
                        // read, the remote one as if here, as always)
                        let local = local.filter(|(t, _)| !t.trim().eq_ignore_ascii_case("none"));
                        if let Some((text, dynamic)) = local {
                            let (more, more_dynamic) = match args.get(j + 1..) {
                                Some(rest) if !rest.is_empty() => join(rest),
                                _ => (String::new(), false),
                            };
                            script(
                                format!("{text}\n{more}"),
                                dynamic || more_dynamic,
                                "ssh -o ProxyCommand".into(),
                            )
                        } else if j + 1 < args.len() {
                            let (text, dynamic) = join(&args[j + 1..]);
                            Act::Script {
                                pos: None,
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
                    // `trap 'CMD' EXIT`: CMD runs when the signal or the shell's exit comes
                    // (one `--` may end the options: `trap -- 'CMD' EXIT`)
                    "trap" => match args
                        .get(usize::from(args.first().is_some_and(|a| a.text == "--"))..)
                    {
                        Some([a, _, ..]) if !a.text.starts_with('-') => {
                            script(a.text.clone(), a.dynamic, "trap".into())
                        }
                        _ => Act::None,
                    },
                    // `script -c CMD [FILE]` (util-linux) runs CMD under a pseudo-terminal
                    // (`-qc CMD`, `-cCMD`, `--command CMD`, `--command=CMD`)
                    "script" => {
                        let found = args.iter().enumerate().find_map(|(k, a)| {
                            let t = a.text.as_str();
                            let short = t.strip_prefix('-').filter(|f| !f.starts_with('-'));
                            // `-c` after options that take no value (`-q`, `-a`, …), its
                            // value attached (`-qcCMD`) or the next word
                            let attached =
                                short.and_then(|f| f.split_once('c')).filter(|(before, _)| {
                                    before.bytes().all(|b| b"aefkq".contains(&b))
                                });
                            match attached {
                                Some((_, "")) => {
                                    args.get(k + 1).map(|v| (v.text.clone(), v.dynamic))
                                }
                                Some((_, v)) => Some((v.to_string(), a.dynamic)),
                                None if t == "--command" => {
                                    args.get(k + 1).map(|v| (v.text.clone(), v.dynamic))
                                }
                                None => t
                                    .strip_prefix("--command=")
                                    .map(|v| (v.to_string(), a.dynamic)),
                            }
                        });
                        match found {
                            Some((t, dynamic)) => script(t, dynamic, "script -c".into()),
                            None => Act::None,
                        }
                    }
                    // sqlite3's `.shell CMD` / `.system CMD` dot-commands, gdb's `shell CMD`
                    // / `!CMD` commands (`-ex`, `--eval-command`)
                    "sqlite3" | "gdb" => {
                        let (text, dynamic) = lines(args.iter().filter_map(|a| {
                            let t = a.text.trim_start();
                            let t = t
                                .strip_prefix("--eval-command=")
                                .or_else(|| t.strip_prefix("-eval-command="))
                                .unwrap_or(t);
                            let body = if p == "sqlite3" {
                                t.strip_prefix(".shell ")
                                    .or_else(|| t.strip_prefix(".system "))
                            } else {
                                t.strip_prefix("shell ").or_else(|| t.strip_prefix('!'))
                            };
                            body.map(|b| (b.to_string(), a.dynamic))
                        }));
                        script(text, dynamic, format!("{p} shell command"))
                    }
                    // an editor's startup commands: Vim's `-c CMD` / `--cmd CMD` / `+CMD`
                    // (`!…`, `call system("…")`, `lua …`, `py3 …`), Emacs's `--eval EXPR`
                    // (`shell-command`, `delete-directory`, `delete-file`)
                    "vim" | "vi" | "nvim" | "gvim" | "ex" | "view" | "vimdiff" | "emacs"
                    | "emacsclient" => editor_commands(p, args),
                    // awk's `system("CMD")` with a literal CMD runs CMD in a shell (a computed
                    // one is the rce.awk_system rule's)
                    "awk" | "gawk" | "mawk" | "nawk" => {
                        let (text, dynamic) = lines(args.iter().flat_map(|a| {
                            awk_system_literals(&a.text)
                                .into_iter()
                                .map(move |t| (t, a.dynamic))
                        }));
                        script(text, dynamic, format!("{p} system()"))
                    }
                    // `npx -c CMD` / `npm exec -c CMD` / `pnpm exec|dlx -c CMD` (`--call`): CMD
                    // is a shell line; options after the package name are the package's
                    "npx" | "npm" | "pnpm"
                        if p == "npx" || matches!(c.subcommand(), Some("exec" | "x" | "dlx")) =>
                    {
                        let from = usize::from(p != "npx");
                        let mut found = None;
                        let mut k = from;
                        while let Some(a) = args.get(k) {
                            match a.text.as_str() {
                                "-c" | "--call" => {
                                    found = args.get(k + 1).map(|v| (v.text.clone(), v.dynamic));
                                    break;
                                }
                                t if t.starts_with("--call=") => {
                                    found = Some((t["--call=".len()..].to_string(), a.dynamic));
                                    break;
                                }
                                // an option's value (`-p pkg`, `--package pkg`)
                                "-p" | "--package" => k += 2,
                                t if t.starts_with('-') => k += 1,
                                _ => break,
                            }
                        }
                        match found {
                            Some((t, dynamic)) => script(t, dynamic, format!("{p} -c")),
                            None => Act::None,
                        }
                    }
                    "watch" => {
                        let j = skip_opts(args, 0, b"nq", &["interval", "equexit"]);
                        let (text, dynamic) = join(&args[j.min(args.len())..]);
                        Act::Script {
                            pos: None,
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
                        let (mut text, mut dynamic) = join(&args[j.min(end)..end]);
                        // `::: A B …`: the template runs once per value, `{}` standing for it
                        // (appended when the template has none)
                        if end < args.len() && !text.is_empty() {
                            let values: Vec<&Arg> = args[end + 1..]
                                .iter()
                                .take_while(|a| !a.text.starts_with("::"))
                                .take(MAX_LOOP_VALUES)
                                .collect();
                            let mut runs = String::new();
                            for v in &values {
                                let line = if text.contains("{}") {
                                    text.replace("{}", &quote_word(&v.text))
                                } else {
                                    format!("{text} {}", quote_word(&v.text))
                                };
                                runs.push_str(&line);
                                runs.push('\n');
                                dynamic |= v.dynamic;
                            }
                            if !runs.is_empty() {
                                text = runs;
                            }
                        }
                        if text.is_empty() {
                            Act::Script {
                                pos: None,
                                text,
                                dynamic: true,
                                label: "parallel".into(),
                                remote: false,
                            }
                        } else {
                            Act::Script {
                                pos: None,
                                text,
                                dynamic,
                                label: "parallel".into(),
                                remote: false,
                            }
                        }
                    }
                    "env" | "flock" => {
                        // (the script, whether it is dynamic, where the arguments after it start)
                        let mut found = None;
                        for (k, a) in args.iter().enumerate() {
                            let t = a.text.as_str();
                            let (short, long) = if p == "env" {
                                ("-S", "--split-string")
                            } else {
                                ("-c", "--command")
                            };
                            if t == short || t == long {
                                found = args.get(k + 1).map(|a| (a.text.clone(), a.dynamic, k + 2));
                                break;
                            }
                            if let Some(v) = t.strip_prefix(long).and_then(|v| v.strip_prefix('='))
                            {
                                found = Some((v.to_string(), a.dynamic, k + 1));
                                break;
                            }
                            if t.len() > 2 && t.starts_with(short) {
                                found = Some((t[2..].to_string(), a.dynamic, k + 1));
                                break;
                            }
                        }
                        // `env -S 'bash -c' "$script"`: the split string's words come first,
                        // then env's further arguments, each one word
                        let found = found.map(|(mut text, mut dynamic, rest)| {
                            if p == "env" {
                                for a in args.iter().skip(rest) {
                                    text.push(' ');
                                    text.push_str(&single_quoted(&a.text));
                                    dynamic |= a.dynamic;
                                }
                            }
                            (text, dynamic)
                        });
                        match found {
                            Some((text, dynamic)) => Act::Script {
                                pos: None,
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
                        let (unders, under_dyn) = find_paths(c, self.home);
                        while k < args.len() {
                            if matches!(
                                args[k].text.as_str(),
                                "-exec" | "-execdir" | "-ok" | "-okdir"
                            ) {
                                let from = k + 1;
                                k = from;
                                while k < args.len()
                                    && !(args[k].text == ";" || args[k].text == "+")
                                {
                                    k += 1;
                                }
                                for under in &unders {
                                    let seg: Vec<AW> = args[from..k]
                                        .iter()
                                        .map(|a| {
                                            let brace = a.text.contains("{}");
                                            let (text, fits) = replaced(&a.text, "{}", under);
                                            AW::lit(
                                                text,
                                                a.dynamic || (brace && (under_dyn || !fits)),
                                            )
                                        })
                                        .collect();
                                    if !seg.is_empty() {
                                        v.push(seg);
                                    }
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
                                    .map(|a| AW::lit(a.text.clone(), a.dynamic))
                                    .collect()],
                                "kubectl exec",
                            ),
                            _ => Act::None,
                        }
                    }
                    "docker" | "podman" | "nerdctl" if c.subcommand() == Some("run") => {
                        match container_command(args, self.home, c.cwd.as_deref()) {
                            Some(seg) => Act::Exec(vec![seg], "docker run"),
                            None => Act::None,
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
                                    .map(|a| AW::lit(a.text.clone(), a.dynamic))
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
            Act::Cd(c) => {
                let old = std::mem::replace(&mut ctx.cwd, c);
                ctx.set_var("OLDPWD", old);
            }
            Act::Body { lang, text, label } => {
                self.interpreter_body(idx, lang, ctx, &text, false, label)
            }
            Act::Script {
                pos,
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
                    // `eval` and `source` run in this shell: a `cd` in them moves it
                    let here =
                        label == "eval" || label.starts_with("source ") || label.starts_with(". ");
                    let cwd = self.nested(idx, &text, ctx, label, remote, pos);
                    if here && !remote {
                        ctx.cwd = cwd;
                    }
                }
            }
            Act::Stdin { label, remote } => {
                if let Some(s) = stdin {
                    if s.dynamic {
                        self.out.commands[idx].nested_dynamic = true;
                        self.out.dynamic = true;
                    }
                    if !s.text.contains(SUB_MARKER) {
                        self.nested(idx, &s.text, ctx, label, remote, None);
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
                    vars: ctx.vars.clone(),
                    pos: ctx.pos.clone(),
                    remote: ctx.remote || label != "find -exec",
                    dirs: Vec::new(),
                };
                for seg in segs {
                    let remote = label != "find -exec";
                    if remote {
                        c2.cwd = None;
                    }
                    let child = self.emit(seg, 0, Vec::new(), &mut c2, None, Some(label));
                    if let Some(ch) = child.filter(|_| !remote) {
                        self.exec_children.push((idx, ch));
                    }
                }
            }
        }
    }

    /// Files a program writes through its arguments (`tee F`, `cp A F`,
    /// `dd of=F`, `sed -i … F`, `yq -i … F`, `sponge F`, `truncate F`, `ln -s T F`,
    /// `curl -o F`, `find P -delete`, `mv A B` — both ends), recorded as
    /// [`RedirOp::Channel`] redirections so `redirect to` rules see them.
    fn write_channels(&mut self, idx: usize) {
        let c = &self.out.commands[idx];
        if c.dynamic_program {
            return;
        }
        let pos: Vec<&Arg> = c.positionals().collect();
        let mut t: Vec<&Arg> = Vec::new();
        // an option's value: the next word, or after `=` (`--target-directory=DIR`: the
        // word itself then, its text taken after the `=` by `written_file`)
        let opt_value = |names: &[&str]| -> Option<&Arg> {
            let mut it = c.args.iter();
            while let Some(a) = it.next() {
                for n in names {
                    if a.text == *n {
                        return it.next();
                    }
                    if n.starts_with("--")
                        && a.text.strip_prefix(n).is_some_and(|v| v.starts_with('='))
                    {
                        return Some(a);
                    }
                }
            }
            None
        };
        match c.program.as_str() {
            "tee" => t.extend(pos.iter().copied()),
            "cp" | "install" | "ln" | "rsync" | "scp" => {
                if let Some(d) = opt_value(&["-t", "--target-directory"]) {
                    t.push(d);
                } else if c.program == "install" && c.has_short('d') {
                    t.extend(pos.iter().copied());
                } else if pos.len() >= 2 || (c.program == "ln" && !pos.is_empty()) {
                    t.extend(pos.last().copied());
                }
            }
            "mv" => t.extend(pos.iter().copied()),
            "dd" => t.extend(c.args.iter().filter(|a| a.text.starts_with("of="))),
            "truncate" | "shred" => {
                let vals = ["-s", "--size", "-r", "--reference", "-n", "--iterations"];
                let mut skip = false;
                for a in &c.args {
                    if skip {
                        skip = false;
                        continue;
                    }
                    if vals.contains(&a.text.as_str()) {
                        skip = true;
                    } else if !a.text.starts_with('-') || a.dynamic {
                        t.push(a);
                    }
                }
            }
            "sed" | "perl" if c.has_short('i') || c.has_long("in-place") => {
                let script_opt = c.args.iter().any(|a| {
                    a.text == "-e" || a.text == "-f" || a.text.starts_with("--expression")
                });
                let mut skip_next = false;
                let mut first_pos = true;
                for a in &c.args {
                    if skip_next {
                        skip_next = false;
                        continue;
                    }
                    let tx = a.text.as_str();
                    if tx.starts_with('-') && tx.len() > 1 {
                        if c.program == "perl" && (tx.ends_with('e') || tx.ends_with('E')) {
                            skip_next = true;
                        }
                        if c.program == "sed" && (tx == "-e" || tx == "-f") {
                            skip_next = true;
                        }
                        continue;
                    }
                    if c.program == "sed" && first_pos && !script_opt {
                        first_pos = false;
                        continue;
                    }
                    t.push(a);
                }
            }
            // `yq -i EXPR FILE…` (v4 also `yq eval -i …`): the files after the expression
            "yq" if c.has_short('i') || c.has_long("inplace") || c.has_long("in-place") => {
                let eval = pos
                    .first()
                    .is_some_and(|a| matches!(a.text.as_str(), "e" | "eval" | "ea" | "eval-all"));
                t.extend(pos.iter().skip(1 + usize::from(eval)).copied());
            }
            // `… | sponge FILE` soaks up its input, then writes FILE
            "sponge" => t.extend(pos.iter().copied()),
            "curl" => t.extend(opt_value(&["-o", "--output"])),
            "wget" => t.extend(opt_value(&["-O", "--output-document"])),
            "find" if c.has_flag(&["-delete"]) => t.extend(
                c.args
                    .iter()
                    .take_while(|a| !a.text.starts_with(['-', '(', '!']) || a.dynamic),
            ),
            _ => {}
        }
        // a copy or move into a directory lands at DIR/NAME (`cp evil.pth site-packages/`):
        // that path is written too when the destination is one (`-t DIR`, a trailing `/`,
        // several sources) or may be (a name without an extension taking a file with one)
        let mut into: Vec<(String, bool)> = Vec::new();
        if matches!(
            c.program.as_str(),
            "cp" | "mv" | "install" | "ln" | "rsync" | "scp"
        ) && !(c.program == "install" && c.has_short('d'))
        {
            // the operands: positionals that are no option's value (`install -m 755 h d`)
            let valued: &[&str] = match c.program.as_str() {
                "install" => &["-m", "--mode", "-o", "--owner", "-g", "--group", "-S"],
                "cp" | "mv" | "ln" => &["-S", "--suffix"],
                "scp" => &["-P", "-i", "-o", "-F", "-c", "-l", "-J", "-S"],
                "rsync" => &["-e", "--rsh", "-f", "--filter", "--exclude", "--include"],
                _ => &[],
            };
            let operands: Vec<&Arg> = c
                .args
                .iter()
                .enumerate()
                .filter(|&(k, a)| {
                    pos.iter().any(|p| std::ptr::eq(*p, a))
                        && (k == 0 || {
                            let before = c.args[k - 1].text.as_str();
                            !valued.contains(&before)
                                && before != "-t"
                                && before != "--target-directory"
                        })
                })
                .map(|(_, a)| a)
                .collect();
            let target_dir = opt_value(&["-t", "--target-directory"]);
            let (dir, sources) = match target_dir {
                Some(d) => (Some(d), &operands[..]),
                None if operands.len() >= 2 => {
                    (operands.last().copied(), &operands[..operands.len() - 1])
                }
                None => (None, &operands[..0]),
            };
            let is_dir = |d: &Arg, name: &str| {
                let last = d.text.rsplit('/').next().unwrap_or_default();
                sources.len() > 1
                    || matches!(last, "" | "." | ".." | "~")
                    || (!last.trim_start_matches('.').contains('.')
                        && name.trim_start_matches('.').contains('.'))
            };
            if let Some(d) = dir {
                for s in sources {
                    let name = s.text.trim_end_matches('/');
                    let name = name.rsplit(['/', ':']).next().unwrap_or(name);
                    if !name.is_empty()
                        && name != "."
                        && name != ".."
                        && (target_dir.is_some() || is_dir(d, name))
                    {
                        let (dir, _) = written_file(&d.text);
                        let dest = format!("{}/{name}", dir.trim_end_matches('/'));
                        into.push((dest, d.dynamic || s.dynamic));
                    }
                }
            }
        }
        let home = self.home;
        let cwd = c.cwd.clone();
        // a written file as a redirection (`path`: the word's own, when it is the file)
        let channel = |text: &str, path: Option<String>, dynamic: bool| Redirect {
            fd: None,
            op: RedirOp::Channel,
            target: text.to_string(),
            path: match dynamic {
                true => None,
                false => path.or_else(|| normalize(text, cwd.as_deref(), home)),
            },
            dynamic,
        };
        let mut rs: Vec<Redirect> = t
            .into_iter()
            .map(|a| {
                let (text, whole) = written_file(&a.text);
                channel(text, a.path.clone().filter(|_| whole), a.dynamic)
            })
            .collect();
        rs.extend(
            into.iter()
                .map(|(text, dynamic)| channel(text, None, *dynamic)),
        );
        self.out.commands[idx].redirects.extend(rs);
    }

    /// Variables, positional parameters and aliases set by builtins.
    fn builtins(&mut self, idx: usize, ctx: &mut Ctx) {
        let c = &self.out.commands[idx];
        match c.program.as_str() {
            "export" | "declare" | "typeset" | "local" | "readonly" => {
                let sets: Vec<(String, Option<String>)> = c
                    .args
                    .iter()
                    .filter(|a| is_assign(&a.text))
                    .map(|a| {
                        let (n, v) = a.text.split_once('=').unwrap_or((&a.text, ""));
                        (n.to_string(), (!a.dynamic).then(|| v.to_string()))
                    })
                    .collect();
                let cwd = self.out.commands[idx].cwd.clone();
                for (n, v) in sets {
                    let text = v.as_deref().unwrap_or_default();
                    self.assigned(&n, text, v.is_none(), cwd.as_deref(), ctx);
                    ctx.set_var(&n, v);
                }
            }
            "unset" => {
                let names: Vec<String> = c.positionals().map(|a| a.text.clone()).collect();
                for n in names {
                    ctx.set_var(&n, Some(String::new()));
                }
            }
            "read" | "mapfile" | "readarray" | "getopts" => {
                let names: Vec<String> = c.positionals().map(|a| a.text.clone()).collect();
                for n in names {
                    ctx.set_var(&n, None);
                }
            }
            "set" if c.args.first().is_some_and(|a| a.text == "--") => {
                let dy = c.has_dynamic_args();
                let v: Vec<String> = c.args[1..].iter().map(|a| a.text.clone()).collect();
                ctx.pos = (!dy).then_some(v);
            }
            "alias" => {
                let defs: Vec<(String, String)> = c
                    .args
                    .iter()
                    .filter(|a| !a.dynamic)
                    .filter_map(|a| a.text.split_once('='))
                    .map(|(n, v)| (n.to_string(), v.to_string()))
                    .collect();
                for d in defs {
                    if self.aliases.len() < MAX_VARS {
                        self.aliases.push(d);
                    }
                }
            }
            "git" => {
                // configuration values git runs as commands
                let mut vals: Vec<(String, bool)> = Vec::new();
                let mut it = c.args.iter().peekable();
                while let Some(a) = it.next() {
                    let kv = if a.text == "-c" {
                        it.next().map(|b| (b.text.clone(), b.dynamic))
                    } else {
                        None
                    };
                    if let Some((kv, dy)) = kv {
                        if let Some((k, v)) = kv.split_once('=') {
                            let k = k.to_ascii_lowercase();
                            if k.starts_with("alias.") && v.trim_start().starts_with('!') {
                                vals.push((v.trim_start()[1..].to_string(), dy));
                            } else if matches!(
                                k.as_str(),
                                "core.sshcommand"
                                    | "core.fsmonitor"
                                    | "core.pager"
                                    | "core.editor"
                                    | "core.askpass"
                                    | "sequence.editor"
                                    | "diff.external"
                                    | "core.gitproxy"
                            ) || k.starts_with("credential.")
                                && v.trim_start().starts_with('!')
                            {
                                vals.push((v.trim_start_matches('!').to_string(), dy));
                            }
                        }
                    }
                }
                if c.subcommand() == Some("config") {
                    let p: Vec<&Arg> = c.positionals().collect();
                    if p.len() == 3 {
                        let k = p[1].text.to_ascii_lowercase();
                        if matches!(
                            k.as_str(),
                            "core.sshcommand" | "core.fsmonitor" | "core.pager" | "core.editor"
                        ) || (k.starts_with("alias.") && p[2].text.starts_with('!'))
                        {
                            vals.push((
                                p[2].text.trim_start_matches('!').to_string(),
                                p[2].dynamic,
                            ));
                        }
                    }
                }
                for (v, dy) in vals {
                    if dy {
                        self.out.commands[idx].nested_dynamic = true;
                    }
                    self.free_script(&v, dy, ctx, "git -c".into());
                }
            }
            _ => {}
        }
    }

    /// A call of a function or alias defined earlier on the line: its body
    /// is walked with the arguments bound (`f(){ rm -rf "$1"; }; f ~`).
    fn call_defined(&mut self, idx: usize, ctx: &mut Ctx) -> bool {
        let c = &self.out.commands[idx];
        let name = c.program.clone();
        if self.active.contains(&name) {
            return false;
        }
        if let Some(k) = self.funcs.iter().rposition(|f| f.0 == name) {
            self.funcs[k].2 = true;
            let src = self.funcs[k].1.clone();
            let dy = c.has_dynamic_args();
            let args: Vec<String> = c.args.iter().map(|a| a.text.clone()).collect();
            if ctx.depth as usize + 1 > self.max_depth {
                self.out.truncated = true;
                self.out.dynamic = true;
                return true;
            }
            let mut c2 = ctx.clone();
            c2.depth += 1;
            c2.pos = (!dy).then_some(args);
            c2.via = c.via.clone();
            c2.via.push(format!("function {name}"));
            self.active.push(name);
            let io = self.script(&src, &mut c2);
            self.active.pop();
            for h in io.heads.iter() {
                self.edge(idx, h);
            }
            // a function runs in the calling shell: a `cd` in its body moves the caller
            ctx.cwd = c2.cwd;
            return true;
        }
        if let Some(k) = self.aliases.iter().rposition(|a| a.0 == name) {
            let mut text = self.aliases[k].1.clone();
            let dy = c.has_dynamic_args();
            for a in &c.args {
                text.push_str(" '");
                text.push_str(&a.text.replace('\'', "'\\''"));
                text.push('\'');
            }
            self.active.push(name.clone());
            self.free_script(&text, dy, ctx, format!("alias {name}"));
            self.active.pop();
            return true;
        }
        false
    }

    /// The program an interpreter is given inline (`python -c`, `perl -e`,
    /// `ruby -e`, `node -e`, `php -r`) or on stdin (heredoc, here-string, a
    /// literal piped in), turned into the commands it would run.
    fn interpreter(&mut self, idx: usize, lang: Lang, ctx: &Ctx, stdin: Option<&Stdin>) {
        let c = &self.out.commands[idx];
        let flags: &[&str] = match lang {
            Lang::Python => &["-c"],
            Lang::Perl => &["-e", "-E"],
            Lang::Ruby => &["-e"],
            Lang::Node => &["-e", "--eval", "-p", "--print", "-pe"],
            Lang::Php => &["-r"],
            Lang::Lua => &["-e"],
            Lang::Tcl => &[],
        };
        let mut body: Option<(String, bool)> = None;
        let mut script = false;
        let mut k = 0;
        while k < c.args.len() {
            let a = &c.args[k];
            let t = a.text.as_str();
            if a.dynamic && !t.starts_with('-') {
                script = true;
                break;
            }
            // a cluster of one-letter switches ending in the code flag (`perl -lne`, `-0777pe`,
            // `python3 -Ic`), not a Perl module option (`-MFile::Path=remove_tree`, `-MDate`)
            // or include path (`-Ilibe`), nor Python's `-m module`
            let valued = match lang {
                Lang::Perl => matches!(t.as_bytes().get(1), Some(b'M' | b'm' | b'I')),
                _ => t.as_bytes().get(1) == Some(&b'm'),
            };
            let is_code_flag = flags.contains(&t)
                || (matches!(lang, Lang::Perl | Lang::Python)
                    && t.len() > 2
                    && t.starts_with('-')
                    && !t.starts_with("--")
                    && !valued
                    && t[1..].bytes().all(|b| b.is_ascii_alphanumeric())
                    && flags.iter().any(|f| t.ends_with(&f[1..])));
            if is_code_flag {
                if let Some(b) = c.args.get(k + 1) {
                    match &mut body {
                        Some((s, d)) => {
                            s.push('\n');
                            s.push_str(&b.text);
                            *d |= b.dynamic;
                        }
                        None => body = Some((b.text.clone(), b.dynamic)),
                    }
                }
                k += 2;
                continue;
            }
            if lang == Lang::Python && t == "-m" {
                script = true;
                break;
            }
            if t == "-" {
                break;
            }
            // `deno run [-A …] FILE | -`, `bun run FILE`: the subcommand, then as `node`
            if matches!(c.program.as_str(), "deno" | "bun") && t == "run" && k == 0 {
                k += 1;
                continue;
            }
            if c.program == "deno" && t == "eval" {
                // `deno eval [-p | -q | --ext=ts | …] CODE`
                body = c.args[k + 1..]
                    .iter()
                    .find(|b| !b.text.starts_with('-') || b.dynamic)
                    .map(|b| (b.text.clone(), b.dynamic));
                break;
            }
            if !t.starts_with('-') {
                // a script this line wrote (`cat > x.py <<'EOF' … EOF; python3 x.py`)
                // is read like a `-c` body
                if body.is_none() {
                    body = self.written(a).map(|t| (t, false));
                }
                script = body.is_none();
                break;
            }
            k += 1;
        }
        let body = match body {
            Some(b) => b,
            None if !script => match stdin {
                Some(s) => (s.text.clone(), s.dynamic),
                None => return,
            },
            None => return,
        };
        let (code, dynamic) = body;
        let label = format!(
            "{} {}",
            c.program,
            if lang == Lang::Php { "-r" } else { "-c" }
        );
        self.interpreter_body(idx, lang, ctx, &code, dynamic, label);
    }

    /// The commands a program in `lang` would run (`code`, read by [`interp::scan`]), nested
    /// under the command at `idx` with `label`.
    fn interpreter_body(
        &mut self,
        idx: usize,
        lang: Lang,
        ctx: &Ctx,
        code: &str,
        dynamic: bool,
        label: String,
    ) {
        if dynamic {
            self.out.commands[idx].nested_dynamic = true;
            self.out.dynamic = true;
        }
        if code.contains(SUB_MARKER) {
            return;
        }
        let found = interp::scan(lang, code);
        if found.is_empty() {
            return;
        }
        if ctx.depth as usize + 1 > self.max_depth {
            self.out.truncated = true;
            self.out.dynamic = true;
            return;
        }
        let mut c2 = Ctx {
            depth: ctx.depth + 1,
            cwd: self.out.commands[idx].cwd.clone(),
            via: self.out.commands[idx].via.clone(),
            vars: Vec::new(),
            pos: None,
            remote: ctx.remote,
            dirs: Vec::new(),
        };
        let mut fetchers: Vec<usize> = Vec::new();
        let mut readers: Vec<usize> = Vec::new();
        let mut sends = false;
        for f in found {
            match f {
                Found::Shell { text, dynamic } => {
                    if dynamic {
                        self.out.commands[idx].nested_dynamic = true;
                        self.out.dynamic = true;
                    } else {
                        self.nested(idx, &text, ctx, label.clone(), false, None);
                    }
                }
                Found::Argv(v) => {
                    if v.first().is_none_or(|p| p.is_none()) {
                        self.out.commands[idx].nested_dynamic = true;
                        self.out.dynamic = true;
                        continue;
                    }
                    let seg: Vec<AW> = v
                        .into_iter()
                        .map(|w| match w {
                            Some(t) => AW::lit(t, false),
                            None => AW::lit("…".into(), true),
                        })
                        .collect();
                    if let Some(n) = self.emit(seg, 0, Vec::new(), &mut c2, None, Some(&label)) {
                        self.edge(idx, n);
                    }
                }
                Found::Delete { path, recursive } => {
                    let mut seg = vec![AW::lit("rm".into(), false)];
                    if recursive {
                        seg.push(AW::lit("-rf".into(), false));
                    }
                    seg.push(match path {
                        Some(p) => AW::lit(p, false),
                        None => AW::lit("…".into(), true),
                    });
                    self.emit(seg, 0, Vec::new(), &mut c2, None, Some(&label));
                }
                Found::Write(p) => {
                    if self.out.commands.len() >= MAX_COMMANDS {
                        self.out.truncated = true;
                        continue;
                    }
                    let path = normalize(&p, c2.cwd.as_deref(), self.home);
                    let mut via = c2.via.clone();
                    via.push(label.clone());
                    self.out.commands.push(SimpleCommand {
                        program: String::new(),
                        args: Vec::new(),
                        redirects: vec![Redirect {
                            fd: None,
                            op: RedirOp::Channel,
                            target: p,
                            path,
                            dynamic: false,
                        }],
                        dynamic_program: false,
                        nested_dynamic: false,
                        depth: c2.depth,
                        cwd: c2.cwd.clone(),
                        via,
                    });
                }
                Found::Sends => sends = true,
                Found::ReadEnv => {
                    let seg = vec![AW::lit("env".into(), false)];
                    if let Some(n) = self.emit(seg, 0, Vec::new(), &mut c2, None, Some(&label)) {
                        readers.push(n);
                    }
                }
                Found::Read(p) => {
                    let seg = vec![AW::lit("cat".into(), false), AW::lit(p, false)];
                    if let Some(n) = self.emit(seg, 0, Vec::new(), &mut c2, None, Some(&label)) {
                        readers.push(n);
                    }
                }
                Found::Fetch(u) => {
                    let local = ["://localhost", "://127.", "://[::1]", "://0.0.0.0"]
                        .iter()
                        .any(|l| u.contains(l));
                    let seg = vec![AW::lit("curl".into(), false), AW::lit(u, false)];
                    if let Some(n) = self.emit(seg, 0, Vec::new(), &mut c2, None, Some(&label)) {
                        if !local {
                            fetchers.push(n);
                        }
                    }
                }
                Found::RunFetched => {
                    let seg = vec![
                        AW::lit(
                            if lang == Lang::Python {
                                "python3"
                            } else {
                                "sh"
                            }
                            .into(),
                            false,
                        ),
                        AW::lit("-".into(), false),
                    ];
                    if let Some(n) = self.emit(seg, 0, Vec::new(), &mut c2, None, Some(&label)) {
                        for &f in &fetchers {
                            self.edge(f, n);
                        }
                    }
                }
                Found::ReverseShell(host) => {
                    let mut seg = vec![
                        AW::lit("nc".into(), false),
                        AW::lit("-e".into(), false),
                        AW::lit("/bin/sh".into(), false),
                    ];
                    if !host.is_empty() {
                        seg.push(AW::lit(host, false));
                    }
                    self.emit(seg, 0, Vec::new(), &mut c2, None, Some(&label));
                }
            }
        }
        // what the body read may be what it sends: each file read feeds each request that is
        // not to this machine, as `cat FILE | curl URL` would (a body that only fetches does
        // not send what it read)
        for &r in readers.iter().filter(|_| sends) {
            for &f in &fetchers {
                self.edge(r, f);
            }
        }
    }

    /// Walk `text`, a script the command `host` runs (`sh -c`, `ssh host CMD`, …), one level
    /// deeper, with positional parameters `pos` when they are known. Returns the directory the
    /// script ended in (for `eval` / `source`, which run in the calling shell).
    fn nested(
        &mut self,
        host: usize,
        text: &str,
        ctx: &Ctx,
        label: String,
        remote: bool,
        pos: Option<Vec<String>>,
    ) -> Option<String> {
        if ctx.depth as usize + 1 > self.max_depth {
            self.out.truncated = true;
            self.out.dynamic = true;
            return ctx.cwd.clone();
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
            vars: ctx.vars.clone(),
            pos,
            remote: ctx.remote || remote,
            dirs: Vec::new(),
        };
        let io = self.script(text, &mut c2);
        for hd in io.heads.iter() {
            self.edge(host, hd);
        }
        c2.cwd
    }
}

/// The indented lines of a justfile (its recipes' commands), `@` / `-` prefixes dropped.
fn indented_lines(text: &str) -> String {
    text.lines()
        .filter(|l| l.starts_with([' ', '\t']))
        .map(|l| l.trim().trim_start_matches(['@', '-']))
        .filter(|l| !l.is_empty() && !l.starts_with('#'))
        .collect::<Vec<_>>()
        .join("\n")
}

/// A Taskfile's commands: the items of its `cmds:` lists (`- CMD`, `- cmd: CMD`).
fn taskfile_cmds(text: &str) -> String {
    let mut out = Vec::new();
    // the indentation of the `cmds:` key being read: its list lasts while lines are deeper
    let mut cmds: Option<usize> = None;
    for l in text.lines() {
        let t = l.trim();
        let indent = l.len() - l.trim_start().len();
        if t.starts_with("cmds:") {
            cmds = Some(indent);
            continue;
        }
        match cmds {
            Some(k) if indent > k || (indent == k && t.starts_with("- ")) => {}
            _ if t.is_empty() || t.starts_with('#') => continue,
            _ => {
                cmds = None;
                continue;
            }
        }
        if let Some(item) = t.strip_prefix("- ").or_else(|| t.strip_prefix("cmd:")) {
            let item = item.trim();
            let item = item.strip_prefix("cmd:").map_or(item, str::trim);
            out.push(unquote_yaml(item));
        }
    }
    out.join("\n")
}

/// tox.ini's `commands` (and `commands_pre` / `commands_post`) with their continuation lines.
fn tox_commands(text: &str) -> String {
    let mut out = Vec::new();
    let mut inside = false;
    for l in text.lines() {
        if let Some((k, v)) = l.split_once('=') {
            if !l.starts_with([' ', '\t']) {
                inside = matches!(k.trim(), "commands" | "commands_pre" | "commands_post");
                if inside && !v.trim().is_empty() {
                    out.push(v.trim().to_string());
                }
                continue;
            }
        }
        if inside && l.starts_with([' ', '\t']) && !l.trim().is_empty() {
            out.push(l.trim().to_string());
        } else if !l.starts_with([' ', '\t']) {
            inside = false;
        }
    }
    out.join("\n")
}

/// The local package directories a package tool's install names (`npm i ./pkg`, `pip
/// install /tmp/p`, `yarn add file:../lib`, `pip install -e '.[dev]'`); the values of its
/// options (`--target ./vendor`, `-r ./reqs.txt`) are none.
fn local_packages(c: &SimpleCommand) -> impl Iterator<Item = &str> {
    let install = c
        .args
        .iter()
        .any(|a| matches!(a.text.as_str(), "install" | "i" | "add"));
    c.args
        .iter()
        .enumerate()
        .filter(move |&(k, a)| {
            install
                && !a.dynamic
                && (k == 0 || !PACKAGE_VALUE_OPTIONS.contains(&c.args[k - 1].text.as_str()))
        })
        .filter_map(|(_, a)| {
            let t = a.text.strip_prefix("file:").unwrap_or(&a.text);
            let t = t.split('[').next().unwrap_or(t); // `.[dev]`: extras
            let local = t == "." || ["/", "./", "../", "~/"].iter().any(|p| t.starts_with(p));
            local
                .then(|| t.trim_end_matches('/'))
                .filter(|t| !t.is_empty())
        })
}

/// Options of pip / npm whose value is a path but not a package to install.
const PACKAGE_VALUE_OPTIONS: &[&str] = &[
    "-r",
    "--requirement",
    "-c",
    "--constraint",
    "-t",
    "--target",
    "--prefix",
    "--root",
    "--src",
    "-f",
    "--find-links",
    "--cache-dir",
    "--log",
    "--report",
];

/// The values of a `package.json`'s `scripts` (any of them may run: install runs the
/// lifecycle ones, `run` the one named and its pre/post).
fn package_scripts(text: &str) -> String {
    let Ok(v) = serde_json::from_str::<serde_json::Value>(text) else {
        return String::new();
    };
    v.get("scripts")
        .and_then(|s| s.as_object())
        .map(|m| {
            m.values()
                .filter_map(|v| v.as_str())
                .collect::<Vec<_>>()
                .join("\n")
        })
        .unwrap_or_default()
}

/// Scripts a program's arguments set in `package.json` (`p.scripts.test='CMD'`, jq's
/// `.scripts.test="CMD"`, `scripts["x"] = "CMD"`; sed's `s#"lint": ".*"#"lint": "CMD"#`).
fn scripts_set(args: &[Arg], sed: bool) -> String {
    let mut out = Vec::new();
    for a in args.iter().filter(|a| !a.dynamic) {
        let t = a.text.as_str();
        let mut rest = t;
        while let Some(i) = rest.find("scripts") {
            rest = &rest[i + "scripts".len()..];
            let after_name = if let Some(r) = rest.strip_prefix('.') {
                r.trim_start_matches(|c: char| c.is_ascii_alphanumeric() || "_:-".contains(c))
            } else if let Some(r) = rest.strip_prefix('[') {
                match r.find(']') {
                    Some(j) => &r[j + 1..],
                    None => continue,
                }
            } else {
                continue;
            };
            let v = after_name.trim_start();
            let Some(v) = v.strip_prefix('=').filter(|v| !v.starts_with('=')) else {
                continue;
            };
            if let Some(body) = quoted_prefix(v.trim_start()) {
                out.push(body.to_string());
            }
        }
        // sed's replacement: the value after a `"NAME": ` in the s command's second part
        if sed && t.starts_with('s') && t.len() > 2 {
            let d = t[1..].chars().next().unwrap_or('/');
            let parts: Vec<&str> = t[1 + d.len_utf8()..].split(d).collect();
            if let Some(rep) = parts.get(1) {
                if let Some((_, v)) = rep.split_once("\": ") {
                    if let Some(body) = quoted_prefix(v) {
                        out.push(body.to_string());
                    }
                }
            }
        }
    }
    out.join("\n")
}

/// The text inside the quotes `v` starts with (`"…"`, `'…'` or a backquote), up to the
/// next unescaped closing quote.
fn quoted_prefix(v: &str) -> Option<&str> {
    let q = v.chars().next().filter(|c| matches!(c, '"' | '\'' | '`'))?;
    let body = &v[1..];
    let mut esc = false;
    for (i, c) in body.char_indices() {
        match c {
            '\\' if !esc => esc = true,
            c if c == q && !esc => return Some(&body[..i]),
            _ => esc = false,
        }
    }
    None
}

/// A YAML scalar without its quotes.
fn unquote_yaml(v: &str) -> String {
    for q in ['"', '\''] {
        if let Some(t) = v.strip_prefix(q).and_then(|t| t.strip_suffix(q)) {
            return t.to_string();
        }
    }
    v.to_string()
}

/// `w` as one shell word: as it is when it holds nothing the shell would split or expand
/// but a glob or `~` (which it had expanded the same way the first time), else single-quoted.
fn quote_word(w: &str) -> String {
    if !w.is_empty()
        && w.bytes()
            .all(|c| c.is_ascii_alphanumeric() || b"/._-~*?[]=@:+,%^".contains(&c))
    {
        w.to_string()
    } else {
        format!("'{}'", w.replace('\'', "'\\''"))
    }
}

/// Script lines gathered one by one, each `(line, dynamic)`: the lines joined (each ended by a
/// newline) and whether any is dynamic.
fn lines(lines: impl Iterator<Item = (String, bool)>) -> (String, bool) {
    let mut out = (String::new(), false);
    for (line, dynamic) in lines {
        out.0.push_str(&line);
        out.0.push('\n');
        out.1 |= dynamic;
    }
    out
}

/// What an editor's startup commands run (see the `vim` / `emacs` arm of
/// `Walker::simple`), as one script: shell lines, and a Lua or Python body as the `lua -e` /
/// `python3 -c` line that runs it. A command that runs something this reader does not
/// follow (other Vimscript or Lisp that starts a process or deletes, a string with an escape)
/// makes the script dynamic.
fn editor_commands(program: &str, args: &[Arg]) -> Act {
    let emacs = program.starts_with("emacs");
    let mut shell: Vec<String> = Vec::new();
    let mut dynamic = false;
    let mut k = 0;
    while k < args.len() {
        let (a, t) = (&args[k], args[k].text.as_str());
        let value = match emacs {
            true => match t {
                "--eval" | "-eval" | "-e" => args.get(k + 1),
                _ => None,
            }
            .map(|v| (v.text.as_str(), v.dynamic))
            .or_else(|| {
                t.strip_prefix("--eval=")
                    .or_else(|| t.strip_prefix("-eval="))
                    .map(|v| (v, a.dynamic))
            }),
            false => match t {
                "-c" | "--cmd" => args.get(k + 1).map(|v| (v.text.as_str(), v.dynamic)),
                _ => t
                    .strip_prefix('+')
                    .filter(|c| !c.is_empty() && !c.bytes().all(|b| b.is_ascii_digit()))
                    .map(|c| (c, a.dynamic)),
            },
        };
        k += 1;
        let Some((v, d)) = value else { continue };
        dynamic |= d;
        let ok = match emacs {
            true => emacs_eval(v, &mut shell),
            false => vim_command(v, &mut shell),
        };
        dynamic |= !ok;
    }
    if shell.is_empty() && !dynamic {
        return Act::None;
    }
    let label = match emacs {
        true => format!("{program} --eval"),
        false => format!("{program} -c"),
    };
    Act::Script {
        pos: None,
        text: shell.join("\n"),
        dynamic,
        label,
        remote: false,
    }
}

/// One Vim startup command (`-c` / `--cmd` / `+`): its shell line or body onto `out`; false
/// if it may run something not read here.
fn vim_command(v: &str, out: &mut Vec<String>) -> bool {
    let mut c = v.trim_start().trim_start_matches(':').trim_start();
    for p in ["silent!", "silent", "execute", "exe"] {
        c = c.strip_prefix(p).map_or(c, str::trim_start);
    }
    // `exe "!…"`: a literal without escapes is the command
    let unquoted;
    if c.starts_with(['"', '\'']) {
        match quoted_plain(c) {
            Some((lit, rest)) if rest.trim().is_empty() => {
                unquoted = lit;
                c = unquoted.as_str();
            }
            _ => return false,
        }
    }
    for p in [
        "!", "r !", "r!", "read !", "read!", "w !", "w!", "write !", "write!",
    ] {
        if let Some(cmd) = c.strip_prefix(p) {
            out.push(cmd.to_string());
            return true;
        }
    }
    for p in ["call system(", "call systemlist(", "call jobstart("] {
        if let Some(call) = c.strip_prefix(p) {
            return match quoted_plain(call.trim_start()) {
                Some((lit, rest)) if rest.trim_start().starts_with(')') => {
                    out.push(lit);
                    true
                }
                _ => false,
            };
        }
    }
    if let Some(code) = c.strip_prefix("lua ") {
        out.push(format!("lua -e {}", single_quoted(code)));
        return true;
    }
    for p in ["py3 ", "python3 ", "py ", "python ", "pyx "] {
        if let Some(code) = c.strip_prefix(p) {
            out.push(format!("python3 -c {}", single_quoted(code)));
            return true;
        }
    }
    // anything else that may start a process or delete is not followed; `q!` / `wq!` /
    // `normal! …` are not that
    let bang = c
        .char_indices()
        .any(|(i, ch)| ch == '!' && c[i + 1..].starts_with(|n: char| !n.is_whitespace()));
    !(bang
        || [
            "system(",
            "systemlist(",
            "delete(",
            "jobstart(",
            "termopen",
            "term ",
            "vim.fn",
            "vim.system",
            "os.execute",
            "io.popen",
            "|",
        ]
        .iter()
        .any(|w| c.contains(w)))
}

/// One Emacs `--eval` expression: the commands of its `shell-command` family and its
/// deletes onto `out`; false if it may run something not read here.
fn emacs_eval(v: &str, out: &mut Vec<String>) -> bool {
    let mut ok = true;
    for (f, kind) in [
        ("shell-command", 's'),
        ("shell-command-to-string", 's'),
        ("async-shell-command", 's'),
        ("call-process-shell-command", 's'),
        ("start-process-shell-command", 'd'),
        ("call-process", 'd'),
        ("start-process", 'd'),
        ("process-lines", 'd'),
        ("make-process", 'd'),
        ("delete-directory", 'r'),
        ("delete-file", 'f'),
    ] {
        let mut rest = v;
        while let Some(i) = rest.find(f) {
            let before = rest[..i].trim_end();
            rest = &rest[i + f.len()..];
            // the name itself, called: `(name`, then a blank or a string
            if !before.ends_with('(') || !rest.starts_with(|c: char| c.is_whitespace() || c == '"')
            {
                continue;
            }
            if kind == 'd' {
                ok = false;
                continue;
            }
            let Some((lit, after)) = quoted_plain(rest.trim_start()).filter(|(l, _)| !l.is_empty())
            else {
                ok = false;
                continue;
            };
            out.push(match kind {
                's' => lit,
                'f' => format!("rm {}", shell_word(&lit)),
                // `(delete-directory DIR RECURSIVE)`: any value but nil is recursive
                _ => {
                    let arg = after.trim_start();
                    let flag = match arg.starts_with(')') || arg.starts_with("nil") {
                        true => "-d",
                        false => "-rf",
                    };
                    format!("rm {flag} {}", shell_word(&lit))
                }
            });
        }
    }
    ok
}

/// The string literal that `s` opens with `"` or `'` and the text after it, if it closes and
/// holds no backslash (an escape is read differently by each language: such a literal is
/// not taken as written).
fn quoted_plain(s: &str) -> Option<(String, &str)> {
    let q = s.chars().next().filter(|&c| c == '"' || c == '\'')?;
    let body = &s[1..];
    let end = body.find(q)?;
    let lit = &body[..end];
    (!lit.contains('\\')).then(|| (lit.to_string(), &body[end + 1..]))
}

/// `p` as one shell word: as written if it has only path characters, else single-quoted
/// after a leading `~/`, which stays expandable (an editor expands it).
fn shell_word(p: &str) -> String {
    let plain = |p: &str| {
        p.bytes()
            .all(|b| b.is_ascii_alphanumeric() || b"_./~+-@%,:".contains(&b))
    };
    match p.strip_prefix("~/") {
        _ if !p.is_empty() && plain(p) => p.to_string(),
        Some(rest) => format!("~/{}", single_quoted(rest)),
        None => single_quoted(p),
    }
}

/// The literal commands of an awk program's `system("…")` calls: one string literal without
/// escapes, then `)` (awk decodes `\n`, `\162`, … which would change the command; such a call,
/// or a computed one, is left to the rce.awk_system rule).
fn awk_system_literals(program: &str) -> Vec<String> {
    let mut out = Vec::new();
    let mut from = 0;
    while let Some(k) = program[from..].find("system") {
        let at = from + k;
        from = at + "system".len();
        let before = &program[..at];
        // a word inside a string literal (`print "Operating system (" $1 ")"`), or part of
        // a longer name, is no call
        let open_string = (before.matches('"').count() - before.matches("\\\"").count()) % 2 == 1;
        let word = before
            .bytes()
            .next_back()
            .is_none_or(|b| !(b.is_ascii_alphanumeric() || b == b'_'));
        if open_string || !word {
            continue;
        }
        let Some(call) = program[from..].trim_start().strip_prefix('(') else {
            continue;
        };
        let call = call.trim_start();
        if !call.starts_with('"') {
            continue;
        }
        if let Some((lit, after)) = quoted_plain(call).filter(|(l, _)| !l.is_empty()) {
            if after.trim_start().starts_with(')') {
                out.push(lit);
            }
        }
    }
    out
}

/// The commands of a makefile text's `$(shell …)` calls (parentheses balanced; one that
/// does not close runs to the text's end).
fn make_shell_calls(text: &str) -> Vec<&str> {
    let mut out = Vec::new();
    let mut rest = text;
    while let Some(i) = rest.find("$(shell ") {
        let body = &rest[i + "$(shell ".len()..];
        let mut depth = 1usize;
        let end = body
            .char_indices()
            .find(|&(_, ch)| {
                match ch {
                    '(' => depth += 1,
                    ')' => depth -= 1,
                    _ => {}
                }
                depth == 0
            })
            .map_or(body.len(), |(k, _)| k);
        out.push(&body[..end]);
        rest = &body[end..];
    }
    out
}

/// Makefile command text read as the shell's: `$$` as `$`, and `$(HOME)` / `$(USER)` /
/// `$(PWD)` (make falls back to the environment's) as `${NAME}` unless the makefile text
/// assigns the name; any other `$(…)` stays as written (a command substitution to the shell:
/// unknown, as make's own variables and functions are).
fn make_vars_to_shell(text: &str, makefile: &str) -> String {
    let assigned = |n: &str| {
        makefile.lines().any(|l| {
            l.trim_start()
                .strip_prefix(n)
                .is_some_and(|r| r.trim_start().starts_with(['=', ':', '?', '+', '!']))
        })
    };
    let env: Vec<&str> = ["HOME", "USER", "PWD"]
        .into_iter()
        .filter(|n| !assigned(n))
        .collect();
    let mut out = String::with_capacity(text.len());
    let mut rest = text;
    while let Some(i) = rest.find('$') {
        out.push_str(&rest[..i]);
        let after = &rest[i + 1..];
        if let Some(a) = after.strip_prefix('$') {
            out.push('$');
            rest = a;
            continue;
        }
        let name = env.iter().find(|n| {
            after
                .strip_prefix('(')
                .and_then(|a| a.strip_prefix(**n))
                .is_some_and(|a| a.starts_with(')'))
        });
        match name {
            Some(n) => {
                out.push_str("${");
                out.push_str(n);
                out.push('}');
                rest = &after[n.len() + 2..];
            }
            None => {
                out.push('$');
                rest = after;
            }
        }
    }
    out.push_str(rest);
    out
}

/// A local nested script to analyse, or nothing when `text` is empty.
fn script(text: String, dynamic: bool, label: String) -> Act {
    if text.is_empty() {
        Act::None
    } else {
        Act::Script {
            pos: None,
            text,
            dynamic,
            label,
            remote: false,
        }
    }
}

/// What `git -c alias.NAME=VALUE … NAME ARGS` runs when its subcommand is an alias defined on
/// the command line: `git VALUE ARGS`, or the shell command `VALUE ARGS` for a `!VALUE` alias;
/// and whether it is dynamic.
fn git_alias(args: &[Arg]) -> Option<(String, bool)> {
    let mut defs: Vec<(String, String, bool)> = Vec::new();
    let mut k = 0;
    while k < args.len() {
        let t = args[k].text.as_str();
        let def = match t {
            "-c" => {
                k += 1;
                args.get(k)
            }
            _ if t.starts_with("-c") => Some(&args[k]),
            "-C" | "--git-dir" | "--work-tree" | "--namespace" | "--exec-path" => {
                k += 2;
                continue;
            }
            _ if t.starts_with('-') => None,
            // the subcommand: an alias defined above?
            _ => {
                let (value, dynamic) = defs
                    .into_iter()
                    .rev()
                    .find_map(|(n, v, d)| (n == t).then_some((v, d)))?;
                let mut text = match value.strip_prefix('!') {
                    Some(sh) => sh.to_string(),
                    None => format!("git {value}"),
                };
                let mut dynamic = dynamic;
                for a in &args[k + 1..] {
                    text.push(' ');
                    text.push_str(&single_quoted(&a.text));
                    dynamic |= a.dynamic;
                }
                return Some((text, dynamic));
            }
        };
        if let Some(a) = def {
            let d = a.text.trim_start_matches("-c");
            if let Some((name, value)) = d.strip_prefix("alias.").and_then(|d| d.split_once('=')) {
                defs.push((name.to_string(), value.to_string(), a.dynamic));
            }
        }
        k += 1;
    }
    None
}

/// `s` as one single-quoted shell word (`'` written as `'\''`).
fn single_quoted(s: &str) -> String {
    format!("'{}'", s.replace('\'', r"'\''"))
}

/// The variables a loop condition's `read` assigns (`while IFS= read -r line`): the names
/// after its options; none when the condition runs no `read`.
fn read_vars(cond: &List) -> Vec<String> {
    let is_read =
        |s: &&Simple| s.words.iter().find(|w| !w.assign).map(|w| w.text.as_str()) == Some("read");
    let Some(s) = cond
        .items
        .iter()
        .flat_map(|(p, _)| &p.cmds)
        .filter_map(|n| match n {
            Node::Simple(s) => Some(s),
            _ => None,
        })
        .find(is_read)
    else {
        return Vec::new();
    };
    let words = s.words.iter().skip_while(|w| w.assign).skip(1);
    let mut names = Vec::new();
    let mut takes_value = false;
    for w in words {
        if takes_value {
            takes_value = false;
        } else if let Some(opts) = w.text.strip_prefix('-').filter(|_| names.is_empty()) {
            // -d DELIM, -n N, -N N, -p PROMPT, -t SECS, -u FD, -i TEXT, -a ARRAY take a value
            takes_value = opts
                .bytes()
                .last()
                .is_some_and(|c| b"dnNptuia".contains(&c));
        } else if is_var_name(&w.text) && !w.dynamic {
            names.push(w.text.clone());
        } else {
            return Vec::new();
        }
    }
    if names.is_empty() {
        // a bare `read` assigns REPLY
        names.push("REPLY".to_string());
    }
    names
}

/// The rows a `read` of `n` variables takes from `text`, a line (or NUL-ended record) each:
/// blanks trimmed, split into `n` fields, the last field keeping the rest of the line.
fn read_rows(text: &str, n: usize) -> Vec<Vec<Option<String>>> {
    text.split(['\n', '\0'])
        .filter(|l| !l.trim().is_empty())
        .take(4 * MAX_LOOP_VALUES)
        .map(|line| {
            let mut rest = line.trim();
            let mut row = Vec::with_capacity(n);
            for k in 0..n {
                if k + 1 == n {
                    row.push(Some(rest.to_string()));
                } else {
                    let (field, more) = rest.split_once([' ', '\t']).unwrap_or((rest, ""));
                    row.push(Some(field.to_string()));
                    rest = more.trim_start();
                }
            }
            row
        })
        .collect()
}

/// What walking a parsed list again costs the word budget: a word per word, redirection and
/// function, plus a word per 4 bytes of their text (an inline program or a here-document is
/// read again on every walk), nested bodies and substitutions included.
fn list_words(list: &List) -> usize {
    fn word(w: &Word) -> usize {
        1 + w.text.len() / 4 + w.subs.iter().map(|s| list_words(&s.list)).sum::<usize>()
    }
    let words = |ws: &[Word]| ws.iter().map(word).sum::<usize>();
    let redirs = |rs: &[RawRedir]| {
        rs.iter()
            .map(|r| word(&r.target) + r.body.as_ref().map_or(0, word))
            .sum::<usize>()
    };
    list.items
        .iter()
        .flat_map(|(p, _)| &p.cmds)
        .map(|n| match n {
            Node::Simple(s) => words(&s.words) + redirs(&s.redirs),
            Node::Group {
                list, redirs: r, ..
            } => list_words(list) + redirs(r),
            Node::Words(ws) => words(ws),
            Node::For {
                words: ws,
                body,
                redirs: r,
                ..
            } => ws.as_deref().map_or(0, words) + list_words(body) + redirs(r),
            Node::While {
                cond,
                body,
                redirs: r,
            } => list_words(cond) + list_words(body) + redirs(r),
            Node::Func { src, .. } => 1 + src.len() / 4,
        })
        .sum()
}

/// `docker run`'s options that take a value (short letters, long names).
const RUN_SHORT_VALUE: &[u8] = b"acehlmpuvw";
const RUN_LONG_VALUE: &[&str] = &[
    "add-host",
    "annotation",
    "attach",
    "blkio-weight",
    "cap-add",
    "cap-drop",
    "cgroup-parent",
    "cgroupns",
    "cidfile",
    "cpu-shares",
    "cpus",
    "cpuset-cpus",
    "device",
    "dns",
    "entrypoint",
    "env",
    "env-file",
    "expose",
    "gpus",
    "group-add",
    "health-cmd",
    "hostname",
    "ip",
    "ipc",
    "label",
    "label-file",
    "link",
    "log-driver",
    "log-opt",
    "memory",
    "mount",
    "name",
    "net",
    "network",
    "pid",
    "platform",
    "publish",
    "pull",
    "restart",
    "runtime",
    "security-opt",
    "shm-size",
    "stop-signal",
    "stop-timeout",
    "storage-opt",
    "sysctl",
    "tmpfs",
    "ulimit",
    "user",
    "userns",
    "uts",
    "volume",
    "volumes-from",
    "workdir",
];

/// Images whose entrypoint is a program that matters (`amazon/aws-cli s3 cp …` runs `aws`).
const IMAGE_ENTRYPOINTS: &[(&str, &str)] = &[
    ("amazon/aws-cli", "aws"),
    ("curlimages/curl", "curl"),
    ("alpine/git", "git"),
    ("rclone/rclone", "rclone"),
    ("minio/mc", "mc"),
];

/// What `docker run` / `podman run` starts inside the container, with every path under a bind
/// mount's target rewritten to the host path it stands for (`-v ~/.ssh:/k alpine cat /k/id_rsa`
/// reads `~/.ssh/id_rsa`; also inside a `sh -c` script); `None` when no word names a mounted
/// path: the rest of the container's file system is its own.
fn container_command(args: &[Arg], home: Option<&str>, cwd: Option<&str>) -> Option<Vec<AW>> {
    let run = args.iter().position(|a| a.text == "run")?;
    // (target in the container, source on the host)
    let mut mounts: Vec<(String, String)> = Vec::new();
    let mut entrypoint: Option<String> = None;
    let bind = |spec: &str, mounts: &mut Vec<(String, String)>| {
        let (src, dst) = if spec.contains('=') {
            // --mount type=bind,source=S,target=D
            let field = |keys: &[&str]| {
                spec.split(',').find_map(|kv| {
                    let (k, v) = kv.split_once('=')?;
                    keys.contains(&k).then(|| v.to_string())
                })
            };
            (
                field(&["source", "src"]),
                field(&["target", "dst", "destination"]),
            )
        } else {
            // -v S:D[:opts]
            let mut parts = spec.splitn(3, ':');
            (
                parts.next().map(str::to_string),
                parts.next().map(str::to_string),
            )
        };
        if let (Some(src), Some(dst)) = (src, dst) {
            // a named volume (no path) is the container's own
            let host = src
                .starts_with(['/', '~', '.'])
                .then(|| normalize(&src, cwd, home))
                .flatten();
            if let (Some(host), true) = (host, dst.starts_with('/') && dst.len() > 1) {
                mounts.push((dst.trim_end_matches('/').to_string(), host));
            }
        }
    };
    let mut i = run + 1;
    while i < args.len() {
        let t = args[i].text.as_str();
        if args[i].dynamic || !t.starts_with('-') || t == "-" {
            break;
        }
        if t == "--" {
            i += 1;
            break;
        }
        let value = |i: usize| args.get(i + 1).map(|a| a.text.as_str()).unwrap_or("");
        match t {
            "-v" | "--volume" | "--mount" => bind(value(i), &mut mounts),
            _ if t.starts_with("-v") && !t.starts_with("--") => bind(&t[2..], &mut mounts),
            "--entrypoint" => entrypoint = Some(value(i).to_string()),
            _ if t.starts_with("--volume=") || t.starts_with("--mount=") => {
                bind(t.split_once('=').map_or("", |(_, v)| v), &mut mounts)
            }
            _ if t.starts_with("--entrypoint=") => entrypoint = Some(t[13..].to_string()),
            _ => {}
        }
        // one option, with its value when that is the next word
        let takes_value = match t.strip_prefix("--") {
            Some(l) => !l.contains('=') && RUN_LONG_VALUE.contains(&l),
            None => t
                .bytes()
                .skip(1)
                .position(|b| RUN_SHORT_VALUE.contains(&b))
                .is_some_and(|k| k + 2 == t.len()),
        };
        i += 1 + usize::from(takes_value);
    }
    if mounts.is_empty() || i >= args.len() {
        return None;
    }
    let image = args[i].text.split(['@', ':']).next().unwrap_or("");
    let image = image
        .strip_prefix("docker.io/")
        .or_else(|| image.strip_prefix("public.ecr.aws/"))
        .unwrap_or(image);
    let entry = entrypoint.or_else(|| {
        IMAGE_ENTRYPOINTS
            .iter()
            .find(|(im, _)| *im == image)
            .map(|(_, p)| p.to_string())
    });
    mounts.sort_by_key(|(d, _)| std::cmp::Reverse(d.len()));
    let mut mapped = false;
    let words: Vec<AW> = entry
        .into_iter()
        .map(|e| (e, false))
        .chain(args[i + 1..].iter().map(|a| (a.text.clone(), a.dynamic)))
        .map(|(w, dynamic)| {
            let (w, m) = host_paths(&w, &mounts);
            mapped |= m;
            AW::lit(w, dynamic)
        })
        .collect();
    (mapped && !words.is_empty()).then_some(words)
}

/// `word` with each container path under a mount target (`/k`, `/k/id_rsa`, `@/k/x`, inside a
/// script) replaced by the host path it stands for; whether any was.
fn host_paths(word: &str, mounts: &[(String, String)]) -> (String, bool) {
    let path_byte = |b: u8| b.is_ascii_alphanumeric() || b"_.-".contains(&b);
    let mut out = String::with_capacity(word.len());
    let mut mapped = false;
    let b = word.as_bytes();
    let mut i = 0;
    'scan: while i < b.len() {
        if b[i] == b'/' && (i == 0 || !(path_byte(b[i - 1]) || b[i - 1] == b'/')) {
            for (dst, src) in mounts {
                if word[i..].starts_with(dst.as_str())
                    && b.get(i + dst.len()).is_none_or(|&c| !path_byte(c))
                {
                    out.push_str(src);
                    i += dst.len();
                    mapped = true;
                    continue 'scan;
                }
            }
        }
        let n = word[i..].chars().next().map_or(1, char::len_utf8);
        out.push_str(&word[i..i + n]);
        i += n;
    }
    (out, mapped)
}

/// The lines of `text` a `grep` with `args` (reading its input) prints: a literal pattern
/// (`.` matching any character) with `-v`, `-i`, `-F`, `-E`, `-e`; `None` for anything else
/// (a file operand, another option, a regex).
pub(super) fn grep_lines(args: &[&str], text: &str) -> Option<String> {
    let (mut invert, mut fold, mut fixed, mut pat) = (false, false, false, None);
    let mut it = args.iter();
    while let Some(&a) = it.next() {
        match a {
            "-e" => pat = Some(*it.next()?),
            _ if a.starts_with('-') && a.len() > 1 => {
                for f in a[1..].chars() {
                    match f {
                        'v' => invert = true,
                        'i' => fold = true,
                        'F' => fixed = true,
                        'E' => {}
                        _ => return None,
                    }
                }
            }
            _ if pat.is_none() => pat = Some(a),
            _ => return None,
        }
    }
    let pat = pat?;
    if !fixed
        && pat.contains([
            '^', '$', '*', '+', '?', '(', ')', '[', ']', '{', '}', '|', '\\',
        ])
    {
        return None;
    }
    let lower = |t: &str| {
        if fold {
            t.to_ascii_lowercase()
        } else {
            t.to_string()
        }
    };
    let pat: Vec<char> = lower(pat).chars().collect();
    let holds = |line: &str| {
        let line: Vec<char> = lower(line).chars().collect();
        pat.is_empty()
            || line.windows(pat.len()).any(|w| {
                w.iter()
                    .zip(&pat)
                    .all(|(c, p)| c == p || (*p == '.' && !fixed))
            })
    };
    Some(
        text.lines()
            .filter(|l| holds(l) != invert)
            .collect::<Vec<_>>()
            .join("\n"),
    )
}

/// The lines of `text` `head` (or `tail`) with `args` (`-n N`, `-N`, `-nN`) keeps; all of
/// them when the input is only partly known; `None` for a file operand or another option.
pub(super) fn head_tail_lines(
    head: bool,
    args: &[&str],
    text: &str,
    partial: bool,
) -> Option<String> {
    let mut n = 10usize;
    let mut it = args.iter();
    while let Some(&a) = it.next() {
        let v = match a {
            "-n" => *it.next()?,
            _ if a.starts_with("-n") => &a[2..],
            _ if a.starts_with('-') => &a[1..],
            _ => return None,
        };
        n = v.parse().ok()?;
    }
    let lines: Vec<&str> = text.lines().collect();
    let kept = if partial {
        &lines[..]
    } else if head {
        &lines[..n.min(lines.len())]
    } else {
        &lines[lines.len().saturating_sub(n)..]
    };
    Some(kept.join("\n"))
}

//! Stage 3, compile: [`CheckedPolicy`] → [`MatcherSet`], one immutable,
//! `Send + Sync` object shared by every evaluation.
//!
//! * Every atom becomes a ready matcher: regexes, glob sets, folded literals,
//!   normalised paths.
//! * For each hook, every rule's condition is reduced to a *required literal
//!   set* — literals of which at least one must occur in one field for the
//!   rule to possibly match ([`prefilter`]). All literals for the same field
//!   go into one aho-corasick automaton, so one pass over each field finds
//!   which rules can still match. Rules with no such literal are evaluated on
//!   every event (and `warden check` warns about them).
//! * Compilation is eager by default ([`CompileOptions::lazy`] = false): no
//!   regex is compiled and no index is built on the evaluation path. The hook
//!   sets `lazy`, which defers each hook's index and each regex to first use,
//!   so a process that evaluates one `pre_tool_call` pays only for what that
//!   event can reach.
//!
//! Over 800 lines on purpose: one lowering per IR test kind plus the lazy matchers they
//! build; the prefilter and the cache are already their own files.

pub mod cache;
pub mod fnv;
pub mod prefilter;
pub mod typo;

use crate::check::ir::{
    self, Action, CheckedPolicy, Expr, Origin, Qual, ShellTest, Test, UnderTarget, ValueExpr,
};
use crate::event::{Field, Hook};
use crate::redact::{DetectorSpec, Redactor, Replacement, Validator};
use crate::syntax::ast::{RedactReplace, Scalar, Style};
use std::collections::HashSet;
use std::sync::OnceLock;

/// How to compile.
#[derive(Clone, Debug, Default)]
pub struct CompileOptions {
    /// Home directory for `~`/`$HOME` in policies and events.
    pub home: Option<String>,
    /// Defer per-hook indexes and regexes to first use.
    pub lazy: bool,
}

impl CompileOptions {
    /// Eager compilation with `$HOME` from the environment.
    pub fn from_env() -> CompileOptions {
        CompileOptions {
            home: std::env::var("HOME").ok().filter(|h| !h.is_empty()),
            lazy: false,
        }
    }
}

/// A compile error (only regexes too big for the engine's limits get here:
/// everything else was checked).
#[derive(Debug, thiserror::Error)]
#[error("{location}: cannot compile regex: {message}")]
pub struct CompileError {
    /// `path:line:col` of the rule.
    pub location: String,
    /// What the regex engine said.
    pub message: String,
}

/// A regex compiled on first use (or at compile time when eager).
///
/// A hook process tests most regexes once, so building one is most of what a test
/// costs. When the compiled-policy snapshot says which literals every match must contain
/// (`needles`, ASCII-lowercase, from the prefilter's extraction), a short text holding
/// none of them is a non-match without building the regex.
pub(crate) struct LazyRegex {
    pub(crate) source: String,
    needles: Option<Vec<String>>,
    cell: OnceLock<regex::bytes::Regex>,
}

/// Texts up to this long are checked for a lazy regex's needles before it is built;
/// longer ones go to the regex (its own prefilter), so each byte is read a bounded number
/// of times.
const NEEDLE_CHECK_MAX: usize = 4096;

impl LazyRegex {
    fn new(
        source: String,
        eager: bool,
        needles: Option<Vec<String>>,
    ) -> Result<LazyRegex, regex::Error> {
        let me = LazyRegex {
            source,
            needles,
            cell: OnceLock::new(),
        };
        if eager {
            let re = build_regex(&me.source)?;
            let _ = me.cell.set(re);
        }
        Ok(me)
    }

    /// The compiled regex. A lazy regex was already validated by `check`, so
    /// a failure here can only be a size limit; it then never matches.
    pub(crate) fn get(&self) -> Option<&regex::bytes::Regex> {
        if let Some(r) = self.cell.get() {
            return Some(r);
        }
        match build_regex(&self.source) {
            Ok(r) => Some(self.cell.get_or_init(|| r)),
            Err(_) => None,
        }
    }

    /// True if the regex matches somewhere in `text`: false without building it when the
    /// regex is not built yet and a short `text` holds none of its needles.
    pub(crate) fn is_match(&self, text: &[u8]) -> bool {
        if let (None, Some(needles)) = (self.cell.get(), &self.needles) {
            if text.len() <= NEEDLE_CHECK_MAX {
                let lower = text.to_ascii_lowercase();
                let found = needles
                    .iter()
                    .any(|n| memchr::memmem::find(&lower, n.as_bytes()).is_some());
                if !found {
                    return false;
                }
            }
        }
        self.get().is_some_and(|re| re.is_match(text))
    }
}

/// Compile a policy regex, in the mode [`crate::syntax::parse_regex`]
/// chooses (the prefilter extracts its literals in the same mode, so the two
/// always agree): ASCII classes (`\w`, `\d`, `\s`, `\b`) and ASCII case
/// folding, as in the redaction engine — what a shell and most wire formats
/// mean, and several times faster to compile than Unicode tables, which a
/// hook process pays per call — unless the pattern needs Unicode (`\p{…}`).
///
/// The pattern is built in ASCII mode first and, only if that is refused, in Unicode mode:
/// the same choice as [`crate::syntax::regex_needs_unicode`] (whose parser is configured
/// as a bytes regex in ASCII mode) without parsing the pattern twice in the common case.
fn build_regex(source: &str) -> Result<regex::bytes::Regex, regex::Error> {
    regex::bytes::RegexBuilder::new(source)
        .unicode(false)
        .build()
        .or_else(|_| {
            regex::bytes::RegexBuilder::new(source)
                .unicode(true)
                .build()
        })
}

/// A glob set built on first use (or at compile time when eager): building
/// one compiles a regex, which a hook process should pay only if it needs it.
pub(crate) struct LazyGlob {
    patterns: Vec<String>,
    cell: OnceLock<globset::GlobSet>,
}

impl LazyGlob {
    fn new(
        patterns: &[String],
        eager: bool,
        origin: Option<&Origin>,
    ) -> Result<LazyGlob, CompileError> {
        let me = LazyGlob {
            patterns: patterns.to_vec(),
            cell: OnceLock::new(),
        };
        if eager {
            let g = me.build().map_err(|e| CompileError {
                location: origin.map_or_else(|| "<policy>".into(), Origin::location),
                message: e.to_string(),
            })?;
            let _ = me.cell.set(g);
        }
        Ok(me)
    }

    fn build(&self) -> Result<globset::GlobSet, globset::Error> {
        let mut b = globset::GlobSetBuilder::new();
        for p in &self.patterns {
            b.add(
                globset::GlobBuilder::new(p)
                    .literal_separator(true)
                    .build()?,
            );
        }
        b.build()
    }

    /// The glob set. The checker validated every pattern, so a build
    /// failure cannot happen; it would give a set that matches nothing.
    pub(crate) fn get(&self) -> &globset::GlobSet {
        self.cell
            .get_or_init(|| self.build().unwrap_or_else(|_| globset::GlobSet::empty()))
    }
}

/// A condition tree over atom indexes.
#[derive(Clone, Debug)]
pub(crate) enum Node {
    And(Box<[Node]>),
    Or(Box<[Node]>),
    Not(Box<Node>),
    Const(bool),
    Atom(u32),
}

/// A ready-to-run test on one field.
pub(crate) struct CAtom {
    pub(crate) field: Field,
    /// The checked form, for prefilter extraction and explanations.
    pub(crate) source: Test,
    /// The matcher, built at compile time (eager) or on first use (lazy: a hook process
    /// evaluates only the atoms of its candidate rules, so it builds only those).
    built: OnceLock<CTest>,
    /// `$HOME` for path targets, when built lazily.
    home: Option<std::sync::Arc<str>>,
    /// The needles of lazy regexes (from a snapshot), when built lazily.
    needles: Needles,
}

/// Needles of lazy regexes by source (see [`LazyRegex`]), shared by a set's atoms.
type Needles = std::sync::Arc<std::collections::HashMap<String, Vec<String>>>;

impl CAtom {
    /// The ready-to-run test.
    pub(crate) fn test(&self) -> &CTest {
        self.built.get_or_init(|| {
            let mut b = Builder::with(self.home.clone(), false);
            b.needles = self.needles.clone();
            // Lazy building cannot fail: regexes and globs are built on use, and the
            // checker already validated them (a failure there makes them never match).
            b.test(&self.source, None)
                .unwrap_or_else(|_| unreachable!("lazy tests do not fail to build"))
        })
    }
}

/// A string literal ready for comparison. With `nocase`, an ASCII literal
/// folds ASCII letters only and a literal with non-ASCII letters folds by
/// Unicode lowercase (`unicode`); the text is folded the same way.
pub(crate) struct Needle {
    pub(crate) text: String,
    pub(crate) unicode: bool,
}

impl Needle {
    fn new(s: &str, nocase: bool) -> Needle {
        match (nocase, s.is_ascii()) {
            (false, _) => Needle {
                text: s.to_string(),
                unicode: false,
            },
            (true, true) => Needle {
                text: s.to_ascii_lowercase(),
                unicode: false,
            },
            (true, false) => Needle {
                text: s.to_lowercase(),
                unicode: true,
            },
        }
    }
}

pub(crate) enum CTest {
    Eq {
        value: Scalar,
        nocase: bool,
        unicode: bool,
    },
    In {
        ascii: HashSet<String>,
        unicode: HashSet<String>,
        others: Vec<Scalar>,
        nocase: bool,
    },
    Contains {
        needles: Vec<Needle>,
        nocase: bool,
    },
    StartsWith {
        needles: Vec<Needle>,
        nocase: bool,
    },
    EndsWith {
        needles: Vec<Needle>,
        nocase: bool,
    },
    Matches(LazyRegex),
    Glob(LazyGlob),
    Under(Vec<UnderPath>),
    UnderField(Field),
    Exists,
    Shell(CShell),
    Detects {
        patterns: Vec<String>,
        redactor: Box<OnceLock<SharedRedactor>>,
    },
}

/// A compiled shell predicate.
pub(crate) enum CShell {
    Command {
        programs: Vec<String>,
        quals: Vec<CQual>,
    },
    Unknown,
    Pipe {
        from: Vec<String>,
        to: Vec<String>,
    },
    RedirectUnder(Vec<UnderPath>),
    RedirectGlob(LazyGlob),
}

pub(crate) enum CQual {
    Flags(Vec<String>),
    AnyFlag(Vec<String>),
    Subcommand(Vec<Vec<String>>),
    DynamicArgs,
    ArgUnder(Vec<UnderPath>),
    ArgIs(Vec<UnderPath>),
    ArgResembles(typo::PackageNames),
    Arg(Box<CTest>),
    ArgPath(Box<CTest>),
}

/// A literal `under` target: absolute once `~` is expanded, relative to the event's
/// `cwd`, or under an environment variable's value (`$HERMES_HOME/config.yaml`) taken from
/// the event's [`Event::env`](crate::Event::env) when it is evaluated, so nothing compiled
/// depends on the variable (the compiled-policy cache key need not cover it).
#[derive(Clone)]
pub(crate) enum UnderPath {
    Abs(String),
    Rel(String),
    Env { var: String, rest: String },
}

impl UnderPath {
    /// Does `f` hold for one of the directories this target stands for in `event`?
    pub(crate) fn any_dir(
        &self,
        event: &crate::Event,
        home: Option<&str>,
        mut f: impl FnMut(&str) -> bool,
    ) -> bool {
        match self {
            UnderPath::Abs(d) => f(d),
            UnderPath::Rel(r) => {
                crate::paths::normalize(r, event.cwd.as_deref(), home).is_some_and(|d| f(&d))
            }
            UnderPath::Env { var, rest } => event.env_values(var).any(|v| {
                crate::paths::normalize(&format!("{v}{rest}"), event.cwd.as_deref(), home)
                    .is_some_and(|d| f(&d))
            }),
        }
    }
}

pub(crate) enum CValue {
    Const(serde_json::Value),
    Template(ir::Template),
    Field(Field),
    Replace {
        input: Box<CValue>,
        regex: LazyRegex,
        with: String,
    },
}

pub(crate) enum CAction {
    Block {
        message: ir::Template,
        placeholder: Option<String>,
    },
    Approve {
        message: ir::Template,
        key: Option<String>,
    },
    Modify(Vec<(String, CValue)>),
    Context(ir::Template),
    Redact,
}

pub(crate) struct CRule {
    pub(crate) id: String,
    pub(crate) severity: String,
    pub(crate) hooks: u32,
    pub(crate) when: Node,
    pub(crate) unless: Option<Node>,
    pub(crate) action: CAction,
    pub(crate) kind: &'static str,
    pub(crate) exemptions: Vec<u32>,
    pub(crate) origin: Origin,
}

pub(crate) struct CExempt {
    pub(crate) when: Option<Node>,
    pub(crate) because: String,
    pub(crate) until: Option<String>,
    pub(crate) origin: Origin,
}

/// The compiled policy set: every rule and exemption as matchers, plus a
/// literal prefilter per hook.
pub struct MatcherSet {
    pub(crate) rules: Vec<CRule>,
    pub(crate) atoms: Vec<CAtom>,
    pub(crate) exemptions: Vec<CExempt>,
    pub(crate) home: Option<String>,
    indexes: Vec<OnceLock<prefilter::HookIndex>>,
    /// Redaction rules, as checked, for the redaction engine.
    pub(crate) redact_rules: Vec<(String, Vec<Hook>, ir::RedactRule)>,
    /// One redactor per hook, over the redaction rules of that hook.
    redactors: Vec<OnceLock<Option<Redactor>>>,
    /// The redactors `detects` tests built, by their patterns: atoms with the same patterns
    /// (the inbound pack tests the message and the history) share one.
    detectors: std::sync::Mutex<Vec<(Vec<String>, SharedRedactor)>>,
    /// Compiled lazily (a hook process): prefer automata that build fast.
    pub(crate) lazy: bool,
}

/// A redactor shared by the `detects` tests with the same patterns (`None`: it would not build).
type SharedRedactor = Option<std::sync::Arc<Redactor>>;

/// The redaction engine's spec for a checked redaction rule.
fn detector_spec(id: &str, r: &ir::RedactRule) -> DetectorSpec {
    let o = &r.options;
    let label = match &r.replace {
        RedactReplace::With(l) | RedactReplace::Withhold(l) => l.clone(),
    };
    let replacement = match (&r.replace, o.style.as_ref().map(|s| &s.node)) {
        (RedactReplace::Withhold(m), _) => Replacement::Withhold(m.clone()),
        (_, Some(Style::Prefix(n))) => Replacement::Prefix {
            label,
            keep: *n as usize,
        },
        (_, Some(Style::Numbered(name))) => Replacement::Numbered(name.clone()),
        _ => Replacement::Label(label),
    };
    DetectorSpec {
        id: id.to_string(),
        replacement,
        regex: r.pattern.source(),
        capture: o.capture.as_ref().map(|c| c.node as usize),
        keywords: o.keywords.clone(),
        validator: o
            .validate
            .as_ref()
            .and_then(|v| Validator::from_name(&v.node)),
        min_entropy: o.min_entropy,
        allow_values: o.allow.clone(),
        allow_patterns: o.allow_patterns.iter().map(|p| p.source()).collect(),
        keys: o.keys,
    }
}

/// True if `id` matches a rule-id pattern (`x.y`, `x.*`, `*`).
pub(crate) fn id_matches(pattern: &str, id: &str) -> bool {
    match pattern.strip_suffix('*') {
        Some(prefix) => id.starts_with(prefix),
        None => pattern == id,
    }
}

impl std::fmt::Debug for MatcherSet {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("MatcherSet")
            .field("rules", &self.rules.len())
            .field("atoms", &self.atoms.len())
            .finish()
    }
}

/// Compile a checked policy.
pub fn compile(policy: &CheckedPolicy, opts: &CompileOptions) -> Result<MatcherSet, CompileError> {
    compile_owned(policy.clone(), opts)
}

/// [`compile`], consuming the policy (its conditions move into the matchers
/// instead of being copied: what the hook's cache path wants).
pub fn compile_owned(
    policy: CheckedPolicy,
    opts: &CompileOptions,
) -> Result<MatcherSet, CompileError> {
    let mut b = Builder::new(opts);
    let exempt_of: Vec<Vec<u32>> = policy
        .rules
        .iter()
        .map(|r| exemptions_of(&r.id, &policy.exemptions))
        .collect();
    let mut exemptions = Vec::with_capacity(policy.exemptions.len());
    for e in policy.exemptions {
        exemptions.push(b.exemption(e)?);
    }
    let mut rules = Vec::with_capacity(policy.rules.len());
    let mut redact_rules = Vec::new();
    for (r, exempt_idx) in policy.rules.into_iter().zip(exempt_of) {
        rules.push(b.rule(r, exempt_idx, &mut redact_rules)?);
    }
    let set = MatcherSet {
        rules,
        atoms: b.atoms,
        exemptions,
        home: opts.home.clone(),
        indexes: per_hook(),
        redact_rules,
        redactors: per_hook(),
        detectors: Default::default(),
        lazy: opts.lazy,
    };
    for a in &set.atoms {
        if let Test::Detects { patterns } = &a.source {
            if let Some(p) = patterns
                .iter()
                .find(|p| !set.redact_rules.iter().any(|(id, _, _)| id_matches(p, id)))
            {
                return Err(CompileError {
                    location: "<policy>".into(),
                    message: format!("`detects {p:?}` names no redaction rule"),
                });
            }
        }
    }
    if !opts.lazy {
        for h in Hook::ALL {
            set.index(*h);
            set.redactor(*h).map_err(|e| CompileError {
                location: "<policy>".into(),
                message: e,
            })?;
        }
    }
    Ok(set)
}

impl MatcherSet {
    /// The prefilter index of `hook`, built on first use.
    pub(crate) fn index(&self, hook: Hook) -> &prefilter::HookIndex {
        self.indexes[hook as usize].get_or_init(|| prefilter::HookIndex::build(self, hook))
    }

    /// The redactor over `hook`'s redaction rules (`Ok(None)` if it has none).
    pub fn redactor(&self, hook: Hook) -> Result<Option<&Redactor>, String> {
        let slot = self.redactors[hook as usize].get_or_init(|| {
            let specs: Vec<DetectorSpec> = self
                .redact_rules
                .iter()
                .filter(|(_, hooks, _)| hooks.contains(&hook))
                .map(|(id, _, r)| detector_spec(id, r))
                .collect();
            if specs.is_empty() {
                return None;
            }
            // The checker validated every regex; a failure here is an engine limit.
            Redactor::new(specs).ok()
        });
        match slot {
            Some(r) => Ok(Some(r)),
            None if self.redact_rules.iter().any(|(_, h, _)| h.contains(&hook)) => Err(format!(
                "the redaction rules of {} do not compile",
                hook.name()
            )),
            None => Ok(None),
        }
    }

    /// A redactor over the redaction rules whose ids match `patterns`, built once per
    /// distinct pattern list of the set (building one is most of a `pre_llm_call` hook's work).
    pub(crate) fn redactor_for(&self, patterns: &[String]) -> SharedRedactor {
        let mut built = self.detectors.lock().unwrap_or_else(|e| e.into_inner());
        if let Some((_, r)) = built.iter().find(|(p, _)| p == patterns) {
            return r.clone();
        }
        let specs: Vec<DetectorSpec> = self
            .redact_rules
            .iter()
            .filter(|(id, _, _)| patterns.iter().any(|p| id_matches(p, id)))
            .map(|(id, _, r)| detector_spec(id, r))
            .collect();
        let r = Redactor::new(specs).ok().map(std::sync::Arc::new);
        built.push((patterns.to_vec(), r.clone()));
        r
    }

    /// The plan of `hook`'s prefilter (for the compiled-policy cache).
    pub(crate) fn index_plan(&self, hook: Hook) -> prefilter::IndexPlan {
        prefilter::IndexPlan::new(self, hook)
    }

    /// Number of rules.
    pub fn rule_count(&self) -> usize {
        self.rules.len()
    }

    /// The message template of rule `id`'s block, approve or context action
    /// (the audit log renders it with placeholders instead of values).
    pub fn message_template(&self, id: &str) -> Option<&ir::Template> {
        self.rules
            .iter()
            .find(|r| r.id == id)
            .and_then(|r| match &r.action {
                CAction::Block { message, .. } | CAction::Approve { message, .. } => Some(message),
                CAction::Context(t) => Some(t),
                _ => None,
            })
    }

    /// Compile every decision-rule regex now; the ones the engine refuses
    /// (size limits: the checker has validated the syntax) as `(rule id,
    /// location, message)`. A lazily compiled set would otherwise find out
    /// on first use, where such a regex can only never match.
    pub fn regex_failures(&self) -> Vec<(&str, &Origin, String)> {
        let mut out = Vec::new();
        for r in &self.rules {
            let mut atoms = Vec::new();
            collect_atoms(&r.when, &mut atoms);
            if let Some(u) = &r.unless {
                collect_atoms(u, &mut atoms);
            }
            for a in atoms {
                if let Test::Matches { regex } = &self.atoms[a as usize].source {
                    if let Err(e) = build_regex(regex) {
                        out.push((r.id.as_str(), &r.origin, e.to_string()));
                    }
                }
            }
        }
        out
    }

    /// Redaction rules with neither a keyword nor a run gate on some hook, so their regex is
    /// searched over the whole of every text: `(rule id, location)`.
    pub fn unanchored_redactions(&self) -> Vec<(&str, &Origin)> {
        let mut ids = HashSet::new();
        for &h in Hook::ALL {
            if let Ok(Some(r)) = self.redactor(h) {
                ids.extend(r.unanchored_rules().map(str::to_string));
            }
        }
        self.rules
            .iter()
            .filter(|r| ids.contains(&r.id))
            .map(|r| (r.id.as_str(), &r.origin))
            .collect()
    }

    /// Rules that have no required literal, so they run on every event of
    /// their hooks: `(rule id, location)`.
    pub fn unfiltered_rules(&self) -> Vec<(&str, &Origin)> {
        let mut seen = vec![false; self.rules.len()];
        for h in Hook::ALL {
            for &r in &self.index(*h).unfiltered {
                seen[r as usize] = true;
            }
        }
        self.rules
            .iter()
            .enumerate()
            .filter(|(i, r)| seen[*i] && !matches!(r.action, CAction::Redact))
            .map(|(_, r)| (r.id.as_str(), &r.origin))
            .collect()
    }
}

/// Every atom index in a condition.
pub(crate) fn collect_atoms(n: &Node, out: &mut Vec<u32>) {
    match n {
        Node::And(v) | Node::Or(v) => v.iter().for_each(|c| collect_atoms(c, out)),
        Node::Not(c) => collect_atoms(c, out),
        Node::Atom(a) => out.push(*a),
        Node::Const(_) => {}
    }
}

/// A rough evaluation cost, for ordering `and`/`or` children.
fn cost(e: &Expr) -> u8 {
    match e {
        Expr::Const(_) => 0,
        Expr::Not(e) => cost(e),
        Expr::And(v) | Expr::Or(v) => v.iter().map(cost).max().unwrap_or(0),
        Expr::Atom(a) => match a.test {
            Test::Exists | Test::Eq { .. } | Test::In { .. } => 1,
            Test::Contains { .. } | Test::StartsWith { .. } | Test::EndsWith { .. } => 2,
            Test::Under { .. } => 3,
            Test::Shell(_) => 4,
            Test::Glob { .. } => 5,
            Test::Matches { .. } => 6,
            Test::Detects { .. } => 7,
        },
    }
}

struct Builder {
    /// `under` targets already normalised (packs repeat the same path lists).
    paths: std::cell::RefCell<std::collections::HashMap<String, UnderPath>>,
    atoms: Vec<CAtom>,
    /// `$HOME` for path targets, shared with the atoms that build lazily
    home: Option<std::sync::Arc<str>>,
    eager: bool,
    /// Needles of lazy regexes, by source (from a snapshot: [`cache::Snapshot::needles`]).
    needles: Needles,
}

/// The matcher set of a cached hook part, for one event: the prefilter runs over the
/// event first, on the plan stored in the snapshot, and only the rules it admits
/// are decoded and compiled. Every other rule is a stub that never matches — which is
/// what the prefilter already knows of it — so the set decides `event` exactly as the
/// whole part would. A set made here is only for `event`; `None` when the snapshot does
/// not decode (the caller then rebuilds it).
pub(crate) fn compile_for_event(
    mut snap: cache::Snapshot<'_>,
    event: &crate::event::Event,
    opts: &CompileOptions,
) -> Option<MatcherSet> {
    let hook = event.hook;
    let stub_origin = Origin {
        file: std::sync::Arc::new(crate::diag::SourceFile {
            path: "<snapshot>".into(),
            text: String::new(),
        }),
        span: crate::diag::Span { start: 0, end: 0 },
        line: 0,
        col: 0,
    };
    let stub = || CRule {
        id: String::new(),
        severity: String::new(),
        hooks: hook.bit(),
        when: Node::Const(false),
        unless: None,
        action: CAction::Context(ir::Template { parts: Vec::new() }),
        kind: "",
        exemptions: Vec::new(),
        origin: stub_origin.clone(),
    };
    let mut set = MatcherSet {
        rules: (0..snap.rules.len()).map(|_| stub()).collect(),
        atoms: Vec::new(),
        exemptions: Vec::new(),
        home: opts.home.clone(),
        indexes: per_hook(),
        redact_rules: Vec::new(),
        redactors: per_hook(),
        detectors: Default::default(),
        lazy: true,
    };
    // the index depends only on the plan, so it is the whole part's index
    let index = prefilter::HookIndex::from_plan(&set, std::mem::take(&mut snap.index));
    let _ = set.indexes[hook as usize].set(index);
    let bits = {
        let memo = crate::event::memo::EventMemo::new(event, set.home.as_deref());
        set.index(hook).candidates(&memo, &mut |_, _| {})
    };
    // decode the admitted rules first: their atoms share the needles of all of them
    let mut picked = Vec::new();
    let mut needles = std::collections::HashMap::new();
    for (w, word) in bits.iter().enumerate() {
        let mut word = *word;
        while word != 0 {
            let i = w * 64 + word.trailing_zeros() as usize;
            word &= word - 1;
            let (r, n) = snap.rule(i).filter(|(r, _)| r.hooks.contains(&hook))?;
            needles.extend(n);
            picked.push((i, r));
        }
    }
    let mut b = Builder::with(opts.home.as_deref().map(Into::into), false);
    b.needles = std::sync::Arc::new(needles);
    for (i, r) in picked {
        let exempt = exemptions_of(&r.id, &snap.exemptions);
        set.rules[i] = b.rule(r, exempt, &mut set.redact_rules).ok()?;
    }
    for e in snap.exemptions {
        let e = b.exemption(e).ok()?;
        set.exemptions.push(e);
    }
    set.atoms = b.atoms;
    Some(set)
}

/// One empty cell per hook (the lazily built indexes and redactors of a set).
fn per_hook<T>() -> Vec<OnceLock<T>> {
    Hook::ALL.iter().map(|_| OnceLock::new()).collect()
}

/// The exemptions (indexes into `exemptions`) that cover rule `id`.
fn exemptions_of(id: &str, exemptions: &[ir::Exemption]) -> Vec<u32> {
    exemptions
        .iter()
        .enumerate()
        .filter(|(_, e)| e.covers(id))
        .map(|(i, _)| i as u32)
        .collect()
}

impl Builder {
    fn new(opts: &CompileOptions) -> Builder {
        Builder::with(opts.home.as_deref().map(Into::into), !opts.lazy)
    }

    fn with(home: Option<std::sync::Arc<str>>, eager: bool) -> Builder {
        Builder {
            paths: Default::default(),
            atoms: Vec::new(),
            home,
            eager,
            needles: Default::default(),
        }
    }

    fn exemption(&mut self, e: ir::Exemption) -> Result<CExempt, CompileError> {
        let when = match e.when {
            Some(w) => Some(self.node(w, &e.origin)?),
            None => None,
        };
        Ok(CExempt {
            when,
            because: e.because,
            until: e.until,
            origin: e.origin,
        })
    }

    /// Compile one rule; a redaction rule's spec goes to `redact_rules`.
    fn rule(
        &mut self,
        r: ir::Rule,
        exemptions: Vec<u32>,
        redact_rules: &mut Vec<(String, Vec<Hook>, ir::RedactRule)>,
    ) -> Result<CRule, CompileError> {
        let when = self.node(r.when, &r.origin)?;
        let unless = match r.unless {
            Some(u) => Some(self.node(u, &r.origin)?),
            None => None,
        };
        let action = match &r.action {
            Action::Block {
                message,
                placeholder,
            } => CAction::Block {
                message: message.clone(),
                placeholder: placeholder.clone(),
            },
            Action::Approve { message, key } => CAction::Approve {
                message: message.clone(),
                key: key.clone(),
            },
            Action::Context(t) => CAction::Context(t.clone()),
            Action::Modify(sets) => {
                let mut out = Vec::with_capacity(sets.len());
                for (k, v) in sets {
                    out.push((k.clone(), self.value(v, Some(&r.origin))?));
                }
                CAction::Modify(out)
            }
            Action::Redact(rr) => {
                redact_rules.push((r.id.clone(), r.hooks.clone(), (**rr).clone()));
                CAction::Redact
            }
        };
        Ok(CRule {
            hooks: r.hooks.iter().fold(0, |m, h| m | h.bit()),
            when,
            unless,
            kind: r.action.kind(),
            action,
            exemptions,
            id: r.id,
            severity: r.severity,
            origin: r.origin,
        })
    }

    fn regex(&self, source: &str, origin: Option<&Origin>) -> Result<LazyRegex, CompileError> {
        let needles = self.needles.get(source).cloned();
        LazyRegex::new(source.to_string(), self.eager, needles).map_err(|e| CompileError {
            location: origin.map_or_else(|| "<policy>".into(), Origin::location),
            message: e.to_string(),
        })
    }

    fn node(&mut self, e: Expr, origin: &Origin) -> Result<Node, CompileError> {
        Ok(match e {
            Expr::And(v) => Node::And(self.cheapest_first(v, origin)?),
            Expr::Or(v) => Node::Or(self.cheapest_first(v, origin)?),
            Expr::Not(e) => Node::Not(Box::new(self.node(*e, origin)?)),
            Expr::Const(b) => Node::Const(b),
            Expr::Atom(a) => {
                let built = OnceLock::new();
                if self.eager {
                    let _ = built.set(self.test(&a.test, Some(origin))?);
                }
                self.atoms.push(CAtom {
                    field: a.field,
                    source: a.test,
                    built,
                    home: self.home.clone(),
                    needles: self.needles.clone(),
                });
                Node::Atom((self.atoms.len() - 1) as u32)
            }
        })
    }

    /// Children of `and`/`or`, cheapest to evaluate first (conditions have no
    /// side effects, so order only changes cost): a `tool ==` test decides
    /// before a regex is compiled or a command line parsed.
    fn cheapest_first(
        &mut self,
        v: Vec<Expr>,
        origin: &Origin,
    ) -> Result<Box<[Node]>, CompileError> {
        let mut kids: Vec<(u8, Expr)> = v.into_iter().map(|e| (cost(&e), e)).collect();
        kids.sort_by_key(|(c, _)| *c);
        kids.into_iter()
            .map(|(_, e)| self.node(e, origin))
            .collect()
    }

    fn test(&self, t: &Test, origin: Option<&Origin>) -> Result<CTest, CompileError> {
        let fold = |v: &[String], nocase: bool| -> Vec<Needle> {
            v.iter().map(|s| Needle::new(s, nocase)).collect()
        };
        Ok(match t {
            Test::Eq { value, nocase } => match value {
                Scalar::Str(s) => {
                    let n = Needle::new(s, *nocase);
                    CTest::Eq {
                        value: Scalar::Str(n.text),
                        nocase: *nocase,
                        unicode: n.unicode,
                    }
                }
                v => CTest::Eq {
                    value: v.clone(),
                    nocase: *nocase,
                    unicode: false,
                },
            },
            Test::In { values, nocase } => {
                // sized up front: growing rehashes every member (a hook builds these per call)
                let mut ascii = HashSet::with_capacity(values.len());
                let mut unicode = HashSet::new();
                let mut others = Vec::new();
                for v in values {
                    match v {
                        Scalar::Str(s) => {
                            let n = Needle::new(s, *nocase);
                            if n.unicode {
                                unicode.insert(n.text)
                            } else {
                                ascii.insert(n.text)
                            };
                        }
                        other => others.push(other.clone()),
                    }
                }
                CTest::In {
                    ascii,
                    unicode,
                    others,
                    nocase: *nocase,
                }
            }
            Test::Contains { needles, nocase } => CTest::Contains {
                needles: fold(needles, *nocase),
                nocase: *nocase,
            },
            Test::StartsWith { needles, nocase } => CTest::StartsWith {
                needles: fold(needles, *nocase),
                nocase: *nocase,
            },
            Test::EndsWith { needles, nocase } => CTest::EndsWith {
                needles: fold(needles, *nocase),
                nocase: *nocase,
            },
            Test::Matches { regex } => CTest::Matches(self.regex(regex, origin)?),
            Test::Glob { patterns } => CTest::Glob(self.globs(patterns, origin)?),
            Test::Under {
                target: UnderTarget::Paths(ps),
            } => CTest::Under(self.under_paths(ps)),
            Test::Under {
                target: UnderTarget::Field(f),
            } => CTest::UnderField(f.clone()),
            Test::Exists => CTest::Exists,
            Test::Shell(st) => CTest::Shell(self.shell(st, origin)?),
            Test::Detects { patterns } => CTest::Detects {
                patterns: patterns.clone(),
                redactor: Box::default(),
            },
        })
    }

    fn under_paths(&self, ps: &[String]) -> Vec<UnderPath> {
        let mut memo = self.paths.borrow_mut();
        ps.iter()
            .map(|p| {
                memo.entry(p.clone())
                    .or_insert_with(|| {
                        if let Some((var, rest)) = crate::paths::split_var(p) {
                            return UnderPath::Env {
                                var: var.to_string(),
                                rest: rest.to_string(),
                            };
                        }
                        match crate::paths::normalize(p, None, self.home.as_deref()) {
                            Some(abs) => UnderPath::Abs(abs),
                            None => UnderPath::Rel(p.clone()),
                        }
                    })
                    .clone()
            })
            .collect()
    }

    fn globs(
        &self,
        patterns: &[String],
        origin: Option<&Origin>,
    ) -> Result<LazyGlob, CompileError> {
        LazyGlob::new(patterns, self.eager, origin)
    }

    fn shell(&self, st: &ShellTest, origin: Option<&Origin>) -> Result<CShell, CompileError> {
        Ok(match st {
            ShellTest::Command { programs, quals } => {
                let mut out = Vec::with_capacity(quals.len());
                for q in quals {
                    out.push(match q {
                        Qual::Flags(f) => CQual::Flags(f.clone()),
                        Qual::AnyFlag(f) => CQual::AnyFlag(f.clone()),
                        Qual::Subcommand(s) => CQual::Subcommand(s.clone()),
                        Qual::DynamicArgs => CQual::DynamicArgs,
                        Qual::ArgUnder(p) => CQual::ArgUnder(self.under_paths(p)),
                        Qual::ArgIs(p) => CQual::ArgIs(self.under_paths(p)),
                        Qual::ArgResembles(n) => CQual::ArgResembles(typo::PackageNames::new(n)),
                        Qual::Arg(t) => CQual::Arg(Box::new(self.test(t, origin)?)),
                        Qual::ArgPath(t) => CQual::ArgPath(Box::new(self.test(t, origin)?)),
                    });
                }
                CShell::Command {
                    programs: programs.clone(),
                    quals: out,
                }
            }
            ShellTest::Unknown => CShell::Unknown,
            ShellTest::Pipe { from, to } => CShell::Pipe {
                from: from.clone(),
                to: to.clone(),
            },
            ShellTest::RedirectUnder(p) => CShell::RedirectUnder(self.under_paths(p)),
            ShellTest::RedirectGlob(g) => CShell::RedirectGlob(self.globs(g, origin)?),
        })
    }

    fn value(&self, v: &ValueExpr, origin: Option<&Origin>) -> Result<CValue, CompileError> {
        Ok(match v {
            ValueExpr::Const(c) => CValue::Const(c.to_json()),
            ValueExpr::Template(t) => CValue::Template(t.clone()),
            ValueExpr::Field(f) => CValue::Field(f.clone()),
            ValueExpr::Replace { input, regex, with } => CValue::Replace {
                input: Box::new(self.value(input, origin)?),
                regex: self.regex(regex, origin)?,
                with: with.clone(),
            },
        })
    }
}

#[cfg(test)]
mod tests {
    use super::{build_regex, prefilter::regex_literals, LazyRegex, NEEDLE_CHECK_MAX};

    /// `detects` tests with the same patterns share one redactor.
    #[test]
    fn detects_tests_share_their_redactor() {
        let set = crate::Policy::builtin().unwrap().compile().unwrap();
        let p = vec!["secret.*".to_string()];
        let (a, b) = (set.redactor_for(&p).unwrap(), set.redactor_for(&p).unwrap());
        assert!(std::sync::Arc::ptr_eq(&a, &b));
        let other = set.redactor_for(&["pii.*".to_string()]).unwrap();
        assert!(!std::sync::Arc::ptr_eq(&a, &other));
    }

    /// A lazy regex with needles is not built for a short text that lacks them all, and
    /// decides every text as the regex does.
    #[test]
    fn needles_spare_building_a_regex() {
        let src = r"(?i)^(?:core\.(?:pager|editor)|alias\.[^=]+=\s*!)";
        let needles = regex_literals(src);
        assert!(needles.is_some(), "{needles:?}");
        let lazy = LazyRegex::new(src.into(), false, needles).unwrap();
        let plain = build_regex(src).unwrap();
        assert!(!lazy.is_match(b"status"));
        assert!(
            lazy.cell.get().is_none(),
            "built for a text without needles"
        );
        let long = "x".repeat(NEEDLE_CHECK_MAX + 1);
        for text in [
            "--short",
            "CORE.Pager=less",
            "alias.x=!sh",
            "xcore.pager",
            &long,
        ] {
            assert_eq!(
                lazy.is_match(text.as_bytes()),
                plain.is_match(text.as_bytes()),
                "{text}"
            );
        }
        assert!(lazy.cell.get().is_some());
    }

    /// A policy regex is read in ASCII mode unless it needs Unicode, the way the
    /// checker and the prefilter read it (`syntax::regex_needs_unicode`).
    #[test]
    fn regexes_are_ascii_unless_they_need_unicode() {
        for (src, text, matches) in [
            (r"^\w+$", "abc", true),
            (r"^\w+$", "é", false),          // ASCII \w
            (r"(?i)^K$", "\u{212a}", false), // ASCII case folding: no Kelvin sign
            (r"^\p{Greek}+$", "αβ", true),   // needs Unicode
            (r"\xff", "\u{ff}", false),      // the byte 0xff, not U+00FF
        ] {
            let re = build_regex(src).unwrap();
            assert_eq!(re.is_match(text.as_bytes()), matches, "{src} on {text}");
            assert_eq!(
                crate::syntax::regex_needs_unicode(src),
                src.contains(r"\p"),
                "{src}"
            );
        }
        assert!(build_regex(r"(").is_err());
    }
}

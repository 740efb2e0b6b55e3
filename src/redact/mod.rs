//! warden's redaction engine.
//!
//! # How a text is scanned
//! 1. **One Aho-Corasick pass** (DFA, ASCII case-insensitive, overlapping) over the text finds
//!    every keyword hit of every rule. Keywords come from the rule (`keywords [...]`) or, when
//!    it has none, from the rarest literal set the regex requires (see `literals.rs`).
//! 2. For every hit, a **window** is opened around it: the rule's maximum match length on each
//!    side (from `Hir::properties().maximum_len()`, capped at [`BOUNDED_CAP`]); rules whose
//!    regex is unbounded use [`UNBOUNDED_WINDOW`] and grow the window (doubling, up to
//!    [`MAX_WINDOW`]) when a match touches its edge. Windows are merged per rule, and only
//!    windows are searched by the rule's regex — no rule ever scans the whole text. A rule
//!    whose every match starts at its keyword opens a window only where a match can start
//!    (first a table lookup per offset, `profile.rs`, then an anchored regex).
//! 3. Rules without any usable literal run as one multi-pattern pass: a single alternation
//!    regex of all of them finds anchor positions, and each keywordless rule is then confirmed
//!    only in a window around each anchor (the same window / merge machinery as keywords).
//! 4. Every match is confirmed: capture group, allow-list (values and patterns), entropy floor,
//!    validator, and "is this already a placeholder". A rejected match hides nothing: the
//!    rule's search goes on inside it, so what is found does not depend on where a window
//!    starts (which a second redaction of the output would change). Survivors from all rules
//!    are merged leftmost-longest (overlapping / touching-inside spans become one finding, the
//!    leftmost then longest then earliest-declared rule names it) and replaced.
//! 5. The output is scanned again around its new replacements until nothing new turns up
//!    (a fixed point: see [`Redactor::fixed_point`]); a later pass takes its keyword hits from
//!    the first pass and walks the automaton only around each replacement (`hits.rs`), and
//!    rejects a match whose captured secret must be one of its placeholders (the earlier
//!    `password: [REDACTED:secret]`, found again) before computing its captures
//!    (`gate::capture_tail`).
//!
//! Regexes are compiled lazily, per rule, on the first window that reaches them
//! (`OnceLock`), so a hook process pays only for the rules its text reaches. Patterns are
//! compiled as byte regexes with Unicode **off** (`\d \w \s \b` are ASCII, `(?i)` is ASCII
//! case folding), which keeps every rule inside the lazy DFA; a pattern that needs Unicode
//! (`\p{..}`) is compiled with Unicode on automatically.
//!
//! Over 800 lines on purpose: the `Redactor` (build, keyword pass, windows,
//! confirmation, merge, replacement passes) is one `impl` over one compiled state; the
//! separable parts already have their own files (`gate`, `hits`, `json`, `known`, `lanes`,
//! `literals`, `profile`, `stream`, `table`, `validate`, `tests`).

mod gate;
mod hits;
mod json;
mod known;
mod lanes;
mod literals;
mod national;
mod profile;
mod stream;
mod table;
mod validate;

pub use known::{
    is_secret_name, is_secret_value, KnownValues, KNOWN_LABEL, KNOWN_MIN_ENTROPY, KNOWN_MIN_LEN,
    KNOWN_RULE_ID,
};
pub use national::{IdScheme, SCHEMES as ID_SCHEMES};
pub use stream::{STREAM_CHUNK, STREAM_MAX_OVERLAP};
pub use validate::{shannon_entropy, Validator};

use aho_corasick::{AhoCorasick, MatchKind};
use regex::bytes::{CaptureLocations, Regex, RegexBuilder, RegexSet, RegexSetBuilder};
use std::borrow::Cow;
use std::collections::HashMap;
use std::hash::{BuildHasher, Hasher};
use std::sync::{Arc, LazyLock, OnceLock};

/// Window per side for regexes whose maximum match length is known and at most this.
pub const BOUNDED_CAP: usize = 512;
/// Initial window per side for regexes without a (small) maximum length.
pub const UNBOUNDED_WINDOW: usize = 1024;
/// Largest window per side a growing window may reach; a longer match is cut there.
pub const MAX_WINDOW: usize = 64 * 1024;
/// Window per side of a rule whose matches keep to a few lines (see [`Rule::side`]): the
/// longest quoted value such a rule finds.
pub const LINE_WINDOW: usize = 16 * 1024;
// `Rule::side` caps a bounded rule's reach at UNBOUNDED_WINDOW: it must not cut it
const _: () = assert!(BOUNDED_CAP <= UNBOUNDED_WINDOW);

/// How many times its own length a window may search again inside rejected matches (see
/// [`Redactor::confirm`]): keeps that search linear on hostile text.
const REJECTED_RESCAN: usize = 4;
/// Longest capture tail (see [`gate::capture_tail`]) for which a match is checked against
/// our placeholders before its captures are computed: one placeholder scan per tail byte.
const MAX_CAPTURE_TAIL: usize = 4;
/// Regex size limits (compiled program / lazy DFA cache), per rule.
const REGEX_SIZE_LIMIT: usize = 4 << 20;
const DFA_SIZE_LIMIT: usize = 2 << 20;

/// One redaction rule as the compile stage hands it over.
#[derive(Debug, Clone)]
pub struct DetectorSpec {
    /// Rule id, e.g. `secret.aws_access_key`.
    pub id: String,
    /// What replaces a finding.
    pub replacement: Replacement,
    /// The detector regex (flags inlined).
    pub regex: String,
    /// Capture group holding the secret (`None`: the whole match). When that group did not
    /// take part in a match, the first later group that did holds the secret.
    pub capture: Option<usize>,
    /// Anchor literals; empty: extracted from the regex.
    pub keywords: Vec<String>,
    /// Format check a finding must pass.
    pub validator: Option<Validator>,
    /// Shannon-entropy floor of the secret, bits per character.
    pub min_entropy: Option<f64>,
    /// Values never redacted (documentation examples).
    pub allow_values: Vec<String>,
    /// Patterns of values never redacted.
    pub allow_patterns: Vec<String>,
    /// Policy compatibility only: JSON object keys are scanned by every rule.
    pub keys: bool,
}

impl DetectorSpec {
    /// A spec with defaults (label replacement, no capture, no keywords).
    pub fn new(
        id: impl Into<String>,
        regex: impl Into<String>,
        replacement: Replacement,
    ) -> DetectorSpec {
        DetectorSpec {
            id: id.into(),
            replacement,
            regex: regex.into(),
            capture: None,
            keywords: Vec::new(),
            validator: None,
            min_entropy: None,
            allow_values: Vec::new(),
            allow_patterns: Vec::new(),
            keys: false,
        }
    }

    /// Full check for `warden check`: compiles the regex and the allow patterns now.
    pub fn validate(&self) -> Result<(), RedactError> {
        let (hir, unicode) = parse(&self.id, &self.regex)?;
        let re = build_regex(&self.regex, unicode).map_err(|e| RedactError::Regex {
            id: self.id.clone(),
            msg: e,
        })?;
        if let Some(c) = self.capture {
            if c >= re.captures_len() {
                return Err(RedactError::Capture {
                    id: self.id.clone(),
                    group: c,
                    groups: re.captures_len() - 1,
                });
            }
        }
        drop(hir);
        for p in &self.allow_patterns {
            build_regex(p, true).map_err(|e| RedactError::Regex {
                id: self.id.clone(),
                msg: format!("allow pattern: {e}"),
            })?;
        }
        Ok(())
    }
}

/// What replaces a finding.
#[derive(Debug, Clone, PartialEq)]
pub enum Replacement {
    /// Fixed text, e.g. `[REDACTED:aws-access-key]`.
    Label(String),
    /// Keep the first `keep` bytes of the secret (at most a third of it), then `…` and `label`:
    /// `sk-ant…[REDACTED]`. Meant for vendor prefixes, so `keep` should not exceed the prefix.
    Prefix {
        /// The text after the kept prefix.
        label: String,
        /// Bytes of the secret kept.
        keep: usize,
    },
    /// `[NAME_n]`, numbered per distinct value within one input (per stream for streams).
    Numbered(String),
    /// The whole input is replaced by this message; `withheld_by` names the rule.
    Withhold(String),
}

impl Replacement {
    fn label(&self) -> &str {
        match self {
            Replacement::Label(l) | Replacement::Withhold(l) | Replacement::Numbered(l) => l,
            Replacement::Prefix { label, .. } => label,
        }
    }
}

/// Why a set of detector specs cannot make a [`Redactor`].
#[derive(Debug, thiserror::Error)]
pub enum RedactError {
    /// A regex does not parse or compile.
    #[error("redaction rule `{id}`: invalid regex: {msg}")]
    Regex {
        /// Rule id.
        id: String,
        /// The engine's message.
        msg: String,
    },
    #[error(
        "redaction rule `{id}`: capture group {group} does not exist (the regex has {groups})"
    )]
    /// The capture group does not exist.
    Capture {
        /// Rule id.
        id: String,
        /// The group asked for.
        group: usize,
        /// The groups the regex has.
        groups: usize,
    },
    /// Any other invalid spec.
    #[error("redaction rule `{id}`: {msg}")]
    Spec {
        /// Rule id.
        id: String,
        /// What is wrong.
        msg: String,
    },
    /// Two specs share an id.
    #[error("duplicate redaction rule id `{0}`")]
    Duplicate(String),
}

/// One redacted span. Never carries the secret.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Finding {
    /// Id of the rule that found it.
    pub rule_id: Arc<str>,
    /// Index of the rule in the spec list given to [`Redactor::new`].
    pub rule: usize,
    /// The placeholder the rule puts in its place.
    pub label: Arc<str>,
    /// Byte span in the input (`[start, end)`), on UTF-8 character boundaries.
    pub start: usize,
    /// One past the last byte.
    pub end: usize,
}

/// The result of a redaction.
#[derive(Debug, Clone)]
pub struct Redaction<'a> {
    /// The redacted text (borrowed when nothing changed).
    pub text: Cow<'a, str>,
    /// What was redacted, in input order.
    pub findings: Vec<Finding>,
    /// Set when a `Withhold` rule fired: the whole text was replaced and this names the rule.
    pub withheld_by: Option<Arc<str>>,
}

impl Redaction<'_> {
    /// True if the text differs from the input.
    pub fn changed(&self) -> bool {
        matches!(self.text, Cow::Owned(_))
    }
    /// The same redaction, owning its text.
    pub fn into_owned(self) -> Redaction<'static> {
        Redaction {
            text: Cow::Owned(self.text.into_owned()),
            findings: self.findings,
            withheld_by: self.withheld_by,
        }
    }
}

struct Compiled {
    re: Regex,
    allow: Option<RegexSet>,
    /// Window size per side.
    side: usize,
    /// true if every match is at most `side` long (no window growth needed).
    bounded: bool,
    /// see [`Rule::start_check`]
    start: Option<Regex>,
}

struct Rule {
    spec: DetectorSpec,
    id: Arc<str>,
    label: Arc<str>,
    unicode: bool,
    /// maximum match length per `Hir` (None = unbounded)
    max_len: Option<usize>,
    /// most `\n` bytes a match can contain (None = unbounded)
    nl_budget: Option<usize>,
    /// every match contains an upper-case keyword occurrence: hits with a lower-case letter
    /// cannot start a window for this rule
    kw_upper: bool,
    /// every match holds a keyword hit (one `kw_upper` keeps) ending at most this many bytes
    /// after the match's start (see [`gate::keyword_lead`])
    lead: Option<usize>,
    /// Every match starts with a keyword hit and is at most `max_len` long: a hit at `ms`
    /// only opens a window if this look-free, `\A`-anchored form of the regex matches
    /// `hay[ms..ms + max_len]` (a superset of "some match starts at `ms`").
    start_check: Option<String>,
    /// With `start_check`: the bytes a match can hold at its first offsets, a cheaper sound
    /// check asked first (see `profile.rs`).
    start_profile: Option<profile::Profile>,
    /// With a capture: how far before a match's end the reported group ends at most, and its
    /// shortest length (see [`gate::capture_tail`]; only kept when the tail is short)
    capture_tail: Option<(usize, usize)>,
    /// punctuation every match holds (see [`gate::required_bytes`]): a window whose search
    /// region lacks a byte of one of these sets is not searched
    required: Vec<Vec<u8>>,
    compiled: OnceLock<Result<Compiled, String>>,
}

impl Rule {
    /// How far from its hit a window of this rule may reach (growing included).
    fn reach(&self) -> usize {
        match self.max_len {
            Some(m) if m <= BOUNDED_CAP => m.max(1),
            _ => MAX_WINDOW,
        }
    }

    /// A window's initial size per side (it grows up to [`Rule::reach`] if unbounded).
    ///
    /// A rule whose matches hold a bounded number of line breaks gets [`LINE_WINDOW`] at
    /// once: its windows are clamped to the lines around the hit, which keeps them small on
    /// ordinary text. Growing would not do for it: a window grows only when a match touches
    /// its edge, and a match that needs a terminator past the edge (the closing quote of a
    /// value longer than the window) is not found at all.
    fn side(&self) -> usize {
        if self.nl_budget.is_some() {
            self.reach().min(LINE_WINDOW)
        } else {
            self.reach().min(UNBOUNDED_WINDOW)
        }
    }

    fn compiled(&self) -> &Result<Compiled, String> {
        self.compiled.get_or_init(|| {
            let re = build_regex(&self.spec.regex, self.unicode)?;
            let allow = if self.spec.allow_patterns.is_empty() {
                None
            } else {
                Some(
                    RegexSetBuilder::new(&self.spec.allow_patterns)
                        .size_limit(REGEX_SIZE_LIMIT)
                        .build()
                        .map_err(|e| e.to_string())?,
                )
            };
            let (side, bounded) = (
                self.side(),
                matches!(self.max_len, Some(m) if m <= BOUNDED_CAP),
            );
            let start = match &self.start_check {
                Some(src) => Some(build_regex(src, self.unicode)?),
                None => None,
            };
            Ok(Compiled {
                re,
                allow,
                side,
                bounded,
                start,
            })
        })
    }
}

/// The compiled redactor: immutable, `Send + Sync`, cheap to share behind an `Arc`.
pub struct Redactor {
    rules: Vec<Rule>,
    /// every rule keyword, ASCII case-insensitive, walked by [`lanes::for_each_match`]
    ac: Option<aho_corasick::dfa::DFA>,
    /// AC pattern index -> rules anchored on it
    kw_rules: Vec<Vec<u32>>,
    /// AC pattern index -> the farthest reach of its single-line rules (see [`HitLine`])
    kw_reach: Vec<usize>,
    kw_list: Vec<Vec<u8>>,
    keywordless: Vec<u32>,
    /// keywordless rules searched only inside runs of their alphabet (see `gate.rs`)
    gated: Vec<u32>,
    gates: gate::RunGates,
    /// keywordless rules without a gate: found by the alternation `anchor_re`
    anchored: Vec<u32>,
    /// every replacement text, to recognise placeholders (idempotence)
    placeholders: Vec<String>,
    numbered_prefixes: Vec<String>,
    placeholder_first: [bool; 256],
    /// all placeholders (labels, withhold messages, numbered prefixes) in one automaton
    placeholder_ac: Option<AhoCorasick>,
    /// keywordless rules: one alternation regex used only to find anchor positions
    anchor_re: OnceLock<Result<Regex, String>>,
    max_placeholder: usize,
    overlap: usize,
    /// a rule reads tables (`validate table_columns`): a stream keeps an open table's header
    reads_tables: bool,
    known_id: Arc<str>,
    known_label: Arc<str>,
}

/// A confirmed candidate before merging: secret span and rule index.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) struct Cand {
    pub start: usize,
    pub end: usize,
    pub rule: u32,
}

/// What a scan of a haystack found.
#[derive(Debug, Default)]
pub(crate) struct Found {
    /// The candidates (unmerged, or merged where the producer says so).
    pub cands: Vec<Cand>,
    /// Where the earliest match the end of the haystack may have cut starts (a match of an
    /// unbounded rule that runs to the end, or a line-clamped rule's window whose lines the
    /// end cuts: see [`Redactor::confirm`]). In text mode that end is the input's, but a
    /// streaming round's buffer ends where its lookahead does, and text mode would have
    /// searched past it (up to [`MAX_WINDOW`] per side): when this lies in the part the round
    /// commits, the stream reads further and runs the round again (`stream.rs`).
    pub cut_from: Option<usize>,
}

/// Where a scan's keyword hits come from (see [`Redactor::candidates`]).
pub(crate) enum Keywords<'a> {
    /// Walk the keyword automaton over the scanned region.
    Walk,
    /// Walk it and also keep its match states (haystack offsets, in order).
    Record(&'a mut Vec<lanes::End>),
    /// The region's hits are known (haystack offsets): a later fixed-point pass's, see
    /// `hits.rs`.
    Given(&'a [hits::Hit]),
}

/// The span a capture rule reports: its group `g`, or the first later group that took part
/// (`"(…)"|'(…)'|(…)`: one secret, several quotings); empty at the match's end `me` if none
/// did.
fn reported(caps: &CaptureLocations, g: usize, me: usize) -> (usize, usize) {
    (g..caps.len())
        .find_map(|i| caps.get(i))
        .unwrap_or((me, me))
}

/// A secret span `(ss, se)` of a match that starts at `ms`, less the `)` closing a call
/// opened before it (see [`call_closers`]).
fn without_closers(hay: &[u8], ms: usize, (ss, se): (usize, usize)) -> (usize, usize) {
    (
        ss,
        se - call_closers(&hay[ms..ss], &hay[ss..se], hay.get(se).copied()),
    )
}

/// How [`Redactor::confirm`] searches a haystack.
#[derive(Clone, Copy)]
struct Scan {
    /// JSON mode's scan buffer: no match crosses a [`SEGMENT_MARK`] (see `piece_end`)
    segmented: bool,
    /// a later fixed-point pass, whose text holds our own placeholders: a capture rule's
    /// match is checked against them before its captures are computed (see
    /// [`Redactor::captures_placeholder`])
    placeholders: bool,
}

/// The earlier of two optional positions.
fn earliest(a: Option<usize>, b: Option<usize>) -> Option<usize> {
    match (a, b) {
        (Some(a), Some(b)) => Some(a.min(b)),
        _ => a.or(b),
    }
}

fn parse(id: &str, src: &str) -> Result<(Hir, bool), RedactError> {
    let ascii = regex_syntax::ParserBuilder::new()
        .unicode(false)
        .utf8(false)
        .build()
        .parse(src);
    match ascii {
        Ok(h) => Ok((h, false)),
        Err(_) => regex_syntax::ParserBuilder::new()
            .build()
            .parse(src)
            .map(|h| (h, true))
            .map_err(|e| RedactError::Regex {
                id: id.to_string(),
                msg: e.to_string(),
            }),
    }
}
use regex_syntax::hir::Hir;

fn build_regex(src: &str, unicode: bool) -> Result<Regex, String> {
    RegexBuilder::new(src)
        .unicode(unicode)
        .size_limit(REGEX_SIZE_LIMIT)
        .dfa_size_limit(DFA_SIZE_LIMIT)
        .build()
        .map_err(|e| e.to_string())
}

/// Marks only our own replacement texts carry: `REDACTED`, and the `…` of a partial mask.
static OWN_MARKS: LazyLock<AhoCorasick> =
    LazyLock::new(|| AhoCorasick::new(["REDACTED", "…"]).expect("two words build"));

/// Bytes before a match (on its line) that a key-name check sees as well: the word before a
/// bare `key` qualifies it (`public key:`, see `validate::key_name_ok`).
const NAME_CONTEXT: usize = 32;

/// Rule slot of a veto: the span of a checksum rule's match that failed its check.
const VETO: u32 = u32::MAX;

/// What confirmation decides about one match.
enum Verdict {
    Accept,
    Reject,
    Veto,
}

/// A search window: (rule, start, end, lowest start it may grow to, highest end).
type Win = (u32, usize, usize, usize, usize);

/// The window around a hit `hit` of `rule` inside `lines`' region `[lo, hi)` (rule slot
/// left 0): the rule's maximum length on each side, and never more line breaks away than a
/// match can contain (so line-oriented rules search only the hit's line).
fn window(rule: &Rule, lines: &LineBreaks, hit: &mut HitLine) -> Win {
    let (ms, me) = (hit.ms, hit.me);
    let (reach, side) = (rule.reach(), rule.side());
    let (mut llo, mut lhi) = (
        ms.saturating_sub(reach).max(lines.lo),
        (me + reach).min(lines.hi),
    );
    if rule.nl_budget == Some(0) {
        // the hit's own line, found once for all the rules of the keyword
        let (prev, next) = hit.line(lines);
        if let Some(q) = prev {
            llo = llo.max(q + 1);
        }
        if let Some(q) = next {
            lhi = lhi.min(q + 1);
        }
    } else if let Some(nl) = rule.nl_budget {
        // start: just after the (nl+1)-th '\n' before ms; end: the (nl+1)-th '\n' at or after
        // me, plus one byte of look-ahead context
        if let Some(q) = lines.before(ms, nl, llo) {
            llo = q + 1;
        }
        if let Some(q) = lines.after(me, nl, lhi) {
            lhi = q + 1;
        }
    }
    // no match holding this hit in its leading run starts before `me - lead`
    let left = ms.saturating_sub(side);
    let s = rule
        .lead
        .map_or(left, |l| left.max(me.saturating_sub(l)))
        .max(llo);
    let e = (me + side).min(lhi);
    (0, s, e, llo.min(s), lhi.max(e))
}

/// Does `region` hold a byte of every set of `required` (each one to three bytes)?
fn holds_required(required: &[Vec<u8>], region: &[u8]) -> bool {
    required.iter().all(|set| match set[..] {
        [a] => memchr::memchr(a, region).is_some(),
        [a, b] => memchr::memchr2(a, b, region).is_some(),
        [a, b, c] => memchr::memchr3(a, b, c, region).is_some(),
        _ => true,
    })
}

/// Sort windows as `sort_unstable` would, in O(n) for the usual input: grouped by rule with
/// a counting sort (stable, so each rule keeps the windows in hit order, which is almost
/// sorted: see [`lanes::for_each_match`]), then each rule's run sorted only if it is not.
fn sort_windows(wins: &mut [Win], rules: usize) {
    if wins.len() < 64 {
        wins.sort_unstable();
        return;
    }
    let mut start = vec![0usize; rules + 1];
    for w in wins.iter() {
        start[w.0 as usize + 1] += 1;
    }
    for i in 1..=rules {
        start[i] += start[i - 1];
    }
    let mut next = start.clone();
    let mut grouped = vec![(0, 0, 0, 0, 0); wins.len()];
    for &w in wins.iter() {
        let k = &mut next[w.0 as usize];
        grouped[*k] = w;
        *k += 1;
    }
    for r in 0..rules {
        let run = &mut grouped[start[r]..start[r + 1]];
        if !run.is_sorted() {
            // nearly sorted (hits come in order of their end): the stable sort finds the runs
            run.sort();
        }
    }
    wins.copy_from_slice(&grouped);
}

/// A keyword hit and, once a rule asked for it, the line around it: the nearest `\n` before
/// `ms` and at or after `me`, each looked for up to `reach` bytes away (the farthest any rule
/// of the keyword reaches, so a rule's clamp comes out as if it had searched its own reach).
struct HitLine {
    ms: usize,
    me: usize,
    reach: usize,
    line: Option<(Option<usize>, Option<usize>)>,
}

impl HitLine {
    fn line(&mut self, lines: &LineBreaks) -> (Option<usize>, Option<usize>) {
        let (ms, me, reach) = (self.ms, self.me, self.reach);
        *self.line.get_or_insert_with(|| {
            // the nearest line break is usually close: a direct search is cheaper than
            // listing the region's line breaks, which a multi-line window needs
            let from = ms.saturating_sub(reach).max(lines.lo);
            let to = (me + reach).min(lines.hi);
            (
                memchr::memrchr(b'\n', &lines.hay[from..ms]).map(|i| from + i),
                memchr::memchr(b'\n', &lines.hay[me.min(to)..to]).map(|i| me + i),
            )
        })
    }
}

/// The line breaks of the region `[lo, hi)` of a haystack, for finding a multi-line
/// window's edges. A block of [`LINE_BLOCK`] bytes that many windows reach into is listed
/// (one SIMD pass) and then answered by binary searches; elsewhere each question is a direct
/// search of the text. On secret-dense text the direct searches were most of the windows'
/// time (a search start-up per hit and side, the same lines read again for every hit on
/// them); on clean text hits are few and far between, and listing every block they touch
/// would cost more than it saves.
struct LineBreaks<'h> {
    hay: &'h [u8],
    lo: usize,
    hi: usize,
    /// per block: its line breaks once listed (offsets in the block: two bytes each), and
    /// how often it was asked about before
    blocks: Vec<(std::cell::OnceCell<Vec<u16>>, std::cell::Cell<u8>)>,
}

/// Bytes of the region each list of [`LineBreaks`] covers (offsets in it fit a `u16`).
const LINE_BLOCK: usize = 1 << 14;
const _: () = assert!(LINE_BLOCK <= 1 << 16);
/// Questions about a block answered by direct searches before it is listed.
const LIST_AFTER: u8 = 48;

impl<'h> LineBreaks<'h> {
    fn new(hay: &'h [u8], lo: usize, hi: usize) -> Self {
        let n = (hi - lo).div_ceil(LINE_BLOCK);
        LineBreaks {
            hay,
            lo,
            hi,
            blocks: (0..n).map(|_| Default::default()).collect(),
        }
    }

    /// Block `b`'s start and its line breaks' offsets from there, in order.
    fn block(&self, b: usize) -> (usize, &[u16]) {
        let s = self.lo + b * LINE_BLOCK;
        let list = self.blocks[b].0.get_or_init(|| {
            let e = (s + LINE_BLOCK).min(self.hi);
            memchr::memchr_iter(b'\n', &self.hay[s..e])
                .map(|i| i as u16)
                .collect()
        });
        (s, list)
    }

    /// Whether to answer a question about block `b` from its list (counts the question).
    fn listed(&self, b: usize) -> bool {
        let (list, asked) = &self.blocks[b];
        if list.get().is_some() {
            return true;
        }
        asked.set(asked.get() + 1);
        asked.get() > LIST_AFTER
    }

    /// The `k+1`-th line break before `at` (`k = 0`: the nearest), if it lies at or after
    /// `floor` (`lo <= floor`, `at <= hi`).
    fn before(&self, at: usize, mut k: usize, floor: usize) -> Option<usize> {
        if at <= floor {
            return None;
        }
        let mut b = (at - 1 - self.lo) / LINE_BLOCK;
        if !self.listed(b) {
            return memchr::memrchr_iter(b'\n', &self.hay[floor..at])
                .nth(k)
                .map(|i| floor + i);
        }
        loop {
            let (s, list) = self.block(b);
            let n = list.partition_point(|&o| s + usize::from(o) < at);
            if n > k {
                return Some(s + usize::from(list[n - 1 - k])).filter(|&p| p >= floor);
            }
            k -= n;
            if b == 0 || self.lo + b * LINE_BLOCK <= floor {
                return None;
            }
            b -= 1;
        }
    }

    /// The `k+1`-th line break at or after `at`, if it lies before `ceil` (`ceil <= hi`).
    fn after(&self, at: usize, mut k: usize, ceil: usize) -> Option<usize> {
        if at >= ceil {
            return None;
        }
        let mut b = (at - self.lo) / LINE_BLOCK;
        if !self.listed(b) {
            return memchr::memchr_iter(b'\n', &self.hay[at..ceil])
                .nth(k)
                .map(|i| at + i);
        }
        loop {
            let (s, list) = self.block(b);
            let i = list.partition_point(|&o| s + usize::from(o) < at);
            if let Some(&o) = list.get(i + k) {
                let p = s + usize::from(o);
                return (p < ceil).then_some(p);
            }
            k -= list.len() - i;
            b += 1;
            if self.lo + b * LINE_BLOCK >= ceil {
                return None;
            }
        }
    }
}

/// Per-input numbering state for `Numbered` replacements. Keys are hashes of the values, so
/// no secret is retained.
#[derive(Default)]
pub(crate) struct Numbering {
    seen: HashMap<(u32, u64), usize>,
    next: HashMap<u32, usize>,
    hasher: std::collections::hash_map::RandomState,
}

impl Numbering {
    fn number(&mut self, label_key: u32, value: &[u8]) -> usize {
        let mut h = self.hasher.build_hasher();
        h.write(value);
        let k = (label_key, h.finish());
        if let Some(&n) = self.seen.get(&k) {
            return n;
        }
        let c = self.next.entry(label_key).or_insert(0);
        *c += 1;
        self.seen.insert(k, *c);
        *c
    }
}

#[inline]
fn floor_char(b: &[u8], mut i: usize) -> usize {
    while i > 0 && i < b.len() && (b[i] & 0xC0) == 0x80 {
        i -= 1;
    }
    i
}
#[inline]
fn ceil_char(b: &[u8], mut i: usize) -> usize {
    while i < b.len() && (b[i] & 0xC0) == 0x80 {
        i += 1;
    }
    i
}

impl Redactor {
    /// Build a redactor. Parses every regex (syntax errors are reported here) and builds the
    /// keyword automaton; regexes themselves are compiled lazily.
    pub fn new(specs: Vec<DetectorSpec>) -> Result<Redactor, RedactError> {
        let mut rules = Vec::with_capacity(specs.len());
        let mut kw_index: HashMap<Vec<u8>, usize> = HashMap::new();
        let mut kw_list: Vec<Vec<u8>> = Vec::new();
        let mut kw_rules: Vec<Vec<u32>> = Vec::new();
        let mut keywordless = Vec::new();
        let mut gated = Vec::new();
        let mut gates = Vec::new();
        let mut anchored = Vec::new();
        let mut ids = std::collections::HashSet::new();
        let mut placeholders = Vec::new();
        let mut numbered_prefixes = Vec::new();
        let mut overlap = 256usize;
        for (i, spec) in specs.into_iter().enumerate() {
            if !ids.insert(spec.id.clone()) {
                return Err(RedactError::Duplicate(spec.id));
            }
            if spec.regex.is_empty() {
                return Err(RedactError::Spec {
                    id: spec.id,
                    msg: "empty regex".into(),
                });
            }
            let (hir, unicode) = parse(&spec.id, &spec.regex)?;
            let max_len = hir.properties().maximum_len();
            if let Some(c) = spec.capture {
                let groups = hir.properties().explicit_captures_len();
                if c > groups {
                    return Err(RedactError::Capture {
                        id: spec.id,
                        group: c,
                        groups,
                    });
                }
            }
            let kws: Vec<Vec<u8>> = if spec.keywords.is_empty() {
                literals::required_keywords(&hir).unwrap_or_default()
            } else {
                spec.keywords
                    .iter()
                    .filter(|k| !k.is_empty())
                    .map(|k| k.as_bytes().to_ascii_lowercase())
                    .collect()
            };
            if kws.is_empty() {
                keywordless.push(i as u32);
                match gate::RunGate::new(&hir) {
                    Some(g) if gates.len() < gate::RunGates::MAX => {
                        gated.push(i as u32);
                        gates.push(g);
                    }
                    _ => anchored.push(i as u32),
                }
            }
            // line clamping is only sound when every match contains a keyword hit
            let nl_budget = if !kws.is_empty() && gate::keywords_required(&hir, &kws) {
                gate::newline_budget(&hir)
            } else {
                None
            };
            let kw_upper = !kws.is_empty() && gate::keywords_required_upper(&hir, &kws);
            let lead = (!kws.is_empty())
                .then(|| gate::keyword_lead(&hir, &kws, kw_upper))
                .flatten();
            // auto keywords that are the regex's own prefix set: every match starts at a hit
            let start_check = (spec.keywords.is_empty()
                && !kws.is_empty()
                && matches!(max_len, Some(m) if m <= BOUNDED_CAP)
                && literals::prefix_set(&hir).as_ref() == Some(&kws))
            .then(|| format!(r"\A(?:{})", gate::strip_looks(&hir)));
            let start_profile = match start_check {
                Some(_) if !unicode => profile::Profile::new(&hir),
                _ => None,
            };
            for k in kws {
                let idx = *kw_index.entry(k.clone()).or_insert_with(|| {
                    kw_list.push(k);
                    kw_rules.push(Vec::new());
                    kw_list.len() - 1
                });
                if kw_rules[idx].last() != Some(&(i as u32)) {
                    kw_rules[idx].push(i as u32);
                }
            }
            overlap = overlap.max(match max_len {
                Some(m) if m <= BOUNDED_CAP => m,
                _ => UNBOUNDED_WINDOW * 2,
            });
            match &spec.replacement {
                Replacement::Numbered(n) => numbered_prefixes.push(format!("[{n}_")),
                r => placeholders.push(r.label().to_string()),
            }
            let capture_tail = spec
                .capture
                .and_then(|g| gate::capture_tail(&hir, g as u32))
                .filter(|&(tail, _)| tail <= MAX_CAPTURE_TAIL);
            let id: Arc<str> = spec.id.as_str().into();
            let label: Arc<str> = spec.replacement.label().into();
            rules.push(Rule {
                spec,
                id,
                label,
                unicode,
                max_len,
                nl_budget,
                kw_upper,
                lead,
                start_check,
                start_profile,
                capture_tail,
                required: gate::required_bytes(&hir),
                compiled: OnceLock::new(),
            });
        }
        placeholders.push(KNOWN_LABEL.to_string());
        placeholders.retain(|p| !p.is_empty());
        placeholders.sort();
        placeholders.dedup();
        numbered_prefixes.sort();
        numbered_prefixes.dedup();
        let mut placeholder_first = [false; 256];
        for p in placeholders.iter().chain(numbered_prefixes.iter()) {
            placeholder_first[p.as_bytes()[0] as usize] = true;
        }
        let placeholder_ac = if placeholders.is_empty() && numbered_prefixes.is_empty() {
            None
        } else {
            AhoCorasick::builder()
                .match_kind(MatchKind::Standard)
                .build(placeholders.iter().chain(numbered_prefixes.iter()))
                .ok()
        };
        let max_placeholder = placeholders
            .iter()
            .chain(numbered_prefixes.iter())
            .map(|p| p.len() + 8)
            .max()
            .unwrap_or(0);
        let ac = if kw_list.is_empty() {
            None
        } else {
            Some(
                aho_corasick::dfa::Builder::new()
                    .match_kind(MatchKind::Standard)
                    .ascii_case_insensitive(true)
                    .build(kw_list.iter())
                    .map_err(|e| RedactError::Spec {
                        id: "<keywords>".into(),
                        msg: e.to_string(),
                    })?,
            )
        };
        let kw_reach = kw_rules
            .iter()
            .map(|rs| {
                rs.iter()
                    .map(|&r| &rules[r as usize])
                    .filter(|r| r.nl_budget == Some(0))
                    .map(Rule::reach)
                    .max()
                    .unwrap_or(0)
            })
            .collect();
        let reads_tables = rules
            .iter()
            .any(|r| r.spec.validator.and_then(table::Column::of).is_some());
        Ok(Redactor {
            reads_tables,
            rules,
            ac,
            kw_rules,
            kw_reach,
            kw_list,
            keywordless,
            gated,
            gates: gate::RunGates::new(gates),
            anchored,
            placeholders,
            numbered_prefixes,
            placeholder_first,
            placeholder_ac,
            anchor_re: OnceLock::new(),
            max_placeholder,
            overlap: overlap.min(stream::STREAM_MAX_OVERLAP),
            known_id: KNOWN_RULE_ID.into(),
            known_label: KNOWN_LABEL.into(),
        })
    }

    /// Number of detectors.
    pub fn len(&self) -> usize {
        self.rules.len()
    }
    /// True if there are no detectors.
    pub fn is_empty(&self) -> bool {
        self.rules.is_empty()
    }
    /// The id of rule `i`.
    pub fn rule_id(&self, i: usize) -> &str {
        &self.rules[i].id
    }
    /// Number of rules that run in the keywordless (RegexSet) pass.
    pub fn keywordless_rules(&self) -> usize {
        self.keywordless.len()
    }
    /// Ids of the rules with neither a keyword nor a run gate (see `gate.rs`): one
    /// alternation of them is searched over the whole of every text, which costs every scan.
    pub fn unanchored_rules(&self) -> impl Iterator<Item = &str> + '_ {
        self.anchored.iter().map(|&r| &*self.rules[r as usize].id)
    }
    /// The (lower-cased) keywords rule `i` is anchored on; empty = keywordless pass.
    pub fn keywords_of(&self, i: usize) -> Vec<String> {
        self.kw_rules
            .iter()
            .enumerate()
            .filter(|(_, rs)| rs.contains(&(i as u32)))
            .map(|(p, _)| String::from_utf8_lossy(&self.kw_list[p]).into_owned())
            .collect()
    }
    /// Bytes of context the stream mode keeps between chunks.
    pub fn stream_overlap(&self) -> usize {
        self.overlap
    }

    /// Plain-text redaction.
    pub fn redact_text<'a>(&self, text: &'a str) -> Redaction<'a> {
        self.redact_text_with(text, None)
    }

    /// Plain-text redaction that also masks `known` values.
    pub fn redact_text_with<'a>(
        &self,
        text: &'a str,
        known: Option<&KnownValues>,
    ) -> Redaction<'a> {
        let merged = self.fixed_point(text.as_bytes(), known).cands;
        self.apply_text(text, merged, &mut Numbering::default())
    }

    /// The replacements (merged, in order, input spans) of a redaction that is a fixed
    /// point: redacting its output again finds nothing new. A replacement can uncover a match
    /// the input hid: its placeholder gives a neighbour a new boundary (`2+4420…` is no phone
    /// number after a digit, `]+4420…` is), or it ends an overlapping match that left-to-right
    /// matching skipped (the second address in `a@b.co-x@b.co`). So the replacements are
    /// applied (a [`PassOutput`]), that output is scanned again, and what it finds is mapped back
    /// to input spans (a new match never overlaps a placeholder, so it is input text) and
    /// added, until a pass finds nothing (past [`MAX_PASSES`] passes each new match is
    /// widened, further each pass, failing closed, so a long chain ends too). The output is
    /// then always built from the input and this one list, numbered left to right: streaming
    /// runs the same per round, so both modes give the same text and findings.
    ///
    /// A later pass scans only the stretches around the replacements the pass before added
    /// ([`Self::rescan`]), so on text with few findings it costs a small fraction of the first,
    /// and it does not walk the keyword automaton again: the first pass's hits are carried
    /// over (`hits.rs`).
    pub(crate) fn fixed_point(&self, hay: &[u8], known: Option<&KnownValues>) -> Found {
        self.fixed_point_in(hay, known, false, Some)
    }

    /// [`Self::fixed_point`] over JSON mode's scan buffer: segments (decoded values, keys)
    /// separated by [`SEGMENT_MARK`], which no match crosses (see [`Self::confirm`]). Each
    /// candidate is cut by `clip` to the one segment it belongs to before it is merged (a
    /// span that reaches into a separator would merge with the next value's match).
    pub(crate) fn fixed_point_within(
        &self,
        hay: &[u8],
        known: Option<&KnownValues>,
        clip: impl Fn(Cand) -> Option<Cand>,
    ) -> Vec<Cand> {
        self.fixed_point_in(hay, known, true, clip).cands
    }

    /// The fixed point (merged), over a `segmented` haystack or not; cut at the end if any
    /// pass's scan was.
    fn fixed_point_in(
        &self,
        hay: &[u8],
        known: Option<&KnownValues>,
        segmented: bool,
        clip: impl Fn(Cand) -> Option<Cand>,
    ) -> Found {
        // the first pass's keyword hits, carried into the later passes (see `hits.rs`)
        let mut kw_hits = Vec::new();
        let first = self.hay_candidates(hay, known, segmented, Keywords::Record(&mut kw_hits));
        let mut cut_from = first.cut_from;
        let mut merged = merge(first.cands.into_iter().filter_map(&clip).collect());
        let reach = self.overlap.max(known.map_or(0, |k| k.longest() + 1));
        let mut out = PassOutput::default();
        // input spans of the replacements a pass already rescanned around (sorted)
        let mut seen: Vec<(usize, usize)> = Vec::new();
        // a chain of matches that each appear only once the one before is replaced takes a
        // pass per link; past MAX_PASSES each new match is widened on either side by `reach`
        // bytes, doubling every pass (fail closed: over-redaction), so any chain ends within
        // a few more passes; should it not, the last pass's matches take all `clip` allows
        let mut last: Vec<Cand> = Vec::new();
        let mut settled = false;
        for pass in 0..MAX_PASSES + usize::BITS as usize {
            if merged.is_empty() || self.withhold_rule(&merged).is_some() {
                settled = true;
                break;
            }
            self.pass_output(hay, &merged, &mut out);
            let map = &out.map;
            // only a replacement new since the last pass can uncover a match: around the
            // others that pass already looked, and nothing near them has changed since
            let fresh: Vec<Replaced> = map
                .iter()
                .copied()
                .filter(|r| seen.binary_search(&r.input).is_err())
                .collect();
            seen.clear();
            seen.extend(map.iter().map(|r| r.input));
            let more = self.rescan(hay, &out, &fresh, &kw_hits, reach, known, segmented);
            cut_from = earliest(cut_from, more.cut_from.map(|p| map_back(map, p, false)));
            let before = merged.clone();
            last.clear();
            for c in more.cands {
                let c = Cand {
                    start: map_back(map, c.start, false),
                    end: map_back(map, c.end, true),
                    rule: c.rule,
                };
                last.extend(clip(c));
            }
            let grow = pass
                .checked_sub(MAX_PASSES)
                .map(|k| reach.saturating_mul(1 << k.min(16)));
            merged.extend(
                last.iter()
                    .map(|&c| grow.map_or(c, |g| widen(hay, c, g, &clip))),
            );
            merged = merge(merged);
            if merged == before {
                settled = true;
                break;
            }
        }
        if !settled {
            merged.extend(last.iter().map(|&c| widen(hay, c, hay.len(), &clip)));
            merged = merge(merged);
        }
        Found {
            cands: merged,
            cut_from,
        }
    }

    /// A pass's output, `hay` with the merged candidates `merged` replaced, as `out` (see
    /// [`PassOutput`]: only the replacements are written; the rest stays `hay`'s bytes).
    fn pass_output(&self, hay: &[u8], merged: &[Cand], out: &mut PassOutput) {
        out.map.clear();
        out.reps.clear();
        let mut numbering = Numbering::default();
        // output offset minus input offset, after the replacements so far
        let mut shift = 0isize;
        for &c in merged {
            let rep = out.reps.len();
            self.replacement(c, &hay[c.start..c.end], &mut numbering, &mut out.reps);
            let start = c.start.wrapping_add_signed(shift);
            let len = out.reps.len() - rep;
            out.map.push(Replaced {
                out: (start, start + len),
                input: (c.start, c.end),
                rep,
            });
            shift += len as isize - (c.end - c.start) as isize;
        }
        out.len = hay.len().wrapping_add_signed(shift);
    }

    /// Every confirmed candidate in `hay` (known values included), unmerged; none crosses a
    /// [`SEGMENT_MARK`] if `hay` is `segmented`.
    fn hay_candidates(
        &self,
        hay: &[u8],
        known: Option<&KnownValues>,
        segmented: bool,
        kw: Keywords,
    ) -> Found {
        let mut found = self.candidates(hay, 0, hay.len(), segmented, kw);
        if let Some(k) = known {
            // exact values: the stream's overlap is at least the longest, so never cut
            k.candidates(hay, self.known_rule(), &mut found.cands);
        }
        found
    }

    /// The candidates of a later fixed-point pass over `pass` (the previous pass's output over
    /// the input `hay`; its new replacements are `map`), found only where that pass can differ
    /// from the one before:
    /// within `reach` bytes ([`Self::stream_overlap`], the most context any rule's decision
    /// depends on) of a replacement. Farther away the bytes and their context are the input's,
    /// so the previous pass already decided them. Each stretch is scanned with `reach` bytes of
    /// context on both sides, as a streaming round is, and keeps the candidates that start
    /// inside it; stretches closer than that are joined, so dense text is scanned once. Its
    /// keyword hits are the first pass's hits (`carried`: its walk's match states, at input
    /// offsets) that no replacement touches and those a walk around each replacement finds
    /// (`hits.rs`).
    #[allow(clippy::too_many_arguments)]
    fn rescan(
        &self,
        hay: &[u8],
        pass: &PassOutput,
        map: &[Replaced],
        carried: &[lanes::End],
        reach: usize,
        known: Option<&KnownValues>,
        segmented: bool,
    ) -> Found {
        let n = pass.len;
        let mut out = Found::default();
        let mut buf = Vec::new();
        let mut kw = Vec::new();
        let mut i = 0;
        while i < map.len() {
            let from = map[i].out.0.saturating_sub(reach);
            let mut to = (map[i].out.1 + reach).min(n);
            i += 1;
            while i < map.len() && map[i].out.0.saturating_sub(3 * reach) <= to {
                to = (map[i].out.1 + reach).min(n);
                i += 1;
            }
            // the stretch's bytes, and up to 3 more on each side to find its character edges
            let (lo, hi) = (from.saturating_sub(reach), (to + reach).min(n));
            let (blo, bhi) = (lo.saturating_sub(3), (hi + 3).min(n));
            pass.bytes(hay, blo, bhi, &mut buf);
            let lo = blo + floor_char(&buf, lo - blo);
            let hi = blo + ceil_char(&buf, hi - blo);
            let text = &buf[lo - blo..hi - blo];
            if let Some(ac) = &self.ac {
                hits::stretch(ac, carried, &pass.map, text, (lo, hi), &mut kw);
                #[cfg(debug_assertions)]
                {
                    let mut walked = Vec::new();
                    lanes::for_each_match(ac, text, |p, s, e| walked.push((p, s, e)));
                    walked.sort_unstable_by_key(|h| (h.2, h.0));
                    assert_eq!(kw, walked, "carried keyword hits differ from a walk");
                }
            }
            let found = self.hay_candidates(text, known, segmented, Keywords::Given(&kw));
            // the end of a stretch is the end of the haystack only for the last one
            if hi == n {
                out.cut_from = earliest(out.cut_from, found.cut_from.map(|p| p + lo));
            }
            out.cands.extend(
                found
                    .cands
                    .into_iter()
                    .map(|c| Cand {
                        start: c.start + lo,
                        end: c.end + lo,
                        rule: c.rule,
                    })
                    .filter(|c| (from..to).contains(&c.start)),
            );
        }
        out
    }

    /// Structure-aware redaction: a JSON document (object, array, string, number or literal;
    /// see [`may_be_json`]) is redacted inside its decoded string values, keys and long numbers
    /// (recursively into JSON held in a string), and the output is valid JSON of the same shape
    /// (see `json.rs`). Anything else is redacted as text.
    pub fn redact<'a>(&self, input: &'a str) -> Redaction<'a> {
        self.redact_with(input, None)
    }

    /// JSON-only redaction (see [`redact`](Self::redact)); `None` if `input` is not one JSON
    /// document.
    pub fn redact_json<'a>(
        &self,
        input: &'a str,
        known: Option<&KnownValues>,
    ) -> Option<Redaction<'a>> {
        json::redact_doc(self, known, input, 0, &mut Numbering::default())
    }

    /// [`redact`](Self::redact) that also masks `known` values.
    pub fn redact_with<'a>(&self, input: &'a str, known: Option<&KnownValues>) -> Redaction<'a> {
        if may_be_json(input.as_bytes()) {
            if let Some(r) = json::redact_doc(self, known, input, 0, &mut Numbering::default()) {
                return r;
            }
        }
        self.redact_text_with(input, known)
    }

    /// Findings only (no output text): "does this text carry a credential?".
    pub fn detects(&self, text: &str) -> impl Iterator<Item = Finding> + '_ {
        let merged = merge(
            self.candidates(text.as_bytes(), 0, text.len(), false, Keywords::Walk)
                .cands,
        );
        merged.into_iter().map(move |c| self.finding(c, 0))
    }

    /// True if any rule fires on `text`.
    pub fn is_sensitive(&self, text: &str) -> bool {
        self.detects(text).next().is_some()
    }

    /// Streaming redaction with bounded memory; see `stream.rs` for chunking.
    pub fn redact_stream<R: std::io::Read, W: std::io::Write>(
        &self,
        r: R,
        w: W,
    ) -> std::io::Result<Vec<Finding>> {
        let mut f = Vec::new();
        stream::redact_stream(self, r, w, STREAM_CHUNK, None, Some(&mut f))?;
        Ok(f)
    }

    /// Streaming redaction that also masks `known` values; findings are collected into
    /// `findings` only when it is given (memory stays bounded without it). Returns the number
    /// of findings.
    pub fn redact_stream_with<R: std::io::Read, W: std::io::Write>(
        &self,
        r: R,
        w: W,
        known: Option<&KnownValues>,
        findings: Option<&mut Vec<Finding>>,
    ) -> std::io::Result<usize> {
        stream::redact_stream(self, r, w, STREAM_CHUNK, known, findings)
    }

    /// Same with an explicit chunk size (tests, tuning).
    pub fn redact_stream_chunked<R: std::io::Read, W: std::io::Write>(
        &self,
        r: R,
        w: W,
        chunk: usize,
    ) -> std::io::Result<Vec<Finding>> {
        let mut f = Vec::new();
        stream::redact_stream(self, r, w, chunk.max(16), None, Some(&mut f))?;
        Ok(f)
    }

    /// The rule index known-value candidates carry (one past the last rule).
    pub(crate) fn known_rule(&self) -> u32 {
        self.rules.len() as u32
    }

    pub(crate) fn finding(&self, c: Cand, base: usize) -> Finding {
        let (rule_id, label) = match self.rules.get(c.rule as usize) {
            Some(r) => (r.id.clone(), r.label.clone()),
            None => (self.known_id.clone(), self.known_label.clone()),
        };
        Finding {
            rule_id,
            rule: c.rule as usize,
            label,
            start: c.start + base,
            end: c.end + base,
        }
    }

    /// The replacement of rule `i` (known values: their label).
    pub(crate) fn replacement_of(&self, i: u32) -> Option<&Replacement> {
        self.rules.get(i as usize).map(|r| &r.spec.replacement)
    }

    /// Does rule `i` withhold the whole text?
    pub(crate) fn is_withhold(&self, i: u32) -> bool {
        matches!(self.replacement_of(i), Some(Replacement::Withhold(_)))
    }

    /// The id of rule `i` (known values included).
    pub(crate) fn rule_id_of(&self, i: u32) -> Arc<str> {
        self.rules
            .get(i as usize)
            .map_or_else(|| self.known_id.clone(), |r| r.id.clone())
    }

    /// The message of the withholding rule `id`.
    pub(crate) fn withhold_message(&self, id: &str) -> String {
        self.rules
            .iter()
            .find(|r| &*r.id == id)
            .map_or_else(String::new, |r| r.label.to_string())
    }

    /// Does `b` contain a keyword of some rule (is it context for a JSON value)? A keyword
    /// inside a placeholder does not count, so a key decides the same before and after it is
    /// redacted (`[REDACTED:secret]` holds `secret`); an automaton error counts as one.
    pub(crate) fn has_keyword(&self, b: &[u8]) -> bool {
        use aho_corasick::automaton::{Automaton, OverlappingState};
        let Some(ac) = &self.ac else { return false };
        let input = aho_corasick::Input::new(b);
        let mut state = OverlappingState::start();
        loop {
            if ac.try_find_overlapping(&input, &mut state).is_err() {
                return true;
            }
            match state.get_match() {
                None => return false,
                Some(m) if !self.overlaps_placeholder(b, m.start(), m.end()) => return true,
                Some(_) => {}
            }
        }
    }

    /// All confirmed candidates whose match lies in `hay[lo..hi]` (with `hay` as context),
    /// unmerged.
    pub(crate) fn candidates(
        &self,
        hay: &[u8],
        lo: usize,
        hi: usize,
        segmented: bool,
        kw: Keywords,
    ) -> Found {
        let scan = Scan {
            segmented,
            placeholders: matches!(kw, Keywords::Given(_)),
        };
        let mut out = Vec::new();
        let mut cut_from = None;
        let region = &hay[..hi];
        let lines = LineBreaks::new(hay, lo, hi);
        if let Some(ac) = &self.ac {
            // (rule, win_start, win_end)
            let mut wins: Vec<Win> = Vec::new();
            let mut on_hit = |pat: usize, ms: usize, me: usize| {
                let mut lower: Option<bool> = None;
                let mut hit = HitLine {
                    ms,
                    me,
                    reach: self.kw_reach[pat],
                    line: None,
                };
                for &r in &self.kw_rules[pat] {
                    let rule = &self.rules[r as usize];
                    if rule.kw_upper
                        && *lower
                            .get_or_insert_with(|| hay[ms..me].iter().any(u8::is_ascii_lowercase))
                    {
                        continue;
                    }
                    // (a rule that cannot compile fails closed: its window opens anyway)
                    if let Some(p) = &rule.start_profile {
                        if !p.admits(region, ms) && rule.compiled().is_ok() {
                            continue;
                        }
                    }
                    if rule.start_check.is_some() {
                        if let (
                            Ok(Compiled {
                                start: Some(re), ..
                            }),
                            Some(m),
                        ) = (rule.compiled(), rule.max_len)
                        {
                            if !re.is_match(&hay[ms..(ms + m).min(hi)]) {
                                continue;
                            }
                        }
                    }
                    wins.push(window(rule, &lines, &mut hit));
                    wins.last_mut().unwrap().0 = r;
                }
            };
            match kw {
                Keywords::Walk => {
                    lanes::for_each_match(ac, &region[lo..], |p, s, e| on_hit(p, s + lo, e + lo))
                }
                Keywords::Record(v) => {
                    let from = v.len();
                    lanes::match_ends(ac, &region[lo..], lo, v);
                    for &end in &v[from..] {
                        lanes::each_hit(ac, end, &mut on_hit);
                    }
                }
                Keywords::Given(v) => v.iter().for_each(|&(p, s, e)| on_hit(p, s, e)),
            }
            cut_from = earliest(
                cut_from,
                self.confirm_windows(&mut wins, hay, scan, &mut out),
            );
        }
        if !self.gated.is_empty() {
            let mut runs = Vec::new();
            self.gates.runs(region, lo, hi, &mut runs);
            let mut wins: Vec<Win> = Vec::with_capacity(runs.len());
            for (k, s, e) in runs {
                let r = self.gated[k];
                // one byte of look-ahead context; no match can consume it
                let e = (e + 1).min(hi);
                wins.push((r, s, e, s, e));
            }
            cut_from = earliest(
                cut_from,
                self.confirm_windows(&mut wins, hay, scan, &mut out),
            );
        }
        if !self.anchored.is_empty() {
            let anchor = self.anchor_re.get_or_init(|| {
                let alt: Vec<String> = self
                    .anchored
                    .iter()
                    .map(|&r| format!("(?:{})", self.rules[r as usize].spec.regex))
                    .collect();
                let uni = self
                    .anchored
                    .iter()
                    .any(|&r| self.rules[r as usize].unicode);
                RegexBuilder::new(&alt.join("|"))
                    .unicode(uni)
                    .size_limit(REGEX_SIZE_LIMIT * 4)
                    .dfa_size_limit(DFA_SIZE_LIMIT * 4)
                    .build()
                    .map_err(|e| e.to_string())
            });
            match anchor {
                Ok(anchor) => {
                    let mut wins: Vec<Win> = Vec::new();
                    for m in anchor.find_iter(&region[lo..]) {
                        let (ms, me) = (m.start() + lo, m.end() + lo);
                        for &r in &self.anchored {
                            let rule = &self.rules[r as usize];
                            let mut hit = HitLine {
                                ms,
                                me,
                                reach: rule.reach(),
                                line: None,
                            };
                            wins.push(window(rule, &lines, &mut hit));
                            wins.last_mut().unwrap().0 = r;
                        }
                    }
                    cut_from = earliest(
                        cut_from,
                        self.confirm_windows(&mut wins, hay, scan, &mut out),
                    );
                }
                Err(_) => {
                    for &r in &self.anchored {
                        cut_from = earliest(
                            cut_from,
                            self.confirm(r, hay, (lo, hi), (lo, hi), scan, &mut out),
                        );
                    }
                }
            }
        }
        self.apply_vetoes(&mut out);
        Found {
            cands: out,
            cut_from,
        }
    }

    /// Sort and merge windows per rule, then confirm each merged window once; true if the
    /// haystack's end may have cut a match, where the earliest such starts (see
    /// [`Found::cut_from`]).
    fn confirm_windows(
        &self,
        wins: &mut [Win],
        hay: &[u8],
        scan: Scan,
        out: &mut Vec<Cand>,
    ) -> Option<usize> {
        sort_windows(wins, self.rules.len());
        let mut cut_from = None;
        let mut i = 0;
        while i < wins.len() {
            let (r, s, mut e, mut llo, mut lhi) = wins[i];
            // the start of the merged window that ends last
            let mut tail = s;
            let mut j = i + 1;
            while j < wins.len() && wins[j].0 == r && wins[j].1 <= e {
                if wins[j].2 >= e {
                    tail = wins[j].1;
                }
                e = e.max(wins[j].2);
                llo = llo.min(wins[j].3);
                lhi = lhi.max(wins[j].4);
                j += 1;
            }
            // A line-clamped rule's window runs to the haystack's end only when its clamp,
            // the line break after the hit's lines, is missing (or is the very last byte): a
            // match ending past the end (a quoted value's closing quote) would not be found
            // at all, so a stream must read on if that window starts in what it commits. A
            // line break as the last byte closes a one-line clamp.
            let rule = &self.rules[r as usize];
            if e == hay.len()
                && lhi == hay.len()
                && !matches!(rule.max_len, Some(m) if m <= BOUNDED_CAP)
                && rule
                    .nl_budget
                    .is_some_and(|k| k > 0 || hay.last() != Some(&b'\n'))
            {
                cut_from = earliest(cut_from, Some(tail));
            }
            // a search never reads past its growth bounds: without a required byte there, the
            // window holds no match (a rule that cannot compile still fails closed in confirm)
            if rule.compiled().is_ok() && !holds_required(&rule.required, &hay[llo..lhi]) {
                i = j;
                continue;
            }
            cut_from = earliest(
                cut_from,
                self.confirm(r, hay, (s, e), (llo, lhi), scan, out),
            );
            i = j;
        }
        cut_from
    }

    /// Run rule `r` over the window `(ws, we)`, growing it (within `(lo, hi)`) when an
    /// unbounded match touches an edge. Pushes confirmed secret spans; returns where the
    /// earliest match the haystack's end may have cut starts (see [`Found::cut_from`]).
    ///
    /// In a `segmented` haystack (JSON mode's scan buffer) the window is searched piece by
    /// piece, a piece ending at each [`SEGMENT_MARK`]: no match, context included, crosses
    /// from one decoded value into the next. Dropping such matches afterwards would not do:
    /// one that starts in a value and runs into the next key hides, by leftmost-first
    /// matching, a match that starts inside that key.
    fn confirm(
        &self,
        r: u32,
        hay: &[u8],
        (mut ws, mut we): (usize, usize),
        (lo, hi): (usize, usize),
        scan: Scan,
        out: &mut Vec<Cand>,
    ) -> Option<usize> {
        let segmented = scan.segmented;
        let rule = &self.rules[r as usize];
        let c = match rule.compiled() {
            Ok(c) => c,
            Err(_) => {
                // A rule that cannot compile fails closed: the whole window (each piece of
                // it) is a finding.
                let mut from = ws;
                while from < we {
                    let to = piece_end(hay, from, we, segmented);
                    if to > from {
                        out.push(Cand {
                            start: from,
                            end: to,
                            rule: r,
                        });
                    }
                    from = to + 1;
                }
                return None;
            }
        };
        let mut cut_from = None;
        let mark = out.len();
        let mut grow = c.side;
        // one allocation per window, not one per match
        let mut caps = rule.spec.capture.map(|_| c.re.capture_locations());
        'outer: loop {
            out.truncate(mark);
            // bytes of rejected matches searched again (see below), at most a few windows' worth
            let mut budget = REJECTED_RESCAN * (we - ws);
            let mut pos = ws;
            let mut end = piece_end(hay, pos, we, segmented);
            loop {
                if pos > end {
                    if end >= we {
                        break;
                    }
                    pos = end + 1;
                    end = piece_end(hay, pos, we, segmented);
                }
                let h = &hay[..end];
                // A capture rule finds and captures in one search; in a later pass it finds
                // first, as the match alone may show that its capture is one of our
                // placeholders (see `captures_placeholder`).
                let found = match (rule.spec.capture, &mut caps) {
                    (Some(g), Some(caps)) if !scan.placeholders => {
                        c.re.captures_read_at(caps, h, pos)
                            .map(|m| (m.start(), m.end(), Some(reported(caps, g, m.end()))))
                    }
                    _ => c.re.find_at(h, pos).map(|m| (m.start(), m.end(), None)),
                };
                let Some((ms, me, captured)) = found else {
                    // the rest of this piece holds no match: on to the next
                    pos = end + 1;
                    continue;
                };
                if !c.bounded && me == we && we == hi && hi == hay.len() {
                    // the haystack's end cut this match: a stream reads further
                    cut_from = earliest(cut_from, Some(ms));
                }
                if !c.bounded
                    && grow < MAX_WINDOW
                    && ((ms == ws && ws > lo) || (me == we && we < hi))
                {
                    grow *= 2;
                    if ms == ws && ws > lo {
                        ws = ws.saturating_sub(grow).max(lo);
                    }
                    if me == we && we < hi {
                        we = (we + grow).min(hi);
                    }
                    continue 'outer;
                }
                // a table's header cell: the secrets are the cells below it (`table.rs`), each
                // judged by the rule's validator, and the search goes on after the table
                if let Some(kind) = rule.spec.validator.and_then(table::Column::of) {
                    let (cells, table_end) =
                        table::cells(hay, ms, piece_end(hay, ms, hay.len(), segmented), kind);
                    for (ss, se) in cells {
                        if !self.overlaps_placeholder(hay, ss, se)
                            && matches!(self.verdict(rule, &hay[ss..se], &[], &[]), Verdict::Accept)
                        {
                            out.push(Cand {
                                start: floor_char(hay, ss),
                                end: ceil_char(hay, se),
                                rule: r,
                            });
                        }
                    }
                    pos = table_end.max(me).max(ceil_char(hay, ms + 1));
                    continue;
                }
                // the secret's span (see `reported`); `None` when it provably overlaps one of
                // our placeholders (rejected without its captures)
                let secret = match (captured, rule.spec.capture, &mut caps) {
                    (Some(span), ..) => Some(span),
                    (None, Some(g), Some(caps)) => {
                        if rule.capture_tail.is_some_and(|(tail, min)| {
                            self.captures_placeholder(hay, ms, me, tail, min)
                        }) {
                            #[cfg(debug_assertions)]
                            {
                                // the captures would have said so too
                                c.re.captures_read_at(caps, h, ms);
                                let (ss, se) = without_closers(hay, ms, reported(caps, g, me));
                                debug_assert!(se <= ss || self.overlaps_placeholder(hay, ss, se));
                            }
                            None
                        } else {
                            // from `ms` the leftmost-first match is the one just found
                            let m = c.re.captures_read_at(caps, h, ms);
                            debug_assert_eq!(m.map(|m| (m.start(), m.end())), Some((ms, me)));
                            Some(reported(caps, g, me))
                        }
                    }
                    _ => Some((ms, me)),
                };
                let mut kept = false;
                if let Some((ss, se)) = secret
                    .map(|span| without_closers(hay, ms, span))
                    .filter(|&(ss, se)| se > ss && !self.overlaps_placeholder(hay, ss, se))
                {
                    // a bare `key` is judged with the word before it on its line (`public
                    // key:`, `cache key:`: see `validate::key_name_ok`)
                    // A match that starts inside a name (at the `KEY` of `PUBLIC_KEY`) is
                    // judged with the whole name
                    let (name, lead) =
                        if rule.spec.validator.is_some_and(Validator::checks_key_name) {
                            let lo = ms.saturating_sub(NAME_CONTEXT);
                            let name = lo
                                + validate::run_start(&hay[lo..ms], |b| {
                                    b.is_ascii_alphanumeric() || b"_.-$".contains(&b)
                                });
                            let lo = name.saturating_sub(NAME_CONTEXT);
                            let at =
                                memchr::memrchr(b'\n', &hay[lo..name]).map_or(lo, |i| lo + i + 1);
                            (name, &hay[at..name])
                        } else {
                            (ms, &[][..])
                        };
                    let rule = match self.verdict(rule, &hay[ss..se], lead, &hay[name..ss.max(ms)])
                    {
                        Verdict::Accept => r,
                        Verdict::Veto => VETO,
                        Verdict::Reject => u32::MAX - 2,
                    };
                    if rule != u32::MAX - 2 {
                        kept = true;
                        out.push(Cand {
                            start: floor_char(hay, ss),
                            end: ceil_char(hay, se),
                            rule,
                        });
                    }
                }
                pos = if !kept && me > ms && me - ms <= budget {
                    // A rejected match hides nothing: a match starting inside it (`k_key =
                    // "x y_key = "<secret>"`, the first value failing its check) is searched
                    // for from the next character. Otherwise what is found would depend on
                    // where the window starts, and a second redaction, whose windows start
                    // elsewhere, could find more (not idempotent). A kept match is replaced,
                    // and the fixed point looks again around its replacement.
                    budget -= me - ms;
                    ceil_char(hay, ms + 1)
                } else if me > ms {
                    me
                } else {
                    ceil_char(hay, me + 1)
                };
            }
            break;
        }
        cut_from
    }

    /// Confirm one match: `secret` is the captured value, `before` the match text before it,
    /// `lead` the text of its line before the match.
    fn verdict(&self, rule: &Rule, secret: &[u8], lead: &[u8], before: &[u8]) -> Verdict {
        let spec = &rule.spec;
        if spec.validator.is_some_and(Validator::checks_key_name)
            && !validate::key_name_ok(lead, before)
        {
            return Verdict::Reject;
        }
        if self.is_placeholder(secret) {
            return Verdict::Reject;
        }
        if !spec.allow_values.is_empty() && spec.allow_values.iter().any(|v| v.as_bytes() == secret)
        {
            return Verdict::Reject;
        }
        if let Some(min) = spec.min_entropy {
            if shannon_entropy(secret) < min {
                return Verdict::Reject;
            }
        }
        let self_certifying = spec.validator.is_some_and(Validator::is_checksum);
        if let Some(v) = spec.validator {
            if !v.check(secret) {
                // a structured number whose checksum fails is a look-alike: its digits
                // belong to no other (unchecked) rule either
                return if v.vetoes_on_failure() {
                    Verdict::Veto
                } else {
                    Verdict::Reject
                };
            }
        }
        if !self_certifying
            && !matches!(spec.replacement, Replacement::Numbered(_))
            && validate::looks_placeholder(secret)
        {
            return Verdict::Reject;
        }
        if let Ok(Compiled {
            allow: Some(set), ..
        }) = rule.compiled()
        {
            if set.is_match(secret) {
                return Verdict::Reject;
            }
        }
        Verdict::Accept
    }

    /// Drop the vetoes from `out`, and every candidate of a rule without a checksum or a
    /// key-name check that lies inside one (the digits of an IBAN with a wrong check are no
    /// phone number).
    fn apply_vetoes(&self, out: &mut Vec<Cand>) {
        if !out.iter().any(|c| c.rule == VETO) {
            return;
        }
        let mut vetoes: Vec<(usize, usize)> = out
            .iter()
            .filter(|c| c.rule == VETO)
            .map(|c| (c.start, c.end))
            .collect();
        vetoes.sort_unstable();
        out.retain(|c| {
            if c.rule == VETO {
                return false;
            }
            // a checksum rule, a value a credential-named key certifies (`asanaToken =
            // "3940241821209427"`: a token, whatever the card check says), or a national
            // number its label names (`ITIN: 912-78-4836`, no SSN) keeps its claim
            let certified = self.rules.get(c.rule as usize).is_some_and(|r| {
                r.spec.validator.is_some_and(|v| {
                    v.is_checksum() || v.checks_key_name() || matches!(v, Validator::Scheme(_))
                })
            });
            certified || !vetoes.iter().any(|&(s, e)| s <= c.start && c.end <= e)
        });
    }

    /// A secret that contains one of our own replacement texts is a previous redaction.
    fn is_placeholder(&self, s: &[u8]) -> bool {
        if s.len() < 3 {
            return false;
        }
        if OWN_MARKS.is_match(s) {
            return true;
        }
        match &self.placeholder_ac {
            Some(ac) => s.iter().any(|b| self.placeholder_first[*b as usize]) && ac.is_match(s),
            None => false,
        }
    }

    /// Does every capture a match `[ms, me)` can report overlap one of our own placeholders?
    /// With the rule's [`gate::capture_tail`] `(tail, min)`, the capture ends at `me - t` for
    /// some `t <= tail` and holds the `min` bytes before that end. If, for each `t`, those
    /// bytes touch a placeholder and the byte before the end is no `)` (which
    /// [`call_closers`] could trim), the captured secret overlaps a placeholder and is
    /// rejected whatever the capture engine would say. (Later passes find each earlier
    /// `password: [REDACTED:secret]` again; this spares their captures.)
    fn captures_placeholder(
        &self,
        hay: &[u8],
        ms: usize,
        me: usize,
        tail: usize,
        min: usize,
    ) -> bool {
        let min = min.max(1);
        let lo = me.saturating_sub(tail + min + self.max_placeholder);
        if !hay[lo..me]
            .iter()
            .any(|b| self.placeholder_first[*b as usize])
        {
            return false;
        }
        (0..=tail).all(|t| match me.checked_sub(t) {
            // a group of `min` bytes inside the match cannot end here
            Some(se) if se >= ms + min => {
                hay[se - 1] != b')' && self.overlaps_placeholder(hay, se - min, se)
            }
            _ => true,
        })
    }

    /// Does `[ss, se)` overlap one of our own placeholders in `hay`? (A regex such as
    /// `user:pass@` can match across `[REDACTED:x]` without containing it whole.)
    fn overlaps_placeholder(&self, hay: &[u8], ss: usize, se: usize) -> bool {
        let lo = ss.saturating_sub(self.max_placeholder);
        let hi = (se + self.max_placeholder).min(hay.len());
        let win = &hay[lo..hi];
        if !win.iter().any(|b| self.placeholder_first[*b as usize]) {
            return false;
        }
        let ac = match &self.placeholder_ac {
            Some(ac) => ac,
            None => return false,
        };
        let nplain = self.placeholders.len();
        for m in ac.find_overlapping_iter(win) {
            let a = lo + m.start();
            let mut b = lo + m.end();
            if m.pattern().as_usize() >= nplain {
                // numbered prefix `[NAME_`: a placeholder only with its number and `]`
                let digits = win[m.end()..]
                    .iter()
                    .take_while(|c| c.is_ascii_digit())
                    .count();
                if digits == 0 || win.get(m.end() + digits) != Some(&b']') {
                    continue;
                }
                b += digits + 1;
            }
            if a < se && b > ss {
                return true;
            }
        }
        false
    }

    /// The replacement text for a merged candidate whose secret is `secret`.
    pub(crate) fn replacement(
        &self,
        c: Cand,
        secret: &[u8],
        numbering: &mut Numbering,
        out: &mut Vec<u8>,
    ) {
        let Some(rep) = self.replacement_of(c.rule) else {
            out.extend_from_slice(KNOWN_LABEL.as_bytes());
            return;
        };
        match rep {
            Replacement::Label(l) | Replacement::Withhold(l) => out.extend_from_slice(l.as_bytes()),
            Replacement::Prefix { label, keep } => {
                let k = (*keep).min(secret.len() / 3);
                let k = floor_char(secret, k);
                out.extend_from_slice(&secret[..k]);
                out.extend_from_slice("…".as_bytes());
                out.extend_from_slice(label.as_bytes());
            }
            Replacement::Numbered(n) => {
                // number per label name, shared by all rules using that name
                let key = self
                    .numbered_prefixes
                    .iter()
                    .position(|p| &p[1..p.len() - 1] == n.as_str())
                    .unwrap_or(0) as u32;
                let num = numbering.number(key, secret);
                out.push(b'[');
                out.extend_from_slice(n.as_bytes());
                out.push(b'_');
                out.extend_from_slice(num.to_string().as_bytes());
                out.push(b']');
            }
        }
    }

    pub(crate) fn withhold_rule(&self, merged: &[Cand]) -> Option<u32> {
        merged
            .iter()
            .find(|c| self.is_withhold(c.rule))
            .map(|c| c.rule)
    }

    /// `text` with the candidates `cands` replaced.
    fn apply_text<'a>(
        &self,
        text: &'a str,
        cands: Vec<Cand>,
        numbering: &mut Numbering,
    ) -> Redaction<'a> {
        if cands.is_empty() {
            return Redaction {
                text: Cow::Borrowed(text),
                findings: Vec::new(),
                withheld_by: None,
            };
        }
        let merged = merge(cands);
        let findings: Vec<Finding> = merged.iter().map(|&c| self.finding(c, 0)).collect();
        if let Some(r) = self.withhold_rule(&merged) {
            let rule = &self.rules[r as usize];
            return Redaction {
                text: Cow::Owned(rule.label.to_string()),
                findings,
                withheld_by: Some(rule.id.clone()),
            };
        }
        let b = text.as_bytes();
        // Copy `&str` slices (spans are on char boundaries) and validate only the small
        // replacement texts, instead of re-validating the whole output.
        let mut s = String::with_capacity(b.len());
        let mut rep = Vec::new();
        let mut last = 0;
        for &c in &merged {
            match text.get(last..c.start) {
                Some(t) => s.push_str(t),
                None => s.push_str(&String::from_utf8_lossy(&b[last..c.start])),
            }
            rep.clear();
            self.replacement(c, &b[c.start..c.end], numbering, &mut rep);
            s.push_str(&String::from_utf8_lossy(&rep));
            last = c.end;
        }
        match text.get(last..) {
            Some(t) => s.push_str(t),
            None => s.push_str(&String::from_utf8_lossy(&b[last..])),
        }
        Redaction {
            text: Cow::Owned(s),
            findings,
            withheld_by: None,
        }
    }
}

/// The byte that ends each segment of a `segmented` haystack (JSON mode's scan buffer): never
/// part of UTF-8 text, so never part of a decoded value, and no match crosses it.
pub(crate) const SEGMENT_MARK: u8 = 0xFF;

/// How many trailing `)` of a captured value close a call the match opened before it
/// (`connect(password=hunter2)`, `init(token: abc123)`): at most the `(` left open in
/// `before` (the match text before the value), only those the value itself leaves
/// unbalanced (`f(password=ab)c)` keeps its value's own `)` inside the finding), and only
/// when the value ends the argument: `after`, the byte after it, is a blank, `,`, `;`, a
/// segment's end or the end of the text. A quote or a delimiter after it (`"Pa55)"`,
/// `user:Pa55)@host`) makes the `)` the secret's own. Only the match's text and the byte
/// after it count, so a finding never depends on where a window or a stream chunk starts.
fn call_closers(before: &[u8], value: &[u8], after: Option<u8>) -> usize {
    if value.last() != Some(&b')') {
        return 0;
    }
    let ends_argument = after.is_none_or(|b| {
        matches!(
            b,
            b' ' | b'\t' | b'\n' | b'\r' | b'\x0B' | b'\x0C' | b',' | b';' | SEGMENT_MARK
        )
    });
    if !ends_argument {
        return 0;
    }
    let open = |b: &[u8]| {
        b.iter().fold(0isize, |n, &c| match c {
            b'(' => n + 1,
            b')' => n - 1,
            _ => n,
        })
    };
    let opened = open(before);
    let unbalanced = -open(value);
    if opened <= 0 || unbalanced <= 0 {
        return 0;
    }
    let trailing = value.iter().rev().take_while(|&&c| c == b')').count();
    trailing.min(opened as usize).min(unbalanced as usize)
}

/// Where the piece of `hay` that starts at `from` ends: at the next [`SEGMENT_MARK`] before
/// `to` in a `segmented` haystack, else at `to`.
fn piece_end(hay: &[u8], from: usize, to: usize, segmented: bool) -> usize {
    match segmented {
        true => hay
            .get(from..to)
            .and_then(|w| memchr::memchr(SEGMENT_MARK, w))
            .map_or(to, |k| from + k),
        false => to,
    }
}

/// Redaction passes after the first before new matches are widened (see
/// [`Redactor::fixed_point`]). Each rescans only around the replacements the pass before
/// added, so a pass costs little; a chain of matches that each appear only once the one
/// before is replaced takes one pass per link.
const MAX_PASSES: usize = 64;

/// One replacement of a pass: its span in the output, the input span it replaced and where
/// its bytes start in [`PassOutput::reps`].
#[derive(Clone, Copy, Debug)]
struct Replaced {
    out: (usize, usize),
    input: (usize, usize),
    rep: usize,
}

/// A fixed-point pass's output, never written out whole: its replacements (in order, their
/// bytes one after another in `reps`) over the input's bytes. A later pass reads only the
/// stretches around new replacements ([`PassOutput::bytes`]), so on text with few findings
/// it costs no copy of the text.
#[derive(Default)]
struct PassOutput {
    map: Vec<Replaced>,
    reps: Vec<u8>,
    /// the output's length
    len: usize,
}

impl PassOutput {
    /// The output's bytes `a..b`, into `buf` (cleared first); `hay` is the pass's input.
    fn bytes(&self, hay: &[u8], a: usize, b: usize, buf: &mut Vec<u8>) {
        buf.clear();
        let mut p = a;
        // the first replacement that ends after `a`
        let mut i = self.map.partition_point(|r| r.out.1 <= a);
        while p < b {
            match self.map.get(i) {
                Some(r) if r.out.0 <= p => {
                    let end = r.out.1.min(b);
                    buf.extend_from_slice(
                        &self.reps[r.rep + (p - r.out.0)..r.rep + (end - r.out.0)],
                    );
                    p = end;
                    i += 1;
                }
                next => {
                    // input text, between replacements
                    let at = map_back(&self.map, p, false);
                    let end = next.map_or(b, |r| r.out.0.min(b));
                    buf.extend_from_slice(&hay[at..at + (end - p)]);
                    p = end;
                }
            }
        }
    }
}

/// `c` with up to `reach` bytes on either side, as much as `clip` leaves whole (a JSON value's
/// match must stay inside its value).
fn widen(hay: &[u8], c: Cand, reach: usize, clip: &impl Fn(Cand) -> Option<Cand>) -> Cand {
    let mut r = reach.min(hay.len());
    while r > 0 {
        let w = Cand {
            start: floor_char(hay, c.start.saturating_sub(r)),
            end: ceil_char(hay, c.end.saturating_add(r).min(hay.len())),
            rule: c.rule,
        };
        if clip(w) == Some(w) {
            return w;
        }
        r /= 2;
    }
    c
}

/// The input offset of output offset `p` of a pass (`end`: `p` ends a span, so a position
/// inside a replacement maps to the end of what it replaced, else to its start).
fn map_back(map: &[Replaced], p: usize, end: bool) -> usize {
    // the last replacement starting at or before p (strictly before, for an end)
    let i = map.partition_point(|r| if end { r.out.0 < p } else { r.out.0 <= p });
    match i.checked_sub(1).map(|i| map[i]) {
        None => p,
        Some(r) if end && p <= r.out.1 => r.input.1,
        Some(r) if !end && p < r.out.1 => r.input.0,
        Some(r) => r.input.1 + (p - r.out.1),
    }
}

/// The first byte of `b` that is not JSON whitespace, if any.
pub fn json_first_byte(b: &[u8]) -> Option<u8> {
    b.iter()
        .copied()
        .find(|b| !matches!(b, b' ' | b'\t' | b'\n' | b'\r'))
}

/// True if `b` may be one JSON document: its first byte that is not JSON whitespace can open
/// a JSON value (`{`, `[`, `"`, `-`, a digit, `t`, `f`, `n`). A text that starts so is parsed as
/// JSON first and redacted as text only if it is not JSON, so a valid JSON input, even a bare
/// string such as a JSON Lines line `"…"`, always comes out as valid JSON (a bare number that
/// held a card number comes out as a string: `"[REDACTED:card]"`).
pub fn may_be_json(b: &[u8]) -> bool {
    json_first_byte(b).is_some_and(|b| {
        matches!(
            b,
            b'{' | b'[' | b'"' | b'-' | b'0'..=b'9' | b't' | b'f' | b'n'
        )
    })
}

/// Leftmost-longest merge: sort by start, then longest, then rule order; overlapping spans
/// are unioned and named by the first one.
pub(crate) fn merge(mut cands: Vec<Cand>) -> Vec<Cand> {
    if cands.len() <= 1 {
        return cands;
    }
    cands.sort_unstable_by(|a, b| {
        a.start
            .cmp(&b.start)
            .then(b.end.cmp(&a.end))
            .then(a.rule.cmp(&b.rule))
    });
    let mut out: Vec<Cand> = Vec::with_capacity(cands.len());
    for c in cands {
        if let Some(last) = out.last_mut() {
            if c.start < last.end {
                if c.end > last.end {
                    last.end = c.end;
                }
                continue;
            }
        }
        out.push(c);
    }
    out
}

#[cfg(test)]
mod tests;

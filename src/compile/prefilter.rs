//! The literal prefilter: for each hook, which rules can possibly match,
//! decided by one aho-corasick pass per field. Both halves live here: building a hook's
//! index ([`HookIndex::build`], from each rule's [`requirement`]) and searching an event
//! with it ([`HookIndex::candidates`], which `eval` and `compile_for_event` call and whose
//! trace `warden explain` shows).
//!
//! A rule's condition is reduced to a *requirement*: one field and a set of
//! literals such that if the condition holds, at least one literal occurs in
//! that field (case-insensitively). `and` takes its most selective child's
//! requirement; `or` needs one from every child (on the same field) and takes
//! their union; `not` and non-literal atoms give none. Regex literals come
//! from `regex-syntax`'s prefix (then suffix) extraction.

use super::{CAction, CTest, MatcherSet, Node, UnderPath};
use crate::check::ir::{ShellTest, Test};
use crate::event::memo::EventMemo;
use crate::event::values::for_each_value;
use crate::event::{Field, Hook};
use crate::syntax::ast::Scalar;
use aho_corasick::{AhoCorasick, AhoCorasickKind, MatchKind};
use regex_syntax::hir::literal::{ExtractKind, Extractor};
use std::collections::HashMap as StdHashMap;

/// The index's maps. Their keys are policy literals (trusted input: lookups with event
/// values never insert), so a fast non-keyed hash suits them; SipHash showed up as a
/// tenth of a hook call's index building.
type HashMap<K, V> = StdHashMap<K, V, std::hash::BuildHasherDefault<super::fnv::Fnv>>;

/// Above this many (literal, text position) pairs a field's value is searched with the
/// automaton; below it, each literal is looked for directly (a hook sees one short command
/// or path, where building the automaton would cost more than every direct search).
const DIRECT_SEARCH_MAX: usize = 1 << 14;

/// One field's automaton and, per pattern, the rules it admits.
pub(crate) struct FieldFilter {
    pub(crate) field: Field,
    automaton: std::sync::OnceLock<AhoCorasick>,
    kind: AhoCorasickKind,
    pub(crate) literals: Vec<String>,
    pub(crate) targets: Vec<Vec<u32>>,
}

impl FieldFilter {
    /// The automaton over `literals`, built on first use in a lazy set (an
    /// event that lacks the field never pays for it).
    pub(crate) fn automaton(&self) -> &AhoCorasick {
        self.automaton.get_or_init(|| {
            AhoCorasick::builder()
                .ascii_case_insensitive(true)
                .match_kind(MatchKind::Standard)
                .kind(Some(self.kind))
                .prefilter(self.kind != AhoCorasickKind::NoncontiguousNFA)
                .build(&self.literals)
                .expect("literal automaton")
        })
    }

    /// Call `f` with the index of every literal that occurs in `text` (ASCII case folded),
    /// each at least once, and the byte range of that occurrence (the first, when searched
    /// directly).
    pub(crate) fn present(&self, text: &str, f: &mut impl FnMut(usize, usize, usize)) {
        let hay = text.as_bytes();
        let direct = self.automaton.get().is_none()
            && hay.len().saturating_mul(self.literals.len()) <= DIRECT_SEARCH_MAX;
        if !direct {
            for m in self.automaton().find_overlapping_iter(text) {
                f(m.pattern().as_usize(), m.start(), m.end());
            }
            return;
        }
        // The bytes the text holds (ASCII case folded): most literals are ruled out by their
        // first or last byte without a search, the rest are compared only where their first
        // byte occurs.
        let mut seen = [false; 256];
        for &b in hay {
            seen[usize::from(b.to_ascii_lowercase())] = true;
        }
        for (i, lit) in self.literals.iter().enumerate() {
            let lit = lit.as_bytes();
            let (Some(&first), Some(&last)) = (lit.first(), lit.last()) else {
                f(i, 0, 0);
                continue;
            };
            if lit.len() > hay.len()
                || !seen[usize::from(first.to_ascii_lowercase())]
                || !seen[usize::from(last.to_ascii_lowercase())]
            {
                continue;
            }
            let starts = &hay[..=hay.len() - lit.len()];
            let (lower, upper) = (first.to_ascii_lowercase(), first.to_ascii_uppercase());
            if let Some(at) = memchr::memchr2_iter(lower, upper, starts)
                .find(|&at| hay[at..at + lit.len()].eq_ignore_ascii_case(lit))
            {
                f(i, at, at + lit.len());
            }
        }
    }
}

/// Program names of the parsed command line → the rules that name them.
/// Program names are whole tokens, so this is an exact-name table (plus the
/// few `name*` prefixes) rather than a substring automaton: sorted once when the
/// index is planned (and stored so in a snapshot), it costs a hook process nothing to load.
#[derive(Default, Debug, PartialEq, serde::Serialize, serde::Deserialize)]
pub(crate) struct ProgramFilter {
    /// Program name → rules, sorted by name (binary search).
    pub(crate) exact: Admits,
    /// `name*` prefixes → rules.
    pub(crate) prefixes: Admits,
}

impl ProgramFilter {
    /// Call `mark` with every rule a program named `name` admits.
    pub(crate) fn lookup(&self, name: &str, mark: &mut impl FnMut(u32)) {
        let lower;
        let name = if name.bytes().any(|b| b.is_ascii_uppercase()) {
            lower = name.to_ascii_lowercase();
            lower.as_str()
        } else {
            name
        };
        if let Ok(at) = self.exact.binary_search_by(|(k, _)| k.as_str().cmp(name)) {
            self.exact[at].1.iter().for_each(|&r| mark(r));
        }
        for (p, rules) in &self.prefixes {
            if name.starts_with(p.as_str()) {
                rules.iter().for_each(|&r| mark(r));
            }
        }
    }
}

/// While planning: one field's literals, their ids, and the rules per literal.
type FieldLiterals = (Vec<String>, HashMap<String, usize>, Vec<Vec<u32>>);

/// Literals (directories, program names) and, for each, the rules it admits.
pub(crate) type Admits = Vec<(String, Vec<u32>)>;

/// A hook's prefilter as data: what [`HookIndex`] is built from, without its automata and
/// maps. A compiled-policy snapshot stores it (so a hook process does not derive it from the
/// rules' requirements on every call) and [`HookIndex::from_plan`] turns it into the index.
/// Rule numbers are indexes into the set's rules.
#[derive(Default, Debug, PartialEq, serde::Serialize, serde::Deserialize)]
pub(crate) struct IndexPlan {
    /// Bitset of the rules that always run on this hook (no requirement).
    pub(crate) base: Vec<u64>,
    /// Rules with no requirement, in order.
    pub(crate) unfiltered: Vec<u32>,
    /// Per field (in first-use order): its literals and, per literal, the rules it admits.
    pub(crate) fields: Vec<(Field, Vec<String>, Vec<Vec<u32>>)>,
    /// `path(F) under "/dir"` tests: per field, each directory and the rules it admits.
    pub(crate) under: Vec<(Field, Admits)>,
    /// Program names of shell predicates.
    pub(crate) programs: ProgramFilter,
}

impl IndexPlan {
    /// Every rule number the plan names is below `rules`, and the bitset has their size:
    /// a snapshot whose plan fails this does not decode.
    pub(crate) fn fits(&self, rules: usize) -> bool {
        let ok = |r: &u32| (*r as usize) < rules;
        let lists = |v: &[(String, Vec<u32>)]| v.iter().all(|(_, rs)| rs.iter().all(ok));
        self.base.len() == rules.div_ceil(64)
            && self.unfiltered.iter().all(ok)
            && self
                .fields
                .iter()
                .all(|(_, lits, t)| lits.len() == t.len() && t.iter().flatten().all(ok))
            && self.under.iter().all(|(_, dirs)| lists(dirs))
            && lists(&self.programs.exact)
            && lists(&self.programs.prefixes)
    }

    /// A plan that runs each of `rules` rules on every event (what a snapshot whose
    /// requirements were all dropped would hold).
    #[cfg(test)]
    pub(crate) fn unfiltered(rules: usize) -> IndexPlan {
        let mut plan = IndexPlan {
            base: vec![0; rules.div_ceil(64)],
            ..IndexPlan::default()
        };
        (0..rules as u32).for_each(|r| plan.unfilter(r));
        plan
    }

    /// Make rule `r` run on every event (its requirement could not be kept).
    pub(crate) fn unfilter(&mut self, r: u32) {
        let bit = 1 << (r % 64);
        if self.base[r as usize / 64] & bit == 0 {
            self.base[r as usize / 64] |= bit;
            self.unfiltered.push(r);
            self.unfiltered.sort_unstable();
        }
    }
}

/// The regexes of the rules that run on every event, grouped by field into
/// one `RegexSet`: one pass over the field answers all of them.
pub(crate) struct RegexGroup {
    pub(crate) field: Field,
    sources: Vec<String>,
    set: std::sync::OnceLock<Option<regex::bytes::RegexSet>>,
}

impl RegexGroup {
    /// The set, built on first use (`None` if the engine refuses it: the
    /// atoms then run one by one).
    pub(crate) fn set(&self) -> Option<&regex::bytes::RegexSet> {
        self.set
            .get_or_init(|| {
                regex::bytes::RegexSetBuilder::new(&self.sources)
                    .unicode(false)
                    .build()
                    .ok()
            })
            .as_ref()
    }
}

/// The prefilter of one hook.
pub(crate) struct HookIndex {
    /// Regex groups of the unfiltered rules, and atom → (group, pattern).
    pub(crate) regex_groups: Vec<RegexGroup>,
    /// Indexed by atom: `(group, pattern)`, or `NO_GROUP`.
    pub(crate) atom_group: Vec<(u32, u32)>,
    /// `path(F) under "/dir"` tests: per field, directory → rules. A value
    /// admits the rules of every ancestor of its normalised path.
    pub(crate) under: Vec<(Field, HashMap<String, Vec<u32>>)>,
    /// Program-name filter of shell predicates.
    pub(crate) programs: ProgramFilter,
    /// Bitset of rules that always run on this hook (no requirement).
    pub(crate) base: Vec<u64>,
    /// Rules with no requirement.
    pub(crate) unfiltered: Vec<u32>,
    /// One automaton per field.
    pub(crate) filters: Vec<FieldFilter>,
}

/// Why the search admitted a rule (each admission is told to [`HookIndex::candidates`]'s
/// `trace`, which `warden explain` shows).
#[derive(Clone, Copy, Debug)]
pub(crate) enum Admit<'x> {
    /// The command line runs program `commands[command]` of the memo's shell analysis.
    Program {
        /// Index of the command in the analysis.
        command: usize,
    },
    /// The normalised value `path` of `field` lies under the indexed directory `dir`.
    Under {
        /// The field tested by `path(F) under`.
        field: &'x Field,
        /// Its value, normalised.
        path: &'x str,
        /// The indexed ancestor.
        dir: &'x str,
    },
    /// Literal `literal` of the hook's `filters[filter]` occurs in the field's
    /// `value`-th value at `start..end`.
    Literal {
        /// Index into [`HookIndex::filters`].
        filter: usize,
        /// Index into that filter's literals.
        literal: usize,
        /// Which value of the field (`history` has one per message).
        value: usize,
        /// Byte range of the occurrence.
        start: usize,
        /// End of that range.
        end: usize,
    },
}

impl HookIndex {
    /// Candidate rules for `memo`'s event, as a bitset in policy order: the rules that run
    /// on every event, and those a program name of the command line, an ancestor of a
    /// normalised path or a literal of a field admits. `trace` is told every admission
    /// (a no-op closure costs nothing).
    pub(crate) fn candidates(
        &self,
        memo: &EventMemo<'_>,
        trace: &mut impl FnMut(Admit<'_>, u32),
    ) -> Vec<u64> {
        let idx = self;
        let mut bits = idx.base.clone();
        if !idx.programs.exact.is_empty() || !idx.programs.prefixes.is_empty() {
            if let Some(a) = memo.shell() {
                for (command, c) in a.commands.iter().enumerate() {
                    idx.programs.lookup(&c.program, &mut |r| {
                        bits[r as usize / 64] |= 1 << (r % 64);
                        trace(Admit::Program { command }, r);
                    });
                }
            }
        }
        for (field, dirs) in &idx.under {
            for_each_value(memo.event, field, &mut |v| {
                let Some(path) = memo.normalized(&v.as_text()) else {
                    return false;
                };
                // `/a/b/c` admits the rules of `/a/b/c`, `/a/b`, `/a` and `/`.
                let mut p = path.as_str();
                loop {
                    if let Some(rules) = dirs.get(p) {
                        for &r in rules {
                            bits[r as usize / 64] |= 1 << (r % 64);
                            trace(
                                Admit::Under {
                                    field,
                                    path: &path,
                                    dir: p,
                                },
                                r,
                            );
                        }
                    }
                    match p.rfind('/') {
                        Some(0) if p.len() > 1 => p = "/",
                        Some(i) if i > 0 => p = &p[..i],
                        _ => break,
                    }
                }
                false
            });
        }
        for (filter, f) in idx.filters.iter().enumerate() {
            let mut value = 0;
            let mut mark = |text: &str| {
                f.present(text, &mut |p, start, end| {
                    for &r in &f.targets[p] {
                        bits[r as usize / 64] |= 1 << (r % 64);
                        trace(
                            Admit::Literal {
                                filter,
                                literal: p,
                                value,
                                start,
                                end,
                            },
                            r,
                        );
                    }
                });
                value += 1;
            };
            for_each_value(memo.event, &f.field, &mut |v| {
                mark(&v.as_text());
                false
            });
        }
        bits
    }
}

/// A requirement: for some `(field, lits)` part, some literal of `lits`
/// occurs in `field` (an `or` over different fields has several parts).
#[derive(Clone, Debug, PartialEq)]
pub(crate) struct Requirement {
    pub(crate) parts: Vec<(Field, Vec<String>)>,
}

impl Requirement {
    fn one(field: Field, lits: Vec<String>) -> Requirement {
        Requirement {
            parts: vec![(field, lits)],
        }
    }

    fn lit_count(&self) -> usize {
        self.parts.iter().map(|(_, l)| l.len()).sum()
    }

    /// Higher is more selective: long literals, few of them, not on `tool`.
    fn score(&self) -> f64 {
        let part = |field: &Field, lits: &[String]| {
            let min_len = lits.iter().map(String::len).min().unwrap_or(0) as f64;
            let weight = match field {
                Field::Tool | Field::Event => 0.25,
                // Exact program names and path ancestors are very selective.
                Field::ShellPrograms | Field::PathIn(_) => 2.0,
                _ => 1.0,
            };
            weight * min_len.min(12.0)
        };
        let worst = self
            .parts
            .iter()
            .map(|(f, l)| part(f, l))
            .fold(f64::INFINITY, f64::min);
        worst - 0.05 * self.lit_count() as f64
    }

    /// Add `other`'s literals (an `or`).
    fn union(&mut self, other: Requirement) {
        for (field, lits) in other.parts {
            match self.parts.iter_mut().find(|(f, _)| *f == field) {
                Some((_, mine)) => {
                    for l in lits {
                        if !mine.contains(&l) {
                            mine.push(l);
                        }
                    }
                }
                None => self.parts.push((field, lits)),
            }
        }
    }
}

const MAX_LITS: usize = 64;

impl IndexPlan {
    /// The plan of `hook`'s prefilter: each rule's [`requirement`], gathered by field.
    pub(crate) fn new(set: &MatcherSet, hook: Hook) -> IndexPlan {
        let words = set.rules.len().div_ceil(64);
        let mut base = vec![0u64; words];
        let mut unfiltered = Vec::new();
        let mut by_field: HashMap<Field, FieldLiterals> = HashMap::default();
        let mut order: Vec<Field> = Vec::new();
        let mut exact: HashMap<String, Vec<u32>> = HashMap::default();
        let mut prefixes: Vec<(String, Vec<u32>)> = Vec::new();
        let mut under: Vec<(Field, HashMap<String, Vec<u32>>)> = Vec::new();
        let admit = |list: &mut Vec<u32>, i: usize| {
            if list.last() != Some(&(i as u32)) {
                list.push(i as u32);
            }
        };
        for (i, rule) in set.rules.iter().enumerate() {
            if rule.hooks & hook.bit() == 0 || matches!(rule.action, CAction::Redact) {
                continue;
            }
            match requirement(set, &rule.when) {
                Some(req) => {
                    for (field, lits) in &req.parts {
                        if *field == Field::ShellPrograms {
                            for name in lits {
                                let list = match name.strip_suffix('*') {
                                    Some(p) => match prefixes.iter().position(|(q, _)| q == p) {
                                        Some(at) => &mut prefixes[at].1,
                                        None => {
                                            prefixes.push((p.to_string(), Vec::new()));
                                            &mut prefixes.last_mut().expect("just pushed").1
                                        }
                                    },
                                    None => exact.entry(name.clone()).or_default(),
                                };
                                admit(list, i);
                            }
                            continue;
                        }
                        if let Field::PathIn(inner) = field {
                            let at = match under.iter().position(|(f, _)| f == &**inner) {
                                Some(at) => at,
                                None => {
                                    under.push(((**inner).clone(), HashMap::default()));
                                    under.len() - 1
                                }
                            };
                            for dir in lits {
                                admit(under[at].1.entry(dir.clone()).or_default(), i);
                            }
                            continue;
                        }
                        let entry = by_field.entry(field.clone()).or_insert_with(|| {
                            order.push(field.clone());
                            Default::default()
                        });
                        for lit in lits {
                            let id = *entry.1.entry(lit.clone()).or_insert_with(|| {
                                entry.0.push(lit.clone());
                                entry.2.push(Vec::new());
                                entry.0.len() - 1
                            });
                            admit(&mut entry.2[id], i);
                        }
                    }
                }
                None => {
                    base[i / 64] |= 1 << (i % 64);
                    unfiltered.push(i as u32);
                }
            }
        }
        let fields = order
            .into_iter()
            .map(|field| {
                let (literals, _, targets) = by_field.remove(&field).expect("field entry");
                (field, literals, targets)
            })
            .collect();
        let sorted = |m: HashMap<String, Vec<u32>>| {
            let mut v: Vec<_> = m.into_iter().collect();
            v.sort_unstable_by(|a, b| a.0.cmp(&b.0));
            v
        };
        IndexPlan {
            base,
            unfiltered,
            fields,
            under: under.into_iter().map(|(f, m)| (f, sorted(m))).collect(),
            programs: ProgramFilter {
                exact: sorted(exact),
                prefixes,
            },
        }
    }
}

impl HookIndex {
    /// `hook`'s prefilter over `set`'s rules.
    pub(crate) fn build(set: &MatcherSet, hook: Hook) -> HookIndex {
        HookIndex::from_plan(set, IndexPlan::new(set, hook))
    }

    /// The prefilter `plan` describes (from [`IndexPlan::new`] or a snapshot).
    pub(crate) fn from_plan(set: &MatcherSet, plan: IndexPlan) -> HookIndex {
        let filters = plan
            .fields
            .into_iter()
            .map(|(field, literals, targets)| {
                // A DFA searches fastest but takes longest to build: worth it for a
                // long-lived matcher set, not for a hook process that sees one event
                // (there the cheapest automaton to build wins: fields are short).
                let kind = match (set.lazy, literals.len() <= 400) {
                    (false, true) => AhoCorasickKind::DFA,
                    (false, false) => AhoCorasickKind::ContiguousNFA,
                    (true, _) => AhoCorasickKind::NoncontiguousNFA,
                };
                let filter = FieldFilter {
                    field,
                    automaton: std::sync::OnceLock::new(),
                    kind,
                    literals,
                    targets,
                };
                if !set.lazy {
                    filter.automaton();
                }
                filter
            })
            .collect();
        let under = plan
            .under
            .into_iter()
            .map(|(field, dirs)| {
                let mut map: HashMap<String, Vec<u32>> = HashMap::default();
                map.reserve(dirs.len());
                for (dir, rules) in dirs {
                    // two directories can become one when a snapshot is rehomed
                    map.entry(dir).or_default().extend(rules);
                }
                (field, map)
            })
            .collect();
        let (regex_groups, atom_group) = group_regexes(set, &plan.unfiltered);
        HookIndex {
            regex_groups,
            atom_group,
            under,
            programs: plan.programs,
            base: plan.base,
            unfiltered: plan.unfiltered,
            filters,
        }
    }
}

/// Group the ASCII-mode regex atoms of the unfiltered rules by field (two
/// or more per field make a group worth a `RegexSet`).
/// `atom_group` entry of an atom in no group.
pub(crate) const NO_GROUP: (u32, u32) = (u32::MAX, u32::MAX);

fn group_regexes(set: &MatcherSet, unfiltered: &[u32]) -> (Vec<RegexGroup>, Vec<(u32, u32)>) {
    let mut by_field: Vec<(Field, Vec<(u32, String)>)> = Vec::new();
    for &r in unfiltered {
        let mut atoms = Vec::new();
        super::collect_atoms(&set.rules[r as usize].when, &mut atoms);
        for a in atoms {
            let atom = &set.atoms[a as usize];
            let CTest::Matches(re) = atom.test() else {
                continue;
            };
            if crate::syntax::regex_needs_unicode(&re.source) {
                continue;
            }
            match by_field.iter_mut().find(|(f, _)| *f == atom.field) {
                Some((_, v)) => v.push((a, re.source.clone())),
                None => by_field.push((atom.field.clone(), vec![(a, re.source.clone())])),
            }
        }
    }
    let mut groups = Vec::new();
    let mut map = vec![NO_GROUP; set.atoms.len()];
    for (field, members) in by_field.into_iter().filter(|(_, m)| m.len() >= 2) {
        let g = groups.len() as u32;
        for (i, (a, _)) in members.iter().enumerate() {
            map[*a as usize] = (g, i as u32);
        }
        groups.push(RegexGroup {
            field,
            sources: members.into_iter().map(|(_, s)| s).collect(),
            set: Default::default(),
        });
    }
    (groups, map)
}

/// The requirement of a condition, if it has one.
pub(crate) fn requirement(set: &MatcherSet, node: &Node) -> Option<Requirement> {
    match node {
        Node::Const(_) | Node::Not(_) => None,
        Node::Atom(a) => {
            let atom = &set.atoms[*a as usize];
            if let CTest::Under(targets) = atom.test() {
                // Literal absolute targets: index the normalised path by its ancestors.
                let abs: Option<Vec<String>> = targets
                    .iter()
                    .map(|t| match t {
                        // a `*` component (`/home/*/.ssh`): index by the literal ancestor
                        UnderPath::Abs(p) if p.starts_with('/') => Some(match p.find('*') {
                            Some(k) => match p[..k].rfind('/') {
                                Some(0) | None => "/".to_string(),
                                Some(j) => p[..j].to_string(),
                            },
                            None => p.clone(),
                        }),
                        _ => None,
                    })
                    .collect();
                return abs.map(|lits| {
                    Requirement::one(Field::PathIn(Box::new(atom.field.clone())), lits)
                });
            }
            atom_requirement(&atom.field, &atom.source)
        }
        Node::And(children) => {
            children
                .iter()
                .filter_map(|c| requirement(set, c))
                .max_by(|a, b| {
                    a.score()
                        .partial_cmp(&b.score())
                        .unwrap_or(std::cmp::Ordering::Equal)
                })
        }
        Node::Or(children) => {
            let mut acc: Option<Requirement> = None;
            for c in children.iter() {
                let r = requirement(set, c)?;
                match &mut acc {
                    None => acc = Some(r),
                    Some(a) => a.union(r),
                }
            }
            acc.filter(|a| a.lit_count() <= MAX_LITS)
        }
    }
}

fn atom_requirement(field: &Field, test: &Test) -> Option<Requirement> {
    let lits: Vec<String> = match test {
        Test::Eq {
            value: Scalar::Str(s),
            nocase,
        } => vec![fold(s, *nocase)?],
        Test::In { values, nocase } => values
            .iter()
            .map(|v| match v {
                Scalar::Str(s) => fold(s, *nocase),
                _ => None,
            })
            .collect::<Option<Vec<_>>>()?,
        Test::Contains { needles, nocase }
        | Test::StartsWith { needles, nocase }
        | Test::EndsWith { needles, nocase } => needles
            .iter()
            .map(|s| fold(s, *nocase))
            .collect::<Option<Vec<_>>>()?,
        Test::Matches { regex } => regex_literals(regex)?,
        Test::Shell(st) => return shell_requirement(field, st),
        _ => return None,
    };
    if lits.is_empty() || lits.iter().any(String::is_empty) || lits.len() > MAX_LITS {
        return None;
    }
    Some(Requirement::one(field.clone(), lits))
}

/// Shell predicates filter on the program names of the parsed command line
/// (never on its raw text: `r''m` must still reach an `rm` rule), except a
/// write redirection, which always shows a literal `>` in the text.
fn shell_requirement(field: &Field, st: &ShellTest) -> Option<Requirement> {
    let programs = match st {
        ShellTest::Command { programs, .. } => programs,
        ShellTest::Pipe { from, .. } => from,
        ShellTest::RedirectUnder(_) | ShellTest::RedirectGlob(_) => {
            // a `>` in the text, or a program that writes files named in its
            // arguments (see `shell::RedirOp::Channel`)
            return Some(Requirement {
                parts: vec![
                    (field.clone(), vec![">".into()]),
                    (
                        Field::ShellPrograms,
                        crate::shell::WRITE_CHANNEL_PROGRAMS
                            .iter()
                            .map(|p| p.to_string())
                            .collect(),
                    ),
                ],
            });
        }
        ShellTest::Unknown => return None,
    };
    let lits: Vec<String> = programs.iter().map(|p| p.to_ascii_lowercase()).collect();
    (!lits.is_empty()
        && lits.iter().all(|l| !l.trim_end_matches('*').is_empty())
        && lits.len() <= MAX_LITS)
        .then(|| Requirement::one(Field::ShellPrograms, lits))
}

/// Literal for the case-insensitive automaton. Non-ASCII `nocase` literals
/// have Unicode case variants the ASCII-folding automaton would miss.
fn fold(s: &str, nocase: bool) -> Option<String> {
    if nocase && !s.is_ascii() {
        return None;
    }
    Some(s.to_string())
}

/// Literals one of which every match of `regex` must contain: its prefix set
/// if finite and non-empty, else its suffix set.
pub fn regex_literals(regex: &str) -> Option<Vec<String>> {
    let hir = crate::syntax::parse_regex(regex).ok()?;
    let whole = [(ExtractKind::Prefix, true), (ExtractKind::Suffix, false)]
        .into_iter()
        .find_map(|(kind, is_prefix)| extract(&hir, kind, is_prefix));
    // A weak prefix (`-`, `s`) may hide a strong literal inside the regex:
    // every match contains a match of each part of a concatenation.
    match whole {
        Some(l) if min_len(&l) >= 3 => Some(l),
        other => inner_literals(&hir)
            .filter(|i| min_len(i) > other.as_ref().map_or(0, |o| min_len(o)))
            .or(other),
    }
}

fn min_len(lits: &[String]) -> usize {
    lits.iter().map(String::len).min().unwrap_or(0)
}

/// Literals one of which every match of `hir` must start (or end) with.
fn extract(
    hir: &regex_syntax::hir::Hir,
    kind: ExtractKind,
    is_prefix: bool,
) -> Option<Vec<String>> {
    // Case-insensitive regexes expand into case variants; the automaton
    // folds ASCII case anyway, so allow many and deduplicate below.
    let mut seq = Extractor::new().kind(kind).limit_total(4096).extract(hir);
    seq.minimize_by_preference();
    let lits = seq.literals()?;
    let mut out: Vec<String> = Vec::with_capacity(lits.len());
    for l in lits {
        match std::str::from_utf8(l.as_bytes()) {
            Ok(s) if !s.is_empty() => {
                let s = s.to_ascii_lowercase();
                if !out.contains(&s) {
                    out.push(s);
                }
            }
            _ => return None,
        }
    }
    if out.len() > 1 {
        // Any literal may be cut to a common prefix (suffix) and the
        // requirement still holds: `git\t`, `git\n`, `git ` → `git`.
        let common = common_affix(&out, is_prefix);
        if common.len() >= 3 {
            out = vec![common];
        }
    }
    (!out.is_empty() && out.len() <= MAX_LITS).then_some(out)
}

/// The best literal set required by some run of a concatenation's parts
/// (recursing through groups and repetitions of at least one).
fn inner_literals(hir: &regex_syntax::hir::Hir) -> Option<Vec<String>> {
    use regex_syntax::hir::{Hir, HirKind};
    match hir.kind() {
        HirKind::Capture(c) => inner_literals(&c.sub),
        HirKind::Repetition(r) if r.min >= 1 => inner_literals(&r.sub),
        HirKind::Concat(parts) => {
            let mut best: Option<Vec<String>> = None;
            let mut consider = |cand: Option<Vec<String>>| {
                if let Some(c) = cand {
                    if best.as_ref().is_none_or(|b| min_len(&c) > min_len(b)) {
                        best = Some(c);
                    }
                }
            };
            // Runs of adjacent parts (bounded: a concatenation rarely has more than a few dozen).
            let n = parts.len().min(48);
            for i in 0..n {
                for j in (i + 1)..=n.min(i + 16) {
                    let run = Hir::concat(parts[i..j].to_vec());
                    consider(
                        extract(&run, ExtractKind::Prefix, true)
                            .filter(|l| l.iter().all(|s| s.len() >= 3)),
                    );
                }
                consider(inner_literals(&parts[i]));
            }
            best
        }
        _ => None,
    }
}

/// The longest common prefix (or suffix) of `lits`, on a char boundary.
fn common_affix(lits: &[String], prefix: bool) -> String {
    let first = &lits[0];
    let mut n = first.len();
    for l in &lits[1..] {
        let common = if prefix {
            first
                .bytes()
                .zip(l.bytes())
                .take_while(|(a, b)| a == b)
                .count()
        } else {
            first
                .bytes()
                .rev()
                .zip(l.bytes().rev())
                .take_while(|(a, b)| a == b)
                .count()
        };
        n = n.min(common);
    }
    if prefix {
        while !first.is_char_boundary(n) {
            n -= 1;
        }
        first[..n].to_string()
    } else {
        let mut start = first.len() - n;
        while !first.is_char_boundary(start) {
            start += 1;
        }
        first[start..].to_string()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn regex_literal_extraction() {
        assert_eq!(
            regex_literals(r"\bgit\s+push"),
            Some(vec!["git".to_string()])
        );
        let mut l = regex_literals(r"(?i)drop\s+(table|database)").unwrap();
        l.sort();
        assert_eq!(l, ["drop"]);
        assert_eq!(regex_literals(r".*"), None);
        assert_eq!(
            regex_literals(r#"(?:^|[;&|(]\s*|\s)HIST(?:FILE|SIZE)=(?:/dev/null|0)?"#),
            Some(vec!["file=".to_string(), "size=".to_string()])
        );
        assert_eq!(
            regex_literals(r"\w+@example\.com"),
            Some(vec!["@example.com".to_string()])
        );
    }
}

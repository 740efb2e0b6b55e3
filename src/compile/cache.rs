//! The compiled-policy cache: a per-hook snapshot of the checked policy, so
//! a hook process that evaluates one event skips parsing and checking (and
//! the prefilter's regex literal extraction) entirely.
//!
//! * Keyed by a hash of the warden version and every source (path and
//!   text); a changed policy or a new warden gets a new key.
//! * One file per key and hook: `<dir>/<key>-<hook>.snapshot`, a header line
//!   (magic, version, key, hook, checksum of the body) and a postcard body
//!   (compact binary serde; several times faster to read than JSON). In the
//!   body every rule is encoded on its own, beside the hook's prefilter plan
//!   (`prefilter::IndexPlan`): a hook builds the prefilter from the plan, runs it over
//!   its one event and decodes only the rules it admits (see
//!   `compile::compile_for_event`).
//! * Only the gating hooks (pre_tool_call, pre_llm_call) are cached: their
//!   rules hold no redaction options, which the binary form cannot carry.
//! * Written atomically (temp file in the same directory, then rename).
//! * Verified on load: a header or checksum mismatch, or a body that does
//!   not parse, is treated as a miss and rebuilt — never trusted.
//! * Only policies that loaded without error are cached.
//!
//! The checksum detects corruption, not tampering; `runtime::cached::decide` also
//! checks that a snapshot holds exactly the rule ids and exemptions of its sources.
//! The shipped packs never use this cache: their snapshot is compiled ahead of time and
//! embedded in the binary ([`Embedded`], `policies/builtin.snapshot`).

use super::fnv::fnv1a;
use super::prefilter::IndexPlan;
use crate::check::ir::{CheckedPolicy, Exemption, Rule};
use crate::event::Hook;
use serde::{Deserialize, Serialize};
use std::io::Write;
use std::path::{Path, PathBuf};

/// The snapshot format (files and the embedded snapshot).
pub(crate) const MAGIC: &str = "warden-snapshot-v6";

/// Hooks whose snapshots are cached.
pub const CACHED_HOOKS: [Hook; 2] = [Hook::PreToolCall, Hook::PreLlmCall];

/// The cache key of a set of sources compiled with `opts`: every input the snapshot
/// depends on. That is the warden version (the snapshot's format and the checker's
/// meaning), each source's path and text, and the home directory, which `~` and `$HOME`
/// in `under` targets are expanded to when the prefilter plan is computed.
/// Nothing else is expanded at compile time: the event's `cwd` and every other path are
/// resolved per event, `opts.lazy` only defers work, and today's date (exemption expiry)
/// is verified against the sources on every hit instead (see [`Snapshot::holds`]).
pub fn key<'a>(
    sources: impl IntoIterator<Item = (&'a Path, &'a str)>,
    opts: &super::CompileOptions,
) -> u64 {
    let home = opts.home.as_deref().unwrap_or("");
    let mut parts: Vec<&[u8]> = vec![
        env!("CARGO_PKG_VERSION").as_bytes(),
        b"home",
        home.as_bytes(),
    ];
    let sources: Vec<(&Path, &str)> = sources.into_iter().collect();
    for (p, t) in &sources {
        parts.push(p.as_os_str().as_encoded_bytes());
        parts.push(t.as_bytes());
    }
    fnv1a(&parts)
}

/// The default cache directory: `$WARDEN_CACHE_DIR`, else
/// `$XDG_CACHE_HOME/warden`, else `$HOME/.cache/warden`.
pub fn default_dir() -> Option<PathBuf> {
    let env = |k: &str| {
        std::env::var_os(k)
            .filter(|v| !v.is_empty())
            .map(PathBuf::from)
    };
    env("WARDEN_CACHE_DIR")
        .or_else(|| env("XDG_CACHE_HOME").map(|d| d.join("warden")))
        .or_else(|| env("HOME").map(|h| h.join(".cache").join("warden")))
}

/// For each regex a rule tests, the literals one of which every match contains
/// (ASCII-lowercase; regexes with none are absent): the hook skips building a regex whose
/// needles a short text lacks (see `compile::LazyRegex::is_match`). Stored with the rule,
/// so a hook decodes only the needles of the rules its event admits.
pub(crate) type Needles = Vec<(String, Vec<String>)>;

/// What a snapshot holds: one hook's rules, each postcard-encoded on its own with its
/// [`Needles`] (borrowed from the body), their prefilter plan, and the exemptions.
#[derive(Serialize, Deserialize)]
pub(crate) struct Snapshot<'a> {
    /// The rules' ids, index for index (checked against the sources on every hit). Kept as
    /// the body's bytes: they are only compared, so a hook need not copy or validate them.
    #[serde(borrow)]
    pub(crate) ids: Vec<&'a [u8]>,
    /// The hook's prefilter over these rules.
    pub(crate) index: IndexPlan,
    #[serde(borrow)]
    pub(crate) rules: Vec<&'a [u8]>,
    pub(crate) exemptions: Vec<Exemption>,
}

impl Snapshot<'_> {
    /// Decode rule `i` and the needles of its regexes (`None`: out of range, corrupt, or
    /// not the rule its id says, which callers treat as a miss).
    pub(crate) fn rule(&self, i: usize) -> Option<(Rule, Needles)> {
        let (r, needles): (Rule, Needles) = postcard::from_bytes(self.rules.get(i)?).ok()?;
        (self.ids.get(i).copied() == Some(r.id.as_bytes())).then_some((r, needles))
    }

    /// True if the snapshot holds exactly what the sources define for its hook: the same
    /// rule ids in the same order (so none is missing, added or renamed), and the same live
    /// exemptions, in order. The checksum in the header only catches corruption; this is
    /// what makes a hand-made snapshot (an empty one, say) a miss.
    pub fn holds(&self, expected: &Expected) -> bool {
        if !self
            .ids
            .iter()
            .copied()
            .eq(expected.ids.iter().map(String::as_bytes))
        {
            return false;
        }
        let want = expected.exempts.iter().filter_map(|written| {
            let (pattern, is_prefix) = match written.as_str() {
                "*" => ("", true),
                p => match p.strip_suffix('*') {
                    Some(prefix) => (prefix, true),
                    None => (p, false),
                },
            };
            let covers = |id: &String| {
                if is_prefix {
                    id.starts_with(pattern)
                } else {
                    id == pattern
                }
            };
            expected
                .ids
                .iter()
                .any(covers)
                .then_some((pattern, is_prefix))
        });
        want.eq(self
            .exemptions
            .iter()
            .map(|e| (e.pattern.as_str(), e.is_prefix)))
    }
}

/// What the sources define for one hook, read from their parse: the rules that run on it
/// (ids, in order) and the exemptions live today (as written: `id`, `prefix.*` or `*`).
#[derive(Debug, Default)]
pub struct Expected {
    /// Ids of the rules whose `on` names the hook, in load order.
    pub ids: Vec<String>,
    /// Exemption patterns not expired, in load order.
    pub exempts: Vec<String>,
}

/// The home directory the shipped packs' embedded snapshot is compiled for: an absolute
/// path no real home is. `~` reaches the compiled form only in the prefilter plan's path
/// literals, so the snapshot is the same for every user and [`rehome`] puts the running
/// user's home in place of this one.
pub(crate) const SENTINEL_HOME: &str = "/\u{1}home\u{1}";

/// Put `home` in place of [`SENTINEL_HOME`] in a prefilter plan compiled for it. The rules
/// of a literal that cannot be resolved (no home, or a home `~` does not expand under) run
/// on every event instead (slower, never weaker).
pub(crate) fn rehome(plan: &mut IndexPlan, home: Option<&str>) {
    // false if `lit` names the sentinel home and cannot be given the real one
    let resolve = |lit: &mut String| -> bool {
        let Some(rest) = lit.strip_prefix(SENTINEL_HOME) else {
            return true;
        };
        let expanded = format!("~{rest}");
        match home.and_then(|h| crate::paths::normalize(&expanded, None, Some(h))) {
            Some(p) => {
                *lit = p;
                true
            }
            None => false,
        }
    };
    let mut lost = Vec::new();
    for (_, lits, targets) in &mut plan.fields {
        for (lit, rules) in lits.iter_mut().zip(targets.iter()) {
            if !resolve(lit) {
                lost.extend_from_slice(rules);
            }
        }
    }
    let programs = &mut plan.programs;
    let lists = plan.under.iter_mut().flat_map(|(_, dirs)| dirs.iter_mut());
    for (lit, rules) in lists
        .chain(programs.exact.iter_mut())
        .chain(programs.prefixes.iter_mut())
    {
        if !resolve(lit) {
            lost.extend_from_slice(rules);
        }
    }
    // program names are looked up by binary search: sorted, and a name the home made equal
    // to another one takes its rules along
    programs.exact.sort_by(|a, b| a.0.cmp(&b.0));
    programs.exact.dedup_by(|later, kept| {
        let same = later.0 == kept.0;
        if same {
            kept.1.append(&mut later.1);
        }
        same
    });
    for r in lost {
        plan.unfilter(r);
    }
}

/// The shipped packs compiled ahead of time (`policies/builtin.snapshot`, embedded in the
/// binary): the snapshot body of each cached hook's part, compiled for [`SENTINEL_HOME`],
/// with what it was compiled from. The hook decides the shipped packs from this alone,
/// so nothing on disk (which the agent might write) takes part in their decisions.
#[derive(Serialize, Deserialize, PartialEq, Debug)]
pub(crate) struct Embedded<'a> {
    /// [`MAGIC`] of the snapshot format.
    pub(crate) magic: String,
    /// The warden version that compiled it.
    pub(crate) version: String,
    /// The packs' digest (`BUILTIN_DIGEST`) and the snapshot schema's (`SNAPSHOT_SCHEMA`).
    pub(crate) digests: (u64, u64),
    /// `(hook name, snapshot body)` for each cached hook whose part can be stored.
    #[serde(borrow)]
    pub(crate) parts: Vec<(String, &'a [u8])>,
}

impl<'a> Embedded<'a> {
    /// Parse embedded bytes; `None` unless they were compiled by this version from these
    /// packs with this schema (a stale file: the caller compiles the packs instead).
    pub(crate) fn current(bytes: &'a [u8], digests: (u64, u64)) -> Option<Embedded<'a>> {
        let e: Embedded = postcard::from_bytes(bytes).ok()?;
        (e.magic == MAGIC && e.version == env!("CARGO_PKG_VERSION") && e.digests == digests)
            .then_some(e)
    }

    /// The body for `hook`, if its part is embedded.
    pub(crate) fn part(&self, hook: Hook) -> Option<&'a [u8]> {
        self.parts
            .iter()
            .find(|(h, _)| h == hook.name())
            .map(|(_, b)| *b)
    }
}

/// The snapshot body of a hook's policy part and its prefilter plan.
pub(crate) fn encode(part: &CheckedPolicy, index: IndexPlan) -> Result<Vec<u8>, postcard::Error> {
    let rules = part
        .rules
        .iter()
        .map(|r| {
            let mut regexes = Vec::new();
            regexes_of(&r.when, &mut regexes);
            if let Some(u) = &r.unless {
                regexes_of(u, &mut regexes);
            }
            regexes.sort();
            regexes.dedup();
            let needles: Needles = regexes
                .into_iter()
                .filter_map(|re| {
                    let lits = super::prefilter::regex_literals(&re)?;
                    Some((re, lits))
                })
                .collect();
            postcard::to_stdvec(&(r, needles))
        })
        .collect::<Result<Vec<_>, _>>()?;
    postcard::to_stdvec(&Snapshot {
        ids: part.rules.iter().map(|r| r.id.as_bytes()).collect(),
        index,
        rules: rules.iter().map(Vec::as_slice).collect(),
        exemptions: part.exemptions.clone(),
    })
}

/// The sources of the regexes a condition tests (`matches`, also inside `command … with
/// arg matches`).
fn regexes_of(e: &crate::check::ir::Expr, out: &mut Vec<String>) {
    use crate::check::ir::{Qual, ShellTest, Test};
    fn test(t: &Test, out: &mut Vec<String>) {
        match t {
            Test::Matches { regex } => out.push(regex.clone()),
            Test::Shell(ShellTest::Command { quals, .. }) => {
                for q in quals {
                    if let Qual::Arg(t) | Qual::ArgPath(t) = q {
                        test(t, out);
                    }
                }
            }
            _ => {}
        }
    }
    e.for_each_atom(&mut |a| test(&a.test, out));
}

/// Read a snapshot body (`load`'s output); `None` if it does not parse.
pub(crate) fn decode(body: &[u8]) -> Option<Snapshot<'_>> {
    let snap: Snapshot = postcard::from_bytes(body).ok()?;
    (snap.ids.len() == snap.rules.len() && snap.index.fits(snap.rules.len())).then_some(snap)
}

fn file_name(key: u64, hook: Hook) -> String {
    format!("{key:016x}-{}.snapshot", hook.name())
}

fn header(key: u64, hook: Hook, checksum: u64) -> String {
    format!(
        "{MAGIC} {} {key:016x} {} {checksum:016x}\n",
        env!("CARGO_PKG_VERSION"),
        hook.name()
    )
}

/// A snapshot file read whole; [`Body::bytes`] is the part after the header.
pub(crate) struct Body {
    data: Vec<u8>,
    start: usize,
}

impl Body {
    /// The verified body.
    pub(crate) fn bytes(&self) -> &[u8] {
        &self.data[self.start..]
    }
}

/// The verified body of a snapshot, if a valid one exists.
pub(crate) fn load(dir: &Path, key: u64, hook: Hook) -> Option<Body> {
    let data = std::fs::read(dir.join(file_name(key, hook))).ok()?;
    let nl = data.iter().position(|&b| b == b'\n')?;
    let (head, body) = (&data[..=nl], &data[nl + 1..]);
    if head != header(key, hook, fnv1a(&[body])).as_bytes() {
        return None;
    }
    Some(Body {
        data,
        start: nl + 1,
    })
}

/// Store a snapshot body atomically. Errors are the caller's to ignore: a
/// cache that cannot be written only costs speed.
pub(crate) fn store(dir: &Path, key: u64, hook: Hook, body: &[u8]) -> std::io::Result<()> {
    std::fs::create_dir_all(dir)?;
    let name = file_name(key, hook);
    let tmp = dir.join(format!(".{name}.{}.tmp", std::process::id()));
    let mut f = std::fs::File::create(&tmp)?;
    f.write_all(header(key, hook, fnv1a(&[body])).as_bytes())?;
    f.write_all(body)?;
    f.sync_all().ok();
    drop(f);
    std::fs::rename(&tmp, dir.join(name)).inspect_err(|_| {
        let _ = std::fs::remove_file(&tmp);
    })?;
    prune(dir, KEEP);
    Ok(())
}

/// Snapshots kept per cache directory; older ones (stale policy versions) are removed.
const KEEP: usize = 32;

/// Remove all but the `keep` most recently written snapshots.
fn prune(dir: &Path, keep: usize) {
    let Ok(rd) = std::fs::read_dir(dir) else {
        return;
    };
    let mut snaps: Vec<(std::time::SystemTime, PathBuf)> = rd
        .flatten()
        .filter(|e| e.file_name().to_string_lossy().ends_with(".snapshot"))
        .filter_map(|e| Some((e.metadata().ok()?.modified().ok()?, e.path())))
        .collect();
    if snaps.len() <= keep {
        return;
    }
    snaps.sort();
    for (_, p) in &snaps[..snaps.len() - keep] {
        let _ = std::fs::remove_file(p);
    }
}

/// The part of a checked policy one hook needs: its rules (decision rules,
/// and redaction rules for transforms), the redaction rules its `detects`
/// tests name, and the exemptions that cover them.
pub(crate) fn for_hook(policy: &CheckedPolicy, hook: Hook) -> CheckedPolicy {
    let mut patterns = Vec::new();
    for r in policy.rules.iter().filter(|r| r.hooks.contains(&hook)) {
        detects_patterns(&r.when, &mut patterns);
        if let Some(u) = &r.unless {
            detects_patterns(u, &mut patterns);
        }
    }
    let rules: Vec<_> = policy
        .rules
        .iter()
        .filter(|r| {
            r.hooks.contains(&hook)
                || (matches!(r.action, crate::check::ir::Action::Redact(_))
                    && patterns.iter().any(|p| super::id_matches(p, &r.id)))
        })
        .cloned()
        .collect();
    let exemptions = policy
        .exemptions
        .iter()
        .filter(|e| rules.iter().any(|r| e.covers(&r.id)))
        .cloned()
        .collect();
    CheckedPolicy {
        rules,
        exemptions,
        packs: policy.packs.clone(),
    }
}

/// The rule-id patterns of every `detects` test in a condition.
fn detects_patterns(e: &crate::check::ir::Expr, out: &mut Vec<String>) {
    e.for_each_atom(&mut |a| {
        if let crate::check::ir::Test::Detects { patterns } = &a.test {
            out.extend(patterns.iter().cloned());
        }
    });
}

/// True if a snapshot can be stored: the binary form cannot carry
/// redaction options (their YAML-friendly optional fields), so a part that
/// holds redaction rules (a `detects` test's detectors) is not cached.
pub(crate) fn cacheable(part: &CheckedPolicy) -> bool {
    !part
        .rules
        .iter()
        .any(|r| matches!(r.action, crate::check::ir::Action::Redact(_)))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn corrupt_or_stale_snapshots_are_misses() {
        let dir = tempfile::tempdir().unwrap();
        let snap = encode(&CheckedPolicy::default(), IndexPlan::default()).unwrap();
        store(dir.path(), 7, Hook::PreToolCall, &snap).unwrap();
        assert!(load(dir.path(), 7, Hook::PreToolCall).is_some());
        assert!(load(dir.path(), 8, Hook::PreToolCall).is_none());
        assert!(load(dir.path(), 7, Hook::PreLlmCall).is_none());
        let path = dir.path().join(file_name(7, Hook::PreToolCall));
        let mut data = std::fs::read(&path).unwrap();
        let last = data.len() - 2;
        data[last] ^= 1;
        std::fs::write(&path, &data).unwrap();
        assert!(
            load(dir.path(), 7, Hook::PreToolCall).is_none(),
            "a flipped byte must not load"
        );
        std::fs::write(&path, b"garbage").unwrap();
        assert!(load(dir.path(), 7, Hook::PreToolCall).is_none());
    }

    #[test]
    fn shipped_snapshots_round_trip() {
        let p = crate::Policy::builtin().unwrap();
        // The shipped pre_tool_call part is cached; the pre_llm_call part carries the
        // detectors of the inbound pack's `detects` tests, so it is not.
        assert!(cacheable(&for_hook(&p.checked, Hook::PreToolCall)));
        let llm = for_hook(&p.checked, Hook::PreLlmCall);
        assert!(!cacheable(&llm) && llm.rules.iter().any(|r| r.id.starts_with("secret.")));
        for hook in CACHED_HOOKS {
            let part = for_hook(&p.checked, hook);
            if !cacheable(&part) {
                continue;
            }
            let bytes = encode(&part, IndexPlan::unfiltered(part.rules.len())).unwrap();
            let back = decode(&bytes).unwrap();
            assert_eq!(back.rules.len(), part.rules.len());
            assert!(back.rule(part.rules.len()).is_none());
            for (i, b) in part.rules.iter().enumerate() {
                let (a, _) = back.rule(i).unwrap();
                assert_eq!(
                    (&a.id, &a.when, &a.unless, &a.action, &a.hooks),
                    (&b.id, &b.when, &b.unless, &b.action, &b.hooks)
                );
                assert_eq!(a.origin.location(), b.origin.location());
            }
        }
    }

    #[test]
    fn old_snapshots_are_pruned() {
        let dir = tempfile::tempdir().unwrap();
        let snap = encode(&CheckedPolicy::default(), IndexPlan::default()).unwrap();
        for k in 0..(KEEP as u64 + 5) {
            store(dir.path(), k, Hook::PreToolCall, &snap).unwrap();
        }
        let n = std::fs::read_dir(dir.path()).unwrap().count();
        assert_eq!(n, KEEP);
    }

    #[test]
    fn keys_separate_parts() {
        assert_ne!(fnv1a(&[b"ab", b"c"]), fnv1a(&[b"a", b"bc"]));
        let o = crate::CompileOptions::default();
        assert_ne!(
            key([(Path::new("a"), "x")], &o),
            key([(Path::new("a"), "y")], &o)
        );
    }
}

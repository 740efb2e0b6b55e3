//! The per-call policy path of `warden hook`: the compiled-policy cache.
//!
//! A hook process decides one event and exits, so it must not parse, check
//! and compile the whole policy each time: the first call compiles the part of
//! the policy for its hook and stores a snapshot; later calls decode and
//! compile only the rules the prefilter admits for their event.

use crate::compile::{self, CompileError, CompileOptions};
use crate::policy::{self, LoadError, Policy, Source};
use crate::{Event, MatcherSet, Verdict};
use std::path::Path;

/// A verdict with what the audit log needs from the set that decided it.
#[derive(Debug)]
pub struct Decision {
    /// The verdict.
    pub verdict: Verdict,
    /// The policy's cache key.
    pub key: u64,
    /// The deciding rule's message with placeholders instead of values.
    pub logged_message: Option<String>,
}

impl Decision {
    /// Evaluate `event` on `set`.
    pub(crate) fn of(set: &MatcherSet, event: &Event, key: u64) -> Decision {
        let verdict = set.evaluate(event);
        let logged_message = super::logged_message(set, &verdict, event);
        Decision {
            verdict,
            key,
            logged_message,
        }
    }
}

/// Decide one event the way `warden hook` does: through the compiled-policy cache
/// in `cache_dir` (none: no cache), keyed by every input the compiled form depends on
/// ([`compile::cache::key`]).
///
/// A snapshot is trusted only if it holds exactly the rules and exemptions the sources
/// define for this hook: the sources (the embedded packs, or the files) are scanned again
/// for their rule headers, `on` lines and exemptions (a line scan of the canonical
/// `warden fmt` layout, microseconds; other layouts and the YAML/JSON forms are parsed),
/// and the ids (count, order) and live exemptions must match; every rule decoded for the
/// event must carry the id its index names and run on the hook. A hand-made snapshot (an
/// empty rule set written by the agent into `~/.cache/warden`) is therefore a miss. On a
/// hit only the rules the prefilter admits for `event` are decoded and compiled; on a
/// miss or any mismatch the whole set is loaded (so every error is still reported and an
/// invalid policy is never cached) and the snapshot rewritten.
///
/// A gating event no rule of the set runs on is [`LoadError::NoRules`].
/// Returns the verdict, the policy's cache key and the message to log (see
/// [`super::logged_message`]).
pub fn decide(
    source: &Source,
    event: &Event,
    opts: &CompileOptions,
    cache_dir: Option<&Path>,
) -> Result<Decision, LoadError> {
    let hook = event.hook;
    // The shipped packs never touch the disk cache: they are decided from the snapshot
    // compiled into the binary, or compiled here if that is stale or lacks the hook.
    let builtin = matches!(source, Source::Builtin);
    if builtin {
        let key = policy::builtin_key(opts);
        if let Some(decided) = decide_embedded(EMBEDDED, event, opts, key) {
            return decided;
        }
    }
    let (sources, key) = source.read(opts)?;
    let cache_dir = cache_dir.filter(|_| !builtin && compile::cache::CACHED_HOOKS.contains(&hook));
    if let Some(dir) = cache_dir {
        let body = compile::cache::load(dir, key, hook);
        let snap = body
            .as_ref()
            .and_then(|b| compile::cache::decode(b.bytes()))
            .filter(|s| policy::expected_for(&sources, hook).is_some_and(|e| s.holds(&e)));
        if let Some(snap) = snap {
            if snap.ids.is_empty() {
                return Err(LoadError::NoRules { hook: hook.name() });
            }
            if let Some(set) = compile::compile_for_event(snap, event, opts) {
                return Ok(Decision::of(&set, event, key));
            }
        }
    }
    let policy = Policy::from_sources(sources)?;
    let part = compile::cache::for_hook(&policy.checked, hook);
    policy::require_rules(&part, hook)?;
    let set = compile::compile(&part, opts)?;
    // A regex the engine refuses (size limits) could only never match: an
    // error, so the hook fails closed, and such a policy is never cached.
    if let Some((id, origin, message)) = set.regex_failures().into_iter().next() {
        return Err(LoadError::Compile(CompileError {
            location: format!("{} (rule {id})", origin.location()),
            message,
        }));
    }
    if let Some(dir) = cache_dir.filter(|_| compile::cache::cacheable(&part)) {
        if let Ok(body) = compile::cache::encode(&part, set.index_plan(hook)) {
            let _ = compile::cache::store(dir, key, hook, &body);
        }
    }
    Ok(Decision::of(&set, event, key))
}

/// The shipped packs compiled ahead of time, for every home ([`compile::cache::Embedded`]):
/// `policies/builtin.snapshot`, written by the test `embedded_snapshot_is_current`
/// (`WARDEN_BLESS=1 cargo test --lib embedded_snapshot_is_current`), which fails while the
/// file differs from what the packs and this code compile to.
static EMBEDDED: &[u8] = include_bytes!(concat!(
    env!("CARGO_MANIFEST_DIR"),
    "/policies/builtin.snapshot"
));

/// Decide `event` on the shipped packs from `embedded` ([`EMBEDDED`]): the home put into the
/// prefilter's path literals, exemptions expired since it was compiled dropped, and only
/// the rules the prefilter admits decoded and compiled. `None` if the file is stale (other
/// packs, version or schema), lacks the event's hook or does not decode: the caller then
/// compiles the packs.
fn decide_embedded(
    embedded: &[u8],
    event: &Event,
    opts: &CompileOptions,
    key: u64,
) -> Option<Result<Decision, LoadError>> {
    let digests = (policy::BUILTIN_DIGEST, policy::SNAPSHOT_SCHEMA);
    let embedded = compile::cache::Embedded::current(embedded, digests)?;
    let mut snap = compile::cache::decode(embedded.part(event.hook)?)?;
    if snap.ids.is_empty() {
        return Some(Err(LoadError::NoRules {
            hook: event.hook.name(),
        }));
    }
    compile::cache::rehome(&mut snap.index, opts.home.as_deref());
    if snap.exemptions.iter().any(|e| e.until.is_some()) {
        let today = crate::date::today();
        snap.exemptions
            .retain(|e| e.until.as_deref().is_none_or(|u| u >= today.as_str()));
    }
    let set = compile::compile_for_event(snap, event, opts)?;
    Some(Ok(Decision::of(&set, event, key)))
}

/// The verdict and key of [`decide`] (the shape the tests were written for).
#[cfg(test)]
fn decide_for_hook(
    source: &Source,
    event: &Event,
    opts: &CompileOptions,
    cache_dir: Option<&Path>,
) -> Result<(Verdict, u64), LoadError> {
    decide(source, event, opts, cache_dir).map(|d| (d.verdict, d.key))
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::policy::BUILTIN_PACKS;
    use serde_json::json;
    use std::path::PathBuf;

    /// The cached hook path decodes and compiles only the rules the prefilter admits for
    /// its event, from a disk snapshot (policy files) or from the snapshot embedded in the
    /// binary (the shipped packs, compiled for a sentinel home); it must decide every event
    /// exactly as the whole policy does, for any home.
    #[test]
    fn cached_hook_decisions_equal_the_whole_policy() {
        let root = env!("CARGO_MANIFEST_DIR");
        // The shipped packs as policy files, which go through the disk cache.
        let packs = Source::Paths(
            BUILTIN_PACKS
                .iter()
                .map(|(n, _)| PathBuf::from(format!("{root}/policies/{n}")))
                .collect(),
        );
        let mut payloads = Vec::new();
        for f in ["commands.tsv", "commands-heldout.tsv"] {
            let text = std::fs::read_to_string(format!("{root}/tests/corpora/{f}")).unwrap();
            for line in text.lines().skip(1) {
                let command = line.splitn(3, '\t').nth(2).unwrap();
                payloads.push(json!({"tool_name": "terminal", "tool_input": {"command": command}}));
            }
        }
        for tool in ["write_file", "read_file", "patch"] {
            for path in [
                "/etc/passwd",
                "~/.ssh/id_rsa",
                "~/.bashrc",
                "/root/.aws/credentials",
                "/home/user/.ssh/authorized_keys",
                "/tmp/x",
                "src/main.rs",
                ".env",
                "/",
            ] {
                payloads
                    .push(json!({"tool_name": tool, "tool_input": {"path": path, "content": "x"}}));
            }
        }
        for home in ["/home/user", "/root"] {
            let opts = CompileOptions {
                lazy: true,
                home: Some(home.into()),
            };
            let whole = compile::compile(&Policy::builtin().unwrap().checked, &opts).unwrap();
            let dir = tempfile::tempdir().unwrap();
            let mut blocked = 0;
            for p in &payloads {
                let mut p = p.clone();
                p["hook_event_name"] = json!("pre_tool_call");
                p["cwd"] = json!(format!("{home}/project"));
                let event = crate::host::hermes::parse_event(&p).unwrap();
                let want = whole.evaluate(&event);
                // first call fills the cache (whole part), the second decides from it
                for _ in 0..2 {
                    let (got, _) =
                        decide_for_hook(&packs, &event, &opts, Some(dir.path())).unwrap();
                    assert_eq!(got, want, "{home}: {p}");
                }
                let embedded =
                    decide_embedded(EMBEDDED, &event, &opts, 0).expect("embedded is current");
                assert_eq!(embedded.unwrap().verdict, want, "embedded, {home}: {p}");
                blocked += usize::from(!matches!(want.decision, crate::Decision::Allow));
            }
            assert!(
                blocked > 200,
                "the corpus should exercise blocking rules: {blocked}"
            );
        }
    }

    /// The sentinel home is replaced by the user's in the prefilter's path literals (with
    /// `~` expanded as everywhere else: field literals, `under` directories, program names),
    /// and the rules of a literal that cannot be resolved run on every event instead of
    /// being kept behind an unsatisfiable literal.
    #[test]
    fn rehome_puts_the_home_into_path_literals() {
        use crate::event::Field;
        use compile::cache::{rehome, SENTINEL_HOME};
        use compile::prefilter::{IndexPlan, ProgramFilter};
        let sentinel = |rest: &str| format!("{SENTINEL_HOME}{rest}");
        let plan = || IndexPlan {
            base: vec![0],
            unfiltered: Vec::new(),
            fields: vec![(
                Field::Tool,
                vec![sentinel("/.ssh"), "/etc".into()],
                vec![vec![0], vec![1]],
            )],
            under: vec![(Field::Cwd, vec![(sentinel(""), vec![2])])],
            programs: ProgramFilter {
                exact: vec![
                    ("b".into(), vec![4]),
                    (sentinel("/bin/a"), vec![3]),
                    ("/home/u/bin/a".into(), vec![5]),
                ],
                prefixes: Vec::new(),
            },
        };
        let mut p = plan();
        rehome(&mut p, Some("/home/u/"));
        assert_eq!(p.fields[0].1, ["/home/u/.ssh", "/etc"]);
        assert_eq!(p.under[0].1, [("/home/u".to_string(), vec![2])]);
        // re-sorted for the binary search
        // a name that became another one's merges with it
        let names: Vec<_> = p.programs.exact.iter().map(|(n, _)| n.as_str()).collect();
        assert_eq!(names, ["/home/u/bin/a", "b"]);
        let mut merged = p.programs.exact[0].1.clone();
        merged.sort_unstable();
        assert_eq!(merged, [3, 5]);
        assert!(p.unfiltered.is_empty() && p.base == [0]);
        let mut p = plan();
        rehome(&mut p, None);
        assert_eq!(p.unfiltered, [0, 2, 3]);
        assert_eq!(p.base, [0b1101]);
    }
}

#[cfg(test)]
mod hardening {
    use super::*;
    use crate::check::{self, ir::CheckedPolicy};
    use crate::compile::prefilter::IndexPlan;
    use crate::diag::SourceFile;
    use crate::policy::*;
    use crate::syntax::{self, Format};
    use crate::{Decision, Hook};
    use serde_json::json;
    use std::sync::Arc;

    fn event(tool: &str, args: serde_json::Value) -> crate::Event {
        crate::host::hermes::parse_event(&json!({
            "hook_event_name": "pre_tool_call", "tool_name": tool, "tool_input": args,
            "cwd": "/work"
        }))
        .unwrap()
    }

    fn opts(home: &str) -> CompileOptions {
        CompileOptions {
            lazy: true,
            home: Some(home.into()),
        }
    }

    fn blocked(v: &crate::Verdict) -> bool {
        matches!(v.decision, Decision::Block { .. })
    }

    const AWS: &str = r#"rule files.aws {
  on pre_tool_call
  when tool == "read_file" and path(args.path) under ["~/.aws"]
  block "no"
}
rule fs.root {
  on pre_tool_call
  when tool == "terminal" and args.command contains "rm -rf /"
  block "no"
}
"#;

    fn policy_dir(text: &str) -> (tempfile::TempDir, Source) {
        let d = tempfile::tempdir().unwrap();
        std::fs::write(d.path().join("p.warden"), text).unwrap();
        let s = Source::Paths(vec![d.path().to_path_buf()]);
        (d, s)
    }

    /// Issue 11 item 1: `~` is expanded when the prefilter plan is computed, so a
    /// snapshot made under one home must never be used under another.
    #[test]
    fn one_cache_dir_two_homes() {
        let (_d, src) = policy_dir(AWS);
        let cache = tempfile::tempdir().unwrap();
        for home in ["/home/alice", "/home/bob", "/home/alice"] {
            for _ in 0..2 {
                let e = event(
                    "read_file",
                    json!({"path": format!("{home}/.aws/credentials")}),
                );
                let (v, _) = decide_for_hook(&src, &e, &opts(home), Some(cache.path())).unwrap();
                assert!(blocked(&v), "{home}: {v:?}");
            }
        }
        let snaps = std::fs::read_dir(cache.path()).unwrap().count();
        assert_eq!(snaps, 2, "one snapshot per home");
    }

    /// Issue 15 item 1(a): a snapshot written by hand into the cache directory (right
    /// name, valid header and checksum) is not trusted unless it holds exactly the rules of
    /// the sources; `rm -rf /` still blocks, and the snapshot is rebuilt.
    #[test]
    fn forged_snapshots_are_rejected() {
        let (_d, src) = policy_dir(AWS);
        let cache = tempfile::tempdir().unwrap();
        let o = opts("/home/u");
        let rm = event("terminal", json!({"command": "rm -rf /"}));
        let sources = match &src {
            Source::Paths(p) => read_sources(p).unwrap(),
            Source::Builtin => unreachable!(),
        };
        let key = compile::cache::key(sources.iter().map(|(p, t)| (p.as_path(), t.as_str())), &o);
        let real = {
            decide_for_hook(&src, &rm, &o, Some(cache.path())).unwrap();
            compile::cache::load(cache.path(), key, Hook::PreToolCall)
                .unwrap()
                .bytes()
                .to_vec()
        };
        // an empty rule set; and the real rules with every requirement made impossible
        // but the ids dropped; and one rule renamed
        let policy = Policy::from_sources(sources.clone()).unwrap();
        let part = compile::cache::for_hook(&policy.checked, Hook::PreToolCall);
        let mut renamed = part.clone();
        renamed.rules[1].id = "fs.other".into();
        let mut fewer = part.clone();
        fewer.rules.truncate(1);
        let forgeries = [
            compile::cache::encode(&CheckedPolicy::default(), IndexPlan::default()).unwrap(),
            compile::cache::encode(&fewer, IndexPlan::unfiltered(1)).unwrap(),
            compile::cache::encode(&renamed, IndexPlan::unfiltered(2)).unwrap(),
        ];
        for forged in forgeries {
            compile::cache::store(cache.path(), key, Hook::PreToolCall, &forged).unwrap();
            let (v, _) = decide_for_hook(&src, &rm, &o, Some(cache.path())).unwrap();
            assert!(blocked(&v), "{v:?}");
            let now = compile::cache::load(cache.path(), key, Hook::PreToolCall).unwrap();
            assert_eq!(now.bytes(), real.as_slice(), "the forgery is replaced");
        }
    }

    /// What `policies/builtin.snapshot` must hold: the shipped packs compiled by this code.
    fn compile_embedded() -> Vec<u8> {
        embed(&Policy::builtin().unwrap())
    }

    /// `p` compiled the way the shipped packs are embedded.
    fn embed(p: &Policy) -> Vec<u8> {
        use compile::cache::{self, Embedded};
        let opts = CompileOptions {
            lazy: true,
            home: Some(cache::SENTINEL_HOME.into()),
        };
        let bodies: Vec<(String, Vec<u8>)> = cache::CACHED_HOOKS
            .iter()
            .filter_map(|&hook| {
                let part = cache::for_hook(&p.checked, hook);
                let set = compile::compile(&part, &opts).unwrap();
                cache::cacheable(&part).then(|| {
                    (
                        hook.name().to_string(),
                        cache::encode(&part, set.index_plan(hook)).unwrap(),
                    )
                })
            })
            .collect();
        postcard::to_stdvec(&Embedded {
            magic: cache::MAGIC.into(),
            version: env!("CARGO_PKG_VERSION").into(),
            digests: (policy::BUILTIN_DIGEST, policy::SNAPSHOT_SCHEMA),
            parts: bodies
                .iter()
                .map(|(h, b)| (h.clone(), b.as_slice()))
                .collect(),
        })
        .unwrap()
    }

    /// A rule whose prefilter requirement is a path under `~` decides from an embedded
    /// snapshot (compiled for the sentinel home) exactly as when compiled for the user's
    /// home, for two homes: the requirement's literal is the user's home, not the sentinel.
    #[test]
    fn embedded_snapshots_follow_the_users_home() {
        let text = "rule files.home {\n  on pre_tool_call\n  when path(args.path) under [\"~/.secret\"]\n  block \"no\"\n}\n";
        let policy = Policy::from_sources(vec![("p.warden".into(), text.into())]).unwrap();
        let bytes = embed(&policy);
        for home in ["/home/a", "/root/"] {
            let o = opts(home);
            for (path, block) in [
                (format!("{home}/.secret/k"), true),
                ("~/.secret".to_string(), true),
                ("/home/b/.secret/k".to_string(), home == "/home/b"),
                ("/tmp/x".to_string(), false),
            ] {
                let e = event("read_file", json!({ "path": path }));
                let d = decide_embedded(&bytes, &e, &o, 0).unwrap().unwrap();
                assert_eq!(blocked(&d.verdict), block, "{home}: {path}");
            }
        }
    }

    /// `policies/builtin.snapshot` is exactly what the shipped packs compile to with this
    /// code. `WARDEN_BLESS=1` rewrites it (after a pack or schema change).
    #[test]
    fn embedded_snapshot_is_current() {
        let fresh = compile_embedded();
        if std::env::var_os("WARDEN_BLESS").is_some() {
            let path = concat!(env!("CARGO_MANIFEST_DIR"), "/policies/builtin.snapshot");
            std::fs::write(path, &fresh).unwrap();
            return;
        }
        assert!(
            fresh == EMBEDDED,
            "policies/builtin.snapshot is stale (a pack, the version or the snapshot schema \
             changed): run `WARDEN_BLESS=1 cargo test --lib embedded_snapshot_is_current`"
        );
        let e = compile::cache::Embedded::current(
            EMBEDDED,
            (policy::BUILTIN_DIGEST, policy::SNAPSHOT_SCHEMA),
        );
        assert!(e.is_some_and(|e| e.part(Hook::PreToolCall).is_some()));
    }

    /// Issue 15 item 1(a): the shipped packs are decided from the snapshot compiled into
    /// the binary and never from the disk cache, whose file name and content for them
    /// would be the same on every machine of a release. Neither an empty rule set nor the
    /// real rule ids with every condition made false (a forgery an id check cannot see),
    /// placed under their key, weakens a decision; and nothing is written there.
    #[test]
    fn forged_builtin_snapshots_are_rejected() {
        let cache = tempfile::tempdir().unwrap();
        let o = opts("/home/u");
        let rm = event("terminal", json!({"command": "rm -rf /"}));
        let (v, key) = decide_for_hook(&Source::Builtin, &rm, &o, Some(cache.path())).unwrap();
        assert!(blocked(&v));
        assert_eq!(std::fs::read_dir(cache.path()).unwrap().count(), 0);
        let mut hollow =
            compile::cache::for_hook(&Policy::builtin().unwrap().checked, Hook::PreToolCall);
        for r in &mut hollow.rules {
            r.when = check::ir::Expr::Const(false);
        }
        let n = hollow.rules.len();
        let forgeries = [
            compile::cache::encode(&CheckedPolicy::default(), IndexPlan::default()).unwrap(),
            compile::cache::encode(&hollow, IndexPlan::unfiltered(n)).unwrap(),
        ];
        for forged in forgeries {
            compile::cache::store(cache.path(), key, Hook::PreToolCall, &forged).unwrap();
            let (v, _) = decide_for_hook(&Source::Builtin, &rm, &o, Some(cache.path())).unwrap();
            assert!(blocked(&v), "{v:?}");
        }
    }

    /// The line scan of the canonical layout finds what a parse finds, on every shipped
    /// pack, for both gating hooks.
    #[test]
    fn the_scan_agrees_with_the_parse() {
        let today = check::today();
        for (path, text) in builtin_sources() {
            for hook in GATING {
                let (mut ids, mut ex) = (Vec::new(), Vec::new());
                assert!(
                    scan(&text, hook, &today, &mut ids, &mut ex),
                    "{}",
                    path.display()
                );
                let file = Arc::new(SourceFile {
                    path: path.clone(),
                    text: text.clone(),
                });
                let (tree, _) = syntax::parse_file(&file, Format::Warden);
                let want: Vec<String> = tree
                    .items
                    .iter()
                    .filter_map(|i| match i {
                        syntax::ast::Item::Rule(r)
                            if r.on.iter().any(|e| e.node == hook.name()) =>
                        {
                            Some(r.id.node.clone())
                        }
                        _ => None,
                    })
                    .collect();
                assert_eq!(ids, want, "{}", path.display());
            }
        }
        let (mut ids, mut ex) = (Vec::new(), Vec::new());
        let one_line = r#"rule a { on pre_tool_call when true block "x" }"#;
        assert!(!scan(
            one_line,
            Hook::PreToolCall,
            &today,
            &mut ids,
            &mut ex
        ));
        let text = "rule a.b {\n  on pre_tool_call, pre_llm_call\n}\nexempt a.*\n  because \"x\" until 2000-01-01\nexempt a.b because \"y\"\n";
        assert!(scan(text, Hook::PreLlmCall, &today, &mut ids, &mut ex));
        assert_eq!(
            (ids, ex),
            (vec!["a.b".to_string()], vec!["a.b".to_string()])
        );
    }

    fn codes(text: &str) -> Vec<&'static str> {
        match Policy::from_sources(vec![("t.warden".into(), text.into())]) {
            Err(LoadError::Invalid { diagnostics }) => diagnostics.iter().map(|d| d.code).collect(),
            other => panic!("not refused: {other:?}"),
        }
    }

    /// Issue 15 item 3: deep nesting is a located error, never a stack overflow.
    #[test]
    fn deep_nesting_is_an_error_not_a_crash() {
        let rule = |cond: &str| {
            format!("rule a.b {{\n on pre_tool_call\n when {cond}\n block \"x\"\n}}\n")
        };
        let parens = format!("{}tool == \"x\"{}", "(".repeat(300), ")".repeat(300));
        assert_eq!(codes(&rule(&parens)), ["too-deep"]);
        // beyond ~1,700 levels pest itself stops with a syntax error: located, no crash
        for n in [1_700, 20_000] {
            let parens = format!("{}tool == \"x\"{}", "(".repeat(n), ")".repeat(n));
            let c = codes(&rule(&parens));
            assert!(c == ["too-deep"] || c == ["syntax"], "{n}: {c:?}");
        }
        let nots = format!("{}tool == \"x\"", "not ".repeat(100_000));
        assert_eq!(codes(&rule(&nots)), ["too-deep"]);
        let mut chain = String::from("define d0 = tool == \"x\"\n");
        for i in 1..10_000 {
            chain.push_str(&format!("define d{i} = d{}\n", i - 1));
        }
        chain.push_str(&rule("d9999"));
        assert_eq!(codes(&chain), ["too-deep"]);
        let mut doubling = String::from("define e0 = tool == \"x\"\n");
        for i in 1..40 {
            doubling.push_str(&format!("define e{i} = e{} and e{}\n", i - 1, i - 1));
        }
        doubling.push_str(&rule("e39"));
        assert_eq!(codes(&doubling), ["too-deep"]);
        // written policies stay far below the bounds
        let fine = format!("{}tool == \"x\"{}", "(".repeat(40), ")".repeat(40));
        assert!(Policy::from_sources(vec![("t.warden".into(), rule(&fine))]).is_ok());
    }

    /// Issue 15 item 4: an empty or comment-only set is an error, and a gating event no
    /// rule runs on fails closed.
    #[test]
    fn empty_policies_and_uncovered_events_are_refused() {
        assert_eq!(codes(""), ["empty-policy"]);
        assert_eq!(codes("# nothing here\n"), ["empty-policy"]);
        assert_eq!(codes("list l = [\"a\"]\n"), ["empty-policy"]);
        let (_d, src) = policy_dir(AWS);
        let llm = crate::host::hermes::parse_event(&json!({
            "hook_event_name": "pre_llm_call", "user_message": "hi"
        }))
        .unwrap();
        let cache = tempfile::tempdir().unwrap();
        for dir in [None, Some(cache.path()), Some(cache.path())] {
            let e = decide_for_hook(&src, &llm, &opts("/h"), dir).unwrap_err();
            assert!(
                matches!(
                    e,
                    LoadError::NoRules {
                        hook: "pre_llm_call"
                    }
                ),
                "{e}"
            );
        }
    }

    /// Issue 15 item 8: a directory symlink loop is reported, not walked forever.
    #[cfg(unix)]
    #[test]
    fn symlink_loops_are_reported() {
        let d = tempfile::tempdir().unwrap();
        std::fs::write(d.path().join("p.warden"), AWS).unwrap();
        std::fs::create_dir(d.path().join("sub")).unwrap();
        std::os::unix::fs::symlink(d.path(), d.path().join("sub").join("back")).unwrap();
        let e = read_sources(&[d.path()]).unwrap_err();
        assert!(matches!(e, LoadError::Loop { .. }), "{e}");
        assert!(e.to_string().contains("symlink loop"), "{e}");
    }
}

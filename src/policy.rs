//! Loading a policy set: files and directories → parsed → checked, as one
//! unit. A set with any error is rejected whole; nothing is half-loaded.

use crate::check::{self, ir::CheckedPolicy, CheckOptions};
use crate::compile::{self, CompileError, CompileOptions, MatcherSet};
use crate::diag::{Code, Diagnostic, Severity, SourceFile};
use crate::event::Hook;
use crate::syntax::{self, ast::PolicyFile, Format};
use std::path::{Path, PathBuf};
use std::sync::Arc;

include!(concat!(env!("OUT_DIR"), "/builtin.rs"));

/// Why a policy set could not be loaded.
#[derive(Debug, thiserror::Error)]
pub enum LoadError {
    /// A file or directory could not be read.
    #[error("cannot read {}: {source}", path.display())]
    Io {
        /// The path.
        path: PathBuf,
        /// The OS error.
        source: std::io::Error,
    },
    /// A directory held no policy files.
    #[error("no policy files (*.warden, *.warden.yaml, *.warden.json) in {}", path.display())]
    Empty {
        /// The directory.
        path: PathBuf,
    },
    /// A directory links back to one of its own ancestors (a symlink loop).
    #[error("{} is a symlink loop: it leads back to {}", path.display(), ancestor.display())]
    Loop {
        /// The looping directory, as reached.
        path: PathBuf,
        /// The directory it resolves to, already being walked.
        ancestor: PathBuf,
    },
    /// The policy set has no rule for a gating event it is asked to decide: with
    /// nothing to apply, an allow would be silent, so callers fail closed.
    #[error("the policy set has no rule for {hook}: refusing to allow it unchecked (add a rule `on {hook}`, or do not install warden on this event)")]
    NoRules {
        /// The gating event's name.
        hook: &'static str,
    },
    /// The policy could not be compiled (an engine limit).
    #[error(transparent)]
    Compile(#[from] CompileError),
    /// The policies have errors (every diagnostic, warnings included).
    #[error("{}", first_error(diagnostics))]
    Invalid {
        /// All diagnostics.
        diagnostics: Vec<Diagnostic>,
    },
}

fn first_error(d: &[Diagnostic]) -> String {
    let errors = d.iter().filter(|d| d.severity == Severity::Error).count();
    match d.iter().find(|d| d.severity == Severity::Error) {
        Some(e) if errors > 1 => format!("{e} (and {} more error(s))", errors - 1),
        Some(e) => e.to_string(),
        None => "invalid policy".into(),
    }
}

/// A loaded, checked policy set.
#[derive(Debug)]
pub struct Policy {
    /// The checked policy.
    pub checked: CheckedPolicy,
    /// Warnings found while checking.
    pub warnings: Vec<Diagnostic>,
    /// The source files, in load order.
    pub sources: Vec<Arc<SourceFile>>,
    /// Their syntax trees.
    pub trees: Vec<PolicyFile>,
}

impl Policy {
    /// Load files and directories (searched recursively for policy files, in
    /// sorted order, skipping subdirectories named [`OPTIONAL_DIR`]; `*.test.yaml`
    /// files are tests, not policies).
    pub fn load<P: AsRef<Path>>(paths: &[P]) -> Result<Policy, LoadError> {
        Policy::from_sources(read_sources(paths)?)
    }

    /// The packs shipped inside the binary.
    pub fn builtin() -> Result<Policy, LoadError> {
        Policy::from_sources(builtin_sources())
    }

    /// Check in-memory sources as one set; each path decides its format.
    pub fn from_sources(sources: Vec<(PathBuf, String)>) -> Result<Policy, LoadError> {
        Policy::from_sources_with(sources, &CheckOptions::default())
    }

    /// [`Policy::from_sources`] with explicit check options.
    pub fn from_sources_with(
        sources: Vec<(PathBuf, String)>,
        opts: &CheckOptions,
    ) -> Result<Policy, LoadError> {
        let mut diags = Vec::new();
        let mut parsed = Vec::with_capacity(sources.len());
        for (path, text) in sources {
            let format = Format::of_path(&path).unwrap_or(Format::Warden);
            let file = Arc::new(SourceFile { path, text });
            let (tree, d) = syntax::parse_file(&file, format);
            diags.extend(d);
            parsed.push((file, tree));
        }
        let (checked, d) = check::check(&parsed, opts);
        diags.extend(d);
        // A set that checked cleanly but holds no rule would allow everything, silently.
        if checked.rules.is_empty() && !diags.iter().any(|d| d.severity == Severity::Error) {
            if let Some((file, _)) = parsed.first() {
                diags.push(
                    Diagnostic::error(
                        Code::EmptyPolicy,
                        file,
                        crate::diag::Span::new(0, 0),
                        "the policy set has no rules: it would allow everything",
                    )
                    .with_label("no `rule` in any file")
                    .with_help("add a rule, or point warden at the right files"),
                );
            }
        }
        if diags.iter().any(|d| d.severity == Severity::Error) {
            return Err(LoadError::Invalid { diagnostics: diags });
        }
        let (sources, trees) = parsed.into_iter().unzip();
        Ok(Policy {
            checked,
            warnings: diags,
            sources,
            trees,
        })
    }

    /// Compile eagerly, with `$HOME` from the environment.
    pub fn compile(&self) -> Result<MatcherSet, CompileError> {
        compile::compile(&self.checked, &CompileOptions::from_env())
    }

    /// Compile with explicit options.
    pub fn compile_with(&self, opts: &CompileOptions) -> Result<MatcherSet, CompileError> {
        compile::compile(&self.checked, opts)
    }
}

/// Where a policy set comes from.
#[derive(Clone, Debug)]
pub enum Source {
    /// The packs shipped inside the binary.
    Builtin,
    /// Files and directories.
    Paths(Vec<PathBuf>),
}

/// The gating events: a decision on them can stop the agent, so a policy set with no rule
/// for one of them is refused ([`LoadError::NoRules`]) rather than silently allowing.
pub const GATING: [Hook; 2] = [Hook::PreToolCall, Hook::PreLlmCall];

/// The shipped packs' policy hash (the audit log's `policy_hash`): the version, the packs
/// and the home directory they were compiled for.
fn builtin_key(opts: &CompileOptions) -> u64 {
    compile::fnv::fnv1a(&[
        env!("CARGO_PKG_VERSION").as_bytes(),
        b"<builtin>",
        &BUILTIN_DIGEST.to_le_bytes(),
        opts.home.as_deref().unwrap_or("").as_bytes(),
    ])
}

/// Decide one gating event the way `warden hook` does: through the compiled-policy cache
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
/// Returns the verdict and the policy's cache key.
pub fn decide_for_hook(
    source: &Source,
    event: &crate::Event,
    opts: &CompileOptions,
    cache_dir: Option<&Path>,
) -> Result<(crate::Verdict, u64), LoadError> {
    let hook = event.hook;
    let (sources, key) = match source {
        Source::Builtin => (builtin_sources(), builtin_key(opts)),
        Source::Paths(p) => {
            let s = read_sources(p)?;
            let k = compile::cache::key(s.iter().map(|(p, t)| (p.as_path(), t.as_str())), opts);
            (s, k)
        }
    };
    let cache_dir = cache_dir.filter(|_| compile::cache::CACHED_HOOKS.contains(&hook));
    if let Some(dir) = cache_dir {
        let body = compile::cache::load(dir, key, hook);
        let snap = body
            .as_ref()
            .and_then(|b| compile::cache::decode(b.bytes()))
            .filter(|s| expected_for(&sources, hook).is_some_and(|e| s.holds(&e)));
        if let Some(snap) = snap {
            if snap.ids.is_empty() {
                return Err(LoadError::NoRules { hook: hook.name() });
            }
            if let Some(set) = compile::compile_for_event(snap, event, opts) {
                return Ok((set.evaluate(event), key));
            }
        }
    }
    let policy = Policy::from_sources(sources)?;
    let part = compile::cache::for_hook(&policy.checked, hook);
    require_rules(&part, hook)?;
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
        if let Ok(body) = compile::cache::encode(&part, set.requirements()) {
            let _ = compile::cache::store(dir, key, hook, &body);
        }
    }
    Ok((set.evaluate(event), key))
}

/// [`LoadError::NoRules`] if `hook` is gating and no rule of `part` runs on it.
fn require_rules(part: &CheckedPolicy, hook: Hook) -> Result<(), LoadError> {
    if GATING.contains(&hook) && !part.rules.iter().any(|r| r.hooks.contains(&hook)) {
        return Err(LoadError::NoRules { hook: hook.name() });
    }
    Ok(())
}

/// What the sources say a gating hook's snapshot must hold, from a parse alone (no check):
/// the ids of the rules that run on `hook`, in order, and the patterns of the exemptions
/// live today. `None` if a file does not parse (the full load then reports it).
fn expected_for(sources: &[(PathBuf, String)], hook: Hook) -> Option<compile::cache::Expected> {
    let today = check::today();
    let mut ids = Vec::new();
    let mut exempts = Vec::new();
    for (path, text) in sources {
        let format = Format::of_path(path).unwrap_or(Format::Warden);
        if format == Format::Warden && scan(text, hook, &today, &mut ids, &mut exempts) {
            continue;
        }
        let file = Arc::new(SourceFile {
            path: path.clone(),
            text: text.clone(),
        });
        let (tree, diags) = syntax::parse_file(&file, format);
        if diags.iter().any(|d| d.severity == Severity::Error) {
            return None;
        }
        for item in tree.items {
            match item {
                syntax::ast::Item::Rule(r) if r.on.iter().any(|e| e.node == hook.name()) => {
                    ids.push(r.id.node)
                }
                syntax::ast::Item::Exempt(e)
                    if e.until
                        .as_ref()
                        .is_none_or(|u| u.node.as_str() >= today.as_str()) =>
                {
                    exempts.push(e.rule.node)
                }
                _ => {}
            }
        }
    }
    Some(compile::cache::Expected { ids, exempts })
}

/// [`expected_for`] of one file in the canonical layout `warden fmt` writes: `rule ID {`
/// alone on its line, `on A, B` on a line of its own inside the rule, `exempt PATTERN …`
/// starting a line and its `until DATE` ending one. Returns false (nothing added) when
/// the file is not in that layout; the caller then parses it.
fn scan(
    text: &str,
    hook: Hook,
    today: &str,
    ids: &mut Vec<String>,
    exempts: &mut Vec<String>,
) -> bool {
    let (mut my_ids, mut my_exempts) = (Vec::new(), Vec::new());
    let mut rule: Option<&str> = None;
    let mut exempt: Option<(&str, bool)> = None;
    let flush = |e: &mut Option<(&str, bool)>, out: &mut Vec<String>| {
        if let Some((p, live)) = e.take() {
            if live {
                out.push(p.to_string());
            }
        }
    };
    for line in text.lines() {
        let l = line.trim();
        let item = ["rule ", "exempt ", "list ", "define ", "pack "]
            .iter()
            .any(|k| l.starts_with(k));
        if item {
            flush(&mut exempt, &mut my_exempts);
            rule = None;
        }
        if let Some(rest) = l.strip_prefix("rule ") {
            let Some(id) = rest.strip_suffix('{').map(str::trim) else {
                return false;
            };
            if id.is_empty() || id.contains(char::is_whitespace) {
                return false;
            }
            rule = Some(id);
        } else if let Some(rest) = l.strip_prefix("exempt ") {
            let pattern = rest.split_whitespace().next().unwrap_or("");
            exempt = Some((pattern, true));
        } else if let (Some(id), Some(rest)) = (rule, l.strip_prefix("on ")) {
            if rest
                .split('#')
                .next()
                .unwrap_or("")
                .split(',')
                .any(|e| e.trim() == hook.name())
            {
                my_ids.push(id.to_string());
            }
            rule = None;
        } else if l == "}" {
            rule = None;
        }
        if let Some((_, live)) = &mut exempt {
            let mut words = l.rsplit(char::is_whitespace);
            if let (Some(date), Some("until")) = (words.next(), words.next()) {
                *live = date >= today;
            }
        }
    }
    flush(&mut exempt, &mut my_exempts);
    ids.extend(my_ids);
    exempts.extend(my_exempts);
    true
}

/// The shipped packs as `(pseudo-path, text)`.
pub fn builtin_sources() -> Vec<(PathBuf, String)> {
    BUILTIN_PACKS
        .iter()
        .map(|(n, t)| (PathBuf::from(format!("<builtin>/{n}")), (*t).to_string()))
        .collect()
}

/// Read every policy file under `paths`.
pub fn read_sources<P: AsRef<Path>>(paths: &[P]) -> Result<Vec<(PathBuf, String)>, LoadError> {
    let mut out = Vec::new();
    for p in paths {
        let p = p.as_ref();
        let meta = std::fs::metadata(p).map_err(|source| LoadError::Io {
            path: p.to_path_buf(),
            source,
        })?;
        if meta.is_dir() {
            let mut files = Vec::new();
            collect(p, &mut Vec::new(), &mut files)?;
            if files.is_empty() {
                return Err(LoadError::Empty {
                    path: p.to_path_buf(),
                });
            }
            files.sort();
            for f in files {
                let text = std::fs::read_to_string(&f).map_err(|source| LoadError::Io {
                    path: f.clone(),
                    source,
                })?;
                out.push((f, text));
            }
        } else {
            let text = std::fs::read_to_string(p).map_err(|source| LoadError::Io {
                path: p.to_path_buf(),
                source,
            })?;
            out.push((p.to_path_buf(), text));
        }
    }
    Ok(out)
}

/// The name of a subdirectory that a directory walk skips: packs kept there (such as the
/// shipped `policies/optional/`) load only when that directory or file is named itself.
pub const OPTIONAL_DIR: &str = "optional";

/// Walk `dir` for policy files; `ancestors` are the resolved directories being walked, so a
/// symlink back to one of them is reported instead of walked forever.
fn collect(
    dir: &Path,
    ancestors: &mut Vec<PathBuf>,
    out: &mut Vec<PathBuf>,
) -> Result<(), LoadError> {
    let real = std::fs::canonicalize(dir).map_err(|source| LoadError::Io {
        path: dir.to_path_buf(),
        source,
    })?;
    if let Some(a) = ancestors.iter().find(|a| **a == real) {
        return Err(LoadError::Loop {
            path: dir.to_path_buf(),
            ancestor: a.clone(),
        });
    }
    ancestors.push(real);
    let rd = std::fs::read_dir(dir).map_err(|source| LoadError::Io {
        path: dir.to_path_buf(),
        source,
    })?;
    for entry in rd {
        let entry = entry.map_err(|source| LoadError::Io {
            path: dir.to_path_buf(),
            source,
        })?;
        let path = entry.path();
        if path.is_dir() {
            // Optional packs load only when named: `policies/` does not pull in
            // `policies/optional/`, but `policies/optional/` (or a file in it) does.
            if entry.file_name() == OPTIONAL_DIR {
                continue;
            }
            collect(&path, ancestors, out)?;
        } else if Format::of_path(&path).is_some() {
            out.push(path);
        }
    }
    ancestors.pop();
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    /// The cached hook path decodes and compiles only the rules the prefilter admits for
    /// its event; it must decide every event exactly as the whole policy does.
    #[test]
    fn cached_hook_decisions_equal_the_whole_policy() {
        let opts = CompileOptions {
            lazy: true,
            home: Some("/home/user".into()),
        };
        let whole = compile::compile(&Policy::builtin().unwrap().checked, &opts).unwrap();
        let dir = tempfile::tempdir().unwrap();
        let root = env!("CARGO_MANIFEST_DIR");
        // The shipped packs as policy files: the built-in source never uses the cache.
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
                "/tmp/x",
                "src/main.rs",
                ".env",
                "/",
            ] {
                payloads
                    .push(json!({"tool_name": tool, "tool_input": {"path": path, "content": "x"}}));
            }
        }
        let mut blocked = 0;
        for mut p in payloads {
            p["hook_event_name"] = json!("pre_tool_call");
            p["cwd"] = json!("/home/user/project");
            let event = crate::host::hermes::parse_event(&p).unwrap();
            let want = whole.evaluate(&event);
            // first call fills the cache (whole part), the second decides from it
            for _ in 0..2 {
                let (got, _) = decide_for_hook(&packs, &event, &opts, Some(dir.path())).unwrap();
                assert_eq!(got, want, "{p}");
            }
            blocked += usize::from(!matches!(want.decision, crate::Decision::Allow));
        }
        assert!(
            blocked > 200,
            "the corpus should exercise blocking rules: {blocked}"
        );
    }
}

#[cfg(test)]
mod hardening {
    use super::*;
    use crate::Decision;
    use serde_json::json;

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

    /// Issue 11 item 1: `~` is expanded when the prefilter requirements are computed, so a
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
            compile::cache::encode(&CheckedPolicy::default(), Vec::new()).unwrap(),
            compile::cache::encode(&fewer, vec![None]).unwrap(),
            compile::cache::encode(&renamed, vec![None, None]).unwrap(),
        ];
        for forged in forgeries {
            compile::cache::store(cache.path(), key, Hook::PreToolCall, &forged).unwrap();
            let (v, _) = decide_for_hook(&src, &rm, &o, Some(cache.path())).unwrap();
            assert!(blocked(&v), "{v:?}");
            let now = compile::cache::load(cache.path(), key, Hook::PreToolCall).unwrap();
            assert_eq!(now.bytes(), real.as_slice(), "the forgery is replaced");
        }
    }

    /// The shipped packs' snapshot has the same name and content on every machine of a
    /// release: a forged one in its place (an empty rule set) is rejected too.
    #[test]
    fn forged_builtin_snapshots_are_rejected() {
        let cache = tempfile::tempdir().unwrap();
        let o = opts("/home/u");
        let rm = event("terminal", json!({"command": "rm -rf /"}));
        let (v, key) = decide_for_hook(&Source::Builtin, &rm, &o, Some(cache.path())).unwrap();
        assert!(blocked(&v));
        let empty = compile::cache::encode(&CheckedPolicy::default(), Vec::new()).unwrap();
        compile::cache::store(cache.path(), key, Hook::PreToolCall, &empty).unwrap();
        let (v, _) = decide_for_hook(&Source::Builtin, &rm, &o, Some(cache.path())).unwrap();
        assert!(blocked(&v), "{v:?}");
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

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

impl Source {
    /// Read the sources and their cache key (which covers every input the compiled form
    /// depends on: [`compile::cache::key`]).
    pub(crate) fn read(
        &self,
        opts: &CompileOptions,
    ) -> Result<(Vec<(PathBuf, String)>, u64), LoadError> {
        match self {
            Source::Builtin => Ok((builtin_sources(), builtin_key(opts))),
            Source::Paths(p) => {
                let s = read_sources(p)?;
                let key =
                    compile::cache::key(s.iter().map(|(p, t)| (p.as_path(), t.as_str())), opts);
                Ok((s, key))
            }
        }
    }
}

/// The gating events: a decision on them can stop the agent, so a policy set with no rule
/// for one of them is refused ([`LoadError::NoRules`]) rather than silently allowing.
pub const GATING: [Hook; 2] = [Hook::PreToolCall, Hook::PreLlmCall];

/// The shipped packs' policy hash (the audit log's `policy_hash`): the version, the packs
/// and the home directory they were compiled for.
pub(crate) fn builtin_key(opts: &CompileOptions) -> u64 {
    compile::fnv::fnv1a(&[
        env!("CARGO_PKG_VERSION").as_bytes(),
        b"<builtin>",
        &BUILTIN_DIGEST.to_le_bytes(),
        opts.home.as_deref().unwrap_or("").as_bytes(),
    ])
}

/// [`LoadError::NoRules`] if `hook` is gating and no rule of `part` runs on it.
pub(crate) fn require_rules(part: &CheckedPolicy, hook: Hook) -> Result<(), LoadError> {
    if GATING.contains(&hook) && !part.rules.iter().any(|r| r.hooks.contains(&hook)) {
        return Err(LoadError::NoRules { hook: hook.name() });
    }
    Ok(())
}

/// What the sources say a gating hook's snapshot must hold, from a parse alone (no check):
/// the ids of the rules that run on `hook`, in order, and the patterns of the exemptions
/// live today. `None` if a file does not parse (the full load then reports it).
pub(crate) fn expected_for(
    sources: &[(PathBuf, String)],
    hook: Hook,
) -> Option<compile::cache::Expected> {
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
pub(crate) fn scan(
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

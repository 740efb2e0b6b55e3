//! Loading a policy set: files and directories → parsed → checked, as one
//! unit. A set with any error is rejected whole; nothing is half-loaded.

use crate::check::{self, ir::CheckedPolicy, CheckOptions};
use crate::compile::{self, CompileError, CompileOptions, MatcherSet};
use crate::diag::{Diagnostic, Severity, SourceFile};
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
    /// sorted order; `*.test.yaml` files are tests, not policies).
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
    /// Read the sources and their cache key.
    pub(crate) fn read(&self) -> Result<(Vec<(PathBuf, String)>, u64), LoadError> {
        match self {
            Source::Builtin => Ok((builtin_sources(), builtin_key())),
            Source::Paths(p) => {
                let s = read_sources(p)?;
                let key = compile::cache::key(s.iter().map(|(p, t)| (p.as_path(), t.as_str())));
                Ok((s, key))
            }
        }
    }
}

/// The cache key of the shipped packs (computed at build time, no hashing at run time).
pub(crate) fn builtin_key() -> u64 {
    compile::cache::fnv1a(&[
        env!("CARGO_PKG_VERSION").as_bytes(),
        b"<builtin>",
        &BUILTIN_DIGEST.to_le_bytes(),
    ])
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
            collect(p, &mut files)?;
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

fn collect(dir: &Path, out: &mut Vec<PathBuf>) -> Result<(), LoadError> {
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
            collect(&path, out)?;
        } else if Format::of_path(&path).is_some() {
            out.push(path);
        }
    }
    Ok(())
}

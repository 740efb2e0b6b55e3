//! Shell command → analysis → the shipped packs.
//!
//! * `shell::analyze` never panics and stays bounded: its output is at most linear in the
//!   input (commands, arguments and data-flow edges), whatever the nesting.
//! * The command, as a `terminal` pre_tool_call, evaluates against the shipped packs
//!   (compiled once, eagerly) without panicking, and the verdict is the same as the hook's
//!   cached path gives (the compiled-policy snapshot, pruned by the prefilter; sampled).
#![no_main]

use libfuzzer_sys::fuzz_target;
use std::sync::OnceLock;
use warden::policy::Source;
use warden::runtime::cached;
use warden::shell::{self, Options};
use warden::{CompileOptions, Event, MatcherSet, Policy};

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
        let cache = std::env::temp_dir().join(format!("warden-fuzz-shell-{}", std::process::id()));
        World { whole, opts, cache }
    })
}

fuzz_target!(|data: &[u8]| {
    let Ok(cmd) = std::str::from_utf8(data) else {
        return;
    };
    let a = shell::analyze(
        cmd,
        &Options {
            cwd: Some("/home/fuzz/project"),
            home: Some("/home/fuzz"),
            max_depth: 8,
        },
    );
    // Bounded: a command line cannot turn into more than a linear amount of analysis
    // (nested shells re-parse quoted text, at most `max_depth` times).
    let budget = 64 + 16 * cmd.len();
    let words: usize = a
        .commands
        .iter()
        .map(|c| 1 + c.args.len() + c.redirects.len())
        .sum();
    assert!(words <= budget, "{words} words out of {} bytes", cmd.len());
    assert!(a.feeds.len() <= shell::MAX_FEEDS, "{} feeds", a.feeds.len());
    for &(from, to) in &a.feeds {
        assert!(
            from < a.commands.len() && to < a.commands.len(),
            "feed out of range"
        );
    }
    let w = world();
    let ev = Event::tool_call("terminal", serde_json::json!({ "command": cmd }));
    let whole = w.whole.evaluate(&ev);
    // The hook's cached path compiles the admitted rules per call (slow under coverage
    // instrumentation); the `hook` target checks it on every input, here one in 32.
    if cmd.len() % 32 == 7 {
        let cached = cached::decide(&Source::Builtin, &ev, &w.opts, Some(&w.cache))
            .expect("the shipped packs decide");
        assert_eq!(
            cached.verdict.decision, whole.decision,
            "cached path disagrees with the whole policy"
        );
    }
});

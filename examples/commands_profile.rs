//! Fixed-work driver for instruction counting (load-independent, unlike the
//! criterion timings of `benches/commands.rs`): evaluates every command of the
//! command corpora `N` times against the shipped packs (same setup as the
//! bench), or one command given as the second argument.
//!
//! ```text
//! cargo build --release --example commands_profile
//! valgrind --tool=callgrind --callgrind-out-file=/tmp/cg.%p \
//!     target/release/examples/commands_profile 10
//! ```
//!
//! Instructions per command = (Ir with `N` − Ir with `0`) / (`N` × commands);
//! the command count is printed.

use warden::{CompileOptions, Event, Policy};

fn main() {
    let mut argv = std::env::args().skip(1);
    let n: usize = argv.next().and_then(|a| a.parse().ok()).unwrap_or(1);
    let one = argv.next();
    let policy = Policy::builtin().expect("shipped packs");
    let set = policy
        .compile_with(&CompileOptions {
            home: Some("/home/user".into()),
            lazy: false,
        })
        .expect("compile");
    let mut cmds = Vec::new();
    match one {
        Some(c) => cmds.push(c),
        None => {
            for f in [
                "commands.tsv",
                "commands-heldout.tsv",
                "commands-redteam-2026-12-03.tsv",
                "commands-dev.tsv",
            ] {
                let path = format!("{}/tests/corpora/{f}", env!("CARGO_MANIFEST_DIR"));
                let text = std::fs::read_to_string(path).expect("corpus");
                for line in text
                    .lines()
                    .filter(|l| !l.starts_with('#') && !l.starts_with("label"))
                {
                    if let Some(cmd) = line.splitn(3, '\t').nth(2) {
                        cmds.push(cmd.replace('⏎', "\n"));
                    }
                }
            }
        }
    }
    let events: Vec<Event> = cmds
        .iter()
        .map(|c| {
            let mut ev = Event::tool_call("terminal", serde_json::json!({ "command": c }));
            ev.cwd = Some("/home/user/project".into());
            ev
        })
        .collect();
    let mut blocked = 0usize;
    for _ in 0..n {
        for ev in &events {
            let v = std::hint::black_box(set.evaluate(std::hint::black_box(ev)));
            blocked += usize::from(v.decision != warden::Decision::Allow);
        }
    }
    println!("{} commands x {n} ({blocked} not allowed)", events.len());
}

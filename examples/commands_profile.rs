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

#[path = "../benches/support/corpus.rs"]
mod corpus;

use warden::Event;

fn main() {
    let mut argv = std::env::args().skip(1);
    let n: usize = argv.next().and_then(|a| a.parse().ok()).unwrap_or(1);
    let one = argv.next();
    let set = corpus::shipped();
    let cmds = match one {
        Some(c) => vec![c],
        None => corpus::commands(),
    };
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

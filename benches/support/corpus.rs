//! What the command speed measurements run: the shipped packs compiled eagerly for
//! `/home/user`, and the command corpora (`tests/corpora/commands*.tsv`), every command in
//! file order with `⏎` turned back into a newline. Shared by `benches/commands.rs` and
//! `examples/commands_profile.rs` (`#[path]` includes).

/// The shipped packs, compiled eagerly (every matcher built) for home `/home/user`.
pub fn shipped() -> warden::MatcherSet {
    warden::Policy::builtin()
        .expect("shipped packs")
        .compile_with(&warden::CompileOptions {
            home: Some("/home/user".into()),
            lazy: false,
        })
        .expect("compile")
}

/// Every command of the command corpora.
pub fn commands() -> Vec<String> {
    let mut out = Vec::new();
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
                out.push(cmd.replace('⏎', "\n"));
            }
        }
    }
    out
}

//! `warden redact`: a pipe filter. stdin → redacted stdout, with the
//! redaction rules of one transform event (default: the shipped packs).

use super::{PolicyArgs, EXIT_OK, EXIT_POLICY, EXIT_USAGE};
use std::io::{Read, Write};
use std::path::PathBuf;
use warden::{CompileOptions, Hook};

/// Largest input read whole for JSON mode.
const JSON_MAX: usize = 64 << 20;

#[derive(clap::ValueEnum, Clone, Copy, Debug, PartialEq, Eq)]
#[allow(clippy::enum_variant_names)] // The names are Hermes's event names.
pub(crate) enum Event {
    /// A tool's result.
    TransformToolResult,
    /// Terminal output.
    TransformTerminalOutput,
    /// The model's final reply.
    TransformLlmOutput,
}

#[derive(clap::ValueEnum, Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum Format {
    /// JSON if the input starts with `{` or `[` and parses, else text.
    Auto,
    /// Plain text, streamed in 64 KiB chunks (bounded memory).
    Text,
    /// JSON: redact inside string values, keep the document valid (read whole, ≤ 64 MiB).
    Json,
    /// JSON Lines: each line a JSON document, redacted inside its string values; one line out per line in.
    Jsonl,
}

#[derive(clap::Args)]
pub(crate) struct Args {
    #[command(flatten)]
    policy: PolicyArgs,
    /// Whose redaction rules apply.
    #[arg(long, value_enum, default_value = "transform-tool-result")]
    event: Event,
    /// How to read the input.
    #[arg(long, value_enum, default_value = "auto")]
    format: Format,
    /// Write what was redacted (rule, label, byte span; never the secret) to FILE as JSON.
    #[arg(long, value_name = "FILE")]
    report: Option<PathBuf>,
}

pub(crate) fn run(a: Args) -> i32 {
    let hook = match a.event {
        Event::TransformToolResult => Hook::TransformToolResult,
        Event::TransformTerminalOutput => Hook::TransformTerminalOutput,
        Event::TransformLlmOutput => Hook::TransformLlmOutput,
    };
    let policy = match a.policy.load() {
        Ok(p) => p,
        Err(e) => {
            eprintln!("error: {e}");
            return EXIT_POLICY;
        }
    };
    let set = match policy.compile_with(&CompileOptions {
        lazy: true,
        ..CompileOptions::from_env()
    }) {
        Ok(s) => s,
        Err(e) => {
            eprintln!("error: {e}");
            return EXIT_POLICY;
        }
    };
    let redactor = match set.redactor(hook) {
        Ok(Some(r)) => r,
        Ok(None) => {
            eprintln!(
                "error: the policy has no redaction rules for {}",
                hook.name()
            );
            return EXIT_POLICY;
        }
        Err(e) => {
            eprintln!("error: {e}");
            return EXIT_POLICY;
        }
    };
    let stdin = std::io::stdin();
    let mut input = stdin.lock();
    let stdout = std::io::stdout();
    let mut out = std::io::BufWriter::with_capacity(64 << 10, stdout.lock());
    // Peek at the first bytes to decide between JSON and streamed text.
    let mut head = Vec::with_capacity(8 << 10);
    if let Err(e) = (&mut input).take(8 << 10).read_to_end(&mut head) {
        eprintln!("error: cannot read stdin: {e}");
        return EXIT_USAGE;
    }
    if a.format == Format::Jsonl {
        let reader = std::io::BufReader::new(std::io::Cursor::new(head).chain(input));
        let mut findings = Vec::new();
        let mut offset = 0;
        for line in std::io::BufRead::lines(reader) {
            let line = match line {
                Ok(l) => l,
                Err(e) => {
                    eprintln!("error: cannot read stdin: {e}");
                    return EXIT_USAGE;
                }
            };
            let red = redactor.redact(&line);
            findings.extend(red.findings.iter().cloned().map(|mut f| {
                f.start += offset;
                f.end += offset;
                f
            }));
            offset += line.len() + 1;
            // A withheld line becomes a JSON string, so every output line stays JSON.
            let text = match red.withheld_by {
                Some(_) => serde_json::Value::String(red.text.into_owned()).to_string(),
                None => red.text.into_owned(),
            };
            if writeln!(out, "{text}").is_err() {
                return EXIT_USAGE;
            }
        }
        let _ = out.flush();
        return write_report(a.report.as_deref(), hook, &findings);
    }
    let looks_json = head
        .iter()
        .find(|b| !b.is_ascii_whitespace())
        .is_some_and(|b| *b == b'{' || *b == b'[');
    let result = if a.format == Format::Json || (a.format == Format::Auto && looks_json) {
        let mut all = head;
        if let Err(e) = (&mut input)
            .take((JSON_MAX - all.len().min(JSON_MAX)) as u64 + 1)
            .read_to_end(&mut all)
        {
            eprintln!("error: cannot read stdin: {e}");
            return EXIT_USAGE;
        }
        if all.len() > JSON_MAX {
            eprintln!(
                "error: JSON input larger than {JSON_MAX} bytes; use --format text to stream it"
            );
            return EXIT_USAGE;
        }
        let text = String::from_utf8_lossy(&all);
        let red = redactor.redact(&text);
        out.write_all(red.text.as_bytes()).map(|_| red.findings)
    } else {
        redactor.redact_stream(std::io::Cursor::new(head).chain(input), &mut out)
    };
    let findings = match result.and_then(|f| out.flush().map(|_| f)) {
        Ok(f) => f,
        Err(e) => {
            eprintln!("error: {e}");
            return EXIT_USAGE;
        }
    };
    write_report(a.report.as_deref(), hook, &findings)
}

/// Write the findings report (rule, label, byte span; never the secret).
fn write_report(
    path: Option<&std::path::Path>,
    hook: Hook,
    findings: &[warden::redact::Finding],
) -> i32 {
    let Some(path) = path else { return EXIT_OK };
    let report: Vec<serde_json::Value> = findings
        .iter()
        .map(|f| serde_json::json!({"rule": &*f.rule_id, "label": &*f.label, "start": f.start, "end": f.end}))
        .collect();
    let text = serde_json::to_string_pretty(
        &serde_json::json!({"event": hook.name(), "findings": report}),
    )
    .unwrap_or_default();
    match std::fs::write(path, text + "\n") {
        Ok(()) => EXIT_OK,
        Err(e) => {
            eprintln!("error: cannot write {}: {e}", path.display());
            EXIT_USAGE
        }
    }
}

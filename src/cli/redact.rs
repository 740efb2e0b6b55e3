//! `warden redact`: a pipe filter. stdin → redacted stdout, with the
//! redaction rules of one transform event (default: the shipped packs).

use super::{PolicyArgs, EXIT_OK, EXIT_POLICY, EXIT_USAGE};
use std::io::{Read, Write};
use std::path::PathBuf;
use warden::redact::{Finding, KnownValues, Redactor};
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
    /// JSON if the input parses as one JSON document (an object or array up to 64 MiB, a bare
    /// string, number or literal up to 64 KiB), else text, streamed (a text that starts like
    /// JSON is read whole first, up to those sizes).
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
    /// Also mask the exact values of this process's secret-looking environment variables
    /// (names with KEY, SECRET, TOKEN, PASSWORD, …; at least 8 characters), and their base64
    /// and percent-encoded forms. The values are never printed.
    #[arg(long)]
    known_from_env: bool,
    /// Also mask every line of FILE as a known value (with or without --known-from-env).
    #[arg(long, value_name = "FILE")]
    known_file: Option<PathBuf>,
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
    let known = if a.known_from_env || a.known_file.is_some() {
        let k = if a.known_from_env {
            KnownValues::from_env_and_file(a.known_file.as_deref())
        } else {
            KnownValues::from_file(a.known_file.as_deref().unwrap_or(std::path::Path::new("")))
        };
        match k {
            Ok(k) => Some(k),
            Err(e) => {
                eprintln!("error: cannot read the known-values file: {e}");
                return EXIT_USAGE;
            }
        }
    } else {
        None
    };
    let known = known.as_ref().filter(|k| !k.is_empty());
    let stdin = std::io::stdin();
    let mut input = stdin.lock();
    let stdout = std::io::stdout();
    let mut out = std::io::BufWriter::with_capacity(64 << 10, stdout.lock());
    // Findings are kept only for the report (memory stays bounded without one).
    let mut findings = Vec::new();
    let keep = a.report.is_some().then_some(&mut findings);
    let result = match a.format {
        Format::Jsonl => jsonl(redactor, known, &mut input, &mut out, keep),
        Format::Json => {
            let mut all = Vec::new();
            match read_max(&mut input, &mut all) {
                Ok(true) => {
                    eprintln!(
                        "error: JSON input larger than {JSON_MAX} bytes; use --format text to stream it"
                    );
                    return EXIT_USAGE;
                }
                Ok(false) => document(redactor, known, &all, &mut out, keep, false),
                Err(e) => Err(e),
            }
        }
        Format::Text => redactor
            .redact_stream_with(&mut input, &mut out, known, keep)
            .map(|_| ()),
        Format::Auto => {
            // Peek at the first bytes to decide between JSON and streamed text.
            let mut all = Vec::with_capacity(8 << 10);
            let peek = (&mut input)
                .take(8 << 10)
                .read_to_end(&mut all)
                .and_then(|n| {
                    // a bare JSON value is decided on its first SCALAR_MAX + 1 bytes
                    if n == 8 << 10 && starts_scalar(&all) {
                        let more = (SCALAR_MAX + 1 - all.len()) as u64;
                        (&mut input).take(more).read_to_end(&mut all)
                    } else {
                        Ok(n)
                    }
                });
            match peek {
                Err(e) => Err(e),
                Ok(_) if !looks_json(&all) => redactor
                    .redact_stream_with(
                        std::io::Cursor::new(all).chain(&mut input),
                        &mut out,
                        known,
                        keep,
                    )
                    .map(|_| ()),
                Ok(_) => match read_max(&mut input, &mut all) {
                    Err(e) => Err(e),
                    // Too big to read whole: a text log that starts like JSON is streamed.
                    Ok(true) => redactor
                        .redact_stream_with(
                            std::io::Cursor::new(all).chain(&mut input),
                            &mut out,
                            known,
                            keep,
                        )
                        .map(|_| ()),
                    Ok(false) => document(redactor, known, &all, &mut out, keep, true),
                },
            }
        }
    };
    match result.and_then(|_| out.flush()) {
        // the reader left (`warden redact < log | head`): stop quietly, as `emit` does
        Err(e) if e.kind() == std::io::ErrorKind::BrokenPipe => {}
        Err(e) => {
            eprintln!("error: {e}");
            return EXIT_USAGE;
        }
        Ok(()) => {}
    }
    write_report(a.report.as_deref(), hook, &findings)
}

/// The longest bare JSON string, number or literal that is parsed as a JSON document (auto
/// mode and each JSON Lines line); a longer one is text, so a long line that only starts like
/// one (a minified script, `\r` progress output) is streamed with bounded memory.
const SCALAR_MAX: usize = 64 << 10;

/// Whether `b`, the input's first bytes (auto mode: at least [`SCALAR_MAX`] + 1 of them when it
/// starts like a bare JSON value, all of it when shorter) or one JSON Lines line, may be one JSON
/// document worth reading whole and parsing. An object or array may span lines; a bare string,
/// number or literal holds no raw line break, so text on a later line means plain text.
fn looks_json(b: &[u8]) -> bool {
    if !starts_scalar(b) {
        return warden::redact::may_be_json(b);
    }
    b.len() <= SCALAR_MAX
        && memchr::memchr(b'\n', b)
            .is_none_or(|nl| warden::redact::json_first_byte(&b[nl..]).is_none())
}

/// True if `b` starts like a bare JSON string, number or literal (not an object or array).
fn starts_scalar(b: &[u8]) -> bool {
    warden::redact::may_be_json(b)
        && !matches!(warden::redact::json_first_byte(b), Some(b'{' | b'['))
}

/// Read the rest of `input` into `all`, up to [`JSON_MAX`]; true if there is more.
fn read_max(input: &mut impl Read, all: &mut Vec<u8>) -> std::io::Result<bool> {
    input
        .take((JSON_MAX - all.len().min(JSON_MAX)) as u64 + 1)
        .read_to_end(all)?;
    Ok(all.len() > JSON_MAX)
}

/// One document: JSON if it is one (`auto`: and looks like one), else text. Used for a whole
/// input and for every line of JSON Lines, so both give the same output for the same text.
fn document(
    rd: &Redactor,
    known: Option<&KnownValues>,
    b: &[u8],
    out: &mut impl Write,
    findings: Option<&mut Vec<Finding>>,
    auto: bool,
) -> std::io::Result<()> {
    if !auto || looks_json(b) {
        if let Ok(text) = std::str::from_utf8(b) {
            if let Some(red) = rd.redact_json(text, known) {
                if let Some(f) = findings {
                    f.extend(red.findings);
                }
                return out.write_all(red.text.as_bytes());
            }
        }
    }
    rd.redact_stream_with(b, out, known, findings).map(|_| ())
}

/// JSON Lines: every line (without its `\n`) exactly as a whole input of that text would be.
fn jsonl(
    rd: &Redactor,
    known: Option<&KnownValues>,
    input: &mut impl Read,
    out: &mut impl Write,
    mut findings: Option<&mut Vec<Finding>>,
) -> std::io::Result<()> {
    let mut r = std::io::BufReader::with_capacity(64 << 10, input);
    let mut line = Vec::new();
    let mut offset = 0;
    loop {
        line.clear();
        if std::io::BufRead::read_until(&mut r, b'\n', &mut line)? == 0 {
            return Ok(());
        }
        let nl = line.last() == Some(&b'\n');
        let body = &line[..line.len() - usize::from(nl)];
        let mut fs = Vec::new();
        document(
            rd,
            known,
            body,
            out,
            findings.is_some().then_some(&mut fs),
            true,
        )?;
        if let Some(f) = findings.as_deref_mut() {
            f.extend(fs.into_iter().map(|mut x| {
                x.start += offset;
                x.end += offset;
                x
            }));
        }
        if nl {
            out.write_all(b"\n")?;
        }
        offset += line.len();
    }
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

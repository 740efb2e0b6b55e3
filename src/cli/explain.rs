//! `warden explain`: how one event is evaluated, for a human (or, with
//! `--format json`, for a tool). The library side is
//! `warden::eval::explain`.

use super::{PolicyArgs, EXIT_OK, EXIT_POLICY, EXIT_USAGE};
use std::path::PathBuf;
use std::sync::Arc;
use std::time::Instant;
use warden::diag::{Severity, SourceFile};
use warden::eval::explain::{CondTrace, Explanation, Outcome};
use warden::syntax::{self, Format as SyntaxFormat};
use warden::{Event, Policy};

pub(crate) const AFTER_HELP: &str = "\
Examples:
  warden explain --tool terminal --args '{\"command\":\"rm -rf /\"}'
  warden explain --policy policies/ --event examples/rm-rf.json
  echo '{\"hook_event_name\":\"pre_llm_call\",\"extra\":{\"user_message\":\"hi\"}}' | warden explain --event -
  warden explain --policy site.warden --message \"deploy to prod\" --format json

Exit codes:
  0  explained (whatever the decision)
  1  the policy has errors (run `warden check`)
  2  usage or I/O error (unreadable event, bad --args JSON)";

/// Output formats of `explain`.
#[derive(clap::ValueEnum, Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum Format {
    /// A readable report.
    Human,
    /// The explanation as JSON.
    Json,
}

#[derive(clap::Args)]
pub(crate) struct Args {
    #[command(flatten)]
    policy: PolicyArgs,
    /// The event: a Hermes hook payload as a JSON file, or `-` for stdin.
    #[arg(long, value_name = "FILE|-", conflicts_with_all = ["tool", "message"])]
    event: Option<PathBuf>,
    /// Shortcut: a pre_tool_call of this tool (with --args).
    #[arg(long, value_name = "NAME", conflicts_with = "message")]
    tool: Option<String>,
    /// The tool arguments as a JSON object (with --tool).
    #[arg(long, value_name = "JSON", requires = "tool")]
    args: Option<String>,
    /// Shortcut: a pre_llm_call carrying this user message.
    #[arg(long, value_name = "TEXT")]
    message: Option<String>,
    /// The working directory of a --tool / --message event.
    #[arg(long, value_name = "DIR")]
    cwd: Option<String>,
    /// Output format.
    #[arg(long, value_enum, default_value = "human")]
    format: Format,
}

/// Stage times, in microseconds.
#[derive(serde::Serialize, Default)]
struct Timings {
    load_parse_us: f64,
    check_us: f64,
    compile_us: f64,
    prefilter_us: f64,
    evaluate_us: f64,
}

fn us(t: Instant) -> f64 {
    t.elapsed().as_secs_f64() * 1e6
}

fn event_of(a: &Args) -> Result<Event, String> {
    if let Some(path) = &a.event {
        let bytes = super::input::read_bytes(path)?;
        // the same strict parse as `warden hook` and `warden eval` (runtime::parse)
        return warden::runtime::parse(warden::runtime::Payload::Bytes(&bytes))
            .map_err(|e| format!("{}: {e}", path.display()));
    }
    let mut ev = if let Some(tool) = &a.tool {
        let args = match &a.args {
            Some(s) => {
                serde_json::from_str(s).map_err(|e| format!("--args is not a JSON object: {e}"))?
            }
            None => serde_json::json!({}),
        };
        if !args.is_object() {
            return Err("--args must be a JSON object, e.g. '{\"command\":\"ls\"}'".into());
        }
        Event::tool_call(tool, args)
    } else if let Some(m) = &a.message {
        Event::llm_call(m)
    } else {
        return Err(
            "give an event: --event FILE|-, --tool NAME [--args JSON], or --message TEXT".into(),
        );
    };
    ev.cwd = a.cwd.clone();
    // what the hook would see ($HERMES_HOME, … for self-protection)
    ev.env = warden::paths::location_env();
    Ok(ev)
}

pub(crate) fn run(a: Args) -> i32 {
    let event = match event_of(&a) {
        Ok(e) => e,
        Err(e) => {
            eprintln!("error: {e}");
            return EXIT_USAGE;
        }
    };
    let mut timings = Timings::default();

    // Load and parse, then check, timed apart (what `Policy::load` does in one step).
    let t = Instant::now();
    let paths = a.policy.paths();
    let sources = if paths.is_empty() {
        warden::policy::builtin_sources()
    } else {
        match warden::policy::read_sources(&paths) {
            Ok(s) => s,
            Err(e) => {
                eprintln!("error: {e}");
                return EXIT_USAGE;
            }
        }
    };
    let mut diags = Vec::new();
    let mut parsed = Vec::with_capacity(sources.len());
    for (path, text) in sources {
        let format = SyntaxFormat::of_path(&path).unwrap_or(SyntaxFormat::Warden);
        let file = Arc::new(SourceFile { path, text });
        let (tree, d) = syntax::parse_file(&file, format);
        diags.extend(d);
        parsed.push((file, tree));
    }
    timings.load_parse_us = us(t);
    let t = Instant::now();
    let (checked, d) = warden::check::check(&parsed, &warden::check::CheckOptions::default());
    diags.extend(d);
    timings.check_us = us(t);
    if diags.iter().any(|d| d.severity == Severity::Error) {
        let errors: Vec<String> = diags
            .iter()
            .filter(|d| d.severity == Severity::Error)
            .map(|d| d.to_string())
            .collect();
        eprintln!(
            "error: the policy has errors (run `warden check` for source context):\n  {}",
            errors.join("\n  ")
        );
        return EXIT_POLICY;
    }
    let files: Vec<String> = parsed
        .iter()
        .map(|(f, _)| super::sarif::relative(&f.path))
        .collect();
    let (sources, trees) = parsed.into_iter().unzip();
    let policy = Policy {
        checked,
        warnings: diags,
        sources,
        trees,
    };
    let t = Instant::now();
    let set = match policy.compile() {
        Ok(s) => s,
        Err(e) => {
            eprintln!("error: {e}");
            return EXIT_POLICY;
        }
    };
    timings.compile_us = us(t);
    let x = set.explain(&event);
    timings.prefilter_us = x.timings.prefilter_us;
    timings.evaluate_us = x.timings.evaluate_us;

    match a.format {
        Format::Json => {
            let v = serde_json::json!({
                "policy": { "files": files, "rules": set.rule_count() },
                "explanation": x,
                "timings": timings,
            });
            super::emit(&(serde_json::to_string_pretty(&v).unwrap_or_default() + "\n"));
        }
        Format::Human => super::emit(&human(&event, &files, &x, &timings)),
    }
    EXIT_OK
}

fn event_summary(e: &Event) -> String {
    let mut parts = vec![format!("event: {}", e.hook.name())];
    let q = |s: &str| serde_json::Value::String(s.to_string()).to_string();
    if let Some(t) = &e.tool {
        parts.push(format!("tool={}", q(t)));
    }
    if !e.args.is_null() {
        parts.push(format!("args={}", e.args));
    }
    for (k, v) in [
        ("cwd", &e.cwd),
        ("user_message", &e.user_message),
        ("result", &e.result),
        ("command", &e.command),
        ("output", &e.output),
        ("response_text", &e.response_text),
    ] {
        if let Some(v) = v {
            parts.push(format!("{k}={}", q(v)));
        }
    }
    parts.join("  ")
}

fn tree(out: &mut String, t: &CondTrace, depth: usize) {
    let pad = "  ".repeat(depth);
    let mark = if t.value { "[true ]" } else { "[false]" };
    let text = match t.op {
        "and" | "or" | "not" => t.op.to_string(),
        _ => t.text.clone(),
    };
    match &t.detail {
        Some(d) => out.push_str(&format!("{pad}{mark} {text}  -- {d}\n")),
        None => out.push_str(&format!("{pad}{mark} {text}\n")),
    }
    for c in &t.children {
        tree(out, c, depth + 1);
    }
}

fn ms(us: f64) -> String {
    if us >= 1000.0 {
        format!("{:.2} ms", us / 1000.0)
    } else {
        format!("{us:.1} µs")
    }
}

fn human(event: &Event, files: &[String], x: &Explanation, t: &Timings) -> String {
    let mut out = String::new();
    out.push_str(&event_summary(event));
    out.push('\n');
    let shown: Vec<&str> = files.iter().take(4).map(String::as_str).collect();
    let more = if files.len() > 4 {
        format!(", … {} more", files.len() - 4)
    } else {
        String::new()
    };
    out.push_str(&format!(
        "policy: {} rules from {} file(s): {}{more}\n\n",
        x.prefilter.rules_total,
        files.len(),
        shown.join(", ")
    ));

    let p = &x.prefilter;
    out.push_str(&format!(
        "prefilter: {} of {} rules on {} are candidates; {} skipped without evaluation\n",
        p.candidates.len(),
        p.rules_on_hook,
        x.event,
        p.skipped
    ));
    for h in &p.hits {
        let lit = serde_json::Value::String(h.literal.clone());
        // Program-name hits come from the parsed command line, not a byte range.
        if h.start == h.end {
            out.push_str(&format!(
                "  program {lit} in {} -> {}\n",
                h.field,
                h.rules.join(", ")
            ));
        } else {
            out.push_str(&format!(
                "  literal {lit} in {} at {}..{} -> {}\n",
                h.field,
                h.start,
                h.end,
                h.rules.join(", ")
            ));
        }
    }
    if !p.unfiltered.is_empty() {
        out.push_str(&format!(
            "  always evaluated (no literal): {}\n",
            p.unfiltered.join(", ")
        ));
    }
    if p.redaction_rules > 0 {
        out.push_str(&format!(
            "  redaction rules on this event: {} (run by the redaction engine)\n",
            p.redaction_rules
        ));
    }
    out.push('\n');

    out.push_str("rules:\n");
    if x.rules.is_empty() {
        out.push_str("  (no candidate rule)\n");
    }
    for r in &x.rules {
        let outcome = match r.outcome {
            Outcome::Matched => "MATCHED",
            Outcome::NoMatch => "no match",
            Outcome::Unless => "not applied: `unless` holds",
            Outcome::Exempted => "EXEMPTED",
        };
        out.push_str(&format!(
            "  {} ({}) at {}: {outcome}\n",
            r.rule, r.action, r.location
        ));
        out.push_str(&format!("    considered: {}\n", r.considered_because));
        out.push_str("    when:\n");
        tree(&mut out, &r.when, 3);
        if let Some(u) = &r.unless {
            out.push_str("    unless:\n");
            tree(&mut out, u, 3);
        }
        for e in &r.exemptions {
            out.push_str(&format!(
                "    exemption at {}{}: {} (\"{}\"{})\n",
                e.location,
                if e.when.is_some() {
                    " with a condition"
                } else {
                    ""
                },
                if e.applies {
                    "APPLIES"
                } else {
                    "does not apply"
                },
                e.because,
                e.until
                    .as_ref()
                    .map_or(String::new(), |u| format!(", until {u}"))
            ));
            if let Some(w) = &e.when {
                tree(&mut out, w, 3);
            }
        }
    }
    out.push('\n');

    out.push_str("decision:\n");
    for c in &x.combination {
        out.push_str(&format!("  {c}\n"));
    }
    let d = serde_json::to_string(&x.verdict.decision).unwrap_or_default();
    out.push_str(&format!("  => {d}\n\n"));
    out.push_str(&format!(
        "timings: load/parse {}, check {}, compile {}, prefilter {}, evaluate {}\n",
        ms(t.load_parse_us),
        ms(t.check_us),
        ms(t.compile_us),
        ms(t.prefilter_us),
        ms(t.evaluate_us)
    ));
    out
}

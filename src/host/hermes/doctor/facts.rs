//! Facts about the installed Hermes: its version and what it honours (from the
//! capabilities table), the hook's `--host` against it, and which events
//! warden covers with which packs live on each.

use super::super::{capabilities, HostSpec};
use super::{Report, Status};
use std::fmt::Write as _;

/// The `--host` of a hook command line.
pub(super) fn host_arg(argv: &[String]) -> Option<String> {
    let mut it = argv.iter().skip(2);
    while let Some(a) = it.next() {
        if a == "--host" {
            return it.next().cloned();
        }
        if let Some(v) = a.strip_prefix("--host=") {
            return Some(v.to_string());
        }
    }
    None
}

/// The hook's `--host` against the installed Hermes: a flag claiming more than the
/// installed version honours turns approvals or rewrites into silent allows.
pub(super) fn check_host_flag(argv: &[String], r: &mut Report) {
    let fix =
        "fix: re-run `warden install hermes` (it detects the installed version and writes --host)";
    let flag = host_arg(argv).or_else(|| std::env::var("WARDEN_HOST").ok());
    let spec = match flag.as_deref().map(HostSpec::parse) {
        None => {
            r.add(
                "host_flag",
                Status::Warn,
                "the hook command has no --host: warden answers in the safe dialect (approve and modify become blocks that say what a human must do)",
            )
            .detail
            .push(fix.into());
            return;
        }
        Some(Err(e)) => {
            r.add(
                "host_flag",
                Status::Fail,
                format!("the hook's --host is invalid: {e}"),
            )
            .detail
            .push(fix.into());
            return;
        }
        Some(Ok(s)) => s,
    };
    let installed = r.detected.version.clone();
    let Some(installed) = installed else {
        let st = if spec.caps.approve || spec.caps.modify {
            Status::Warn
        } else {
            Status::Pass
        };
        r.add(
            "host_flag",
            st,
            format!(
                "--host {}: the installed Hermes version could not be read, so warden cannot confirm it{}",
                spec.name(),
                if st == Status::Warn {
                    "; if the installed Hermes drops approve or modify, those calls would run unchecked"
                } else {
                    ""
                }
            ),
        )
        .detail
        .push("pass --hermes-python (or set HERMES_PYTHON) to the Hermes venv's python".into());
        return;
    };
    let want = installed.spec();
    if spec.version.as_ref() == Some(&installed) {
        r.add(
            "host_flag",
            Status::Pass,
            format!("--host {} matches the installed Hermes", spec.name()),
        );
        return;
    }
    let claims_more = (spec.caps.approve && !want.caps.approve)
        || (spec.caps.modify && !want.caps.modify)
        || (spec.caps.llm_block && !want.caps.llm_block);
    let c = if claims_more {
        r.add(
            "host_flag",
            Status::Fail,
            format!(
                "--host {} claims directives the installed {} drops: its approvals or rewrites would be ignored and the call would RUN",
                spec.name(),
                installed
            ),
        )
    } else {
        r.add(
            "host_flag",
            Status::Warn,
            format!(
                "--host {} does not match the installed {} (safe, but approve/modify may be blocks where the host could honour them)",
                spec.name(),
                installed
            ),
        )
    };
    c.detail.push(fix.into());
}

/// Which events warden covers and which packs are live on each.
pub(super) fn report_packs(p: &crate::Policy, events: &[&str], r: &mut Report) {
    use std::collections::BTreeMap;
    let mut packs: BTreeMap<String, Vec<&'static str>> = BTreeMap::new();
    for rule in &p.checked.rules {
        let name = rule.pack.clone().unwrap_or_else(|| {
            rule.origin
                .file
                .path
                .file_name()
                .map(|n| n.to_string_lossy().into_owned())
                .unwrap_or_default()
        });
        let e = packs.entry(name).or_default();
        for h in &rule.hooks {
            if !e.contains(&h.name()) {
                e.push(h.name());
            }
        }
    }
    r.add(
        "events",
        Status::Info,
        format!("warden runs on: {}", events.join(", ")),
    );
    for (pack, hooks) in packs {
        let live: Vec<&str> = hooks
            .iter()
            .copied()
            .filter(|h| events.contains(h))
            .collect();
        let idle: Vec<&str> = hooks
            .iter()
            .copied()
            .filter(|h| !events.contains(h))
            .collect();
        let mut msg = format!("pack {pack}: ");
        if live.is_empty() {
            msg.push_str("not live");
        } else {
            let _ = write!(msg, "live on {}", live.join(", "));
        }
        if !idle.is_empty() {
            let how = if idle.iter().all(|h| h.starts_with("transform_")) {
                " (transforms need the Python plugin)"
            } else {
                ""
            };
            let _ = write!(msg, "; not on {}{how}", idle.join(", "));
        }
        r.add("packs", Status::Info, msg);
    }
}

/// The installed Hermes and, from the capabilities table, what it honours.
pub(super) fn report_version(r: &mut Report) {
    let d = r.detected.clone();
    match (&d.version, &d.source) {
        (Some(v), Some(src)) => {
            r.add(
                "hermes_version",
                Status::Info,
                format!("Hermes {} ({}, from {src})", v.version, v.dist),
            );
        }
        (None, Some(src)) => {
            r.add(
                "hermes_version",
                Status::Warn,
                format!("could not read the Hermes version with {src}"),
            );
        }
        _ => {
            r.add(
                "hermes_version",
                Status::Info,
                "Hermes not found on PATH (pass --hermes-python or set HERMES_PYTHON to the venv's python)",
            );
        }
    }
    r.add("directives", Status::Info, directives(d.version.as_ref()));
}

/// What the installed version honours, in a sentence.
pub fn directives(v: Option<&super::super::Version>) -> String {
    let Some(v) = v else {
        return "Hermes version unknown: warden cannot say what it drops, so the hook answers in the safe \
                dialect unless its --host names a version: approve and modify become blocks that say what \
                a human must do."
            .into();
    };
    let row = capabilities::row(&v.dist, &v.version);
    let caps = v.spec().caps;
    let mut s = match row {
        Some(row) => format!("{v} (proven on {}): ", row.proven),
        None => format!("{v} is not in warden's table: it gets the safe dialect. "),
    };
    let dropped = caps.dropped();
    let _ = write!(
        s,
        "from a shell hook it honours {}; it DROPS {}.",
        honoured(&caps).join(", "),
        if dropped.is_empty() {
            "nothing".to_string()
        } else {
            dropped.join(", ")
        }
    );
    if !caps.llm_block {
        s.push_str(
            " A pre_llm_call block reaches the model as a notice (the message itself is still sent: \
             rotate any credential in it; the Python plugin withholds it).",
        );
    }
    if !caps.fail_closed {
        s.push_str(" Errors, timeouts and crashes of the hook fail OPEN in this version.");
    }
    s
}

fn honoured(c: &crate::host::Capabilities) -> Vec<&'static str> {
    let mut out = Vec::new();
    for (yes, name) in [
        (c.block, "block"),
        (c.approve, "approve"),
        (c.modify, "modify (only changed keys sent)"),
        (c.exit2_blocks, "exit code 2"),
        (c.llm_block, "pre_llm_call block"),
        (c.transforms, "transforms"),
        (c.fail_closed, "fail_closed"),
    ] {
        if yes {
            out.push(name);
        }
    }
    out
}

//! Exemptions: `exempt` items, their rule patterns, reasons and expiry dates.

use super::*;

impl Checker<'_> {
    pub(super) fn check_exempt(
        &mut self,
        file: &Arc<SourceFile>,
        e: &ast::Exempt,
        rules: &[Rule],
    ) -> Option<Exemption> {
        let (pattern, is_prefix) = match e.rule.node.as_str() {
            "*" => (String::new(), true),
            p => match p.strip_suffix('*') {
                Some(prefix) => (prefix.to_string(), true),
                None => (p.to_string(), false),
            },
        };
        let ex = Exemption {
            pattern,
            is_prefix,
            when: None,
            because: e.because.clone(),
            until: e.until.as_ref().map(|u| u.node.clone()),
            origin: self.origin(file, e.rule.span),
        };
        let targets: Vec<&Rule> = rules.iter().filter(|r| ex.covers(&r.id)).collect();
        if targets.is_empty() {
            let sugg = did_you_mean(&e.rule.node, rules.iter().map(|r| r.id.as_str()));
            self.diags.push(
                Diagnostic::error(
                    Code::ExemptUnknownRule,
                    file,
                    e.rule.span,
                    format!("`exempt` names no rule: `{}`", e.rule.node),
                )
                .with_label("no such rule")
                .with_help(match sugg {
                    Some(s) => format!("did you mean `{s}`?"),
                    None => "exempt a rule id from the loaded policy set, or `prefix.*`".into(),
                }),
            );
            return None;
        }
        if e.because.trim().is_empty() {
            self.diags.push(
                Diagnostic::error(
                    Code::ExemptNeedsReason,
                    file,
                    find_in(file, Span::new(e.rule.span.end, file.text.len()), "because")
                        .unwrap_or(e.rule.span),
                    "an exemption needs a reason",
                )
                .with_label("empty `because`")
                .with_help(
                    "say why the exception is safe, e.g. `because \"feature branches are ours\"`",
                ),
            );
        }
        if let Some(until) = &e.until {
            if !valid_date(&until.node) {
                self.diags.push(
                    Diagnostic::error(
                        Code::BadDate,
                        file,
                        until.span,
                        format!("`{}` is not a date", until.node),
                    )
                    .with_label("expected YYYY-MM-DD"),
                );
            } else if until.node.as_str() < self.opts.today.as_str() {
                self.diags.push(
                    Diagnostic::warning(
                        Code::ExemptionExpired,
                        file,
                        until.span,
                        format!("this exemption expired on {}", until.node),
                    )
                    .with_label("expired: no longer applies")
                    .with_help("remove it, or extend `until` if the exception is still needed"),
                );
                return None;
            }
        }
        // The condition must make sense on every hook of every rule it covers.
        let mut hooks: Vec<Hook> = Vec::new();
        for r in &targets {
            for h in &r.hooks {
                if !hooks.contains(h) {
                    hooks.push(*h);
                }
            }
        }
        let when = e.when.as_ref().map(|c| {
            let mut ctx = Ctx::new(file.clone(), &hooks);
            self.cond(c, &mut ctx)
        });
        Some(Exemption { when, ..ex })
    }

    // ---- conditions ------------------------------------------------------
}

pub(super) fn valid_date(s: &str) -> bool {
    let b = s.as_bytes();
    if b.len() != 10 || b[4] != b'-' || b[7] != b'-' {
        return false;
    }
    let num = |r: std::ops::Range<usize>| s[r].parse::<u32>().ok();
    matches!((num(0..4), num(5..7), num(8..10)), (Some(_), Some(m), Some(d)) if (1..=12).contains(&m) && (1..=31).contains(&d))
}

//! Rules: one `rule` item → an IR [`Rule`], and the events it runs on.

use super::*;

impl Checker<'_> {
    pub(super) fn check_rule(
        &mut self,
        file: &Arc<SourceFile>,
        r: &ast::Rule,
        pack: Option<String>,
        origin: Origin,
    ) -> Option<Rule> {
        let before = self.error_count();
        let is_redact = r
            .actions
            .iter()
            .any(|a| matches!(a.node, ast::Action::Redact { .. }));
        let hooks = self.check_events(file, r, is_redact);
        if let Some(sev) = &r.severity {
            if !SEVERITIES.contains(&sev.node.as_str()) {
                let d = Diagnostic::error(
                    Code::BadSeverity,
                    file,
                    sev.span,
                    format!("unknown severity `{}`", sev.node),
                )
                .with_label("not a severity")
                .with_help(match did_you_mean(&sev.node, SEVERITIES) {
                    Some(s) => format!("did you mean `{s}`? (one of {})", SEVERITIES.join(", ")),
                    None => format!("use one of {}", SEVERITIES.join(", ")),
                });
                self.diags.push(d);
            }
        }
        let mut ctx = Ctx::new(file.clone(), &hooks);
        let when = match &r.when {
            Some(c) => self.cond(c, &mut ctx),
            None if is_redact => Expr::Const(true),
            None => {
                self.diags.push(
                    Diagnostic::error(
                        Code::MissingWhen,
                        file,
                        r.id.span,
                        format!("rule `{}` has no `when` condition", r.id.node),
                    )
                    .with_label("this rule")
                    .with_help("add `when CONDITION` (write `when true` to match every event)"),
                );
                Expr::Const(false)
            }
        };
        let unless = r.unless.as_ref().map(|c| self.cond(c, &mut ctx));
        let action = self.check_action(file, r, &hooks)?;
        if matches!(action, Action::Approve { key: None, .. }) {
            self.diags.push(
                Diagnostic::warning(
                    Code::ApproveWithoutKey,
                    file,
                    r.id.span,
                    format!("rule `{}` approves without a `key`", r.id.node),
                )
                .with_label("no rule_key")
                .with_help(
                    "add `key \"scope:name\"` so a human's answer can be remembered per scope",
                ),
            );
        }
        if self.error_count() > before {
            return None;
        }
        Some(Rule {
            id: r.id.node.clone(),
            description: r.description.as_ref().map(|d| d.node.clone()),
            severity: r
                .severity
                .as_ref()
                .map_or(DEFAULT_SEVERITY.to_string(), |s| s.node.clone()),
            tags: r.tags.as_ref().map(|t| t.node.clone()).unwrap_or_default(),
            hooks,
            when,
            unless,
            action,
            pack,
            origin,
        })
    }

    pub(super) fn error_count(&self) -> usize {
        self.diags
            .iter()
            .filter(|d| d.severity == crate::diag::Severity::Error)
            .count()
    }

    pub(super) fn check_events(
        &mut self,
        file: &Arc<SourceFile>,
        r: &ast::Rule,
        is_redact: bool,
    ) -> Vec<Hook> {
        if r.on.is_empty() {
            if is_redact {
                return Hook::TRANSFORMS.to_vec();
            }
            self.diags.push(
                Diagnostic::error(
                    Code::MissingOn,
                    file,
                    r.id.span,
                    format!("rule `{}` does not say which events it runs on", r.id.node),
                )
                .with_label("this rule")
                .with_help("add `on pre_tool_call` (or another event)"),
            );
            return Vec::new();
        }
        let mut hooks = Vec::new();
        for e in &r.on {
            match Hook::from_name(&e.node) {
                Some(h) if !hooks.contains(&h) => hooks.push(h),
                Some(_) => {}
                None => {
                    let sugg = did_you_mean(&e.node, Hook::ALL.iter().map(|h| h.name()));
                    self.diags.push(
                        Diagnostic::error(Code::UnknownEvent, file, e.span, format!("unknown event `{}`", e.node))
                            .with_label("not a Hermes hook")
                            .with_help(match sugg {
                                Some(s) => format!("did you mean `{s}`?"),
                                None => "events are Hermes's VALID_HOOKS names, e.g. pre_tool_call, pre_llm_call, transform_tool_result".into(),
                            }),
                    );
                }
            }
        }
        hooks
    }
}

//! Actions: `block`, `approve`, `modify`, `context`, `redact` checked against the rule's events.

use super::*;

impl Checker<'_> {
    pub(super) fn check_action(
        &mut self,
        file: &Arc<SourceFile>,
        r: &ast::Rule,
        hooks: &[Hook],
    ) -> Option<Action> {
        let Some(first) = r.actions.first() else {
            self.diags.push(
                Diagnostic::error(Code::MissingAction, file, r.id.span, format!("rule `{}` has no action", r.id.node))
                    .with_label("this rule")
                    .with_help("add one of `block \"…\"`, `approve \"…\"`, `modify args.x = …`, `context \"…\"`, `redact /…/ with \"…\"`"),
            );
            return None;
        };
        let first_kind = action_kind(&first.node);
        for extra in &r.actions[1..] {
            let k = action_kind(&extra.node);
            if k != "modify" || first_kind != "modify" {
                self.diags.push(
                    Diagnostic::error(Code::SeveralActions, file, extra.span, format!("rule `{}` has more than one action", r.id.node))
                        .with_label(format!("`{k}` after `{first_kind}`"))
                        .with_help("a rule has exactly one action (several `modify` lines are one action); split it into two rules"),
                );
                return None;
            }
        }
        let allowed: &[Hook] = match first_kind {
            "block" => &[Hook::PreToolCall, Hook::PreLlmCall],
            "approve" | "modify" => &[Hook::PreToolCall],
            "context" => &[Hook::PreLlmCall],
            _ => &Hook::TRANSFORMS,
        };
        for h in hooks {
            if !allowed.contains(h) {
                let names: Vec<&str> = allowed.iter().map(|h| h.name()).collect();
                let span =
                    r.on.iter()
                        .find(|e| e.node == h.name())
                        .map_or(first.span, |e| e.span);
                self.diags.push(
                    Diagnostic::error(
                        Code::ActionNotOnEvent,
                        file,
                        span,
                        format!("`{first_kind}` cannot act on {}", h.name()),
                    )
                    .with_label("this event")
                    .with_help(format!("`{first_kind}` works on {}", names.join(", "))),
                );
            }
        }
        if first_kind != "redact" && first_kind != "withhold" {
            if let Some(span) = r.options.first_span {
                self.diags.push(
                    Diagnostic::error(Code::OptionNeedsRedact, file, span, "only redaction rules take this option")
                        .with_label("redaction option")
                        .with_help("options such as keywords, capture, validate, allow and style go with `redact /…/ with \"…\"`"),
                );
            }
        }
        let tctx = TplCtx {
            file: file.clone(),
            hooks,
        };
        Some(match &first.node {
            ast::Action::Block {
                message,
                placeholder,
            } => {
                if message.trim().is_empty() {
                    self.diags.push(
                        Diagnostic::error(Code::EmptyMessage, file, find_in(file, first.span, "\"\"").unwrap_or(first.span), "a block needs a non-empty message")
                            .with_label("empty message")
                            .with_help("Hermes ignores a block without a message; say what was blocked and why"),
                    );
                }
                if placeholder.is_some() && !hooks.iter().all(|h| *h == Hook::PreLlmCall) {
                    self.diags.push(
                        Diagnostic::error(
                            Code::PlaceholderNeedsLlm,
                            file,
                            first.span,
                            "`placeholder` only applies to pre_llm_call blocks",
                        )
                        .with_label("here"),
                    );
                }
                Action::Block {
                    message: self.template(message, first.span, &tctx),
                    placeholder: placeholder.clone(),
                }
            }
            ast::Action::Approve { message, key } => Action::Approve {
                message: self.template(message, first.span, &tctx),
                key: key.clone(),
            },
            ast::Action::Context { text } => {
                Action::Context(self.template(text, first.span, &tctx))
            }
            ast::Action::Modify { .. } => {
                let mut sets = Vec::new();
                for a in &r.actions {
                    let ast::Action::Modify { field, value } = &a.node else {
                        continue;
                    };
                    let key = match field.node.segments.as_slice() {
                        [Segment::Key(root), Segment::Key(k)] if root == "args" => k.clone(),
                        _ => {
                            self.diags.push(
                                Diagnostic::error(Code::BadModifyTarget, file, field.span, format!("cannot modify `{}`", field.node))
                                    .with_label("not a top-level tool argument")
                                    .with_help("modify assigns one top-level argument, e.g. `modify args.command = …` (Hermes merges args shallowly)"),
                            );
                            continue;
                        }
                    };
                    if let Some(v) = self.value_expr(value, &tctx, a.span) {
                        sets.push((key, v));
                    }
                }
                Action::Modify(sets)
            }
            ast::Action::Redact { pattern, replace } => {
                let parsed = self.parse_checked_regex(file, pattern);
                for p in &r.options.allow_patterns {
                    self.check_regex(file, p);
                }
                if let Some(v) = &r.options.validate {
                    if !validator_names().any(|n| n == v.node) {
                        self.diags.push(
                            Diagnostic::error(
                                Code::UnknownValidator,
                                file,
                                v.span,
                                format!("unknown validator `{}`", v.node),
                            )
                            .with_label("not a validator")
                            .with_help(
                                match did_you_mean(&v.node, validator_names()) {
                                    Some(s) => format!("did you mean `{s}`?"),
                                    None => format!(
                                        "validators: {}",
                                        validator_names().collect::<Vec<_>>().join(", ")
                                    ),
                                },
                            ),
                        );
                    }
                }
                if let Some(c) = &r.options.capture {
                    // parsed above unless regexes are not validated (or it is invalid)
                    let re = parsed.or_else(|| crate::syntax::parse_regex(&pattern.source()).ok());
                    if let Some(re) = re {
                        let groups =
                            regex_syntax::hir::Hir::properties(&re).explicit_captures_len();
                        if c.node as usize > groups {
                            self.diags.push(
                                Diagnostic::error(
                                    Code::BadCapture,
                                    file,
                                    c.span,
                                    format!(
                                        "the regex has {groups} capture group(s), not {}",
                                        c.node
                                    ),
                                )
                                .with_label("no such group"),
                            );
                        }
                    }
                }
                Action::Redact(Box::new(RedactRule {
                    pattern: pattern.clone(),
                    replace: replace.clone(),
                    options: r.options.clone(),
                }))
            }
        })
    }
}

pub(super) fn action_kind(a: &ast::Action) -> &'static str {
    match a {
        ast::Action::Block { .. } => "block",
        ast::Action::Approve { .. } => "approve",
        ast::Action::Modify { .. } => "modify",
        ast::Action::Context { .. } => "context",
        ast::Action::Redact { .. } => "redact",
    }
}

//! Stage 2, check: syntax trees of every file → one [`CheckedPolicy`].
//!
//! Resolves `list` and `define` names (global across the policy set), checks
//! every field against the event schema of every hook its rule runs on,
//! validates regexes (pointing into the regex on error), templates, actions,
//! packs and exemptions, and reports every problem it finds, not the first.

pub mod ir;

use crate::diag::{did_you_mean, Diagnostic, SourceFile, Span};
use crate::event::{Field, FieldError, Hook, PathSeg};
use crate::syntax::ast::{self, Cond, FieldPath, Item, Op, Operand, Scalar, Segment, Spanned};
use ir::*;
use std::collections::HashMap;
use std::sync::Arc;

/// Validator names a redaction rule may use.
pub const VALIDATORS: [&str; 5] = ["luhn", "iban", "ssn", "github_crc32", "jwt"];
const SEVERITIES: [&str; 5] = ["info", "low", "medium", "high", "critical"];
const DEFAULT_SEVERITY: &str = "medium";

/// Options for checking.
#[derive(Clone, Debug)]
pub struct CheckOptions {
    /// Today, `YYYY-MM-DD`, for exemption expiry.
    pub today: String,
    /// Validate regexes (parse them). The hook's cached path may skip this
    /// for sources already checked.
    pub validate_regexes: bool,
}

impl Default for CheckOptions {
    fn default() -> Self {
        CheckOptions {
            today: today(),
            validate_regexes: true,
        }
    }
}

/// Check parsed files as one policy set. Returns the checked policy and
/// every diagnostic (errors and warnings); the policy is only usable when no
/// diagnostic is an error.
pub fn check(
    files: &[(Arc<SourceFile>, ast::PolicyFile)],
    opts: &CheckOptions,
) -> (CheckedPolicy, Vec<Diagnostic>) {
    let mut c = Checker {
        opts,
        diags: Vec::new(),
        lists: HashMap::new(),
        defines: HashMap::new(),
    };
    c.collect_names(files);
    let mut out = CheckedPolicy::default();
    let mut seen: HashMap<String, Origin> = HashMap::new();
    for (file, tree) in files {
        let pack = c.check_pack(file, tree, &mut out);
        for item in &tree.items {
            if let Item::Rule(r) = item {
                if let Some(first) = seen.get(&r.id.node) {
                    c.diags.push(
                        Diagnostic::error(
                            "duplicate-rule",
                            file,
                            r.id.span,
                            format!("rule `{}` is defined twice", r.id.node),
                        )
                        .with_label("second definition")
                        .with_help(format!(
                            "the first is at {}; rule ids must be unique across the policy set",
                            first.location()
                        )),
                    );
                    continue;
                }
                let origin = Origin::new(file, r.id.span);
                seen.insert(r.id.node.clone(), origin.clone());
                if let Some(rule) = c.check_rule(file, r, pack.clone(), origin) {
                    out.rules.push(rule);
                }
            }
        }
    }
    for (file, tree) in files {
        for item in &tree.items {
            if let Item::Exempt(e) = item {
                if let Some(ex) = c.check_exempt(file, e, &out.rules) {
                    out.exemptions.push(ex);
                }
            }
        }
    }
    (out, c.diags)
}

struct Checker<'a> {
    opts: &'a CheckOptions,
    diags: Vec<Diagnostic>,
    lists: HashMap<String, (Arc<SourceFile>, Vec<Spanned<Scalar>>)>,
    defines: HashMap<String, (Arc<SourceFile>, Cond)>,
}

/// What a condition is checked against.
struct Ctx<'s> {
    file: Arc<SourceFile>,
    hooks: &'s [Hook],
    stack: Vec<String>,
}

impl Checker<'_> {
    fn collect_names(&mut self, files: &[(Arc<SourceFile>, ast::PolicyFile)]) {
        let mut where_: HashMap<String, String> = HashMap::new();
        for (file, tree) in files {
            for item in &tree.items {
                let (name, kind) = match item {
                    Item::List(l) => (&l.name, "list"),
                    Item::Define(d) => (&d.name, "define"),
                    _ => continue,
                };
                let loc = {
                    let (l, c) = file.line_col(name.span.start);
                    format!("{}:{l}:{c}", file.path.display())
                };
                if let Some(first) = where_.get(&name.node) {
                    self.diags.push(
                        Diagnostic::error(
                            "duplicate-name",
                            file,
                            name.span,
                            format!("`{}` is already defined", name.node),
                        )
                        .with_label(format!("second {kind} with this name"))
                        .with_help(format!("the first is at {first}")),
                    );
                    continue;
                }
                where_.insert(name.node.clone(), loc);
                match item {
                    Item::List(l) => {
                        self.lists
                            .insert(l.name.node.clone(), (file.clone(), l.values.clone()));
                    }
                    Item::Define(d) => {
                        self.defines
                            .insert(d.name.node.clone(), (file.clone(), d.condition.clone()));
                    }
                    _ => {}
                }
            }
        }
    }

    fn check_pack(
        &mut self,
        file: &Arc<SourceFile>,
        tree: &ast::PolicyFile,
        out: &mut CheckedPolicy,
    ) -> Option<String> {
        let mut name = None;
        for item in &tree.items {
            let Item::Pack(p) = item else { continue };
            if name.is_some() {
                self.diags.push(
                    Diagnostic::error(
                        "duplicate-pack",
                        file,
                        p.name.span,
                        "a file declares at most one pack",
                    )
                    .with_label("second `pack` header"),
                );
                continue;
            }
            if semver::Version::parse(&normalize_version(&p.version.node)).is_err() {
                self.diags.push(
                    Diagnostic::error(
                        "bad-version",
                        file,
                        p.version.span,
                        format!("`{}` is not a version", p.version.node),
                    )
                    .with_label("expected MAJOR.MINOR.PATCH"),
                );
            }
            if let Some(req) = &p.requires {
                match semver::VersionReq::parse(&req.node) {
                    Ok(r) => {
                        let me =
                            semver::Version::parse(env!("CARGO_PKG_VERSION")).expect("own version");
                        if !r.matches(&me) {
                            self.diags.push(
                                Diagnostic::error("incompatible-pack", file, req.span, format!(
                                    "pack `{}` requires warden {}, but this is warden {}", p.name.node, req.node, me
                                ))
                                .with_label("not satisfied")
                                .with_help("upgrade warden, or use a version of the pack made for this one"),
                            );
                        }
                    }
                    Err(e) => self.diags.push(
                        Diagnostic::error(
                            "bad-version",
                            file,
                            req.span,
                            format!("bad version requirement: {e}"),
                        )
                        .with_label("here"),
                    ),
                }
            }
            out.packs.push(Pack {
                name: p.name.node.clone(),
                version: p.version.node.clone(),
                origin: Origin::new(file, p.name.span),
            });
            name = Some(p.name.node.clone());
        }
        name
    }

    fn check_rule(
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
                    "bad-severity",
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
        let mut ctx = Ctx {
            file: file.clone(),
            hooks: &hooks,
            stack: Vec::new(),
        };
        let when = match &r.when {
            Some(c) => self.cond(c, &mut ctx),
            None if is_redact => Expr::Const(true),
            None => {
                self.diags.push(
                    Diagnostic::error(
                        "missing-when",
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
                    "approve-without-key",
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

    fn error_count(&self) -> usize {
        self.diags
            .iter()
            .filter(|d| d.severity == crate::diag::Severity::Error)
            .count()
    }

    fn check_events(
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
                    "missing-on",
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
                        Diagnostic::error("unknown-event", file, e.span, format!("unknown event `{}`", e.node))
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

    fn check_action(
        &mut self,
        file: &Arc<SourceFile>,
        r: &ast::Rule,
        hooks: &[Hook],
    ) -> Option<Action> {
        let Some(first) = r.actions.first() else {
            self.diags.push(
                Diagnostic::error("missing-action", file, r.id.span, format!("rule `{}` has no action", r.id.node))
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
                    Diagnostic::error("several-actions", file, extra.span, format!("rule `{}` has more than one action", r.id.node))
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
                        "action-not-on-event",
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
                    Diagnostic::error("option-needs-redact", file, span, "only redaction rules take this option")
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
                        Diagnostic::error("empty-message", file, find_in(file, first.span, "\"\"").unwrap_or(first.span), "a block needs a non-empty message")
                            .with_label("empty message")
                            .with_help("Hermes ignores a block without a message; say what was blocked and why"),
                    );
                }
                if placeholder.is_some() && !hooks.iter().all(|h| *h == Hook::PreLlmCall) {
                    self.diags.push(
                        Diagnostic::error(
                            "placeholder-needs-llm",
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
                                Diagnostic::error("bad-modify-target", file, field.span, format!("cannot modify `{}`", field.node))
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
                self.check_regex(file, pattern);
                for p in &r.options.allow_patterns {
                    self.check_regex(file, p);
                }
                if let Some(v) = &r.options.validate {
                    if !VALIDATORS.contains(&v.node.as_str()) {
                        self.diags.push(
                            Diagnostic::error(
                                "unknown-validator",
                                file,
                                v.span,
                                format!("unknown validator `{}`", v.node),
                            )
                            .with_label("not a validator")
                            .with_help(
                                match did_you_mean(&v.node, VALIDATORS) {
                                    Some(s) => format!("did you mean `{s}`?"),
                                    None => format!("validators: {}", VALIDATORS.join(", ")),
                                },
                            ),
                        );
                    }
                }
                if let Some(c) = &r.options.capture {
                    if let Ok(re) = crate::syntax::parse_regex(&pattern.source()) {
                        let groups =
                            regex_syntax::hir::Hir::properties(&re).explicit_captures_len();
                        if c.node as usize > groups {
                            self.diags.push(
                                Diagnostic::error(
                                    "bad-capture",
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

    fn check_exempt(
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
            origin: Origin::new(file, e.rule.span),
        };
        let targets: Vec<&Rule> = rules.iter().filter(|r| ex.covers(&r.id)).collect();
        if targets.is_empty() {
            let sugg = did_you_mean(&e.rule.node, rules.iter().map(|r| r.id.as_str()));
            self.diags.push(
                Diagnostic::error(
                    "exempt-unknown-rule",
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
                    "exempt-needs-reason",
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
                        "bad-date",
                        file,
                        until.span,
                        format!("`{}` is not a date", until.node),
                    )
                    .with_label("expected YYYY-MM-DD"),
                );
            } else if until.node.as_str() < self.opts.today.as_str() {
                self.diags.push(
                    Diagnostic::warning(
                        "exemption-expired",
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
            let mut ctx = Ctx {
                file: file.clone(),
                hooks: &hooks,
                stack: Vec::new(),
            };
            self.cond(c, &mut ctx)
        });
        Some(Exemption { when, ..ex })
    }

    // ---- conditions ------------------------------------------------------

    fn cond(&mut self, c: &Cond, ctx: &mut Ctx) -> Expr {
        match c {
            Cond::And(v) => Expr::And(v.iter().map(|c| self.cond(c, ctx)).collect()),
            Cond::Or(v) => Expr::Or(v.iter().map(|c| self.cond(c, ctx)).collect()),
            Cond::Not(c) => Expr::Not(Box::new(self.cond(c, ctx))),
            Cond::Const(b) => Expr::Const(*b),
            Cond::Ref(name) => self.macro_ref(name, ctx),
            Cond::Exists(f) => match self.field(&f.node, f.span, ctx) {
                Some(field) => Expr::Atom(Atom {
                    field,
                    test: Test::Exists,
                    span: f.span,
                }),
                None => Expr::Const(false),
            },
            Cond::Under(u) => {
                let field = self.field(&u.field.node, u.field.span, ctx);
                let target = match &u.target.node {
                    Operand::Value(Scalar::Str(s)) => Some(UnderTarget::Paths(vec![s.clone()])),
                    Operand::List(_) => self.string_list(&u.target, ctx).map(UnderTarget::Paths),
                    Operand::Name(n)
                        if n.segments.len() == 1 && self.lists.contains_key(n.root()) =>
                    {
                        self.string_list(&u.target, ctx).map(UnderTarget::Paths)
                    }
                    Operand::Name(n) => self.field(n, u.target.span, ctx).map(UnderTarget::Field),
                    _ => {
                        self.type_error(ctx, u.target.span, "`under` takes a path, a list of paths, a list name or a field such as `cwd`");
                        None
                    }
                };
                match (field, target) {
                    (Some(field), Some(target)) => Expr::Atom(Atom {
                        field,
                        test: Test::Under { target },
                        span: u.field.span,
                    }),
                    _ => Expr::Const(false),
                }
            }
            Cond::Compare(cmp) => self.compare(cmp, ctx),
            Cond::Shell(pred) => self.shell(pred, ctx),
        }
    }

    fn shell(&mut self, pred: &Spanned<ast::ShellPred>, ctx: &mut Ctx) -> Expr {
        use ast::ShellPred as P;
        let span = pred.span;
        let mut fields: Vec<Field> = Vec::new();
        for h in ctx.hooks {
            let f = match h {
                Hook::PreToolCall | Hook::PostToolCall | Hook::TransformToolResult => {
                    Field::Args(vec![PathSeg::Key("command".into())])
                }
                Hook::TransformTerminalOutput => Field::Command,
                other => {
                    self.diags.push(
                        Diagnostic::error("shell-not-on-event", &ctx.file, span, format!("shell predicates do not apply to {}", other.name()))
                            .with_label("no command line on this event")
                            .with_help("shell predicates read `args.command` (tool events) or `command` (transform_terminal_output)"),
                    );
                    return Expr::Const(false);
                }
            };
            if !fields.contains(&f) {
                fields.push(f);
            }
        }
        if fields.len() > 1 {
            self.diags.push(
                Diagnostic::error("shell-mixed-events", &ctx.file, span, "this rule's events hold the command line in different fields")
                    .with_label("ambiguous command field")
                    .with_help("split the rule: one for tool events (`args.command`), one for transform_terminal_output (`command`)"),
            );
            return Expr::Const(false);
        }
        let field = fields
            .pop()
            .unwrap_or(Field::Args(vec![PathSeg::Key("command".into())]));
        let test = match &pred.node {
            P::Unknown => Some(ShellTest::Unknown),
            P::Command { programs, with } => {
                let programs = self.words(programs);
                let mut quals = Vec::with_capacity(with.len());
                for q in with {
                    if let Some(q) = self.qual(q, span, ctx) {
                        quals.push(q);
                    }
                }
                Some(ShellTest::Command { programs, quals })
            }
            P::Pipe { from, to } => Some(ShellTest::Pipe {
                from: self.words(from),
                to: self.words(to),
            }),
            P::Redirect { under: Some(o), .. } => self
                .paths_operand(o, span, ctx)
                .map(ShellTest::RedirectUnder),
            P::Redirect { glob: Some(o), .. } => self.paths_operand(o, span, ctx).and_then(|g| {
                for p in &g {
                    if let Err(e) = globset::Glob::new(p) {
                        self.diags.push(
                            Diagnostic::error(
                                "bad-glob",
                                &ctx.file,
                                span,
                                format!("invalid glob `{p}`: {}", e.kind()),
                            )
                            .with_label("here"),
                        );
                        return None;
                    }
                }
                Some(ShellTest::RedirectGlob(g))
            }),
            P::Redirect { .. } => None,
        };
        match test {
            Some(t) => Expr::Atom(Atom {
                field,
                test: Test::Shell(t),
                span,
            }),
            None => Expr::Const(false),
        }
    }

    fn words(&mut self, w: &ast::Words) -> Vec<String> {
        match w {
            ast::Words::Quoted(s) => vec![s.clone()],
            ast::Words::Bare(s) => match self.lists.get(s) {
                Some((_, vals)) => vals.iter().map(|v| scalar_text(&v.node)).collect(),
                None => vec![s.clone()],
            },
            ast::Words::List(v) => v.clone(),
        }
    }

    fn paths_operand(&mut self, o: &Operand, span: Span, ctx: &Ctx) -> Option<Vec<String>> {
        self.string_list(&Spanned::new(o.clone(), span), ctx)
            .or_else(|| match o {
                Operand::Value(Scalar::Str(s)) => Some(vec![s.clone()]),
                _ => None,
            })
    }

    fn qual(&mut self, q: &ast::ShellQual, span: Span, ctx: &mut Ctx) -> Option<Qual> {
        use ast::ShellQual as Q;
        Some(match q {
            Q::Flags(w) => Qual::Flags(self.words(w)),
            Q::AnyFlag(w) => Qual::AnyFlag(self.words(w)),
            Q::Flag(f) => Qual::Flags(vec![f.clone()]),
            Q::Subcommand(w) => Qual::Subcommand(
                self.words(w)
                    .iter()
                    .map(|s| s.split_whitespace().map(String::from).collect())
                    .collect(),
            ),
            Q::DynamicArgs => Qual::DynamicArgs,
            Q::ArgUnder(o) => Qual::ArgUnder(self.paths_operand(o, span, ctx)?),
            Q::ArgIs(o) => Qual::ArgIs(self.paths_operand(o, span, ctx)?),
            Q::Arg {
                op,
                operand,
                nocase,
            } => {
                if *op == Op::Ne {
                    self.type_error(ctx, span, "`arg !=` would hold for almost any command; write `not command … with arg == …`");
                    return None;
                }
                let test =
                    self.compare_test(*op, &Spanned::new(operand.clone(), span), *nocase, ctx)?;
                Qual::Arg(Box::new(test))
            }
        })
    }

    fn macro_ref(&mut self, name: &Spanned<String>, ctx: &mut Ctx) -> Expr {
        let Some((file, cond)) = self.defines.get(&name.node).cloned() else {
            let cands: Vec<&str> = self.defines.keys().map(String::as_str).collect();
            let mut d = Diagnostic::error(
                "unknown-name",
                &ctx.file,
                name.span,
                format!("unknown condition `{}`", name.node),
            )
            .with_label("not a `define`d condition");
            d = d.with_help(match did_you_mean(&name.node, cands) {
                Some(s) => format!("did you mean `{s}`?"),
                None if self.lists.contains_key(&name.node) => format!("`{}` is a list; use it as `FIELD in {}`", name.node, name.node),
                None => "a bare name in a condition must be a `define`; for a field test write e.g. `FIELD exists`".into(),
            });
            self.diags.push(d);
            return Expr::Const(false);
        };
        if ctx.stack.contains(&name.node) {
            self.diags.push(
                Diagnostic::error(
                    "recursive-define",
                    &ctx.file,
                    name.span,
                    format!("`{}` refers to itself", name.node),
                )
                .with_label("recursion")
                .with_help(format!(
                    "definition chain: {} -> {}",
                    ctx.stack.join(" -> "),
                    name.node
                )),
            );
            return Expr::Const(false);
        }
        ctx.stack.push(name.node.clone());
        let saved = std::mem::replace(&mut ctx.file, file);
        let e = self.cond(&cond, ctx);
        ctx.file = saved;
        ctx.stack.pop();
        e
    }

    fn compare(&mut self, cmp: &ast::Compare, ctx: &mut Ctx) -> Expr {
        let Some(field) = self.field(&cmp.field.node, cmp.field.span, ctx) else {
            return Expr::Const(false);
        };
        let op = if cmp.op.node == Op::Ne {
            Op::Eq
        } else {
            cmp.op.node
        };
        let Some(test) = self.compare_test(op, &cmp.operand, cmp.nocase, ctx) else {
            return Expr::Const(false);
        };
        let e = Expr::Atom(Atom {
            field,
            test,
            span: cmp.field.span,
        });
        if cmp.op.node == Op::Ne {
            Expr::Not(Box::new(e))
        } else {
            e
        }
    }

    /// The test an operator and operand make (`!=` is handled by the caller).
    fn compare_test(
        &mut self,
        op: Op,
        operand: &Spanned<Operand>,
        nocase: bool,
        ctx: &Ctx,
    ) -> Option<Test> {
        match op {
            Op::Eq | Op::Ne => {
                let Operand::Value(v) = &operand.node else {
                    self.type_error(
                        ctx,
                        operand.span,
                        "`==` and `!=` compare with one value; use `in [...]` for a list",
                    );
                    return None;
                };
                Some(Test::Eq {
                    value: v.clone(),
                    nocase,
                })
            }
            Op::In => self
                .scalar_list(operand, ctx)
                .map(|values| Test::In { values, nocase }),
            Op::Contains | Op::StartsWith | Op::EndsWith => {
                let needles = match &operand.node {
                    Operand::Value(Scalar::Str(s)) => Some(vec![s.clone()]),
                    Operand::List(_) | Operand::Name(_) => self.string_list(operand, ctx),
                    _ => {
                        self.type_error(
                            ctx,
                            operand.span,
                            &format!("`{}` takes a string or a list of strings", op.as_str()),
                        );
                        None
                    }
                }?;
                Some(match op {
                    Op::Contains => Test::Contains { needles, nocase },
                    Op::StartsWith => Test::StartsWith { needles, nocase },
                    _ => Test::EndsWith { needles, nocase },
                })
            }
            Op::Matches => {
                let Operand::Regex(re) = &operand.node else {
                    self.type_error(
                        ctx,
                        operand.span,
                        "`matches` takes a regex such as /pattern/i",
                    );
                    return None;
                };
                let mut re = re.clone();
                if nocase && !re.flags.contains('i') {
                    re.flags.push('i');
                }
                self.check_regex(&ctx.file, &re)
                    .then(|| Test::Matches { regex: re.source() })
            }
            Op::Detects => {
                let patterns = match &operand.node {
                    Operand::Value(Scalar::Str(s)) => Some(vec![s.clone()]),
                    Operand::List(_) | Operand::Name(_) => self.string_list(operand, ctx),
                    _ => {
                        self.type_error(ctx, operand.span, "`detects` takes redaction rule ids such as [\"secret.*\", \"pii.card\"]");
                        None
                    }
                }?;
                Some(Test::Detects { patterns })
            }
            Op::Glob => {
                let patterns = match &operand.node {
                    Operand::Value(Scalar::Str(s)) => Some(vec![s.clone()]),
                    Operand::List(_) | Operand::Name(_) => self.string_list(operand, ctx),
                    _ => {
                        self.type_error(
                            ctx,
                            operand.span,
                            "`glob` takes a pattern string or a list of them",
                        );
                        None
                    }
                }?;
                for p in &patterns {
                    if let Err(e) = globset::Glob::new(p) {
                        self.diags.push(
                            Diagnostic::error(
                                "bad-glob",
                                &ctx.file,
                                operand.span,
                                format!("invalid glob `{p}`: {}", e.kind()),
                            )
                            .with_label("this pattern"),
                        );
                        return None;
                    }
                }
                Some(Test::Glob { patterns })
            }
        }
    }

    fn type_error(&mut self, ctx: &Ctx, span: Span, msg: &str) {
        self.diags
            .push(Diagnostic::error("type", &ctx.file, span, msg.to_string()).with_label("here"));
    }

    /// The members of a literal list or a named list.
    fn scalar_list(&mut self, op: &Spanned<Operand>, ctx: &Ctx) -> Option<Vec<Scalar>> {
        match &op.node {
            Operand::List(v) => Some(v.clone()),
            Operand::Name(n) => {
                let name = n.to_string();
                match self.lists.get(&name) {
                    Some((_, vals)) => Some(vals.iter().map(|v| v.node.clone()).collect()),
                    None => {
                        let sugg = did_you_mean(&name, self.lists.keys().map(String::as_str));
                        self.diags.push(
                            Diagnostic::error(
                                "unknown-list",
                                &ctx.file,
                                op.span,
                                format!("unknown list `{name}`"),
                            )
                            .with_label("not a `list`")
                            .with_help(match sugg {
                                Some(s) => format!("did you mean `{s}`?"),
                                None => "define it with `list NAME = [\"a\", \"b\"]`".into(),
                            }),
                        );
                        None
                    }
                }
            }
            _ => {
                self.type_error(
                    ctx,
                    op.span,
                    "expected a list such as [\"a\", \"b\"] or a list name",
                );
                None
            }
        }
    }

    fn string_list(&mut self, op: &Spanned<Operand>, ctx: &Ctx) -> Option<Vec<String>> {
        let vals = self.scalar_list(op, ctx)?;
        let mut out = Vec::with_capacity(vals.len());
        for v in vals {
            match v {
                Scalar::Str(s) => out.push(s),
                other => {
                    self.type_error(
                        ctx,
                        op.span,
                        &format!("expected strings, found {}", other.to_json()),
                    );
                    return None;
                }
            }
        }
        Some(out)
    }

    /// Resolve a field path and check it against every hook in `ctx`.
    fn field(&mut self, path: &FieldPath, span: Span, ctx: &Ctx) -> Option<Field> {
        let rest: Vec<PathSeg> = path.segments[1..]
            .iter()
            .map(|s| match s {
                Segment::Key(k) => PathSeg::Key(k.as_str().into()),
                Segment::Index(i) => PathSeg::Index(*i),
            })
            .collect();
        let field = match Field::resolve(path.root(), rest) {
            Ok(f) => f,
            Err(FieldError::NotAnObject) => {
                self.diags.push(
                    Diagnostic::error(
                        "unknown-field",
                        &ctx.file,
                        span,
                        format!("`{}` has no sub-fields", path.root()),
                    )
                    .with_label(format!("unknown field {path}"))
                    .with_help("only `args` and `extra` have sub-fields"),
                );
                return None;
            }
            Err(FieldError::Unknown) => {
                let hook = ctx.hooks.first().copied().unwrap_or(Hook::PreToolCall);
                let text = path.to_string();
                let mut cands: Vec<String> = Field::names_for(hook).map(String::from).collect();
                cands.extend(
                    ["args.command", "args.path", "args.content", "args.url"].map(String::from),
                );
                let sugg = did_you_mean(&text, cands.iter().map(String::as_str)).map(String::from);
                self.diags.push(
                    Diagnostic::error(
                        "unknown-field",
                        &ctx.file,
                        span,
                        format!("unknown field `{text}`"),
                    )
                    .with_label(format!("unknown field {text}"))
                    .with_help(match sugg {
                        Some(s) => format!("did you mean `{s}`?"),
                        None => format!(
                            "fields on {}: {}",
                            hook.name(),
                            Field::names_for(hook).collect::<Vec<_>>().join(", ")
                        ),
                    }),
                );
                return None;
            }
        };
        for h in ctx.hooks {
            if !field.available_on(*h) {
                let names: Vec<&str> = Field::names_for(*h).collect();
                let sugg = did_you_mean(field.root_name(), names.iter().copied());
                self.diags.push(
                    Diagnostic::error(
                        "field-not-on-event",
                        &ctx.file,
                        span,
                        format!("field `{}` is not available on {}", field, h.name()),
                    )
                    .with_label(format!("not available on {}", h.name()))
                    .with_help(match sugg {
                        Some(s) => format!(
                            "did you mean `{s}`? fields on {}: {}",
                            h.name(),
                            names.join(", ")
                        ),
                        None => format!("fields on {}: {}", h.name(), names.join(", ")),
                    }),
                );
                return None;
            }
        }
        // The lints on a pre_tool_call `args.cmd` typo: nothing to check, any key may exist.
        Some(field)
    }

    /// Check a regex with regex-syntax; on error point into the regex.
    fn check_regex(&mut self, file: &Arc<SourceFile>, re: &ast::RegexLit) -> bool {
        if !self.opts.validate_regexes {
            return true;
        }
        for f in re.flags.chars() {
            if !"isxm".contains(f) {
                self.diags.push(
                    Diagnostic::error(
                        "bad-regex",
                        file,
                        re.span,
                        format!("unknown regex flag `{f}`"),
                    )
                    .with_label("flags are i, s, m, x"),
                );
                return false;
            }
        }
        match crate::syntax::parse_regex(&re.source()) {
            Ok(_) => true,
            Err(e) => {
                let (msg, span) = regex_error(&e, re);
                self.diags.push(
                    Diagnostic::error("bad-regex", file, span, format!("invalid regex: {msg}"))
                        .with_label(msg),
                );
                false
            }
        }
    }

    fn template(&mut self, text: &str, action: Span, ctx: &TplCtx) -> Template {
        // Point into the message string, not at the whole action.
        let span = find_in(&ctx.file, action, "\"").map_or(action, |s| {
            let end = ctx.file.text[s.end..action.end.min(ctx.file.text.len())]
                .rfind('"')
                .map_or(action.end, |e| s.end + e + 1);
            Span::new(s.start, end)
        });
        match parse_template(text) {
            Ok(parts) => {
                let mut out = Vec::with_capacity(parts.len());
                for p in parts {
                    match p {
                        RawPart::Lit(s) => out.push(TemplatePart::Lit(s)),
                        RawPart::Field(name) if name == "findings" => {
                            out.push(TemplatePart::Findings)
                        }
                        RawPart::Field(name) => {
                            let here =
                                find_in(&ctx.file, span, &format!("{{{name}")).unwrap_or(span);
                            let Some(path) = FieldPath::parse(&name) else {
                                self.diags.push(
                                    Diagnostic::error("bad-template", &ctx.file, here, format!("`{{{name}}}` is not a field"))
                                        .with_label("in this message")
                                        .with_help("write `{args.path}`-style fields, or `{{` / `}}` for literal braces"),
                                );
                                continue;
                            };
                            let c = Ctx {
                                file: ctx.file.clone(),
                                hooks: ctx.hooks,
                                stack: Vec::new(),
                            };
                            if let Some(f) = self.field(&path, here, &c) {
                                out.push(TemplatePart::Field(f));
                            }
                        }
                    }
                }
                Template { parts: out }
            }
            Err(msg) => {
                self.diags.push(
                    Diagnostic::error("bad-template", &ctx.file, span, msg)
                        .with_label("in this message")
                        .with_help("write `{{` and `}}` for literal braces"),
                );
                Template { parts: Vec::new() }
            }
        }
    }

    fn value_expr(&mut self, e: &ast::Expr, ctx: &TplCtx, span: Span) -> Option<ValueExpr> {
        Some(match e {
            ast::Expr::Value(Scalar::Str(s)) => ValueExpr::Template(self.template(s, span, ctx)),
            ast::Expr::Value(v) => ValueExpr::Const(v.clone()),
            ast::Expr::Field(f) => {
                let c = Ctx {
                    file: ctx.file.clone(),
                    hooks: ctx.hooks,
                    stack: Vec::new(),
                };
                ValueExpr::Field(self.field(&f.node, f.span, &c)?)
            }
            ast::Expr::Replace {
                input,
                pattern,
                with,
            } => {
                let input = Box::new(self.value_expr(input, ctx, span)?);
                if !self.check_regex(&ctx.file, pattern) {
                    return None;
                }
                ValueExpr::Replace {
                    input,
                    regex: pattern.source(),
                    with: with.clone(),
                }
            }
        })
    }
}

struct TplCtx<'h> {
    file: Arc<SourceFile>,
    hooks: &'h [Hook],
}

fn action_kind(a: &ast::Action) -> &'static str {
    match a {
        ast::Action::Block { .. } => "block",
        ast::Action::Approve { .. } => "approve",
        ast::Action::Modify { .. } => "modify",
        ast::Action::Context { .. } => "context",
        ast::Action::Redact { .. } => "redact",
    }
}

enum RawPart {
    Lit(String),
    Field(String),
}

fn parse_template(text: &str) -> Result<Vec<RawPart>, String> {
    let mut parts = Vec::new();
    let mut lit = String::new();
    let mut chars = text.chars().peekable();
    while let Some(c) = chars.next() {
        match c {
            '{' if chars.peek() == Some(&'{') => {
                chars.next();
                lit.push('{');
            }
            '}' if chars.peek() == Some(&'}') => {
                chars.next();
                lit.push('}');
            }
            '{' => {
                let mut name = String::new();
                loop {
                    match chars.next() {
                        Some('}') => break,
                        Some(c) => name.push(c),
                        None => return Err("a `{` in this message is never closed".into()),
                    }
                }
                if !lit.is_empty() {
                    parts.push(RawPart::Lit(std::mem::take(&mut lit)));
                }
                parts.push(RawPart::Field(name.trim().to_string()));
            }
            '}' => return Err("a `}` in this message has no matching `{`".into()),
            c => lit.push(c),
        }
    }
    if !lit.is_empty() {
        parts.push(RawPart::Lit(lit));
    }
    Ok(parts)
}

/// A regex-syntax error as a message and a span inside the policy file.
fn regex_error(e: &regex_syntax::Error, re: &ast::RegexLit) -> (String, Span) {
    let (msg, range) = match e {
        regex_syntax::Error::Parse(p) => (
            p.kind().to_string(),
            Some((p.span().start.offset, p.span().end.offset)),
        ),
        regex_syntax::Error::Translate(t) => (
            t.kind().to_string(),
            Some((t.span().start.offset, t.span().end.offset)),
        ),
        other => (other.to_string(), None),
    };
    // Offsets are into `(?flags)pattern`; drop the flag group.
    let flag_len = if re.flags.is_empty() {
        0
    } else {
        re.flags.len() + 3
    };
    let range = range.map(|(s, e)| (s.saturating_sub(flag_len), e.saturating_sub(flag_len)));
    let span = match range {
        // Offsets are into the unescaped pattern; map back through `\/` escapes.
        Some((s, e)) => Span::new(
            re.span.start + raw_offset(&re.pattern, s),
            re.span.start + raw_offset(&re.pattern, e).max(raw_offset(&re.pattern, s) + 1),
        ),
        None => re.span,
    };
    (msg, span)
}

/// Offset in the written regex body of offset `n` of the unescaped pattern.
fn raw_offset(pattern: &str, n: usize) -> usize {
    let slashes = pattern[..n.min(pattern.len())].matches('/').count();
    n + slashes
}

fn valid_date(s: &str) -> bool {
    let b = s.as_bytes();
    if b.len() != 10 || b[4] != b'-' || b[7] != b'-' {
        return false;
    }
    let num = |r: std::ops::Range<usize>| s[r].parse::<u32>().ok();
    matches!((num(0..4), num(5..7), num(8..10)), (Some(_), Some(m), Some(d)) if (1..=12).contains(&m) && (1..=31).contains(&d))
}

/// `1.2` → `1.2.0` so short versions are accepted.
fn normalize_version(v: &str) -> String {
    let core = v.split('-').next().unwrap_or(v);
    let dots = core.matches('.').count();
    let pad = ".0".repeat(2usize.saturating_sub(dots));
    match v.find('-') {
        Some(i) => format!("{}{}{}", &v[..i], pad, &v[i..]),
        None => format!("{v}{pad}"),
    }
}

pub use crate::date::{today, today_from_secs};

/// The span of the first `needle` inside `within` of `file`.
fn find_in(file: &SourceFile, within: Span, needle: &str) -> Option<Span> {
    let text = file
        .text
        .get(within.start..within.end.min(file.text.len()))?;
    text.find(needle)
        .map(|i| Span::new(within.start + i, within.start + i + needle.len()))
}

/// A scalar as plain text (strings without quotes).
fn scalar_text(s: &Scalar) -> String {
    match s {
        Scalar::Str(s) => s.clone(),
        other => other.to_json().to_string(),
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::syntax;

    fn check_str(text: &str) -> (CheckedPolicy, Vec<Diagnostic>) {
        let f = Arc::new(SourceFile {
            path: "t.warden".into(),
            text: text.into(),
        });
        let (tree, mut d) = syntax::parser::parse(&f);
        let (p, d2) = check(
            &[(f, tree)],
            &CheckOptions {
                today: "2026-12-02".into(),
                validate_regexes: true,
            },
        );
        d.extend(d2);
        (p, d)
    }

    fn codes(d: &[Diagnostic]) -> Vec<&str> {
        d.iter().map(|d| d.code).collect()
    }

    #[test]
    fn unknown_field_suggests() {
        let (_, d) = check_str("rule a { on pre_tool_call when args.command == \"x\" and user_mesage == \"y\" block \"m\" }");
        assert_eq!(codes(&d), ["unknown-field"]);
        assert!(
            d[0].help.as_deref().unwrap().contains("user_message")
                || d[0].help.as_deref().unwrap().contains("fields on")
        );
    }

    #[test]
    fn field_must_exist_on_every_hook() {
        let (_, d) = check_str("rule a { on pre_llm_call when tool == \"x\" block \"m\" }");
        assert_eq!(codes(&d), ["field-not-on-event"]);
    }

    #[test]
    fn unknown_event_suggests() {
        let (_, d) = check_str("rule a { on pre_tool_cal when true block \"m\" }");
        assert_eq!(codes(&d), ["unknown-event"]);
        assert_eq!(d[0].help.as_deref(), Some("did you mean `pre_tool_call`?"));
    }

    #[test]
    fn macros_and_lists_resolve_and_cycles_are_errors() {
        let (p, d) = check_str(
            "list t = [\"a\", \"b\"]\ndefine is_t = tool in t\nrule a { on pre_tool_call when is_t block \"m\" }",
        );
        assert!(d.is_empty(), "{d:?}");
        assert!(matches!(
            &p.rules[0].when,
            Expr::Atom(Atom {
                test: Test::In { .. },
                ..
            })
        ));
        let (_, d) =
            check_str("define a = b\ndefine b = a\nrule r { on pre_tool_call when a block \"m\" }");
        assert!(codes(&d).contains(&"recursive-define"), "{d:?}");
    }

    #[test]
    fn actions_are_checked_against_events() {
        let (_, d) = check_str("rule a { on pre_llm_call when true approve \"m\" key \"k\" }");
        assert_eq!(codes(&d), ["action-not-on-event"]);
        let (_, d) = check_str("rule a { on pre_tool_call when true block \"\" }");
        assert_eq!(codes(&d), ["empty-message"]);
        let (_, d) = check_str("rule a { on pre_tool_call when true block \"x\" approve \"y\" }");
        assert_eq!(codes(&d), ["several-actions"]);
        let (_, d) = check_str("rule a { on pre_tool_call when true modify cwd = \"x\" }");
        assert_eq!(codes(&d), ["bad-modify-target"]);
    }

    #[test]
    fn exemptions() {
        let base = "rule g.a { on pre_tool_call when true block \"m\" }\n";
        let (p, d) = check_str(&format!(
            "{base}exempt g.a when tool == \"x\" because \"ok\" until 2030-01-01"
        ));
        assert!(d.is_empty(), "{d:?}");
        assert_eq!(p.exemptions.len(), 1);
        let (p, d) = check_str(&format!("{base}exempt g.a because \"ok\" until 2020-01-01"));
        assert_eq!(codes(&d), ["exemption-expired"]);
        assert!(p.exemptions.is_empty());
        let (_, d) = check_str(&format!("{base}exempt g.b because \"ok\""));
        assert_eq!(codes(&d), ["exempt-unknown-rule"]);
        let (p, _) = check_str(&format!("{base}exempt g.* because \"ok\""));
        assert!(p.exemptions[0].covers("g.a"));
    }

    #[test]
    fn regex_errors_point_into_the_regex() {
        let src = "rule a { on pre_tool_call when args.c matches /ab(c/ block \"m\" }";
        let (_, d) = check_str(src);
        assert_eq!(codes(&d), ["bad-regex"]);
        assert!(d[0].span.start > src.find("/ab").unwrap());
    }

    #[test]
    fn pack_version_requirement() {
        let (_, d) = check_str("pack p version 1.0.0 requires warden >= 99.0");
        assert_eq!(codes(&d), ["incompatible-pack"]);
        let (p, d) = check_str("pack p version 1.0 requires warden >= 0.1");
        assert!(d.is_empty(), "{d:?}");
        assert_eq!(p.packs[0].name, "p");
    }

    #[test]
    fn dates() {
        assert!(valid_date("2027-03-31"));
        assert!(!valid_date("2027-13-01"));
        assert_eq!(today().len(), 10);
    }
}

//! Templates: `{field}` interpolation in messages and `modify` values.

use super::*;

impl Checker<'_> {
    pub(super) fn template(&mut self, text: &str, action: Span, ctx: &TplCtx) -> Template {
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
                                    Diagnostic::error(Code::BadTemplate, &ctx.file, here, format!("`{{{name}}}` is not a field"))
                                        .with_label("in this message")
                                        .with_help("write `{args.path}`-style fields, or `{{` / `}}` for literal braces"),
                                );
                                continue;
                            };
                            let c = Ctx::new(ctx.file.clone(), ctx.hooks);
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
                    Diagnostic::error(Code::BadTemplate, &ctx.file, span, msg)
                        .with_label("in this message")
                        .with_help("write `{{` and `}}` for literal braces"),
                );
                Template { parts: Vec::new() }
            }
        }
    }

    pub(super) fn value_expr(
        &mut self,
        e: &ast::Expr,
        ctx: &TplCtx,
        span: Span,
    ) -> Option<ValueExpr> {
        Some(match e {
            ast::Expr::Value(Scalar::Str(s)) => ValueExpr::Template(self.template(s, span, ctx)),
            ast::Expr::Value(v) => ValueExpr::Const(v.clone()),
            ast::Expr::Field(f) => {
                let c = Ctx::new(ctx.file.clone(), ctx.hooks);
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

pub(super) struct TplCtx<'h> {
    pub(super) file: Arc<SourceFile>,
    pub(super) hooks: &'h [Hook],
}

pub(super) enum RawPart {
    Lit(String),
    Field(String),
}

pub(super) fn parse_template(text: &str) -> Result<Vec<RawPart>, String> {
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

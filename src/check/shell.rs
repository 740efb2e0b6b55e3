//! Shell predicates: `shell …` conditions and their qualifiers.

use super::*;

impl Checker<'_> {
    pub(super) fn shell(&mut self, pred: &Spanned<ast::ShellPred>, ctx: &mut Ctx) -> Expr {
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
                        Diagnostic::error(Code::ShellNotOnEvent, &ctx.file, span, format!("shell predicates do not apply to {}", other.name()))
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
                Diagnostic::error(Code::ShellMixedEvents, &ctx.file, span, "this rule's events hold the command line in different fields")
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
                                Code::BadGlob,
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

    pub(super) fn words(&mut self, w: &ast::Words) -> Vec<String> {
        match w {
            ast::Words::Quoted(s) => vec![s.clone()],
            ast::Words::Bare(s) => match self.lists.get(s) {
                Some((_, vals)) => vals.iter().map(|v| scalar_text(&v.node)).collect(),
                None => vec![s.clone()],
            },
            ast::Words::List(v) => v.clone(),
        }
    }

    pub(super) fn paths_operand(
        &mut self,
        o: &Operand,
        span: Span,
        ctx: &Ctx,
    ) -> Option<Vec<String>> {
        self.string_list(&Spanned::new(o.clone(), span), ctx)
            .or_else(|| match o {
                Operand::Value(Scalar::Str(s)) => Some(vec![s.clone()]),
                _ => None,
            })
    }

    pub(super) fn qual(&mut self, q: &ast::ShellQual, span: Span, ctx: &mut Ctx) -> Option<Qual> {
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
            Q::ArgResembles(o) => Qual::ArgResembles(self.paths_operand(o, span, ctx)?),
            Q::Arg {
                op,
                operand,
                nocase,
                path,
            } => {
                if *op == Op::Ne {
                    self.type_error(ctx, span, "`arg !=` would hold for almost any command; write `not command … with arg == …`");
                    return None;
                }
                let test =
                    self.compare_test(*op, &Spanned::new(operand.clone(), span), *nocase, ctx)?;
                if *path {
                    Qual::ArgPath(Box::new(test))
                } else {
                    Qual::Arg(Box::new(test))
                }
            }
        })
    }
}

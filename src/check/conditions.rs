//! Conditions: `when`/`unless` trees, comparisons, fields against the event schema, macros.

use super::*;

impl Checker<'_> {
    pub(super) fn cond(&mut self, c: &Cond, ctx: &mut Ctx) -> Expr {
        ctx.size += 1;
        if ctx.depth >= MAX_DEPTH || ctx.size > MAX_SIZE {
            if !ctx.over {
                ctx.over = true;
                let what = if ctx.depth >= MAX_DEPTH {
                    format!("nests deeper than {MAX_DEPTH} levels")
                } else {
                    format!("expands to more than {MAX_SIZE} conditions")
                };
                let via = if ctx.stack.is_empty() {
                    String::new()
                } else {
                    format!(
                        " (through {})",
                        ctx.stack.first().map_or("", String::as_str)
                    )
                };
                self.diags.push(
                    Diagnostic::error(
                        Code::TooDeep,
                        &ctx.file,
                        cond_span(c),
                        format!("this condition {what} once its `define`s are inlined{via}"),
                    )
                    .with_label("too big")
                    .with_help("flatten the chain of `define`s; each use of a define copies it"),
                );
            }
            return Expr::Const(false);
        }
        ctx.depth += 1;
        let e = self.cond_inner(c, ctx);
        ctx.depth -= 1;
        e
    }

    fn cond_inner(&mut self, c: &Cond, ctx: &mut Ctx) -> Expr {
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

    pub(super) fn macro_ref(&mut self, name: &Spanned<String>, ctx: &mut Ctx) -> Expr {
        let Some((file, cond)) = self.defines.get(&name.node).cloned() else {
            let cands: Vec<&str> = self.defines.keys().map(String::as_str).collect();
            let mut d = Diagnostic::error(
                Code::UnknownName,
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
                    Code::RecursiveDefine,
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

    pub(super) fn compare(&mut self, cmp: &ast::Compare, ctx: &mut Ctx) -> Expr {
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
    pub(super) fn compare_test(
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
                                Code::BadGlob,
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

    pub(super) fn type_error(&mut self, ctx: &Ctx, span: Span, msg: &str) {
        self.diags.push(
            Diagnostic::error(Code::Type, &ctx.file, span, msg.to_string()).with_label("here"),
        );
    }

    /// The members of a literal list or a named list.
    pub(super) fn scalar_list(&mut self, op: &Spanned<Operand>, ctx: &Ctx) -> Option<Vec<Scalar>> {
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
                                Code::UnknownList,
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

    pub(super) fn string_list(&mut self, op: &Spanned<Operand>, ctx: &Ctx) -> Option<Vec<String>> {
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
    pub(super) fn field(&mut self, path: &FieldPath, span: Span, ctx: &Ctx) -> Option<Field> {
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
                        Code::UnknownField,
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
                        Code::UnknownField,
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
                        Code::FieldNotOnEvent,
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
}

/// A span to point at for a condition (its first located part; `Span::default()` for
/// a constant).
fn cond_span(mut c: &Cond) -> Span {
    loop {
        match c {
            Cond::And(v) | Cond::Or(v) => match v.first() {
                Some(f) => c = f,
                None => return Span::default(),
            },
            Cond::Not(inner) => c = inner,
            Cond::Const(_) => return Span::default(),
            Cond::Ref(n) => return n.span,
            Cond::Compare(cmp) => return cmp.field.span,
            Cond::Exists(f) => return f.span,
            Cond::Under(u) => return u.field.span,
            Cond::Shell(s) => return s.span,
        }
    }
}

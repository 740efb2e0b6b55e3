//! `broad-pattern`: patterns that match every value (`/.*/`, `contains ""`, glob `**`,
//! `under "/"`) and redaction regexes that match the empty string.

#![allow(unused_imports)]
use super::*;

pub(super) fn broad_patterns(p: &Policy, out: &mut Vec<Diagnostic>) {
    let mut lists: HashMap<&str, Vec<Scalar>> = HashMap::new();
    for tree in &p.trees {
        for item in &tree.items {
            if let Item::List(l) = item {
                lists.insert(
                    l.name.node.as_str(),
                    l.values.iter().map(|v| v.node.clone()).collect(),
                );
            }
        }
    }
    for (file, tree) in p.sources.iter().zip(&p.trees) {
        let mut w = Broad {
            file,
            lists: &lists,
            out: &mut *out,
        };
        for item in &tree.items {
            match item {
                Item::Rule(r) => {
                    if let Some(c) = &r.when {
                        w.cond(c);
                    }
                    if let Some(c) = &r.unless {
                        w.cond(c);
                    }
                    for a in &r.actions {
                        if let ast::Action::Redact { pattern, .. } = &a.node {
                            if regex_matches_everything(&pattern.source()) {
                                let span = Span::new(
                                    pattern.span.start,
                                    pattern.span.start + pattern.pattern.len(),
                                );
                                w.out.push(
                                    Diagnostic::warning(Code::BroadPattern, file, span, format!("redaction regex /{}/ matches the empty string", pattern.pattern))
                                        .with_label("matches everywhere")
                                        .with_help("a detector that matches the empty string finds something in every text; require at least one character"),
                                );
                            }
                        }
                    }
                }
                Item::Define(d) => w.cond(&d.condition),
                Item::Exempt(e) => {
                    if let Some(c) = &e.when {
                        w.cond(c);
                    }
                }
                _ => {}
            }
        }
    }
}

pub(super) struct Broad<'a, 'o> {
    file: &'a Arc<SourceFile>,
    lists: &'a HashMap<&'a str, Vec<Scalar>>,
    out: &'o mut Vec<Diagnostic>,
}

impl Broad<'_, '_> {
    fn strings(&self, o: &Operand) -> Vec<String> {
        let vals: Vec<Scalar> = match o {
            Operand::Value(v) => vec![v.clone()],
            Operand::List(v) => v.clone(),
            Operand::Name(n) => self
                .lists
                .get(n.to_string().as_str())
                .cloned()
                .unwrap_or_default(),
            Operand::Regex(_) => Vec::new(),
        };
        vals.into_iter()
            .filter_map(|s| s.as_str().map(String::from))
            .collect()
    }

    fn warn(&mut self, span: Span, message: String, label: &str, help: &str) {
        self.out.push(
            Diagnostic::warning(Code::BroadPattern, self.file, span, message)
                .with_label(label)
                .with_help(help),
        );
    }

    fn cond(&mut self, c: &Cond) {
        match c {
            Cond::And(v) | Cond::Or(v) => v.iter().for_each(|c| self.cond(c)),
            Cond::Not(c) => self.cond(c),
            Cond::Compare(cmp) => {
                let span = cmp.operand.span;
                let field = &cmp.field.node;
                match (cmp.op.node, &cmp.operand.node) {
                    (Op::Matches, Operand::Regex(re)) if regex_matches_everything(&re.source()) => {
                        self.warn(
                            span,
                            format!("`{field} matches /{}/` holds for every value", re.pattern),
                            "this regex matches the empty string",
                            "a regex that matches the empty string matches every text; anchor it or require at least one character, or use `exists`",
                        );
                    }
                    (Op::Contains | Op::StartsWith | Op::EndsWith, o)
                        if self.strings(o).iter().any(String::is_empty) =>
                    {
                        self.warn(
                            span,
                            format!("`{field} {} \"\"` holds for every value", cmp.op.node.as_str()),
                            "the empty string is in every text",
                            "remove the empty string; to test that the field is set, write `exists`",
                        );
                    }
                    (Op::Glob, o) => {
                        if let Some(g) = self
                            .strings(o)
                            .into_iter()
                            .find(|g| glob_matches_everything(g))
                        {
                            self.warn(
                                span,
                                format!("`{field} glob \"{g}\"` holds for every value"),
                                "this glob matches everything",
                                "narrow the pattern, or write `exists` if that is what you mean",
                            );
                        }
                    }
                    _ => {}
                }
            }
            Cond::Under(u)
                if self
                    .strings(&u.target.node)
                    .iter()
                    .any(|s| s.trim_end_matches('/').is_empty() && !s.is_empty()) =>
            {
                self.warn(
                    u.target.span,
                    format!("`path({}) under \"/\"` holds for every absolute path", u.field.node),
                    "every path is under /",
                    "to match the root itself, compare the path: `path(x) == \"/\"` or a `command … with arg is \"/\"` predicate",
                );
            }
            _ => {}
        }
    }
}

/// True when the regex can match the empty string without any anchor or
/// word boundary: it then matches (at offset 0) in every text. Decided on
/// the syntax tree, without compiling the regex.
pub(super) fn regex_matches_everything(source: &str) -> bool {
    regex_syntax::Parser::new().parse(source).is_ok_and(|h| {
        h.properties().minimum_len() == Some(0) && h.properties().look_set().is_empty()
    })
}

pub(super) fn glob_matches_everything(g: &str) -> bool {
    if !g.is_empty() && g.chars().all(|c| c == '*') {
        return true;
    }
    globset::GlobBuilder::new(g)
        .literal_separator(true)
        .build()
        .map(|g| g.compile_matcher())
        .is_ok_and(|m| {
            ["a", "a/b", "/x/y/z", ".hidden"]
                .iter()
                .all(|p| m.is_match(p))
        })
}

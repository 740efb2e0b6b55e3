//! [`PolicyFile`] → canonical `.warden` text (what `warden fmt` writes).
//!
//! Canonical form: items separated by one blank line, rule entries in a
//! fixed order, two-space indentation, long `and`/`or` chains broken one
//! operand per line. Parentheses are printed only where precedence needs
//! them, or where the tree nests the same operator, so printing and parsing
//! again gives the same tree. Comments are kept: each is printed before the
//! item (or rule entry) that follows it in the source.

use super::ast::*;

/// Conditions longer than this are broken one operand per line.
const WIDTH: usize = 80;

/// Print a whole file.
pub fn print(file: &PolicyFile) -> String {
    let mut p = Printer {
        out: String::new(),
        comments: &file.comments,
        next_comment: 0,
    };
    for (i, item) in file.items.iter().enumerate() {
        if i > 0 {
            p.out.push('\n');
        }
        p.comments_before(item.span().start, "");
        p.item(item);
    }
    // Comments after the last item.
    let rest: Vec<&String> = p.comments[p.next_comment..]
        .iter()
        .map(|(_, c)| c)
        .collect();
    if !rest.is_empty() {
        if !file.items.is_empty() {
            p.out.push('\n');
        }
        for c in rest {
            p.out.push_str(c);
            p.out.push('\n');
        }
    }
    p.out
}

struct Printer<'a> {
    out: String,
    comments: &'a [(usize, String)],
    next_comment: usize,
}

impl Printer<'_> {
    /// Emit every not-yet-printed comment that starts before `offset`.
    /// Trees read from YAML/JSON have no spans (offset 0) and no comments.
    fn comments_before(&mut self, offset: usize, indent: &str) {
        while let Some((at, text)) = self.comments.get(self.next_comment) {
            if *at >= offset {
                break;
            }
            self.out.push_str(indent);
            self.out.push_str(text);
            self.out.push('\n');
            self.next_comment += 1;
        }
    }

    fn item(&mut self, item: &Item) {
        match item {
            Item::Pack(p) => {
                self.out
                    .push_str(&format!("pack {} version {}", p.name.node, p.version.node));
                if let Some(r) = &p.requires {
                    self.out.push_str(&format!(" requires warden {}", r.node));
                }
                self.out.push('\n');
            }
            Item::List(l) => {
                let vals: Vec<Scalar> = l.values.iter().map(|v| v.node.clone()).collect();
                self.out
                    .push_str(&format!("list {} = {}\n", l.name.node, list(&vals, 5)));
            }
            Item::Define(d) => {
                self.out.push_str(&format!("define {} = ", d.name.node));
                self.cond_block(&d.condition, 9 + d.name.node.len(), "  ");
                self.out.push('\n');
            }
            Item::Rule(r) => self.rule(r),
            Item::Exempt(e) => {
                self.out.push_str(&format!("exempt {}", e.rule.node));
                if let Some(w) = &e.when {
                    self.out.push_str(" when ");
                    self.cond_block(w, 13 + e.rule.node.len(), "  ");
                }
                self.out
                    .push_str(&format!(" because {}", string(&e.because)));
                if let Some(u) = &e.until {
                    self.out.push_str(&format!(" until {}", u.node));
                }
                self.out.push('\n');
            }
        }
    }

    fn entry(&mut self, anchor: Option<usize>, text: &str) {
        if let Some(a) = anchor {
            self.comments_before(a, "  ");
        }
        self.out.push_str("  ");
        self.out.push_str(text);
        self.out.push('\n');
    }

    fn rule(&mut self, r: &Rule) {
        self.out.push_str(&format!("rule {} {{\n", r.id.node));
        if let Some(d) = &r.description {
            self.entry(
                Some(d.span.start),
                &format!("description {}", string(&d.node)),
            );
        }
        if let Some(s) = &r.severity {
            self.entry(Some(s.span.start), &format!("severity {}", s.node));
        }
        if let Some(t) = &r.tags {
            let tags: Vec<Scalar> = t.node.iter().cloned().map(Scalar::Str).collect();
            self.entry(Some(t.span.start), &format!("tags {}", list(&tags, 7)));
        }
        if !r.on.is_empty() {
            let names: Vec<&str> = r.on.iter().map(|e| e.node.as_str()).collect();
            self.entry(
                Some(r.on[0].span.start),
                &format!("on {}", names.join(", ")),
            );
        }
        for (kw, c) in [("when", &r.when), ("unless", &r.unless)] {
            if let Some(c) = c {
                if let Some(a) = first_span(c) {
                    self.comments_before(a, "  ");
                }
                self.out.push_str(&format!("  {kw} "));
                self.cond_block(c, kw.len() + 3, "    ");
                self.out.push('\n');
            }
        }
        for a in &r.actions {
            let text = action(&a.node);
            self.entry(Some(a.span.start), &text);
        }
        let o = &r.options;
        if !o.is_empty() {
            if let Some(s) = o.first_span {
                self.comments_before(s.start, "  ");
            }
            if let Some(c) = &o.capture {
                self.entry(None, &format!("capture {}", c.node));
            }
            if !o.keywords.is_empty() {
                let k: Vec<Scalar> = o.keywords.iter().cloned().map(Scalar::Str).collect();
                self.entry(None, &format!("keywords {}", list(&k, 11)));
            }
            if let Some(v) = &o.validate {
                self.entry(None, &format!("validate {}", v.node));
            }
            if let Some(e) = o.min_entropy {
                self.entry(None, &format!("min_entropy {}", number(e)));
            }
            if !o.allow.is_empty() {
                let k: Vec<Scalar> = o.allow.iter().cloned().map(Scalar::Str).collect();
                self.entry(None, &format!("allow {}", list(&k, 8)));
            }
            for p in &o.allow_patterns {
                self.entry(None, &format!("allow {}", regex(p)));
            }
            if let Some(s) = &o.style {
                let text = match &s.node {
                    Style::Label => "style label".to_string(),
                    Style::Prefix(n) => format!("style prefix {n}"),
                    Style::Numbered(name) => format!("style numbered {}", string(name)),
                };
                self.entry(None, &text);
            }
            if o.keys {
                self.entry(None, "keys");
            }
        }
        self.out.push_str("}\n");
    }

    /// A condition, broken over lines when long. `col` is the column it starts at.
    fn cond_block(&mut self, c: &Cond, col: usize, indent: &str) {
        let flat = cond(c, 0);
        if col + flat.len() <= WIDTH {
            self.out.push_str(&flat);
            return;
        }
        match c {
            Cond::And(parts) | Cond::Or(parts) => {
                let (kw, prec) = if matches!(c, Cond::And(_)) {
                    ("and", 2)
                } else {
                    ("or", 1)
                };
                for (i, p) in parts.iter().enumerate() {
                    if i > 0 {
                        self.out.push('\n');
                        self.out.push_str(indent);
                        self.out.push_str(kw);
                        self.out.push(' ');
                    }
                    self.out.push_str(&child(p, prec));
                }
            }
            _ => self.out.push_str(&flat),
        }
    }
}

/// The earliest span inside a condition (for placing comments).
fn first_span(c: &Cond) -> Option<usize> {
    match c {
        Cond::And(v) | Cond::Or(v) => v.first().and_then(first_span),
        Cond::Not(c) => first_span(c),
        Cond::Const(_) => None,
        Cond::Ref(r) => Some(r.span.start),
        Cond::Compare(c) => Some(c.field.span.start),
        Cond::Exists(f) => Some(f.span.start),
        Cond::Under(u) => Some(u.field.span.start),
        Cond::Shell(s) => Some(s.span.start),
    }
    .filter(|s| *s > 0)
}

/// Precedence: or = 1, and = 2, not/atom = 3.
fn prec(c: &Cond) -> u8 {
    match c {
        Cond::Or(_) => 1,
        Cond::And(_) => 2,
        _ => 3,
    }
}

/// A child of an operator of precedence `parent`: parenthesised when it
/// binds looser, or is the same operator (to keep the tree's shape).
fn child(c: &Cond, parent: u8) -> String {
    let p = prec(c);
    if p < 3 && p <= parent {
        format!("({})", cond(c, 0))
    } else {
        cond(c, parent)
    }
}

/// A condition on one line.
pub fn cond(c: &Cond, _parent: u8) -> String {
    match c {
        Cond::And(v) => v
            .iter()
            .map(|c| child(c, 2))
            .collect::<Vec<_>>()
            .join(" and "),
        Cond::Or(v) => v
            .iter()
            .map(|c| child(c, 1))
            .collect::<Vec<_>>()
            .join(" or "),
        Cond::Not(inner) => {
            let p = prec(inner);
            if p < 3 {
                format!("not ({})", cond(inner, 0))
            } else {
                format!("not {}", cond(inner, 3))
            }
        }
        Cond::Const(b) => b.to_string(),
        Cond::Ref(r) => r.node.clone(),
        Cond::Exists(f) => format!("{} exists", f.node),
        Cond::Under(u) => format!("path({}) under {}", u.field.node, operand(&u.target.node)),
        Cond::Shell(s) => shell(&s.node),
        Cond::Compare(c) => {
            let mut s = format!(
                "{} {} {}",
                c.field.node,
                c.op.node.as_str(),
                operand(&c.operand.node)
            );
            if c.nocase {
                s.push_str(" nocase");
            }
            s
        }
    }
}

fn shell(p: &ShellPred) -> String {
    match p {
        ShellPred::Unknown => "command unknown".into(),
        ShellPred::Command { programs, with } => {
            let mut s = format!("command {}", words(programs));
            for (i, q) in with.iter().enumerate() {
                s.push_str(if i == 0 { " with " } else { ", " });
                s.push_str(&match q {
                    ShellQual::Flags(w) => format!("flags {}", words(w)),
                    ShellQual::AnyFlag(w) => format!("any_flag {}", words(w)),
                    ShellQual::Flag(f) => format!("flag {}", word(f)),
                    ShellQual::Subcommand(w) => format!("subcommand {}", words(w)),
                    ShellQual::DynamicArgs => "dynamic_args".into(),
                    ShellQual::ArgUnder(o) => format!("arg under {}", operand(o)),
                    ShellQual::ArgIs(o) => format!("arg is {}", operand(o)),
                    ShellQual::ArgResembles(o) => format!("arg resembles {}", operand(o)),
                    ShellQual::Arg {
                        op,
                        operand: o,
                        nocase,
                        path,
                    } => {
                        format!(
                            "arg {}{} {}{}",
                            if *path { "path " } else { "" },
                            op.as_str(),
                            operand(o),
                            if *nocase { " nocase" } else { "" }
                        )
                    }
                });
            }
            s
        }
        ShellPred::Pipe { from, to } => format!("pipe from {} to {}", words(from), words(to)),
        ShellPred::Redirect { under, glob } => match (under, glob) {
            (Some(u), _) => format!("redirect to under {}", operand(u)),
            (None, Some(g)) => format!("redirect to glob {}", operand(g)),
            (None, None) => "redirect to under []".into(),
        },
    }
}

fn words(w: &Words) -> String {
    match w {
        Words::Quoted(s) => string(s),
        Words::Bare(s) => s.clone(),
        Words::List(v) => format!(
            "[{}]",
            v.iter().map(|s| word(s)).collect::<Vec<_>>().join(", ")
        ),
    }
}

/// A word bare when it can be read back as one, else quoted.
fn word(s: &str) -> String {
    let bare = !s.is_empty()
        && s.chars()
            .all(|c| c.is_ascii_alphanumeric() || "_-.*+/:".contains(c))
        && !["with", "to", "unknown", "exists"].contains(&s);
    if bare {
        s.to_string()
    } else {
        string(s)
    }
}

fn operand(o: &Operand) -> String {
    match o {
        Operand::Value(v) => scalar(v),
        Operand::List(v) => list(v, 0),
        Operand::Name(n) => n.to_string(),
        Operand::Regex(r) => regex(r),
    }
}

fn action(a: &Action) -> String {
    match a {
        Action::Block {
            message,
            placeholder,
        } => {
            let mut s = format!("block {}", string(message));
            if let Some(p) = placeholder {
                s.push_str(&format!(" placeholder {}", string(p)));
            }
            s
        }
        Action::Approve { message, key } => {
            let mut s = format!("approve {}", string(message));
            if let Some(k) = key {
                s.push_str(&format!(" key {}", string(k)));
            }
            s
        }
        Action::Modify { field, value } => format!("modify {} = {}", field.node, expr(value)),
        Action::Context { text } => format!("context {}", string(text)),
        Action::Redact { pattern, replace } => match replace {
            RedactReplace::With(s) => format!("redact {} with {}", regex(pattern), string(s)),
            RedactReplace::Withhold(s) => {
                format!("redact {} withhold {}", regex(pattern), string(s))
            }
        },
    }
}

fn expr(e: &Expr) -> String {
    match e {
        Expr::Value(v) => scalar(v),
        Expr::Field(f) => f.node.to_string(),
        Expr::Replace {
            input,
            pattern,
            with,
        } => format!(
            "replace({}, {}, {})",
            expr(input),
            regex(pattern),
            string(with)
        ),
    }
}

/// A list literal; broken one member per line when it would pass [`WIDTH`]
/// starting at column `col`.
fn list(v: &[Scalar], col: usize) -> String {
    let items: Vec<String> = v.iter().map(scalar).collect();
    let flat = format!("[{}]", items.join(", "));
    if col + flat.len() <= WIDTH || col == 0 {
        return flat;
    }
    let mut s = String::from("[\n");
    for i in &items {
        s.push_str("  ");
        if col > 6 {
            s.push_str("  ");
        }
        s.push_str(i);
        s.push_str(",\n");
    }
    if col > 6 {
        s.push_str("  ");
    }
    s.push(']');
    s
}

fn scalar(v: &Scalar) -> String {
    match v {
        Scalar::Null => "null".into(),
        Scalar::Bool(b) => b.to_string(),
        Scalar::Num(n) => n.to_string(),
        Scalar::Str(s) => string(s),
    }
}

fn number(f: f64) -> String {
    if f.fract() == 0.0 && f.abs() < 1e15 {
        format!("{}", f as i64)
    } else {
        format!("{f}")
    }
}

/// A string literal with the language's escapes.
pub fn string(s: &str) -> String {
    let mut out = String::with_capacity(s.len() + 2);
    out.push('"');
    for c in s.chars() {
        match c {
            '"' => out.push_str("\\\""),
            '\\' => out.push_str("\\\\"),
            '\n' => out.push_str("\\n"),
            '\t' => out.push_str("\\t"),
            '\r' => out.push_str("\\r"),
            '\0' => out.push_str("\\0"),
            c => out.push(c),
        }
    }
    out.push('"');
    out
}

/// A regex literal: `/` escaped, everything else as written.
pub fn regex(r: &RegexLit) -> String {
    let mut out = String::with_capacity(r.pattern.len() + 2 + r.flags.len());
    out.push('/');
    let mut chars = r.pattern.chars();
    while let Some(c) = chars.next() {
        match c {
            '\\' => {
                out.push('\\');
                if let Some(n) = chars.next() {
                    if n == '/' {
                        out.push('\\');
                    }
                    out.push(n);
                }
            }
            '/' => out.push_str("\\/"),
            c => out.push(c),
        }
    }
    out.push('/');
    out.push_str(&r.flags);
    out
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::diag::SourceFile;
    use std::sync::Arc;

    fn parse(text: &str) -> PolicyFile {
        let f = Arc::new(SourceFile {
            path: "t.warden".into(),
            text: text.into(),
        });
        let (tree, d) = crate::syntax::parser::parse(&f);
        assert!(d.is_empty(), "{d:?}\n{text}");
        tree
    }

    const SAMPLE: &str = r#"# header comment
pack demo version 1.0.0 requires warden >= 0.1
list paths = ["/", "/etc"]
define is_term = tool == "terminal"
# the rule
rule a.b {
  on pre_tool_call
  # inside
  when is_term and (args.command matches /a\/b/i or not args.x exists) and path(args.p) under paths
  approve "x {args.command}" key "k"
}
rule s.t { redact /sk-[a-z]{4}/ with "[R]" keywords ["sk-"] min_entropy 2.5 style prefix 3 allow /EXAMPLE/ }
exempt a.b when args.command contains "q\"" because "ok" until 2030-01-01
# trailing
"#;

    #[test]
    fn printing_is_stable_and_keeps_the_tree() {
        let t1 = parse(SAMPLE);
        let s1 = print(&t1);
        let t2 = parse(&s1);
        assert_eq!(t1.items, t2.items, "\n{s1}");
        assert_eq!(print(&t2), s1);
        for c in ["# header comment", "# the rule", "# inside", "# trailing"] {
            assert!(s1.contains(c), "{c} lost:\n{s1}");
        }
        assert!(s1.find("# inside").unwrap() < s1.find("  when").unwrap());
    }

    #[test]
    fn nested_same_operator_keeps_parentheses() {
        let t = parse("define x = a and (b and c)");
        assert_eq!(print(&t), "define x = a and (b and c)\n");
        let t = parse("define x = not (a or b) and c");
        assert_eq!(print(&t), "define x = not (a or b) and c\n");
    }
}

//! Stage 2, check: syntax trees of every file → one [`CheckedPolicy`].
//!
//! Resolves `list` and `define` names (global across the policy set), checks
//! every field against the event schema of every hook its rule runs on,
//! validates regexes (pointing into the regex on error), templates, actions,
//! packs and exemptions, and reports every problem it finds, not the first.

mod actions;
mod conditions;
mod exemptions;
pub mod ir;
mod names;
mod regexes;
mod rules;
mod shell;
mod templates;

pub use crate::date::{today, today_from_secs};
use templates::TplCtx;

use crate::diag::{did_you_mean, Code, Diagnostic, SourceFile, Span};
use crate::event::{Field, FieldError, Hook, PathSeg};
use crate::syntax::ast::{self, Cond, FieldPath, Item, Op, Operand, Scalar, Segment, Spanned};
use ir::*;
use std::collections::HashMap;
use std::sync::Arc;

/// Validator names a redaction rule may use, besides the national-number schemes
/// ([`crate::redact::ID_SCHEMES`]; see [`validator_names`]).
pub const VALIDATORS: [&str; 17] = [
    "luhn",
    "iban",
    "ssn",
    "national_id",
    "bsn",
    "github_crc32",
    "jwt",
    "secret_value",
    "high_entropy",
    "jwt_base64",
    "json_base64",
    "prefixed_token",
    "random_token",
    "table_columns",
    "table_birth_dates",
    "table_id_numbers",
    "joined_literals",
];
/// Every validator name a redaction rule may use: [`VALIDATORS`], then each national-number
/// scheme's (`pesel`, `hetu`, …).
pub fn validator_names() -> impl Iterator<Item = &'static str> {
    VALIDATORS
        .into_iter()
        .chain(crate::redact::ID_SCHEMES.iter().map(|&(name, _)| name))
}

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
        lines: HashMap::new(),
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
                            Code::DuplicateRule,
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
                let origin = c.origin(file, r.id.span);
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
    /// Line starts per file (by address; the files outlive the check), for origins.
    lines: HashMap<*const SourceFile, Vec<usize>>,
    diags: Vec<Diagnostic>,
    lists: HashMap<String, (Arc<SourceFile>, Vec<Spanned<Scalar>>)>,
    defines: HashMap<String, (Arc<SourceFile>, Cond)>,
}

impl Checker<'_> {
    /// The origin of `span` in `file` (lines counted once per file, not per origin: a
    /// policy of 20,000 rules made this quadratic).
    fn origin(&mut self, file: &Arc<SourceFile>, span: Span) -> Origin {
        let starts = self.lines.entry(Arc::as_ptr(file)).or_insert_with(|| {
            std::iter::once(0)
                .chain(file.text.match_indices('\n').map(|(i, _)| i + 1))
                .collect()
        });
        Origin::indexed(file, span, starts)
    }
}

/// What a condition is checked against.
struct Ctx<'s> {
    file: Arc<SourceFile>,
    hooks: &'s [Hook],
    /// The `define`s being expanded, outermost first.
    stack: Vec<String>,
    /// How deep the expanded condition nests here.
    depth: usize,
    /// Condition nodes expanded so far (defines inlined).
    size: usize,
    /// A bound was hit (reported once).
    over: bool,
}

impl<'s> Ctx<'s> {
    fn new(file: Arc<SourceFile>, hooks: &'s [Hook]) -> Ctx<'s> {
        Ctx {
            file,
            hooks,
            stack: Vec::new(),
            depth: 0,
            size: 0,
            over: false,
        }
    }
}

/// The deepest an expanded condition (its `define`s inlined) may nest: the
/// compiler and the evaluator recurse over it.
pub const MAX_DEPTH: usize = 200;
/// The most condition nodes one rule may expand to (`define`s inlined): chained
/// defines that each use the previous one twice would otherwise grow exponentially.
pub const MAX_SIZE: usize = 100_000;

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
    use super::exemptions::valid_date;
    use super::*;

    #[test]
    fn indexed_origins_equal_counted_ones() {
        let f = Arc::new(SourceFile {
            path: "t".into(),
            text: "ab\ncdé\n\nf\n".into(),
        });
        let starts: Vec<usize> = std::iter::once(0)
            .chain(f.text.match_indices('\n').map(|(i, _)| i + 1))
            .collect();
        for off in 0..=f.text.len() {
            if !f.text.is_char_boundary(off) {
                continue;
            }
            let (a, b) = (
                Origin::new(&f, Span::new(off, off)),
                Origin::indexed(&f, Span::new(off, off), &starts),
            );
            assert_eq!((a.line, a.col), (b.line, b.col), "offset {off}");
        }
    }
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

    /// A national number's scheme is a validator name like the others, and a misspelt one
    /// is suggested.
    #[test]
    fn scheme_validators_are_known_and_suggested() {
        let rule = |v: &str| {
            format!("rule a {{ on transform_tool_result redact /PESEL: (\\d{{11}})/ with \"[R]\" capture 1 validate {v} }}")
        };
        let (_, d) = check_str(&rule("pesel"));
        assert!(d.is_empty(), "{d:?}");
        let (_, d) = check_str(&rule("pesl"));
        assert_eq!(codes(&d), ["unknown-validator"]);
        assert_eq!(d[0].help.as_deref(), Some("did you mean `pesel`?"));
        for name in validator_names() {
            assert!(
                crate::redact::Validator::from_name(name).is_some(),
                "{name}"
            );
        }
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

//! Stage 3b, lint: warnings about a policy that checked and compiled cleanly — findings
//! that need the whole set, the compiled prefilter or the tests beside the policies.
//! One file per lint; every code is in the one table, [`crate::diag::Code`].
//!
//! The checker's own warnings (`approve-without-key`, `exemption-expired`) stay in
//! `check`, which sees the written form they are about.

mod broad;
mod no_prefilter;
mod shadowed;
mod unanchored;
mod unreachable;
mod untested;

use crate::check::ir::{Action, Expr, Rule, Test};
use crate::compile::MatcherSet;
use crate::diag::{Code, Diagnostic, SourceFile, Span};
use crate::event::Field;
use crate::syntax::ast::{self, Cond, Item, Op, Operand, Scalar};
use crate::Policy;
use std::collections::{HashMap, HashSet};
use std::path::PathBuf;
use std::sync::Arc;

/// Every lint over a loaded policy and its compiled set. `test_paths` are where the
/// policies came from (their `*.test.yaml` files give coverage; none: no coverage lint).
/// Includes `regex-too-big`, an error: a regex the engine refuses could never match.
pub fn lint(p: &Policy, set: &MatcherSet, test_paths: &[PathBuf]) -> Vec<Diagnostic> {
    let mut out = Vec::new();
    regex_too_big(set, &mut out);
    no_prefilter::no_prefilter(p, set, &mut out);
    unanchored::unanchored(set, &mut out);
    unreachable::unreachable(p, &mut out);
    shadowed::shadowed(p, &mut out);
    broad::broad_patterns(p, &mut out);
    if !test_paths.is_empty() {
        untested::untested(p, set, test_paths, &mut out);
    }
    allowed(p, &mut out);
    out
}

/// The tag prefix of an in-policy allowance: a rule tagged `"allow:no-prefilter"` is not
/// warned about `no-prefilter`. Meant for a finding that is understood and accepted; say
/// why in a comment beside the tag. Errors cannot be allowed.
pub const ALLOW_TAG: &str = "allow:";

/// Drop the warnings a rule's `allow:<code>` tags accept.
fn allowed(p: &Policy, out: &mut Vec<Diagnostic>) {
    let mut allow: HashSet<(*const SourceFile, usize, &str)> = HashSet::new();
    for r in &p.checked.rules {
        for t in &r.tags {
            if let Some(code) = t.strip_prefix(ALLOW_TAG) {
                allow.insert((Arc::as_ptr(&r.origin.file), r.origin.span.start, code));
            }
        }
    }
    if allow.is_empty() {
        return;
    }
    out.retain(|d| {
        d.severity == crate::Severity::Error
            || !d
                .file
                .as_ref()
                .is_some_and(|f| allow.contains(&(Arc::as_ptr(f), d.span.start, d.code)))
    });
}

/// `regex-too-big`: regexes the engine refuses (size limits).
fn regex_too_big(set: &MatcherSet, out: &mut Vec<Diagnostic>) {
    for (id, origin, msg) in set.regex_failures() {
        out.push(
            Diagnostic::error(Code::RegexTooBig, &origin.file, origin.span, format!("rule `{id}`: the regex engine refuses a regex: {msg}"))
                .with_label("this rule")
                .with_help("simplify the regex (smaller repetitions, fewer alternatives); as is it could never match"),
        );
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn lint(src: &str) -> Vec<(String, String)> {
        let p = Policy::from_sources(vec![("t.warden".into(), src.into())]).unwrap();
        let set = p.compile().unwrap();
        super::lint(&p, &set, &[])
            .into_iter()
            .map(|d| (d.code.to_string(), d.message))
            .collect()
    }

    fn codes(src: &str) -> Vec<String> {
        let mut v: Vec<String> = lint(src).into_iter().map(|(c, _)| c).collect();
        v.sort();
        v
    }

    #[test]
    fn an_allow_tag_accepts_a_warning_on_its_rule_only() {
        let warned = r#"rule a { on pre_tool_call when args.command exists block "m" }"#;
        assert_eq!(codes(warned), ["no-prefilter"]);
        let allowed = r#"rule a { tags ["allow:no-prefilter"] on pre_tool_call when args.command exists block "m" }
            rule b { tags ["allow:unreachable-rule"] on pre_tool_call when args.path exists block "m" }"#;
        // `a` is allowed; `b` allows another lint, so it is still warned about
        assert_eq!(lint(allowed).len(), 1);
        assert!(lint(allowed)[0].1.contains("`b`"));
    }

    #[test]
    fn a_redaction_without_keyword_or_gate_is_unanchored() {
        let rule = |opts: &str| {
            format!(
                r#"rule r {{ on transform_tool_result redact /\b[A-Za-z0-9]{{40}}\b/ with "[x]" {opts} }}"#
            )
        };
        assert_eq!(codes(&rule("")), ["unanchored-redaction"]);
        assert!(codes(&rule(r#"keywords ["token"]"#)).is_empty());
        // a literal the regex requires is a keyword of its own; upper-case digit runs are gated
        assert!(codes(
            r#"rule r { on transform_tool_result redact /sk_live_[a-z0-9]{24}/ with "[x]" }"#
        )
        .is_empty());
        assert!(codes(r#"rule r { on transform_tool_result redact /\b[0-9]{3}-[0-9]{2}-[0-9]{4}\b/ with "[x]" }"#).is_empty());
    }

    #[test]
    fn contradictions_are_unreachable() {
        assert_eq!(
            codes(r#"rule a { on pre_tool_call when tool == "a" and tool == "b" block "m" }"#),
            ["unreachable-rule"]
        );
        assert_eq!(
            codes(r#"rule a { on pre_tool_call when tool == "a" and not tool == "a" block "m" }"#),
            ["unreachable-rule"]
        );
        assert!(codes(r#"rule a { on pre_tool_call when false block "m" }"#)
            .contains(&"unreachable-rule".to_string()));
        assert_eq!(
            codes(
                r#"rule a { on pre_tool_call when tool in ["a", "b"] and tool == "b" block "m" }"#
            ),
            Vec::<String>::new()
        );
        assert_eq!(
            codes(
                r#"rule a { on pre_tool_call when (tool == "a" or tool == "c") and tool == "c" block "m" }"#
            ),
            Vec::<String>::new()
        );
        assert_eq!(
            codes(
                r#"rule a { on pre_tool_call when tool == "a" and (tool == "b" or tool == "c") block "m" }"#
            ),
            ["unreachable-rule"]
        );
    }

    #[test]
    fn shadowing_needs_a_stronger_or_equal_earlier_rule() {
        let src = r#"
rule a { on pre_tool_call when tool == "terminal" block "m" }
rule b { on pre_tool_call when tool == "terminal" and args.command contains "x" approve "n" key "k" }
"#;
        assert_eq!(codes(src), ["shadowed-rule"]);
        let src = r#"
rule a { on pre_tool_call when tool == "terminal" approve "n" key "k" }
rule b { on pre_tool_call when tool == "terminal" block "m" }
"#;
        assert_eq!(codes(src), Vec::<String>::new());
    }

    #[test]
    fn broad_patterns_are_flagged() {
        assert_eq!(
            codes(
                r#"rule a { on pre_tool_call when tool == "t" and args.command matches /.*/ block "m" }"#
            ),
            ["broad-pattern"]
        );
        assert_eq!(
            codes(
                r#"rule a { on pre_tool_call when tool == "t" and args.command contains "" block "m" }"#
            ),
            ["broad-pattern"]
        );
        assert_eq!(
            codes(
                r#"rule a { on pre_tool_call when tool == "t" and args.path glob "**" block "m" }"#
            ),
            ["broad-pattern"]
        );
        assert_eq!(
            codes(
                r#"rule a { on pre_tool_call when tool == "t" and args.command matches /^$/ block "m" }"#
            ),
            Vec::<String>::new()
        );
    }
}

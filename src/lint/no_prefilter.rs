//! `no-prefilter`: rules without a literal the prefilter can use, so their whole
//! condition runs on every event of their hooks.

#![allow(unused_imports)]
use super::*;

pub(super) fn no_prefilter(p: &Policy, set: &crate::MatcherSet, out: &mut Vec<Diagnostic>) {
    let by_id: HashMap<&str, &Rule> = p.checked.rules.iter().map(|r| (r.id.as_str(), r)).collect();
    for (id, origin) in set.unfiltered_rules() {
        let rule = by_id.get(id);
        if rule.is_some_and(|r| matches!(r.when, Expr::Const(false))) {
            continue; // reported as unreachable
        }
        let hooks = rule.map_or(String::new(), |r| {
            r.hooks
                .iter()
                .map(|h| h.name())
                .collect::<Vec<_>>()
                .join(", ")
        });
        let mut regexes = Vec::new();
        if let Some(r) = rule {
            r.when.for_each_atom(&mut |a| {
                if let Test::Matches { regex } = &a.test {
                    if crate::compile::prefilter::regex_literals(regex).is_none() {
                        regexes.push(format!("/{regex}/"));
                    }
                }
            });
        }
        let label = if regexes.is_empty() {
            format!("evaluated on every {hooks} event")
        } else {
            format!("{} has no extractable literal", regexes.join(", "))
        };
        out.push(
            Diagnostic::warning(Code::NoPrefilter, &origin.file, origin.span, format!("rule `{id}` has no literal the prefilter can use"))
                .with_label(label)
                .with_help(format!(
                    "it costs a full condition evaluation on every {hooks} event (regexes included) instead of being skipped by the \
                     one aho-corasick pass; add a literal test (==, in, contains, starts_with, a `command` predicate, or a regex \
                     with a fixed prefix or suffix) to the `and`"
                )),
        );
    }
}

//! `shadowed-rule`: a rule an earlier rule with the same or a broader condition and a
//! stronger-or-equal action always overrides.

#![allow(unused_imports)]
use super::*;

/// A span-free, order-free key of a condition.
pub(super) fn key(e: &Expr) -> String {
    match e {
        Expr::And(v) | Expr::Or(v) => {
            let mut ks: Vec<String> = v.iter().map(key).collect();
            ks.sort();
            format!(
                "{}({})",
                if matches!(e, Expr::And(_)) {
                    "and"
                } else {
                    "or"
                },
                ks.join(",")
            )
        }
        Expr::Not(c) => format!("not({})", key(c)),
        Expr::Const(b) => b.to_string(),
        Expr::Atom(a) => format!("{}|{:?}", a.field, a.test),
    }
}

/// The keys of the conjuncts of a condition (`true` has none).
pub(super) fn conjuncts(e: &Expr) -> HashSet<String> {
    match e {
        Expr::And(v) => v.iter().flat_map(conjuncts).collect(),
        Expr::Const(true) => HashSet::new(),
        other => HashSet::from([key(other)]),
    }
}

/// block > approve > modify > context; redaction rules take no part.
pub(super) fn strength(a: &Action) -> Option<u8> {
    match a {
        Action::Block { .. } => Some(4),
        Action::Approve { .. } => Some(3),
        Action::Modify(_) => Some(2),
        Action::Context(_) => Some(1),
        _ => None,
    }
}

pub(super) fn shadowed(p: &Policy, out: &mut Vec<Diagnostic>) {
    let rules = &p.checked.rules;
    let sets: Vec<HashSet<String>> = rules.iter().map(|r| conjuncts(&r.when)).collect();
    let exempted: Vec<bool> = rules
        .iter()
        .map(|r| p.checked.exemptions.iter().any(|e| e.covers(&r.id)))
        .collect();
    // Rule `i` can only shadow `j` if every conjunct of `i` is one of `j`'s. Index each
    // rule under its rarest conjunct (or under "none" for `true`), and for `j` look up only
    // the buckets of its own conjuncts: linear in the policy for ordinary sets, where the
    // pairwise walk was quadratic (20,000 rules: minutes).
    let mut freq: HashMap<&str, usize> = HashMap::new();
    for s in &sets {
        for k in s {
            *freq.entry(k.as_str()).or_default() += 1;
        }
    }
    let mut by_key: HashMap<&str, Vec<usize>> = HashMap::new();
    let mut unconditional: Vec<usize> = Vec::new();
    for (i, s) in sets.iter().enumerate() {
        match s.iter().min_by_key(|k| (freq[k.as_str()], k.as_str())) {
            Some(k) => by_key.entry(k.as_str()).or_default().push(i),
            None => unconditional.push(i),
        }
    }
    for (j, later) in rules.iter().enumerate() {
        let Some(sj) = strength(&later.action) else {
            continue;
        };
        let mut candidates: Vec<usize> = unconditional
            .iter()
            .copied()
            .take_while(|&i| i < j)
            .collect();
        for k in &sets[j] {
            if let Some(b) = by_key.get(k.as_str()) {
                candidates.extend(b.iter().copied().take_while(|&i| i < j));
            }
        }
        candidates.sort_unstable();
        for i in candidates {
            let earlier = &rules[i];
            let Some(si) = strength(&earlier.action) else {
                continue;
            };
            // Equal modifies merge (the later one wins per key) and contexts join: neither hides the other.
            let wins = si > sj || (si == sj && si >= 3);
            if !wins
                || earlier.unless.is_some()
                || exempted[i]
                || !later.hooks.iter().all(|h| earlier.hooks.contains(h))
            {
                continue;
            }
            if !sets[i].is_subset(&sets[j]) {
                continue;
            }
            let how = if sets[i] == sets[j] {
                "the same condition"
            } else {
                "a broader condition"
            };
            let why = if si == sj {
                format!("the first {} in policy order wins", earlier.action.kind())
            } else {
                format!("{} beats {}", earlier.action.kind(), later.action.kind())
            };
            out.push(
                Diagnostic::warning(Code::ShadowedRule, &later.origin.file, later.origin.span, format!("rule `{}` is shadowed by `{}`", later.id, earlier.id))
                    .with_label(format!("`{}` never decides", later.id))
                    .with_help(format!(
                        "`{}` at {} has {how} and {why}, so this rule never changes a decision; remove it, or narrow `{}`",
                        earlier.id,
                        earlier.origin.location(),
                        earlier.id
                    )),
            );
            break;
        }
    }
}

//! `unreachable-rule`: conditions that can never hold (a contradiction in every
//! disjunct of the condition's normal form, or `false`).

#![allow(unused_imports)]
use super::*;

/// One literal of a conjunction: an atom or its negation.
#[derive(Clone, Copy)]
pub(super) struct Lit<'a> {
    atom: &'a crate::check::ir::Atom,
    pos: bool,
}

pub(super) const DNF_LIMIT: usize = 512;

/// The condition as a disjunction of conjunctions (`None` if too large).
pub(super) fn dnf(e: &Expr, neg: bool) -> Option<Vec<Vec<Lit<'_>>>> {
    Some(match (e, neg) {
        (Expr::Const(b), _) => {
            if *b != neg {
                vec![Vec::new()]
            } else {
                Vec::new()
            }
        }
        (Expr::Atom(a), _) => vec![vec![Lit { atom: a, pos: !neg }]],
        (Expr::Not(c), _) => dnf(c, !neg)?,
        (Expr::And(v), false) | (Expr::Or(v), true) => {
            let mut acc: Vec<Vec<Lit>> = vec![Vec::new()];
            for c in v {
                let d = dnf(c, neg)?;
                let mut next = Vec::with_capacity(acc.len() * d.len());
                for a in &acc {
                    for b in &d {
                        let mut x = a.clone();
                        x.extend(b.iter().copied());
                        next.push(x);
                    }
                }
                if next.len() > DNF_LIMIT {
                    return None;
                }
                acc = next;
            }
            acc
        }
        (Expr::Or(v), false) | (Expr::And(v), true) => {
            let mut acc = Vec::new();
            for c in v {
                acc.extend(dnf(c, neg)?);
                if acc.len() > DNF_LIMIT {
                    return None;
                }
            }
            acc
        }
    })
}

/// Values an `==`/`in` atom allows, folded when `nocase`.
pub(super) fn eq_values(t: &Test) -> Option<(Vec<Scalar>, bool)> {
    match t {
        Test::Eq { value, nocase } => Some((vec![value.clone()], *nocase)),
        Test::In { values, nocase } => Some((values.clone(), *nocase)),
        _ => None,
    }
}

pub(super) fn scalars_meet(a: &Scalar, b: &Scalar, nocase: bool) -> bool {
    match (a, b) {
        (Scalar::Str(x), Scalar::Str(y)) if nocase => x.to_lowercase() == y.to_lowercase(),
        (Scalar::Num(x), Scalar::Num(y)) => x.as_f64() == y.as_f64(),
        _ => a == b,
    }
}

/// Why a conjunction can never hold, if it cannot.
pub(super) fn contradiction(c: &[Lit]) -> Option<String> {
    for (i, x) in c.iter().enumerate() {
        for y in &c[i + 1..] {
            let (a, b) = (x.atom, y.atom);
            if a.field != b.field {
                continue;
            }
            let text = |l: &Lit| crate::eval::explain::atom_text(&l.atom.field, &l.atom.test);
            if a.test == b.test && x.pos != y.pos {
                return Some(format!(
                    "`{}` and `not {}` cannot both hold",
                    text(x),
                    text(x)
                ));
            }
            // A missing field makes every atom false: `not f exists` rules out any positive test on f.
            if (matches!(a.test, Test::Exists) && !x.pos && y.pos)
                || (matches!(b.test, Test::Exists) && !y.pos && x.pos)
            {
                return Some(format!(
                    "`{}` needs {} to be present, but `not {} exists` needs it missing",
                    text(if x.pos { x } else { y }),
                    a.field,
                    a.field
                ));
            }
            // Multi-valued fields can hold several values at once.
            if a.field == Field::History || !x.pos || !y.pos {
                continue;
            }
            if let (Some((va, na)), Some((vb, nb))) = (eq_values(&a.test), eq_values(&b.test)) {
                let meet = va
                    .iter()
                    .any(|p| vb.iter().any(|q| scalars_meet(p, q, na || nb)));
                if !meet {
                    return Some(format!(
                        "{} cannot satisfy both `{}` and `{}`",
                        a.field,
                        text(x),
                        text(y)
                    ));
                }
            }
            if let (
                Test::StartsWith {
                    needles: na,
                    nocase: false,
                },
                Test::StartsWith {
                    needles: nb,
                    nocase: false,
                },
            ) = (&a.test, &b.test)
            {
                let meet = na.iter().any(|p| {
                    nb.iter()
                        .any(|q| p.starts_with(q.as_str()) || q.starts_with(p.as_str()))
                });
                if !meet {
                    return Some(format!(
                        "{} cannot start with both: `{}` and `{}`",
                        a.field,
                        text(x),
                        text(y)
                    ));
                }
            }
        }
    }
    None
}

pub(super) fn unreachable(p: &Policy, out: &mut Vec<Diagnostic>) {
    for r in &p.checked.rules {
        let why = if matches!(r.unless, Some(Expr::Const(true))) {
            Some("its `unless` is always true".to_string())
        } else {
            match dnf(&r.when, false) {
                Some(d) if d.is_empty() => Some("its condition is `false`".to_string()),
                Some(d) => {
                    let reasons: Option<Vec<String>> = d.iter().map(|c| contradiction(c)).collect();
                    reasons.map(|mut v| {
                        v.dedup();
                        v.join("; ")
                    })
                }
                None => None,
            }
        };
        if let Some(why) = why {
            out.push(
                Diagnostic::warning(
                    Code::UnreachableRule,
                    &r.origin.file,
                    r.origin.span,
                    format!("rule `{}` can never match", r.id),
                )
                .with_label(why)
                .with_help("fix the condition, or delete the rule: as written it never applies"),
            );
        }
    }
}

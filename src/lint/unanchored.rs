//! `unanchored-redaction`: redaction rules with neither a keyword nor a run gate, so their
//! regex is searched over the whole of every text the redactor sees.

use super::*;

pub(super) fn unanchored(set: &MatcherSet, out: &mut Vec<Diagnostic>) {
    for (id, origin) in set.unanchored_redactions() {
        out.push(
            Diagnostic::warning(Code::UnanchoredRedaction, &origin.file, origin.span, format!("redaction rule `{id}` has no keyword"))
                .with_label("its regex is searched over the whole of every text")
                .with_help(
                    "add `keywords [\"…\"]`: literals one of which every match holds (matched ignoring ASCII case), so only the \
                     text around them is searched",
                ),
        );
    }
}

//! Regexes: every regex literal parsed with the engine's own syntax, errors pointing into it.

use super::*;

impl Checker<'_> {
    /// Check a regex with regex-syntax; on error point into the regex.
    pub(super) fn check_regex(&mut self, file: &Arc<SourceFile>, re: &ast::RegexLit) -> bool {
        !self.opts.validate_regexes || self.parse_checked_regex(file, re).is_some()
    }

    /// [`Checker::check_regex`] keeping the parsed regex (so it is parsed once): `None` if
    /// it is invalid (reported) or regexes are not validated.
    pub(super) fn parse_checked_regex(
        &mut self,
        file: &Arc<SourceFile>,
        re: &ast::RegexLit,
    ) -> Option<regex_syntax::hir::Hir> {
        if !self.opts.validate_regexes {
            return None;
        }
        for f in re.flags.chars() {
            if !"isxm".contains(f) {
                self.diags.push(
                    Diagnostic::error(
                        Code::BadRegex,
                        file,
                        re.span,
                        format!("unknown regex flag `{f}`"),
                    )
                    .with_label("flags are i, s, m, x"),
                );
                return None;
            }
        }
        match crate::syntax::parse_regex(&re.source()) {
            Ok(h) => Some(h),
            Err(e) => {
                let (msg, span) = regex_error(&e, re);
                self.diags.push(
                    Diagnostic::error(Code::BadRegex, file, span, format!("invalid regex: {msg}"))
                        .with_label(msg),
                );
                None
            }
        }
    }
}

/// A regex-syntax error as a message and a span inside the policy file.
pub(super) fn regex_error(e: &regex_syntax::Error, re: &ast::RegexLit) -> (String, Span) {
    let (msg, range) = match e {
        regex_syntax::Error::Parse(p) => (
            p.kind().to_string(),
            Some((p.span().start.offset, p.span().end.offset)),
        ),
        regex_syntax::Error::Translate(t) => (
            t.kind().to_string(),
            Some((t.span().start.offset, t.span().end.offset)),
        ),
        other => (other.to_string(), None),
    };
    // Offsets are into `(?flags)pattern`; drop the flag group.
    let flag_len = if re.flags.is_empty() {
        0
    } else {
        re.flags.len() + 3
    };
    let range = range.map(|(s, e)| (s.saturating_sub(flag_len), e.saturating_sub(flag_len)));
    let span = match range {
        // Offsets are into the unescaped pattern; map back through `\/` escapes.
        Some((s, e)) => Span::new(
            re.span.start + raw_offset(&re.pattern, s),
            re.span.start + raw_offset(&re.pattern, e).max(raw_offset(&re.pattern, s) + 1),
        ),
        None => re.span,
    };
    (msg, span)
}

/// Offset in the written regex body of offset `n` of the unescaped pattern.
pub(super) fn raw_offset(pattern: &str, n: usize) -> usize {
    let slashes = pattern[..n.min(pattern.len())].matches('/').count();
    n + slashes
}

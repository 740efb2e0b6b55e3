//! `untested-rule` (and `bad-test-file`): rules no test beside the policies exercises.

#![allow(unused_imports)]
use super::*;

pub(super) fn untested(
    p: &Policy,
    set: &crate::MatcherSet,
    paths: &[PathBuf],
    out: &mut Vec<Diagnostic>,
) {
    let files = crate::testing::discover(paths);
    if files.is_empty() {
        return;
    }
    let mut results = Vec::new();
    for f in &files {
        match crate::testing::load_file(f) {
            Ok(tf) => results.extend(
                tf.cases
                    .iter()
                    .map(|c| crate::testing::run_case(set, &tf.path, c)),
            ),
            Err(e) => {
                let text = std::fs::read_to_string(f).unwrap_or_default();
                let file = Arc::new(SourceFile {
                    path: f.clone(),
                    text,
                });
                let (line, col) = match &e {
                    crate::testing::TestFileError::Invalid { line, column, .. } => (*line, *column),
                    _ => (0, 0),
                };
                let off = offset_of(&file.text, line, col);
                out.push(
                    Diagnostic::warning(
                        Code::BadTestFile,
                        &file,
                        Span::new(off, off),
                        format!("cannot use this test file: {e}"),
                    )
                    .with_label("here")
                    .with_help(
                        "run `warden test` for details; coverage is computed without this file",
                    ),
                );
            }
        }
    }
    let by_id: HashMap<&str, &Rule> = p.checked.rules.iter().map(|r| (r.id.as_str(), r)).collect();
    for (id, covered) in
        crate::testing::coverage(p.checked.rules.iter().map(|r| r.id.as_str()), &results)
    {
        if covered {
            continue;
        }
        let Some(r) = by_id.get(id) else {
            continue;
        };
        out.push(
            Diagnostic::warning(Code::UntestedRule, &r.origin.file, r.origin.span, format!("no test exercises rule `{id}`"))
                .with_label("not matched by any test")
                .with_help(format!(
                    "add a case to a *.test.yaml file beside the policy ({} found) whose event this rule matches",
                    files.len()
                )),
        );
    }
}

pub(super) fn offset_of(text: &str, line: usize, col: usize) -> usize {
    if line == 0 {
        return 0;
    }
    let start: usize = text
        .split_inclusive('\n')
        .take(line - 1)
        .map(str::len)
        .sum();
    (start + col.saturating_sub(1)).min(text.len())
}

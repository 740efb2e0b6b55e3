//! Stage 1, syntax: policy text (or its YAML/JSON form) → [`ast::PolicyFile`].

pub mod ast;
pub mod parser;
pub mod print;

use crate::diag::{Code, Diagnostic, SourceFile, Span};
use std::sync::Arc;

/// Parse a regex (flags inlined) into its syntax tree, in the mode policy
/// regexes match in: ASCII (classes and case folding), unless the pattern
/// only makes sense with Unicode (`\p{…}`), then Unicode. Matching
/// (`compile`) and literal extraction (the prefilter) both use this mode.
pub fn parse_regex(src: &str) -> Result<regex_syntax::hir::Hir, Box<regex_syntax::Error>> {
    match ascii_regex_parser().parse(src) {
        Ok(h) => Ok(h),
        Err(_) => regex_syntax::Parser::new().parse(src).map_err(Box::new),
    }
}

fn ascii_regex_parser() -> regex_syntax::Parser {
    regex_syntax::ParserBuilder::new()
        .unicode(false)
        .utf8(false)
        .build()
}

/// True if a regex cannot be read in ASCII mode and needs Unicode.
pub fn regex_needs_unicode(src: &str) -> bool {
    ascii_regex_parser().parse(src).is_err()
}

/// The written forms a policy file can take.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Format {
    /// The warden language (`.warden`).
    Warden,
    /// The syntax tree as YAML (`.warden.yaml`, `.warden.yml`).
    Yaml,
    /// The syntax tree as JSON (`.warden.json`).
    Json,
}

impl Format {
    /// The format a file name implies, if it is a policy file at all.
    pub fn of_path(path: &std::path::Path) -> Option<Format> {
        let name = path.file_name()?.to_str()?;
        if name.ends_with(".warden") {
            Some(Format::Warden)
        } else if name.ends_with(".warden.yaml") || name.ends_with(".warden.yml") {
            Some(Format::Yaml)
        } else if name.ends_with(".warden.json") {
            Some(Format::Json)
        } else {
            None
        }
    }
}

/// Parse a source file in the given format.
pub fn parse_file(file: &Arc<SourceFile>, format: Format) -> (ast::PolicyFile, Vec<Diagnostic>) {
    match format {
        Format::Warden => parser::parse(file),
        Format::Yaml => data_result(
            file,
            from_yaml(&file.text).map_err(|e| {
                let off = e.location().map_or(0, |l| l.index());
                (off, e.to_string())
            }),
        ),
        Format::Json => data_result(
            file,
            serde_json::from_str(&file.text).map_err(|e| {
                let off = offset_of(&file.text, e.line(), e.column());
                (off, e.to_string())
            }),
        ),
    }
}

/// The YAML form of a tree: enums as single-key maps (`- rule: {…}`), the
/// same shape as the JSON form.
pub fn to_yaml(tree: &ast::PolicyFile) -> Result<String, serde_yaml_ng::Error> {
    let mut buf = Vec::new();
    let mut ser = serde_yaml_ng::Serializer::new(&mut buf);
    serde_yaml_ng::with::singleton_map_recursive::serialize(tree, &mut ser)?;
    Ok(String::from_utf8_lossy(&buf).into_owned())
}

/// Read the YAML form of a tree.
pub fn from_yaml(text: &str) -> Result<ast::PolicyFile, serde_yaml_ng::Error> {
    serde_yaml_ng::with::singleton_map_recursive::deserialize(
        serde_yaml_ng::Deserializer::from_str(text),
    )
}

fn data_result(
    file: &Arc<SourceFile>,
    r: Result<ast::PolicyFile, (usize, String)>,
) -> (ast::PolicyFile, Vec<Diagnostic>) {
    match r {
        Ok(f) => (f, Vec::new()),
        Err((off, msg)) => {
            let d = Diagnostic::error(
                Code::Syntax,
                file,
                Span::new(off, off + 1),
                format!("not a valid policy document: {msg}"),
            )
            .with_label("here");
            (ast::PolicyFile::default(), vec![d])
        }
    }
}

fn offset_of(text: &str, line: usize, col: usize) -> usize {
    let start: usize = text
        .split_inclusive('\n')
        .take(line.saturating_sub(1))
        .map(str::len)
        .sum();
    (start + col.saturating_sub(1)).min(text.len())
}

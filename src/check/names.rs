//! Names: `list` and `define` collected across the policy set, and `pack` headers.

use super::*;

impl Checker<'_> {
    pub(super) fn collect_names(&mut self, files: &[(Arc<SourceFile>, ast::PolicyFile)]) {
        let mut where_: HashMap<String, String> = HashMap::new();
        for (file, tree) in files {
            for item in &tree.items {
                let (name, kind) = match item {
                    Item::List(l) => (&l.name, "list"),
                    Item::Define(d) => (&d.name, "define"),
                    _ => continue,
                };
                let loc = {
                    let (l, c) = file.line_col(name.span.start);
                    format!("{}:{l}:{c}", file.path.display())
                };
                if let Some(first) = where_.get(&name.node) {
                    self.diags.push(
                        Diagnostic::error(
                            Code::DuplicateName,
                            file,
                            name.span,
                            format!("`{}` is already defined", name.node),
                        )
                        .with_label(format!("second {kind} with this name"))
                        .with_help(format!("the first is at {first}")),
                    );
                    continue;
                }
                where_.insert(name.node.clone(), loc);
                match item {
                    Item::List(l) => {
                        self.lists
                            .insert(l.name.node.clone(), (file.clone(), l.values.clone()));
                    }
                    Item::Define(d) => {
                        self.defines
                            .insert(d.name.node.clone(), (file.clone(), d.condition.clone()));
                    }
                    _ => {}
                }
            }
        }
    }

    pub(super) fn check_pack(
        &mut self,
        file: &Arc<SourceFile>,
        tree: &ast::PolicyFile,
        out: &mut CheckedPolicy,
    ) -> Option<String> {
        let mut name = None;
        for item in &tree.items {
            let Item::Pack(p) = item else { continue };
            if name.is_some() {
                self.diags.push(
                    Diagnostic::error(
                        Code::DuplicatePack,
                        file,
                        p.name.span,
                        "a file declares at most one pack",
                    )
                    .with_label("second `pack` header"),
                );
                continue;
            }
            if semver::Version::parse(&normalize_version(&p.version.node)).is_err() {
                self.diags.push(
                    Diagnostic::error(
                        Code::BadVersion,
                        file,
                        p.version.span,
                        format!("`{}` is not a version", p.version.node),
                    )
                    .with_label("expected MAJOR.MINOR.PATCH"),
                );
            }
            if let Some(req) = &p.requires {
                match semver::VersionReq::parse(&req.node) {
                    Ok(r) => {
                        let me =
                            semver::Version::parse(env!("CARGO_PKG_VERSION")).expect("own version");
                        if !r.matches(&me) {
                            self.diags.push(
                                Diagnostic::error(Code::IncompatiblePack, file, req.span, format!(
                                    "pack `{}` requires warden {}, but this is warden {}", p.name.node, req.node, me
                                ))
                                .with_label("not satisfied")
                                .with_help("upgrade warden, or use a version of the pack made for this one"),
                            );
                        }
                    }
                    Err(e) => self.diags.push(
                        Diagnostic::error(
                            Code::BadVersion,
                            file,
                            req.span,
                            format!("bad version requirement: {e}"),
                        )
                        .with_label("here"),
                    ),
                }
            }
            out.packs.push(Pack {
                name: p.name.node.clone(),
                version: p.version.node.clone(),
                origin: self.origin(file, p.name.span),
            });
            name = Some(p.name.node.clone());
        }
        name
    }
}

/// `1.2` → `1.2.0` so short versions are accepted.
pub(super) fn normalize_version(v: &str) -> String {
    let core = v.split('-').next().unwrap_or(v);
    let dots = core.matches('.').count();
    let pad = ".0".repeat(2usize.saturating_sub(dots));
    match v.find('-') {
        Some(i) => format!("{}{}{}", &v[..i], pad, &v[i..]),
        None => format!("{v}{pad}"),
    }
}

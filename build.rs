//! Embeds the shipped policy packs (`policies/*.warden`) into the binary so
//! `warden hook` protects with no configuration.

use std::{env, fs, path::Path};

fn main() {
    let dir = Path::new(&env::var("CARGO_MANIFEST_DIR").unwrap()).join("policies");
    println!("cargo:rerun-if-changed={}", dir.display());
    let mut files: Vec<_> = fs::read_dir(&dir)
        .map(|rd| {
            rd.filter_map(Result::ok)
                .map(|e| e.path())
                .filter(|p| p.extension().is_some_and(|e| e == "warden"))
                .collect()
        })
        .unwrap_or_default();
    files.sort();
    let mut out = String::from("/// The shipped packs: (file name, text).\npub const BUILTIN_PACKS: &[(&str, &str)] = &[\n");
    // A digest of the packs, so the compiled-policy cache keys them without hashing at run time.
    let mut digest = std::hash::DefaultHasher::new();
    for f in &files {
        std::hash::Hash::hash(&fs::read(f).unwrap(), &mut digest);
        println!("cargo:rerun-if-changed={}", f.display());
        let name = f.file_name().unwrap().to_string_lossy();
        out.push_str(&format!(
            "    ({name:?}, include_str!({:?})),\n",
            f.display().to_string()
        ));
    }
    out.push_str("];\n");
    out.push_str(&format!(
        "/// Digest of the shipped packs.\npub const BUILTIN_DIGEST: u64 = {};\n",
        std::hash::Hasher::finish(&digest)
    ));
    fs::write(
        Path::new(&env::var("OUT_DIR").unwrap()).join("builtin.rs"),
        out,
    )
    .unwrap();
}

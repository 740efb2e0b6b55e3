//! Embeds the shipped policy packs (`policies/*.warden`) into the binary so
//! `warden hook` protects with no configuration.

use std::{env, fs, path::Path};

fn main() {
    static_link_bins();
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

/// Link the `warden` binary static and non-PIE where that is safe to do (a native Linux glibc
/// release build with glibc's static archives installed): Hermes starts the binary for every
/// tool call, and a dynamic PIE spends ~0.5 ms of each start in the loader (relocating the
/// binary, loading libgcc_s and libc). `benches/hook_startup.sh` measures the result.
///
/// Only link arguments of the binaries change (`cargo:rustc-link-arg-bins`), so the library,
/// the tests and the proc-macro crates build as usual; `RUSTFLAGS=-C target-feature=+crt-static`
/// cannot do that without `--target`. rustc names the shared libraries on the link line
/// (`-lgcc_s -lc …`); a directory of one-line linker scripts under those names, searched
/// first, points them at the static archives. `WARDEN_LINK=dynamic` keeps the default link.
fn static_link_bins() {
    let var = |k: &str| env::var(k).unwrap_or_default();
    println!("cargo:rerun-if-env-changed=WARDEN_LINK");
    let native = var("TARGET") == var("HOST");
    let crt_static = var("CARGO_CFG_TARGET_FEATURE")
        .split(',')
        .any(|f| f == "crt-static");
    if var("WARDEN_LINK") == "dynamic"
        || !native
        || crt_static
        || var("PROFILE") != "release"
        || var("CARGO_CFG_TARGET_OS") != "linux"
        || var("CARGO_CFG_TARGET_ENV") != "gnu"
    {
        return;
    }
    // `cc -print-file-name=libc.a` prints a path only when the archive exists.
    let cc = env::var("CC").unwrap_or_else(|_| "cc".into());
    let libc_a = std::process::Command::new(cc)
        .arg("-print-file-name=libc.a")
        .output()
        .ok()
        .map(|o| String::from_utf8_lossy(&o.stdout).trim().to_string())
        .unwrap_or_default();
    if !Path::new(&libc_a).is_absolute() {
        println!("cargo:warning=glibc's static libc.a not found: warden links dynamically (slower start-up; install libc6-dev)");
        return;
    }
    let dir = Path::new(&var("OUT_DIR")).join("static-libs");
    fs::create_dir_all(&dir).unwrap();
    let scripts = [
        ("libgcc_s.so", "INPUT(-lgcc_eh)"),
        ("libc.so", "GROUP(libc.a libgcc.a libgcc_eh.a)"),
        ("libm.so", "INPUT(libm.a)"),
        ("libpthread.so", "INPUT(libpthread.a)"),
        ("librt.so", "INPUT(librt.a)"),
        ("libdl.so", "INPUT(libdl.a)"),
        ("libutil.so", "INPUT(libutil.a)"),
    ];
    for (name, script) in scripts {
        fs::write(dir.join(name), format!("{script}\n")).unwrap();
    }
    println!("cargo:rustc-link-arg-bins=-no-pie");
    println!("cargo:rustc-link-arg-bins=-static");
    println!("cargo:rustc-link-arg-bins=-L{}", dir.display());
}

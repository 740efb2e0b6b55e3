//! Embeds the shipped policy packs (`policies/*.warden`) into the binary so
//! `warden hook` protects with no configuration.

use std::{env, fs, path::Path};

/// Sources whose types are encoded in a compiled-policy snapshot (see `SNAPSHOT_SCHEMA`).
const SNAPSHOT_SCHEMA: [&str; 5] = [
    "src/check/ir.rs",
    "src/compile/cache.rs",
    "src/compile/prefilter.rs",
    "src/event/mod.rs",
    "src/diag.rs",
];

/// FNV-1a over length-prefixed parts.
struct Fnv(u64);

impl Fnv {
    fn new() -> Fnv {
        Fnv(0xcbf2_9ce4_8422_2325)
    }
    fn part(&mut self, bytes: &[u8]) {
        for b in (bytes.len() as u64).to_le_bytes().iter().chain(bytes) {
            self.0 = (self.0 ^ u64::from(*b)).wrapping_mul(0x0000_0100_0000_01b3);
        }
    }
}

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
    // A digest of the packs, so the compiled-policy cache keys them without hashing at run
    // time. FNV-1a (stable across toolchains, unlike std's hasher): the embedded snapshot
    // (`policies/builtin.snapshot`) records the digest it was compiled from.
    let mut digest = Fnv::new();
    for f in &files {
        let name = f.file_name().unwrap().to_string_lossy();
        digest.part(name.as_bytes());
        digest.part(&fs::read(f).unwrap());
        println!("cargo:rerun-if-changed={}", f.display());
        out.push_str(&format!(
            "    ({name:?}, include_str!({:?})),\n",
            f.display().to_string()
        ));
    }
    out.push_str("];\n");
    out.push_str(&format!(
        "/// Digest of the shipped packs.\npub const BUILTIN_DIGEST: u64 = {};\n",
        digest.0
    ));
    // The sources that define the snapshot's binary form: a change to one of them makes
    // the embedded snapshot stale (the hook then compiles the packs per call until it is
    // re-blessed; a test fails meanwhile) instead of decoding it as something else.
    let root = Path::new(&env::var("CARGO_MANIFEST_DIR").unwrap()).to_path_buf();
    let mut schema = Fnv::new();
    for f in SNAPSHOT_SCHEMA {
        let path = root.join(f);
        println!("cargo:rerun-if-changed={}", path.display());
        schema.part(f.as_bytes());
        let text = fs::read(&path).unwrap_or_else(|e| panic!("SNAPSHOT_SCHEMA lists {f}: {e}"));
        schema.part(&text);
    }
    out.push_str(&format!(
        "/// Digest of the sources that define the compiled snapshot's binary form.\npub const SNAPSHOT_SCHEMA: u64 = {};\n",
        schema.0
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

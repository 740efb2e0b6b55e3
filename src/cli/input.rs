//! Reading a file or stdin (`-`): the one home for every verb that takes
//! either.

use std::io::Read;
use std::path::Path;

/// The bytes of `path`, or of stdin when `path` is `-`; the error says which.
pub(crate) fn read_bytes(path: &Path) -> Result<Vec<u8>, String> {
    if path.as_os_str() == "-" {
        let mut b = Vec::new();
        std::io::stdin()
            .read_to_end(&mut b)
            .map_err(|e| format!("cannot read stdin: {e}"))?;
        Ok(b)
    } else {
        std::fs::read(path).map_err(|e| format!("cannot read {}: {e}", path.display()))
    }
}

/// [`read_bytes`] as UTF-8 text.
pub(crate) fn read_text(path: &Path) -> Result<String, String> {
    let b = read_bytes(path)?;
    String::from_utf8(b).map_err(|e| {
        let what = if path.as_os_str() == "-" {
            "stdin".to_string()
        } else {
            path.display().to_string()
        };
        format!(
            "{what} is not valid UTF-8 (byte {})",
            e.utf8_error().valid_up_to()
        )
    })
}

use std::path::Path;

use serde::de::DeserializeOwned;
use serde::Serialize;

use crate::{Plan, Profile};

/// Writes a profile (and the plan made from it) as JSON.
pub fn write_json(path: &Path, profile: &Profile, plan: Option<&Plan>) -> std::io::Result<()> {
    #[derive(Serialize)]
    struct Out<'a> {
        profile: &'a Profile,
        plan: Option<&'a Plan>,
    }
    if let Some(dir) = path.parent().filter(|d| !d.as_os_str().is_empty()) {
        std::fs::create_dir_all(dir)?;
    }
    let file = std::io::BufWriter::new(std::fs::File::create(path)?);
    serde_json::to_writer(file, &Out { profile, plan }).map_err(std::io::Error::other)
}

/// Reads a value written by [`save_json`].
pub(crate) fn load_json<T: DeserializeOwned>(path: &Path) -> std::io::Result<T> {
    let text = std::fs::read_to_string(path)?;
    serde_json::from_str(&text).map_err(std::io::Error::other)
}

/// Writes a value as pretty JSON.
pub(crate) fn save_json<T: Serialize>(path: &Path, value: &T) -> std::io::Result<()> {
    let text = serde_json::to_string_pretty(value).map_err(std::io::Error::other)?;
    std::fs::write(path, text)
}

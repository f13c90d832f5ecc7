use std::path::Path;

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

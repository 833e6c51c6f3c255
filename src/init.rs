//! `thinker init`'s work: writes the commented default config and an empty state,
//! refusing to overwrite either. The command itself (paths, output) is `cmd::init`.

use std::fs;
use std::io::Write;
use std::path::Path;

use crate::config::DEFAULT_CONFIG;
use crate::error::Error;
use crate::state::State;
use crate::storage::{STATE_FILE, StateDir};

/// Writes `config_path` and an empty state in `state_dir`; returns what it did, for
/// people. Writes nothing if either already exists.
pub fn init(config_path: &Path, state_dir: &Path) -> Result<String, Error> {
    let state_path = state_dir.join(STATE_FILE);
    for existing in [config_path, state_path.as_path()] {
        if existing.exists() {
            return Err(Error::InitExists {
                path: existing.to_path_buf(),
            });
        }
    }
    if let Some(parent) = config_path.parent().filter(|p| !p.as_os_str().is_empty()) {
        fs::create_dir_all(parent).map_err(|source| Error::InitWrite {
            path: parent.to_path_buf(),
            source,
        })?;
    }
    let mut file = fs::OpenOptions::new()
        .write(true)
        .create_new(true)
        .open(config_path)
        .map_err(|source| Error::InitWrite {
            path: config_path.to_path_buf(),
            source,
        })?;
    file.write_all(DEFAULT_CONFIG.as_bytes())
        .map_err(|source| Error::InitWrite {
            path: config_path.to_path_buf(),
            source,
        })?;
    let dir = StateDir::create(state_dir)?;
    dir.save(&State::default())?;
    Ok(format!(
        "wrote {}\nwrote {}\nnext: set the API key variables it names, then `thinker doctor` and `thinker tick -v`\n",
        config_path.display(),
        state_path.display()
    ))
}

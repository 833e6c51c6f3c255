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
    // The state directory first: a path that cannot be one (under a file, a link in the
    // way) fails before the config is written, so a second `init` is not refused. If the
    // config then cannot be written, a directory made here is taken back.
    let made = !state_dir.exists();
    let dir = StateDir::create(state_dir)?;
    dir.refuse_link(STATE_FILE)?;
    if let Err(e) = write_config(config_path) {
        if made {
            let _ = fs::remove_dir(state_dir);
        }
        return Err(e);
    }
    if let Err(e) = dir.save(&State::default()) {
        // The config was created by this call (create_new): take it back, so that
        // `init` can simply be run again once the state directory is fixed.
        let _ = fs::remove_file(config_path);
        return Err(e.into());
    }
    Ok(format!(
        "wrote {}\nwrote {}\nnext: set the API key variables it names, then `thinker prompt watcher` (what a thread is sent) and `thinker tick --dry-run -v` (a tick that writes nothing)\n",
        config_path.display(),
        state_path.display()
    ))
}

/// Writes the default config at `path` (never over an existing file).
fn write_config(path: &Path) -> Result<(), Error> {
    let werr = |at: &Path| {
        let at = at.to_path_buf();
        move |source| Error::InitWrite { path: at, source }
    };
    if let Some(parent) = path.parent().filter(|p| !p.as_os_str().is_empty()) {
        fs::create_dir_all(parent).map_err(werr(parent))?;
    }
    let mut file = fs::OpenOptions::new()
        .write(true)
        .create_new(true)
        .open(path)
        .map_err(werr(path))?;
    file.write_all(DEFAULT_CONFIG.as_bytes())
        .map_err(werr(path))
}

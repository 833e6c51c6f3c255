//! `thinker init` fails before writing anything when the state directory cannot be one.

use crate::support::thinker_cmd;

/// Guards against `init` writing the config and then failing on the state, after which
/// a second `init` refuses because the config exists.
#[test]
fn init_with_an_impossible_state_directory_writes_nothing() {
    let home = tempfile::tempdir().unwrap();
    let config = home.path().join("y.toml");
    let blocker = home.path().join("a-file");
    std::fs::write(&blocker, "not a directory").unwrap();
    let out = thinker_cmd(home.path())
        .args(["init", "--config"])
        .arg(&config)
        .arg("--state")
        .arg(blocker.join("state"))
        .output()
        .unwrap();
    assert_ne!(out.status.code(), Some(0));
    assert!(
        !config.exists(),
        "the config was written before the state failed"
    );
    let stderr = String::from_utf8(out.stderr).unwrap();
    assert!(stderr.contains("not a directory"), "{stderr}");
    // Once the state directory is possible, init simply runs.
    let out = thinker_cmd(home.path())
        .args(["init", "--config"])
        .arg(&config)
        .arg("--state")
        .arg(home.path().join("state"))
        .output()
        .unwrap();
    assert_eq!(out.status.code(), Some(0), "{out:?}");
    assert!(config.exists());
    assert!(!String::from_utf8(out.stderr).unwrap().contains("doctor"));
}

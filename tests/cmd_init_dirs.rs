//! `thinker init` fails before writing anything when the state directory cannot be one.

use crate::support::Tick;

/// Guards against `init` writing the config and then failing on the state, after which
/// a second `init` refuses because the config exists.
#[test]
fn init_with_an_impossible_state_directory_writes_nothing() {
    let mut tick = Tick::new().bare();
    let config = tick.path("y.toml");
    std::fs::write(tick.path("a-file"), "not a directory").unwrap();
    let blocked = tick.path("a-file/state");
    let out = tick.thinker(&["init", "--config", &config, "--state", &blocked]);
    assert_ne!(out.code, Some(0));
    assert!(
        !std::path::Path::new(&config).exists(),
        "the config was written before the state failed"
    );
    assert!(out.stderr.contains("not a directory"), "{}", out.stderr);
    // Once the state directory is possible, init simply runs.
    let state = tick.path("state");
    let out = tick.thinker(&["init", "--config", &config, "--state", &state]);
    out.expect_exit(0);
    assert!(std::path::Path::new(&config).exists());
    assert!(out.stdout.contains("thinker doctor"), "{}", out.stdout);
}

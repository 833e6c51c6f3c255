//! How `thinker doctor`'s lines read, through the binary: a `files` source whose glob
//! matches no file is a `warn` (a typo in `~/agent/memroy/*.md` gave `ok … 0 bytes`), and
//! the levels in colour as `show` and `log` colour theirs (`--color`; none off a terminal).

use std::fs;

use thinker::thread::ThreadName::Librarian;

use crate::support::{SEED, Tick};

/// The line of check `name`.
fn line<'a>(stdout: &'a str, name: &str) -> &'a str {
    stdout
        .lines()
        .find(|l| {
            l.get(5..)
                .is_some_and(|r| r.starts_with(&format!("{name}:")))
        })
        .unwrap_or_else(|| panic!("no `{name}` line in\n{stdout}"))
}

#[test]
fn a_files_glob_matching_nothing_is_a_warning() {
    let mut tick = Tick::new()
        .state(SEED)
        .thread(
            Librarian,
            "[[threads.librarian.sources]]\nkind = \"files\"\nname = \"notes\"\npaths = [\"~/agent/memory/*.md\"]\n\
             [[threads.librarian.sources]]\nkind = \"files\"\nname = \"typo\"\npaths = [\"~/agent/memory/*.md\", \"~/agent/memroy/*.md\"]",
        );
    fs::create_dir_all(tick.home().join("agent/memory")).unwrap();
    fs::write(
        tick.home().join("agent/memory/2026-11-22.md"),
        "# Sunday\nDentist on Friday.\n",
    )
    .unwrap();
    let out = tick.thinker(&["doctor", "--offline"]);
    out.expect_exit(0);
    let notes = line(&out.stdout, "source librarian/notes");
    assert!(notes.starts_with("ok   "), "{notes}");
    let typo = line(&out.stdout, "source librarian/typo");
    let home = tick.home().display().to_string();
    assert!(typo.starts_with("warn "), "{typo}");
    assert!(
        typo.contains(&format!(
            "`{home}/agent/memroy/*.md` matches no file: a typo in the path?"
        )),
        "{typo}"
    );
    // Only the glob that matches nothing is named.
    assert!(!typo.contains("memory/*.md`"), "{typo}");
    let shown = regex::Regex::new(r"\d+ ms")
        .unwrap()
        .replace_all(typo, "N ms")
        .replace(&home, "[HOME]");
    insta::assert_snapshot!("doctor_files_glob_matches_nothing", shown);
}

#[test]
fn doctor_colours_its_levels_like_show_and_log() {
    let mut tick = Tick::new().state(SEED);
    let plain = tick.thinker(&["doctor", "--offline"]);
    assert!(!plain.stdout.contains('\x1b'), "no colour off a terminal");
    let coloured = tick
        .thinker(&["doctor", "--offline", "--color", "always"])
        .stdout;
    assert!(
        coloured.contains("\x1b[32mok  \x1b[0m config: "),
        "{coloured}"
    );
    // No tick yet: a warning, in yellow; the summary in bold.
    assert!(
        coloured.contains("\x1b[33mwarn\x1b[0m last tick: "),
        "{coloured}"
    );
    assert!(
        coloured.lines().last().unwrap().starts_with("\x1b[1m"),
        "{coloured}"
    );
    let never = tick
        .thinker(&["doctor", "--offline", "--color", "never"])
        .stdout;
    assert_eq!(never, plain.stdout);
    // A FAIL in red: a key variable that is not set.
    let mut tick = Tick::new()
        .state(SEED)
        .local("api_key_env = \"THINKER_TEST_MISSING_KEY\"");
    let failed = tick.thinker(&["doctor", "--offline", "--color", "always"]);
    failed.expect_exit(1);
    assert!(
        failed.stdout.contains("\x1b[31mFAIL\x1b[0m key local: "),
        "{}",
        failed.stdout
    );
}

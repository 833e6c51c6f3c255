//! The binary end to end (assert_cmd) in temp dirs: `show`, `init`, and the refusal to
//! touch a state file that does not read.

use std::fs;
use std::path::Path;

use predicates::prelude::*;
use thinker::state::State;

use crate::support::thinker_cmd as thinker;

const SEED: &str = r#"{
  "tick_count": 12,
  "last_tick": "2026-11-22T10:05:00Z",
  "active_threads": [
    {"id": "t-invoice-acme-overdue", "summary": "Invoice from ACME is overdue", "strength": 7,
     "created": "2026-11-20T08:00:00Z", "last_seen": "2026-11-22T09:53:00Z",
     "due": "2026-11-24T09:00:00Z", "source": "oracle"}
  ],
  "patterns": [
    {"id": "p-backup-fails-mondays", "summary": "Backup fails on Mondays\u001b[31m", "strength": 3,
     "created": "2026-11-01T08:00:00Z", "last_seen": "2026-11-21T08:00:00Z"}
  ],
  "hunches": [], "insights": [],
  "escalation_history": [{"timestamp": "2026-11-22T09:00:00Z", "thread": "watcher", "reason": "Disk almost full", "outcome": "pending"}],
  "thread_state": {
    "watcher": {"last_findings": ["Disk 91% full"], "novelty_pressure": 2, "focus_hint": "check the calendar", "history": [["Disk 91% full"]]}
  }
}
"#;

fn seeded(dir: &Path) -> std::path::PathBuf {
    let state = dir.join("state");
    fs::create_dir_all(&state).unwrap();
    fs::write(state.join("subconscious.json"), SEED).unwrap();
    state
}

#[test]
fn show_renders_for_a_person_without_colour_off_a_terminal() {
    let tmp = tempfile::tempdir().unwrap();
    let state = seeded(tmp.path());
    let out = thinker(tmp.path())
        .args(["show", "--now", "2026-11-22T10:05:00Z", "--state"])
        .arg(&state)
        .assert()
        .success()
        .get_output()
        .stdout
        .clone();
    let text = String::from_utf8(out).unwrap();
    assert!(
        !text.contains('\x1b'),
        "no escape codes off a terminal, even from the file"
    );
    insta::assert_snapshot!("show_text", text);
}

#[test]
fn show_colour_when_forced() {
    let tmp = tempfile::tempdir().unwrap();
    let state = seeded(tmp.path());
    thinker(tmp.path())
        .args(["show", "--color", "always", "--state"])
        .arg(&state)
        .assert()
        .success()
        .stdout(predicate::str::contains("\x1b[32m"));
}

#[test]
fn show_json_prints_the_file_as_is() {
    let tmp = tempfile::tempdir().unwrap();
    let state = seeded(tmp.path());
    thinker(tmp.path())
        .args(["show", "--json", "--state"])
        .arg(&state)
        .assert()
        .success()
        .stdout(SEED);
}

#[test]
fn show_without_state_is_empty_not_an_error() {
    let tmp = tempfile::tempdir().unwrap();
    thinker(tmp.path())
        .args(["show", "--state"])
        .arg(tmp.path().join("none"))
        .assert()
        .success()
        .stdout(predicate::str::contains("tick 0, no tick yet"));
}

#[test]
fn broken_state_files_are_reported_and_left_byte_for_byte() {
    let cases: [(&str, String, &str); 4] = [
        ("corrupt", "{ this is not json".into(), "not valid JSON"),
        ("truncated", SEED[..SEED.len() / 2].into(), "not valid JSON"),
        (
            "wrong type",
            SEED.replace("\"strength\": 7", "\"strength\": \"high\""),
            "active_threads[0].strength",
        ),
        (
            "future version",
            SEED.replacen('{', "{\"version\": 9,", 1),
            "newer thinker",
        ),
    ];
    for (name, text, needle) in cases {
        let tmp = tempfile::tempdir().unwrap();
        let state = tmp.path().join("state");
        fs::create_dir_all(&state).unwrap();
        let file = state.join("subconscious.json");
        fs::write(&file, &text).unwrap();
        fs::write(state.join("subconscious.json.bak"), SEED).unwrap();
        thinker(tmp.path())
            .args(["show", "--state"])
            .arg(&state)
            .assert()
            .code(1)
            .stderr(predicate::str::contains(needle))
            .stderr(predicate::str::contains("subconscious.json.bak"))
            .stderr(predicate::str::contains("left untouched"));
        assert_eq!(
            fs::read_to_string(&file).unwrap(),
            text,
            "{name}: file changed"
        );
    }
}

#[test]
fn init_writes_config_and_empty_state_and_refuses_to_overwrite() {
    let tmp = tempfile::tempdir().unwrap();
    let config = tmp.path().join("cfg/config.toml");
    let state = tmp.path().join("data/thinker");
    thinker(tmp.path())
        .args(["init", "--config"])
        .arg(&config)
        .arg("--state")
        .arg(&state)
        .assert()
        .success();
    assert!(
        fs::read_to_string(&config)
            .unwrap()
            .contains("[threads.watcher]")
    );
    let written =
        State::from_json(&fs::read_to_string(state.join("subconscious.json")).unwrap()).unwrap();
    assert_eq!(written, State::default());
    fs::write(&config, "# mine\n").unwrap();
    thinker(tmp.path())
        .args(["init", "--config"])
        .arg(&config)
        .arg("--state")
        .arg(tmp.path().join("elsewhere"))
        .assert()
        .code(2)
        .stderr(predicate::str::contains("never overwrites"));
    assert_eq!(fs::read_to_string(&config).unwrap(), "# mine\n");
    assert!(!tmp.path().join("elsewhere").exists());
}

#[test]
fn init_uses_xdg_defaults() {
    let tmp = tempfile::tempdir().unwrap();
    thinker(tmp.path()).arg("init").assert().success();
    assert!(tmp.path().join(".config/thinker/config.toml").is_file());
    assert!(
        tmp.path()
            .join(".local/share/thinker/subconscious.json")
            .is_file()
    );
}

#[test]
fn a_wrong_config_key_is_a_usage_error_naming_the_key() {
    let tmp = tempfile::tempdir().unwrap();
    let config = tmp.path().join("c.toml");
    fs::write(&config, "[memory]\nmatch_treshold = 0.5\n").unwrap();
    thinker(tmp.path())
        .args(["show", "--config"])
        .arg(&config)
        .assert()
        .code(2)
        .stderr(predicate::str::contains("match_treshold"));
}

#[test]
fn tick_on_a_broken_state_file_exits_1_and_leaves_it_byte_for_byte() {
    let tmp = tempfile::tempdir().unwrap();
    let state = tmp.path().join("state");
    fs::create_dir_all(&state).unwrap();
    let file = state.join("subconscious.json");
    let broken = SEED.replace("\"strength\": 7", "\"strength\": 7.5");
    fs::write(&file, &broken).unwrap();
    let demo = Path::new(env!("CARGO_MANIFEST_DIR")).join("examples/demo/thinker.toml");
    thinker(tmp.path())
        .args(["tick", "--config"])
        .arg(&demo)
        .arg("--state")
        .arg(&state)
        .assert()
        .code(1)
        .stderr(predicate::str::contains("active_threads[0].strength"))
        .stderr(predicate::str::contains("left untouched"));
    assert_eq!(fs::read_to_string(&file).unwrap(), broken);
    assert!(!state.join("subconscious.json.bak").exists());
    assert!(!state.join("journal.jsonl").exists());
}

/// The binary reads local times in the system's zone (`TZ`), through the command
/// context's clock: the same instant shows 05:05 in New York and 10:05 in UTC.
#[test]
fn show_reads_wall_clock_times_in_the_systems_zone() {
    let tmp = tempfile::tempdir().unwrap();
    let state = seeded(tmp.path());
    for (tz, wall) in [
        ("UTC", "(Sun 22 Nov 10:05)"),
        ("America/New_York", "(Sun 22 Nov 05:05)"),
    ] {
        if !Path::new("/usr/share/zoneinfo").join(tz).exists() && tz != "UTC" {
            eprintln!("skipped {tz}: no zoneinfo on this machine");
            continue;
        }
        thinker(tmp.path())
            .env("TZ", tz)
            .args(["show", "--now", "2026-11-22T10:05:00Z", "--state"])
            .arg(&state)
            .assert()
            .success()
            .stdout(predicate::str::contains(format!(
                "last tick just now {wall}"
            )));
    }
}

/// In process, through `run_with`: the command writes to the context's streams and reads
/// local times in the context's zone, whatever the machine's.
#[test]
fn commands_write_to_the_contexts_streams_in_its_zone() {
    use clap::Parser;
    use thinker::clock::Zone;
    use thinker::cmd::Output;
    let tmp = tempfile::tempdir().unwrap();
    let state = seeded(tmp.path());
    let config = tmp.path().join("empty.toml");
    fs::write(&config, "").unwrap();
    let cli = thinker::cli::Cli::parse_from([
        "thinker".as_ref(),
        "show".as_ref(),
        "--now".as_ref(),
        "2026-11-22T10:05:00Z".as_ref(),
        "--config".as_ref(),
        config.as_os_str(),
        "--state".as_ref(),
        state.as_os_str(),
    ]);
    let new_york = chrono::FixedOffset::west_opt(5 * 3600).unwrap();
    let (mut stdout, mut stderr) = (Vec::new(), Vec::new());
    let output = Output {
        stdout: &mut stdout,
        stderr: &mut stderr,
        stdout_is_terminal: false,
    };
    let code = thinker::run_with(&cli, output, Zone::Fixed(new_york)).unwrap();
    assert_eq!(code, 0);
    let text = String::from_utf8(stdout).unwrap();
    assert!(
        text.contains("last tick just now (Sun 22 Nov 05:05)"),
        "{text}"
    );
    assert!(!text.contains('\x1b'), "not a terminal: no colour");
    assert!(stderr.is_empty());
}

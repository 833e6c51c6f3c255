//! The binary end to end in temp dirs, through the [`Tick`] builder in bare mode (the args
//! exactly as given): `show`, `init`, and the refusal to touch a state file that does not
//! read.

use std::fs;
use std::path::Path;

use thinker::state::State;

use crate::support::Tick;

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
    let mut tick = Tick::new().state(SEED).bare().expect_exit(0);
    let state = tick.path("state");
    let text = tick
        .thinker(&["show", "--now", "2026-11-22T10:05:00Z", "--state", &state])
        .stdout;
    assert!(
        !text.contains('\x1b'),
        "no escape codes off a terminal, even from the file"
    );
    insta::assert_snapshot!("show_text", text);
}

#[test]
fn show_colour_when_forced() {
    let mut tick = Tick::new()
        .state(SEED)
        .bare()
        .expect_exit(0)
        .expect_stdout_contains("\x1b[32m");
    let state = tick.path("state");
    tick.thinker(&["show", "--color", "always", "--state", &state]);
}

#[test]
fn show_json_prints_the_file_as_is() {
    let mut tick = Tick::new()
        .state(SEED)
        .bare()
        .expect_exit(0)
        .expect_stdout(SEED);
    let state = tick.path("state");
    tick.thinker(&["show", "--json", "--state", &state]);
}

#[test]
fn show_without_state_is_empty_not_an_error() {
    let mut tick = Tick::new()
        .bare()
        .expect_exit(0)
        .expect_stdout_contains("tick 0, no tick yet");
    let none = tick.path("none");
    tick.thinker(&["show", "--state", &none]);
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
        let mut tick = Tick::new()
            .state(&text)
            .bare()
            .expect_exit(1)
            .expect_stderr_contains(needle)
            .expect_stderr_contains("subconscious.json.bak")
            .expect_stderr_contains("left untouched");
        let file = tick.dir().join("subconscious.json");
        fs::write(tick.dir().join("subconscious.json.bak"), SEED).unwrap();
        let state = tick.path("state");
        tick.thinker(&["show", "--state", &state]);
        assert_eq!(
            fs::read_to_string(&file).unwrap(),
            text,
            "{name}: file changed"
        );
    }
}

#[test]
fn init_writes_config_and_empty_state_and_refuses_to_overwrite() {
    let mut tick = Tick::new().bare().expect_exit(0);
    let (config, state) = (tick.path("cfg/config.toml"), tick.path("data/thinker"));
    tick.thinker(&["init", "--config", &config, "--state", &state]);
    assert!(
        fs::read_to_string(&config)
            .unwrap()
            .contains("[threads.watcher]")
    );
    let written =
        State::from_json(&fs::read_to_string(Path::new(&state).join("subconscious.json")).unwrap())
            .unwrap();
    assert_eq!(written, State::default());
    fs::write(&config, "# mine\n").unwrap();
    let mut tick = tick
        .expect_exit(2)
        .expect_stderr_contains("never overwrites");
    let elsewhere = tick.path("elsewhere");
    tick.thinker(&["init", "--config", &config, "--state", &elsewhere]);
    assert_eq!(fs::read_to_string(&config).unwrap(), "# mine\n");
    assert!(!tick.home().join("elsewhere").exists());
}

#[test]
fn init_uses_xdg_defaults() {
    let mut tick = Tick::new().bare().expect_exit(0);
    tick.thinker(&["init"]);
    assert!(tick.home().join(".config/thinker/config.toml").is_file());
    assert!(
        tick.home()
            .join(".local/share/thinker/subconscious.json")
            .is_file()
    );
}

#[test]
fn a_wrong_config_key_is_a_usage_error_naming_the_key() {
    let mut tick = Tick::new()
        .bare()
        .expect_exit(2)
        .expect_stderr_contains("match_treshold");
    let config = tick.path("c.toml");
    fs::write(&config, "[memory]\nmatch_treshold = 0.5\n").unwrap();
    tick.thinker(&["show", "--config", &config]);
}

#[test]
fn tick_on_a_broken_state_file_exits_1_and_leaves_it_byte_for_byte() {
    let broken = SEED.replace("\"strength\": 7", "\"strength\": 10.5");
    let mut tick = Tick::new()
        .state(&broken)
        .bare()
        .expect_exit(1)
        .expect_stderr_contains("active_threads[0].strength")
        .expect_stderr_contains("left untouched");
    let demo = Path::new(env!("CARGO_MANIFEST_DIR")).join("examples/demo/thinker.toml");
    let (demo, state) = (demo.display().to_string(), tick.path("state"));
    tick.thinker(&["tick", "--config", &demo, "--state", &state]);
    let state = tick.dir();
    assert_eq!(
        fs::read_to_string(state.join("subconscious.json")).unwrap(),
        broken
    );
    assert!(!state.join("subconscious.json.bak").exists());
    assert!(!state.join("journal.jsonl").exists());
}

/// The binary reads local times in the system's zone (`TZ`), through the command
/// context's clock: the same instant shows 05:05 in New York and 10:05 in UTC.
#[test]
fn show_reads_wall_clock_times_in_the_systems_zone() {
    for (tz, wall) in [
        ("UTC", "(Sun 22 Nov 10:05)"),
        ("America/New_York", "(Sun 22 Nov 05:05)"),
    ] {
        if !Path::new("/usr/share/zoneinfo").join(tz).exists() && tz != "UTC" {
            eprintln!("skipped {tz}: no zoneinfo on this machine");
            continue;
        }
        let mut tick = Tick::new()
            .state(SEED)
            .bare()
            .env("TZ", tz)
            .expect_exit(0)
            .expect_stdout_contains(&format!("last tick just now {wall}"));
        let state = tick.path("state");
        tick.thinker(&["show", "--now", "2026-11-22T10:05:00Z", "--state", &state]);
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

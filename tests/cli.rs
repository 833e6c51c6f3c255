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
    let (none, config) = (tick.path("none"), tick.path("empty.toml"));
    fs::write(&config, "").unwrap();
    tick.thinker(&["show", "--config", &config, "--state", &none]);
}

/// With neither a config nor a state, `show` says what `tick` says (run `init`) instead
/// of printing an empty memory; the forms for programs still answer.
#[test]
fn show_without_config_or_state_says_what_tick_says() {
    let mut tick = Tick::new().bare();
    let none = tick.path("none");
    let ticked = tick.thinker(&["tick", "--state", &none]);
    let shown = tick.thinker(&["show", "--state", &none]);
    assert_eq!(shown.code, Some(2));
    assert_eq!(shown.code, ticked.code);
    assert_eq!(shown.stderr, ticked.stderr);
    assert!(shown.stderr.contains("thinker init"), "{}", shown.stderr);
    assert!(shown.stdout.is_empty());
    for programs in [&["--json"][..], &["--format", "prompt"]] {
        let mut args = vec!["show", "--state", &none];
        args.extend_from_slice(programs);
        tick.thinker(&args).expect_exit(0);
    }
}

/// `--for` that nothing matches: nothing on stdout, one line on stderr, exit 0 (quiet
/// with -q).
#[test]
fn show_for_with_no_match_says_so_on_stderr() {
    let mut tick = Tick::new().state(SEED).bare().expect_exit(0);
    let state = tick.path("state");
    for format in ["prompt", "json"] {
        let out = tick.thinker(&[
            "show",
            "--state",
            &state,
            "--format",
            format,
            "--for",
            "refactor the parser module",
        ]);
        assert_eq!(
            out.stderr, "nothing in the memory matches `refactor the parser module` well enough\n",
            "{format}"
        );
        if format == "prompt" {
            assert_eq!(out.stdout, "");
        }
        let quiet = tick.thinker(&[
            "show",
            "-q",
            "--state",
            &state,
            "--format",
            format,
            "--for",
            "refactor the parser module",
        ]);
        assert_eq!(quiet.stderr, "");
    }
    let found = tick.thinker(&["show", "--state", &state, "--for", "ACME invoice"]);
    assert!(
        found.stdout.contains("t-invoice-acme-overdue"),
        "{}",
        found.stdout
    );
    assert_eq!(found.stderr, "");
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

/// `init` prints its result on stdout (stderr is for notes and errors).
#[test]
fn init_prints_its_result_on_stdout() {
    let mut tick = Tick::new().bare().expect_exit(0);
    let (config, state) = (tick.path("c/config.toml"), tick.path("s"));
    let out = tick.thinker(&["init", "--config", &config, "--state", &state]);
    assert!(
        out.stdout.contains(&format!("wrote {config}\n")),
        "{}",
        out.stdout
    );
    assert!(
        out.stdout.starts_with("GROQ_API_KEY: not set\n"),
        "{}",
        out.stdout
    );
    assert_eq!(out.stderr, "");
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

/// Every command's `--help` carries examples, and lists the global options under their
/// own heading, apart from the command's own.
#[test]
fn every_help_has_examples_and_global_options_apart() {
    use clap::CommandFactory;
    let cli = thinker::cli::Cli::command();
    let mut commands: Vec<Vec<&str>> = vec![vec![]];
    commands.extend(
        cli.get_subcommands()
            .map(|c| vec![c.get_name()])
            .filter(|c| c != &["help"]),
    );
    let mut tick = Tick::new().bare().expect_exit(0);
    for command in commands {
        let mut args = command.clone();
        args.push("--help");
        let help = tick.thinker(&args).stdout;
        let (own, global) = help
            .split_once("\nGlobal options:\n")
            .unwrap_or_else(|| panic!("{command:?}: no Global options heading\n{help}"));
        assert!(!own.contains("--config <PATH>"), "{command:?}\n{help}");
        assert!(
            global.starts_with("      --config <PATH>"),
            "{command:?}\n{help}"
        );
        let (_, examples) = global
            .split_once("\nExamples:\n")
            .unwrap_or_else(|| panic!("{command:?}: no examples\n{help}"));
        let runs = examples
            .lines()
            .filter(|l| !l.trim_start().starts_with('#') && !l.trim().is_empty())
            .count();
        assert!(
            (2..=3).contains(&runs),
            "{command:?}: {runs} examples\n{help}"
        );
        assert!(!help.contains('\x1b'), "no styling off a terminal");
    }
    insta::assert_snapshot!("help_tick", tick.thinker(&["tick", "--help"]).stdout);
}

/// `thinker man --dir` writes thinker.1 and a page for every command its page lists,
/// each with EXIT STATUS, ENVIRONMENT, FILES and EXAMPLES; `thinker man tick` prints one.
#[test]
fn man_writes_a_page_per_command_with_the_four_sections() {
    use clap::CommandFactory;
    let mut tick = Tick::new().bare().expect_exit(0);
    let dir = tick.path("man/man1");
    let out = tick.thinker(&["man", "--dir", &dir]);
    let main = fs::read_to_string(tick.home().join("man/man1/thinker.1")).unwrap();
    let cli = thinker::cli::Cli::command();
    let mut names = vec!["thinker.1".to_string()];
    for sub in cli.get_subcommands().filter(|c| c.get_name() != "help") {
        let name = format!("thinker-{}", sub.get_name());
        // Each page thinker's page lists is there.
        assert!(
            main.contains(&format!("{}(1)", name.replace('-', "\\-"))),
            "{name}"
        );
        names.push(format!("{name}.1"));
    }
    let mut written: Vec<String> = fs::read_dir(tick.home().join("man/man1"))
        .unwrap()
        .map(|e| e.unwrap().file_name().to_string_lossy().into_owned())
        .collect();
    written.sort();
    names.sort();
    assert_eq!(written, names);
    assert_eq!(out.stdout.lines().count(), names.len());
    for name in &names {
        let page = fs::read_to_string(tick.home().join("man/man1").join(name)).unwrap();
        for section in [
            ".SH \"EXIT STATUS\"",
            ".SH ENVIRONMENT",
            ".SH FILES",
            ".SH EXAMPLES",
        ] {
            assert!(page.contains(section), "{name}: no {section}");
        }
        assert!(page.contains(".TH thinker"), "{name}");
    }
    let page = tick.thinker(&["man", "tick"]).stdout;
    assert_eq!(
        page,
        fs::read_to_string(tick.home().join("man/man1/thinker-tick.1")).unwrap()
    );
    assert!(page.contains("thinker tick \\-\\-dry\\-run \\-v"), "{page}");
    assert!(page.contains("Another tick holds the lock"), "{page}");
    let mut tick = tick
        .expect_exit(2)
        .expect_stderr_contains("is not a thinker command");
    tick.thinker(&["man", "nope"]);
}

/// Regression: `log` showed `-0` for a tick whose removals (a retired entry, an entry
/// the agent marked wrong) `stats` counted from the archive.
#[test]
fn log_counts_every_removal_stats_counts() {
    use serde_json::json;
    use thinker::thread::ThreadName::Watcher;
    let mut tick = Tick::new().state(crate::support::SEED).answer(
        Watcher,
        &json!({"findings": [], "reinforce": [], "suggest": "",
                "retire": [{"id": "t-acme-invoice-overdue", "why": "done"}]}),
    );
    tick.run().expect_exit(0);
    tick.thinker(&["feedback", "p-backup-fails-mondays", "wrong"])
        .expect_exit(0);
    tick = tick.answer(Watcher, &crate::support::nothing());
    tick.set_now("2026-11-22T10:10:00Z");
    tick.run().expect_exit(0);
    let log = tick.thinker(&["log"]).stdout;
    let removed: Vec<&str> = log
        .lines()
        .skip(1)
        .filter_map(|l| {
            l.split_whitespace()
                .find(|w| w.starts_with('-') && w.len() > 1)
        })
        .collect();
    assert_eq!(removed, ["-1", "-1"], "{log}");
    let json: serde_json::Value =
        serde_json::from_str(&tick.thinker(&["log", "--json"]).stdout).unwrap();
    let counts: Vec<u64> = json
        .as_array()
        .unwrap()
        .iter()
        .map(|t| t["removed"].as_u64().unwrap())
        .collect();
    assert_eq!(counts, [1, 1]);
    let stats: serde_json::Value =
        serde_json::from_str(&tick.thinker(&["stats", "--since", "30d", "--json"]).stdout).unwrap();
    assert_eq!(stats["memory"]["removed"], 2, "{stats}");
}

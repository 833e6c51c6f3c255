//! Watching thinker (issue 12): `log`, `stats`, the journal's rotation through real ticks,
//! `cron` (crontab, systemd, Kubernetes), `completions` and `man`, through the binary.
//! The journal fixtures (`tests/fixtures/journal/`) hold a rotated October file, a
//! corrupt line, a torn last line, an escalation line and an archive; times are read in
//! the zone the harness sets (`TZ=UTC`) and `--now` is fixed, so nothing depends on the
//! machine.

use std::fs;
use std::path::Path;

use serde_json::Value;

use crate::support::{SEED, Tick};

const FIXTURES: &str = concat!(env!("CARGO_MANIFEST_DIR"), "/tests/fixtures/journal");

/// A setup whose state directory holds the journal fixtures.
fn journaled() -> Tick {
    let tick = Tick::new();
    fs::create_dir_all(tick.dir()).unwrap();
    for entry in fs::read_dir(FIXTURES).unwrap() {
        let entry = entry.unwrap();
        fs::copy(entry.path(), tick.dir().join(entry.file_name())).unwrap();
    }
    tick
}

fn json(text: &str) -> Value {
    serde_json::from_str(text).unwrap()
}

/// The one warning about the corrupt line and the torn last line.
fn assert_one_warning(stderr: &str) {
    let warnings: Vec<&str> = stderr.lines().filter(|l| l.contains("warning")).collect();
    assert_eq!(warnings.len(), 1, "{stderr}");
    assert!(
        warnings[0].contains(
            "skipped 2 unreadable journal lines (journal.jsonl line 3, journal.jsonl line 6)"
        ),
        "{stderr}"
    );
}

#[test]
fn log_reads_across_rotated_files_and_skips_bad_lines_with_one_warning() {
    let mut t = journaled().expect_exit(0);
    let out = t.thinker(&["log", "-n", "10"]);
    assert_one_warning(&out.stderr);
    assert!(!out.stdout.contains('\x1b'), "no colour off a terminal");
    insta::assert_snapshot!("log_text", out.stdout);

    let out = t.thinker(&["log", "--thread", "watcher"]);
    insta::assert_snapshot!("log_thread_watcher", out.stdout);
}

#[test]
fn log_json_joins_the_escalation_line_by_run_and_keeps_the_last_n() {
    let mut t = journaled().expect_exit(0);
    let all = json(&t.thinker(&["log", "--json", "-n", "10"]).stdout);
    let runs: Vec<u64> = all
        .as_array()
        .unwrap()
        .iter()
        .map(|x| x["run"].as_u64().unwrap())
        .collect();
    assert_eq!(runs, [1, 2, 3, 4, 5], "October's rotated file first");
    let third = &all[2];
    assert_eq!(third["escalations"][0]["outcome"], "pending");
    assert_eq!(third["escalation"]["decision"], "notify");
    assert_eq!(
        third["escalation"]["records"][0]["outcome"]
            .as_str()
            .unwrap()
            .split(':')
            .next(),
        Some("notified")
    );
    assert!((third["cost"].as_f64().unwrap() - 0.0569).abs() < 1e-9);

    let last = t.thinker(&["log", "--json", "-n", "2", "--thread", "oracle"]);
    insta::assert_snapshot!("log_json_last_two_oracle", last.stdout);
}

#[test]
fn log_colours_only_when_asked_and_prints_journal_text_cleaned() {
    let mut t = journaled().expect_exit(0);
    let coloured = t.thinker(&["log", "--color", "always"]).stdout;
    assert!(coloured.contains("\x1b[31mfailed"), "{coloured}");

    let hostile = Tick::new().expect_exit(0);
    fs::create_dir_all(hostile.dir()).unwrap();
    let line = fs::read_to_string(Path::new(FIXTURES).join("journal-2026-10.jsonl"))
        .unwrap()
        .replace(
            "model overloaded",
            "\\u001b]0;pwned\\u0007\\u001b[2Jover\\u202eloaded",
        );
    fs::write(hostile.dir().join("journal.jsonl"), line).unwrap();
    let mut hostile = hostile;
    for args in [&["log", "--thread", "watcher"][..], &["log", "--json"][..]] {
        let out = hostile.thinker(args).stdout;
        assert!(
            !out.contains('\x1b') && !out.contains('\u{202e}') && !out.contains('\u{7}'),
            "{out:?}"
        );
        assert!(out.contains("overloaded"), "{out}");
    }
}

#[test]
fn stats_count_calls_skips_latency_cost_and_memory() {
    let mut t = journaled().expect_exit(0);
    let out = t.thinker(&["stats", "--since", "30d"]);
    assert_one_warning(&out.stderr);
    insta::assert_snapshot!("stats_text", out.stdout);

    let s = json(&t.thinker(&["stats", "--since", "30d", "--json"]).stdout);
    insta::assert_json_snapshot!("stats_json", s);
}

/// Regression guard for `--since`: the default week leaves the rotated October file out,
/// a date is that local day's midnight, and a bad value is a usage error.
#[test]
fn stats_since_a_span_or_a_date() {
    let mut t = journaled().expect_exit(0);
    let week = json(&t.thinker(&["stats", "--json"]).stdout);
    assert_eq!(week["since"], "2026-11-15T10:05:00Z");
    assert_eq!(week["ticks"], 3);
    let today = json(
        &t.thinker(&["stats", "--json", "--since", "2026-11-22"])
            .stdout,
    );
    assert_eq!(today["ticks"], 2);
    assert_eq!(
        today["memory"]["removed"], 1,
        "the archive is read from then on"
    );

    let mut bad = journaled().expect_exit(2).expect_stderr_contains("7d, 24h");
    bad.thinker(&["stats", "--since", "last week"]);
}

#[test]
fn log_and_stats_of_a_state_without_a_journal() {
    let mut t = Tick::new().expect_exit(0);
    let out = t.thinker(&["log"]);
    assert!(
        out.stdout.starts_with("no ticks in the journal yet ("),
        "{}",
        out.stdout
    );
    assert_eq!(json(&t.thinker(&["log", "--json"]).stdout), json("[]"));
    let stats = json(&t.thinker(&["stats", "--json"]).stdout);
    assert_eq!(stats["ticks"], 0);
}

/// Two real ticks either side of a UTC month boundary: the first month's lines are
/// rotated aside, and `log` and `stats` still see both ticks.
#[test]
fn ticks_across_a_month_rotate_the_journal_and_are_read_back() {
    let mut t = Tick::new().state(SEED).expect_exit(0);
    t.set_now("2026-10-31T23:55:00Z");
    t.run();
    t.set_now("2026-11-01T00:05:00Z");
    t.run();
    let mut names: Vec<String> = fs::read_dir(t.dir())
        .unwrap()
        .map(|e| e.unwrap().file_name().to_string_lossy().into_owned())
        .filter(|n| n.starts_with("journal"))
        .collect();
    names.sort();
    assert_eq!(names, ["journal-2026-10.jsonl", "journal.jsonl"]);
    let log = json(&t.thinker(&["log", "--json"]).stdout);
    let times: Vec<&str> = log
        .as_array()
        .unwrap()
        .iter()
        .map(|x| x["time"].as_str().unwrap())
        .collect();
    assert_eq!(times, ["2026-10-31T23:55:00Z", "2026-11-01T00:05:00Z"]);
    let stats = json(&t.thinker(&["stats", "--json", "--since", "1h"]).stdout);
    assert_eq!(stats["ticks"], 2);
    assert_eq!(stats["models"][0]["calls"], 2);
}

/// `cron` in its three forms, for this setup's config and state and the binary's path.
#[test]
fn cron_prints_a_crontab_line_systemd_units_and_a_cronjob() {
    let mut t = Tick::new().bare().expect_exit(0);
    let exe = assert_cmd::cargo::cargo_bin("thinker");
    let bin = exe.parent().unwrap().display().to_string();
    let home = t.home().display().to_string();
    let config = t.path("thinker.toml");
    let state = t.path("state");
    fs::write(&config, "").unwrap();
    let clean = |text: &str| {
        text.replace(&exe.display().to_string(), "[EXE]")
            .replace(&bin, "[BIN]")
            .replace(&home, "[HOME]")
    };
    for (name, extra) in [
        ("cron_crontab", &[][..]),
        ("cron_systemd", &["--systemd"][..]),
        (
            "cron_kubernetes",
            &["--kubernetes", "--name", "thinker-mail"][..],
        ),
    ] {
        let mut args = vec!["cron", "--config", &config, "--state", &state];
        args.extend_from_slice(extra);
        let out = t.thinker(&args);
        assert_eq!(out.stderr, "", "{name}");
        insta::assert_snapshot!(name, clean(&out.stdout));
    }
    let line = t
        .thinker(&["cron", "--config", &config, "--state", &state])
        .stdout;
    let line = line.lines().last().unwrap();
    assert!(
        !line.replace(r"\%", "").contains('%'),
        "a bare % ends a crontab command: {line}"
    );

    let mut bad = Tick::new()
        .bare()
        .expect_exit(2)
        .expect_stderr_contains("lowercase letters");
    bad.thinker(&["cron", "--kubernetes", "--name", "Thinker_Mail"]);
}

#[test]
fn completions_and_the_man_page_come_from_the_command_line() {
    let mut t = Tick::new().bare().expect_exit(0);
    for shell in ["bash", "zsh", "fish"] {
        let out = t.thinker(&["completions", shell]).stdout;
        for sub in ["tick", "show", "log", "stats", "cron", "completions", "man"] {
            assert!(out.contains(sub), "{shell}: no `{sub}` in\n{out}");
        }
    }
    let man = t.thinker(&["man"]).stdout;
    assert!(
        man.starts_with(".ie") || man.contains("\n.TH thinker"),
        "{man}"
    );
    assert!(man.contains(".TH thinker 1"), "{man}");
    assert!(man.contains("stats"), "{man}");
    Tick::new()
        .bare()
        .expect_exit(2)
        .thinker(&["completions", "tcsh"]);
}

/// The tick takes its rotation from `[journal]`: `never` keeps one file across months.
#[test]
fn the_ticks_rotation_follows_the_config() {
    let mut t = Tick::new()
        .state(SEED)
        .config_extra("[journal]\nrotate = \"never\"")
        .expect_exit(0);
    t.set_now("2026-10-31T23:55:00Z");
    t.run();
    t.set_now("2026-11-01T00:05:00Z");
    t.run();
    let names: Vec<String> = fs::read_dir(t.dir())
        .unwrap()
        .map(|e| e.unwrap().file_name().to_string_lossy().into_owned())
        .filter(|n| n.starts_with("journal"))
        .collect();
    assert_eq!(names, ["journal.jsonl"]);
}

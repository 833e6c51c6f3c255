//! `thinker replay` and `explain` (issue 13) on a journal of 200 real ticks: the binary
//! runs them against scripted threads (answers drawn from a small world, so that
//! findings repeat, match, decay, get pruned, escalate, and the agent's verdicts come
//! in), and every state it leaves is kept. The replay must reproduce each one byte for
//! byte, write nothing, move in the expected direction under other settings, and stop
//! where the journal is torn.

use std::fs;
use std::path::{Path, PathBuf};
use std::sync::OnceLock;
use std::sync::atomic::{AtomicUsize, Ordering};

use serde_json::{Value, json};
use thinker::aggregate::feedback::{Judgement, Verdict};
use thinker::clock::Clock;
use thinker::replay::{self, Follow, Keep};
use thinker::state::State;
use thinker::storage::StateDir;
use thinker::thread::ThreadName;
use thinker::tick::TickOptions;
use wiremock::{Request, Respond, ResponseTemplate};

use crate::escalation_tick::{Primary, appending, decision};
use crate::support::{Tick, completion, snapshot};

/// Things the scripted world talks about: several share words, so that some findings
/// match each other at the default threshold and not at a stricter one.
const TOPICS: [&str; 16] = [
    "NAS disk almost full on the backup volume",
    "NAS disk almost full on the backup drive",
    "ACME invoice 4411 overdue since two weeks",
    "ACME invoice 4411 overdue since three weeks",
    "Dentist appointment Friday morning at nine",
    "Dentist appointment Friday morning at ten",
    "Budget review meeting moved to Thursday",
    "Budget review slides not started yet",
    "Backups fail on Mondays after the update",
    "Rent transfer due on the first of December",
    "Passport renewal form still unsigned",
    "Server load high during nightly builds",
    "Mother's birthday next week, no gift yet",
    "Car inspection overdue by one month",
    "Electricity bill higher than last month",
    "Conference talk proposal deadline Sunday",
];

/// A deterministic mix (splitmix64).
fn mix(mut x: u64) -> u64 {
    x = x.wrapping_add(0x9e37_79b9_7f4a_7c15);
    x = (x ^ (x >> 30)).wrapping_mul(0xbf58_476d_1ce4_e5b9);
    x = (x ^ (x >> 27)).wrapping_mul(0x94d0_49bb_1331_11eb);
    x ^ (x >> 31)
}

/// The `n`th answer of `thread`.
fn scripted(thread: ThreadName, n: u64) -> Value {
    let r = mix(n * 4 + thread.index() as u64);
    let count = (r % 3) as usize;
    let findings: Vec<Value> = (0..count)
        .map(|k| {
            let pick = mix(r + k as u64);
            let topic = TOPICS[(pick % TOPICS.len() as u64) as usize];
            json!({"summary": topic, "importance": 1 + (pick >> 8) % 9})
        })
        .collect();
    let escalate = thread == ThreadName::Watcher && n % 11 == 3;
    json!({
        "findings": findings,
        "reinforce": if r.is_multiple_of(5) { vec!["t-nas-disk-almost"] } else { vec![] },
        "suggest": if r.is_multiple_of(4) { "look at the backups" } else { "" },
        "escalate": escalate,
        "escalate_reason": if escalate { TOPICS[(r % 4) as usize] } else { "" },
    })
}

/// Answers each thread's requests in turn with its scripted answers.
struct Scripted(ThreadName, AtomicUsize);

impl Respond for Scripted {
    fn respond(&self, _: &Request) -> ResponseTemplate {
        let n = self.1.fetch_add(1, Ordering::SeqCst) as u64 + 1;
        ResponseTemplate::new(200).set_body_json(completion(
            self.0.as_str(),
            &scripted(self.0, n),
            300,
            40,
        ))
    }
}

/// The recorded history: the state directory, the config, and the state after each tick.
struct Fixture {
    _home: tempfile::TempDir,
    dir: PathBuf,
    config: PathBuf,
    states: Vec<String>,
}

const TICKS: usize = 200;

fn fixture() -> &'static Fixture {
    static FIXTURE: OnceLock<Fixture> = OnceLock::new();
    FIXTURE.get_or_init(|| record(TICKS))
}

fn at(n: usize) -> String {
    let t = thinker::timestamp::parse("2026-11-01T06:00:00Z").unwrap()
        + chrono::TimeDelta::minutes(20 * i64::try_from(n).unwrap());
    thinker::timestamp::format(t)
}

/// One tick in this process. (A child process another test forks meanwhile shares the
/// state lock's open file until it execs; the lock is released explicitly, so the next
/// tick takes it at once: `storage`'s `Lock`.)
fn tick_in_process(
    config: &thinker::config::Config,
    state_dir: &Path,
    options: &TickOptions,
) -> thinker::tick::TickReport {
    thinker::tick::run(config, state_dir, options).unwrap()
}

fn record(ticks: usize) -> Fixture {
    let decisions: Vec<Value> = (0..40)
        .map(|i| match i % 3 {
            0 => decision("notify", "Something needs you.", "it is urgent"),
            1 => decision("dismiss", "", "not worth a message"),
            _ => decision("remember", "A note for later.", "worth keeping"),
        })
        .collect();
    let primary = Primary::anthropic(&decisions);
    let mut tick = Tick::new();
    let (script, _) = appending(tick.home());
    let memory = tick.home().join("memory");
    // In process, with no key variable to set: the mock does not ask for one.
    let lines = primary
        .config(
            &script,
            &format!("memory_dir = \"{}\"\ndaily_cap = 1000", memory.display()),
        )
        .replace("api_key_env = \"PRIMARY_KEY\"\n", "");
    tick = tick.config_extra(&lines);
    // Fast decay and small caps, so that in 200 ticks entries come, go and come back,
    // and the knobs have something to move.
    tick = tick.config_extra(
        "[memory]\ndecay_hours = { active_threads = 0.5, patterns = 1, hunches = 0.5, insights = 1 }\ncaps = { active_threads = 5, patterns = 5, hunches = 5, insights = 3 }\ntoken_budget = 2000\n",
    );
    for thread in ThreadName::ALL {
        tick = tick.respond(thread, Scripted(thread, AtomicUsize::new(0)));
    }
    // In process (the binary's start-up, 200 times over, is what would take long): the
    // same tick the binary runs, on the same config and directory.
    tick.mount();
    fs::write(tick.config_path(), tick.config_text()).unwrap();
    let config = thinker::config::Config::load(&tick.config_path()).unwrap();
    let state_dir = tick.home().join("state");
    let dir = StateDir::at(&state_dir);
    let state_file = state_dir.join("subconscious.json");
    let mut states = Vec::new();
    for n in 0..ticks {
        let now = thinker::timestamp::parse(&at(n)).unwrap();
        // Now and then the agent's word on an entry in memory.
        if n % 17 == 9 || n % 29 == 14 {
            let text = fs::read_to_string(&state_file).unwrap_or_default();
            if let Some(id) = State::from_json(&text)
                .ok()
                .and_then(|state| state.all_entries().nth(n % 3).map(|(_, e)| e.id.clone()))
            {
                let verdict = if n % 17 == 9 {
                    Judgement::Used
                } else {
                    Judgement::Wrong
                };
                dir.append_feedback(&Verdict::new(now, &id, verdict, Some("from the test")))
                    .unwrap();
            }
        }
        let options = TickOptions {
            dry_run: false,
            clock: Clock::utc(now),
        };
        let report = tick_in_process(&config, &state_dir, &options);
        assert!(matches!(report.exit_code(), 0 | 3), "tick {n}");
        states.push(fs::read_to_string(&state_file).unwrap());
    }
    // Keep the directory and the config beyond the servers' life.
    let home = tempfile::tempdir().unwrap();
    let dir = home.path().join("state");
    copy_dir(&tick.home().join("state"), &dir);
    let config = home.path().join("thinker.toml");
    fs::copy(tick.config_path(), &config).unwrap();
    Fixture {
        _home: home,
        dir,
        config,
        states,
    }
}

fn copy_dir(from: &Path, to: &Path) {
    fs::create_dir_all(to).unwrap();
    for e in fs::read_dir(from).unwrap().flatten() {
        if e.file_type().unwrap().is_file() {
            fs::copy(e.path(), to.join(e.file_name())).unwrap();
        }
    }
}

fn replay_cmd(f: &Fixture, dir: &Path, args: &[&str]) -> (Option<i32>, String, String) {
    let out = std::process::Command::new(assert_cmd::cargo::cargo_bin("thinker"))
        .env_clear()
        .env("TZ", "UTC")
        .arg("--config")
        .arg(&f.config)
        .arg("--state")
        .arg(dir)
        .args(args)
        .output()
        .unwrap();
    (
        out.status.code(),
        String::from_utf8(out.stdout).unwrap(),
        String::from_utf8(out.stderr).unwrap(),
    )
}

/// Every state of the 200 ticks, byte for byte, from the journal alone.
#[test]
fn replay_reproduces_every_recorded_state_byte_for_byte() {
    let f = fixture();
    let journal = thinker::journal::read::strict(&f.dir).unwrap();
    assert_eq!(journal.stopped, None);
    assert_eq!(journal.ticks.len(), TICKS);
    assert!(
        journal
            .ticks
            .iter()
            .filter(|t| t.escalation.is_some())
            .count()
            >= 4,
        "the fixture exercises the escalation phase"
    );
    assert!(
        journal.ticks.iter().any(|t| !t.line.verdicts.is_empty()),
        "the fixture exercises the agent's verdicts"
    );
    let config = thinker::config::Config::load(&f.config).unwrap();
    let run = replay::run(
        &journal.ticks,
        0,
        None,
        &config.memory,
        Follow::Recorded,
        Keep::States,
    );
    assert_eq!(run.frames.len(), TICKS);
    for (n, (frame, recorded)) in run.frames.iter().zip(&f.states).enumerate() {
        let replayed = frame.state.as_ref().unwrap().to_json().unwrap();
        assert!(
            replayed == *recorded,
            "tick {n} (run {}): the replayed state differs from the recorded one",
            frame.run
        );
    }
    assert!(run.check.faithful(), "{:?}", run.check.first_mismatch);
    assert_eq!(run.check.checked, run.check.reproduced);
    assert!(run.check.checked > TICKS);
}

/// The command says it is faithful, and writes nothing in the state directory.
#[test]
fn the_replay_command_checks_itself_and_writes_nothing() {
    let f = fixture();
    let before = snapshot(&f.dir);
    let (code, stdout, stderr) = replay_cmd(f, &f.dir, &["replay", "--json"]);
    assert_eq!(code, Some(0), "{stderr}");
    let out: Value = serde_json::from_str(&stdout).unwrap();
    assert_eq!(out["faithful"], true);
    assert_eq!(out["ticks"], TICKS);
    assert_eq!(out["check"]["checked"], out["check"]["reproduced"]);
    let (code, stdout, _) = replay_cmd(
        f,
        &f.dir,
        &["replay", "--set", "memory.match_threshold=0.3"],
    );
    assert_eq!(code, Some(0));
    assert!(stdout.contains("Faithful: all "), "{stdout}");
    assert!(
        stdout.contains("With memory.match_threshold = 0.3"),
        "{stdout}"
    );
    assert_eq!(snapshot(&f.dir), before, "a replay writes nothing");
}

fn side(f: &Fixture, set: &[&str]) -> (Value, Value) {
    let mut args = vec!["replay", "--json"];
    for s in set {
        args.extend(["--set", s]);
    }
    let (code, stdout, stderr) = replay_cmd(f, &f.dir, &args);
    assert_eq!(code, Some(0), "{stderr}");
    let out: Value = serde_json::from_str(&stdout).unwrap();
    (
        out["diff"]["current"].clone(),
        out["diff"]["overridden"].clone(),
    )
}

fn n(v: &Value, key: &str) -> u64 {
    v[key].as_u64().unwrap_or_else(|| panic!("{key} in {v}"))
}

/// Each knob moves the outcome the way it should.
#[test]
fn other_settings_move_the_outcome_in_the_expected_direction() {
    let f = fixture();
    // A looser match merges more findings into existing entries: fewer entries.
    let (cur, ovr) = side(f, &["memory.match_threshold=0.2"]);
    assert!(n(&ovr, "remembered") < n(&cur, "remembered"), "{cur} {ovr}");
    // A stricter one keeps more apart: more entries.
    let (cur, ovr) = side(f, &["memory.match_threshold=0.95"]);
    assert!(n(&ovr, "remembered") > n(&cur, "remembered"), "{cur} {ovr}");
    // A floor high enough remembers fewer findings. (A floor in between need not: on
    // this fixture 5 and 7 give 45 and 43 entries against 41, since the entries it keeps
    // out no longer take in later findings, which are then entries of their own.)
    let (cur, ovr) = side(f, &["memory.min_importance=9"]);
    assert!(n(&ovr, "remembered") < n(&cur, "remembered"), "{cur} {ovr}");
    // A smaller cap prunes more.
    let (cur, ovr) = side(f, &["memory.caps.active_threads=2"]);
    assert!(
        ovr["left"]["pruned"].as_u64().unwrap_or(0) > cur["left"]["pruned"].as_u64().unwrap_or(0),
        "{cur} {ovr}"
    );
    // A longer cooldown suppresses more repeated escalations.
    let (cur, ovr) = side(f, &["memory.escalation_cooldown_minutes=600"]);
    assert!(n(&ovr, "suppressed") > n(&cur, "suppressed"), "{cur} {ovr}");
    // A daily cap of 1 caps calls.
    let (cur, ovr) = side(f, &["escalation.daily_cap=1"]);
    assert!(n(&ovr, "capped") > n(&cur, "capped"), "{cur} {ovr}");
}

/// A `--set` the replay cannot honour is a usage error naming the key.
#[test]
fn a_setting_that_cannot_be_replayed_is_refused() {
    let f = fixture();
    for (set, says) in [
        ("threads.watcher.model=x/y", "can change the [memory] keys"),
        ("memory.match_threshold=7", "--set memory.match_threshold:"),
        ("memory.no_such_key=1", "no_such_key"),
        ("match_threshold", "expected KEY=VALUE"),
    ] {
        let (code, _, stderr) = replay_cmd(f, &f.dir, &["replay", "--set", set]);
        assert_eq!(code, Some(2), "{set}: {stderr}");
        assert!(stderr.contains(says), "{set}: {stderr}");
    }
}

/// A torn line in the middle: the replay stops there, says where, and what it replayed
/// before it is still checked.
#[test]
fn a_torn_line_stops_the_replay_where_it_is() {
    let f = fixture();
    let home = tempfile::tempdir().unwrap();
    let dir = home.path().join("state");
    copy_dir(&f.dir, &dir);
    let journal = dir.join("journal.jsonl");
    let text = fs::read_to_string(&journal).unwrap();
    let lines: Vec<&str> = text.lines().collect();
    let torn = 120;
    let mut cut = lines[..torn - 1].join("\n");
    cut.push('\n');
    cut.push_str(&lines[torn - 1][..lines[torn - 1].len() / 2]);
    cut.push('\n');
    cut.push_str(&lines[torn..].join("\n"));
    cut.push('\n');
    fs::write(&journal, cut).unwrap();
    let (code, stdout, stderr) = replay_cmd(f, &dir, &["replay", "--json"]);
    assert_eq!(code, Some(0), "{stderr}");
    let out: Value = serde_json::from_str(&stdout).unwrap();
    assert_eq!(out["stopped"]["file"], "journal.jsonl");
    assert_eq!(out["stopped"]["line"], torn);
    assert_eq!(out["stopped"]["unread"], lines.len() - torn);
    assert_eq!(out["faithful"], true);
    let tick_lines_before = lines[..torn - 1]
        .iter()
        .filter(|l| l.contains("\"threads\""))
        .count();
    assert_eq!(out["ticks"], tick_lines_before);
    let (_, text, _) = replay_cmd(f, &dir, &["replay"]);
    assert!(
        text.contains(&format!(
            "The journal stops being readable at journal.jsonl line {torn}: the line is cut short (torn by a killed tick?). Replayed up to it ({} line(s) after it not read).",
            lines.len() - torn
        )),
        "{text}"
    );
}

/// Regression (issue 22's probe): after a torn journal line `explain` exited 0 with a
/// wrong story ("still in memory at strength 4"; it was 8) and no warning. It says where
/// the journal stops, like `replay` and `report`.
#[test]
fn explain_says_where_a_torn_journal_stops() {
    let f = fixture();
    let home = tempfile::tempdir().unwrap();
    let dir = home.path().join("state");
    copy_dir(&f.dir, &dir);
    let journal = dir.join("journal.jsonl");
    let text = fs::read_to_string(&journal).unwrap();
    let lines: Vec<&str> = text.lines().collect();
    let torn = 120;
    let mut cut = lines[..torn - 1].join("\n");
    cut.push('\n');
    cut.push_str(&lines[torn - 1][..lines[torn - 1].len() / 2]);
    cut.push('\n');
    cut.push_str(&lines[torn..].join("\n"));
    cut.push('\n');
    fs::write(&journal, cut).unwrap();
    let warning = format!(
        "warning: the journal stops being readable at journal.jsonl line {torn}: the line is cut short (torn by a killed tick?): this account ends there ({} line(s) after it not read)",
        lines.len() - torn
    );
    let (code, stdout, stderr) = replay_cmd(f, &dir, &["explain", "t-nas-disk-almost"]);
    assert_eq!(code, Some(0), "{stderr}");
    assert!(stderr.contains(&warning), "{stderr}");
    assert!(stdout.starts_with(&warning), "{stdout}");
    let (_, _, stderr) = replay_cmd(f, &dir, &["explain", "--json", "t-nas-disk-almost"]);
    assert!(stderr.contains(&warning), "{stderr}");
}

/// A state changed outside thinker (restored from a backup) is picked up from the
/// journal, and the replay stays faithful across it.
#[test]
fn a_state_restored_by_hand_is_followed() {
    let mut tick = Tick::new();
    for thread in ThreadName::ALL {
        tick = tick.respond(thread, Scripted(thread, AtomicUsize::new(0)));
    }
    let state = tick.home().join("state/subconscious.json");
    let mut saved = String::new();
    for n in 0..12 {
        tick.set_now(&at(n));
        if n == 8 {
            fs::write(&state, &saved).unwrap();
        }
        tick.run();
        if n == 3 {
            saved = fs::read_to_string(&state).unwrap();
        }
    }
    let journal = thinker::journal::read::strict(&tick.home().join("state")).unwrap();
    let bases = journal
        .ticks
        .iter()
        .filter(|t| t.line.base.is_some())
        .count();
    assert_eq!(bases, 2, "the first tick and the one after the restore");
    let run = replay::run(
        &journal.ticks,
        0,
        None,
        &thinker::aggregate::Settings::default(),
        Follow::Recorded,
        Keep::Nothing,
    );
    assert!(run.check.faithful(), "{:?}", run.check.first_mismatch);
    assert!(
        run.notes
            .iter()
            .any(|n| n.contains("changed outside thinker"))
    );
    assert_eq!(
        run.end.unwrap().to_json().unwrap(),
        fs::read_to_string(&state).unwrap()
    );
}

/// `explain` on the fixture: an entry's life, its reinforcements and how it left.
#[test]
fn explain_tells_an_entrys_life() {
    let f = fixture();
    let journal = thinker::journal::read::strict(&f.dir).unwrap();
    // An entry that was seen again and then left.
    let (code, stdout, stderr) = replay_cmd(f, &f.dir, &["explain", "--json", "t-nas-disk-almost"]);
    assert_eq!(code, Some(0), "{stderr}");
    let lives: Value = serde_json::from_str(&stdout).unwrap();
    let lives = lives.as_array().unwrap();
    assert!(!lives.is_empty());
    assert!(lives[0]["origin"]["thread"].is_string());
    assert!(
        lives.iter().any(|l| l["steps"]
            .as_array()
            .unwrap()
            .iter()
            .any(|s| s["seen"].as_array().is_some_and(|v| !v.is_empty()))),
        "seen again at least once"
    );
    assert!(journal.ticks.len() == TICKS);
    let (code, text, _) = replay_cmd(f, &f.dir, &["explain", "t-nas-disk-almost"]);
    assert_eq!(code, Some(0));
    insta::assert_snapshot!("explain_fixture_entry", first_lines(&text, 14));
    let (code, _, stderr) = replay_cmd(f, &f.dir, &["explain", "t-nas-disk"]);
    assert_eq!(code, Some(1));
    assert!(
        stderr.contains("ids that look alike: t-nas-disk-almost"),
        "{stderr}"
    );
}

fn first_lines(text: &str, n: usize) -> String {
    text.lines().take(n).collect::<Vec<_>>().join("\n")
}

/// `thinker report` on the 200 recorded ticks, alone (`report.html`) and beside other
/// settings (`pair.html`), written into `out`: the reports are self-contained and write
/// nothing else. Returns how many lives the replay remembers.
fn fixture_reports(out: &Path) -> usize {
    let f = fixture();
    let before = snapshot(&f.dir);
    let single = out.join("report.html");
    let pair = out.join("pair.html");
    let (code, _, stderr) = replay_cmd(f, &f.dir, &["report", "--html", single.to_str().unwrap()]);
    assert_eq!(code, Some(0), "{stderr}");
    assert!(stderr.contains("ticks"), "{stderr}");
    let (code, _, stderr) = replay_cmd(
        f,
        &f.dir,
        &[
            "report",
            "--html",
            pair.to_str().unwrap(),
            "--set",
            "memory.match_threshold=0.95",
        ],
    );
    assert_eq!(code, Some(0), "{stderr}");
    assert_eq!(snapshot(&f.dir), before, "a report writes only its file");
    let html = fs::read_to_string(&single).unwrap();
    for forbidden in ["http://", "https://", "<script", "@import", "url("] {
        assert!(!html.contains(forbidden), "{forbidden}");
    }
    let (_, stdout, _) = replay_cmd(f, &f.dir, &["replay", "--json"]);
    let v: Value = serde_json::from_str(&stdout).unwrap();
    v["current"]["remembered"].as_u64().unwrap() as usize
}

#[test]
fn the_report_of_the_fixture_journal_is_self_contained() {
    let out = tempfile::tempdir().unwrap();
    assert!(fixture_reports(out.path()) > 0);
}

/// The same reports checked in headless Chromium: every entry's life is a line, the
/// sections are there, nothing logs to the console, and the picture is not blank.
#[test]
#[ignore = "needs Chromium: THINKER_CHROMIUM, else /usr/bin/chromium"]
fn the_report_of_the_fixture_journal_renders_in_chromium() {
    let out = tempfile::tempdir().unwrap();
    let lives = fixture_reports(out.path());
    let single = out.path().join("report.html");
    let pair = out.path().join("pair.html");
    let browser = crate::report_html::chromium();
    let (dom, stderr) = crate::report_html::run_chromium(
        &browser,
        &out.path().join("p1"),
        &single,
        &["--dump-dom".into()],
    );
    assert_eq!(dom.matches("<polyline").count(), lives, "one line per life");
    for heading in crate::report_html::HEADINGS {
        assert!(dom.contains(&format!("<h2>{heading}</h2>")), "{heading}");
    }
    assert!(
        crate::report_html::console_lines(&stderr).is_empty(),
        "{stderr}"
    );
    let (dom, stderr) = crate::report_html::run_chromium(
        &browser,
        &out.path().join("p2"),
        &pair,
        &["--dump-dom".into()],
    );
    assert!(
        dom.contains("memory.match_threshold=0.95"),
        "the overrides are named"
    );
    assert!(
        crate::report_html::console_lines(&stderr).is_empty(),
        "{stderr}"
    );
    let png = out.path().join("report.png");
    let (_, stderr) = crate::report_html::run_chromium(
        &browser,
        &out.path().join("p3"),
        &single,
        &[
            format!("--screenshot={}", png.display()),
            "--window-size=1280,2000".into(),
        ],
    );
    assert!(
        crate::report_html::console_lines(&stderr).is_empty(),
        "{stderr}"
    );
    let (_, _, pixels) = crate::report_html::decode(&png);
    let non_white = pixels
        .iter()
        .filter(|p| p[0] < 245 || p[1] < 245 || p[2] < 245)
        .count();
    assert!(
        non_white > pixels.len() / 50,
        "only {non_white} non-white pixels"
    );
    if let Some(keep) = std::env::var_os("THINKER_JOURNAL_SCREENSHOT") {
        fs::copy(&png, keep).unwrap();
    }
}

/// A journal written before answers were recorded: its ticks are not replayed, the replay
/// says so, and starts at the first tick that journaled its starting state (as the first
/// tick of a thinker that records answers does: its ledger has no digest yet).
#[test]
fn an_older_journal_is_replayed_as_far_as_it_allows() {
    let f = fixture();
    let home = tempfile::tempdir().unwrap();
    let dir = home.path().join("state");
    copy_dir(&f.dir, &dir);
    let journal = dir.join("journal.jsonl");
    let text = fs::read_to_string(&journal).unwrap();
    let old_ticks = 50;
    let mut seen = 0;
    let lines: Vec<String> = text
        .lines()
        .map(|line| {
            let mut v: Value = serde_json::from_str(line).unwrap();
            let is_tick = v.get("threads").is_some();
            if is_tick {
                seen += 1;
            }
            if seen <= old_ticks {
                // As an older thinker wrote it.
                let o = v.as_object_mut().unwrap();
                o.remove("state");
                o.remove("base");
                o.remove("verdicts");
                for t in o
                    .get_mut("threads")
                    .into_iter()
                    .flat_map(|t| t.as_array_mut().unwrap())
                {
                    t.as_object_mut().unwrap().remove("answer");
                }
            } else if is_tick && seen == old_ticks + 1 {
                v["base"] = serde_json::from_str(&f.states[old_ticks - 1]).unwrap();
            }
            v.to_string()
        })
        .collect();
    fs::write(&journal, lines.join("\n") + "\n").unwrap();
    let (code, stdout, stderr) = replay_cmd(f, &dir, &["replay", "--json"]);
    assert_eq!(code, Some(0), "{stderr}");
    let out: Value = serde_json::from_str(&stdout).unwrap();
    assert_eq!(out["ticks"], TICKS - old_ticks);
    assert_eq!(out["check"]["not_replayed"], old_ticks);
    assert_eq!(out["faithful"], true);
    let notes = out["notes"].to_string();
    assert!(notes.contains("has no recorded answers"), "{notes}");
    let (_, text, _) = replay_cmd(f, &dir, &["replay"]);
    assert!(text.contains("50 tick(s) could not be replayed"), "{text}");
}

/// No journal yet: `replay` says there is nothing to replay, `explain` knows no id, and
/// `report` still writes a page that says so — none of them creates the state directory.
#[test]
fn with_no_journal_yet_nothing_is_made_up() {
    let home = tempfile::tempdir().unwrap();
    let dir = home.path().join("state");
    let run = |args: &[&str]| {
        let out = std::process::Command::new(assert_cmd::cargo::cargo_bin("thinker"))
            .env_clear()
            .env("TZ", "UTC")
            .env("HOME", home.path())
            .arg("--state")
            .arg(&dir)
            .args(args)
            .output()
            .unwrap();
        (
            out.status.code(),
            String::from_utf8(out.stdout).unwrap(),
            String::from_utf8(out.stderr).unwrap(),
        )
    };
    let (code, stdout, _) = run(&["replay"]);
    assert_eq!(code, Some(0));
    assert_eq!(stdout, "Nothing to replay: the journal has no ticks yet.\n");
    let (code, _, stderr) = run(&["explain", "t-anything"]);
    assert_eq!(code, Some(1));
    assert!(
        stderr.contains("no tick in the journal added or saw `t-anything`"),
        "{stderr}"
    );
    let page = home.path().join("r.html");
    let (code, _, stderr) = run(&["report", "--html", page.to_str().unwrap()]);
    assert_eq!(code, Some(0), "{stderr}");
    assert!(fs::read_to_string(&page).unwrap().contains("<html"));
    assert!(!dir.exists(), "nothing was created in the state directory");
}

/// docs/tuning.md's example is what the demo prints: its quoted lines are checked here.
#[test]
fn the_readmes_tuning_example_is_what_the_demo_prints() {
    let home = tempfile::tempdir().unwrap();
    let repo = Path::new(env!("CARGO_MANIFEST_DIR"));
    let config = repo.join("examples/demo/thinker.toml");
    let run = |args: &[&str]| {
        let out = std::process::Command::new(assert_cmd::cargo::cargo_bin("thinker"))
            .env_clear()
            .env("TZ", "UTC")
            .env("HOME", home.path())
            .arg("--config")
            .arg(&config)
            .arg("--state")
            .arg(home.path().join("walk"))
            .args(args)
            .output()
            .unwrap();
        assert!(
            out.status.success(),
            "{args:?}: {}",
            String::from_utf8_lossy(&out.stderr)
        );
        String::from_utf8(out.stdout).unwrap()
    };
    for t in ["10:05", "10:10", "10:15", "10:20", "10:25", "10:30"] {
        run(&["tick", "--now", &format!("2026-11-22T{t}:00Z")]);
    }
    let readme = fs::read_to_string(repo.join("docs/tuning.md")).unwrap();
    let explain = run(&["explain", "t-dentist-appointment-dr"]);
    let replay = run(&["replay", "--set", "memory.caps.active_threads=4"]);
    let last = explain.lines().last().unwrap_or_default();
    for line in explain
        .lines()
        .take(4)
        .chain([last])
        .chain(replay.lines().take(9))
    {
        assert!(
            readme.contains(line),
            "docs/tuning.md does not quote: {line}"
        );
    }
    let nas = "  t-nas-disk-99                  15 min (still there) NAS disk is 99% full; tonight's backups will fail";
    assert!(replay.contains(nas), "{replay}");
    assert!(readme.contains(nas));
}

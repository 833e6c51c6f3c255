//! The `ics` source through the binary: the calendar block of the Oracle's prompt for the
//! fixtures (`tests/fixtures/ics/`: a Google export with a weekly event, its exception
//! and an override, a yearly all-day event, a UTC event; a Thunderbird export in New
//! York; a vdirsyncer tree of two calendars; a file cut off mid-event) read in a
//! +01:00 zone, a bad key refused with its place, and a missing calendar kept out of the
//! prompt and said on stderr.

use std::fs;

use thinker::thread::ThreadName::Oracle;

use crate::support::{SEED, Tick};

/// The fixtures directory, absolute.
fn fixtures() -> String {
    format!("{}/tests/fixtures/ics", env!("CARGO_MANIFEST_DIR"))
}

/// A POSIX zone one hour east of UTC without daylight saving: the machine's zone of the
/// run, so the test does not depend on the machine's zone or its tz database.
const PLUS_ONE: &str = "<+01>-1";

/// The fenced block of the source named `name` in a prompt.
fn source_block<'a>(prompt: &'a str, name: &str) -> &'a str {
    let start = prompt
        .find(&format!("source=\"{name}\""))
        .and_then(|i| prompt[..i].rfind("<<<DATA"))
        .unwrap_or_else(|| panic!("no source {name} in\n{prompt}"));
    let end = prompt[start..]
        .find("<<<END DATA")
        .and_then(|i| prompt[start + i..].find('\n').map(|j| start + i + j + 1))
        .unwrap_or_else(|| panic!("source {name} is not closed in\n{prompt}"));
    &prompt[start..end]
}

fn calendar_tick(paths: &[String], extra: &str) -> Tick {
    let paths: Vec<String> = paths.iter().map(|p| format!("{p:?}")).collect();
    Tick::new().state(SEED).thread(
        Oracle,
        &format!(
            "[[threads.oracle.sources]]\nkind = \"ics\"\nname = \"calendar\"\npaths = [{}]\n{extra}",
            paths.join(", ")
        ),
    )
}

#[test]
fn the_oracles_calendar_block_lists_the_next_three_days_in_local_time() {
    let dir = fixtures();
    let mut tick = calendar_tick(
        &[format!("{dir}/*.ics"), format!("{dir}/vdir")],
        "hours = 72",
    )
    .env("TZ", PLUS_ONE)
    .env("THINKER_LOG", "warn")
    .expect_exit(0)
    // The file cut off mid-event is skipped with a warning; the others still show.
    .expect_stderr_contains(
        "broken.ics skipped: not valid iCalendar (the parser stopped at line 4",
    );
    let out = tick.thinker(&["prompt", "oracle"]);
    let block = source_block(&out.stdout, "calendar");
    // 09:00 in New York is 15:00 at +01:00.
    assert!(
        block.contains(
            "- [ej7onh] Mon 23 Nov 15:00–16:00 (in 1 day 3 h): Call with the Boston office"
        ),
        "{block}"
    );
    assert!(!block.contains("Never shown") && !block.contains("cancelled"));
    insta::assert_snapshot!("ics_oracle_sources_block", block);
}

#[test]
fn a_bad_key_is_refused_with_its_place() {
    let mut tick = calendar_tick(&[fixtures()], "hour = 72")
        .expect_exit(2)
        .expect_stdout("");
    let out = tick.thinker(&["prompt", "oracle"]);
    let stderr = out
        .stderr
        .replace(&tick.home().display().to_string(), "[home]");
    insta::assert_snapshot!("ics_error_bad_key", stderr);
}

#[test]
fn a_missing_calendar_stays_out_of_the_prompt_and_is_said_on_stderr() {
    let home = tempfile::tempdir().unwrap();
    let gone = home.path().join("calendars/personal");
    let mut tick = calendar_tick(&[gone.display().to_string()], "")
        .env("THINKER_LOG", "warn")
        .expect_exit(0)
        .expect_stderr_contains("calendars/personal does not exist: fix `paths`");
    let out = tick.thinker(&["prompt", "oracle"]);
    assert!(
        !out.stdout.contains("source=\"calendar\""),
        "{}",
        out.stdout
    );
    // Once it is there (an empty vdir), the thread is told there is nothing planned, over
    // the Oracle's role default of 72 hours.
    fs::create_dir_all(&gone).unwrap();
    let mut tick = calendar_tick(&[gone.display().to_string()], "").expect_exit(0);
    let out = tick.thinker(&["prompt", "oracle"]);
    assert!(
        source_block(&out.stdout, "calendar").contains(
            "No events from Sun 22 Nov 10:05 to Wed 25 Nov 10:05 (72 h, local time UTC+00:00)."
        ),
        "{}",
        out.stdout
    );
}

/// A past event of the long calendars below (one an hour, long before now).
fn past_event(i: usize) -> String {
    let (day, hour) = (i / 24, i % 24);
    format!(
        "BEGIN:VEVENT\r\nUID:past-{i}@example.org\r\nDTSTART:2020{:02}{:02}T{hour:02}0000Z\r\nDURATION:PT30M\r\nSUMMARY:Past meeting {i}\r\nLOCATION:Room {}\r\nEND:VEVENT\r\n",
        1 + day / 28 % 12,
        1 + day % 28,
        i % 40
    )
}

/// A calendar of `past` past events, then one event that cannot be parsed, then `real`
/// events (each `BEGIN:VEVENT` … `END:VEVENT`).
fn long_calendar(past: usize, real: &[&str]) -> String {
    let mut text = String::from("BEGIN:VCALENDAR\r\nVERSION:2.0\r\nPRODID:-//test//EN\r\n");
    for i in 0..past {
        text += &past_event(i);
    }
    text += "BEGIN:VEVENT\r\nUID:broken@example.org\r\nDTSTART:20261122T150000Z\r\nA LINE THAT IS NO PROPERTY\r\nSUMMARY:Never shown\r\nEND:VEVENT\r\n";
    for r in real {
        text += r;
    }
    text + "END:VCALENDAR\r\n"
}

const TODAY: &str = "BEGIN:VEVENT\r\nUID:today@example.org\r\nDTSTART:20261122T130000Z\r\nDTEND:20261122T140000Z\r\nSUMMARY:Dentist today\r\nEND:VEVENT\r\n";
const IN_TWO_DAYS: &str = "BEGIN:VEVENT\r\nUID:later@example.org\r\nDTSTART:20261124T090000Z\r\nDTEND:20261124T100000Z\r\nSUMMARY:Review in two days\r\nEND:VEVENT\r\n";

/// Regression: a calendar's parse was quadratic in its events (1.7 s at 2,500 past
/// events, a timeout at 10,000, and the real event after them lost), and one event the
/// parser refused lost the whole file. Now the parse is linear (BENCHMARKS.md: 50,000
/// events), an event that cannot be parsed costs only itself, said with its line, and
/// the real event after thousands of past ones is listed.
#[test]
fn a_real_event_after_thousands_of_past_ones_is_listed_and_a_broken_one_costs_itself() {
    let home = tempfile::tempdir().unwrap();
    let path = home.path().join("long.ics");
    fs::write(&path, long_calendar(2_500, &[TODAY])).unwrap();
    let mut tick = calendar_tick(&[path.display().to_string()], "")
        .env("THINKER_LOG", "warn")
        .expect_exit(0);
    let out = tick.thinker(&["prompt", "oracle"]);
    let block = source_block(&out.stdout, "calendar");
    assert!(
        block.contains("- [e4mx2t] Sun 22 Nov 13:00–14:00 (in 2 h 55 min): Dentist today"),
        "{block}"
    );
    assert!(!block.contains("Past meeting") && !block.contains("Never shown"));
    // Its fourth line (after 3 of the calendar and 7 for each past event) is no property.
    assert!(
        out.stderr.contains(&format!(
            "long.ics: an event skipped: the event at line {} is not valid iCalendar",
            3 + 7 * 2_500 + 4
        )),
        "{}",
        out.stderr
    );
}

/// Two threads reading the same calendars in one tick (as `config/default.toml` writes
/// them: the watcher's 24 hours, the oracle's 72) read them once: each is shown its own
/// window, and what the reading skipped is said once, not once per thread.
#[test]
fn two_threads_on_the_same_calendars_share_one_reading_each_with_its_window() {
    use thinker::thread::ThreadName::Watcher;
    let home = tempfile::tempdir().unwrap();
    let vdir = home.path().join("calendars/work");
    fs::create_dir_all(&vdir).unwrap();
    fs::write(
        vdir.join("long.ics"),
        long_calendar(300, &[TODAY, IN_TWO_DAYS]),
    )
    .unwrap();
    fs::write(
        vdir.join("cut.ics"),
        "BEGIN:VCALENDAR\nBEGIN:VEVENT\nUID:x\n",
    )
    .unwrap();
    let glob = format!(
        "{:?}",
        home.path().join("calendars/*").display().to_string()
    );
    let source = |thread: &str| {
        format!(
            "[[threads.{thread}.sources]]\nkind = \"ics\"\nname = \"calendar\"\npaths = [{glob}]\n"
        )
    };
    let mut tick = Tick::new()
        .state(SEED)
        .thread(Watcher, &source("watcher"))
        .thread(Oracle, &(source("oracle") + "hours = 72\n"))
        .env("THINKER_LOG", "warn")
        .expect_exit(0);
    let out = tick.run();
    assert_eq!(
        out.stderr.matches("cut.ics skipped").count(),
        1,
        "{}",
        out.stderr
    );
    assert_eq!(
        out.stderr.matches("an event skipped").count(),
        1,
        "{}",
        out.stderr
    );
    let prompt = |thread| {
        let requests = tick.requests(thread);
        assert_eq!(requests.len(), 1);
        String::from_utf8_lossy(&requests[0].body).into_owned()
    };
    let (watcher, oracle) = (prompt(Watcher), prompt(Oracle));
    assert!(watcher.contains("Dentist today") && !watcher.contains("Review in two days"));
    assert!(oracle.contains("Dentist today") && oracle.contains("Review in two days"));
    assert!(watcher.contains("(24 h, local time") && oracle.contains("(72 h, local time"));
}

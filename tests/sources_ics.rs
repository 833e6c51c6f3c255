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
        block.contains("- Mon 23 Nov 15:00–16:00 (in 1 day 3 h): Call with the Boston office"),
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

//! The quiet tick (SPEC §6 `skip_unchanged`, issue 10) through the binary: on a world
//! that does not change, no request reaches the model server after the first tick until
//! `max_skipped`; a changed file or a new mail wakes exactly the threads that see it.

use std::fs;

use thinker::thread::ThreadName::{self, Librarian, Oracle, Watcher};

use crate::support::Tick;

const MAIL: &str = "From: Anna <anna@example.org>\r\nTo: sam@example.org\r\nSubject: Lunch on Thursday?\r\nDate: Sun, 22 Nov 2026 11:30:00 +0000\r\nMessage-ID: <1@example.org>\r\n\r\nAre you free on Thursday?\r\n";

fn calls(tick: &Tick) -> [usize; 4] {
    ThreadName::ALL.map(|t| tick.requests(t).len())
}

#[test]
fn an_unchanged_world_costs_nothing_and_a_change_wakes_only_who_sees_it() {
    let mut tick = Tick::new().tick_table("deadline_seconds = 60\nthread_timeout_seconds = 30");
    let home = tick.home().to_path_buf();
    fs::write(home.join("inbox.txt"), "nothing new\n").unwrap();
    fs::write(home.join("calendar.txt"), "Tue: dentist\n").unwrap();
    for dir in ["Mail/cur", "Mail/new", "Mail/tmp"] {
        fs::create_dir_all(home.join(dir)).unwrap();
    }
    let files = |name: &str, path: &str| {
        format!(
            "[[threads.{name}.sources]]\nkind = \"files\"\npaths = [\"{}\"]",
            home.join(path).display()
        )
    };
    tick = tick
        .thread(Watcher, &files("watcher", "inbox.txt"))
        .thread(
            Librarian,
            &format!(
                "[[threads.librarian.sources]]\nkind = \"maildir\"\npath = \"{}\"",
                home.join("Mail").display()
            ),
        )
        .thread(Oracle, &files("oracle", "calendar.txt"));
    let mut per_tick = Vec::new();
    let mut before = [0; 4];
    for n in 1..=20u32 {
        let minutes = 5 * (n - 1);
        tick.set_now(&format!(
            "2026-11-22T{:02}:{:02}:00Z",
            10 + minutes / 60,
            minutes % 60
        ));
        if n == 16 {
            fs::write(home.join("inbox.txt"), "a new line\n").unwrap();
        }
        if n == 18 {
            fs::write(home.join("Mail/new/1795350000.M1P1.host"), MAIL).unwrap();
        }
        let out = tick.run();
        out.expect_exit(0);
        let now = calls(&tick);
        per_tick.push(std::array::from_fn::<usize, 4, _>(|i| now[i] - before[i]));
        before = now;
        if n == 2 {
            let line = out.journal().last().unwrap().clone();
            for t in line["threads"].as_array().unwrap() {
                assert_eq!(t["skip"]["reason"], "unchanged", "{t}");
            }
            assert_eq!(out.state()["tick_count"], 1, "a quiet tick changes nothing");
        }
    }
    let all = [1, 1, 1, 1];
    let none = [0, 0, 0, 0];
    let mut expected = vec![all];
    expected.extend([none; 12]); // ticks 2–13: skipped 1..=12 times
    expected.push(all); // tick 14: called anyway, not blind forever
    expected.push(none);
    expected.push([1, 0, 0, 0]); // tick 16: the inbox file changed: the watcher
    expected.push(none);
    expected.push([0, 1, 0, 0]); // tick 18: a new mail: the librarian
    expected.extend([none; 2]);
    assert_eq!(per_tick, expected);
}

#[test]
fn skip_unchanged_off_calls_every_tick() {
    let mut tick = Tick::new().tick_table("skip_unchanged = false");
    tick.run().expect_exit(0);
    tick.set_now("2026-11-22T10:10:00Z");
    tick.run().expect_exit(0);
    assert_eq!(calls(&tick), [2, 2, 2, 2]);
}

/// The Dreamer with no sources of its own samples the others' (SPEC §6: "a sample of
/// everything"), drawn by content: the same world, the same sample.
#[test]
fn the_dreamer_samples_what_the_other_threads_see() {
    let mut tick = Tick::new().bare().expect_exit(0);
    let home = tick.home().to_path_buf();
    let notes = (1..=12)
        .map(|i| format!("note number {i} about the garden"))
        .collect::<Vec<_>>()
        .join("\n");
    fs::write(home.join("notes.md"), notes).unwrap();
    let config = home.join("thinker.toml");
    fs::write(
        &config,
        format!(
            "[providers.p]\nkind = \"ollama\"\n[threads.watcher]\nmodel = \"p/m\"\nsources = []\n[threads.librarian]\nmodel = \"p/m\"\n[[threads.librarian.sources]]\nkind = \"files\"\nname = \"notes\"\npaths = [\"{}\"]\n[threads.dreamer]\nmodel = \"p/m\"\n",
            home.join("notes.md").display()
        ),
    )
    .unwrap();
    let config = config.display().to_string();
    let state = tick.path("state");
    let prompt = |tick: &mut Tick| {
        tick.thinker(&[
            "prompt",
            "dreamer",
            "--config",
            &config,
            "--state",
            &state,
            "--now",
            "2026-11-22T10:05:00Z",
        ])
        .stdout
    };
    let first = prompt(&mut tick);
    let start = first
        .find("source=\"sample\" kind=\"sample\"")
        .expect("a sample block");
    let block = &first[start..first[start..].find("<<<END DATA").unwrap() + start];
    assert!(block.contains("== notes, files source =="), "{block}");
    let drawn = block
        .lines()
        .skip_while(|l| *l != "== notes, files source ==")
        .skip(1)
        .filter(|l| !l.trim().is_empty())
        .count();
    assert_eq!(drawn, 5, "five lines drawn: {block}");
    assert!(block.contains("about the garden"), "{block}");
    assert_eq!(first, prompt(&mut tick), "the same world, the same sample");
}

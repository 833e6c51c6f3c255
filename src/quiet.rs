//! The quiet tick (SPEC §6 `skip_unchanged`): a thread whose world is unchanged
//! since its last call is not called, so a machine where nothing happens costs no tokens.
//!
//! Owns the thread's **fingerprint** ([`fingerprint`]): a content hash of its config
//! (models, sources, settings) and of what its sources saw, each source's text taken as
//! its kind says what counts as a change ([`crate::sources::world_view`]): the system
//! source quantised (load, memory, swap and disks in steps), files and mail without their
//! per-tick "changed/new since last tick" marks, files in path order; the archive left
//! out (it follows the memory, which decays by itself). Failed sources count by name (a
//! source that starts or stops failing is a change). The subconscious, the hints and the
//! thread's own history are not in it: what the models wrote is not the world, and a
//! tick in which nothing changed must call nothing at all.
//!
//! And the rule ([`decide`]): unchanged and skipped fewer than `max_skipped` times in a
//! row → skipped (`unchanged`); else called. What each thread last saw is kept in
//! `ledger.json` ([`QuietMemory`], a record of `crate::ledger`), updated by [`remember`]
//! after the tick: an answer stores the fingerprint (and resets the count), a skip
//! counts, a failure leaves it (so the next tick calls again).
//!
//! Must not: do I/O, read the clock, or look at model-written text.

use crate::aggregate::Skip;
use crate::aggregate::ThreadOutcome;
use crate::ledger::QuietMemory;
use crate::sources::{Gathered, world_view};
use crate::untrusted;

/// `[tick] max_skipped` when the config does not say.
pub const DEFAULT_MAX_SKIPPED: u32 = 12;

/// The quiet tick's settings (`[tick] skip_unchanged`, `max_skipped`).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct QuietSettings {
    pub skip_unchanged: bool,
    pub max_skipped: u32,
}

impl Default for QuietSettings {
    fn default() -> Self {
        QuietSettings {
            skip_unchanged: true,
            max_skipped: DEFAULT_MAX_SKIPPED,
        }
    }
}

/// The fingerprint of a thread's world: its config (`config`, e.g. its `Debug` text)
/// and what its sources saw.
pub fn fingerprint(thread: &str, config: &str, gathered: &Gathered) -> String {
    let mut parts: Vec<String> = vec![thread.to_string(), config.to_string()];
    for t in &gathered.texts {
        if let Some(world) = world_view(t.kind, &t.text) {
            parts.extend([t.name.clone(), t.kind.to_string(), world]);
        }
    }
    for f in &gathered.failures {
        parts.extend([f.name.clone(), "failed".to_string()]);
    }
    let parts: Vec<&str> = parts.iter().map(String::as_str).collect();
    untrusted::fence_id(&parts)
}

/// Whether a thread whose world has `fingerprint` now is called: `Err` skips it.
pub fn decide(
    last: Option<&QuietMemory>,
    fingerprint: &str,
    settings: QuietSettings,
) -> Result<(), Skip> {
    match last {
        Some(last)
            if settings.skip_unchanged
                && last.fingerprint == fingerprint
                && last.skipped < settings.max_skipped =>
        {
            Err(Skip::Unchanged {
                skipped: last.skipped.saturating_add(1),
                max_skipped: settings.max_skipped,
            })
        }
        _ => Ok(()),
    }
}

/// What to keep for a thread after the tick, given what it last saw, the fingerprint of
/// this tick (`None` when it did not gather: disabled, cadence, quiet hours) and its
/// outcome.
pub fn remember(
    last: Option<&QuietMemory>,
    fingerprint: Option<&str>,
    outcome: &ThreadOutcome,
) -> Option<QuietMemory> {
    match (outcome, fingerprint) {
        (ThreadOutcome::Answered(_), Some(fp)) => Some(QuietMemory {
            fingerprint: fp.to_string(),
            skipped: 0,
        }),
        (ThreadOutcome::Skipped(Skip::Unchanged { skipped, .. }), _) => last.map(|l| QuietMemory {
            fingerprint: l.fingerprint.clone(),
            skipped: *skipped,
        }),
        _ => last.cloned(),
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::answer::Answer;
    use crate::sources::{SourceFailure, SourceText};

    fn gathered(texts: &[(&str, &'static str, &str)]) -> Gathered {
        Gathered {
            texts: texts
                .iter()
                .map(|(name, kind, text)| SourceText {
                    name: (*name).into(),
                    kind,
                    text: (*text).into(),
                    truncated: false,
                })
                .collect(),
            failures: Vec::new(),
        }
    }

    #[test]
    fn what_counts_as_a_change() {
        let fp =
            |texts: &[(&str, &'static str, &str)]| fingerprint("watcher", "cfg", &gathered(texts));
        let sys = |text: &str| fp(&[("system", "system", text)]);
        // (before, after, a change?) — each row names the wrong implementation it catches.
        let same = |a: &str, b: &str| sys(a) == sys(b);
        assert!(
            same(
                "load 0.31 0.31 0.30 (2 cpus)\nup 3 days 4 h\ndisk / 41% used (50 GiB free)",
                "load 0.35 0.35 0.33 (2 cpus)\nup 3 days 5 h\ndisk / 42% used (49 GiB free)"
            ),
            "noise is no news"
        );
        assert!(
            !same(
                "disk / 80% used (10 GiB free)",
                "disk / 95% used (2 GiB free)"
            ),
            "a filling disk is"
        );
        assert!(
            !same("load 0.3 0.3 0.3 (2 cpus)", "load 4.0 4.0 4.0 (2 cpus)"),
            "a busy machine is"
        );
        assert!(!same("up 3 days 4 h", "up 5 min"), "a reboot is");
        assert!(same(
            "memory 12.1 GiB available of 23.5 GiB",
            "memory 11.0 GiB available of 23.5 GiB"
        ));
        assert!(!same(
            "memory 12.1 GiB available of 23.5 GiB",
            "memory 512 MiB available of 23.5 GiB"
        ));
        // Files: the marks and the order are per tick; the contents are the world.
        let files = |text: &str| fp(&[("notes", "files", text)]);
        assert_eq!(
            files("== b.md (changed since last tick) ==\nnew\n\n== a.md ==\nold\n"),
            files("== a.md ==\nold\n\n== b.md ==\nnew\n")
        );
        assert_ne!(files("== a.md ==\nold\n"), files("== a.md ==\nnew\n"));
        // Mail: the marks drop by themselves; a new message is a change.
        let mail = |text: &str| fp(&[("inbox", "maildir", text)]);
        assert_eq!(
            mail(
                "2 messages (1 unread, 1 new since last tick), newest first:\n\nSun 22 Nov 11:02 · unread · new since last tick\nFrom: a\n"
            ),
            mail("2 messages (1 unread), newest first:\n\nSun 22 Nov 11:02 · unread\nFrom: a\n")
        );
        assert_ne!(
            mail("1 message (1 unread), newest first:\n"),
            mail("2 messages (2 unread), newest first:\n")
        );
        // A calendar: the countdowns move with the clock; the events are the world.
        let cal = |text: &str| fp(&[("calendar", "ics", text)]);
        assert_eq!(
            cal(
                "Events from Sun 22 Nov 10:05 to Mon 23 Nov 10:05 (24 h, local time UTC):\n- Sun 22 Nov 12:20–13:00 (in 2 h 15 min): Lunch — at Café\n- Sun 22 Nov 09:30–11:00 (now, until 11:00): Review"
            ),
            cal(
                "Events from Sun 22 Nov 10:10 to Mon 23 Nov 10:10 (24 h, local time UTC):\n- Sun 22 Nov 12:20–13:00 (in 2 h 10 min): Lunch — at Café\n- Sun 22 Nov 09:30–11:00 (now, until 11:00): Review"
            )
        );
        assert_ne!(
            cal("- Sun 22 Nov 12:20–13:00 (in 2 h): Lunch"),
            cal(
                "- Sun 22 Nov 12:20–13:00 (in 2 h): Lunch\n- Sun 22 Nov 15:00–16:00 (in 5 h): Dentist"
            )
        );
        // The archive follows the memory: not the world.
        assert_eq!(
            fp(&[("archive", "archive", "a")]),
            fp(&[("archive", "archive", "b")])
        );
        // A command's output is its own business: any change counts.
        assert_ne!(fp(&[("df", "command", "a")]), fp(&[("df", "command", "b")]));
        // A source that starts failing is a change; the config is part of the world.
        let mut failing = gathered(&[]);
        failing.failures.push(SourceFailure {
            name: "df".into(),
            kind: "command",
            error: "gone".into(),
        });
        assert_ne!(fingerprint("watcher", "cfg", &failing), fp(&[]));
        assert_ne!(fingerprint("watcher", "cfg2", &gathered(&[])), fp(&[]));
    }

    #[test]
    fn unchanged_threads_are_skipped_until_max_skipped() {
        let s = QuietSettings::default();
        let last = |skipped| QuietMemory {
            fingerprint: "f".into(),
            skipped,
        };
        assert!(decide(None, "f", s).is_ok(), "never called: called");
        assert!(decide(Some(&last(0)), "g", s).is_ok(), "changed: called");
        assert_eq!(
            decide(Some(&last(0)), "f", s),
            Err(Skip::Unchanged {
                skipped: 1,
                max_skipped: 12
            })
        );
        assert!(decide(Some(&last(12)), "f", s).is_ok(), "not blind forever");
        let off = QuietSettings {
            skip_unchanged: false,
            ..s
        };
        assert!(decide(Some(&last(0)), "f", off).is_ok());
        // What is kept: an answer stores and resets, a skip counts, a failure keeps.
        let answered = ThreadOutcome::Answered(Answer::default());
        assert_eq!(
            remember(Some(&last(5)), Some("g"), &answered),
            Some(QuietMemory {
                fingerprint: "g".into(),
                skipped: 0
            })
        );
        let skipped = ThreadOutcome::Skipped(Skip::Unchanged {
            skipped: 6,
            max_skipped: 12,
        });
        assert_eq!(remember(Some(&last(5)), Some("f"), &skipped), Some(last(6)));
        let failed = ThreadOutcome::Failed(crate::aggregate::ThreadError::Call("x".into()));
        assert_eq!(remember(Some(&last(5)), Some("g"), &failed), Some(last(5)));
        assert_eq!(remember(None, Some("g"), &failed), None);
    }
}

//! What one reading of a set of calendars keeps, and sharing it within a tick.
//!
//! A [`Reading`] is handed each event as it is read, expands it once over the widest
//! window asked of it, and keeps, for each window ([`Want`]: the hours ahead and how many
//! events are listed), only the occurrences that can be listed (the earliest
//! `max_events` + 1) and the count of those it saw, so a calendar of any length costs the
//! list's size. [`Calendars`] shares one reading of the same `paths` between the threads
//! of a tick (the watcher's 24 hours and the oracle's 72 of `config/default.toml` read one
//! vdir once, not twice at the same time): the tick says up front which windows each set
//! of paths is read for, and the first source to ask reads for all of them while the
//! others wait for it.
//!
//! Must not: read a file or parse (that is `files` and `parse`), render, or read the
//! clock (`now` is handed in).

use std::collections::HashMap;
use std::sync::{Arc, Mutex, OnceLock, PoisonError};

use chrono::{DateTime, Utc};

use super::expand::{Occurrence, SOURCE_WORK, occurrences};
use super::parse::{Event, Stamp};
use super::render::keep_earliest;
use super::{IcsSettings, Window};
use crate::clock::Zone;
use crate::sources::text::one_line;

/// A window a reading is asked for: `hours` ahead, `max_events` listed.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub(super) struct Want {
    pub(super) hours: u32,
    pub(super) max_events: usize,
}

impl Want {
    pub(super) fn of(settings: &IcsSettings) -> Want {
        Want {
            hours: settings.hours(),
            max_events: settings.max_events,
        }
    }
}

/// What a reading kept for one [`Want`].
#[derive(Clone, Debug, Default)]
pub(super) struct Kept {
    /// At most `max_events` + 1, the earliest (as listed).
    pub(super) occurrences: Vec<Occurrence>,
    /// Occurrences seen in the window (each event's counted up to the widest
    /// `max_events` + 1): "and at least N more" counts from it.
    pub(super) found: usize,
}

/// One reading of calendars for the windows of `wants` from `now`.
#[derive(Debug)]
pub(super) struct Reading {
    wants: Vec<(Want, Window)>,
    kept: Vec<Kept>,
    /// The widest window and the largest `max_events`: each event is expanded once,
    /// over these.
    widest: Window,
    max: usize,
    /// What is left of the source's work ([`SOURCE_WORK`]).
    budget: usize,
    zone: Zone,
}

impl Reading {
    /// A reading for `wants` (at least one) from `now`, in the user's `zone`.
    pub(super) fn new(wants: &[Want], now: DateTime<Utc>, zone: Zone) -> Reading {
        let wants: Vec<(Want, Window)> = wants
            .iter()
            .map(|w| (*w, Window::ahead(now, w.hours)))
            .collect();
        let hours = wants.iter().map(|(w, _)| w.hours).max().unwrap_or(1);
        Reading {
            kept: vec![Kept::default(); wants.len()],
            widest: Window::ahead(now, hours),
            max: wants.iter().map(|(w, _)| w.max_events).max().unwrap_or(1),
            wants,
            budget: SOURCE_WORK,
            zone,
        }
    }

    /// The day (UTC) the widest window starts: an event that surely ended days before it
    /// need not be read ([`super::parse::ended_before`]).
    pub(super) fn first_day(&self) -> chrono::NaiveDate {
        self.widest.start.date_naive()
    }

    /// Expands `event` (`replaced`: the occurrences its overrides replace) and keeps what
    /// each window can list; a cancelled event is left out; an event that cannot be
    /// expanded is skipped with a warning.
    pub(super) fn expand(&mut self, event: &Event, replaced: &[Stamp], warnings: &mut Vec<String>) {
        if event.cancelled {
            return;
        }
        let found = occurrences(
            event,
            replaced,
            self.widest,
            self.zone,
            self.max,
            &mut self.budget,
        );
        match found {
            Ok(found) => self.offer(&found),
            Err(why) => warnings.push(format!(
                "event \"{}\" skipped: {why}",
                one_line(&event.summary, ' ', 60)
            )),
        }
    }

    /// Each occurrence to the windows it is in (all start at the same `now`: it is in a
    /// window when it starts before the window's end).
    fn offer(&mut self, found: &[Occurrence]) {
        for ((want, window), kept) in self.wants.iter().zip(&mut self.kept) {
            for o in found.iter().filter(|o| o.start < window.end) {
                kept.found += 1;
                kept.occurrences.push(o.clone());
            }
            // Amortised: cut back to what can be listed once twice as many are held.
            if kept.occurrences.len() > 2 * (want.max_events + 1) + 64 {
                keep_earliest(&mut kept.occurrences, want.max_events + 1);
            }
        }
    }

    /// What is left of the source's work.
    #[cfg(test)]
    pub(super) fn budget_left(&self) -> usize {
        self.budget
    }

    /// What was kept for each window, in the order of the wants.
    pub(super) fn finish(mut self) -> Vec<(Want, Window, Kept)> {
        for ((want, _), kept) in self.wants.iter().zip(&mut self.kept) {
            keep_earliest(&mut kept.occurrences, want.max_events + 1);
        }
        self.wants
            .into_iter()
            .zip(self.kept)
            .map(|((w, window), k)| (w, window, k))
            .collect()
    }
}

/// A reading of a set of calendars done for a tick: its instant, and per window what
/// was kept.
#[derive(Debug)]
pub(super) struct Listing {
    pub(super) now: DateTime<Utc>,
    pub(super) kept: Vec<(Want, Window, Kept)>,
}

impl Listing {
    /// What was kept for `want`, if it was read for it at `now`.
    pub(super) fn get(&self, want: Want, now: DateTime<Utc>) -> Option<(Window, &Kept)> {
        if self.now != now {
            return None;
        }
        self.kept
            .iter()
            .find(|(w, ..)| *w == want)
            .map(|(_, window, kept)| (*window, kept))
    }
}

/// The calendars the `ics` sources of one tick read, shared by its threads: one
/// reading per set of `paths`, for every window asked of it. Cheap to clone.
#[derive(Clone, Debug, Default)]
pub struct Calendars(Arc<Shared>);

#[derive(Debug, Default)]
struct Shared {
    /// Per set of paths, the windows asked of it.
    plans: HashMap<Vec<String>, Vec<Want>>,
    /// Per set of paths, its reading once done.
    reads: Mutex<HashMap<Vec<String>, Arc<Once>>>,
}

/// A set of paths' reading, done once (`None`: it failed: each source then reads alone,
/// to say its own error).
type Once = OnceLock<Option<Arc<Listing>>>;

impl Calendars {
    /// The calendars of these `ics` sources (every enabled thread's).
    pub fn new<'a>(sources: impl IntoIterator<Item = &'a IcsSettings>) -> Calendars {
        let mut plans: HashMap<Vec<String>, Vec<Want>> = HashMap::new();
        for s in sources {
            let wants = plans.entry(s.paths.clone()).or_default();
            let want = Want::of(s);
            if !wants.contains(&want) {
                wants.push(want);
            }
        }
        Calendars(Arc::new(Shared {
            plans,
            reads: Mutex::default(),
        }))
    }

    /// The windows `paths` are read for, when they were planned with `want` among them.
    pub(super) fn plan(&self, paths: &[String], want: Want) -> Option<&[Want]> {
        self.0
            .plans
            .get(paths)
            .filter(|wants| wants.contains(&want))
            .map(Vec::as_slice)
    }

    /// The reading of `paths`: done by `read` for the first source that asks, waited for
    /// by the others.
    pub(super) fn reading(
        &self,
        paths: &[String],
        read: impl FnOnce() -> Option<Listing>,
    ) -> Option<Arc<Listing>> {
        let cell = {
            let mut reads = self.0.reads.lock().unwrap_or_else(PoisonError::into_inner);
            Arc::clone(reads.entry(paths.to_vec()).or_default())
        };
        cell.get_or_init(|| read().map(Arc::new)).clone()
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::sources::ics::testing::{now, settings};
    use crate::sources::ics::{calendar_text, shared_text};

    /// The tick's one reading of a set of paths gives each source what it would read
    /// alone, whatever its window and its `max_events`; it is made once; a source whose
    /// paths were not planned reads alone.
    #[test]
    fn one_reading_serves_each_window_planned_as_if_read_alone() {
        let watcher = settings(&["google.ics", "vdir"], 24, 50);
        let oracle = settings(&["google.ics", "vdir"], 72, 2);
        let other = settings(&["google.ics"], 72, 50);
        let calendars = Calendars::new([&watcher, &oracle, &oracle]);
        assert_eq!(
            calendars
                .plan(&watcher.paths, Want::of(&watcher))
                .map(<[Want]>::len),
            Some(2),
            "two windows, the same one asked twice counted once"
        );
        assert!(calendars.plan(&other.paths, Want::of(&other)).is_none());
        for s in [&oracle, &watcher, &other] {
            let shared = shared_text(s, &calendars, now(), Zone::UTC).unwrap();
            let alone = calendar_text(s, now(), Zone::UTC).unwrap();
            assert_eq!(
                (shared.text, shared.truncated),
                (alone.text, alone.truncated)
            );
        }
        let mut again = 0;
        let listing = calendars.reading(&watcher.paths, || {
            again += 1;
            None
        });
        assert_eq!(again, 0, "read once, by the first source that asked");
        assert!(listing.is_some_and(|l| l.get(Want::of(&oracle), now()).is_some()));
        // Read for another instant (a reused set of calendars): not used.
        let later = now() + chrono::TimeDelta::minutes(5);
        assert!(
            calendars
                .reading(&watcher.paths, || None)
                .is_some_and(|l| l.get(Want::of(&oracle), later).is_none())
        );
    }
}

//! Sources that follow the threads' roles (SPEC §6): what a thread reads when its config
//! lists no `sources`, and the defaults of a kind that depend on who reads it.
//!
//! - **No `sources` key** (an empty list is kept as given: "nothing"): the Watcher reads
//!   the `system` source (load, memory, disks: it works everywhere), the Librarian the
//!   `archive` (forgotten entries resembling what is remembered now), the Dreamer a
//!   `sample` of the other threads' sources ([`super::sample`]: "a sample of
//!   everything"). The Oracle gets none: it needs your calendar (an `ics` or `command`
//!   source). Mail, calendars and memory files live
//!   in places only the user knows: `thinker init` writes commented examples for them
//!   rather than guessing paths that would fail on every tick.
//! - **`ics` `hours`** when not given: 24 for the Watcher (today), 72 for the Oracle (the
//!   days ahead), 24 for the others.
//!
//! Must not: look at the file system (a config means the same on every machine).

use super::{ArchiveSettings, SampleSettings, Source, SourceKind, SystemSettings};
use crate::thread::ThreadName;

/// The calendar window of the Oracle when its `ics` source does not say.
pub const ORACLE_ICS_HOURS: u32 = 72;
/// The calendar window of the other threads when their `ics` source does not say.
pub const WATCHER_ICS_HOURS: u32 = 24;

/// What `thread` reads when its config lists no `sources`.
pub fn defaults(thread: ThreadName) -> Vec<Source> {
    match thread {
        ThreadName::Watcher => vec![Source::from(SourceKind::System(SystemSettings::default()))],
        ThreadName::Librarian => vec![Source::from(
            SourceKind::Archive(ArchiveSettings::default()),
        )],
        ThreadName::Dreamer => vec![Source::from(SourceKind::Sample(SampleSettings::default()))],
        ThreadName::Oracle => Vec::new(),
    }
}

/// Fills every `sample` source of `threads` with the sources of the *other* threads
/// (once all are read).
pub fn fill_samples(threads: &mut [(ThreadName, &mut Vec<Source>)]) {
    let all: Vec<(ThreadName, Vec<Source>)> =
        threads.iter().map(|(t, s)| (*t, (*s).clone())).collect();
    for (thread, sources) in threads.iter_mut() {
        let others: Vec<Source> = all
            .iter()
            .filter(|(t, _)| t != thread)
            .flat_map(|(_, s)| s.iter().cloned())
            .collect();
        for source in sources.iter_mut() {
            if let SourceKind::Sample(s) = &source.kind {
                source.kind = SourceKind::Sample(s.clone().with_sources(&others));
            }
        }
    }
}

/// `source` with the defaults of its kind that follow `thread`'s role.
pub fn for_role(thread: ThreadName, source: Source) -> Source {
    let Source {
        name,
        kind,
        private,
    } = source;
    let kind = match kind {
        SourceKind::Ics(s) => SourceKind::Ics(s.with_default_hours(ics_hours(thread))),
        other => other,
    };
    Source {
        name,
        kind,
        private,
    }
}

fn ics_hours(thread: ThreadName) -> u32 {
    match thread {
        ThreadName::Oracle => ORACLE_ICS_HOURS,
        _ => WATCHER_ICS_HOURS,
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::config::Config;

    fn sources(text: &str, thread: ThreadName) -> Vec<Source> {
        let head = "[providers.p]\nkind = \"ollama\"\n";
        let config = Config::parse(&format!("{head}{text}"), None).unwrap();
        config.thread(thread).unwrap().sources.clone()
    }

    #[test]
    fn threads_without_sources_read_their_roles_defaults() {
        let watcher = sources("[threads.watcher]\nmodel = \"p/m\"\n", ThreadName::Watcher);
        assert_eq!(
            watcher.iter().map(Source::kind).collect::<Vec<_>>(),
            ["system"]
        );
        let librarian = sources(
            "[threads.librarian]\nmodel = \"p/m\"\n",
            ThreadName::Librarian,
        );
        assert_eq!(
            librarian.iter().map(Source::kind).collect::<Vec<_>>(),
            ["archive"]
        );
        let oracle = sources("[threads.oracle]\nmodel = \"p/m\"\n", ThreadName::Oracle);
        assert!(oracle.is_empty());
        // The Dreamer samples what the others read (not their archive).
        let both = "[threads.watcher]\nmodel = \"p/m\"\n[threads.librarian]\nmodel = \"p/m\"\n[threads.dreamer]\nmodel = \"p/m\"\n";
        let dreamer = sources(both, ThreadName::Dreamer);
        let SourceKind::Sample(s) = &dreamer[0].kind else {
            panic!("the Dreamer samples: {dreamer:?}")
        };
        assert_eq!(
            s.clone().with_sources(&[]),
            SampleSettings::default(),
            "settings as default"
        );
        assert_eq!(
            format!("{s:?}").matches("SystemSettings").count(),
            1,
            "{s:?}"
        );
        assert!(!format!("{s:?}").contains("Archive"), "{s:?}");
        // An empty list is the user's word: nothing.
        let none = sources(
            "[threads.watcher]\nmodel = \"p/m\"\nsources = []\n",
            ThreadName::Watcher,
        );
        assert!(none.is_empty());
    }

    #[test]
    fn a_calendar_looks_as_far_ahead_as_its_reader_needs() {
        let cal = |thread: &str| {
            format!(
                "[threads.{thread}]\nmodel = \"p/m\"\n[[threads.{thread}.sources]]\nkind = \"ics\"\npaths = [\"/cal\"]\n"
            )
        };
        let hours = |s: &[Source]| match &s[0].kind {
            SourceKind::Ics(s) => s.hours(),
            _ => unreachable!(),
        };
        assert_eq!(hours(&sources(&cal("watcher"), ThreadName::Watcher)), 24);
        assert_eq!(hours(&sources(&cal("oracle"), ThreadName::Oracle)), 72);
        let given = format!("{}hours = 12\n", cal("oracle"));
        assert_eq!(
            hours(&sources(&given, ThreadName::Oracle)),
            12,
            "the config wins"
        );
    }
}

//! Table tests of links between memories (SPEC §7.12, issue 25): both ends record a
//! link, no self-links or duplicates, five an end (the newest kept), unknown ids and
//! other threads' links refused, a screened thread links nothing, a link goes when an
//! end leaves, linking does not reinforce. Each test names the wrong implementation it
//! would catch.

use thinker::aggregate::{Caps, Settings, ThreadOutcome, aggregate};
use thinker::answer::{Answer, LinkProposal, Retire, RetireWhy, Seen};
use thinker::state::{Entry, Link, LinkKind, State};
use thinker::thread::ThreadName;

use crate::support::{entry, now, only, settings, state_with};

fn memory() -> State {
    let mut s = state_with(
        vec![
            entry("t-nas-disk-full", "the NAS disk is almost full", 6),
            entry("t-backup-failed", "last night's backup failed", 6),
        ],
        vec![entry(
            "p-weekend-quiet",
            "the NAS has plenty of space at the weekend",
            6,
        )],
    );
    // Seven different ideas (not one idea numbered seven times: those would be one fact).
    let ideas = [
        "move the photo library to the cloud",
        "a second disk for the NAS",
        "delete old video renders",
        "compress the mail archive",
        "ask Sam about his spare drive",
        "stagger the backup schedule",
        "buy a bigger router",
    ];
    s.hunches = ideas
        .iter()
        .enumerate()
        .map(|(i, idea)| entry(&format!("h-idea-{i}"), idea, 6))
        .collect();
    s
}

fn link(a: &str, b: &str, kind: LinkKind) -> LinkProposal {
    LinkProposal {
        a: a.into(),
        b: b.into(),
        kind,
    }
}

fn linking(links: Vec<LinkProposal>) -> Answer {
    Answer {
        links,
        ..Answer::default()
    }
}

fn find<'a>(s: &'a State, id: &str) -> &'a Entry {
    s.all_entries().find(|(_, e)| e.id == id).unwrap().1
}

fn roomy() -> Settings {
    Settings {
        caps: Caps {
            hunches: 20,
            ..Caps::default()
        },
        ..settings()
    }
}

/// Guards against a link recorded on one end only, and against linking reinforcing.
#[test]
fn a_link_is_recorded_on_both_ends_and_does_not_reinforce() {
    let before = memory();
    let a = linking(vec![link(
        "t-nas-disk-full",
        "p-weekend-quiet",
        LinkKind::Contradicts,
    )]);
    let (next, report) = aggregate(&before, &only(ThreadName::Dreamer, a), &[], now(), &roomy());
    assert_eq!(
        find(&next, "t-nas-disk-full").links,
        [Link {
            id: "p-weekend-quiet".into(),
            kind: LinkKind::Contradicts
        }]
    );
    assert_eq!(
        find(&next, "p-weekend-quiet").links,
        [Link {
            id: "t-nas-disk-full".into(),
            kind: LinkKind::Contradicts
        }]
    );
    assert_eq!(report.linked.len(), 1);
    assert!(report.reinforced.is_empty(), "linking reinforced");
    assert_eq!(
        find(&next, "t-nas-disk-full").last_seen,
        find(&before, "t-nas-disk-full").last_seen
    );
}

/// Guards against links from threads that may not link, from screened text, to unknown
/// ids or to the entry itself.
#[test]
fn links_refused_table() {
    // (thread, screened, a, b, why refused or None)
    let cases = [
        (
            ThreadName::Librarian,
            false,
            "t-nas-disk-full",
            "t-backup-failed",
            None,
        ),
        (
            ThreadName::Dreamer,
            false,
            "t-nas-disk-full",
            "t-backup-failed",
            None,
        ),
        (
            ThreadName::Watcher,
            false,
            "t-nas-disk-full",
            "t-backup-failed",
            Some("thread"),
        ),
        (
            ThreadName::Oracle,
            false,
            "t-nas-disk-full",
            "t-backup-failed",
            Some("thread"),
        ),
        (
            ThreadName::Dreamer,
            true,
            "t-nas-disk-full",
            "t-backup-failed",
            Some("screened"),
        ),
        (
            ThreadName::Librarian,
            false,
            "t-nas-disk-full",
            "t-no-such",
            Some("unknown"),
        ),
        (
            ThreadName::Librarian,
            false,
            "t-nas-disk-full",
            "t-nas-disk-full",
            Some("self"),
        ),
    ];
    for (thread, screened, a, b, refused) in cases {
        let answer = Answer {
            links: vec![link(a, b, LinkKind::Connects)],
            seen: Seen {
                sources: vec![],
                screened,
            },
            ..Answer::default()
        };
        let (next, report) = aggregate(&memory(), &only(thread, answer), &[], now(), &roomy());
        match refused {
            None => {
                assert_eq!(find(&next, a).links.len(), 1, "{thread} {a} {b}");
                assert!(report.links_refused.is_empty());
            }
            Some(why) => {
                assert!(
                    next.all_entries().all(|(_, e)| e.links.is_empty()),
                    "{thread} {a} {b}"
                );
                assert_eq!(report.links_refused[0].why, why, "{thread} {a} {b}");
            }
        }
    }
}

/// Guards against duplicate links, and against a changed kind being kept twice.
#[test]
fn one_link_per_pair_the_newest_kind_kept() {
    let a = linking(vec![
        link("t-nas-disk-full", "t-backup-failed", LinkKind::Connects),
        link("t-backup-failed", "t-nas-disk-full", LinkKind::Connects),
    ]);
    let (next, _) = aggregate(
        &memory(),
        &only(ThreadName::Librarian, a),
        &[],
        now(),
        &roomy(),
    );
    assert_eq!(find(&next, "t-nas-disk-full").links.len(), 1);
    let b = linking(vec![link(
        "t-backup-failed",
        "t-nas-disk-full",
        LinkKind::Contradicts,
    )]);
    let (again, _) = aggregate(&next, &only(ThreadName::Dreamer, b), &[], now(), &roomy());
    for id in ["t-nas-disk-full", "t-backup-failed"] {
        let links = &find(&again, id).links;
        assert_eq!(links.len(), 1, "{id}");
        assert_eq!(links[0].kind, LinkKind::Contradicts, "{id}");
    }
}

/// Guards against an entry collecting links without bound, or dropping the newest: the
/// oldest goes, from both of its ends.
#[test]
fn an_entry_keeps_its_five_newest_links() {
    let a = linking(
        (0..7)
            .map(|i| {
                link(
                    "t-nas-disk-full",
                    &format!("h-idea-{i}"),
                    LinkKind::Connects,
                )
            })
            .collect(),
    );
    let (next, report) = aggregate(
        &memory(),
        &only(ThreadName::Dreamer, a),
        &[],
        now(),
        &roomy(),
    );
    let kept: Vec<&str> = find(&next, "t-nas-disk-full")
        .links
        .iter()
        .map(|l| l.id.as_str())
        .collect();
    assert_eq!(
        kept,
        ["h-idea-2", "h-idea-3", "h-idea-4", "h-idea-5", "h-idea-6"]
    );
    for gone in ["h-idea-0", "h-idea-1"] {
        assert!(
            find(&next, gone).links.is_empty(),
            "{gone} still links back"
        );
    }
    assert_eq!(
        report
            .unlinked
            .iter()
            .filter(|u| u.why == "replaced")
            .count(),
        2
    );
}

/// Guards against a dangling link when an end leaves, whatever the reason.
#[test]
fn a_link_goes_when_either_end_leaves() {
    let (linked, _) = aggregate(
        &memory(),
        &only(
            ThreadName::Dreamer,
            linking(vec![
                link("t-nas-disk-full", "p-weekend-quiet", LinkKind::Contradicts),
                link("t-backup-failed", "p-weekend-quiet", LinkKind::Connects),
            ]),
        ),
        &[],
        now(),
        &roomy(),
    );
    // Retired.
    let retire = Answer {
        retire: vec![Retire {
            id: "p-weekend-quiet".into(),
            why: RetireWhy::Wrong,
        }],
        ..Answer::default()
    };
    let (next, report) = aggregate(
        &linked,
        &only(ThreadName::Oracle, retire),
        &[],
        now(),
        &roomy(),
    );
    assert!(
        next.all_entries().all(|(_, e)| e.links.is_empty()),
        "dangling link"
    );
    assert_eq!(report.unlinked.len(), 2);
    assert!(report.unlinked.iter().all(|u| u.why == "left"));
    // Pruned over a cap.
    let tight = Settings {
        caps: Caps {
            patterns: 0,
            hunches: 20,
            ..Caps::default()
        },
        ..settings()
    };
    let (next, _) = aggregate(
        &linked,
        &only(ThreadName::Oracle, Answer::default()),
        &[],
        now(),
        &tight,
    );
    assert!(
        next.all_entries().all(|(_, e)| e.links.is_empty()),
        "dangling link"
    );
}

/// Same input, same output: links included.
#[test]
fn links_are_deterministic() {
    let a = linking(vec![
        link("t-nas-disk-full", "p-weekend-quiet", LinkKind::Contradicts),
        link("h-idea-1", "h-idea-2", LinkKind::Connects),
    ]);
    let results = only(ThreadName::Librarian, a);
    let one = aggregate(&memory(), &results, &[], now(), &roomy());
    let two = aggregate(&memory(), &results, &[], now(), &roomy());
    assert_eq!(one, two);
    let _: [ThreadOutcome; 4] = results;
}

//! What a finding cites, checked against what its thread was shown (docs/spec.md §6): a
//! reference no source showed this tick is dropped, and a finding that cites nothing is
//! grounded on the one shown item its words come from ([`identity::ground`]). Cheap
//! models forget to cite now and then; a finding without a reference must then reach
//! the text threshold to join its entry, and a short paraphrase ("Parents' evening next
//! Tuesday") does not.
//!
//! Runs in the tick, before the answer is journaled, so a replay reads the grounded
//! answer and decides the same. Reads the shown text to match it, never to act on it.
//! Must not: change a summary, or cite an item for a finding that cites one already.

use chrono::{DateTime, Utc};

use crate::aggregate::identity::{self, Key};
use crate::answer::Finding;
use crate::input::ShownItem;
use crate::recall::synonyms::Synonyms;

/// Drops the references of `findings` that `shown` does not hold, then grounds each
/// finding left citing nothing, its days read against `now`.
pub fn ground_findings(findings: &mut [Finding], shown: &[ShownItem], now: DateTime<Utc>) {
    let anchor = now.date_naive();
    let mut items: Option<Vec<(String, Key)>> = None;
    for f in findings {
        f.refs
            .retain(|r| shown.iter().any(|item| item.reference == *r));
        if !f.refs.is_empty() || shown.is_empty() {
            continue;
        }
        // Each item's key once a tick, and only when a finding needs it.
        let items = items.get_or_insert_with(|| {
            shown
                .iter()
                .map(|item| (item.reference.clone(), Key::new(&item.text, anchor, [])))
                .collect()
        });
        let key = Key::new(&f.summary, anchor, []);
        if let Some(r) = identity::ground(&key, items, Synonyms::builtin()) {
            f.refs.push(r.to_string());
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::thread::Kind;

    fn item(reference: &str, text: &str) -> ShownItem {
        ShownItem {
            reference: reference.into(),
            source: "mail".into(),
            text: text.into(),
        }
    }

    fn finding(summary: &str, refs: &[&str]) -> Finding {
        Finding {
            summary: summary.into(),
            importance: 5,
            kind: Kind::Observation,
            due: None,
            from: None,
            refs: refs.iter().map(|r| (*r).to_string()).collect(),
        }
    }

    fn world() -> Vec<ShownItem> {
        vec![
            item(
                "mschl1",
                "[mschl1] Mon 23 Nov\nFrom: Riverside Primary School\nSubject: Dates for parents\nClass photos are on Thursday 26 November: bring 12 euros in cash. Parents' evening is on Tuesday 1 December at 19:00 in the main hall.\n",
            ),
            item(
                "macme1",
                "[macme1] Mon 23 Nov\nFrom: ACME Billing\nSubject: Invoice 4411\nInvoice 4411 for EUR 1,250.00 (consulting, October) is due on Friday 27 November.\n",
            ),
            item(
                "macme2",
                "[macme2] Mon 23 Nov\nFrom: ACME Billing\nSubject: Invoice 4412\nInvoice 4412 for EUR 86.40 (support contract, December) is due on Friday 4 December.\n",
            ),
            item(
                "mdent1",
                "[mdent1] Mon 23 Nov\nFrom: Praxis Dr. Weber\nSubject: Your appointment\nA reminder of your dental check-up on Wednesday 2 December at 10:30.\n",
            ),
        ]
    }

    fn now() -> DateTime<Utc> {
        "2026-11-23T12:00:00Z".parse().unwrap()
    }

    #[test]
    fn a_finding_citing_nothing_is_grounded_on_the_item_its_words_come_from() {
        let cases: &[(&str, Option<&str>)] = &[
            ("Parents' evening next Tuesday", Some("mschl1")),
            ("Kids need cash for the class photo", Some("mschl1")),
            ("Check-up at Dr Weber's next Wednesday", Some("mdent1")),
            ("Unpaid: ACME 4411", Some("macme1")),
            ("ACME support contract bill for December", Some("macme2")),
            // Both bills hold these words: no item is ahead, so none is cited.
            ("ACME Billing invoice due Friday", None),
            // A code no item holds vetoes every item.
            ("ACME invoice 4413 due", None),
            // Words no item holds.
            ("Backup job failed overnight on the NAS", None),
        ];
        for (summary, want) in cases {
            let mut f = [finding(summary, &[])];
            ground_findings(&mut f, &world(), now());
            let got: Vec<&str> = f[0].refs.iter().map(String::as_str).collect();
            assert_eq!(got, want.iter().copied().collect::<Vec<_>>(), "{summary}");
        }
    }

    #[test]
    fn a_cited_reference_is_kept_when_shown_and_dropped_when_not() {
        let mut f = [
            finding("Parents' evening next Tuesday", &["macme1"]),
            finding("Parents' evening next Tuesday", &["mgone1"]),
        ];
        ground_findings(&mut f, &world(), now());
        // A finding that cites a shown item keeps it, even when its words say another.
        assert_eq!(f[0].refs, ["macme1"]);
        // A reference no source showed is dropped, and the finding grounded instead.
        assert_eq!(f[1].refs, ["mschl1"]);
        let mut none = [finding("Parents' evening next Tuesday", &["mschl1"])];
        ground_findings(&mut none, &[], now());
        assert!(none[0].refs.is_empty());
    }

    const WORDS: &[&str] = &[
        "ACME", "invoice", "4411", "4412", "parcel", "post", "office", "Tuesday", "dentist",
        "check-up", "10:30", "€86.40", "Dr", "Weber", "school", "photos", "evening", "due",
    ];

    fn sentence() -> impl proptest::strategy::Strategy<Value = String> {
        proptest::collection::vec(proptest::sample::select(WORDS), 1..8).prop_map(|w| w.join(" "))
    }

    use proptest::strategy::Strategy as _;

    proptest::proptest! {
        #![proptest_config(proptest::test_runner::Config::with_cases(128))]

        /// Whatever the words: a finding ends up citing only shown items, at most one
        /// of them when it cited nothing; its summary never changes; a finding citing a
        /// shown item keeps exactly what it cited; and the same input grounds the same.
        #[test]
        fn grounding_cites_only_shown_items_and_never_rewrites(
            summaries in proptest::collection::vec(sentence(), 1..5),
            texts in proptest::collection::vec(sentence(), 0..5),
            cite in proptest::collection::vec(0usize..7, 1..5),
        ) {
            let shown: Vec<ShownItem> = texts
                .iter()
                .enumerate()
                .map(|(i, t)| item(&format!("mitem{i}"), &format!("[mitem{i}] {t}\n")))
                .collect();
            let findings: Vec<Finding> = summaries
                .iter()
                .zip(cite.iter().cycle())
                .map(|(s, c)| {
                    let r = format!("mitem{c}");
                    if *c < 6 { finding(s, &[r.as_str()]) } else { finding(s, &[]) }
                })
                .collect();
            let mut once = findings.clone();
            ground_findings(&mut once, &shown, now());
            let mut twice = findings.clone();
            ground_findings(&mut twice, &shown, now());
            proptest::prop_assert_eq!(&once, &twice);
            for (before, after) in findings.iter().zip(&once) {
                proptest::prop_assert_eq!(&before.summary, &after.summary);
                proptest::prop_assert!(after.refs.iter().all(|r| shown.iter().any(|i| i.reference == *r)));
                let kept: Vec<&String> = before.refs.iter().filter(|r| shown.iter().any(|i| i.reference == **r)).collect();
                if kept.is_empty() {
                    proptest::prop_assert!(after.refs.len() <= 1);
                } else {
                    proptest::prop_assert_eq!(after.refs.iter().collect::<Vec<_>>(), kept);
                }
            }
        }
    }
}

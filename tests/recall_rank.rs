//! Recall as a library (`thinker::recall`) on the realistic memory of
//! `tests/fixtures/recall/` (49 entries, an archive of 60): one-word questions, the
//! paraphrases of issue 21 and the synonym table, time words, unrelated prompts that get
//! nothing, and properties (an entry's own words find it; words found nowhere find
//! nothing; at most `max_entries`, best first).

use std::collections::HashMap;

use proptest::prelude::*;
use thinker::clock::Clock;
use thinker::recall::{self, Inputs, Limits, Semantic, Synonyms};
use thinker::state::State;

use crate::support::t;

const NOW: &str = "2026-11-24T09:00:00Z";

fn fixture(name: &str) -> String {
    std::fs::read_to_string(format!(
        "{}/tests/fixtures/recall/{name}",
        env!("CARGO_MANIFEST_DIR")
    ))
    .unwrap()
}

fn memory() -> State {
    State::from_json(&fixture("subconscious.json")).unwrap()
}

fn archive() -> Vec<String> {
    fixture("archive.jsonl")
        .lines()
        .map(|l| {
            serde_json::from_str::<serde_json::Value>(l).unwrap()["summary"]
                .as_str()
                .unwrap()
                .to_string()
        })
        .collect()
}

fn ask_with(state: &State, archive: &[String], text: &str, inputs: Inputs<'_>) -> Vec<String> {
    let inputs = Inputs { archive, ..inputs };
    recall::recall(
        state,
        text,
        &Clock::utc(t(NOW)),
        &Limits::default(),
        &inputs,
    )
    .iter()
    .map(|r| r.entry.id.clone())
    .collect()
}

fn ask(text: &str) -> Vec<String> {
    ask_with(&memory(), &archive(), text, Inputs::default())
}

fn first_three(text: &str, want: &str) {
    let got = ask(text);
    assert!(
        got.iter().take(3).any(|id| id == want),
        "{text:?}: want {want} in the first three, got {got:?}"
    );
}

/// One word is a question: the entry it names, first.
#[test]
fn one_word_questions_find_their_entry() {
    for (text, want) in [
        ("invoice", "t-acme-invoice-overdue"),
        ("dentist", "t-dentist-weber"),
        ("boiler", "t-boiler-plumber"),
        ("Aviva", "t-home-insurance"),
        ("groceries", "p-tesco-sunday"),
        ("passport", "t-passport-renewal"),
        ("Netflix", "h-streaming-subscriptions"),
    ] {
        let got = ask(text);
        assert_eq!(
            got.first().map(String::as_str),
            Some(want),
            "{text}: {got:?}"
        );
    }
}

/// Issue 21's questions whose words are not the entry's, and more of the same kind.
#[test]
fn paraphrases_meet_through_stems_and_synonyms() {
    for (text, want) in [
        ("what about the invoice?", "t-acme-invoice-overdue"),
        ("Why was my card declined?", "t-card-blocked"),
        ("Did my rent payment go through?", "t-rent-standing-order"),
        ("electricity bill", "t-octopus-statement"),
        ("Dad hospital", "t-dad-st-marys"),
        ("is Alice quitting?", "h-alice-leaving"),
        ("how much do I spend on coffee", "p-coffee-spend"),
        ("why is the internet down", "t-broadband-outage"),
        ("when is the car going in for its MOT", "t-car-mot"),
    ] {
        first_three(text, want);
    }
}

/// A time question gets what is due in its window, soonest first (overdue first).
#[test]
fn time_words_return_due_and_important_entries() {
    let urgent = ask("anything urgent?");
    assert_eq!(
        urgent.first().map(String::as_str),
        Some("t-acme-invoice-overdue"),
        "overdue first: {urgent:?}"
    );
    assert!(
        urgent.contains(&"t-boiler-plumber".to_string()),
        "{urgent:?}"
    );
    // Tomorrow is Wednesday 25 November: the plumber at 8, the nativity play at 18.
    let tomorrow = ask("what's on tomorrow?");
    assert!(
        tomorrow.contains(&"t-boiler-plumber".to_string())
            && tomorrow.contains(&"t-emma-nativity".to_string()),
        "{tomorrow:?}"
    );
    assert!(
        !tomorrow.contains(&"t-dad-st-marys".to_string()),
        "{tomorrow:?}"
    );
    let friday = ask("what do I have on Friday");
    assert!(
        friday.contains(&"t-budget-review".to_string()),
        "{friday:?}"
    );
    let week = ask("what's due this week?");
    assert!(!week.contains(&"t-flight-lisbon".to_string()), "{week:?}");
    assert!(week.contains(&"t-emma-nativity".to_string()), "{week:?}");
    // A time word beside a subject: the subject, helped by the window.
    first_three("is the release going out this week?", "t-release-deploy");
}

/// Issue 32: a question about two matters gets an answer to each, the stronger match of
/// one part not crowding out the other's (a disk 91% full was dropped for a hunch about
/// the backup script).
#[test]
fn a_question_of_two_matters_answers_both() {
    for (text, want) in [
        (
            "my card got declined and the internet is down",
            ["t-card-blocked", "t-broadband-outage"],
        ),
        (
            "is the plumber still coming? also the water bill",
            ["t-boiler-plumber", "t-thames-water"],
        ),
        (
            "the nas is nearly full and the nightly backup broke again",
            ["t-nas-disk", "p-backup-fails-mondays"],
        ),
    ] {
        let got = ask(text);
        for id in want {
            assert!(
                got.iter().take(3).any(|g| g == id),
                "{text:?}: want {id} in the first three, got {got:?}"
            );
        }
    }
    // The issue's own memory: a strong disk entry beside a weak hunch about the script.
    let state = State::from_json(
        r#"{"active_threads": [{"id": "t-disk-home", "summary": "Disk /home is 91% full", "strength": 9, "importance": 8,
              "created": "2026-11-22T10:00:00Z", "last_seen": "2026-11-24T08:00:00Z"},
             {"id": "t-dentist", "summary": "Dentist appointment Thursday 15:30", "strength": 5,
              "created": "2026-11-22T10:00:00Z", "last_seen": "2026-11-24T08:00:00Z"}],
            "hunches": [{"id": "h-backup-script", "summary": "The backup script keeps failing since the cron change; its log shows permission errors", "strength": 3,
              "created": "2026-11-22T10:00:00Z", "last_seen": "2026-11-24T08:00:00Z"}]}"#,
    )
    .unwrap();
    let got = ask_with(
        &state,
        &archive(),
        "is my disk ok? the backup script keeps failing",
        Inputs::default(),
    );
    assert!(got.contains(&"t-disk-home".to_string()), "{got:?}");
    assert!(got.contains(&"h-backup-script".to_string()), "{got:?}");
    // One matter asked in parts is still one answer, and a long request is not split.
    assert_eq!(
        recall::rank::clauses("swimming and football on saturday"),
        ["swimming", "football on saturday"]
    );
    assert_eq!(
        recall::rank::clauses("config/prod.toml v2.8 changed, anything to watch?"),
        ["config/prod.toml v2.8 changed, anything to watch?"]
    );
    assert_eq!(
        recall::rank::clauses(
            "Fix the bug. Then run the tests. And update the docs. Also push it."
        )
        .len(),
        1
    );
}

/// Issue 32: "what's due?" and "anything coming up?" list what is due within the
/// horizon (`[recall] due_horizon_days`, 7 local days by default): with items due in 3
/// days 16 hours and in 7 days, and nothing sooner, it returned nothing (3 days).
#[test]
fn whats_due_looks_as_far_as_the_horizon() {
    let state = State::from_json(
        r#"{"active_threads": [
             {"id": "t-visa", "summary": "Visa application form to the consulate", "strength": 5,
              "created": "2026-11-20T10:00:00Z", "last_seen": "2026-11-24T08:00:00Z", "due": "2026-11-28T01:00:00Z"},
             {"id": "t-tax", "summary": "Quarterly VAT return", "strength": 5,
              "created": "2026-11-20T10:00:00Z", "last_seen": "2026-11-24T08:00:00Z", "due": "2026-12-01T17:00:00Z"},
             {"id": "t-later", "summary": "Renew the domain name", "strength": 5,
              "created": "2026-11-20T10:00:00Z", "last_seen": "2026-11-24T08:00:00Z", "due": "2026-12-20T09:00:00Z"},
             {"id": "t-none", "summary": "Printer toner is low", "strength": 5,
              "created": "2026-11-20T10:00:00Z", "last_seen": "2026-11-24T08:00:00Z"}]}"#,
    )
    .unwrap();
    // 3 days 16 hours and 7 days 8 hours ahead of NOW (Tuesday 24th, 09:00 UTC): the
    // 7th local day is Tuesday 1 December.
    for text in ["what's due?", "anything coming up?", "any deadlines?"] {
        assert_eq!(
            ask_with(&state, &[], text, Inputs::default()),
            ["t-visa", "t-tax"],
            "{text}"
        );
    }
    let three = Inputs {
        due_horizon_days: 3,
        ..Inputs::default()
    };
    assert!(ask_with(&state, &[], "what's due?", three).is_empty());
    let month = Inputs {
        due_horizon_days: 30,
        ..Inputs::default()
    };
    assert_eq!(
        ask_with(&state, &[], "what's due?", month),
        ["t-visa", "t-tax", "t-later"]
    );
}

/// Prompts about nothing in the memory get nothing (issue 21's and more).
#[test]
fn unrelated_prompts_get_nothing() {
    for text in [
        "write a haiku about autumn leaves",
        "how do I reverse a linked list",
        "explain the difference between TCP and UDP",
        "what is the capital of Australia",
        "give me a recipe for banana bread",
        "write a SQL query that finds duplicate rows",
        "who painted the Mona Lisa",
        "how do I centre a div in CSS",
        "explain big O notation",
        "what rhymes with orange",
        "",
        "the and of it",
    ] {
        assert_eq!(ask(text), Vec::<String>::new(), "{text:?}");
    }
}

/// The archive weighs words: a word the archive is full of says little about what a
/// question is about, and no longer carries one on its own (the floor).
#[test]
fn the_archive_counts_in_the_idf() {
    let state = memory();
    let question = "coffee";
    let without = ask_with(&state, &[], question, Inputs::default());
    assert!(
        without.contains(&"p-coffee-spend".to_string()),
        "{without:?}"
    );
    let noisy: Vec<String> = (0..200).map(|i| format!("coffee order {i}")).collect();
    let with = ask_with(&state, &noisy, question, Inputs::default());
    assert!(with.is_empty(), "{with:?}");
}

/// An entry is also found by the words of the other wordings its fact was reported in
/// (docs/spec.md §7.2): "Hauptstrasse" is in none of the summaries.
#[test]
fn the_other_wordings_of_a_fact_find_its_entry() {
    let question = "anything waiting for me at the Hauptstrasse post office?";
    let state = memory();
    assert!(
        !ask_with(&state, &archive(), question, Inputs::default())
            .contains(&"t-dhl-parcel".to_string())
    );
    let mut taught = state.clone();
    let parcel = taught
        .active_threads
        .iter_mut()
        .find(|e| e.id == "t-dhl-parcel")
        .unwrap();
    let day = t(NOW).date_naive();
    parcel.add_said(
        "Parcel to collect at the Hauptstrasse post office by Saturday",
        day,
    );
    let got = ask_with(&taught, &archive(), question, Inputs::default());
    assert_eq!(
        got.first().map(String::as_str),
        Some("t-dhl-parcel"),
        "{got:?}"
    );
}

/// Config groups extend the table: a supplier's name, taught.
#[test]
fn config_synonyms_extend_the_table() {
    let state = memory();
    let archive = archive();
    assert_eq!(
        ask_with(&state, &archive, "thames", Inputs::default()),
        ["t-thames-water"]
    );
    let plain = ask_with(&state, &archive, "the utility", Inputs::default());
    assert!(!plain.contains(&"t-thames-water".to_string()), "{plain:?}");
    let table = Synonyms::with_groups(&[vec!["utility".into(), "thames".into()]]);
    let taught = ask_with(
        &state,
        &archive,
        "the utility",
        Inputs {
            synonyms: &table,
            ..Inputs::default()
        },
    );
    assert!(taught.contains(&"t-thames-water".to_string()), "{taught:?}");
}

/// Embeddings blend in: an entry no word matches comes in from `min_similarity` up, and
/// the similarity reorders the lexical matches.
#[test]
fn the_semantic_rerank_blends_and_adds_similar_entries() {
    let state = memory();
    let archive = archive();
    let unit = |i: usize| {
        let mut v = vec![0.0_f32; 8];
        v[i] = 1.0;
        v
    };
    let mut entries = HashMap::new();
    entries.insert("p-payday-spending".to_string(), unit(1));
    entries.insert("t-card-blocked".to_string(), unit(2));
    // Partly like the question (cosine 0.71, under `min_similarity`).
    let mut half = unit(1);
    half[2] = 1.0;
    entries.insert("h-card-skimming".to_string(), half);
    let semantic = Semantic {
        question: unit(1),
        entries,
        min_similarity: 0.8,
        weight: 0.5,
    };
    let inputs = Inputs {
        semantic: Some(&semantic),
        ..Inputs::default()
    };
    let broke = "why am I always broke at the end of the month";
    assert!(ask_with(&state, &archive, broke, Inputs::default()).is_empty());
    assert_eq!(
        ask_with(&state, &archive, broke, inputs)
            .first()
            .map(String::as_str),
        Some("p-payday-spending")
    );
    // Four entries say "card"; lexically the blocked card (importance 9) leads, with the
    // similarity the spending pattern does.
    let lexical = ask_with(&state, &archive, "card", Inputs::default());
    assert_eq!(
        lexical.first().map(String::as_str),
        Some("t-card-blocked"),
        "{lexical:?}"
    );
    let card = ask_with(&state, &archive, "card", inputs);
    assert_eq!(
        card.first().map(String::as_str),
        Some("p-payday-spending"),
        "{card:?}"
    );
}

/// Words made of letters no English word is spelled with.
fn nonsense() -> impl Strategy<Value = String> {
    prop::collection::vec("[qxz]{4,9}", 1..6).prop_map(|w| w.join(" "))
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(64))]

    /// An entry's own summary finds it, and what comes back is best first, at most
    /// `max_entries`, scored within 0..=1.
    #[test]
    fn an_entrys_own_words_find_it(pick in 0usize..49) {
        let state = memory();
        let archive = archive();
        let (_, entry) = state.all_entries().nth(pick).unwrap();
        let ranked = recall::recall(&state, &entry.summary, &Clock::utc(t(NOW)), &Limits::default(), &Inputs { archive: &archive, ..Inputs::default() });
        prop_assert!(ranked.iter().any(|r| r.entry.id == entry.id), "{}: {:?}", entry.summary, ranked.iter().map(|r| &r.entry.id).collect::<Vec<_>>());
        prop_assert!(ranked.len() <= Limits::default().max_entries);
        prop_assert!(ranked.windows(2).all(|w| w[0].score >= w[1].score));
        prop_assert!(ranked.iter().all(|r| (0.0..=1.0).contains(&r.score)));
    }

    /// Words found nowhere in the memory find nothing, whatever else the text holds.
    #[test]
    fn words_found_nowhere_find_nothing(text in nonsense(), filler in prop::sample::select(vec!["what about", "please tell me", "is there", ""])) {
        let question = format!("{filler} {text}");
        prop_assert!(ask(&question).is_empty(), "{question}");
    }
}

/// "When is…" asks for a date: of two entries with the same words, the dated one first
/// (the README walkthrough's "When is the budget review?").
#[test]
fn a_question_that_asks_when_prefers_the_dated_entry() {
    let state = State::from_json(
        r#"{"hunches": [{"id": "h-agenda", "summary": "An agenda template could serve both the budget review and the 1:1", "strength": 3,
              "created": "2026-11-22T10:00:00Z", "last_seen": "2026-11-22T10:00:00Z"}],
            "active_threads": [{"id": "t-budget", "summary": "Budget review moved to Friday 10:00; prepare a written agenda for Alice", "strength": 5,
              "created": "2026-11-22T10:00:00Z", "last_seen": "2026-11-22T10:00:00Z", "due": "2026-11-27T10:00:00Z"}]}"#,
    )
    .unwrap();
    assert_eq!(
        ask_with(&state, &[], "When is the budget review?", Inputs::default()),
        ["t-budget", "h-agenda"]
    );
    assert_eq!(
        ask_with(&state, &[], "budget review template", Inputs::default())
            .first()
            .map(String::as_str),
        Some("h-agenda")
    );
}

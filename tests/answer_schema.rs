//! The answer schema fits its `max_tokens` by construction (issue 32): a grammar-
//! constrained small model fills every string to its `maxLength` and every array to its
//! `maxItems`, and must still not be cut off. For every thread and a table and a range of
//! `max_tokens`, the longest answer the fitted schema allows, pretty-printed and counted
//! at 3 bytes a token (an item's label, a code: a token a character), fits; random answers within the schema never exceed that longest
//! one (so the worst case is the worst); the longest answer reads as an answer; and a
//! tick sends each thread its schema fitted to its own `max_tokens`.

use proptest::prelude::*;
use serde_json::{Map, Value, json};
use thinker::answer::{self, schema, schema_for};
use thinker::schema_fit::{self, BYTES_PER_TOKEN};
use thinker::thread::ThreadName::{self, Dreamer, Librarian, Oracle, Watcher};

use crate::support::{Tick, found};

/// The tokens a text is counted at (the rule the issue asks for, written out here again
/// rather than taken from the code under test): 3 bytes a token, and each character of
/// the findings' cited labels (`refs`, tokenized a character at a time) a token.
fn counted(answer: &Value) -> u64 {
    let labels: u64 = answer["findings"]
        .as_array()
        .into_iter()
        .flatten()
        .flat_map(|f| f["refs"].as_array().into_iter().flatten())
        .filter_map(Value::as_str)
        .map(|r| r.chars().count() as u64)
        .sum();
    (serde_json::to_string_pretty(answer).unwrap().len() as u64 + labels * (BYTES_PER_TOKEN - 1))
        .div_ceil(BYTES_PER_TOKEN)
}

/// The smallest `max_tokens` each thread's fitted schema holds (its scale 0).
fn floor(thread: ThreadName) -> u64 {
    schema_fit::worst_tokens(&schema_fit::scaled(&schema(thread), 0)).unwrap()
}

#[test]
fn every_part_of_every_threads_schema_is_bounded() {
    // A property added without maxItems / maxLength / enum / bounds fails here, naming it.
    for thread in ThreadName::ALL {
        let longest = schema_fit::longest(&schema(thread));
        assert!(longest.is_ok(), "{thread}: {}", longest.unwrap_err());
    }
}

/// Table: (max_tokens, whether the whole schema as written fits). The default (1024)
/// does not hold the Librarian's and the Dreamer's whole schema: they are cut.
#[test]
fn the_longest_answer_fits_its_max_tokens() {
    for max_tokens in [
        16, 40, 64, 100, 128, 160, 200, 256, 300, 400, 512, 700, 1024, 1536, 2048, 4096,
    ] {
        for thread in ThreadName::ALL {
            let fitted = answer::fitted(thread, max_tokens).unwrap();
            let longest = schema_fit::longest(&fitted.schema).unwrap();
            let tokens = counted(&longest);
            assert_eq!(tokens, fitted.worst, "{thread} at {max_tokens}");
            if u64::from(max_tokens) >= floor(thread) {
                assert!(fitted.fits, "{thread} at {max_tokens}");
                assert!(
                    tokens <= u64::from(max_tokens),
                    "{thread} at {max_tokens}: the longest answer takes {tokens}"
                );
            } else {
                assert!(!fitted.fits, "{thread} at {max_tokens}: said to fit");
            }
            // The longest answer is one the reader takes (strings of letters, the
            // longest kind, the largest importance).
            let text = serde_json::to_string_pretty(&longest).unwrap();
            let read = answer::parse(thread, &text)
                .unwrap_or_else(|e| panic!("{thread} at {max_tokens}: {e}\n{text}"));
            let most = fitted.schema["properties"]["findings"]["maxItems"]
                .as_u64()
                .unwrap();
            assert_eq!(read.findings.len() as u64, most);
        }
    }
    // Where the default stands: the Watcher's whole schema fits 1600, not 1024.
    assert!(answer::fitted(Watcher, 1600).unwrap().per_mille == schema_fit::WHOLE);
    assert!(answer::fitted(Watcher, 1024).unwrap().per_mille < schema_fit::WHOLE);
    // The smallest max_tokens the config accepts (16) is below every thread's floor:
    // `doctor` says so.
    for thread in ThreadName::ALL {
        assert!(floor(thread) > 16, "{thread}: {}", floor(thread));
        assert!(floor(thread) <= 80, "{thread}: {}", floor(thread));
    }
}

/// At the default `max_tokens` every thread may still report findings, reinforce and
/// retire ids, link entries, with a summary of most of its length and a whole due date.
#[test]
fn the_default_schema_keeps_every_part_usable() {
    for thread in ThreadName::ALL {
        let s = schema_for(thread, 1024);
        let p = &s["properties"];
        assert!(
            p["findings"]["maxItems"].as_u64().unwrap() >= 3,
            "{thread}: {s}"
        );
        let item = &p["findings"]["items"]["properties"];
        assert!(item["summary"]["maxLength"].as_u64().unwrap() >= 120, "{s}");
        assert!(item["due"]["maxLength"].as_u64().unwrap() >= 25, "{s}");
        assert!(p["reinforce"]["maxItems"].as_u64().unwrap() >= 5, "{s}");
        assert!(p["retire"]["maxItems"].as_u64().unwrap() >= 3, "{s}");
        if thread.links() {
            assert!(p["links"]["maxItems"].as_u64().unwrap() >= 3, "{s}");
        }
    }
}

/// A random answer within `schema`: each array of up to its `maxItems`, each string of
/// up to its `maxLength` characters drawn from `alphabet`, each optional property
/// present or not.
fn instance(schema: &Value, rng: &mut impl FnMut(u64) -> u64, alphabet: &[char]) -> Value {
    if let Some(values) = schema.get("enum").and_then(Value::as_array) {
        return values[rng(values.len() as u64) as usize].clone();
    }
    match schema["type"].as_str().unwrap() {
        "object" => {
            let required: Vec<&str> = schema["required"]
                .as_array()
                .map(|r| r.iter().filter_map(Value::as_str).collect())
                .unwrap_or_default();
            let mut out = Map::new();
            for (name, sub) in schema["properties"].as_object().unwrap() {
                if required.contains(&name.as_str()) || rng(2) == 0 {
                    out.insert(name.clone(), instance(sub, rng, alphabet));
                }
            }
            Value::Object(out)
        }
        "array" => {
            let n = rng(schema["maxItems"].as_u64().unwrap() + 1);
            Value::Array(
                (0..n)
                    .map(|_| instance(&schema["items"], rng, alphabet))
                    .collect(),
            )
        }
        "string" => {
            let n = rng(schema["maxLength"].as_u64().unwrap() + 1);
            Value::String(
                (0..n)
                    .map(|_| alphabet[rng(alphabet.len() as u64) as usize])
                    .collect(),
            )
        }
        "integer" => {
            let (lo, hi) = (
                schema["minimum"].as_i64().unwrap(),
                schema["maximum"].as_i64().unwrap(),
            );
            json!(lo + rng(hi.abs_diff(lo) + 1).cast_signed())
        }
        "boolean" => json!(rng(2) == 0),
        other => panic!("a type the schema does not use: {other}"),
    }
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(64))]

    /// Any answer within the fitted schema (letters, digits, spaces and JSON's
    /// punctuation inside strings; not `\uXXXX` escapes) is counted at most at the
    /// worst case, which fits `max_tokens`.
    #[test]
    fn no_answer_within_the_schema_is_longer_than_its_worst_case(
        max_tokens in 80u32..4000,
        thread in prop::sample::select(vec![Watcher, Librarian, Oracle, Dreamer]),
        seed in any::<u64>(),
    ) {
        let fitted = answer::fitted(thread, max_tokens).unwrap();
        prop_assert!(fitted.fits);
        prop_assert!(fitted.worst <= u64::from(max_tokens));
        let mut state = seed | 1;
        let mut rng = |n: u64| {
            // xorshift: any draw in 0..n.
            state ^= state << 13;
            state ^= state >> 7;
            state ^= state << 17;
            if n == 0 { 0 } else { state % n }
        };
        let alphabet: Vec<char> = "abcXYZ019 .,:-_/é".chars().collect();
        for _ in 0..8 {
            let a = instance(&fitted.schema, &mut rng, &alphabet);
            // Multi-byte letters count by their bytes: é is two, one more than the
            // worst case's ASCII letter. Bound them by the characters instead.
            let ascii: String = serde_json::to_string_pretty(&a)
                .unwrap()
                .chars()
                .map(|c| if c.is_ascii() { c } else { 'x' })
                .collect();
            let tokens = (ascii.len() as u64).div_ceil(BYTES_PER_TOKEN);
            prop_assert!(tokens <= fitted.worst, "{} > {}: {}", tokens, fitted.worst, ascii);
        }
    }
}

/// Each thread is sent its schema fitted to its own `max_tokens`, in the request's
/// `response_format` and in its prompt alike.
#[test]
fn a_tick_sends_each_thread_the_schema_its_max_tokens_hold() {
    let mut tick = Tick::new()
        .thread(Watcher, "max_tokens = 200")
        .thread(Librarian, "max_tokens = 4096")
        .answer(Watcher, &found("Disk /home is 91% full", 7));
    let out = tick.run();
    out.expect_exit(0);
    for (thread, max_tokens) in [(Watcher, 200), (Librarian, 4096)] {
        let requests = tick.requests(thread);
        let request = requests
            .first()
            .unwrap_or_else(|| panic!("{thread} sent nothing"));
        let body: Value = serde_json::from_slice(&request.body).unwrap();
        assert_eq!(body["max_tokens"], max_tokens, "{body}");
        let sent = &body["response_format"]["json_schema"]["schema"];
        assert_eq!(sent, &schema_for(thread, max_tokens), "{thread}");
        let prompt = body["messages"]
            .as_array()
            .unwrap()
            .iter()
            .filter_map(|m| m["content"].as_str())
            .collect::<String>();
        assert!(
            prompt.contains(&schema_for(thread, max_tokens).to_string()),
            "{thread}: the prompt shows another schema"
        );
    }
    assert_eq!(
        schema_for(Librarian, 4096),
        schema(Librarian),
        "room for it all: the schema as written"
    );
    assert!(
        schema_fit::worst_tokens(&schema_for(Watcher, 200)).unwrap() <= 200,
        "cut to fit"
    );
    tick.verify();
}

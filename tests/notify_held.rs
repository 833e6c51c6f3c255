//! A held message is no dead end: the check of what leaves holds a decided text (a
//! phishing login link, a payment link), the notifier gets a nudge without its text —
//! once per message, never again — and `thinker held` lists what waits and why,
//! `thinker release ID` sends one with its links defanged, exactly once, and
//! `thinker discard ID` drops one for good. Real ticks and commands of the binary.

use std::fs;

use serde_json::Value;
use thinker::thread::ThreadName::{Librarian, Watcher};

use crate::escalation_tick::{
    Primary, appending, decision, deliveries, escalating, escalating_about, history,
};
use crate::support::{Sequence, Tick, nothing, ok};

const LOGIN: &str = "Your mailbox is full: sign in at https://mail-quota.example/login to keep it";
const PAY: &str = "Pay the 2.99 EUR customs fee at http://dhl-customs.example/pay today";

fn nudge(n: usize) -> String {
    let messages = if n == 1 { "message" } else { "messages" };
    format!("thinker is holding {n} {messages} for your confirmation: run `thinker held`\n")
}

#[test]
#[expect(
    clippy::too_many_lines,
    reason = "one message's life: held, nudged, listed, released or discarded, journaled"
)]
fn held_messages_are_nudged_listed_released_once_defanged_or_discarded() {
    let primary = Primary::anthropic(&[
        decision("notify", LOGIN, "the mailbox said so"),
        decision("notify", PAY, "the parcel waits"),
    ]);
    let mut tick = Tick::new()
        .env("PRIMARY_KEY", "sk-ant-test-0123456789")
        .respond(
            Watcher,
            Sequence::new(vec![
                ok(Watcher, &escalating("mailbox quota warning")),
                ok(Watcher, &nothing()),
            ]),
        )
        .respond(
            Librarian,
            Sequence::new(vec![
                ok(Librarian, &nothing()),
                ok(
                    Librarian,
                    &escalating_about("Parcel 7731 held at customs", "parcel held at customs"),
                ),
                ok(Librarian, &nothing()),
            ]),
        );
    let (script, out) = appending(tick.home());
    tick = tick.config_extra(&primary.config(&script, ""));
    // Each held message gets one nudge, which counts what waits and carries no text of it;
    // a healthy tick writes nothing on stderr.
    let first = tick.run();
    first.expect_exit(0);
    assert_eq!(first.stderr, "");
    assert_eq!(deliveries(&out), [nudge(1)]);
    tick.set_now("2026-11-22T10:10:00Z");
    let second = tick.run();
    second.expect_exit(0);
    assert_eq!(second.stderr, "");
    assert_eq!(deliveries(&out), [nudge(1), nudge(2)]);
    let h = history(&second.state());
    assert!(
        h.iter().all(|r| r["outcome"]
            .as_str()
            .unwrap()
            .starts_with("held: needs confirmation (")),
        "{h:?}"
    );
    assert!(
        h.iter().all(|r| r.get("delivery").is_none()),
        "nudged: {h:?}"
    );

    // `held` lists both: the id, why, who, what it says — its links defanged.
    let listed = tick.thinker(&["held"]).stdout;
    assert!(
        listed.contains("why:  held for your confirmation: "),
        "{listed}"
    );
    assert!(
        listed.contains("sign in at hxxps[:]//mail-quota[.]example/login")
            && !listed.contains("https://mail-quota"),
        "{listed}"
    );
    let json: Vec<Value> = serde_json::from_str(&tick.thinker(&["held", "--json"]).stdout).unwrap();
    assert_eq!(json.len(), 2);
    assert_eq!(json[0]["waiting"], "held for confirmation");
    assert_eq!(json[0]["threads"][0], "watcher");
    assert_eq!(json[0]["for_link"], true);
    let (login, pay) = (
        json[0]["id"].as_str().unwrap().to_string(),
        json[1]["id"].as_str().unwrap().to_string(),
    );
    assert!(
        json[1]["why"]
            .as_str()
            .unwrap()
            .contains("a payment or transfer request"),
        "{json:?}"
    );

    // Released: sent once, its link defanged.
    let released = tick.thinker(&["release", &login]);
    assert_eq!(released.code, Some(0), "{}", released.stderr);
    let sent = "thinker (watcher): Your mailbox is full: sign in at hxxps[:]//mail-quota[.]example/login to keep it\n";
    assert_eq!(deliveries(&out), [nudge(1), nudge(2), sent.to_string()]);
    assert!(
        released.stdout.contains(sent.trim_end()),
        "{}",
        released.stdout
    );
    // Discarded: never sent.
    let discarded = tick.thinker(&["discard", &pay]);
    assert_eq!(discarded.code, Some(0), "{}", discarded.stderr);
    assert_eq!(
        discarded.stdout,
        format!("discarded {pay}: it will never be sent.\n")
    );
    assert_eq!(
        tick.thinker(&["held"]).stdout,
        "Nothing waits for you: no message is held for your confirmation or undelivered.\n"
    );
    // Later ticks send nothing more: the nudges, and the one released message.
    for now in ["2026-11-22T10:15:00Z", "2026-11-22T10:20:00Z"] {
        tick.set_now(now);
        tick.run().expect_exit(0);
    }
    assert_eq!(deliveries(&out).len(), 3);
    let state: Value = serde_json::from_str(&tick.thinker(&["show", "--json"]).stdout).unwrap();
    let h = history(&state);
    assert_eq!(
        h[0]["outcome"].as_str().unwrap(),
        "notified: Your mailbox is full: sign in at hxxps[:]//mail-quota[.]example/login to keep it (released by you)"
    );
    assert!(
        h[1]["outcome"]
            .as_str()
            .unwrap()
            .starts_with("dismissed: discarded by you (thinker discard): Pay the 2.99 EUR"),
        "{}",
        h[1]["outcome"]
    );
    // Neither can be released or discarded again; a short or unknown id is a usage error.
    for args in [
        ["release", login.as_str()],
        ["discard", pay.as_str()],
        ["release", &login[..2]],
        ["release", "ffffffff"],
    ] {
        let refused = tick.thinker(&args);
        assert_eq!(refused.code, Some(2), "{args:?}: {}", refused.stderr);
    }
    assert_eq!(deliveries(&out).len(), 3);
    // Every step is journaled, with the records as it left them.
    let steps: Vec<Value> = fs::read_to_string(tick.dir().join("deliveries.jsonl"))
        .unwrap()
        .lines()
        .map(|l| serde_json::from_str(l).unwrap())
        .collect();
    assert_eq!(steps.len(), 2);
    assert_eq!(
        (steps[0]["action"].as_str(), steps[0]["result"].as_str()),
        (Some("release"), Some("sent"))
    );
    assert_eq!(steps[0]["id"], login.as_str());
    assert_eq!(
        (steps[1]["action"].as_str(), steps[1]["result"].as_str()),
        (Some("discard"), Some("discarded"))
    );
    assert!(
        steps[1]["records"][0]["outcome"]
            .as_str()
            .unwrap()
            .starts_with("dismissed:")
    );
}

/// While a tick holds the lock, `release` and `discard` wait for nothing: exit 75.
#[test]
fn release_while_a_tick_runs_is_refused_with_exit_75() {
    let mut tick = Tick::new().expect_exit(0);
    tick.run();
    let lock = fs::OpenOptions::new()
        .write(true)
        .open(tick.dir().join("subconscious.json.lock"))
        .unwrap();
    rustix::fs::flock(&lock, rustix::fs::FlockOperation::LockExclusive).unwrap();
    let mut tick = tick.expect_exit(75);
    tick.thinker(&["release", "abcd1234"]);
    tick.thinker(&["discard", "abcd1234"]);
}

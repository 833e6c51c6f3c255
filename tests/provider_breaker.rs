//! The circuit breaker (SPEC §9, issue 10) through the binary: a provider that refuses
//! the key is called `breaker_failures` ticks in a row, then not at all — said once on
//! stderr, journaled as skipped on every tick — until the key variable changes.

use serde_json::Value;
use thinker::thread::ThreadName;
use wiremock::ResponseTemplate;

use crate::support::Tick;

fn refusing() -> Tick {
    let mut tick = Tick::new()
        .local("api_key_env = \"LOCAL_KEY\"")
        .env("LOCAL_KEY", "sk-revoked-0123456789")
        .config_extra("");
    for thread in ThreadName::ALL {
        tick = tick.respond(
            thread,
            ResponseTemplate::new(401).set_body_string("{\"error\": \"invalid api key\"}"),
        );
    }
    tick
}

const OPENED: &str = "not called again until LOCAL_KEY or its config changes";

#[test]
fn a_refused_key_opens_the_breaker_and_a_new_key_closes_it() {
    let mut tick = refusing().local("breaker_failures = 2");
    let mut sent = Vec::new();
    let mut warned = Vec::new();
    for minute in [5, 10, 15, 20, 25] {
        tick.set_now(&format!("2026-11-22T10:{minute:02}:00Z"));
        let out = tick.run();
        sent.push(tick.all_requests());
        warned.push(out.stderr.matches(OPENED).count());
        let line: Value = out.journal().last().unwrap().clone();
        if minute >= 15 {
            out.expect_exit(0);
            for t in line["threads"].as_array().unwrap() {
                assert_eq!(t["status"], "skipped", "{t}");
                assert_eq!(t["skip"]["reason"], "breaker", "{t}");
                let detail = t["skip"]["detail"].as_str().unwrap();
                assert!(detail.contains("breaker open since"), "{t}");
            }
        } else {
            out.expect_exit(1);
        }
    }
    // Two ticks of four refused calls, then nothing reaches the server.
    assert_eq!(sent, [4, 8, 8, 8, 8]);
    // Said once, on the tick that opened it; cron mails that one tick.
    assert_eq!(warned, [0, 1, 0, 0, 0]);
    let ledger: Value =
        serde_json::from_str(&std::fs::read_to_string(tick.dir().join("ledger.json")).unwrap())
            .unwrap();
    let breaker = &ledger["breakers"]["local"];
    assert_eq!(breaker["failures"], 2);
    assert!(
        !ledger.to_string().contains("sk-revoked"),
        "nothing of the key is kept"
    );
    // A new key: called again at once.
    let mut tick = tick.env("LOCAL_KEY", "sk-fresh-9876543210");
    tick.set_now("2026-11-22T10:30:00Z");
    tick.run().expect_exit(1);
    assert_eq!(tick.all_requests(), 12);
}

#[test]
fn the_breaker_half_opens_after_breaker_hours() {
    let mut tick = refusing().local("breaker_failures = 1\nbreaker_hours = 2");
    tick.run().expect_exit(1);
    assert_eq!(tick.all_requests(), 4);
    tick.set_now("2026-11-22T12:04:00Z");
    tick.run().expect_exit(0);
    assert_eq!(tick.all_requests(), 4, "still open");
    tick.set_now("2026-11-22T12:05:00Z");
    let out = tick.run();
    out.expect_exit(1);
    assert_eq!(tick.all_requests(), 8, "two hours later it is tried again");
    assert_eq!(
        out.stderr.matches(OPENED).count(),
        1,
        "and opens again, saying so"
    );
}

/// The breaker's fingerprint of config and key is keyed with the state's secret, and a
/// ledger an older version wrote (an unkeyed 48-bit hash of config and key) keeps its
/// breaker across the upgrade: open it stays open — `doctor` says so before and after
/// the first tick — and the tick writes the keyed fingerprint in its place; a new key
/// still closes it.
#[test]
fn a_breaker_an_older_version_opened_stays_open_and_is_kept_under_the_keyed_fingerprint() {
    let mut tick = refusing().local("breaker_failures = 2");
    std::fs::write(tick.config_path(), tick.config_text()).unwrap();
    let config = thinker::config::Config::load(&tick.config_path()).unwrap();
    let legacy = thinker::untrusted::fence_id(&[
        &format!("{:?}", config.providers["local"]),
        "sk-revoked-0123456789",
    ]);
    std::fs::create_dir_all(tick.dir()).unwrap();
    std::fs::write(
        tick.dir().join("ledger.json"),
        format!(
            r#"{{"runs": 7, "day": "2026-11-22", "breakers": {{"local": {{"failures": 2, "opened": "2026-11-22T09:30:00Z", "reason": "HTTP 401", "fingerprint": "{legacy}"}}}}}}"#
        ),
    )
    .unwrap();
    let open = "FAIL breaker local: open since Sun 22 Nov 09:30";
    let doctor = tick.thinker(&["doctor", "--offline"]);
    assert!(doctor.stdout.contains(open), "{}", doctor.stdout);

    tick.run().expect_exit(0);
    assert_eq!(tick.all_requests(), 0, "an upgrade does not close it");
    let ledger: Value =
        serde_json::from_str(&std::fs::read_to_string(tick.dir().join("ledger.json")).unwrap())
            .unwrap();
    let kept = ledger["breakers"]["local"]["fingerprint"].as_str().unwrap();
    assert!(kept.starts_with("k1-") && kept != legacy, "{ledger}");
    assert_eq!(ledger["breakers"]["local"]["failures"], 2);
    assert!(
        !ledger.to_string().contains(&legacy),
        "the weak hash is gone"
    );
    let doctor = tick.thinker(&["doctor", "--offline"]);
    assert!(doctor.stdout.contains(open), "{}", doctor.stdout);

    let mut tick = tick.env("LOCAL_KEY", "sk-fresh-9876543210");
    tick.set_now("2026-11-22T10:10:00Z");
    tick.run().expect_exit(1);
    assert_eq!(tick.all_requests(), 4, "a new key closes it");
}

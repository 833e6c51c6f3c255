//! The headless path through the real Apprise CLI (`scripts/ci/e2e-apprise.sh` installs
//! a pinned one from PyPI; `.ci/run` sets `THINKER_APPRISE`): a tick's notification goes
//! through `apprise` as `notify_command` to a loopback receiver this test runs (Apprise's
//! `json://` target) — a 500 makes `apprise` exit 1, so the next tick tries again and it
//! is delivered exactly once — and `thinker notify --test` reaches ntfy's JSON shape
//! through Apprise's `ntfy://` target.

use serde_json::json;
use thinker::thread::ThreadName::Watcher;

use crate::escalation_tick::{Primary, decision, escalating, history};
use crate::notify_webhook::Receiver;
use crate::support::{Sequence, Tick, component, nothing, ok};

fn apprise() -> String {
    component(
        "THINKER_APPRISE",
        "install it with scripts/ci/e2e-apprise.sh and export THINKER_APPRISE=$(scripts/ci/e2e-apprise.sh build)",
    )
}

#[test]
#[ignore = "needs Apprise: THINKER_APPRISE"]
fn a_tick_delivers_through_the_real_apprise_cli_once_after_a_failed_try() {
    let apprise = apprise();
    let receiver = Receiver::start(vec![500, 200], None);
    let primary = Primary::anthropic(&[decision("notify", "The NAS is 97% full.", "backups fail")]);
    let mut tick = Tick::new()
        .env("PRIMARY_KEY", "sk-ant-test-0123456789")
        .respond(
            Watcher,
            Sequence::new(vec![
                ok(Watcher, &escalating("NAS disk almost full")),
                ok(Watcher, &nothing()),
            ]),
        );
    let command = format!(
        "notify_command = [\"{apprise}\", \"-t\", \"thinker\", \"json://127.0.0.1:{}/hook\"]",
        receiver.port
    );
    tick = tick.config_extra(&primary.config_with(&command, "notify_timeout_seconds = 60"));
    // The receiver answers 500: Apprise exits 1, nothing was delivered, tried again.
    let first = tick.run();
    first.expect_exit(0);
    let record = &history(&first.state())[0];
    assert_eq!(record["delivery"], "owed", "{record}");
    assert!(
        record["outcome"]
            .as_str()
            .unwrap()
            .contains("exited with code 1"),
        "{record}"
    );
    tick.set_now("2026-11-22T10:10:00Z");
    let second = tick.run();
    second.expect_exit(0);
    assert_eq!(
        history(&second.state())[0]["outcome"],
        "notified: The NAS is 97% full."
    );
    tick.set_now("2026-11-22T10:15:00Z");
    tick.run().expect_exit(0);
    let got = receiver.received();
    assert_eq!(got.len(), 2, "one failed try, one delivery: {got:?}");
    for r in &got {
        assert_eq!(r.path, "/hook");
        let body = r.json();
        assert_eq!(
            (&body["title"], &body["message"]),
            (
                &json!("thinker"),
                &json!("thinker (watcher): The NAS is 97% full.")
            ),
            "{body}"
        );
    }
}

#[test]
#[ignore = "needs Apprise: THINKER_APPRISE"]
fn notify_test_reaches_an_ntfy_server_through_apprise() {
    let apprise = apprise();
    let receiver = Receiver::start(vec![200], None);
    let mut tick = Tick::new()
        .config_extra(&format!(
            "[escalation]\nnotify_command = [\"{apprise}\", \"-t\", \"thinker\", \"ntfy://127.0.0.1:{}/nas-alerts\"]\nnotify_timeout_seconds = 60\n",
            receiver.port
        ))
        .expect_exit(0);
    let out = tick.thinker(&["notify", "--test"]);
    assert!(
        out.stdout
            .starts_with("SENT: the test message went out through notifier `"),
        "{}",
        out.stdout
    );
    let got = receiver.received();
    assert_eq!(got.len(), 1);
    let body = got[0].json();
    assert_eq!(
        (&body["topic"], &body["title"]),
        (&json!("nas-alerts"), &json!("thinker"))
    );
    assert!(
        body["message"]
            .as_str()
            .unwrap()
            .starts_with("thinker: a test message ("),
        "{body}"
    );
}

//! A lost message is loud: a notifier that exits 1 (as notify-send does under cron) is
//! tried again 1 and 2 ticks later, then given up — that tick exits 3 with one warning
//! naming the message's id and the way out, and only that tick — and from then on
//! `doctor` fails naming the error, the agent's block, the hook and the MCP `status` tool
//! say what could not be delivered, and `thinker held` lists it until `release` sends it
//! (once the notifier works: exactly once) or `discard` drops it. Real ticks of the
//! binary; the notifier a script that counts its runs.

use std::fs;
use std::path::Path;

use chrono::{DateTime, Utc};
use serde_json::Value;
use thinker::clock::Clock;
use thinker::mcp::{Allowances, Tools};
use thinker::thread::ThreadName::Watcher;

use crate::escalation_tick::{Primary, decision, deliveries, escalating, history, notifier};
use crate::support::{Sequence, Tick, nothing, ok, t};

const MESSAGE: &str = "The NAS is 97% full; tonight's backups will fail.";

/// The notifier of a desktop under cron: counts its runs, says why, exits 1.
const FAILING: &str = "cat > /dev/null\necho run >> OUT.tries\necho 'Cannot autolaunch D-Bus without X11 $DISPLAY' >&2\nexit 1";
/// The notifier once fixed: appends what it gets.
const WORKING: &str = "cat >> OUT\necho '<<end>>' >> OUT";

fn tries(out: &Path) -> usize {
    fs::read_to_string(format!("{}.tries", out.display()))
        .unwrap_or_default()
        .lines()
        .count()
}

/// `thinker hook claude-code` on a `SessionStart`: the context it adds.
pub(crate) fn session_start(tick: &mut Tick) -> String {
    let out = tick.thinker_with_stdin(
        &["hook", "claude-code"],
        br#"{"hook_event_name": "SessionStart", "session_id": "s-1", "source": "startup"}"#,
    );
    assert_eq!(out.code, Some(0));
    if out.stdout.is_empty() {
        return String::new();
    }
    let v: Value = serde_json::from_str(&out.stdout).unwrap();
    v["hookSpecificOutput"]["additionalContext"]
        .as_str()
        .unwrap()
        .to_string()
}

/// The MCP tools on `dir` at `now` (as `thinker mcp` serves them).
pub(crate) fn tools(dir: &Path, now: &str) -> Tools {
    let now: DateTime<Utc> = t(now);
    Tools {
        state_dir: dir.to_path_buf(),
        allowances: Allowances::from_config(None),
        clock: Box::new(move || Clock::utc(now)),
        recall: thinker::recollect::RecallSettings::default(),
        origins: thinker::recall::Origins::default(),
    }
}

#[test]
#[expect(
    clippy::too_many_lines,
    reason = "one lost message's whole life, in order: tries, alarm, doctor, agent, release"
)]
fn a_notifier_that_exits_1_is_retried_then_given_up_loudly_and_released_once_fixed() {
    let primary = Primary::anthropic(&[decision("notify", MESSAGE, "backups fail")]);
    let mut tick = Tick::new()
        .env("PRIMARY_KEY", "sk-ant-test-0123456789")
        .respond(
            Watcher,
            Sequence::new(vec![
                ok(Watcher, &escalating("NAS disk almost full")),
                ok(Watcher, &nothing()),
            ]),
        );
    let (script, out) = notifier(tick.home(), FAILING);
    tick = tick.config_extra(&primary.config(&script, "delivery_attempts = 3"));
    // Runs 1 and 2 try and fail: tried again later, nothing on stderr, exit 0.
    for (now, tried) in [("2026-11-22T10:05:00Z", 1), ("2026-11-22T10:10:00Z", 2)] {
        tick.set_now(now);
        let run = tick.run();
        run.expect_exit(0);
        assert_eq!(run.stderr, "", "{now}: a try left is not an alarm");
        assert_eq!(tries(&out), tried, "{now}");
        let record = &history(&run.state())[0];
        assert_eq!(record["delivery"], "owed", "{now}: {record}");
    }
    // Run 3: the backoff (2 ticks after the second try) is not over.
    tick.set_now("2026-11-22T10:15:00Z");
    tick.run().expect_exit(0);
    assert_eq!(tries(&out), 2, "not due yet");
    // Run 4: the last try fails: given up, exit 3, one warning with the way out.
    tick.set_now("2026-11-22T10:20:00Z");
    let lost = tick.run();
    lost.expect_exit(3);
    assert_eq!(tries(&out), 3);
    let record = history(&lost.state())[0].clone();
    assert_eq!(record["delivery"], "undelivered");
    assert_eq!(record["sends"], 3);
    let outcome = record["outcome"].as_str().unwrap();
    assert!(
        outcome.contains("exited with code 1: Cannot autolaunch D-Bus without X11")
            && outcome.contains("gave up after 3 tries"),
        "{outcome}"
    );
    let id = thinker::escalation::held::id_of(&serde_json::from_value(record.clone()).unwrap());
    assert!(
        lost.stderr.contains("thinker could not deliver a message")
            && lost
                .stderr
                .contains(&format!("`thinker release {id}` sends it")),
        "{}",
        lost.stderr
    );
    assert_eq!(lost.stderr.lines().count(), 1, "{}", lost.stderr);
    // A later tick does not try again, nor exit non-zero again.
    tick.set_now("2026-11-22T10:25:00Z");
    let after = tick.run();
    after.expect_exit(0);
    assert_eq!((tries(&out), after.stderr.as_str()), (3, ""));
    assert_eq!(primary.requests().len(), 1);

    // `doctor` fails, naming the error and the way out.
    let doctor = tick.thinker(&["doctor", "--offline"]);
    assert_eq!(doctor.code, Some(1), "{}", doctor.stdout);
    let line = doctor
        .stdout
        .lines()
        .find(|l| l.starts_with("FAIL notifier:"))
        .unwrap_or_else(|| panic!("{}", doctor.stdout))
        .to_string();
    assert!(
        line.contains("1 message could not be delivered")
            && line.contains("Cannot autolaunch D-Bus without X11")
            && line.contains("thinker notify --test")
            && line.contains(&format!("thinker release {id}")),
        "{line}"
    );
    // The agent is told, with the text: it may be the only way left to the user.
    let block = tick.thinker(&["show", "--format", "prompt"]).stdout;
    assert!(
        block.contains("could not deliver") && block.contains(MESSAGE) && block.contains(&id),
        "{block}"
    );
    let context = session_start(&mut tick);
    assert!(context.contains(MESSAGE), "{context}");
    let status = tools(tick.dir(), "2026-11-22T10:30:00Z").status();
    assert!(
        status.text.contains("could not deliver to the user") && status.text.contains(&id),
        "{}",
        status.text
    );
    let json = status.json.unwrap();
    assert_eq!(json["undelivered"][0]["id"], id.as_str());
    assert_eq!(json["undelivered"][0]["text"], MESSAGE);
    // `held` lists it; a release while the notifier still fails sends nothing, exit 1,
    // and it still waits.
    let held = tick.thinker(&["held"]).stdout;
    assert!(
        held.starts_with(&format!("{id}  notify by watcher")),
        "{held}"
    );
    assert!(held.contains("why:  undelivered: notifier"), "{held}");
    let refused = tick.thinker(&["release", &id]);
    assert_eq!(refused.code, Some(1), "{}", refused.stderr);
    assert!(
        refused.stderr.contains("was not sent"),
        "{}",
        refused.stderr
    );
    assert_eq!(tries(&out), 4);
    assert!(tick.thinker(&["held"]).stdout.contains(&id));

    // Fixed: released, delivered exactly once; doctor is content again.
    notifier(tick.home(), WORKING);
    let released = tick.thinker(&["release", &id[..5]]);
    assert_eq!(released.code, Some(0), "{}", released.stderr);
    assert!(
        released
            .stdout
            .starts_with(&format!("sent {id} through notifier `")),
        "{}",
        released.stdout
    );
    assert_eq!(
        deliveries(&out),
        [format!("thinker (watcher): {MESSAGE}\n")]
    );
    let state = tick.thinker(&["show", "--json"]).stdout;
    let state: Value = serde_json::from_str(&state).unwrap();
    let record = &history(&state)[0];
    assert_eq!(
        record["outcome"].as_str().unwrap(),
        format!("notified: {MESSAGE} (released by you)")
    );
    assert!(
        record.get("delivery").is_none() && record.get("sends").is_none(),
        "{record}"
    );
    let doctor = tick.thinker(&["doctor", "--offline"]).stdout;
    assert!(doctor.contains("ok   notifier:"), "{doctor}");
    assert_eq!(
        tick.thinker(&["held"]).stdout,
        "Nothing waits for you: no message is held for your confirmation or undelivered.\n"
    );
    tick.set_now("2026-11-22T10:35:00Z");
    tick.run().expect_exit(0);
    assert_eq!(deliveries(&out).len(), 1, "delivered once");
    let again = tick.thinker(&["release", &id]);
    assert_eq!(again.code, Some(2), "{}", again.stderr);
    assert!(
        again.stderr.contains("no message waits with id"),
        "{}",
        again.stderr
    );
    // Every step of the commands is journaled.
    let steps: Vec<Value> = fs::read_to_string(tick.dir().join("deliveries.jsonl"))
        .unwrap()
        .lines()
        .map(|l| serde_json::from_str(l).unwrap())
        .collect();
    let results: Vec<(&str, &str)> = steps
        .iter()
        .map(|s| (s["action"].as_str().unwrap(), s["result"].as_str().unwrap()))
        .collect();
    assert_eq!(results, [("release", "not sent"), ("release", "sent")]);
}

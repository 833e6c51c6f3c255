//! No message is ever delivered twice, across retries and kills: ticks whose every
//! escalation is decided `notify` with a unique delivery id (`dlv-<n>`), through a
//! notifier that reports every third try as failed (nothing delivered: tried again on a
//! later tick) and otherwise records the id and lingers a little, are SIGKILLed at seeded
//! random moments until 100 kills have landed (a tick that finished before its kill is
//! counted as a tick; at most four runs a kill) — then run whole until nothing is owed.
//!
//! Checked: no id reached the notifier twice; every record settled `notified:` reached it
//! exactly once; nothing is left `started` or owed; the state loads. The kill delays are
//! fractions of 1.5 × the quickest of three whole ticks, from a seeded generator
//! (`THINKER_KILL_SEED`, printed; `THINKER_KILL_COUNT` sets how many kills must land).
//! How many ticks finish before their kill depends on the machine's load, so the loop
//! counts landed kills rather than asserting a share of them.

use std::collections::BTreeMap;
use std::fs;
use std::os::unix::fs::PermissionsExt;
use std::path::Path;
use std::sync::Arc;
use std::sync::atomic::{AtomicUsize, Ordering};
use std::time::{Duration, Instant};

use serde_json::Value;
use wiremock::matchers::{method, path};
use wiremock::{Mock, MockServer, Request, Respond, ResponseTemplate};

use crate::escalation_tick::{decision, tool_use};
use crate::storage_crash::Unique;
use crate::support::{SEED, Tick};

/// The primary model: `notify` with a unique delivery id on every call.
struct Decisions(Arc<AtomicUsize>);

impl Respond for Decisions {
    fn respond(&self, _: &Request) -> ResponseTemplate {
        let n = self.0.fetch_add(1, Ordering::SeqCst) + 1;
        tool_use(&decision(
            "notify",
            &format!("dlv-{n} needs you"),
            "it matters",
        ))
    }
}

/// splitmix64: the kill delays of a seed.
struct Rng(u64);

impl Rng {
    fn next(&mut self) -> u64 {
        self.0 = self.0.wrapping_add(0x9E37_79B9_7F4A_7C15);
        let mut z = self.0;
        z = (z ^ (z >> 30)).wrapping_mul(0xBF58_476D_1CE4_E5B9);
        z = (z ^ (z >> 27)).wrapping_mul(0x94D0_49BB_1331_11EB);
        z ^ (z >> 31)
    }
}

fn env_or(var: &str, default: u64) -> u64 {
    std::env::var(var)
        .ok()
        .and_then(|v| v.trim().parse().ok())
        .unwrap_or(default)
}

/// The ids the notifier recorded, in order.
fn delivered(out: &Path) -> Vec<String> {
    fs::read_to_string(out)
        .unwrap_or_default()
        .lines()
        .filter(|l| !l.is_empty())
        .map(str::to_string)
        .collect()
}

fn state(dir: &Path) -> Value {
    thinker::storage::StateDir::at(dir)
        .load()
        .expect("the state loads after any kill");
    serde_json::from_str(&fs::read_to_string(dir.join("subconscious.json")).unwrap()).unwrap()
}

#[test]
#[expect(
    clippy::too_many_lines,
    reason = "the setup, the kill loop and the checks after it read best in one place"
)]
fn no_message_is_delivered_twice_across_retries_and_kills() {
    let seed = env_or("THINKER_KILL_SEED", 31);
    let kills = env_or("THINKER_KILL_COUNT", 100);
    eprintln!("[notify_kills] THINKER_KILL_SEED={seed} THINKER_KILL_COUNT={kills}");
    let rt = tokio::runtime::Builder::new_current_thread()
        .enable_all()
        .build()
        .unwrap();
    let primary = rt.block_on(MockServer::start());
    rt.block_on(
        Mock::given(method("POST"))
            .and(path("/v1/messages"))
            .respond_with(Decisions(Arc::new(AtomicUsize::new(0))))
            .mount(&primary),
    );
    let answers = Unique::new(1);
    let mut tick = answers
        .mount(Tick::new().state(SEED))
        .env("PRIMARY_KEY", "sk-ant-test-0123456789");
    let (out, tries) = (tick.home().join("delivered.txt"), tick.home().join("tries"));
    let script = tick.home().join("notify.sh");
    fs::write(
        &script,
        format!(
            "#!/bin/sh\nmsg=$(cat)\necho x >> '{tries}'\nn=$(wc -l < '{tries}')\nif [ $((n % 3)) -eq 0 ]; then echo 'busy, try later' >&2; exit 1; fi\nprintf '%s\\n' \"$msg\" | grep -o 'dlv-[0-9]*' >> '{out}'\nsleep 0.02\n",
            tries = tries.display(),
            out = out.display()
        ),
    )
    .unwrap();
    fs::set_permissions(&script, fs::Permissions::from_mode(0o755)).unwrap();
    tick = tick.config_extra(&format!(
        "[journal]\nrotate = \"never\"\n\n[providers.primary]\nkind = \"anthropic\"\nbase_url = \"{}\"\napi_key_env = \"PRIMARY_KEY\"\nretries = 0\n\n[escalation]\nmodel = \"primary/claude-opus-5\"\nnotify_command = [\"{}\"]\nnotify_timeout_seconds = 10\ndaily_cap = 1000\n",
        primary.uri(),
        script.display()
    ));
    let dir = tick.dir().to_path_buf();
    let mut step = 0i64;
    let mut next_now = || {
        step += 1;
        thinker::timestamp::format(crate::support::now() + chrono::TimeDelta::minutes(5 * step))
    };
    // The window: the quickest of three whole ticks (each with a delivery).
    let mut quickest = Duration::MAX;
    for _ in 0..3 {
        tick.set_now(&next_now());
        let started = Instant::now();
        let status = tick.command(&["tick"]).status().unwrap();
        quickest = quickest.min(started.elapsed());
        assert_eq!(status.code(), Some(0), "a whole tick");
    }
    let window = quickest.as_micros() as u64 * 3 / 2;
    let mut rng = Rng(seed);
    let begun = Instant::now();
    let mut tally: BTreeMap<&str, u64> = BTreeMap::new();
    let mut runs = 0;
    while tally.get("killed").copied().unwrap_or(0) < kills && runs < 4 * kills {
        runs += 1;
        tick.set_now(&next_now());
        let mut child = tick
            .command(&["tick"])
            .stdout(std::process::Stdio::null())
            .stderr(std::process::Stdio::null())
            .spawn()
            .unwrap();
        std::thread::sleep(Duration::from_micros(rng.next() % window.max(1)));
        let _ = child.kill();
        let status = child.wait().unwrap();
        *tally
            .entry(if status.code().is_none() {
                "killed"
            } else {
                "finished"
            })
            .or_default() += 1;
        // After every run: no id twice.
        let ids = delivered(&out);
        let mut once = std::collections::BTreeSet::new();
        for id in &ids {
            assert!(
                once.insert(id),
                "{id} delivered twice (seed {seed}): {ids:?}"
            );
        }
        let h = state(&dir)["escalation_history"].clone();
        for r in h.as_array().into_iter().flatten() {
            match r["delivery"].as_str() {
                Some("unconfirmed") => *tally.entry("unconfirmed seen").or_default() += 1,
                Some("owed") => *tally.entry("owed seen").or_default() += 1,
                _ => {}
            }
        }
    }
    eprintln!(
        "[notify_kills] window {window} µs; kills done in {:?}",
        begun.elapsed()
    );
    // The notifier works from now on: whole ticks until nothing is owed any more (the
    // backoff is at most 8 ticks; each tick's new message goes out at once).
    fs::write(
        &script,
        format!(
            "#!/bin/sh\nmsg=$(cat)\necho x >> '{tries}'\nprintf '%s\\n' \"$msg\" | grep -o 'dlv-[0-9]*' >> '{out}'\n",
            tries = tries.display(),
            out = out.display()
        ),
    )
    .unwrap();
    for _ in 0..10 {
        tick.set_now(&next_now());
        tick.command(&["tick"]).status().unwrap();
    }
    let ids = delivered(&out);
    let unique: std::collections::BTreeSet<&String> = ids.iter().collect();
    assert_eq!(
        unique.len(),
        ids.len(),
        "an id delivered twice (seed {seed}): {ids:?}"
    );
    let s = state(&dir);
    for r in s["escalation_history"].as_array().unwrap() {
        let delivery = r["delivery"].as_str();
        assert!(
            !matches!(delivery, Some("started" | "owed")),
            "left {delivery:?} after whole ticks: {r}"
        );
        let outcome = r["outcome"].as_str().unwrap_or_default();
        if let Some(text) = outcome.strip_prefix("notified: ")
            && delivery.is_none()
        {
            let id = text.split(' ').next().unwrap();
            assert_eq!(
                ids.iter().filter(|d| *d == id).count(),
                1,
                "{id} settled notified, delivered once (seed {seed})"
            );
        }
    }
    let attempts = fs::read_to_string(&tries)
        .unwrap_or_default()
        .lines()
        .count();
    eprintln!(
        "[notify_kills] {tally:?}; {} tries, {} delivered, {} calls",
        attempts,
        ids.len(),
        answers.calls()
    );
    assert!(
        tally.get("killed").copied().unwrap_or(0) >= kills,
        "{kills} kills landed in {runs} runs: {tally:?}"
    );
    assert!(ids.len() >= 10, "deliveries happened: {ids:?}");
    assert!(
        attempts > ids.len(),
        "some tries failed and were tried again"
    );
}

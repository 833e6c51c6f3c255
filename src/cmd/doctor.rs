//! `thinker doctor [--offline] [--json]`: checks that thinker can work here, one line per
//! check (`ok` / `warn` / `FAIL`, what and the way out), then a summary line; exit 0 when
//! nothing failed, 1 otherwise.
//!
//! Owns the checks and their wording: the config (a config error is a `FAIL` line, not an
//! abort), each provider's key variable (present or not; never its value), each provider
//! reached with a one-token request (not with `--offline`; a `replay` provider: its
//! directory readable), each thread's sources gathered one by one (status, size, time),
//! the state, the tick lock (tried without waiting, released at once), the journal (last
//! tick, failure streaks, skips by reason, unreadable lines), the ledger (breakers, budget
//! left today), the escalation settings and the quiet tick. A `files` source whose glob
//! matches no file is a `warn` (every other kind fails on a missing path). The levels are
//! coloured as `show` and `log` colour (the `paint` module; `--color`, on a terminal
//! unless `NO_COLOR`).
//!
//! The journal's and the ledger's lines only format [`crate::health::Health`], computed
//! once with the fingerprints of the keys as this environment holds them (what the tick
//! will check its breakers against); the notifier's check is
//! [`crate::escalation::notify::check`].
//!
//! Must not: write to the state directory (the lock file excepted, which `lock` creates),
//! wait for the lock, print a key's value, read the real clock (the context's clock), or
//! compute health itself (breaker phases, streaks, the budgets' day: `crate::health`).

use std::collections::BTreeMap;
use std::fmt::Write as _;
use std::path::Path;
use std::time::{Duration, Instant};

use serde::Serialize;

use crate::cli::DoctorArgs;
use crate::clock::{self, Clock};
use crate::cmd::Context;
use crate::config::{Config, ModelRef, ProviderConfig, ProviderKind, StructuredOutput};
use crate::error::{EXIT_FAILED, EXIT_OK, Error};
use crate::escalation::notify::{self, Notifier, Readiness};
use crate::health::{self, Allowances, BreakerHealth, Health, Keys};
use crate::paint::{GREEN, Painter, RED, YELLOW};
use crate::provider::breaker::Phase;
use crate::provider::{CallError, CallRequest, Providers};
use crate::runtime;
use crate::sources::{self, GatherContext, SourceKind};
use crate::state::State;
use crate::storage::{StateDir, StorageError};
use crate::thread::ThreadName;

/// How a check came out.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Serialize)]
#[serde(rename_all = "lowercase")]
pub enum Level {
    Ok,
    Warn,
    Fail,
}

impl Level {
    /// The word at the start of the line, padded to one width.
    fn word(self) -> &'static str {
        match self {
            Level::Ok => "ok  ",
            Level::Warn => "warn",
            Level::Fail => "FAIL",
        }
    }

    /// Its colour, as `show` and `log` colour their statuses.
    fn colour(self) -> &'static str {
        match self {
            Level::Ok => GREEN,
            Level::Warn => YELLOW,
            Level::Fail => RED,
        }
    }
}

/// One check's line.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct Check {
    /// What was checked: `config`, `key groq`, `provider groq`, `source watcher/mail`…
    pub check: String,
    pub level: Level,
    /// What was found, and for `warn` / `FAIL` what to do.
    pub message: String,
}

/// Every check, in order.
#[derive(Debug, Default, Serialize)]
pub struct Report {
    pub checks: Vec<Check>,
}

impl Report {
    fn push(&mut self, check: impl Into<String>, level: Level, message: impl Into<String>) {
        self.checks.push(Check {
            check: check.into(),
            level,
            message: message.into(),
        });
    }

    fn count(&self, level: Level) -> usize {
        self.checks.iter().filter(|c| c.level == level).count()
    }

    /// Whether any check failed.
    pub fn failed(&self) -> bool {
        self.count(Level::Fail) > 0
    }

    /// The summary line.
    pub fn summary(&self) -> String {
        let (ok, warn, fail) = (
            self.count(Level::Ok),
            self.count(Level::Warn),
            self.count(Level::Fail),
        );
        let verdict = if fail > 0 {
            "something is wrong: fix the FAIL lines above"
        } else if warn > 0 {
            "thinker can work; the warn lines say what could be better"
        } else {
            "all is well"
        };
        format!("{ok} ok, {warn} warn, {fail} FAIL: {verdict}")
    }

    /// The lines for people, summary last; the levels in colour when `p` says so.
    pub fn text(&self, p: Painter) -> String {
        let mut out = String::new();
        for c in &self.checks {
            let _ = writeln!(
                out,
                "{} {}: {}",
                p.paint(c.level.colour(), c.level.word()),
                c.check,
                c.message
            );
        }
        out + &p.bold(&self.summary()) + "\n"
    }
}

#[derive(Serialize)]
struct JsonReport<'a> {
    checks: &'a [Check],
    ok: usize,
    warn: usize,
    fail: usize,
}

pub fn run(ctx: &mut Context<'_>, args: &DoctorArgs) -> Result<u8, Error> {
    let report = examine(ctx, args.offline)?;
    if args.json {
        let json = JsonReport {
            checks: &report.checks,
            ok: report.count(Level::Ok),
            warn: report.count(Level::Warn),
            fail: report.count(Level::Fail),
        };
        let text = crate::error::to_json_pretty(&json, "the doctor's report")?;
        ctx.stdout(text.as_bytes())?;
    } else {
        let painter = Painter {
            color: ctx.use_color(args.color),
        };
        ctx.stdout(report.text(painter).as_bytes())?;
    }
    Ok(if report.failed() {
        EXIT_FAILED
    } else {
        EXIT_OK
    })
}

/// Runs every check (no network with `offline`).
pub fn examine(ctx: &Context<'_>, offline: bool) -> Result<Report, Error> {
    let mut report = Report::default();
    let config = check_config(ctx, &mut report)?;
    let state_dir = match ctx.state_dir(config.as_ref()) {
        Ok(dir) => dir,
        Err(e) => {
            report.push("state", Level::Fail, e.to_string());
            return Ok(report);
        }
    };
    let dir = StateDir::at(&state_dir);
    let health = examine_health(config.as_ref(), &dir, ctx.clock);
    if let Some(config) = &config {
        check_keys(config, &mut report);
        if offline {
            report.push(
                "providers",
                Level::Ok,
                "not called (--offline); run `thinker doctor` to send each a one-token request",
            );
            // A replay provider is files, not network: checked all the same.
            for (name, provider) in &config.providers {
                if provider.kind == ProviderKind::Replay {
                    let (what, level, message) = replay_dir(&format!("provider {name}"), provider);
                    report.push(what, level, message);
                }
            }
        } else {
            runtime::block_on(check_providers(config, &mut report))?;
        }
    }
    let state = check_state(&dir, &mut report);
    if let Some(config) = &config {
        let state = state.clone().unwrap_or_default();
        runtime::block_on(check_sources(config, &state, &dir, ctx.clock, &mut report))?;
    }
    check_lock(&dir, &mut report);
    check_journal(&health, ctx.clock, &mut report);
    check_memory(&health, ctx.clock, &mut report);
    // What left today; and, when `[recall] embeddings` may be sent nothing (SPEC §9),
    // that recall stays lexical.
    let withheld = config
        .as_ref()
        .and_then(|c| c.recall.embeddings.as_ref())
        .and_then(crate::embeddings::EmbeddingsSettings::withheld_note);
    match (
        crate::cmd::shared::egress_today(dir.path(), &ctx.clock),
        withheld,
    ) {
        (Ok(line), None) => report.push("egress", Level::Ok, line),
        (Ok(line), Some(note)) => report.push("egress", Level::Warn, format!("{line}; {note}")),
        (Err(e), _) => report.push("egress", Level::Warn, e.to_string()),
    }
    if let Some(config) = &config {
        check_ledger(&dir, &health, config, ctx.clock, &mut report);
        check_escalation(config, &health, &mut report);
        check_quiet(config, &mut report);
        check_guard(config, &mut report);
        let room = crate::answer::Room::of(ThreadName::ALL.into_iter().filter_map(|t| {
            let c = config.thread(t).filter(|c| c.enabled)?;
            Some((t, c.max_tokens))
        }));
        let level = if room.short() { Level::Warn } else { Level::Ok };
        report.push("answer schema", level, room.to_string());
    }
    Ok(report)
}

/// The health of `dir` as the tick will see it: the keys' fingerprints read from this
/// environment, as the tick reads them (unknown without a config).
fn examine_health(config: Option<&Config>, dir: &StateDir, clock: Clock) -> Health {
    let keys = config.map_or(Keys::Unknown, |c| {
        // Keyed with the state's secret, as the tick keys them (none yet: only an older
        // version's fingerprint can match).
        let secret = dir.redaction_key().ok().flatten();
        Keys::Known(crate::provider::config::fingerprints(
            &c.providers,
            secret.as_ref(),
            |var| std::env::var(var).ok(),
        ))
    });
    health::read(dir.path(), &Allowances::from_config(config), &keys, &clock)
}

/// The config: valid, with at least one thread enabled.
fn check_config(ctx: &Context<'_>, report: &mut Report) -> Result<Option<Config>, Error> {
    let path = ctx.config_path()?;
    match Config::load(&path) {
        Ok(config) => {
            if let Err(e) = config.check_threads() {
                report.push("config", Level::Fail, e.to_string());
                return Ok(Some(config));
            }
            let threads = config
                .threads
                .iter()
                .flatten()
                .filter(|t| t.enabled)
                .count();
            report.push(
                "config",
                Level::Ok,
                format!(
                    "{} is valid ({threads} thread{} enabled, {} provider{})",
                    path.display(),
                    plural(threads),
                    config.providers.len(),
                    plural(config.providers.len())
                ),
            );
            Ok(Some(config))
        }
        Err(e) => {
            report.push("config", Level::Fail, e.to_string());
            Ok(None)
        }
    }
}

fn plural(n: usize) -> &'static str {
    if n == 1 { "" } else { "s" }
}

/// The models that will be called: enabled threads' (model, then fallbacks), then the
/// escalation's.
fn used_models(config: &Config) -> Vec<ModelRef> {
    config
        .threads
        .iter()
        .flatten()
        .filter(|t| t.enabled)
        .flat_map(|t| t.models.iter().cloned())
        .chain(config.escalation.models.iter().cloned())
        .collect()
}

/// Each provider's key variable: set or not (never its value).
fn check_keys(config: &Config, report: &mut Report) {
    let used = used_models(config);
    for (name, provider) in &config.providers {
        let Some(var) = &provider.api_key_env else {
            continue;
        };
        let what = format!("key {name}");
        match std::env::var_os(var) {
            Some(v) if !v.is_empty() => report.push(what, Level::Ok, format!("{var} is set")),
            found => {
                let state = if found.is_some() { "empty" } else { "not set" };
                let level = if used.iter().any(|m| &m.provider == name) {
                    Level::Fail
                } else {
                    Level::Warn
                };
                report.push(
                    what,
                    level,
                    format!(
                        "{var} is {state}: export it where thinker runs (for cron: the env file `thinker cron` names), or remove provider `{name}`"
                    ),
                );
            }
        }
    }
}

/// Each provider asked for one token with the first model that uses it.
async fn check_providers(config: &Config, report: &mut Report) {
    let used = used_models(config);
    // No schema, no retries, a short timeout: a question, not a thread's call.
    let probes: BTreeMap<String, ProviderConfig> = config
        .providers
        .iter()
        .map(|(name, p)| {
            let mut p = p.clone();
            p.structured_output = StructuredOutput::None;
            p.retries = 0;
            p.timeout = p.timeout.min(Duration::from_secs(20));
            (name.clone(), p)
        })
        .collect();
    let providers = match Providers::new(probes) {
        Ok(p) => p,
        Err(e) => {
            report.push("providers", Level::Fail, e.to_string());
            return;
        }
    };
    let request = CallRequest {
        system: String::new(),
        prompt: "Say ok.".into(),
        schema: serde_json::Value::Null,
        schema_name: "doctor".into(),
        max_tokens: 1,
        temperature: 0.0,
        sequence: 1,
    };
    let calls = config.providers.iter().map(|(name, provider)| {
        let model = used.iter().find(|m| &m.provider == name).cloned();
        let (providers, request) = (&providers, &request);
        async move {
            let what = format!("provider {name}");
            if provider.kind == ProviderKind::Replay {
                return replay_dir(&what, provider);
            }
            let Some(model) = model else {
                return (
                    what,
                    Level::Ok,
                    "not used by any enabled thread or the escalation; not called".into(),
                );
            };
            let started = Instant::now();
            let result = providers.call(&model, request).await;
            let took = crate::timestamp::millis(started.elapsed());
            let (level, message) = reached(&model, result.err(), took);
            (what, level, message)
        }
    });
    for (what, level, message) in futures::future::join_all(calls).await {
        report.push(what, level, message);
    }
}

/// What a one-token call says about the provider.
fn reached(model: &ModelRef, error: Option<CallError>, took: u64) -> (Level, String) {
    match error {
        // Cut at one token, or an empty or odd answer: the server took the key and answered.
        None
        | Some(
            CallError::Truncated { .. }
            | CallError::BadResponse { .. }
            | CallError::Unreadable { .. },
        ) => (Level::Ok, format!("{model} answered in {took} ms")),
        Some(e @ CallError::RateLimited { .. }) => (
            Level::Warn,
            format!("{e}; it answers, but is rate limited now: lower requests_per_minute or wait"),
        ),
        Some(e @ CallError::MissingKey { .. }) => (Level::Fail, format!("not called: {e}")),
        Some(
            e @ CallError::Http {
                status: 401 | 403, ..
            },
        ) => (
            Level::Fail,
            format!("{e}; the key was refused: check the key variable's value"),
        ),
        Some(e @ CallError::Http { status: 404, .. }) => (
            Level::Fail,
            format!("{e}; check the model name and base_url"),
        ),
        Some(e) => (
            Level::Fail,
            format!("{e}; check base_url, the network, and that the server runs"),
        ),
    }
}

/// A replay provider's directory: readable.
fn replay_dir(what: &str, provider: &ProviderConfig) -> (String, Level, String) {
    let Some(dir) = &provider.replay_dir else {
        return (
            what.into(),
            Level::Fail,
            "replay provider without a dir".into(),
        );
    };
    match std::fs::read_dir(dir) {
        Ok(entries) => {
            let n = entries.flatten().count();
            (
                what.into(),
                Level::Ok,
                format!("replay directory readable ({n} file{})", plural(n)),
            )
        }
        Err(e) => (
            what.into(),
            Level::Fail,
            format!(
                "cannot read the replay directory {}: {e}; fix its `dir`",
                dir.display()
            ),
        ),
    }
}

/// The state file: readable and valid.
fn check_state(dir: &StateDir, report: &mut Report) -> Option<State> {
    if !dir.path().exists() {
        report.push(
            "state",
            Level::Warn,
            format!(
                "no state directory at {} yet: the first tick creates it (or run `thinker init`)",
                dir.path().display()
            ),
        );
        return None;
    }
    match dir.load() {
        Ok(state) => {
            let n = state.active_threads.len()
                + state.patterns.len()
                + state.hunches.len()
                + state.insights.len();
            report.push(
                "state",
                Level::Ok,
                format!("readable, {n} entr{}", if n == 1 { "y" } else { "ies" }),
            );
            Some(state)
        }
        Err(e) => {
            report.push("state", Level::Fail, e.to_string());
            None
        }
    }
}

/// Each enabled thread's sources, gathered one by one: status, size, time.
async fn check_sources(
    config: &Config,
    state: &State,
    dir: &StateDir,
    clock: Clock,
    report: &mut Report,
) {
    let ctx = GatherContext {
        state,
        state_dir: dir.path(),
        last_tick: state.last_tick,
        now: clock.now,
        zone: clock.zone,
        max_bytes: usize::MAX,
    };
    for thread in ThreadName::ALL {
        let Some(tc) = config.thread(thread).filter(|t| t.enabled) else {
            continue;
        };
        if tc.sources.is_empty() {
            report.push(
                format!("sources {thread}"),
                Level::Ok,
                "none configured (the thread sees only the memory)",
            );
            continue;
        }
        let names = sources::source_names(&tc.sources);
        for (source, name) in tc.sources.iter().zip(names) {
            let started = Instant::now();
            let gathered = sources::gather(std::slice::from_ref(source), &ctx).await;
            let took = crate::timestamp::millis(started.elapsed());
            let what = format!("source {thread}/{name}");
            if let Some(f) = gathered.failures.first() {
                report.push(
                    what,
                    Level::Fail,
                    format!(
                        "{} failed in {took} ms: {}; fix its table in [threads.{thread}] (the thread runs without it)",
                        f.kind, f.error
                    ),
                );
            } else if let Some(t) = gathered.texts.first() {
                let cut = if t.truncated {
                    ", cut at its max_bytes"
                } else {
                    ""
                };
                let kind = if t.kind == name {
                    String::new()
                } else {
                    format!("{}: ", t.kind)
                };
                let found = format!("{kind}{} bytes in {took} ms{cut}", t.text.len());
                match unmatched_globs(&source.kind).as_slice() {
                    [] => report.push(what, Level::Ok, found),
                    globs => report.push(
                        what,
                        Level::Warn,
                        format!(
                            "{found}; `{}` match{} no file: a typo in the path? fix its paths in [threads.{thread}] (the thread sees nothing from {})",
                            globs.join("`, `"),
                            if globs.len() == 1 { "es" } else { "" },
                            if globs.len() == 1 { "it" } else { "them" },
                        ),
                    ),
                }
            }
        }
    }
}

/// The globs of a `files` source that match no file (every other kind fails on a
/// missing path; a `files` glob matching nothing gives an empty text, which the tick
/// takes as normal: an empty memory directory).
fn unmatched_globs(kind: &SourceKind) -> Vec<String> {
    let SourceKind::Files(files) = kind else {
        return Vec::new();
    };
    files
        .patterns()
        .iter()
        .filter(|p| sources::expand_globs(std::slice::from_ref(p)).0.is_empty())
        .cloned()
        .collect()
}

/// The tick lock: free, taken without waiting and released at once.
fn check_lock(dir: &StateDir, report: &mut Report) {
    if !dir.path().exists() {
        return;
    }
    match dir.lock() {
        Ok(lock) => {
            drop(lock);
            report.push("lock", Level::Ok, "free");
        }
        Err(e @ StorageError::Locked { .. }) => report.push(
            "lock",
            Level::Warn,
            format!(
                "{e} (a tick is running now; if none is, find the holder with `fuser {}`)",
                dir.file(crate::storage::LOCK_FILE).display()
            ),
        ),
        Err(e) => report.push("lock", Level::Fail, e.to_string()),
    }
}

/// Failure streaks this long or longer are a `FAIL`.
const FAILING_STREAK: usize = 3;
/// A last tick older than this is a `warn` (cron may have stopped).
const STALE_HOURS: i64 = 24;

/// The journal: last tick, failure streaks per thread, skips by reason, unreadable lines.
fn check_journal(health: &Health, clock: Clock, report: &mut Report) {
    if let Some(e) = &health.journal_unreadable {
        report.push("journal", Level::Fail, e.clone());
        return;
    }
    if let Some(warning) = &health.journal_skipped {
        report.push("journal", Level::Warn, warning.clone());
    }
    let Some(last) = &health.last_tick else {
        report.push(
            "last tick",
            Level::Warn,
            "none yet: try `thinker tick --dry-run`, then schedule it (`thinker cron`)",
        );
        return;
    };
    let age = clock::age(last.time, clock.now);
    let (level, advice) = if clock.now - last.time > chrono::TimeDelta::hours(STALE_HOURS) {
        (
            Level::Warn,
            ": is it scheduled? `thinker cron` prints a crontab line",
        )
    } else if last.exit_code != 0 {
        (Level::Warn, ": see `thinker log`")
    } else {
        (Level::Ok, "")
    };
    report.push(
        "last tick",
        level,
        format!(
            "{age} ({}), run {}, exit {}{advice}",
            clock.wall(last.time),
            last.run,
            last.exit_code
        ),
    );
    for thread in ThreadName::ALL {
        let streak = health
            .failure_streaks
            .get(thread.as_str())
            .copied()
            .unwrap_or(0);
        if streak == 0 {
            continue;
        }
        let level = if streak >= FAILING_STREAK {
            Level::Fail
        } else {
            Level::Warn
        };
        report.push(
            format!("thread {thread}"),
            level,
            format!(
                "failed its last {streak} call{}: `thinker log --thread {thread}` shows when, `thinker tick -v` why",
                plural(streak)
            ),
        );
    }
    let n = health.ticks_read;
    let listed = if health.skips.is_empty() {
        "none".to_string()
    } else {
        health
            .skips
            .iter()
            .map(|(reason, count)| format!("{reason} {count}"))
            .collect::<Vec<_>>()
            .join(", ")
    };
    report.push(
        "skips",
        Level::Ok,
        format!("in the last {n} tick{}: {listed}", plural(n)),
    );
}

/// The ledger: breakers, budget left today.
fn check_ledger(
    dir: &StateDir,
    health: &Health,
    config: &Config,
    clock: Clock,
    report: &mut Report,
) {
    if !dir.path().exists() {
        return;
    }
    if let Some(e) = &health.ledger_unreadable {
        report.push("ledger", Level::Fail, e.clone());
        return;
    }
    for (name, breaker) in &health.breakers {
        if let Some((level, message)) = breaker_line(name, breaker, config, clock) {
            report.push(format!("breaker {name}"), level, message);
        }
    }
    let spent = health.total.spent;
    let mut parts = vec![format!("{} tokens", spent.tokens)];
    let mut level = Level::Ok;
    if let Some(limit) = config.daily_tokens {
        parts[0] = format!("{} of {limit} tokens", spent.tokens);
        if spent.tokens >= limit {
            level = Level::Warn;
        }
    }
    match config.daily_cost {
        Some(limit) => {
            parts.push(format!("${:.4} of ${limit:.2}", spent.cost));
            if spent.cost >= limit {
                level = Level::Warn;
            }
        }
        None => parts.push(format!("${:.4}", spent.cost)),
    }
    parts.push(format!(
        "{} of {} escalation calls",
        health.escalations,
        health
            .escalations_per_day
            .unwrap_or(config.escalation.daily_cap)
    ));
    let advice = if level == Level::Warn {
        ": spent; threads are skipped until tomorrow (raise [budget] to go on)"
    } else {
        ""
    };
    report.push(
        "budget today",
        level,
        format!("{}{advice}", parts.join(", ")),
    );
}

/// A breaker's line, from its phase; `None` when it is closed and counts nothing.
fn breaker_line(
    name: &str,
    breaker: &BreakerHealth,
    config: &Config,
    clock: Clock,
) -> Option<(Level, String)> {
    let provider = config.providers.get(name);
    let var = provider
        .and_then(|p| p.api_key_env.as_deref())
        .map_or_else(|| "its key".to_string(), |v| format!("`{v}`"));
    let reason = if breaker.reason.is_empty() {
        String::new()
    } else {
        format!(" ({})", breaker.reason)
    };
    let refusals = || {
        format!(
            "{} refusal{} in a row{reason}",
            breaker.failures,
            plural(breaker.failures as usize)
        )
    };
    match breaker.phase {
        Phase::Closed => None,
        Phase::Counting => Some((Level::Warn, format!("{}: check {var}", refusals()))),
        Phase::Open { until } => Some((
            Level::Fail,
            format!(
                "open since {}{reason}: not called until {}; fix {var} (a new key or config closes it)",
                breaker.opened.map_or_else(String::new, |t| clock.wall(t)),
                clock.wall(until)
            ),
        )),
        Phase::HalfOpen { .. } => Some((
            Level::Warn,
            format!("was open{reason}; half-open now: the next tick tries once"),
        )),
        Phase::Stale => {
            let was = if breaker.opened.is_some() {
                format!("was open{reason}")
            } else {
                refusals()
            };
            let next = if provider.is_some() {
                "counted against another key or config: the next tick calls it again"
            } else {
                "the provider is not configured any more: the next tick forgets it"
            };
            Some((Level::Ok, format!("{was}, {next}")))
        }
    }
}

/// The escalation: a model, the notifier found (and nothing it failed to deliver), the
/// memory directory writable.
fn check_escalation(config: &Config, health: &Health, report: &mut Report) {
    let e = &config.escalation;
    match e.models.first() {
        Some(model) => report.push(
            "escalation model",
            Level::Ok,
            format!(
                "{model}{}",
                if e.models.len() > 1 {
                    format!(" (+{} fallback)", e.models.len() - 1)
                } else {
                    String::new()
                }
            ),
        ),
        None => report.push(
            "escalation model",
            Level::Warn,
            "none: an escalation is recorded failed; set [escalation] model (e.g. \"anthropic/claude-opus-5\")",
        ),
    }
    check_notifier(e, health, report);
    match &e.memory_dir {
        None => report.push(
            "memory_dir",
            Level::Warn,
            "not set: a `remember` is recorded failed; set [escalation] memory_dir",
        ),
        Some(dir) => {
            let (level, message) = writable(dir);
            report.push("memory_dir", level, message);
        }
    }
}

/// The notifier: whether it can run (a command's programs found; a webhook's variables
/// set), and whether a message could not be delivered — then `FAIL`, with the last error
/// and the way out — or waits for a retry or the user's confirmation (`warn`).
fn check_notifier(e: &crate::config::EscalationConfig, health: &Health, report: &mut Report) {
    let notifier = e.notifier();
    let (mut level, mut message) = match notifier {
        Notifier::None => (
            Level::Warn,
            "none configured: a notification is recorded failed and never reaches you; set [escalation] notify_command (notify-send on a desktop; Apprise on a headless machine) or [escalation.webhook], then `thinker notify --test`".to_string(),
        ),
        Notifier::Command(argv) => {
            let path = std::env::var_os("PATH");
            match notify::check(argv, path.as_deref()) {
                Readiness::NotConfigured => (Level::Warn, "no notify_command".to_string()),
                Readiness::Found(programs) => (Level::Ok, format!("{} found", programs.join(", "))),
                Readiness::Missing(missing) => (
                    Level::Fail,
                    format!(
                        "`{}` not found on PATH: install it, or change [escalation] notify_command",
                        missing.join("`, `")
                    ),
                ),
            }
        }
        Notifier::Webhook(w) => webhook_readiness(w),
    };
    let m = &health.messages;
    if !m.undelivered.is_empty() {
        let n = m.undelivered.len();
        let ids: Vec<&str> = m.undelivered.iter().map(|u| u.id.as_str()).collect();
        let error = m
            .undelivered
            .last()
            .map(|u| u.error.clone())
            .unwrap_or_default();
        level = Level::Fail;
        message = format!(
            "{message}; but {n} message{} could not be delivered (last error: {error}): fix the notifier (`thinker notify --test` tries it), then `thinker release {}` sends it, or `thinker discard` drops it (`thinker held` lists what waits)",
            plural(n),
            ids.join("` / `thinker release ")
        );
    } else if m.nudges_lost > 0 {
        level = Level::Fail;
        message = format!(
            "{message}; but the nudge about {} message{} held for your confirmation could not be delivered (last error: {}): fix the notifier (`thinker notify --test` tries it); `thinker held` lists what waits",
            m.nudges_lost,
            plural(m.nudges_lost),
            m.last_error.as_deref().unwrap_or("unknown")
        );
    } else if m.retrying > 0 {
        level = level.max(Level::Warn);
        message = format!(
            "{message}; but {} message{} not delivered yet, tried again on the next ticks (last error: {})",
            m.retrying,
            plural(m.retrying),
            m.last_error.as_deref().unwrap_or("unknown")
        );
    }
    report.push("notifier", level, message);
    if !m.held.is_empty() {
        let n = m.held.len();
        report.push(
            "held",
            Level::Warn,
            format!(
                "{n} message{} held for your confirmation: `thinker held` lists {}, `thinker release ID` sends one, `thinker discard ID` drops one",
                plural(n),
                if n == 1 { "it" } else { "them" }
            ),
        );
    }
}

/// A webhook's readiness: its URL and token variables set (it is not called: `thinker
/// notify --test` sends a test message).
fn webhook_readiness(w: &crate::escalation::webhook::WebhookSettings) -> (Level, String) {
    use crate::escalation::webhook::{resolve_url, site_of};
    let env = |var: &str| std::env::var(var).ok();
    let url = match resolve_url(&w.url, &env) {
        Ok(url) => url,
        Err(e) => return (Level::Fail, e.to_string()),
    };
    if let Some(var) = &w.token_env
        && env(var).is_none_or(|t| t.trim().is_empty())
    {
        return (
            Level::Fail,
            format!(
                "the {} webhook's token variable {var} is not set: set it, or remove token_env",
                w.format.as_str()
            ),
        );
    }
    (
        Level::Ok,
        format!(
            "the {} webhook at {} (not called: `thinker notify --test` sends a test message)",
            w.format.as_str(),
            site_of(&url)
        ),
    )
}

/// How old the memory is: `warn` once it is older than the tick's cadence allows
/// ([`crate::recall::stale_after`]), as the agent's block then says.
fn check_memory(health: &Health, clock: Clock, report: &mut Report) {
    // An unreadable state: `check_state` says so already.
    let Some(at) = health.memory_updated else {
        return;
    };
    let age = clock::age(at, clock.now);
    if health.stale {
        report.push(
            "memory",
            Level::Warn,
            format!(
                "last updated {age} ({}): older than the tick's cadence allows, so the agent is told it may be out of date; is the tick running (`thinker log`, `thinker cron`), or are all threads skipped or failing?",
                clock.wall(at)
            ),
        );
    } else {
        report.push("memory", Level::Ok, format!("last updated {age}"));
    }
}

/// Whether notes can be written in `dir`: a probe file created and removed, or the
/// nearest existing parent when the directory is still to be created.
fn writable(dir: &Path) -> (Level, String) {
    match std::fs::metadata(dir) {
        Ok(m) if m.is_dir() => {
            let probe = dir.join(format!(".thinker-doctor-{}", std::process::id()));
            match std::fs::OpenOptions::new()
                .write(true)
                .create_new(true)
                .open(&probe)
            {
                Ok(_) => {
                    let _ = std::fs::remove_file(&probe);
                    (Level::Ok, format!("{} is writable", dir.display()))
                }
                Err(e) => (
                    Level::Fail,
                    format!(
                        "cannot write in {}: {e}; fix its permissions or change memory_dir",
                        dir.display()
                    ),
                ),
            }
        }
        Ok(_) => (
            Level::Fail,
            format!("{} is not a directory: change memory_dir", dir.display()),
        ),
        Err(_) => (
            Level::Warn,
            format!(
                "{} does not exist yet: the first note creates it (or `mkdir -p {}`)",
                dir.display(),
                dir.display()
            ),
        ),
    }
}

/// The quiet tick's settings.
fn check_quiet(config: &Config, report: &mut Report) {
    let q = &config.quiet;
    if q.skip_unchanged {
        report.push(
            "quiet tick",
            Level::Ok,
            format!(
                "on: a thread whose sources saw nothing new is not called, at most {} ticks in a row",
                q.max_skipped
            ),
        );
    } else {
        report.push(
            "quiet tick",
            Level::Ok,
            "off: every thread is called on its cadence even when nothing changed ([tick] skip_unchanged)",
        );
    }
}

/// The guard's settings.
fn check_guard(config: &Config, report: &mut Report) {
    let on_answer = match config.on_answer {
        crate::untrusted::guard::OnAnswer::Drop => "dropped",
        crate::untrusted::guard::OnAnswer::Downgrade => "downgraded (never remembered)",
    };
    report.push(
        "guard",
        Level::Ok,
        format!(
            "sources are screened for injections and shown neutralised; a finding carrying one is {on_answer} ([guard] on_answer); an escalation carrying one is not raised, a notification not sent"
        ),
    );
}

#[cfg(test)]
mod tests {
    use super::*;

    fn model() -> ModelRef {
        ModelRef {
            provider: "groq".into(),
            model: "m".into(),
        }
    }

    #[test]
    fn what_a_one_token_call_says_about_the_provider() {
        let m = || "groq/m".to_string();
        let table = [
            (None, Level::Ok),
            (
                Some(CallError::Truncated {
                    model: m(),
                    max_tokens: 1,
                }),
                Level::Ok,
            ),
            (
                Some(CallError::BadResponse {
                    model: m(),
                    message: "empty".into(),
                }),
                Level::Ok,
            ),
            (
                Some(CallError::RateLimited {
                    model: m(),
                    retry_after: None,
                    message: String::new(),
                }),
                Level::Warn,
            ),
            (
                Some(CallError::MissingKey {
                    provider: "groq".into(),
                    var: "K".into(),
                    empty: false,
                }),
                Level::Fail,
            ),
            (
                Some(CallError::Http {
                    model: m(),
                    status: 401,
                    message: String::new(),
                }),
                Level::Fail,
            ),
            (
                Some(CallError::Http {
                    model: m(),
                    status: 404,
                    message: String::new(),
                }),
                Level::Fail,
            ),
            (
                Some(CallError::Connect {
                    model: m(),
                    url: "u".into(),
                    message: String::new(),
                }),
                Level::Fail,
            ),
            (
                Some(CallError::Timeout {
                    model: m(),
                    after: Duration::from_secs(20),
                }),
                Level::Fail,
            ),
        ];
        for (error, level) in table {
            let shown = format!("{error:?}");
            let (got, message) = reached(&model(), error, 12);
            assert_eq!(got, level, "{shown}: {message}");
        }
        assert_eq!(reached(&model(), None, 12).1, "groq/m answered in 12 ms");
        let refused = CallError::Http {
            model: m(),
            status: 403,
            message: "no".into(),
        };
        assert!(
            reached(&model(), Some(refused), 1)
                .1
                .contains("the key was refused")
        );
    }

    #[test]
    fn a_breaker_is_open_until_its_hours_pass() {
        use crate::ledger::{BreakerState, Ledger};
        let config = Config::parse(
            "[providers.groq]\nkind = \"openai\"\nbase_url = \"http://127.0.0.1:1\"\napi_key_env = \"GROQ_API_KEY\"\nbreaker_hours = 2\n[threads.watcher]\nmodel = \"groq/m\"\n",
            None,
        )
        .unwrap();
        let at = |t: &str| crate::timestamp::parse(t).unwrap();
        let open = BreakerState {
            failures: 3,
            opened: Some(at("2026-11-22T09:00:00Z")),
            reason: "HTTP 401".into(),
            fingerprint: "f".into(),
        };
        let line = |state: &BreakerState, fingerprint: &str, now: &str| {
            let ledger = Ledger {
                breakers: BTreeMap::from([("groq".to_string(), state.clone())]),
                ..Ledger::default()
            };
            let keys = Keys::Known(BTreeMap::from([(
                "groq".to_string(),
                crate::provider::config::Fingerprint::fixed(fingerprint),
            )]));
            let clock = Clock::utc(at(now));
            let health = Health::of(
                &[],
                &ledger,
                &Allowances::from_config(Some(&config)),
                &keys,
                &clock,
            );
            breaker_line("groq", &health.breakers["groq"], &config, clock)
        };
        let (level, message) = line(&open, "f", "2026-11-22T10:59:59Z").unwrap();
        assert_eq!(level, Level::Fail);
        assert!(
            message.contains("until Sun 22 Nov 11:00") && message.contains("`GROQ_API_KEY`"),
            "{message}"
        );
        let (level, _) = line(&open, "f", "2026-11-22T11:00:00Z").unwrap();
        assert_eq!(level, Level::Warn);
        // A new key: the tick starts it closed, and doctor says so.
        let (level, message) = line(&open, "new", "2026-11-22T10:00:00Z").unwrap();
        assert_eq!(level, Level::Ok, "{message}");
        assert!(message.contains("another key or config"), "{message}");
        let counting = BreakerState {
            failures: 1,
            opened: None,
            ..open.clone()
        };
        assert_eq!(
            line(&counting, "f", "2026-11-22T10:00:00Z").unwrap().0,
            Level::Warn
        );
        assert_eq!(
            line(&BreakerState::default(), "f", "2026-11-22T10:00:00Z"),
            None
        );
    }

    #[test]
    fn the_summary_counts_each_level_and_a_fail_fails() {
        let mut r = Report::default();
        r.push("a", Level::Ok, "fine");
        r.push("b", Level::Warn, "meh");
        assert!(!r.failed());
        assert_eq!(
            r.summary(),
            "1 ok, 1 warn, 0 FAIL: thinker can work; the warn lines say what could be better"
        );
        r.push("c", Level::Fail, "broken");
        assert!(r.failed());
        assert_eq!(
            r.text(Painter { color: false }).lines().nth(2),
            Some("FAIL c: broken")
        );
        let coloured = r.text(Painter { color: true });
        assert!(
            coloured.contains("\x1b[31mFAIL\x1b[0m c: broken"),
            "{coloured}"
        );
        assert!(
            coloured.contains("\x1b[33mwarn\x1b[0m b: meh"),
            "{coloured}"
        );
    }
}

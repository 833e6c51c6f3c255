//! `thinker replay [--since SPAN|DATE] [--set KEY=VALUE]… [--json]`: the journal re-run
//! through the aggregator ([`crate::replay`]), first with the config's settings — which
//! must reproduce every recorded state (the check that the replay is faithful) — then,
//! with `--set`, under other settings from the same starting state, and what that
//! changed. Reads only: nothing in the state directory is written. Exit 0, or 1 when the
//! replay did not reproduce what was recorded (the comparison is then not reliable).

use std::fmt::Write as _;
use std::time::Instant;

use serde::Serialize;

use crate::cli::ReplayArgs;
use crate::clock::Clock;
use crate::cmd::Context;
use crate::cmd::shared::{replay_dir, settings};
use crate::cmd::since_instant;
use crate::error::{EXIT_FAILED, EXIT_OK, Error, to_json_pretty};
use crate::replay::diff::{self, Diff, Life, Row, Side, lifetime};
use crate::replay::overrides::Override;
use crate::replay::{Check, Journal, Stop};
use crate::state::Category;
use crate::timestamp;
use crate::untrusted;

#[derive(Debug, Serialize)]
struct Output<'a> {
    ticks: usize,
    #[serde(with = "timestamp::serde_utc_opt")]
    from: Option<chrono::DateTime<chrono::Utc>>,
    #[serde(with = "timestamp::serde_utc_opt")]
    to: Option<chrono::DateTime<chrono::Utc>>,
    elapsed_ms: u64,
    faithful: bool,
    check: &'a Check,
    #[serde(skip_serializing_if = "Option::is_none")]
    stopped: Option<StopOut>,
    notes: &'a [String],
    overrides: &'a [Override],
    current: Side,
    #[serde(skip_serializing_if = "Option::is_none")]
    diff: Option<Diff>,
    #[serde(rename = "final")]
    final_rows: Vec<Row>,
}

#[derive(Debug, Serialize)]
struct StopOut {
    file: String,
    line: usize,
    why: String,
    unread: usize,
}

pub fn run(ctx: &mut Context<'_>, args: &ReplayArgs) -> Result<u8, Error> {
    let resolved = ctx.optional_config()?;
    let settings = settings(resolved.config, &args.set)?;
    let since = args.since.map(|s| since_instant(s, &ctx.clock));
    let started = Instant::now();
    let (journal, replay) = replay_dir(&resolved.state_dir, since, &settings)?;
    let elapsed_ms = timestamp::millis(started.elapsed());
    let window = &journal.ticks[replay.first..];
    let (from, to) = (
        window.first().map(|t| t.line.time),
        window.last().map(|t| t.line.time),
    );
    let end = to.unwrap_or(ctx.clock.now);
    let zone = ctx.clock.zone;
    let current_esc = &settings.current.escalation;
    let (current, _, _) = diff::side(&replay.current, end, current_esc, zone);
    let diff = match (&replay.overridden, &settings.overridden) {
        (Some(run), Some(config)) => Some(diff::diff(
            (&replay.current, current_esc),
            (run, &config.escalation),
            end,
            zone,
        )),
        _ => None,
    };
    let out = Output {
        ticks: replay.current.ticks,
        from,
        to,
        elapsed_ms,
        faithful: replay.check.faithful(),
        check: &replay.check,
        stopped: journal.stopped.clone().map(|s| StopOut {
            file: s.file,
            line: s.line,
            why: s.why,
            unread: journal.unread,
        }),
        notes: &replay.current.notes,
        overrides: &settings.overrides,
        current,
        diff,
        final_rows: diff::rows(replay.current.end.as_ref()),
    };
    let text = if args.json {
        to_json_pretty(&out, "the replay")?
    } else {
        render(&out, &journal, &ctx.clock)
    };
    ctx.stdout(text.as_bytes())?;
    Ok(if out.faithful { EXIT_OK } else { EXIT_FAILED })
}

fn render(out: &Output<'_>, journal: &Journal, clock: &Clock) -> String {
    let mut s = String::new();
    let wall =
        |t: Option<chrono::DateTime<chrono::Utc>>| t.map_or_else(String::new, |t| clock.wall(t));
    if journal.ticks.is_empty() && journal.stopped.is_none() {
        s.push_str("Nothing to replay: the journal has no ticks yet.\n");
        return s;
    }
    let _ = writeln!(
        s,
        "Replayed {} tick{}, {} → {}.",
        out.ticks,
        if out.ticks == 1 { "" } else { "s" },
        wall(out.from),
        wall(out.to)
    );
    faithfulness(&mut s, out.check);
    if let Some(stop) = &out.stopped {
        let _ = writeln!(
            s,
            "The journal stops being readable at {}. Replayed up to it{}.",
            Stop {
                file: stop.file.clone(),
                line: stop.line,
                why: stop.why.clone(),
            },
            if stop.unread == 0 {
                String::new()
            } else {
                format!(" ({} line(s) after it not read)", stop.unread)
            }
        );
    }
    for note in out.notes {
        let _ = writeln!(s, "note: {note}");
    }
    s.push('\n');
    match &out.diff {
        None => {
            side_table(&mut s, &out.current, None);
            s.push('\n');
            finals(&mut s, &out.final_rows, None);
        }
        Some(diff) => compared(&mut s, out, diff),
    }
    s
}

/// The comparison with the overridden run.
fn compared(s: &mut String, out: &Output<'_>, diff: &Diff) {
    let set: Vec<String> = out
        .overrides
        .iter()
        .map(|o| format!("{} = {}", o.key, o.value))
        .collect();
    let _ = writeln!(s, "With {}:\n", set.join(", "));
    side_table(s, &diff.current, Some(&diff.overridden));
    lives(
        s,
        "Only with --set (would have lived):",
        &diff.only_overridden,
    );
    lives(
        s,
        "Only with the current settings (would not have been remembered with --set):",
        &diff.only_current,
    );
    if !diff.changed.is_empty() {
        s.push_str("\nIn memory for a different time:\n");
        for c in diff.changed.iter().take(10) {
            let _ = writeln!(
                s,
                "  {:<28} {:>8} → {:<8} {}",
                cut(&c.id, 28),
                lifetime(c.current_seconds),
                lifetime(c.overridden_seconds),
                cut(&c.summary, 50)
            );
        }
        if diff.changed.len() > 10 {
            let _ = writeln!(s, "  … and {} more", diff.changed.len() - 10);
        }
    }
    if !diff.days.is_empty() {
        s.push_str("\nEscalations per day   raised  suppressed  calls  capped  quiet │  raised  suppressed  calls  capped  quiet\n");
        for d in &diff.days {
            let (c, o) = (d.current, d.overridden);
            let _ = writeln!(
                s,
                "  {}          {:>6}  {:>10}  {:>5}  {:>6}  {:>5} │  {:>6}  {:>10}  {:>5}  {:>6}  {:>5}",
                d.day,
                c.raised,
                c.suppressed,
                c.calls,
                c.capped,
                c.in_quiet_hours,
                o.raised,
                o.suppressed,
                o.calls,
                o.capped,
                o.in_quiet_hours
            );
        }
    }
    s.push('\n');
    finals(s, &diff.final_current, Some(&diff.final_overridden));
}

fn faithfulness(s: &mut String, check: &Check) {
    match &check.first_mismatch {
        None if check.checked == 0 => {
            s.push_str(
                "Faithful: not checked (no tick in the journal recorded its state's digest).\n",
            );
        }
        None => {
            let _ = writeln!(
                s,
                "Faithful: all {} recorded states reproduced exactly.",
                check.checked
            );
        }
        Some(m) => {
            let _ = writeln!(
                s,
                "NOT FAITHFUL: {} of {} recorded states reproduced; the first that was not is run {} ({}, after the {}: recorded {}, replayed {}).\nThe comparison below is not reliable. Was the journal written with other [memory] settings than the config's now, or by another version of thinker? Pass --config the config it ran with.",
                check.reproduced,
                check.checked,
                m.run,
                timestamp::format(m.time),
                m.phase,
                m.recorded,
                m.replayed
            );
        }
    }
    if check.not_replayed > 0 {
        let _ = writeln!(
            s,
            "{} tick(s) could not be replayed (see the notes).",
            check.not_replayed
        );
    }
}

fn side_table(s: &mut String, current: &Side, overridden: Option<&Side>) {
    type Cell = Box<dyn Fn(&Side) -> String>;
    let rows: Vec<(&str, Cell)> = vec![
        (
            "entries remembered",
            Box::new(|x: &Side| x.remembered.to_string()),
        ),
        (
            "in memory at the end",
            Box::new(|x: &Side| x.at_end.to_string()),
        ),
        (
            "average time in memory",
            Box::new(|x: &Side| lifetime(x.average_lifetime_seconds)),
        ),
        (
            "longest",
            Box::new(|x: &Side| {
                x.longest
                    .as_ref()
                    .map_or("-".into(), |l| lifetime(l.seconds))
            }),
        ),
        (
            "left (decayed/pruned/budget/rejected)",
            Box::new(|x: &Side| {
                ["decayed", "pruned", "budget", "rejected"]
                    .map(|k| x.left.get(k).copied().unwrap_or(0).to_string())
                    .join("/")
            }),
        ),
        (
            "escalations raised",
            Box::new(|x: &Side| x.raised.to_string()),
        ),
        (
            "suppressed without a call",
            Box::new(|x: &Side| x.suppressed.to_string()),
        ),
        (
            "over the daily cap",
            Box::new(|x: &Side| x.capped.to_string()),
        ),
    ];
    match overridden {
        None => {
            for (name, f) in &rows {
                let _ = writeln!(s, "  {name:<38} {:>12}", f(current));
            }
        }
        Some(o) => {
            let _ = writeln!(s, "  {:<38} {:>12} {:>12}", "", "current", "with --set");
            for (name, f) in &rows {
                let _ = writeln!(s, "  {name:<38} {:>12} {:>12}", f(current), f(o));
            }
        }
    }
}

fn lives(s: &mut String, title: &str, lives: &[Life]) {
    if lives.is_empty() {
        return;
    }
    let _ = writeln!(s, "\n{title}");
    for l in lives.iter().take(15) {
        let how = match l.reason {
            Some(r) => format!("{r:?}").to_lowercase(),
            None => "still there".into(),
        };
        let _ = writeln!(
            s,
            "  {:<28} {:>8} ({how:<11}) {}",
            cut(&l.id, 28),
            lifetime(l.seconds),
            cut(&l.summary, 50)
        );
    }
    if lives.len() > 15 {
        let _ = writeln!(s, "  … and {} more", lives.len() - 15);
    }
}

fn finals(s: &mut String, current: &[Row], overridden: Option<&[Row]>) {
    let cell = |r: Option<&Row>| {
        r.map_or_else(String::new, |r| {
            format!(
                "{:>2} {:<18} {}",
                r.strength.rounded(),
                cut(&r.id, 18),
                cut(&r.summary, 30)
            )
        })
    };
    match overridden {
        None => s.push_str("The subconscious at the end:\n"),
        Some(_) => {
            let _ = writeln!(
                s,
                "The subconscious at the end: {:<45}│ with --set",
                "current"
            );
        }
    }
    for cat in Category::ALL {
        let a: Vec<&Row> = current.iter().filter(|r| r.category == cat).collect();
        let b: Vec<&Row> = overridden
            .unwrap_or_default()
            .iter()
            .filter(|r| r.category == cat)
            .collect();
        if a.is_empty() && b.is_empty() {
            continue;
        }
        let _ = writeln!(s, "  {}", cat.key());
        for i in 0..a.len().max(b.len()) {
            match overridden {
                None => {
                    let _ = writeln!(s, "    {}", cell(a.get(i).copied()));
                }
                Some(_) => {
                    let _ = writeln!(
                        s,
                        "    {:<69}│ {}",
                        cell(a.get(i).copied()),
                        cell(b.get(i).copied())
                    );
                }
            }
        }
    }
}

/// One clean line of at most `max` characters (an `…` marks a cut).
fn cut(text: &str, max: usize) -> String {
    untrusted::excerpt(text, max)
}

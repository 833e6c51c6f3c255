//! `thinker report --html FILE [--since SPAN|DATE] [--set KEY=VALUE]…`: one
//! self-contained HTML page of the subconscious's history ([`crate::report`]), drawn
//! from a replay of the journal ([`crate::replay`]); with `--set`, the current settings
//! and the overridden ones side by side. Owns the glue from a replayed [`Run`] and the
//! recorded ticks to a [`Model`]. Writes only FILE, never the state directory. Exit 0
//! (a replay that does not reproduce the journal is said on stderr and in the page).

use std::collections::{BTreeMap, HashMap};

use chrono::{DateTime, Utc};

use crate::cli::ReportArgs;
use crate::cmd::Context;
use crate::cmd::shared::{replay_dir, settings};
use crate::cmd::since_instant;
use crate::error::{EXIT_OK, Error};
use crate::journal::Status;
use crate::journal::read::Tick;
use crate::replay::{Check, Journal, Run};
use crate::report::{
    Departure, EntrySeries, EscalationMark, LinkRow, Model, TickStats, Usage, Window,
};
use crate::state::{Category, EscalationOutcome};
use crate::timestamp;

pub fn run(ctx: &mut Context<'_>, args: &ReportArgs) -> Result<u8, Error> {
    let resolved = ctx.optional_config()?;
    let settings = settings(resolved.config, &args.set)?;
    let since = args.since.map(|s| since_instant(s, &ctx.clock));
    let (journal, replay) = replay_dir(&resolved.state_dir, since, &settings)?;
    let mut notes = replay.current.notes.clone();
    notes.extend(check_note(&replay.check));
    if let Some(stop) = &journal.stopped {
        notes.push(format!(
            "the journal stops being readable at {stop}: drawn up to it"
        ));
    }
    let title = match since {
        Some(t) => format!("thinker: since {}", ctx.clock.wall(t)),
        None => "thinker: the whole journal".to_string(),
    };
    let current = model(&title, &replay.current, &journal, Vec::new(), notes.clone());
    let zone = ctx.clock.zone;
    let html = match &replay.overridden {
        Some(other) => {
            let set = settings
                .overrides
                .iter()
                .map(|o| (o.key.clone(), o.value.clone()))
                .collect();
            let other = model(&title, other, &journal, set, notes);
            crate::report::render_pair(&current, &other, zone)
        }
        None => crate::report::render(&current, zone),
    };
    std::fs::write(&args.html, html.as_bytes()).map_err(|source| Error::Output {
        what: "the report file",
        source,
    })?;
    if !replay.check.faithful() && !ctx.global.quiet {
        ctx.stderr("warning: the replay did not reproduce every recorded state (see `thinker replay`); the report may differ from what happened\n")?;
    }
    if !ctx.global.quiet {
        ctx.stderr(&format!(
            "wrote {} ({} KiB): {} ticks\n",
            args.html.display(),
            html.len().div_ceil(1024),
            replay.current.ticks
        ))?;
    }
    Ok(EXIT_OK)
}

fn check_note(check: &Check) -> Option<String> {
    let m = check.first_mismatch.as_ref()?;
    Some(format!(
        "the replay did not reproduce the state recorded at run {} ({}): what is drawn after it may differ from what happened",
        m.run,
        timestamp::format(m.time)
    ))
}

/// The model of one replayed run: its ticks, its entries' strength over time, its
/// escalations with the outcome they ended with.
#[expect(
    clippy::too_many_lines,
    reason = "the report's model is assembled in one place, section by section"
)]
pub fn model(
    title: &str,
    run: &Run,
    journal: &Journal,
    settings: Vec<(String, String)>,
    notes: Vec<String>,
) -> Model {
    let from = run.frames.first().map(|f| f.time).unwrap_or_default();
    let to = run.frames.last().map_or(from, |f| f.time);
    let mut known: HashMap<String, (Category, String)> = HashMap::new();
    let mut open: BTreeMap<String, EntrySeries> = BTreeMap::new();
    let mut done: Vec<EntrySeries> = Vec::new();
    if let Some(start) = &run.start {
        for (category, e) in start.all_entries() {
            known.insert(e.id.clone(), (category, e.summary.clone()));
            open.insert(
                e.id.clone(),
                series(&e.id, category, &e.summary, (from, e.strength)),
            );
        }
    }
    let mut ticks = Vec::with_capacity(run.frames.len());
    let mut raised: Vec<(DateTime<Utc>, String, String, EscalationOutcome)> = Vec::new();
    let mut settled: HashMap<(DateTime<Utc>, String), EscalationOutcome> = HashMap::new();
    let mut links: Vec<LinkRow> = Vec::new();
    for frame in &run.frames {
        for added in &frame.report.added {
            known.insert(added.id.clone(), (added.category, added.summary.clone()));
        }
        for archived in &frame.report.removed {
            let id = &archived.entry.id;
            let mut s = open.remove(id).unwrap_or_else(|| {
                series(
                    id,
                    archived.category,
                    &archived.entry.summary,
                    (frame.time, archived.entry.strength),
                )
            });
            s.points.push((frame.time, crate::state::Strength::ZERO));
            s.left = Some(Departure {
                time: frame.time,
                reason: archived.reason.word().into_owned(),
            });
            done.push(s);
        }
        for p in &frame.points {
            if let Some(s) = open.get_mut(&p.id) {
                s.points.push((frame.time, p.strength));
            } else {
                let (category, summary) = known
                    .get(&p.id)
                    .cloned()
                    .unwrap_or((p.category, p.id.clone()));
                open.insert(
                    p.id.clone(),
                    series(&p.id, category, &summary, (frame.time, p.strength)),
                );
            }
        }
        for r in &frame.report.escalations {
            raised.push((
                r.timestamp,
                r.thread.clone(),
                r.reason.clone(),
                r.outcome.clone(),
            ));
        }
        for r in &frame.settled {
            settled.insert((r.timestamp, r.thread.clone()), r.outcome.clone());
        }
        for l in &frame.report.linked {
            links.push(LinkRow {
                made: frame.time,
                thread: l.thread.as_str().to_string(),
                a: l.a.clone(),
                b: l.b.clone(),
                kind: l.kind.as_str().to_string(),
                gone: None,
            });
        }
        for u in &frame.report.unlinked {
            if let Some(row) = links.iter_mut().rev().find(|row| {
                row.gone.is_none()
                    && ((row.a == u.a && row.b == u.b) || (row.a == u.b && row.b == u.a))
            }) {
                row.gone = Some((frame.time, u.why.to_string()));
            }
        }
        ticks.push(tick_stats(frame, journal.ticks.get(frame.tick)));
    }
    done.extend(open.into_values());
    done.sort_by(|a, b| {
        let first = |s: &EntrySeries| s.points.first().map(|p| p.0);
        (first(a), &a.id).cmp(&(first(b), &b.id))
    });
    let escalations = raised
        .into_iter()
        .map(|(time, thread, reason, outcome)| EscalationMark {
            outcome: settled
                .get(&(time, thread.clone()))
                .cloned()
                .unwrap_or(outcome),
            time,
            thread,
            reason,
        })
        .collect();
    Model {
        title: title.to_string(),
        window: Window { from, to },
        settings,
        ticks,
        entries: done,
        escalations,
        links,
        notes,
    }
}

fn series(
    id: &str,
    category: Category,
    summary: &str,
    first: (DateTime<Utc>, crate::state::Strength),
) -> EntrySeries {
    EntrySeries {
        id: id.to_string(),
        category,
        summary: summary.to_string(),
        points: vec![first],
        left: None,
    }
}

/// What a replayed tick did, with what its recorded calls used.
fn tick_stats(frame: &crate::replay::Frame, recorded: Option<&Tick>) -> TickStats {
    let mut removed: BTreeMap<String, u32> = BTreeMap::new();
    for a in &frame.report.removed {
        *removed.entry(a.reason.word().into_owned()).or_default() += 1;
    }
    let mut stats = TickStats {
        time: frame.time,
        added: u32::try_from(frame.report.added.len()).unwrap_or(u32::MAX),
        removed,
        ..TickStats::default()
    };
    let Some(recorded) = recorded else {
        return stats;
    };
    for t in &recorded.line.threads {
        match t.status {
            Status::Failed => stats.failed.push(t.thread),
            Status::Skipped => stats.skipped.push(t.thread),
            Status::Answered | Status::Unknown(_) => {}
        }
        add_usage(
            &mut stats,
            t.provider.as_ref(),
            Usage {
                tokens_in: t.tokens_in,
                tokens_out: t.tokens_out,
                cost: t.cost,
            },
        );
    }
    if let Some(esc) = &recorded.escalation {
        let work = &esc.escalation;
        add_usage(
            &mut stats,
            work.provider.as_ref(),
            Usage {
                tokens_in: work.tokens_in,
                tokens_out: work.tokens_out,
                cost: work.cost,
            },
        );
    }
    stats
}

/// Counts what a thread's or an escalation's calls used, by provider.
fn add_usage(stats: &mut TickStats, provider: Option<&String>, usage: Usage) {
    if let Some(provider) = provider {
        stats.usage.entry(provider.clone()).or_default().add(usage);
    }
}

//! `thinker explain ID [--json]`: the life of one entry, from a replay of the journal
//! with the config's settings ([`crate::replay::explain`]): the finding it came from
//! (thread, summary, importance, tick), every time it was seen again (by which thread,
//! from which finding and how similar, or by the agent's word), its strength over time,
//! and how it left (decayed, pruned, budget, rejected). Reads only. Exit 0, or 1 when the
//! journal never had the id (with the ids it has that look alike).

use std::fmt::Write as _;

use crate::cli::ExplainArgs;
use crate::clock::Clock;
use crate::cmd::Context;
use crate::cmd::shared::{replay_dir, settings};
use crate::error::{EXIT_FAILED, EXIT_OK, Error, to_json_pretty};
use crate::replay::explain::{self, Life, Seen};
use crate::replay::{Frame, Replay};
use crate::state::Strength;
use crate::untrusted;

pub fn run(ctx: &mut Context<'_>, args: &ExplainArgs) -> Result<u8, Error> {
    let resolved = ctx.optional_config()?;
    let settings = settings(resolved.config, &[])?;
    let (journal, replay) = replay_dir(&resolved.state_dir, None, &settings)?;
    let id = args.id.trim();
    let lives = explain::explain(id, &replay.current, &journal);
    // Like `replay` and `report`: a journal that stops being readable is said, on stderr
    // whatever the format (after a torn line `explain` told a wrong story
    // without a word).
    let stopped = journal.stopped.as_ref().map(|stop| {
        let unread = if journal.unread == 0 {
            String::new()
        } else {
            format!(" ({} line(s) after it not read)", journal.unread)
        };
        format!(
            "warning: the journal stops being readable at {stop}: this account ends there{unread}\n"
        )
    });
    if let Some(warning) = &stopped {
        ctx.stderr(warning)?;
    }
    if args.json {
        let text = to_json_pretty(&lives, "the entry's life")?;
        ctx.stdout(text.as_bytes())?;
        return Ok(if lives.is_empty() {
            EXIT_FAILED
        } else {
            EXIT_OK
        });
    }
    if lives.is_empty() {
        let alike = alike(id, &replay);
        let hint = if alike.is_empty() {
            String::from("`thinker show` lists the ids in memory now")
        } else {
            format!("ids that look alike: {}", alike.join(", "))
        };
        let read = if stopped.is_some() {
            " as far as it could be read"
        } else {
            ""
        };
        ctx.stderr(&format!(
            "thinker: no tick in the journal{read} added or saw `{}` ({hint})\n",
            untrusted::excerpt(id, 80)
        ))?;
        return Ok(EXIT_FAILED);
    }
    let mut text = stopped.unwrap_or_default();
    if !replay.check.faithful() {
        text.push_str("warning: the replay did not reproduce every recorded state (see `thinker replay`): this account may differ from what happened\n");
    }
    for (n, life) in lives.iter().enumerate() {
        if n > 0 {
            text.push('\n');
        }
        render(&mut text, life, &ctx.clock);
    }
    ctx.stdout(text.as_bytes())?;
    Ok(EXIT_OK)
}

/// Ids of the journal sharing the most leading characters with `id` (at most 5).
fn alike(id: &str, replay: &Replay) -> Vec<String> {
    let mut ids: Vec<String> = replay
        .current
        .frames
        .iter()
        .flat_map(|f: &Frame| f.points.iter().map(|p| p.id.clone()))
        .collect();
    ids.sort();
    ids.dedup();
    let common = |a: &str| {
        a.chars()
            .zip(id.chars())
            .take_while(|(x, y)| x == y)
            .count()
    };
    let best = ids.iter().map(|i| common(i)).max().unwrap_or(0);
    if best < 3 {
        return Vec::new();
    }
    ids.into_iter()
        .filter(|i| common(i) == best)
        .take(5)
        .collect()
}

fn render(s: &mut String, life: &Life, clock: &Clock) {
    let _ = writeln!(
        s,
        "{}  \"{}\"",
        life.id,
        untrusted::excerpt(&life.summary, 120)
    );
    match &life.origin {
        Some(o) => {
            let merged = if o.findings > 1 {
                format!(", {} findings of that tick merged", o.findings)
            } else {
                String::new()
            };
            let _ = writeln!(
                s,
                "  added    {}  run {}: the {}'s {} finding{}, importance {}{merged} → {} at strength {}",
                clock.wall(o.time),
                o.run,
                o.thread,
                format!("{:?}", o.kind).to_lowercase(),
                if o.from.len() == 1 && o.from[0] == o.thread.as_str() {
                    String::new()
                } else {
                    from_text(&o.from)
                },
                o.importance,
                o.category.key(),
                crate::aggregate::add::new_strength(o.importance)
            );
        }
        None => {
            let _ = writeln!(s, "  (already in memory when the journal begins)");
        }
    }
    // Strength, compressed: one line per tick it was seen, runs of unseen ticks folded.
    let mut quiet: Vec<Strength> = Vec::new();
    let flush = |s: &mut String, quiet: &mut Vec<Strength>| {
        match quiet.as_slice() {
            [] => {}
            [only] => {
                let _ = writeln!(s, "  unseen   1 tick: strength {only}");
            }
            [first, .., last] => {
                let _ = writeln!(
                    s,
                    "  unseen   {} ticks: strength {first} → {last}",
                    quiet.len()
                );
            }
        }
        quiet.clear();
    };
    let skip_first = usize::from(life.origin.is_some());
    let left_at = life.departure.as_ref().map(|d| d.time);
    for step in life.steps.iter().skip(skip_first) {
        if Some(step.time) == left_at {
            continue;
        }
        if !step.linked.is_empty() || !step.unlinked.is_empty() {
            flush(s, &mut quiet);
            links(s, step, clock);
        }
        if step.seen.is_empty() {
            if step.strength > Strength::ZERO {
                quiet.push(step.strength);
            }
            continue;
        }
        flush(s, &mut quiet);
        let _ = writeln!(
            s,
            "  seen     {}  run {}: strength {} — {}{}",
            clock.wall(step.time),
            step.run,
            step.strength,
            reasons(&step.seen),
            step.due_moved_to
                .map(|to| format!("; due moved to {}", clock.wall(to)))
                .unwrap_or_default()
        );
    }
    flush(s, &mut quiet);
    departure(s, life, clock);
}

/// The links a tick made to the entry, and those that went.
fn links(s: &mut String, step: &explain::Step, clock: &Clock) {
    for l in &step.linked {
        let _ = writeln!(
            s,
            "  linked   {}  run {}: {} [{}] (by the {})",
            clock.wall(step.time),
            step.run,
            l.kind.as_str(),
            untrusted::clean_line(&l.other),
            l.by
        );
    }
    for l in &step.unlinked {
        let why = if l.by == "left" {
            "it left the memory"
        } else {
            "newer links took its place"
        };
        let _ = writeln!(
            s,
            "  unlinked {}  run {}: {} [{}]: {why}",
            clock.wall(step.time),
            step.run,
            l.kind.as_str(),
            untrusted::clean_line(&l.other)
        );
    }
}

/// Provenance for people: ` from watcher/inbox, oracle` (nothing when unknown).
fn from_text(from: &[String]) -> String {
    if from.is_empty() {
        return String::new();
    }
    let list: Vec<String> = from.iter().map(|f| untrusted::clean_line(f)).collect();
    format!(" from {}", list.join(", "))
}

/// Why it was seen, for people.
fn reasons(seen: &[Seen]) -> String {
    seen.iter()
        .map(|seen| match seen {
            Seen::Agent => "the agent used it".to_string(),
            Seen::Thread { thread } => format!("the {thread} listed it"),
            Seen::Finding {
                thread,
                summary,
                similarity,
                from,
            } => format!(
                "the {thread}'s finding{} \"{}\" matched ({similarity:.2})",
                from.strip_prefix(thread.as_str())
                    .and_then(|f| f.strip_prefix('/'))
                    .map(|source| format!(" in {}", untrusted::clean_line(source)))
                    .unwrap_or_default(),
                untrusted::excerpt(summary, 60)
            ),
        })
        .collect::<Vec<_>>()
        .join("; ")
}

fn departure(s: &mut String, life: &Life, clock: &Clock) {
    let Some(d) = &life.departure else {
        let last = life.steps.last().map_or(Strength::ZERO, |st| st.strength);
        match &life.now {
            Some(now) => {
                let _ = writeln!(
                    s,
                    "  still in memory at strength {} (importance {}, seen in {} tick{}{}{}{})",
                    now.strength,
                    now.importance,
                    now.sightings,
                    if now.sightings == 1 { "" } else { "s" },
                    from_text(&now.from),
                    now.due
                        .map(|due| format!(", due {}", clock.wall(due)))
                        .unwrap_or_default(),
                    if now.tainted {
                        ", from untrusted text"
                    } else {
                        ""
                    }
                );
            }
            None => {
                let _ = writeln!(s, "  still in memory at strength {last}");
            }
        }
        return;
    };
    {
        {
            let how = match d.reason {
                crate::aggregate::RemovalReason::Decayed => {
                    "decayed: its strength reached 0".to_string()
                }
                crate::aggregate::RemovalReason::Pruned => format!(
                    "pruned at strength {}: its category was over its cap",
                    d.strength
                ),
                crate::aggregate::RemovalReason::Budget => format!(
                    "removed at strength {} to fit the memory's token budget",
                    d.strength
                ),
                crate::aggregate::RemovalReason::Rejected => match &d.note {
                    Some(note) => format!(
                        "rejected by the agent (\"{}\")",
                        untrusted::excerpt(note, 80)
                    ),
                    None => "rejected by the agent".to_string(),
                },
                crate::aggregate::RemovalReason::Merged => format!(
                    "merged into {} at strength {}: the two were one fact",
                    d.into.as_deref().unwrap_or("another entry"),
                    d.strength
                ),
                crate::aggregate::RemovalReason::Retired(why) => format!(
                    "retired at strength {}: a thread said it is {}",
                    d.strength,
                    match why {
                        crate::answer::RetireWhy::Cancelled => "cancelled",
                        crate::answer::RetireWhy::Done => "done",
                        crate::answer::RetireWhy::Wrong => "wrong (no longer true)",
                    }
                ),
            };
            let seen_then = life
                .steps
                .last()
                .filter(|st| st.time == d.time && !st.seen.is_empty())
                .map_or_else(String::new, |st| {
                    format!("seen again ({}), but ", reasons(&st.seen))
                });
            let _ = writeln!(
                s,
                "  left     {}  run {}: {seen_then}{how}; it is in archive.jsonl",
                clock.wall(d.time),
                d.run
            );
        }
    }
}

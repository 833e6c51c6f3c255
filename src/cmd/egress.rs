//! `thinker stats --egress [--json]` and `doctor`'s egress line (SPEC §9): the egress
//! ledger (each attempt's `egress` record in the journal, threads' and escalations')
//! summed per provider and local day ([`crate::egress::Summary`]), since `--since`;
//! `doctor` says in one line what left today.
//!
//! Reads only; works without a config. Must not compute the sums itself (the summary
//! does), nor read the real clock (the context's).

use std::fmt::Write as _;

use chrono::{DateTime, Utc};

use crate::cli::StatsArgs;
use crate::clock::Clock;
use crate::cmd::Context;
use crate::cmd::shared::{egress_summary, local, warn_skipped};
use crate::cmd::since_instant;
use crate::egress::{Summary, bytes};
use crate::error::{EXIT_OK, Error, to_json_pretty};
use crate::timestamp;
use crate::untrusted;

#[derive(serde::Serialize)]
struct Json<'a> {
    since: String,
    until: String,
    #[serde(flatten)]
    summary: &'a Summary,
}

/// `thinker stats --egress [--json]`.
pub fn run(ctx: &mut Context<'_>, args: &StatsArgs) -> Result<u8, Error> {
    let resolved = ctx.optional_config()?;
    let since = since_instant(args.since, &ctx.clock);
    let (summary, skipped) = egress_summary(&resolved.state_dir, since, &ctx.clock)?;
    warn_skipped(ctx, &skipped, "journal")?;
    let text = if args.json {
        to_json_pretty(
            &Json {
                since: timestamp::format(since),
                until: timestamp::format(ctx.clock.now),
                summary: &summary,
            },
            "the egress ledger",
        )?
    } else {
        render(&summary, &ctx.clock, since)
    };
    ctx.stdout(text.as_bytes())?;
    Ok(EXIT_OK)
}

fn render(s: &Summary, clock: &Clock, since: DateTime<Utc>) -> String {
    let mut out = String::new();
    let _ = writeln!(
        out,
        "What left the machine since {} ({})",
        local(clock, since),
        crate::clock::age(since, clock.now),
    );
    let _ = writeln!(
        out,
        "  {:<10} {:<16} {:<6} {:>5} {:>9} {:>8}  withheld",
        "day", "provider", "where", "calls", "sent", "redacted"
    );
    if s.days.is_empty() {
        let _ = writeln!(out, "  (nothing)");
    }
    for d in &s.days {
        let redacted: u64 = d.redactions.values().sum();
        let mut withheld: Vec<String> = d
            .withheld
            .iter()
            .map(|w| untrusted::excerpt(w, 24))
            .collect();
        if d.withheld_items > 0 {
            withheld.push(format!("{} memory items", d.withheld_items));
        }
        let line = format!(
            "  {:<10} {:<16} {:<6} {:>5} {:>9} {:>8}  {}",
            d.day,
            untrusted::excerpt(&d.provider, 16),
            match d.reach {
                crate::privacy::Reach::Local => "local",
                crate::privacy::Reach::Remote => "remote",
            },
            d.calls,
            bytes(d.bytes),
            redacted,
            if withheld.is_empty() {
                "-".to_string()
            } else {
                withheld.join(", ")
            }
        );
        let _ = writeln!(out, "{}", line.trim_end());
    }
    let _ = writeln!(out, "\nIn all: {}", s.line());
    out
}

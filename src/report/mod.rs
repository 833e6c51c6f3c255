//! `thinker report --html`: the history of the subconscious drawn as ONE self-contained
//! HTML page — each entry's strength over time, additions and removals per day,
//! escalations and their outcomes, tokens and cost per day per provider, thread failures
//! and skips — for one set of settings ([`render`]) or two side by side ([`render_pair`],
//! the current settings against `--set` overrides).
//!
//! Owns the rendering only: a [`Model`] of plain data in, the page's text out. The page
//! has inline CSS and inline SVG and nothing else: no script (hover text is SVG
//! `<title>`, highlighting is CSS `:hover`), no font, image, stylesheet or link from
//! anywhere, and a Content-Security-Policy that forbids loading or running anything,
//! so it reads the same offline, in a mail attachment or on paper. Every text from the
//! model is cleaned and HTML-escaped ([`text::esc`]). Days are local days in the
//! [`Zone`] passed in. The output is deterministic: the same model and zone give the
//! same bytes.
//!
//! Must not: read files or the journal (the caller fills the [`Model`], e.g. from a
//! replay), read a clock or the machine's zone, or emit anything that loads from
//! elsewhere.

mod model;
mod svg;
mod text;

use std::collections::{BTreeMap, BTreeSet};
use std::fmt::Write;

use chrono::TimeDelta;

pub use model::{
    DayStats, Departure, EntrySeries, EscalationMark, LinkRow, Model, TickStats, Usage, Window,
    days,
};
pub use svg::{Frame, downsample};
pub use text::esc;

use crate::clock::Zone;
use crate::state::Category;
use crate::thread::ThreadName;
use text::{OUTCOME_CLASSES, esc_cut, num, offset, outcome_class, usd, when};

/// At most this many escalations are listed in the table (the latest); all are drawn.
const ESCALATION_ROWS: usize = 100;

/// The page for one model.
pub fn render(model: &Model, zone: Zone) -> String {
    page(&[model], zone)
}

/// The page for two models side by side: `current` (the settings as they are) and
/// `other` (the same history replayed with overrides), every section in two columns and
/// a table of what changed at the top.
pub fn render_pair(current: &Model, other: &Model, zone: Zone) -> String {
    page(&[current, other], zone)
}

/// The stylesheet: inline, no `@import`, no `url(`.
const CSS: &str = "\
:root{color-scheme:light}\n\
body{font:14px/1.45 system-ui,-apple-system,'Segoe UI',Roboto,'DejaVu Sans',sans-serif;margin:24px auto;max-width:1200px;padding:0 16px;color:#222;background:#fff;-webkit-print-color-adjust:exact;print-color-adjust:exact}\n\
h1{font-size:22px;margin:0 0 4px}\n\
h2{font-size:18px;border-bottom:1px solid #ddd;padding-bottom:4px;margin:32px 0 8px}\n\
h3{font-size:15px;margin:8px 0}\n\
p.meta,p.note,p.empty{color:#555;margin:4px 0}\n\
table{border-collapse:collapse;font-variant-numeric:tabular-nums;margin:8px 0}\n\
th,td{padding:2px 10px 2px 0;border-bottom:1px solid #eee;text-align:left;vertical-align:top}\n\
th.n,td.n{text-align:right}\n\
td.text{max-width:520px;overflow-wrap:anywhere}\n\
.pair{display:grid;grid-template-columns:minmax(0,1fr) minmax(0,1fr);gap:20px}\n\
svg.chart{width:100%;height:auto;display:block;font-size:11px;break-inside:avoid}\n\
.grid{stroke:#e6e6e6;stroke-width:1}.base{stroke:#999;stroke-width:1}.axis{fill:#666}\n\
.rug{stroke:#bbb;stroke-width:1}\n\
g.entry polyline{fill:none;stroke-width:1.6;stroke-linejoin:round;stroke-linecap:round;opacity:.75}\n\
g.entry:hover polyline{stroke-width:4;opacity:1}\n\
g.entry .gone{fill:none;stroke:#333;stroke-width:1.2}\n\
.active_threads polyline{stroke:#0072b2}.patterns polyline{stroke:#009e73}.hunches polyline{stroke:#e69f00}.insights polyline{stroke:#cc79a7}\n\
.k-active_threads{background:#0072b2}.k-patterns{background:#009e73}.k-hunches{background:#e69f00}.k-insights{background:#cc79a7}\n\
.marker circle{stroke:#333;stroke-width:.8}\n\
.o-notified circle{fill:#d55e00}.o-remembered circle{fill:#0072b2}.o-proposed circle{fill:#cc79a7}.o-held circle{fill:#e69f00}.o-dismissed circle{fill:#999}.o-suppressed circle{fill:#fff}.o-pending circle{fill:#f0e442}.o-failed circle{fill:#000}\n\
.k-o-notified{background:#d55e00}.k-o-remembered{background:#0072b2}.k-o-proposed{background:#cc79a7}.k-o-held{background:#e69f00}.k-o-dismissed{background:#999}.k-o-suppressed{background:#fff}.k-o-pending{background:#f0e442}.k-o-failed{background:#000}\n\
.added{fill:#009e73}.r-decayed{fill:#999}.r-pruned{fill:#e69f00}.r-budget{fill:#d55e00}.r-rejected{fill:#cc79a7}.r-other{fill:#555}\n\
.k-added{background:#009e73}.k-r-decayed{background:#999}.k-r-pruned{background:#e69f00}.k-r-budget{background:#d55e00}.k-r-rejected{background:#cc79a7}.k-r-other{background:#555}\n\
.p0{fill:#0072b2}.p1{fill:#e69f00}.p2{fill:#009e73}.p3{fill:#cc79a7}.p4{fill:#56b4e9}.p5{fill:#d55e00}\n\
.k-p0{background:#0072b2}.k-p1{background:#e69f00}.k-p2{background:#009e73}.k-p3{background:#cc79a7}.k-p4{background:#56b4e9}.k-p5{background:#d55e00}\n\
.figures{display:flex;flex-wrap:wrap;gap:6px 10px}.figure{border:1px solid #e3e3e3;border-radius:4px;padding:3px 9px;color:#444}.figure b{color:#111;font-variant-numeric:tabular-nums}\n\
.legend{margin:4px 0;color:#444;font-size:13px}\n\
.key{display:inline-block;width:11px;height:11px;border:1px solid #666;border-radius:2px;margin:0 4px 0 10px;vertical-align:-1px}\n\
.up{color:#0a7d3b}.down{color:#b3261e}\n\
footer{margin:40px 0 8px;color:#777;font-size:12px}\n\
@media print{body{margin:0;max-width:none;font-size:11px}h2{break-after:avoid}.pair{gap:10px}}\n\
";

/// The whole page for one model or two.
fn page(models: &[&Model], zone: Zone) -> String {
    let Some(first) = models.first() else {
        return String::new();
    };
    let mut out = String::with_capacity(64 * 1024);
    let _ = write!(
        out,
        "<!DOCTYPE html>\n<html lang=\"en\">\n<head>\n<meta charset=\"utf-8\">\n\
<meta http-equiv=\"Content-Security-Policy\" content=\"default-src 'none'; style-src 'unsafe-inline'\">\n\
<meta name=\"viewport\" content=\"width=device-width, initial-scale=1\">\n\
<title>{}</title>\n<style>\n{CSS}</style>\n</head>\n<body>\n",
        esc(&first.title)
    );
    header(&mut out, models, zone);
    let days: Vec<Vec<DayStats>> = models.iter().map(|m| days(m, zone)).collect();
    out.push_str("<section id=\"summary\">\n<h2>Summary</h2>\n");
    summary(&mut out, models, &days);
    out.push_str("</section>\n");
    section(
        &mut out,
        "strength",
        "Strength over time",
        models,
        |out, _, m| {
            strength(out, m, zone);
        },
    );
    section(
        &mut out,
        "days",
        "Additions and removals per day",
        models,
        |out, i, m| additions(out, m, &days[i], zone),
    );
    section(
        &mut out,
        "escalations",
        "Escalations",
        models,
        |out, _, m| {
            escalations(out, m, zone);
        },
    );
    if models.iter().any(|m| !m.links.is_empty()) {
        section(
            &mut out,
            "links",
            "Links between entries",
            models,
            |out, _, m| {
                links(out, m, zone);
            },
        );
    }
    section(
        &mut out,
        "usage",
        "Tokens and cost per day",
        models,
        |out, i, m| usage(out, m, &days[i], zone),
    );
    section(
        &mut out,
        "threads",
        "Thread failures and skips",
        models,
        |out, i, m| threads(out, m, &days[i]),
    );
    out.push_str(
        "<footer>Made by <code>thinker report</code>: one file, no script, nothing loaded \
from elsewhere. Hover a line or a marker for its text.</footer>\n</body>\n</html>\n",
    );
    out
}

/// The heading: title, window, zone, the settings of each side, the notes.
fn header(out: &mut String, models: &[&Model], zone: Zone) {
    let Some(first) = models.first() else {
        return;
    };
    let w = first.window;
    let _ = write!(
        out,
        "<header>\n<h1>{}</h1>\n<p class=\"meta\">{} to {} ({}) · {} ticks</p>\n",
        esc(&first.title),
        when(zone, w.from),
        when(zone, w.to),
        offset(zone, w.to),
        num(first.ticks.len() as u64)
    );
    for (i, m) in models.iter().enumerate() {
        let _ = write!(
            out,
            "<p class=\"meta\"><b>{}</b>",
            side_name(models.len(), i)
        );
        if m.settings.is_empty() {
            out.push_str(": the settings of the config file");
        } else {
            out.push_str(": the config file with ");
            for (k, (key, value)) in m.settings.iter().enumerate() {
                if k > 0 {
                    out.push_str(", ");
                }
                let _ = write!(out, "<code>{}={}</code>", esc(key), esc(value));
            }
        }
        out.push_str("</p>\n");
        for note in &m.notes {
            let _ = writeln!(out, "<p class=\"note\">{}</p>", esc(note));
        }
    }
    out.push_str("</header>\n");
}

/// What a side is called.
fn side_name(sides: usize, i: usize) -> &'static str {
    match (sides, i) {
        (1, _) => "Settings",
        (_, 0) => "Current settings",
        _ => "With overrides",
    }
}

/// One `<section>`: a heading, then `body` for the model, or for each model in a column.
fn section(
    out: &mut String,
    id: &str,
    heading: &str,
    models: &[&Model],
    mut body: impl FnMut(&mut String, usize, &Model),
) {
    let _ = write!(out, "<section id=\"{id}\">\n<h2>{heading}</h2>\n");
    if models.len() == 1 {
        for (i, m) in models.iter().enumerate() {
            body(out, i, m);
        }
    } else {
        out.push_str("<div class=\"pair\">\n");
        for (i, m) in models.iter().enumerate() {
            let _ = write!(
                out,
                "<div class=\"side\">\n<h3>{}</h3>\n",
                side_name(models.len(), i)
            );
            body(out, i, m);
            out.push_str("</div>\n");
        }
        out.push_str("</div>\n");
    }
    out.push_str("</section>\n");
}

/// A figure of the summary.
#[derive(Clone, Copy, Debug, PartialEq)]
enum Figure {
    Count(u64),
    Hours(f64),
    Usd(f64),
}

impl Figure {
    fn value(self) -> f64 {
        match self {
            Figure::Count(n) => n as f64,
            Figure::Hours(h) | Figure::Usd(h) => h,
        }
    }

    fn show(self) -> String {
        match self {
            Figure::Count(n) => num(n),
            Figure::Hours(h) => format!("{h:.1} h"),
            Figure::Usd(c) => usd(c),
        }
    }

    /// `other - self` in the same unit, with its sign.
    fn change(self, other: Figure) -> String {
        let d = other.value() - self.value();
        if d.abs() < 1e-9 {
            return "=".into();
        }
        let sign = if d > 0.0 { "+" } else { "−" };
        let magnitude = match self {
            Figure::Count(_) => num(d.abs().round() as u64),
            Figure::Hours(_) => format!("{:.1} h", d.abs()),
            Figure::Usd(_) => usd(d.abs()),
        };
        format!("{sign}{magnitude}")
    }
}

/// The summary's figures for one model, in display order.
fn figures(model: &Model, days: &[DayStats]) -> Vec<(String, Figure)> {
    let mut out = vec![
        ("ticks".to_string(), Figure::Count(model.ticks.len() as u64)),
        (
            "entries that lived".to_string(),
            Figure::Count(model.entries.len() as u64),
        ),
        (
            "in memory at the end".to_string(),
            Figure::Count(model.entries.iter().filter(|e| e.left.is_none()).count() as u64),
        ),
    ];
    let mut left: BTreeMap<&str, u64> = BTreeMap::new();
    let mut lifetimes: Vec<TimeDelta> = Vec::new();
    for e in &model.entries {
        if let Some(d) = &e.left {
            *left.entry(d.reason.as_str()).or_default() += 1;
            if let Some(start) = e.points.iter().map(|p| p.0).min() {
                lifetimes.push(d.time - start);
            }
        }
    }
    for (reason, n) in left {
        out.push((format!("left: {reason}"), Figure::Count(n)));
    }
    let hours = |d: TimeDelta| d.num_seconds() as f64 / 3600.0;
    if !lifetimes.is_empty() {
        let sum: f64 = lifetimes.iter().map(|d| hours(*d)).sum();
        out.push((
            "average lifetime of those that left".to_string(),
            Figure::Hours(sum / lifetimes.len() as f64),
        ));
        let longest = lifetimes.iter().copied().max().unwrap_or_default();
        out.push((
            "longest lifetime".to_string(),
            Figure::Hours(hours(longest)),
        ));
    }
    out.push((
        "escalations".to_string(),
        Figure::Count(model.escalations.len() as u64),
    ));
    let mut by_class: BTreeMap<&str, u64> = BTreeMap::new();
    for m in &model.escalations {
        *by_class.entry(outcome_class(&m.outcome).1).or_default() += 1;
    }
    for (_, label) in OUTCOME_CLASSES {
        if let Some(n) = by_class.get(label) {
            out.push((format!("escalations {label}"), Figure::Count(*n)));
        }
    }
    let mut total = Usage::default();
    for d in days {
        total.add(d.usage_total());
    }
    out.push((
        "tokens (in + out)".to_string(),
        Figure::Count(total.tokens()),
    ));
    out.push(("cost".to_string(), Figure::Usd(total.cost)));
    out
}

/// The summary table: one column per model, and the change when there are two.
fn summary(out: &mut String, models: &[&Model], days: &[Vec<DayStats>]) {
    let sides: Vec<Vec<(String, Figure)>> = models
        .iter()
        .zip(days)
        .map(|(m, d)| figures(m, d))
        .collect();
    let mut labels: Vec<(String, Figure)> = Vec::new();
    for side in &sides {
        for (label, f) in side {
            if !labels.iter().any(|(l, _)| l == label) {
                labels.push((label.clone(), *f));
            }
        }
    }
    if let [one] = sides.as_slice() {
        out.push_str("<div class=\"figures\">\n");
        for (label, f) in one {
            let _ = writeln!(
                out,
                "<div class=\"figure\"><b>{}</b> {}</div>",
                f.show(),
                esc(label)
            );
        }
        out.push_str("</div>\n");
        return;
    }
    out.push_str("<table class=\"summary\">\n<tr><th></th>");
    for i in 0..models.len() {
        let _ = write!(out, "<th class=\"n\">{}</th>", side_name(models.len(), i));
    }
    if models.len() == 2 {
        out.push_str("<th class=\"n\">change</th>");
    }
    out.push_str("</tr>\n");
    for (label, kind) in &labels {
        let _ = write!(out, "<tr><td>{}</td>", esc(label));
        let zero = match kind {
            Figure::Count(_) => Figure::Count(0),
            Figure::Hours(_) => Figure::Hours(0.0),
            Figure::Usd(_) => Figure::Usd(0.0),
        };
        let values: Vec<Figure> = sides
            .iter()
            .map(|s| s.iter().find(|(l, _)| l == label).map_or(zero, |(_, f)| *f))
            .collect();
        for v in &values {
            let _ = write!(out, "<td class=\"n\">{}</td>", v.show());
        }
        if let [a, b] = values.as_slice() {
            let change = a.change(*b);
            let class = match change.chars().next() {
                Some('+') => " up",
                Some('−') => " down",
                _ => "",
            };
            let _ = write!(out, "<td class=\"n{class}\">{change}</td>");
        }
        out.push_str("</tr>\n");
    }
    out.push_str("</table>\n");
}

/// The strength timeline with its legends.
fn strength(out: &mut String, model: &Model, zone: Zone) {
    if model.ticks.is_empty() && model.entries.is_empty() {
        out.push_str("<p class=\"empty\">No ticks in this window: nothing to draw.</p>\n");
        return;
    }
    out.push_str("<div class=\"legend\">Categories:");
    for c in Category::ALL {
        let _ = write!(out, "<span class=\"key k-{0}\"></span>{0}", c.key());
    }
    out.push_str(" · ✕ where an entry left memory</div>\n<div class=\"legend\">Escalations:");
    for (class, label) in OUTCOME_CLASSES {
        let _ = write!(out, "<span class=\"key k-{class}\"></span>{label}");
    }
    out.push_str("</div>\n");
    svg::strength(out, model, zone);
    out.push('\n');
    if model.entries.is_empty() {
        out.push_str("<p class=\"empty\">No entry was in memory in this window.</p>\n");
    }
}

/// The additions and removals chart and table.
fn additions(out: &mut String, model: &Model, days: &[DayStats], zone: Zone) {
    if days.is_empty() {
        out.push_str("<p class=\"empty\">No ticks in this window.</p>\n");
        return;
    }
    let reasons: BTreeSet<&str> = days
        .iter()
        .flat_map(|d| d.removed.keys().map(String::as_str))
        .collect();
    out.push_str("<div class=\"legend\"><span class=\"key k-added\"></span>added (up)");
    for r in &reasons {
        let _ = write!(
            out,
            "<span class=\"key k-r-{}\"></span>{} (down)",
            svg::reason_class(r),
            esc(r)
        );
    }
    out.push_str("</div>\n");
    let slots = svg::day_slots(model, days, zone);
    svg::day_bars(out, &slots);
    out.push_str("\n<table class=\"days\">\n<tr><th>day</th><th class=\"n\">ticks</th><th class=\"n\">added</th>");
    for r in &reasons {
        let _ = write!(out, "<th class=\"n\">{}</th>", esc(r));
    }
    out.push_str("<th class=\"n\">escalations</th></tr>\n");
    for d in days {
        let _ = write!(
            out,
            "<tr><td>{}</td><td class=\"n\">{}</td><td class=\"n\">{}</td>",
            d.day.format("%a %Y-%m-%d"),
            d.ticks,
            d.added
        );
        for r in &reasons {
            let _ = write!(
                out,
                "<td class=\"n\">{}</td>",
                d.removed.get(*r).copied().unwrap_or(0)
            );
        }
        let _ = writeln!(out, "<td class=\"n\">{}</td></tr>", d.escalations);
    }
    out.push_str("</table>\n");
}

/// The escalations table (the latest [`ESCALATION_ROWS`]).
fn escalations(out: &mut String, model: &Model, zone: Zone) {
    let n = model.escalations.len();
    if n == 0 {
        out.push_str("<p class=\"empty\">No escalation in this window.</p>\n");
        return;
    }
    let skip = n.saturating_sub(ESCALATION_ROWS);
    if skip > 0 {
        let _ = writeln!(
            out,
            "<p class=\"note\">The latest {ESCALATION_ROWS} of {}; all are drawn on the timeline.</p>",
            num(n as u64)
        );
    }
    out.push_str(
        "<table class=\"escalations\">\n<tr><th>time</th><th>thread</th><th>reason</th><th>outcome</th></tr>\n",
    );
    for m in model.escalations.iter().skip(skip) {
        let (class, _) = outcome_class(&m.outcome);
        let _ = writeln!(
            out,
            "<tr><td>{}</td><td>{}</td><td class=\"text\">{}</td><td class=\"text\"><span class=\"key k-{class}\"></span>{}</td></tr>",
            when(zone, m.time),
            esc(&m.thread),
            esc_cut(&m.reason, 480),
            esc_cut(&m.outcome.to_string(), 480)
        );
    }
    out.push_str("</table>\n");
}

/// The links made in the window, newest last: a contradiction is marked, a link that
/// went says when and why. Listed rather than drawn: lines between the timeline's
/// polylines would cross every other entry's.
fn links(out: &mut String, model: &Model, zone: Zone) {
    if model.links.is_empty() {
        out.push_str("<p class=\"empty\">No link in this window.</p>\n");
        return;
    }
    let skip = model.links.len().saturating_sub(ESCALATION_ROWS);
    if skip > 0 {
        let _ = writeln!(
            out,
            "<p class=\"note\">The latest {ESCALATION_ROWS} of {}.</p>",
            num(model.links.len() as u64)
        );
    }
    out.push_str(
        "<table class=\"links\">\n<tr><th>made</th><th>by</th><th>entry</th><th>link</th><th>entry</th><th>gone</th></tr>\n",
    );
    for l in model.links.iter().skip(skip) {
        let gone = l.gone.as_ref().map_or_else(String::new, |(t, why)| {
            format!("{} ({})", when(zone, *t), esc(why))
        });
        let _ = writeln!(
            out,
            "<tr><td>{}</td><td>{}</td><td><code>{}</code></td><td class=\"link-{}\">{}</td><td><code>{}</code></td><td>{gone}</td></tr>",
            when(zone, l.made),
            esc(&l.thread),
            esc_cut(&l.a, 120),
            esc(&l.kind),
            esc(&l.kind),
            esc_cut(&l.b, 120),
        );
    }
    out.push_str("</table>\n");
}

/// Tokens per day by provider (chart) and tokens and cost per day and provider (table).
fn usage(out: &mut String, model: &Model, days: &[DayStats], zone: Zone) {
    let providers: Vec<String> = days
        .iter()
        .flat_map(|d| d.usage.keys().cloned())
        .collect::<BTreeSet<String>>()
        .into_iter()
        .collect();
    if providers.is_empty() {
        out.push_str("<p class=\"empty\">No call was made in this window.</p>\n");
        return;
    }
    out.push_str("<div class=\"legend\">Providers:");
    for (i, p) in providers.iter().enumerate() {
        let _ = write!(out, "<span class=\"key k-p{}\"></span>{}", i % 6, esc(p));
    }
    out.push_str("</div>\n");
    let slots = svg::day_slots(model, days, zone);
    svg::usage_bars(out, &slots, &providers);
    out.push_str(
        "\n<table class=\"usage\">\n<tr><th>day</th><th>provider</th><th class=\"n\">tokens in</th><th class=\"n\">tokens out</th><th class=\"n\">cost</th></tr>\n",
    );
    let mut totals: BTreeMap<&str, Usage> = BTreeMap::new();
    for d in days {
        for (p, u) in &d.usage {
            totals.entry(p.as_str()).or_default().add(*u);
            let _ = writeln!(
                out,
                "<tr><td>{}</td><td>{}</td><td class=\"n\">{}</td><td class=\"n\">{}</td><td class=\"n\">{}</td></tr>",
                d.day.format("%a %Y-%m-%d"),
                esc(p),
                num(u.tokens_in),
                num(u.tokens_out),
                usd(u.cost)
            );
        }
    }
    for (p, u) in &totals {
        let _ = writeln!(
            out,
            "<tr><th>total</th><th>{}</th><th class=\"n\">{}</th><th class=\"n\">{}</th><th class=\"n\">{}</th></tr>",
            esc(p),
            num(u.tokens_in),
            num(u.tokens_out),
            usd(u.cost)
        );
    }
    out.push_str("</table>\n");
}

/// Failures and skips per day and thread (the days with either).
fn threads(out: &mut String, model: &Model, days: &[DayStats]) {
    if model.ticks.is_empty() {
        out.push_str("<p class=\"empty\">No ticks in this window.</p>\n");
        return;
    }
    let rows: Vec<&DayStats> = days
        .iter()
        .filter(|d| !d.failed.is_empty() || !d.skipped.is_empty())
        .collect();
    if rows.is_empty() {
        out.push_str("<p class=\"empty\">No thread failed or was skipped.</p>\n");
        return;
    }
    out.push_str(
        "<p class=\"note\">Failed / skipped ticks per thread; days with neither are left out.</p>\n<table class=\"threads\">\n<tr><th>day</th>",
    );
    for t in ThreadName::ALL {
        let _ = write!(out, "<th class=\"n\">{t}</th>");
    }
    out.push_str("</tr>\n");
    for d in rows {
        let _ = write!(out, "<tr><td>{}</td>", d.day.format("%a %Y-%m-%d"));
        for t in ThreadName::ALL {
            let f = d.failed.get(&t).copied().unwrap_or(0);
            let s = d.skipped.get(&t).copied().unwrap_or(0);
            let cell = if f == 0 && s == 0 {
                "–".to_string()
            } else {
                format!("{f} / {s}")
            };
            let _ = write!(out, "<td class=\"n\">{cell}</td>");
        }
        out.push_str("</tr>\n");
    }
    out.push_str("</table>\n");
}

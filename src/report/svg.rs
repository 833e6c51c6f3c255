//! The charts, as inline SVG: the strength timeline (one polyline per entry, the
//! escalations as markers under it), additions and removals per day, tokens per day by
//! provider. Hover text is SVG `<title>`, so the page needs no script.
//!
//! Owns the geometry: the time axis in the zone passed in, the scales, and the
//! downsampling that keeps a line at most four points per pixel column (the first, the
//! lowest, the highest and the last of the column: what a screen can show of it), so a
//! window of thousands of ticks still makes a small file. Must not read a clock or the
//! machine's zone, or emit anything that loads from elsewhere (no `href`, no `url(`).

use std::collections::BTreeMap;
use std::fmt::Write;

use chrono::{DateTime, Datelike, Days, NaiveDate, NaiveTime, TimeDelta, Utc};

use super::model::{DayStats, EntrySeries, EscalationMark, Model, Window};
use super::text::{esc, esc_cut, num, outcome_class, usd, when};
use crate::clock::Zone;
use crate::state::Strength;

/// The drawing's width in SVG units (it scales to the page).
const WIDTH: f64 = 1000.0;
/// Left of the plot (room for the y labels).
const LEFT: f64 = 44.0;
/// Width of the plot.
const PLOT_W: f64 = WIDTH - LEFT - 12.0;
/// Top of the strength plot.
const TOP: f64 = 12.0;
/// Height of one strength step.
const STEP: f64 = 22.0;
/// At most this many labels on a time axis.
const MAX_LABELS: i64 = 12;
/// At most this many escalations named in one marker's hover text.
const MARKER_NAMES: usize = 5;
/// Hover text of an entry: its summary cut to this many characters.
const SUMMARY_CHARS: usize = 300;

/// Maps instants of a window to x coordinates of the plot.
#[derive(Clone, Copy, Debug)]
pub struct Frame {
    from: DateTime<Utc>,
    span_s: f64,
}

impl Frame {
    /// A frame over `window`; a window under a minute is widened to an hour around it,
    /// so one tick is drawn in the middle.
    pub fn new(window: Window) -> Frame {
        let span = window.to - window.from;
        if span < TimeDelta::minutes(1) {
            return Frame {
                from: window.from - TimeDelta::minutes(30),
                span_s: 3600.0,
            };
        }
        Frame {
            from: window.from,
            span_s: span.num_seconds() as f64,
        }
    }

    fn to(self) -> DateTime<Utc> {
        self.from + TimeDelta::seconds(self.span_s as i64)
    }

    /// The x of `t`, clamped to the plot.
    pub fn x(self, t: DateTime<Utc>) -> f64 {
        let s = (t - self.from).num_seconds() as f64;
        let x = LEFT + (s / self.span_s).clamp(0.0, 1.0) * PLOT_W;
        (x * 10.0).round() / 10.0
    }

    /// The pixel column of `t` (1 SVG unit wide).
    fn column(self, t: DateTime<Utc>) -> i64 {
        self.x(t).round() as i64
    }
}

/// The y of a strength.
fn y(strength: Strength) -> f64 {
    TOP + STEP * (10.0 - strength.as_f64())
}

/// The bottom of the strength plot (strength 0).
fn plot_bottom() -> f64 {
    y(Strength::ZERO)
}

/// The instant local midnight begins `day` in `zone` (within the hour on a day whose
/// offset changes before noon; good enough for a grid line).
fn midnight(zone: Zone, day: NaiveDate) -> DateTime<Utc> {
    let naive = day.and_time(NaiveTime::MIN);
    let guess = naive.and_utc() + TimeDelta::hours(12);
    let offset =
        |t: DateTime<Utc>| TimeDelta::seconds(i64::from(zone.at(t).offset().local_minus_utc()));
    let first = naive.and_utc() - offset(guess);
    naive.and_utc() - offset(first)
}

/// Labelled instants of the time axis: local boundaries (hours or days) in `zone`, at
/// most [`MAX_LABELS`], each with its label.
fn axis(frame: Frame, zone: Zone) -> Vec<(DateTime<Utc>, String)> {
    const HOURS: [i64; 4] = [1, 3, 6, 12];
    const DAYS: [u64; 6] = [1, 2, 7, 14, 28, 91];
    let (from, to) = (frame.from, frame.to());
    let span_h = (to - from).num_hours().max(1);
    let first_day = zone.day(from);
    let last_day = zone.day(to);
    let mut out = Vec::new();
    if let Some(&step) = HOURS.iter().find(|&&h| span_h / h <= MAX_LABELS) {
        let mut day = first_day;
        while day <= last_day {
            let start = midnight(zone, day);
            for k in 0..24 / step {
                let t = start + TimeDelta::hours(k * step);
                if t >= from && t <= to {
                    let label = if k == 0 {
                        zone.at(t).format("%d %b").to_string()
                    } else {
                        zone.at(t).format("%H:%M").to_string()
                    };
                    out.push((t, label));
                }
            }
            let Some(next) = day.checked_add_days(Days::new(1)) else {
                break;
            };
            day = next;
        }
        return out;
    }
    let span_d = (span_h / 24).max(1);
    let step = DAYS
        .iter()
        .copied()
        .find(|&d| span_d / d.cast_signed() <= MAX_LABELS)
        .unwrap_or_else(|| (span_d / MAX_LABELS).max(1).unsigned_abs() + 1);
    let mut day = first_day;
    while day <= last_day {
        let t = midnight(zone, day);
        if t >= from && t <= to && u64::from(day.num_days_from_ce().unsigned_abs()) % step == 0 {
            out.push((t, zone.at(t).format("%d %b").to_string()));
        }
        let Some(next) = day.checked_add_days(Days::new(1)) else {
            break;
        };
        day = next;
    }
    out
}

/// The vertical grid lines and labels of the time axis, labels at `label_y`.
fn time_grid(out: &mut String, frame: Frame, zone: Zone, top: f64, bottom: f64, label_y: f64) {
    for (t, label) in axis(frame, zone) {
        let x = frame.x(t);
        let _ = writeln!(
            out,
            r#"<line class="grid" x1="{x:.1}" y1="{top:.1}" x2="{x:.1}" y2="{bottom:.1}"/><text class="axis" x="{x:.1}" y="{label_y:.1}" text-anchor="middle">{}</text>"#,
            esc(&label)
        );
    }
}

/// The points of one line after downsampling to at most four per pixel column (first,
/// lowest, highest, last) and dropping the inner points of flat runs: the drawn shape
/// is unchanged at the plot's resolution. Input in any order; output in time order.
pub fn downsample(frame: Frame, points: &[(DateTime<Utc>, Strength)]) -> Vec<(f64, Strength)> {
    let mut sorted: Vec<(DateTime<Utc>, Strength)> = points.to_vec();
    sorted.sort_by_key(|&(t, _)| t);
    let mut kept: Vec<(f64, Strength)> = Vec::new();
    let mut i = 0;
    while i < sorted.len() {
        let column = frame.column(sorted[i].0);
        let mut j = i;
        while j + 1 < sorted.len() && frame.column(sorted[j + 1].0) == column {
            j += 1;
        }
        let group = &sorted[i..=j];
        let (mut lo, mut hi) = (0, 0);
        for (k, p) in group.iter().enumerate() {
            if p.1 < group[lo].1 {
                lo = k;
            }
            if p.1 > group[hi].1 {
                hi = k;
            }
        }
        let mut picks = vec![0, lo, hi, group.len() - 1];
        picks.sort_unstable();
        picks.dedup();
        for k in picks {
            let (t, s) = group[k];
            kept.push((frame.x(t), s));
        }
        i = j + 1;
    }
    // Flat runs: only their ends matter.
    let mut out: Vec<(f64, Strength)> = Vec::with_capacity(kept.len());
    for (k, p) in kept.iter().enumerate() {
        let flat_before = k > 0 && kept[k - 1].1 == p.1;
        let flat_after = k + 1 < kept.len() && kept[k + 1].1 == p.1;
        if !(flat_before && flat_after) {
            out.push(*p);
        }
    }
    out
}

/// The `points` attribute of one entry's line; a single point becomes a short dash so
/// it shows.
fn polyline_points(frame: Frame, entry: &EntrySeries) -> String {
    let points = downsample(frame, &entry.points);
    let mut text = String::new();
    for (x, s) in &points {
        if !text.is_empty() {
            text.push(' ');
        }
        let _ = write!(text, "{x:.0},{:.0}", y(*s));
    }
    if let [(x, s)] = points.as_slice() {
        let _ = write!(text, " {:.0},{:.0}", x + 1.0, y(*s));
    }
    text
}

/// The strength timeline: grid, one `<g class="entry">` with a `<polyline>` per entry
/// (a cross where it left), the ticks as a rug and the escalations as markers under it.
pub fn strength(out: &mut String, model: &Model, zone: Zone) {
    let frame = Frame::new(model.window);
    let bottom = plot_bottom();
    let rug_y = bottom + 3.0;
    let band_y = bottom + 20.0;
    let label_y = bottom + 44.0;
    let height = label_y + 8.0;
    let _ = writeln!(
        out,
        r#"<svg class="chart strength" viewBox="0 0 {WIDTH:.0} {height:.0}" role="img" aria-label="strength of each entry over time, escalations under it"><title>Strength of each entry over time</title>"#
    );
    for s in (0..=10u8).step_by(2) {
        let yy = y(Strength::whole(s));
        let _ = writeln!(
            out,
            r#"<line class="grid" x1="{LEFT:.0}" y1="{yy:.0}" x2="{:.0}" y2="{yy:.0}"/><text class="axis" x="{:.0}" y="{:.0}" text-anchor="end">{s}</text>"#,
            LEFT + PLOT_W,
            LEFT - 6.0,
            yy + 4.0
        );
    }
    time_grid(out, frame, zone, TOP, band_y + 10.0, label_y);
    let _ = writeln!(
        out,
        r#"<text class="axis" x="{:.0}" y="{:.0}" text-anchor="end">esc.</text>"#,
        LEFT - 6.0,
        band_y + 4.0
    );
    // The ticks, one short stroke per pixel column that has one.
    let mut rug = String::new();
    let mut last = None;
    for tick in &model.ticks {
        let c = frame.column(tick.time);
        if last != Some(c) {
            let _ = write!(rug, "M{c} {rug_y:.0}v4");
            last = Some(c);
        }
    }
    if !rug.is_empty() {
        let _ = writeln!(
            out,
            r#"<path class="rug" d="{rug}"><title>ticks</title></path>"#
        );
    }
    for entry in &model.entries {
        entry_line(out, frame, zone, entry);
    }
    markers(out, frame, zone, &model.escalations, band_y);
    out.push_str("</svg>");
}

/// One entry's `<g>`: its hover text, its line, and a cross where it left.
fn entry_line(out: &mut String, frame: Frame, zone: Zone, entry: &EntrySeries) {
    let category = entry.category.key();
    let peak = entry
        .points
        .iter()
        .map(|p| p.1)
        .max()
        .unwrap_or(Strength::ZERO);
    let first = entry.points.iter().map(|p| p.0).min();
    let mut hover = format!("{} · {category} · {}", entry.id, entry.summary);
    if let Some(first) = first {
        let _ = write!(hover, " · from {} · peak {peak}", when(zone, first));
    }
    if let Some(left) = &entry.left {
        let _ = write!(hover, " · left {} ({})", when(zone, left.time), left.reason);
    }
    let _ = write!(
        out,
        r#"<g class="entry {category}"><title>{}</title><polyline points="{}"/>"#,
        esc_cut(&hover, SUMMARY_CHARS),
        polyline_points(frame, entry)
    );
    if let Some(left) = &entry.left {
        let last = entry
            .points
            .iter()
            .max_by_key(|p| p.0)
            .map_or(Strength::ZERO, |p| p.1);
        let (x, yy) = (frame.x(left.time), y(last));
        let _ = write!(
            out,
            r#"<path class="gone" d="M{:.0} {:.0}l6 6m0 -6l-6 6"/>"#,
            x - 3.0,
            yy - 3.0
        );
    }
    out.push_str("</g>\n");
}

/// The escalations as markers in the band under the plot, one per outcome class and
/// 4-unit bucket (so thousands stay a few hundred), each naming what it stands for.
fn markers(out: &mut String, frame: Frame, zone: Zone, marks: &[EscalationMark], band_y: f64) {
    let mut buckets: BTreeMap<(i64, &str), Vec<&EscalationMark>> = BTreeMap::new();
    for mark in marks {
        let (class, _) = outcome_class(&mark.outcome);
        buckets
            .entry((frame.column(mark.time) / 4, class))
            .or_default()
            .push(mark);
    }
    for ((_, class), group) in &buckets {
        let mut hover = String::new();
        for mark in group.iter().take(MARKER_NAMES) {
            if !hover.is_empty() {
                hover.push('\n');
            }
            let line = format!(
                "{} {}: {} → {}",
                when(zone, mark.time),
                mark.thread,
                mark.reason,
                mark.outcome
            );
            hover.push_str(&esc_cut(&line, 200));
        }
        if group.len() > MARKER_NAMES {
            let _ = write!(hover, "\nand {} more", group.len() - MARKER_NAMES);
        }
        let x = frame.x(group[0].time);
        let _ = writeln!(
            out,
            "<g class=\"marker {class}\"><title>{hover}</title><circle cx=\"{x:.1}\" cy=\"{band_y:.0}\" r=\"{}\"/></g>",
            if group.len() > 1 { 5 } else { 4 }
        );
    }
}

/// Every local day from the window's first to its last, each with its stats (empty
/// when nothing happened); the days present only, if the window spans more than ten
/// years.
pub fn day_slots(model: &Model, days: &[DayStats], zone: Zone) -> Vec<DayStats> {
    let first = zone.day(model.window.from);
    let last = zone.day(model.window.to);
    let present: BTreeMap<NaiveDate, &DayStats> = days.iter().map(|d| (d.day, d)).collect();
    if (last - first).num_days() > 3660 || last < first {
        return days.to_vec();
    }
    let mut out = Vec::new();
    let mut day = first;
    while day <= last {
        out.push(present.get(&day).map_or_else(
            || DayStats {
                day,
                ..DayStats::default()
            },
            |d| (*d).clone(),
        ));
        let Some(next) = day.checked_add_days(Days::new(1)) else {
            break;
        };
        day = next;
    }
    // Days outside the window (a tick clamped into it) are kept at the end.
    for d in days {
        if d.day < first || d.day > last {
            out.push(d.clone());
        }
    }
    out
}

/// The x of slot `i` of `n`, and a slot's width.
fn slot(i: usize, n: usize) -> (f64, f64) {
    let w = PLOT_W / n.max(1) as f64;
    (LEFT + w * i as f64, w)
}

/// Labels under day bars: at most [`MAX_LABELS`], evenly spaced.
fn day_labels(out: &mut String, slots: &[DayStats], label_y: f64) {
    let n = slots.len();
    let every = n.div_ceil(MAX_LABELS as usize).max(1);
    for (i, d) in slots.iter().enumerate() {
        if i % every == 0 {
            let (x, w) = slot(i, n);
            let _ = write!(
                out,
                r#"<text class="axis" x="{:.1}" y="{label_y:.0}" text-anchor="middle">{}</text>"#,
                x + w / 2.0,
                d.day.format("%d %b")
            );
        }
    }
}

/// Additions (up, green) and removals by reason (down, stacked) per local day.
pub fn day_bars(out: &mut String, slots: &[DayStats]) {
    const HALF: f64 = 90.0;
    let base = TOP + HALF;
    let label_y = base + HALF + 18.0;
    let height = label_y + 8.0;
    let max = slots
        .iter()
        .map(|d| d.added.max(d.removed_total()))
        .max()
        .unwrap_or(0)
        .max(1);
    let scale = HALF / f64::from(max);
    let _ = write!(
        out,
        r#"<svg class="chart days" viewBox="0 0 {WIDTH:.0} {height:.0}" role="img" aria-label="entries added and removed per day"><title>Entries added (up) and removed (down) per day</title>"#
    );
    let _ = write!(
        out,
        r#"<line class="base" x1="{LEFT:.0}" y1="{base:.0}" x2="{:.0}" y2="{base:.0}"/><text class="axis" x="{:.0}" y="{:.0}" text-anchor="end">+{max}</text><text class="axis" x="{:.0}" y="{:.0}" text-anchor="end">−{max}</text>"#,
        LEFT + PLOT_W,
        LEFT - 6.0,
        TOP + 4.0,
        LEFT - 6.0,
        base + HALF + 4.0
    );
    let n = slots.len();
    for (i, d) in slots.iter().enumerate() {
        if d.added == 0 && d.removed_total() == 0 {
            continue;
        }
        let (x, w) = slot(i, n);
        let (bx, bw) = (x + w * 0.15, (w * 0.7).max(0.5));
        let mut hover = format!(
            "{}: {} added, {} removed",
            d.day,
            d.added,
            d.removed_total()
        );
        for (reason, count) in &d.removed {
            let _ = write!(hover, "\n{reason}: {count}");
        }
        let _ = write!(
            out,
            r#"<g class="day"><title>{}</title>"#,
            esc_lines(&hover)
        );
        if d.added > 0 {
            let h = f64::from(d.added) * scale;
            let _ = write!(
                out,
                r#"<rect class="added" x="{bx:.1}" y="{:.1}" width="{bw:.1}" height="{h:.1}"/>"#,
                base - h
            );
        }
        let mut at = base;
        for (reason, count) in &d.removed {
            let h = f64::from(*count) * scale;
            let _ = write!(
                out,
                r#"<rect class="removed r-{}" x="{bx:.1}" y="{at:.1}" width="{bw:.1}" height="{h:.1}"/>"#,
                reason_class(reason)
            );
            at += h;
        }
        out.push_str("</g>\n");
    }
    day_labels(out, slots, label_y);
    out.push_str("</svg>");
}

/// The CSS class suffix of a removal reason (known ones; anything else is `other`).
pub fn reason_class(reason: &str) -> &'static str {
    match reason {
        "decayed" => "decayed",
        "pruned" => "pruned",
        "budget" => "budget",
        "rejected" => "rejected",
        _ => "other",
    }
}

/// Tokens per local day, stacked by provider (its colour from its place in `providers`),
/// the cost in each bar's hover text.
pub fn usage_bars(out: &mut String, slots: &[DayStats], providers: &[String]) {
    const PLOT_H: f64 = 150.0;
    let base = TOP + PLOT_H;
    let label_y = base + 18.0;
    let height = label_y + 8.0;
    let max = slots
        .iter()
        .map(|d| d.usage_total().tokens())
        .max()
        .unwrap_or(0)
        .max(1);
    let scale = PLOT_H / max as f64;
    let _ = write!(
        out,
        r#"<svg class="chart usage" viewBox="0 0 {WIDTH:.0} {height:.0}" role="img" aria-label="tokens per day by provider"><title>Tokens per day by provider</title><line class="base" x1="{LEFT:.0}" y1="{base:.0}" x2="{:.0}" y2="{base:.0}"/><text class="axis" x="{:.0}" y="{:.0}" text-anchor="end">{}</text>"#,
        LEFT + PLOT_W,
        LEFT - 6.0,
        TOP + 4.0,
        short(max)
    );
    let n = slots.len();
    for (i, d) in slots.iter().enumerate() {
        let total = d.usage_total();
        if total.tokens() == 0 {
            continue;
        }
        let (x, w) = slot(i, n);
        let (bx, bw) = (x + w * 0.15, (w * 0.7).max(0.5));
        let mut hover = format!(
            "{}: {} tokens, {}",
            d.day,
            num(total.tokens()),
            usd(total.cost)
        );
        for (name, u) in &d.usage {
            let _ = write!(
                hover,
                "\n{name}: {} tokens, {}",
                num(u.tokens()),
                usd(u.cost)
            );
        }
        let _ = write!(
            out,
            r#"<g class="day"><title>{}</title>"#,
            esc_lines(&hover)
        );
        let mut at = base;
        for (name, u) in &d.usage {
            let h = u.tokens() as f64 * scale;
            at -= h;
            let colour = providers.iter().position(|p| p == name).unwrap_or(0) % 6;
            let _ = write!(
                out,
                r#"<rect class="p{colour}" x="{bx:.1}" y="{at:.1}" width="{bw:.1}" height="{h:.1}"/>"#
            );
        }
        out.push_str("</g>\n");
    }
    day_labels(out, slots, label_y);
    out.push_str("</svg>");
}

/// Lines escaped one by one and joined by line breaks (kept in a `<title>`).
fn esc_lines(text: &str) -> String {
    text.lines().map(esc).collect::<Vec<_>>().join("\n")
}

/// A count for an axis: `950`, `12k`, `3.4M`.
fn short(n: u64) -> String {
    match n {
        0..10_000 => n.to_string(),
        10_000..1_000_000 => format!("{}k", n / 1000),
        _ => format!("{:.1}M", n as f64 / 1e6),
    }
}

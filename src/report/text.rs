//! Text for the page: every string from the model HTML-escaped (after the same cleaning
//! `show` applies: no control, escape, bidi or zero-width characters), numbers in one
//! fixed format, times in the zone passed in.
//!
//! Owns escaping and formatting; must not decide what is shown.

use chrono::{DateTime, Utc};

use crate::clock::Zone;
use crate::state::EscalationOutcome;
use crate::untrusted;

/// `text` cleaned to one line and escaped for HTML text and attribute values alike
/// (`& < > " '`), so no model-written string can close a tag or an attribute.
pub fn esc(text: &str) -> String {
    let clean = untrusted::clean_line(text);
    let mut out = String::with_capacity(clean.len());
    for c in clean.chars() {
        match c {
            '&' => out.push_str("&amp;"),
            '<' => out.push_str("&lt;"),
            '>' => out.push_str("&gt;"),
            '"' => out.push_str("&quot;"),
            '\'' => out.push_str("&#39;"),
            c => out.push(c),
        }
    }
    out
}

/// `text` escaped and cut to `max` characters (an ellipsis marks the cut).
pub fn esc_cut(text: &str, max: usize) -> String {
    if text.chars().count() <= max {
        return esc(text);
    }
    let cut: String = text.chars().take(max.saturating_sub(1)).collect();
    esc(&format!("{cut}…"))
}

/// An integer with thousands separators: `12,345`.
pub fn num(n: u64) -> String {
    let digits = n.to_string();
    let mut out = String::with_capacity(digits.len() + digits.len() / 3);
    for (i, c) in digits.chars().enumerate() {
        if i > 0 && (digits.len() - i).is_multiple_of(3) {
            out.push(',');
        }
        out.push(c);
    }
    out
}

/// A cost in USD with four decimals: `$0.0123`; a non-finite or negative cost as `$0.0000`.
pub fn usd(cost: f64) -> String {
    let cost = if cost.is_finite() && cost > 0.0 {
        cost
    } else {
        0.0
    };
    format!("${cost:.4}")
}

/// A time for the page: `2026-11-22 10:05` in `zone`.
pub fn when(zone: Zone, t: DateTime<Utc>) -> String {
    zone.at(t).format("%Y-%m-%d %H:%M").to_string()
}

/// The zone's offset at `t`, for the heading: `UTC+01:00`.
pub fn offset(zone: Zone, t: DateTime<Utc>) -> String {
    zone.at(t).format("UTC%:z").to_string()
}

/// What kind of outcome an escalation had: its CSS class and a word for the legend.
pub fn outcome_class(outcome: &EscalationOutcome) -> (&'static str, &'static str) {
    match outcome {
        EscalationOutcome::Notified(_) => ("o-notified", "notified"),
        EscalationOutcome::Remembered(_) => ("o-remembered", "remembered"),
        EscalationOutcome::Proposed(_) => ("o-proposed", "proposed"),
        EscalationOutcome::Held(_) => ("o-held", "held"),
        EscalationOutcome::Dismissed(_) => ("o-dismissed", "dismissed"),
        EscalationOutcome::Suppressed(_) => ("o-suppressed", "suppressed"),
        EscalationOutcome::Pending => ("o-pending", "pending"),
        EscalationOutcome::Capped(_)
        | EscalationOutcome::Failed(_)
        | EscalationOutcome::Other(_) => ("o-failed", "capped, failed or other"),
    }
}

/// Every outcome class, in legend order.
pub const OUTCOME_CLASSES: [(&str, &str); 8] = [
    ("o-notified", "notified"),
    ("o-remembered", "remembered"),
    ("o-proposed", "proposed"),
    ("o-held", "held"),
    ("o-dismissed", "dismissed"),
    ("o-suppressed", "suppressed"),
    ("o-pending", "pending"),
    ("o-failed", "capped, failed or other"),
];

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn escaping_leaves_no_markup() {
        let cases = [
            ("plain", "plain"),
            ("a & b", "a &amp; b"),
            (
                "</title><script>alert(1)</script>",
                "&lt;/title&gt;&lt;script&gt;alert(1)&lt;/script&gt;",
            ),
            ("\" onmouseover='x'", "&quot; onmouseover=&#39;x&#39;"),
            ("line\nbreak\u{1b}[31m", "line break"),
        ];
        for (input, want) in cases {
            assert_eq!(esc(input), want, "{input:?}");
        }
    }

    #[test]
    fn cutting_counts_characters_and_escapes_after() {
        assert_eq!(esc_cut("short", 10), "short");
        assert_eq!(esc_cut("<<<<<<", 4), "&lt;&lt;&lt;…");
        assert_eq!(esc_cut("ééééé", 3), "éé…");
    }

    #[test]
    fn numbers_have_one_format() {
        let cases = [
            (0, "0"),
            (999, "999"),
            (1000, "1,000"),
            (1_234_567, "1,234,567"),
        ];
        for (n, want) in cases {
            assert_eq!(num(n), want);
        }
        assert_eq!(usd(0.012_34), "$0.0123");
        assert_eq!(usd(f64::NAN), "$0.0000");
        assert_eq!(usd(-1.0), "$0.0000");
    }
}

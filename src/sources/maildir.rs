//! The `maildir` source (SPEC §6): the newest messages of a Maildir folder, as
//! kept by mbsync, offlineimap, getmail or a local delivery agent.
//!
//! **Reading.** `path` is one Maildir folder (it has `cur/` and `new/`; `tmp/`, where
//! messages are still being delivered, and Maildir++ subfolders such as `.Sent` are not
//! read). A missing path, or one without `cur/` and `new/`, is a source failure. Files
//! whose name starts with `.` and anything but regular files (symlinks followed) are
//! passed over; so are messages flagged `T` (trashed: deleted, waiting to be expunged).
//! Every entry of `new/` and `cur/` is counted by its name (flags included), without
//! reading its metadata, and the [`MAX_CANDIDATES`] most recently delivered — by the
//! delivery time a Maildir name starts with, else the file's modification time — are the
//! candidates: a folder of 200,000 messages costs one pass over its directories, a few MB
//! and 2000 header reads, and the first line gives the true count (or "at least" past
//! [`MAX_LISTED`] entries). Of each candidate only the header is read (at most
//! [`HEADER_READ_LIMIT`]). They are ordered newest first by their `Date` header (read in
//! its own offset), falling back to the file's modification time when it has none or an
//! invalid one; ties by file name. The first `max_messages` (default
//! [`DEFAULT_MAILDIR_MESSAGES`], 1 to 1000) are then read whole up to
//! [`MESSAGE_READ_LIMIT`] for their text: a larger message still shows its header, and
//! its text comes from what was read.
//!
//! **Parsing** is `mail-parser`'s (multipart, RFC 2047 encoded words, quoted-printable
//! and base64, any charset `encoding_rs` knows, HTML-only mail turned into text without
//! its head, styles and scripts, entities decoded). A file that is not a message — no
//! header can be read, or it has none of `From`, `Subject` and `Date` — or that cannot be
//! read is **skipped**, not fatal: the others still show, and a line names the skipped
//! files (at most [`SKIPPED_NAMED`] of them).
//!
//! **Flags.** A message is unread when it is in `new/`, or in `cur/` without `S` in the
//! flags after its `:2,`; `F` shows as `flagged`. A message is **new since last tick**
//! when its file was modified after the previous tick (`GatherContext::last_tick`):
//! delivery writes the file just before it lands in `new/`, and renaming it to `cur/` or
//! changing its flags keeps that time. On the first tick nothing is called new.
//!
//! **Layout** (every header and snippet cleaned to one line by the shared cleaner, dates
//! in the user's zone, with the year when it is not this year's):
//!
//! ```text
//! 7 messages (3 unread, 1 new since last tick), newest first:
//! skipped, not readable as mail: new/1763805800.M1P1.host
//!
//! Sun 22 Nov 11:02 · unread · new since last tick
//! From: ACME Billing <billing@acme.example>
//! Subject: Invoice 4411: final reminder
//! Dear customer, our records show that invoice 4411 (EUR 1,250.00) is now 30 days…
//!
//! Sat 21 Nov 13:00 · read · flagged
//! …
//! ```
//!
//! With more messages than `max_messages` the first line says `…; the newest 5:`. A
//! message's text is the body's plain text without quoted replies and
//! signatures ([`own_text`]), whitespace collapsed to one line, at most [`SNIPPET_CHARS`]
//! characters; a message without a text body has no text line. An empty folder says
//! `No messages.`. Within `max_bytes` (default [`DEFAULT_MAILDIR_MAX_BYTES`]) every
//! message shown keeps its header and the start of its text; the bytes left after the
//! headers are shared by the texts (the shorter ones whole, the longer ones an equal
//! share of the rest, cut with `…`), so one long mail cannot push the others out; when
//! not every header fits, the older messages are left out; any cut marks the text
//! truncated. No relative times ("3 h ago"): the text changes only when the folder does.
//!
//! Owns [`MaildirSettings`] (the path resolved against the config file once, the numbers
//! checked); must not read more of a file than its limits, write to the Maildir (a read
//! message stays unread), or put a failure of the source into its text.

use std::cmp::Reverse;
use std::collections::BinaryHeap;
use std::fmt::Write as _;
use std::io::{self, Read as _};
use std::ops::RangeInclusive;
use std::path::{Path, PathBuf};

use chrono::{DateTime, Datelike as _, Utc};
use mail_parser::{Message, MessageParser};
use serde::Deserialize;

use super::error::SourceError;
use super::read::{blocking, read_head};
use super::settings::{self, MAX_BYTES_RANGE, Resolve, SettingsError};
use super::text::{cap_head, clean, one_line};
use super::{GatherContext, Text};
use crate::clock::Zone;

/// Default cap of a `maildir` source: 20 messages' headers and about 650 bytes of text
/// each (shorter bodies whole, so longer ones get more).
pub const DEFAULT_MAILDIR_MAX_BYTES: usize = 16_000;
/// Default number of messages shown.
pub const DEFAULT_MAILDIR_MESSAGES: usize = 20;
/// The range of `max_messages`.
const MAX_MESSAGES_RANGE: RangeInclusive<usize> = 1..=1000;
/// At most this much of a shown message is read (its header and the start of its body).
pub const MESSAGE_READ_LIMIT: usize = 256 * 1024;
/// At most this much of a candidate is read for its header.
pub const HEADER_READ_LIMIT: usize = 64 * 1024;
/// At most this many files (the most recently delivered) are candidates.
pub const MAX_CANDIDATES: usize = 2000;
/// At most this many directory entries are counted; past them the count says "at least".
pub const MAX_LISTED: usize = 1_000_000;
/// A message's text, in characters: its plain text with quoted replies and signatures cut
/// (a fact in the second paragraph must reach the thread).
pub const SNIPPET_CHARS: usize = 1500;
/// The body text looked at for a snippet, in characters (before whitespace is collapsed).
const SNIPPET_SCAN_CHARS: usize = 8 * SNIPPET_CHARS;
/// A message is shown with its header only if it can have at least this much of its text
/// too (or all of it).
const MIN_SNIPPET_BYTES: usize = 160;
/// A sender or subject line's length in characters.
const HEADER_CHARS: usize = 200;
/// Skipped files named in the text; the rest are counted.
pub const SKIPPED_NAMED: usize = 5;

/// The keys a `maildir` source takes besides `kind` and `name`.
pub(super) const KEYS: &[&str] = &["path", "max_messages", "max_bytes"];

/// A `maildir` source as written.
#[derive(Debug, Deserialize)]
#[serde(deny_unknown_fields)]
struct Raw {
    path: String,
    max_messages: Option<toml::Value>,
    max_bytes: Option<toml::Value>,
}

/// A `maildir` source, checked: `path = "~/Mail/INBOX"`.
#[derive(Debug, Clone, PartialEq)]
pub struct MaildirSettings {
    /// The Maildir folder, absolute (resolved against the config file's directory).
    path: PathBuf,
    max_messages: usize,
    max_bytes: usize,
}

impl MaildirSettings {
    /// Checks the keys of a `maildir` table (`kind` and `name` taken out).
    pub fn from_table(
        table: toml::Table,
        resolve: Resolve<'_>,
    ) -> Result<MaildirSettings, SettingsError> {
        let raw: Raw = settings::read("maildir", KEYS, table)?;
        Ok(MaildirSettings {
            path: resolve(&raw.path).map_err(|e| SettingsError::at("path", e.to_string()))?,
            max_messages: settings::count(
                "max_messages",
                raw.max_messages.as_ref(),
                DEFAULT_MAILDIR_MESSAGES,
                MAX_MESSAGES_RANGE,
            )?,
            max_bytes: settings::count(
                "max_bytes",
                raw.max_bytes.as_ref(),
                DEFAULT_MAILDIR_MAX_BYTES,
                MAX_BYTES_RANGE,
            )?,
        })
    }

    /// The Maildir folder, resolved.
    pub fn path(&self) -> &Path {
        &self.path
    }

    /// How many messages are shown at most.
    pub fn max_messages(&self) -> usize {
        self.max_messages
    }
}

/// What the reading needs besides the settings (owned: it runs on the blocking pool).
#[derive(Debug, Clone, Copy)]
struct View {
    max_messages: usize,
    max_bytes: usize,
    last_tick: Option<DateTime<Utc>>,
    now: DateTime<Utc>,
    zone: Zone,
}

/// Reads the folder, on the blocking pool.
pub(super) async fn text(
    settings: &MaildirSettings,
    ctx: &GatherContext<'_>,
) -> Result<Text, SourceError> {
    let path = settings.path.clone();
    let view = View {
        max_messages: settings.max_messages,
        max_bytes: settings.max_bytes.min(ctx.max_bytes),
        last_tick: ctx.last_tick,
        now: ctx.now,
        zone: ctx.zone,
    };
    blocking(move || maildir_text(&path, view)).await
}

/// One file of the folder, listed.
#[derive(Debug, Clone)]
struct File {
    path: PathBuf,
    /// `new/NAME` or `cur/NAME`, for the skipped line.
    shown: String,
    /// The file name, for ties.
    name: String,
    modified: DateTime<Utc>,
    unread: bool,
    flagged: bool,
}

/// A message whose header was read.
#[derive(Debug)]
struct Listed {
    file: File,
    /// Its `Date`, else the file's modification time.
    when: DateTime<Utc>,
    from: String,
    subject: String,
    /// Its reference ([`super::refs`]): of its `Message-ID`, else of its file name
    /// without flags (which moving it from `new/` to `cur/` keeps).
    reference: String,
}

/// The flags of a Maildir file name: what follows `:2,` (none in `new/`).
fn flags(name: &str) -> &str {
    name.rsplit_once(":2,").map_or("", |(_, f)| f)
}

#[expect(
    clippy::too_many_lines,
    reason = "one message's read, in the order the folder gives it"
)]
fn maildir_text(root: &Path, view: View) -> Result<Text, SourceError> {
    let listing = list(root)?;
    let mut skipped = listing.skipped;
    let mut listed = Vec::with_capacity(listing.files.len());
    let (mut not_mail, mut not_mail_unread) = (0, 0);
    for file in listing.files {
        match read_header(&file) {
            Ok(l) => listed.push(l),
            // Renamed (read in a mail client: new/ → cur/) or expunged since it was
            // listed: the next tick lists it where it is.
            Err(Unlisted::Gone) => {
                not_mail += 1;
                not_mail_unread += usize::from(file.unread);
            }
            Err(Unlisted::NotMail) => {
                not_mail += 1;
                not_mail_unread += usize::from(file.unread);
                skipped.push(file.shown);
            }
        }
    }
    listed.sort_by(|a, b| {
        b.when
            .cmp(&a.when)
            .then_with(|| a.file.name.cmp(&b.file.name))
    });
    skipped.sort();
    let new_since = |f: &File| view.last_tick.is_some_and(|t| f.modified > t);
    let counts = Counts {
        total: listing.total.saturating_sub(not_mail),
        unread: listing.unread.saturating_sub(not_mail_unread),
        new: listed.iter().filter(|l| new_since(&l.file)).count(),
        complete: listing.complete,
    };
    let mut out = summary(&counts, view.max_messages);
    if !skipped.is_empty() {
        out.push_str(&skipped_line(&skipped));
    }
    let mut truncated = cap_head(&mut out, view.max_bytes, false);
    if truncated {
        return Ok(Text {
            text: out,
            truncated,
        });
    }
    let shown: Vec<&Listed> = listed.iter().take(view.max_messages).collect();
    let heads: Vec<String> = shown
        .iter()
        .map(|l| head(l, new_since(&l.file), &view))
        .collect();
    let bodies: Vec<String> = shown
        .iter()
        .map(|l| read_snippet(&l.file.path).unwrap_or_default())
        .collect();
    // The blocks shown: each needs its header and the start of its text.
    let mut needed = out.len();
    let mut fits = 0;
    for (h, b) in heads.iter().zip(&bodies) {
        needed += 1 + h.len() + body_bytes(b).min(MIN_SNIPPET_BYTES);
        if needed > view.max_bytes {
            break;
        }
        fits += 1;
    }
    if fits == 0 && !shown.is_empty() {
        // A cap below one block still shows the start of the newest.
        let space = view.max_bytes.saturating_sub(out.len() + 1);
        if space > 0 {
            let mut block = heads[0].clone();
            if !bodies[0].is_empty() {
                block.push_str(&bodies[0]);
                block.push('\n');
            }
            cap_head(&mut block, space, false);
            out.push('\n');
            out.push_str(&block);
        }
        return Ok(Text {
            text: out,
            truncated: true,
        });
    }
    truncated = fits < shown.len();
    let heads_len: usize = heads[..fits].iter().map(|h| 1 + h.len()).sum();
    let sizes: Vec<usize> = bodies[..fits].iter().map(|b| body_bytes(b)).collect();
    let shares = shares(&sizes, view.max_bytes.saturating_sub(out.len() + heads_len));
    for ((h, b), &share) in heads.iter().zip(&bodies).zip(&shares) {
        out.push('\n');
        out.push_str(h);
        if b.is_empty() {
            continue;
        }
        if body_bytes(b) <= share {
            out.push_str(b);
            out.push('\n');
        } else {
            truncated = true;
            // The text cut to its share, an `…` and the line end within it.
            let fits = share.saturating_sub(1 + '…'.len_utf8());
            if fits > 0 {
                let cut = b.floor_char_boundary(fits);
                out.push_str(b[..cut].trim_end());
                out.push_str("…\n");
            }
        }
    }
    Ok(Text {
        text: out,
        truncated,
    })
}

/// The bytes a message's text takes in the block (its line end included).
fn body_bytes(body: &str) -> usize {
    if body.is_empty() { 0 } else { body.len() + 1 }
}

/// Each message's share of `budget` by the size of its text: the shorter texts whole (the
/// shortest first), the longer ones an equal share of the rest.
fn shares(sizes: &[usize], budget: usize) -> Vec<usize> {
    let mut order: Vec<usize> = (0..sizes.len()).collect();
    order.sort_by_key(|&i| (sizes[i], i));
    let mut out = vec![0; sizes.len()];
    let mut left = budget;
    for (k, &i) in order.iter().enumerate() {
        let share = left / (order.len() - k);
        out[i] = sizes[i].min(share);
        left -= out[i];
    }
    out
}

/// What the first line says.
#[derive(Debug, Clone, Copy)]
struct Counts {
    /// Messages in the folder (those found not to be mail left out).
    total: usize,
    unread: usize,
    /// Of the candidates, those delivered since the last tick.
    new: usize,
    /// Every entry was counted (else there are at least `total`).
    complete: bool,
}

/// The first line: how many messages (the true count, or "at least" past
/// [`MAX_LISTED`]), how many unread and new, how many shown.
fn summary(c: &Counts, max_messages: usize) -> String {
    if c.total == 0 {
        return "No messages.\n".into();
    }
    let plural = if c.total == 1 { "message" } else { "messages" };
    let at_least = if c.complete { "" } else { "at least " };
    let mut counts = format!("{at_least}{} unread", c.unread);
    if c.new > 0 {
        let _ = write!(counts, ", {} new since last tick", c.new);
    }
    if c.total > max_messages {
        format!(
            "{at_least}{} {plural} ({counts}); the newest {max_messages}:\n",
            c.total
        )
    } else {
        format!("{at_least}{} {plural} ({counts}), newest first:\n", c.total)
    }
}

/// The line naming the skipped files (the first [`SKIPPED_NAMED`], then a count).
fn skipped_line(skipped: &[String]) -> String {
    let named: Vec<String> = skipped
        .iter()
        .take(SKIPPED_NAMED)
        .map(|s| one_line(s, '?', HEADER_CHARS))
        .collect();
    let mut line = format!("skipped, not readable as mail: {}", named.join(", "));
    if skipped.len() > SKIPPED_NAMED {
        let _ = write!(line, " and {} more", skipped.len() - SKIPPED_NAMED);
    }
    line.push('\n');
    line
}

/// One message's header lines: its date and flags, sender, subject.
fn head(l: &Listed, new: bool, view: &View) -> String {
    let mut when = view.zone.wall(l.when);
    let year = view.zone.day(l.when).year();
    if year != view.zone.day(view.now).year() {
        let _ = write!(when, " {year}");
    }
    let mut out = format!(
        "{} {when} · {}",
        super::refs::label(&l.reference),
        if l.file.unread { "unread" } else { "read" }
    );
    if l.file.flagged {
        out.push_str(" · flagged");
    }
    if new {
        out.push_str(" · new since last tick");
    }
    let _ = write!(out, "\nFrom: {}\nSubject: {}\n", l.from, l.subject);
    out
}

/// The folder as listed: the candidates, and the counts of every message in it.
#[derive(Debug, Default)]
struct Listing {
    /// The [`MAX_CANDIDATES`] most recently delivered files.
    files: Vec<File>,
    /// Files that could not be looked at.
    skipped: Vec<String>,
    /// Message files in `new/` and `cur/` (not hidden, not trashed).
    total: usize,
    unread: usize,
    /// Every entry was counted (at most [`MAX_LISTED`]).
    complete: bool,
}

/// When a file was delivered, by its Maildir name (`1763805720.M1P1.host`: the seconds
/// before the first `.`), without reading its metadata; `None` for another name.
fn delivered(name: &str) -> Option<i64> {
    let (secs, _) = name.split_once('.')?;
    (secs.len() >= 9 && secs.len() <= 12 && secs.bytes().all(|b| b.is_ascii_digit()))
        .then(|| secs.parse().ok())
        .flatten()
}

/// The folder's messages counted and the candidates chosen: regular files of `new/` and
/// `cur/`, newest first by the delivery time in their name (else their modification
/// time), ties by name; only the candidates' metadata is read, and at most
/// [`MAX_CANDIDATES`] names are kept, so a folder of 200,000 messages costs one pass over
/// its directories, not 200,000 file reads.
fn list(root: &Path) -> Result<Listing, SourceError> {
    let meta = std::fs::metadata(root).map_err(|source| SourceError::MaildirUnreadable {
        path: root.to_path_buf(),
        source,
    })?;
    let is_dir = |d: &str| std::fs::metadata(root.join(d)).is_ok_and(|m| m.is_dir());
    if !meta.is_dir() || !is_dir("cur") || !is_dir("new") {
        return Err(SourceError::NotAMaildir {
            path: root.to_path_buf(),
        });
    }
    let mut listing = Listing {
        complete: true,
        ..Listing::default()
    };
    // The candidates so far: the newest first, at most MAX_CANDIDATES (a min-heap).
    let mut newest: BinaryHeap<Reverse<(i64, Reverse<String>, &'static str)>> = BinaryHeap::new();
    let mut seen = 0usize;
    'dirs: for dir in ["new", "cur"] {
        let entries = std::fs::read_dir(root.join(dir)).map_err(|source| {
            SourceError::MaildirDirUnreadable {
                root: root.to_path_buf(),
                dir,
                source,
            }
        })?;
        for entry in entries {
            seen += 1;
            if seen > MAX_LISTED {
                listing.complete = false;
                break 'dirs;
            }
            let Ok(entry) = entry else { continue };
            let name = entry.file_name().to_string_lossy().into_owned();
            if name.starts_with('.') {
                continue;
            }
            let kind = entry.file_type().ok();
            if kind.is_some_and(|k| k.is_dir()) {
                continue;
            }
            let flags = if dir == "new" { "" } else { flags(&name) };
            if flags.contains('T') {
                continue;
            }
            listing.total += 1;
            listing.unread += usize::from(!flags.contains('S'));
            let when = delivered(&name).unwrap_or_else(|| {
                std::fs::metadata(entry.path())
                    .and_then(|m| m.modified())
                    .map_or(0, |t| DateTime::<Utc>::from(t).timestamp())
            });
            let key = (when, Reverse(name), dir);
            if newest.len() < MAX_CANDIDATES {
                newest.push(Reverse(key));
            } else if newest.peek().is_some_and(|Reverse(min)| key > *min) {
                newest.pop();
                newest.push(Reverse(key));
            }
        }
    }
    let mut chosen: Vec<(i64, Reverse<String>, &'static str)> =
        newest.into_iter().map(|Reverse(k)| k).collect();
    chosen.sort_by(|a, b| b.cmp(a));
    for (_, Reverse(name), dir) in chosen {
        let path = root.join(dir).join(&name);
        let shown = format!("{dir}/{name}");
        let meta = match std::fs::metadata(&path) {
            Ok(m) if m.is_file() => m,
            Ok(_) => {
                listing.total = listing.total.saturating_sub(1);
                continue;
            }
            Err(e) if e.kind() == io::ErrorKind::NotFound => continue,
            Err(_) => {
                listing.skipped.push(shown);
                continue;
            }
        };
        let flags = if dir == "new" { "" } else { flags(&name) };
        listing.files.push(File {
            path,
            shown,
            modified: meta
                .modified()
                .map_or(DateTime::<Utc>::UNIX_EPOCH, DateTime::<Utc>::from),
            unread: !flags.contains('S'),
            flagged: flags.contains('F'),
            name,
        });
    }
    Ok(listing)
}

/// Why a candidate is not listed.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Unlisted {
    /// It is no longer there (moved or deleted since the folder was listed).
    Gone,
    /// It cannot be read, or it is not a message.
    NotMail,
}

/// Reads a candidate's header.
fn read_header(file: &File) -> Result<Listed, Unlisted> {
    let bytes = read_header_bytes(&file.path).map_err(|e| {
        if e.kind() == io::ErrorKind::NotFound {
            Unlisted::Gone
        } else {
            Unlisted::NotMail
        }
    })?;
    let message = MessageParser::default()
        .parse_headers(&bytes)
        .ok_or(Unlisted::NotMail)?;
    if message.from().is_none() && message.subject().is_none() && message.date().is_none() {
        return Err(Unlisted::NotMail);
    }
    let when = message
        .date()
        .filter(|d| d.is_valid())
        .and_then(|d| DateTime::from_timestamp(d.to_timestamp(), 0))
        .unwrap_or(file.modified);
    let reference = match message
        .message_id()
        .map(str::trim)
        .filter(|m| !m.is_empty())
    {
        Some(id) => super::refs::reference('m', id),
        None => super::refs::reference('m', file.name.split(":2,").next().unwrap_or(&file.name)),
    };
    Ok(Listed {
        when,
        reference,
        from: sender(&message),
        subject: message
            .subject()
            .map_or_else(|| "(no subject)".into(), |s| one_line(s, ' ', HEADER_CHARS)),
        file: file.clone(),
    })
}

/// The sender as `Name <address>`, cleaned to one line.
fn sender(message: &Message<'_>) -> String {
    let first = message.from().and_then(|a| a.first());
    let name = first
        .and_then(|a| a.name())
        .map(str::trim)
        .filter(|n| !n.is_empty());
    let address = first.and_then(|a| a.address()).filter(|a| !a.is_empty());
    let text = match (name, address) {
        (Some(n), Some(a)) => format!("{n} <{a}>"),
        (Some(n), None) => n.to_string(),
        (None, Some(a)) => a.to_string(),
        (None, None) => "(unknown sender)".into(),
    };
    one_line(&text, ' ', HEADER_CHARS)
}

/// The start of a file up to the end of its header (a blank line), at most
/// [`HEADER_READ_LIMIT`].
fn read_header_bytes(path: &Path) -> io::Result<Vec<u8>> {
    let mut file = std::fs::File::open(path)?.take(HEADER_READ_LIMIT as u64);
    let mut bytes = Vec::new();
    let mut chunk = [0u8; 8192];
    loop {
        let n = match file.read(&mut chunk) {
            Ok(0) => break,
            Ok(n) => n,
            Err(e) if e.kind() == io::ErrorKind::Interrupted => continue,
            Err(e) => return Err(e),
        };
        let from = bytes.len().saturating_sub(3);
        bytes.extend_from_slice(&chunk[..n]);
        let tail = &bytes[from..];
        if tail.windows(2).any(|w| w == b"\n\n") || tail.windows(4).any(|w| w == b"\r\n\r\n") {
            break;
        }
    }
    Ok(bytes)
}

/// A shown message's text; `None` when it cannot be read any more (moved or deleted
/// since it was listed) or has no text body.
fn read_snippet(path: &Path) -> Option<String> {
    let bytes = read_head(path, MESSAGE_READ_LIMIT).ok()?;
    let message = MessageParser::default().parse(&bytes)?;
    let body = message.body_text(0)?;
    Some(snippet(&body))
}

/// The body's own text as one line: quoted replies and signatures cut ([`own_text`]),
/// cleaned, whitespace collapsed, at most [`SNIPPET_CHARS`] characters (`…` at a cut).
pub fn snippet(body: &str) -> String {
    let start: String = body.chars().take(SNIPPET_SCAN_CHARS).collect();
    let collapsed = clean(&own_text(&start))
        .split_whitespace()
        .collect::<Vec<_>>()
        .join(" ");
    one_line(&collapsed, ' ', SNIPPET_CHARS)
}

/// The lines of a mail body its sender wrote: quoted lines (`>`) left out, and nothing
/// from a signature (`-- `), a reply's attribution line (`On … wrote:`, `Le … a écrit :`,
/// `Am … schrieb …:`, `El … escribió:`), an `-----Original Message-----` or an Outlook
/// `_____` separator, or a `Sent from my …` line on. A forwarded message is kept: it is
/// the news.
pub fn own_text(body: &str) -> String {
    let lines: Vec<&str> = body.lines().collect();
    let mut out = String::with_capacity(body.len());
    for (i, line) in lines.iter().enumerate() {
        let t = line.trim();
        let next = lines.get(i + 1).map_or("", |l| l.trim());
        if t.starts_with('>') {
            continue;
        }
        if line.trim_end() == "--"
            || t.starts_with("-----Original Message")
            || t.starts_with("----- Original Message")
            || (t.len() >= 10 && t.bytes().all(|b| b == b'_'))
            || t.starts_with("Sent from my ")
            || is_attribution(t, next)
        {
            break;
        }
        out.push_str(line);
        out.push('\n');
    }
    out
}

/// A reply's attribution line, in a few languages (it may wrap onto the next line).
fn is_attribution(line: &str, next: &str) -> bool {
    if line.chars().count() > 300 {
        return false;
    }
    let ends = |l: &str| {
        let l = l.trim_end_matches(' ');
        l.ends_with("wrote:")
            || l.ends_with("a écrit :")
            || l.ends_with("a écrit:")
            || l.ends_with("escribió:")
            || l.ends_with("ha scritto:")
            || (l.starts_with("Am ") && l.contains("schrieb") && l.ends_with(':'))
    };
    let opens = ["On ", "Le ", "Am ", "El ", "Il "]
        .iter()
        .any(|p| line.starts_with(p));
    opens && (ends(line) || (ends(next) && next.chars().count() < 120))
}

/// What counts as a change of the folder for the quiet tick (`crate::quiet`): the
/// messages and their flags, without the per-tick "new since last tick" marks and count,
/// which drop on the next tick by themselves.
pub(crate) fn world(text: &str) -> String {
    const MARK: &str = " new since last tick";
    text.lines()
        .map(|line| {
            let mut line = line.replace(" · new since last tick", "");
            // The count in the first line: `(3 unread, 1 new since last tick)`.
            if let Some(end) = line.find(MARK) {
                let digits = line[..end]
                    .bytes()
                    .rev()
                    .take_while(u8::is_ascii_digit)
                    .count();
                let start = end - digits;
                if digits > 0 && line[..start].ends_with(", ") {
                    line.replace_range(start - 2..end + MARK.len(), "");
                }
            }
            line
        })
        .collect::<Vec<_>>()
        .join("\n")
}

#[cfg(test)]
mod tests {
    use std::path::Path;

    use proptest::prelude::*;

    use super::*;
    use crate::sources::testing::ctx;
    use crate::sources::{PathError, Source, SourceKind, gather};
    use crate::state::State;
    use crate::timestamp;

    fn settings(path: &Path, max_messages: usize, max_bytes: usize) -> SourceKind {
        SourceKind::Maildir(MaildirSettings {
            path: path.to_path_buf(),
            max_messages,
            max_bytes,
        })
    }

    fn from_toml(text: &str) -> Result<MaildirSettings, SettingsError> {
        let resolve = |p: &str| -> Result<PathBuf, PathError> {
            if p.starts_with('~') {
                Err(PathError::NoHome { path: p.into() })
            } else {
                Ok(Path::new("/etc/thinker").join(p))
            }
        };
        MaildirSettings::from_table(text.parse::<toml::Table>().unwrap(), &resolve)
    }

    /// Writes `text` at `dir/name` modified at `mtime`.
    fn put(dir: &Path, name: &str, text: &str, mtime: &str) {
        let path = dir.join(name);
        std::fs::write(&path, text).unwrap();
        let t: std::time::SystemTime = timestamp::parse(mtime).unwrap().into();
        std::fs::File::options()
            .write(true)
            .open(&path)
            .unwrap()
            .set_modified(t)
            .unwrap();
    }

    fn maildir() -> tempfile::TempDir {
        let dir = tempfile::tempdir().unwrap();
        for d in ["cur", "new", "tmp"] {
            std::fs::create_dir(dir.path().join(d)).unwrap();
        }
        dir
    }

    fn mail(from: &str, subject: &str, date: Option<&str>, body: &str) -> String {
        let date = date.map(|d| format!("Date: {d}\n")).unwrap_or_default();
        format!("From: {from}\nSubject: {subject}\n{date}\n{body}\n")
    }

    async fn read(dir: &Path, max_messages: usize, max_bytes: usize, last: &str) -> Text {
        let state = State::default();
        let mut cx = ctx(&state, dir);
        cx.last_tick = timestamp::parse(last);
        let g = gather(&[Source::from(settings(dir, max_messages, max_bytes))], &cx).await;
        assert!(g.failures.is_empty(), "{g:?}");
        let t = &g.texts[0];
        Text {
            text: t.text.clone(),
            truncated: t.truncated,
        }
    }

    #[test]
    fn settings_are_checked_and_defaulted() {
        let s = from_toml("path = 'Mail/INBOX'").unwrap();
        assert_eq!(s.path(), Path::new("/etc/thinker/Mail/INBOX"));
        assert_eq!(s.max_messages(), DEFAULT_MAILDIR_MESSAGES);
        assert_eq!(s.max_bytes, DEFAULT_MAILDIR_MAX_BYTES);
        // (table, the field the error names; None = the source as a whole)
        let cases: &[(&str, Option<&str>)] = &[
            ("path = '/m'\nmax_messages = 0", Some("max_messages")),
            ("path = '/m'\nmax_messages = 1001", Some("max_messages")),
            ("path = '/m'\nmax_messages = '5'", Some("max_messages")),
            ("path = '/m'\nmax_bytes = 0", Some("max_bytes")),
            ("path = '/m'\nmax_bytes = 10000001", Some("max_bytes")),
            ("path = '/m'\nmax_mesages = 5", Some("max_mesages")),
            ("path = '~nobody/Mail'", Some("path")),
            ("max_messages = 5", None),
        ];
        for (text, field) in cases {
            let e = from_toml(text).unwrap_err();
            assert_eq!(e.field.as_deref(), *field, "{text}: {e}");
        }
        let e = from_toml("path = '/m'\nmax_mesages = 5").unwrap_err();
        assert!(
            e.message.contains("path, max_messages, max_bytes"),
            "the keys it takes: {e}"
        );
        let s = from_toml("path = '/m'\nmax_messages = 1000\nmax_bytes = 1").unwrap();
        assert_eq!((s.max_messages, s.max_bytes), (1000, 1));
    }

    #[test]
    fn flags_follow_the_info_part() {
        let cases = [
            ("1763805720.M1P1.host:2,S", "S"),
            ("1763805720.M1P1.host:2,FRS", "FRS"),
            ("1763805720.M1P1.host:2,", ""),
            ("1763805720.M1P1.host", ""),
            ("odd:name:2,T", "T"),
        ];
        for (name, want) in cases {
            assert_eq!(flags(name), want, "{name}");
        }
    }

    #[test]
    fn a_snippet_is_one_collapsed_line() {
        assert_eq!(snippet("  Hello,\n\n\tworld!  \r\n"), "Hello, world!");
        assert_eq!(snippet("a\u{1b}[31mred\u{1b}[0m\u{202e}b"), "aredb");
        let long = "word ".repeat(1000);
        let s = snippet(&long);
        assert_eq!(s.chars().count(), SNIPPET_CHARS);
        assert!(s.ends_with('…'), "{s}");
    }

    #[test]
    fn quoted_replies_and_signatures_are_cut() {
        // (body, what stays) — each row names a client's way of quoting.
        let cases: &[(&str, &str)] = &[
            (
                "Hi Sam,\n\nThe contract renewal is due on 3 December.\n\n-- \nAna\nACME Ltd, +44 20 7946 0958\n",
                "Hi Sam, The contract renewal is due on 3 December.",
            ),
            (
                "Yes, Thursday works.\n\nOn Mon, 23 Nov 2026 at 10:00, Sam <sam@x.example> wrote:\n> Can we meet?\n> Thursday?\n",
                "Yes, Thursday works.",
            ),
            (
                "Fine.\nOn Mon, 23 Nov 2026 at 10:00, Sam Example\n<sam@x.example> wrote:\n> old\n",
                "Fine.",
            ),
            (
                "Moved to 14h.\n\nLe lun. 23 nov. 2026 à 10:00, René <r@x.example> a écrit :\n> ancien\n",
                "Moved to 14h.",
            ),
            (
                "Passt.\nAm 23.11.2026 um 10:00 schrieb Anna <a@x.example>:\n> alt\n",
                "Passt.",
            ),
            (
                "Approved.\n\n-----Original Message-----\nFrom: Bob\nSent: Monday\nold text\n",
                "Approved.",
            ),
            (
                "See below.\n________________________________\nFrom: Bob\nSent: Monday\n",
                "See below.",
            ),
            ("On my way.\n\nSent from my iPhone\n", "On my way."),
            (
                "Inline: > not a quote\n> a quote\nafter\n",
                "Inline: > not a quote after",
            ),
            (
                "On Thursday we meet at 10.\nBring the slides.\n",
                "On Thursday we meet at 10. Bring the slides.",
            ),
        ];
        for (body, want) in cases {
            assert_eq!(snippet(body), *want, "{body:?}");
        }
    }

    #[test]
    fn the_delivery_time_is_read_from_a_maildir_name() {
        assert_eq!(delivered("1763805720.M1P1.host:2,S"), Some(1_763_805_720));
        assert_eq!(
            delivered("1763805720.123_4.host,U=12:2,S"),
            Some(1_763_805_720)
        );
        for name in ["b", "0:2,", "12.x", "abc.def", "99999999999999.x"] {
            assert_eq!(delivered(name), None, "{name}");
        }
    }

    /// A hostile probe: past 2,000 files the text said "2000 messages" when there were
    /// 50,000; it counts them all, by name, and reads only the newest candidates.
    #[tokio::test]
    async fn a_large_folder_is_counted_truly_and_listed_cheaply() {
        let dir = maildir();
        let d = dir.path();
        let n = MAX_CANDIDATES + 500;
        for i in 0..n {
            let read = if i % 2 == 0 { ":2,S" } else { ":2," };
            let at = 1_795_000_000 + i64::try_from(i).unwrap();
            let date = DateTime::from_timestamp(at, 0).unwrap().to_rfc2822();
            std::fs::write(
                d.join(format!("cur/{at}.M{i}P1.host{read}")),
                format!("From: a@x\nSubject: message {i}\nDate: {date}\n\nbody {i}\n"),
            )
            .unwrap();
        }
        let t = read(d, 3, 8000, "2099-01-01T00:00:00Z").await;
        assert!(
            t.text
                .starts_with(&format!("{n} messages ({} unread); the newest 3:\n", n / 2)),
            "{}",
            t.text
        );
        let subjects: Vec<&str> = t
            .text
            .lines()
            .filter_map(|l| l.strip_prefix("Subject: "))
            .collect();
        assert_eq!(
            subjects,
            [
                format!("message {}", n - 1),
                format!("message {}", n - 2),
                format!("message {}", n - 3)
            ]
        );
    }

    proptest! {
        #[test]
        fn snippets_are_bounded_and_clean(body in "(?s).{0,1200}") {
            let s = snippet(&body);
            prop_assert!(s.chars().count() <= SNIPPET_CHARS);
            prop_assert!(!s.contains("  "), "{s:?}");
            prop_assert!(!s.chars().any(char::is_control), "{s:?}");
            prop_assert_eq!(s.trim(), s.as_str());
        }
    }

    #[tokio::test]
    async fn newest_first_by_date_then_mtime_then_name() {
        let dir = maildir();
        let d = dir.path();
        let day = "2026-11-21T12:00:00Z";
        put(
            d,
            "new/b",
            &mail(
                "b@x",
                "dated newest",
                Some("Sun, 22 Nov 2026 09:00:00 +0000"),
                "B",
            ),
            day,
        );
        // No Date: its file time (10:03) places it.
        put(
            d,
            "new/c",
            &mail("c@x", "undated", None, "C"),
            "2026-11-22T10:03:00Z",
        );
        // The Date is read in its own offset: 09:30 +0100 is 08:30 UTC.
        put(
            d,
            "cur/a:2,S",
            &mail(
                "a@x",
                "offset",
                Some("Sun, 22 Nov 2026 09:30:00 +0100"),
                "A",
            ),
            day,
        );
        // The same Date as `a`: the name breaks the tie.
        put(
            d,
            "cur/0:2,",
            &mail("z@x", "tie", Some("Sun, 22 Nov 2026 08:30:00 +0000"), "Z"),
            day,
        );
        put(d, "tmp/x", &mail("t@x", "being delivered", None, "T"), day);
        put(d, "cur/.hidden", &mail("h@x", "hidden", None, "H"), day);
        put(d, "cur/gone:2,ST", &mail("g@x", "trashed", None, "G"), day);
        let t = read(d, 20, 8000, "2026-11-22T10:00:00Z").await;
        let subjects: Vec<&str> = t
            .text
            .lines()
            .filter_map(|l| l.strip_prefix("Subject: "))
            .collect();
        assert_eq!(subjects, ["undated", "dated newest", "tie", "offset"]);
        assert!(
            t.text
                .starts_with("4 messages (3 unread, 1 new since last tick), newest first:\n"),
            "{}",
            t.text
        );
        assert!(
            t.text
                .contains("Sun 22 Nov 10:03 · unread · new since last tick\n")
        );
        assert!(t.text.contains("Sun 22 Nov 08:30 · read\nFrom: a@x\n"));

        let t = read(d, 2, 8000, "2026-11-22T10:00:00Z").await;
        assert!(
            t.text
                .starts_with("4 messages (3 unread, 1 new since last tick); the newest 2:\n")
        );
        assert_eq!(t.text.matches("Subject: ").count(), 2);
        assert!(!t.truncated);
    }

    /// The cap is shared by the messages' texts; a long one cannot push the
    /// others out, and a fact in a second paragraph reaches the text.
    #[tokio::test]
    async fn the_byte_cap_keeps_every_header_and_shares_the_texts() {
        let dir = maildir();
        let d = dir.path();
        for i in 0..5 {
            put(
                d,
                &format!("new/{i}"),
                &mail("x@y", &format!("message {i}"), None, &"text ".repeat(40)),
                &format!("2026-11-22T0{i}:00:00Z"),
            );
        }
        put(
            d,
            "new/long",
            &mail(
                "z@y",
                "long one",
                None,
                &format!(
                    "Dear Sam,\n\n{}\n\nThe deposit of 400 EUR is due on 4 December.\n",
                    "Thanks for the visit. ".repeat(20)
                ),
            ),
            "2026-11-21T00:00:00Z",
        );
        let full = read(d, 20, 8000, "2026-11-23T00:00:00Z").await;
        assert!(!full.truncated);
        assert!(full.text.contains("due on 4 December"), "{}", full.text);
        let blocks: Vec<&str> = full.text.split("\n\n").collect();
        assert_eq!(blocks.len(), 7, "the summary and 6 blocks: {}", full.text);
        let cap = full.text.len() - 200;
        let cut = read(d, 20, cap, "2026-11-23T00:00:00Z").await;
        assert!(cut.truncated && cut.text.len() <= cap);
        assert_eq!(cut.text.matches("Subject: ").count(), 6, "{}", cut.text);
        let whole = format!("\n{}\n", ["text"; 40].join(" "));
        assert_eq!(
            cut.text.matches(&whole).count(),
            5,
            "short texts whole: {}",
            cut.text
        );
        assert!(cut.text.contains("Thanks for the visit.") && cut.text.contains("…\n"));
        // A cap below one block still shows the start of the newest.
        let tiny = read(d, 20, 80, "2026-11-23T00:00:00Z").await;
        assert!(tiny.truncated && tiny.text.len() <= 80, "{tiny:?}");
        assert!(tiny.text.contains("Sun 22 Nov 04:00"), "{}", tiny.text);
    }

    #[tokio::test]
    async fn junk_is_skipped_and_an_empty_folder_says_so() {
        let dir = maildir();
        let d = dir.path();
        let t = read(d, 20, 8000, "2026-11-22T10:00:00Z").await;
        assert_eq!(t.text, "No messages.\n");
        put(
            d,
            "new/junk",
            "\u{0}\u{1}\u{2} binary junk \u{ff}",
            "2026-11-22T09:00:00Z",
        );
        put(
            d,
            "new/ok",
            &mail("a@x", "fine", None, "body"),
            "2026-11-22T09:00:00Z",
        );
        let t = read(d, 20, 8000, "2026-11-22T10:00:00Z").await;
        assert!(
            t.text.starts_with(
                "1 message (1 unread), newest first:\nskipped, not readable as mail: new/junk\n\n"
            ),
            "{}",
            t.text
        );
        assert!(t.text.contains("Subject: fine\nbody\n"), "{}", t.text);
    }

    #[test]
    fn a_file_gone_since_the_listing_is_not_called_unreadable() {
        let dir = maildir();
        let file = File {
            path: dir.path().join("new/1.x"),
            shown: "new/1.x".into(),
            name: "1.x".into(),
            modified: DateTime::<Utc>::UNIX_EPOCH,
            unread: true,
            flagged: false,
        };
        assert_eq!(read_header(&file).unwrap_err(), Unlisted::Gone);
        for junk in ["", "just a line of text, no header", "\n\nbody only"] {
            put(dir.path(), "new/1.x", junk, "2026-11-22T09:00:00Z");
            assert_eq!(
                read_header(&file).unwrap_err(),
                Unlisted::NotMail,
                "{junk:?}"
            );
        }
        put(
            dir.path(),
            "new/1.x",
            "Subject: only this\n",
            "2026-11-22T09:00:00Z",
        );
        let l = read_header(&file).unwrap();
        assert_eq!(
            (l.from.as_str(), l.subject.as_str()),
            ("(unknown sender)", "only this")
        );
    }

    #[tokio::test]
    async fn a_missing_or_plain_directory_is_a_failure() {
        let state = State::default();
        let dir = tempfile::tempdir().unwrap();
        let cx = ctx(&state, dir.path());
        for (path, says) in [
            (dir.path().join("nope"), "cannot read the Maildir"),
            (
                dir.path().to_path_buf(),
                "is not a Maildir: it needs cur/ and new/",
            ),
        ] {
            let g = gather(&[Source::from(settings(&path, 20, 8000))], &cx).await;
            assert!(g.texts.is_empty());
            assert!(g.failures[0].error.contains(says), "{g:?}");
            assert_eq!(g.failures[0].kind, "maildir");
        }
    }

    #[test]
    fn the_failure_names_the_folder() {
        let dir = tempfile::tempdir().unwrap();
        let missing = dir.path().join("nope");
        match list(&missing) {
            Err(SourceError::MaildirUnreadable { path, source }) => {
                assert_eq!(path, missing);
                assert_eq!(source.kind(), io::ErrorKind::NotFound);
            }
            other => panic!("{other:?}"),
        }
        std::fs::create_dir(dir.path().join("cur")).unwrap();
        match list(dir.path()) {
            Err(SourceError::NotAMaildir { path }) => assert_eq!(path, dir.path()),
            other => panic!("{other:?}"),
        }
        std::fs::create_dir(dir.path().join("new")).unwrap();
        assert_eq!(list(dir.path()).unwrap().total, 0);
    }
}

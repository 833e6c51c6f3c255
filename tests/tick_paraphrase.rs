//! Issue 29's end-to-end test: memory that holds up with a real model, not only a perfect
//! one. A day of real ticks of the binary (every 30 minutes, 07:00 to 21:00) over a small
//! world — a real Maildir that fills up during the day (two bills from one sender, a mail
//! carrying two facts, two urgent facts, distractors) and a calendar vdir (an event added
//! at 11:00) — read by two threads whose stand-in model rephrases every fact in other
//! words on every call, never reinforces by id (it re-reports everything as new: the
//! worst case), cites the label of the fact's item in `refs` four findings in five (or
//! never), and escalates an urgent fact every time it can: the schema allows one reason
//! an answer, so with both urgent facts in view a thread escalates them in turn and the
//! other thread in the opposite turn — each urgent fact is escalated on every tick it is
//! in view. A primary model stand-in notifies whatever it is asked about; a notifier
//! script appends what it gets.
//!
//! The stand-in is deterministic (call counters pick the phrasing, the citing and the
//! escalated fact) and its phrasings are general ones — reordered, abbreviated,
//! synonyms, a "Reminder:" in front, cut short — written before the matcher was run on
//! them, never tuned to it.
//!
//! What the contract promises of any such day is checked in the suite
//! ([`Day::assert_contract`]), and the promise — one entry per fact, one
//! notification per urgent fact — on both days. The citing day's first run made 18
//! entries for 10 facts; what closed the gaps: amounts read as their number (`86.40
//! EUR` is 86), a code written with a space is one code, two codes of one cited item
//! veto only when of one shape and otherwise name one fact ("Earlier departure for
//! TP1367" / "Booking QX7P2M: departure changed…"), calendar events carry labels, a
//! re-escalation is also found by its reason, a weekday alone is read as the coming day
//! it names ("Car service tomorrow" / "drop the car at Meier's garage Tuesday
//! morning"), a finding that cites nothing is grounded on the item its words come from
//! ("Parents' evening next Tuesday"; docs/spec.md §6), and an entry is compared by every
//! wording its fact was reported in ("Package waiting at the post office" shares one
//! word with "Pick up the DHL package by Saturday", but the entry was also reported as
//! "DHL parcel 00340434 waiting at the Hauptstrasse post office until Sat 28 Nov";
//! docs/spec.md §7.2).

use std::collections::BTreeMap;
use std::fmt::Write as _;
use std::fs;
use std::path::{Path, PathBuf};
use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::{Arc, Mutex};
use std::time::{Duration, SystemTime};

use serde_json::{Value, json};
use thinker::thread::ThreadName::{Dreamer, Librarian, Oracle, Watcher};
use wiremock::matchers::{method, path};
use wiremock::{Mock, MockServer, Request, Respond, ResponseTemplate};

use crate::escalation_tick::{appending, decision, deliveries, tool_use};
use crate::support::{Tick, completion};

/// One fact of the world: where it is (a marker in its item's text), how the stand-in
/// says it, and, when urgent, why it escalates it and what the user is told.
struct Fact {
    name: &'static str,
    /// A string of its item's text (a mail's subject or body, an event's line) that no
    /// other item holds.
    marker: &'static str,
    importance: u8,
    due: Option<&'static str>,
    /// Every way the stand-in reports it, one per call in turn.
    phrasings: &'static [&'static str],
    /// Urgent: the reasons it is escalated with, in turn (empty: never escalated).
    reasons: &'static [&'static str],
    /// What the primary model tells the user about it.
    notice: &'static str,
}

impl Fact {
    fn urgent(&self) -> bool {
        !self.reasons.is_empty()
    }
}

const FACTS: &[Fact] = &[
    Fact {
        name: "acme-4411",
        marker: "invoice 4411",
        importance: 6,
        due: Some("2026-11-27"),
        phrasings: &[
            "ACME invoice 4411 (EUR 1,250.00) due Friday 27 Nov",
            "Reminder: ACME Billing wants invoice 4411 paid by Friday",
            "Invoice #4411 from ACME, €1250, due 27/11",
            "Payment of 1,250 EUR due to ACME for inv 4411 on Nov 27th",
            "ACME consulting bill for October is due this Friday",
            "Unpaid: ACME 4411",
        ],
        reasons: &[],
        notice: "",
    },
    Fact {
        name: "flight",
        marker: "TP1367",
        importance: 9,
        due: Some("2026-11-27T06:05:00Z"),
        phrasings: &[
            "Flight TP1367 on Fri 27 Nov now departs 06:05 (was 09:40)",
            "TAP moved the Lisbon flight TP 1367 to 6:05am on Friday",
            "Reminder: Friday's Lisbon flight leaves earlier, at 06:05",
            "Booking QX7P2M: departure changed to 06:05 on 27/11",
            "Earlier departure for TP1367",
        ],
        reasons: &[
            "Flight TP1367 now leaves at 06:05 on Friday",
            "Friday's Lisbon flight departs 3.5 hours earlier",
            "TP1367 rescheduled to 06:05: the airport transfer must change",
            "Schedule change on the Lisbon flight",
        ],
        notice: "Your Friday flight from Lisbon now leaves at 06:05.",
    },
    Fact {
        name: "photos",
        marker: "class photos",
        importance: 5,
        due: Some("2026-11-26"),
        phrasings: &[
            "Class photos Thursday 26 Nov, bring 12 euros cash",
            "School photo day on Thu: €12 in cash needed",
            "Reminder: 12 EUR for class photos on Thursday",
            "Kids need cash for the class photo (Nov 26th)",
            "Class photos Thursday",
        ],
        reasons: &[],
        notice: "",
    },
    Fact {
        name: "parents-evening",
        marker: "Parents' evening",
        importance: 5,
        due: Some("2026-12-01T19:00:00Z"),
        phrasings: &[
            "Parents' evening Tue 1 Dec at 19:00 in the main hall",
            "School parents evening on December 1st, 7pm",
            "Reminder: parents' evening Tuesday 7 pm",
            "Parent-teacher evening at Riverside Primary on 01/12",
            "Parents' evening next Tuesday",
        ],
        reasons: &[],
        notice: "",
    },
    Fact {
        name: "acme-4412",
        marker: "invoice 4412",
        importance: 6,
        due: Some("2026-12-04"),
        phrasings: &[
            "ACME invoice 4412 for EUR 86.40 due 4 Dec",
            "Support contract invoice from ACME (4412): €86.40 by December 4th",
            "Reminder: ACME inv 4412, 86.40 EUR, due Fri 4 Dec",
            "ACME Billing sent a December support contract bill",
            "Pay ACME 86,40 € by 04/12",
        ],
        reasons: &[],
        notice: "",
    },
    Fact {
        name: "leak",
        marker: "plumber",
        importance: 9,
        due: Some("2026-11-23T16:00:00Z"),
        phrasings: &[
            "Plumber coming today at 16:00 for the water leak, someone must be home",
            "Water leak from the flat above: plumber visit 4pm today",
            "Reminder: be home at 16h00 to let the plumber in",
            "Leak in the bathroom, the property manager sends a plumber at 4 pm",
            "Plumber at 16:00",
        ],
        reasons: &[
            "Someone has to be home at 16:00 for the plumber (water leak)",
            "Water is leaking into the bathroom; plumber due at 4pm",
            "Leak from upstairs, the plumber arrives this afternoon",
        ],
        notice: "The plumber comes at 16:00 about the leak: someone must be home.",
    },
    Fact {
        name: "dentist",
        marker: "dental check-up",
        importance: 5,
        due: Some("2026-12-02T10:30:00Z"),
        phrasings: &[
            "Dental check-up with Dr Weber on Wed 2 Dec at 10:30",
            "Dentist appt Wednesday 10:30",
            "Reminder: check-up at Dr. Weber's practice, 2 December 10.30am",
            "Dr Weber dental appointment on 02/12",
            "Check-up at the dentist next Wednesday",
        ],
        reasons: &[],
        notice: "",
    },
    Fact {
        name: "parcel",
        marker: "00340434",
        importance: 5,
        due: Some("2026-11-28"),
        phrasings: &[
            "DHL parcel 00340434 waiting at the Hauptstrasse post office until Sat 28 Nov",
            "Pick up the DHL package by Saturday",
            "Reminder: parcel 340434 to collect at the post office",
            "Missed DHL delivery, collect by 28/11",
            "Package waiting at the post office",
        ],
        reasons: &[],
        notice: "",
    },
    Fact {
        name: "car-service",
        marker: "Car service",
        importance: 5,
        due: Some("2026-11-24T08:00:00Z"),
        phrasings: &[
            "Car service at Garage Meier Tue 24 Nov 08:00",
            "Car in for service tomorrow at 8am (Garage Meier)",
            "Reminder: drop the car at Meier's garage Tuesday morning",
            "Garage Meier car service on 24/11",
            "Car service tomorrow",
        ],
        reasons: &[],
        notice: "",
    },
    Fact {
        name: "offsite",
        marker: "Team offsite planning",
        importance: 5,
        due: Some("2026-11-26T09:00:00Z"),
        phrasings: &[
            "Team offsite planning Thu 26 Nov 09:00 in Room Aurora",
            "Offsite planning meeting Thursday 9am",
            "Reminder: team offsite planning mtg on Nov 26th",
            "Planning session for the team offsite, Aurora room, Thursday morning",
            "Offsite planning Thursday",
        ],
        reasons: &[],
        notice: "",
    },
];

/// A mail of the day: delivered at `at` (UTC, Mon 23 Nov 2026).
struct Mail {
    at: &'static str,
    from: &'static str,
    subject: &'static str,
    body: &'static str,
}

const MAILS: &[Mail] = &[
    Mail {
        at: "06:40",
        from: "ACME Billing <billing@acme.example>",
        subject: "Invoice 4411",
        body: "Dear Sam, invoice 4411 for EUR 1,250.00 (consulting, October) is due on Friday 27 November.",
    },
    Mail {
        at: "06:55",
        from: "Kitchen Weekly <news@kitchen.example>",
        subject: "Ten gadgets for your kitchen",
        body: "This week: ten gadgets that make cooking easier, and a recipe for pumpkin soup.",
    },
    Mail {
        at: "08:10",
        from: "TAP Air Portugal <noreply@flytap.example>",
        subject: "Schedule change for booking QX7P2M",
        body: "Dear passenger, flight TP1367 from Lisbon to Berlin on Friday 27 November now departs at 06:05 instead of 09:40. Check your connections.",
    },
    Mail {
        at: "09:20",
        from: "Riverside Primary School <office@riverside.example>",
        subject: "Dates for parents",
        body: "Dear parents, class photos are on Thursday 26 November: children should bring 12 euros in cash. Parents' evening is on Tuesday 1 December at 19:00 in the main hall.",
    },
    Mail {
        at: "10:30",
        from: "ACME Billing <billing@acme.example>",
        subject: "Invoice 4412",
        body: "Dear Sam, invoice 4412 for EUR 86.40 (support contract, December) is due on Friday 4 December.",
    },
    Mail {
        at: "11:15",
        from: "Jonas <jonas@example.org>",
        subject: "Re: lunch",
        body: "Thanks for lunch today, it was great. Let's do it again soon!",
    },
    Mail {
        at: "12:40",
        from: "Hausverwaltung Kranz <info@kranz-hv.example>",
        subject: "Water leak in your building",
        body: "Dear tenant, water is leaking from the flat above into your bathroom. The plumber comes today at 16:00; someone must be home to let him in.",
    },
    Mail {
        at: "14:05",
        from: "Praxis Dr. Weber <termine@praxis-weber.example>",
        subject: "Your appointment",
        body: "This is a reminder of your dental check-up on Wednesday 2 December at 10:30.",
    },
    Mail {
        at: "15:30",
        from: "DHL <noreply@dhl.example>",
        subject: "We missed you",
        body: "We could not deliver your parcel 00340434 today. Pick it up at the post office on Hauptstrasse by Saturday 28 November.",
    },
    Mail {
        at: "17:00",
        from: "Outdoor Store <sale@outdoor.example>",
        subject: "Winter sale",
        body: "50% off all winter jackets this weekend only.",
    },
];

/// An event of the calendar vdir, its file written at `at`.
struct Event {
    at: &'static str,
    uid: &'static str,
    summary: &'static str,
    location: &'static str,
    start: &'static str,
    end: &'static str,
}

const EVENTS: &[Event] = &[
    Event {
        at: "06:00",
        uid: "car-service-2026@example.org",
        summary: "Car service",
        location: "Garage Meier",
        start: "20261124T080000Z",
        end: "20261124T090000Z",
    },
    Event {
        at: "11:00",
        uid: "offsite-planning-2026@example.org",
        summary: "Team offsite planning",
        location: "Room Aurora",
        start: "20261126T090000Z",
        end: "20261126T120000Z",
    },
];

const DAY: &str = "2026-11-23";
/// The ticks: every 30 minutes from 07:00 to 21:00 (29 ticks).
const FIRST_TICK_MINUTE: u32 = 7 * 60;
const LAST_TICK_MINUTE: u32 = 21 * 60;
const TICK_EVERY: u32 = 30;
/// What a thread may report in one answer (the answer schema's `maxItems`).
const MAX_FINDINGS: usize = 5;

/// The minute of the day of `HH:MM`.
fn minute(hhmm: &str) -> u32 {
    let (h, m) = hhmm.split_once(':').unwrap();
    h.parse::<u32>().unwrap() * 60 + m.parse::<u32>().unwrap()
}

fn at(minute: u32) -> String {
    format!("{DAY}T{:02}:{:02}:00Z", minute / 60, minute % 60)
}

fn epoch(minute: u32) -> SystemTime {
    let ts = thinker::timestamp::parse(&at(minute)).unwrap().timestamp();
    SystemTime::UNIX_EPOCH + Duration::from_secs(u64::try_from(ts).unwrap())
}

/// Delivers `mail` (the `n`th) into the Maildir `root`, its file time its delivery time.
fn deliver(root: &Path, n: usize, mail: &Mail) {
    let when = epoch(minute(mail.at));
    let secs = when
        .duration_since(SystemTime::UNIX_EPOCH)
        .unwrap()
        .as_secs();
    let file = root.join("new").join(format!("{secs}.M{n}P4101.mailhost"));
    let date = thinker::timestamp::parse(&at(minute(mail.at)))
        .unwrap()
        .to_rfc2822();
    fs::write(
        &file,
        format!(
            "From: {}\r\nTo: Sam <sam@example.org>\r\nSubject: {}\r\nDate: {date}\r\nMessage-ID: <paraphrase-{n}@mail.example>\r\nMIME-Version: 1.0\r\nContent-Type: text/plain; charset=utf-8\r\n\r\n{}\r\n",
            mail.from, mail.subject, mail.body
        ),
    )
    .unwrap();
    fs::File::options()
        .write(true)
        .open(&file)
        .unwrap()
        .set_modified(when)
        .unwrap();
}

fn write_event(dir: &Path, event: &Event) {
    fs::write(
        dir.join(format!("{}.ics", event.uid.split('@').next().unwrap())),
        format!(
            "BEGIN:VCALENDAR\r\nVERSION:2.0\r\nPRODID:-//thinker tests//paraphrase//EN\r\nBEGIN:VEVENT\r\nUID:{}\r\nDTSTAMP:20261120T120000Z\r\nDTSTART:{}\r\nDTEND:{}\r\nSUMMARY:{}\r\nLOCATION:{}\r\nEND:VEVENT\r\nEND:VCALENDAR\r\n",
            event.uid, event.start, event.end, event.summary, event.location
        ),
    )
    .unwrap();
}

/// What the stand-in saw: the label of each fact's item (the same in every prompt).
type Labels = Arc<Mutex<BTreeMap<&'static str, String>>>;

/// A thread's stand-in model (see the module doc).
struct Paraphraser {
    /// Its place in the turn of urgent facts (0 or 1), and in the phrasings.
    offset: usize,
    cite: bool,
    calls: AtomicUsize,
    labels: Labels,
}

/// A fact in view: its index in [`FACTS`], its item's label and its source's name.
struct InView {
    fact: usize,
    label: String,
    source: String,
}

/// The facts in the sources part of a thread's prompt, each with the label of the item
/// it sits in (the last label at a line's start before it).
fn in_view(prompt: &str) -> Vec<InView> {
    let start = prompt.find("## Your sources").unwrap_or(prompt.len());
    let end = prompt[start..]
        .find("## Your answer")
        .map_or(prompt.len(), |i| start + i);
    let mut found: Vec<InView> = Vec::new();
    let (mut label, mut source) = (String::new(), String::new());
    for line in prompt[start..end].lines() {
        if let Some(i) = line.find("source=\"")
            && line.starts_with("<<<DATA")
        {
            source = line[i + 8..].split('"').next().unwrap_or("").to_string();
            label.clear();
            continue;
        }
        let rest = line
            .strip_prefix("== ")
            .or_else(|| line.strip_prefix("- "))
            .unwrap_or(line);
        if let Some(r) = rest.strip_prefix('[')
            && r.len() > 7
            && r.as_bytes()[6] == b']'
        {
            label = r[..6].to_string();
        }
        for (i, fact) in FACTS.iter().enumerate() {
            if line.contains(fact.marker) && !found.iter().any(|f| f.fact == i) {
                found.push(InView {
                    fact: i,
                    label: label.clone(),
                    source: source.clone(),
                });
            }
        }
    }
    found
}

impl Paraphraser {
    fn new(offset: usize, cite: bool, labels: &Labels) -> Paraphraser {
        Paraphraser {
            offset,
            cite,
            calls: AtomicUsize::new(0),
            labels: Arc::clone(labels),
        }
    }

    /// The answer to call `n` of a prompt showing `view`.
    fn answer(&self, n: usize, view: &[InView]) -> Value {
        let (urgent, others): (Vec<&InView>, Vec<&InView>) =
            view.iter().partition(|v| FACTS[v.fact].urgent());
        // Urgent facts first; the others in turn, as many as an answer may carry.
        let mut chosen = urgent.clone();
        if !others.is_empty() {
            let room = MAX_FINDINGS.saturating_sub(chosen.len()).min(others.len());
            chosen.extend((0..room).map(|k| others[(n + k) % others.len()]));
        }
        let findings: Vec<Value> = chosen
            .iter()
            .map(|v| {
                let fact = &FACTS[v.fact];
                let turn = n + v.fact + self.offset;
                let mut f = json!({
                    "summary": fact.phrasings[turn % fact.phrasings.len()],
                    "importance": fact.importance,
                    "kind": if fact.urgent() { "anomaly" } else { "observation" },
                    "from": v.source,
                });
                if let Some(due) = fact.due {
                    f["due"] = json!(due);
                }
                if self.cite && !v.label.is_empty() && (n + v.fact + 2 * self.offset) % 5 != 4 {
                    f["refs"] = json!([v.label]);
                }
                f
            })
            .collect();
        let mut answer = json!({"findings": findings, "reinforce": [], "retire": [],
                                "suggest": "", "escalate": false});
        if !urgent.is_empty() {
            let fact = &FACTS[urgent[(n + self.offset) % urgent.len()].fact];
            answer["escalate"] = json!(true);
            answer["escalate_reason"] = json!(fact.reasons[n % fact.reasons.len()]);
        }
        answer
    }
}

impl Respond for Paraphraser {
    fn respond(&self, request: &Request) -> ResponseTemplate {
        let n = self.calls.fetch_add(1, Ordering::SeqCst);
        let body: Value = serde_json::from_slice(&request.body).unwrap_or_default();
        let model = body["model"].as_str().unwrap_or("").to_string();
        let prompt: String = body["messages"]
            .as_array()
            .into_iter()
            .flatten()
            .filter_map(|m| m["content"].as_str())
            .collect::<Vec<_>>()
            .join("\n");
        let view = in_view(&prompt);
        if let Ok(mut labels) = self.labels.lock() {
            for v in &view {
                labels.insert(FACTS[v.fact].name, v.label.clone());
            }
        }
        ResponseTemplate::new(200).set_body_json(completion(
            &model,
            &self.answer(n, &view),
            1500,
            200,
        ))
    }
}

/// The primary model's stand-in: notifies, telling the user the notice of every urgent
/// fact the escalation reasons are about; a reason it cannot place is said as it is (and
/// fails the test).
struct Primary {
    rt: tokio::runtime::Runtime,
    server: MockServer,
}

struct Notifies;

impl Respond for Notifies {
    fn respond(&self, request: &Request) -> ResponseTemplate {
        let body: Value = serde_json::from_slice(&request.body).unwrap_or_default();
        let prompt = body["messages"][0]["content"].as_str().unwrap_or("");
        let mut told: Vec<String> = Vec::new();
        for reason in reasons(prompt) {
            let text = FACTS
                .iter()
                .find(|f| f.reasons.contains(&reason.as_str()))
                .map_or_else(|| format!("UNPLACED: {reason}"), |f| f.notice.to_string());
            if !told.contains(&text) {
                told.push(text);
            }
        }
        tool_use(&decision(
            "notify",
            &told.join(" "),
            "the user must act today",
        ))
    }
}

/// The escalation reasons listed in an escalation prompt.
fn reasons(prompt: &str) -> Vec<String> {
    let Some(start) = prompt.find("source=\"escalation reasons\">>>") else {
        return Vec::new();
    };
    let section = &prompt[start..];
    let section = &section[..section.find("<<<END DATA").unwrap_or(section.len())];
    section
        .lines()
        .filter(|l| l.starts_with("- "))
        .filter_map(|l| l.split_once("): ").map(|(_, r)| r.trim().to_string()))
        .collect()
}

impl Primary {
    fn start() -> Primary {
        let rt = tokio::runtime::Builder::new_current_thread()
            .enable_all()
            .build()
            .unwrap();
        let server = rt.block_on(MockServer::start());
        rt.block_on(
            Mock::given(method("POST"))
                .and(path("/v1/messages"))
                .respond_with(Notifies)
                .mount(&server),
        );
        Primary { rt, server }
    }

    fn config(&self, notifier: &Path) -> String {
        format!(
            "[providers.primary]\nkind = \"anthropic\"\nbase_url = \"{}\"\napi_key_env = \"PRIMARY_KEY\"\nretries = 0\n\n[escalation]\nmodel = \"primary/claude-opus-5\"\nnotify_command = [\"{}\"]\n",
            self.server.uri(),
            notifier.display()
        )
    }

    /// The reasons of every call, one list a call.
    fn calls(&self) -> Vec<Vec<String>> {
        self.rt
            .block_on(self.server.received_requests())
            .unwrap_or_default()
            .iter()
            .map(|r| {
                let body: Value = serde_json::from_slice(&r.body).unwrap_or_default();
                reasons(body["messages"][0]["content"].as_str().unwrap_or(""))
            })
            .collect()
    }
}

/// What a day of ticks left.
struct Day {
    state: Value,
    journal: Vec<Value>,
    notified: Vec<String>,
    /// The escalation reasons of each call of the primary model.
    primary_calls: Vec<Vec<String>>,
    /// The label of each fact's item, as the stand-in saw it ("" when its item carries
    /// none).
    labels: BTreeMap<&'static str, String>,
    ticks: usize,
}

/// Runs the day: mail delivered and events written as their time comes, a tick every
/// [`TICK_EVERY`] minutes; the watcher reads the inbox, the oracle the inbox and the
/// calendar (the librarian and the dreamer are off); both are paraphrasers, citing
/// labels when `cite`.
fn run_day(cite: bool) -> Day {
    let labels: Labels = Arc::default();
    let primary = Primary::start();
    let mut tick = Tick::new()
        .env("PRIMARY_KEY", "sk-ant-test-0123456789")
        .respond(Watcher, Paraphraser::new(0, cite, &labels))
        .respond(Oracle, Paraphraser::new(1, cite, &labels));
    let inbox: PathBuf = tick.home().join("INBOX");
    let calendar: PathBuf = tick.home().join("calendar");
    for sub in ["cur", "new", "tmp"] {
        fs::create_dir_all(inbox.join(sub)).unwrap();
    }
    fs::create_dir_all(&calendar).unwrap();
    let (script, out) = appending(tick.home());
    let maildir = format!(
        "kind = \"maildir\"\nname = \"inbox\"\npath = \"{}\"",
        inbox.display()
    );
    tick = tick
        .thread(Librarian, "enabled = false")
        .thread(Dreamer, "enabled = false")
        .thread(Watcher, &format!("[[threads.watcher.sources]]\n{maildir}"))
        .thread(
            Oracle,
            &format!(
                "[[threads.oracle.sources]]\n{maildir}\n[[threads.oracle.sources]]\nkind = \"ics\"\nname = \"calendar\"\npaths = [\"{}\"]\nhours = 96",
                calendar.display()
            ),
        )
        // Caps and a budget no day of these facts can reach: a duplicate must show,
        // not be pruned away.
        .config_extra(
            "[memory]\ncaps = { active_threads = 100, patterns = 100, hunches = 100, insights = 100 }\ntoken_budget = 1000000",
        )
        .config_extra(&primary.config(&script));
    let (mut mails, mut events, mut ticks) = (0, 0, 0);
    let mut now = FIRST_TICK_MINUTE;
    while now <= LAST_TICK_MINUTE {
        while mails < MAILS.len() && minute(MAILS[mails].at) <= now {
            deliver(&inbox, mails, &MAILS[mails]);
            mails += 1;
        }
        while events < EVENTS.len() && minute(EVENTS[events].at) <= now {
            write_event(&calendar, &EVENTS[events]);
            events += 1;
        }
        tick.set_now(&at(now));
        tick.run().expect_exit(0);
        ticks += 1;
        now += TICK_EVERY;
    }
    let last = tick.run_with(&["--dry-run"]);
    last.expect_exit(0);
    let labels = labels.lock().unwrap().clone();
    Day {
        state: last.state(),
        journal: last.journal(),
        notified: deliveries(&out),
        primary_calls: primary.calls(),
        labels,
        ticks,
    }
}

/// The fact one of whose phrasings `summary` is (the stand-ins write nothing else, and
/// no phrasing is two facts').
fn fact_of(summary: &str) -> Option<&'static Fact> {
    FACTS.iter().find(|f| f.phrasings.contains(&summary))
}

fn refs(entry: &Value) -> Vec<&str> {
    entry["refs"]
        .as_array()
        .into_iter()
        .flatten()
        .filter_map(Value::as_str)
        .collect()
}

fn text(value: &Value) -> &str {
    value.as_str().unwrap_or("")
}

impl Day {
    /// Every entry of the memory, with its category.
    fn entries(&self) -> Vec<(&'static str, &Value)> {
        ["active_threads", "patterns", "hunches", "insights"]
            .into_iter()
            .flat_map(|cat| {
                self.state[cat]
                    .as_array()
                    .into_iter()
                    .flatten()
                    .map(move |e| (cat, e))
            })
            .collect()
    }

    /// The entries of each fact, by name (entries of no fact under "").
    fn by_fact(&self) -> BTreeMap<&'static str, Vec<&Value>> {
        let mut out: BTreeMap<&'static str, Vec<&Value>> = BTreeMap::new();
        for (_, e) in self.entries() {
            let fact = fact_of(text(&e["summary"])).map_or("", |f| f.name);
            out.entry(fact).or_default().push(e);
        }
        out
    }

    /// Entries beyond the first of each fact.
    fn duplicates(&self) -> usize {
        self.by_fact()
            .values()
            .map(|e| e.len().saturating_sub(1))
            .sum()
    }

    /// The pairs of entries the matcher itself says are one fact (docs/spec.md §7.2, the
    /// default thresholds): consolidation (§7.13) leaves none.
    fn one_fact_pairs(&self) -> Vec<(String, String)> {
        use thinker::aggregate::identity::{Key, Thresholds, compare};
        let keys: Vec<(&str, Key)> = self
            .entries()
            .into_iter()
            .map(|(_, e)| {
                let created = thinker::timestamp::parse(text(&e["created"])).unwrap();
                let key = Key::new(text(&e["summary"]), created.date_naive(), refs(e));
                (text(&e["id"]), key)
            })
            .collect();
        let synonyms = thinker::recall::synonyms::Synonyms::builtin();
        let mut pairs = Vec::new();
        for (i, (a, ka)) in keys.iter().enumerate() {
            for (b, kb) in &keys[i + 1..] {
                if compare(ka, kb, synonyms).same(Thresholds::default()) {
                    pairs.push(((*a).to_string(), (*b).to_string()));
                }
            }
        }
        pairs
    }

    fn notifications_of(&self, fact: &Fact) -> usize {
        self.notified
            .iter()
            .filter(|n| n.contains(fact.notice))
            .count()
    }

    fn outcomes(&self) -> Vec<String> {
        self.state["escalation_history"]
            .as_array()
            .into_iter()
            .flatten()
            .map(|r| text(&r["outcome"]).to_string())
            .collect()
    }

    /// Re-escalations folded into a matter already told, over the day.
    fn folded(&self) -> usize {
        self.journal
            .iter()
            .map(|l| l["aggregate"]["folded"].as_array().map_or(0, Vec::len))
            .sum()
    }

    /// The day as a failure's message: the memory at the end, what each tick added,
    /// merged and folded, every escalation, every notification.
    fn story(&self) -> String {
        let mut s = String::from("--- the memory at the end\n");
        for (cat, e) in self.entries() {
            let _ = writeln!(
                s,
                "{cat} {} (strength {}, refs {:?}) [{}]: {}",
                text(&e["id"]),
                e["strength"],
                refs(e),
                fact_of(text(&e["summary"])).map_or("?", |f| f.name),
                text(&e["summary"]),
            );
        }
        s += "--- the day\n";
        for line in &self.journal {
            let time = text(&line["time"]).get(11..16).unwrap_or("?");
            let agg = &line["aggregate"];
            let list = |key: &str, f: &dyn Fn(&Value) -> String| -> String {
                agg[key]
                    .as_array()
                    .map(|a| a.iter().map(f).collect::<Vec<_>>().join(", "))
                    .unwrap_or_default()
            };
            if agg.is_object() {
                let _ = writeln!(
                    s,
                    "{time} added [{}] merged [{}] folded [{}]",
                    list("added", &|v| text(v).to_string()),
                    list("merged", &|m| format!(
                        "{} into {}",
                        text(&m["id"]),
                        text(&m["into"])
                    )),
                    list("folded", &|f| format!(
                        "{} about {}",
                        text(&f["thread"]),
                        text(&f["entry"])
                    )),
                );
            }
            for r in line["escalation"]["records"]
                .as_array()
                .into_iter()
                .flatten()
            {
                let _ = writeln!(
                    s,
                    "{time}   escalation of {} about {}: {:?} -> {}",
                    text(&r["thread"]),
                    r["entry"].as_str().unwrap_or("(no entry)"),
                    text(&r["reason"]),
                    text(&r["outcome"]),
                );
            }
        }
        s + &format!(
            "--- notified\n{:#?}\n--- labels\n{:?}\n",
            self.notified, self.labels
        )
    }

    /// What the contract promises of any day, whatever the stand-in's wording: every
    /// fact seen and remembered; every entry one fact's, citing only its own item (two
    /// bills of one sender never share an entry); no summary twice; no two entries the
    /// matcher says are one fact (consolidation is done); nothing told but urgent facts,
    /// each told at least once.
    #[track_caller]
    fn assert_contract(&self) {
        assert_eq!(self.ticks, 29);
        let story = self.story();
        let by_fact = self.by_fact();
        assert!(!by_fact.contains_key(""), "entries of no fact\n{story}");
        for fact in FACTS {
            assert!(
                self.labels.contains_key(fact.name),
                "the stand-in never saw {} (its marker {:?})\n{story}",
                fact.name,
                fact.marker
            );
            let entries = by_fact.get(fact.name).cloned().unwrap_or_default();
            assert!(!entries.is_empty(), "{} left no entry\n{story}", fact.name);
            let label = self.labels[fact.name].as_str();
            for e in entries {
                assert!(
                    refs(e).iter().all(|r| *r == label),
                    "{} ({}) cites another item than its own [{label}]\n{story}",
                    text(&e["id"]),
                    fact.name
                );
            }
        }
        let mut summaries: Vec<&str> = self
            .entries()
            .iter()
            .map(|(_, e)| text(&e["summary"]))
            .collect();
        summaries.sort_unstable();
        let before = summaries.len();
        summaries.dedup();
        assert_eq!(summaries.len(), before, "a summary twice\n{story}");
        assert_eq!(
            self.one_fact_pairs(),
            [] as [(String, String); 0],
            "{story}"
        );
        for n in &self.notified {
            assert!(
                FACTS.iter().any(|f| f.urgent() && n.contains(f.notice)),
                "a notification about nothing urgent: {n:?}\n{story}"
            );
        }
        for fact in FACTS.iter().filter(|f| f.urgent()) {
            assert!(
                self.notifications_of(fact) >= 1,
                "{} was never told\n{story}",
                fact.name
            );
        }
    }

    /// The promise about notifications: each urgent fact told exactly once (a
    /// re-escalation folds into what was told), nothing capped.
    #[track_caller]
    /// One entry per fact, the two bills of one sender two of them; with `cited`, each
    /// keeps the reference of its item (when the item shows one).
    fn assert_one_entry_per_fact(&self, cited: bool) {
        let story = self.story();
        let by_fact = self.by_fact();
        for fact in FACTS {
            let entries = &by_fact[fact.name];
            assert_eq!(
                entries.len(),
                1,
                "{}: {} entries\n{story}",
                fact.name,
                entries.len()
            );
            if cited {
                let label = self.labels[fact.name].as_str();
                let want: Vec<&str> = [label].into_iter().filter(|l| !l.is_empty()).collect();
                assert_eq!(refs(entries[0]), want, "{}\n{story}", fact.name);
            }
        }
        assert_ne!(by_fact["acme-4411"][0]["id"], by_fact["acme-4412"][0]["id"]);
    }

    fn assert_told_once(&self) {
        let story = self.story();
        for fact in FACTS.iter().filter(|f| f.urgent()) {
            assert_eq!(
                self.notifications_of(fact),
                1,
                "{} told {} times; the primary model's calls: {:#?}\n{story}",
                fact.name,
                self.notifications_of(fact),
                self.primary_calls
            );
        }
        let outcomes = self.outcomes();
        assert!(
            outcomes.iter().all(|o| !o.starts_with("capped")),
            "{outcomes:#?}\n{story}"
        );
    }

    fn summary(&self, what: &str) -> String {
        format!(
            "[tick_paraphrase] {what}: {} ticks, {} entries for {} facts ({} duplicates), {} notifications, {} primary calls, {} re-escalations folded",
            self.ticks,
            self.entries().len(),
            FACTS.len(),
            self.duplicates(),
            self.notified.len(),
            self.primary_calls.len(),
            self.folded()
        )
    }
}

/// What holds whatever the wording ([`Day::assert_contract`]), and each urgent fact told
/// once with the day's cap never reached.
#[test]
fn tick_paraphrase_a_rephrasing_model_never_mixes_facts_up_and_tells_each_urgent_fact_once() {
    let day = run_day(true);
    eprintln!("{}", day.summary("citing"));
    day.assert_contract();
    // Once each, and nothing capped: a repeat the ledger could not find by its entry or
    // reason is caught by its message (`suppressed: already told`), and the entry it
    // was about is then told too, so its next escalation folds before any call.
    day.assert_told_once();
}

/// Issue 29's required test: one entry per fact after a day of ticks, and one
/// notification per urgent fact.
#[test]
fn tick_paraphrase_one_entry_per_fact_and_one_notification_per_urgent_fact() {
    let day = run_day(true);
    eprintln!("{}", day.summary("citing"));
    day.assert_contract();
    day.assert_told_once();
    day.assert_one_entry_per_fact(true);
    // One call per urgent fact: every re-escalation after it folded.
    assert_eq!(
        day.primary_calls.len(),
        2,
        "{:#?}\n{}",
        day.primary_calls,
        day.story()
    );
}

/// The same day with a stand-in that cites no references: the tick grounds each finding on
/// the item its words come from (docs/spec.md §6), or leaves it to its text. Still one
/// entry per fact, and each urgent fact told once.
#[test]
fn tick_paraphrase_without_references_one_entry_per_fact_and_each_urgent_fact_told_once() {
    let day = run_day(false);
    eprintln!("{}", day.summary("not citing"));
    day.assert_contract();
    day.assert_told_once();
    day.assert_one_entry_per_fact(false);
}

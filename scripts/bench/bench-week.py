#!/usr/bin/env python3
"""bench-week.py — a synthetic week of one person's world through `thinker tick` (issue 20).

Does thinker remember the right thing until the moment it matters? A seeded world — a
Maildir where mail arrives, is read, trashed and deleted; a vdir calendar with recurring,
moved and cancelled events; notes that change — holds planted facts (payments, travel,
deliveries, family, work deadlines, health, bills, renewals…, some urgent, some moved,
some cancelled) among well over a hundred distractors. `thinker tick --now T` runs every
5 simulated minutes for 7 days (2,016 ticks) with the default config's threads, cadences
and escalation, against a model stand-in on loopback that answers *perfectly from what it
is shown*, so every loss is thinker's own.

The stand-in (an OpenAI-compatible /v1/chat/completions server started here) knows the
world's facts. A fact counts as seen only when its identifying text — including a detail
that may sit in a mail's second or third paragraph — is inside the prompt's fenced
sources. Per fact seen it gives a finding (summary, importance, due, `from` = the
source's name, a kind fitting the thread), or `reinforce`s the ids of subconscious
entries it recognises (the prompt's listing is parsed), gives a finding with the new
`due` for a moved fact, `retire`s {"id", "why": "cancelled"} what its sources show
cancelled, escalates an urgent fact the first time it is seen, and reports distractors
(at most 3 new ones an answer, at low to middling importance: real memory pressure).
The escalation prompt gets `notify` when a reason is an urgent fact, else `dismiss`.

Measured per fact: minutes from first appearance to being in memory (an entry whose
summary is the fact's), the share of its relevance window (appearance → due, or →
cancellation) spent in memory, whether it is in memory at its due time (the last tick
at or before it), and whether `thinker show --format prompt --for QUESTION` then returns
it for each of its natural questions. Overall: urgent facts notified exactly once, false
alarms, calls and input tokens a day, archive lines, stderr lines of healthy ticks. A
message held for the user's confirmation (a payment a mail asks for) reaches them as a
content-free nudge: it counts as told, by the held message's text, when first nudged.

Memory settings are each binary's own defaults: the `[memory]` table of
config/default.toml is left out (so today's binary and the next run theirs), unless
`--memory-from-config`; `--set KEY=VALUE` (repeatable, a key as in the config file, e.g.
`--set memory.caps.active_threads=8`) writes a key into the generated config, to compare
settings on the same world. `--keep DIR` keeps the run (world, state, journal), so
`thinker replay --state DIR/state --config DIR/thinker.toml --set …` can replay the
memory rules over the recorded answers (quicker, but the answers stay those given to the
original memory). Facts are split: `tune` and `held` (held out: check a tuning on them,
never tune on them); a different `--seed` gives another week (times, amounts, where
in a mail the detail sits).

Usage:
  python3 scripts/bench/bench-week.py                       # cargo build --release, then run
  python3 scripts/bench/bench-week.py --binary /work/wt/notes/thinker-before --json before.json
  python3 scripts/bench/bench-week.py --set memory.token_budget=4000 --set memory.caps.active_threads=12
  python3 scripts/bench/bench-week.py --quick --binary target/debug/thinker   # a day, 6 facts
  python3 scripts/bench/bench-week.py --world-only DIR      # write the world's JSON and files
Python 3.11+ standard library only.
"""

import argparse
import json
import os
import random
import re
import shutil
import subprocess
import sys
import tempfile
import threading
import time
import tomllib
from dataclasses import dataclass, field
from datetime import datetime, timedelta, timezone
from email.message import EmailMessage
from email.utils import format_datetime
from email import policy
from pathlib import Path

import cheap_model
import stub

REPO = Path(__file__).resolve().parents[2]
UTC = timezone.utc
START = datetime(2026, 11, 23, tzinfo=UTC)  # a Monday
USER = ("Robin Hale", "robin@hale.example")

# --- matching as thinker does it (SPEC §7.2) -------------------------------------------------

STOP = set("""a an the and or but of to in on at for with by from is are was were be been being
it its this that these those as into about over than then there their they we you i he she his
her our your my me us not no so if""".split())


def tokens(text):
    return {t for t in re.split(r"[^0-9a-z]+", text.lower()) if len(t) > 1 and t not in STOP}


def jaccard(a, b):
    if not a or not b:
        return 0.0
    return len(a & b) / len(a | b)


def contained(small, big):
    """Share of `small`'s tokens that are in `big`."""
    return len(small & big) / len(small) if small else 0.0


def norm(text):
    return re.sub(r"\s+", " ", text.lower())


def iso(t):
    return t.strftime("%Y-%m-%dT%H:%M:%SZ")


def parse_iso(text):
    try:
        return datetime.fromisoformat(text.replace("Z", "+00:00")).astimezone(UTC)
    except (ValueError, AttributeError):
        return None


# --- the world: what it is made of ----------------------------------------------------------

@dataclass
class Group:
    """Markers that must all be in one source (`scope="source"`) or one line of it."""
    markers: list
    scope: str = "source"


@dataclass
class Version:
    summary: str
    due: datetime
    groups: list
    at: datetime = None  # when this version's evidence appears in the world


@dataclass
class Item:
    """A planted fact (`fact=True`) or a distractor the stand-in may report."""
    id: str
    summary: str
    importance: int
    versions: list
    fact: bool = False
    category: str = ""
    urgent: bool = False
    split: str = "tune"
    questions: list = field(default_factory=list)
    appear: datetime = None
    cancel_groups: list = field(default_factory=list)
    cancelled_at: datetime = None
    moved_at: datetime = None
    alarmist: bool = False  # a distractor the threads escalate and the primary dismisses
    channel: str = ""
    detail_para: int = 0

    @property
    def due(self):
        return self.versions[-1].due

    @property
    def window_end(self):
        return self.cancelled_at or self.due


@dataclass
class Ev:
    at: datetime
    seq: int
    op: str
    args: tuple


# --- the world: building it -----------------------------------------------------------------

OPENERS = {
    "business": [
        "Thank you for being a customer of {org}. We are writing to let you know about an "
        "update to your account. We know your time is valuable, so we have tried to keep this "
        "message short, but please read it to the end, as it contains information you may "
        "need to act on. If you have already taken care of this, please ignore the rest of "
        "this message, with our thanks.",
        "We hope this message finds you well. At {org} we are always working to make things "
        "simpler for our customers, and as part of that we now send every important notice by "
        "email as well as through your online account. This message was sent to you because "
        "of recent activity on your account, and it may need your attention in the coming "
        "days, so please keep it for your records.",
        "This is an automated message from {org}. Please do not reply directly to this "
        "address, as replies are not monitored by anyone. If you need help, our customer "
        "support team can be reached through the contact page of our website, where you will "
        "also find answers to the questions we are asked most often. The details that "
        "concern you are set out below.",
    ],
    "friend": [
        "Hope you are all well and that Maya enjoyed half term. We have been meaning to write "
        "for ages but the weeks keep disappearing under us, what with the new job and the "
        "kitchen still half finished, and the builders promising every Friday that it will "
        "be done by the next one. Anyway, thank you again for the lovely evening last month: "
        "the kids have not stopped talking about your garden and the rope swing.",
        "Sorry for the radio silence, it has been a mad few weeks here. The move went fine in "
        "the end, although we are still living out of boxes and the cat has decided the "
        "airing cupboard is her new home. I keep meaning to ring but by the time the kids are "
        "in bed it always feels too late, so an email will have to do for now.",
    ],
    "work": [
        "Quick one before I forget, and sorry for the long email, it has been one of those "
        "weeks. We had a long discussion in the leadership meeting this morning about "
        "priorities for the rest of the quarter, and most of it does not concern you "
        "directly, but there is one thing that does, and I wanted you to hear it from me "
        "rather than find it in the minutes next week.",
        "Following up on yesterday's conversation and the notes Jonas circulated afterwards. "
        "I have gone through the open actions with the others and cleaned up the tracker, so "
        "most of what was on your plate is now either done or handed over. There is one "
        "item left that I could not reassign, and it has a hard date attached to it, which "
        "is why I am writing.",
    ],
    "school": [
        "Dear Parents and Carers, it has been a wonderful half term at Brookfield Primary and "
        "we are so proud of everything the children have achieved. Thank you for your "
        "continued support with reading at home, with the harvest collection and with the "
        "many clubs that run after school. Please read the information below carefully, as "
        "it concerns your child's class.",
    ],
}

EXTRAS = [
    "In other news, we have updated our privacy notice to explain more clearly how we use "
    "the information you give us. You do not need to do anything, but you can read the new "
    "version at any time from your account page.",
    "As always, thank you for your patience while we make these changes. We know that "
    "changes like this can be inconvenient, and we are grateful for your understanding.",
    "A reminder that you can manage your preferences, change how we contact you and see all "
    "your previous messages from us by signing in to your account on our website.",
]

SIGNATURES = [
    "Priya Raman\nHead of Partnerships | Tidewater Studio\n+44 20 7946 0321",
    "Dana Whitfield\nDirector of Product\nTidewater Studio, 4 Quay Street, Bristol",
    "Jonas Berg\nSenior Engineer\nSent from my phone, please excuse typos",
    "The Customer Care Team",
]


class Builder:
    """Turns templates into items and world events, from one seeded random source."""

    def __init__(self, seed, days):
        self.rng = random.Random(seed)
        self.seed = seed
        self.days = days
        self.start = START
        self.end = START + timedelta(days=days)
        self.events = []
        self.seq = 0
        self.mail_n = 0
        self.notes = {}  # file -> {line_id: text} in insertion order

    # time helpers
    def day(self, t):
        return t.strftime("%A")

    def long(self, t):
        return f"{t.strftime('%A')} {t.day} {t.strftime('%B')}"

    def short(self, t):
        return f"{t.strftime('%a')} {t.day} {t.strftime('%b')}"

    def hm(self, t):
        return t.strftime("%H:%M")

    def amount(self, lo, hi):
        return f"{self.rng.uniform(lo, hi):,.2f}"

    def ref(self, prefix):
        return f"{prefix}-{self.rng.randint(10000, 99999)}"

    def awake(self, t):
        """The first moment at or after t when the person reads mail (07:30–23:00)."""
        if t.hour >= 23:
            t = (t + timedelta(days=1)).replace(hour=7, minute=30, second=0)
            t += timedelta(minutes=self.rng.randint(0, 90))
        elif t.hour < 7 or (t.hour == 7 and t.minute < 30):
            t = t.replace(hour=7, minute=30, second=0) + timedelta(minutes=self.rng.randint(0, 90))
        return t

    def add(self, at, op, *args):
        self.seq += 1
        self.events.append(Ev(at, self.seq, op, args))

    # the channels
    def mail(self, at, sender, subject, paragraphs, *, fate="keep", html=False,
             charset=None, quote=None, signature=None, read_after=(15, 300), list_id=None):
        """Delivers a mail at `at`; it is read later, then kept, trashed or deleted."""
        self.mail_n += 1
        n = self.mail_n
        name, addr = sender
        msg = EmailMessage()
        msg["From"] = f"{name} <{addr}>"
        msg["To"] = f"{USER[0]} <{USER[1]}>"
        msg["Subject"] = subject
        msg["Date"] = format_datetime(at)
        msg["Message-ID"] = f"<{n}.{self.seed}@{addr.split('@')[1]}>"
        if list_id:
            msg["List-Id"] = list_id
        body = "\n\n".join(paragraphs)
        if signature:
            body += "\n\n-- \n" + signature
        if quote:
            qat, qwho, qtext = quote
            body += (f"\n\nOn {qat.strftime('%a, %d %b %Y at %H:%M')}, {qwho} wrote:\n"
                     + "\n".join("> " + line for line in qtext.splitlines()))
        if html:
            paras = "".join(f"<p>{p}</p>" for p in paragraphs)
            doc = (f"<html><head><style>p {{ font-family: sans-serif; }}</style></head>"
                   f"<body><div class=\"mail\">{paras}</div></body></html>")
            if html == "alt":
                msg.set_content(body, charset=charset or "utf-8")
                msg.add_alternative(doc, subtype="html")
            else:
                msg.set_content(doc, subtype="html", charset=charset or "utf-8")
        else:
            msg.set_content(body, charset=charset or "utf-8")
        data = msg.as_bytes(policy=policy.default)
        fname = f"{int(at.timestamp())}.M{n}P{self.seed}.bench"
        self.add(at, "mail_new", n, fname, data)
        read = self.awake(at + timedelta(minutes=self.rng.randint(*read_after)))
        self.add(read, "mail_read", n)
        if fate == "trash":
            self.add(read + timedelta(minutes=self.rng.randint(1, 120)), "mail_flag", n, "ST")
        elif fate == "delete":
            self.add(read + timedelta(hours=self.rng.randint(6, 30)), "mail_delete", n)
        return n

    def ics(self, at, calendar, uid, title, start, end, *, location=None, rrule=None,
            status=None, seq=0, tzid=False):
        def stamp(t):
            return t.strftime("%Y%m%dT%H%M%S")
        if tzid:
            dt = [f"DTSTART;TZID=Europe/London:{stamp(start)}",
                  f"DTEND;TZID=Europe/London:{stamp(end)}"]
        else:
            dt = [f"DTSTART:{stamp(start)}Z", f"DTEND:{stamp(end)}Z"]
        lines = ["BEGIN:VCALENDAR", "VERSION:2.0", "PRODID:-//thinker bench-week//EN",
                 "BEGIN:VEVENT", f"UID:{uid}", f"DTSTAMP:{stamp(at)}Z", f"SEQUENCE:{seq}",
                 *dt, f"SUMMARY:{title}"]
        if location:
            lines.append(f"LOCATION:{location}")
        if rrule:
            lines.append(f"RRULE:{rrule}")
        if status:
            lines.append(f"STATUS:{status}")
        lines += ["END:VEVENT", "END:VCALENDAR"]
        self.add(at, "ics_write", calendar, uid, "\r\n".join(lines) + "\r\n")

    def ics_remove(self, at, calendar, uid):
        self.add(at, "ics_remove", calendar, uid)

    def note(self, at, file, line_id, text):
        """Adds or replaces a line of a notes file (None removes it)."""
        self.add(at, "note", file, line_id, text)

    def paras(self, kind, org, detail, pos, extra=None, closing=None):
        """Paragraphs with `detail` first, second or third (pos 0, 1, 2)."""
        opener = self.rng.choice(OPENERS[kind]).format(org=org)
        extra = extra or self.rng.choice(EXTRAS)
        out = [detail, extra] if pos == 0 else [opener, detail] if pos == 1 \
            else [opener, extra, detail]
        if closing:
            out.append(closing)
        return out

    def pos(self):
        return self.rng.choices([0, 1, 2], weights=[7, 3, 2])[0]


# Fact templates. Each has: key, category, urgent, importance, held (held-out split),
# moved/cancelled, the lead time (hours before due when it appears, scaled for short
# worlds), the due's clock times, the summary (no times: `due` carries them) and its
# moved form, natural questions, and `build(b, f, t)` that writes its world events and
# returns the versions' marker groups (and the cancellation's).

TEMPLATES = []


def template(**kw):
    def wrap(fn):
        TEMPLATES.append(dict(kw, key=fn.__name__, build=fn))
        return fn
    return wrap


@dataclass
class Timing:
    appear: datetime
    due: datetime
    move_at: datetime = None
    due2: datetime = None
    cancel_at: datetime = None


def detail_groups(b, f, key, detail):
    return [Group([key, detail])]


@template(category="payment", importance=6, lead=(30, 90), times=["09:00"],
          summary="Council tax instalment for Ashby Road to pay",
          questions=["how much is the council tax this month?",
                     "when does the council tax have to be paid?",
                     "do I owe the council anything?"])
def council_tax(b, f, t):
    amt = b.amount(120, 190)
    detail = (f"Your next instalment of {amt} for 12 Ashby Road is due on {b.long(t.due)}. "
              "If you pay by direct debit you do not need to do anything.")
    f.detail_para = b.pos()
    b.mail(t.appear, ("Eastfield Borough Council", "counciltax@eastfield.example"),
           "Council tax: your instalment reminder",
           b.paras("business", "Eastfield Borough Council", detail, f.detail_para))
    return [[Group(["council tax", f"instalment of {amt}"])]], []


@template(category="invoice", importance=6, held=True, lead=(40, 100), times=["17:00"],
          summary="Invoice from Marta Villanueva for the brochure translation to pay",
          questions=["did Marta send her invoice?", "how much do I owe the translator?",
                     "when do I have to pay Marta?"])
def translator_invoice(b, f, t):
    amt = b.amount(600, 1600)
    ref = b.ref("MV")
    detail = (f"The total for the Portuguese and Spanish versions comes to {amt}, invoice "
              f"{ref}, payable by {b.long(t.due)} to the account on the invoice.")
    f.detail_para = b.pos()
    b.mail(t.appear, ("Marta Villanueva", "marta@villanueva-translations.example"),
           "Brochure translation: invoice attached",
           b.paras("friend", "", detail, f.detail_para,
                   closing="Thank you again, it was a pleasure working on this. Marta"))
    return [[Group(["brochure translation", ref])]], []


@template(category="payment", urgent=True, importance=8, lead=(5, 20), times=["12:00", "18:00"],
          summary="Electricity direct debit to Brightwatt failed, pay to avoid a late fee",
          questions=["is there a problem with the electricity bill?", "did a payment bounce?",
                     "what do I need to pay urgently?"])
def energy_debit(b, f, t):
    amt = b.amount(60, 140)
    detail = (f"We tried to collect {amt} on the 20th but your bank returned the direct "
              f"debit. Please pay by {b.hm(t.due)} on {b.long(t.due)}, or a late payment fee "
              "of 12.00 will be added.")
    f.detail_para = b.pos()
    b.mail(t.appear, ("Brightwatt Energy", "billing@brightwatt.example"),
           "Action needed: your Brightwatt payment did not go through",
           b.paras("business", "Brightwatt Energy", detail, f.detail_para))
    return [[Group(["brightwatt payment", f"tried to collect {amt}"])]], []


@template(category="travel", urgent=True, importance=8, lead=(8, 24), times=["07:05", "11:40"],
          summary="Flight to Porto from Gatwick, check in and leave early",
          questions=["what time is my flight?", "when do I need to leave for the airport?",
                     "is the Porto trip this week?"])
def flight(b, f, t):
    code = f"TP{b.rng.randint(1300, 1399)}"
    detail = (f"Flight {code} to Porto departs London Gatwick at {b.hm(t.due)} on "
              f"{b.long(t.due)}. Bag drop closes 45 minutes before departure.")
    f.detail_para = b.pos()
    b.mail(t.appear, ("TAP Air Portugal", "no-reply@flytap.example"),
           "Online check-in is now open for your trip to Porto",
           b.paras("business", "TAP Air Portugal", detail, f.detail_para), html="alt")
    return [[Group(["trip to porto", f"flight {code.lower()}"])]], []


@template(category="travel", importance=5, held=True, lead=(30, 90), times=["08:12", "15:46"],
          summary="Train to Manchester Piccadilly, collect tickets at the station",
          questions=["when is my train to Manchester?", "what's the ticket collection code?"])
def train(b, f, t):
    ref = b.ref("TL")
    detail = (f"Your {b.hm(t.due)} service to Manchester Piccadilly on {b.long(t.due)} is "
              f"booked. Collect your tickets from any machine with the reference {ref}.")
    f.detail_para = b.pos()
    b.mail(t.appear, ("Trainline", "tickets@trainline.example"),
           "Your booking confirmation: London Euston to Manchester Piccadilly",
           b.paras("business", "Trainline", detail, f.detail_para))
    return [[Group(["manchester piccadilly", ref.lower()])]], []


@template(category="delivery", importance=5, lead=(20, 60), times=["10:42", "13:15"],
          summary="Parcel from Oakmoor Books needs a signature on delivery",
          questions=["am I expecting a delivery?", "do I need to be home for a parcel?"])
def parcel_sign(b, f, t):
    end = t.due + timedelta(hours=1)
    detail = (f"Your parcel will be delivered on {b.long(t.due)} between {b.hm(t.due)} and "
              f"{b.hm(end)}. Someone will need to sign for it.")
    f.detail_para = b.pos()
    b.mail(t.appear, ("Parcelway", "updates@parcelway.example"),
           "Your Oakmoor Books parcel is on its way",
           b.paras("business", "Parcelway", detail, f.detail_para))
    return [[Group(["oakmoor books", f"between {b.hm(t.due)} and {b.hm(end)}"])]], []


@template(category="delivery", importance=6, moved=True, lead=(40, 110), times=["08:00", "12:00"],
          summary="Sofa delivery from Lounge and Co",
          moved_summary="Sofa delivery from Lounge and Co rescheduled",
          questions=["when is the sofa coming?", "has the furniture delivery changed?"])
def sofa(b, f, t):
    order = b.ref("LC")
    detail = (f"Your sofa (order {order}) will be delivered on {b.long(t.due)}, "
              f"arriving from {b.hm(t.due)}. Please make sure the way in is clear.")
    f.detail_para = b.pos()
    b.mail(t.appear, ("Lounge and Co", "delivery@loungeandco.example"),
           "Your Lounge and Co delivery date",
           b.paras("business", "Lounge and Co", detail, f.detail_para))
    moved = (f"We are sorry, but the van for your area has been reallocated. Your sofa (order "
             f"{order}) will now be delivered on {b.long(t.due2)}, arriving from "
             f"{b.hm(t.due2)}.")
    b.mail(t.move_at, ("Lounge and Co", "delivery@loungeandco.example"),
           "Change to your Lounge and Co delivery", [moved, b.rng.choice(EXTRAS)])
    return [[Group(["lounge and co delivery", f"delivered on {b.long(t.due).lower()}"])],
            [Group(["lounge and co delivery", f"now be delivered on {b.long(t.due2).lower()}"])]], []


@template(category="family", importance=6, held=True, lead=(40, 100), times=["08:45"],
          summary="Consent form for Maya's Science Museum trip to return to school",
          questions=["what do I need to send in to school?",
                     "when is the museum trip form due?", "does Maya need anything for her trip?"])
def school_trip(b, f, t):
    detail = ("Year 4 will visit the Science Museum next week. Please return the signed "
              f"consent form by {b.long(t.due)} at the latest, with a packed lunch on the day.")
    f.detail_para = b.pos()
    b.mail(t.appear, ("Brookfield Primary Office", "office@brookfield.example"),
           "Year 4 trip to the Science Museum",
           b.paras("school", "", detail, f.detail_para))
    return [[Group(["science museum", "return the signed consent form"])]], []


@template(category="family", urgent=True, importance=9, lead=(11, 15), times=["08:30"],
          summary="Brookfield Primary closed tomorrow after a heating failure, Maya at home",
          questions=["is school open tomorrow?", "do I need childcare for Maya?"])
def school_closed(b, f, t):
    detail = (f"Because of a heating failure the school will be closed to all pupils on "
              f"{b.long(t.due)}. We expect to reopen the following day.")
    b.mail(t.appear, ("Brookfield Primary Office", "office@brookfield.example"),
           "URGENT: school closure", [detail, "Mrs J. Ellison, Headteacher"])
    return [[Group(["school closure", "closed to all pupils"])]], []


@template(category="work deadline", importance=7, lead=(50, 120), times=["17:00"],
          summary="Grant progress report due to the Harbour Trust board",
          questions=["when is the board report due?", "what deadlines do I have at work?"])
def grant_report(b, f, t):
    detail = (f"The Harbour Trust board needs our grant progress report by {b.hm(t.due)} on "
              f"{b.long(t.due)}. You own sections 2 and 4.")
    f.detail_para = b.pos()
    b.mail(t.appear, ("Dana Whitfield", "dana@tidewater.example"),
           "Harbour Trust report",
           b.paras("work", "", detail, f.detail_para), signature=SIGNATURES[1])
    return [[Group(["harbour trust", "grant progress report"])]], []


@template(category="work deadline", urgent=True, importance=9, lead=(4, 9), times=["20:00"],
          summary="Kestrel pitch brought forward, slides needed tonight",
          questions=["when do the pitch slides need to be done?", "did the client meeting change?"])
def pitch(b, f, t):
    detail = ("Kestrel have moved the pitch to tomorrow at 9, so I need your slides by "
              f"{b.hm(t.due)} tonight to put the deck together.")
    f.detail_para = b.rng.choice([0, 1])
    b.mail(t.appear, ("Priya Raman", "priya@tidewater.example"),
           "Re: Kestrel pitch",
           b.paras("work", "", detail, f.detail_para), signature=SIGNATURES[0],
           quote=(t.appear - timedelta(days=2), "Robin Hale <robin@hale.example>",
                  "Thanks Priya, I will have the slides ready for next Thursday as planned.\n"
                  "Let me know if the client wants the pricing section in the main deck."))
    return [[Group(["kestrel pitch", "need your slides by"])]], []


@template(category="health", importance=6, held=True, lead=(30, 70), times=["11:20", "15:40"],
          summary="GP follow-up with Dr Osei about the blood test results",
          questions=["when am I seeing the doctor?", "did I book the GP about my blood results?"])
def gp_followup(b, f, t):
    b.ics(t.appear, "personal", "gp-osei@bench", "GP follow-up with Dr Osei", t.due,
          t.due + timedelta(minutes=15), location="Fairfield Surgery", tzid=True)
    detail = (f"Your appointment with Dr Osei is booked for {b.hm(t.due)} on "
              f"{b.long(t.due)} to discuss your recent blood test results.")
    f.detail_para = b.pos()
    b.mail(t.appear + timedelta(minutes=2), ("Fairfield Surgery", "appointments@fairfield.example"),
           "Appointment confirmation",
           b.paras("business", "Fairfield Surgery", detail, f.detail_para))
    return [[Group(["gp follow-up with dr osei", b.hm(t.due)], "line"),
             Group(["dr osei is booked for", b.hm(t.due)])]], []


@template(category="health", urgent=True, importance=7, lead=(10, 30), times=["18:00"],
          summary="Prescription ready at Fairfield Pharmacy, collect before it goes back",
          questions=["is my prescription ready?", "when do I have to pick up my medicine?"])
def prescription(b, f, t):
    detail = (f"Your prescription is ready to collect. We can keep it until {b.hm(t.due)} on "
              f"{b.long(t.due)}, after which it will be returned to stock.")
    f.detail_para = b.pos()
    b.mail(t.appear, ("Fairfield Pharmacy", "pharmacy@fairfield.example"),
           "Your prescription is ready",
           b.paras("business", "Fairfield Pharmacy", detail, f.detail_para))
    return [[Group(["prescription is ready", "returned to stock"])]], []


@template(category="bill", importance=5, lead=(40, 110), times=["09:00"],
          summary="Water bill from Severn Springs to pay",
          questions=["how much is the water bill?", "when is the water bill due?"])
def water_bill(b, f, t):
    amt = b.amount(40, 90)
    detail = (f"Your bill for this period is {amt}, due on {b.long(t.due)}. You can pay "
              "online, by phone or at any post office.")
    f.detail_para = b.pos()
    b.mail(t.appear, ("Severn Springs Water", "bills@severnsprings.example"),
           "Your Severn Springs bill is ready",
           b.paras("business", "Severn Springs Water", detail, f.detail_para), html=True)
    return [[Group(["severn springs bill", f"bill for this period is {amt}"])]], []


@template(category="subscription", importance=5, held=True, lead=(50, 120), times=["00:00"],
          summary="Streamline annual plan renews unless cancelled",
          questions=["which subscriptions renew soon?",
                     "when will I be charged for the streaming service?"])
def streaming(b, f, t):
    amt = b.amount(79, 119)
    detail = (f"Your annual plan renews automatically on {b.long(t.due)} and you will be "
              f"charged {amt}. To avoid this, cancel before then from your account page.")
    f.detail_para = b.pos()
    b.mail(t.appear, ("Streamline", "hello@streamline.example"),
           "Your Streamline membership renews soon",
           b.paras("business", "Streamline", detail, f.detail_para), html="alt")
    return [[Group(["streamline membership", f"charged {amt}"])]], []


@template(category="renewal", urgent=True, importance=8, lead=(12, 30), times=["23:59"],
          summary="Car insurance with Copperleaf ends at midnight, renewal not accepted",
          questions=["when does my car insurance run out?", "what's the insurance renewal price?"])
def car_insurance(b, f, t):
    amt = b.amount(380, 720)
    detail = (f"Your policy ends at midnight on {b.long(t.due)}. Your renewal price is {amt}; "
              "you are not insured to drive after that unless you accept it.")
    f.detail_para = b.pos()
    b.mail(t.appear, ("Copperleaf Insurance", "renewals@copperleaf.example"),
           "Last reminder: your car insurance",
           b.paras("business", "Copperleaf Insurance", detail, f.detail_para))
    return [[Group(["copperleaf", f"renewal price is {amt}"])]], []


@template(category="renewal", importance=7, lead=(40, 100), times=["17:00"],
          summary="Passport renewal photo rejected, upload a new photo",
          questions=["what's happening with my passport?",
                     "what do I need to do for the passport office?"])
def passport(b, f, t):
    detail = ("We could not use the photo you sent because of shadows behind your head. "
              f"Please upload a new photo by {b.long(t.due)} or the application will be "
              "closed.")
    f.detail_para = b.pos()
    b.mail(t.appear, ("HM Passport Office", "passports@hmpo.example"),
           "Your passport application: we need something from you",
           b.paras("business", "HM Passport Office", detail, f.detail_para))
    return [[Group(["passport application", "upload a new photo"])]], []


@template(category="appointment", importance=4, cancelled=True, lead=(30, 66),
          times=["10:00", "13:30"],
          summary="Haircut at Sharp and Co",
          questions=["when is my haircut?", "is my hair appointment still on?"])
def haircut(b, f, t):
    b.ics(t.appear, "personal", "haircut@bench", "Haircut at Sharp and Co", t.due,
          t.due + timedelta(minutes=45), location="Sharp and Co, High Street")
    b.ics(t.cancel_at, "personal", "haircut@bench", "Haircut at Sharp and Co", t.due,
          t.due + timedelta(minutes=45), location="Sharp and Co, High Street",
          status="CANCELLED", seq=1)
    b.mail(t.cancel_at, ("Sharp and Co", "bookings@sharpandco.example"),
           "Your appointment has been cancelled",
           [f"We are sorry: your stylist is unwell, so your haircut on {b.long(t.due)} at "
            f"{b.hm(t.due)} has been cancelled. Reply to rebook."])
    return ([[Group(["haircut at sharp and co", b.hm(t.due)], "line")]],
            [Group(["sharp and co", "has been cancelled"])])


@template(category="social", importance=5, held=True, cancelled=True, lead=(50, 110),
          times=["19:30"],
          summary="Dinner at Chidi and Ada's house",
          questions=["are we still going to dinner with Chidi and Ada?",
                     "what are we doing on Saturday evening?"])
def okafor_dinner(b, f, t):
    line = f"- Dinner at Chidi and Ada's, {b.short(t.due)} {b.hm(t.due)} (bring dessert)"
    b.note(t.appear, "family.md", "okafor", line)
    b.note(t.cancel_at, "family.md", "okafor",
           f"- ~~Dinner at Chidi and Ada's, {b.short(t.due)}~~ called off, they are all ill")
    b.mail(t.cancel_at - timedelta(minutes=20), ("Ada Okafor", "ada.okafor@postbox.example"),
           "So sorry",
           [b.rng.choice(OPENERS["friend"]),
            "The bad news: we all have the flu, so we have to call off dinner this week. "
            "Can we find another date in December?", "Love, Ada"])
    return ([[Group(["dinner at chidi and ada", f"{b.short(t.due).lower()} {b.hm(t.due)}"], "line")]],
            [Group(["call off dinner"]), Group(["dinner at chidi and ada", "called off"], "line")])


@template(category="home", importance=6, lead=(30, 90), times=["08:00"],
          summary="Boiler service engineer from Hearth and Flue visiting",
          questions=["when is the heating engineer coming?",
                     "do I need to be home for the boiler service?"])
def boiler(b, f, t):
    end = t.due + timedelta(hours=2)
    detail = (f"Our engineer will arrive on {b.long(t.due)} between {b.hm(t.due)} and "
              f"{b.hm(end)}. Please make sure the boiler and the meter can be reached.")
    f.detail_para = b.pos()
    b.mail(t.appear, ("Hearth and Flue", "bookings@hearthandflue.example"),
           "Your boiler service booking",
           b.paras("business", "Hearth and Flue", detail, f.detail_para))
    b.ics(t.appear + timedelta(minutes=30), "personal", "boiler@bench", "Boiler service",
          t.due, end)
    return [[Group(["boiler service booking", f"between {b.hm(t.due)} and {b.hm(end)}"]),
             Group(["boiler service", b.hm(t.due)], "line")]], []


@template(category="home", urgent=True, importance=7, lead=(14, 30), times=["09:00"],
          summary="Water supply off on Ashby Road for a mains repair",
          questions=["is the water going to be cut off?", "when is the water supply interrupted?"])
def water_off(b, f, t):
    end = t.due + timedelta(hours=6)
    detail = (f"To repair a burst main, the water supply to Ashby Road will be turned off on "
              f"{b.long(t.due)} from {b.hm(t.due)} to {b.hm(end)}. Please store some water.")
    f.detail_para = b.pos()
    b.mail(t.appear, ("Severn Springs Water", "network@severnsprings.example"),
           "Planned interruption to your water supply",
           b.paras("business", "Severn Springs Water", detail, f.detail_para))
    return [[Group(["interruption to your water supply", f"from {b.hm(t.due)} to {b.hm(end)}"])]], []


@template(category="admin", importance=6, held=True, lead=(50, 120), times=["12:00"],
          summary="Signed tax return to send to Hollis Accountants",
          questions=["what does the accountant need from me?", "when is the tax return deadline?"])
def tax_return(b, f, t):
    detail = ("Your return is ready. Please sign page 3 and send it back to us by "
              f"{b.long(t.due)} so we can file it in good time.")
    f.detail_para = b.pos()
    b.mail(t.appear, ("Hollis Accountants", "team@hollis.example"),
           "Your tax return for signature",
           b.paras("business", "Hollis Accountants", detail, f.detail_para))
    b.note(t.appear + timedelta(hours=2), "todo.md", "tax",
           f"- [ ] Sign the tax return for Hollis by {b.short(t.due)}")
    return [[Group(["tax return for signature", "sign page 3"]),
             Group(["sign the tax return for hollis", b.short(t.due).lower()], "line")]], []


@template(category="pet", importance=5, lead=(30, 66), times=["16:10", "09:40"],
          summary="Pepper's booster vaccination at Northgate Vets",
          questions=["when is the cat's vet appointment?", "does Pepper need to go to the vet?"])
def vet(b, f, t):
    b.ics(t.appear, "personal", "vet@bench", "Pepper booster at Northgate Vets", t.due,
          t.due + timedelta(minutes=20), location="Northgate Vets")
    return [[Group(["pepper booster at northgate vets", b.hm(t.due)], "line")]], []


@template(category="family", importance=6, lead=(30, 66), times=["17:40", "18:10"],
          summary="Parents' evening with Maya's teacher Mr Adeyemi",
          questions=["when is parents' evening?", "what time do I see Maya's teacher?"])
def parents_evening(b, f, t):
    b.ics(t.appear, "personal", "parents@bench", "Parents' evening, Mr Adeyemi", t.due,
          t.due + timedelta(minutes=10), location="Brookfield Primary")
    return [[Group(["parents' evening, mr adeyemi", b.hm(t.due)], "line")]], []


@template(category="work", importance=5, moved=True, lead=(30, 66), times=["10:00", "14:30"],
          summary="One to one with Dana about the roadmap",
          moved_summary="One to one with Dana about the roadmap moved",
          questions=["when is my one-to-one with Dana?", "did Dana move our meeting?"])
def one_to_one(b, f, t):
    b.ics(t.appear, "work", "dana-1on1@bench", "1:1 Dana / Robin: roadmap", t.due,
          t.due + timedelta(minutes=30))
    b.ics(t.move_at, "work", "dana-1on1@bench", "1:1 Dana / Robin: roadmap", t.due2,
          t.due2 + timedelta(minutes=30), seq=1)
    b.mail(t.move_at, ("Dana Whitfield", "dana@tidewater.example"),
           "Moving our 1:1",
           [f"Sorry, something came up. I have moved our roadmap 1:1 to {b.long(t.due2)} at "
            f"{b.hm(t.due2)}; the invite is updated.", "D"], signature=SIGNATURES[1])
    return [[Group(["1:1 dana / robin: roadmap", b.hm(t.due)], "line")],
            [Group(["1:1 dana / robin: roadmap", b.hm(t.due2)], "line"),
             Group(["moved our roadmap 1:1", b.hm(t.due2)])]], []


@template(category="work deadline", importance=6, held=True, lead=(50, 120), times=["23:59"],
          summary="Talk proposal for the Northern Devs conference to submit",
          questions=["when is the conference submission deadline?",
                     "have I got time to send my talk proposal?"])
def cfp(b, f, t):
    detail = (f"The call for proposals closes at {b.hm(t.due)} on {b.long(t.due)}. Talks are "
              "30 minutes; we especially welcome first-time speakers.")
    f.detail_para = b.pos()
    b.mail(t.appear, ("Northern Devs", "speakers@northerndevs.example"),
           "Northern Devs 2027: last call for talks",
           b.paras("business", "Northern Devs", detail, f.detail_para), list_id="<news.northerndevs.example>")
    return [[Group(["northern devs", "call for proposals closes"])]], []


@template(category="bill", importance=7, lead=(40, 100), times=["09:00"],
          summary="December rent to pay into the landlord's new bank account",
          questions=["has the rent account changed?", "when is the rent due?"])
def rent(b, f, t):
    amt = b.amount(1050, 1350)
    detail = (f"From this month please pay the rent of {amt} into our new account at "
              f"Northway Bank, by {b.long(t.due)}. The old account will be closed.")
    f.detail_para = b.pos()
    b.mail(t.appear, ("Greenhill Lettings", "accounts@greenhill.example"),
           "Important: new bank details for your rent",
           b.paras("business", "Greenhill Lettings", detail, f.detail_para))
    return [[Group(["new bank details for your rent", f"rent of {amt}"])]], []


@template(category="errand", importance=4, lead=(30, 90), times=["17:00"],
          summary="Library books due back at Eastfield library",
          questions=["when do the library books go back?", "do I have any overdue books?"])
def library(b, f, t):
    b.note(t.appear, "todo.md", "library",
           f"- [ ] Library books back to Eastfield by {b.short(t.due)} (3 books)")
    return [[Group(["library books back to eastfield", b.short(t.due).lower()], "line")]], []


@template(category="family", importance=6, lead=(40, 100), times=["18:00"],
          summary="Order flowers for Mum's birthday",
          questions=["what should I do for Mum's birthday?", "when do I need to order the flowers?"])
def mum_flowers(b, f, t):
    b.note(t.appear, "family.md", "flowers",
           f"- Mum's birthday on Sunday: order flowers from Petals on Park Road by "
           f"{b.short(t.due)} {b.hm(t.due)}")
    return [[Group(["order flowers from petals", b.short(t.due).lower()], "line")]], []


@template(category="car", importance=7, lead=(50, 120), times=["17:00"],
          summary="Car MOT certificate expires, test not booked yet",
          questions=["when is the car's MOT due?", "is the car legal to drive next week?"])
def mot(b, f, t):
    b.note(t.appear, "todo.md", "mot",
           f"- [ ] Book the MOT, certificate runs out {b.short(t.due)}")
    detail = (f"Our records show the MOT certificate for your car runs out on "
              f"{b.long(t.due)}. Book a test online in two minutes.")
    f.detail_para = b.pos()
    b.mail(t.appear + timedelta(hours=5), ("Mill Lane Garage", "service@milllane.example"),
           "Your MOT reminder",
           b.paras("business", "Mill Lane Garage", detail, f.detail_para), fate="delete")
    return [[Group(["book the mot", b.short(t.due).lower()], "line"),
             Group(["mot reminder", "mot certificate for your car runs out"])]], []


@template(category="family", urgent=True, importance=8, lead=(12, 20), times=["15:15"],
          summary="Childminder Lucy ill tomorrow, someone must collect Maya from school",
          questions=["who's picking Maya up tomorrow?", "is the childminder off?"])
def childminder(b, f, t):
    detail = (f"I am so sorry, I have come down with something nasty and cannot do the pick-up "
              f"tomorrow. Maya will need collecting at {b.hm(t.due)}.")
    b.mail(t.appear, ("Lucy Marsh", "lucy.marsh@postbox.example"),
           "Tomorrow", [detail, "Fingers crossed I am better by Monday. Lucy"])
    return [[Group(["cannot do the pick-up", f"collecting at {b.hm(t.due)}"])]], []


@template(category="work", importance=5, held=True, lead=(40, 100), times=["12:00"],
          summary="November expense claims due to finance",
          questions=["when do expenses have to be in?", "is there an expenses deadline?"])
def expenses(b, f, t):
    detail = (f"All November expense claims must reach finance by {b.hm(t.due)} on "
              f"{b.long(t.due)}. Late claims roll over to January.")
    f.detail_para = b.pos()
    b.mail(t.appear, ("Tidewater Finance", "finance@tidewater.example"),
           "Month end: expense claims",
           b.paras("work", "", detail, f.detail_para))
    return [[Group(["expense claims", "must reach finance by"])]], []


@template(category="event", importance=5, lead=(40, 110), times=["19:00"],
          summary="Concert at the Albert Hall, e-tickets in the mail",
          questions=["what time is the concert?", "where are the concert tickets?"])
def concert(b, f, t):
    detail = (f"Doors open at {b.hm(t.due)} on {b.long(t.due)}. Your e-tickets are attached; "
              "show them on your phone at the door.")
    f.detail_para = b.pos()
    b.mail(t.appear, ("Royal Albert Hall", "tickets@rah.example"),
           "Your tickets for the Albert Hall",
           b.paras("business", "Royal Albert Hall", detail, f.detail_para), html=True,
           charset="iso-8859-1")
    b.ics(t.appear + timedelta(hours=3), "personal", "concert@bench",
          "Concert, Royal Albert Hall", t.due, t.due + timedelta(hours=3))
    return [[Group(["tickets for the albert hall", f"doors open at {b.hm(t.due)}"]),
             Group(["concert, royal albert hall", b.hm(t.due)], "line")]], []


@template(category="admin", urgent=True, importance=8, held=True, lead=(14, 40), times=["00:00"],
          summary="Domain hale.example expires, automatic renewal payment failed",
          questions=["is my website domain OK?", "did something fail to renew?"])
def domain(b, f, t):
    detail = (f"We could not renew hale.example because the card on file was refused. The "
              f"domain expires on {b.long(t.due)} and the site and email will stop working.")
    f.detail_para = b.pos()
    b.mail(t.appear, ("Gandi Registrar", "renewals@registrar.example"),
           "Renewal failed for hale.example",
           b.paras("business", "the registrar", detail, f.detail_para))
    return [[Group(["renewal failed for hale.example", "the domain expires on"])]], []


@template(category="home", importance=4, moved=True, lead=(30, 80), times=["07:00"],
          summary="Bin collection day changed this week",
          moved_summary="Bin collection day changed this week, corrected date",
          questions=["when are the bins collected this week?", "which day do the bins go out?"])
def bins(b, f, t):
    b.mail(t.appear, ("Eastfield Borough Council", "waste@eastfield.example"),
           "Changes to your bin collection",
           [b.rng.choice(OPENERS["business"]).format(org="Eastfield Borough Council"),
            f"Because of roadworks your bins will be collected on {b.long(t.due)} this week. "
            "Put them out by 7am."])
    b.mail(t.move_at, ("Eastfield Borough Council", "waste@eastfield.example"),
           "Correction: your bin collection",
           [f"We got the date wrong: your bins will be collected on {b.long(t.due2)} this week. "
            "We apologise for the confusion."])
    return [[Group(["changes to your bin collection", f"collected on {b.long(t.due).lower()}"])],
            [Group(["correction: your bin collection", f"collected on {b.long(t.due2).lower()}"])]], []


@template(category="health", importance=5, held=True, moved=True, lead=(30, 66),
          times=["09:30", "16:00"],
          summary="Physio session for the knee at Riverside Clinic",
          moved_summary="Physio session for the knee at Riverside Clinic rebooked",
          questions=["when's my physio?", "did the clinic change my appointment?"])
def physio(b, f, t):
    b.ics(t.appear, "personal", "physio@bench", "Physio (knee), Riverside Clinic", t.due,
          t.due + timedelta(minutes=45))
    b.ics(t.move_at, "personal", "physio@bench", "Physio (knee), Riverside Clinic", t.due2,
          t.due2 + timedelta(minutes=45), seq=1)
    b.mail(t.move_at, ("Riverside Clinic", "reception@riverside.example"),
           "Your physiotherapy appointment has changed",
           [f"Your therapist's clinic hours have changed. Your next physio session is now on "
            f"{b.long(t.due2)} at {b.hm(t.due2)}.", "Riverside Clinic reception"])
    return [[Group(["physio (knee), riverside clinic", b.hm(t.due)], "line")],
            [Group(["physio (knee), riverside clinic", b.hm(t.due2)], "line"),
             Group(["physio session is now on", b.hm(t.due2)])]], []


@template(category="delivery", importance=4, lead=(12, 40), times=["20:00"],
          summary="Parcel kept by the neighbour at number 14",
          questions=["where is my parcel?", "did a neighbour take in a delivery?"])
def neighbour(b, f, t):
    b.mail(t.appear, ("Parcelway", "updates@parcelway.example"),
           "We delivered your parcel to a neighbour",
           [f"Your parcel was left with your neighbour at number 14. They have asked that you "
            f"collect it by {b.hm(t.due)} on {b.long(t.due)}, as they are away after that."])
    return [[Group(["delivered your parcel to a neighbour", "number 14"])]], []


@template(category="work", urgent=True, importance=8, lead=(10, 30), times=["00:00"],
          summary="TLS certificate for shop.hale.example expires, automatic renewal failed",
          questions=["is anything about to break on the shop website?",
                     "when does the certificate expire?"])
def cert(b, f, t):
    b.mail(t.appear, ("certwatch", "alerts@certwatch.example"),
           "[certwatch] shop.hale.example: renewal failed",
           [f"The certificate for shop.hale.example expires at {iso(t.due)}. The last three "
            "renewal attempts failed (DNS challenge timed out).",
            "You are receiving this because you watch shop.hale.example."])
    return [[Group(["shop.hale.example: renewal failed", "certificate for shop.hale.example expires"])]], []


@template(category="volunteering", importance=4, held=True, lead=(30, 66), times=["09:00"],
          summary="Food bank shift at St Anne's hall",
          questions=["when is my volunteering shift?", "am I doing the food bank this week?"])
def food_bank(b, f, t):
    b.ics(t.appear, "personal", "foodbank@bench", "Food bank shift, St Anne's hall", t.due,
          t.due + timedelta(hours=3))
    return [[Group(["food bank shift, st anne's hall", b.hm(t.due)], "line")]], []


@template(category="family", importance=5, lead=(40, 100), times=["09:15"],
          summary="Maya's swimming gala at Kingsway pool",
          questions=["what time do we need to be at the pool?", "when is Maya's gala?"])
def swim_gala(b, f, t):
    detail = (f"Swimmers must arrive by {b.hm(t.due)} on {b.long(t.due)} at Kingsway pool for "
              "warm-up; the gala starts at 10.")
    f.detail_para = b.pos()
    b.mail(t.appear, ("Kingsway Swimming Club", "club@kingswaysc.example"),
           "Winter gala: arrival times",
           b.paras("school", "", detail, f.detail_para))
    return [[Group(["winter gala", f"arrive by {b.hm(t.due)}"])]], []


@template(category="work", importance=5, cancelled=True, lead=(30, 66), times=["11:00", "15:00"],
          summary="Budget review with finance",
          questions=["is the budget review still happening?", "when is the budget meeting?"])
def budget_review(b, f, t):
    b.ics(t.appear, "work", "budget@bench", "Budget review (finance)", t.due,
          t.due + timedelta(hours=1))
    b.ics_remove(t.cancel_at, "work", "budget@bench")
    b.mail(t.cancel_at, ("Tidewater Finance", "finance@tidewater.example"),
           "Cancelled: Budget review (finance)",
           [f"This event has been cancelled: Budget review (finance), {b.long(t.due)} "
            f"{b.hm(t.due)}. We will find a new slot in January."])
    return ([[Group(["budget review (finance)", b.hm(t.due)], "line")]],
            [Group(["cancelled: budget review"])])


@template(category="errand", importance=5, held=True, lead=(20, 60), times=["18:00"],
          summary="Laptop repair ready to collect at FixPoint",
          questions=["is my laptop fixed?", "when can I pick up the laptop?"])
def laptop(b, f, t):
    detail = (f"Good news: your laptop is repaired (new keyboard). Please collect it before we "
              f"close at {b.hm(t.due)} on {b.long(t.due)}.")
    f.detail_para = b.pos()
    b.mail(t.appear, ("FixPoint Repairs", "shop@fixpoint.example"),
           "Repair FP-2231 is ready",
           b.paras("business", "FixPoint Repairs", detail, f.detail_para))
    return [[Group(["repair fp-2231", "your laptop is repaired"])]], []


# --- distractors --------------------------------------------------------------------------

NEWSLETTERS = [
    ("The Long Read Weekly", "longread@news.example", ["coastal towns", "the last lighthouse keepers",
     "a year without a car", "the science of naps", "night trains return", "the quiet bookshop boom",
     "rewilding a city park", "why bridges sing"]),
    ("Pan and Plate", "hello@panandplate.example", ["one-pot winter stews", "proper bread at home",
     "ten minute breakfasts", "soups for a cold week", "the best roast potatoes", "lentils five ways",
     "a curry for sharing", "pancakes for a crowd"]),
    ("Frontend Digest", "digest@frontend.example", ["container queries in practice", "the state of CSS",
     "accessible forms", "web components revisited", "faster images", "testing with real browsers",
     "view transitions", "smaller bundles"]),
    ("Allotment Society", "news@allotments.example", ["seed swap in March", "winter digging",
     "the rat problem", "compost open day", "leek trials results", "shed security", "water butts",
     "the new plot waiting list"]),
    ("Cycling Weekly Roundup", "roundup@cycling.example", ["winter tyres tested", "lights for dark mornings",
     "a route along the canal", "cleaning your chain", "the commuter survey", "mudguards that work",
     "gloves compared", "a sportive in the hills"]),
    ("Museum of Making", "members@makingmuseum.example", ["late opening on Friday", "the new textile gallery",
     "a talk on clocks", "family workshops", "members' preview", "the print studio reopens",
     "a tour of the stores", "winter lectures"]),
]

NOTIFY = [
    ("GitHub", "notifications@github.example", "[hale/site] Run {n} of the deploy workflow {res}",
     "Deploy workflow run {n} {res} on hale/site", 2),
    ("Northway Bank", "alerts@northway.example", "You spent {amt} at {shop}",
     "Card payment of {amt} at {shop}", 1),
    ("Photogram", "no-reply@photogram.example", "{who} commented on your photo ({n})",
     "{who} commented on a photo {n}", 1),
    ("Parcelway", "updates@parcelway.example", "Order {n} from Kitchenly has shipped",
     "Kitchenly order {n} shipped, no signature needed", 2),
    ("Calendar", "calendar@tidewater.example", "Updated invitation: Design crit {n}",
     "Design crit {n} invitation updated", 3),
    ("Jira", "jira@tidewater.example", "[EXP-{n}] Export job times out on large accounts ({res})",
     "Ticket EXP-{n} about export job timeouts {res}", 4),
]

CHATTER = [
    ("Dev Patel", "dev@postbox.example", "Re: walk on Sunday? ({n})",
     ["Count me in if the weather holds. I can bring the flask and the map with the shortcut "
      "through the woods that we never manage to find.", "Dev"],
     "Dev keen on the Sunday walk {n}", 3, True),
    ("Jonas Berg", "jonas@tidewater.example", "FYI: export refactor merged ({n})",
     ["The export refactor is merged; nothing for you to do, but the nightly job should be "
      "quicker now. I will keep an eye on it this week.", "J"],
     "Jonas merged the export refactor {n}", 4, False),
    ("Helen Hale", "helen.hale@postbox.example", "Photos from the garden ({n})",
     ["The camellia is flowering early this year, I thought you would like to see it. Dad "
      "says hello and asks whether you fixed the shed door yet.", "Love, Mum"],
     "Mum sent garden photos {n}", 3, False),
    ("Allotment list", "plots@allotments.example", "[plots] Who has a spare rake? ({n})",
     ["Mine has finally given up. If anyone has a spare rake I would happily swap it for "
      "some of the rhubarb crowns I am dividing this month.", "Sheila, plot 12"],
     "Allotment list asking for a spare rake {n}", 2, True),
    ("Priya Raman", "priya@tidewater.example", "Notes from the partner call ({n})",
     ["Notes attached from today's partner call. Mostly good news: they liked the prototype "
      "and want to see the next version in the new year.", "P"],
     "Partner call notes from Priya {n}", 4, False),
]

PROMOS = [
    ("Kitchenly", "deals@kitchenly.example", "Up to 40% off cookware this weekend ({n})",
     "Kitchenly cookware sale {n}"),
    ("Trailgear", "offers@trailgear.example", "New season boots have landed ({n})",
     "Trailgear boots promotion {n}"),
    ("Bücherstube", "shop@buecherstube.example", "Ihre Empfehlungen der Woche – Nummer {n}",
     "German bookshop weekly picks {n}"),
    ("Streamline", "hello@streamline.example", "New this week on Streamline ({n})",
     "Streamline new releases {n}"),
]

ALARMIST = [
    ("Photogram Security", "security@photogram.example", "New sign-in to your account from Android",
     "We noticed a new sign-in to your Photogram account from a Pixel phone in Bristol. If this was "
     "you, you do not need to do anything.",
     "New sign-in to Photogram from an Android phone", 6),
    ("CloudBox", "storage@cloudbox.example", "Your CloudBox storage is 92% full",
     "Your CloudBox storage is 92% full. When it is full, new photos will stop syncing. Upgrade "
     "for more space or delete old files.",
     "CloudBox storage 92 percent full, photos may stop syncing", 6),
    ("Northway Bank", "alerts@northway.example", "A new payee was added to your account",
     "A new payee, Greenhill Lettings, was added to your account from the app. If you did not "
     "do this, call us.",
     "New payee Greenhill added to the Northway account", 6),
]

IDEAS = [
    "Batch the school admin into one evening a week", "A shared family calendar on the fridge",
    "Ask Dev about a regular Sunday walk", "Set up a standing order for the council tax",
    "Keep a list of renewal dates in one place", "Move the sofa before the delivery",
    "Try a weekly meal plan to cut shopping trips", "Write down what the accountant needs each year",
    "Automate the shop site's certificate renewal", "Plan the Porto trip's first day",
    "Check whether the photo backup still works", "Take Maya to the Museum of Making",
]

RECURRING = [
    ("work", "standup@bench", "Daily stand-up", "09:30", 15, "FREQ=WEEKLY;BYDAY=MO,TU,WE,TH,FR",
     "Daily stand-up with the product team", 2),
    ("work", "sync@bench", "Team sync", "14:00", 60, "FREQ=WEEKLY;BYDAY=WE",
     "Weekly team sync on Wednesday afternoons", 3),
    ("personal", "yoga@bench", "Yoga class", "18:30", 60, "FREQ=WEEKLY;BYDAY=TU,TH",
     "Yoga class on Tuesday and Thursday evenings", 3),
    ("personal", "gym@bench", "Gym with Dev", "10:00", 90, "FREQ=WEEKLY;BYDAY=SA",
     "Saturday gym session with Dev", 2),
]

ONE_OFFS = [
    (0, "10:30", "Coffee with Jonas", "Coffee with Jonas at the corner cafe", 3),
    (1, "16:00", "Webinar: inclusive design", "Inclusive design webinar", 3),
    (2, "12:30", "Lunch with Priya", "Lunch with Priya", 3),
    (3, "08:30", "Call with the architect", "Call with the architect about the loft", 4),
    (4, "20:00", "Book club at Fern's", "Book club at Fern's house", 3),
    (5, "11:00", "Maya: birthday party at Jump Zone", "Maya invited to a birthday party at Jump Zone", 4),
]

NOTES_INITIAL = {
    "todo.md": [("shed", "- [ ] Fix the squeaky shed door", "Fix the squeaky shed door", 2),
                ("drill", "- [ ] Return the drill to Dev", "Return the drill to Dev", 3),
                ("lock", "- [x] Renew the bike lock", None, 0)],
    "family.md": [("xmas", "- Christmas at Mum and Dad's this year, Alex to ask about dates",
                   "Christmas at Mum and Dad's this year", 3)],
    "ideas.md": [("feeder", "- Idea: build a bird feeder from the old pallet",
                  "Build a bird feeder from the old pallet", 2)],
}

WORKLOG = ["reviewed the onboarding flow with Jonas", "export job still flaky on big accounts",
           "pairing with Priya on the pricing page", "wrote up the partner call",
           "cleaned the backlog, 14 tickets closed", "design crit: the new nav is liked",
           "looked at slow queries in the reports page"]


def distractor(b, iid, summary, importance, groups, **kw):
    return Item(id=iid, summary=summary, importance=importance,
                versions=[Version(summary, None, groups)], **kw)


def build_distractors(b):
    items = []
    rng = b.rng

    def at_day(d, lo=6.0, hi=23.5):
        return b.start + timedelta(days=d, minutes=int(rng.uniform(lo, hi) * 60),
                                   seconds=rng.randint(0, 59))

    n = 0
    # mail from before the week, already read: the inbox is not empty on the first tick
    for d in range(-2, b.days):
        lo = 6.0 if d >= 0 else 8.0
        per = dict(news=4, notify=5, chatter=3, promo=3) if d >= 0 else \
            dict(news=2, notify=2, chatter=1, promo=1)
        for _ in range(per["news"]):
            n += 1
            name, addr, topics = rng.choice(NEWSLETTERS)
            topic = rng.choice(topics)
            subject = f"{name}, issue {200 + n}: {topic}"
            paras = [f"This week in {name}: {topic}, and more.",
                     "We read everything so you do not have to. " * 6,
                     "You are receiving this because you subscribed. Unsubscribe at any time."]
            at = at_day(d, lo)
            b.mail(at, (name, addr), subject, paras, html=rng.choice([True, "alt", False]),
                   fate=rng.choice(["trash", "trash", "delete", "keep"]),
                   list_id=f"<{addr.split('@')[1]}>")
            items.append(distractor(b, f"d{n}", f"{name} newsletter issue {200 + n} on {topic}",
                                    rng.choice([1, 2]), [Group([f"issue {200 + n}: {topic}"])]))
        for _ in range(per["notify"]):
            n += 1
            name, addr, subj, summ, imp = rng.choice(NOTIFY)
            slots = dict(n=1000 + n, res=rng.choice(["succeeded", "failed", "was cancelled"]),
                         amt=b.amount(3, 60), who=rng.choice(["Ada", "Jonas", "Fern", "Dev"]),
                         shop=rng.choice(["Grocer and Sons", "Bean There", "Eastfield Books"]))
            subject = subj.format(**slots)
            at = at_day(d, lo)
            b.mail(at, (name, addr), subject,
                   [f"{subject}.", "You can change which notifications you receive in settings."],
                   fate=rng.choice(["delete", "keep", "trash"]), read_after=(5, 120))
            items.append(distractor(b, f"d{n}", summ.format(**slots), imp,
                                    [Group([subject.lower()])]))
        for _ in range(per["chatter"]):
            n += 1
            name, addr, subj, body, summ, imp, quoted = rng.choice(CHATTER)
            subject = subj.format(n=n)
            at = at_day(d, lo)
            quote = None
            if quoted:
                quote = (at - timedelta(hours=5), "Robin Hale <robin@hale.example>",
                         "Anyone up for a walk or a plot visit on Sunday morning?\n"
                         "I can do any time after nine.")
            b.mail(at, (name, addr), subject, body, quote=quote,
                   signature=SIGNATURES[2] if name == "Jonas Berg" else None)
            items.append(distractor(b, f"d{n}", summ.format(n=n), imp,
                                    [Group([subject.lower()])]))
        for _ in range(per["promo"]):
            n += 1
            name, addr, subj, summ = rng.choice(PROMOS)
            subject = subj.format(n=n)
            b.mail(at_day(d, lo), (name, addr), subject,
                   [f"{subject}. Shop now while stocks last.", "Terms apply."],
                   html=True, charset="iso-8859-1" if "ü" in subject else None,
                   fate=rng.choice(["trash", "delete"]))
            items.append(distractor(b, f"d{n}", summ.format(n=n), 1,
                                    [Group([subject.lower()])]))
    # alarming-looking mail the threads escalate and the primary model dismisses
    for i, (name, addr, subject, body, summ, imp) in enumerate(ALARMIST):
        d = min(b.days - 1, 1 + 2 * i)
        b.mail(at_day(d, 8, 20), (name, addr), subject, [body, rng.choice(EXTRAS)])
        items.append(distractor(b, f"alarm{i}", summ, imp, [Group([subject.lower()])],
                                alarmist=True))
    # the calendar: recurring events and one-offs
    for cal, uid, title, hm, minutes, rule, summ, imp in RECURRING:
        h, m = map(int, hm.split(":"))
        first = b.start - timedelta(days=28) + timedelta(hours=h, minutes=m)
        b.ics(b.start - timedelta(days=30), cal, uid, title, first,
              first + timedelta(minutes=minutes), rrule=rule, tzid=True)
        items.append(distractor(b, uid, summ, imp, [Group([title.lower()], "line")]))
    for i, (d, hm, title, summ, imp) in enumerate(ONE_OFFS):
        if d >= b.days:
            continue
        h, m = map(int, hm.split(":"))
        when = b.start + timedelta(days=d, hours=h, minutes=m)
        b.ics(max(b.start - timedelta(days=5), when - timedelta(days=6)), "personal",
              f"oneoff{i}@bench", title, when, when + timedelta(hours=1))
        items.append(distractor(b, f"oneoff{i}", summ, imp, [Group([title.lower()], "line")]))
    # notes: a to-do list, family notes, ideas, a work log growing every weekday
    for file, lines in NOTES_INITIAL.items():
        for lid, text, summ, imp in lines:
            b.note(b.start - timedelta(days=3), file, lid, text)
            if summ:
                items.append(distractor(b, f"note-{lid}", summ, imp,
                                        [Group([text[6:].lower() if text.startswith("- [")
                                                else text[2:].lower()], "line")]))
    for d in range(b.days):
        day = b.start + timedelta(days=d)
        if day.weekday() < 5:
            entry = WORKLOG[d % len(WORKLOG)]
            b.note(day + timedelta(hours=17, minutes=rng.randint(30, 59)), "work-log.md",
                   f"log{d}", f"- {day.strftime('%a %d %b')}: {entry}")
            items.append(distractor(b, f"log{d}", f"Work log: {entry}", 2,
                                    [Group([entry.lower()], "line")]))
        if d % 2 == 1:
            idea = IDEAS[(d // 2) % len(IDEAS)]
            b.note(day + timedelta(hours=21, minutes=rng.randint(0, 50)), "ideas.md",
                   f"idea{d}", f"- Idea: {idea.lower()}")
    return items


# --- the world: assembling it -----------------------------------------------------------------

@dataclass
class World:
    seed: int
    days: int
    facts: list
    items: list  # facts + distractors
    events: list
    ideas: list

    def to_json(self):
        def fact(f):
            return {
                "id": f.id, "category": f.category, "urgent": f.urgent, "split": f.split,
                "importance": f.importance, "channel": f.channel, "summary": f.summary,
                "summaries": [v.summary for v in f.versions],
                "appear": iso(f.appear), "due": iso(f.due),
                "original_due": iso(f.versions[0].due),
                "moved_at": iso(f.moved_at) if f.moved_at else None,
                "cancelled_at": iso(f.cancelled_at) if f.cancelled_at else None,
                "detail_paragraph": f.detail_para + 1 if f.detail_para is not None else None,
                "questions": f.questions,
                "markers": [[g.markers for g in v.groups] for v in f.versions],
            }
        return {"seed": self.seed, "days": self.days, "start": iso(START),
                "facts": [fact(f) for f in self.facts],
                "distractors": len(self.items) - len(self.facts),
                "mails": sum(1 for e in self.events if e.op == "mail_new"),
                "events": len(self.events)}


def schedule(b, tpl):
    """Appearance, due, move and cancellation times of one fact in this world."""
    rng = b.rng
    scale = min(1.0, b.days / 7)
    lo, hi = tpl["lead"]
    lead = timedelta(hours=rng.uniform(lo, hi) * scale)
    earliest = b.start + timedelta(minutes=45)
    latest = b.end - timedelta(minutes=60)
    cands = []
    for d in range(b.days + 1):
        for hm in tpl["times"]:
            h, m = map(int, hm.split(":"))
            due = b.start + timedelta(days=d, hours=h, minutes=m)
            if earliest + lead <= due <= latest:
                cands.append(due)
    if not cands:
        due = latest.replace(minute=0)
        lead = min(lead, (due - earliest) * 0.8)
    else:
        due = rng.choice(cands)
    appear = due - lead
    appear = appear.replace(second=rng.randint(0, 59))
    t = Timing(appear, due)
    span = due - appear
    if tpl.get("moved"):
        t.move_at = appear + span * rng.uniform(0.3, 0.6)
        opts = []
        for dd in (-2, -1, 1, 2):
            for hm in tpl["times"]:
                h, m = map(int, hm.split(":"))
                c = (due + timedelta(days=dd)).replace(hour=h, minute=m)
                if c != due and t.move_at + timedelta(hours=2 * scale) < c <= latest:
                    opts.append(c)
        if not opts:
            opts = [c for c in (due + timedelta(hours=h) for h in (2, 3, 4)) if c <= latest] \
                or [due + timedelta(minutes=30)]
        t.due2 = rng.choice(opts)
    if tpl.get("cancelled"):
        t.cancel_at = appear + span * rng.uniform(0.35, 0.7)
    return t


def pick_templates(rng, n):
    pool = list(TEMPLATES)
    if n >= len(pool):
        return pool
    rng.shuffle(pool)
    chosen = []
    for want in ("urgent", "moved", "cancelled"):
        for tpl in pool:
            if tpl.get(want) and tpl not in chosen:
                chosen.append(tpl)
                break
    for tpl in pool:
        if len(chosen) >= n:
            break
        if tpl not in chosen:
            chosen.append(tpl)
    return sorted(chosen[:n], key=TEMPLATES.index)


def build_world(seed, days, nfacts):
    b = Builder(seed, days)
    facts = []
    for tpl in pick_templates(random.Random(seed * 7919 + 1), nfacts):
        t = schedule(b, tpl)
        f = Item(id=tpl["key"], summary=tpl["summary"], importance=tpl["importance"],
                 versions=[], fact=True, category=tpl["category"],
                 urgent=tpl.get("urgent", False), split="held" if tpl.get("held") else "tune",
                 questions=tpl["questions"], appear=t.appear, detail_para=None)
        first = len(b.events)
        groups, cancel = tpl["build"](b, f, t)
        f.versions.append(Version(tpl["summary"], t.due, groups[0], t.appear))
        if tpl.get("moved"):
            f.versions.append(Version(tpl["moved_summary"], t.due2, groups[1], t.move_at))
            f.moved_at = t.move_at
        if tpl.get("cancelled"):
            f.cancel_groups = cancel
            f.cancelled_at = t.cancel_at
        ops = {e.op for e in b.events[first:]}
        f.channel = "+".join(sorted({"mail" if o.startswith("mail") else "calendar"
                                     if o.startswith("ics") else "notes" for o in ops}))
        f.appear = min(e.at for e in b.events[first:])
        facts.append(f)
    distractors = build_distractors(b)
    items = facts + distractors
    check_world(items)
    events = sorted(b.events, key=lambda e: (e.at, e.seq))
    return World(seed, days, facts, items, events, IDEAS)


def check_world(items):
    """The stand-in tells items apart by thinker's own matching: no two may match."""
    sets = [(it, [tokens(v.summary) for v in it.versions]) for it in items]
    for it, own in sets:
        for a in own:
            for c in own:
                if jaccard(a, c) < 0.6:
                    raise SystemExit(f"bench-week: the versions of {it.id} do not match each other")
    for i, (a, sa) in enumerate(sets):
        for c, sc in sets[i + 1:]:
            if not (a.fact or c.fact):
                continue
            if any(jaccard(x, y) >= 0.6 for x in sa for y in sc):
                raise SystemExit(f"bench-week: {a.id} and {c.id} would match each other")


# --- the world on disk --------------------------------------------------------------------

class WorldFS:
    """Applies the world's events, in order, to a home directory."""

    def __init__(self, world, home):
        self.events = world.events
        self.next = 0
        self.home = home
        self.maildir = home / "Mail" / "INBOX"
        for d in ("cur", "new", "tmp"):
            (self.maildir / d).mkdir(parents=True, exist_ok=True)
        for cal in ("personal", "work"):
            (home / "calendars" / cal).mkdir(parents=True, exist_ok=True)
        (home / "notes").mkdir(parents=True, exist_ok=True)
        self.mails = {}  # n -> path
        self.notes = {}  # file -> {line id: text}

    def apply(self, until):
        while self.next < len(self.events) and self.events[self.next].at <= until:
            e = self.events[self.next]
            self.next += 1
            getattr(self, e.op)(e.at, *e.args)

    @staticmethod
    def touch(path, at):
        ts = at.timestamp()
        os.utime(path, (ts, ts))

    def mail_new(self, at, n, fname, data):
        tmp = self.maildir / "tmp" / fname
        tmp.write_bytes(data)
        self.touch(tmp, at)
        path = self.maildir / "new" / fname
        tmp.rename(path)
        self.mails[n] = path

    def mail_read(self, at, n):
        path = self.mails.get(n)
        if path and path.exists() and path.parent.name == "new":
            dest = self.maildir / "cur" / (path.name + ":2,S")
            path.rename(dest)
            self.mails[n] = dest

    def mail_flag(self, at, n, flags):
        path = self.mails.get(n)
        if path and path.exists():
            base = path.name.split(":2,")[0]
            dest = self.maildir / "cur" / f"{base}:2,{flags}"
            path.rename(dest)
            self.mails[n] = dest

    def mail_delete(self, at, n):
        path = self.mails.pop(n, None)
        if path and path.exists():
            path.unlink()

    def ics_write(self, at, calendar, uid, text):
        path = self.home / "calendars" / calendar / f"{uid.split('@')[0]}.ics"
        path.write_text(text)
        self.touch(path, max(at, START - timedelta(days=40)))

    def ics_remove(self, at, calendar, uid):
        path = self.home / "calendars" / calendar / f"{uid.split('@')[0]}.ics"
        if path.exists():
            path.unlink()

    def note(self, at, file, line_id, text):
        lines = self.notes.setdefault(file, {})
        if text is None:
            lines.pop(line_id, None)
        else:
            lines[line_id] = text
        title = file.removesuffix(".md").replace("-", " ").capitalize()
        path = self.home / "notes" / file
        path.write_text(f"# {title}\n\n" + "\n".join(lines.values()) + "\n")
        self.touch(path, at)


# --- the model stand-in -------------------------------------------------------------------

FENCE = re.compile(r"<<<DATA (\S+)([^\n]*?)>>>\n(.*?)<<<END DATA \1>>>", re.S)
ATTR = re.compile(r'(\w+)="([^"]*)"')
ENTRY = re.compile(r"^\s*-\s*\[([^\]\s]+)\]\s*(.*?)\s*$")
TRAILER = re.compile(r"\s*\((?=[^()]*\b(?:strength|seen|due|importance|from|sightings)\b)[^()]*\)\s*$")
ROLE = re.compile(r"You are the (Watcher|Librarian|Oracle|Dreamer)\b")
KINDS = {"watcher": ("observation", "anomaly", "pattern"),
         "librarian": ("forgotten", "pattern"), "oracle": ("deadline", "anticipation"),
         "dreamer": ("connection", "idea")}


@dataclass
class Prompt:
    sources: list  # (name, kind, text)
    entries: list  # (id, summary tokens, due or None)
    history: str


def read_prompt(text):
    sources, entries, history = [], [], ""
    for _fence, header, body in FENCE.findall(text):
        attrs = dict(ATTR.findall(header))
        src = attrs.get("source", "")
        if "kind" in attrs:
            sources.append((src, attrs["kind"], body))
        elif src == "subconscious":
            for line in body.splitlines():
                m = ENTRY.match(line)
                if not m:
                    continue
                rest = m.group(2)
                due = re.search(r"\bdue (\S+?)[,)\s]", rest + " ")
                items = re.search(r"\bitems ((?:[a-z][a-z2-7]{5}\b ?)+)", rest)
                summary = TRAILER.sub("", rest)
                entries.append((m.group(1), tokens(summary),
                                parse_iso(due.group(1)) if due else None,
                                set(items.group(1).split()) if items else set(),
                                summary))
        elif "recent findings" in src:
            history = body
    if not sources:  # a prompt laid out some other way: all of it is the source
        sources = [("prompt", "unknown", text)]
    return Prompt(sources, entries, history)


def limits(req):
    """The answer schema's bounds a grammar-constrained model could not exceed."""
    out = {"findings": 20, "reinforce": 20}
    fmt = req.get("response_format") or {}
    schema = (fmt.get("json_schema") or {}).get("schema") or fmt.get("schema") or {}
    props = schema.get("properties") or {}
    for key in out:
        n = (props.get(key) or {}).get("maxItems")
        if isinstance(n, int) and n > 0:
            out[key] = min(out[key], n)
    return out


class StandIn:
    """Answers every call perfectly from what the prompt shows (see the module doc)."""

    def __init__(self, world, behaviour=cheap_model.BEHAVIOURS["perfect"], seed=0):
        self.world = world
        self.b = behaviour
        self.seed = seed
        self.said = {}  # item id -> token sets of the summaries and reasons it wrote
        self.item_refs = {}  # item id -> labels of the items it was seen in
        self.digests = 0
        self.items = world.items
        self.lock = threading.Lock()
        self.now = START
        self.day = 0
        self.escalated = set()
        self.first_seen = {}  # fact id -> time any thread first saw it
        self.thread_seen = {}  # (thread, item id) -> time that thread first saw it
        self.calls = {}  # (day, who) -> [calls, tokens in, tokens out]
        self.dreams = 0
        self.decisions = []
        self.unreadable = 0
        self.vsets = {it.id: [tokens(v.summary) for v in it.versions] for it in self.items}

    def answer(self, body):
        req = json.loads(body)
        text = "\n".join(m["content"] if isinstance(m.get("content"), str)
                         else "".join(p.get("text", "") for p in m.get("content") or [])
                         for m in req.get("messages", []))
        with self.lock:
            role = ROLE.search(text)
            if role:
                who = role.group(1).lower()
                content = self.thread_answer(who, text, limits(req))
            elif "Why the threads escalated" in text or "conscious mind" in text:
                who = "escalation"
                content = self.decide(text)
            else:
                who = "unknown"
                self.unreadable += 1
                content = {"findings": []}
            out = json.dumps(content)
            tin, tout = len(body) // 4, max(30, len(out) // 4)
            c = self.calls.setdefault((self.day, who), [0, 0, 0])
            c[0] += 1
            c[1] += tin
            c[2] += tout
        return req.get("model", "m"), out, tin, tout

    def sets(self, item_id):
        """The token sets of what names an item: its versions, and what the stand-in
        wrote about it (a rephrased summary is still that item's)."""
        return self.vsets.get(item_id, []) + self.said.get(item_id, [])

    def wrote(self, item, text):
        t = tokens(text)
        if t and t not in self.said.setdefault(item.id, []):
            self.said[item.id].append(t)

    def matches(self, item, entries):
        """The entries the model takes for `item`: one whose summary is the item's (its
        words, or words the model wrote for it), or one that cites an item the fact was
        seen in and whose summary is about it (a mail or a file may hold other facts)."""
        sets = self.sets(item.id)
        refs = self.item_refs.get(item.id, set())
        return [e for e in entries
                if any(jaccard(e[1], s) >= 0.6 for s in sets)
                or ((e[3] & refs) and any(contained(e[1], s) >= 0.5 for s in sets))]

    @staticmethod
    def satisfied(group, sources):
        marks = [m.lower() for m in group.markers]
        for name, _kind, text in sources:
            low = text.lower()
            if group.scope == "line":
                if any(all(m in line for m in marks) for line in low.splitlines()):
                    return name
            else:
                flat = re.sub(r"\s+", " ", low)
                if all(re.sub(r"\s+", " ", m) in flat for m in marks):
                    return name
        return None

    def seen(self, item, sources):
        """The latest version of `item` shown, and the source it was seen in."""
        best = None
        for i, v in enumerate(item.versions):
            for g in v.groups:
                name = self.satisfied(g, sources)
                if name:
                    best = (i, name)
                    break
        return best

    def kind(self, who, item):
        if who == "watcher":
            return "anomaly" if item.urgent else "observation"
        if who == "librarian":
            return "forgotten" if item.fact else "pattern"
        if who == "oracle":
            return "deadline" if item.fact else "anticipation"
        return "connection"

    def locate(self, item, vi, sources):
        """The label of the item of a source in which version `vi` of `item` is seen."""
        for g in item.versions[vi].groups:
            for name, _kind, text in sources:
                if self.satisfied(g, [(name, _kind, text)]):
                    ref = cheap_model.item_ref(text, g.markers, g.scope)
                    if ref:
                        return ref
        return None

    def say(self, rng, item, text):
        """What the model writes for `text` about `item`: rephrased as its behaviour
        says, remembered as that item's."""
        if self.b.rephrase and rng.random() < self.b.rephrase:
            text = cheap_model.rephrase(text, rng, self.b)
        if item is not None:
            self.wrote(item, text)
        return text

    def thread_answer(self, who, text, limit):
        p = read_prompt(text)
        now = self.now
        b = self.b
        rng = cheap_model.rng_for(self.seed, now, who)
        all_labels = [r for _n, _k, t in p.sources for r in cheap_model.labels(t)]
        findings, reinforce, later, retire, reasons = [], [], [], [], []
        history = norm(p.history)
        shown_ids = set()
        for item in self.items:
            entries = self.matches(item, p.entries)
            if item.fact and any(self.satisfied(g, p.sources) for g in item.cancel_groups):
                for e in entries:
                    retire.append({"id": e[0], "why": "cancelled"})
                continue
            seen = self.seen(item, p.sources)
            if seen is None:
                continue
            if b.miss and rng.random() < b.miss:
                continue
            vi, source = seen
            v = item.versions[vi]
            ref = self.locate(item, vi, p.sources)
            if ref:
                self.item_refs.setdefault(item.id, set()).add(ref)
            key = (who, item.id)
            self.thread_seen.setdefault(key, now)
            if item.fact:
                self.first_seen.setdefault(item.id, now)
            importance = item.importance
            if b.jitter and rng.random() < b.jitter:
                importance = max(0, min(10, importance + rng.choice([-2, -1, 1, 2])))
            finding = {"summary": self.say(rng, item, v.summary), "importance": importance,
                       "kind": self.kind(who, item), "from": source}
            if v.due and not (b.drop_due and rng.random() < b.drop_due):
                finding["due"] = iso(v.due)
            cites = []
            if ref and rng.random() < b.cite:
                cites.append(ref)
            if all_labels and b.wrong_ref and rng.random() < b.wrong_ref:
                cites.append(rng.choice(all_labels))
            if cites:
                finding["refs"] = cites
            urgent = item.urgent or item.alarmist
            if entries:
                rereport = item.fact and b.rereport and rng.random() < b.rereport
                if rereport:
                    findings.append((0, item, finding))
                    if urgent and b.reescalate and rng.random() < b.reescalate:
                        reasons.append(self.say(rng, item, v.summary))
                else:
                    for e in entries:
                        if e[0] not in shown_ids:
                            shown_ids.add(e[0])
                            (reinforce if item.fact else later).append(e[0])
                    if item.fact and vi > 0 and not any(e[2] == v.due for e in entries):
                        findings.append((0, item, finding))
            elif item.fact:
                findings.append((0, item, finding))
            elif (now - self.thread_seen[key] <= timedelta(hours=2)
                  and norm(v.summary) not in history):
                findings.append((1, item, finding))
            if urgent and item.id not in self.escalated:
                self.escalated.add(item.id)
                reasons.append(self.say(rng, item, v.summary))
        if who == "librarian":
            findings += self.forgotten(p)
        if who == "dreamer":
            self.dreams += 1
            idea = self.world.ideas[self.dreams % len(self.world.ideas)]
            findings.append((1, None, {"summary": idea, "importance": 3 + self.dreams % 4,
                                       "kind": "idea"}))
        if b.digest and rng.random() < b.digest:
            self.digests += 1
            noise = {"summary": cheap_model.digest(rng),
                     "importance": rng.choice([3, 4] if b.name == "realistic" else [3, 4, 5]),
                     "kind": self.kind(who, Item("digest", "", 3, [])), "from": p.sources[0][0]}
            mail_labels = [r for r in all_labels if r.startswith("m")]
            if mail_labels:
                noise["refs"] = [rng.choice(mail_labels)]
            findings.append((1, None, noise))
        facts = [f for rank, _, f in findings if rank == 0]
        facts.sort(key=lambda f: -f["importance"])
        noise = [f for rank, _, f in findings if rank == 1]
        noise.sort(key=lambda f: -f["importance"])
        answer = {"findings": (facts + noise[:3])[:limit["findings"]],
                  "reinforce": (reinforce + later)[:limit["reinforce"]],
                  "retire": retire, "suggest": "", "escalate": bool(reasons)}
        if reasons:
            answer["escalate_reason"] = "; ".join(reasons)
        return answer

    def forgotten(self, p):
        """Facts the archive shows as forgotten while still ahead: reported again."""
        out = []
        for name, kind, text in p.sources:
            if kind != "archive":
                continue
            for line in text.splitlines():
                if "retired" in line or "rejected" in line:
                    continue
                lt = tokens(line)
                for item in self.world.facts:
                    if item.cancelled_at and item.cancelled_at <= self.now:
                        continue
                    for v, s in zip(item.versions, self.vsets[item.id]):
                        if contained(s, lt) >= 0.8 and v.due > self.now \
                                and not self.matches(item, p.entries):
                            out.append((0, item, {"summary": v.summary,
                                                  "importance": item.importance,
                                                  "kind": "forgotten", "due": iso(v.due),
                                                  "from": name}))
        seen, uniq = set(), []
        for f in out:
            if f[1].id not in seen:
                seen.add(f[1].id)
                uniq.append(f)
        return uniq

    def decide(self, text):
        block = ""
        for _f, header, body in FENCE.findall(text):
            if 'source="escalation reasons"' in header:
                block = body
        urgent = []
        for line in block.splitlines() or [text]:
            lt = tokens(line)
            for item in self.world.facts:
                if item.urgent and item not in urgent and any(
                        contained(s, lt) >= 0.8 for s in self.sets(item.id)):
                    urgent.append(item)
        if urgent:
            decision = {"action": "notify", "text": "; ".join(f.summary for f in urgent) + ".",
                        "why": "urgent and not yet known to the user"}
        else:
            decision = {"action": "dismiss", "text": "",
                        "why": "nothing the user must act on now"}
        self.decisions.append((self.now, decision["action"]))
        return decision


def stand_in_reply(standin):
    """The stub's `answer`: the stand-in's answer to the request."""
    def reply(request):
        model, content, tin, tout = standin.answer(request.raw)
        return stub.Reply(content, tin, tout, model)
    return reply


# --- the config -----------------------------------------------------------------------------

THREAD_KEYS = ("model", "fallback", "every", "quiet_hours", "max_tokens", "temperature",
               "timeout_seconds", "enabled")


def toml_value(v):
    if isinstance(v, bool):
        return "true" if v else "false"
    if isinstance(v, (int, float)):
        return repr(v)
    if isinstance(v, str):
        return json.dumps(v)
    if isinstance(v, list):
        return "[" + ", ".join(toml_value(x) for x in v) + "]"
    if isinstance(v, dict):
        return "{ " + ", ".join(f"{toml_key(k)} = {toml_value(x)}" for k, x in v.items()) + " }"
    raise TypeError(f"cannot write {v!r} as TOML")


def toml_key(k):
    return k if re.fullmatch(r"[A-Za-z0-9_-]+", k) else json.dumps(k)


def toml_text(cfg, prefix=""):
    out, subs = [], []
    for k, v in cfg.items():
        if isinstance(v, dict) and k not in ("caps", "decay_hours"):
            subs.append((k, v))
        elif isinstance(v, list) and v and all(isinstance(x, dict) for x in v):
            subs.append((k, v))
        else:
            out.append(f"{toml_key(k)} = {toml_value(v)}")
    for k, v in subs:
        name = f"{prefix}.{toml_key(k)}" if prefix else toml_key(k)
        if isinstance(v, list):
            for t in v:
                out.append(f"\n[[{name}]]")
                out.append(toml_text(t, name).strip("\n"))
        else:
            out.append(f"\n[{name}]")
            body = toml_text(v, name).strip("\n")
            if body:
                out.append(body)
    return "\n".join(out) + "\n"


def make_config(template, url, home, memory_from_config, overrides):
    d = tomllib.loads(Path(template).read_text())
    cfg = {}
    for table in ("tick", "budget", "guard"):
        if table in d:
            cfg[table] = dict(d[table])
    cfg["memory"] = dict(d.get("memory", {})) if memory_from_config else {}
    cfg["providers"] = {}
    for name, p in d.get("providers", {}).items():
        q = {"kind": "openai", "base_url": f"{url}/v1", "timeout_seconds": 60, "retries": 1,
             "concurrency": 4}
        for k in ("price_in", "price_out"):
            if k in p:
                q[k] = p[k]
        cfg["providers"][name] = q
    sources = {
        "watcher": [{"kind": "system"},
                    {"kind": "maildir", "name": "inbox", "path": str(home / "Mail" / "INBOX")},
                    {"kind": "ics", "name": "calendar", "paths": [str(home / "calendars") + "/*"]}],
        "librarian": [{"kind": "archive"},
                      {"kind": "files", "name": "notes", "paths": [str(home / "notes") + "/*.md"]}],
        "oracle": [{"kind": "ics", "name": "calendar", "paths": [str(home / "calendars") + "/*"],
                    "hours": 72}],
        "dreamer": None,  # its role default: a sample of the others' sources
    }
    cfg["threads"] = {}
    for name, t in d.get("threads", {}).items():
        th = {k: t[k] for k in THREAD_KEYS if k in t}
        if sources.get(name) is not None:
            th["sources"] = sources[name]
        cfg["threads"][name] = th
    esc = {k: v for k, v in d.get("escalation", {}).items() if k not in ("notify_command", "memory_dir")}
    esc["notify_command"] = ["sh", "-c", 'cat >> "$0"; printf "\\n@@end@@\\n" >> "$0"',
                             str(home / "notifications.txt")]
    cfg["escalation"] = esc
    for key, value in overrides:
        path = key.split(".")
        try:
            v = tomllib.loads(f"v = {value}")["v"]
        except tomllib.TOMLDecodeError:
            v = value
        node = cfg
        for part in path[:-1]:
            node = node.setdefault(part, {})
        node[path[-1]] = v
    if not cfg["memory"]:
        del cfg["memory"]
    return toml_text(cfg)


# --- the run ------------------------------------------------------------------------------

class Sets:
    """`tsets[fact id]`: the token sets that name a fact now — its versions, and what the
    stand-in wrote about it so far (its rephrasings)."""

    def __init__(self, standin):
        self.standin = standin

    def __getitem__(self, item_id):
        return self.standin.sets(item_id)


def membership(state, world, tsets):
    """fact id -> (entry id, its due) for the facts with an entry in memory."""
    out = {}
    for cat in ("active_threads", "patterns", "hunches", "insights"):
        for e in state.get(cat, []):
            et = tokens(e.get("summary", ""))
            best, score = None, 0.6
            for f in world.facts:
                for s in tsets[f.id]:
                    j = jaccard(et, s)
                    if j >= score:
                        best, score = f, j
            if best and best.id not in out:
                out[best.id] = (e.get("id"), parse_iso(e.get("due", "")) if e.get("due") else None)
    return out


def match_score(text, f, tsets):
    """How well `text` carries fact `f`: the best containment of any of its texts in any
    line, then (between facts that tie) how many of its words the line has."""
    best = (0.0, 0)
    for line in text.splitlines():
        lt = tokens(line)
        for s in tsets[f.id]:
            best = max(best, (contained(s, lt), len(s & lt)))
    return best


def found_in(text, f, tsets, entries_only=False):
    lines = text.splitlines()
    if entries_only:  # `show`: an entry's line, not an escalation's outcome
        lines = [line for line in lines if re.match(r"\s*-\s*\[", line)] or lines
    for line in lines:
        lt = tokens(line)
        if any(contained(s, lt) >= 0.8 for s in tsets[f.id]):
            return True
    return False


def fit_config(binary, config, home):
    """Leaves out the config keys `binary` refuses as unknown (an earlier release run beside
    this one: the template's newer keys are left to its defaults, as `[memory]` is), read
    from its own error (`unknown field `KEY`` at `line N`); returns the keys left out."""
    dropped = []
    probe = home / "probe-state"
    for _ in range(50):
        r = subprocess.run([binary, "prompt", "watcher", "--config", str(config), "--state",
                            str(probe)], capture_output=True, text=True,
                           env={"HOME": str(home), "TZ": "UTC", "PATH": "/usr/bin:/bin"})
        m = re.search(r"at line (\d+), column \d+.*?unknown field `([^`]+)`", r.stderr, re.S)
        if r.returncode != 2 or not m:
            break
        lines = config.read_text().splitlines(keepends=True)
        del lines[int(m.group(1)) - 1]
        config.write_text("".join(lines))
        dropped.append(m.group(2))
    shutil.rmtree(probe, ignore_errors=True)
    return dropped


def run(args, binary, world, home):
    fs = WorldFS(world, home)
    standin = StandIn(world, cheap_model.BEHAVIOURS[args.stand_in], args.seed)
    server = stub.Stub(stand_in_reply(standin), label="bench-week: stand-in").start()
    url = f"http://127.0.0.1:{server.port}"
    config = home / "thinker.toml"
    config.write_text(make_config(args.config_template, url, home, args.memory_from_config,
                                  args.set))
    dropped = fit_config(binary, config, home)
    if dropped:
        print(f"bench-week: keys this binary does not know, left to its defaults: "
              f"{', '.join(dropped)}", file=sys.stderr)
    (home / "world.json").write_text(json.dumps(world.to_json(), indent=1))
    state = home / "state"
    env = {"HOME": str(home), "TZ": "UTC", "PATH": "/usr/bin:/bin", "LANG": "C.UTF-8",
           "XDG_CONFIG_HOME": str(home / ".config"), "XDG_DATA_HOME": str(home / ".local/share")}
    step = timedelta(minutes=args.step)
    n = int(timedelta(days=world.days) / step)
    tsets = Sets(standin)
    check_at = {}
    for f in world.facts:
        for when in ([f.due] + ([f.versions[0].due] if f.cancelled_at else [])):
            k = int((when - START) / step)
            if 0 <= k < n:
                check_at.setdefault(k, []).append(f)
    per = {f.id: {"in": 0, "window": 0, "first_in": None, "at_due": None, "due_ok": None,
                  "recall": [], "gone_after_cancel": None, "stale_at_due": None}
           for f in world.facts}
    exits, stderr_healthy, stderr_examples, notified = {}, 0, [], []
    notify_file = home / "notifications.txt"
    notify_pos = 0
    held_nudged = set()
    started = time.monotonic()
    tick_ms = []
    for k in range(n):
        now = START + k * step
        fs.apply(now)
        standin.now, standin.day = now, k * step // timedelta(days=1)
        t0 = time.monotonic()
        r = subprocess.run([binary, "tick", "--now", iso(now), "--config", str(config),
                            "--state", str(state)], capture_output=True, text=True, env=env)
        tick_ms.append((time.monotonic() - t0) * 1000)
        exits[r.returncode] = exits.get(r.returncode, 0) + 1
        if r.returncode not in (0, 3):
            sys.exit(f"bench-week: tick {k} ({iso(now)}) exited {r.returncode}:\n{r.stderr}")
        if r.returncode == 0 and r.stderr.strip():
            lines = r.stderr.strip().splitlines()
            stderr_healthy += len(lines)
            for line in lines:
                if len(stderr_examples) < 5:
                    stderr_examples.append(f"{iso(now)} {line[:200]}")
        try:
            st = json.loads((state / "subconscious.json").read_text())
        except (OSError, ValueError):
            st = {}
        mem = membership(st, world, tsets)
        for f in world.facts:
            p = per[f.id]
            if f.appear <= now < f.window_end:
                p["window"] += 1
                if f.id in mem:
                    p["in"] += 1
            if f.id in mem and p["first_in"] is None and now >= f.appear:
                p["first_in"] = now
            if f.cancelled_at and now >= f.cancelled_at and p["gone_after_cancel"] is None \
                    and f.id not in mem:
                p["gone_after_cancel"] = now
        if notify_file.exists():
            data = notify_file.read_text()
            for block in data[notify_pos:].split("@@end@@"):
                if block.strip().startswith("thinker is holding"):
                    # The content-free nudge about messages held for the user's
                    # confirmation (a payment asked by mail, say): what it tells of
                    # is the held messages, each counted once, when first nudged.
                    for r in st.get("escalation_history", []):
                        key = (r.get("timestamp"), r.get("thread"))
                        if str(r.get("outcome", "")).startswith("held: needs confirmation") \
                                and key not in held_nudged:
                            held_nudged.add(key)
                            text = (r.get("decision") or {}).get("text", "")
                            notified.append((now, "[held] " + text))
                elif block.strip():
                    notified.append((now, block.strip()))
            notify_pos = len(data)
        for f in check_at.get(k, []):
            p = per[f.id]
            if f.cancelled_at:
                p["stale_at_due"] = f.id in mem
                continue
            p["at_due"] = f.id in mem
            if f.id in mem:
                p["due_ok"] = mem[f.id][1] == f.due
            for q in f.questions:
                out = subprocess.run([binary, "show", "--format", "prompt", "--for", q,
                                      "--now", iso(now), "--config", str(config),
                                      "--state", str(state)],
                                     capture_output=True, text=True, env=env)
                p["recall"].append(out.returncode == 0
                                   and found_in(out.stdout, f, tsets, entries_only=True))
        if args.progress and k % 288 == 287:
            print(f"bench-week: day {k // 288 + 1} done, {time.monotonic() - started:.0f} s",
                  file=sys.stderr)
    wall = time.monotonic() - started
    server.close()
    return dict(per=per, exits=exits, stderr_healthy=stderr_healthy,
                stderr_examples=stderr_examples, notified=notified, standin=standin,
                wall=wall, ticks=n, state=state, tick_ms=tick_ms, tsets=tsets)


def journal_stats(state):
    skipped, failed = {}, 0
    for path in sorted(state.glob("journal*.jsonl")):
        for line in path.read_text().splitlines():
            try:
                j = json.loads(line)
            except ValueError:
                continue
            for t in j.get("threads", []):
                if t.get("status") == "skipped":
                    reason = (t.get("skip") or {}).get("reason", "?")
                    skipped[reason] = skipped.get(reason, 0) + 1
                elif t.get("status") == "failed":
                    failed += 1
    return skipped, failed


def capped_records(state):
    """Escalation records the week capped (no call: the day's calls were used up)."""
    seen = set()
    for path in sorted(state.glob("journal*.jsonl")):
        for line in path.read_text().splitlines():
            try:
                j = json.loads(line)
            except ValueError:
                continue
            for r in (j.get("escalations") or []) + ((j.get("escalation") or {}).get("records")
                                                     or []):
                if isinstance(r, dict) and str(r.get("outcome", "")).startswith("capped"):
                    seen.add((r.get("timestamp"), r.get("thread")))
    return len(seen)


def archive_stats(state, world, tsets):
    lines, per_fact, reasons = 0, {}, {}
    path = state / "archive.jsonl"
    if path.exists():
        for line in path.read_text().splitlines():
            lines += 1
            try:
                a = json.loads(line)
            except ValueError:
                continue
            et = tokens(a.get("summary", ""))
            reason = str(a.get("reason", "?")).split(":")[0]
            reasons[reason] = reasons.get(reason, 0) + 1
            for f in world.facts:
                if any(jaccard(et, s) >= 0.6 for s in tsets[f.id]):
                    counts = per_fact.setdefault(f.id, {})
                    counts[reason] = counts.get(reason, 0) + 1
                    break
    return lines, per_fact, reasons


# --- the figures --------------------------------------------------------------------------

def median(xs):
    xs = sorted(xs)
    return xs[len(xs) // 2] if xs else None


def minutes(a, b):
    return round((b - a).total_seconds() / 60) if a and b else None


def figures(world, res, args, binary):
    per, standin = res["per"], res["standin"]
    tsets = res["tsets"]
    lines, archived, reasons = archive_stats(res["state"], world, tsets)
    skipped, failed = journal_stats(res["state"])
    notes = {f.id: [] for f in world.facts}
    false_alarms = 0
    for when, text in res["notified"]:
        # The primary stand-in joins the facts of one message with "; ": each part is
        # about the urgent fact it matches best (a paraphrase the stand-in wrote of one
        # fact may also be contained in a part about another).
        about = []
        for part in text.split("; "):
            scored = [(match_score(part, f, tsets), f) for f in world.facts if f.urgent]
            top = max((sc for sc, _ in scored), default=(0.0, 0))
            about += [f for sc, f in scored
                      if sc[0] >= 0.8 and sc == top and f not in about]
        if not about:
            false_alarms += 1
        for f in about:
            notes[f.id].append(when)
    facts = []
    for f in world.facts:
        p = per[f.id]
        row = {
            "id": f.id, "category": f.category, "split": f.split, "urgent": f.urgent,
            "channel": f.channel, "moved": f.moved_at is not None,
            "cancelled": f.cancelled_at is not None,
            "detail_paragraph": f.detail_para + 1 if f.detail_para is not None else None,
            "appear": iso(f.appear), "due": iso(f.due),
            "first_seen_min": minutes(f.appear, standin.first_seen.get(f.id)),
            "to_memory_min": minutes(f.appear, p["first_in"]),
            "window_share": round(p["in"] / p["window"], 3) if p["window"] else None,
            "in_memory_at_due": p["at_due"],
            "due_right": p["due_ok"],
            "recall": p["recall"],
            "archived": sum(archived.get(f.id, {}).values()),
            "archived_by_reason": archived.get(f.id, {}),
        }
        if f.cancelled_at:
            row["gone_min_after_cancel"] = minutes(f.cancelled_at, p["gone_after_cancel"])
            row["in_memory_at_original_due"] = p["stale_at_due"]
        if f.urgent:
            row["notified"] = len(notes[f.id])
            row["notified_after_min"] = minutes(f.appear, notes[f.id][0]) if notes[f.id] else None
        facts.append(row)

    def split_summary(rows):
        live = [r for r in rows if not r["cancelled"] and r["in_memory_at_due"] is not None]
        shares = [r["window_share"] for r in rows if r["window_share"] is not None]
        asked = [x for r in live for x in r["recall"]]
        to_mem = [r["to_memory_min"] for r in rows if r["to_memory_min"] is not None]
        return {
            "facts": len(rows),
            "live_checked": len(live),
            "in_memory_at_due": sum(1 for r in live if r["in_memory_at_due"]),
            "mean_window_share": round(sum(shares) / len(shares), 3) if shares else None,
            "recall_questions": len(asked),
            "recall_found": sum(asked),
            "facts_recalled": sum(1 for r in live if any(r["recall"])),
            "median_to_memory_min": median(to_mem),
            "never_in_memory": sum(1 for r in rows if r["to_memory_min"] is None),
            "never_seen": sum(1 for r in rows if r["first_seen_min"] is None),
        }

    urgent = [r for r in facts if r["urgent"]]
    cancelled = [r for r in facts if r["cancelled"]]
    moved = [r for r in facts if r["moved"]]
    calls, threads = {}, {}
    for (day, who), (c, tin, tout) in standin.calls.items():
        calls.setdefault(who, [0, 0, 0])
        for i, x in enumerate((c, tin, tout)):
            calls[who][i] += x
    days = res["ticks"] * args.step / (24 * 60)
    for who, (c, tin, tout) in calls.items():
        threads[who] = {"calls_per_day": round(c / days, 1),
                        "tokens_in_per_day": round(tin / days),
                        "tokens_out_per_day": round(tout / days)}
    thread_calls = sum(v[0] for k, v in calls.items() if k != "escalation")
    thread_tokens = sum(v[1] for k, v in calls.items() if k != "escalation")
    tm = res["tick_ms"]
    return {
        "seed": world.seed, "days": world.days, "step_minutes": args.step, "ticks": res["ticks"],
        "binary": str(binary), "version": subprocess.run([binary, "--version"], capture_output=True,
                                                         text=True).stdout.strip(),
        "settings": [f"{k}={v}" for k, v in args.set],
        "stand_in": args.stand_in,
        "memory_from_config": args.memory_from_config,
        "world": {"facts": len(world.facts), "urgent": len(urgent), "moved": len(moved),
                  "cancelled": len(cancelled),
                  "held_out": sum(1 for f in world.facts if f.split == "held"),
                  "distractors": len(world.items) - len(world.facts),
                  "mails": sum(1 for e in world.events if e.op == "mail_new"),
                  "detail_after_first_paragraph": sum(1 for f in world.facts
                                                      if (f.detail_para or 0) > 0)},
        "summary": split_summary(facts),
        "splits": {s: split_summary([r for r in facts if r["split"] == s]) for s in ("tune", "held")},
        "urgent": {"facts": len(urgent),
                   "notified_exactly_once": sum(1 for r in urgent if r["notified"] == 1),
                   "missed": sum(1 for r in urgent if r["notified"] == 0),
                   "repeated": sum(1 for r in urgent if r["notified"] > 1),
                   "median_minutes_to_notify": median(
                       [r["notified_after_min"] for r in urgent
                        if r["notified_after_min"] is not None]),
                   "false_alarms": false_alarms, "notifications": len(res["notified"]),
                   "capped": capped_records(res["state"]),
                   "escalation_decisions": len(standin.decisions)},
        "cancelled": {"facts": len(cancelled),
                      "gone_by_original_due": sum(1 for r in cancelled
                                                  if r["in_memory_at_original_due"] is False),
                      "minutes_to_gone": [r["gone_min_after_cancel"] for r in cancelled]},
        "moved": {"facts": len(moved),
                  "right_due_at_due": sum(1 for r in moved if r["due_right"])},
        "calls": {"thread_calls_per_day": round(thread_calls / days, 1),
                  "thread_tokens_in_per_day": round(thread_tokens / days),
                  "escalation_calls": calls.get("escalation", [0])[0],
                  "by_thread": threads},
        "threads_skipped": skipped, "threads_failed": failed,
        "archive": {"lines": lines, "fact_lines": sum(sum(c.values()) for c in archived.values()),
                    "reasons": reasons},
        "exit_codes": {str(k): v for k, v in sorted(res["exits"].items())},
        "stderr_lines_healthy_ticks": res["stderr_healthy"],
        "stderr_examples": res["stderr_examples"],
        "tick_ms_median": round(median(tm), 1) if tm else None,
        "wall_s": round(res["wall"], 1),
        "stand_in_unrecognised_prompts": standin.unreadable,
        "facts_detail": facts,
    }


def yn(x):
    return "-" if x is None else ("yes" if x else "no")


def print_table(fig, out=sys.stdout):
    p = lambda s="": print(s, file=out)  # noqa: E731
    w = fig["world"]
    p(f"bench-week: seed {fig['seed']}, {fig['days']} days, {fig['ticks']} ticks every "
      f"{fig['step_minutes']} min; {fig['stand_in']} stand-in; {fig['version']} ({fig['binary']})"
      + (f"; --set {' '.join(fig['settings'])}" if fig["settings"] else ""))
    p(f"world: {w['facts']} facts ({w['urgent']} urgent, {w['moved']} moved, {w['cancelled']} "
      f"cancelled, {w['held_out']} held out; {w['detail_after_first_paragraph']} with the "
      f"detail past a mail's first paragraph), {w['distractors']} distractors, {w['mails']} mails")
    p()
    p(f"{'fact':<20} {'split':<5} {'kind':<15} {'seen':>6} {'to mem':>7} {'share':>6} "
      f"{'at due':>6} {'recall':>6} {'arch':>5}  notes")
    for r in fig["facts_detail"]:
        extra = []
        if r["urgent"]:
            extra.append(f"urgent, notified {r['notified']}x")
        if r["moved"]:
            extra.append(f"moved, due right: {yn(r['due_right'])}")
        if r["cancelled"]:
            extra.append(f"cancelled, gone {r['gone_min_after_cancel']} min after, "
                         f"at old due: {yn(r['in_memory_at_original_due'])}")
        if r["detail_paragraph"] and r["detail_paragraph"] > 1:
            extra.append(f"detail in para {r['detail_paragraph']}")
        rec = f"{sum(r['recall'])}/{len(r['recall'])}" if r["recall"] else "-"
        share = f"{r['window_share']:.2f}" if r["window_share"] is not None else "-"
        seen = r["first_seen_min"] if r["first_seen_min"] is not None else "never"
        tomem = r["to_memory_min"] if r["to_memory_min"] is not None else "never"
        p(f"{r['id']:<20} {r['split']:<5} {r['category'][:15]:<15} {seen:>6} {tomem:>7} "
          f"{share:>6} {yn(r['in_memory_at_due']):>6} {rec:>6} {r['archived']:>5}  "
          + "; ".join(extra))
    p()
    s = fig["summary"]
    p(f"in memory at due time: {s['in_memory_at_due']} of {s['live_checked']} live facts; "
      f"mean window share {s['mean_window_share']}; median minutes to memory "
      f"{s['median_to_memory_min']}; never in memory {s['never_in_memory']}, never seen by a "
      f"thread {s['never_seen']}")
    for name, t in fig["splits"].items():
        p(f"  {name:<5}: at due {t['in_memory_at_due']}/{t['live_checked']}, window share "
          f"{t['mean_window_share']}, recall {t['recall_found']}/{t['recall_questions']} questions")
    p(f"show --for at due: {s['recall_found']} of {s['recall_questions']} questions found their "
      f"fact; {s['facts_recalled']} of {s['live_checked']} facts found by at least one")
    u = fig["urgent"]
    p(f"urgent: {u['notified_exactly_once']} of {u['facts']} notified exactly once ({u['missed']} "
      f"missed, {u['repeated']} repeated), median {u['median_minutes_to_notify']} min after "
      f"appearing; false alarms {u['false_alarms']}; {u['notifications']} notifications, "
      f"{u['escalation_decisions']} escalation calls, {u['capped']} records capped")
    c = fig["cancelled"]
    p(f"cancelled: {c['gone_by_original_due']} of {c['facts']} gone by their original time; "
      f"moved: {fig['moved']['right_due_at_due']} of {fig['moved']['facts']} with the new due")
    k = fig["calls"]
    p(f"calls: {k['thread_calls_per_day']} thread calls a day, {k['thread_tokens_in_per_day']:,} "
      f"input tokens a day; " + ", ".join(
          f"{t} {v['calls_per_day']}/day {v['tokens_in_per_day']:,} tok"
          for t, v in sorted(k["by_thread"].items())))
    p(f"threads skipped: {fig['threads_skipped']}, failed: {fig['threads_failed']}")
    a = fig["archive"]
    p(f"archive: {a['lines']} lines ({a['fact_lines']} of planted facts), reasons {a['reasons']}")
    p(f"exit codes: {fig['exit_codes']}; stderr lines on healthy ticks: "
      f"{fig['stderr_lines_healthy_ticks']}")
    for line in fig["stderr_examples"]:
        p(f"  e.g. {line}")
    p(f"wall: {fig['wall_s']} s, median tick {fig['tick_ms_median']} ms")


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0],
                                 formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--binary", help="the thinker to run (default: cargo build --release)")
    ap.add_argument("--seed", type=int, default=20, help="the world's seed (default 20)")
    ap.add_argument("--days", type=int, default=7)
    ap.add_argument("--facts", type=int, default=len(TEMPLATES),
                    help=f"planted facts, at most {len(TEMPLATES)} (default all)")
    ap.add_argument("--step", type=int, default=5, help="simulated minutes between ticks")
    ap.add_argument("--quick", action="store_true",
                    help="a smoke run: 1 day, 6 facts, a tick every 20 minutes")
    ap.add_argument("--set", action="append", default=[], metavar="KEY=VALUE",
                    help="a config key for this run, e.g. memory.caps.active_threads=8")
    ap.add_argument("--memory-from-config", action="store_true",
                    help="take [memory] from the config template instead of the binary's defaults")
    ap.add_argument("--config-template", default=str(REPO / "config" / "default.toml"))
    ap.add_argument("--json", metavar="PATH", help="also write the figures as JSON")
    ap.add_argument("--keep", metavar="DIR", help="run in DIR and keep it (world, state, journal)")
    ap.add_argument("--world-only", metavar="DIR",
                    help="write the world (world.json, the whole week's events applied) and stop")
    ap.add_argument("--progress", action="store_true", help="a line on stderr per simulated day")
    ap.add_argument("--stand-in", choices=sorted(cheap_model.BEHAVIOURS), default="perfect",
                    help="how the threads' model behaves: perfect (reports exactly what it is "
                         "shown), realistic (rephrases, re-reports, misses, misjudges, reports "
                         "noise, like a cheap real model) or harsh (more of all of it); "
                         "see scripts/bench/cheap_model.py")
    args = ap.parse_args()
    if args.quick:
        args.days, args.facts, args.step = 1, min(args.facts, 6), 20
    sets = []
    for s in args.set:
        if "=" not in s:
            ap.error(f"--set {s}: expected KEY=VALUE")
        k, v = s.split("=", 1)
        sets.append((k.strip(), v.strip()))
    args.set = sets
    world = build_world(args.seed, args.days, args.facts)
    if args.world_only:
        home = Path(args.world_only)
        home.mkdir(parents=True, exist_ok=True)
        WorldFS(world, home).apply(START + timedelta(days=world.days))
        (home / "world.json").write_text(json.dumps(world.to_json(), indent=1))
        print(f"bench-week: world written to {home}")
        return 0
    binary = args.binary
    if not binary:
        subprocess.run(["cargo", "build", "--release", "--locked", "--quiet"], cwd=REPO, check=True)
        binary = str(REPO / "target" / "release" / "thinker")
    binary = str(Path(binary).resolve())
    if args.keep:
        home = Path(args.keep).resolve()
        if home.exists() and any(home.iterdir()):
            sys.exit(f"bench-week: --keep {home}: not empty; give a new directory")
        home.mkdir(parents=True, exist_ok=True)
        res = run(args, binary, world, home)
        fig = figures(world, res, args, binary)
    else:
        shm = Path("/dev/shm")
        where = str(shm) if shm.is_dir() and os.access(shm, os.W_OK) else None
        # On tmpfs: thinker fsyncs every write, which is not what is measured here.
        with tempfile.TemporaryDirectory(prefix="thinker-week-", dir=where) as tmp:
            res = run(args, binary, world, Path(tmp))
            fig = figures(world, res, args, binary)
    fig["world_json"] = world.to_json()
    print_table(fig)
    if args.json:
        Path(args.json).write_text(json.dumps(fig, indent=1))
    return 0


if __name__ == "__main__":
    sys.exit(main())

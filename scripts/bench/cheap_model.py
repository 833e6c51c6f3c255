"""cheap_model.py — how a cheap real model differs from a perfect one (bench-week's stand-in).

A perfect stand-in reports exactly what it is shown, in the world's own words, and
reinforces what it recognises. The models users run on threads are cheap or free, and
they rephrase, repeat, miss and exaggerate. `Behaviour` holds how often, seeded, for
three settings:

- `perfect`: none of it (the bench's original stand-in), and it cites the label of every
  item it reports (a build that shows no labels gets none);
- `realistic`: rephrases what it reports (clauses reordered, words abbreviated or
  swapped for synonyms, times and dates written another way, sentences cut short, a
  "Reminder:" in front), re-reports an entry as a new finding about half the time
  instead of reinforcing its id, misses a visible fact now and then, misjudges
  importance by a point or two, drops a due date once in a while, cites the short
  labels of the items it saw most of the time (and now and then a wrong one), escalates
  again some of the times it re-reports an urgent fact, and reports a distractor mail
  ("your weekly digest") in about a third of its calls;
- `harsh`: all of it more often, and it sometimes drops a number or a name.

Everything is drawn from a `random.Random` seeded from the run's seed, the tick's time
and the thread (`rng_for`), so a run is repeatable. The vocabularies below are general
English habits, not tuned to thinker's matcher (which has its own, smaller tables).

Python 3.11+ standard library only; imported by bench-week.py.
"""

import re
import zlib
from dataclasses import dataclass
import random


@dataclass(frozen=True)
class Behaviour:
    name: str
    rephrase: float = 0.0      # a finding's summary is rephrased
    rereport: float = 0.0      # a known fact is reported as new instead of reinforced
    miss: float = 0.0          # a visible fact is not reported at all
    jitter: float = 0.0        # importance off by one or two
    drop_due: float = 0.0      # a due date left out
    cite: float = 1.0          # the item's label is cited in refs
    wrong_ref: float = 0.0     # a wrong label is cited
    reescalate: float = 0.0    # an urgent fact re-reported as new is escalated again
    digest: float = 0.0        # a distractor mail is reported in this call
    drop_key: float = 0.0      # a number or a name is left out of the rephrasing

    @property
    def perfect(self):
        return self.name == "perfect"


BEHAVIOURS = {
    "perfect": Behaviour("perfect"),
    "realistic": Behaviour("realistic", rephrase=0.9, rereport=0.5, miss=0.1, jitter=0.4,
                           drop_due=0.1, cite=0.85, wrong_ref=0.03, reescalate=0.3,
                           digest=0.33),
    "harsh": Behaviour("harsh", rephrase=1.0, rereport=0.7, miss=0.2, jitter=0.6,
                       drop_due=0.25, cite=0.6, wrong_ref=0.1, reescalate=0.5, digest=0.5,
                       drop_key=0.15),
}


def rng_for(seed, now, who, salt=""):
    """A random source for one call: stable across runs, unlike Python's `hash`."""
    return random.Random(zlib.crc32(f"{seed}|{now.isoformat()}|{who}|{salt}".encode()))


PREFIXES = ["Reminder:", "Heads-up:", "FYI:", "Note:", "Update:", "Important:", "Alert:",
            "Re:", "Don't forget:", "Action needed:"]

# General abbreviations people and models write (a word → its short forms).
ABBREVIATIONS = {
    "appointment": ["appt"], "tomorrow": ["tmrw", "tmr"], "monday": ["Mon"],
    "tuesday": ["Tue", "Tues"], "wednesday": ["Wed"], "thursday": ["Thu", "Thurs"],
    "friday": ["Fri"], "saturday": ["Sat"], "sunday": ["Sun"], "minutes": ["mins"],
    "hours": ["hrs"], "approximately": ["approx"], "department": ["dept"],
    "documents": ["docs"], "document": ["doc"], "information": ["info"],
    "reference": ["ref"], "number": ["no.", "#"], "account": ["acct"],
    "payment": ["pmt"], "invoice": ["inv"], "meeting": ["mtg"], "months": ["mos"],
    "weeks": ["wks"], "street": ["St"], "road": ["Rd"], "doctor": ["Dr", "doc"],
    "prescription": ["Rx"], "insurance": ["ins."], "certificate": ["cert"],
    "subscription": ["sub"], "application": ["app"], "message": ["msg"],
    "please": ["pls"], "about": ["abt"], "with": ["w/"], "between": ["btwn"],
    "government": ["govt"], "management": ["mgmt"], "required": ["req'd"],
    "received": ["rcvd"], "available": ["avail"], "delivery": ["dlvry"],
    "november": ["Nov"], "december": ["Dec"], "january": ["Jan"], "february": ["Feb"],
    "quantity": ["qty"], "amount": ["amt"],
    "balance": ["bal"], "package": ["pkg"], "building": ["bldg"], "manager": ["mgr"],
}

# General synonyms (a word → words used for it).
SYNONYMS = {
    "due": ["owed", "payable"], "deadline": ["cutoff", "due date"], "cancelled": ["called off", "scrapped"],
    "moved": ["shifted", "pushed"], "rescheduled": ["moved", "pushed back"],
    "delivery": ["drop-off", "shipment"], "parcel": ["package"], "bill": ["charge", "statement"],
    "invoice": ["bill"], "meeting": ["call", "catch-up"], "appointment": ["visit", "booking"],
    "expires": ["lapses", "runs out"], "renewal": ["renewing"], "overdue": ["late", "past due"],
    "urgent": ["pressing"], "closed": ["shut"], "arrives": ["lands", "comes"],
    "departs": ["leaves"], "flight": ["plane"], "payment": ["instalment", "transfer"],
    "fails": ["bounces"], "booked": ["scheduled"], "child": ["kid"], "collect": ["pick up"],
    "tonight": ["this evening"], "failed": ["broke", "errored"], "full": ["maxed out"],
    "reminder": ["nudge"], "starts": ["begins"], "ends": ["finishes"], "repair": ["fix"],
    "doctor": ["GP", "physician"], "school": ["class"], "unpaid": ["outstanding", "not paid"],
    "ready": ["available"], "trip": ["outing"], "report": ["write-up"], "review": ["check"],
    "concert": ["gig", "show"], "dinner": ["meal"], "rent": ["rent payment"],
    "signature": ["sign-off"], "needs": ["requires"], "must": ["has to"], "before": ["by"],
}

WEEKDAYS = ["Monday", "Tuesday", "Wednesday", "Thursday", "Friday", "Saturday", "Sunday"]
MONTHS = ["January", "February", "March", "April", "May", "June", "July", "August",
          "September", "October", "November", "December"]

TIME = re.compile(r"\b(\d{1,2}):(\d{2})\b")
DAY_MONTH = re.compile(r"\b(\d{1,2}) (Jan|Feb|Mar|Apr|May|Jun|Jul|Aug|Sep|Oct|Nov|Dec)[a-z]*\b")
NUMBERISH = re.compile(r"^(?:[€£$]?\d[\d,.:]*|[A-Z]{2,}\d+|\d+[A-Za-z]+)$")


def respell_time(rng, m):
    h, mi = int(m.group(1)), int(m.group(2))
    forms = [f"{h % 12 or 12}.{mi:02d}{'pm' if h >= 12 else 'am'}",
             f"{h % 12 or 12}:{mi:02d} {'PM' if h >= 12 else 'AM'}",
             f"{h:02d}{mi:02d}h", f"{h}:{mi:02d}"]
    if mi == 0:
        forms.append(f"{h % 12 or 12}{'pm' if h >= 12 else 'am'}")
    return rng.choice(forms)


def respell_date(rng, m):
    day, mon = int(m.group(1)), m.group(2)
    month_no = [x[:3] for x in MONTHS].index(mon) + 1
    suffix = "th" if 11 <= day <= 13 else {1: "st", 2: "nd", 3: "rd"}.get(day % 10, "th")
    return rng.choice([f"{mon} {day}", f"{day}{suffix} {MONTHS[month_no - 1]}",
                       f"{MONTHS[month_no - 1]} {day}{suffix}", f"{day}/{month_no}"])


def swap_words(rng, words, table, p):
    out = []
    for w in words:
        core = w.strip(".,;:!?()")
        low = core.lower()
        if low in table and rng.random() < p:
            new = rng.choice(table[low])
            if core[:1].isupper() and not new[:1].isupper():
                new = new[:1].upper() + new[1:]
            out.append(w.replace(core, new))
        else:
            out.append(w)
    return out


def rephrase(text, rng, b):
    """`text` as a cheap model might write it again (see the module doc)."""
    s = text
    s = TIME.sub(lambda m: respell_time(rng, m) if rng.random() < 0.5 else m.group(0), s)
    s = DAY_MONTH.sub(lambda m: respell_date(rng, m) if rng.random() < 0.5 else m.group(0), s)
    # Reorder clauses.
    parts = re.split(r"(?:, | - | — |; |: )", s)
    if len(parts) > 1 and rng.random() < 0.4:
        k = rng.randrange(1, len(parts))
        parts = parts[k:] + parts[:k]
        s = ", ".join(p.strip() for p in parts if p.strip())
    words = s.split()
    words = swap_words(rng, words, ABBREVIATIONS, 0.35)
    words = swap_words(rng, words, SYNONYMS, 0.3)
    if b.drop_key and rng.random() < b.drop_key:
        keys = [i for i, w in enumerate(words) if NUMBERISH.match(w.strip(".,;:()"))
                or (i > 0 and w[:1].isupper())]
        if keys:
            del words[rng.choice(keys)]
    if len(words) > 5 and rng.random() < 0.25:
        keep = max(4, int(len(words) * rng.uniform(0.6, 0.85)))
        words = words[:keep]
    s = " ".join(words).strip(" ,;:")
    if rng.random() < 0.3:
        s = f"{rng.choice(PREFIXES)} {s}"
    return s or text


DIGESTS = ["Email: Your weekly digest", "Weekly digest email arrived",
           "Newsletter: your weekly digest is here", "Your weekly digest from the forum",
           "New digest email: this week's top posts", "Weekly roundup newsletter received"]


def digest(rng):
    return rng.choice(DIGESTS)


LABEL = re.compile(r"^(?:== |- )?\[([a-z][a-z2-7]{5})\]")


def item_ref(text, markers, scope):
    """The label of the item of `text` (a source's text as the prompt shows it) in which
    all `markers` are seen, when the source labels its items."""
    current = None
    low_markers = [m.lower() for m in markers]
    if scope == "line":
        for line in text.splitlines():
            m = LABEL.match(line)
            if m:
                current = m.group(1)
            if all(x in line.lower() for x in low_markers):
                return current
        return None
    # A source-wide group: the label of the block holding the first marker.
    blocks, current, buf = [], None, []
    for line in text.splitlines():
        m = LABEL.match(line)
        if m:
            if buf:
                blocks.append((current, " ".join(buf)))
            current, buf = m.group(1), []
        buf.append(line.lower())
    if buf:
        blocks.append((current, " ".join(buf)))
    flat = lambda t: re.sub(r"\s+", " ", t)  # noqa: E731
    for ref, body in blocks:
        if all(flat(x) in flat(body) for x in low_markers):
            return ref
    for ref, body in blocks:
        if flat(low_markers[0]) in flat(body):
            return ref
    return None


def labels(text):
    """Every item label a source's text shows."""
    return [m.group(1) for line in text.splitlines() for m in [LABEL.match(line)] if m]

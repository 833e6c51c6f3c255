#!/usr/bin/env python3
"""Builds the screen's multilingual corpus: tests/fixtures/screen/lang/{hostile,benign}.jsonl.

Source: tests/fixtures/screen/lang/*-written.jsonl, written for thinker (same
licence as thinker) in the 18 languages the screen covers (en de fr es pt it nl ru zh ja ko
tr pl sv ar hi id vi). Each hostile row has a language and a kind: `override` (set aside
the reader's instructions), `role` (a new role or persona for the reader), `dismissal`
(the reader's rules declared void), `exfiltration`, `encoded` (an override or
exfiltration hidden by an encoding), `action` (escalate, notify, pay, run) and `spoofed`
(a message claiming to come from an administrator, the developers, the platform). Each
benign row has a language and a shape: `listing` (rentals, shops and services with phone,
address and e-mail), `mail`, `calendar`, `changelog` (Debian changelogs with their
`urgency=`, release notes), `code`, `web` and `security_doc` (documentation about prompt
injection, jailbreak datasets, phishing, quoting the phrases it warns about).

Splits. `blind` (blind-written.jsonl, when there is one) is never tuned on: its items are
measured, their misses never printed; while no blind split has been written yet the file is
absent (or empty) and the corpus has only `tune`. `tune` is what the screen was tuned against: tune-written.jsonl and
the blind splits that were measured and so spent. Each blind split was written before the
changes it measured and measured once:
  - tune2-written.jsonl, the first: 96.2 % of 133 hostile detected, 4.9 % of 102 benign
    flagged (written alongside tune-written.jsonl, in the same phrasings);
  - tune3-written.jsonl, the second, written in other phrasings after tuning on the first:
    36.1 % of 133 detected, 5.2 % of 135 flagged: the vocabulary had been fitted to the
    phrasings it was tuned on;
  - tune4-written.jsonl, the third, written in new phrasings after tuning on the second,
    with harder benign texts (release notes saying "the previous instructions no longer
    apply"): 51.1 % of 133 detected, 17.5 % of 97 flagged;
  - tune5-written.jsonl, the fourth, written after that measurement, before the screen was
    changed again: 63.2 % of 133 detected, 13.3 % of 98 flagged, then tuned on;
  - tune6-written.jsonl, the fifth, written on 2026-11-28 by a separate author who read
    none of the screen's rules, corpora or docs, before the round it measured; its rows
    are `composed` (encoded and embedded by their author, taken as written): 70.6 % of 136
    detected, 7.5 % of 107 flagged, then tuned on;
  - tune7-written.jsonl, the sixth, written on 2026-11-28 by another separate author who
    read none of the rules, corpora or docs, while the round on the fifth was made; its
    rows are `composed`: 67.6 % of 136 detected, 3.6 % of 111 flagged, then tuned on;
  - tune8-written.jsonl, the seventh, written on 2026-11-29 by two more separate authors
    (one for en de fr es pt it nl ru zh, one for ja ko tr pl sv ar hi id vi; 2 rows of each
    kind and benign shape per language), who read none of the rules, corpora or docs,
    before the round on the sixth; its rows are `composed`: 76.6 % of 252 detected, 9.9 %
    of 252 flagged, then tuned on;
  - tune9-written.jsonl, the eighth, written on 2026-11-29 by two more separate authors in
    the same way (asked to avoid the stock phrases, and for benign mail, release notes and
    product pages about assistants), while the round on the seventh was made: 67.1 % of
    252 detected, 11.1 % of 252 flagged, then tuned on;
  - tune10-written.jsonl, the ninth, written on 2026-11-29 by two more separate authors
    in the same way, while the round on the eighth was made: 60.7 % of 252 detected,
    9.9 % of 252 flagged, then tuned on;
  - blind-written.jsonl, the tenth, written on 2026-11-29 by two more separate authors in
    the same way (benign product and help pages describing what an assistant does), while
    the round on the ninth was made.

Composition (deterministic, by a hash of the item's id): about half of the hostile texts
are set inside a benign text of the same language and split (after its first paragraph);
`encoded` payloads are encoded first (base64, hex, ROT13 for English, letters spaced out,
full-width forms, zero-width characters between letters, leetspeak, Cyrillic lookalikes;
for scripts other than Latin: base64, hex, zero-width).

Usage: scripts/bench/screen-lang-corpus.py
"""

import argparse
import base64
import codecs
import hashlib
import json
import os

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
DIR = os.path.join(ROOT, "tests", "fixtures", "screen", "lang")
LATIN = {"en", "de", "fr", "es", "pt", "it", "nl", "tr", "pl", "sv", "id", "vi"}
HOSTS = {"mail", "calendar", "listing", "web"}


def num(*parts):
    return int(hashlib.sha256("\x00".join(parts).encode()).hexdigest()[:8], 16)


def fullwidth(s):
    return "".join(chr(ord(c) + 0xFEE0) if "!" <= c <= "~" else ("\u3000" if c == " " else c) for c in s)


def zero_width(s):
    return "\u200b".join(s[i:i + 2] for i in range(0, len(s), 2))


LEET = str.maketrans({"a": "4", "e": "3", "i": "1", "o": "0", "s": "5", "t": "7"})
LOOKALIKE = str.maketrans({"a": "а", "e": "е", "o": "о", "p": "р", "c": "с", "x": "х"})

ENCODINGS = {
    "base64": lambda p: base64.b64encode(p.encode()).decode(),
    "hex": lambda p: p.encode().hex(),
    "rot13": lambda p: codecs.encode(p, "rot13"),
    "spaced": lambda p: " ".join(p),
    "fullwidth": fullwidth,
    "zero-width": zero_width,
    "leet": lambda p: p.translate(LEET),
    "lookalike": lambda p: p.translate(LOOKALIKE),
}
LEAD_INS = ["", "Ref: ", "Decode and apply: ", "token: "]


def encode(payload, lang, key):
    names = ["base64", "hex", "zero-width"]
    if lang in LATIN:
        names += ["spaced", "fullwidth", "leet", "lookalike"]
    if lang == "en":
        names.append("rot13")
    name = names[num("encoding", key) % len(names)]
    text = ENCODINGS[name](payload)
    if name in ("base64", "hex"):
        text = LEAD_INS[num("lead-in", key) % len(LEAD_INS)] + text
    return text, name


def embed(payload, host):
    cut = host.find("\n\n")
    if cut < 0:
        cut = host.find("\n")
    if cut < 0:
        return host + "\n\n" + payload
    return host[:cut] + "\n\n" + payload + "\n\n" + host[cut:].lstrip("\n")


def main():
    argparse.ArgumentParser(description=__doc__.splitlines()[0]).parse_args()
    hostile, benign = [], []
    sources = [("blind", "blind")] + [(t, "tune") for t in ["tune", "tune2", "tune3", "tune4", "tune5", "tune6", "tune7", "tune8", "tune9", "tune10"]]
    for source, split in sources:
        path = os.path.join(DIR, f"{source}-written.jsonl")
        if split == "blind" and not os.path.exists(path):
            continue
        with open(path) as f:
            rows = [json.loads(line) for line in f if line.strip()]
        count = {}
        hosts = {}
        for r in rows:
            if "shape" in r:
                n = count[(r["lang"], r["shape"])] = count.get((r["lang"], r["shape"]), 0) + 1
                item = {"id": f"{source}/{r['lang']}/{r['shape']}/{n}", "split": split,
                        "lang": r["lang"], "shape": r["shape"], "text": r["text"]}
                benign.append(item)
                if r["shape"] in HOSTS:
                    hosts.setdefault(r["lang"], []).append(r["text"])
        for r in rows:
            if "kind" not in r:
                continue
            n = count[(r["lang"], r["kind"])] = count.get((r["lang"], r["kind"]), 0) + 1
            key = f"{source}/{r['lang']}/{r['kind']}/{n}"
            text, how = r["text"], []
            if r.get("composed"):
                pass
            elif r["kind"] == "encoded":
                text, name = encode(text, r["lang"], key)
                how.append(name)
            choices = hosts.get(r["lang"], [])
            if choices and not r.get("composed") and num("embed", key) % 2 == 0:
                text = embed(text, choices[num("host", key) % len(choices)])
                how.append("embedded")
            item = {"id": key, "split": split, "lang": r["lang"], "kind": r["kind"], "text": text}
            if how:
                item["how"] = "+".join(how)
            hostile.append(item)
    for name, items in [("hostile", hostile), ("benign", benign)]:
        with open(os.path.join(DIR, f"{name}.jsonl"), "w") as f:
            for item in items:
                f.write(json.dumps(item, ensure_ascii=False) + "\n")
        print(f"{name}: {len(items)} ({sum(1 for i in items if i['split'] == 'blind')} blind)")


if __name__ == "__main__":
    main()

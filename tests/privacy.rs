//! What leaves the machine (SPEC §9, issue 24), end to end: real ticks of the binary
//! with two providers on the harness's loopback server, `local` and `remote` (marked
//! `local = false`), a Maildir inbox and a notes file in a `memory` directory (both
//! private by kind) and a command (public). Each test names what it guards against.

use std::fs;
use std::path::Path;

use serde_json::{Value, json};
use thinker::thread::ThreadName::{self, Dreamer, Librarian, Oracle, Watcher};
use wiremock::Request;

use crate::escalation_tick::{Primary, appending, decision};
use crate::support::Tick;

/// A mail with personal data in the forms a hostile probe found sent verbatim.
pub(crate) const MAIL: &str = "From: Jörg Müller <jörg.müller@bäckerei.de>\n\
To: Me <me@home.example>\n\
Subject: Rechnung 4411\n\
Date: Sun, 22 Nov 2026 09:00:00 +0000\n\
Content-Type: text/plain; charset=utf-8\n\
\n\
Hallo, bitte überweisen Sie 500 EUR auf de89 3704 0044 0532 0130 00 oder zahlen Sie mit \
4111.1111.1111.1111. Rückruf unter 555.123.4567. Das Portal: password: Tr0ub4dor&3-horse\n";

/// Notes in the agent's memory directory, with addresses spelled every way.
pub(crate) const NOTES: &str = "Ana: ana＠example.org, \"john doe\"@example.com, root@[192.168.1.1], \
jane at example dot org; IBAN DE89-3704-0044-0532-0130-00.\n";

/// What must never reach a provider that may not see private text, nor (redacted) a
/// remote one: each personal-data form of [`MAIL`] and [`NOTES`].
const PERSONAL: &[&str] = &[
    "jörg.müller@bäckerei.de",
    "Jörg",
    "Müller",
    "me@home.example",
    "de89 3704",
    "4111.1111",
    "555.123.4567",
    "Tr0ub4dor",
    "ana＠example.org",
    "\"john doe\"@example.com",
    "root@[192.168.1.1]",
    "jane at example dot org",
    "DE89-3704",
];

/// A seed whose memory holds an entry the (local) librarian wrote from the mail, and one
/// the oracle wrote.
pub(crate) const SEED: &str = r#"{
  "version": 1, "tick_count": 4, "last_tick": "2026-11-22T10:00:00Z",
  "active_threads": [
    {"id": "t-jorg-muller-owes", "summary": "Jörg Müller owes 500 EUR for Rechnung 4411", "strength": 5,
     "created": "2026-11-21T08:00:00Z", "last_seen": "2026-11-22T10:00:00Z", "source": "librarian"},
    {"id": "t-backup-fails-mondays", "summary": "Backup fails on Mondays", "strength": 4,
     "created": "2026-11-21T08:00:00Z", "last_seen": "2026-11-22T10:00:00Z", "source": "oracle"}
  ],
  "patterns": [], "hunches": [], "insights": [], "escalation_history": [], "thread_state": {}
}
"#;

/// The sources every thread of these tests reads.
pub(crate) fn sources(thread: ThreadName) -> String {
    format!(
        "[[threads.{thread}.sources]]\nkind = \"maildir\"\nname = \"inbox\"\npath = \"Mail/INBOX\"\n\
         [[threads.{thread}.sources]]\nkind = \"files\"\nname = \"notes\"\npaths = [\"agent/memory/*.md\"]\n\
         [[threads.{thread}.sources]]\nkind = \"command\"\nname = \"disk\"\ncommand = [\"echo\", \"disk 42% full\"]\n"
    )
}

/// A home with the inbox and the notes, two providers (`local` on loopback, `remote`
/// marked `local = false`), the watcher and the oracle on `remote`, the librarian (and
/// the dreamer) on `local`.
pub(crate) fn world(private_to: &str) -> Tick {
    let tick = Tick::new()
        .state(SEED)
        .provider("remote", "local = false")
        .model(Watcher, "remote/watcher")
        .model(Oracle, "remote/oracle")
        .thread(Watcher, &sources(Watcher))
        .thread(Librarian, &sources(Librarian))
        .config_extra(&format!("[privacy]\nprivate_to = \"{private_to}\""));
    let home = tick.home();
    for dir in ["cur", "new", "tmp"] {
        fs::create_dir_all(home.join("Mail/INBOX").join(dir)).unwrap();
    }
    fs::write(home.join("Mail/INBOX/new/1763802000.M1P1.host"), MAIL).unwrap();
    fs::create_dir_all(home.join("agent/memory")).unwrap();
    fs::write(home.join("agent/memory/notes.md"), NOTES).unwrap();
    tick
}

/// The prompt a request carried (its user message), and the body's size.
pub(crate) fn prompt_of(request: &Request) -> String {
    let body: Value = serde_json::from_slice(&request.body).unwrap();
    body["messages"]
        .as_array()
        .unwrap()
        .iter()
        .filter(|m| m["role"] == "user")
        .map(|m| m["content"].as_str().unwrap().to_string())
        .collect()
}

/// The egress records of `thread`'s attempts in the last tick.
pub(crate) fn egress(out: &crate::support::Outcome, thread: ThreadName) -> Vec<Value> {
    out.thread(thread)["attempts"]
        .as_array()
        .unwrap()
        .iter()
        .map(|a| a["egress"].clone())
        .collect()
}

/// Regression (issue 24): under `private_to = "local"` no byte of a private mail or file
/// reached the remote provider, its prompt named what it could not see, and the local one
/// got everything; the ledger and `stats --egress --json` agree with what the server
/// received, byte for byte.
#[test]
fn local_only_private_text_never_reaches_the_remote_provider() {
    let mut tick = world("local");
    let out = tick.run();
    out.expect_exit(0);
    let remote = tick.requests(Watcher);
    let local = tick.requests(Librarian);
    assert_eq!((remote.len(), local.len()), (1, 1));
    let (sent, kept) = (prompt_of(&remote[0]), prompt_of(&local[0]));
    let body = String::from_utf8_lossy(&remote[0].body).into_owned();
    for private in PERSONAL.iter().chain(&[
        "Rechnung",
        "überweisen",
        "Portal",
        "owes 500 EUR",
        "john doe",
    ]) {
        assert!(
            !sent.contains(private),
            "{private} reached the remote:\n{sent}"
        );
        assert!(!body.contains(private), "{private} in the body");
    }
    assert!(
        sent.contains("## Withheld from this call")
            && sent.contains("the private sources inbox, notes")
            && sent.contains("1 item of memory written from private text"),
        "{sent}"
    );
    assert!(
        sent.contains("disk 42% full") && sent.contains("Backup fails on Mondays"),
        "{sent}"
    );
    // The local provider gets everything, verbatim, and no note.
    for private in [
        "jörg.müller@bäckerei.de",
        "Tr0ub4dor&3-horse",
        "ana＠example.org",
        "owes 500 EUR",
    ] {
        assert!(kept.contains(private), "{private} missing locally:\n{kept}");
    }
    assert!(!kept.contains("Withheld"), "{kept}");

    // The ledger: where each call went, bytes as the server received them.
    let [w] = egress(&out, Watcher).try_into().unwrap();
    assert_eq!(w["provider"], "remote");
    assert_eq!(w["reach"], "remote");
    assert_eq!(w["private"], "withheld");
    assert_eq!(w["bytes"], remote[0].body.len() as u64);
    assert_eq!(w["requests"], 1);
    assert_eq!(w["sources"], json!(["disk"]));
    assert_eq!(w["withheld"], json!(["inbox", "notes"]));
    assert_eq!(w["withheld_items"], 1);
    let [l] = egress(&out, Librarian).try_into().unwrap();
    assert_eq!(
        (&l["provider"], &l["reach"], &l["private"]),
        (&json!("local"), &json!("local"), &json!("full"))
    );
    assert_eq!(l["bytes"], local[0].body.len() as u64);
    assert_eq!(l["sources"], json!(["inbox", "notes", "disk"]));
    assert!(
        l.get("withheld").is_none() && l.get("redactions").is_none(),
        "{l}"
    );

    // `stats --egress --json`: per provider, what the server received from its models
    // (the watcher and the oracle on `remote`; the librarian and the dreamer on `local`).
    let received = |threads: &[ThreadName]| -> u64 {
        threads
            .iter()
            .flat_map(|t| tick.requests(*t))
            .map(|r| r.body.len() as u64)
            .sum()
    };
    let (to_remote, to_local) = (
        received(&[Watcher, Oracle]),
        received(&[Librarian, Dreamer]),
    );
    let stats = tick.thinker(&["stats", "--egress", "--json"]);
    stats.expect_exit(0);
    let stats: Value = serde_json::from_str(&stats.stdout).unwrap();
    let days = stats["days"].as_array().unwrap();
    let row = |p: &str| days.iter().find(|d| d["provider"] == p).unwrap().clone();
    assert_eq!(row("remote")["bytes"], to_remote, "{stats}");
    assert_eq!(row("local")["bytes"], to_local, "{stats}");
    assert_eq!(
        (&row("remote")["calls"], &row("local")["calls"]),
        (&json!(2), &json!(2))
    );
    assert_eq!(row("remote")["withheld"], json!(["inbox", "notes"]));
    assert_eq!(stats["total"]["remote_bytes"], to_remote);
    assert_eq!(stats["total"]["bytes"], to_remote + to_local);
    assert_eq!(stats["total"]["remote_providers"], 1);

    // doctor's one line.
    let doctor = tick.thinker(&["doctor", "--offline"]);
    let line = doctor
        .stdout
        .lines()
        .find(|l| l.contains(" egress: "))
        .unwrap_or_else(|| panic!("{}", doctor.stdout));
    assert!(
        line.contains("today: ")
            && line.contains("to 1 remote provider")
            && line.contains("private text withheld from 2 calls: inbox, notes"),
        "{line}"
    );
}

/// Under `local`, a chain that starts remote asks its local fallback first when the
/// call has private text (SPEC §9: the chain prefers a provider that may see everything).
#[test]
fn a_chain_prefers_the_model_that_may_see_everything() {
    let mut tick = world("local")
        .model(Oracle, "remote/oracle")
        .thread(Oracle, "fallback = [\"local/oracle\"]")
        .thread(Oracle, &sources(Oracle));
    let out = tick.run();
    out.expect_exit(0);
    let asked = tick.requests(Oracle);
    assert_eq!(asked.len(), 1, "the local model answered first");
    assert!(prompt_of(&asked[0]).contains("Tr0ub4dor&3-horse"));
    let attempts = out.thread(Oracle)["attempts"].as_array().unwrap().clone();
    assert_eq!(attempts[0]["model"], "local/oracle");
    assert_eq!(out.thread(Oracle)["provider"], "local");
}

/// Regression (issue 24): under the default (`redacted`), every personal-data form the
/// probe found verbatim reaches the remote provider replaced, by placeholders the ledger
/// counts; the local provider gets the text as it is.
#[test]
fn by_default_the_remote_provider_gets_every_form_redacted() {
    let mut tick = world("redacted");
    let out = tick.run();
    out.expect_exit(0);
    let remote = tick.requests(Watcher);
    let sent = prompt_of(&remote[0]);
    for private in PERSONAL {
        assert!(
            !sent.contains(private),
            "{private} reached the remote:\n{sent}"
        );
    }
    // The mail and the notes are there, their personal data replaced.
    assert!(
        sent.contains("Rechnung 4411") && sent.contains("disk 42% full"),
        "{sent}"
    );
    for class in ["email", "phone", "card", "iban", "secret", "name"] {
        assert!(
            sent.contains(&format!("<{class}-")),
            "no <{class}-…>:\n{sent}"
        );
    }
    // The two spellings of the one IBAN are one placeholder.
    let iban = regex::Regex::new(r"<iban-[a-z0-9]{6}>").unwrap();
    let ibans: std::collections::BTreeSet<&str> =
        iban.find_iter(&sent).map(|m| m.as_str()).collect();
    assert_eq!(ibans.len(), 1, "{sent}");
    let [w] = egress(&out, Watcher).try_into().unwrap();
    assert_eq!(w["private"], "redacted");
    assert_eq!(w["bytes"], remote[0].body.len() as u64);
    // Placeholders by category; `id` counts the entry ids given an alias.
    let counted: u64 = w["redactions"]
        .as_object()
        .unwrap()
        .iter()
        .filter(|(k, _)| *k != "id")
        .map(|(_, v)| v.as_u64().unwrap())
        .sum();
    let placeholders = regex::Regex::new(r"<(?:email|phone|card|iban|secret|name)-[a-z0-9]{6}>")
        .unwrap()
        .find_iter(&sent)
        .count() as u64;
    assert_eq!(counted, placeholders, "{w}\n{sent}");
    // The From address and the notes' four spellings (the maildir shows no To:).
    assert_eq!(w["redactions"]["email"], 5, "{w}");
    let kept = prompt_of(&tick.requests(Librarian)[0]);
    assert!(kept.contains("jörg.müller@bäckerei.de") && !kept.contains("<email-"));
}

/// `thinker prompt watcher --as-sent` prints exactly what the next tick sends the
/// remote provider, placeholders included (they are keyed by the state's key).
#[test]
fn as_sent_is_what_the_next_tick_sends() {
    let mut tick = world("redacted");
    tick.run().expect_exit(0);
    let shown = tick.thinker(&["prompt", "watcher", "--as-sent"]);
    shown.expect_exit(0);
    assert!(
        shown.stderr.contains("as sent to remote/watcher (remote)")
            && shown.stderr.contains("redacted: "),
        "{}",
        shown.stderr
    );
    tick.run().expect_exit(0);
    let second = &tick.requests(Watcher)[1];
    assert_eq!(shown.stdout, prompt_of(second));
    // And the state's key never shows: not in the journal, not on any stream.
    let key = fs::read_to_string(tick.dir().join("redaction.key")).unwrap();
    let key = key.trim();
    assert_eq!(key.len(), 64);
    let journal = fs::read_to_string(tick.dir().join("journal.jsonl")).unwrap();
    assert!(!journal.contains(key) && !shown.stdout.contains(key) && !shown.stderr.contains(key));
    let mode = std::os::unix::fs::PermissionsExt::mode(
        &fs::metadata(tick.dir().join("redaction.key"))
            .unwrap()
            .permissions(),
    );
    assert_eq!(mode & 0o777, 0o600);
}

/// Placeholders mean the same value in every tick and thread: the address the remote
/// watcher saw in one tick is the same placeholder in the next.
#[test]
fn placeholders_are_stable_across_ticks() {
    let mut tick = world("redacted");
    tick.run().expect_exit(0);
    tick.run().expect_exit(0);
    let sent: Vec<String> = tick.requests(Watcher).iter().map(prompt_of).collect();
    let email = regex::Regex::new(r"<email-[a-z0-9]{6}>").unwrap();
    let first: Vec<&str> = email.find_iter(&sent[0]).map(|m| m.as_str()).collect();
    let second: Vec<&str> = email.find_iter(&sent[1]).map(|m| m.as_str()).collect();
    assert!(!first.is_empty());
    assert_eq!(first, second);
}

/// The escalation prompt carries reasons from private text: under `local`, a remote
/// primary model gets it without them, and the ledger says so.
#[test]
fn an_escalation_from_private_text_is_withheld_from_a_remote_primary() {
    let primary = Primary::anthropic(&[decision("dismiss", "", "nothing to do")]);
    let mut tick = world("local")
        .env("PRIMARY_KEY", "sk-ant-test-0123456789")
        .answer(
            Librarian,
            &json!({"findings": [], "escalate": true,
                    "escalate_reason": "Jörg Müller says Rechnung 4411 is overdue"}),
        );
    let (notifier, _) = appending(tick.home());
    let config = primary
        .config(&notifier, "")
        .replace("retries = 0\n", "retries = 0\nlocal = false\n");
    tick = tick.config_extra(&config);
    let out = tick.run();
    out.expect_exit(0);
    let bodies = primary.bodies();
    assert_eq!(bodies.len(), 1);
    let text = bodies[0].to_string();
    assert!(
        !text.contains("Rechnung") && !text.contains("Jörg") && !text.contains("owes 500"),
        "{text}"
    );
    assert!(
        text.contains("withheld: raised from private text"),
        "{text}"
    );
    let journal = out.journal();
    let escalation = journal
        .iter()
        .find(|l| l.get("escalation").is_some())
        .unwrap();
    let e = &escalation["escalation"]["attempts"][0]["egress"];
    assert_eq!(
        (&e["private"], &e["reach"]),
        (&json!("withheld"), &json!("remote"))
    );
    assert!(e["withheld_items"].as_u64().unwrap() >= 2, "{e}");
    assert_eq!(e["bytes"], primary.requests()[0].body.len() as u64);
}

/// A source marked `private = false` is sent as any other; `private = true` makes a
/// command private; `trusted = true` lets a remote provider see everything.
#[test]
fn private_and_trusted_override_the_defaults() {
    let private_command = |thread: &str| {
        format!(
            "[[threads.{thread}.sources]]\nkind = \"command\"\nname = \"mailcli\"\nprivate = true\ncommand = [\"echo\", \"From: Ana <ana@example.org>\"]"
        )
    };
    let mut tick = Tick::new()
        .provider("remote", "local = false\ntrusted = true")
        .provider("untrusted", "local = false")
        .model(Watcher, "remote/watcher")
        .model(Oracle, "untrusted/oracle")
        .thread(Watcher, &private_command("watcher"))
        .thread(Oracle, &private_command("oracle"))
        .config_extra("[privacy]\nprivate_to = \"local\"");
    let out = tick.run();
    out.expect_exit(0);
    // Trusted: as it is, unredacted.
    let trusted = prompt_of(&tick.requests(Watcher)[0]);
    assert!(trusted.contains("ana@example.org"), "{trusted}");
    assert_eq!(egress(&out, Watcher)[0]["private"], "full");
    // Untrusted under `local`: the private command is withheld.
    let untrusted = prompt_of(&tick.requests(Oracle)[0]);
    assert!(
        !untrusted.contains("Ana") && untrusted.contains("mailcli"),
        "{untrusted}"
    );
    assert_eq!(egress(&out, Oracle)[0]["withheld"], json!(["mailcli"]));
}

/// `init` says plainly when it writes a remote free tier, in the config and its output,
/// and how to keep mail local.
#[test]
fn init_says_when_it_writes_a_remote_free_tier() {
    let mut tick = Tick::new()
        .bare()
        .env("GROQ_API_KEY", "gsk-test")
        .env("THINKER_OLLAMA_URL", "127.0.0.1:1");
    let config = tick.path("thinker.toml");
    let state = tick.path("state");
    let out = tick.thinker(&["init", "--config", &config, "--state", &state]);
    out.expect_exit(0);
    assert!(
        out.stderr.contains("groq is a remote free tier")
            && out.stderr.contains("private_to = \"local\""),
        "{}",
        out.stderr
    );
    let text = fs::read_to_string(Path::new(&config)).unwrap();
    let groq = text.find("[providers.groq]").unwrap();
    assert!(text[..groq].ends_with("`thinker prompt watcher --as-sent` shows what leaves.\n"));
    assert!(
        text.contains("REMOTE, FREE TIER") && text.contains("[privacy]\nprivate_to = \"redacted\"")
    );
}

//! Redaction that holds (SPEC §9, issue 24): a table of the forms personal data takes as
//! people write it — the ones a hostile probe found sent verbatim among them — and of
//! ordinary text that must stay as it is; and properties: redaction is idempotent, and a
//! value's placeholder is the same in every text it appears in (every thread, every tick)
//! under the state's key, and another under another key.

use proptest::prelude::*;
use thinker::untrusted::redact::{Class, RedactionKey, Redactor};

fn redactor() -> Redactor {
    Redactor::new(&RedactionKey::from_bytes([42; 32]))
}

/// (text, the values that must be gone, the classes replaced).
type Row = (&'static str, &'static [&'static str], &'static [Class]);

#[test]
fn every_form_is_replaced() {
    use Class::{Card, Email, Iban, Name, Phone, Secret};
    #[rustfmt::skip]
    let table: &[Row] = &[
        // The probe's forms.
        ("Write to jörg.müller@bäckerei.de today", &["jörg.müller@bäckerei.de"], &[Email]),
        ("mail ana＠example.org now", &["ana＠example.org"], &[Email]),
        ("\"john doe\"@example.com wrote", &["\"john doe\"@example.com"], &[Email]),
        ("root@[192.168.1.1] and admin@[IPv6:2001:db8::1]", &["root@", "admin@"], &[Email, Email]),
        ("reach me: jane at example dot org", &["jane at example dot org"], &[Email]),
        ("jane [at] example [dot] org", &["jane [at] example"], &[Email]),
        ("jane(at)example(dot)co(dot)uk", &["jane(at)"], &[Email]),
        ("call 555.123.4567 today", &["555.123.4567"], &[Phone]),
        ("IBAN de89 3704 0044 0532 0130 00", &["de89 3704"], &[Iban]),
        ("IBAN DE89-3704-0044-0532-0130-00", &["DE89-3704"], &[Iban]),
        ("card 4111.1111.1111.1111 ok", &["4111.1111"], &[Card]),
        ("password: Tr0ub4dor&3-horse", &["Tr0ub4dor&3-horse"], &[Secret]),
        ("From: Jörg Müller <joerg@baeckerei.de>\nHallo Jörg, Herr Müller zahlt.",
         &["Jörg", "Müller", "joerg@"], &[Name, Email, Name, Name]),
        // More of the forms people write.
        ("ANA@EXAMPLE.ORG", &["ANA@"], &[Email]),
        ("müller@bäckerei.xn--p1ai", &["müller@"], &[Email]),
        ("Tel. +44 (0)20 7946 0958", &["7946"], &[Phone]),
        ("+1.555.123.4567", &["555.123"], &[Phone]),
        ("(555) 123-4567 or 555-123-4567", &["123-4567"], &[Phone, Phone]),
        ("1-800-555-0199", &["555-0199"], &[Phone]),
        ("555 123 4567", &["555 123"], &[Phone]),
        ("Mobil 0171 1234567, (030) 1234567", &["1234567"], &[Phone, Phone]),
        ("06.12.34.56.78 ou 06 12 34 56 78", &["06.12", "06 12"], &[Phone, Phone]),
        ("card 4111 1111 1111 1111 or 4111-1111-1111-1111", &["4111"], &[Card, Card]),
        ("Amex 3782 822463 10005", &["3782"], &[Card]),
        ("GB82 WEST 1234 5698 7654 32", &["GB82"], &[Iban]),
        ("NL91ABNA0417164300", &["NL91"], &[Iban]),
        ("the password is hunter22!", &["hunter22"], &[Secret]),
        ("Passwort = Sommer2024", &["Sommer2024"], &[Secret]),
        ("PIN: 4821", &["4821"], &[Secret]),
        ("api_key = \"Zx8fQ2mN7pL4kR9s\"", &["Zx8fQ2mN7pL4kR9s"], &[Secret]),
        ("token ghp_0123456789abcdefghijABCDEFGHIJklmn", &["ghp_"], &[Secret]),
        ("From: \"Smith, Anna\" <anna@example.org>\nAnna Smith says hi",
         &["Smith", "Anna"], &[Name, Email, Name]),
        ("To: Bob Lee <bob@x.org>\nCc: Eve Park <eve@x.org>\nBob and Eve agreed",
         &["Bob", "Lee", "Eve", "Park"], &[Name, Email, Name, Email, Name, Name]),
        // The third probe's forms (issue 30).
        ("Büro +49 (0) 30 / 1234 5678", &["1234 5678", "(0) 30"], &[Phone]),
        ("Tel. ＋４９ ３０ １２３４５６７", &["１２３４"], &[Phone]),
        ("Karte ４１１１ １１１１ １１１１ １１１１", &["４１１１"], &[Card]),
        ("IBAN D E 8 9 3 7 0 4 0 0 4 4 0 5 3 2 0 1 3 0 0 0; danke", &["D E 8 9", "0 0 0"], &[Iban]),
        ("mail j a n e @ e x a m p l e . o r g now", &["j a n e", "o r g"], &[Email]),
        ("groq gsk_Q2xT9vLmP4kR8sW1yZ3nB6cF0hJ5dG7aE2uI9oKqXw4Vb8Nm1Lp3Rt6Ys0Zc", &["gsk_"], &[Secret]),
        ("replicate r8_Hk3Lm9Qp2Rs7Tv4Wx1Yz6Ab0Cd5Ef8Gh2Ij", &["r8_"], &[Secret]),
    ];
    let r = redactor();
    for (text, gone, classes) in table {
        let out = r.redact_counted(text);
        for g in *gone {
            assert!(
                !out.text.contains(g),
                "{text:?}: {g:?} left in {:?}",
                out.text
            );
        }
        for class in Class::ALL {
            let want = classes.iter().filter(|c| **c == class).count() as u64;
            assert_eq!(
                out.tally.get(class),
                want,
                "{text:?} → {:?}: {class} replacements",
                out.text
            );
        }
    }
}

/// Every provider `thinker init` writes has a row in the one table of key shapes, and
/// a key of its shape is masked and redacted (issue 30: Groq, the default provider, had
/// none).
#[test]
fn the_key_shapes_cover_the_providers_thinker_knows() {
    use thinker::init::Cloud;
    use thinker::untrusted::redact::{SECRET_SHAPES, mask_secrets};
    for cloud in Cloud::ALL {
        assert!(
            SECRET_SHAPES
                .iter()
                .any(|(issuer, _)| issuer.to_lowercase().contains(cloud.name())),
            "no key shape for {}",
            cloud.name()
        );
    }
    let r = redactor();
    for key in [
        "gsk_Q2xT9vLmP4kR8sW1yZ3nB6cF0hJ5dG7aE2uI9oKqXw4Vb8Nm1Lp3Rt6Ys0Zc",
        "AIzaSyD3x9Qm2Lp5Rt8Vw1Yz4Ab7Cd0Ef3Gh6Ij",
        "sk-or-v1-0123456789abcdef0123456789abcdef0123456789abcdef0123456789abcdef",
        "sk-proj-Zq8Xr2Lm5Np7Kt1Vw4Yb6Hd9Jf3Gs0Ac",
        "sk-ant-api03-Zq8Xr2Lm5Np7Kt1Vw4Yb6Hd9Jf3Gs0Ac-Qe2Ru8To4Ip6Ol",
        "r8_Hk3Lm9Qp2Rs7Tv4Wx1Yz6Ab0Cd5Ef8Gh2Ij",
        "xai-Zq8Xr2Lm5Np7Kt1Vw4Yb6Hd9Jf3Gs0Ac",
        "pplx-Zq8Xr2Lm5Np7Kt1Vw4Yb6Hd9Jf3Gs0Ac",
        "hf_Zq8Xr2Lm5Np7Kt1Vw4Yb6Hd9Jf3Gs0AcQe",
        "glpat-Zq8Xr2Lm5Np7Kt1Vw4Yb",
    ] {
        let text = format!("the key is {key}, keep it safe");
        assert_eq!(mask_secrets(&text), "the key is <secret>, keep it safe");
        let out = r.redact_counted(&text);
        assert_eq!(out.tally.get(Class::Secret), 1, "{key}: {}", out.text);
    }
}

#[test]
fn ordinary_text_stays() {
    let r = redactor();
    for text in [
        "Meet at 10:30 in room 4.12 on 2024-01-15",
        "version 2.3.4567 of the app, build 12345678",
        "order #123456789 shipped; ref DE89 3704 0044 0532 0130 01",
        "card 4111 1111 1111 1112 is not a card",
        "visit us at example.com for more",
        "look at the dot com bubble",
        "password reset required; Password: reset",
        "The password is required.",
        "To: buy milk\nTo do: bread",
        "ip 192.168.10.254, dates 01/02/2024 and 15.01.2024",
        "Billing address changed; Support team answered",
        "We went home at 6. Then dinner.",
        "<email-k3f9az> owes 500 EUR to <name-aaaaaa>",
        "a b c d e f, I a m, 1 2 3 4 5 6 7",
        "task-abcdefghijklmnopqrstuvwxyz and fw_update_2024_v2",
        "[t-backup-fails-mondays] and p-invoice-2026-0412",
    ] {
        assert_eq!(r.redact(text), text);
    }
}

#[test]
fn a_name_s_parts_stand_for_the_whole_name() {
    let r = redactor();
    let out = r.redact("From: Jörg Müller <j@x.de>\nJörg says Herr Müller and Jörg Müller agree");
    let name = r.placeholder(Class::Name, "jörg müller");
    assert_eq!(out.matches(&name).count(), 4, "{out}");
}

/// Values personal data takes, for the properties.
fn value() -> impl Strategy<Value = (Class, String)> {
    prop_oneof![
        "[a-z]{1,8}(\\.[a-z]{1,6})?@[a-z]{2,8}\\.(org|com|de)".prop_map(|v| (Class::Email, v)),
        // An id-shaped word in the domain (`t-online`): the address's, not an id.
        "[a-z]{1,8}@[tphi]-[a-z]{2,8}\\.(org|com|de)".prop_map(|v| (Class::Email, v)),
        "\\+49 30 [1-9][0-9]{6}".prop_map(|v| (Class::Phone, v)),
        "[2-9][0-9]{2}\\.[0-9]{3}\\.[0-9]{4}".prop_map(|v| (Class::Phone, v)),
    ]
}

/// Ordinary words around a value.
fn filler() -> impl Strategy<Value = String> {
    prop::collection::vec(
        prop::sample::select(
            &[
                "the",
                "meeting",
                "was",
                "moved",
                "to",
                "Friday",
                "ok",
                "\n",
                "a",
                "invoice",
                "[t-backup-fails-mondays]",
            ][..],
        ),
        0..8,
    )
    .prop_map(|w| w.join(" "))
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(256))]

    /// Redacting redacted text changes nothing.
    #[test]
    fn redaction_is_idempotent(before in filler(), (_, v) in value(), after in filler(), junk in any::<String>()) {
        let r = redactor();
        let text = format!("{before} {v} {after} {junk}");
        let once = r.redact(&text);
        prop_assert_eq!(r.redact(&once), once.clone());
        prop_assert!(!once.contains(&v), "{v} left in {once}");
    }

    /// A value gets the same placeholder in any text — another thread's prompt, a later
    /// tick's, by a fresh redactor with the state's key — and another one under another
    /// key, so a placeholder alone says nothing.
    #[test]
    fn placeholders_are_stable_across_ticks_and_threads(
        (class, v) in value(),
        a in filler(), b in filler(), c in filler(),
    ) {
        let key = RedactionKey::from_bytes([42; 32]);
        let watcher_now = Redactor::new(&key).redact(&format!("{a} {v} {b}"));
        let dreamer_later = Redactor::new(&key).redact(&format!("{c}\n{v}, again {v}"));
        let normal = match class {
            Class::Email => v.to_lowercase(),
            _ => v.chars().filter(char::is_ascii_digit).collect(),
        };
        let placeholder = Redactor::new(&key).placeholder(class, &normal);
        prop_assert!(watcher_now.contains(&placeholder), "{watcher_now}");
        prop_assert_eq!(dreamer_later.matches(&placeholder).count(), 2);
        let other = Redactor::new(&RedactionKey::from_bytes([43; 32])).placeholder(class, &normal);
        prop_assert_ne!(other, placeholder);
    }
}

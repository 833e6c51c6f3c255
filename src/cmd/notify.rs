//! `thinker notify --test`: sends a short test message through the configured path
//! (`notify_command`, or `[escalation.webhook]`) and says plainly whether it went out —
//! the notifier exited 0, or the webhook answered 2xx — or why not, with a hint when the
//! notifier needs a desktop session this process does not have (notify-send under cron).
//! Exit 0 when it went out, 1 when it did not (or no notifier is configured).
//!
//! It carries no model text and touches no message: the step is one line of
//! `deliveries.jsonl` when the state directory exists (no lock: an append).
//!
//! Must not: send anything but the test message, or print a notifier's arguments or a
//! webhook's URL (they may hold a token).

use crate::cmd::Context;
use crate::error::{EXIT_FAILED, EXIT_OK, Error};
use crate::escalation::held::Step;
use crate::escalation::notify::{self, Notifier};
use crate::storage::{DELIVERIES_FILE, StateDir};

/// The test message.
pub fn message(clock: &crate::clock::Clock) -> String {
    format!(
        "thinker: a test message ({}), sent by `thinker notify --test`. If you can read this, thinker's messages reach you.\n",
        clock.wall(clock.now)
    )
}

/// Why a command notifier may not reach a person from here: notify-send and friends need
/// a desktop session's D-Bus, which cron and SSH sessions lack.
fn headless_hint(
    notifier: &Notifier<'_>,
    env: &dyn Fn(&str) -> Option<String>,
) -> Option<&'static str> {
    let Notifier::Command(argv) = notifier else {
        return None;
    };
    let program = notify::programs(argv).last().copied().unwrap_or_default();
    let program = program.rsplit('/').next().unwrap_or(program);
    let desktop = ["notify-send", "kdialog", "zenity", "dunstify"].contains(&program);
    let session = ["DBUS_SESSION_BUS_ADDRESS", "DISPLAY", "WAYLAND_DISPLAY"]
        .iter()
        .any(|v| env(v).is_some_and(|x| !x.is_empty()));
    (desktop && !session).then_some(
        "this notifier needs a desktop session (D-Bus), which cron does not have: on a headless machine use Apprise (notify_command = [\"apprise\", \"-t\", \"thinker\", \"ntfy://ntfy.sh/your-topic\"]) or [escalation.webhook] (the config's [escalation] comments show both)",
    )
}

pub fn run(ctx: &mut Context<'_>) -> Result<u8, Error> {
    let resolved = ctx.required_config()?;
    let config = &resolved.config.escalation;
    let notifier = config.notifier();
    if !notifier.is_configured() {
        ctx.stdout(format!("NOT SENT: {}\n", notify::NotifyError::EmptyCommand).as_bytes())?;
        return Ok(EXIT_FAILED);
    }
    let message = message(&ctx.clock);
    let result =
        crate::runtime::block_on(notify::deliver(&notifier, &message, config.notify_timeout))?;
    let env = |var: &str| std::env::var(var).ok();
    let (text, code, step) = match &result {
        Ok(sent) => (
            format!(
                "SENT: the test message went out through {} ({}). Check that it reached you: if it did not, the notifier runs but does not deliver to you.\n",
                sent.via, sent.said
            ),
            EXIT_OK,
            ("sent", Some(sent.via.clone()), None),
        ),
        Err(e) => {
            let maybe = if e.may_have_delivered() {
                " It may still have gone out: check."
            } else {
                ""
            };
            let hint = headless_hint(&notifier, &env)
                .map(|h| format!("\n  hint: {h}"))
                .unwrap_or_default();
            (
                format!(
                    "NOT SENT: the test message did not go out through {}: {e}.{maybe}{hint}\n",
                    notifier.describe()
                ),
                EXIT_FAILED,
                (
                    if e.may_have_delivered() {
                        "maybe sent"
                    } else {
                        "not sent"
                    },
                    Some(notifier.describe()),
                    Some(e.to_string()),
                ),
            )
        }
    };
    let dir = StateDir::at(&resolved.state_dir);
    if dir.path().is_dir() {
        let (result, via, error) = step;
        // The record of a test is best effort: it must not turn a sent test into a failure.
        if let Err(e) = dir.append_lines(
            DELIVERIES_FILE,
            &[Step {
                time: ctx.clock.now,
                action: "test".into(),
                id: None,
                via,
                result: result.into(),
                error,
                records: Vec::new(),
            }],
        ) {
            tracing::info!("the test was not recorded in {DELIVERIES_FILE}: {e}");
        }
    }
    ctx.stdout(text.as_bytes())?;
    Ok(code)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_desktop_notifier_without_a_session_gets_the_headless_hint() {
        let argv = |a: &[&str]| a.iter().map(ToString::to_string).collect::<Vec<_>>();
        let none = |_: &str| None;
        let desktop = |v: &str| (v == "DISPLAY").then(|| ":0".to_string());
        let send = argv(&["notify-send", "thinker"]);
        let wrapped = argv(&["xargs", "-0", "/usr/bin/notify-send"]);
        let apprise = argv(&["apprise", "-t", "thinker", "json://x/"]);
        assert!(headless_hint(&Notifier::Command(&send), &none).is_some());
        assert!(headless_hint(&Notifier::Command(&wrapped), &none).is_some());
        assert!(headless_hint(&Notifier::Command(&send), &desktop).is_none());
        assert!(headless_hint(&Notifier::Command(&apprise), &none).is_none());
    }
}

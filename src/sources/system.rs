//! The `system` source (SPEC §6): load, memory and disk of this machine.
//!
//! `load L1 L5 L15 (N cpus)`, `memory X available of Y`, `swap X used of Y` (when there
//! is swap), `up 3 days 4 h`, one `disk MOUNT P% used (X free)` line per distinct mount of
//! `/` and `$HOME` (from `df -Pk`, 3 s timeout). Missing pieces are skipped; a failure
//! only when nothing at all is available. Small by construction: no cap.
//!
//! Owns [`SystemSettings`] (no keys besides `kind` and `name`); must not read anything
//! but `/proc` and `df`.

use std::collections::HashSet;
use std::fmt::Write as _;
use std::time::Duration;

use serde::Deserialize;

use super::Text;
use super::command::run_command;
use super::settings::{self, SettingsError};
use super::text::clean;

/// Timeout of `df` for the system source.
const DF_TIMEOUT: Duration = Duration::from_secs(3);
/// Cap of `df` output.
const DF_MAX_BYTES: usize = 16 * 1024;

/// The keys a `system` source takes besides `kind` and `name`: none.
pub(super) const KEYS: &[&str] = &[];

/// A `system` source as written.
#[derive(Debug, Deserialize)]
#[serde(deny_unknown_fields)]
struct Raw {}

/// A `system` source, checked: it has no settings of its own.
#[derive(Debug, Clone, PartialEq, Eq, Default)]
pub struct SystemSettings {}

impl SystemSettings {
    /// Checks the keys of a `system` table (`kind` and `name` taken out): there must be
    /// none.
    pub fn from_table(table: toml::Table) -> Result<SystemSettings, SettingsError> {
        let Raw {} = settings::read("system", KEYS, table)?;
        Ok(SystemSettings {})
    }
}

/// What this machine looks like now.
pub(super) async fn text(_: &SystemSettings) -> Result<Text, String> {
    let mut lines = Vec::new();
    let cpus = std::thread::available_parallelism().map_or(0, std::num::NonZero::get);
    if let Ok(s) = tokio::fs::read_to_string("/proc/loadavg").await
        && let Some(l) = load_line(&s, cpus)
    {
        lines.push(l);
    }
    if let Ok(s) = tokio::fs::read_to_string("/proc/meminfo").await {
        lines.extend(memory_lines(&s));
    }
    if let Ok(s) = tokio::fs::read_to_string("/proc/uptime").await
        && let Some(l) = uptime_line(&s)
    {
        lines.push(l);
    }
    let mut df = vec!["df".to_string(), "-Pk".to_string(), "/".to_string()];
    if let Some(home) = std::env::var_os("HOME").filter(|h| !h.is_empty()) {
        df.push(home.to_string_lossy().into_owned());
    }
    if let Ok(out) = run_command(&df, DF_TIMEOUT, DF_MAX_BYTES).await {
        lines.extend(disk_lines(&String::from_utf8_lossy(&out.bytes)));
    }
    if lines.is_empty() {
        return Err("no system information: /proc is not readable and `df` failed".into());
    }
    let mut text = lines.join("\n");
    text.push('\n');
    Ok(Text {
        text: clean(&text),
        truncated: false,
    })
}

/// `load 0.52 0.40 0.31 (2 cpus)` from `/proc/loadavg`.
fn load_line(loadavg: &str, cpus: usize) -> Option<String> {
    let f: Vec<&str> = loadavg.split_whitespace().take(3).collect();
    if f.len() < 3 || f.iter().any(|x| x.parse::<f64>().is_err()) {
        return None;
    }
    let mut line = format!("load {} {} {}", f[0], f[1], f[2]);
    if cpus > 0 {
        let _ = write!(line, " ({cpus} cpu{})", if cpus == 1 { "" } else { "s" });
    }
    Some(line)
}

/// `memory 3.1 GiB available of 23.5 GiB` (and swap, when there is some) from
/// `/proc/meminfo`.
fn memory_lines(meminfo: &str) -> Vec<String> {
    let kib = |key: &str| {
        meminfo.lines().find_map(|l| {
            let rest = l.strip_prefix(key)?.strip_prefix(':')?;
            rest.split_whitespace().next()?.parse::<u64>().ok()
        })
    };
    let mut lines = Vec::new();
    if let (Some(total), Some(available)) = (kib("MemTotal"), kib("MemAvailable")) {
        lines.push(format!(
            "memory {} available of {}",
            human(available * 1024),
            human(total * 1024)
        ));
    }
    if let (Some(total), Some(free)) = (kib("SwapTotal"), kib("SwapFree"))
        && total > 0
    {
        lines.push(format!(
            "swap {} used of {}",
            human(total.saturating_sub(free) * 1024),
            human(total * 1024)
        ));
    }
    lines
}

/// `up 3 days 4 h` from `/proc/uptime`.
fn uptime_line(uptime: &str) -> Option<String> {
    let secs: f64 = uptime.split_whitespace().next()?.parse().ok()?;
    if !secs.is_finite() || secs < 0.0 {
        return None;
    }
    let s = secs as u64;
    let (days, hours, minutes) = (s / 86_400, s % 86_400 / 3600, s % 3600 / 60);
    Some(match (days, hours) {
        (0, 0) => format!("up {minutes} min"),
        (0, _) => format!("up {hours} h {minutes} min"),
        (1, _) => format!("up 1 day {hours} h"),
        _ => format!("up {days} days {hours} h"),
    })
}

/// `disk / 61% used (80 GiB free)`, one line per distinct mount point, from `df -Pk`.
fn disk_lines(df: &str) -> Vec<String> {
    let mut seen = HashSet::new();
    let mut lines = Vec::new();
    for line in df.lines().skip(1) {
        let f: Vec<&str> = line.split_whitespace().collect();
        // Filesystem names may hold spaces: find `blocks used available NN%` anywhere.
        let Some(i) = (1..f.len().saturating_sub(4)).find(|&i| {
            f[i..i + 3].iter().all(|x| x.parse::<u64>().is_ok())
                && f[i + 3]
                    .strip_suffix('%')
                    .is_some_and(|p| p.parse::<u64>().is_ok())
        }) else {
            continue;
        };
        let mount = f[i + 4..].join(" ");
        if !seen.insert(mount.clone()) {
            continue;
        }
        let available: u64 = f[i + 2].parse().unwrap_or(0);
        lines.push(format!(
            "disk {mount} {} used ({} free)",
            f[i + 3],
            human(available * 1024)
        ));
    }
    lines
}

/// Bytes for people: `512 MiB`, `3.1 GiB`, `80 GiB` (one decimal below 100), `1.8 TiB`.
fn human(bytes: u64) -> String {
    const MIB: f64 = 1024.0 * 1024.0;
    const GIB: f64 = MIB * 1024.0;
    const TIB: f64 = GIB * 1024.0;
    let b = bytes as f64;
    if b < GIB {
        format!("{:.0} MiB", b / MIB)
    } else if b < 100.0 * GIB {
        format!("{:.1} GiB", b / GIB)
    } else if b < TIB {
        format!("{:.0} GiB", b / GIB)
    } else {
        format!("{:.1} TiB", b / TIB)
    }
}

/// What counts as a change of the machine for the quiet tick (`crate::quiet`): the
/// text quantised, so a load of 0.31 vs 0.35 is no news but a disk going from 80 % to
/// 95 % is. Load: per CPU, the 5-minute average as low (< 0.7), high (< 1.5) or very high;
/// memory available and swap used in steps; uptime only as "up under an hour" (a reboot);
/// disks in steps at 80, 90, 95 and 98 %. Lines it does not know are kept as they are.
pub(crate) fn world(text: &str) -> String {
    text.lines().map(world_line).collect::<Vec<_>>().join("\n")
}

fn world_line(line: &str) -> String {
    let f: Vec<&str> = line.split_whitespace().collect();
    match f.first().copied() {
        Some("load") if f.len() >= 4 => {
            let cpus: f64 = f
                .get(4)
                .and_then(|c| c.trim_start_matches('(').parse().ok())
                .filter(|&c: &f64| c > 0.0)
                .unwrap_or(1.0);
            let per_cpu = f[2].parse::<f64>().unwrap_or(0.0) / cpus;
            let level = if per_cpu < 0.7 {
                "low"
            } else if per_cpu < 1.5 {
                "high"
            } else {
                "very high"
            };
            format!("load {level}")
        }
        Some("memory") => {
            let share = share_of(line, "available of").unwrap_or(1.0);
            let level = if share >= 0.2 {
                "ok"
            } else if share >= 0.1 {
                "low"
            } else {
                "very low"
            };
            format!("memory {level}")
        }
        Some("swap") => {
            let used = share_of(line, "used of").unwrap_or(0.0);
            format!("swap {}% used", (used * 4.0).floor() as u32 * 25)
        }
        Some("up") => {
            if f.len() == 3 && f[2] == "min" {
                "up under an hour".into()
            } else {
                "up".into()
            }
        }
        Some("disk") if f.len() >= 3 => {
            let Some(pct) = f
                .iter()
                .find_map(|w| w.strip_suffix('%').and_then(|p| p.parse::<u32>().ok()))
            else {
                return line.to_string();
            };
            let step = [98, 95, 90, 80].into_iter().find(|&s| pct >= s);
            let mount = f[1..]
                .iter()
                .take_while(|w| !w.ends_with('%'))
                .copied()
                .collect::<Vec<_>>()
                .join(" ");
            match step {
                Some(s) => format!("disk {mount} {s}%+"),
                None => format!("disk {mount} under 80%"),
            }
        }
        _ => line.to_string(),
    }
}

/// `a` / `b` of a line shaped `… A UNIT <words> B UNIT`: the share of the first size in
/// the second.
fn share_of(line: &str, words: &str) -> Option<f64> {
    let (a, b) = line.split_once(words)?;
    let first = a.split_whitespace().rev().take(2).collect::<Vec<_>>();
    let size = |number: &str, unit: &str| -> Option<f64> {
        let n: f64 = number.parse().ok()?;
        let scale = match unit {
            "MiB" => 1.0,
            "GiB" => 1024.0,
            "TiB" => 1024.0 * 1024.0,
            _ => return None,
        };
        Some(n * scale)
    };
    let a = size(first.get(1)?, first.first()?)?;
    let mut second = b.split_whitespace();
    let b = size(second.next()?, second.next()?)?;
    (b > 0.0).then(|| a / b)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::sources::SourceKind;
    use crate::sources::testing::one;

    #[test]
    fn system_parsers() {
        assert_eq!(
            load_line("0.52 0.40 0.31 1/123 4567\n", 2).unwrap(),
            "load 0.52 0.40 0.31 (2 cpus)"
        );
        assert_eq!(
            memory_lines(
                "MemTotal:       24641536 kB\nMemFree: 1 kB\nMemAvailable:    3250585 kB\nSwapTotal: 0 kB\nSwapFree: 0 kB\n"
            ),
            ["memory 3.1 GiB available of 23.5 GiB"]
        );
        assert_eq!(uptime_line("273600.5 100.0").unwrap(), "up 3 days 4 h");
        assert_eq!(uptime_line("4000 1").unwrap(), "up 1 h 6 min");
        let df = "Filesystem     1024-blocks     Used Available Capacity Mounted on\n\
                  /dev/vda         264212084 18208844  77077044      20% /\n\
                  /dev/vda         264212084 18208844  77077044      20% /\n\
                  my disk 100 50 50 50% /mnt/my disk\n";
        assert_eq!(
            disk_lines(df),
            [
                "disk / 20% used (73.5 GiB free)",
                "disk /mnt/my disk 50% used (0 MiB free)"
            ]
        );
    }

    #[tokio::test]
    async fn system_reports_something_on_linux() {
        let g = one(SourceKind::System(SystemSettings {})).await;
        assert!(g.failures.is_empty(), "{g:?}");
        let t = &g.texts[0].text;
        assert!(t.contains("load ") && t.contains("memory "), "{t}");
        assert!(t.contains("disk /"), "{t}");
    }
}

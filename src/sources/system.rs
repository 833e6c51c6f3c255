//! The `system` source (SPEC §6): load, memory and disk of this machine.
//!
//! `load L1 L5 L15 (N cpus)`, `memory X available of Y`, `swap X used of Y` (when there
//! is swap), `up 3 days 4 h`, one `disk MOUNT P% used (X free)` line per distinct mount of
//! `/` and `$HOME` (`statvfs` of each, its mount point the longest of
//! `/proc/self/mountinfo` that holds it; used % rounded up as `df` does; on the blocking
//! pool, 3 s timeout: a hung network mount cannot hold the tick). No process is started.
//! Missing pieces are skipped; a failure only when nothing at all is available. Small by
//! construction: no cap.
//!
//! Owns [`SystemSettings`] (no keys besides `kind` and `name`); must not read anything
//! but `/proc` and `statvfs`, or start a process.

use std::collections::HashSet;
use std::fmt::Write as _;
use std::path::{Path, PathBuf};
use std::time::Duration;

use serde::Deserialize;

use super::Text;
use super::error::SourceError;
use super::settings::{self, SettingsError};
use super::text::clean;

/// Time limit of reading the disks' usage (a hung network mount under `$HOME`).
const DISK_TIMEOUT: Duration = Duration::from_secs(3);

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
pub(super) async fn text(_: &SystemSettings) -> Result<Text, SourceError> {
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
    let mut paths = vec![PathBuf::from("/")];
    if let Some(home) = std::env::var_os("HOME").filter(|h| !h.is_empty()) {
        paths.push(PathBuf::from(home));
    }
    let disks = tokio::task::spawn_blocking(move || disk_lines(&paths));
    if let Ok(Ok(disks)) = tokio::time::timeout(DISK_TIMEOUT, disks).await {
        lines.extend(disks);
    }
    if lines.is_empty() {
        return Err(SourceError::NoSystemInformation);
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

/// `disk / 61% used (80 GiB free)`, one line per distinct mount point of `paths` (a path
/// that cannot be resolved or measured is left out). Blocking.
fn disk_lines(paths: &[PathBuf]) -> Vec<String> {
    let mounts = std::fs::read_to_string("/proc/self/mountinfo")
        .map(|m| mount_points(&m))
        .unwrap_or_default();
    let mut seen = HashSet::new();
    let mut lines = Vec::new();
    for path in paths {
        let Ok(real) = std::fs::canonicalize(path) else {
            continue;
        };
        let Ok(vfs) = rustix::fs::statvfs(&real) else {
            continue;
        };
        // Without a mount table the path itself names the disk (as `df` names the mount).
        let mount = mount_of(&real, &mounts).unwrap_or_else(|| real.display().to_string());
        if !seen.insert(mount.clone()) {
            continue;
        }
        let usage = Usage {
            block: vfs.f_frsize,
            blocks: vfs.f_blocks,
            free: vfs.f_bfree,
            available: vfs.f_bavail,
        };
        lines.extend(disk_line(&mount, &usage));
    }
    lines
}

/// A file system's size as `statvfs` gives it, in blocks of `block` bytes.
#[derive(Debug, Clone, Copy)]
struct Usage {
    block: u64,
    blocks: u64,
    /// Free blocks, the reserved ones included.
    free: u64,
    /// Free blocks an unprivileged user may take.
    available: u64,
}

/// `disk MOUNT P% used (X free)`, `df -P`'s figures: used is `blocks - free`, the share
/// is of `used + available` (the reserved blocks left out), rounded up; free is what an
/// unprivileged user may take. `None` for a file system of no size (`/proc`, `sysfs`).
fn disk_line(mount: &str, u: &Usage) -> Option<String> {
    let used = u.blocks.saturating_sub(u.free);
    let total = used.saturating_add(u.available);
    if total == 0 {
        return None;
    }
    let percent = (u128::from(used) * 100).div_ceil(u128::from(total));
    let free = u.available.saturating_mul(u.block);
    Some(format!(
        "disk {mount} {percent}% used ({} free)",
        human(free)
    ))
}

/// The mount points of `/proc/self/mountinfo` (the fifth field, its `\NNN` octal escapes
/// of space, tab, newline and backslash undone).
fn mount_points(mountinfo: &str) -> Vec<String> {
    mountinfo
        .lines()
        .filter_map(|l| l.split(' ').nth(4))
        .map(unescape_octal)
        .collect()
}

/// `\040` → ` `: the kernel's escaping of a mount point.
fn unescape_octal(field: &str) -> String {
    let bytes = field.as_bytes();
    let mut out = Vec::with_capacity(bytes.len());
    let mut i = 0;
    while i < bytes.len() {
        let code = bytes
            .get(i + 1..i + 4)
            .filter(|d| d.iter().all(|c| (b'0'..=b'7').contains(c)));
        match (bytes[i], code) {
            (b'\\', Some(d)) => {
                let value = d.iter().fold(0u32, |n, c| n * 8 + u32::from(c - b'0'));
                out.push(u8::try_from(value).unwrap_or(b'?'));
                i += 4;
            }
            (b, _) => {
                out.push(b);
                i += 1;
            }
        }
    }
    String::from_utf8_lossy(&out).into_owned()
}

/// The longest of `mounts` that holds `path` (component by component: `/home` does not
/// hold `/homework`).
fn mount_of(path: &Path, mounts: &[String]) -> Option<String> {
    mounts
        .iter()
        .filter(|m| path.starts_with(m.as_str()))
        .max_by_key(|m| Path::new(m.as_str()).components().count())
        .cloned()
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
    }

    #[test]
    fn disk_lines_give_dfs_figures() {
        // (blocks, free, available) in 1 KiB blocks, and what `df -P` says of them.
        let table = [
            // `df -Pk /` on this machine's root: 18208844 used, 77077044 available.
            (
                (264_212_084, 246_003_240, 77_077_044),
                "20% used (73.5 GiB free)",
            ),
            // Reserved blocks (free but not available) count as neither used nor free.
            ((100, 50, 45), "53% used (0 MiB free)"),
            // Rounded up: one block used of 1000 is 1 %.
            ((1000, 999, 999), "1% used (1 MiB free)"),
            ((1000, 0, 0), "100% used (0 MiB free)"),
            // More reserved than free (a root-filled disk): nothing available.
            ((1000, 10, 0), "100% used (0 MiB free)"),
        ];
        for ((blocks, free, available), expected) in table {
            let usage = Usage {
                block: 1024,
                blocks,
                free,
                available,
            };
            assert_eq!(
                disk_line("/", &usage).unwrap(),
                format!("disk / {expected}"),
                "{blocks} {free} {available}"
            );
        }
        let empty = Usage {
            block: 4096,
            blocks: 0,
            free: 0,
            available: 0,
        };
        assert_eq!(disk_line("/proc", &empty), None);
    }

    #[test]
    fn mount_points_are_read_from_mountinfo() {
        let mountinfo = "22 1 253:1 / / rw,relatime shared:1 - ext4 /dev/vda1 rw\n\
                         30 22 0:26 / /home rw shared:2 - ext4 /dev/vdb rw\n\
                         31 22 0:27 / /mnt/my\\040disk rw - ext4 /dev/vdc rw\n\
                         32 22 0:28 / /odd\\134name\\011x rw - tmpfs tmpfs rw\n";
        let mounts = mount_points(mountinfo);
        assert_eq!(mounts, ["/", "/home", "/mnt/my disk", "/odd\\name\tx"]);
        let of = |p: &str| mount_of(Path::new(p), &mounts);
        assert_eq!(of("/home/ann").as_deref(), Some("/home"));
        assert_eq!(of("/home").as_deref(), Some("/home"));
        assert_eq!(of("/homework").as_deref(), Some("/"));
        assert_eq!(of("/mnt/my disk/x").as_deref(), Some("/mnt/my disk"));
        assert_eq!(of("/").as_deref(), Some("/"));
        assert_eq!(mount_of(Path::new("/x"), &[]), None);
        // A backslash not followed by three octal digits is kept.
        assert_eq!(unescape_octal("a\\9b\\04"), "a\\9b\\04");
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

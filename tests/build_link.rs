//! How the binary is linked (issue 14, `build.rs`): on Linux, at a fixed address (an
//! ELF `EXEC`, not a position-independent `DYN`) and with the code a tick runs gathered
//! in a `.text.hot` section by `link/hot.ld`; the script itself is well formed. Read
//! from the binary the tests run, with a few lines of ELF reading (no dependency).
//! Skipped, saying so, where `THINKER_PLAIN_LINK` was set for the build or not on Linux.

use std::path::Path;

const ET_EXEC: u16 = 2;

fn u16_at(b: &[u8], at: usize) -> u16 {
    u16::from_le_bytes([b[at], b[at + 1]])
}

fn u32_at(b: &[u8], at: usize) -> u32 {
    u32::from_le_bytes(b[at..at + 4].try_into().unwrap())
}

fn u64_at(b: &[u8], at: usize) -> usize {
    usize::try_from(u64::from_le_bytes(b[at..at + 8].try_into().unwrap())).unwrap()
}

/// The ELF type and each section's name and size (64-bit little-endian ELF).
fn elf(path: &Path) -> (u16, Vec<(String, usize)>) {
    let b = std::fs::read(path).unwrap();
    assert_eq!(&b[..4], b"\x7fELF", "{} is not ELF", path.display());
    assert_eq!((b[4], b[5]), (2, 1), "64-bit little-endian ELF expected");
    let (shoff, shentsize) = (u64_at(&b, 0x28), usize::from(u16_at(&b, 0x3a)));
    let (shnum, shstrndx) = (usize::from(u16_at(&b, 0x3c)), usize::from(u16_at(&b, 0x3e)));
    let header = |i: usize| shoff + i * shentsize;
    let names = u64_at(&b, header(shstrndx) + 0x18);
    let sections = (0..shnum)
        .map(|i| {
            let start = names + u32_at(&b, header(i)) as usize;
            let end = start + b[start..].iter().position(|&c| c == 0).unwrap();
            let name = String::from_utf8_lossy(&b[start..end]).into_owned();
            (name, u64_at(&b, header(i) + 0x20))
        })
        .collect();
    (u16_at(&b, 0x10), sections)
}

fn linked_plainly() -> bool {
    let plain = !cfg!(target_os = "linux")
        || option_env!("THINKER_PLAIN_LINK").is_some_and(|v| !v.is_empty() && v != "0");
    if plain {
        eprintln!("skipped: not Linux, or built with THINKER_PLAIN_LINK");
    }
    plain
}

#[test]
fn the_binary_is_linked_at_a_fixed_address_with_its_hot_code_first() {
    if linked_plainly() {
        return;
    }
    let (kind, sections) = elf(Path::new(env!("CARGO_BIN_EXE_thinker")));
    assert_eq!(
        kind, ET_EXEC,
        "the binary is position-independent: is -no-pie lost?"
    );
    let names: Vec<&str> = sections.iter().map(|(n, _)| n.as_str()).collect();
    let hot = names.iter().position(|n| *n == ".text.hot");
    let text = names.iter().position(|n| *n == ".text");
    assert!(
        hot.is_some_and(|h| text.is_some_and(|t| h < t)),
        "no .text.hot before .text: {names:?}"
    );
    // The script still names functions of this build: the debug build's own, found by
    // their names without the hash, fill a good part of a megabyte.
    let size = hot.map_or(0, |h| sections[h].1);
    assert!(size > 256 * 1024, ".text.hot holds only {size} bytes");
}

#[test]
fn the_hot_code_script_is_one_section_inserted_before_the_code() {
    let script =
        std::fs::read_to_string(concat!(env!("CARGO_MANIFEST_DIR"), "/link/hot.ld")).unwrap();
    assert!(script.contains(".text.hot :"), "{script:.300}");
    assert!(script.trim_end().ends_with("INSERT BEFORE .text;"));
    let patterns = script
        .lines()
        .filter(|l| l.trim_start().starts_with("*(.text"))
        .count();
    assert!(patterns > 1000, "only {patterns} patterns");
    // Every line between the braces is a pattern; nothing a linker would misread.
    let body = &script[script.find(".text.hot :").unwrap()..script.find("INSERT").unwrap()];
    for line in body.lines().map(str::trim) {
        let ok = line.is_empty()
            || matches!(line, ".text.hot :" | "{" | "}")
            || (line.starts_with("*(.text") && line.ends_with(')') && !line.contains(' '));
        assert!(ok, "unexpected line in link/hot.ld: {line:?}");
    }
}

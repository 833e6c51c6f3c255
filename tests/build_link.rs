//! How the binary is linked (ARCHITECTURE.md, "How the binary is built and linked"):
//! plainly, as a position-independent executable (an ELF `DYN` with an interpreter, so
//! the kernel loads it at a random address), with no hand-made code layout (no
//! `.text.hot` section). Read from the binary the tests run, with a few lines of ELF
//! reading (no dependency); Linux only.

#![cfg(target_os = "linux")]

use std::path::Path;

const ET_DYN: u16 = 3;
const PT_INTERP: u32 = 3;

fn u16_at(b: &[u8], at: usize) -> u16 {
    u16::from_le_bytes([b[at], b[at + 1]])
}

fn u32_at(b: &[u8], at: usize) -> u32 {
    u32::from_le_bytes(b[at..at + 4].try_into().unwrap())
}

fn u64_at(b: &[u8], at: usize) -> usize {
    usize::try_from(u64::from_le_bytes(b[at..at + 8].try_into().unwrap())).unwrap()
}

/// What the tests look at in a 64-bit little-endian ELF file.
struct Elf {
    kind: u16,
    segments: Vec<u32>,
    sections: Vec<String>,
}

fn elf(path: &Path) -> Elf {
    let b = std::fs::read(path).unwrap();
    assert_eq!(&b[..4], b"\x7fELF", "{} is not ELF", path.display());
    assert_eq!((b[4], b[5]), (2, 1), "64-bit little-endian ELF expected");
    let (phoff, phentsize, phnum) = (
        u64_at(&b, 0x20),
        usize::from(u16_at(&b, 0x36)),
        usize::from(u16_at(&b, 0x38)),
    );
    let segments = (0..phnum)
        .map(|i| u32_at(&b, phoff + i * phentsize))
        .collect();
    let (shoff, shentsize) = (u64_at(&b, 0x28), usize::from(u16_at(&b, 0x3a)));
    let (shnum, shstrndx) = (usize::from(u16_at(&b, 0x3c)), usize::from(u16_at(&b, 0x3e)));
    let header = |i: usize| shoff + i * shentsize;
    let names = u64_at(&b, header(shstrndx) + 0x18);
    let sections = (0..shnum)
        .map(|i| {
            let start = names + u32_at(&b, header(i)) as usize;
            let end = start + b[start..].iter().position(|&c| c == 0).unwrap();
            String::from_utf8_lossy(&b[start..end]).into_owned()
        })
        .collect();
    Elf {
        kind: u16_at(&b, 0x10),
        segments,
        sections,
    }
}

#[test]
fn the_binary_is_position_independent() {
    let binary = elf(Path::new(env!("CARGO_BIN_EXE_thinker")));
    assert_eq!(
        binary.kind, ET_DYN,
        "the binary is linked at a fixed address (ELF type {}): is -no-pie back?",
        binary.kind
    );
    // A shared library is `DYN` too; an executable has an interpreter to load it.
    assert!(
        binary.segments.contains(&PT_INTERP),
        "no PT_INTERP: not an executable"
    );
}

#[test]
fn the_binary_has_no_hand_made_code_layout() {
    let binary = elf(Path::new(env!("CARGO_BIN_EXE_thinker")));
    assert!(
        !binary.sections.iter().any(|s| s == ".text.hot"),
        "a .text.hot section: is a linker script back in the default build?"
    );
    assert!(binary.sections.iter().any(|s| s == ".text"));
    let script = Path::new(env!("CARGO_MANIFEST_DIR")).join("link/hot.ld");
    assert!(!script.exists(), "{} is back", script.display());
}

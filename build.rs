//! How the `thinker` binary is linked on Linux, for a small resident footprint: a tick
//! is a short process that cron starts every few minutes, and most of what it maps is
//! the binary itself.
//!
//! - `-no-pie`: a position-independent executable has its relocated data (vtables,
//!   string tables: about 1.5 MB here) copied into private pages at every start; linked
//!   at a fixed address, those pages stay clean and shared with the file. The cost is
//!   no address randomisation for the binary's own code (the libraries keep theirs).
//! - `link/hot.ld`: a linker script that gathers the functions a tick runs (about
//!   2.3 MB of the 7 MB of code) into one `.text.hot` section before the rest, so the
//!   pages a tick touches, and the kernel maps around them, are a few hundred rather
//!   than most of the binary. `scripts/hot-code.py` regenerates it; a stale list only
//!   costs memory (a function it no longer names is placed as usual).
//!
//! `THINKER_PLAIN_LINK=1` turns both off (a linker that takes neither, such as mold,
//! or a build that wants PIE). `THINKER_LINK_MAP=PATH` links without `link/hot.ld` and
//! writes the linker's map there: the build `scripts/hot-code.py` measures (valgrind
//! names the binary's code only in the usual layout). Nothing else is done here.

use std::env;
use std::path::Path;

fn main() {
    println!("cargo:rerun-if-changed=build.rs");
    println!("cargo:rerun-if-changed=link/hot.ld");
    println!("cargo:rerun-if-env-changed=THINKER_PLAIN_LINK");
    println!("cargo:rerun-if-env-changed=THINKER_LINK_MAP");
    let linux = env::var("CARGO_CFG_TARGET_OS").is_ok_and(|os| os == "linux");
    let plain = env::var_os("THINKER_PLAIN_LINK").is_some_and(|v| !v.is_empty() && v != "0");
    if !linux || plain {
        return;
    }
    println!("cargo:rustc-link-arg-bins=-no-pie");
    let script = Path::new(env!("CARGO_MANIFEST_DIR")).join("link/hot.ld");
    match env::var_os("THINKER_LINK_MAP").filter(|m| !m.is_empty()) {
        // The build `scripts/hot-code.py` measures: the usual layout (valgrind names the
        // binary's code only in it) and the map of it.
        Some(map) => println!(
            "cargo:rustc-link-arg-bins=-Wl,-Map={}",
            Path::new(&map).display()
        ),
        None if script.is_file() => {
            println!("cargo:rustc-link-arg-bins=-Wl,-T,{}", script.display());
        }
        None => {}
    }
}

//! Colour for people's terminals: the ANSI codes thinker uses and a [`Painter`] that
//! applies them only when colour is on (a terminal, unless `NO_COLOR`; the command
//! context decides). Shared by `show`, `log`, `stats` and `doctor`.
//!
//! Must not: decide whether colour is on, or colour text it has not been given (callers
//! clean untrusted text first).

pub const RESET: &str = "\x1b[0m";
pub const BOLD: &str = "\x1b[1m";
pub const DIM: &str = "\x1b[2m";
pub const GREEN: &str = "\x1b[32m";
pub const YELLOW: &str = "\x1b[33m";
pub const RED: &str = "\x1b[31m";

/// Applies colour codes when `color` is on.
#[derive(Clone, Copy, Debug)]
pub struct Painter {
    pub color: bool,
}

impl Painter {
    /// `text` in `code`'s colour.
    pub fn paint(self, code: &str, text: &str) -> String {
        self.cell(code, text, 0)
    }

    /// A cell, padded to `width` *before* the codes, so columns line up either way.
    pub fn cell(self, code: &str, text: &str, width: usize) -> String {
        let padded = format!("{text:<width$}");
        if self.color && !code.is_empty() {
            format!("{code}{padded}{RESET}")
        } else {
            padded
        }
    }

    pub fn bold(self, text: &str) -> String {
        self.cell(BOLD, text, 0)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn colour_only_when_on_and_padding_outside_the_codes() {
        let on = Painter { color: true };
        let off = Painter { color: false };
        assert_eq!(off.paint(RED, "x"), "x");
        assert_eq!(on.paint(RED, "x"), "\x1b[31mx\x1b[0m");
        assert_eq!(on.cell(GREEN, "ok", 4), "\x1b[32mok  \x1b[0m");
        assert_eq!(on.cell("", "ok", 4), "ok  ");
    }
}

//! The hosts a block is given to and the most each takes before it cuts the text to a
//! preview (or drops it): the block is built within that, whole lines only, best first,
//! so nothing is ever cut.
//!
//! - Claude Code replaces `additionalContext` over 10,000 characters with a preview: at
//!   most 9,500 bytes (a byte is at most a character).
//! - Codex takes about 2,500 tokens per hook: at the usual 4 bytes a token, 10,000
//!   bytes; 9,600 leaves room for the estimate's error.
//! - OpenClaw's `prependContext` and the MCP tools have no documented limit: the
//!   configured size alone.

use super::MIN_MAX_BYTES;

/// Who a block is for.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Host {
    ClaudeCode,
    Codex,
    /// `show --format prompt` (the OpenClaw plugin, a heartbeat, a script) and MCP.
    Other,
}

/// Claude Code's `additionalContext` limit, with a margin.
pub const CLAUDE_CODE_MAX_BYTES: usize = 9_500;
/// Codex's per-hook limit (2,500 tokens at 4 bytes a token), with a margin.
pub const CODEX_MAX_BYTES: usize = 9_600;
const _: () = assert!(CODEX_MAX_BYTES / 4 <= 2_500);

impl Host {
    /// The most bytes this host takes, if it has a limit.
    pub fn limit(self) -> Option<usize> {
        match self {
            Host::ClaudeCode => Some(CLAUDE_CODE_MAX_BYTES),
            Host::Codex => Some(CODEX_MAX_BYTES),
            Host::Other => None,
        }
    }

    /// `wanted` (the configured size) within this host's limit.
    pub fn max_bytes(self, wanted: usize) -> usize {
        let wanted = wanted.max(MIN_MAX_BYTES);
        self.limit().map_or(wanted, |limit| wanted.min(limit))
    }

    /// The host's name in messages and session records.
    pub fn name(self) -> &'static str {
        match self {
            Host::ClaudeCode => "claude-code",
            Host::Codex => "codex",
            Host::Other => "show",
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_wanted_size_is_kept_within_the_hosts_limit() {
        for (host, wanted, want) in [
            (Host::ClaudeCode, 2_000, 2_000),
            (Host::ClaudeCode, 50_000, 9_500),
            (Host::Codex, 50_000, 9_600),
            (Host::Other, 50_000, 50_000),
            (Host::Codex, 10, MIN_MAX_BYTES),
        ] {
            assert_eq!(host.max_bytes(wanted), want, "{host:?} {wanted}");
        }
    }
}

//! The hosted providers `thinker init` knows, found by their key variables: their config
//! tables (commented), the thread models it picks on each, and which are remote free
//! tiers (said in the config and in init's output, SPEC §9).
//!
//! Must not: read a key's value (only whether its variable is set).

/// A hosted provider `init` knows, found by its key variable.
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord)]
pub enum Cloud {
    Groq,
    Gemini,
    OpenRouter,
    OpenAi,
    Anthropic,
}

impl Cloud {
    /// In the order of preference for the threads: free tiers first.
    pub const ALL: [Cloud; 5] = [
        Cloud::Groq,
        Cloud::Gemini,
        Cloud::OpenRouter,
        Cloud::OpenAi,
        Cloud::Anthropic,
    ];

    /// The provider's name in the config.
    pub fn name(self) -> &'static str {
        match self {
            Cloud::Groq => "groq",
            Cloud::Gemini => "gemini",
            Cloud::OpenRouter => "openrouter",
            Cloud::OpenAi => "openai",
            Cloud::Anthropic => "anthropic",
        }
    }

    /// The variable that holds its key.
    pub fn var(self) -> &'static str {
        match self {
            Cloud::Groq => "GROQ_API_KEY",
            Cloud::Gemini => "GEMINI_API_KEY",
            Cloud::OpenRouter => "OPENROUTER_API_KEY",
            Cloud::OpenAi => "OPENAI_API_KEY",
            Cloud::Anthropic => "ANTHROPIC_API_KEY",
        }
    }

    /// A remote free tier, whose terms may allow training on what it receives: `init`
    /// says so in the config and in its output (SPEC §9).
    pub fn free_tier(self) -> bool {
        matches!(self, Cloud::Groq | Cloud::Gemini | Cloud::OpenRouter)
    }

    /// The thread models: (light, for watcher and librarian; stronger, for oracle and
    /// dreamer).
    pub(super) fn models(self) -> (&'static str, &'static str) {
        match self {
            Cloud::Groq => ("openai/gpt-oss-20b", "openai/gpt-oss-120b"),
            Cloud::Gemini => ("gemini-2.5-flash-lite", "gemini-2.5-flash"),
            Cloud::OpenRouter => ("openai/gpt-oss-20b:free", "openai/gpt-oss-120b:free"),
            Cloud::OpenAi => ("gpt-5-nano", "gpt-5-mini"),
            Cloud::Anthropic => ("claude-haiku-4-5", "claude-haiku-4-5"),
        }
    }

    /// Its `[providers.<name>]` table, commented.
    pub(super) fn table(self) -> &'static str {
        match self {
            Cloud::Groq => {
                "[providers.groq]
# Groq's free tier: about 30 requests a minute per model.
kind = \"openai\"
base_url = \"https://api.groq.com/openai/v1\"
api_key_env = \"GROQ_API_KEY\"
requests_per_minute = 30
# gpt-oss-120b's prices, the dearer of the two models used below.
price_in = 0.15
price_out = 0.60
"
            }
            Cloud::Gemini => {
                "[providers.gemini]
# Google's OpenAI-compatible endpoint; the free tier allows about 10 requests a minute.
kind = \"openai\"
base_url = \"https://generativelanguage.googleapis.com/v1beta/openai\"
api_key_env = \"GEMINI_API_KEY\"
requests_per_minute = 10
# gemini-2.5-flash's paid prices (the free tier costs nothing, within its limits).
price_in = 0.30
price_out = 2.50
"
            }
            Cloud::OpenRouter => {
                "[providers.openrouter]
# OpenRouter: models ending in `:free` cost nothing (about 20 requests a minute and a
# daily cap). Set price_in / price_out if you choose paid models here.
kind = \"openai\"
base_url = \"https://openrouter.ai/api/v1\"
api_key_env = \"OPENROUTER_API_KEY\"
requests_per_minute = 20
"
            }
            Cloud::OpenAi => {
                "[providers.openai]
kind = \"openai\"
base_url = \"https://api.openai.com/v1\"
api_key_env = \"OPENAI_API_KEY\"
# gpt-5-mini's prices, the dearer of the two models used below.
price_in = 0.25
price_out = 2.0
"
            }
            Cloud::Anthropic => {
                "[providers.anthropic]
kind = \"anthropic\"
base_url = \"https://api.anthropic.com\"
api_key_env = \"ANTHROPIC_API_KEY\"
# Claude Opus's prices (the escalation's model): what the budget counts for every call.
price_in = 5.0
price_out = 25.0
"
            }
        }
    }
}

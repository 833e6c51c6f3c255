//! The one integration-test binary: every test file is a module here, so the suite links
//! once.

#![expect(
    clippy::unwrap_used,
    clippy::expect_used,
    clippy::field_reassign_with_default,
    reason = "tests fail by panicking, on purpose, and build configs field by field"
)]

mod aggregate_budget;
mod aggregate_feedback;
mod aggregate_identity;
mod aggregate_links;
mod aggregate_memory;
mod aggregate_props;
mod aggregate_rules;
mod answer_schema;
mod bench_scripts;
mod build_link;
mod cli;
mod cmd_agent;
mod cmd_doctor;
mod cmd_doctor_lines;
mod cmd_init;
mod cmd_init_dirs;
mod cmd_ops;
mod cmd_snapshots;
mod config_limits;
mod docs;
mod escalation_actions;
mod escalation_decision;
mod escalation_defence;
mod escalation_tick;
mod hook_openclaw;
mod ledger_spending;
mod mcp;
mod notify_apprise;
mod notify_held;
mod notify_kills;
mod notify_retry;
mod notify_stale;
mod notify_webhook;
mod privacy;
mod privacy_leaks;
mod privacy_redaction;
mod prompts;
mod provider_breaker;
mod provider_faults;
mod provider_formats;
mod provider_hostile;
mod provider_litellm;
mod provider_llama;
mod provider_redirect;
mod provider_servers;
mod readers_fuzz;
mod recall_embeddings;
mod recall_rank;
mod replay;
mod report_html;
mod sources_bounded;
mod sources_command;
mod sources_ics;
mod sources_maildir;
mod storage_crash;
mod storage_disk;
mod storage_hostile;
mod storage_overlap;
mod support;
mod tick;
mod tick_links;
mod tick_memory;
mod tick_paraphrase;
mod tick_phases;
mod tick_quiet;
mod tick_spawns;
mod tick_streams;
mod untrusted_fences;
mod untrusted_outbound;
mod untrusted_screen;
mod untrusted_tick;

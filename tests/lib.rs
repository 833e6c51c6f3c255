//! The one integration-test binary: every test file is a module here, so the suite links
//! once.

#![expect(
    clippy::unwrap_used,
    clippy::expect_used,
    clippy::field_reassign_with_default,
    reason = "tests fail by panicking, on purpose, and build configs field by field"
)]

mod aggregate_links;
mod aggregate_memory;
mod aggregate_props;
mod aggregate_rules;
mod bench_scripts;
mod build_link;
mod cli;
mod cmd_agent;
mod cmd_doctor;
mod cmd_init;
mod cmd_ops;
mod cmd_snapshots;
mod escalation_actions;
mod escalation_decision;
mod escalation_defence;
mod escalation_tick;
mod feedback_rules;
mod guard_screen;
mod guard_tick;
mod hardening_config;
mod hardening_init;
mod hardening_input;
mod hardening_memory;
mod hardening_providers;
mod hardening_servers;
mod hardening_spending;
mod hardening_storage;
mod hardening_streams;
mod hardening_untrusted;
mod links_tick;
mod litellm_e2e;
mod llama_e2e;
mod mcp_e2e;
mod memory_tick;
mod openclaw_plugin;
mod privacy;
mod privacy_redaction;
mod prompts;
mod proof_crash;
mod proof_disk;
mod proof_faults;
mod proof_fuzz;
mod proof_overlap;
mod provider_breaker;
mod providers;
mod quiet_tick;
mod recall_embeddings;
mod recall_rank;
mod replay;
mod report_html;
mod sources_command;
mod sources_ics;
mod sources_maildir;
mod support;
mod tick;
mod tick_phases;
mod tick_spawns;

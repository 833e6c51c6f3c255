//! End to end through a real LiteLLM proxy in front of the real llama-server (SmolLM2):
//! the `anthropic` kind on LiteLLM's Anthropic Messages endpoint, with structured outputs
//! (`structured_output = "json_schema"`, sent as `output_config.format`), which LiteLLM
//! turns into the upstream's grammar-constrained `response_format`. Forced tool use is not
//! honoured by this model; structured outputs are.
//!
//! `#[ignore]`d (needs LiteLLM): run with `--ignored` and `THINKER_LITELLM_URL` set (unset,
//! they fail):
//!
//! ```sh
//! bash scripts/ci/e2e-llama-server.sh build && bash scripts/ci/e2e-litellm.sh build
//! LLAMA=$(bash scripts/ci/e2e-llama-server.sh start 8091)
//! LITE=$(bash scripts/ci/e2e-litellm.sh start 4000 http://127.0.0.1:8091)
//! THINKER_LITELLM_URL=http://127.0.0.1:4000 cargo test --test integration provider_litellm -- --ignored --nocapture
//! bash scripts/ci/e2e-litellm.sh stop "$LITE"; bash scripts/ci/e2e-llama-server.sh stop "$LLAMA"
//! ```
//!
//! `THINKER_LITELLM_MODEL` names the routed model (default `smollm2`);
//! `THINKER_LITELLM_SLOTS` the upstream's slots (default 2, the llama-server script's
//! `-np 2`), used as the provider's `concurrency` in the whole tick.

use std::collections::BTreeMap;
use std::time::Duration;

use thinker::answer;
use thinker::config::{ModelRef, ProviderConfig, ProviderKind, StructuredOutput};
use thinker::provider::{CallRequest, Providers};
use thinker::thread::ThreadName;

use crate::provider_llama::{MAX_TOKENS, answered_or_degenerate, watcher_request};
use crate::support::{SEED, Tick};

fn proxy() -> String {
    crate::support::component(
        "THINKER_LITELLM_URL",
        "start one with scripts/ci/e2e-litellm.sh and set THINKER_LITELLM_URL",
    )
}

fn model_name() -> String {
    std::env::var("THINKER_LITELLM_MODEL").unwrap_or_else(|_| "smollm2".into())
}

fn slots() -> u32 {
    std::env::var("THINKER_LITELLM_SLOTS")
        .ok()
        .and_then(|s| s.parse().ok())
        .unwrap_or(2)
}

#[tokio::test]
#[ignore = "needs a LiteLLM proxy in front of llama-server: THINKER_LITELLM_URL"]
async fn litellm_anthropic_structured_output_answers_a_thread() {
    let url = proxy();
    let config = ProviderConfig {
        // A bounded answer (MAX_TOKENS) takes seconds on an idle machine: a wide margin.
        timeout: Duration::from_mins(3),
        retries: 1,
        retry_max_wait: Duration::from_secs(2),
        concurrency: Some(slots()),
        structured_output: StructuredOutput::JsonSchema,
        price_in: 0.1,
        price_out: 0.2,
        ..crate::support::provider("litellm", ProviderKind::Anthropic, &url)
    };
    let p = Providers::new(BTreeMap::from([("litellm".to_string(), config)])).unwrap();
    let model = ModelRef {
        provider: "litellm".into(),
        model: model_name(),
    };
    // Greedy: a small model sampling at 0.4 now and then fills the grammar's free
    // whitespace (tabs and spaces between every token, up to 20 a break, which no count
    // of the schema can bound) until it is cut off; at 0 the answer is the same every run.
    let req = CallRequest {
        temperature: 0.0,
        ..watcher_request()
    };
    let Some(c) = answered_or_degenerate(p.call(&model, &req).await) else {
        return;
    };
    eprintln!(
        "[litellm json_schema] served={} tokens={}/{} latency={:.1}s\n{}",
        c.served_model,
        c.tokens_in,
        c.tokens_out,
        c.latency.as_secs_f64(),
        c.text
    );
    assert!(c.tokens_in > 100 && c.tokens_out > 0, "usage is read");
    let a = answer::parse(ThreadName::Watcher, &c.text)
        .unwrap_or_else(|e| panic!("a grammar-constrained answer must read: {e}\n{}", c.text));
    let most = req.schema["properties"]["findings"]["maxItems"]
        .as_u64()
        .unwrap();
    assert!(a.findings.len() as u64 <= most);
    assert!(c.tokens_out <= u64::from(MAX_TOKENS), "{}", c.tokens_out);
    let raw: serde_json::Value = serde_json::from_str(&c.text).expect("the whole text is JSON");
    assert!(raw.get("findings").is_some(), "{raw}");
}

#[test]
#[ignore = "needs a LiteLLM proxy in front of llama-server: THINKER_LITELLM_URL"]
fn litellm_a_whole_tick_of_four_threads_lands() {
    let url = proxy();
    let provider = format!(
        "[providers.litellm]\nkind = \"anthropic\"\nbase_url = \"{url}\"\n\
         structured_output = \"json_schema\"\nconcurrency = {}\ntimeout_seconds = 180\n\
         retries = 1\n",
        slots()
    );
    // Each thread's answer bounded (its schema fitted to MAX_TOKENS): four calls on two
    // slots take well under a minute on an idle machine; the limits leave a wide margin.
    let mut tick = Tick::new()
        .state(SEED)
        .tick_table("deadline_seconds = 600\nthread_timeout_seconds = 500")
        .config_extra(&provider);
    for thread in ThreadName::ALL {
        tick = tick
            .model(thread, &format!("litellm/{}", model_name()))
            .thread(
                thread,
                &format!("max_tokens = {MAX_TOKENS}\ntemperature = 0"),
            );
    }
    let out = tick.run_with(&["-v"]);
    eprintln!("[litellm tick] stderr:\n{}", out.stderr);
    for thread in ThreadName::ALL {
        let record = out.thread(thread);
        eprintln!(
            "[litellm tick] {thread}: {} in {} ms, tokens {}/{}, error {}",
            record["status"],
            record["latency_ms"],
            record["tokens_in"],
            record["tokens_out"],
            record["error"]
        );
    }
    // The tick lands, and every thread's call went through LiteLLM's Messages endpoint
    // with its own schema (the Librarian's and the Dreamer's with `links`) and came back
    // read: answered, or cut off at exactly MAX_TOKENS with the typed error that names it.
    // Each schema is fitted to MAX_TOKENS for a model that fills its strings with words
    // (issue 32: before, every thread was cut off at 1024); SmolLM2-135M at temperature 0
    // fills the Librarian's with runs of digits, a token each, which no count short of a
    // token a character bounds (see schema_fit's module doc), so a cut-off thread is a
    // typed failure of that thread, never of the tick.
    let state = out.state();
    assert_eq!(state["tick_count"], 5);
    let mut answered = 0;
    for thread in ThreadName::ALL {
        let record = out.thread(thread);
        let tokens_in = record["tokens_in"].as_u64().unwrap_or(0);
        let tokens_out = record["tokens_out"].as_u64().unwrap_or(0);
        assert!(
            tokens_in > 100,
            "{thread}: the call reached the model: {record}"
        );
        assert!(
            (1..=u64::from(MAX_TOKENS)).contains(&tokens_out),
            "{thread}: {record}"
        );
        if record["status"] == "answered" {
            answered += 1;
        } else {
            assert_eq!(record["status"], "failed", "{thread}: {record}");
            assert_eq!(tokens_out, u64::from(MAX_TOKENS), "{thread}: {record}");
            let error = record["error"].as_str().unwrap_or_default();
            assert!(
                error.contains(&format!("cut off at max_tokens ({MAX_TOKENS})")),
                "{thread}: only a cut-off answer may fail: {record}"
            );
        }
    }
    assert!(answered >= 1, "no thread answered:\n{}", out.stderr);
    // Exit 0 when all four answered, 3 (partial) when one was cut off (SPEC §1).
    let partial = if answered == 4 { 0 } else { 3 };
    assert_eq!(out.code, Some(partial), "{}", out.stderr);
}

//! The async runtime of a command: one current-thread runtime per command (one tick
//! needs no more), in one place for every command that awaits (tick, prompt, later
//! doctor). It must not hold any logic of the work it runs. A leaf: its one error
//! ([`RuntimeError`]) is wrapped by `crate::error::Error`, never imported from it.

use std::time::Duration;

/// The async runtime does not start.
#[derive(Debug, thiserror::Error)]
#[error("cannot start the async runtime: {0} (the system is out of threads or file descriptors?)")]
pub struct RuntimeError(#[source] pub std::io::Error);

/// Runs a future to completion on a current-thread runtime, then gives blocking work (a
/// source stuck on a hung mount) at most a second.
pub fn block_on<F: Future>(future: F) -> Result<F::Output, RuntimeError> {
    let runtime = tokio::runtime::Builder::new_current_thread()
        .enable_all()
        .build()
        .map_err(RuntimeError)?;
    let output = runtime.block_on(future);
    runtime.shutdown_timeout(Duration::from_secs(1));
    Ok(output)
}

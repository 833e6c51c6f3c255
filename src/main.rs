//! The `thinker` binary: parse the command line, run it, map the outcome to an exit code.

use std::io::IsTerminal;
use std::process::ExitCode;

use clap::Parser;
use tracing_subscriber::EnvFilter;

fn main() -> ExitCode {
    let cli = match thinker::cli::Cli::try_parse() {
        Ok(cli) => cli,
        Err(e) => {
            let _ = e.print();
            return ExitCode::from(if e.use_stderr() {
                thinker::error::EXIT_USAGE
            } else {
                0
            });
        }
    };
    let level = match (cli.global.quiet, cli.global.verbose) {
        (true, _) => "error",
        (false, 0) => "warn",
        (false, 1) => "info",
        (false, _) => "debug",
    };
    let filter = EnvFilter::try_from_env("THINKER_LOG")
        .unwrap_or_else(|_| EnvFilter::new(format!("thinker={level}")));
    tracing_subscriber::fmt()
        .with_env_filter(filter)
        .with_writer(|| thinker::error::QuietStderr)
        .with_target(false)
        .with_ansi(std::io::stderr().is_terminal())
        .without_time()
        .init();
    thinker::error::report(thinker::run(&cli))
}

//! Reading files for the file sources (`files`, `transcript`, `archive`): on tokio's
//! blocking pool within [`FILE_TIMEOUT`] ([`blocking`]), the head of a file, the tail of
//! a file. Must not clean or interpret what it reads.

use std::io::{self, Read, Seek, SeekFrom};
use std::path::Path;
use std::time::Duration;

use super::error::SourceError;

/// Time limit of the file-reading sources (a hung network mount cannot hold a tick).
const FILE_TIMEOUT: Duration = Duration::from_secs(10);

/// Runs blocking file work off the async threads, within [`FILE_TIMEOUT`]: the work's
/// own error, else [`SourceError::TimedOut`] or [`SourceError::TaskFailed`].
pub(super) async fn blocking<T, E>(
    f: impl FnOnce() -> Result<T, E> + Send + 'static,
) -> Result<T, E>
where
    T: Send + 'static,
    E: From<SourceError> + Send + 'static,
{
    match tokio::time::timeout(FILE_TIMEOUT, tokio::task::spawn_blocking(f)).await {
        Ok(Ok(result)) => result,
        Ok(Err(e)) => Err(SourceError::TaskFailed(e).into()),
        Err(_) => Err(SourceError::TimedOut(FILE_TIMEOUT).into()),
    }
}

/// The first `limit` bytes of a file.
pub(super) fn read_head(path: &Path, limit: usize) -> io::Result<Vec<u8>> {
    let file = std::fs::File::open(path)?;
    let mut buf = Vec::new();
    file.take(u64::try_from(limit).unwrap_or(u64::MAX))
        .read_to_end(&mut buf)?;
    Ok(buf)
}

/// The last bytes of a file.
#[derive(Debug)]
pub(super) struct Tail {
    pub bytes: Vec<u8>,
    /// `bytes` begin at the start of the file or right after a `\n`.
    pub at_line_start: bool,
    /// The file is longer than `bytes`.
    pub cut: bool,
}

/// Reads the last `max` bytes of `path` (one more is read to see whether they begin a
/// line).
pub(super) fn read_tail(path: &Path, max: usize) -> io::Result<Tail> {
    let mut file = std::fs::File::open(path)?;
    let len = file.metadata()?.len();
    let max64 = u64::try_from(max).unwrap_or(u64::MAX);
    if len <= max64 {
        let mut bytes = Vec::new();
        file.take(max64).read_to_end(&mut bytes)?;
        return Ok(Tail {
            bytes,
            at_line_start: true,
            cut: false,
        });
    }
    file.seek(SeekFrom::Start(len - max64 - 1))?;
    let mut bytes = Vec::new();
    file.take(max64 + 1).read_to_end(&mut bytes)?;
    let at_line_start = bytes.first() == Some(&b'\n');
    if !bytes.is_empty() {
        bytes.remove(0);
    }
    Ok(Tail {
        bytes,
        at_line_start,
        cut: true,
    })
}

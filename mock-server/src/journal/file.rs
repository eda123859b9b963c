//! `--journal-file PATH`: every finished exchange appended as one JSON line (the same line
//! `GET /_mock/journal` serves), so CI keeps the whole history however small the in-memory
//! journal is.
//!
//! Lines are rendered and written on a thread of their own, off the call path. The queue
//! between is bounded: when the disk falls 4,096 exchanges behind, finishing an exchange waits
//! for it rather than dropping a line or growing memory.

use std::io::Write;
use std::path::Path;
use std::sync::mpsc::{Receiver, SyncSender, TryRecvError};

use super::stored::Record;
use super::view;

/// How many finished exchanges may wait for the disk.
const QUEUE: usize = 4096;

/// What the writer is sent.
enum Message {
    /// A finished exchange to append.
    Line(Box<Record>),
    /// Flush, then say so.
    Flush(std::sync::mpsc::Sender<()>),
}

/// The writer's end of an open journal file.
#[derive(Debug)]
pub(crate) struct FileSink {
    queue: SyncSender<Message>,
}

impl std::fmt::Debug for Message {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(match self {
            Self::Line(_) => "Line",
            Self::Flush(_) => "Flush",
        })
    }
}

impl FileSink {
    /// Opens `path` for appending (creating it) and starts the writer.
    pub(crate) fn open(path: &Path) -> std::io::Result<Self> {
        let file = std::fs::OpenOptions::new()
            .create(true)
            .append(true)
            .open(path)?;
        let (queue, finished) = std::sync::mpsc::sync_channel(QUEUE);
        let path = path.to_owned();
        std::thread::Builder::new()
            .name("journal-file".into())
            .spawn(move || write_all(&finished, std::io::BufWriter::new(file), &path))?;
        Ok(Self { queue })
    }

    /// Queues a finished exchange.
    pub(crate) fn append(&self, record: Record) {
        // The writer only stops after a write error, which it has already reported.
        let _ = self.queue.send(Message::Line(Box::new(record)));
    }

    /// Blocks until every exchange queued so far is written and flushed.
    pub(crate) fn flush(&self) {
        let (done, flushed) = std::sync::mpsc::channel();
        if self.queue.send(Message::Flush(done)).is_ok() {
            let _ = flushed.recv();
        }
    }
}

/// Writes lines until every sender is gone, flushing whenever the queue runs dry so the file
/// is current between bursts.
fn write_all(finished: &Receiver<Message>, mut out: impl Write, path: &Path) {
    loop {
        let message = match finished.try_recv() {
            Ok(message) => message,
            Err(TryRecvError::Empty) => {
                if let Err(error) = out.flush() {
                    return report(path, &error);
                }
                match finished.recv() {
                    Ok(message) => message,
                    Err(_) => break,
                }
            }
            Err(TryRecvError::Disconnected) => break,
        };
        let record = match message {
            Message::Line(record) => record,
            Message::Flush(done) => {
                if let Err(error) = out.flush() {
                    return report(path, &error);
                }
                let _ = done.send(());
                continue;
            }
        };
        let Ok(mut line) = serde_json::to_vec(&view::exchange(&record)) else {
            continue;
        };
        line.push(b'\n');
        if let Err(error) = out.write_all(&line) {
            return report(path, &error);
        }
    }
    if let Err(error) = out.flush() {
        report(path, &error);
    }
}

fn report(path: &Path, error: &std::io::Error) {
    eprintln!(
        "mock-server: cannot write the journal file {}: {error}; it ends here",
        path.display()
    );
}

//! Attachment uploads: the envelopes `create_attachment_upload` hands out (against the plan's
//! size and rolling daily and weekly limits), the POST that fills one, and the bytes it stored:
//! forgotten a day after the envelope expires, or sooner, oldest first, past the byte cap.

use std::collections::{BTreeMap, HashMap, VecDeque};

use chrono::{DateTime, Utc};

use crate::fixtures::PlanLimits;

/// Why `create_attachment_upload` refused a new envelope.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) enum AttachmentRefusal {
    /// The file is over the plan's per-attachment size.
    TooLarge {
        /// The plan's largest attachment, in bytes.
        limit: u64,
    },
    /// The plan's uploads per rolling window are used up.
    LimitReached {
        /// `day` or `week`.
        window: &'static str,
        /// How many the plan allows in that window.
        limit: u32,
        /// When the oldest upload in the window leaves it.
        next_at: DateTime<Utc>,
    },
}

/// Why an upload POST was refused.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) enum UploadError {
    /// No envelope with this key was issued.
    UnknownKey,
    /// A field of the envelope is missing or was changed.
    FieldMismatch(String),
    /// The envelope's policy has expired.
    Expired,
    /// The envelope already filled its one upload.
    AlreadyUsed,
    /// The file is larger than the size declared for the envelope.
    TooLarge {
        /// The size the envelope allows.
        declared: u64,
    },
    /// The file is larger than all the bytes the mock keeps (`--max-upload-bytes`).
    OverCap {
        /// The cap, in bytes.
        max: u64,
    },
}

/// How long an envelope, and the file it took, are kept after the envelope expires: a client
/// uploads, then passes the URL "on your next tool call", well within a day.
pub(crate) const FILE_TTL: chrono::Duration = chrono::Duration::days(1);

/// An upload envelope handed out by `create_attachment_upload`.
#[derive(Debug, Clone)]
struct IssuedUpload {
    account: String,
    fields: BTreeMap<String, String>,
    size_bytes: u64,
    expires_at: DateTime<Utc>,
    bytes: Option<bytes::Bytes>,
}

/// Every envelope handed out, and when, per account.
#[derive(Debug, Default)]
pub(super) struct Uploads {
    /// Envelopes by their `key` field.
    issued: HashMap<String, IssuedUpload>,
    /// When each upload envelope was handed out, per account, for the daily and weekly limits.
    envelopes: HashMap<String, Vec<DateTime<Utc>>>,
    /// Keys of the filled envelopes, oldest upload first (one already gone is skipped).
    filled: VecDeque<String>,
    /// Bytes of every stored file.
    stored_bytes: u64,
    /// Files evicted at the byte cap since the start or the last reset.
    evicted: u64,
}

/// What the uploads hold, for `GET /_mock/state`.
#[derive(Debug, Clone, Copy, PartialEq, Eq, serde::Serialize)]
pub(crate) struct UploadsKept {
    /// Files stored now.
    pub(crate) files: usize,
    /// Their bytes.
    pub(crate) bytes: u64,
    /// The byte cap.
    pub(crate) max_bytes: u64,
    /// Files evicted (oldest first) to stay under it.
    pub(crate) evicted: u64,
}

impl Uploads {
    /// Forgets every envelope, and the file it took, a day after it expired.
    fn sweep(&mut self, now: DateTime<Utc>) {
        let before = self.issued.len();
        let mut freed = 0;
        self.issued.retain(|_, upload| {
            let keep = now < upload.expires_at + FILE_TTL;
            if !keep {
                freed += upload.bytes.as_ref().map_or(0, |b| len64(b.len()));
            }
            keep
        });
        if self.issued.len() != before {
            self.stored_bytes = self.stored_bytes.saturating_sub(freed);
            let issued = &self.issued;
            self.filled.retain(|key| issued.contains_key(key));
        }
    }

    /// Evicts the oldest files until `incoming` more bytes fit under `max_bytes`.
    fn make_room(&mut self, incoming: u64, max_bytes: u64) {
        while self.stored_bytes.saturating_add(incoming) > max_bytes {
            let Some(oldest) = self.filled.pop_front() else {
                break;
            };
            if let Some(upload) = self.issued.remove(&oldest) {
                let freed = upload.bytes.as_ref().map_or(0, |b| len64(b.len()));
                self.stored_bytes = self.stored_bytes.saturating_sub(freed);
                self.evicted += 1;
            }
        }
    }

    /// What the uploads hold under `max_bytes`.
    pub(super) fn kept(&self, max_bytes: u64) -> UploadsKept {
        UploadsKept {
            files: self.filled.len(),
            bytes: self.stored_bytes,
            max_bytes,
            evicted: self.evicted,
        }
    }

    /// Counts a new envelope for `account`, unless its plan's `limits` refuse it.
    pub(super) fn take_attachment(
        &mut self,
        account: &str,
        limits: &PlanLimits,
        size: u64,
        now: DateTime<Utc>,
    ) -> Result<(), AttachmentRefusal> {
        if size > limits.attachment_max_bytes {
            return Err(AttachmentRefusal::TooLarge {
                limit: limits.attachment_max_bytes,
            });
        }
        let issued = self.envelopes.entry(account.to_owned()).or_default();
        let week = chrono::Duration::days(7);
        issued.retain(|at| now - *at < week);
        for (window, span, limit) in [
            ("day", chrono::Duration::days(1), limits.attachments_per_day),
            ("week", week, limits.attachments_per_week),
        ] {
            let inside: Vec<&DateTime<Utc>> =
                issued.iter().filter(|at| now - **at < span).collect();
            if inside.len() >= usize::try_from(limit).unwrap_or(usize::MAX) {
                let oldest = inside.iter().min().map_or(now, |at| **at);
                return Err(AttachmentRefusal::LimitReached {
                    window,
                    limit,
                    next_at: oldest + span,
                });
            }
        }
        issued.push(now);
        Ok(())
    }

    /// Remembers an envelope so the upload endpoint can check the POST against it.
    pub(super) fn issue(
        &mut self,
        account: &str,
        fields: BTreeMap<String, String>,
        size_bytes: u64,
        expires_at: DateTime<Utc>,
        now: DateTime<Utc>,
    ) {
        self.sweep(now);
        let Some(key) = fields.get("key").cloned() else {
            return;
        };
        self.issued.insert(
            key,
            IssuedUpload {
                account: account.to_owned(),
                fields,
                size_bytes,
                expires_at,
                bytes: None,
            },
        );
    }

    /// Checks an upload POST against its envelope (every field, expiry, size) and stores the file.
    pub(super) fn complete(
        &mut self,
        posted: &BTreeMap<String, String>,
        file: bytes::Bytes,
        now: DateTime<Utc>,
        max_bytes: u64,
    ) -> Result<(), UploadError> {
        self.sweep(now);
        let key = posted.get("key").ok_or(UploadError::UnknownKey)?;
        let issued = self.issued.get_mut(key).ok_or(UploadError::UnknownKey)?;
        if let Some((name, _)) = issued
            .fields
            .iter()
            .find(|(name, value)| posted.get(*name) != Some(value))
        {
            return Err(UploadError::FieldMismatch(name.clone()));
        }
        // One upload per envelope: whoever else saw it (it is in the journal) cannot replace
        // the file its owner sent.
        if issued.bytes.is_some() {
            return Err(UploadError::AlreadyUsed);
        }
        if now >= issued.expires_at {
            return Err(UploadError::Expired);
        }
        if u64::try_from(file.len()).unwrap_or(u64::MAX) > issued.size_bytes {
            return Err(UploadError::TooLarge {
                declared: issued.size_bytes,
            });
        }
        let size = len64(file.len());
        if size > max_bytes {
            return Err(UploadError::OverCap { max: max_bytes });
        }
        let key = key.clone();
        self.make_room(size, max_bytes);
        // `make_room` only removes filled envelopes, never this one.
        if let Some(issued) = self.issued.get_mut(&key) {
            issued.bytes = Some(file);
            self.stored_bytes += size;
            self.filled.push_back(key);
        }
        Ok(())
    }

    pub(super) fn declared_size(&self, key: &str) -> Option<u64> {
        self.issued.get(key).map(|u| u.size_bytes)
    }

    /// The bytes stored under `key`, when `account` uploaded them and they are still kept at
    /// `now`.
    pub(super) fn bytes(
        &self,
        account: &str,
        key: &str,
        now: DateTime<Utc>,
    ) -> Option<bytes::Bytes> {
        self.issued
            .get(key)
            .filter(|u| u.account == account && now < u.expires_at + FILE_TTL)
            .and_then(|u| u.bytes.clone())
    }

    pub(super) fn owns(&self, account: &str, key: &str, now: DateTime<Utc>) -> bool {
        self.bytes(account, key, now).is_some()
    }
}

/// A length in bytes as `u64`.
fn len64(len: usize) -> u64 {
    u64::try_from(len).unwrap_or(u64::MAX)
}

#[cfg(test)]
mod tests {
    use super::*;

    const MAX: u64 = u64::MAX;

    fn limits() -> PlanLimits {
        PlanLimits {
            label: "Test".into(),
            attachment_max_bytes: 10,
            attachments_per_day: 1,
            attachments_per_week: 2,
        }
    }

    #[test]
    fn the_daily_limit_comes_back_a_day_after_the_oldest_upload() {
        let mut uploads = Uploads::default();
        let now = Utc::now();
        assert_eq!(uploads.take_attachment("bob", &limits(), 5, now), Ok(()));
        let refused = uploads.take_attachment("bob", &limits(), 5, now);
        assert_eq!(
            refused,
            Err(AttachmentRefusal::LimitReached {
                window: "day",
                limit: 1,
                next_at: now + chrono::Duration::days(1),
            })
        );
        assert_eq!(
            uploads.take_attachment("bob", &limits(), 11, now),
            Err(AttachmentRefusal::TooLarge { limit: 10 })
        );
    }

    #[test]
    fn a_post_must_carry_every_field_of_its_envelope() {
        let mut uploads = Uploads::default();
        let now = Utc::now();
        let fields: BTreeMap<String, String> = [
            ("key".to_owned(), "k1".to_owned()),
            ("policy".to_owned(), "p".to_owned()),
        ]
        .into();
        uploads.issue(
            "alice",
            fields.clone(),
            4,
            now + chrono::Duration::hours(1),
            now,
        );
        let mut forged = fields.clone();
        forged.insert("policy".into(), "other".into());
        let file = bytes::Bytes::from_static(b"data");
        assert_eq!(
            uploads.complete(&forged, file.clone(), now, MAX),
            Err(UploadError::FieldMismatch("policy".into()))
        );
        assert!(!uploads.owns("alice", "k1", now));
        assert_eq!(uploads.complete(&fields, file.clone(), now, MAX), Ok(()));
        assert!(uploads.owns("alice", "k1", now));
        assert!(!uploads.owns("bob", "k1", now));
        assert_eq!(
            uploads.complete(&fields, bytes::Bytes::from_static(b"more"), now, MAX),
            Err(UploadError::AlreadyUsed)
        );
        assert_eq!(uploads.bytes("alice", "k1", now), Some(file));
        assert_eq!(uploads.bytes("bob", "k1", now), None);
    }

    /// Fills envelope `key` of `size` bytes for alice at `now`.
    fn upload(uploads: &mut Uploads, key: &str, size: usize, now: DateTime<Utc>, max: u64) {
        let fields: BTreeMap<String, String> = [("key".to_owned(), key.to_owned())].into();
        uploads.issue(
            "alice",
            fields.clone(),
            100,
            now + chrono::Duration::minutes(10),
            now,
        );
        let file = bytes::Bytes::from(vec![b'x'; size]);
        assert_eq!(uploads.complete(&fields, file, now, max), Ok(()));
    }

    #[test]
    fn past_the_byte_cap_the_oldest_files_go_and_are_counted() {
        let mut uploads = Uploads::default();
        let now = Utc::now();
        upload(&mut uploads, "a", 4, now, 10);
        upload(&mut uploads, "b", 4, now, 10);
        upload(&mut uploads, "c", 4, now, 10);
        assert!(
            !uploads.owns("alice", "a", now),
            "the oldest file was evicted"
        );
        assert!(uploads.owns("alice", "b", now) && uploads.owns("alice", "c", now));
        assert_eq!(
            uploads.kept(10),
            UploadsKept {
                files: 2,
                bytes: 8,
                max_bytes: 10,
                evicted: 1
            }
        );
        let fields: BTreeMap<String, String> = [("key".to_owned(), "big".to_owned())].into();
        uploads.issue(
            "alice",
            fields.clone(),
            100,
            now + chrono::Duration::minutes(10),
            now,
        );
        let big = bytes::Bytes::from(vec![b'x'; 11]);
        assert_eq!(
            uploads.complete(&fields, big, now, 10),
            Err(UploadError::OverCap { max: 10 })
        );
        assert_eq!(uploads.kept(10).files, 2, "a refused file evicts nothing");
    }

    #[test]
    fn a_file_is_forgotten_a_day_after_its_envelope_expires() {
        let mut uploads = Uploads::default();
        let now = Utc::now();
        upload(&mut uploads, "a", 4, now, MAX);
        let expiry = now + chrono::Duration::minutes(10);
        assert!(uploads.owns(
            "alice",
            "a",
            expiry + FILE_TTL - chrono::Duration::seconds(1)
        ));
        assert!(!uploads.owns("alice", "a", expiry + FILE_TTL));
        // The next upload sweeps it out of memory.
        upload(&mut uploads, "b", 4, expiry + FILE_TTL, MAX);
        assert_eq!(uploads.kept(MAX).files, 1);
        assert_eq!(uploads.kept(MAX).bytes, 4);
        assert_eq!(uploads.kept(MAX).evicted, 0, "expiry is not an eviction");
    }
}

//! Attachment uploads: the envelopes `create_attachment_upload` hands out (against the plan's
//! size and rolling daily and weekly limits), the POST that fills one, and the bytes it stored.

use std::collections::{BTreeMap, HashMap};

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
}

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
}

impl Uploads {
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
    ) {
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
    ) -> Result<(), UploadError> {
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
        issued.bytes = Some(file);
        Ok(())
    }

    pub(super) fn declared_size(&self, key: &str) -> Option<u64> {
        self.issued.get(key).map(|u| u.size_bytes)
    }

    /// The bytes stored under `key`, when `account` uploaded them.
    pub(super) fn bytes(&self, account: &str, key: &str) -> Option<bytes::Bytes> {
        self.issued
            .get(key)
            .filter(|u| u.account == account)
            .and_then(|u| u.bytes.clone())
    }

    pub(super) fn owns(&self, account: &str, key: &str) -> bool {
        self.issued
            .get(key)
            .is_some_and(|u| u.account == account && u.bytes.is_some())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

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
        uploads.issue("alice", fields.clone(), 4, now + chrono::Duration::hours(1));
        let mut forged = fields.clone();
        forged.insert("policy".into(), "other".into());
        let file = bytes::Bytes::from_static(b"data");
        assert_eq!(
            uploads.complete(&forged, file.clone(), now),
            Err(UploadError::FieldMismatch("policy".into()))
        );
        assert!(!uploads.owns("alice", "k1"));
        assert_eq!(uploads.complete(&fields, file.clone(), now), Ok(()));
        assert!(uploads.owns("alice", "k1"));
        assert!(!uploads.owns("bob", "k1"));
        assert_eq!(
            uploads.complete(&fields, bytes::Bytes::from_static(b"more"), now),
            Err(UploadError::AlreadyUsed)
        );
        assert_eq!(uploads.bytes("alice", "k1"), Some(file));
        assert_eq!(uploads.bytes("bob", "k1"), None);
    }
}

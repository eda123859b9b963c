//! The ids the mock hands out, shaped like the live ones.

/// A fresh id with a prefix, shaped like the live ones (`resp_<uuid>`, `msg_<uuid>`).
pub(crate) fn new_id(prefix: &str) -> String {
    format!("{prefix}_{}", uuid::Uuid::new_v4())
}

/// A call id shaped like the live `call_DUjlg6jMJoU92GMfrmD8SVcS` (24 alphanumerics).
pub(crate) fn call_token() -> String {
    uuid::Uuid::new_v4()
        .simple()
        .to_string()
        .chars()
        .take(24)
        .collect()
}

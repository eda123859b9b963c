//! Paging cursors: opaque random strings standing for an offset into one listing, usable only by
//! the account they were handed to, so a forged or borrowed cursor is simply unknown.

use std::collections::HashMap;

/// Why a `cursor` argument was refused.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum CursorError {
    /// Never handed out (forged or mistyped), or handed to another account.
    Unknown,
    /// Handed out for another listing or other arguments.
    OtherQuery,
}

/// What a paging cursor stands for.
#[derive(Debug, Clone)]
struct IssuedCursor {
    account: String,
    /// The listing and its arguments (`projects:<search_term>`, `assets:<thread>:<entry>`).
    scope: String,
    offset: usize,
}

/// Every cursor handed out.
#[derive(Debug, Default)]
pub(super) struct Cursors {
    issued: HashMap<String, IssuedCursor>,
}

impl Cursors {
    /// A cursor for the page of `scope` that starts at `offset`, usable by `account` only.
    pub(super) fn issue(&mut self, account: &str, scope: &str, offset: usize) -> String {
        let cursor = uuid::Uuid::new_v4().simple().to_string();
        self.issued.insert(
            cursor.clone(),
            IssuedCursor {
                account: account.to_owned(),
                scope: scope.to_owned(),
                offset,
            },
        );
        cursor
    }

    /// The offset a cursor stands for, if `account` was handed it for this `scope`.
    pub(super) fn resolve(
        &self,
        account: &str,
        scope: &str,
        cursor: &str,
    ) -> Result<usize, CursorError> {
        let issued = self
            .issued
            .get(cursor)
            .filter(|c| c.account == account)
            .ok_or(CursorError::Unknown)?;
        if issued.scope != scope {
            return Err(CursorError::OtherQuery);
        }
        Ok(issued.offset)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_cursor_works_only_for_its_account_and_listing() {
        let mut cursors = Cursors::default();
        let cursor = cursors.issue("alice", "projects:", 20);
        assert_eq!(cursors.resolve("alice", "projects:", &cursor), Ok(20));
        assert_eq!(
            cursors.resolve("bob", "projects:", &cursor),
            Err(CursorError::Unknown)
        );
        assert_eq!(
            cursors.resolve("alice", "projects:x", &cursor),
            Err(CursorError::OtherQuery)
        );
        assert_eq!(
            cursors.resolve("alice", "projects:", "forged"),
            Err(CursorError::Unknown)
        );
    }
}

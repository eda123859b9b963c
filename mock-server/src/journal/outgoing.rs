//! Credentials the mock itself sends out. An Agent API `mcp` tool makes the mock call an MCP
//! server with the tool's headers and `server_url`; when that server is the mock (the README's
//! example), the calls arrive here as ordinary requests whose custom headers and query
//! parameters no name-based rule would recognise as secrets. The Agent API notes what it is
//! about to send ([`Outgoing::note_tool`]); each arriving request is scrubbed of those values
//! ([`Outgoing::scrub`]) before the journal keeps it, so not even its memory holds them.

use std::collections::{HashSet, VecDeque};
use std::sync::Arc;

use parking_lot::Mutex;

use super::redact::{self, fingerprint};
use super::stored::{Record, StoredHeaders};
use crate::http::encoding::percent_decode;

/// How many credentials are remembered; the oldest are forgotten first (a long-running mock
/// must not grow without bound, and a request comes back to the mock within moments of being
/// sent).
const MOST_REMEMBERED: usize = 1024;

/// One value sent, and where.
#[derive(Debug, Clone, PartialEq, Eq, Hash)]
enum Sent {
    /// A header (lower-case name) and its value.
    Header(String, String),
    /// A query parameter (decoded name) and its decoded value.
    Param(String, String),
}

/// What the mock sent out lately; cheap to clone, all clones share one memory.
#[derive(Debug, Clone, Default)]
pub(crate) struct Outgoing {
    sent: Arc<Mutex<Remembered>>,
}

#[derive(Debug, Default)]
struct Remembered {
    order: VecDeque<Sent>,
    set: HashSet<Sent>,
}

impl Outgoing {
    /// Notes the credentials an `mcp` tool sends with every call: its extra headers (those
    /// without a rule of their own, such as `Cookie`) and the secret-named query parameters of
    /// its `server_url`.
    pub(crate) fn note_tool<'a>(
        &self,
        server_url: &str,
        headers: impl IntoIterator<Item = (&'a String, &'a String)>,
    ) {
        let headers = headers
            .into_iter()
            .map(|(name, value)| (name.to_ascii_lowercase(), value.clone()))
            .filter(|(name, value)| !redact::has_own_rule(name) && !value.is_empty())
            .map(|(name, value)| Sent::Header(name, value));
        let params = redact::url_credentials(server_url)
            .params
            .into_iter()
            .filter(|(_, value)| !value.is_empty())
            .map(|(name, value)| Sent::Param(name, value));
        let mut sent = self.sent.lock();
        for value in headers.chain(params) {
            sent.remember(value);
        }
    }

    /// Replaces, in an arriving request, each header and query value the mock sent out by its
    /// fingerprint.
    pub(crate) fn scrub(&self, record: &mut Record) {
        let sent = self.sent.lock();
        if sent.set.is_empty() {
            return;
        }
        let secret_header = |name: &str, value: &[u8]| {
            let value = std::str::from_utf8(value).ok()?;
            sent.set
                .contains(&Sent::Header(name.to_owned(), value.to_owned()))
                .then(|| fingerprint(value))
        };
        if record
            .request_headers
            .iter()
            .any(|(name, value)| secret_header(name, value).is_some())
        {
            record.request_headers = StoredHeaders::from_pairs(
                record
                    .request_headers
                    .iter()
                    .map(|(name, value)| match secret_header(name, value) {
                        Some(shown) => (name.to_owned(), shown.into_bytes()),
                        None => (name.to_owned(), value.to_vec()),
                    })
                    .collect::<Vec<_>>(),
            );
        }
        if let Some(query) = &mut record.query {
            *query = query
                .split('&')
                .map(|pair| match pair.split_once('=') {
                    Some((name, value))
                        if sent.set.contains(&Sent::Param(
                            percent_decode(name),
                            percent_decode(value),
                        )) =>
                    {
                        format!("{name}={}", fingerprint(&percent_decode(value)))
                    }
                    _ => pair.to_owned(),
                })
                .collect::<Vec<_>>()
                .join("&");
        }
    }
}

impl Remembered {
    fn remember(&mut self, sent: Sent) {
        if self.set.contains(&sent) {
            return;
        }
        if self.order.len() >= MOST_REMEMBERED
            && let Some(oldest) = self.order.pop_front()
        {
            self.set.remove(&oldest);
        }
        self.set.insert(sent.clone());
        self.order.push_back(sent);
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_oldest_credentials_are_forgotten_first() {
        let outgoing = Outgoing::default();
        for i in 0..=MOST_REMEMBERED {
            let header = ("x-token".to_owned(), format!("t{i}"));
            outgoing.note_tool("http://h/mcp", [(&header.0, &header.1)]);
        }
        let sent = outgoing.sent.lock();
        assert_eq!(sent.set.len(), MOST_REMEMBERED);
        assert!(
            !sent
                .set
                .contains(&Sent::Header("x-token".into(), "t0".into()))
        );
        assert!(
            sent.set
                .contains(&Sent::Header("x-token".into(), "t1".into()))
        );
    }

    #[test]
    fn headers_with_a_rule_of_their_own_are_left_to_it() {
        let outgoing = Outgoing::default();
        let cookie = ("Cookie".to_owned(), "a=b".to_owned());
        outgoing.note_tool("http://h/mcp?api_key=k1&mode=x", [(&cookie.0, &cookie.1)]);
        let sent = outgoing.sent.lock();
        assert_eq!(
            sent.order.iter().collect::<Vec<_>>(),
            [&Sent::Param("api_key".into(), "k1".into())]
        );
    }
}

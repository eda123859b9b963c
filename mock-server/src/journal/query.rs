//! Which exchanges a reader wants: `since`, `limit` and the path, method and status filters of
//! `GET /_mock/journal`, also usable from code through [`super::Journal::query`].

use super::stored::Record;
use crate::http::encoding::percent_decode as decode;

/// A selection of the journal.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct JournalQuery {
    /// Only exchanges whose `seq` is at least this.
    pub since: Option<usize>,
    /// At most this many exchanges.
    pub limit: Option<usize>,
    /// Only this path; a trailing `*` matches every path that starts with what precedes it.
    pub path: Option<String>,
    /// Only this method (any case).
    pub method: Option<String>,
    /// Only this status.
    pub status: Option<StatusFilter>,
}

/// A status an exchange must have.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum StatusFilter {
    /// Exactly this status (`0` for exchanges still in progress).
    Exact(u16),
    /// Any status of this class: `Class(4)` is `4xx`.
    Class(u8),
}

/// What `GET /_mock/journal` accepts, for the error sentence.
const ACCEPTED: &str = "since=SEQ, limit=N, path=/exact/path or path=/prefix*, method=POST, \
                        status=200 or status=4xx, follow=true, normalize=true";

impl JournalQuery {
    /// Parses a query string (`since=5&path=/v1/*&follow=true`); also returns whether the
    /// reader asked to follow new exchanges. The error is a sentence naming the bad parameter.
    pub fn parse(query: &str) -> Result<(Self, bool), String> {
        let mut parsed = Self::default();
        let mut follow = false;
        for pair in query.split('&').filter(|p| !p.is_empty()) {
            let (name, value) = pair.split_once('=').unwrap_or((pair, ""));
            let value = decode(value);
            match name {
                "since" => parsed.since = Some(number(name, &value)?),
                "limit" => parsed.limit = Some(number(name, &value)?),
                "path" => parsed.path = Some(value),
                "method" => parsed.method = Some(value.to_ascii_uppercase()),
                "status" => parsed.status = Some(status(&value)?),
                "follow" => {
                    follow = match value.as_str() {
                        "" | "true" | "1" => true,
                        "false" | "0" => false,
                        _ => return Err(format!("follow must be true or false, not `{value}`")),
                    }
                }
                other => {
                    return Err(format!(
                        "unknown journal parameter `{other}`; the journal takes {ACCEPTED}"
                    ));
                }
            }
        }
        Ok((parsed, follow))
    }

    /// Whether a record passes the filters (not `since` or `limit`).
    pub(crate) fn matches(&self, record: &Record) -> bool {
        let path_ok = match self.path.as_deref() {
            None => true,
            Some(pattern) => match pattern.strip_suffix('*') {
                Some(prefix) => record.path.starts_with(prefix),
                None => record.path == pattern,
            },
        };
        let method_ok = self
            .method
            .as_deref()
            .is_none_or(|m| record.method.as_str().eq_ignore_ascii_case(m));
        let status_ok = match self.status {
            None => true,
            Some(StatusFilter::Exact(code)) => record.status == code,
            Some(StatusFilter::Class(class)) => record.status / 100 == u16::from(class),
        };
        path_ok && method_ok && status_ok
    }

    /// The first `seq` asked for.
    pub(crate) fn first(&self) -> usize {
        self.since.unwrap_or(0)
    }
}

fn number(name: &str, value: &str) -> Result<usize, String> {
    value.parse().map_err(|_| {
        format!("{name} must be a whole number (for example {name}=10), not `{value}`")
    })
}

fn status(value: &str) -> Result<StatusFilter, String> {
    let refused =
        || format!("status must be a code such as 200 or a class such as 4xx, not `{value}`");
    if let Some(class) = value.strip_suffix("xx") {
        return match class.parse::<u8>() {
            Ok(class @ 1..=5) => Ok(StatusFilter::Class(class)),
            _ => Err(refused()),
        };
    }
    value
        .parse()
        .map(StatusFilter::Exact)
        .map_err(|_| refused())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_query_string_parses_into_filters() {
        let (query, follow) =
            JournalQuery::parse("since=3&limit=10&path=%2Fv1%2F*&method=post&status=4xx&follow")
                .expect("parses");
        assert!(follow);
        assert_eq!(
            query,
            JournalQuery {
                since: Some(3),
                limit: Some(10),
                path: Some("/v1/*".into()),
                method: Some("POST".into()),
                status: Some(StatusFilter::Class(4)),
            }
        );
        assert_eq!(
            JournalQuery::parse(""),
            Ok((JournalQuery::default(), false))
        );
    }

    #[test]
    fn a_bad_parameter_is_refused_with_a_sentence() {
        for (bad, says) in [
            ("since=-1", "since must be a whole number"),
            ("limit=lots", "limit must be a whole number"),
            ("status=9xx", "status must be a code"),
            ("follow=maybe", "follow must be true or false"),
            ("sort=desc", "unknown journal parameter `sort`"),
        ] {
            let error = JournalQuery::parse(bad).expect_err(bad);
            assert!(error.contains(says), "{bad}: {error}");
        }
    }
}

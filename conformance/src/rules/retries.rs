//! What the retry rules of every surface observe, over one kind of request (an Agent API create,
//! a chat completion): the wait after a refusal that announced one (`Retry-After`), the backoff
//! after a 5xx, how many tries a request got before the client gave up and whether it told the
//! person, and an answered request sent again.
//!
//! Waits are the client's own, so they are judged in real time, from the moment the mock's
//! answer was ready (`real_responded_at`: the client cannot start waiting earlier) to the next
//! request's arrival; a slow client or a busy machine only makes a gap longer, never shorter.

use mock_server::Exchange;
use serde_json::Value;

use crate::check::Outcome;
use crate::transcript::Transcript;

/// The shortest wait after a 5xx that counts as backing off: half the SDKs' first backoff
/// (0.5 s, less their jitter of up to a quarter), well above an immediate retry's few
/// milliseconds.
pub(crate) const MIN_BACKOFF_SECS: f64 = 0.25;
/// The most tries of one request a client may make before it gives up: the SDKs make 3 (two
/// retries by default), and their README's example of a higher setting retries 5 times.
pub(crate) const MAX_TRIES: usize = 6;

/// The wait an answer announced, in seconds: `retry-after-ms` (the Agent API's, which the SDKs
/// read first), else `Retry-After` (whole seconds, as the mock sends it).
pub(super) fn announced_wait_secs(e: &Exchange) -> Option<f64> {
    let header = |name: &str| -> Option<f64> {
        e.response_headers
            .get(name)?
            .as_str()?
            .trim()
            .parse::<f64>()
            .ok()
    };
    header("retry-after-ms")
        .map(|ms| ms / 1000.0)
        .or_else(|| header("retry-after"))
}

/// Real seconds from `answered`'s answer to `next`'s arrival.
fn gap_secs(answered: &Exchange, next: &Exchange) -> f64 {
    (next.real_time - answered.real_responded_at).num_milliseconds() as f64 / 1000.0
}

/// Whether `e` was answered with a server error (a 5xx; 0, a connection reset, is not one).
fn server_error(e: &Exchange) -> bool {
    (500..600).contains(&e.status)
}

/// After each 429 that announced a wait, the next request of `requests` went at least that
/// long after the answer. `noun` names the request (`chat completion`, `create`).
pub(super) fn retry_after_waited(requests: &[&Exchange], noun: &str) -> Outcome {
    let limited: Vec<(&Exchange, f64)> = requests
        .iter()
        .filter(|e| e.status == 429)
        .filter_map(|e| Some((*e, announced_wait_secs(e)?)))
        .collect();
    if limited.is_empty() {
        return Outcome::Unobserved(format!("no {noun} was refused with 429 and a Retry-After"));
    }
    let mut waited = 0;
    for (refused, secs) in &limited {
        let Some(next) = requests.iter().find(|e| e.seq > refused.seq) else {
            continue;
        };
        let gap = gap_secs(refused, next);
        if gap < *secs {
            return Outcome::Violated {
                message: format!(
                    "the 429 at #{} said Retry-After: {secs}, and the next request went {gap:.3} s later (#{})",
                    refused.seq, next.seq
                ),
                evidence: vec![refused.seq, next.seq],
            };
        }
        waited += 1;
    }
    if waited == 0 {
        return Outcome::Unobserved(
            "the request refused with 429 was never sent again, so no wait could be judged".into(),
        );
    }
    Outcome::Pass(format!(
        "{waited} request(s) after a 429 waited out its Retry-After"
    ))
}

/// After each 5xx, the next request of `requests` went at least [`MIN_BACKOFF_SECS`] after the
/// answer (or the wait the answer announced, if longer).
pub(super) fn backed_off(requests: &[&Exchange], noun: &str) -> Outcome {
    let failed: Vec<&Exchange> = requests
        .iter()
        .copied()
        .filter(|e| server_error(e))
        .collect();
    if failed.is_empty() {
        return Outcome::Unobserved(format!("no {noun} was answered with a 5xx"));
    }
    let mut judged = 0;
    let mut shortest = f64::INFINITY;
    for refused in &failed {
        let Some(next) = requests.iter().find(|e| e.seq > refused.seq) else {
            continue;
        };
        let needed = announced_wait_secs(refused).map_or(MIN_BACKOFF_SECS, |announced| {
            announced.max(MIN_BACKOFF_SECS)
        });
        let gap = gap_secs(refused, next);
        if gap < needed {
            return Outcome::Violated {
                message: format!(
                    "the {} at #{} was followed by the next {noun} {gap:.3} s later (#{}): back off at least {needed} s before trying again",
                    refused.status, refused.seq, next.seq
                ),
                evidence: vec![refused.seq, next.seq],
            };
        }
        shortest = shortest.min(gap);
        judged += 1;
    }
    if judged == 0 {
        return Outcome::Unobserved(format!(
            "the {noun} answered with a 5xx was never sent again, so no backoff could be judged"
        ));
    }
    Outcome::Pass(format!(
        "{judged} retry(ies) after a 5xx, each at least {MIN_BACKOFF_SECS} s after the answer (the shortest {shortest:.3} s)"
    ))
}

/// Each request answered only with 5xx was tried at most [`MAX_TRIES`] times, and once the
/// client stopped, it showed the person an error (the user channel's `show`, kind `error`).
pub(super) fn gave_up(t: &Transcript, requests: &[&Exchange], noun: &str) -> Outcome {
    let Some(first) = requests.iter().find(|e| server_error(e)) else {
        return Outcome::Unobserved(format!("no {noun} was answered with a 5xx"));
    };
    let mut bodies: Vec<&Value> = Vec::new();
    for e in requests.iter().filter(|e| server_error(e)) {
        if !bodies.contains(&&e.request_body) {
            bodies.push(&e.request_body);
        }
    }
    let mut given_up = 0;
    for body in bodies {
        let tries: Vec<&Exchange> = requests
            .iter()
            .copied()
            .filter(|e| &e.request_body == body)
            .collect();
        let (Some(head), Some(last)) = (tries.first(), tries.last()) else {
            continue;
        };
        if tries.len() > MAX_TRIES {
            return Outcome::Violated {
                message: format!(
                    "the {noun} first sent at #{} was sent {} times while the service kept failing; give up after at most {MAX_TRIES} tries",
                    head.seq,
                    tries.len()
                ),
                evidence: tries.iter().map(|e| e.seq).collect(),
            };
        }
        if !server_error(last) {
            continue;
        }
        let shown = t.user.iter().any(|u| {
            u.kind == "show"
                && u.at > last.seq
                && u.request.get("kind").and_then(Value::as_str) == Some("error")
        });
        if !shown {
            return Outcome::Violated {
                message: format!(
                    "the {noun} failed {} time(s), the last with {} (#{}), and the client stopped without showing the person an error (a show of kind error)",
                    tries.len(),
                    last.status,
                    last.seq
                ),
                evidence: vec![head.seq, last.seq],
            };
        }
        given_up += 1;
    }
    if given_up == 0 {
        return Outcome::Unobserved(format!(
            "the {noun} answered with {} at #{} was answered in the end, so giving up could not be judged",
            first.status, first.seq
        ));
    }
    Outcome::Pass(format!(
        "{given_up} failing {noun}(s) given up within {MAX_TRIES} tries, with the error shown"
    ))
}

/// No request of `requests` that `answered` accepts (it spent credits) was sent again with the
/// same body.
pub(super) fn answered_not_resent(
    requests: &[&Exchange],
    answered: fn(&Exchange) -> bool,
    noun: &str,
) -> Outcome {
    let done: Vec<&Exchange> = requests.iter().copied().filter(|e| answered(e)).collect();
    if done.is_empty() {
        return Outcome::Unobserved(format!("no {noun} was answered"));
    }
    for first in &done {
        if let Some(again) = requests
            .iter()
            .find(|e| e.seq > first.seq && e.request_body == first.request_body)
        {
            return Outcome::Violated {
                message: format!(
                    "the request answered at #{} (it spent credits) was sent again unchanged at #{}",
                    first.seq, again.seq
                ),
                evidence: vec![first.seq, again.seq],
            };
        }
    }
    Outcome::Pass(format!(
        "{} answered request(s), none sent again",
        done.len()
    ))
}

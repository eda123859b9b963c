//! Signing in with OAuth: the duties the MCP authorization specification puts on a client,
//! judged in the scenarios where it starts with only the MCP URL.
//!
//! The journal shows every credential as a fingerprint (`redacted:…`), the same one in the token
//! endpoint's answer and in a later `Authorization` header, so the rules can follow which token
//! went where without seeing any.

use std::collections::{BTreeSet, HashMap};

use mock_server::percent_decode as decode;
use mock_server::{AUTHORIZE_PATH, Exchange, MCP_PATH, TOKEN_PATH, fingerprint};
use serde_json::Value;

use crate::check::{DocRef, Level, Outcome};
use crate::suite::SIGN_IN;
use crate::transcript::{PERSON_USER_AGENT, Transcript};

use super::documents::MCP_AUTH_SPEC;
use super::ids;
use super::rule::Rule;

pub(super) fn rules() -> Vec<Rule> {
    vec![
        Rule {
            id: ids::OAUTH_PKCE_S256,
            summary: "every authorization request carries a PKCE S256 code_challenge, and the code is exchanged with its code_verifier",
            level: Level::Must,
            doc: DocRef {
                document: MCP_AUTH_SPEC,
                section: "Authorization Code Protection",
                quote: "MCP clients MUST implement PKCE according to OAuth 2.1 Section 7.5.2 and MUST verify PKCE support before proceeding with authorization. [...] MCP clients MUST use the S256 code challenge method when technically capable, as required by OAuth 2.1 Section 4.1.1.",
            },
            scenarios: &[SIGN_IN],
            check: pkce_s256,
        },
        Rule {
            id: ids::OAUTH_RESOURCE_PARAMETER,
            summary: "every authorization request and token request carries resource equal to the MCP URL",
            level: Level::Must,
            doc: DocRef {
                document: MCP_AUTH_SPEC,
                section: "Resource Parameter Implementation",
                quote: "The resource parameter: 1. MUST be included in both authorization requests and token requests. 2. MUST identify the MCP server that the client intends to use the token with. 3. MUST use the canonical URI of the MCP server as defined in RFC 8707 Section 2.",
            },
            scenarios: &[SIGN_IN],
            check: resource_parameter,
        },
        Rule {
            id: ids::OAUTH_TOKEN_AUDIENCE,
            summary: "the MCP endpoint gets only tokens the mock's authorization server issued, and those go to the MCP endpoint only",
            level: Level::Must,
            doc: DocRef {
                document: MCP_AUTH_SPEC,
                section: "Token Handling; Resource Parameter Implementation",
                quote: "MCP clients MUST NOT send tokens to the MCP server other than ones issued by the MCP server's authorization server. [...] The resource parameter: [...] MUST identify the MCP server that the client intends to use the token with.",
            },
            scenarios: &[SIGN_IN],
            check: token_audience,
        },
        Rule {
            id: ids::OAUTH_REFRESH_NEWEST,
            summary: "an expired access token is refreshed, each time with the newest (rotated) refresh token",
            level: Level::Must,
            doc: DocRef {
                document: MCP_AUTH_SPEC,
                section: "Token Theft",
                quote: "Authorization servers SHOULD issue short-lived access tokens to reduce the impact of leaked tokens. For public clients, authorization servers MUST rotate refresh tokens as described in OAuth 2.1 Section 4.3.1 \"Token Endpoint Extension\".",
            },
            scenarios: &["sign-in-refresh"],
            check: refresh_newest,
        },
        Rule {
            id: ids::OAUTH_NO_TOKEN_IN_QUERY,
            summary: "no access token in a URL's query string",
            level: Level::Must,
            doc: DocRef {
                document: MCP_AUTH_SPEC,
                section: "Access Token Usage: Token Requirements",
                quote: "Access tokens MUST NOT be included in the URI query string",
            },
            scenarios: &[SIGN_IN],
            check: no_token_in_query,
        },
        Rule {
            id: ids::OAUTH_BEARER_EVERY_REQUEST,
            summary: "once signed in, every MCP request carries Authorization: Bearer; after a revocation the client signs in again",
            level: Level::Must,
            doc: DocRef {
                document: MCP_AUTH_SPEC,
                section: "Access Token Usage: Token Requirements",
                quote: "MCP client MUST use the Authorization request header field defined in OAuth 2.1 Section 5.1.1: Authorization: Bearer <access-token> Note that authorization MUST be included in every HTTP request from client to server, even if they are part of the same logical session.",
            },
            scenarios: &[SIGN_IN],
            check: bearer_every_request,
        },
    ]
}

/// A request to the token endpoint and what it gave.
struct Grant {
    seq: usize,
    params: HashMap<String, String>,
    /// Fingerprints of the tokens a successful answer issued.
    access_token: Option<String>,
    refresh_token: Option<String>,
}

impl Grant {
    fn kind(&self) -> &str {
        self.params.get("grant_type").map_or("", String::as_str)
    }
}

/// The sign-in traffic of a transcript, in the shapes the rules need.
struct SignIns<'a> {
    /// `GET /oauth/authorize` requests (whoever's browser made them), with their query.
    authorizations: Vec<(usize, HashMap<String, String>)>,
    grants: Vec<Grant>,
    /// The client's own exchanges (not the person's page visits).
    client: Vec<&'a Exchange>,
}

impl<'a> SignIns<'a> {
    fn new(t: &'a Transcript) -> Self {
        let authorizations = t
            .exchanges
            .iter()
            .filter(|e| e.method == "GET" && e.path == AUTHORIZE_PATH)
            .map(|e| (e.seq, params(e.query.as_deref().unwrap_or_default())))
            .collect();
        let grants = t
            .exchanges
            .iter()
            .filter(|e| e.method == "POST" && e.path == TOKEN_PATH)
            .map(|e| {
                let ok = e.status == 200;
                let issued = |key: &str| {
                    ok.then(|| e.response_body.get(key).and_then(Value::as_str))
                        .flatten()
                        .map(str::to_owned)
                };
                Grant {
                    seq: e.seq,
                    params: body_params(&e.request_body),
                    access_token: issued("access_token"),
                    refresh_token: issued("refresh_token"),
                }
            })
            .collect();
        let client = t
            .exchanges
            .iter()
            .filter(|e| {
                e.request_headers.get("user-agent").and_then(Value::as_str)
                    != Some(PERSON_USER_AGENT)
            })
            .collect();
        Self {
            authorizations,
            grants,
            client,
        }
    }

    /// Fingerprints of every access token the mock issued.
    fn issued(&self) -> BTreeSet<&str> {
        self.grants
            .iter()
            .filter_map(|g| g.access_token.as_deref())
            .collect()
    }
}

/// The bearer token's fingerprint of an exchange, if it sent one.
fn bearer(e: &Exchange) -> Option<&str> {
    e.request_headers
        .get("authorization")
        .and_then(Value::as_str)?
        .strip_prefix("Bearer ")
        .map(str::trim)
}

/// A query string or form body, decoded (a repeated name keeps its last value).
fn params(text: &str) -> HashMap<String, String> {
    text.split('&')
        .filter(|p| !p.is_empty())
        .map(|pair| {
            let (name, value) = pair.split_once('=').unwrap_or((pair, ""));
            (decode(name), decode(value))
        })
        .collect()
}

/// A token request's parameters: a form (as the specification says), or JSON.
fn body_params(body: &Value) -> HashMap<String, String> {
    match body {
        Value::String(form) => params(form),
        Value::Object(map) => map
            .iter()
            .map(|(k, v)| {
                (
                    k.clone(),
                    v.as_str().map_or_else(|| v.to_string(), str::to_owned),
                )
            })
            .collect(),
        _ => HashMap::new(),
    }
}

/// The MCP URL the client was given, as the mock's 401 challenge names it: the origin of its
/// `resource_metadata` URL and the MCP path.
fn mcp_url(t: &Transcript) -> Option<String> {
    t.exchanges.iter().find_map(|e| {
        let challenge = e.response_headers.get("www-authenticate")?.as_str()?;
        let (_, rest) = challenge.split_once("resource_metadata=\"")?;
        let metadata = rest.split('"').next()?;
        let origin_end = metadata.find("/.well-known/")?;
        Some(format!("{}{MCP_PATH}", &metadata[..origin_end]))
    })
}

fn pkce_s256(t: &Transcript) -> Outcome {
    let s = SignIns::new(t);
    if s.authorizations.is_empty() {
        return Outcome::Unobserved(
            "no authorization request reached /oauth/authorize: the client never sent the person \
             to sign in"
                .into(),
        );
    }
    let plain: Vec<usize> = s
        .authorizations
        .iter()
        .filter(|(_, q)| {
            q.get("code_challenge").is_none_or(String::is_empty)
                || q.get("code_challenge_method").map(String::as_str) != Some("S256")
        })
        .map(|(seq, _)| *seq)
        .collect();
    if let Some(first) = plain.first() {
        let query = &s
            .authorizations
            .iter()
            .find(|(seq, _)| seq == first)
            .map(|(_, q)| q.clone())
            .unwrap_or_default();
        return Outcome::Violated {
            message: format!(
                "{} of {} authorization requests did not use PKCE S256 (first: #{first} with \
                 code_challenge_method {:?})",
                plain.len(),
                s.authorizations.len(),
                query.get("code_challenge_method")
            ),
            evidence: plain,
        };
    }
    let codes: Vec<&Grant> = s
        .grants
        .iter()
        .filter(|g| g.kind() == "authorization_code")
        .collect();
    let unverified: Vec<usize> = codes
        .iter()
        .filter(|g| g.params.get("code_verifier").is_none_or(String::is_empty))
        .map(|g| g.seq)
        .collect();
    if !unverified.is_empty() {
        return Outcome::Violated {
            message: format!(
                "{} code exchange(s) sent no code_verifier (first: #{})",
                unverified.len(),
                unverified[0]
            ),
            evidence: unverified,
        };
    }
    if codes.is_empty() {
        return Outcome::Unobserved("the client never exchanged an authorization code".into());
    }
    Outcome::Pass(format!(
        "{} authorization request(s) used S256 and {} code exchange(s) sent the verifier",
        s.authorizations.len(),
        codes.len()
    ))
}

fn resource_parameter(t: &Transcript) -> Outcome {
    let Some(mcp) = mcp_url(t) else {
        return Outcome::Unobserved(
            "no 401 challenge named the protected resource: the client never met the sign-in"
                .into(),
        );
    };
    let s = SignIns::new(t);
    if s.authorizations.is_empty() || s.grants.is_empty() {
        return Outcome::Unobserved(
            "the client made no authorization request and token request to judge".into(),
        );
    }
    let requests = s
        .authorizations
        .iter()
        .map(|(seq, q)| (*seq, "authorization", q))
        .chain(s.grants.iter().map(|g| (g.seq, "token", &g.params)));
    let mut bad = Vec::new();
    let mut first = String::new();
    let mut count = 0;
    for (seq, what, query) in requests {
        count += 1;
        let resource = query.get("resource");
        if resource != Some(&mcp) {
            if first.is_empty() {
                first = match resource {
                    None => format!("#{seq}, a {what} request, has no resource"),
                    Some(other) => format!("#{seq}, a {what} request, has resource {other}"),
                };
            }
            bad.push(seq);
        }
    }
    if bad.is_empty() {
        Outcome::Pass(format!("{count} requests carried resource={mcp}"))
    } else {
        Outcome::Violated {
            message: format!(
                "{} of {count} authorization and token requests lack resource={mcp}: {first}",
                bad.len()
            ),
            evidence: bad,
        }
    }
}

fn token_audience(t: &Transcript) -> Outcome {
    let s = SignIns::new(t);
    let issued = s.issued();
    if issued.is_empty() {
        return Outcome::Unobserved("the client never obtained an access token".into());
    }
    for e in &s.client {
        let Some(token) = bearer(e) else { continue };
        let ours = issued.contains(token);
        if e.path != MCP_PATH && ours {
            return Outcome::Violated {
                message: format!(
                    "#{} sent the access token issued for the MCP endpoint to {} {}",
                    e.seq, e.method, e.path
                ),
                evidence: vec![e.seq],
            };
        }
        if e.path == MCP_PATH && !ours {
            return Outcome::Violated {
                message: format!(
                    "#{} sent the MCP endpoint a bearer token its authorization server never \
                     issued in this sign-in",
                    e.seq
                ),
                evidence: vec![e.seq],
            };
        }
    }
    Outcome::Pass(format!(
        "the {} access token(s) issued went to the MCP endpoint only",
        issued.len()
    ))
}

fn refresh_newest(t: &Transcript) -> Outcome {
    let s = SignIns::new(t);
    let mut newest: Option<(usize, &str)> = None;
    let mut refreshes = 0;
    for g in &s.grants {
        if g.kind() == "refresh_token" {
            refreshes += 1;
            let sent = g.params.get("refresh_token").map(String::as_str);
            if let Some((issued_at, token)) = newest
                && sent != Some(token)
            {
                return Outcome::Violated {
                    message: format!(
                        "#{} refreshed with an older refresh token; the newest one was issued at \
                         #{issued_at} (refresh tokens rotate: each works once)",
                        g.seq
                    ),
                    evidence: vec![issued_at, g.seq],
                };
            }
        }
        if let Some(token) = g.refresh_token.as_deref() {
            newest = Some((g.seq, token));
        }
    }
    if refreshes == 0 {
        return Outcome::Unobserved(
            "the access token expired while the person was away, yet the client never used its \
             refresh token"
                .into(),
        );
    }
    Outcome::Pass(format!(
        "{refreshes} refresh(es), each with the newest refresh token"
    ))
}

fn no_token_in_query(t: &Transcript) -> Outcome {
    let s = SignIns::new(t);
    let issued = s.issued();
    if issued.is_empty() {
        return Outcome::Unobserved("the client never obtained an access token".into());
    }
    for e in &s.client {
        let Some(query) = &e.query else { continue };
        for (name, value) in params(query) {
            let shown = if value.starts_with("redacted:") {
                value.clone()
            } else {
                fingerprint(&value)
            };
            if name == "access_token" || issued.contains(shown.as_str()) {
                return Outcome::Violated {
                    message: format!(
                        "#{} {} {} carried an access token in its query string (`{name}`)",
                        e.seq, e.method, e.path
                    ),
                    evidence: vec![e.seq],
                };
            }
        }
    }
    Outcome::Pass("no access token appeared in a query string".into())
}

fn bearer_every_request(t: &Transcript) -> Outcome {
    let s = SignIns::new(t);
    let Some(first_token) = s.grants.iter().find(|g| g.access_token.is_some()) else {
        return Outcome::Unobserved("the client never obtained an access token".into());
    };
    let after: Vec<&&Exchange> = s
        .client
        .iter()
        .filter(|e| e.path == MCP_PATH && e.seq > first_token.seq)
        .collect();
    let missing: Vec<usize> = after
        .iter()
        .filter(|e| bearer(e).is_none())
        .map(|e| e.seq)
        .collect();
    if let Some(first) = missing.first() {
        return Outcome::Violated {
            message: format!(
                "{} of {} MCP requests after signing in (#{}) had no Authorization: Bearer \
                 header (first: #{first})",
                missing.len(),
                after.len(),
                first_token.seq
            ),
            evidence: missing,
        };
    }
    // Where the person's sign-in was revoked, the last time (the runner's script).
    let revoked_at = t
        .user
        .iter()
        .filter(|u| {
            u.kind == "next-message" && u.response.get("revoke_sign_in") == Some(&Value::Bool(true))
        })
        .map(|u| u.at)
        .max();
    let since = revoked_at.unwrap_or(0);
    let fresh: BTreeSet<&str> = s
        .grants
        .iter()
        .filter(|g| g.seq >= since)
        .filter_map(|g| g.access_token.as_deref())
        .collect();
    let used = after
        .iter()
        .find(|e| e.status < 400 && bearer(e).is_some_and(|b| fresh.contains(b)));
    match (used, revoked_at) {
        (Some(e), Some(at)) => Outcome::Pass(format!(
            "after the sign-in was revoked (before #{at}) the client signed in again and used the \
             new token (#{})",
            e.seq
        )),
        (Some(e), None) => Outcome::Pass(format!(
            "{} MCP requests after signing in carried the bearer token (first answered: #{})",
            after.len(),
            e.seq
        )),
        (None, Some(at)) => Outcome::Unobserved(format!(
            "after the sign-in was revoked (before #{at}) the client never signed in again and \
             made a request with a new token"
        )),
        (None, None) => Outcome::Unobserved(
            "no MCP request with the issued token was answered: the client never used its \
             sign-in"
                .into(),
        ),
    }
}

#[cfg(test)]
mod tests {
    use mock_server::Clock;
    use serde_json::json;

    use super::*;
    use crate::transcript::UserRecord;

    const BASE: &str = "http://127.0.0.1:4000";

    fn ex(seq: usize, method: &str, path: &str, status: u16) -> Exchange {
        Exchange::new(seq, method, path, status, Clock::fixed_epoch())
    }

    fn authorize(seq: usize, method: &str, resource: &str) -> Exchange {
        let mut e = ex(seq, "GET", AUTHORIZE_PATH, 302);
        e.query = Some(format!(
            "response_type=code&client_id=c&code_challenge=abc&code_challenge_method={method}&resource={}",
            resource.replace(':', "%3A").replace('/', "%2F")
        ));
        e
    }

    fn token(seq: usize, form: &str, access: &str, refresh: &str) -> Exchange {
        let mut e = ex(seq, "POST", TOKEN_PATH, 200);
        e.request_body = json!(form);
        e.response_body =
            json!({"access_token": fingerprint(access), "refresh_token": fingerprint(refresh)});
        e
    }

    fn mcp(seq: usize, access: Option<&str>, status: u16) -> Exchange {
        let mut e = ex(seq, "POST", MCP_PATH, status);
        if let Some(access) = access {
            e.request_headers.insert(
                "authorization".into(),
                json!(format!("Bearer {}", fingerprint(access))),
            );
        }
        if status == 401 {
            e.response_headers.insert(
                "www-authenticate".into(),
                json!(format!(
                    "Bearer resource_metadata=\"{BASE}/.well-known/oauth-protected-resource{MCP_PATH}\""
                )),
            );
        }
        e
    }

    fn resource() -> String {
        format!("{BASE}{MCP_PATH}")
    }

    fn code_form(verifier: bool, resource: Option<&str>) -> String {
        let mut form = "grant_type=authorization_code&code=redacted:000000000000".to_owned();
        if verifier {
            form.push_str("&code_verifier=redacted:111111111111");
        }
        if let Some(r) = resource {
            form.push_str(&format!(
                "&resource={}",
                r.replace(':', "%3A").replace('/', "%2F")
            ));
        }
        form
    }

    /// A well-behaved sign-in: 401, consent, code exchange, a request with the token.
    fn signed_in() -> Vec<Exchange> {
        vec![
            mcp(0, None, 401),
            authorize(1, "S256", &resource()),
            token(2, &code_form(true, Some(&resource())), "at1", "rt1"),
            mcp(3, Some("at1"), 200),
        ]
    }

    fn transcript(scenario: &str, exchanges: Vec<Exchange>) -> Transcript {
        Transcript::new(scenario, exchanges, Vec::new())
    }

    fn is_pass(o: &Outcome) -> bool {
        matches!(o, Outcome::Pass(_))
    }

    #[test]
    fn a_well_behaved_sign_in_passes_every_rule_it_exercises() {
        let t = transcript("sign-in", signed_in());
        for check in [
            pkce_s256,
            resource_parameter,
            token_audience,
            no_token_in_query,
            bearer_every_request,
        ] {
            let outcome = check(&t);
            assert!(is_pass(&outcome), "{outcome:?}");
        }
    }

    #[test]
    fn plain_pkce_and_a_missing_verifier_are_violations() {
        let mut plain = signed_in();
        plain[1] = authorize(1, "plain", &resource());
        assert!(
            matches!(pkce_s256(&transcript("sign-in", plain)), Outcome::Violated { evidence, .. } if evidence == [1])
        );
        let mut unverified = signed_in();
        unverified[2] = token(2, &code_form(false, Some(&resource())), "at1", "rt1");
        assert!(
            matches!(pkce_s256(&transcript("sign-in", unverified)), Outcome::Violated { evidence, .. } if evidence == [2])
        );
        assert!(matches!(
            pkce_s256(&transcript("sign-in", vec![mcp(0, None, 401)])),
            Outcome::Unobserved(_)
        ));
    }

    #[test]
    fn a_missing_or_other_resource_is_a_violation() {
        let mut missing = signed_in();
        missing[2] = token(2, &code_form(true, None), "at1", "rt1");
        let outcome = resource_parameter(&transcript("sign-in", missing));
        assert!(
            matches!(&outcome, Outcome::Violated { message, .. } if message.contains("#2, a token request, has no resource")),
            "{outcome:?}"
        );
        let mut origin = signed_in();
        origin[1] = authorize(1, "S256", BASE);
        assert!(
            matches!(resource_parameter(&transcript("sign-in", origin)), Outcome::Violated { evidence, .. } if evidence == [1])
        );
    }

    #[test]
    fn the_token_goes_to_the_mcp_endpoint_only_and_only_issued_tokens_go_there() {
        let mut elsewhere = signed_in();
        let mut metadata = ex(4, "GET", "/.well-known/oauth-authorization-server", 200);
        metadata.request_headers.insert(
            "authorization".into(),
            json!(format!("Bearer {}", fingerprint("at1"))),
        );
        elsewhere.push(metadata);
        assert!(
            matches!(token_audience(&transcript("sign-in", elsewhere)), Outcome::Violated { evidence, .. } if evidence == [4])
        );
        let mut foreign = signed_in();
        foreign.push(mcp(4, Some("alice-dev-token"), 200));
        assert!(
            matches!(token_audience(&transcript("sign-in", foreign)), Outcome::Violated { evidence, .. } if evidence == [4])
        );
    }

    #[test]
    fn an_access_token_in_a_query_string_is_a_violation_under_any_name() {
        for query in [
            format!("access_token={}", fingerprint("at1")),
            "token=at1".to_owned(),
        ] {
            let mut exchanges = signed_in();
            exchanges[3].query = Some(query.clone());
            assert!(
                matches!(no_token_in_query(&transcript("sign-in", exchanges)), Outcome::Violated { evidence, .. } if evidence == [3]),
                "{query}"
            );
        }
    }

    #[test]
    fn refreshing_with_an_older_refresh_token_is_a_violation_and_not_refreshing_unobserved() {
        let refresh =
            |rt: &str| format!("grant_type=refresh_token&refresh_token={}", fingerprint(rt));
        let mut good = signed_in();
        good.push(token(4, &refresh("rt1"), "at2", "rt2"));
        good.push(token(5, &refresh("rt2"), "at3", "rt3"));
        assert!(is_pass(&refresh_newest(&transcript(
            "sign-in-refresh",
            good
        ))));
        let mut stale = signed_in();
        stale.push(token(4, &refresh("rt1"), "at2", "rt2"));
        stale.push(token(5, &refresh("rt1"), "at3", "rt3"));
        assert!(
            matches!(refresh_newest(&transcript("sign-in-refresh", stale)), Outcome::Violated { evidence, .. } if evidence == [4, 5])
        );
        assert!(matches!(
            refresh_newest(&transcript("sign-in-refresh", signed_in())),
            Outcome::Unobserved(_)
        ));
    }

    #[test]
    fn a_request_without_the_header_is_a_violation_and_a_revocation_needs_a_new_sign_in() {
        let mut bare = signed_in();
        bare.push(mcp(4, None, 401));
        assert!(
            matches!(bearer_every_request(&transcript("sign-in", bare)), Outcome::Violated { evidence, .. } if evidence == [4])
        );
        let revoked = UserRecord {
            at: 4,
            kind: "next-message".into(),
            request: Value::Null,
            response: json!({"message": "And next week?", "revoke_sign_in": true}),
        };
        let mut gave_up = signed_in();
        gave_up.push(mcp(4, Some("at1"), 401));
        let t = Transcript::new("sign-in-revoked", gave_up.clone(), vec![revoked.clone()]);
        assert!(matches!(bearer_every_request(&t), Outcome::Unobserved(_)));
        let mut again = gave_up;
        again.push(authorize(5, "S256", &resource()));
        again.push(token(6, &code_form(true, Some(&resource())), "at2", "rt2"));
        again.push(mcp(7, Some("at2"), 200));
        let t = Transcript::new("sign-in-revoked", again, vec![revoked]);
        assert!(
            is_pass(&bearer_every_request(&t)),
            "{:?}",
            bearer_every_request(&t)
        );
    }
}

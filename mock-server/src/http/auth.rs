//! Who a request acts as: its bearer token (a built-in dev token or an OAuth access token the
//! mock issued) turned into an [`Account`], or a typed [`AuthFailure`].
//!
//! This module knows no wire shape and no authorization server: the one that issues access
//! tokens implements [`IssuedTokens`] and is handed to the [`Authenticator`]. A surface implements [`Surface`] to say which resource its
//! OAuth tokens must be issued for and how a failure is answered (the MCP endpoint: 401 with a
//! JSON-RPC body and a `WWW-Authenticate` challenge; the Agent API: its error envelope), then
//! takes [`Authenticated<ItsSurface>`] as an axum extractor.

use std::marker::PhantomData;
use std::sync::Arc;

use axum::extract::FromRequestParts;
use axum::response::IntoResponse;
use chrono::{DateTime, Utc};
use http::request::Parts;
use http::{HeaderMap, header};

use crate::clock::Clock;
use crate::world::{Account, World};

/// How requests are authenticated.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub enum AuthMode {
    /// A bearer token is required.
    #[default]
    Bearer,
    /// No token needed; every request acts as `alice`.
    None,
}

/// The account every request acts as under `--auth none`.
const DEFAULT_ACCOUNT: &str = "alice";

/// The sentence a refused dev token gets, on every surface.
pub(crate) const DEV_TOKENS_REFUSED: &str = "this scenario needs a real OAuth sign-in, and the \
    built-in dev tokens (alice-dev-token, bob-dev-token) are refused: send the first request \
    without Authorization and follow the resource_metadata URL of the 401 to sign in";

/// Why a request could not be authenticated.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) enum AuthFailure {
    /// `--auth none` acts as `alice`, and the world has no account `alice`.
    NoDefaultAccount,
    /// The request has no `Authorization` header.
    MissingHeader,
    /// The `Authorization` header carries no bearer token.
    NoBearerToken,
    /// A token this server never issued.
    UnknownToken,
    /// An OAuth access token revoked because its authorization code or refresh token was reused.
    Revoked,
    /// An OAuth access token past its expiry.
    Expired {
        /// When it expired, in virtual time.
        at: DateTime<Utc>,
    },
    /// An OAuth access token issued for another protected resource.
    WrongResource {
        /// The resource the token was issued for.
        issued_for: String,
    },
    /// The account the token was issued for no longer exists.
    AccountGone,
    /// A built-in dev token, on a mock that refuses them (`--no-dev-tokens`).
    DevTokenRefused,
}

/// Which OAuth access tokens a surface accepts.
#[derive(Debug, Clone, Copy)]
pub(crate) enum Audience<'a> {
    /// Only tokens issued for this resource URI (RFC 8707).
    Resource(&'a str),
    /// Tokens issued for any resource this server protects.
    Any,
}

/// An access token an authorization server issued, as far as a check needs it.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) struct IssuedToken {
    /// The account it acts as.
    pub(crate) account: String,
    /// The protected resource it was issued for (RFC 8707).
    pub(crate) resource: String,
    /// When it stops working, in virtual time.
    pub(crate) expires_at: DateTime<Utc>,
    /// Revoked (its code or refresh token was replayed, or an administrator ended it).
    pub(crate) revoked: bool,
}

/// The access tokens an authorization server issued: what the [`Authenticator`] checks a
/// bearer token against when it is not a dev token.
pub(crate) trait IssuedTokens: Send + Sync {
    /// The token, if this server issued it.
    fn issued(&self, token: &str) -> Option<IssuedToken>;
}

/// Checks bearer tokens against the world's dev tokens and the issued OAuth tokens; cheap to
/// clone.
#[derive(Clone)]
pub(crate) struct Authenticator {
    inner: Arc<Inner>,
}

struct Inner {
    mode: AuthMode,
    dev_tokens: bool,
    world: Arc<World>,
    tokens: Arc<dyn IssuedTokens>,
    clock: Clock,
}

impl Authenticator {
    /// An authenticator for `mode`, over the world's accounts and the tokens OAuth issued.
    pub(crate) fn new(
        mode: AuthMode,
        world: Arc<World>,
        tokens: Arc<dyn IssuedTokens>,
        clock: Clock,
    ) -> Self {
        Self {
            inner: Arc::new(Inner {
                mode,
                dev_tokens: true,
                world,
                tokens,
                clock,
            }),
        }
    }

    /// The same authenticator, refusing the built-in dev tokens unless `accepted`.
    pub(crate) fn with_dev_tokens(self, accepted: bool) -> Self {
        let Inner {
            mode,
            world,
            tokens,
            clock,
            ..
        } = &*self.inner;
        Self {
            inner: Arc::new(Inner {
                mode: *mode,
                dev_tokens: accepted,
                world: world.clone(),
                tokens: tokens.clone(),
                clock: clock.clone(),
            }),
        }
    }

    /// Whether the built-in dev tokens authenticate.
    pub(crate) fn accepts_dev_tokens(&self) -> bool {
        self.inner.dev_tokens
    }

    /// The account a request with `headers` acts as, for a surface accepting `audience`.
    pub(crate) fn authenticate(
        &self,
        headers: &HeaderMap,
        audience: Audience<'_>,
    ) -> Result<Arc<Account>, AuthFailure> {
        let Inner {
            mode,
            dev_tokens,
            world,
            tokens,
            clock,
        } = &*self.inner;
        if *mode == AuthMode::None {
            return world
                .account(DEFAULT_ACCOUNT)
                .cloned()
                .ok_or(AuthFailure::NoDefaultAccount);
        }
        if !headers.contains_key(header::AUTHORIZATION) {
            return Err(AuthFailure::MissingHeader);
        }
        let token = bearer_token(headers).ok_or(AuthFailure::NoBearerToken)?;
        if let Some(account) = world.account_for_token(token) {
            return if *dev_tokens {
                Ok(account.clone())
            } else {
                Err(AuthFailure::DevTokenRefused)
            };
        }
        let issued = tokens.issued(token).ok_or(AuthFailure::UnknownToken)?;
        if issued.revoked {
            return Err(AuthFailure::Revoked);
        }
        if clock.now() >= issued.expires_at {
            return Err(AuthFailure::Expired {
                at: issued.expires_at,
            });
        }
        if let Audience::Resource(resource) = audience
            && issued.resource != resource
        {
            return Err(AuthFailure::WrongResource {
                issued_for: issued.resource,
            });
        }
        world
            .account(&issued.account)
            .cloned()
            .ok_or(AuthFailure::AccountGone)
    }
}

/// The token of an `Authorization: Bearer <token>` header (the scheme in either common case,
/// surrounding spaces trimmed); `None` when there is no non-empty bearer token.
pub(crate) fn bearer_token(headers: &HeaderMap) -> Option<&str> {
    let value = headers.get(header::AUTHORIZATION)?.to_str().ok()?;
    let token = value
        .strip_prefix("Bearer ")
        .or_else(|| value.strip_prefix("bearer "))?
        .trim();
    (!token.is_empty()).then_some(token)
}

/// A surface that authenticates its requests: where its authenticator is, which tokens it
/// accepts, and how it answers a failure.
pub(crate) trait Surface<S>: 'static {
    /// The answer to a request that failed authentication.
    type Rejection: IntoResponse;

    /// The authenticator in the surface's state.
    fn authenticator(state: &S) -> &Authenticator;

    /// Which OAuth tokens the surface accepts.
    fn audience(state: &S) -> Audience<'_>;

    /// The surface's answer to `failure`.
    fn reject(state: &S, failure: AuthFailure) -> Self::Rejection;
}

/// The account an authenticated request acts as, extracted for surface `P`.
pub(crate) struct Authenticated<P> {
    /// The account.
    pub(crate) account: Arc<Account>,
    surface: PhantomData<fn() -> P>,
}

impl<S, P> FromRequestParts<S> for Authenticated<P>
where
    S: Send + Sync,
    P: Surface<S>,
{
    type Rejection = P::Rejection;

    async fn from_request_parts(parts: &mut Parts, state: &S) -> Result<Self, Self::Rejection> {
        P::authenticator(state)
            .authenticate(&parts.headers, P::audience(state))
            .map(|account| Self {
                account,
                surface: PhantomData,
            })
            .map_err(|failure| P::reject(state, failure))
    }
}

#[cfg(test)]
mod tests {
    use http::HeaderValue;

    use super::*;

    fn headers(authorization: Option<&'static str>) -> HeaderMap {
        let mut headers = HeaderMap::new();
        if let Some(value) = authorization {
            headers.insert(header::AUTHORIZATION, HeaderValue::from_static(value));
        }
        headers
    }

    /// An authorization server that issued one token per entry.
    struct Issued(Vec<(&'static str, IssuedToken)>);

    impl IssuedTokens for Issued {
        fn issued(&self, token: &str) -> Option<IssuedToken> {
            self.0
                .iter()
                .find(|(issued, _)| *issued == token)
                .map(|(_, details)| details.clone())
        }
    }

    fn clock() -> Clock {
        Clock::new(crate::clock::ClockMode::Manual, Clock::fixed_epoch())
    }

    fn authenticator_with(mode: AuthMode, issued: Issued) -> Authenticator {
        Authenticator::new(mode, Arc::new(World::builtin()), Arc::new(issued), clock())
    }

    fn authenticator(mode: AuthMode) -> Authenticator {
        authenticator_with(mode, Issued(Vec::new()))
    }

    #[test]
    fn a_dev_token_is_its_account_whatever_the_audience() {
        let auth = authenticator(AuthMode::Bearer);
        for value in ["Bearer alice-dev-token", "bearer  alice-dev-token "] {
            let account = auth.authenticate(&headers(Some(value)), Audience::Resource("r"));
            assert_eq!(
                account.map(|a| a.id.clone()).as_deref(),
                Ok("alice"),
                "{value}"
            );
        }
    }

    #[test]
    fn each_kind_of_missing_or_bad_token_has_its_own_failure() {
        let auth = authenticator(AuthMode::Bearer);
        let failure = |value| auth.authenticate(&headers(value), Audience::Any).err();
        assert_eq!(failure(None), Some(AuthFailure::MissingHeader));
        assert_eq!(
            failure(Some("Basic YTpi")),
            Some(AuthFailure::NoBearerToken)
        );
        assert_eq!(failure(Some("Bearer ")), Some(AuthFailure::NoBearerToken));
        assert_eq!(
            failure(Some("Bearer nope")),
            Some(AuthFailure::UnknownToken)
        );
    }

    #[test]
    fn an_issued_token_acts_as_its_account_until_it_expires_or_is_revoked() {
        let now = clock().now();
        let token = |resource: &str, expires_at, revoked| IssuedToken {
            account: "bob".into(),
            resource: resource.into(),
            expires_at,
            revoked,
        };
        let later = now + chrono::Duration::hours(1);
        let auth = authenticator_with(
            AuthMode::Bearer,
            Issued(vec![
                ("live", token("https://r", later, false)),
                ("old", token("https://r", now, false)),
                ("gone", token("https://r", later, true)),
            ]),
        );
        let check = |value, audience| auth.authenticate(&headers(Some(value)), audience);
        let account = check("Bearer live", Audience::Resource("https://r"));
        assert_eq!(account.map(|a| a.id.clone()).as_deref(), Ok("bob"));
        assert_eq!(
            check("Bearer live", Audience::Resource("https://other")).err(),
            Some(AuthFailure::WrongResource {
                issued_for: "https://r".into()
            })
        );
        assert_eq!(
            check("Bearer old", Audience::Any).err(),
            Some(AuthFailure::Expired { at: now })
        );
        assert_eq!(
            check("Bearer gone", Audience::Any).err(),
            Some(AuthFailure::Revoked)
        );
    }

    #[test]
    fn without_authentication_everyone_is_alice() {
        let auth = authenticator(AuthMode::None);
        let account = auth.authenticate(&headers(None), Audience::Any);
        assert_eq!(account.map(|a| a.id.clone()).as_deref(), Ok("alice"));
    }
}

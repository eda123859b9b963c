//! What the authorization server remembers: registered clients, consent requests waiting on the
//! page, authorization codes, access tokens and refresh tokens, all on the virtual clock.
//!
//! One lock guards it all, never held across an `.await`. Tokens are random and opaque; each
//! names its account and resource, so a check is one lookup.

use parking_lot::{Mutex, MutexGuard};
use std::collections::HashMap;

use chrono::{DateTime, Duration, Utc};
use uuid::Uuid;

use crate::http::auth::{IssuedToken, IssuedTokens};

/// How long an access token lives by default (virtual time); `expires_in` says the same.
pub(crate) const ACCESS_TOKEN_TTL: Duration = Duration::hours(1);
/// How long a refresh token lives if it is never used.
pub(crate) const REFRESH_TOKEN_TTL: Duration = Duration::days(30);
/// How long an authorization code can be exchanged (RFC 6749 recommends at most ten minutes).
pub(crate) const CODE_TTL: Duration = Duration::minutes(10);
/// How long the consent page waits for a click.
pub(crate) const CONSENT_TTL: Duration = Duration::minutes(30);

/// How a client authenticates at the token endpoint.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum AuthMethod {
    /// A public client: `client_id` only, PKCE protects the code.
    None,
    /// `client_id` and `client_secret` in the form body.
    SecretPost,
    /// `client_id:client_secret` in an HTTP Basic header.
    SecretBasic,
}

impl AuthMethod {
    pub(crate) fn parse(text: &str) -> Option<Self> {
        match text {
            "none" => Some(Self::None),
            "client_secret_post" => Some(Self::SecretPost),
            "client_secret_basic" => Some(Self::SecretBasic),
            _ => None,
        }
    }

    pub(crate) fn as_str(self) -> &'static str {
        match self {
            Self::None => "none",
            Self::SecretPost => "client_secret_post",
            Self::SecretBasic => "client_secret_basic",
        }
    }
}

/// A client registered through `/oauth/register`.
#[derive(Debug, Clone)]
pub(crate) struct Client {
    pub(crate) client_id: String,
    pub(crate) secret: Option<String>,
    pub(crate) auth_method: AuthMethod,
    pub(crate) redirect_uris: Vec<String>,
    pub(crate) name: Option<String>,
}

/// An authorization request that passed every check and waits for the person's decision.
#[derive(Debug, Clone)]
pub(crate) struct Grant {
    pub(crate) client_id: String,
    pub(crate) redirect_uri: String,
    /// Whether the request named `redirect_uri` (then the token request must repeat it).
    pub(crate) redirect_uri_given: bool,
    pub(crate) state: Option<String>,
    pub(crate) code_challenge: String,
    pub(crate) scope: String,
    pub(crate) resource: String,
}

/// A consent page shown but not answered yet.
#[derive(Debug, Clone)]
struct Pending {
    grant: Grant,
    expires_at: DateTime<Utc>,
}

/// An issued authorization code.
#[derive(Debug, Clone)]
pub(crate) struct Code {
    pub(crate) grant: Grant,
    pub(crate) account: String,
    pub(crate) expires_at: DateTime<Utc>,
    /// Set once exchanged: the token family it produced, revoked if the code is replayed.
    pub(crate) used_by_family: Option<String>,
}

/// An access token.
#[derive(Debug, Clone)]
pub(crate) struct AccessToken {
    pub(crate) account: String,
    pub(crate) resource: String,
    pub(crate) expires_at: DateTime<Utc>,
    pub(crate) family: String,
    pub(crate) revoked: bool,
}

/// A refresh token; each use replaces it with a new one (rotation).
#[derive(Debug, Clone)]
pub(crate) struct RefreshToken {
    pub(crate) client_id: String,
    pub(crate) account: String,
    pub(crate) scope: String,
    pub(crate) resource: String,
    pub(crate) expires_at: DateTime<Utc>,
    pub(crate) family: String,
    pub(crate) used: bool,
    pub(crate) revoked: bool,
}

/// Tokens handed out by one exchange.
#[derive(Debug, Clone)]
pub(crate) struct Issued {
    pub(crate) access_token: String,
    pub(crate) refresh_token: String,
    pub(crate) scope: String,
}

#[derive(Debug, Default)]
struct Inner {
    clients: HashMap<String, Client>,
    pending: HashMap<String, Pending>,
    codes: HashMap<String, Code>,
    access: HashMap<String, AccessToken>,
    refresh: HashMap<String, RefreshToken>,
}

/// The authorization server's memory.
#[derive(Debug)]
pub(crate) struct Store {
    inner: Mutex<Inner>,
    /// Most registered clients.
    max_clients: usize,
    /// Most authorization codes and consent requests kept (expired ones are swept first).
    max_codes: usize,
    /// How long the access tokens it issues live.
    access_lifetime: Duration,
}

impl Default for Store {
    fn default() -> Self {
        let limits = crate::limits::StateLimits::default();
        Self::new(
            ACCESS_TOKEN_TTL,
            limits.max_oauth_clients,
            limits.max_oauth_codes,
        )
    }
}

/// The store already holds as many of something as it keeps.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) struct Full {
    /// How many it keeps.
    pub(crate) max: usize,
}

impl Inner {
    /// Forgets consent requests and codes past their expiry (a late exchange of an expired
    /// code is then refused as unknown rather than as expired: `invalid_grant` either way).
    fn sweep(&mut self, now: DateTime<Utc>) {
        self.pending.retain(|_, p| now < p.expires_at);
        self.codes.retain(|_, c| now < c.expires_at);
    }

    /// Whether one more code or consent request fits in `max`, after a sweep.
    fn room_for_code(&mut self, now: DateTime<Utc>, max: usize) -> Result<(), Full> {
        if self.codes.len() + self.pending.len() >= max {
            self.sweep(now);
        }
        if self.codes.len() + self.pending.len() >= max {
            return Err(Full { max });
        }
        Ok(())
    }
}

/// How many tokens a revocation ended.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub(crate) struct Revoked {
    /// Access tokens that were still usable.
    pub(crate) access_tokens: usize,
    /// Refresh tokens that were still usable.
    pub(crate) refresh_tokens: usize,
}

fn random(prefix: &str) -> String {
    format!("{prefix}{}", Uuid::new_v4().simple())
}

impl Store {
    /// An empty store whose access tokens live `access_lifetime` of virtual time, keeping at
    /// most `max_clients` clients and `max_codes` outstanding codes and consent requests.
    pub(crate) fn new(access_lifetime: Duration, max_clients: usize, max_codes: usize) -> Self {
        Self {
            inner: Mutex::default(),
            access_lifetime,
            max_clients,
            max_codes,
        }
    }

    /// How long the access tokens it issues live (`expires_in`).
    pub(crate) fn access_lifetime(&self) -> Duration {
        self.access_lifetime
    }

    fn lock(&self) -> MutexGuard<'_, Inner> {
        self.inner.lock()
    }

    /// Registers a client and returns it with its new id (and secret, unless public), or
    /// [`Full`] when as many clients as the store keeps are registered.
    pub(crate) fn register(
        &self,
        auth_method: AuthMethod,
        redirect_uris: Vec<String>,
        name: Option<String>,
    ) -> Result<Client, Full> {
        let mut inner = self.lock();
        if inner.clients.len() >= self.max_clients {
            return Err(Full {
                max: self.max_clients,
            });
        }
        let client = Client {
            client_id: random("mock-client-"),
            secret: (auth_method != AuthMethod::None).then(|| random("mock-secret-")),
            auth_method,
            redirect_uris,
            name,
        };
        inner
            .clients
            .insert(client.client_id.clone(), client.clone());
        Ok(client)
    }

    /// A registered client.
    pub(crate) fn client(&self, client_id: &str) -> Option<Client> {
        self.lock().clients.get(client_id).cloned()
    }

    /// Parks a checked authorization request until the person decides; returns its id, or
    /// [`Full`] when as many codes and consent requests as the store keeps are outstanding.
    pub(crate) fn park(&self, grant: Grant, now: DateTime<Utc>) -> Result<String, Full> {
        let id = random("consent-");
        let mut inner = self.lock();
        inner.room_for_code(now, self.max_codes)?;
        inner.pending.insert(
            id.clone(),
            Pending {
                grant,
                expires_at: crate::clock::after(now, CONSENT_TTL),
            },
        );
        Ok(id)
    }

    /// Takes a parked request (once): `None` if unknown, already answered, or expired.
    pub(crate) fn take_pending(&self, id: &str, now: DateTime<Utc>) -> Option<Grant> {
        let pending = self.lock().pending.remove(id)?;
        (now < pending.expires_at).then_some(pending.grant)
    }

    /// Issues an authorization code for `account`, or [`Full`] when as many codes and consent
    /// requests as the store keeps are outstanding.
    pub(crate) fn issue_code(
        &self,
        grant: Grant,
        account: &str,
        now: DateTime<Utc>,
    ) -> Result<String, Full> {
        let code = random("mock-code-");
        let mut inner = self.lock();
        inner.room_for_code(now, self.max_codes)?;
        inner.codes.insert(
            code.clone(),
            Code {
                grant,
                account: account.to_owned(),
                expires_at: crate::clock::after(now, CODE_TTL),
                used_by_family: None,
            },
        );
        Ok(code)
    }

    /// Runs `f` on a code, under the lock, so checking and spending it is one step.
    pub(crate) fn with_code<R>(&self, code: &str, f: impl FnOnce(Option<&mut Code>) -> R) -> R {
        f(self.lock().codes.get_mut(code))
    }

    /// Revokes every token of a family (after a replayed code or a reused refresh token).
    pub(crate) fn revoke_family(&self, family: &str) {
        let mut inner = self.lock();
        for token in inner.access.values_mut().filter(|t| t.family == family) {
            token.revoked = true;
        }
        for token in inner.refresh.values_mut().filter(|t| t.family == family) {
            token.revoked = true;
        }
    }

    /// Revokes every access and refresh token issued for `account` (every account's when
    /// `None`), as an administrator signing the person out would: the client must sign in again.
    pub(crate) fn revoke_account(&self, account: Option<&str>) -> Revoked {
        let mut inner = self.lock();
        let mine = |owner: &str| account.is_none_or(|a| a == owner);
        let mut revoked = Revoked::default();
        for token in inner.access.values_mut().filter(|t| mine(&t.account)) {
            revoked.access_tokens += usize::from(!token.revoked);
            token.revoked = true;
        }
        for token in inner.refresh.values_mut().filter(|t| mine(&t.account)) {
            revoked.refresh_tokens += usize::from(!token.revoked && !token.used);
            token.revoked = true;
        }
        revoked
    }

    /// Mints an access token and a refresh token in `family`.
    pub(crate) fn issue_tokens(
        &self,
        client_id: &str,
        account: &str,
        scope: &str,
        resource: &str,
        family: &str,
        now: DateTime<Utc>,
    ) -> Issued {
        let access_token = random("mock-at-");
        let refresh_token = random("mock-rt-");
        let mut inner = self.lock();
        inner.access.insert(
            access_token.clone(),
            AccessToken {
                account: account.to_owned(),
                resource: resource.to_owned(),
                expires_at: crate::clock::after(now, self.access_lifetime),
                family: family.to_owned(),
                revoked: false,
            },
        );
        inner.refresh.insert(
            refresh_token.clone(),
            RefreshToken {
                client_id: client_id.to_owned(),
                account: account.to_owned(),
                scope: scope.to_owned(),
                resource: resource.to_owned(),
                expires_at: crate::clock::after(now, REFRESH_TOKEN_TTL),
                family: family.to_owned(),
                used: false,
                revoked: false,
            },
        );
        Issued {
            access_token,
            refresh_token,
            scope: scope.to_owned(),
        }
    }

    /// A new token family id.
    pub(crate) fn new_family() -> String {
        random("family-")
    }

    /// Runs `f` on a refresh token under the lock, so checking and spending it is one step.
    pub(crate) fn with_refresh<R>(
        &self,
        token: &str,
        f: impl FnOnce(Option<&mut RefreshToken>) -> R,
    ) -> R {
        f(self.lock().refresh.get_mut(token))
    }
}

impl IssuedTokens for Store {
    fn issued(&self, token: &str) -> Option<IssuedToken> {
        self.lock().access.get(token).map(|issued| IssuedToken {
            account: issued.account.clone(),
            resource: issued.resource.clone(),
            expires_at: issued.expires_at,
            revoked: issued.revoked,
        })
    }
}

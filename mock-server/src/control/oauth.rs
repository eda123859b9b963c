//! `POST /_mock/oauth/revoke`: ends every OAuth sign-in (of one account, or of all), as an
//! administrator revoking a host's access would. The host's next request gets 401 and it must
//! sign in again; its refresh token is refused too.

use axum::body::Bytes;
use axum::extract::State;
use serde::Deserialize;
use serde_json::{Value, json};

use super::error::ControlError;
use super::state::ControlState;

#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
struct Revoke {
    /// Only this account's tokens; every account's when absent.
    account: Option<String>,
}

/// The handler: an empty body (or `{}`) revokes every token, `{"account": "alice"}` alice's.
pub(crate) async fn revoke(
    State(app): State<ControlState>,
    body: Bytes,
) -> Result<axum::Json<Value>, ControlError> {
    let request = if body.iter().all(u8::is_ascii_whitespace) {
        Revoke { account: None }
    } else {
        match serde_json::from_slice::<Revoke>(&body) {
            Ok(request) => request,
            Err(e) => {
                return Err(ControlError::bad_request(format!(
                    "the body must be empty or {{\"account\": \"alice\"}} (the only field): {e}"
                )));
            }
        }
    };
    if let Some(account) = &request.account
        && app.world().account(account).is_none()
    {
        let known: Vec<&str> = app
            .world()
            .accounts()
            .iter()
            .map(|a| a.id.as_str())
            .collect();
        return Err(ControlError::not_found(format!(
            "no account `{account}`; the accounts are {}",
            known.join(", ")
        )));
    }
    let revoked = app.oauth().revoke_account(request.account.as_deref());
    Ok(axum::Json(json!({
        "account": request.account,
        "revoked_access_tokens": revoked.access_tokens,
        "revoked_refresh_tokens": revoked.refresh_tokens,
    })))
}

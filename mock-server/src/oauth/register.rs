//! Dynamic client registration (RFC 7591): `POST /oauth/register`.
//!
//! What a host sends is echoed back (redirect URIs, name, grant types, `application_type`), so
//! it sees its own metadata confirmed. Public clients (`none`) get no secret; confidential ones
//! (`client_secret_post`, `client_secret_basic`, the RFC's default) get one.

use axum::Json;
use axum::body::Bytes;
use axum::extract::State;
use axum::http::{HeaderValue, StatusCode, header};
use axum::response::{IntoResponse, Response};
use serde_json::{Map, Value, json};

use super::error::{Code, OAuthError};
use super::resource::SCOPE;
use super::store::AuthMethod;
use crate::AppState;

/// `POST /oauth/register`.
pub(crate) async fn register(State(app): State<AppState>, body: Bytes) -> Response {
    match register_client(&app, &body) {
        Ok(body) => {
            let mut response = (StatusCode::CREATED, Json(body)).into_response();
            response
                .headers_mut()
                .insert(header::CACHE_CONTROL, HeaderValue::from_static("no-store"));
            response
        }
        Err(e) => e.into_response(),
    }
}

fn metadata_error(message: impl Into<String>) -> OAuthError {
    OAuthError::new(Code::InvalidClientMetadata, message)
}

fn register_client(app: &AppState, body: &[u8]) -> Result<Value, OAuthError> {
    let request: Map<String, Value> = serde_json::from_slice(body).map_err(|e| {
        metadata_error(format!(
            "The registration request must be a JSON object of client metadata (RFC 7591): {e}"
        ))
    })?;
    let redirect_uris = redirect_uris(&request)?;
    let method_name = match request.get("token_endpoint_auth_method") {
        None => "client_secret_basic",
        Some(Value::String(name)) => name.as_str(),
        Some(other) => {
            return Err(metadata_error(format!(
                "`token_endpoint_auth_method` must be a string, not {other}"
            )));
        }
    };
    let auth_method = AuthMethod::parse(method_name).ok_or_else(|| {
        metadata_error(format!(
            "`token_endpoint_auth_method` `{method_name}` is not supported: use `none`, \
             `client_secret_post` or `client_secret_basic`."
        ))
    })?;
    let application_type = match request.get("application_type") {
        None => "web".to_owned(),
        Some(Value::String(kind)) if kind == "web" || kind == "native" => kind.clone(),
        Some(other) => {
            return Err(metadata_error(format!(
                "`application_type` must be `native` or `web`, not {other}"
            )));
        }
    };
    for (field, allowed) in [
        ("grant_types", &["authorization_code", "refresh_token"][..]),
        ("response_types", &["code"][..]),
    ] {
        if let Some(values) = request.get(field) {
            let listed: Option<Vec<&str>> = values
                .as_array()
                .map(|items| items.iter().filter_map(Value::as_str).collect());
            match listed {
                Some(names) if names.iter().all(|n| allowed.contains(n)) => {}
                _ => {
                    return Err(metadata_error(format!(
                        "`{field}` may only list {}; got {values}",
                        allowed.join(", ")
                    )));
                }
            }
        }
    }
    let name = request
        .get("client_name")
        .and_then(Value::as_str)
        .map(str::to_owned);
    let client = app
        .oauth()
        .register(auth_method, redirect_uris.clone(), name.clone());
    let issued_at = app.clock().now().timestamp();
    // Echo the request, then set what the server decides.
    let mut answer = request;
    answer.insert("client_id".into(), client.client_id.into());
    answer.insert("client_id_issued_at".into(), issued_at.into());
    if let Some(secret) = client.secret {
        answer.insert("client_secret".into(), secret.into());
        answer.insert("client_secret_expires_at".into(), 0.into());
    }
    answer.insert("redirect_uris".into(), json!(redirect_uris));
    answer.insert(
        "token_endpoint_auth_method".into(),
        auth_method.as_str().into(),
    );
    answer.insert("application_type".into(), application_type.into());
    answer
        .entry("grant_types")
        .or_insert_with(|| json!(["authorization_code", "refresh_token"]));
    answer
        .entry("response_types")
        .or_insert_with(|| json!(["code"]));
    answer.entry("scope").or_insert_with(|| SCOPE.into());
    Ok(Value::Object(answer))
}

/// The redirect URIs: at least one, each an absolute URI without a fragment (RFC 6749 §3.1.2).
fn redirect_uris(request: &Map<String, Value>) -> Result<Vec<String>, OAuthError> {
    let invalid = |message: String| OAuthError::new(Code::InvalidRedirectUri, message);
    let Some(list) = request.get("redirect_uris").and_then(Value::as_array) else {
        return Err(invalid(
            "`redirect_uris` is required: an array with the URL(s) the browser returns to, such \
             as [\"http://127.0.0.1:33418/callback\"]."
                .into(),
        ));
    };
    if list.is_empty() {
        return Err(invalid(
            "`redirect_uris` is empty: register at least one redirect URI.".into(),
        ));
    }
    list.iter()
        .map(|uri| {
            let Some(uri) = uri.as_str() else {
                return Err(invalid(format!(
                    "each redirect URI must be a string, not {uri}"
                )));
            };
            let scheme_ok = uri.split_once(':').is_some_and(|(scheme, rest)| {
                !scheme.is_empty()
                    && scheme
                        .chars()
                        .all(|c| c.is_ascii_alphanumeric() || "+-.".contains(c))
                    && !rest.is_empty()
            });
            if !scheme_ok {
                return Err(invalid(format!(
                    "redirect URI `{uri}` is not an absolute URI (it needs a scheme, like http://127.0.0.1:33418/callback)"
                )));
            }
            if uri.contains('#') {
                return Err(invalid(format!(
                    "redirect URI `{uri}` has a fragment; RFC 6749 §3.1.2 forbids one"
                )));
            }
            Ok(uri.to_owned())
        })
        .collect()
}

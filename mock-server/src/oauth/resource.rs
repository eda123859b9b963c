//! What the authorization server and the resources it protects agree on: the endpoint paths, the
//! one scope, the issuer, the canonical resource URIs, and the `WWW-Authenticate` challenge a
//! protected resource answers a missing or bad token with.

use axum::http::HeaderValue;

/// Path of the MCP endpoint, which the metadata describes.
pub const MCP_PATH: &str = "/rest/computer/mcp";
/// Path-inserted protected resource metadata URL for the MCP endpoint (RFC 9728).
pub(crate) const RESOURCE_METADATA_PATH: &str =
    "/.well-known/oauth-protected-resource/rest/computer/mcp";
/// The authorization endpoint (consent page).
pub const AUTHORIZE_PATH: &str = "/oauth/authorize";
/// The token endpoint.
pub const TOKEN_PATH: &str = "/oauth/token";
/// The dynamic client registration endpoint.
pub const REGISTER_PATH: &str = "/oauth/register";
/// The one scope the MCP endpoint knows.
pub(crate) const SCOPE: &str = "computer";
/// Path of the Agent API, a second protected resource: a token for it is not one for MCP.
const AGENT_API_PATH: &str = "/v1";

/// The issuer: the base URL, no trailing slash, the same string everywhere it appears.
pub(crate) fn issuer(base_url: &str) -> String {
    base_url.trim_end_matches('/').to_owned()
}

/// The canonical resource URI of the MCP endpoint (RFC 8707).
pub(crate) fn mcp_resource(base_url: &str) -> String {
    format!("{}{MCP_PATH}", issuer(base_url))
}

/// The canonical form of a `resource` this server protects, or `None`. The bare origin means
/// the MCP endpoint, since some clients send it without the path.
pub(crate) fn canonical_resource(base_url: &str, resource: &str) -> Option<String> {
    let base = issuer(base_url);
    let trimmed = resource.trim_end_matches('/');
    let agent = format!("{base}{AGENT_API_PATH}");
    if trimmed == base || trimmed == mcp_resource(base_url) {
        Some(mcp_resource(base_url))
    } else if trimmed == agent {
        Some(agent)
    } else {
        None
    }
}

/// The `WWW-Authenticate` value of a 401 from the MCP endpoint (RFC 6750 §3, RFC 9728 §5.1):
/// `why` as the error description, the protected resource metadata URL, and the one scope the
/// metadata lists, as the MCP authorization spec recommends (and the real service sends), so a
/// client asks for exactly it.
pub(crate) fn challenge(base_url: &str, why: &str) -> Option<HeaderValue> {
    let metadata = format!("{base_url}{RESOURCE_METADATA_PATH}");
    let value = format!(
        "Bearer error=\"invalid_token\", error_description=\"{}\", \
         resource_metadata=\"{metadata}\", scope=\"{SCOPE}\"",
        why.replace('"', "'")
    );
    HeaderValue::from_str(&value).ok()
}

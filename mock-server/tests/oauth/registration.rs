//! Discovery metadata and dynamic client registration: what the mock announces, and what a
//! registration must carry.

use super::*;

#[tokio::test(start_paused = true)]
async fn the_resource_metadata_names_the_mock_as_its_authorization_server() {
    let mock = Mock::new();
    let prm = mock
        .get("/.well-known/oauth-protected-resource/rest/computer/mcp")
        .await;
    let asm = mock.get("/.well-known/oauth-authorization-server").await;
    assert_eq!(prm.body["authorization_servers"], json!([BASE]));
    assert_eq!(asm.body["issuer"], BASE, "no trailing slash");
    let oidc = mock.get("/.well-known/openid-configuration").await;
    assert_eq!(oidc.body, asm.body);
}

#[tokio::test(start_paused = true)]
async fn the_authorization_server_metadata_offers_code_s256_and_iss() {
    let mock = Mock::new();
    let asm = mock.get("/.well-known/oauth-authorization-server").await;
    assert_eq!(asm.status, StatusCode::OK);
    let mut settings = insta::Settings::clone_current();
    settings.set_snapshot_path(concat!(env!("CARGO_MANIFEST_DIR"), "/../snapshots"));
    settings.set_prepend_module_to_snapshot(false);
    settings.set_omit_expression(true);
    settings.set_description("GET /.well-known/oauth-authorization-server");
    settings.bind(|| insta::assert_json_snapshot!("oauth-authorization-server-metadata", asm.body));
}

#[tokio::test(start_paused = true)]
async fn registration_echoes_the_metadata_and_gives_public_clients_no_secret() {
    let mock = Mock::new();
    let request = json!({
        "client_name": "probe", "redirect_uris": [REDIRECT, "cursor://anysphere.cursor-retrieval/oauth/callback"],
        "token_endpoint_auth_method": "none", "application_type": "native", "scope": "computer",
        "grant_types": ["authorization_code", "refresh_token"], "response_types": ["code"],
    });
    let reply = mock.post_json("/oauth/register", request.clone()).await;
    assert_eq!(reply.status, StatusCode::CREATED, "{reply:?}");
    for field in [
        "client_name",
        "redirect_uris",
        "token_endpoint_auth_method",
        "application_type",
        "grant_types",
        "response_types",
        "scope",
    ] {
        assert_eq!(reply.body[field], request[field], "{field}");
    }
    assert!(reply.body["client_id"].is_string());
    assert!(
        reply.body.get("client_secret").is_none(),
        "{:?}",
        reply.body
    );
    assert_eq!(reply.headers["cache-control"], "no-store");
}

#[tokio::test(start_paused = true)]
async fn confidential_clients_get_a_secret_and_must_present_it() {
    let mock = auto("alice");
    for method in ["client_secret_post", "client_secret_basic"] {
        let reply = mock
            .post_json(
                "/oauth/register",
                json!({"redirect_uris": [REDIRECT], "token_endpoint_auth_method": method}),
            )
            .await;
        assert_eq!(reply.status, StatusCode::CREATED, "{reply:?}");
        assert_eq!(reply.body["application_type"], "web", "the RFC default");
        let id = reply.body["client_id"].as_str().expect("id").to_owned();
        let secret = reply.body["client_secret"]
            .as_str()
            .expect("secret")
            .to_owned();
        let code = code(&mock, &id).await;
        let resource = mcp_url();
        let mut fields = vec![
            ("grant_type", "authorization_code"),
            ("code", code.as_str()),
            ("redirect_uri", REDIRECT),
            ("code_verifier", VERIFIER),
            ("resource", resource.as_str()),
        ];
        // First without the secret: refused, and the code stays usable.
        let bare = post_form(
            &mock,
            "/oauth/token",
            form(&[fields.clone(), vec![("client_id", id.as_str())]].concat()),
            &[],
        )
        .await;
        assert_oauth_error(&bare, StatusCode::UNAUTHORIZED, "invalid_client", method);
        let wrong = post_form(
            &mock,
            "/oauth/token",
            form(
                &[
                    fields.clone(),
                    vec![("client_id", id.as_str()), ("client_secret", "nope")],
                ]
                .concat(),
            ),
            &[],
        )
        .await;
        if method == "client_secret_post" {
            assert_oauth_error(&wrong, StatusCode::UNAUTHORIZED, "invalid_client", "wrong");
        }
        let reply = if method == "client_secret_post" {
            fields.push(("client_id", &id));
            fields.push(("client_secret", &secret));
            post_form(&mock, "/oauth/token", form(&fields), &[]).await
        } else {
            let basic = format!("Basic {}", base64(&format!("{id}:{secret}")));
            post_form(
                &mock,
                "/oauth/token",
                form(&fields),
                &[("authorization", &basic)],
            )
            .await
        };
        assert_eq!(reply.status, StatusCode::OK, "{method}: {reply:?}");
    }
}

fn base64(text: &str) -> String {
    const ALPHABET: &[u8; 64] = b"ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/";
    let bytes = text.as_bytes();
    let mut out = String::new();
    for chunk in bytes.chunks(3) {
        let b = [
            chunk[0],
            *chunk.get(1).unwrap_or(&0),
            *chunk.get(2).unwrap_or(&0),
        ];
        let n = (u32::from(b[0]) << 16) | (u32::from(b[1]) << 8) | u32::from(b[2]);
        for i in 0..4 {
            if i <= chunk.len() {
                out.push(ALPHABET[((n >> (18 - 6 * i)) & 63) as usize] as char);
            } else {
                out.push('=');
            }
        }
    }
    out
}

#[tokio::test(start_paused = true)]
async fn registration_without_usable_metadata_is_refused_saying_what_to_fix() {
    let mock = Mock::new();
    let cases = [
        (
            json!({"client_name": "x"}),
            "invalid_redirect_uri",
            "`redirect_uris` is required",
        ),
        (
            json!({"redirect_uris": []}),
            "invalid_redirect_uri",
            "empty",
        ),
        (
            json!({"redirect_uris": ["not a uri"]}),
            "invalid_redirect_uri",
            "absolute URI",
        ),
        (
            json!({"redirect_uris": ["http://127.0.0.1/cb#frag"]}),
            "invalid_redirect_uri",
            "fragment",
        ),
        (
            json!({"redirect_uris": [REDIRECT], "token_endpoint_auth_method": "private_key_jwt"}),
            "invalid_client_metadata",
            "private_key_jwt",
        ),
        (
            json!({"redirect_uris": [REDIRECT], "application_type": "desktop"}),
            "invalid_client_metadata",
            "application_type",
        ),
        (
            json!({"redirect_uris": [REDIRECT], "grant_types": ["implicit"]}),
            "invalid_client_metadata",
            "grant_types",
        ),
    ];
    for (request, error, says) in cases {
        let reply = mock.post_json("/oauth/register", request).await;
        assert_oauth_error(&reply, StatusCode::BAD_REQUEST, error, says);
    }
    let garbage = mock
        .send(
            Request::post("/oauth/register")
                .body(Body::from("{"))
                .expect("request"),
        )
        .await;
    assert_oauth_error(
        &garbage,
        StatusCode::BAD_REQUEST,
        "invalid_client_metadata",
        "JSON object",
    );
}

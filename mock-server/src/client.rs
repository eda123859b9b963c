//! What a test's own client needs to talk to the mock.

/// The PKCE S256 code challenge of `verifier`: `BASE64URL(SHA256(verifier))` without padding
/// (RFC 7636 §4.2), the value the mock's token endpoint checks. For a test client's sign-in.
///
/// ```
/// // RFC 7636, Appendix B.
/// let challenge = mock_server::pkce_s256_challenge("dBjftJeZ4CVP-mB92K27uhbUJU1p1r_wW1gFWFOEjXk");
/// assert_eq!(challenge, "E9Melhoa2OwvFrEMTJguCHaoeK1t8URWbuGJSstw-cM");
/// ```
pub fn pkce_s256_challenge(verifier: &str) -> String {
    crate::oauth::pkce::s256_challenge(verifier)
}

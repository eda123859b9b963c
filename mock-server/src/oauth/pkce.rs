//! PKCE's S256 method (RFC 7636): SHA-256 of the verifier, written in base64url.

use crate::http::encoding::base64url;
use crate::http::sha256::sha256;

/// The S256 `code_challenge` for a `code_verifier` (RFC 7636 §4.2).
pub(crate) fn s256_challenge(verifier: &str) -> String {
    base64url(&sha256(verifier.as_bytes()))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_s256_challenge_matches_rfc_7636_appendix_b() {
        assert_eq!(
            s256_challenge("dBjftJeZ4CVP-mB92K27uhbUJU1p1r_wW1gFWFOEjXk"),
            "E9Melhoa2OwvFrEMTJguCHaoeK1t8URWbuGJSstw-cM"
        );
    }
}

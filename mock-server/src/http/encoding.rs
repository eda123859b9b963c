//! The small encodings the surfaces share: base64 (standard, with padding, and URL-safe without
//! padding for PKCE), URL percent-encoding, HTML escaping and the template of the human pages.
//!
//! Written out here rather than pulled in as crates: the mock needs two alphabets and a few
//! lines each, and keeping them local leaves the dependency tree as it is. The tests pin them to
//! RFC 4648 and RFC 3986.

use axum::http::StatusCode;
use axum::response::{Html, IntoResponse, Response};

const STANDARD: &[u8; 64] = b"ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/";
const URL_SAFE: &[u8; 64] = b"ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789-_";

/// Encodes with `alphabet`, padding the last group with `=` when `pad` is set.
fn encode(bytes: &[u8], alphabet: &[u8; 64], pad: bool) -> String {
    let mut out = String::with_capacity(bytes.len().div_ceil(3) * 4);
    for chunk in bytes.chunks(3) {
        let b = [
            chunk[0],
            chunk.get(1).copied().unwrap_or(0),
            chunk.get(2).copied().unwrap_or(0),
        ];
        let n = (u32::from(b[0]) << 16) | (u32::from(b[1]) << 8) | u32::from(b[2]);
        for i in 0..4 {
            if i <= chunk.len() {
                out.push(char::from(alphabet[((n >> (18 - 6 * i)) & 63) as usize]));
            } else if pad {
                out.push('=');
            }
        }
    }
    out
}

/// Standard base64 with padding (RFC 4648 §4), as S3 upload policies are written.
pub(crate) fn base64(bytes: &[u8]) -> String {
    encode(bytes, STANDARD, true)
}

/// Base64url without padding (RFC 4648 §5), as PKCE's `code_challenge` is written.
pub(crate) fn base64url(bytes: &[u8]) -> String {
    encode(bytes, URL_SAFE, false)
}

/// Decodes standard base64 (padding optional); `None` for anything else.
pub(crate) fn base64_decode(text: &str) -> Option<Vec<u8>> {
    let text = text.trim_end_matches('=');
    let mut out = Vec::with_capacity(text.len() * 3 / 4);
    let mut buffer = 0u32;
    let mut bits = 0u32;
    for byte in text.bytes() {
        let value = STANDARD.iter().position(|&c| c == byte)?;
        buffer = (buffer << 6) | u32::try_from(value).ok()?;
        bits += 6;
        if bits >= 8 {
            bits -= 8;
            out.push(u8::try_from((buffer >> bits) & 0xff).ok()?);
        }
    }
    Some(out)
}

/// Percent-encodes everything but RFC 3986's unreserved characters, so the result is safe as a
/// path segment and as a query value.
pub fn percent_encode(text: &str) -> String {
    let mut out = String::with_capacity(text.len());
    for b in text.bytes() {
        match b {
            b'A'..=b'Z' | b'a'..=b'z' | b'0'..=b'9' | b'-' | b'_' | b'.' | b'~' => {
                out.push(char::from(b));
            }
            _ => out.push_str(&format!("%{b:02X}")),
        }
    }
    out
}

/// Decodes a query or form value: `+` and `%XX` as a form does (a bad escape stays as it is,
/// invalid UTF-8 becomes U+FFFD).
pub fn percent_decode(text: &str) -> String {
    let bytes = text.as_bytes();
    let mut out = Vec::with_capacity(bytes.len());
    let mut i = 0;
    while i < bytes.len() {
        let escaped = (bytes[i] == b'%')
            .then(|| bytes.get(i + 1..i + 3))
            .flatten()
            .and_then(|hex| std::str::from_utf8(hex).ok())
            .and_then(|hex| u8::from_str_radix(hex, 16).ok());
        match (escaped, bytes[i]) {
            (Some(byte), _) => {
                out.push(byte);
                i += 3;
            }
            (None, b'+') => {
                out.push(b' ');
                i += 1;
            }
            (None, other) => {
                out.push(other);
                i += 1;
            }
        }
    }
    String::from_utf8_lossy(&out).into_owned()
}

/// Escapes text for HTML element content and double-quoted attribute values.
pub(crate) fn escape(text: &str) -> String {
    text.replace('&', "&amp;")
        .replace('<', "&lt;")
        .replace('>', "&gt;")
        .replace('"', "&quot;")
}

/// A human page in the mock's look; `title` and `body` are HTML (escape what came from outside).
pub(crate) fn page(title: &str, body: &str) -> Html<String> {
    Html(format!(
        "<!doctype html><html><head><meta charset=\"utf-8\"><title>{title}</title>\
         <style>body{{font-family:system-ui,sans-serif;max-width:40rem;margin:3rem auto;\
         line-height:1.5}}button{{font-size:1rem;padding:.5rem 1rem}}code{{background:#eee;\
         padding:0 .2rem}}</style></head><body><h1>{title}</h1>{body}\
         <p><small>Perplexity Computer mock — this page stands in for perplexity.ai.</small></p>\
         </body></html>"
    ))
}

/// A 404 page saying `message` (plain text, escaped here).
pub(crate) fn page_not_found(message: &str) -> Response {
    (
        StatusCode::NOT_FOUND,
        page("Not found", &format!("<p>{}</p>", escape(message))),
    )
        .into_response()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn percent_decode_reads_forms_and_leaves_a_bad_escape_as_it_is() {
        assert_eq!(percent_decode("%41+b"), "A b");
        assert_eq!(percent_decode("a%2"), "a%2");
        assert_eq!(percent_decode("%zz%C3%A9"), "%zzé");
    }

    #[test]
    fn base64_matches_the_rfc_4648_vectors() {
        for (plain, encoded) in [
            ("", ""),
            ("f", "Zg=="),
            ("fo", "Zm8="),
            ("foo", "Zm9v"),
            ("foob", "Zm9vYg=="),
            ("fooba", "Zm9vYmE="),
            ("foobar", "Zm9vYmFy"),
        ] {
            assert_eq!(base64(plain.as_bytes()), encoded);
            assert_eq!(base64_decode(encoded).as_deref(), Some(plain.as_bytes()));
        }
    }

    #[test]
    fn base64url_uses_the_url_alphabet_without_padding() {
        assert_eq!(base64url(&[0xfb, 0xff]), "-_8");
        assert_eq!(base64(&[0xfb, 0xff]), "+/8=");
    }

    #[test]
    fn base64_decodes_what_http_basic_sends() {
        assert_eq!(
            base64_decode("Y2xpZW50OnNlY3JldA==").as_deref(),
            Some(&b"client:secret"[..])
        );
        assert_eq!(base64_decode("aGk").as_deref(), Some(&b"hi"[..]));
        assert_eq!(base64_decode("not base64!"), None);
    }

    #[test]
    fn urlencode_keeps_only_unreserved_characters() {
        assert_eq!(percent_encode("a-b_c.d~e"), "a-b_c.d~e");
        assert_eq!(
            percent_encode("q3 report/é?&="),
            "q3%20report%2F%C3%A9%3F%26%3D"
        );
    }

    #[test]
    fn escape_neutralises_markup_and_attribute_quotes() {
        assert_eq!(
            escape("<a href=\"x\">&</a>"),
            "&lt;a href=&quot;x&quot;&gt;&amp;&lt;/a&gt;"
        );
    }

    #[test]
    fn a_page_carries_its_title_twice_and_its_body_once() {
        let Html(html) = page("Stopped", "<p>Done.</p>");
        assert!(html.contains("<title>Stopped</title>"), "{html}");
        assert!(html.contains("<h1>Stopped</h1><p>Done.</p>"), "{html}");
    }
}

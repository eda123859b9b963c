//! Where the Sonar routes are served and how much they read: shared by the router, the
//! handlers, the body policy and the app (which reads each body under its surface's rules).

/// Largest request body the Sonar routes accept (32 MiB, as the Agent API on the same host).
pub(crate) const BODY_LIMIT: usize = 32 * 1024 * 1024;

/// `POST`: chat completions (the SDKs' path, the OpenAI-style `/v1` one, the docs' newer one).
pub(crate) const CHAT: &[&str] = &["/chat/completions", "/v1/chat/completions", "/v1/sonar"];

/// `POST` creates, `GET` lists; `GET …/{id}` reads one.
pub(crate) const ASYNC: &[&str] = &["/async/chat/completions", "/v1/async/sonar"];

/// `POST`: the Search API.
pub(crate) const SEARCH: &str = "/search";

/// `POST`: embeddings.
pub(crate) const EMBEDDINGS: &str = "/v1/embeddings";

/// `POST`: contextualized embeddings.
pub(crate) const CONTEXTUALIZED: &str = "/v1/contextualizedembeddings";

/// True for the paths the Sonar routes serve (they get its envelope and its body limit).
pub(crate) fn is_sonar_path(path: &str) -> bool {
    CHAT.contains(&path)
        || [SEARCH, EMBEDDINGS, CONTEXTUALIZED].contains(&path)
        || ASYNC.iter().any(|p| {
            path.strip_prefix(p)
                .is_some_and(|rest| rest.is_empty() || rest.starts_with('/'))
        })
}

/// The methods a Sonar path takes (for `Allow` and the 405 message).
pub(crate) fn allowed_methods(path: &str) -> &'static str {
    if ASYNC.contains(&path) {
        "GET, POST"
    } else if ASYNC.iter().any(|p| path.starts_with(&format!("{p}/"))) {
        "GET"
    } else {
        "POST"
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn every_sonar_path_is_recognised_and_its_methods_named() {
        for path in [
            "/chat/completions",
            "/v1/sonar",
            "/async/chat/completions",
            "/async/chat/completions/abc",
            "/search",
            "/v1/embeddings",
            "/v1/contextualizedembeddings",
        ] {
            assert!(is_sonar_path(path), "{path}");
        }
        for path in [
            "/chat",
            "/v1/agent",
            "/async/chat/completionsx",
            "/v1/models",
        ] {
            assert!(!is_sonar_path(path), "{path}");
        }
        assert_eq!(allowed_methods("/v1/async/sonar"), "GET, POST");
        assert_eq!(allowed_methods("/v1/async/sonar/x"), "GET");
        assert_eq!(allowed_methods("/search"), "POST");
    }
}

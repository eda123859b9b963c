//! [`AgentClient`]: the Agent API's create, retrieve, cancel and stream calls, for a test that
//! does not bring an SDK.

use reqwest::Method;
use serde_json::Value;

use super::error::{ClientError, body_value};
use crate::handle::AGENT_PATH;
use crate::http::sse;

/// A client of the mock's Agent API (`/v1/agent`) with one account's key (see
/// [`MockServer::agent_client`](crate::MockServer::agent_client)); cheap to clone.
///
/// Requests and responses are JSON values, as in the Agent API's documentation. An answer with
/// an HTTP error status is [`ClientError::Status`], carrying the error envelope.
///
/// ```
/// # use std::time::Duration;
/// # #[tokio::main(flavor = "current_thread")]
/// # async fn main() -> Result<(), Box<dyn std::error::Error>> {
/// let mock = mock_server::MockServer::builder()
///     .driven_clock(Duration::from_secs(60))
///     .start()
///     .await?;
/// let agent = mock.agent_client();
/// let response = agent
///     .create(serde_json::json!({"model": "openai/gpt-5.6-terra", "input": "Say hello"}))
///     .await?;
/// assert_eq!(response["status"], "completed");
/// # Ok(()) }
/// ```
#[derive(Debug, Clone)]
pub struct AgentClient {
    http: reqwest::Client,
    /// Where the Agent API is served (what the SDKs take as their base URL).
    base_url: String,
    token: String,
}

impl AgentClient {
    /// A client of the Agent API under `base_url` (a mock's [`uri`](crate::MockServer::uri))
    /// sending `token` as its API key.
    ///
    /// ```
    /// # use std::time::Duration;
    /// # #[tokio::main(flavor = "current_thread")]
    /// # async fn main() -> Result<(), Box<dyn std::error::Error>> {
    /// let mock = mock_server::MockServer::builder()
    ///     .driven_clock(Duration::from_secs(60))
    ///     .start()
    ///     .await?;
    /// let bob = mock_server::AgentClient::new(mock.uri(), mock_server::BOB_DEV_TOKEN);
    /// let response = bob
    ///     .create(serde_json::json!({"model": "openai/gpt-5.6-terra", "input": "Hi"}))
    ///     .await?;
    /// assert!(response["id"].is_string());
    /// # Ok(()) }
    /// ```
    pub fn new(base_url: impl Into<String>, token: impl Into<String>) -> Self {
        Self {
            http: reqwest::Client::new(),
            base_url: base_url.into().trim_end_matches('/').to_owned(),
            token: token.into(),
        }
    }

    /// Creates a response (`POST /v1/agent`) and returns it: finished for a synchronous
    /// request, `queued` with `"background": true`. For `"stream": true` use
    /// [`stream`](Self::stream).
    ///
    /// ```
    /// # #[tokio::main(flavor = "current_thread")]
    /// # async fn main() -> Result<(), Box<dyn std::error::Error>> {
    /// let mock = mock_server::MockServer::builder().manual_clock().start().await?;
    /// let queued = mock
    ///     .agent_client()
    ///     .create(serde_json::json!({
    ///         "model": "openai/gpt-5.6-terra", "input": "Research this", "background": true}))
    ///     .await?;
    /// assert_eq!(queued["status"], "queued");
    /// # Ok(()) }
    /// ```
    pub async fn create(&self, request: Value) -> Result<Value, ClientError> {
        let url = format!("{}{AGENT_PATH}", self.base_url);
        self.json(Method::POST, &url, Some(&request)).await
    }

    /// Retrieves response `id` (`GET /v1/agent/{id}`) as it stands now.
    ///
    /// ```
    /// # use std::time::Duration;
    /// # #[tokio::main(flavor = "current_thread")]
    /// # async fn main() -> Result<(), Box<dyn std::error::Error>> {
    /// let mock = mock_server::MockServer::builder()
    ///     .driven_clock(Duration::from_secs(60))
    ///     .start()
    ///     .await?;
    /// let agent = mock.agent_client();
    /// let created = agent
    ///     .create(serde_json::json!({"model": "openai/gpt-5.6-terra", "input": "Hi"}))
    ///     .await?;
    /// let id = created["id"].as_str().ok_or("an id")?;
    /// assert_eq!(agent.retrieve(id).await?["status"], "completed");
    /// # Ok(()) }
    /// ```
    pub async fn retrieve(&self, id: &str) -> Result<Value, ClientError> {
        let url = format!("{}{AGENT_PATH}/{id}", self.base_url);
        self.json(Method::GET, &url, None).await
    }

    /// Cancels background response `id` (`POST /v1/agent/{id}/cancel`) and returns the
    /// acknowledgement (`{"response_id": id, "status": "cancelling"}`); the run then ends
    /// `cancelled`.
    ///
    /// ```
    /// # #[tokio::main(flavor = "current_thread")]
    /// # async fn main() -> Result<(), Box<dyn std::error::Error>> {
    /// let mock = mock_server::MockServer::builder().manual_clock().start().await?;
    /// let agent = mock.agent_client();
    /// let queued = agent
    ///     .create(serde_json::json!({
    ///         "model": "openai/gpt-5.6-terra", "input": "Research this", "background": true}))
    ///     .await?;
    /// let id = queued["id"].as_str().ok_or("an id")?;
    /// assert_eq!(agent.cancel(id).await?["status"], "cancelling");
    /// # Ok(()) }
    /// ```
    pub async fn cancel(&self, id: &str) -> Result<Value, ClientError> {
        let url = format!("{}{AGENT_PATH}/{id}/cancel", self.base_url);
        self.json(Method::POST, &url, None).await
    }

    /// Creates a streamed response (`request` with `"stream": true`) and returns the data of
    /// every event, in order, once the stream ends.
    ///
    /// ```
    /// # use std::time::Duration;
    /// # #[tokio::main(flavor = "current_thread")]
    /// # async fn main() -> Result<(), Box<dyn std::error::Error>> {
    /// let mock = mock_server::MockServer::builder()
    ///     .driven_clock(Duration::from_secs(60))
    ///     .start()
    ///     .await?;
    /// let events = mock
    ///     .agent_client()
    ///     .stream(serde_json::json!({"model": "openai/gpt-5.6-terra", "input": "Hi"}))
    ///     .await?;
    /// assert_eq!(events[0]["type"], "response.created");
    /// assert_eq!(events.last().ok_or("events")?["type"], "response.completed");
    /// # Ok(()) }
    /// ```
    pub async fn stream(&self, mut request: Value) -> Result<Vec<Value>, ClientError> {
        if let Some(object) = request.as_object_mut() {
            object.insert("stream".to_owned(), Value::Bool(true));
        }
        let url = format!("{}{AGENT_PATH}", self.base_url);
        self.events_of(Method::POST, &url, Some(&request)).await
    }

    /// Every event of background response `id` from its start (`GET
    /// /v1/agent/{id}?stream=true&starting_after=-1`), once its stream ends (the run is over).
    ///
    /// ```
    /// # use std::time::Duration;
    /// # #[tokio::main(flavor = "current_thread")]
    /// # async fn main() -> Result<(), Box<dyn std::error::Error>> {
    /// let mock = mock_server::MockServer::builder().manual_clock().start().await?;
    /// let agent = mock.agent_client();
    /// let queued = agent
    ///     .create(serde_json::json!({
    ///         "model": "openai/gpt-5.6-terra", "input": "Hi", "background": true}))
    ///     .await?;
    /// mock.clock().advance(Duration::from_secs(60));
    /// let events = agent.events(queued["id"].as_str().ok_or("an id")?).await?;
    /// assert_eq!(events.last().ok_or("events")?["type"], "response.completed");
    /// # Ok(()) }
    /// ```
    pub async fn events(&self, id: &str) -> Result<Vec<Value>, ClientError> {
        let url = format!(
            "{}{AGENT_PATH}/{id}?stream=true&starting_after=-1",
            self.base_url
        );
        self.events_of(Method::GET, &url, None).await
    }

    /// Sends a request and reads a JSON answer.
    async fn json(
        &self,
        method: Method,
        url: &str,
        body: Option<&Value>,
    ) -> Result<Value, ClientError> {
        let label = format!("{method} {}", path_of(url));
        let text = self.send(&label, method, url, body).await?;
        serde_json::from_str(&text).map_err(|e| {
            ClientError::protocol(&label, format!("the answer is not JSON ({e}): {text}"))
        })
    }

    /// Sends a request and reads the data of every event of a streamed answer.
    async fn events_of(
        &self,
        method: Method,
        url: &str,
        body: Option<&Value>,
    ) -> Result<Vec<Value>, ClientError> {
        let label = format!("{method} {}", path_of(url));
        let text = self.send(&label, method, url, body).await?;
        sse::Parser::default()
            .push_messages(text.as_bytes())
            .into_iter()
            .map(|message| {
                serde_json::from_str(&message.data).map_err(|e| {
                    ClientError::protocol(
                        &label,
                        format!("an event is not JSON ({e}): {}", message.data),
                    )
                })
            })
            .collect()
    }

    /// Sends a request and returns the text of a successful answer.
    async fn send(
        &self,
        label: &str,
        method: Method,
        url: &str,
        body: Option<&Value>,
    ) -> Result<String, ClientError> {
        let mut request = self.http.request(method, url).bearer_auth(&self.token);
        if let Some(body) = body {
            request = request.json(body);
        }
        let http_error = |source| ClientError::Http {
            method: label.to_owned(),
            url: url.to_owned(),
            source,
        };
        let response = request.send().await.map_err(http_error)?;
        let status = response.status().as_u16();
        let text = response.text().await.map_err(http_error)?;
        if (200..300).contains(&status) {
            Ok(text)
        } else {
            Err(ClientError::Status {
                method: label.to_owned(),
                status,
                body: body_value(&text),
            })
        }
    }
}

/// The path (and query) of a URL, for error messages.
fn path_of(url: &str) -> &str {
    url.split_once("://")
        .and_then(|(_, rest)| rest.find('/').map(|i| &rest[i..]))
        .unwrap_or(url)
}

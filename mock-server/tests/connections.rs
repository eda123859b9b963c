//! The server's own limits on a real socket: a request whose headers stall is closed after
//! the header read timeout, a stalled body or one past its total deadline is answered 408, at
//! the connection cap the oldest connection not being served gives way to a new one, and only
//! when every connection is busy does a new one wait. Timeouts are configured tiny; the tests
//! wait for the connection to close, never for a fixed time.

use std::time::Duration;

use mock_server::{ConnectionLimits, MockServer};
use tokio::io::{AsyncBufReadExt, AsyncReadExt, AsyncWriteExt};
use tokio::net::TcpStream;

async fn mock(limits: ConnectionLimits) -> MockServer {
    MockServer::builder()
        .connections(limits)
        .start()
        .await
        .expect("the mock starts")
}

/// Everything the server sends until it closes the connection.
async fn read_until_closed(stream: &mut TcpStream) -> String {
    let mut seen = Vec::new();
    let read = tokio::time::timeout(Duration::from_secs(10), stream.read_to_end(&mut seen)).await;
    assert!(read.is_ok(), "the server closed the connection");
    String::from_utf8_lossy(&seen).into_owned()
}

#[tokio::test]
async fn a_request_whose_headers_stall_is_closed_after_the_header_read_timeout() {
    let mock = mock(ConnectionLimits {
        header_read_timeout: Duration::from_millis(50),
        ..ConnectionLimits::default()
    })
    .await;
    let mut half = TcpStream::connect(mock.address()).await.expect("connect");
    half.write_all(b"GET /_mock/clock HTTP/1.1\r\nHost: 127.0.0.1\r\n")
        .await
        .expect("write");
    let answer = read_until_closed(&mut half).await;
    assert!(!answer.contains("200 OK"), "{answer}");
    assert!(mock.journal().exchanges().is_empty(), "nothing was served");

    // A whole request is served as usual.
    let mut whole = TcpStream::connect(mock.address()).await.expect("connect");
    whole
        .write_all(b"GET /_mock/clock HTTP/1.1\r\nHost: 127.0.0.1\r\nConnection: close\r\n\r\n")
        .await
        .expect("write");
    let answer = read_until_closed(&mut whole).await;
    assert!(answer.starts_with("HTTP/1.1 200 OK"), "{answer}");
}

#[tokio::test]
async fn a_body_that_stalls_is_answered_408_in_the_endpoints_shape() {
    let mock = mock(ConnectionLimits {
        body_read_timeout: Duration::from_millis(50),
        ..ConnectionLimits::default()
    })
    .await;
    let mut stream = TcpStream::connect(mock.address()).await.expect("connect");
    stream
        .write_all(
            b"POST /rest/computer/mcp HTTP/1.1\r\nHost: 127.0.0.1\r\n\
              Content-Type: application/json\r\nContent-Length: 40\r\n\r\n{\"js",
        )
        .await
        .expect("write");
    let answer = read_until_closed(&mut stream).await;
    assert!(answer.starts_with("HTTP/1.1 408"), "{answer}");
    assert!(answer.contains("\"jsonrpc\":\"2.0\""), "{answer}");
    assert!(answer.contains("The request body stalled"), "{answer}");
    let exchange = mock.journal().exchanges().remove(0);
    assert_eq!((exchange.status, exchange.request_body_length), (408, 4));
}

#[tokio::test]
async fn a_body_still_arriving_after_the_total_timeout_is_answered_408() {
    // The pause timeout alone would wait 30 s: only the total deadline can end this request.
    let mock = mock(ConnectionLimits {
        body_total_timeout: Duration::from_millis(100),
        ..ConnectionLimits::default()
    })
    .await;
    let mut stream = TcpStream::connect(mock.address()).await.expect("connect");
    stream
        .write_all(
            b"POST /v1/agent HTTP/1.1\r\nHost: 127.0.0.1\r\n\
              Authorization: Bearer alice-dev-token\r\n\
              Content-Type: application/json\r\nContent-Length: 40\r\n\r\n{\"in",
        )
        .await
        .expect("write");
    let answer = read_until_closed(&mut stream).await;
    assert!(answer.starts_with("HTTP/1.1 408"), "{answer}");
    assert!(answer.contains("--body-total-timeout"), "{answer}");
}

/// Sends a whole request on a new keep-alive connection and reads its answer; the connection
/// stays open (and, answered, idle).
async fn served_and_kept_open(mock: &MockServer) -> (TcpStream, String) {
    let mut stream = TcpStream::connect(mock.address()).await.expect("connect");
    stream
        .write_all(b"GET /_mock/clock HTTP/1.1\r\nHost: 127.0.0.1\r\n\r\n")
        .await
        .expect("write");
    let mut seen = Vec::new();
    let whole = tokio::time::timeout(Duration::from_secs(10), async {
        let mut buffer = [0u8; 4096];
        loop {
            let read = stream.read(&mut buffer).await.expect("read");
            assert!(read > 0, "closed before the answer was whole");
            seen.extend_from_slice(&buffer[..read]);
            let text = String::from_utf8_lossy(&seen);
            if let Some((head, body)) = text.split_once("\r\n\r\n") {
                let length = head
                    .lines()
                    .find_map(|l| {
                        l.to_ascii_lowercase()
                            .strip_prefix("content-length: ")
                            .map(str::to_owned)
                    })
                    .and_then(|l| l.trim().parse::<usize>().ok())
                    .expect("a Content-Length");
                if body.len() >= length {
                    return;
                }
            }
        }
    })
    .await;
    assert!(whole.is_ok(), "served within 10 s");
    (stream, String::from_utf8_lossy(&seen).into_owned())
}

#[tokio::test]
async fn at_the_cap_the_oldest_idle_or_half_sent_connection_makes_room() {
    // Timeouts of 30 s: if nothing gave way, no new client would be served within the
    // 10 s read_until_closed allows.
    let mock = mock(ConnectionLimits {
        max_connections: 3,
        ..ConnectionLimits::default()
    })
    .await;
    let mut idle = TcpStream::connect(mock.address()).await.expect("connect");
    let mut half_headers = TcpStream::connect(mock.address()).await.expect("connect");
    half_headers
        .write_all(b"GET /_mock/clock HTTP/1.1\r\nHost: 127.0.0.1\r\n")
        .await
        .expect("write");
    let mut half_body = TcpStream::connect(mock.address()).await.expect("connect");
    half_body
        .write_all(
            b"POST /_mock/reset HTTP/1.1\r\nHost: 127.0.0.1\r\n\
              Content-Type: application/json\r\nContent-Length: 40\r\n\r\n{",
        )
        .await
        .expect("write");
    // Each new client is served, and each time the oldest connection not served is closed;
    // the new ones stay open, so each later client has to make room again.
    let mut kept = Vec::new();
    for _ in 0..3 {
        let (stream, answer) = served_and_kept_open(&mock).await;
        assert!(answer.starts_with("HTTP/1.1 200 OK"), "{answer}");
        kept.push(stream);
    }
    assert_eq!(
        read_until_closed(&mut idle).await,
        "",
        "the idle one went first"
    );
    assert!(
        !read_until_closed(&mut half_headers)
            .await
            .contains("200 OK")
    );
    let cut = read_until_closed(&mut half_body).await;
    assert!(!cut.contains("200 OK"), "{cut}");
}

#[tokio::test]
async fn when_every_connection_is_busy_a_new_one_waits_until_one_closes() {
    // A streamed Agent API run on a clock that never moves: its stream stays open, busy.
    let mock = MockServer::builder()
        .manual_clock()
        .connections(ConnectionLimits {
            max_connections: 1,
            ..ConnectionLimits::default()
        })
        .start()
        .await
        .expect("the mock starts");
    let mut streaming = TcpStream::connect(mock.address()).await.expect("connect");
    let body =
        br##"{"preset": "medium", "input": "#background-research batteries", "stream": true}"##;
    let head = format!(
        "POST /v1/agent HTTP/1.1\r\nHost: 127.0.0.1\r\nAuthorization: Bearer alice-dev-token\r\n\
         Content-Type: application/json\r\nContent-Length: {}\r\n\r\n",
        body.len()
    );
    streaming.write_all(head.as_bytes()).await.expect("write");
    streaming.write_all(body).await.expect("write");
    let mut first = [0u8; 64];
    let read = streaming.read(&mut first).await.expect("read");
    assert!(
        first[..read].starts_with(b"HTTP/1.1 200 OK"),
        "the stream started"
    );

    let waiting = tokio::spawn({
        let address = mock.address();
        async move {
            let mut stream = TcpStream::connect(address).await.expect("connect");
            stream
                .write_all(
                    b"GET /_mock/clock HTTP/1.1\r\nHost: 127.0.0.1\r\nConnection: close\r\n\r\n",
                )
                .await
                .expect("write");
            let mut seen = Vec::new();
            stream.read_to_end(&mut seen).await.expect("read");
            String::from_utf8_lossy(&seen).into_owned()
        }
    });
    // The waiting client is not served while the stream is open: the journal shows only the
    // streamed create (it is journaled when its answer starts).
    mock.journal()
        .wait_for_within(Duration::from_secs(10), |e| e.path == "/v1/agent")
        .await
        .expect("the create is journaled");
    assert!(!waiting.is_finished());
    assert!(
        mock.journal()
            .exchanges()
            .iter()
            .all(|e| e.path != "/_mock/clock"),
        "nothing else was served"
    );
    drop(streaming);
    let answer = tokio::time::timeout(Duration::from_secs(10), waiting)
        .await
        .expect("served once the stream closed")
        .expect("the client ran");
    assert!(answer.starts_with("HTTP/1.1 200 OK"), "{answer}");
}

#[tokio::test]
async fn five_hundred_and_twelve_trickling_uploads_leave_a_new_client_served() {
    // The binary with its default cap (512) in its own process, so neither side of the 513
    // connections needs more than the common 1,024 file descriptors.
    let mut mock = tokio::process::Command::new(env!("CARGO_BIN_EXE_mock-server"))
        .args(["--listen", "127.0.0.1:0", "--no-journal"])
        .stdout(std::process::Stdio::piped())
        .kill_on_drop(true)
        .spawn()
        .expect("the binary starts");
    let stdout = mock.stdout.take().expect("stdout");
    let mut first_line = String::new();
    tokio::io::BufReader::new(stdout)
        .read_line(&mut first_line)
        .await
        .expect("its first line");
    let address = first_line
        .split("http://")
        .nth(1)
        .and_then(|rest| rest.split_whitespace().next())
        .expect("the URL on its first line")
        .trim_end_matches('/')
        .to_owned();

    let mut tricklers = Vec::new();
    for _ in 0..512 {
        let mut stream = TcpStream::connect(&address).await.expect("connect");
        stream
            .write_all(
                b"POST /v1/agent HTTP/1.1\r\nHost: 127.0.0.1\r\n\
                  Authorization: Bearer alice-dev-token\r\n\
                  Content-Type: application/json\r\nContent-Length: 4000\r\n\r\n{\"in",
            )
            .await
            .expect("write");
        tricklers.push(stream);
    }
    let mut new_client = TcpStream::connect(&address).await.expect("connect");
    new_client
        .write_all(b"GET /_mock/clock HTTP/1.1\r\nHost: 127.0.0.1\r\nConnection: close\r\n\r\n")
        .await
        .expect("write");
    let answer = read_until_closed(&mut new_client).await;
    assert!(answer.starts_with("HTTP/1.1 200 OK"), "{answer}");
}

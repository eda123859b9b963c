//! The server's own limits on a real socket: a request whose headers stall is closed after
//! the header read timeout, a stalled body is answered 408, and past the connection cap a new
//! connection waits until one closes. Timeouts are configured tiny; the tests wait for the
//! connection to close, never for a fixed time.

use std::time::Duration;

use mock_server::{ConnectionLimits, MockServer};
use tokio::io::{AsyncReadExt, AsyncWriteExt};
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
async fn past_the_connection_cap_a_new_connection_waits_until_one_closes() {
    let header_timeout = Duration::from_millis(200);
    let mock = mock(ConnectionLimits {
        header_read_timeout: header_timeout,
        max_connections: 1,
        ..ConnectionLimits::default()
    })
    .await;
    let before = chrono::Utc::now();
    // The one connection allowed, idle: the header read timeout closes it.
    let mut idle = TcpStream::connect(mock.address()).await.expect("connect");
    let mut waiting = TcpStream::connect(mock.address()).await.expect("connect");
    waiting
        .write_all(b"GET /_mock/clock HTTP/1.1\r\nHost: 127.0.0.1\r\nConnection: close\r\n\r\n")
        .await
        .expect("write");
    let answer = read_until_closed(&mut waiting).await;
    assert!(answer.starts_with("HTTP/1.1 200 OK"), "{answer}");
    read_until_closed(&mut idle).await;
    let served = mock.journal().exchanges().remove(0);
    let waited = (served.real_time - before).to_std().expect("after");
    assert!(
        waited >= header_timeout,
        "served after {waited:?}, before the idle connection was closed"
    );
}

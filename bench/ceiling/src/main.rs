//! The benchmark's anchor: the cheapest sensible HTTP endpoint on this machine.
//!
//! `ceiling BODY_FILE CONTENT_TYPE` answers every POST to `/rest/computer/mcp` and to
//! `/chat/completions` with the bytes of BODY_FILE (the mock's own answer, captured by
//! `bench/bench.py` or `bench/sonar.py`: `models_list`, a chat completion, a stream), so both servers
//! send the same bytes and the ratio between them is the cost of the mock's work, not of a
//! different answer. No MCP, no session, no authentication: an upper bound, not a server.
//! Prints `listening on http://127.0.0.1:PORT` first.

use axum::Router;
use axum::body::Bytes;
use axum::http::header;
use axum::routing::post;

#[tokio::main]
async fn main() -> std::io::Result<()> {
    let mut args = std::env::args().skip(1);
    let (Some(body_file), Some(content_type)) = (args.next(), args.next()) else {
        eprintln!("usage: ceiling BODY_FILE CONTENT_TYPE");
        std::process::exit(2);
    };
    let canned = Bytes::from(std::fs::read(&body_file)?);
    let answer = post(move |_body: Bytes| {
        let (canned, content_type) = (canned.clone(), content_type.clone());
        async move { ([(header::CONTENT_TYPE, content_type)], canned) }
    });
    let app = Router::new()
        .route("/rest/computer/mcp", answer.clone())
        .route("/chat/completions", answer);
    let listener = tokio::net::TcpListener::bind("127.0.0.1:0").await?;
    println!("listening on http://{}", listener.local_addr()?);
    axum::serve(listener, app).await
}

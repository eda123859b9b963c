//! `conformance serve`: a mock for a hand-driven host, with the checks printed when stopped.

use std::io::{BufRead, BufReader, Read};
use std::process::{Command, Stdio};

use crate::common;

#[test]
fn serve_judges_whatever_client_drove_it_when_interrupted() {
    let mut serve = Command::new(common::bin())
        .args(["serve", "--scenario", "follow-up", "--time-scale", "1000"])
        .stdout(Stdio::piped())
        .spawn()
        .expect("serve starts");
    let mut stdout = BufReader::new(serve.stdout.take().expect("stdout"));
    let mut banner = Vec::new();
    for line in stdout.by_ref().lines() {
        let line = line.expect("banner line");
        let last = line.starts_with("Stop with Ctrl-C");
        banner.push(line);
        if last {
            break;
        }
    }
    let find = |prefix: &str| {
        banner
            .iter()
            .find_map(|l| l.trim().strip_prefix(prefix).map(str::to_owned))
            .unwrap_or_else(|| panic!("{prefix} not in {banner:#?}"))
    };
    let mcp = find("MCP endpoint:").trim().to_owned();
    let client = Command::new(common::bin())
        .args(["reference-client", &mcp])
        .env("CONFORMANCE_USER_URL", find("CONFORMANCE_USER_URL="))
        .env(
            "CONFORMANCE_BEARER_TOKEN",
            find("CONFORMANCE_BEARER_TOKEN="),
        )
        .status()
        .expect("client runs");
    assert!(client.success());
    let stopped = Command::new("kill")
        .args(["-INT", &serve.id().to_string()])
        .status()
        .expect("kill runs");
    assert!(stopped.success());
    let mut rest = String::new();
    stdout.read_to_string(&mut rest).expect("checks");
    let status = serve.wait().expect("serve exits");
    assert!(status.success(), "{rest}");
    assert!(rest.contains("SUCCESS  computer.thread.reuse"), "{rest}");
    assert!(!rest.contains("FAILURE"), "{rest}");
}

//! `mock-server --fault SPEC`: a bad spec stops the start with a sentence naming what is wrong.
//! (What a good spec does is the layer's, tested in `faults_http` and `faults_streams`
//! through the builder's `fault`, which `--fault` calls.)

#[test]
fn the_command_line_refuses_a_bad_fault_with_a_sentence() {
    for (spec, says) in [
        (
            "status=404",
            "status must be 429, 500, 502 or 503, not `404`",
        ),
        ("status=429,colour=red", "unknown key `colour`"),
        ("times=1", "say what it does"),
    ] {
        let output = std::process::Command::new(env!("CARGO_BIN_EXE_mock-server"))
            .args(["--listen", "127.0.0.1:0", "--fault", spec])
            .output()
            .expect("the binary runs");
        assert!(!output.status.success(), "`{spec}` stops the start");
        let stderr = String::from_utf8_lossy(&output.stderr);
        assert!(stderr.contains("--fault fault `"), "{stderr}");
        assert!(stderr.contains(says), "{spec}: {stderr}");
    }
}

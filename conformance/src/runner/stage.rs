//! The stage of one scenario: a fresh in-process mock and the user channel on one port, the
//! environment the target gets, and the judgement over what they recorded. The stage owns the
//! scenario's clock (see [`super::clock`]).

use serde_json::{Value, json};

use crate::check::{Advice, Check, DocRef, Level, Outcome};
use crate::error::Error;
use crate::judge::{Judgement, judge_transcript};
use crate::rules;
use crate::suite::{BEARER_TOKEN, Era, ScenarioSpec, SignIn};
use crate::transcript::Transcript;

use super::clock::{ClockDriver, RunClock};
use super::drop;
use super::fixtures;
use super::retry_after;
use super::user::{USER_PATH, UserChannel};

/// The check a stage adds when its mock's journal dropped an exchange.
const JOURNAL_COMPLETE: &str = "runner.journal-complete";

/// How a stage is set up beyond its scenario.
#[derive(Debug, Clone, Copy)]
pub struct StageOptions {
    /// How the mock's virtual time runs ([`RunClock::Driven`] unless asked otherwise).
    pub clock: RunClock,
    /// The OAuth consent page approves at once as `alice` (the mock's `--auto-consent`), so a
    /// client that opens the authorization URL itself, as clients written for the official MCP
    /// conformance runner do, completes sign-in unaided.
    pub auto_consent: bool,
}

/// A mock and its user channel, serving on one port.
pub struct Stage {
    /// The mock's handle (journal, clock, world).
    pub mock: mock_server::MockHandle,
    /// The scripted person.
    pub user: UserChannel,
    /// `http://127.0.0.1:PORT`.
    pub base_url: String,
    /// The scenario it plays.
    scenario: String,
    server: tokio::task::JoinHandle<()>,
    /// Fixture overrides the mock loaded (kept until the stage ends, then removed).
    _overrides: Option<fixtures::Overrides>,
}

impl Stage {
    /// Starts a fresh mock for `spec` on `127.0.0.1:0`, on `clock`: [`RunClock::Driven`] (what
    /// the runner uses), or a number for a clock that many times real time.
    pub async fn start(spec: &ScenarioSpec, clock: impl Into<RunClock>) -> Result<Self, Error> {
        Self::start_with(
            spec,
            StageOptions {
                clock: clock.into(),
                auto_consent: false,
            },
        )
        .await
    }

    /// Starts a fresh mock for `spec` on `127.0.0.1:0`, set up as `options` say.
    pub async fn start_with(spec: &ScenarioSpec, options: StageOptions) -> Result<Self, Error> {
        Self::start_playing(spec, options, None).await
    }

    /// Starts a stage whose mock plays `fixture` (a scenario file's text, such as one
    /// `mock-server record` wrote) in place of the scenario's own.
    pub async fn start_playing(
        spec: &ScenarioSpec,
        options: StageOptions,
        fixture: Option<&str>,
    ) -> Result<Self, Error> {
        let listener = tokio::net::TcpListener::bind("127.0.0.1:0")
            .await
            .map_err(Error::Bind)?;
        let address = listener.local_addr().map_err(Error::Bind)?;
        let base_url = format!("http://{address}");
        let overrides = fixtures::Overrides::write(spec.name, &address.port().to_string())?;
        // Verdicts read the whole journal: nothing may be dropped or cut (see `judge`).
        let mut builder =
            ClockDriver::configure(mock_server::MockServer::builder(), spec, options.clock)
                .journal(mock_server::JournalConfig::unbounded());
        // Computer scenarios are the fallback of conversations that name none; an Agent API
        // request picks its scenario from its own message, as the catalog says.
        if spec.suite == "computer" {
            // The mock answers as a server of the scenario's era would, so a client that
            // negotiates (an SDK's `mode="auto"`) lands in that era with its defaults.
            builder = builder.scenario(spec.name).eras(match spec.era {
                Era::Handshake => mock_server::Eras::Handshake,
                Era::Modern => mock_server::Eras::Modern,
            });
        }
        // A sign-in scenario tests the sign-in: a dev token would skip it.
        if spec.sign_in == SignIn::OAuth {
            builder = builder.dev_tokens(false);
        }
        if let Some(o) = &overrides {
            builder = builder.fixtures(o.dir());
        }
        if options.auto_consent {
            builder = builder.auto_consent(super::user::CONSENT_ACCOUNT);
        }
        if let Some(variant) = fixtures::variant(spec)? {
            builder = builder
                .scenario_json(&variant)
                .map_err(mock_server::Error::from)?;
        }
        if let Some(fixture) = fixture {
            builder = builder
                .scenario_json(fixture)
                .map_err(mock_server::Error::from)?;
        }
        // A played fixture (a recording) carries the refusals it recorded as its own faults:
        // staging the scenario's faults again would refuse twice as often.
        if fixture.is_none() {
            for fault in spec.faults {
                builder = builder.fault(fault)?;
            }
        }
        if let Some(world) = fixtures::world(spec)? {
            builder = builder
                .world_json(&world)
                .map_err(mock_server::Error::from)?;
        }
        let (router, mock) = builder.router(&base_url)?;
        let user = UserChannel::new(
            script_for(spec, &mock.mcp_url()),
            mock.clone(),
            ClockDriver::new(mock.clock().clone()),
        );
        let router = if spec.drop_stream_after > 0 {
            drop::apply(router, spec.drop_stream_after)
        } else {
            router
        };
        let router = if spec.drop_first_poll {
            drop::first_task_poll(router)
        } else {
            router
        };
        let router = if spec.suite == "sonar" {
            retry_after::apply(router, mock.clock().clone())
        } else {
            router
        };
        let app = router.merge(user.routes());
        let server = tokio::spawn(async move {
            let _ = axum::serve(listener, app).await;
        });
        Ok(Self {
            mock,
            user,
            base_url,
            scenario: spec.name.to_owned(),
            server,
            _overrides: overrides,
        })
    }

    /// The MCP endpoint.
    pub fn mcp_url(&self) -> String {
        self.mock.mcp_url()
    }

    /// The environment the target gets.
    pub fn env(&self, spec: &ScenarioSpec) -> Vec<(&'static str, String)> {
        let context = json!({
            "name": spec.name,
            "description": spec.description,
            "era": spec.era.name(),
            "protocol_version": spec.era.protocol_version(),
            "flow": spec.flow.name(),
            "suite": spec.suite,
            "sign_in": spec.sign_in.name(),
            "user": script_for(spec, &self.mcp_url()),
        });
        let mut env = vec![
            ("MCP_CONFORMANCE_SCENARIO", spec.name.to_owned()),
            (
                "MCP_CONFORMANCE_PROTOCOL_VERSION",
                spec.era.protocol_version().to_owned(),
            ),
            ("MCP_CONFORMANCE_CONTEXT", context.to_string()),
            ("CONFORMANCE_USER_URL", self.user_url()),
            ("PERPLEXITY_BASE_URL", self.base_url.clone()),
        ];
        // A sign-in scenario hands out no token: the client has only the MCP URL.
        if spec.sign_in == SignIn::Token {
            env.push(("CONFORMANCE_BEARER_TOKEN", BEARER_TOKEN.to_owned()));
            env.push(("PERPLEXITY_API_KEY", spec.api_key().to_owned()));
        }
        env
    }

    /// The user channel (`CONFORMANCE_USER_URL`).
    pub fn user_url(&self) -> String {
        format!("{}{USER_PATH}", self.base_url)
    }

    /// Judges what happened so far against every rule the scenario exercises, as a
    /// [`Judgement`] to assert on.
    pub fn judgement(&self) -> Result<Judgement, Error> {
        judge_transcript(Transcript::new(
            &self.scenario,
            self.mock.journal().exchanges(),
            self.user.log(),
        ))
    }

    /// Judges what happened so far against every rule `spec` exercises.
    pub fn judge(&self, spec: &ScenarioSpec) -> Vec<Check> {
        self.judge_transcript(&self.transcript(spec))
    }

    /// What happened so far, as the rules read it.
    pub fn transcript(&self, spec: &ScenarioSpec) -> Transcript {
        Transcript::new(spec.name, self.mock.journal().exchanges(), self.user.log())
    }

    /// Judges `transcript` (this stage's, from [`Stage::transcript`]) against every rule its
    /// scenario exercises.
    pub fn judge_transcript(&self, transcript: &Transcript) -> Vec<Check> {
        let mut checks = rules::judge(transcript);
        let dropped = self.mock.journal().stats().dropped;
        if dropped > 0 {
            // The stage keeps its journal whole; a drop means every verdict above read a
            // partial transcript, which must never pass quietly.
            checks.push(Check::judged(
                JOURNAL_COMPLETE,
                Level::Must,
                DocRef {
                    document: "conformance runner",
                    section: "Conformance runner",
                    quote: "the runner keeps the mock's whole journal",
                },
                &Advice::default(),
                Outcome::Violated {
                    message: format!(
                        "the mock's journal dropped {dropped} exchange(s), so the checks judged an \
                         incomplete transcript; this is a runner bug, please report it"
                    ),
                    evidence: Vec::new(),
                },
                transcript,
            ));
        }
        checks
    }
}

impl Drop for Stage {
    fn drop(&mut self) {
        // Aborting rather than a graceful shutdown: a dead client's open streams must not keep
        // the runner waiting.
        self.server.abort();
    }
}

/// The user's script with `{mcp_url}` (in agent turns) replaced by the mock's MCP endpoint.
fn script_for(spec: &ScenarioSpec, mcp_url: &str) -> Value {
    let script = spec.script();
    if !script.to_string().contains("{mcp_url}") {
        return script;
    }
    serde_json::from_str(&script.to_string().replace("{mcp_url}", mcp_url)).unwrap_or(script)
}

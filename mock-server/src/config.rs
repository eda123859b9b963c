//! How a mock is configured: what [`MockServerBuilder`](crate::MockServerBuilder) collects
//! (the command line maps onto the builder), and the defaults.

use std::path::PathBuf;
use std::time::Duration;

use crate::clock::ClockMode;
use crate::faults::spec::FaultSpec;
use crate::journal::JournalConfig;
use crate::limits::StateLimits;
use crate::oauth::AuthMode;
use crate::serve::ConnectionLimits;

/// The default call-wait window: how long a call waits for a checkpoint before `timeout`.
pub const DEFAULT_CALL_WAIT: Duration = Duration::from_secs(120);

/// How long an OAuth access token lives unless configured otherwise (virtual time).
pub const DEFAULT_ACCESS_TOKEN_LIFETIME: Duration = Duration::from_secs(3600);

/// The longest access-token lifetime the mock issues.
pub(crate) const MAX_ACCESS_TOKEN_LIFETIME: Duration = Duration::from_secs(366 * 24 * 3600);

/// How a mock is configured: one field per builder option.
#[derive(Debug, Clone)]
pub(crate) struct Config {
    /// Address to listen on (`127.0.0.1:0` picks a free port).
    pub(crate) listen: String,
    /// Extra scenario files or directories; they add to or override the embedded catalog.
    pub(crate) fixtures: Vec<PathBuf>,
    /// Scenario for conversations that name none and match none.
    pub(crate) scenario: Option<String>,
    /// Virtual clock mode.
    pub(crate) clock: ClockMode,
    /// Call-wait window, in virtual time.
    pub(crate) call_wait: Duration,
    /// Base URL the mock puts in the URLs it hands out (default: the listen address).
    pub(crate) public_url: Option<String>,
    /// Origins of web pages let in beside the mock's own names (`--allow-origin`).
    pub(crate) allowed_origins: Vec<String>,
    /// Authentication mode.
    pub(crate) auth: AuthMode,
    /// Virtual time at start; `None` is a fixed instant (2026-10-24T00:11:18Z), so tests and
    /// snapshots see the same timestamps on every run.
    pub(crate) epoch: Option<chrono::DateTime<chrono::Utc>>,
    /// A world file replacing the built-in accounts, plans, models and Projects.
    pub(crate) world: Option<PathBuf>,
    /// Account the OAuth consent page approves as at once, without showing itself (for tests).
    pub(crate) auto_consent: Option<String>,
    /// How long an OAuth access token lives, in virtual time (`expires_in`); default one hour.
    pub(crate) access_token_lifetime: Duration,
    /// How much the journal keeps in memory, and the file it appends to.
    pub(crate) journal: JournalConfig,
    /// Read timeouts and the cap on open connections (for `MockServerBuilder::start`).
    pub(crate) connections: ConnectionLimits,
    /// Caps on handshake sessions, OAuth registrations and codes.
    pub(crate) limits: StateLimits,
    /// Faults in force from the start (`--fault`).
    pub(crate) faults: Vec<FaultSpec>,
    /// Which MCP protocol eras the endpoint speaks (`--eras`).
    pub(crate) eras: Eras,
    /// Whether the built-in dev tokens authenticate (`--no-dev-tokens` turns them off).
    pub(crate) dev_tokens: bool,
}

/// Which MCP protocol eras the Computer endpoint speaks, so it can answer as a server of one
/// era would (`mock-server --eras`).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub enum Eras {
    /// Both on one URL (the default): a request goes to the era it shows.
    #[default]
    Both,
    /// Only the handshake era (2025-11-25 and before), as a 2025-11-25 server: `server/discover`
    /// is an unknown method (-32601), so an auto-negotiating client falls back to `initialize`.
    Handshake,
    /// Only the stateless 2026-07-28 era, as a 2026-07-28-only server: `initialize` is an
    /// unknown method (404, -32601), GET and DELETE are 405.
    Modern,
}

impl Eras {
    /// Reads `both`, `handshake` or `modern` (the `--eras` values).
    pub fn parse(name: &str) -> Option<Self> {
        match name {
            "both" => Some(Self::Both),
            "handshake" => Some(Self::Handshake),
            "modern" => Some(Self::Modern),
            _ => None,
        }
    }
}

impl Default for Config {
    fn default() -> Self {
        Self {
            listen: "127.0.0.1:8080".to_owned(),
            fixtures: Vec::new(),
            scenario: None,
            clock: ClockMode::Scaled { factor: 1.0 },
            call_wait: DEFAULT_CALL_WAIT,
            public_url: None,
            allowed_origins: Vec::new(),
            auth: AuthMode::Bearer,
            epoch: None,
            auto_consent: None,
            access_token_lifetime: DEFAULT_ACCESS_TOKEN_LIFETIME,
            world: None,
            journal: JournalConfig::default(),
            connections: ConnectionLimits::default(),
            limits: StateLimits::default(),
            faults: Vec::new(),
            eras: Eras::Both,
            dev_tokens: true,
        }
    }
}

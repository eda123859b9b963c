//! The bearer tokens of the built-in accounts.

/// The bearer token of the built-in account `alice` (paid plan, plenty of credits), as in
/// `fixtures/world.json`.
///
/// ```
/// let (_router, mock) = mock_server::MockServer::builder().router("http://mock.test")?;
/// let alice = mock.world().account("alice").ok_or("no alice")?;
/// assert_eq!(alice.token, mock_server::ALICE_DEV_TOKEN);
/// assert_eq!(alice.plan, mock_server::fixtures::Plan::Paid);
/// # Ok::<(), Box<dyn std::error::Error>>(())
/// ```
pub const ALICE_DEV_TOKEN: &str = "alice-dev-token";

/// The bearer token of the built-in account `bob` (free plan, few credits), as in
/// `fixtures/world.json`.
///
/// ```
/// let (_router, mock) = mock_server::MockServer::builder().router("http://mock.test")?;
/// let bob = mock.world().account("bob").ok_or("no bob")?;
/// assert_eq!(bob.token, mock_server::BOB_DEV_TOKEN);
/// assert_eq!(bob.plan, mock_server::fixtures::Plan::Free);
/// # Ok::<(), Box<dyn std::error::Error>>(())
/// ```
pub const BOB_DEV_TOKEN: &str = "bob-dev-token";

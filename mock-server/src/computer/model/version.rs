//! MCP protocol versions: an ordered type, so a feature check is a comparison of versions, never
//! of strings.

use std::fmt;

use serde::Serialize;

/// A protocol version this mock speaks, oldest first (so `<` means older).
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub enum ProtocolVersion {
    /// 2025-03-26: Streamable HTTP; no `resource_link`, no elicitation.
    V2025_03_26,
    /// 2025-06-18: `resource_link` blocks and form elicitation (without a `mode` field).
    V2025_06_18,
    /// 2025-11-25: elicitation `mode`, URL elicitation.
    V2025_11_25,
    /// 2026-07-28: stateless requests (`server/discover`, no session), MRTR, the tasks extension.
    V2026_07_28,
}

impl ProtocolVersion {
    /// The handshake era, newest first: what `initialize` negotiates.
    pub const HANDSHAKE: [Self; 3] = [Self::V2025_11_25, Self::V2025_06_18, Self::V2025_03_26];
    /// The version a session gets when the client offers one the mock does not speak.
    pub const LATEST_HANDSHAKE: Self = Self::HANDSHAKE[0];
    /// The stateless version.
    pub const STATELESS: Self = Self::V2026_07_28;
    /// Every version, stateless first: what `server/discover` and an unsupported-version error
    /// list.
    pub const SUPPORTED: [Self; 4] = [
        Self::STATELESS,
        Self::V2025_11_25,
        Self::V2025_06_18,
        Self::V2025_03_26,
    ];

    /// The version's date string.
    pub const fn as_str(self) -> &'static str {
        match self {
            Self::V2025_03_26 => "2025-03-26",
            Self::V2025_06_18 => "2025-06-18",
            Self::V2025_11_25 => "2025-11-25",
            Self::V2026_07_28 => "2026-07-28",
        }
    }

    /// The version a date string names, if the mock speaks it.
    pub fn parse(text: &str) -> Option<Self> {
        Self::SUPPORTED.into_iter().find(|v| v.as_str() == text)
    }

    /// The handshake-era version a date string names, if the mock speaks it.
    pub fn parse_handshake(text: &str) -> Option<Self> {
        Self::parse(text).filter(|v| Self::HANDSHAKE.contains(v))
    }

    /// Whether tool results may carry `resource_link` content blocks (2025-06-18 on).
    pub fn has_resource_links(self) -> bool {
        self >= Self::V2025_06_18
    }

    /// Whether tools may have a `title` and an `outputSchema`, and results a
    /// `structuredContent` (2025-06-18 on; 2025-03-26 has none of the three).
    pub fn has_structured_output(self) -> bool {
        self >= Self::V2025_06_18
    }

    /// Whether the server may ask the client with `elicitation/create` (2025-06-18 on).
    pub fn has_elicitation(self) -> bool {
        self >= Self::V2025_06_18
    }

    /// Whether elicitation has a `mode` and URL requests (2025-11-25 on).
    pub fn has_url_elicitation(self) -> bool {
        self >= Self::V2025_11_25
    }

    /// Whether results carry `resultType` and the server info (the stateless era).
    pub fn is_stateless(self) -> bool {
        self >= Self::V2026_07_28
    }
}

impl fmt::Display for ProtocolVersion {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.as_str())
    }
}

impl Serialize for ProtocolVersion {
    fn serialize<S: serde::Serializer>(&self, serializer: S) -> Result<S::Ok, S::Error> {
        serializer.serialize_str(self.as_str())
    }
}

/// Protocol versions of the handshake era this mock speaks, newest first.
pub const HANDSHAKE_VERSIONS: [&str; 3] = [
    ProtocolVersion::HANDSHAKE[0].as_str(),
    ProtocolVersion::HANDSHAKE[1].as_str(),
    ProtocolVersion::HANDSHAKE[2].as_str(),
];
/// The version a session gets when the client offers one the mock does not speak.
pub const LATEST_HANDSHAKE_VERSION: &str = ProtocolVersion::LATEST_HANDSHAKE.as_str();
/// The stateless protocol version this mock speaks.
pub const MODERN_VERSION: &str = ProtocolVersion::STATELESS.as_str();

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn versions_order_by_date() {
        let mut sorted = ProtocolVersion::SUPPORTED;
        sorted.sort();
        let dates: Vec<&str> = sorted.iter().map(|v| v.as_str()).collect();
        let mut by_string = dates.clone();
        by_string.sort_unstable();
        assert_eq!(dates, by_string);
    }

    #[test]
    fn features_start_where_the_specification_says() {
        use ProtocolVersion::*;
        assert!(!V2025_03_26.has_resource_links() && V2025_06_18.has_resource_links());
        assert!(!V2025_03_26.has_elicitation() && V2025_06_18.has_elicitation());
        assert!(!V2025_06_18.has_url_elicitation() && V2025_11_25.has_url_elicitation());
        assert!(!V2025_11_25.is_stateless() && V2026_07_28.is_stateless());
    }

    #[test]
    fn only_spoken_versions_parse() {
        assert_eq!(
            ProtocolVersion::parse("2025-06-18"),
            Some(ProtocolVersion::V2025_06_18)
        );
        assert_eq!(ProtocolVersion::parse("2024-11-05"), None);
        assert_eq!(ProtocolVersion::parse_handshake(MODERN_VERSION), None);
        assert_eq!(
            HANDSHAKE_VERSIONS,
            ["2025-11-25", "2025-06-18", "2025-03-26"]
        );
    }
}

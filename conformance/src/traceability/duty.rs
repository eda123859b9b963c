//! The vocabulary of the traceability table: a duty and how it is judged (shared by the
//! Computer and Agent API tables and the table's printers).

/// How a duty is judged.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Coverage {
    /// These rules judge it (ids of the registry).
    Rules(&'static [&'static str]),
    /// It cannot be observed from the wire or the user channel, for this reason.
    Excluded(&'static str),
    /// Not judged yet: what the suite still lacks to judge it.
    Gap(&'static str),
}

/// One client duty of a product document.
#[derive(Debug, Clone, Copy)]
pub struct Duty {
    /// Stable id: `C01`.. for the Computer document, `A01`.. for the Agent API documents,
    /// `S01`.. for a Sonar client's.
    pub id: &'static str,
    /// The document's public title.
    pub document: &'static str,
    /// Its section.
    pub section: &'static str,
    /// The duty, quoted word for word (25 words at most).
    pub quote: &'static str,
    /// What judges it.
    pub coverage: Coverage,
}

impl Duty {
    /// The suite whose scenarios judge it: `computer` (the Computer document's `C..` duties),
    /// `agent` (the Agent API documents' `A..`) or `sonar` (a Sonar client's `S..`).
    pub fn suite(&self) -> &'static str {
        if self.id.starts_with('A') {
            "agent"
        } else if self.id.starts_with('S') {
            "sonar"
        } else {
            "computer"
        }
    }

    /// The rules that judge it (empty when excluded or not judged yet).
    pub fn rules(&self) -> &'static [&'static str] {
        match self.coverage {
            Coverage::Rules(ids) => ids,
            _ => &[],
        }
    }
}

//! The request's approval vocabulary, as the MCP tool document defines it: a tool's
//! `require_approval` policy and one `mcp_approval_response` decision.
//!
//! A policy is `"always"`, `"never"`, or `{always?: filter, never?: filter}`; a filter matches
//! by exact `tool_names` and/or `read_only` (both given: both must match), `{}` matches every
//! tool, and an omitted, null or empty `tool_names` does not check the name, so
//! `{"never": {"tool_names": []}}` lets every call run. Omitted, MCP calls run without
//! approval.

use serde_json::{Map, Value};

/// Which tool calls of one server need a decision before they run.
#[derive(Debug, Clone, PartialEq, Eq, Default)]
pub(crate) enum ApprovalPolicy {
    /// Every call needs approval.
    Always,
    /// No call needs approval (the default).
    #[default]
    Never,
    /// Per-tool filters.
    Filters {
        /// Tools that always need approval.
        always: Option<ApprovalFilter>,
        /// Tools that never need approval.
        never: Option<ApprovalFilter>,
    },
}

/// A set of tools, by exact name and/or by the server's read-only annotation.
#[derive(Debug, Clone, PartialEq, Eq, Default)]
pub(crate) struct ApprovalFilter {
    /// Exact names; `None` or empty does not check the name.
    pub(crate) tool_names: Option<Vec<String>>,
    /// The tool's `annotations.read_only` must equal this.
    pub(crate) read_only: Option<bool>,
}

impl ApprovalFilter {
    /// Whether the filter selects `tool_name`. A tool without a read-only annotation counts
    /// as not read-only, the MCP default for `readOnlyHint`.
    pub(crate) fn matches(&self, tool_name: &str, read_only: Option<bool>) -> bool {
        let name_ok = match &self.tool_names {
            Some(names) if !names.is_empty() => names.iter().any(|n| n == tool_name),
            _ => true,
        };
        let read_only_ok = self
            .read_only
            .is_none_or(|wanted| wanted == read_only.unwrap_or(false));
        name_ok && read_only_ok
    }

    fn from_value(value: &Value, field: &str) -> Result<Option<Self>, String> {
        let fields = match value {
            Value::Null => return Ok(None),
            Value::Object(fields) => fields,
            other => {
                return Err(format!(
                    "`{field}` must be an object such as {{\"tool_names\": [\"...\"], \
                     \"read_only\": true}}, not {}",
                    kind(other)
                ));
            }
        };
        reject_unknown(fields, field, &["tool_names", "read_only"])?;
        let tool_names = match fields.get("tool_names") {
            None | Some(Value::Null) => None,
            Some(Value::Array(names)) => {
                let mut out = Vec::with_capacity(names.len());
                for (i, name) in names.iter().enumerate() {
                    let Some(name) = name.as_str() else {
                        return Err(format!(
                            "`{field}.tool_names[{i}]` must be a tool name (a string), not {}",
                            kind(name)
                        ));
                    };
                    out.push(name.to_owned());
                }
                Some(out)
            }
            Some(other) => {
                return Err(format!(
                    "`{field}.tool_names` must be an array of tool names, not {}",
                    kind(other)
                ));
            }
        };
        let read_only = match fields.get("read_only") {
            None | Some(Value::Null) => None,
            Some(Value::Bool(b)) => Some(*b),
            Some(other) => {
                return Err(format!(
                    "`{field}.read_only` must be true or false, not {}",
                    kind(other)
                ));
            }
        };
        Ok(Some(Self {
            tool_names,
            read_only,
        }))
    }
}

impl ApprovalPolicy {
    /// Parses a tool's `require_approval` value (absent or null: [`ApprovalPolicy::Never`]).
    /// The error names the offending field, relative to the tool entry.
    pub(crate) fn from_request(value: Option<&Value>) -> Result<Self, String> {
        let fields = match value {
            None | Some(Value::Null) => return Ok(Self::Never),
            Some(Value::String(s)) if s == "always" => return Ok(Self::Always),
            Some(Value::String(s)) if s == "never" => return Ok(Self::Never),
            Some(Value::String(s)) => {
                return Err(format!(
                    "`require_approval` must be \"always\", \"never\" or an object with `always` \
                     and/or `never` filters; \"{s}\" is none of these"
                ));
            }
            Some(Value::Object(fields)) => fields,
            Some(other) => {
                return Err(format!(
                    "`require_approval` must be \"always\", \"never\" or an object with `always` \
                     and/or `never` filters, not {}",
                    kind(other)
                ));
            }
        };
        reject_unknown(fields, "require_approval", &["always", "never"])?;
        let always = match fields.get("always") {
            Some(v) => ApprovalFilter::from_value(v, "require_approval.always")?,
            None => None,
        };
        let never = match fields.get("never") {
            Some(v) => ApprovalFilter::from_value(v, "require_approval.never")?,
            None => None,
        };
        Ok(Self::Filters { always, never })
    }

    /// Whether a call of `tool_name` (with the server's read-only annotation) needs approval.
    ///
    /// With filters: a tool the `always` filter selects needs approval (also when `never`
    /// selects it too: the stricter choice wins); else a tool the `never` filter selects runs;
    /// else it needs approval exactly when a `never` filter was sent, because tools outside
    /// `never` still require approval while an `always`-only policy selects just its tools.
    pub(crate) fn requires_approval(&self, tool_name: &str, read_only: Option<bool>) -> bool {
        match self {
            Self::Always => true,
            Self::Never => false,
            Self::Filters { always, never } => {
                if always
                    .as_ref()
                    .is_some_and(|f| f.matches(tool_name, read_only))
                {
                    return true;
                }
                match never {
                    Some(filter) => !filter.matches(tool_name, read_only),
                    None => false,
                }
            }
        }
    }
}

/// One `mcp_approval_response`.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) struct ApprovalDecision {
    /// The request it answers.
    pub(crate) approval_request_id: String,
    /// Approve (run the call) or deny (skip it).
    pub(crate) approve: bool,
    /// Why, for a denial; passed to the model.
    pub(crate) reason: Option<String>,
}

fn reject_unknown(fields: &Map<String, Value>, field: &str, known: &[&str]) -> Result<(), String> {
    match fields.keys().find(|k| !known.contains(&k.as_str())) {
        Some(extra) => Err(format!(
            "`{field}` has an unknown field `{extra}`; it accepts {}",
            known
                .iter()
                .map(|k| format!("`{k}`"))
                .collect::<Vec<_>>()
                .join(" and ")
        )),
        None => Ok(()),
    }
}

/// "a number", "an array", ... for error messages.
fn kind(value: &Value) -> &'static str {
    match value {
        Value::Null => "null",
        Value::Bool(_) => "a boolean",
        Value::Number(_) => "a number",
        Value::String(_) => "a string",
        Value::Array(_) => "an array",
        Value::Object(_) => "an object",
    }
}

//! The faults in force: added, listed, removed, and the one that touches a request found and
//! counted.

use std::sync::Arc;
use std::sync::atomic::{AtomicBool, Ordering};

use parking_lot::Mutex;
use serde::Serialize;

use super::spec::{FaultSpec, Kind};

/// The faults in force; cheap to clone, every clone shares them.
#[derive(Clone, Default)]
pub(crate) struct Faults {
    inner: Arc<Inner>,
}

#[derive(Default)]
struct Inner {
    /// Whether any fault is in force: the layer's fast path reads only this.
    any: AtomicBool,
    state: Mutex<State>,
}

#[derive(Default)]
struct State {
    next_id: u64,
    active: Vec<Active>,
}

/// One fault in force.
#[derive(Debug, Clone)]
struct Active {
    id: String,
    spec: FaultSpec,
    /// Requests it touched so far.
    hits: u64,
}

/// A fault as `GET /_mock/faults` and the dashboard list it.
#[derive(Debug, Clone, Serialize)]
pub(crate) struct Listed {
    /// `fault-1`, `fault-2`, ... in the order they were added.
    pub(crate) id: String,
    /// The spec in the compact form (a key shown as its fingerprint).
    pub(crate) spec: String,
    /// Requests it touched so far.
    pub(crate) hits: u64,
    /// Requests it will still touch; absent when it lasts until removed.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub(crate) remaining: Option<u64>,
}

/// What a request is, as far as a fault's scope asks.
pub(crate) struct Facts<'a> {
    pub(crate) method: &'a str,
    pub(crate) path: &'a str,
    pub(crate) session: Option<&'a str>,
    pub(crate) key: Option<&'a str>,
    pub(crate) body: &'a [u8],
}

/// A fault that touched a request: its id and what it does.
#[derive(Debug, Clone)]
pub(crate) struct Hit {
    pub(crate) id: String,
    pub(crate) kind: Kind,
}

impl Hit {
    /// What the journal records: `fault-1 status=429,retry-after=2s`.
    pub(crate) fn note(&self) -> String {
        format!("{} {}", self.id, self.kind)
    }
}

impl Faults {
    /// Puts `spec` in force; its id.
    pub(crate) fn add(&self, spec: FaultSpec) -> String {
        let mut state = self.inner.state.lock();
        state.next_id += 1;
        let id = format!("fault-{}", state.next_id);
        state.active.push(Active {
            id: id.clone(),
            spec,
            hits: 0,
        });
        self.inner.any.store(true, Ordering::Release);
        id
    }

    /// Every fault in force, oldest first.
    pub(crate) fn list(&self) -> Vec<Listed> {
        self.inner
            .state
            .lock()
            .active
            .iter()
            .map(|active| Listed {
                id: active.id.clone(),
                spec: active.spec.shown(),
                hits: active.hits,
                remaining: active
                    .spec
                    .scope
                    .times
                    .map(|t| t.saturating_sub(active.hits)),
            })
            .collect()
    }

    /// Removes every fault; how many there were.
    pub(crate) fn clear(&self) -> usize {
        let mut state = self.inner.state.lock();
        self.inner.any.store(false, Ordering::Release);
        std::mem::take(&mut state.active).len()
    }

    /// Removes fault `id`; whether it was in force.
    pub(crate) fn remove(&self, id: &str) -> bool {
        let mut state = self.inner.state.lock();
        let before = state.active.len();
        state.active.retain(|active| active.id != id);
        self.inner
            .any
            .store(!state.active.is_empty(), Ordering::Release);
        state.active.len() != before
    }

    /// Whether any fault is in force (read without the lock).
    pub(crate) fn any(&self) -> bool {
        self.inner.any.load(Ordering::Acquire)
    }

    /// Whether some fault in force needs the request body to tell whether it applies.
    pub(crate) fn reads_bodies(&self) -> bool {
        self.inner
            .state
            .lock()
            .active
            .iter()
            .any(|a| a.spec.scope.tool.is_some() || a.spec.scope.scenario.is_some())
    }

    /// The oldest fault in force that touches this request, counted as used once; a fault
    /// used up is removed.
    pub(crate) fn take(&self, facts: &Facts<'_>) -> Option<Hit> {
        let mut state = self.inner.state.lock();
        let index = state.active.iter().position(|a| touches(&a.spec, facts))?;
        let active = &mut state.active[index];
        active.hits += 1;
        let hit = Hit {
            id: active.id.clone(),
            kind: active.spec.kind.clone(),
        };
        if active
            .spec
            .scope
            .times
            .is_some_and(|times| active.hits >= times)
        {
            state.active.remove(index);
            self.inner
                .any
                .store(!state.active.is_empty(), Ordering::Release);
        }
        Some(hit)
    }
}

/// Whether `spec`'s scope holds for the request.
fn touches(spec: &FaultSpec, facts: &Facts<'_>) -> bool {
    let scope = &spec.scope;
    let path = scope
        .path
        .as_deref()
        .is_none_or(|path| match path.strip_suffix('*') {
            Some(prefix) => facts.path.starts_with(prefix),
            None => facts.path == path,
        });
    let method = scope
        .method
        .as_deref()
        .is_none_or(|m| m.eq_ignore_ascii_case(facts.method));
    let session = scope
        .session
        .as_deref()
        .is_none_or(|s| facts.session == Some(s));
    let key = scope.key.as_deref().is_none_or(|k| facts.key == Some(k));
    let scenario = scope
        .scenario
        .as_deref()
        .is_none_or(|name| names_scenario(facts.body, name));
    let tool = scope
        .tool
        .as_deref()
        .is_none_or(|tool| calls_tool(facts.body, tool));
    // A session fault needs a session to forget.
    let applies = !matches!(spec.kind, Kind::ForgetSession) || facts.session.is_some();
    path && method && session && key && scenario && tool && applies
}

/// Whether `body` names `#name` as a whole word (how a conversation picks its scenario).
fn names_scenario(body: &[u8], name: &str) -> bool {
    let Ok(text) = std::str::from_utf8(body) else {
        return false;
    };
    let tag = format!("#{name}");
    text.match_indices(&tag).any(|(at, _)| {
        text[at + tag.len()..]
            .chars()
            .next()
            .is_none_or(|c| !(c.is_alphanumeric() || c == '-' || c == '_'))
    })
}

/// Whether `body` is a JSON-RPC `tools/call` of `tool`.
fn calls_tool(body: &[u8], tool: &str) -> bool {
    let Ok(value) = serde_json::from_slice::<serde_json::Value>(body) else {
        return false;
    };
    value["method"] == "tools/call" && value["params"]["name"] == tool
}

#[cfg(test)]
mod tests {
    use super::*;

    fn facts<'a>(path: &'a str, key: Option<&'a str>, body: &'a [u8]) -> Facts<'a> {
        Facts {
            method: "POST",
            path,
            session: None,
            key,
            body,
        }
    }

    fn add(faults: &Faults, text: &str) {
        match FaultSpec::parse(text) {
            Ok(spec) => {
                faults.add(spec);
            }
            Err(e) => panic!("{e}"),
        }
    }

    #[test]
    fn a_fault_for_n_requests_is_used_up_after_n() {
        let faults = Faults::default();
        add(&faults, "status=503,times=2,path=/v1/*");
        let request = facts("/v1/agent", None, b"");
        assert!(faults.take(&facts("/search", None, b"")).is_none());
        assert!(faults.take(&request).is_some());
        assert_eq!(faults.list()[0].remaining, Some(1));
        assert!(faults.take(&request).is_some());
        assert!(faults.take(&request).is_none());
        assert!(!faults.any());
    }

    #[test]
    fn scopes_keep_a_fault_to_its_key_scenario_and_tool() {
        let faults = Faults::default();
        add(&faults, "status=500,key=bob-dev-token,scenario=slow");
        assert!(
            faults
                .take(&facts("/v1/agent", Some("alice-dev-token"), b"#slow hi"))
                .is_none()
        );
        assert!(
            faults
                .take(&facts("/v1/agent", Some("bob-dev-token"), b"#slower hi"))
                .is_none()
        );
        assert!(
            faults
                .take(&facts("/v1/agent", Some("bob-dev-token"), b"\"#slow hi\""))
                .is_some()
        );
        add(&faults, "latency=1s,tool=read_thread");
        let call = br#"{"method":"tools/call","params":{"name":"read_thread"}}"#;
        let other = br#"{"method":"tools/call","params":{"name":"list_threads"}}"#;
        assert!(
            faults
                .take(&facts("/rest/computer/mcp", None, other))
                .is_none()
        );
        let hit = faults.take(&facts("/rest/computer/mcp", None, call));
        assert_eq!(hit.map(|h| h.note()).as_deref(), Some("fault-2 latency=1s"));
    }
}

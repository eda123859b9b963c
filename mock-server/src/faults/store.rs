//! The faults in force: added, listed, removed, put back as they stood at start-up by a
//! reset, armed for the conversations of a scenario that declares some, and the one that
//! touches a request found and counted.

use std::collections::HashSet;
use std::sync::Arc;
use std::sync::atomic::{AtomicBool, Ordering};

use chrono::{DateTime, Utc};
use parking_lot::Mutex;
use serde::Serialize;

use super::spec::{FaultSpec, Kind};
use crate::clock::{after, to_chrono};

/// The faults in force; cheap to clone, every clone shares them.
#[derive(Clone, Default)]
pub(crate) struct Faults {
    inner: Arc<Inner>,
}

#[derive(Default)]
struct Inner {
    /// Whether a fault the layer applies is in force: its fast path reads only this.
    any: AtomicBool,
    state: Mutex<State>,
}

#[derive(Default)]
struct State {
    next_id: u64,
    active: Vec<Active>,
    /// The faults given at start-up (`--fault`, the builder), which a reset puts back.
    start_up: Vec<FaultSpec>,
    /// The conversations (surface, scenario, account) whose scenario's faults were armed.
    armed: HashSet<(&'static str, String, String)>,
}

/// Where a fault came from, which says who applies it and what a reset does with it.
#[derive(Debug, Clone, PartialEq, Eq)]
enum Origin {
    /// `--fault` or the builder: a reset puts it back as it was.
    StartUp,
    /// `POST /_mock/faults`: a reset removes it.
    ControlApi,
    /// A scenario's `faults`, armed for one account's conversations of it: the surface
    /// applies it once it knows the scenario; a reset removes it, and the next conversation
    /// arms it afresh.
    Scenario {
        surface: &'static str,
        scenario: String,
        account: String,
    },
}

/// One fault in force.
#[derive(Debug, Clone)]
struct Active {
    id: String,
    spec: FaultSpec,
    origin: Origin,
    /// Requests it touched so far.
    hits: u64,
    /// Requests it touched that count towards `times` (a held refusal does not).
    uses: u64,
    /// Until when a `hold` fault refuses again (virtual time).
    held_until: Option<DateTime<Utc>>,
}

impl Active {
    fn used_up(&self) -> bool {
        self.spec
            .scope
            .times
            .is_some_and(|times| self.uses >= times)
    }

    fn holding(&self, now: DateTime<Utc>) -> bool {
        self.held_until.is_some_and(|until| now < until)
    }
}

/// A fault as `GET /_mock/faults` and the dashboard list it.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub(crate) struct Listed {
    /// `fault-1`, `fault-2`, ... in the order they were put in force.
    pub(crate) id: String,
    /// The spec in the compact form (a key shown as its fingerprint).
    pub(crate) spec: String,
    /// Requests it touched so far.
    pub(crate) hits: u64,
    /// Requests it will still touch; absent when it lasts until removed.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub(crate) remaining: Option<u64>,
    /// Which door it came through: `start-up` (kept by a reset), `control` (removed by a
    /// reset), or `scenario` (a scenario's, armed for one account; removed by a reset).
    pub(crate) from: &'static str,
}

/// What a request is, as far as a fault's scope asks.
#[derive(Default)]
pub(crate) struct Facts<'a> {
    pub(crate) method: &'a str,
    pub(crate) path: &'a str,
    pub(crate) session: Option<&'a str>,
    pub(crate) key: Option<&'a str>,
    /// The account it acts as (worked out only when a fault in force asks).
    pub(crate) account: Option<&'a str>,
    pub(crate) body: &'a [u8],
}

/// A request of one conversation, as the surface that routed it to its scenario knows it.
pub(crate) struct Conversation<'a> {
    /// The surface (`Agent API`, `Sonar`): two surfaces may each have a scenario of a name.
    pub(crate) surface: &'static str,
    /// The scenario the request follows.
    pub(crate) scenario: &'a str,
    /// The account it acts as.
    pub(crate) account: &'a str,
    /// The scenario's `faults`.
    pub(crate) faults: &'a [FaultSpec],
}

/// A fault that touched a request: its id, what it does to this request, and the journal's
/// note.
#[derive(Debug, Clone)]
pub(crate) struct Hit {
    pub(crate) id: String,
    /// What it does; a held refusal's delay is the time left.
    pub(crate) kind: Kind,
    note: String,
}

impl Hit {
    /// What the journal records: `fault-1 status=429,retry-after=2s`.
    pub(crate) fn note(&self) -> String {
        self.note.clone()
    }
}

impl Faults {
    /// The faults given at start-up, in force.
    pub(crate) fn new(start_up: Vec<FaultSpec>) -> Self {
        let faults = Self::default();
        {
            let mut state = faults.inner.state.lock();
            state.start_up = start_up;
            faults.restore(&mut state);
        }
        faults
    }

    /// Puts `spec` in force (`POST /_mock/faults`); its id.
    pub(crate) fn add(&self, spec: FaultSpec) -> String {
        let mut state = self.inner.state.lock();
        let id = push(&mut state, spec, Origin::ControlApi);
        self.refresh(&state);
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
                    .map(|t| t.saturating_sub(active.uses)),
                from: match active.origin {
                    Origin::StartUp => "start-up",
                    Origin::ControlApi => "control",
                    Origin::Scenario { .. } => "scenario",
                },
            })
            .collect()
    }

    /// Removes every fault in force; how many there were.
    pub(crate) fn clear(&self) -> usize {
        let mut state = self.inner.state.lock();
        let removed = std::mem::take(&mut state.active).len();
        self.refresh(&state);
        removed
    }

    /// Removes fault `id`; whether it was in force.
    pub(crate) fn remove(&self, id: &str) -> bool {
        let mut state = self.inner.state.lock();
        let before = state.active.len();
        state.active.retain(|active| active.id != id);
        self.refresh(&state);
        state.active.len() != before
    }

    /// The faults as they stood at start-up (`POST /_mock/reset`): those given by `--fault`
    /// back in force, unused, under their first ids; every other one gone, and every
    /// scenario's faults to be armed afresh.
    pub(crate) fn reset(&self) {
        let mut state = self.inner.state.lock();
        self.restore(&mut state);
    }

    fn restore(&self, state: &mut State) {
        state.active.clear();
        state.armed.clear();
        state.next_id = 0;
        for spec in state.start_up.clone() {
            push(state, spec, Origin::StartUp);
        }
        self.refresh(state);
    }

    /// Whether a fault the layer applies is in force (read without the lock).
    pub(crate) fn any(&self) -> bool {
        self.inner.any.load(Ordering::Acquire)
    }

    /// Whether some fault the layer applies needs the request body to tell whether it
    /// applies.
    pub(crate) fn reads_bodies(&self) -> bool {
        self.layer_faults(|spec| spec.scope.tool.is_some() || spec.scope.scenario.is_some())
    }

    /// Whether some fault the layer applies needs the request's account.
    pub(crate) fn reads_accounts(&self) -> bool {
        self.layer_faults(|spec| spec.scope.account.is_some())
    }

    fn layer_faults(&self, asks: impl Fn(&FaultSpec) -> bool) -> bool {
        self.inner
            .state
            .lock()
            .active
            .iter()
            .any(|a| !matches!(a.origin, Origin::Scenario { .. }) && asks(&a.spec))
    }

    /// The oldest fault the layer applies (`--fault`, the control API) that touches this
    /// request, counted as used once; a fault used up is removed.
    pub(crate) fn take(&self, facts: &Facts<'_>, now: DateTime<Utc>) -> Option<Hit> {
        self.take_where(now, |active| {
            !matches!(active.origin, Origin::Scenario { .. }) && touches(&active.spec, facts)
        })
    }

    /// The oldest fault of `conversation`'s scenario that touches this request of it, the
    /// scenario's faults armed for the account first if they were not yet.
    pub(crate) fn take_in(
        &self,
        conversation: &Conversation<'_>,
        now: DateTime<Utc>,
    ) -> Option<Hit> {
        if conversation.faults.is_empty() {
            return None;
        }
        let origin = Origin::Scenario {
            surface: conversation.surface,
            scenario: conversation.scenario.to_owned(),
            account: conversation.account.to_owned(),
        };
        {
            let mut state = self.inner.state.lock();
            let armed = (
                conversation.surface,
                conversation.scenario.to_owned(),
                conversation.account.to_owned(),
            );
            if state.armed.insert(armed) {
                for template in conversation.faults {
                    if template
                        .scope
                        .account
                        .as_deref()
                        .is_some_and(|only| only != conversation.account)
                    {
                        continue;
                    }
                    let mut spec = template.clone();
                    spec.scope.scenario = Some(conversation.scenario.to_owned());
                    spec.scope.account = Some(conversation.account.to_owned());
                    push(&mut state, spec, origin.clone());
                }
            }
        }
        self.take_where(now, |active| active.origin == origin)
    }

    fn take_where(&self, now: DateTime<Utc>, touched: impl Fn(&Active) -> bool) -> Option<Hit> {
        let mut state = self.inner.state.lock();
        // A fault used up stays only while it holds.
        state
            .active
            .retain(|active| !active.used_up() || active.holding(now));
        let found = state.active.iter().position(touched);
        let hit = found.map(|index| {
            let active = &mut state.active[index];
            active.hits += 1;
            let note = format!("{} {}", active.id, active.spec.kind);
            let mut kind = active.spec.kind.clone();
            match (&mut kind, active.held_until.filter(|until| now < *until)) {
                (Kind::Status(status), Some(until)) => {
                    status.retry_after = Some((until - now).to_std().unwrap_or_default());
                }
                (Kind::Status(status), None) => {
                    active.uses += 1;
                    if status.hold
                        && let Some(delay) = status.retry_after
                    {
                        active.held_until = Some(after(now, to_chrono(delay)));
                    }
                }
                _ => active.uses += 1,
            }
            let hit = Hit {
                id: active.id.clone(),
                kind,
                note,
            };
            if active.used_up() && !active.holding(now) {
                state.active.remove(index);
            }
            hit
        });
        self.refresh(&state);
        hit
    }

    /// Keeps the fast path's flag in step with the faults the layer applies.
    fn refresh(&self, state: &State) {
        let any = state
            .active
            .iter()
            .any(|a| !matches!(a.origin, Origin::Scenario { .. }));
        self.inner.any.store(any, Ordering::Release);
    }
}

/// Puts `spec` in force under the next id.
fn push(state: &mut State, spec: FaultSpec, origin: Origin) -> String {
    state.next_id += 1;
    let id = format!("fault-{}", state.next_id);
    state.active.push(Active {
        id: id.clone(),
        spec,
        origin,
        hits: 0,
        uses: 0,
        held_until: None,
    });
    id
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
    let account = scope
        .account
        .as_deref()
        .is_none_or(|a| facts.account == Some(a));
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
    path && method && session && key && account && scenario && tool && applies
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
    use crate::clock::Clock;

    fn facts<'a>(path: &'a str, key: Option<&'a str>, body: &'a [u8]) -> Facts<'a> {
        Facts {
            method: "POST",
            path,
            key,
            body,
            ..Facts::default()
        }
    }

    fn spec(text: &str) -> FaultSpec {
        FaultSpec::parse(text).unwrap_or_else(|e| panic!("{e}"))
    }

    fn add(faults: &Faults, text: &str) {
        faults.add(spec(text));
    }

    fn now() -> DateTime<Utc> {
        Clock::fixed_epoch()
    }

    #[test]
    fn a_fault_for_n_requests_is_used_up_after_n() {
        let faults = Faults::default();
        add(&faults, "status=503,times=2,path=/v1/*");
        let request = facts("/v1/agent", None, b"");
        assert!(faults.take(&facts("/search", None, b""), now()).is_none());
        assert!(faults.take(&request, now()).is_some());
        assert_eq!(faults.list()[0].remaining, Some(1));
        assert!(faults.take(&request, now()).is_some());
        assert!(faults.take(&request, now()).is_none());
        assert!(!faults.any());
    }

    #[test]
    fn scopes_keep_a_fault_to_its_key_scenario_tool_and_account() {
        let faults = Faults::default();
        add(&faults, "status=500,key=bob-dev-token,scenario=slow");
        let t = now();
        assert!(
            faults
                .take(&facts("/v1/agent", Some("alice-dev-token"), b"#slow hi"), t)
                .is_none()
        );
        assert!(
            faults
                .take(&facts("/v1/agent", Some("bob-dev-token"), b"#slower hi"), t)
                .is_none()
        );
        assert!(
            faults
                .take(
                    &facts("/v1/agent", Some("bob-dev-token"), b"\"#slow hi\""),
                    t
                )
                .is_some()
        );
        add(&faults, "latency=1s,tool=read_thread");
        let call = br#"{"method":"tools/call","params":{"name":"read_thread"}}"#;
        let other = br#"{"method":"tools/call","params":{"name":"list_threads"}}"#;
        assert!(
            faults
                .take(&facts("/rest/computer/mcp", None, other), t)
                .is_none()
        );
        let hit = faults.take(&facts("/rest/computer/mcp", None, call), t);
        assert_eq!(hit.map(|h| h.note()).as_deref(), Some("fault-2 latency=1s"));
        add(&faults, "status=503,account=bob");
        assert!(faults.reads_accounts());
        let as_alice = Facts {
            account: Some("alice"),
            ..facts("/search", None, b"")
        };
        assert!(faults.take(&as_alice, t).is_none());
        let as_bob = Facts {
            account: Some("bob"),
            ..facts("/search", None, b"")
        };
        assert_eq!(
            faults.take(&as_bob, t).map(|h| h.id).as_deref(),
            Some("fault-3")
        );
    }

    #[test]
    fn a_held_429_refuses_again_until_its_delay_has_passed() {
        let faults = Faults::default();
        add(&faults, "status=429,retry-after=2s,hold,times=1");
        let request = facts("/search", None, b"");
        let t0 = now();
        assert!(faults.take(&request, t0).is_some());
        let early = faults.take(&request, after(t0, chrono::TimeDelta::milliseconds(500)));
        let Some(Kind::Status(held)) = early.map(|h| h.kind) else {
            panic!("refused again while it holds");
        };
        assert_eq!(
            held.retry_after,
            Some(std::time::Duration::from_millis(1500))
        );
        assert_eq!(faults.list()[0].remaining, Some(0));
        assert!(
            faults
                .take(&request, after(t0, chrono::TimeDelta::seconds(2)))
                .is_none()
        );
        assert!(faults.list().is_empty());
    }

    #[test]
    fn a_scenarios_faults_are_armed_once_per_account_and_only_where_it_asks() {
        let faults = Faults::default();
        let declared = [spec("status=500,times=1")];
        let of = |account| Conversation {
            surface: "Sonar",
            scenario: "broken",
            account,
            faults: &declared,
        };
        assert!(faults.take_in(&of("alice"), now()).is_some());
        assert!(faults.take_in(&of("alice"), now()).is_none(), "used up");
        assert!(faults.take_in(&of("bob"), now()).is_some(), "bob's own");
        let bobs_only = [spec("latency=1s,account=bob")];
        let carol = Conversation {
            faults: &bobs_only,
            ..of("carol")
        };
        assert!(faults.take_in(&carol, now()).is_none(), "kept to bob");
        // The layer never applies a scenario's fault.
        assert!(!faults.any());
        assert!(
            faults
                .take(&facts("/search", None, b"#broken"), now())
                .is_none()
        );
        faults.reset();
        assert!(
            faults.take_in(&of("alice"), now()).is_some(),
            "armed afresh"
        );
        assert_eq!(faults.list(), Vec::<Listed>::new());
    }

    #[test]
    fn a_reset_puts_the_start_up_faults_back_and_drops_the_others() {
        let faults = Faults::new(vec![spec("status=503,times=1")]);
        add(&faults, "latency=1s");
        assert!(faults.take(&facts("/search", None, b""), now()).is_some());
        let ids: Vec<_> = faults.list().into_iter().map(|l| (l.id, l.from)).collect();
        assert_eq!(ids, [("fault-2".to_owned(), "control")]);
        faults.reset();
        let listed = faults.list();
        assert_eq!(listed.len(), 1);
        assert_eq!(
            (listed[0].id.as_str(), listed[0].from, listed[0].remaining),
            ("fault-1", "start-up", Some(1))
        );
        assert_eq!(faults.add(spec("latency=1s")), "fault-2");
    }
}

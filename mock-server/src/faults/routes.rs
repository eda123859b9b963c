//! `/_mock/faults`: the control API's door to the fault vocabulary. `POST` adds faults (a
//! compact spec string, an object with the same keys, or a list of either), `GET` lists those
//! in force, `DELETE` removes them all (or one: `?id=fault-1`).

use axum::Router;
use axum::extract::{Query, State};
use axum::routing::get;
use bytes::Bytes;
use serde::Deserialize;
use serde_json::{Value, json};

use super::spec::FaultSpec;
use super::store::Faults;
use crate::control::ControlError;

/// The path of the control API's faults.
pub(crate) const FAULTS_PATH: &str = "/_mock/faults";

/// `GET`, `POST` and `DELETE /_mock/faults`.
pub(crate) fn routes() -> Router<Faults> {
    Router::new().route(FAULTS_PATH, get(list).post(add).delete(remove))
}

async fn list(State(faults): State<Faults>) -> axum::Json<Value> {
    axum::Json(json!({ "faults": faults.list() }))
}

async fn add(
    State(faults): State<Faults>,
    body: Bytes,
) -> Result<(http::StatusCode, axum::Json<Value>), ControlError> {
    let value: Value = serde_json::from_slice(&body).map_err(|e| {
        ControlError::bad_request(format!(
            "expected JSON such as {{\"spec\": \"status=429,retry-after=2s,times=1\"}} or \
             {{\"status\": 429, \"times\": 1}}: {e}"
        ))
    })?;
    let items = match value {
        Value::Array(items) => items,
        one => vec![one],
    };
    if items.is_empty() {
        return Err(ControlError::bad_request(
            "the list of faults is empty: give at least one",
        ));
    }
    // Every spec is checked before any is put in force: a bad one adds none.
    let specs = items
        .iter()
        .map(|item| match item {
            Value::String(text) => FaultSpec::parse(text),
            Value::Object(object) if object.len() == 1 && object.contains_key("spec") => {
                match &object["spec"] {
                    Value::String(text) => FaultSpec::parse(text),
                    other => FaultSpec::from_json(other),
                }
            }
            other => FaultSpec::from_json(other),
        })
        .collect::<Result<Vec<_>, _>>()
        .map_err(|refused| ControlError::bad_request(format!("{refused}.")))?;
    let ids: Vec<String> = specs.into_iter().map(|spec| faults.add(spec)).collect();
    let added: Vec<_> = faults
        .list()
        .into_iter()
        .filter(|listed| ids.contains(&listed.id))
        .collect();
    Ok((
        http::StatusCode::CREATED,
        axum::Json(json!({ "faults": added })),
    ))
}

#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
struct Removal {
    id: Option<String>,
}

async fn remove(
    State(faults): State<Faults>,
    query: Result<Query<Removal>, axum::extract::rejection::QueryRejection>,
) -> Result<axum::Json<Value>, ControlError> {
    let Ok(Query(removal)) = query else {
        return Err(ControlError::bad_request(
            "DELETE /_mock/faults takes no query, or ?id=fault-N for one fault",
        ));
    };
    match removal.id {
        None => Ok(axum::Json(json!({ "removed": faults.clear() }))),
        Some(id) if faults.remove(&id) => Ok(axum::Json(json!({ "removed": 1 }))),
        Some(id) => Err(ControlError::not_found(format!(
            "no fault `{id}` is in force; GET /_mock/faults lists them"
        ))),
    }
}

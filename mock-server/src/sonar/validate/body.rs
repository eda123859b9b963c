//! A body read into its typed request in one pass. Only when that fails is the body looked at
//! again, field by field, to name the field that does not fit (serde's own message names a
//! line and column, which a person cannot act on).

use serde::de::DeserializeOwned;
use serde_json::{Map, Value};

use crate::sonar::wire::error::SonarError;

/// Reads a JSON object body into `T` (every field of `T` optional), or a refusal naming the
/// field that does not fit; `example` shows a body that would.
pub(crate) fn parse<T: DeserializeOwned>(body: &[u8], example: &str) -> Result<T, SonarError> {
    serde_json::from_slice::<T>(body).map_err(|error| diagnose::<T>(body, &error, example))
}

/// Why `body` is not a `T`: not JSON, not an object, or the first field that is not what `T`
/// expects there (for a list, the first entry that is not).
fn diagnose<T: DeserializeOwned>(
    body: &[u8],
    error: &serde_json::Error,
    example: &str,
) -> SonarError {
    let value: Value = match serde_json::from_slice(body) {
        Ok(value) => value,
        Err(not_json) => {
            return SonarError::invalid_request(format!(
                "the body is not JSON ({not_json}): send one JSON object like {example} with \
                 Content-Type: application/json"
            ));
        }
    };
    let Value::Object(map) = value else {
        return SonarError::invalid_request(format!(
            "the body must be a JSON object like {example}"
        ));
    };
    for (key, value) in map {
        let Err(field_error) = only::<T>(&key, value.clone()) else {
            continue;
        };
        if let Value::Array(entries) = value {
            for (i, entry) in entries.into_iter().enumerate() {
                if let Err(entry_error) = only::<T>(&key, Value::Array(vec![entry])) {
                    return SonarError::invalid_field(&format!("{key}[{i}]"), entry_error);
                }
            }
        }
        return SonarError::invalid_field(&key, field_error);
    }
    SonarError::invalid_request(format!("the body does not fit: {error}"))
}

/// `T` read from an object holding only `key`.
fn only<T: DeserializeOwned>(key: &str, value: Value) -> Result<T, serde_json::Error> {
    let mut one = Map::new();
    one.insert(key.to_owned(), value);
    serde_json::from_value::<T>(Value::Object(one))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[derive(Debug, serde::Deserialize)]
    struct Sample {
        #[serde(default)]
        #[allow(dead_code)]
        flag: Option<bool>,
        #[serde(default)]
        #[allow(dead_code)]
        list: Option<Vec<u32>>,
    }

    fn refusal(body: &str) -> SonarError {
        parse::<Sample>(body.as_bytes(), "{}").expect_err("refused")
    }

    #[test]
    fn the_refusal_names_the_field_and_the_entry_that_does_not_fit() {
        let flag = refusal(r#"{"flag": "yes"}"#);
        assert_eq!(flag.param.as_deref(), Some("flag"));
        assert!(
            flag.message.starts_with("flag: invalid type"),
            "{}",
            flag.message
        );
        let entry = refusal(r#"{"flag": true, "list": [1, -2]}"#);
        assert_eq!(entry.param.as_deref(), Some("list[1]"));
        assert!(!entry.message.contains("line"), "{}", entry.message);
    }

    #[test]
    fn a_body_that_is_not_an_object_says_what_to_send() {
        assert!(refusal("[1]").message.contains("must be a JSON object"));
        assert!(refusal("{").message.contains("is not JSON"));
        assert!(parse::<Sample>(b"{\"unknown\": 1}", "{}").is_ok());
    }
}

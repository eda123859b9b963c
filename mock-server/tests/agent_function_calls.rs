//! Function tools: the default model calls an offered function with arguments that fit its
//! `parameters` schema, and a conversation continues with the function's output either through
//! `previous_response_id` or by sending the history in `input` (`message`, `function_call`,
//! `function_call_output`), as chat frameworks do; the model answers from the output both ways.

use serde_json::{Value, json};

use crate::common::Mock;
use crate::common::agent::{ALICE, item_types};

fn forecast_tool() -> Value {
    json!({"type": "function", "name": "get_forecast", "description": "The forecast for a city.",
           "parameters": {"type": "object", "required": ["city", "unit", "days"],
               "properties": {
                   "city": {"type": "string"},
                   "unit": {"type": "string", "enum": ["celsius", "fahrenheit"]},
                   "days": {"type": "integer", "minimum": 1, "maximum": 7},
                   "hourly": {"type": "boolean"}}}})
}

fn text(response: &Value) -> String {
    response["output"]
        .as_array()
        .and_then(|items| items.iter().find(|i| i["type"] == "message"))
        .and_then(|m| m["content"][0]["text"].as_str())
        .unwrap_or_default()
        .to_owned()
}

fn the_call(response: &Value) -> Value {
    response["output"]
        .as_array()
        .and_then(|items| items.iter().find(|i| i["type"] == "function_call"))
        .cloned()
        .unwrap_or_else(|| panic!("no function_call in {response:#}"))
}

#[tokio::test(start_paused = true)]
async fn without_a_scenario_the_default_model_calls_an_offered_function_with_arguments_fitting_its_schema()
 {
    let mock = Mock::new();
    let reply = mock
        .agent_create(
            ALICE,
            json!({"model": "openai/gpt-5.6-terra", "input": "Forecast for Lyon",
                                    "tools": [forecast_tool()]}),
        )
        .await;
    assert_eq!(reply.status, 200, "{:#}", reply.body);
    assert_eq!(item_types(&reply.body), ["function_call"]);
    let call = the_call(&reply.body);
    assert_eq!(call["name"], "get_forecast");
    let arguments: Value =
        serde_json::from_str(call["arguments"].as_str().expect("arguments")).expect("JSON");
    // Every required property, each of its type: a string, the first enum value, an integer
    // within its bounds; the optional one is left out.
    assert_eq!(
        arguments,
        json!({"city": "Forecast for Lyon", "unit": "celsius", "days": 1})
    );
}

#[tokio::test(start_paused = true)]
async fn the_default_model_answers_from_the_function_output_through_previous_response_id() {
    let mock = Mock::new();
    let tools = json!([forecast_tool()]);
    let first = mock
        .agent_create(
            ALICE,
            json!({"model": "openai/gpt-5.6-terra", "input": "Forecast for Lyon", "tools": tools}),
        )
        .await;
    let call = the_call(&first.body);
    let second = mock
        .agent_create(ALICE, json!({"model": "openai/gpt-5.6-terra", "previous_response_id": first.body["id"],
            "input": [{"type": "function_call_output", "call_id": call["call_id"], "output": "Sunny, 21°C"}],
            "tools": tools}))
        .await;
    assert_eq!(second.status, 200, "{:#}", second.body);
    assert_eq!(item_types(&second.body), ["message"]);
    assert_eq!(text(&second.body), "get_forecast returned: Sunny, 21°C");
}

#[tokio::test(start_paused = true)]
async fn the_default_model_answers_from_the_function_output_sent_as_history() {
    let mock = Mock::new();
    let tools = json!([forecast_tool()]);
    let user = json!({"type": "message", "role": "user", "content": "Forecast for Lyon"});
    let first = mock
        .agent_create(
            ALICE,
            json!({"model": "openai/gpt-5.6-terra", "input": [user], "tools": tools}),
        )
        .await;
    let call = the_call(&first.body);
    // The history as a chat framework keeps it: no previous_response_id.
    let history = json!([user,
        {"type": "function_call", "call_id": call["call_id"], "name": call["name"], "arguments": call["arguments"]},
        {"type": "function_call_output", "call_id": call["call_id"], "output": "Sunny, 21°C"}]);
    let second = mock
        .agent_create(
            ALICE,
            json!({"model": "openai/gpt-5.6-terra", "input": history, "tools": tools}),
        )
        .await;
    assert_eq!(second.status, 200, "{:#}", second.body);
    assert_eq!(
        item_types(&second.body),
        ["message"],
        "the same call must not come again"
    );
    assert_eq!(text(&second.body), "get_forecast returned: Sunny, 21°C");
}

#[tokio::test(start_paused = true)]
async fn a_scripted_function_call_continues_by_history_too() {
    let mock = Mock::new();
    let tools = json!([{"type": "function", "name": "get_weather",
                        "parameters": {"type": "object", "properties": {"city": {"type": "string"}}}}]);
    let history = json!([
        {"role": "user", "content": "#function-weather in Paris?"},
        {"type": "function_call", "call_id": "call_abc", "name": "get_weather", "arguments": "{\"city\":\"Paris\"}"},
        {"type": "function_call_output", "call_id": "call_abc", "output": "18°C and sunny"}
    ]);
    let reply = mock
        .agent_create(
            ALICE,
            json!({"model": "openai/gpt-5.6-terra", "input": history, "tools": tools}),
        )
        .await;
    assert_eq!(reply.status, 200, "{:#}", reply.body);
    assert_eq!(item_types(&reply.body), ["message"]);
    assert_eq!(text(&reply.body), "The weather in Paris: 18°C and sunny");
}

#[tokio::test(start_paused = true)]
async fn a_history_that_goes_on_after_the_answer_plays_the_next_turn() {
    let mock = Mock::new();
    let tools = json!([forecast_tool()]);
    let history = json!([
        {"role": "user", "content": "Forecast for Lyon"},
        {"type": "function_call", "call_id": "call_abc", "name": "get_forecast", "arguments": "{}"},
        {"type": "function_call_output", "call_id": "call_abc", "output": "Sunny"},
        {"role": "assistant", "content": "get_forecast returned: Sunny"},
        {"role": "user", "content": "And in Nice?"}
    ]);
    let reply = mock
        .agent_create(
            ALICE,
            json!({"model": "openai/gpt-5.6-terra", "input": history, "tools": tools}),
        )
        .await;
    assert_eq!(reply.status, 200, "{:#}", reply.body);
    // A new question: the model calls the function again, for it.
    let call = the_call(&reply.body);
    let arguments: Value =
        serde_json::from_str(call["arguments"].as_str().expect("arguments")).expect("JSON");
    assert_eq!(arguments["city"], "And in Nice?");
}

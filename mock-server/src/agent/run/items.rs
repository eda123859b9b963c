//! Writing output items: each appears in the snapshot `GET` shows and in the stream as
//! `response.output_item.added` then `.done`; a message streams its text as deltas between.

use serde_json::{Value, json};

use super::engine::Engine;
use crate::agent::wire::new_id;

impl Engine {
    /// Adds an item: `output_item.added`, then `output_item.done`.
    pub(super) fn add_item(&self, item: Value) {
        let index = self.push_output(item.clone());
        self.run.emit(
            "response.output_item.added",
            json!({"item": item, "output_index": index}),
        );
        self.run.emit(
            "response.output_item.done",
            json!({"item": item, "output_index": index}),
        );
    }

    fn push_output(&self, item: Value) -> usize {
        let mut state = self.run.state();
        let output = state
            .response
            .get_mut("output")
            .and_then(Value::as_array_mut);
        match output {
            Some(output) => {
                output.push(item);
                output.len() - 1
            }
            None => 0,
        }
    }

    /// A message item streamed word by word; a `cut` one (the output cap stopped it) ends
    /// with `status: incomplete`.
    pub(super) fn message(&mut self, text: &str, cut: bool) {
        let id = new_id("msg");
        let mut item = json!({
            "type": "message",
            "id": id,
            "role": "assistant",
            "status": "in_progress",
            "content": [],
        });
        let index = self.push_output(item.clone());
        self.run.emit(
            "response.output_item.added",
            json!({"item": item, "output_index": index}),
        );
        for delta in chunks(text) {
            self.run.emit(
                "response.output_text.delta",
                json!({"item_id": id, "output_index": index, "content_index": 0, "delta": delta}),
            );
        }
        self.run.emit(
            "response.output_text.done",
            json!({"item_id": id, "output_index": index, "content_index": 0, "text": text}),
        );
        item["status"] = json!(if cut { "incomplete" } else { "completed" });
        item["content"] = json!([{"type": "output_text", "text": text, "annotations": []}]);
        if let Some(slot) = self
            .run
            .state()
            .response
            .get_mut("output")
            .and_then(Value::as_array_mut)
            .and_then(|o| o.get_mut(index))
        {
            *slot = item.clone();
        }
        self.run.emit(
            "response.output_item.done",
            json!({"item": item, "output_index": index}),
        );
    }
}

/// Splits text into word-sized deltas that concatenate back to it.
fn chunks(text: &str) -> Vec<String> {
    let mut out = Vec::new();
    let mut current = String::new();
    for c in text.chars() {
        current.push(c);
        if c == ' ' {
            out.push(std::mem::take(&mut current));
        }
    }
    if !current.is_empty() {
        out.push(current);
    }
    out
}

#[cfg(test)]
mod tests {
    use super::chunks;

    #[test]
    fn deltas_concatenate_back_to_the_text() {
        let text = "Hello  world, again ";
        assert_eq!(chunks(text).concat(), text);
        assert_eq!(chunks("Hello world"), ["Hello ", "world"]);
    }
}

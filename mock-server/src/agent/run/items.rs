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
        let annotations = citations(text, &self.sources);
        item["content"] =
            json!([{"type": "output_text", "text": text, "annotations": annotations}]);
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

/// The `url_citation` annotations of a text: one per `[n]` marker that names a source the run
/// found (the nth search result), spanning the marker (character offsets).
fn citations(text: &str, sources: &[(String, String)]) -> Vec<Value> {
    let chars: Vec<char> = text.chars().collect();
    let mut out = Vec::new();
    let mut i = 0;
    while i < chars.len() {
        if chars[i] == '['
            && let Some(len) = chars[i + 1..].iter().position(|c| !c.is_ascii_digit())
            && len > 0
            && chars.get(i + 1 + len) == Some(&']')
        {
            let number: String = chars[i + 1..i + 1 + len].iter().collect();
            if let Some((url, title)) = number
                .parse::<usize>()
                .ok()
                .and_then(|n| n.checked_sub(1))
                .and_then(|n| sources.get(n))
            {
                out.push(json!({
                    "type": "url_citation",
                    "url": url,
                    "title": title,
                    "start_index": i,
                    "end_index": i + len + 2,
                }));
            }
            i += len + 2;
            continue;
        }
        i += 1;
    }
    out
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
    use serde_json::json;

    use super::{chunks, citations};

    #[test]
    fn deltas_concatenate_back_to_the_text() {
        let text = "Hello  world, again ";
        assert_eq!(chunks(text).concat(), text);
        assert_eq!(chunks("Hello world"), ["Hello ", "world"]);
    }

    #[test]
    fn citations_resolve_markers_to_the_sources_found() {
        let sources = vec![
            ("https://a.example/".to_owned(), "A".to_owned()),
            ("https://b.example/".to_owned(), "B".to_owned()),
        ];
        let found = citations("One [1], two [2], none [3], not [x] or [].", &sources);
        assert_eq!(found.len(), 2);
        assert_eq!(found[0]["url"], "https://a.example/");
        assert_eq!(found[0]["start_index"], json!(4));
        assert_eq!(found[0]["end_index"], json!(7));
        assert_eq!(found[1]["title"], "B");
    }
}

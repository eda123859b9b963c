//! Writing output items: each appears in the snapshot `GET` shows and in the stream as
//! `response.output_item.added` then `.done`; a message streams its text as deltas between.

use super::engine::Engine;
use crate::agent::wire::events::Event;
use crate::agent::wire::ids::new_id;
use crate::agent::wire::items::{Annotation, ItemStatus, Message, OutputContent, OutputItem};

impl Engine {
    /// Adds an item: `output_item.added`, then `output_item.done`.
    pub(super) fn add_item(&self, item: OutputItem) {
        let output_index = self.push_output(item.clone());
        self.run.emit(Event::OutputItemAdded {
            item: item.clone(),
            output_index,
        });
        self.run.emit(Event::OutputItemDone { item, output_index });
    }

    fn push_output(&self, item: OutputItem) -> usize {
        let output = &mut self.run.state().response.output;
        output.push(item);
        output.len() - 1
    }

    /// A message item streamed word by word; a `cut` one (the output cap stopped it) ends
    /// with `status: incomplete`.
    pub(super) fn message(&mut self, text: &str, cut: bool) {
        let id = new_id("msg");
        let mut message = Message::started(id.clone());
        let output_index = self.push_output(OutputItem::Message(message.clone()));
        self.run.emit(Event::OutputItemAdded {
            item: OutputItem::Message(message.clone()),
            output_index,
        });
        for delta in chunks(text) {
            self.run.emit(Event::OutputTextDelta {
                item_id: id.clone(),
                output_index,
                content_index: 0,
                delta,
            });
        }
        self.run.emit(Event::OutputTextDone {
            item_id: id,
            output_index,
            content_index: 0,
            text: text.to_owned(),
        });
        message.status = if cut {
            ItemStatus::Incomplete
        } else {
            ItemStatus::Completed
        };
        message.content = vec![OutputContent::OutputText {
            text: text.to_owned(),
            annotations: citations(text, &self.sources),
        }];
        let item = OutputItem::Message(message);
        if let Some(slot) = self.run.state().response.output.get_mut(output_index) {
            *slot = item.clone();
        }
        self.run.emit(Event::OutputItemDone { item, output_index });
    }
}

/// The `url_citation` annotations of a text: one per `[n]` marker that names a source the run
/// found (the nth search result), spanning the marker (character offsets).
fn citations(text: &str, sources: &[(String, String)]) -> Vec<Annotation> {
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
                out.push(Annotation::UrlCitation {
                    url: url.clone(),
                    title: title.clone(),
                    start_index: i,
                    end_index: i + len + 2,
                });
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
    use super::{Annotation, chunks, citations};

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
        assert_eq!(
            found,
            [
                Annotation::UrlCitation {
                    url: "https://a.example/".into(),
                    title: "A".into(),
                    start_index: 4,
                    end_index: 7,
                },
                Annotation::UrlCitation {
                    url: "https://b.example/".into(),
                    title: "B".into(),
                    start_index: 13,
                    end_index: 16,
                },
            ]
        );
    }
}

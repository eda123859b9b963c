//! The default scripted model: what a request no scenario selects (no `#name`, no `match`)
//! plays. It does a believable run for the request's preset and input, whatever the text says:
//! a preset brings its own `web_search` and `fetch_url` ("Request fields override preset
//! fields", so a request's own `tools` replace them), searches and reads over seconds for
//! `fast` and minutes for the deeper presets, and answers with citations (`[n]` markers the
//! message's `annotations` resolve to the sources found). Without a preset the model searches
//! once if the request offers `web_search`, and otherwise answers directly. A request offering
//! a function tool gets it called first, and the answer comes from the output sent back. A
//! request bringing MCP servers or connectors gets the tool that fits its message called
//! (`choose.rs` picks it, its input schema gives the arguments), and the answer comes from what
//! the tool returned, or says what went wrong.

use std::collections::BTreeMap;
use std::time::Duration;

use crate::fixtures::{AgentScript, AgentStep, AgentTurn, ResultSpec, TurnEnd};

/// How much research a run does: one row per preset, plus a plain model run.
struct Depth {
    /// Search-and-read rounds.
    rounds: usize,
    /// Whether each round also reads its first source (`fetch_url`).
    reads: bool,
    /// Virtual seconds: planning, each search, each read, the answer.
    plan: u64,
    search: u64,
    read: u64,
    answer: u64,
    /// Virtual seconds a background run stays `queued`.
    queued: u64,
}

/// The research depth of a preset (`None`: a plain model run, one search at most).
fn depth(preset: Option<&str>) -> Depth {
    let d = |rounds, reads, plan, search, read, answer, queued| Depth {
        rounds,
        reads,
        plan,
        search,
        read,
        answer,
        queued,
    };
    // The old names play as the presets that replaced them (the same served models).
    match preset {
        None => d(1, false, 1, 2, 0, 1, 2),
        Some("fast" | "fast-search") => d(1, false, 1, 2, 0, 2, 1),
        Some("low") => d(1, true, 2, 3, 4, 3, 2),
        Some("medium" | "pro-search") => d(2, true, 5, 20, 30, 15, 3),
        Some("high" | "deep-research") => d(3, true, 10, 30, 40, 20, 5),
        Some("xhigh" | "advanced-deep-research") => d(4, true, 15, 45, 60, 30, 5),
        // wide-research and any future name: the widest run.
        Some(_) => d(5, true, 20, 50, 70, 40, 10),
    }
}

/// One search-and-read round: a query suffix, the two sources it finds (title suffix and what
/// the snippet says) and the sentence the answer cites them with.
type Round = (
    &'static str,
    [(&'static str, &'static str); 2],
    &'static str,
);

/// What each round looks for, in order.
const ROUNDS: [Round; 5] = [
    (
        "",
        [
            (
                "an overview",
                "A plain-language introduction to {topic}: what it is and how it works.",
            ),
            (
                "frequently asked questions",
                "Answers to the most common questions about {topic}.",
            ),
        ],
        "An overview lays out what {topic} is and how it works [{a}], and a set of frequently asked questions covers the common points of confusion [{b}].",
    ),
    (
        " latest developments",
        [
            (
                "what changed this year",
                "Recent developments in {topic} and what they mean.",
            ),
            (
                "industry news roundup",
                "News coverage of {topic} from the past few months.",
            ),
        ],
        "Recent reporting describes what changed this year [{a}] and how the field has reacted [{b}].",
    ),
    (
        " expert analysis",
        [
            (
                "an expert analysis",
                "Specialists weigh the strengths and limits of {topic}.",
            ),
            (
                "open questions",
                "What is still unsettled about {topic}, according to researchers.",
            ),
        ],
        "Specialists weigh its strengths and limits [{a}] and list the questions that are still open [{b}].",
    ),
    (
        " statistics",
        [
            (
                "key figures",
                "Figures and trends on {topic}, with their sources.",
            ),
            (
                "a data survey",
                "A survey of the available data on {topic}.",
            ),
        ],
        "The available figures show the main trends [{a}], though the data are still incomplete [{b}].",
    ),
    (
        " criticism",
        [
            (
                "the main criticisms",
                "The main objections raised about {topic}.",
            ),
            (
                "a balanced review",
                "A review weighing the arguments for and against {topic}.",
            ),
        ],
        "Critics raise several objections [{a}], which a balanced review sets against the benefits [{b}].",
    ),
];

/// The tools a request lets the default model use.
#[derive(Debug, Clone, Copy, Default)]
pub(crate) struct Offered {
    /// `web_search` (a preset run without `tools` brings it).
    pub(crate) searches: bool,
    /// `fetch_url` (likewise).
    pub(crate) reads: bool,
    /// A `function` tool.
    pub(crate) functions: bool,
    /// An `mcp` server or a connector.
    pub(crate) servers: bool,
}

/// The script of the default model for this request: `preset` is the request's `effort` or
/// `preset`, `input` its user text.
pub(crate) fn script(preset: Option<&str>, input: &str, offered: Offered) -> AgentScript {
    let depth = depth(preset);
    // Queries and source titles name the topic as typed; the answer quotes it.
    let topic = match topic(input) {
        t if t.is_empty() => "your question".to_owned(),
        t => t,
    };
    let slug = slug(&topic);
    let quoted = format!("“{topic}”");
    let mut steps = vec![AgentStep::Reasoning {
        thought: format!("Working out what to look up about {quoted}."),
        duration: seconds(depth.plan),
    }];
    // A request offering a function tool gets it called (arguments fitting its schema) and
    // an answer from the output it sends back, whatever else the run does.
    if offered.functions {
        steps.push(AgentStep::FunctionCall {
            name: None,
            arguments: None,
            duration: seconds(1),
        });
    }
    // Its MCP servers and connectors: the model calls the tool that fits the message (chosen
    // at run time, when their catalogs are known).
    if offered.servers {
        steps.push(AgentStep::McpCall {
            server: None,
            tool: None,
            arguments: None,
            output: None,
            error: None,
            parallel: false,
            duration: seconds(2),
        });
    }
    let mut sentences = Vec::new();
    let mut source = 0;
    if offered.searches {
        for (round, (suffix, found, sentence)) in ROUNDS.iter().take(depth.rounds).enumerate() {
            let results: Vec<ResultSpec> = found
                .iter()
                .enumerate()
                .map(|(i, (title, snippet))| ResultSpec {
                    title: format!("{topic}: {title}"),
                    url: format!("https://example.com/{slug}/{}", round * 2 + i + 1),
                    snippet: snippet.replace("{topic}", &topic),
                    date: Some(format!("2026-{:02}-{:02}", 11 - round, 3 + 5 * i)),
                })
                .collect();
            // Each round reads its first source.
            let read = results.first().map(|first| ResultSpec {
                date: None,
                ..first.clone()
            });
            steps.push(AgentStep::WebSearch {
                queries: vec![format!("{topic}{suffix}")],
                results,
                duration: seconds(depth.search),
            });
            if depth.reads
                && offered.reads
                && let Some(read) = read
            {
                steps.push(AgentStep::FetchUrl {
                    contents: vec![read],
                    duration: seconds(depth.read),
                });
            }
            sentences.push(
                sentence
                    .replace("{topic}", &quoted)
                    .replace("{a}", &(source + 1).to_string())
                    .replace("{b}", &(source + 2).to_string()),
            );
            source += 2;
        }
    }
    let text = if sentences.is_empty() {
        format!(
            "Here is a short answer about {quoted}, from what I already know, without looking \
             anything up."
        )
    } else {
        format!(
            "Here is what I found about {quoted}. {}",
            sentences.join(" ")
        )
    };
    steps.push(AgentStep::Message {
        text,
        denied_text: None,
        tool_output_text: Some("{tool_name} returned: {tool_output}".to_owned()),
        failed_text: None,
        duration: seconds(depth.answer),
    });
    AgentScript {
        served_model: None,
        queued: seconds(depth.queued),
        connectors: BTreeMap::new(),
        discovery_failure: None,
        connector_errors: BTreeMap::new(),
        fault: None,
        faults: Vec::new(),
        forget_after: None,
        turns: vec![AgentTurn {
            steps,
            end: TurnEnd::default(),
        }],
    }
}

fn seconds(n: u64) -> Duration {
    Duration::from_secs(n)
}

/// What the user asked about: the text without `#words`, on one line, at most 80 characters
/// (whole words), without trailing punctuation; empty when nothing is left.
fn topic(input: &str) -> String {
    let mut topic = String::new();
    for word in input.split_whitespace().filter(|w| !w.starts_with('#')) {
        if topic.len() + word.len() + 1 > 80 {
            break;
        }
        if !topic.is_empty() {
            topic.push(' ');
        }
        topic.push_str(word);
    }
    topic
        .trim_end_matches(['?', '.', '!', ',', ';', ':'])
        .to_owned()
}

/// A URL path segment for the topic: lowercase ASCII letters and digits joined by `-`.
fn slug(topic: &str) -> String {
    let slug: Vec<String> = topic
        .split(|c: char| !c.is_ascii_alphanumeric())
        .filter(|w| !w.is_empty())
        .take(6)
        .map(str::to_ascii_lowercase)
        .collect();
    if slug.is_empty() {
        "question".to_owned()
    } else {
        slug.join("-")
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    const ALL: Offered = Offered {
        searches: true,
        reads: true,
        functions: false,
        servers: false,
    };

    fn kinds(script: &AgentScript) -> Vec<&'static str> {
        script.turns[0]
            .steps
            .iter()
            .map(|s| match s {
                AgentStep::Reasoning { .. } => "reasoning",
                AgentStep::WebSearch { .. } => "web_search",
                AgentStep::FetchUrl { .. } => "fetch_url",
                AgentStep::Message { .. } => "message",
                AgentStep::FunctionCall { .. } => "function_call",
                AgentStep::McpCall { .. } => "mcp_call",
                _ => "other",
            })
            .collect()
    }

    #[test]
    fn deeper_presets_search_and_read_more() {
        let fast = script(Some("fast"), "solar panels", ALL);
        let high = script(Some("high"), "solar panels", ALL);
        assert_eq!(kinds(&fast), ["reasoning", "web_search", "message"]);
        let old_name = script(Some("fast-search"), "solar panels", ALL);
        assert_eq!(kinds(&old_name), kinds(&fast));
        assert_eq!(
            kinds(&high),
            [
                "reasoning",
                "web_search",
                "fetch_url",
                "web_search",
                "fetch_url",
                "web_search",
                "fetch_url",
                "message"
            ]
        );
    }

    #[test]
    fn a_function_tool_is_called_before_anything_else() {
        let offered = Offered {
            functions: true,
            ..Offered::default()
        };
        let script = script(None, "weather in Oslo", offered);
        assert_eq!(kinds(&script), ["reasoning", "function_call", "message"]);
    }

    #[test]
    fn a_request_with_servers_gets_a_tool_called() {
        let offered = Offered {
            servers: true,
            ..Offered::default()
        };
        let script = script(None, "recent Slack messages", offered);
        assert_eq!(kinds(&script), ["reasoning", "mcp_call", "message"]);
    }

    #[test]
    fn without_search_the_answer_says_it_looked_nothing_up() {
        let plain = script(None, "hi", Offered::default());
        let untitled = script(None, "#agent-default", ALL);
        let AgentStep::WebSearch { queries, .. } = &untitled.turns[0].steps[1] else {
            panic!("a search");
        };
        assert_eq!(queries, &["your question"]);
        assert_eq!(kinds(&plain), ["reasoning", "message"]);
        let AgentStep::Message { text, .. } = &plain.turns[0].steps[1] else {
            panic!("a message");
        };
        assert!(text.contains("“hi”") && text.contains("without looking anything up"));
    }

    #[test]
    fn the_topic_drops_scenario_tags_and_keeps_whole_words() {
        assert_eq!(
            topic("#agent-default What is new in solar?"),
            "What is new in solar"
        );
        assert_eq!(topic("  #only-a-tag "), "");
        let long = "word ".repeat(40);
        assert!(topic(&long).chars().count() <= 80);
        assert_eq!(slug("What is new in solar"), "what-is-new-in-solar");
        assert_eq!(slug(""), "question");
    }
}

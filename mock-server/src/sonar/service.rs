//! The Sonar surface's behaviour, the one door the routes call: chat completions (whole or
//! streamed), async chat completions (create, get, list), search and embeddings. Each reads
//! its request once, picks its scenario, passes the gate (rate limit, credits, scripted
//! faults), answers, spends, and logs a line for the dashboard.

use chrono::{DateTime, Utc};
use http::StatusCode;

use super::answer::{self, Answer};
use super::embed;
use super::gate::{self, Limit, Log};
use super::jobs::{Job, Outcome};
use super::models;
use super::sources::{self, Lookup};
use super::state::SonarState;
use super::stream::{self, Frame};
use super::validate::{body, chat, embeddings, search};
use super::wire::chat::ChatRequest;
use super::wire::completion::Completion;
use super::wire::embeddings::{
    ContextualizedResponse, DocumentEmbeddings, EmbeddingObject, EmbeddingsCost,
    EmbeddingsResponse, EmbeddingsUsage,
};
use super::wire::error::SonarError;
use super::wire::jobs::{AsyncCreate, AsyncJob, AsyncList, ListQuery};
use super::wire::search::{Results, SearchPage, SearchResponse};
use crate::fixtures::LoadedSonarScenario;
use crate::world::{Account, CursorError};

/// Async job creations an account may send a minute (the deep-research limit of tier 0).
const ASYNC_PER_MINUTE: usize = 5;
/// Search requests an account may send a second.
const SEARCH_PER_SECOND: usize = 50;
/// Embeddings requests an account may send a minute.
const EMBEDDINGS_PER_MINUTE: usize = 500;
/// How long a job stays `CREATED` unless its scenario says otherwise.
const QUEUED: std::time::Duration = std::time::Duration::from_secs(2);
/// The longest `idempotency_key`.
const MAX_KEY: usize = 256;
/// Jobs per page of the list, unless `limit` says otherwise, and the most.
const PAGE: (u32, u32) = (20, 100);
/// The listing a job-list cursor belongs to.
const JOBS_SCOPE: &str = "sonar:async-jobs";

/// A chat completion, whole or as a stream.
pub(crate) enum ChatReply {
    /// The whole completion, once written.
    Whole(Box<Completion>),
    /// The chunks, each at its time after `start`.
    Stream {
        /// When the request arrived.
        start: DateTime<Utc>,
        /// The chunks.
        frames: Vec<Frame>,
    },
}

/// `POST /chat/completions`.
pub(crate) async fn chat(
    app: &SonarState,
    account: &Account,
    body: &[u8],
) -> Result<ChatReply, SonarError> {
    let now = app.clock().now();
    let mut log = Log::new(account, "chat", now);
    let reply = chat_answer(app, account, body, now, &mut log);
    log.finish(app, &reply);
    let (answer, id, mode) = reply?;
    let created = now.timestamp();
    Ok(match mode {
        Mode::Whole => {
            // The client waits while the answer is written (a driven clock jumps there).
            app.clock()
                .block_until(later(now, answer.writing_time()))
                .await;
            ChatReply::Whole(Box::new(answer.completion(&id, created)))
        }
        Mode::Full => ChatReply::Stream {
            start: now,
            frames: stream::full(&answer, &id, created),
        },
        Mode::Concise => ChatReply::Stream {
            start: now,
            frames: stream::concise(&answer, &id, created),
        },
    })
}

/// How a chat completion is sent.
enum Mode {
    /// One JSON answer.
    Whole,
    /// `full` stream chunks.
    Full,
    /// `concise` stream chunks.
    Concise,
}

fn chat_answer(
    app: &SonarState,
    account: &Account,
    body: &[u8],
    now: DateTime<Utc>,
    log: &mut Log,
) -> Result<(Answer, String, Mode), SonarError> {
    let call = chat::request(body)?;
    log.model(call.model.id);
    let scenario = scenario(app, &call.question)?;
    log.scenario(&scenario.name);
    let limit = Limit::per_minute(call.model.id, call.model.requests_per_minute);
    gate::admit(app, account, &scenario, limit, now)?;
    let answer = answer::write(&call, &scenario.script, now);
    let id = uuid::Uuid::new_v4().to_string();
    gate::spend(app, account, answer.credits());
    log.answered(&id, answer.credits());
    let mode = match (call.streams(), call.concise()) {
        (false, _) => Mode::Whole,
        (true, false) => Mode::Full,
        (true, true) => Mode::Concise,
    };
    Ok((answer, id, mode))
}

/// The scenario a request follows (`#name` in `message`, else `sonar-default`).
fn scenario(
    app: &SonarState,
    message: &str,
) -> Result<std::sync::Arc<LoadedSonarScenario>, SonarError> {
    app.catalog().sonar_route(message).ok_or_else(|| {
        SonarError::new(
            StatusCode::INTERNAL_SERVER_ERROR,
            "internal_error",
            "the mock has no Sonar scenario to follow: load fixtures with a `sonar` section",
        )
    })
}

/// `POST /async/chat/completions`.
pub(crate) fn create_job(
    app: &SonarState,
    account: &Account,
    body: &[u8],
) -> Result<AsyncJob, SonarError> {
    let now = app.clock().now();
    let mut log = Log::new(account, "async", now);
    let job = new_job(app, account, body, now, &mut log);
    log.finish(app, &job);
    job
}

fn new_job(
    app: &SonarState,
    account: &Account,
    body: &[u8],
    now: DateTime<Utc>,
    log: &mut Log,
) -> Result<AsyncJob, SonarError> {
    let example = r#"{"request": {"model": "sonar-deep-research", "messages": [{"role": "user", "content": "..."}]}}"#;
    let create: AsyncCreate = body::parse(body, example)?;
    let Some(raw) = create.request else {
        return Err(SonarError::invalid_field(
            "request",
            format!("the chat completion request to run is required, e.g. {example}"),
        ));
    };
    let request: ChatRequest = body::parse(raw.get().as_bytes(), example).map_err(within)?;
    let call = chat::check(request).map_err(within)?;
    log.model(call.model.id);
    if call.streams() {
        return Err(SonarError::invalid_field(
            "request.stream",
            "an async request cannot stream: leave `stream` out, then GET the job until it \
             is COMPLETED",
        ));
    }
    if let Some(key) = &create.idempotency_key {
        if key.is_empty() || key.len() > MAX_KEY {
            return Err(SonarError::invalid_field(
                "idempotency_key",
                format!("use 1 to {MAX_KEY} characters, the same for every retry of one request"),
            ));
        }
        if let Some((id, sent)) = app.store().idempotent(&account.id, key) {
            if sent != raw.get() {
                return Err(SonarError::new(
                    StatusCode::CONFLICT,
                    "idempotency_key_reused",
                    format!(
                        "idempotency_key \"{key}\" was used for another request (job {id}): \
                         use a new key for a new request"
                    ),
                )
                .param("idempotency_key")
                .header("x-should-retry", false));
            }
            let (job, _) = app
                .store()
                .job(&account.id, &id, now)
                .ok_or_else(|| SonarError::not_found(format!("job {id} is gone")))?;
            log.answered(&id, 0);
            return Ok(job);
        }
    }
    let scenario = scenario(app, &call.question)?;
    log.scenario(&scenario.name);
    gate::admit(
        app,
        account,
        &scenario,
        Limit::per_minute("async", ASYNC_PER_MINUTE),
        now,
    )?;
    let answer = answer::write(&call, &scenario.script, now);
    let job_spec = &scenario.script.job;
    let starts_at = later(now, job_spec.queued.unwrap_or(QUEUED));
    let ends_at = later(starts_at, job_spec.running.unwrap_or(answer.writing_time()));
    let id = uuid::Uuid::new_v4().to_string();
    let outcome = match &job_spec.fail {
        Some(message) => Outcome::Fails {
            message: message.clone(),
        },
        None => Outcome::Completes {
            completion: Box::new(answer.completion(&id, ends_at.timestamp())),
            credits: answer.credits(),
        },
    };
    log.answered(&id, 0);
    let job = Job {
        id,
        account: account.id.clone(),
        model: call.model.id,
        scenario: scenario.name.clone(),
        idempotency_key: create.idempotency_key,
        request_text: raw.get().to_owned(),
        created_at: now,
        starts_at,
        ends_at,
        outcome,
        billed: false,
    };
    Ok(app.store().add_job(job, now))
}

/// A refusal of an async job's `request`, naming its field under `request.`.
fn within(mut error: SonarError) -> SonarError {
    if let Some(param) = error.param.take() {
        error.message = if error.message.starts_with(&param) {
            format!("request.{}", error.message)
        } else {
            format!("request.{param}: {}", error.message)
        };
        error.param = Some(format!("request.{param}"));
    }
    error
}

fn later(t: DateTime<Utc>, by: std::time::Duration) -> DateTime<Utc> {
    crate::clock::after(t, crate::clock::to_chrono(by))
}

/// `GET /async/chat/completions/{id}`: the job as it stands; a job seen completed for the first
/// time is billed then.
pub(crate) async fn job(
    app: &SonarState,
    account: &Account,
    id: &str,
) -> Result<AsyncJob, SonarError> {
    // A look: a driven clock moves on by its look step first.
    app.clock().look().await;
    let now = app.clock().now();
    let (job, bill) = app.store().job(&account.id, id, now).ok_or_else(|| {
        SonarError::not_found(format!(
            "no async chat completion {id} for this account: GET /async/chat/completions \
             lists yours"
        ))
        .param("api_request")
    })?;
    gate::spend(app, account, bill.unwrap_or(0));
    Ok(job)
}

/// `GET /async/chat/completions`: the account's jobs, newest first.
pub(crate) async fn jobs(
    app: &SonarState,
    account: &Account,
    query: ListQuery,
) -> Result<AsyncList, SonarError> {
    let limit = query.limit.unwrap_or(PAGE.0);
    if limit == 0 || limit > PAGE.1 {
        return Err(SonarError::invalid_field(
            "limit",
            format!("{limit} is out of range: use 1 to {}", PAGE.1),
        ));
    }
    let offset = match &query.next_token {
        None => 0,
        Some(token) => app
            .world()
            .resolve_cursor(&account.id, JOBS_SCOPE, token)
            .map_err(|e| {
                let why = match e {
                    CursorError::Unknown => "was never handed to this account",
                    CursorError::OtherQuery => "belongs to another listing",
                };
                SonarError::invalid_field(
                    "next_token",
                    format!("this token {why}: pass the next_token of the previous page"),
                )
            })?,
    };
    app.clock().look().await;
    let now = app.clock().now();
    let (requests, more, bills) = app.store().list(&account.id, offset, limit as usize, now);
    gate::spend(app, account, bills);
    let next_token = more.then(|| {
        app.world()
            .issue_cursor(&account.id, JOBS_SCOPE, offset + limit as usize)
    });
    Ok(AsyncList {
        requests,
        next_token,
    })
}

/// `POST /search`.
pub(crate) fn search(
    app: &SonarState,
    account: &Account,
    body: &[u8],
) -> Result<SearchResponse, SonarError> {
    let now = app.clock().now();
    let mut log = Log::new(account, "search", now);
    log.model("search");
    let answer = search_answer(app, account, body, now, &mut log);
    log.finish(app, &answer);
    answer
}

fn search_answer(
    app: &SonarState,
    account: &Account,
    body: &[u8],
    now: DateTime<Utc>,
    log: &mut Log,
) -> Result<SearchResponse, SonarError> {
    let call = search::request(body)?;
    let scenario = scenario(app, call.queries.first().map_or("", String::as_str))?;
    log.scenario(&scenario.name);
    gate::admit(
        app,
        account,
        &scenario,
        Limit::per_second("search", SEARCH_PER_SECOND),
        now,
    )?;
    let count = if call.fast {
        call.max_results.min(5)
    } else {
        call.max_results
    };
    let mut budget = call.max_tokens;
    let per_page = call.max_tokens_per_page;
    let mut pages_for = |query: &str| -> Vec<SearchPage> {
        let found = match &scenario.script.results {
            Some(results) => sources::scripted(results),
            None => sources::find(Lookup {
                topic: &sources::topic(query),
                count,
                filters: &call.filters,
                country: call.country.as_deref(),
                context: call.context,
                now,
            }),
        };
        found
            .into_iter()
            .take(count)
            .map(|r| {
                let allowed = per_page.min(budget);
                let snippet: String = r.snippet.chars().take(allowed as usize * 4).collect();
                budget = budget.saturating_sub(models::tokens(&snippet));
                SearchPage {
                    title: r.title,
                    url: r.url,
                    snippet,
                    date: r.date,
                    last_updated: r.last_updated,
                }
            })
            .collect()
    };
    let results = if call.grouped {
        Results::Grouped(call.queries.iter().map(|q| pages_for(q)).collect())
    } else {
        Results::Flat(pages_for(&call.queries[0]))
    };
    let id = uuid::Uuid::new_v4().to_string();
    let credits = answer::credits(models::SEARCH_PER_THOUSAND / 1000.0);
    gate::spend(app, account, credits);
    log.answered(&id, credits);
    Ok(SearchResponse {
        id,
        results,
        server_time: call
            .server_time
            .then(|| now.to_rfc3339_opts(chrono::SecondsFormat::Secs, true)),
    })
}

/// `POST /v1/embeddings`.
pub(crate) fn embeddings(
    app: &SonarState,
    account: &Account,
    body: &[u8],
) -> Result<EmbeddingsResponse, SonarError> {
    let now = app.clock().now();
    let mut log = Log::new(account, "embeddings", now);
    let answer = embedded(app, account, embeddings::embeddings(body), now, &mut log).map(
        |(call, mut documents, usage)| EmbeddingsResponse {
            object: "list",
            data: documents
                .iter_mut()
                .enumerate()
                .filter_map(|(i, d)| {
                    d.pop().map(|embedding| EmbeddingObject {
                        object: "embedding",
                        index: i,
                        embedding,
                    })
                })
                .collect(),
            model: call.model.id.to_owned(),
            usage,
        },
    );
    log.finish(app, &answer);
    answer
}

/// `POST /v1/contextualizedembeddings`.
pub(crate) fn contextualized(
    app: &SonarState,
    account: &Account,
    body: &[u8],
) -> Result<ContextualizedResponse, SonarError> {
    let now = app.clock().now();
    let mut log = Log::new(account, "contextualized embeddings", now);
    let answer = embedded(
        app,
        account,
        embeddings::contextualized(body),
        now,
        &mut log,
    )
    .map(|(call, documents, usage)| ContextualizedResponse {
        object: "list",
        data: documents
            .into_iter()
            .enumerate()
            .map(|(index, chunks)| DocumentEmbeddings {
                object: "list",
                index,
                data: chunks
                    .into_iter()
                    .enumerate()
                    .map(|(i, embedding)| EmbeddingObject {
                        object: "embedding",
                        index: i,
                        embedding,
                    })
                    .collect(),
            })
            .collect(),
        model: call.model.id.to_owned(),
        usage,
    });
    log.finish(app, &answer);
    answer
}

/// The encoded vectors of every document's texts, and the usage, for a checked request.
fn embedded(
    app: &SonarState,
    account: &Account,
    call: Result<embeddings::EmbedCall, SonarError>,
    now: DateTime<Utc>,
    log: &mut Log,
) -> Result<(embeddings::EmbedCall, Vec<Vec<String>>, EmbeddingsUsage), SonarError> {
    let call = call?;
    log.model(call.model.id);
    let scenario = scenario(app, call.first_text())?;
    log.scenario(&scenario.name);
    let bucket = if call.model.id.contains("context") {
        "contextualized embeddings"
    } else {
        "embeddings"
    };
    gate::admit(
        app,
        account,
        &scenario,
        Limit::per_minute(bucket, EMBEDDINGS_PER_MINUTE),
        now,
    )?;
    let contextual = bucket != "embeddings";
    let (full, dims) = (call.model.dimensions, call.dimensions);
    let vectors: Vec<Vec<String>> = call
        .documents
        .iter()
        .map(|chunks| {
            let raw = if contextual {
                embed::contextual_vectors(chunks, full, dims)
            } else {
                chunks
                    .iter()
                    .map(|t| embed::vector(t, full, dims))
                    .collect()
            };
            raw.iter()
                .map(|v| embed::encode(v, call.encoding))
                .collect()
        })
        .collect();
    let cost = call.tokens as f64 * call.model.per_million / 1_000_000.0;
    let cost = (cost * 1e10).round() / 1e10;
    let credits = answer::credits(cost);
    gate::spend(app, account, credits);
    log.spent(credits);
    let usage = EmbeddingsUsage {
        prompt_tokens: call.tokens,
        total_tokens: call.tokens,
        cost: EmbeddingsCost {
            input_cost: cost,
            total_cost: cost,
            currency: "USD",
        },
    };
    Ok((call, vectors, usage))
}

//! Sending a message: starting a conversation (in a Project, with a mode or a model) or
//! continuing one, after the checks the document makes before anything is sent (access,
//! credits, quota, settings, attachments).

use serde_json::json;

use super::{Service, Wait, refuse};
use crate::computer::engine::{Delivered, Follow};
use crate::computer::model::arguments::CallComputer;
use crate::computer::model::content::Reply;
use crate::computer::model::results::{AccessDenied, Event, Interactive, NotSent, TaskStatus};
use crate::computer::thread::{InputKind, Phase, ProjectContext, Thread};
use crate::fixtures::{LoadedScenario, Refusal};
use crate::world::{Account, CreditRefusal, TaskSettings};

/// What became of a `send`: the reply, and where the message went if it was sent.
#[derive(Debug, Clone)]
pub(crate) struct Sent {
    /// The call's answer.
    pub(crate) reply: Reply,
    /// The thread and the delivery, when a message was sent (`None`: refused before sending).
    pub(crate) delivered: Option<(String, Delivered)>,
}

impl Sent {
    fn refused(reply: Reply) -> Self {
        Self {
            reply,
            delivered: None,
        }
    }
}

impl Service {
    /// `call_perplexity_computer`: starts a conversation or continues `args.thread_id`.
    pub(crate) async fn send(&self, account: &Account, args: CallComputer, wait: Wait) -> Sent {
        let engine = &self.engine;
        if let Err(refused) =
            self.check_attachments(account, &args.attachment_urls, args.thread_id.as_deref())
        {
            return Sent::refused(refused);
        }
        let message = args
            .message
            .as_deref()
            .map(str::trim)
            .filter(|m| !m.is_empty());
        if let Err(problem) = self.check_settings(account, &args) {
            return Sent::refused(refuse(args.thread_id.as_deref(), problem));
        }
        let Some(thread_id) = args.thread_id.as_deref() else {
            let Some(message) = message else {
                return Sent::refused(refuse(
                    None,
                    "Argument `message` is required to start a new conversation: say what \
                     Computer should do, or pass the thread_id of an existing conversation.",
                ));
            };
            let scenario = engine.catalog.route(message);
            let key = format!("{}:{}:new", account.id, scenario.scenario.name);
            if let Some(refused) = self.before_send(account, &scenario, Some(0), key, None) {
                return Sent::refused(refused);
            }
            let mut thread = Thread::new(&account.id, scenario, engine.clock.now());
            thread.settings = engine.world.task_settings(
                account,
                args.mode.as_deref(),
                args.model.as_deref(),
                args.effort.as_deref(),
            );
            if let Some(project) = args
                .project_uuid
                .as_deref()
                .and_then(|uuid| account.projects.iter().find(|p| p.project_uuid == uuid))
            {
                let visibility = args.project_visibility.as_deref().unwrap_or("private");
                if visibility == "project" {
                    let others = |ids: &[String]| -> Vec<String> {
                        ids.iter().filter(|m| **m != account.id).cloned().collect()
                    };
                    thread.viewers = others(&project.members);
                    // Writes follow each member's role in the Project.
                    thread.writers = others(&project.writers);
                }
                thread.project = Some(ProjectContext {
                    name: project.name.clone(),
                    instructions: project.instructions.clone(),
                    visibility: visibility.to_owned(),
                });
            }
            let thread_id = engine.insert(thread);
            engine.world.spend(&account.id, 1);
            return self
                .deliver_and_wait(account, &thread_id, message, &args.attachment_urls, wait)
                .await;
        };
        let message = message.unwrap_or("Continue.");
        // Naming a mode or a model switches the thread; naming neither keeps its settings.
        let switch = (args.mode.is_some() || args.model.is_some())
            .then(|| {
                engine.world.task_settings(
                    account,
                    args.mode.as_deref(),
                    args.model.as_deref(),
                    args.effort.as_deref(),
                )
            })
            .flatten();
        self.send_follow_up(
            account,
            thread_id,
            message,
            &args.attachment_urls,
            switch,
            wait,
        )
        .await
    }

    /// The credit check and send of a message on an existing thread.
    pub(super) async fn send_follow_up(
        &self,
        account: &Account,
        thread_id: &str,
        message: &str,
        attachments: &[String],
        switch: Option<TaskSettings>,
        wait: Wait,
    ) -> Sent {
        let engine = &self.engine;
        let facts = engine.with_thread(&account.id, thread_id, |thread, _| {
            (
                thread.scenario.clone(),
                thread.next_turn_index(),
                resumes(thread),
            )
        });
        let (scenario, next_turn, resumes) = match facts {
            Ok(facts) => facts,
            Err(e) => return Sent::refused(e.into_reply()),
        };
        let turn = if resumes { None } else { next_turn };
        let key = format!("{thread_id}:{}", turn.unwrap_or(usize::MAX));
        if let Some(refused) = self.before_send(account, &scenario, turn, key, Some(thread_id)) {
            return Sent::refused(refused);
        }
        if let Some(settings) = switch {
            // The thread was found a moment ago; if it vanished since, the delivery says so.
            let _ = engine.with_thread(&account.id, thread_id, |thread, _| {
                thread.settings = Some(settings);
            });
        }
        engine.world.spend(&account.id, 1);
        self.deliver_and_wait(account, thread_id, message, attachments, wait)
            .await
    }

    /// Delivers a message and waits for the checkpoint it leads to.
    async fn deliver_and_wait(
        &self,
        account: &Account,
        thread_id: &str,
        message: &str,
        attachments: &[String],
        wait: Wait,
    ) -> Sent {
        let engine = &self.engine;
        let delivered = match engine.deliver(&account.id, thread_id, message, attachments) {
            Ok(delivered) => delivered,
            Err(e) => return Sent::refused(e.into_reply()),
        };
        let follow = Follow::Message(delivered.message_id);
        let reply = match engine
            .wait(&account.id, thread_id, follow, wait.window, wait.progress)
            .await
        {
            Ok(checkpoint) => checkpoint.into(),
            Err(e) => e.into_reply(),
        };
        Sent {
            reply,
            delivered: Some((thread_id.to_owned(), delivered)),
        }
    }

    /// The check made before any message is sent; `Some` is the refusal to answer.
    fn before_send(
        &self,
        account: &Account,
        scenario: &LoadedScenario,
        turn: Option<usize>,
        key: String,
        thread_id: Option<&str>,
    ) -> Option<Reply> {
        let engine = &self.engine;
        let account = &account.id;
        let now = engine.clock.now();
        let scripted = turn
            .and_then(|i| scenario.scenario.turns.get(i))
            .and_then(|t| t.before_send);
        match scripted {
            Some(Refusal::AccessDenied) => return Some(access_denied(thread_id)),
            // A scripted refusal strikes once; after a top-up (or the reset) the resend goes
            // through.
            Some(Refusal::InsufficientCredits) if engine.world.apply_once(&key) => {
                engine.world.drain(account);
            }
            Some(Refusal::QuotaExhausted) if engine.world.apply_once(&key) => {
                engine.world.exhaust_quota(account, now);
            }
            // "billing_url is present only when topping up or changing a limit would help;
            // it's left out for reasons like a temporary service outage."
            Some(Refusal::CreditCheckUnavailable) if engine.world.apply_once(&key) => {
                return Some(Reply::NotSent(NotSent {
                    event: Event::InsufficientCredits,
                    text: "Computer couldn't check your account's credits because of a \
                           temporary service outage, so this message was not sent. Topping up \
                           won't help: send the message again in a moment."
                        .to_owned(),
                    interactive: Interactive::InsufficientCredits {
                        reason: "insufficient_credits",
                        billing_url: None,
                        quota_reset_date: None,
                    },
                }));
            }
            Some(_) | None => {}
        }
        let refusal = engine.world.check_before_send(account, now)?;
        let billing_url = format!("{}/_mock/billing/{account}", engine.base_url);
        let credits = |billing_url: &str| Interactive::InsufficientCredits {
            reason: "insufficient_credits",
            billing_url: Some(billing_url.to_owned()),
            quota_reset_date: None,
        };
        let (text, interactive) = match refusal {
            CreditRefusal::InsufficientCredits => (
                format!(
                    "Your Perplexity account doesn't have enough credits, so this message was \
                     not sent. Top up or raise your spending limit at {billing_url}, then send \
                     the message again."
                ),
                credits(&billing_url),
            ),
            CreditRefusal::SpendingLimit { limit } => (
                format!(
                    "Your Perplexity account reached its spending limit of {limit} credits, so \
                     this message was not sent. Adjust your spending limit or top up at \
                     {billing_url}, then send the message again."
                ),
                credits(&billing_url),
            ),
            CreditRefusal::QuotaExhausted { reset } => {
                let reset = reset.to_rfc3339_opts(chrono::SecondsFormat::Secs, true);
                (
                    format!(
                        "Your plan's Computer quota is used up until {reset}, so this message \
                         was not sent. Change your plan at {billing_url} or send it again after \
                         the reset."
                    ),
                    Interactive::InsufficientCredits {
                        reason: "quota_exhausted",
                        billing_url: Some(billing_url),
                        quota_reset_date: Some(reset),
                    },
                )
            }
        };
        Some(Reply::NotSent(NotSent {
            event: Event::InsufficientCredits,
            text,
            interactive,
        }))
    }

    /// The mode/model/effort/project rules of `call_perplexity_computer`.
    fn check_settings(&self, account: &Account, args: &CallComputer) -> Result<(), String> {
        if args.mode.is_some() && args.model.is_some() {
            return Err("`mode` and `model` can't be used together: pass one of them.".into());
        }
        if args.effort.is_some() && args.model.is_none() {
            return Err(
                "`effort` requires `model`: pick a model from models_list, then one of its \
                 efforts."
                    .into(),
            );
        }
        if args.project_uuid.is_some() && args.thread_id.is_some() {
            return Err(
                "`project_uuid` is only for new conversations and can't be combined with \
                 `thread_id`."
                    .into(),
            );
        }
        if args.project_visibility.is_some() && args.project_uuid.is_none() {
            return Err("`project_visibility` requires `project_uuid`.".into());
        }
        if args.mode.is_some() || args.model.is_some() {
            self.check_offered(account, args)?;
        }
        if let Some(project) = args.project_uuid.as_deref()
            && !account.projects.iter().any(|p| p.project_uuid == project)
        {
            return Err(format!(
                "Project `{project}` wasn't found among the Projects you can access; use a \
                 project_uuid from projects_list."
            ));
        }
        Ok(())
    }

    /// The mode, or the model and its effort, are ones the account is offered (the world's
    /// typed offer, the same one `models_list` is rendered from).
    fn check_offered(&self, account: &Account, args: &CallComputer) -> Result<(), String> {
        let world = &self.engine.world;
        if let Some(mode) = args.mode.as_deref()
            && !world.offers_mode(account, mode)
        {
            return Err(format!(
                "Argument `mode`: `{mode}` isn't available to this account; models_list shows \
                 the modes you can use."
            ));
        }
        if let Some(model) = args.model.as_deref() {
            let Some(efforts) = world.model_efforts(account, model) else {
                return Err(format!(
                    "Argument `model`: `{model}` isn't available to this account; use an `id` \
                     from models_list."
                ));
            };
            if let Some(effort) = args.effort.as_deref()
                && !efforts.iter().any(|e| e == effort)
            {
                let efforts = json!(efforts);
                return Err(format!(
                    "Argument `effort`: `{effort}` isn't offered for model `{model}`; choose one \
                     of {efforts}."
                ));
            }
        }
        Ok(())
    }
}

/// Whether a message on this thread would resume the waiting request rather than start a turn.
fn resumes(thread: &Thread) -> bool {
    matches!(
        thread.latest().map(|e| &e.phase),
        Some(Phase::Input {
            kind: InputKind::Interaction { .. } | InputKind::TwoFactor { .. } | InputKind::Credits,
            ..
        }) | Some(Phase::Waiting { then: Some(_) })
    )
}

fn access_denied(thread_id: Option<&str>) -> Reply {
    Reply::AccessDenied(AccessDenied {
        thread_id: thread_id.map(str::to_owned),
        event: Event::AccessDenied,
        text: "Computer isn't available for this account. If you belong to an organization, ask \
               its administrator to enable Computer access."
            .to_owned(),
        task_status: TaskStatus::Failed,
        error_code: "access_denied",
        interactive: Interactive::AccessDenied {
            reason: "access_denied",
        },
    })
}

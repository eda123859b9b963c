//! An async chat completion's state machine, on the virtual clock and nothing else:
//! `CREATED` until it starts, `IN_PROGRESS` while it runs, then `COMPLETED` with its
//! completion (or `FAILED` with an error message). The times are fixed when the job is
//! created, so where a job stands is a function of virtual now: no task runs in the
//! background, and a job looked at after the clock moved shows what happened meanwhile.

use chrono::{DateTime, Utc};

use super::wire::completion::Completion;
use super::wire::jobs::{AsyncJob, AsyncSummary, JobStatus};

/// How a job ends.
#[derive(Debug, Clone)]
pub(crate) enum Outcome {
    /// With this completion, costing this many credits (billed when first seen completed).
    Completes {
        /// The completion `GET` shows once the job completed.
        completion: Box<Completion>,
        /// What it costs.
        credits: i64,
    },
    /// With this error message (nothing is billed).
    Fails {
        /// `error_message`.
        message: String,
    },
}

/// One job.
#[derive(Debug, Clone)]
pub(crate) struct Job {
    /// A UUID.
    pub(crate) id: String,
    /// The account that created it; no other sees it.
    pub(crate) account: String,
    /// The request's model.
    pub(crate) model: &'static str,
    /// The scenario it follows.
    pub(crate) scenario: String,
    /// The key that makes a second create return this job.
    pub(crate) idempotency_key: Option<String>,
    /// The `request` as sent, to tell a retry from another request under the same key.
    pub(crate) request_text: String,
    /// When it was created.
    pub(crate) created_at: DateTime<Utc>,
    /// When it starts running.
    pub(crate) starts_at: DateTime<Utc>,
    /// When it completes or fails.
    pub(crate) ends_at: DateTime<Utc>,
    /// How it ends.
    pub(crate) outcome: Outcome,
    /// Whether its credits were taken.
    pub(crate) billed: bool,
}

impl Job {
    /// Where the job stands at `now`.
    pub(crate) fn status(&self, now: DateTime<Utc>) -> JobStatus {
        if now < self.starts_at {
            JobStatus::Created
        } else if now < self.ends_at {
            JobStatus::InProgress
        } else {
            match self.outcome {
                Outcome::Completes { .. } => JobStatus::Completed,
                Outcome::Fails { .. } => JobStatus::Failed,
            }
        }
    }

    /// The job as `GET` shows it at `now`.
    pub(crate) fn view(&self, now: DateTime<Utc>) -> AsyncJob {
        let status = self.status(now);
        let summary = self.summary(now);
        let (response, error_message) = match (&self.outcome, status) {
            (Outcome::Completes { completion, .. }, JobStatus::Completed) => {
                (Some(completion.as_ref().clone()), None)
            }
            (Outcome::Fails { message }, JobStatus::Failed) => (None, Some(message.clone())),
            _ => (None, None),
        };
        AsyncJob {
            id: summary.id,
            model: summary.model,
            created_at: summary.created_at,
            status,
            started_at: summary.started_at,
            completed_at: summary.completed_at,
            response,
            failed_at: summary.failed_at,
            error_message,
        }
    }

    /// The job as the list shows it at `now`.
    pub(crate) fn summary(&self, now: DateTime<Utc>) -> AsyncSummary {
        let status = self.status(now);
        let started = status != JobStatus::Created;
        AsyncSummary {
            id: self.id.clone(),
            model: self.model.to_owned(),
            created_at: self.created_at.timestamp(),
            status,
            started_at: started.then(|| self.starts_at.timestamp()),
            completed_at: (status == JobStatus::Completed).then(|| self.ends_at.timestamp()),
            failed_at: (status == JobStatus::Failed).then(|| self.ends_at.timestamp()),
        }
    }

    /// The credits to take now: the job's, the first time it is seen completed.
    pub(crate) fn bill(&mut self, now: DateTime<Utc>) -> Option<i64> {
        match &self.outcome {
            Outcome::Completes { credits, .. }
                if !self.billed && self.status(now) == JobStatus::Completed =>
            {
                self.billed = true;
                Some(*credits)
            }
            _ => None,
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use chrono::TimeDelta;

    fn job(outcome: Outcome) -> Job {
        let t0 = crate::clock::Clock::fixed_epoch();
        Job {
            id: "j".into(),
            account: "alice".into(),
            model: "sonar-deep-research",
            scenario: "deep-research".into(),
            idempotency_key: None,
            request_text: "{}".into(),
            created_at: t0,
            starts_at: t0 + TimeDelta::seconds(10),
            ends_at: t0 + TimeDelta::seconds(250),
            outcome,
            billed: false,
        }
    }

    #[test]
    fn a_job_moves_created_in_progress_failed_on_the_clock() {
        let job = job(Outcome::Fails {
            message: "no".into(),
        });
        let t0 = job.created_at;
        assert_eq!(job.status(t0), JobStatus::Created);
        assert_eq!(job.view(t0).started_at, None);
        let running = job.view(t0 + TimeDelta::seconds(10));
        assert_eq!(running.status, JobStatus::InProgress);
        assert_eq!(running.started_at, Some(t0.timestamp() + 10));
        let failed = job.view(t0 + TimeDelta::seconds(250));
        assert_eq!(failed.status, JobStatus::Failed);
        assert_eq!(failed.failed_at, Some(t0.timestamp() + 250));
        assert_eq!(failed.error_message.as_deref(), Some("no"));
        assert!(failed.response.is_none() && failed.completed_at.is_none());
    }
}

//! The credit ledger: each account's balance, what it spent against its spending limit, an
//! exhausted quota and when it comes back, and the scripted refusals already played.

use std::collections::{HashMap, HashSet};
use std::sync::Arc;

use chrono::{DateTime, Datelike, TimeZone, Utc};

use super::account::Account;

/// Why the credit check before sending a message failed.
#[derive(Debug, Clone, PartialEq)]
pub(crate) enum CreditRefusal {
    /// No credits left.
    InsufficientCredits,
    /// The account spent its spending limit.
    SpendingLimit {
        /// The limit, in credits.
        limit: i64,
    },
    /// The plan's quota is used up until this time.
    QuotaExhausted {
        /// When the quota comes back.
        reset: DateTime<Utc>,
    },
}

/// Balances, spending and quotas of every account.
#[derive(Debug, Default)]
pub(super) struct Ledger {
    credits: HashMap<String, i64>,
    quota_exhausted_until: HashMap<String, DateTime<Utc>>,
    /// Scripted refusals already applied, so a resend after a top-up goes through.
    applied_refusals: HashSet<String>,
    /// Credits spent since the last top-up, against the spending limit.
    spent: HashMap<String, i64>,
}

impl Ledger {
    /// Every account at its starting balance, with the quotas its world file exhausts.
    pub(super) fn opening(accounts: &[Arc<Account>]) -> Self {
        let mut ledger = Self::default();
        for account in accounts {
            ledger.credits.insert(account.id.clone(), account.credits);
            if let Some(reset) = account.quota_reset_date {
                ledger
                    .quota_exhausted_until
                    .insert(account.id.clone(), reset);
            }
        }
        ledger
    }

    pub(super) fn credits(&self, account: &str) -> i64 {
        self.credits.get(account).copied().unwrap_or(0)
    }

    pub(super) fn spend(&mut self, account: &str, amount: i64) {
        if let Some(balance) = self.credits.get_mut(account) {
            *balance = (*balance - amount).max(0);
        }
        *self.spent.entry(account.to_owned()).or_insert(0) += amount;
    }

    pub(super) fn drain(&mut self, account: &str) {
        self.credits.insert(account.to_owned(), 0);
    }

    /// Adds `amount`; returns the new balance.
    pub(super) fn top_up(&mut self, account: &str, amount: i64) -> i64 {
        let balance = self.credits.entry(account.to_owned()).or_insert(0);
        *balance += amount;
        let balance = *balance;
        self.quota_exhausted_until.remove(account);
        // The billing page stands for both documented fixes: top up, or raise the limit.
        self.spent.remove(account);
        balance
    }

    pub(super) fn exhaust_quota(&mut self, account: &str, now: DateTime<Utc>) -> DateTime<Utc> {
        let reset = first_of_next_month(now);
        self.quota_exhausted_until.insert(account.to_owned(), reset);
        reset
    }

    /// When the account's exhausted quota comes back, if it is exhausted.
    pub(super) fn quota_exhausted_until(&self, account: &str) -> Option<DateTime<Utc>> {
        self.quota_exhausted_until.get(account).copied()
    }

    /// Credits spent since the last top-up, against the spending limit.
    pub(super) fn spent(&self, account: &str) -> i64 {
        self.spent.get(account).copied().unwrap_or(0)
    }

    /// Puts one account back where the world file starts it: its balance, its quota, nothing
    /// spent. Returns the balance.
    pub(super) fn reopen(&mut self, account: &Account) -> i64 {
        self.credits.insert(account.id.clone(), account.credits);
        self.spent.remove(&account.id);
        match account.quota_reset_date {
            Some(reset) => self.quota_exhausted_until.insert(account.id.clone(), reset),
            None => self.quota_exhausted_until.remove(&account.id),
        };
        account.credits
    }

    pub(super) fn apply_once(&mut self, key: &str) -> bool {
        self.applied_refusals.insert(key.to_owned())
    }

    /// The check made before a message is sent; `spending_limit` is the account's.
    pub(super) fn check_before_send(
        &self,
        account: &str,
        spending_limit: Option<i64>,
        now: DateTime<Utc>,
    ) -> Option<CreditRefusal> {
        if let Some(reset) = self.quota_exhausted_until.get(account)
            && *reset > now
        {
            return Some(CreditRefusal::QuotaExhausted { reset: *reset });
        }
        if self.credits(account) <= 0 {
            return Some(CreditRefusal::InsufficientCredits);
        }
        if let Some(limit) = spending_limit
            && self.spent.get(account).copied().unwrap_or(0) >= limit
        {
            return Some(CreditRefusal::SpendingLimit { limit });
        }
        None
    }
}

/// Midnight UTC on the first day of the month after `now`.
fn first_of_next_month(now: DateTime<Utc>) -> DateTime<Utc> {
    let (year, month) = if now.month() == 12 {
        (now.year() + 1, 1)
    } else {
        (now.year(), now.month() + 1)
    };
    Utc.with_ymd_and_hms(year, month, 1, 0, 0, 0)
        .single()
        .unwrap_or(now)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_balance_never_goes_below_zero_but_spending_counts_in_full() {
        let mut ledger = Ledger::default();
        ledger.credits.insert("bob".into(), 5);
        ledger.spend("bob", 8);
        assert_eq!(ledger.credits("bob"), 0);
        assert_eq!(ledger.spent.get("bob"), Some(&8));
    }

    #[test]
    fn the_spending_limit_refuses_until_a_top_up() {
        let mut ledger = Ledger::default();
        ledger.credits.insert("alice".into(), 100);
        let now = Utc::now();
        ledger.spend("alice", 10);
        assert_eq!(
            ledger.check_before_send("alice", Some(10), now),
            Some(CreditRefusal::SpendingLimit { limit: 10 })
        );
        ledger.top_up("alice", 50);
        assert_eq!(ledger.check_before_send("alice", Some(10), now), None);
    }

    #[test]
    fn december_rolls_over_to_january() {
        let mid_december = Utc
            .with_ymd_and_hms(2026, 12, 15, 8, 0, 0)
            .single()
            .expect("date");
        assert_eq!(
            first_of_next_month(mid_december).to_rfc3339(),
            "2027-01-01T00:00:00+00:00"
        );
    }
}

//! `--partition`: one shard of the selected scenarios, so a CI matrix of `n` jobs runs every
//! scenario exactly once, as nextest's `--partition` does.
//!
//! - `count:k/n` (or `k/n`): the selected scenarios, in suite order, dealt out in turn: the
//!   first to shard 1, the second to shard 2, ..., the `n+1`-th to shard 1 again.
//! - `hash:k/n`: each scenario goes to the shard its name hashes to (64-bit FNV-1a, the same on
//!   every machine), so a scenario stays in its shard when others are added or removed.

use std::fmt;
use std::str::FromStr;

use crate::suite::ScenarioSpec;

/// How scenarios are dealt to shards.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum PartitionKind {
    /// In turn, in suite order (`count:`).
    Count,
    /// By a stable hash of the scenario name (`hash:`).
    Hash,
}

/// Shard `shard` of `total` (both counted from 1).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Partition {
    /// How scenarios are dealt.
    pub kind: PartitionKind,
    /// This shard, 1 to `total`.
    pub shard: u64,
    /// How many shards.
    pub total: u64,
}

/// A `--partition` value that is not `count:k/n`, `hash:k/n` or `k/n` with 1 ≤ k ≤ n.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[error("--partition `{given}`: {reason}")]
pub struct PartitionError {
    /// The value given.
    pub given: String,
    /// What is wrong with it, in a sentence.
    pub reason: String,
}

impl FromStr for Partition {
    type Err = PartitionError;

    fn from_str(given: &str) -> Result<Self, Self::Err> {
        let refuse = |reason: &str| PartitionError {
            given: given.to_owned(),
            reason: reason.to_owned(),
        };
        let (kind, rest) = match given.split_once(':') {
            Some(("count", rest)) => (PartitionKind::Count, rest),
            Some(("hash", rest)) => (PartitionKind::Hash, rest),
            Some((other, _)) => {
                return Err(refuse(&format!(
                    "unknown kind `{other}`; use count:k/n or hash:k/n"
                )));
            }
            None => (PartitionKind::Count, given),
        };
        let Some((shard, total)) = rest.split_once('/') else {
            return Err(refuse(
                "expected k/n, the shard k of n shards (for example count:1/2)",
            ));
        };
        let number = |s: &str, what: &str| {
            s.trim()
                .parse::<u64>()
                .map_err(|_| refuse(&format!("{what} `{s}` is not a whole number")))
        };
        let shard = number(shard, "the shard")?;
        let total = number(total, "the number of shards")?;
        if total == 0 {
            return Err(refuse("the number of shards must be at least 1"));
        }
        if shard == 0 || shard > total {
            return Err(refuse(&format!(
                "the shard must be between 1 and {total} (shards are counted from 1)"
            )));
        }
        Ok(Self { kind, shard, total })
    }
}

impl fmt::Display for Partition {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let kind = match self.kind {
            PartitionKind::Count => "count",
            PartitionKind::Hash => "hash",
        };
        write!(f, "{kind}:{}/{}", self.shard, self.total)
    }
}

impl Partition {
    /// The scenarios of `selected` (in suite order) that belong to this shard.
    pub fn apply<'a>(&self, selected: Vec<&'a ScenarioSpec>) -> Vec<&'a ScenarioSpec> {
        selected
            .into_iter()
            .enumerate()
            .filter(|(i, spec)| {
                let slot = match self.kind {
                    PartitionKind::Count => *i as u64,
                    PartitionKind::Hash => fnv1a(spec.name.as_bytes()),
                };
                slot % self.total == self.shard - 1
            })
            .map(|(_, spec)| spec)
            .collect()
    }
}

/// 64-bit FNV-1a: tiny, and the same on every platform and Rust release (std's hashers are not
/// promised to be).
fn fnv1a(bytes: &[u8]) -> u64 {
    bytes.iter().fold(0xcbf2_9ce4_8422_2325, |hash, b| {
        (hash ^ u64::from(*b)).wrapping_mul(0x0000_0100_0000_01b3)
    })
}

#[cfg(test)]
mod tests {
    use std::collections::BTreeMap;

    use super::*;
    use crate::suite::SCENARIOS;

    fn shards(kind: &str, n: u64) -> Vec<Vec<&'static str>> {
        (1..=n)
            .map(|k| {
                let p: Partition = format!("{kind}:{k}/{n}").parse().expect("valid");
                p.apply(SCENARIOS.iter().collect())
                    .iter()
                    .map(|s| s.name)
                    .collect()
            })
            .collect()
    }

    #[test]
    fn every_scenario_is_in_exactly_one_shard_of_either_kind() {
        for kind in ["count", "hash"] {
            for n in 1..=5 {
                let mut seen: BTreeMap<&str, usize> = BTreeMap::new();
                for shard in shards(kind, n) {
                    for name in shard {
                        *seen.entry(name).or_default() += 1;
                    }
                }
                assert_eq!(seen.len(), SCENARIOS.len(), "{kind} {n}");
                assert!(seen.values().all(|&c| c == 1), "{kind} {n}: {seen:?}");
            }
        }
    }

    #[test]
    fn count_deals_in_suite_order_and_balances_the_shards() {
        let two = shards("count", 2);
        assert_eq!(two[0][..2], [SCENARIOS[0].name, SCENARIOS[2].name]);
        assert_eq!(two[1][..2], [SCENARIOS[1].name, SCENARIOS[3].name]);
        assert!(two[0].len().abs_diff(two[1].len()) <= 1);
        let plain: Partition = "2/2".parse().expect("valid");
        assert_eq!(plain.kind, PartitionKind::Count);
    }

    #[test]
    fn hash_shards_are_the_same_on_every_run_and_machine() {
        // FNV-1a of known inputs: the published test vectors.
        assert_eq!(fnv1a(b""), 0xcbf2_9ce4_8422_2325);
        assert_eq!(fnv1a(b"a"), 0xaf63_dc4c_8601_ec8c);
        assert_eq!(shards("hash", 3), shards("hash", 3));
        // A scenario keeps its shard when the others change.
        let alone: Partition = "hash:1/3".parse().expect("valid");
        for spec in SCENARIOS {
            let in_full = shards("hash", 3)[0].contains(&spec.name);
            assert_eq!(alone.apply(vec![spec]).len() == 1, in_full, "{}", spec.name);
        }
    }

    #[test]
    fn bad_values_are_refused_with_a_sentence() {
        let refused = |s: &str| s.parse::<Partition>().expect_err(s).to_string();
        assert_eq!(
            refused("0/2"),
            "--partition `0/2`: the shard must be between 1 and 2 (shards are counted from 1)"
        );
        assert_eq!(
            refused("count:3/2"),
            "--partition `count:3/2`: the shard must be between 1 and 2 (shards are counted from 1)"
        );
        assert_eq!(
            refused("hash:1/0"),
            "--partition `hash:1/0`: the number of shards must be at least 1"
        );
        assert_eq!(
            refused("slice:1/2"),
            "--partition `slice:1/2`: unknown kind `slice`; use count:k/n or hash:k/n"
        );
        assert_eq!(
            refused("1"),
            "--partition `1`: expected k/n, the shard k of n shards (for example count:1/2)"
        );
        assert_eq!(
            refused("a/2"),
            "--partition `a/2`: the shard `a` is not a whole number"
        );
    }
}

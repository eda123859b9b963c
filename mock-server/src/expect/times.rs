//! [`Times`]: how many matching exchanges an expectation wants.

use std::fmt;
use std::ops::{Range, RangeFrom, RangeFull, RangeInclusive, RangeTo, RangeToInclusive};

/// How many matching exchanges an [`Expectation`](crate::Expectation) wants: a number or a
/// range of them, as wiremock-rs takes (`1`, `2..5`, `1..`, `..=3`, `..`).
///
/// ```
/// use mock_server::Times;
///
/// assert!(Times::from(1).contains(1));
/// assert!(!Times::from(1).contains(2));
/// assert!(Times::from(1..).contains(7));
/// assert!(!Times::from(2..4).contains(4));
/// assert!(Times::from(..=3).contains(0));
/// assert_eq!(Times::from(1..).to_string(), "at least 1 time");
/// ```
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Times {
    /// The fewest wanted.
    min: u64,
    /// One more than the most wanted; `None` is no upper bound.
    end: Option<u64>,
}

impl Times {
    /// Whether `count` matching exchanges are what is wanted.
    ///
    /// ```
    /// assert!(mock_server::Times::from(2..=3).contains(3));
    /// assert!(!mock_server::Times::from(2..=3).contains(1));
    /// ```
    pub fn contains(&self, count: u64) -> bool {
        count >= self.min && self.end.is_none_or(|end| count < end)
    }
}

impl Default for Times {
    /// At least once.
    fn default() -> Self {
        Self::from(1..)
    }
}

impl From<u64> for Times {
    fn from(exactly: u64) -> Self {
        Self {
            min: exactly,
            end: exactly.checked_add(1),
        }
    }
}

impl From<Range<u64>> for Times {
    fn from(range: Range<u64>) -> Self {
        Self {
            min: range.start,
            end: Some(range.end),
        }
    }
}

impl From<RangeInclusive<u64>> for Times {
    fn from(range: RangeInclusive<u64>) -> Self {
        Self {
            min: *range.start(),
            end: range.end().checked_add(1),
        }
    }
}

impl From<RangeFrom<u64>> for Times {
    fn from(range: RangeFrom<u64>) -> Self {
        Self {
            min: range.start,
            end: None,
        }
    }
}

impl From<RangeTo<u64>> for Times {
    fn from(range: RangeTo<u64>) -> Self {
        Self {
            min: 0,
            end: Some(range.end),
        }
    }
}

impl From<RangeToInclusive<u64>> for Times {
    fn from(range: RangeToInclusive<u64>) -> Self {
        Self {
            min: 0,
            end: range.end.checked_add(1),
        }
    }
}

impl From<RangeFull> for Times {
    fn from(_: RangeFull) -> Self {
        Self { min: 0, end: None }
    }
}

impl fmt::Display for Times {
    /// `exactly 1 time`, `at least 2 times`, `at most 3 times`, `2 to 4 times`, `any number of
    /// times`, `never`.
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let times = |n: u64| if n == 1 { "time" } else { "times" };
        match (self.min, self.end.map(|end| end.checked_sub(1))) {
            (_, Some(None)) => f.write_str("never (an empty range)"),
            (min, Some(Some(max))) if max < min => f.write_str("never (an empty range)"),
            (0, Some(Some(0))) => f.write_str("never"),
            (0, None) => f.write_str("any number of times"),
            (min, None) => write!(f, "at least {min} {}", times(min)),
            (0, Some(Some(max))) => write!(f, "at most {max} {}", times(max)),
            (min, Some(Some(max))) if min == max => write!(f, "exactly {min} {}", times(min)),
            (min, Some(Some(max))) => write!(f, "{min} to {max} times"),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn each_range_form_counts_what_rust_ranges_contain() {
        for n in 0..6 {
            assert_eq!(Times::from(2).contains(n), n == 2);
            assert_eq!(Times::from(1..4).contains(n), (1..4).contains(&n));
            assert_eq!(Times::from(1..=4).contains(n), (1..=4).contains(&n));
            assert_eq!(Times::from(3..).contains(n), (3..).contains(&n));
            assert_eq!(Times::from(..3).contains(n), (..3).contains(&n));
            assert_eq!(Times::from(..=3).contains(n), (..=3).contains(&n));
            assert!(Times::from(..).contains(n));
            assert!(!Times::from(3..3).contains(n));
        }
        assert!(Times::from(u64::MAX).contains(u64::MAX));
        assert!(Times::from(..=u64::MAX).contains(u64::MAX));
    }

    #[test]
    fn a_range_reads_as_a_sentence() {
        let shown = |t: Times| t.to_string();
        assert_eq!(shown(1.into()), "exactly 1 time");
        assert_eq!(shown(3.into()), "exactly 3 times");
        assert_eq!(shown(0.into()), "never");
        assert_eq!(shown((1..).into()), "at least 1 time");
        assert_eq!(shown((..=2).into()), "at most 2 times");
        assert_eq!(shown((2..5).into()), "2 to 4 times");
        assert_eq!(shown((..).into()), "any number of times");
        let (high, low) = (4, 2);
        assert_eq!(shown((high..low).into()), "never (an empty range)");
        assert_eq!(shown((0..0).into()), "never (an empty range)");
    }
}

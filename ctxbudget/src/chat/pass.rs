//! One trim's state ([`Pass`]): which messages are dropped and why, what the kept
//! ones cost, and the steps of the policy that drop units.
//!
//! Messages are counted when a step needs their cost, at most once: the budget step
//! counts the units it must keep and then the droppable ones from the kept end, and
//! stops counting at the first unit that does not fit. The steps before it (pairing,
//! `end_on`) look at roles and tool-call ids only.

use super::context::{ChatElement, PartialContent};
use super::error::ChatTrimError;
use super::format::HistoryBudget;
use super::message::Role;
use super::report::{DropReason, DroppedMessage, TrimmedChat};
use super::trimmer::ChatStrategy;
use super::units::{RoleSet, Unit};

/// The state of one trim: which messages are dropped and why, and what the kept ones
/// cost.
pub(super) struct Pass<'m, M> {
    /// The elements; an element's `tokens` is its cost only once `counted[seq]`.
    pub(super) elements: Vec<ChatElement<'m, M>>,
    counted: Vec<bool>,
    dropped: Vec<Option<DropReason>>,
    /// What the kept messages cost, exactly (a `usize` sum that saturated could not
    /// be decreased correctly when messages are dropped); set by the budget step,
    /// before which no step needs it.
    total: u128,
    budget: HistoryBudget,
    include_system: bool,
}

impl<'m, M> Pass<'m, M> {
    /// A pass over `elements` (in seq order, from 0), of which those `removed` are
    /// dropped by the hook; `counted` says whether the elements' `tokens` are their
    /// costs already (else they are counted when needed).
    pub(super) fn new(
        elements: Vec<ChatElement<'m, M>>,
        removed: impl Fn(usize) -> bool,
        counted: bool,
        budget: HistoryBudget,
        include_system: bool,
    ) -> Self {
        let dropped: Vec<Option<DropReason>> = (0..elements.len())
            .map(|seq| removed(seq).then_some(DropReason::Hook))
            .collect();
        Self {
            counted: vec![counted; elements.len()],
            elements,
            dropped,
            total: 0,
            budget,
            include_system,
        }
    }

    /// What the message `seq` costs, counted with `count` the first time.
    fn cost(&mut self, seq: usize, count: &mut impl FnMut(&'m M) -> usize) -> u128 {
        if !self.counted[seq] {
            self.elements[seq].tokens = count(self.elements[seq].message);
            self.counted[seq] = true;
        }
        self.elements[seq].tokens as u128
    }

    fn limit(&self) -> u128 {
        self.budget.limit() as u128
    }

    fn reserved(&self) -> u128 {
        self.budget.reserved() as u128
    }

    pub(super) fn fits(&self) -> bool {
        self.total + self.reserved() <= self.limit()
    }

    /// The tokens still free for messages.
    pub(super) fn room(&self) -> u128 {
        self.limit().saturating_sub(self.total + self.reserved())
    }

    pub(super) fn is_kept(&self, unit: &Unit) -> bool {
        unit.members.iter().all(|&s| self.dropped[s].is_none())
    }

    /// Whether `start_on` and `end_on` look past this kept unit.
    fn is_included_system(&self, seq: usize) -> bool {
        self.include_system && self.elements[seq].role == Role::System
    }

    /// Marks every kept member of `unit` dropped for `reason`; a message kept in part
    /// is reported whole.
    fn drop_unit(&mut self, unit: &Unit, reason: DropReason) {
        for &s in &unit.members {
            if self.dropped[s].is_some() {
                continue;
            }
            self.dropped[s] = Some(reason);
            let element = &mut self.elements[s];
            if self.counted[s] {
                self.total = self.total.saturating_sub(element.tokens as u128);
            }
            if let Some(partial) = element.partial.take() {
                element.tokens = partial.whole_tokens;
            }
        }
    }

    /// Keeps a dropped message again, in part, at `tokens`.
    pub(super) fn restore(&mut self, seq: usize, tokens: usize, partial: PartialContent<'m>) {
        self.dropped[seq] = None;
        self.counted[seq] = true;
        self.elements[seq].tokens = tokens;
        self.elements[seq].partial = Some(partial);
        self.total += tokens as u128;
    }

    /// Step 1: a unit is whole or gone.
    pub(super) fn pair(&mut self, units: &[Unit]) {
        for unit in units {
            let broken = !unit.complete || unit.members.iter().any(|&s| self.dropped[s].is_some());
            if broken {
                for &s in &unit.members {
                    self.dropped[s].get_or_insert(DropReason::Unpaired);
                }
            }
        }
    }

    /// Steps 2 and 6: drops the units after the last kept one that ends on `roles`.
    pub(super) fn end_on(&mut self, units: &[Unit], roles: RoleSet) {
        for unit in units.iter().rev() {
            if !self.is_kept(unit) || self.is_included_system(unit.last()) {
                continue;
            }
            if roles.contains(self.elements[unit.last()].role) {
                break;
            }
            self.drop_unit(unit, DropReason::EndOn);
        }
    }

    /// Step 3: keeps the units the budget may not drop, then the droppable ones from
    /// the kept end (the newest with [`ChatStrategy::KeepLast`], the oldest with
    /// [`ChatStrategy::KeepFirst`]) while they fit; the first that does not fit and
    /// every droppable unit beyond it are dropped. Returns that first one: the unit
    /// next to the kept ones.
    ///
    /// This keeps what dropping units in the opposite order until the request fits
    /// would keep, but counts only the kept units and the one that did not fit:
    /// the units beyond it are dropped without being counted.
    pub(super) fn fit<'u>(
        &mut self,
        units: &'u [Unit],
        strategy: ChatStrategy,
        protected: &[bool],
        mut count: impl FnMut(&'m M) -> usize,
    ) -> Option<&'u Unit> {
        let is_protected = |unit: &Unit| unit.members.iter().any(|&s| protected[s]);
        let mut total: u128 = 0;
        for unit in units {
            if self.is_kept(unit) && is_protected(unit) {
                for &s in &unit.members {
                    total += self.cost(s, &mut count);
                }
            }
        }
        let limit = self.limit().saturating_sub(self.reserved());
        let order: Box<dyn Iterator<Item = &'u Unit>> = match strategy {
            ChatStrategy::KeepLast => Box::new(units.iter().rev()),
            ChatStrategy::KeepFirst => Box::new(units.iter()),
        };
        let mut boundary = None;
        for unit in order {
            if !self.is_kept(unit) || is_protected(unit) {
                continue;
            }
            if boundary.is_none() {
                let tokens: u128 = unit.members.iter().map(|&s| self.cost(s, &mut count)).sum();
                if total + tokens <= limit {
                    total += tokens;
                    continue;
                }
                boundary = Some(unit);
            }
            for &s in &unit.members {
                self.dropped[s] = Some(DropReason::OverBudget);
            }
        }
        self.total = total;
        boundary
    }

    /// Step 5: drops the units before the first kept one that starts with `roles`.
    pub(super) fn start_on(&mut self, units: &[Unit], roles: RoleSet, reason: DropReason) {
        for unit in units {
            if !self.is_kept(unit) || self.is_included_system(unit.first()) {
                continue;
            }
            if roles.contains(self.elements[unit.first()].role) {
                break;
            }
            self.drop_unit(unit, reason);
        }
    }

    pub(super) fn finish(self) -> Result<TrimmedChat<'m, M>, ChatTrimError> {
        let saturate = |tokens: u128| usize::try_from(tokens).unwrap_or(usize::MAX);
        let needed = saturate(self.total + self.reserved());
        if !self.fits() {
            return Err(ChatTrimError::OverBudget {
                needed,
                budget: self.budget.limit(),
                over: needed.saturating_sub(self.budget.limit()),
            });
        }
        let mut kept = Vec::with_capacity(self.elements.len());
        let mut dropped = Vec::new();
        for element in self.elements {
            match self.dropped[element.seq] {
                None => kept.push(element),
                Some(reason) => dropped.push(DroppedMessage {
                    seq: element.seq,
                    tokens: self.counted[element.seq].then_some(element.tokens),
                    reason,
                }),
            }
        }
        Ok(TrimmedChat {
            kept,
            dropped,
            tokens: needed,
            budget: self.budget,
        })
    }
}

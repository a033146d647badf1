//! One trim's state ([`Pass`]): which messages are dropped and why, what the kept
//! ones cost, and the steps of the policy that drop units.

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
    pub(super) elements: Vec<ChatElement<'m, M>>,
    dropped: Vec<Option<DropReason>>,
    /// What the kept messages cost, exactly: a `usize` sum that saturated could not
    /// be decreased correctly when messages are dropped.
    total: u128,
    budget: HistoryBudget,
    include_system: bool,
}

impl<'m, M> Pass<'m, M> {
    pub(super) fn new(
        elements: Vec<ChatElement<'m, M>>,
        removed: &[bool],
        budget: HistoryBudget,
        include_system: bool,
    ) -> Self {
        let dropped: Vec<Option<DropReason>> = removed
            .iter()
            .map(|&removed| removed.then_some(DropReason::Hook))
            .collect();
        let total = elements
            .iter()
            .filter(|e| dropped[e.seq].is_none())
            .map(|e| e.tokens as u128)
            .sum();
        Self {
            elements,
            dropped,
            total,
            budget,
            include_system,
        }
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

    fn is_kept(&self, unit: &Unit) -> bool {
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
            self.total -= element.tokens as u128;
            if let Some(partial) = element.partial.take() {
                element.tokens = partial.whole_tokens;
            }
        }
    }

    /// Keeps a dropped message again, in part, at `tokens`.
    pub(super) fn restore(&mut self, seq: usize, tokens: usize, partial: PartialContent<'m>) {
        self.dropped[seq] = None;
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
                    if self.dropped[s].is_none() {
                        self.dropped[s] = Some(DropReason::Unpaired);
                        self.total -= self.elements[s].tokens as u128;
                    }
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

    /// Step 3: drops droppable units in strategy order until the request fits;
    /// returns the last one dropped.
    pub(super) fn fit<'u>(
        &mut self,
        units: &'u [Unit],
        strategy: ChatStrategy,
        protected: &[bool],
    ) -> Option<&'u Unit> {
        let order: Box<dyn Iterator<Item = &'u Unit>> = match strategy {
            ChatStrategy::KeepFirst => Box::new(units.iter().rev()),
            ChatStrategy::KeepLast => Box::new(units.iter()),
        };
        let mut last = None;
        for unit in order {
            if self.fits() {
                break;
            }
            if self.is_kept(unit) && unit.members.iter().all(|&s| !protected[s]) {
                self.drop_unit(unit, DropReason::OverBudget);
                last = Some(unit);
            }
        }
        last
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
                    tokens: element.tokens,
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

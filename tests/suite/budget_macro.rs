//! `budget!`: the same checks and generated items as the derive, without a content
//! struct; and the typed trackers agreeing with the runtime one.

use ctxbudget::{BudgetError, ContextLayers, budget::ContextUsage};
use proptest::prelude::*;

ctxbudget::budget! {
    /// The issue's example.
    pub ChatBudget(total = 8192) { system: 512, history: 4096, user: 1024, output: 1024 }
}

const WINDOW: usize = 2 * 1024;
const SYSTEM: usize = 256;
const TOOLS: u32 = 300;
const CONTEXT: u64 = 1 << 20;

mod nested {
    ctxbudget::budget! {
        /// Const expressions, per-layer docs, a raw identifier and restricted visibility.
        pub(crate) ConstBudget(total = super::WINDOW) {
            /// The system prompt.
            system: super::SYSTEM,
            r#type: super::SYSTEM * 2,
            long_term_memory: 1000,
        }
    }
}

use nested::{ConstBudget, ConstBudgetLayer};

ctxbudget::budget! {
    /// More than 32 layers: arrays past the sizes std implements `Default` for.
    pub Wide(total = 780) { l0: 0, l1: 1, l2: 2, l3: 3, l4: 4, l5: 5, l6: 6, l7: 7, l8: 8, l9: 9, l10: 10, l11: 11, l12: 12, l13: 13, l14: 14, l15: 15, l16: 16, l17: 17, l18: 18, l19: 19, l20: 20, l21: 21, l22: 22, l23: 23, l24: 24, l25: 25, l26: 26, l27: 27, l28: 28, l29: 29, l30: 30, l31: 31, l32: 32, l33: 33, l34: 34, l35: 35, l36: 36, l37: 37, l38: 38, l39: 39 }
}

ctxbudget::budget! {
    /// Reservations from `u32` and `u64` constants.
    pub Unsigned(total = CONTEXT) { tools: TOOLS, rest: CONTEXT - 300 }
}

// The constants are usable in const context.
const _: () = assert!(ChatBudget::AVAILABLE == 1536);
const _: () = assert!(Wide::AVAILABLE == 0);

#[test]
fn constants() {
    assert_eq!(ChatBudget::TOTAL, 8192);
    assert_eq!(ChatBudget::RESERVED, 6656);
    assert_eq!(ChatBudget::AVAILABLE, 1536);
    assert_eq!(ConstBudget::TOTAL, 2048);
    assert_eq!(ConstBudget::RESERVED, 256 + 512 + 1000);
    assert_eq!(ConstBudgetLayer::Type.name(), "type");
    assert_eq!(ConstBudgetLayer::LongTermMemory.budget(), 1000);
    assert_eq!(
        ConstBudgetLayer::ALL,
        [
            ConstBudgetLayer::System,
            ConstBudgetLayer::Type,
            ConstBudgetLayer::LongTermMemory
        ]
    );
}

#[test]
fn unsigned_constants() {
    assert_eq!(Unsigned::TOTAL, 1 << 20);
    assert_eq!(UnsignedLayer::Tools.budget(), 300);
    assert_eq!(Unsigned::AVAILABLE, 0);
}

#[test]
fn layer_names_parse() {
    assert_eq!(
        ChatBudgetLayer::NAMES,
        ["system", "history", "user", "output"]
    );
    assert_eq!("output".parse(), Ok(ChatBudgetLayer::Output));
    assert_eq!("type".parse(), Ok(ConstBudgetLayer::Type));
    assert_eq!(
        "long_term_memory".parse::<ConstBudgetLayer>(),
        Ok(ConstBudgetLayer::LongTermMemory)
    );
    let err = "LongTermMemory".parse::<ConstBudgetLayer>().unwrap_err();
    assert_eq!(
        err.to_string(),
        "unknown layer `LongTermMemory`; expected one of: system, type, long_term_memory"
    );
    assert_eq!(WideLayer::NAMES.len(), 40);
    assert_eq!("l39".parse(), Ok(WideLayer::L39));
}

#[test]
fn forty_layers() -> Result<(), BudgetError> {
    let mut usage = Wide::usage();
    for layer in WideLayer::ALL {
        usage.spend(layer, layer.budget())?;
    }
    assert_eq!(usage.total_spent(), Wide::TOTAL);
    assert_eq!(usage.l39_spent(), 39);
    assert_eq!(usage.remaining(), 0);
    assert!(usage.spend(WideLayer::L0, 1).is_err());
    Ok(())
}

#[test]
fn typed_usage_and_telemetry() -> Result<(), BudgetError> {
    let mut usage = ChatBudget::usage();
    usage.spend(ChatBudgetLayer::History, 4000)?;
    usage.spend(ChatBudgetLayer::User, 24)?;
    assert_eq!(usage.history_spent(), 4000);
    assert_eq!(usage.user_spent(), 24);
    assert_eq!(usage.output_spent(), 0);
    assert_eq!(
        usage.spend(ChatBudgetLayer::History, 97),
        Err(BudgetError::LayerOverBudget {
            layer: "history".into(),
            spent: 4000,
            tokens: 97,
            budget: 4096
        })
    );
    let expected = r#"{"total":8192,"spent":4024,"remaining":4168,"system":{"budget":512,"spent":0},"history":{"budget":4096,"spent":4000},"user":{"budget":1024,"spent":24},"output":{"budget":1024,"spent":0}}"#;
    assert_eq!(usage.to_json(), expected);
    assert_eq!(serde_json::to_string(&usage).unwrap(), expected);
    let runtime: ContextUsage = usage.into();
    assert_eq!(runtime.to_json(), expected);
    assert_eq!(ConstBudget::usage().type_spent(), 0);
    Ok(())
}

proptest! {
    /// The typed tracker and the runtime tracker accept and refuse the same spends,
    /// and a refused typed spend records nothing.
    #[test]
    fn typed_and_runtime_agree(spends in prop::collection::vec((0usize..4, 0usize..5_000), 0..40)) {
        let mut typed = ChatBudget::usage();
        let mut runtime = ChatBudget::context_budget().usage();
        for (layer, tokens) in spends {
            let layer = ChatBudgetLayer::ALL[layer];
            let before = typed;
            let a = typed.spend(layer, tokens);
            let b = runtime.spend(layer.name(), tokens);
            prop_assert_eq!(&a, &b);
            if a.is_err() {
                prop_assert_eq!(typed, before);
            }
            for (name, budget, spent) in typed.layers() {
                prop_assert!(spent <= budget, "{} over: {} > {}", name, spent, budget);
            }
            prop_assert_eq!(typed.to_json(), runtime.to_json());
        }
    }
}

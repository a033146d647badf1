//! `#[derive(ContextLayers)]`: generated constants, layer enum, typed tracker and builder.

use ctxbudget::{BudgetError, ContextLayers, budget::ContextUsage};
use std::collections::HashMap;

/// The example context.
#[derive(ContextLayers, Debug, PartialEq)]
#[context(total = 8192, output = 1024)]
struct AgentContext {
    #[budget(tokens = 512, required)]
    system: String,
    #[budget(tokens = 2048)]
    memory: String,
    #[budget(tokens = 4096)]
    semantic: Vec<String>,
    #[budget(tokens = 512, required)]
    user: String,
}

#[test]
fn constants_and_table() {
    assert_eq!(AgentContext::TOTAL, 8192);
    assert_eq!(AgentContext::RESERVED, 512 + 2048 + 4096 + 512 + 1024);
    assert_eq!(AgentContext::AVAILABLE, 0);
    let names: Vec<&str> = AgentContext::LAYERS
        .iter()
        .map(ctxbudget::budget::LayerSpec::name)
        .collect();
    assert_eq!(names, ["system", "memory", "semantic", "user", "output"]);
    assert!(AgentContext::LAYERS[0].required());
    assert!(!AgentContext::LAYERS[1].required());
}

#[test]
fn layer_enum() {
    assert_eq!(AgentContextLayer::ALL.len(), 5);
    assert_eq!(AgentContextLayer::ALL[4], AgentContextLayer::Output);
    assert_eq!(AgentContextLayer::Memory.name(), "memory");
    assert_eq!(AgentContextLayer::Memory.budget(), 2048);
    assert_eq!(AgentContextLayer::Semantic.index(), 2);
    assert_eq!(AgentContextLayer::User.to_string(), "user");
}

#[test]
fn typed_spend() -> Result<(), BudgetError> {
    let mut usage = AgentContext::usage();
    usage.spend(AgentContextLayer::Memory, 2000)?;
    usage.spend(AgentContextLayer::System, 12)?;
    assert_eq!(usage.memory_spent(), 2000);
    assert_eq!(usage.system_spent(), 12);
    assert_eq!(usage.total_spent(), 2012);
    assert_eq!(usage.remaining(), 8192 - 2012);
    let err = usage.spend(AgentContextLayer::Memory, 100).unwrap_err();
    assert_eq!(
        err.to_string(),
        "layer `memory` over budget: 2100 > 2048 (2000 spent, 100 more asked); trim the layer \
         to at most 48 tokens or raise its reservation"
    );
    assert_eq!(usage.memory_spent(), 2000);
    Ok(())
}

#[test]
fn builder_fills_optional_layers_with_default() {
    let context = AgentContext::builder()
        .system("You are terse.")
        .memory(String::from("the user likes Rust"))
        .user("hi")
        .build();
    assert_eq!(
        context,
        AgentContext {
            system: "You are terse.".into(),
            memory: "the user likes Rust".into(),
            semantic: Vec::new(),
            user: "hi".into(),
        }
    );
}

#[test]
fn conversion_to_runtime() -> Result<(), BudgetError> {
    let budget = AgentContext::context_budget();
    assert_eq!(budget.total(), 8192);
    assert_eq!(budget.layer_budget("semantic")?, 4096);
    let mut usage = AgentContext::usage();
    usage.spend(AgentContextLayer::User, 7)?;
    let runtime: ContextUsage = usage.into();
    assert_eq!(runtime.spent("user")?, 7);
    assert_eq!(runtime.total_spent(), 7);
    Ok(())
}

#[test]
fn layer_enum_parses_from_its_name() {
    assert_eq!(
        AgentContextLayer::NAMES,
        ["system", "memory", "semantic", "user", "output"]
    );
    for layer in AgentContextLayer::ALL {
        assert_eq!(layer.name().parse::<AgentContextLayer>(), Ok(layer));
        assert_eq!(AgentContextLayer::NAMES[layer.index()], layer.name());
    }
    let err = "Memory".parse::<AgentContextLayer>().unwrap_err();
    assert_eq!(err.name(), "Memory");
    assert_eq!(err.expected(), AgentContextLayer::NAMES);
    assert_eq!(
        err.to_string(),
        "unknown layer `Memory`; expected one of: system, memory, semantic, user, output"
    );
    let err: BudgetError = err.into();
    assert_eq!(
        err,
        BudgetError::UnknownLayer {
            name: "Memory".into(),
            known: "system, memory, semantic, user, output".into()
        }
    );
}

/// Spends read from a configuration file (layer name -> tokens) land in the typed
/// tracker; a misspelt layer is an error that names it.
fn spend_from_config(config: &str) -> Result<AgentContextUsage, BudgetError> {
    let spends: HashMap<String, usize> = toml::from_str(config).expect("valid TOML");
    let mut usage = AgentContext::usage();
    for (name, tokens) in spends {
        usage.spend(name.parse()?, tokens)?;
    }
    Ok(usage)
}

#[test]
fn config_file_to_typed_tracker() {
    let usage = spend_from_config("memory = 1000\nuser = 12\n").unwrap();
    assert_eq!(usage.memory_spent(), 1000);
    assert_eq!(usage.user_spent(), 12);
    let err = spend_from_config("memroy = 1000\n").unwrap_err();
    assert_eq!(
        err.to_string(),
        "unknown layer `memroy`; the budget declares: system, memory, semantic, user, output"
    );
}

const SYSTEM_TOKENS: u32 = 512;
const WINDOW: u64 = 4096;
const SMALL: u16 = 100;

/// Reservations from `u32`, `u64` and `u16` constants, no `as usize`.
#[derive(ContextLayers)]
#[context(total = WINDOW, output = SMALL)]
struct Typed {
    #[budget(tokens = SYSTEM_TOKENS)]
    system: String,
    #[budget(tokens = WINDOW / 2)]
    history: String,
    #[budget(tokens = 64u8)]
    user: String,
}

#[test]
fn unsigned_constants_of_any_width() {
    assert_eq!(Typed::TOTAL, 4096);
    assert_eq!(TypedLayer::System.budget(), 512);
    assert_eq!(TypedLayer::History.budget(), 2048);
    assert_eq!(TypedLayer::User.budget(), 64);
    assert_eq!(TypedLayer::Output.budget(), 100);
    assert_eq!(Typed::RESERVED, 512 + 2048 + 64 + 100);
    let typed = Typed::builder().system("s").history("h").user("u").build();
    let assembled = typed.assemble(&ctxbudget::CharEstimate).unwrap();
    assert_eq!(assembled.prompt, "s\n\nh\n\nu");
}

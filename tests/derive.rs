//! `#[derive(ContextLayers)]`: generated constants, layer enum, typed tracker and builder.

use ctxbudget::{BudgetError, ContextLayers, budget::ContextUsage};

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

use ctxbudget::ContextLayers;

#[derive(ContextLayers)]
struct NoContext {
    #[budget(tokens = 512)]
    system: String,
}

#[derive(ContextLayers)]
#[context(output = 512)]
struct NoTotal {
    #[budget(tokens = 512)]
    system: String,
}

// A generic context: the stand-in items beside the error carry its generics, so code
// that uses them reports only the missing total.
#[derive(ContextLayers)]
struct Generic<'a, T: ctxbudget::LayerContent> {
    #[budget(tokens = 512, required)]
    system: &'a str,
    #[budget(tokens = 512)]
    history: T,
}

pub fn uses_the_generated_items() {
    let generic: Generic<'_, String> = Generic::builder().system("s").build();
    let _ = generic.assemble(&ctxbudget::CharEstimate);
    let _ = GenericUsage::new().system_spent();
    let _: Result<GenericLayer, _> = "history".parse();
}

fn main() {}

//! `#[derive(ContextLayers)]` on generic contexts: borrowed layers (`&'a str`), content
//! types left to the caller (`T: LayerContent`), defaults and where clauses. The
//! builder's typestate still works, `assemble()` fits the borrowed and generic layers,
//! and the usage tracker is not generic, so it outlives what the context borrowed.

use ctxbudget::budget::ContextUsage;
use ctxbudget::select::RankedChunks;
use ctxbudget::{BudgetError, CharEstimate, ContextLayers, LayerContent, Message};

/// A prompt that borrows every layer.
#[derive(ContextLayers, Debug, PartialEq)]
#[context(total = 100, output = 10)]
struct Prompt<'a> {
    #[budget(tokens = 20, required, policy = never)]
    system: &'a str,
    #[budget(tokens = 50, grow)]
    docs: Vec<&'a str>,
    #[budget(tokens = 20, required)]
    user: &'a str,
}

#[test]
fn borrowed_layers_build_and_assemble() {
    let system = String::from("Be brief.");
    let docs = vec!["first doc", "second doc"];
    // `&String` coerces to the field's `&str`; a literal works too.
    let prompt = Prompt::builder()
        .system(&system)
        .docs(docs.clone())
        .user("hi")
        .build();
    assert_eq!(
        prompt,
        Prompt {
            system: "Be brief.",
            docs: vec!["first doc", "second doc"],
            user: "hi"
        }
    );
    let assembled = prompt.assemble(&CharEstimate).unwrap();
    assert_eq!(
        assembled.prompt,
        "Be brief.\n\nfirst doc\n\nsecond doc\n\nhi"
    );
    assert_eq!(assembled.usage.system_spent(), 3);
    assert_eq!(assembled.usage.user_spent(), 1);
    assert_eq!(assembled.usage.output_spent(), 0);
}

/// The tracker of a borrowing context borrows nothing: it can leave the scope of the
/// strings the context borrowed.
fn spend_of_a_temporary_prompt() -> PromptUsage {
    let system = ["Be", "brief."].join(" ");
    let prompt = Prompt {
        system: &system,
        docs: Vec::new(),
        user: "Summarise.",
    };
    prompt.assemble(&CharEstimate).unwrap().usage
}

#[test]
fn usage_outlives_the_borrowed_layers() {
    let usage = spend_of_a_temporary_prompt();
    assert_eq!(usage.system_spent(), 3);
    assert_eq!(usage.user_spent(), 3);
    let runtime: ContextUsage = usage.into();
    assert_eq!(runtime.spent("system").unwrap(), 3);
}

#[test]
fn borrowed_context_constants_and_layers() -> Result<(), BudgetError> {
    assert_eq!(Prompt::TOTAL, 100);
    assert_eq!(Prompt::RESERVED, 100);
    assert_eq!(<Prompt<'static> as ContextLayers>::LAYERS.len(), 4);
    assert_eq!(PromptLayer::Docs.budget(), 50);
    assert_eq!(Prompt::context_budget().layer_budget("user")?, 20);
    let mut usage = Prompt::usage();
    usage.spend(PromptLayer::Docs, 40)?;
    assert_eq!(usage.docs_spent(), 40);
    Ok(())
}

/// Content types chosen by the caller, with a default and a where clause.
#[derive(ContextLayers)]
#[context(total = 200, separator = "\n--\n")]
struct Chat<H: LayerContent, N = String>
where
    N: LayerContent + Default,
{
    #[budget(tokens = 20, required)]
    system: String,
    #[budget(tokens = 150, required, policy = tail)]
    history: H,
    #[budget(tokens = 30)]
    notes: N,
}

#[test]
fn type_parameters_are_inferred_from_the_setters() {
    // `H` is inferred from `.history(..)`, `N` takes its default.
    let chat: Chat<Vec<Message>> = Chat::builder()
        .system("Be kind.")
        .history(vec![Message::user("hello"), Message::assistant("hi there")])
        .build();
    assert!(chat.notes.is_empty());
    let assembled = chat.assemble(&CharEstimate).unwrap();
    assert!(assembled.prompt.starts_with("Be kind.\n--\n"));
    assert!(assembled.prompt.contains("hi there"));
    assert_eq!(assembled.layer("notes").unwrap().text(), "");

    // Another content type for the same layer, and an explicit one for `N`.
    let chat = Chat::builder()
        .history(String::from("a plain transcript"))
        .notes(Some(String::from("remember the user's name")))
        .system("Be kind.")
        .build();
    let assembled = chat.assemble(&CharEstimate).unwrap();
    assert_eq!(
        assembled.prompt,
        "Be kind.\n--\na plain transcript\n--\nremember the user's name"
    );
}

#[test]
fn a_generic_context_counts_on_its_layer_enum() -> Result<(), BudgetError> {
    // The budget does not depend on the type parameters: the layer enum carries it, and
    // the tracker needs no annotation.
    assert_eq!(<ChatLayer as ContextLayers>::TOTAL, 200);
    assert_eq!(<Chat<String> as ContextLayers>::RESERVED, 200);
    assert_eq!(
        <Chat<RankedChunks> as ContextLayers>::LAYERS,
        <ChatLayer as ContextLayers>::LAYERS
    );
    let mut usage = ChatUsage::new();
    usage.spend(ChatLayer::History, 150)?;
    assert!(usage.spend(ChatLayer::History, 1).is_err());
    assert_eq!(usage.history_spent(), 150);
    assert_eq!(Chat::<String>::usage(), ChatUsage::new());
    Ok(())
}

/// Lifetimes, a type parameter and a const parameter together, none of them required.
#[derive(ContextLayers, Default)]
#[context(total = 64)]
struct Mixed<'a, T: LayerContent + Default, const K: usize> {
    #[budget(tokens = 16)]
    title: &'a str,
    #[budget(tokens = 48)]
    body: T,
    #[budget(tokens = 0)]
    marker: core::marker::PhantomData<[u8; K]>,
}

#[test]
fn optional_generic_layers_default_where_built() {
    let mixed: Mixed<'_, Vec<String>, 3> = Mixed::builder().title("Notes").build();
    assert!(mixed.body.is_empty());
    let mixed = Mixed::<'_, String, 3>::builder()
        .body(String::from("the body"))
        .build();
    assert_eq!(mixed.title, "");
    assert_eq!(mixed.body, "the body");
}

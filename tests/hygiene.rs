//! Generated code names nothing through the user's scope: it compiles in a module
//! whose items shadow the prelude (`Result`, `Option`, `Some`, `String`, `Default`,
//! `Into`, `Clone`, `PhantomData`..), the primitives `usize`, `str` and `bool`, and
//! `core`; with fields named `builder`, `state`, `core`, `value` and `build_state`;
//! with generic parameters named like the generated ones; and under `deny(warnings)`
//! plus the workspace's clippy pedantic lints (CI runs clippy with `-D warnings` on
//! this file).
//!
//! The module shadows the prelude item by item rather than with
//! `#[no_implicit_prelude]`: that attribute also hides the tool prelude, so the
//! generated `#[diagnostic::on_unimplemented]` attributes could not resolve
//! (rust-lang/rust#106518).
#![deny(warnings, missing_docs, missing_debug_implementations)]

/// Everything the generated code could trip over.
pub mod shadowed {
    #![allow(non_camel_case_types, dead_code)]

    /// Shadows `core`.
    pub mod core {}
    /// Shadows `ctxbudget` as a relative path.
    pub mod ctxbudget {}
    /// Shadows `Result`.
    #[derive(Debug)]
    pub struct Result;
    /// Shadows `Option`.
    #[derive(Debug)]
    pub struct Option;
    /// Shadows `String`.
    #[derive(Debug)]
    pub struct String;
    /// Shadows `Default`.
    pub trait Default {}
    /// Shadows the primitive `usize`.
    #[derive(Debug)]
    pub struct usize;
    /// Shadows the primitive `str`.
    #[derive(Debug)]
    pub struct str;
    /// Shadows `Some`.
    #[derive(Debug)]
    pub struct Some;
    /// Shadows `None`.
    #[derive(Debug)]
    pub struct None;
    /// Shadows `Ok`.
    #[derive(Debug)]
    pub struct Ok;
    /// Shadows `Err`.
    #[derive(Debug)]
    pub struct Err;
    /// Shadows the primitive `bool`.
    #[derive(Debug)]
    pub struct bool;
    /// Shadows `PhantomData` (were it imported).
    #[derive(Debug)]
    pub struct PhantomData;
    /// Shadows `Into`.
    pub trait Into {}
    /// Shadows `From`.
    pub trait From {}
    /// Shadows `Clone`.
    pub trait Clone {}
    /// Shadows `Copy`.
    pub trait Copy {}
    /// Shadows `Sized`.
    pub trait Sized {}
    /// Shadows `Fn`.
    pub trait Fn {}
    /// Shadows `FnOnce`.
    pub trait FnOnce {}
    /// Shadows `PartialEq`.
    pub trait PartialEq {}
    /// Shadows `Drop`.
    pub trait Drop {}
    /// Shadows `Vec`.
    #[derive(Debug)]
    pub struct Vec;
    /// Shadows `Box`.
    #[derive(Debug)]
    pub struct Box;
    /// Shadows `Unset`, `Set` and `Check`, names of generated helpers.
    #[derive(Debug)]
    pub struct Unset;
    /// See [`Unset`].
    #[derive(Debug)]
    pub struct Set;
    /// See [`Unset`].
    #[derive(Debug)]
    pub struct Check;
    /// Shadows `panic!`.
    #[allow(unused_macros)]
    macro_rules! panic {
        ($($t:tt)*) => {
            compile_error!("generated code used the caller's `panic!`")
        };
    }

    /// A context whose fields have the names generated code might use.
    #[derive(::ctxbudget::ContextLayers, ::core::fmt::Debug, ::core::cmp::PartialEq)]
    #[context(total = 4096, output = 512)]
    pub struct Awkward {
        /// Named like the constructor.
        #[budget(tokens = 512, required)]
        pub builder: ::std::string::String,
        /// Named like a typestate.
        #[budget(tokens = 512, grow = 2)]
        pub state: ::std::vec::Vec<::std::string::String>,
        /// Named like the crate.
        #[budget(tokens = 512, required, policy = tail)]
        pub core: ::std::string::String,
        /// Named like a setter argument.
        #[budget(tokens = LIMIT, policy = disclose, recovery = "ask for it")]
        pub value: ::std::string::String,
        /// Raw identifier.
        #[budget(tokens = 1, policy = never, grow)]
        pub r#type: ::std::string::String,
    }

    /// A const reservation, so the const assertion is generated too.
    pub const LIMIT: ::core::primitive::usize = 100;

    /// A `u32` reservation, converted by the generated code.
    pub const SMALL: ::core::primitive::u32 = 10;

    ::ctxbudget::budget! {
        /// A `budget!` in the same hostile module.
        pub Plain(total = LIMIT) { builder: SMALL, core: LIMIT - 10 }
    }

    /// A generic context whose parameters are named like the generated ones
    /// (`'__a`, `'__l`, `__C`, `__Builder`, `__T`), with a required generic layer.
    #[derive(::ctxbudget::ContextLayers, ::core::fmt::Debug)]
    #[context(total = LIMIT)]
    pub struct Generic<'__a, '__l, __C, __Builder: ::ctxbudget::LayerContent>
    where
        __C: ::ctxbudget::LayerContent + ::core::default::Default,
    {
        /// Borrowed, required.
        #[budget(tokens = 10, required)]
        pub builder: &'__a ::core::primitive::str,
        /// Generic, required.
        #[budget(tokens = 10, required)]
        pub state: __Builder,
        /// Generic, optional.
        #[budget(tokens = 10)]
        pub core: __C,
        /// Borrowed with the other lifetime, optional.
        #[budget(tokens = SMALL)]
        pub value: ::core::option::Option<&'__l ::core::primitive::str>,
    }
}

mod crate_path {
    //! `#[context(crate = path)]` for crates that re-export ctxbudget.

    /// A re-exporting crate's view of ctxbudget.
    pub mod reexport {
        pub use ::ctxbudget as inner;
    }

    /// Derived through the re-export.
    #[derive(ctxbudget::ContextLayers, Debug)]
    #[context(total = 100, crate = self::reexport::inner, separator = "\n---\n")]
    pub struct ViaReexport {
        /// A layer.
        #[budget(tokens = 10)]
        pub system: String,
    }

    ctxbudget::budget! {
        /// Declared through the re-export.
        #[context(crate = crate::crate_path::reexport::inner)]
        pub ViaReexportBudget(total = 100) { system: 10 }
    }
}

mod clashing_states {
    //! Layers `user` and `user_is` would both generate a `UserIsSet`; the states are
    //! numbered then.

    /// Two required layers whose state names would clash.
    #[derive(ctxbudget::ContextLayers, Debug)]
    #[context(total = 10)]
    pub struct Clash {
        /// First.
        #[budget(tokens = 1, required)]
        pub user: String,
        /// Second.
        #[budget(tokens = 1, required)]
        pub user_is: String,
    }
}

mod private_unused {
    //! A private context of which only the builder is used: no generated item may
    //! warn as unused (the file denies warnings).

    #[derive(ctxbudget::ContextLayers)]
    #[context(total = 10, output = 1)]
    struct Quiet {
        #[budget(tokens = 1, required)]
        system: String,
        #[budget(tokens = 2)]
        user: String,
    }

    /// Builds one and reads it back.
    pub fn build() -> usize {
        let quiet = Quiet::builder().system("x").build();
        quiet.system.len() + quiet.user.len()
    }
}

use ctxbudget::ContextLayers;
use shadowed::{Awkward, AwkwardLayer, Generic, GenericLayer, Plain, PlainLayer};

#[test]
fn hostile_names_still_expand() {
    let built = Awkward::builder()
        .builder("b")
        .core("c")
        .value(String::from("v"))
        .build();
    assert_eq!(built.builder, "b");
    assert_eq!(built.core, "c");
    assert!(built.state.is_empty());
    assert_eq!(Awkward::RESERVED, 512 * 3 + 100 + 1 + 512);
    assert_eq!(AwkwardLayer::Type.name(), "type");
    let mut usage = Awkward::usage();
    usage.spend(AwkwardLayer::Core, 5).unwrap();
    assert_eq!(usage.core_spent(), 5);
    assert_eq!(Plain::TOTAL, 100);
    assert_eq!(PlainLayer::Core.budget(), 90);
    let assembled = built.assemble(&ctxbudget::CharEstimate).unwrap();
    assert_eq!(assembled.prompt, "b\n\nc\n\nv");
    assert_eq!(assembled.usage.core_spent(), 1);
}

#[test]
fn generic_names_like_the_generated_ones() {
    let built: Generic<'_, '_, String, Vec<String>> = Generic::builder()
        .state(vec![String::from("s")])
        .builder("b")
        .value(Some("v"))
        .build();
    assert!(built.core.is_empty());
    let assembled = built.assemble(&ctxbudget::CharEstimate).unwrap();
    assert_eq!(assembled.prompt, "b\n\ns\n\nv");
    assert_eq!(GenericLayer::Value.budget(), 10);
    assert_eq!(<GenericLayer as ContextLayers>::RESERVED, 40);
    assert_eq!("state".parse::<GenericLayer>(), Ok(GenericLayer::State));
}

#[test]
fn clashing_state_names() {
    let clash = clashing_states::Clash::builder()
        .user_is("b")
        .user("a")
        .build();
    assert_eq!((clash.user.as_str(), clash.user_is.as_str()), ("a", "b"));
}

#[test]
fn private_context_without_warnings() {
    assert_eq!(private_unused::build(), 1);
}

#[test]
fn crate_path_option() {
    use crate_path::{ViaReexport, ViaReexportBudget, ViaReexportBudgetLayer, ViaReexportLayer};
    assert_eq!(ViaReexport::TOTAL, 100);
    assert_eq!(ViaReexportLayer::System.budget(), 10);
    assert_eq!(ViaReexportBudget::RESERVED, 10);
    assert_eq!(ViaReexportBudgetLayer::System.name(), "system");
    let via = ViaReexport {
        system: "hello".into(),
    };
    let assembled = via.assemble(&ctxbudget::CharEstimate).unwrap();
    assert_eq!(assembled.prompt, "hello");
}

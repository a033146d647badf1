// Reservations may be of any unsigned integer type; others are refused by name, and a
// value that does not fit `usize` is a compile error, not a truncation.
use ctxbudget::ContextLayers;

const SIGNED: i32 = 512;
const HUGE: u128 = 1 << 70;

#[derive(ContextLayers)]
#[context(total = 4096)]
struct Signed {
    #[budget(tokens = SIGNED)]
    system: String,
}

#[derive(ContextLayers)]
#[context(total = HUGE)]
struct Huge {
    #[budget(tokens = 512)]
    system: String,
}

ctxbudget::budget! {
    /// The same through `budget!`.
    pub Signs(total = 4096) { system: SIGNED }
}

fn main() {}

const HISTORY: usize = 8192;

ctxbudget::budget! {
    /// Literal reservations: checked in the macro.
    pub ChatBudget(total = 4096) { system: 512, history: 4096, user: 1024 }
}

ctxbudget::budget! {
    /// A const reservation: checked by a const assertion.
    pub ConstBudget(total = 4096) { system: 512, history: HISTORY }
}

fn main() {}

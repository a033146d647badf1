ctxbudget::budget! {
    pub Duplicate(total = 4096) { system: 512, system: 512, spent: 1, big: 2.5, neg: -1 }
}

ctxbudget::budget! {
    pub Empty(total = 4096) {}
}

fn main() {}

ctxbudget::budget! {
    pub NoTotal { system: 512 }
}

ctxbudget::budget! {
    pub Typo(totl = 4096) { system: 512 }
}

ctxbudget::budget! {
    pub Equals(total = 4096) { system = 512 }
}

ctxbudget::budget! {
    pub NoComma(total = 4096) { system: 512 user: 512 }
}

fn main() {}

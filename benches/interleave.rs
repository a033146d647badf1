//! Contenders measured in one run, interleaved: every round runs each contender
//! once, in an order shuffled anew each round, so that the load of a shared machine
//! falls on all of them alike. Criterion drives the rounds (one benchmark per
//! group, `<group>/round`, whose time is a whole round); the medians of each
//! contender and the median of the per-round ratios are collected here and printed
//! as a Markdown table at the end of the run.

use std::cell::RefCell;
use std::hint::black_box;
use std::time::{Duration, Instant};

use criterion::Criterion;

/// One contender: a name and what to run (its result is kept from the optimiser).
pub struct Contender<'a> {
    pub name: String,
    pub run: Box<dyn Fn() -> usize + 'a>,
}

impl<'a> Contender<'a> {
    pub fn new(name: impl Into<String>, run: impl Fn() -> usize + 'a) -> Self {
        Contender {
            name: name.into(),
            run: Box::new(run),
        }
    }
}

/// The rounds of one group: one duration per contender per round.
#[allow(clippy::struct_field_names)] // `rounds.rounds`: the group and its rounds.
pub struct Rounds {
    pub group: String,
    pub names: Vec<String>,
    pub rounds: Vec<Vec<Duration>>,
}

impl Rounds {
    /// The median duration of contender `index`.
    pub fn median(&self, index: usize) -> Duration {
        let mut times: Vec<Duration> = self.rounds.iter().map(|round| round[index]).collect();
        times.sort();
        times.get(times.len() / 2).copied().unwrap_or_default()
    }

    /// The median over rounds of `time(index) / time(base)`.
    pub fn ratio(&self, index: usize, base: usize) -> f64 {
        let mut ratios: Vec<f64> = self
            .rounds
            .iter()
            .map(|round| round[index].as_secs_f64() / round[base].as_secs_f64().max(1e-12))
            .collect();
        ratios.sort_by(f64::total_cmp);
        ratios.get(ratios.len() / 2).copied().unwrap_or(f64::NAN)
    }

    /// The index of the contender named `name`.
    pub fn index(&self, name: &str) -> usize {
        self.names
            .iter()
            .position(|n| n == name)
            .unwrap_or_else(|| panic!("no contender {name} in {}", self.group))
    }
}

/// A xorshift generator for the order of each round: the same orders on every run.
struct Shuffle(u64);

impl Shuffle {
    fn order(&mut self, count: usize) -> Vec<usize> {
        let mut order: Vec<usize> = (0..count).collect();
        for i in (1..count).rev() {
            self.0 ^= self.0 << 13;
            self.0 ^= self.0 >> 7;
            self.0 ^= self.0 << 17;
            let j = usize::try_from(self.0 % (i as u64 + 1)).unwrap_or(0);
            order.swap(i, j);
        }
        order
    }
}

/// Runs `contenders` in interleaved rounds under criterion, as the benchmark
/// `<group>/round`, and returns every round's durations.
pub fn interleaved(
    c: &mut Criterion,
    group: &str,
    contenders: &[Contender<'_>],
    samples: usize,
    measurement: Duration,
) -> Rounds {
    let rounds = RefCell::new(Vec::new());
    let shuffle = RefCell::new(Shuffle(0x9e37_79b9_7f4a_7c15));
    let mut criterion_group = c.benchmark_group(group);
    criterion_group.sample_size(samples.max(10));
    criterion_group.warm_up_time(Duration::from_millis(200));
    criterion_group.measurement_time(measurement);
    criterion_group.bench_function("round", |b| {
        b.iter_custom(|iters| {
            let mut total = Duration::ZERO;
            for _ in 0..iters {
                let mut round = vec![Duration::ZERO; contenders.len()];
                for index in shuffle.borrow_mut().order(contenders.len()) {
                    let start = Instant::now();
                    black_box((contenders[index].run)());
                    round[index] = start.elapsed();
                    total += round[index];
                }
                rounds.borrow_mut().push(round);
            }
            total
        });
    });
    criterion_group.finish();
    Rounds {
        group: group.to_owned(),
        names: contenders.iter().map(|c| c.name.clone()).collect(),
        rounds: rounds.into_inner(),
    }
}

/// A duration the way the tables print it.
pub fn human(duration: Duration) -> String {
    let seconds = duration.as_secs_f64();
    if seconds >= 1.0 {
        format!("{seconds:.2} s")
    } else if seconds >= 1e-3 {
        format!("{:.2} ms", seconds * 1e3)
    } else {
        format!("{:.1} µs", seconds * 1e6)
    }
}

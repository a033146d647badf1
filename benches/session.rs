//! The cost of a turn in a long, tool-heavy agent session: `ChatSession` at turn
//! 100 against the same session at turn 10,000, drop-only and with the default
//! context edits (`with_edits`), and `ChatTrimmer::trim` of the whole history at
//! turn 10,000.
//!
//! Run with `cargo bench --bench session`. The session is simulated
//! (`ctxbudget_tests::agent`): one model call per turn, tool outputs of 200 to 5,000
//! o200k tokens cut from the benchmark corpus (`../shared/corpus/`, or the shipped
//! fixtures when it is not there), a 2,000-token system prompt, a limit of 120,000
//! tokens (a 128k window less 8k for the reply), the default cache-stable policy.
//!
//! A timed turn pushes the turn's messages (each counted once, on arrival) and
//! prepares the prompt. Both sessions run the same next 100 turns, so the
//! counting work is the same and the ratio shows what the history's length adds.
//! Before criterion's own measurements, the contenders are timed interleaved, in a
//! random order each round, and the medians and their ratio are printed.

use std::hint::black_box;
use std::rc::Rc;
use std::time::{Duration, Instant};

use criterion::{BatchSize, Criterion, criterion_group, criterion_main};
use ctxbudget::chat::{ChatMessage, edit::Edits};
use ctxbudget::{ChatTrimmer, Message, Tiktoken, chat::ChatSession};
use ctxbudget_tests::agent::{AgentSession, SplitMix};

const LIMIT: usize = 120_000;
const EARLY: usize = 100;
const LATE: usize = 10_000;
/// Turns per timed run: several cuts happen in that many turns.
const RUN: usize = 100;
const ROUNDS: usize = 15;

type Session<'c> = ChatSession<Rc<Message>, &'c Tiktoken>;
/// With edits on, the session edits its messages in place: it owns them.
type Edited<'c> = ChatSession<Message, &'c Tiktoken>;

/// Runs `turns` through `session`, as an agent would: push, prepare.
fn play<M: ChatMessage + Clone>(
    session: &mut ChatSession<M, &Tiktoken>,
    turns: &[Vec<M>],
) -> usize {
    let mut tokens = 0;
    for turn in turns {
        for message in turn {
            session
                .push(message.clone())
                .expect("outputs fit the limit");
        }
        tokens += session.prepare().expect("no call is pending").tokens();
    }
    tokens
}

/// How long playing `turns` from a copy of `start` takes (the copy is made and
/// dropped outside the timing).
fn time_play<M: ChatMessage + Clone>(
    start: &ChatSession<M, &Tiktoken>,
    turns: &[Vec<M>],
) -> Duration {
    let mut session = start.clone();
    let began = Instant::now();
    black_box(play(&mut session, turns));
    began.elapsed()
}

fn median(mut times: Vec<Duration>) -> Duration {
    times.sort_unstable();
    times[times.len() / 2]
}

/// The sessions at turns `EARLY` and `LATE`, drop-only and with edits.
struct Played<'c> {
    history: Vec<Rc<Message>>,
    early: Session<'c>,
    late: Session<'c>,
    early_edited: Edited<'c>,
    late_edited: Edited<'c>,
}

/// Plays `LATE` turns of `agent` through both sessions.
fn play_session<'c>(counter: &'c Tiktoken, agent: &mut AgentSession) -> Played<'c> {
    let mut session: Session<'_> = ChatSession::new(counter, LIMIT);
    let mut edited: Edited<'_> = ChatSession::new(counter, LIMIT).with_edits(Edits::default());
    let system = Rc::new(agent.system_prompt(2_000));
    session.push(Rc::clone(&system)).expect("fits");
    edited.push((*system).clone()).expect("fits");
    let mut history = vec![system];
    let (mut early, mut early_edited) = (None, None);
    let started = Instant::now();
    let (mut cuts, mut edit_runs) = (0, 0);
    for turn in 1..=LATE {
        let messages: Vec<Rc<Message>> = agent.next_turn().into_iter().map(Rc::new).collect();
        history.extend(messages.iter().cloned());
        for m in messages {
            edited.push((*m).clone()).expect("outputs fit the limit");
            session.push(m).expect("outputs fit the limit");
        }
        cuts += usize::from(session.prepare().expect("no call is pending").cut_moved());
        let prompt = edited.prepare().expect("no call is pending");
        edit_runs += usize::from(prompt.edits().is_some());
        if turn == EARLY {
            early = Some(session.clone());
            early_edited = Some(edited.clone());
        }
    }
    let played = Played {
        history,
        early: early.expect("EARLY < LATE"),
        late: session,
        early_edited: early_edited.expect("EARLY < LATE"),
        late_edited: edited,
    };
    let (early, late) = (&played.early, &played.late);
    eprintln!(
        "{LATE} turns, {} messages, played in {:.1?} ({cuts} cuts); prompt at turn {EARLY}: {} messages, {} tokens; at turn {LATE}: {} messages, {} tokens",
        played.history.len(),
        started.elapsed(),
        early.len(),
        early.tokens(),
        late.len(),
        late.tokens(),
    );
    let (early, late) = (&played.early_edited, &played.late_edited);
    eprintln!(
        "with edits: {edit_runs} prepares edited; prompt at turn {EARLY}: {} messages, {} tokens; at turn {LATE}: {} messages, {} tokens; {:?}",
        early.len(),
        early.tokens(),
        late.len(),
        late.tokens(),
        late.edit_totals(),
    );
    played
}

fn bench(c: &mut Criterion) {
    let counter = Tiktoken::o200k_base();
    let mut agent = AgentSession::new(2_026);
    let Played {
        history,
        early,
        late,
        early_edited,
        late_edited,
    } = play_session(&counter, &mut agent);
    let next: Vec<Vec<Rc<Message>>> = (0..RUN)
        .map(|_| agent.next_turn().into_iter().map(Rc::new).collect())
        .collect();
    let next_owned: Vec<Vec<Message>> = next
        .iter()
        .map(|turn| turn.iter().map(|m| (**m).clone()).collect())
        .collect();
    let mut whole = history.clone();
    whole.extend(next[0].iter().cloned());
    let trimmer = ChatTrimmer::new(&counter, LIMIT);

    // Interleaved, in a random order each round: time per turn.
    let per_turn = |elapsed: Duration| elapsed / u32::try_from(RUN).unwrap_or(1);
    let contenders: [&dyn Fn() -> Duration; 5] = [
        &|| per_turn(time_play(&early, &next)),
        &|| per_turn(time_play(&late, &next)),
        &|| {
            let start = Instant::now();
            black_box(trimmer.trim(&whole).map(|t| t.tokens()).ok());
            start.elapsed()
        },
        &|| per_turn(time_play(&early_edited, &next_owned)),
        &|| per_turn(time_play(&late_edited, &next_owned)),
    ];
    let mut rng = SplitMix::new(1);
    let mut times: [Vec<Duration>; 5] = Default::default();
    for _ in 0..ROUNDS {
        let mut order = [0, 1, 2, 3, 4];
        for i in (1..order.len()).rev() {
            order.swap(i, rng.below(i + 1));
        }
        for contender in order {
            times[contender].push(contenders[contender]());
        }
    }
    let [at_early, at_late, trim_late, edits_early, edits_late] = times.map(median);
    eprintln!(
        "per turn (median of {ROUNDS} interleaved rounds of {RUN} turns): turn {EARLY}: {at_early:.2?}; turn {LATE}: {at_late:.2?} ({:.2}x turn {EARLY}); ChatTrimmer::trim of the whole history ({} messages) at turn {LATE}: {trim_late:.2?} ({:.1}x the session)",
        at_late.as_secs_f64() / at_early.as_secs_f64(),
        whole.len(),
        trim_late.as_secs_f64() / at_late.as_secs_f64(),
    );
    eprintln!(
        "per turn with edits on: turn {EARLY}: {edits_early:.2?}; turn {LATE}: {edits_late:.2?} ({:.2}x turn {EARLY}; target <= 1.5x)",
        edits_late.as_secs_f64() / edits_early.as_secs_f64(),
    );

    let mut group = c.benchmark_group("session_120k");
    group.sample_size(10);
    group.measurement_time(Duration::from_secs(10));
    for (name, start) in [("turn_100", &early), ("turn_10000", &late)] {
        group.bench_function(format!("{RUN}_turns_from_{name}"), |b| {
            b.iter_batched(
                || start.clone(),
                // The session is returned, to be dropped outside the timing.
                |mut s| (play(&mut s, &next), s),
                BatchSize::PerIteration,
            );
        });
    }
    for (name, start) in [("turn_100", &early_edited), ("turn_10000", &late_edited)] {
        group.bench_function(format!("edits_{RUN}_turns_from_{name}"), |b| {
            b.iter_batched(
                || start.clone(),
                |mut s| (play(&mut s, &next_owned), s),
                BatchSize::PerIteration,
            );
        });
    }
    group.bench_function("chat_trimmer_whole_history_turn_10000", |b| {
        b.iter(|| trimmer.trim(black_box(&whole)).map(|t| t.tokens()));
    });
    group.finish();
}

criterion_group!(benches, bench);
criterion_main!(benches);

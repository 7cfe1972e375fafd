//! Property tests of the whole reducer over many random predicates: always interesting, never worse, deterministic, 1-minimal.

use super::oracle::Recording;
use super::passes::one_pass::flagged_list;
use super::*;

/// A pure oracle: the same answer for the same bytes, every time.
type Pure = Box<dyn Fn(&[u8]) -> Verdict>;

/// A named random case: its name, its oracle and an input it accepts.
type Case = (String, Pure, Vec<u8>);

/// A random predicate and an input it accepts.
fn random_case(rng: &mut fastrand::Rng) -> Case {
    let alphabet = Alphabet((0..rng.usize(2..8)).map(|_| rng.u8(..)).collect());
    let len = rng.usize(10..300);
    match rng.u8(..8) {
        7 => hash_case(rng, &alphabet, len),
        6 => ops_case(rng).unwrap_or_else(|| random_case(rng)),
        0 => subsequence_case(rng, &alphabet, len),
        1 => bytes_below_case(rng, &alphabet, len),
        2 => sum_case(rng, &alphabet, len),
        3 => marker_case(rng, &alphabet, len),
        4 => pair_case(rng, &alphabet, len),
        _ => list_case(rng, &alphabet),
    }
}

/// The few byte values a case's noise is made of.
struct Alphabet(Vec<u8>);

impl Alphabet {
    fn noise(&self, rng: &mut fastrand::Rng, len: usize) -> Vec<u8> {
        (0..len).map(|_| self.0[rng.usize(..self.0.len())]).collect()
    }
}

/// Structured like `arbitrary`: operations with lengths read from the back,
/// and a condition on one of the decoded operations (`None`: no operation).
fn ops_case(rng: &mut fastrand::Rng) -> Option<Case> {
    use testkit::{decode_ops, flatten_ops, noisy_ops, Op};
    let input = noisy_ops(rng.u64(..), rng.usize(20..400));
    let (ops, _) = decode_ops(&input);
    let flat = flatten_ops(&ops);
    if flat.is_empty() {
        return None;
    }
    let target = flat[rng.usize(..flat.len())].clone();
    let wanted = move |op: &Op| match (op, &target) {
        (Op::Push(x), Op::Push(t)) => *x >= t / 2,
        (Op::Name(n), Op::Name(t)) => t.chars().next().is_none_or(|c| n.contains(c)),
        (Op::Blob(b), Op::Blob(t)) => b.len() >= t.len() / 2,
        (Op::Pop, Op::Pop) => true,
        (Op::Nested(n), Op::Nested(t)) => n.len() >= t.len().min(2),
        _ => false,
    };
    let oracle = move |s: &[u8]| {
        let (ops, recorded) = decode_ops(s);
        if flatten_ops(&ops).into_iter().any(&wanted) {
            Verdict::Interesting(examples(recorded))
        } else {
            Verdict::Boring
        }
    };
    Some(("ops with a condition on one operation".to_string(), Box::new(oracle), input))
}

/// testkit's recorded examples as ours (testkit cannot name our types).
fn examples(recorded: Vec<testkit::Recorded>) -> Vec<Example> {
    recorded.into_iter().map(|r| Example::new(r.front, r.back, r.label, r.depth)).collect()
}

/// An ordered subsequence.
fn subsequence_case(rng: &mut fastrand::Rng, alphabet: &Alphabet, len: usize) -> Case {
    let pattern: Vec<u8> = (0..rng.usize(1..5)).map(|_| rng.u8(..)).collect();
    let mut input = alphabet.noise(rng, len);
    let mut at = 0;
    for &b in &pattern {
        at = rng.usize(at..=input.len());
        input.insert(at, b);
        at += 1;
    }
    let p = pattern.clone();
    (format!("subsequence {p:?}"), Box::new(move |s: &[u8]| Verdict::from_bool(is_subsequence(&p, s))), input)
}

/// At least k bytes below a threshold.
fn bytes_below_case(rng: &mut fastrand::Rng, alphabet: &Alphabet, len: usize) -> Case {
    let threshold = rng.u8(1..=255);
    let k = rng.usize(1..6);
    let mut input = alphabet.noise(rng, len);
    for _ in 0..k {
        let at = rng.usize(..=input.len());
        input.insert(at, rng.u8(..threshold));
    }
    let pred = move |s: &[u8]| s.iter().filter(|&&b| b < threshold).count() >= k;
    (format!("{k} bytes < {threshold}"), Box::new(move |s: &[u8]| Verdict::from_bool(pred(s))), input)
}

/// A byte sum threshold: lowering and deletion fight.
fn sum_case(rng: &mut fastrand::Rng, alphabet: &Alphabet, len: usize) -> Case {
    let input = alphabet.noise(rng, len);
    let total: u64 = input.iter().map(|&b| u64::from(b)).sum();
    let target = total / rng.u64(2..20);
    let pred = move |s: &[u8]| s.iter().map(|&b| u64::from(b)).sum::<u64>() >= target.max(1);
    (format!("sum >= {target}"), Box::new(move |s: &[u8]| Verdict::from_bool(pred(s))), input)
}

/// Not monotone: a marker byte, and a length condition.
fn marker_case(rng: &mut fastrand::Rng, alphabet: &Alphabet, len: usize) -> Case {
    let marker = rng.u8(..);
    let modulus = rng.usize(2..5);
    let mut input = alphabet.noise(rng, len);
    input.push(marker);
    while input.len() % modulus == 0 {
        input.push(alphabet.0[0]);
    }
    let pred = move |s: &[u8]| s.contains(&marker) && s.len() % modulus != 0;
    (format!("{marker} and len % {modulus} != 0"), Box::new(move |s: &[u8]| Verdict::from_bool(pred(s))), input)
}

/// A position-dependent pair: a[i] + a[i+1] large somewhere.
fn pair_case(rng: &mut fastrand::Rng, alphabet: &Alphabet, len: usize) -> Case {
    let target = rng.u16(2..400);
    let mut input = alphabet.noise(rng, len);
    let at = rng.usize(..input.len());
    input.insert(at, 255);
    input.insert(at, 255);
    let pred = move |s: &[u8]| s.windows(2).any(|w| u16::from(w[0]) + u16::from(w[1]) >= target);
    (format!("pair sum >= {target}"), Box::new(move |s: &[u8]| Verdict::from_bool(pred(s))), input)
}

/// Not decided by any part of the input: a hash of all of it (one input in
/// eight), where an edit that failed may pass once anything else changed.
fn hash_case(rng: &mut fastrand::Rng, alphabet: &Alphabet, len: usize) -> Case {
    let fnv =
        |s: &[u8]| s.iter().fold(0xcbf2_9ce4_8422_2325_u64, |h, &b| (h ^ u64::from(b)).wrapping_mul(0x100_0000_01b3));
    let pred = move |s: &[u8]| fnv(s) >> 61 == 0;
    let mut input = alphabet.noise(rng, len);
    while !pred(&input) {
        input.push(rng.u8(..));
    }
    ("a hash of the whole input".to_string(), Box::new(move |s: &[u8]| Verdict::from_bool(pred(s))), input)
}

/// Structured: a flagged list whose elements must hold enough large values.
fn list_case(rng: &mut fastrand::Rng, alphabet: &Alphabet) -> Case {
    let t = rng.u8(..200);
    let k = rng.usize(1..4);
    let mut input = Vec::new();
    for _ in 0..rng.usize(k..40) {
        input.extend([1 | rng.u8(..) << 1, rng.u8(..)]);
    }
    for _ in 0..k {
        let at = rng.usize(..=input.len() / 2) * 2;
        input.splice(at..at, [1, rng.u8(t..=255)]);
    }
    input.push(0);
    input.extend(alphabet.noise(rng, 10));
    let oracle = move |s: &[u8]| {
        let (elements, examples) = flagged_list(s);
        if elements.iter().filter(|&&e| e >= t).count() >= k {
            Verdict::Interesting(examples)
        } else {
            Verdict::Boring
        }
    };
    (format!("list with {k} elements >= {t}"), Box::new(oracle), input)
}

fn is_subsequence(pattern: &[u8], s: &[u8]) -> bool {
    let mut it = s.iter();
    pattern.iter().all(|p| it.any(|b| b == p))
}

/// Asserts that no single deletion or lowering of `best` is interesting.
fn assert_one_minimal(name: &str, oracle: &Pure, best: &TestCase, exhaustive: bool) {
    let bytes = &best.bytes;
    for i in 0..bytes.len() {
        let deleted = delete_range(bytes, i..i + 1);
        assert!(!oracle(&deleted).is_interesting(), "{name}: deleting byte {i} of {bytes:?} is interesting");
        let lower: Vec<u8> = match (exhaustive, bytes[i]) {
            (_, 0) => vec![],
            (true, b) => (0..b).collect(),
            (false, b) => vec![0, b - 1],
        };
        for v in lower {
            let mut lowered = bytes.clone();
            lowered[i] = v;
            assert!(!oracle(&lowered).is_interesting(), "{name}: byte {i} of {bytes:?} lowered to {v} is interesting");
        }
    }
    for e in &best.examples {
        let deleted = delete_ranges(bytes, &[e.front.clone(), e.back.clone()]);
        if deleted.len() < bytes.len() {
            assert!(!oracle(&deleted).is_interesting(), "{name}: deleting example {e:?} of {bytes:?} is interesting");
        }
    }
}

fn check(seed: u64, options: &ReduceOptions) {
    let mut rng = fastrand::Rng::with_seed(seed);
    let (name, oracle, input) = random_case(&mut rng);
    assert!(oracle(&input).is_interesting(), "{name}: the generated input must be interesting");
    let first = reduce_with(&input, |s: &[u8]| oracle(s), options, &mut Quiet).unwrap();
    let again = reduce_with(&input, |s: &[u8]| oracle(s), options, &mut Quiet).unwrap();
    let best = &first.best;
    assert!(oracle(&best.bytes).is_interesting(), "{name}: the result is not interesting");
    assert!(shortlex(&best.bytes, &input).is_le(), "{name}: the result is worse than the input");
    assert_eq!(best.bytes, again.best.bytes, "{name}: not deterministic");
    assert_eq!(first.stats.tests, again.stats.tests, "{name}: not deterministic");
    assert_eq!(first.stats.stop, Some(StopReason::Done));
    assert_one_minimal(&name, &oracle, best, options.exhaustive_lowering);
}

#[test]
fn random_predicates_reduce_to_interesting_deterministic_one_minimal_results() {
    for seed in 0..300 {
        check(seed, &ReduceOptions::default());
    }
}

#[test]
fn random_order_keeps_every_property_for_a_seed() {
    for seed in 0..150 {
        check(seed, &ReduceOptions { order: Order::Random { seed: seed * 7 + 1 }, ..ReduceOptions::default() });
    }
}

#[test]
fn exhaustive_lowering_leaves_no_smaller_byte_value_interesting() {
    for seed in 0..100 {
        check(seed, &ReduceOptions { exhaustive_lowering: true, ..ReduceOptions::default() });
    }
}

#[test]
fn budgets_stop_with_the_best_so_far() {
    let input: Vec<u8> = (0..=255).collect();
    let oracle = |s: &[u8]| Verdict::from_bool(s.contains(&200));
    let options = ReduceOptions { max_tests: Some(10), ..ReduceOptions::default() };
    let reduction = reduce_with(&input, oracle, &options, &mut Quiet).unwrap();
    assert_eq!(reduction.stats.tests, 10);
    assert_eq!(reduction.stats.stop, Some(StopReason::TestBudget));
    assert!(reduction.best.bytes.contains(&200) && reduction.best.len() < input.len());
}

#[test]
fn a_raised_cancel_flag_stops_before_the_next_test() {
    let cancel = Arc::new(AtomicBool::new(false));
    let flag = cancel.clone();
    let oracle = move |s: &[u8]| {
        flag.store(true, std::sync::atomic::Ordering::Relaxed);
        Verdict::from_bool(s.contains(&7))
    };
    let options = ReduceOptions { cancel: Some(cancel), ..ReduceOptions::default() };
    let reduction = reduce_with(&[1, 7, 9], oracle, &options, &mut Quiet).unwrap();
    assert_eq!(reduction.stats.stop, Some(StopReason::Cancelled));
    assert_eq!(reduction.stats.tests, 1);
}

#[test]
fn a_failing_oracle_stops_with_the_best_so_far() {
    let mut calls = 0;
    let oracle = Fallible(|s: &[u8]| {
        calls += 1;
        if calls > 3 {
            anyhow::bail!("the fork server died");
        }
        Ok(Verdict::from_bool(s.contains(&7)))
    });
    let reduction = reduce_with(&[1, 2, 3, 4, 7, 9], oracle, &ReduceOptions::default(), &mut Quiet).unwrap();
    assert!(matches!(reduction.stats.stop, Some(StopReason::OracleFailed(ref m)) if m.contains("fork server died")));
    assert!(reduction.best.bytes.contains(&7));
}

#[test]
fn an_uninteresting_input_is_an_error() {
    let err = reduce(b"abc", |_: &[u8]| Verdict::Boring).unwrap_err();
    assert!(matches!(err, ReduceError::InitialNotInteresting));
}

#[test]
fn observers_see_every_improvement_in_order() {
    #[derive(Default)]
    struct Record(Vec<Vec<u8>>, u64);
    impl Observer for Record {
        fn progress(&mut self, _: &Progress) {
            self.1 += 1;
        }
        fn improved(&mut self, best: &TestCase) {
            self.0.push(best.bytes.clone());
        }
    }
    let mut record = Record::default();
    let oracle = |s: &[u8]| Verdict::from_bool(s.contains(&b'!'));
    let reduction = reduce_with(b"hello, world!", oracle, &ReduceOptions::default(), &mut record).unwrap();
    assert_eq!(record.0.last(), Some(&reduction.best.bytes));
    assert!(record.0.windows(2).all(|w| better(&w[1], &w[0])));
    assert_eq!(record.0.len() as u64, reduction.stats.successes);
    assert!(record.1 > 0);
    assert_eq!(reduction.best.bytes, b"!");
}

/// An oracle that tests `width` candidates at once: `prefetch` answers them
/// all at once and `test` takes a prefetched verdict when it has one, counting
/// how often it did.
struct Wide<'a> {
    oracle: &'a Pure,
    width: usize,
    ready: std::collections::HashMap<Vec<u8>, Verdict>,
    prefetched: &'a std::cell::Cell<u64>,
    taken: &'a std::cell::Cell<u64>,
}

impl Oracle for Wide<'_> {
    fn test(&mut self, input: &[u8]) -> anyhow::Result<Verdict> {
        if let Some(verdict) = self.ready.remove(input) {
            self.taken.set(self.taken.get() + 1);
            return Ok(verdict);
        }
        Ok((self.oracle)(input))
    }

    fn width(&self) -> usize {
        self.width
    }

    fn prefetch(&mut self, candidates: &[Vec<u8>]) {
        assert!(candidates.len() <= self.width, "at most width candidates at once");
        self.prefetched.set(self.prefetched.get() + candidates.len() as u64);
        self.ready = candidates.iter().map(|c| (c.clone(), (self.oracle)(c))).collect();
    }
}

#[test]
fn testing_ahead_gives_the_serial_result_test_for_test() {
    let (mut prefetched, mut taken) = (0, 0);
    for seed in 0..120 {
        let mut rng = fastrand::Rng::with_seed(seed);
        let (name, oracle, input) = random_case(&mut rng);
        let options = if seed % 2 == 0 {
            ReduceOptions::default()
        } else {
            ReduceOptions { order: Order::Random { seed }, ..ReduceOptions::default() }
        };
        let serial = reduce_with(&input, |s: &[u8]| oracle(s), &options, &mut Quiet).unwrap();
        let (run_ahead, used) = (std::cell::Cell::new(0), std::cell::Cell::new(0));
        let width = 2 + (seed as usize % 3);
        let wide = Wide { oracle: &oracle, width, ready: Default::default(), prefetched: &run_ahead, taken: &used };
        let parallel = reduce_with(&input, wide, &options, &mut Quiet).unwrap();
        assert_eq!(parallel.best.bytes, serial.best.bytes, "{name}: testing ahead changed the result");
        assert_eq!(parallel.stats.tests, serial.stats.tests, "{name}: testing ahead changed the tests");
        assert_eq!(parallel.stats.speculation.run, run_ahead.get(), "{name}");
        // (The oracle may also meet a candidate it ran ahead after the serial
        // run left the prediction: the same bytes proposed again later.)
        assert!(parallel.stats.speculation.used <= used.get(), "{name}: more used than the oracle gave");
        prefetched += run_ahead.get();
        taken += used.get();
    }
    // Most candidates fail, so most of what was run ahead is used.
    assert!(taken * 2 > prefetched, "{taken} of {prefetched} candidates run ahead were used");
}

/// A generator's loop with its count drawn first, of a random shape: the
/// count a range draw read modulo `modulus`; each turn `names` plain draws
/// and a call of `widths` draws (a type). Two loops: parameters, then
/// results; the bug is `wanted` results.
#[derive(Clone, Copy, Debug)]
struct Loops {
    modulus: u8,
    names: usize,
    widths: usize,
    wanted: u8,
}

impl Loops {
    fn turn_len(self) -> usize {
        self.names + self.widths
    }

    /// One loop from `at`: its count, or `None` when the input ends in it.
    fn read(self, input: &[u8], at: &mut usize, examples: &mut Vec<Example>) -> Option<u8> {
        let end = input.len()..input.len();
        let count = *input.get(*at)? % self.modulus;
        examples.push(Example::new(*at..*at + 1, end.clone(), "draw:range", 2));
        *at += 1;
        for _ in 0..count {
            input.get(*at + self.turn_len() - 1)?;
            for i in 0..self.names {
                examples.push(Example::new(*at + i..*at + i + 1, end.clone(), "draw:le:1", 2));
            }
            let call = *at + self.names..*at + self.turn_len();
            examples.push(Example::new(call.clone(), end.clone(), "call:0000000b", 2));
            examples.extend(call.map(|i| Example::new(i..i + 1, end.clone(), "draw:le:1", 3)));
            *at += self.turn_len();
        }
        Some(count)
    }

    /// Both loops, each in a call span of its own: whether the input has
    /// the wanted results, and what its run recorded.
    fn oracle(self, input: &[u8]) -> (bool, Vec<Example>) {
        let (mut at, mut examples) = (0, Vec::new());
        let span = |examples: &mut Vec<Example>, at: &mut usize| {
            let (start, first) = (*at, examples.len());
            examples.push(Example::new(start..start, input.len()..input.len(), "call:0000000a", 1));
            let count = self.read(input, at, examples);
            examples[first].front = start..*at;
            count
        };
        let params = span(&mut examples, &mut at);
        let results = span(&mut examples, &mut at);
        (matches!((params, results), (Some(_), Some(n)) if n == self.wanted), examples)
    }

    /// An input with `params` parameters (its count written `modulus` times
    /// `above` higher) and the wanted results, turns of random bytes.
    fn input(self, rng: &mut fastrand::Rng, params: u8, above: u8) -> Vec<u8> {
        let mut input = vec![params + self.modulus * above];
        input.extend((0..usize::from(params) * self.turn_len()).map(|_| rng.u8(..)));
        input.push(self.wanted);
        input.extend((0..usize::from(self.wanted) * self.turn_len()).map(|_| rng.u8(..)));
        input
    }
}

/// Issue 48, decision 0103: loops of random shapes, counts and encodings
/// (the count's raw byte above the range's size on a third), reduced by the
/// whole reducer: every parameter goes, and what is left is the wanted
/// results' turns at their smallest, on at least 95% of them.
#[test]
fn a_generators_loops_lose_every_turn_the_bug_does_not_need() {
    let (mut held, cases) = (0, 200);
    let mut failed = Vec::new();
    for seed in 0..cases {
        let mut rng = fastrand::Rng::with_seed(seed);
        let modulus = rng.u8(3..9);
        let shape =
            Loops { modulus, names: rng.usize(1..3), widths: rng.usize(1..4), wanted: rng.u8(1..modulus.min(4)) };
        let (params, above) = (rng.u8(1..modulus), u8::from(rng.u8(..3) == 0));
        let input = shape.input(&mut rng, params, above);
        assert!(shape.oracle(&input).0, "{shape:?}: {input:?}");
        let oracle = Recording::new(|s: &[u8]| shape.oracle(s));
        let best = reduce_with(&input, oracle, &ReduceOptions::default(), &mut Quiet).unwrap().best;
        let mut expected = vec![0, shape.wanted];
        expected.resize(2 + usize::from(shape.wanted) * shape.turn_len(), 0);
        if best.bytes == expected {
            held += 1;
        } else {
            failed.push((seed, shape, input, best.bytes));
        }
    }
    // 194 of 200 when written (decision 0103): the rest end with a count
    // whose raw value is above the range's size (43 where 3 reads the
    // same: nothing tries the value modulo a size it does not know), or with
    // one turn the pass was not run on again once its budget was spent.
    eprintln!("{held} of {cases} generated loops reduced to the wanted results alone");
    assert!(held >= 190, "{} of {cases} did not: {failed:?}", failed.len());
}

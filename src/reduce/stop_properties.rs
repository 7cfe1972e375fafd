//! Population test of `lower-with-stop` (decision 0110): generators that read bounds first and then loops bounded by them, each turn behind a flag, as wasm-smith's `arbitrary_loop` does.
//!
//! A program: three bounds (one-byte ranges of 0 to 7, their bounds
//! recorded), then per bound a loop under a call span of its own: while
//! fewer turns than the bound were read, a flag (low bit; false stops the
//! loop), then an item (a range of 0 to 3). Reads past the end read zero.
//! The bug needs some items of one kind in one loop and some of another in
//! a later loop; a person writes each bound as the turns it needs (no flag
//! that says stop is then read) and every other bound as zero.

use super::oracle::Recording;
use super::*;

/// Loops per program.
const LOOPS: usize = 3;

/// A bug: at least `n` items of kind `kind` in loop `at`, for each of two loops.
#[derive(Clone, Copy, Debug)]
struct Need {
    at: usize,
    n: usize,
    kind: u8,
}

/// Whether `loops` (the items each loop read) has every need.
fn holds(needs: &[Need; 2], loops: &[Vec<u8>]) -> bool {
    needs.iter().all(|w| loops[w.at].iter().filter(|&&k| k == w.kind).count() >= w.n)
}

/// Reads `input` as a program: the items of each loop, and the draws and spans it recorded.
fn read(input: &[u8]) -> (Vec<Vec<u8>>, Vec<Example>) {
    let len = input.len();
    let mut at = 0;
    let mut examples = vec![Example::new(0..0, len..len, "call:0000000a", 0)];
    let bounds: Vec<u8> = (0..LOOPS).map(|_| draw(input, &mut at, "draw:range:1:0:7", 1, &mut examples) % 8).collect();
    let mut loops = Vec::new();
    for (k, &bound) in bounds.iter().enumerate() {
        let span = examples.len();
        examples.push(Example::new(at..at, len..len, format!("call:0000000{}", k + 1).as_str(), 1));
        let start = at;
        let mut items = Vec::new();
        for _ in 0..bound {
            if draw(input, &mut at, "draw:le:1", 2, &mut examples) & 1 == 0 {
                break;
            }
            items.push(draw(input, &mut at, "draw:range:1:0:3", 2, &mut examples) % 4);
        }
        examples[span].front = start.min(len)..at.min(len);
        loops.push(items);
    }
    examples[0].front = 0..at.min(len);
    (loops, examples)
}

/// Reads one byte at `at` (zero past the end), recording it as a draw labelled `label`.
fn draw(input: &[u8], at: &mut usize, label: &str, depth: u32, examples: &mut Vec<Example>) -> u8 {
    let len = input.len();
    examples.push(Example::new((*at).min(len)..(*at + 1).min(len), len..len, label, depth));
    *at += 1;
    input.get(*at - 1).copied().unwrap_or(0)
}

/// The input a person writes for `needs`: each needed loop's bound its turns, the others zero.
fn least(needs: &[Need; 2]) -> Vec<u8> {
    let mut out = vec![0; LOOPS];
    for w in needs {
        out[w.at] = w.n as u8;
    }
    for k in 0..LOOPS {
        for w in needs.iter().filter(|w| w.at == k) {
            for _ in 0..w.n {
                out.extend_from_slice(&[1, w.kind]);
            }
        }
    }
    while out.last() == Some(&0) {
        out.pop();
    }
    out
}

/// A fuzzer's input with `needs` met: bounds above the turns, extra items, every value spelled with random high bits.
fn random_input(rng: &mut fastrand::Rng, needs: &[Need; 2]) -> Vec<u8> {
    loop {
        let mut loops: Vec<Vec<u8>> = (0..LOOPS).map(|_| (0..rng.usize(..3)).map(|_| rng.u8(..4)).collect()).collect();
        for w in needs {
            for _ in 0..w.n {
                let at = rng.usize(..=loops[w.at].len());
                loops[w.at].insert(at, w.kind);
            }
        }
        let bounds: Vec<u8> = loops.iter().map(|l| rng.u8(l.len() as u8..=7)).collect();
        let mut out: Vec<u8> = bounds.iter().map(|b| b + 8 * rng.u8(..32)).collect();
        for (items, &bound) in loops.iter().zip(&bounds) {
            for &item in items {
                out.extend_from_slice(&[1 + 2 * rng.u8(..128), item + 4 * rng.u8(..64)]);
            }
            if items.len() < usize::from(bound) {
                out.push(2 * rng.u8(..128));
            }
        }
        if holds(needs, &read(&out).0) {
            return out;
        }
    }
}

#[test]
fn bounds_read_before_their_loops_reduce_to_the_turns_the_bug_needs() {
    let mut rng = fastrand::Rng::with_seed(110);
    let (mut exact, cases) = (0, 200);
    for _ in 0..cases {
        let first = rng.usize(..LOOPS - 1);
        let need = |rng: &mut fastrand::Rng, at| Need { at, n: rng.usize(1..=3), kind: rng.u8(..4) };
        let second = rng.usize(first + 1..LOOPS);
        let needs = [need(&mut rng, first), need(&mut rng, second)];
        let input = random_input(&mut rng, &needs);
        let oracle = Recording::new(|s: &[u8]| {
            let (loops, examples) = read(s);
            (holds(&needs, &loops), examples)
        });
        let result = reduce(&input, oracle).unwrap().best.bytes;
        assert!(holds(&needs, &read(&result).0), "{needs:?} {input:02x?}: {result:02x?}");
        exact += usize::from(result == least(&needs));
    }
    eprintln!("the least program: {exact} of {cases}");
    assert!(exact * 100 >= cases * 95, "{exact} of {cases}");
}

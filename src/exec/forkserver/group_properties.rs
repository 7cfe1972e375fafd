//! Population test of `delete-turns`, `delete-inner-turns` and `delete-realigning` on groups of types as wasm-smith builds them, with the spans the call chains make (`calls.rs`).
//!
//! A program: a limit on types (a range of 0 to 15), then groups while
//! fewer types than the limit were made and a flag reads true; a group's
//! size is a range up to the room left, and each type is a call: where an
//! earlier type can be a supertype, a ratio first (1 of 32 makes a
//! subtype: a choice of supertype, then a flag for final), else a flag for
//! final and a kind (0 to 2). A subtype's first draw (the ratio) is not an
//! earlier type's (the final flag), so one call's span runs over the
//! subtypes after it (decision 0099's rule). Then a body byte. The bug: a
//! type of kind 2 that is not final, and an odd body. A person writes
//! `[1, 1, 1, 0, 2, 1]`: a limit of one, one group of one such type.
//!
//! Least programs of 200 (decisions 0118, 0120): 130 with neither of the
//! last two passes, 166 with `delete-inner-turns`, 200 with
//! `delete-realigning` too (the types before the one the bug needs go),
//! 182 with its deletions but no realignment.

use crate::reduce::Recording;
use crate::reduce::{reduce, Example};

use super::calls::with_spans;

/// What a program built: each type's kind and whether it is final (a subtype: `None`).
type Types = Vec<(Option<u8>, bool)>;

/// The frames of a draw from `site` under `path` (instance and site the same number).
fn chain(path: &[u32], site: u32) -> Vec<(u32, u32)> {
    path.iter().chain([&site]).map(|&f| (f, f)).collect()
}

/// Reads `input` as a program: its types, its body, and the draws (with spans) it recorded.
struct Reader<'a> {
    input: &'a [u8],
    at: usize,
    draws: Vec<Example>,
    chains: Vec<Vec<(u32, u32)>>,
}

impl Reader<'_> {
    /// Reads a byte (zero past the end) from `site` under `path`; a range
    /// of size one reads nothing (as `int_in_range` does).
    fn read(&mut self, label: &str, width: usize, path: &[u32], site: u32) -> u8 {
        let len = self.input.len();
        let span = self.at.min(len)..(self.at + width).min(len);
        self.draws.push(Example::new(span, len..len, label, 0));
        self.chains.push(chain(path, site));
        self.at += width;
        if width == 0 {
            return 0;
        }
        self.input.get(self.at - 1).copied().unwrap_or(0)
    }

    fn range(&mut self, start: u8, delta: u8, path: &[u32], site: u32) -> u8 {
        let width = usize::from(delta > 0);
        start + self.read(&format!("draw:range:1:{start:x}:{delta:x}"), width, path, site) % (delta + 1)
    }

    fn flag(&mut self, path: &[u32], site: u32) -> bool {
        self.read("draw:le:1", 1, path, site) & 1 == 1
    }
}

/// The types and the body of `input`, and its examples as the harness records them.
fn read(input: &[u8]) -> (Types, bool, Vec<Example>) {
    let mut r = Reader { input, at: 0, draws: Vec::new(), chains: Vec::new() };
    let limit = r.range(0, 15, &[1], 10);
    let (mut types, mut supers): (Types, Vec<usize>) = (Vec::new(), Vec::new());
    while types.len() < usize::from(limit) && r.flag(&[1, 2], 11) {
        let size = r.range(0, limit - types.len() as u8, &[1, 2, 3], 12);
        for _ in 0..size {
            let (kind, fin) = sub_type(&mut r, supers.len());
            if !fin {
                supers.push(types.len());
            }
            types.push((kind, fin));
        }
    }
    let body = r.flag(&[1], 18);
    let chains: Vec<&[(u32, u32)]> = r.chains.iter().map(Vec::as_slice).collect();
    (types, body, with_spans(r.draws, &chains))
}

/// One type's draws, all from one call: a subtype (`None`) where there are
/// `supers` to choose from and the ratio reads 1, else a kind.
fn sub_type(r: &mut Reader<'_>, supers: usize) -> (Option<u8>, bool) {
    let path = [1, 2, 3, 4];
    if supers > 0 && r.range(1, 31, &path, 13) == 1 {
        r.range(0, supers as u8 - 1, &path, 14);
        return (None, r.flag(&path, 17));
    }
    let fin = r.flag(&path, 15);
    (Some(r.range(0, 2, &path, 16)), fin)
}

/// Whether a program has the bug: a type of kind 2 not final, and an odd body.
fn holds(types: &Types, body: bool) -> bool {
    body && types.contains(&(Some(2), false))
}

/// `value` of a range of `delta + 1` values spelled in a byte with random high bits.
fn spell(rng: &mut fastrand::Rng, value: usize, delta: usize) -> u8 {
    (value + (delta + 1) * rng.usize(..=(255 - value) / (delta + 1))) as u8
}

/// A fuzzer's input with the bug: a limit of 4 to 15, groups (often as
/// large as the room left, so that no flag follows the last), types of
/// every kind, subtypes two times in three where a supertype exists, every
/// value spelled with random high bits.
fn random_input(rng: &mut fastrand::Rng) -> Vec<u8> {
    loop {
        let limit = rng.usize(4..=15);
        let mut out = vec![spell(rng, limit, 15)];
        let (mut len, mut supers) = (0, 0);
        while len < limit {
            if len > 0 && rng.u8(..4) == 0 {
                out.push(2 * rng.u8(..128));
                break;
            }
            out.push(1 + 2 * rng.u8(..128));
            let room = limit - len;
            let size = if rng.bool() { room } else { rng.usize(..=room) };
            out.push(spell(rng, size, room));
            for _ in 0..size {
                if supers > 0 {
                    let sub = rng.u8(..3) > 0;
                    let ratio = if sub { 0 } else { rng.usize(1..32) };
                    out.push(spell(rng, ratio, 31));
                    if sub {
                        if supers > 1 {
                            let pick = rng.usize(..supers);
                            out.push(spell(rng, pick, supers - 1));
                        }
                        let fin = rng.bool();
                        out.push(u8::from(fin) + 2 * rng.u8(..128));
                        supers += usize::from(!fin);
                        continue;
                    }
                }
                let fin = rng.u8(..3) == 0;
                out.push(u8::from(fin) + 2 * rng.u8(..128));
                let kind = rng.usize(..3);
                out.push(spell(rng, kind, 2));
                supers += usize::from(!fin);
            }
            len += size;
        }
        out.push(1 + 2 * rng.u8(..128));
        let (types, body, _) = read(&out);
        if holds(&types, body) {
            return out;
        }
    }
}

#[test]
fn groups_of_types_reduce_to_the_one_type_the_bug_needs() {
    let mut rng = fastrand::Rng::with_seed(118);
    let (mut exact, cases, mut tests) = (0, 200, 0);
    for _ in 0..cases {
        let input = random_input(&mut rng);
        let oracle = Recording::new(|s: &[u8]| {
            let (types, body, examples) = read(s);
            (holds(&types, body), examples)
        });
        let reduction = reduce(&input, oracle).unwrap();
        tests += reduction.stats.tests;
        let result = reduction.best.bytes;
        let (types, body, _) = read(&result);
        assert!(holds(&types, body), "{input:02x?}: {result:02x?}");
        exact += usize::from(result == [1, 1, 1, 0, 2, 1]);
    }
    eprintln!("the least program: {exact} of {cases}, {tests} tests");
    assert!(exact * 100 >= cases * 95, "{exact} of {cases}");
}

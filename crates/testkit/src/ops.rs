//! Model (a): a list of operations (`Vec<Op>`), with nested lists, strings and byte strings: decoder, encoder, generator.

use crate::cursor::{Cursor, Recorded};
use crate::encode::{encode, Writer};

/// How many `Nested` lists may enclose a `Nested` op that still holds a list;
/// deeper ones decode (and encode) as `Nested(vec![])` without reading, which
/// bounds the recursion on any input.
pub const MAX_NESTING: u32 = 4;

/// One operation of model (a), decoded as `#[derive(Arbitrary)]` would (five
/// variants, so the tag is a `u32` split into five buckets).
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Op {
    /// A number (4 bytes from the front).
    Push(u32),
    /// No payload.
    Pop,
    /// A string: length from the back, bytes from the front.
    Name(String),
    /// A byte string, decoded the way `arbitrary` decodes `&[u8]` (length from
    /// the back, then the bytes) rather than its `Vec<u8>` (a flag byte before
    /// every byte, as [`Record::payload`](crate::Record::payload) is read), so
    /// that blobs have back spans.
    Blob(Vec<u8>),
    /// A list of operations (see [`MAX_NESTING`]).
    Nested(Vec<Op>),
}

/// Every op in `ops` and inside their `Nested` lists, in preorder.
pub fn flatten_ops(ops: &[Op]) -> Vec<&Op> {
    fn walk<'v>(ops: &'v [Op], out: &mut Vec<&'v Op>) {
        for op in ops {
            out.push(op);
            if let Op::Nested(inner) = op {
                walk(inner, out);
            }
        }
    }
    let mut out = Vec::new();
    walk(ops, &mut out);
    out
}

/// Decodes a `Vec<Op>` the way a `fuzz_target!(|ops: Vec<Op>| ..)` receives it.
pub fn decode_ops(data: &[u8]) -> (Vec<Op>, Vec<Recorded>) {
    let mut c = Cursor::new(data);
    let ops = read_ops(&mut c, 0);
    (ops, c.into_examples())
}

fn read_ops(c: &mut Cursor<'_>, level: u32) -> Vec<Op> {
    c.vec(|c| read_op(c, level))
}

fn read_op(c: &mut Cursor<'_>, level: u32) -> Op {
    c.derived(|c| match c.choose_index(5) {
        0 => Op::Push(c.u32()),
        1 => Op::Pop,
        2 => Op::Name(c.string()),
        3 => Op::Blob(c.bytes()),
        _ if level < MAX_NESTING => Op::Nested(read_ops(c, level + 1)),
        _ => Op::Nested(Vec::new()),
    })
}

/// Writes `ops` as an input that [`decode_ops`] decodes back to exactly
/// `ops` (lists nested deeper than [`MAX_NESTING`] allows come back empty),
/// with noise chosen by `seed`.
pub fn encode_ops(ops: &[Op], seed: u64) -> Vec<u8> {
    encode(seed, |w| write_ops(w, ops, 0))
}

fn write_ops(w: &mut Writer, ops: &[Op], level: u32) {
    for op in ops {
        w.bool(true);
        match op {
            Op::Push(x) => {
                w.variant(0, 5);
                w.u32(*x);
            }
            Op::Pop => w.variant(1, 5),
            Op::Name(s) => {
                w.variant(2, 5);
                w.bytes(s.as_bytes());
            }
            Op::Blob(b) => {
                w.variant(3, 5);
                w.bytes(b);
            }
            Op::Nested(inner) => {
                w.variant(4, 5);
                if level < MAX_NESTING {
                    write_ops(w, inner, level + 1);
                }
            }
        }
    }
    w.bool(false);
}

/// A random list of ops whose encoding is about `approx_len` bytes: numbers
/// small and large, names (mostly ASCII, some multi-byte characters), blobs,
/// and nested lists.
pub fn random_ops(seed: u64, approx_len: usize) -> Vec<Op> {
    let mut rng = fastrand::Rng::with_seed(seed);
    let mut budget = approx_len as i64;
    gen_ops(&mut rng, &mut budget, 0)
}

fn gen_ops(rng: &mut fastrand::Rng, budget: &mut i64, level: u32) -> Vec<Op> {
    let mut ops = Vec::new();
    // The top-level list runs until the budget is spent; nested ones are short.
    let count = if level == 0 { usize::MAX } else { rng.usize(0..8) };
    while ops.len() < count && *budget > 0 {
        *budget -= 5; // the flag byte and the tag
        let op = match rng.u32(0..100) {
            0..=34 => {
                *budget -= 4;
                Op::Push(if rng.bool() { rng.u32(0..100) } else { rng.u32(..) })
            }
            35..=54 => Op::Pop,
            55..=74 => {
                let name = random_name(rng, 12);
                *budget -= name.len() as i64 + 2; // two size bytes in inputs over 256 bytes
                Op::Name(name)
            }
            75..=89 => {
                let blob: Vec<u8> = (0..rng.usize(0..24)).map(|_| rng.u8(..)).collect();
                *budget -= blob.len() as i64 + 2;
                Op::Blob(blob)
            }
            _ if level < MAX_NESTING => {
                *budget -= 1; // the flag byte that ends the list
                Op::Nested(gen_ops(rng, budget, level + 1))
            }
            _ => Op::Pop,
        };
        ops.push(op);
    }
    ops
}

/// A random name of up to `max_chars` characters: mostly lowercase ASCII,
/// some underscores and multi-byte characters (also [`Record`](crate::Record)'s names).
pub(crate) fn random_name(rng: &mut fastrand::Rng, max_chars: usize) -> String {
    (0..rng.usize(0..=max_chars))
        .map(|_| match rng.u32(0..100) {
            0..=2 => 'é',
            3..=4 => 'ß',
            5..=9 => '_',
            _ => rng.lowercase(),
        })
        .collect()
}

/// A large noisy `Vec<Op>` input of about `approx_len` bytes.
pub fn noisy_ops(seed: u64, approx_len: usize) -> Vec<u8> {
    encode_ops(&random_ops(seed, approx_len), seed)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::tests::{assert_nested, ex};

    const OP: &str = "testkit::ops::Op";

    #[test]
    fn a_small_op_list_decodes_exactly_with_its_spans() {
        #[rustfmt::skip]
        let data = [
            0x01, 0x00, 0x00, 0x00, 0x80, b'h', b'i', // more, tag 2 (Name), "hi"
            0x01, 0x00, 0x00, 0x00, 0x00, 0x07, 0x00, 0x00, 0x00, // more, tag 0 (Push), 7
            0x00, // no more
            0x02, // the name's length, from the back
        ];
        let (ops, examples) = decode_ops(&data);
        assert_eq!(ops, vec![Op::Name("hi".into()), Op::Push(7)]);
        assert_eq!(examples, vec![ex(1..7, 17..18, OP, 0), ex(8..16, 17..17, OP, 0)]);
    }

    #[test]
    fn nested_ops_lie_inside_their_parent_front_and_back() {
        #[rustfmt::skip]
        let data = [
            0x03, 0xff, 0xff, 0xff, 0xff, // more (odd), tag 4 (Nested)
            0x01, 0x00, 0x00, 0x00, 0x80, b'o', b'k', // inner: more, Name, "ok"
            0x00, 0x02, // inner list ends, outer list ends
            0x07, // the name's length: 7 % 5 bytes left = 2
        ];
        let (ops, examples) = decode_ops(&data);
        assert_eq!(ops, vec![Op::Nested(vec![Op::Name("ok".into())])]);
        assert_eq!(examples, vec![ex(1..13, 14..15, OP, 0), ex(6..12, 14..15, OP, 1)]);
        assert_nested(&examples);
    }

    #[test]
    fn nesting_is_capped() {
        let deep = (0..10).fold(vec![Op::Pop], |inner, _| vec![Op::Nested(inner)]);
        let (ops, examples) = decode_ops(&encode_ops(&deep, 3));
        let capped = (0..MAX_NESTING).fold(vec![Op::Nested(vec![])], |inner, _| vec![Op::Nested(inner)]);
        assert_eq!(ops, capped);
        assert_eq!(examples.len(), MAX_NESTING as usize + 1);
        assert_nested(&examples);
    }

    #[test]
    fn long_strings_and_blobs_use_two_size_bytes() {
        let ops = vec![Op::Name("x".repeat(400)), Op::Blob(vec![1; 300]), Op::Push(1)];
        let bytes = encode_ops(&ops, 7);
        assert_eq!(decode_ops(&bytes).0, ops);
    }
}

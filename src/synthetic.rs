//! Synthetic inputs decoded the way `arbitrary` decodes them, recording examples: oracles for tests and benchmarks.
//!
//! [`Cursor`] is a small, dependency-free imitation of `arbitrary` 1.x's
//! `Unstructured` (checked against `src/unstructured.rs`, `src/foreign/` and
//! `derive/src/lib.rs` of rust-fuzz/arbitrary 1.4): integers are little-endian
//! from the front with missing bytes read as zero, collection and string
//! lengths come from the back, collections read a "one more element" byte
//! before each element. Like the `with_recursive_count` hook our `arbitrary`
//! shim overrides, only derived types (structs and enums, see
//! [`Cursor::derived`]) record [`Example`]s; primitives, `Option`, `Box`,
//! `Vec` and `String` do not.
//!
//! Three ready-made models decode whole inputs ([`decode_ops`],
//! [`decode_tree`], [`decode_record`]); each has an encoder that writes a value
//! back as a noisy but exact input (random odd/even flag bytes, enum tags
//! anywhere in their bucket, wrapped lengths, unread garbage) and a generator
//! of large random values, so tests and benchmarks can build big realistic
//! crash inputs with a bug planted where they want it. [`oracle`] turns a
//! decoder and a predicate into an oracle for the reducer.

use crate::protocol::layout;
use crate::reduce::{Example, Label, Verdict};

/// A decoding cursor over bytes, reading like `arbitrary::Unstructured` and
/// recording an [`Example`] for each derived value.
///
/// The remaining data is `data[front..back]`: ordinary reads advance `front`,
/// lengths taken from the end lower `back`.
#[derive(Debug)]
pub struct Cursor<'a> {
    data: &'a [u8],
    front: usize,
    back: usize,
    depth: u32,
    examples: Vec<Example>,
    /// Labels already allocated, so each example only clones an `Arc`.
    labels: Vec<Label>,
}

impl<'a> Cursor<'a> {
    /// A cursor at the start of `data`, with nothing recorded yet.
    pub fn new(data: &'a [u8]) -> Self {
        Cursor { data, front: 0, back: data.len(), depth: 0, examples: Vec::new(), labels: Vec::new() }
    }

    /// Bytes read from the front so far (absolute offset of the next front read).
    pub fn front(&self) -> usize {
        self.front
    }

    /// Absolute offset one past the last unread byte (the end of the remaining data).
    pub fn back(&self) -> usize {
        self.back
    }

    /// How many bytes are left between the two cursors.
    pub fn remaining(&self) -> usize {
        self.back - self.front
    }

    /// Whether the data is used up.
    pub fn is_empty(&self) -> bool {
        self.remaining() == 0
    }

    /// How many derived values are being built around the current read.
    pub fn depth(&self) -> u32 {
        self.depth
    }

    /// The examples recorded so far, in preorder (parents before children).
    pub fn examples(&self) -> &[Example] {
        &self.examples
    }

    /// The recorded examples, in preorder.
    pub fn into_examples(self) -> Vec<Example> {
        self.examples
    }

    /// Fills `buf` from the front; bytes past the end of the data are zero
    /// (`Unstructured::fill_buffer`).
    pub fn fill(&mut self, buf: &mut [u8]) {
        let n = buf.len().min(self.remaining());
        buf[..n].copy_from_slice(&self.data[self.front..self.front + n]);
        buf[n..].fill(0);
        self.front += n;
    }

    /// One byte from the front (zero when the data is used up).
    pub fn u8(&mut self) -> u8 {
        if self.front < self.back {
            self.front += 1;
            self.data[self.front - 1]
        } else {
            0
        }
    }

    /// A little-endian `u16` from the front.
    pub fn u16(&mut self) -> u16 {
        let mut buf = [0; 2];
        self.fill(&mut buf);
        u16::from_le_bytes(buf)
    }

    /// A little-endian `u32` from the front.
    pub fn u32(&mut self) -> u32 {
        let mut buf = [0; 4];
        self.fill(&mut buf);
        u32::from_le_bytes(buf)
    }

    /// A little-endian `u64` from the front.
    pub fn u64(&mut self) -> u64 {
        let mut buf = [0; 8];
        self.fill(&mut buf);
        u64::from_le_bytes(buf)
    }

    /// A `bool`: one byte from the front, true when odd.
    pub fn bool(&mut self) -> bool {
        self.u8() & 1 == 1
    }

    /// An enum variant in `0..n` the way `#[derive(Arbitrary)]` picks it:
    /// `(u32 as u64 * n) >> 32` (Lemire's multiply-shift). This is the derive's
    /// rule, not `Unstructured::choose_index`, which uses `int_in_range`.
    ///
    /// # Panics
    ///
    /// When `n` is zero.
    pub fn choose_index(&mut self, n: usize) -> usize {
        assert!(n > 0, "choose_index needs at least one choice");
        ((u64::from(self.u32()) * n as u64) >> 32) as usize
    }

    /// A byte count read from the back, as `Unstructured::arbitrary_byte_size`:
    /// nothing left gives 0; one byte left is consumed and gives 0; otherwise
    /// 1, 2, 4 or 8 bytes are taken from the end (remaining up to 256, 65,537,
    /// 2^32 + 3, or more) and read big-endian as an integer in
    /// `0..=remaining_after` (only as many of them as that range needs; the
    /// value wraps modulo the range size).
    pub fn byte_size(&mut self) -> usize {
        let rem = self.remaining();
        if rem <= 1 {
            self.back -= rem;
            return 0;
        }
        let width = layout::len_width(rem);
        let max = (rem - width) as u64;
        let start = self.back - width;
        let value = layout::decode_len(&self.data[start..self.back], max);
        self.back = start;
        value as usize
    }

    /// A byte string as `arbitrary` reads `&[u8]`: a [`byte_size`](Self::byte_size)
    /// from the back, then that many bytes from the front (they always fit).
    pub fn bytes(&mut self) -> Vec<u8> {
        let n = self.byte_size();
        self.front += n;
        self.data[self.front - n..self.front].to_vec()
    }

    /// A `String` as `arbitrary` reads one: a [`byte_size`](Self::byte_size)
    /// from the back, then the longest valid UTF-8 prefix of that many bytes
    /// from the front; bytes after an invalid sequence stay unread.
    pub fn string(&mut self) -> String {
        let n = self.byte_size();
        let bytes = &self.data[self.front..self.front + n];
        let valid = match std::str::from_utf8(bytes) {
            Ok(s) => s,
            Err(e) => std::str::from_utf8(&bytes[..e.valid_up_to()]).unwrap_or_default(),
        };
        self.front += valid.len();
        valid.to_owned()
    }

    /// A collection as `arbitrary` 1.x reads `Vec<T>` (`arbitrary_iter`): before
    /// each element a [`bool`](Self::bool), stopping at the first false one,
    /// which is also what a used-up input reads as.
    pub fn vec<T>(&mut self, mut element: impl FnMut(&mut Self) -> T) -> Vec<T> {
        let mut items = Vec::new();
        while self.bool() {
            items.push(element(self));
        }
        items
    }

    /// An `Option`: a [`bool`](Self::bool), then the value when it is true.
    pub fn option<T>(&mut self, value: impl FnOnce(&mut Self) -> T) -> Option<T> {
        if self.bool() {
            Some(value(self))
        } else {
            None
        }
    }

    /// Builds a value with `f` and records it as an example labelled `label`:
    /// its front span is what the reads advanced over, its back span what they
    /// took from the end. The example is recorded at entry (preorder) and
    /// completed at exit; values built inside `f` are one level deeper.
    pub fn value<T>(&mut self, label: &str, f: impl FnOnce(&mut Self) -> T) -> T {
        let label = self.label(label);
        let (front, back) = (self.front, self.back);
        let slot = self.examples.len();
        self.examples.push(Example::new(front..front, back..back, label, self.depth));
        self.depth += 1;
        let value = f(self);
        self.depth -= 1;
        let example = &mut self.examples[slot];
        example.front = front..self.front;
        example.back = self.back..back;
        value
    }

    /// [`value`](Self::value) labelled with `std::any::type_name::<T>()`, as our
    /// `arbitrary` shim labels what `#[derive(Arbitrary)]` builds.
    pub fn derived<T>(&mut self, f: impl FnOnce(&mut Self) -> T) -> T {
        self.value(std::any::type_name::<T>(), f)
    }

    fn label(&mut self, label: &str) -> Label {
        if let Some(known) = self.labels.iter().find(|known| &***known == label) {
            return known.clone();
        }
        let label: Label = label.into();
        self.labels.push(label.clone());
        label
    }
}

/// Turns a decoder and a predicate on the decoded value into an oracle:
/// interesting, with the decoder's examples, when the predicate holds.
pub fn oracle<V>(decode: fn(&[u8]) -> (V, Vec<Example>), predicate: impl Fn(&V) -> bool) -> impl Fn(&[u8]) -> Verdict {
    move |bytes| {
        let (value, examples) = decode(bytes);
        if predicate(&value) {
            Verdict::Interesting(examples)
        } else {
            Verdict::Boring
        }
    }
}

// ---------------------------------------------------------------------------
// Model (a): a list of operations.

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
    /// every byte, as [`Record::payload`] is read), so that blobs have back spans.
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
pub fn decode_ops(data: &[u8]) -> (Vec<Op>, Vec<Example>) {
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

fn random_name(rng: &mut fastrand::Rng, max_chars: usize) -> String {
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

// ---------------------------------------------------------------------------
// Model (b): a binary tree.

/// How deep a tree can get: nodes at this depth (the root is at depth 1)
/// read no children, which bounds the recursion on any input.
pub const MAX_TREE_DEPTH: u32 = 64;

/// A tree as `Option<Box<Node>>` decodes it: a flag byte, then the node.
pub type Tree = Option<Box<Node>>;

/// A node of model (b), decoded as `#[derive(Arbitrary)]` would (fields in order).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Node {
    /// One byte.
    pub value: u8,
    /// The left subtree.
    pub left: Tree,
    /// The right subtree.
    pub right: Tree,
}

/// The number of nodes on the longest path from the root (0 for an empty tree).
pub fn tree_depth(tree: &Tree) -> usize {
    tree.as_ref().map_or(0, |n| 1 + tree_depth(&n.left).max(tree_depth(&n.right)))
}

/// The number of nodes.
pub fn tree_size(tree: &Tree) -> usize {
    tree.as_ref().map_or(0, |n| 1 + tree_size(&n.left) + tree_size(&n.right))
}

/// Decodes an `Option<Box<Node>>`.
pub fn decode_tree(data: &[u8]) -> (Tree, Vec<Example>) {
    let mut c = Cursor::new(data);
    let tree = read_tree(&mut c, 1);
    (tree, c.into_examples())
}

fn read_tree(c: &mut Cursor<'_>, level: u32) -> Tree {
    c.option(|c| {
        Box::new(c.derived(|c| {
            let value = c.u8();
            if level < MAX_TREE_DEPTH {
                let left = read_tree(c, level + 1);
                let right = read_tree(c, level + 1);
                Node { value, left, right }
            } else {
                Node { value, left: None, right: None }
            }
        }))
    })
}

/// Writes `tree` as an input that [`decode_tree`] decodes back to exactly
/// `tree` (nodes below [`MAX_TREE_DEPTH`] are dropped), with noise chosen by `seed`.
pub fn encode_tree(tree: &Tree, seed: u64) -> Vec<u8> {
    fn write(w: &mut Writer, tree: &Tree, level: u32) {
        w.bool(tree.is_some());
        if let Some(node) = tree {
            w.u8(node.value);
            if level < MAX_TREE_DEPTH {
                write(w, &node.left, level + 1);
                write(w, &node.right, level + 1);
            }
        }
    }
    encode(seed, |w| write(w, tree, 1))
}

/// A random tree whose encoding is about `approx_len` bytes (each node takes
/// three: its value and its children's flags): each left subtree gets a
/// random share of its parent's budget and the right one what is left, so
/// depth grows like a random search tree's.
pub fn random_tree(seed: u64, approx_len: usize) -> Tree {
    /// The subtree and the bytes it used.
    fn gen(rng: &mut fastrand::Rng, budget: usize, level: u32) -> (Tree, usize) {
        // Small subtrees are sometimes cut short, so leaves come at all depths.
        if budget < 3 || level > MAX_TREE_DEPTH || (budget < 30 && rng.u32(0..100) < 10) {
            return (None, 0);
        }
        let rest = budget - 3;
        let share = rng.usize(0..=rest);
        let value = rng.u8(..);
        let (left, used_left) = gen(rng, share, level + 1);
        let (right, used_right) = gen(rng, rest - used_left, level + 1);
        (Some(Box::new(Node { value, left, right })), 3 + used_left + used_right)
    }
    let mut rng = fastrand::Rng::with_seed(seed);
    gen(&mut rng, approx_len.saturating_sub(1), 1).0
}

/// A large noisy `Option<Box<Node>>` input of about `approx_len` bytes.
pub fn noisy_tree(seed: u64, approx_len: usize) -> Vec<u8> {
    encode_tree(&random_tree(seed, approx_len), seed)
}

// ---------------------------------------------------------------------------
// Model (c): a struct of several collections.

/// Model (c), decoded as `#[derive(Arbitrary)]` would (fields in order).
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct Record {
    /// Two bytes each, after a flag byte.
    pub ids: Vec<u16>,
    /// Strings (lengths from the back), after a flag byte each.
    pub names: Vec<String>,
    /// One byte each, after a flag byte.
    pub flags: Vec<bool>,
    /// `arbitrary`'s `Vec<u8>`: a flag byte before every byte.
    pub payload: Vec<u8>,
}

/// Decodes a `Record`.
pub fn decode_record(data: &[u8]) -> (Record, Vec<Example>) {
    let mut c = Cursor::new(data);
    // Struct fields are evaluated in the order written, like the derive's.
    let record = c.derived(|c| Record {
        ids: c.vec(Cursor::u16),
        names: c.vec(Cursor::string),
        flags: c.vec(Cursor::bool),
        payload: c.vec(Cursor::u8),
    });
    (record, c.into_examples())
}

/// Writes `record` as an input that [`decode_record`] decodes back to exactly
/// `record`, with noise chosen by `seed`.
pub fn encode_record(record: &Record, seed: u64) -> Vec<u8> {
    encode(seed, |w| {
        w.list(&record.ids, |w, &id| w.u16(id));
        w.list(&record.names, |w, name| w.bytes(name.as_bytes()));
        w.list(&record.flags, |w, &flag| w.bool(flag));
        w.list(&record.payload, |w, &byte| w.u8(byte));
    })
}

/// A random record whose encoding is about `approx_len` bytes, shared
/// roughly evenly among its four collections.
pub fn random_record(seed: u64, approx_len: usize) -> Record {
    let mut rng = fastrand::Rng::with_seed(seed);
    let share = approx_len / 4;
    let mut count = |per_item: usize| {
        let n = share / per_item;
        rng.usize(n * 3 / 4..=n)
    };
    let (ids, names, flags, payload) = (count(3), count(9), count(2), count(2));
    Record {
        ids: (0..ids).map(|_| rng.u16(..)).collect(),
        names: (0..names).map(|_| random_name(&mut rng, 12)).collect(),
        flags: (0..flags).map(|_| rng.bool()).collect(),
        payload: (0..payload).map(|_| rng.u8(..)).collect(),
    }
}

/// A large noisy `Record` input of about `approx_len` bytes.
pub fn noisy_record(seed: u64, approx_len: usize) -> Vec<u8> {
    encode_record(&random_record(seed, approx_len), seed)
}

// ---------------------------------------------------------------------------
// The encoder.

/// Runs `write` on inputs of growing length until everything fits, so the
/// input ends up barely longer than its contents (a few unread bytes in the
/// middle, as fuzzer inputs usually have). Every length read depends on the
/// bytes remaining at that point, so the layout can only be settled for a
/// fixed total length.
fn encode(seed: u64, write: impl Fn(&mut Writer)) -> Vec<u8> {
    let mut len = 0;
    loop {
        let mut w = Writer::new(len, seed);
        write(&mut w);
        if w.front <= w.back {
            return w.buf;
        }
        len += (w.front - w.back) as usize;
    }
}

/// Writes an input of a fixed length the way [`Cursor`] will read it. Positions
/// may cross (then the length was too small and [`encode`] tries a longer one).
/// Unwritten bytes keep random values.
struct Writer {
    buf: Vec<u8>,
    front: i64,
    back: i64,
    rng: fastrand::Rng,
}

impl Writer {
    fn new(len: usize, seed: u64) -> Self {
        let mut rng = fastrand::Rng::with_seed(seed);
        let mut buf = vec![0; len];
        rng.fill(&mut buf);
        Writer { buf, front: 0, back: len as i64, rng }
    }

    fn put(&mut self, byte: u8) {
        if self.front < self.back {
            self.buf[self.front as usize] = byte;
        }
        self.front += 1;
    }

    fn u8(&mut self, v: u8) {
        self.put(v);
    }

    fn u16(&mut self, v: u16) {
        v.to_le_bytes().into_iter().for_each(|b| self.put(b));
    }

    fn u32(&mut self, v: u32) {
        v.to_le_bytes().into_iter().for_each(|b| self.put(b));
    }

    /// Any odd byte for true, any even one for false.
    fn bool(&mut self, v: bool) {
        let noise = self.rng.u8(..) & !1;
        self.put(noise | u8::from(v));
    }

    /// Any `u32` that [`Cursor::choose_index`] maps to `k` of `n`.
    fn variant(&mut self, k: usize, n: usize) {
        let bucket = |k: u64| (k << 32).div_ceil(n as u64);
        let (lo, hi) = (bucket(k as u64), bucket(k as u64 + 1) - 1);
        let x = self.rng.u64(lo..=hi) as u32;
        self.u32(x);
    }

    /// The bytes from the end that make [`Cursor::byte_size`] return `v`:
    /// `v` plus a random multiple of the range size, big-endian.
    fn size(&mut self, v: usize) {
        let rem = (self.back - self.front).max(0) as usize;
        if rem <= 1 {
            // Reads as 0 and takes the last byte, if any; a non-zero `v` does
            // not fit, and the bytes written next will cross the cursors.
            self.back -= if v > 0 { 1 } else { rem as i64 };
            return;
        }
        let width = layout::len_width(rem);
        let max = (rem - width) as u64;
        let start = self.back - width as i64;
        self.back = start;
        if v as u64 > max {
            return; // does not fit; the bytes written next cross the cursors
        }
        let used = layout::bytes_read(max, width);
        let limit = if used >= 8 { u64::MAX } else { (1 << (8 * used)) - 1 };
        let wraps = self.rng.u64(0..=(limit - v as u64) / (max + 1));
        let x = v as u64 + wraps * (max + 1);
        let start = start as usize;
        self.buf[start..start + used].copy_from_slice(&layout::encode_len(x, used, max));
    }

    fn bytes(&mut self, bytes: &[u8]) {
        self.size(bytes.len());
        bytes.iter().for_each(|&b| self.put(b));
    }

    fn list<T>(&mut self, items: &[T], mut item: impl FnMut(&mut Self, &T)) {
        for it in items {
            self.bool(true);
            item(self, it);
        }
        self.bool(false);
    }
}

#[cfg(test)]
mod tests {
    use std::ops::Range;

    use super::*;

    const OP: &str = "cargo_minimize_crash::synthetic::Op";
    const NODE: &str = "cargo_minimize_crash::synthetic::Node";
    const RECORD: &str = "cargo_minimize_crash::synthetic::Record";

    fn ex(front: Range<usize>, back: Range<usize>, label: &str, depth: u32) -> Example {
        Example::new(front, back, label, depth)
    }

    /// Every example lies inside its parent (the closest earlier example one
    /// level up) and after its previous sibling, with depths stepping by one.
    fn assert_nested(examples: &[Example]) {
        let mut stack: Vec<&Example> = Vec::new();
        let mut last_sibling_end: Vec<usize> = vec![0];
        for e in examples {
            while stack.len() > e.depth as usize {
                stack.pop();
                last_sibling_end.pop();
            }
            assert_eq!(stack.len(), e.depth as usize, "depth jumps at {e:?}");
            if let Some(parent) = stack.last() {
                assert!(parent.front.start <= e.front.start && e.front.end <= parent.front.end, "{e:?} in {parent:?}");
                assert!(parent.back.start <= e.back.start && e.back.end <= parent.back.end, "{e:?} in {parent:?}");
            }
            let previous_end = last_sibling_end.last_mut().unwrap();
            assert!(*previous_end <= e.front.start, "{e:?} overlaps its previous sibling");
            *previous_end = e.front.end;
            stack.push(e);
            last_sibling_end.push(e.front.start);
        }
    }

    #[test]
    fn integers_are_little_endian_and_missing_bytes_read_as_zero() {
        let mut c = Cursor::new(&[0x34, 0x12, 0x01, 0x02, 0x03]);
        assert_eq!(c.u16(), 0x1234);
        assert_eq!(c.u32(), 0x0003_0201);
        assert_eq!(c.u8(), 0);
        assert!(!c.bool());
        assert_eq!((c.front(), c.back()), (5, 5));
    }

    #[test]
    fn choose_index_multiplies_and_shifts_like_the_derive() {
        assert_eq!(Cursor::new(&[0, 0, 0, 0]).choose_index(5), 0);
        assert_eq!(Cursor::new(&[0xff; 4]).choose_index(5), 4);
        assert_eq!(Cursor::new(&[0, 0, 0, 0x80]).choose_index(5), 2);
        assert_eq!(Cursor::new(&[0x66, 0x66, 0x66, 0x66]).choose_index(5), 1);
        assert_eq!(Cursor::new(&[0x67, 0x66, 0x66, 0x66]).choose_index(5), 2);
    }

    #[test]
    fn byte_size_takes_one_byte_from_the_back_up_to_256_remaining() {
        let mut data = vec![0; 256];
        data[255] = 200;
        let mut c = Cursor::new(&data);
        assert_eq!(c.byte_size(), 200);
        assert_eq!(c.back(), 255);
        // The value wraps modulo the number of bytes left after it, plus one.
        let mut c = Cursor::new(&[9, 9, 9, 7]);
        assert_eq!(c.byte_size(), 3);
        let mut c = Cursor::new(&[9]);
        assert_eq!((c.byte_size(), c.remaining()), (0, 0));
        let mut c = Cursor::new(&[]);
        assert_eq!(c.byte_size(), 0);
    }

    #[test]
    fn byte_size_takes_two_bytes_big_endian_above_256_remaining() {
        let mut data = vec![0; 300];
        data[298] = 0x01;
        data[299] = 0x05;
        let mut c = Cursor::new(&data);
        assert_eq!(c.byte_size(), 0x0105);
        assert_eq!(c.back(), 298);
        data[298] = 0xff;
        data[299] = 0xff;
        assert_eq!(Cursor::new(&data).byte_size(), 0xffff % 299);
        // With 257 bytes left the range is 0..=255: only the first size byte is read.
        let mut data = vec![0; 257];
        data[255] = 7;
        data[256] = 0xee;
        let mut c = Cursor::new(&data);
        assert_eq!(c.byte_size(), 7);
        assert_eq!(c.back(), 255);
    }

    #[test]
    fn strings_keep_the_longest_valid_utf8_prefix() {
        let mut c = Cursor::new(&[b'a', 0xff, b'b', 3]);
        assert_eq!(c.string(), "a");
        assert_eq!((c.front(), c.back()), (1, 3));
        assert_eq!(c.u8(), 0xff);
        let mut c = Cursor::new(&[b'a', b'b', b'c', 2]);
        assert_eq!(c.bytes(), b"ab");
    }

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
    fn a_small_tree_decodes_exactly_with_its_spans() {
        let data = [0x01, 5, 0x01, 7, 0x00, 0x00, 0x00];
        let (tree, examples) = decode_tree(&data);
        let leaf = Node { value: 7, left: None, right: None };
        assert_eq!(tree, Some(Box::new(Node { value: 5, left: Some(Box::new(leaf)), right: None })));
        assert_eq!(examples, vec![ex(1..7, 7..7, NODE, 0), ex(3..6, 7..7, NODE, 1)]);
        assert_eq!(tree_depth(&tree), 2);
        assert_eq!(tree_size(&tree), 2);
    }

    #[test]
    fn a_small_record_decodes_exactly_with_its_spans() {
        #[rustfmt::skip]
        let data = [
            0x01, 0x34, 0x12, 0x00, // ids: [0x1234]
            0x01, b'a', b'b', b'c', 0x00, // names: ["abc"]
            0x01, 0x03, 0x01, 0x02, 0x00, // flags: [true, false]
            0x01, 0xaa, 0x00, // payload: [0xaa]
            16, // the name's length: 16 % 13 = 3
        ];
        let (record, examples) = decode_record(&data);
        let expected =
            Record { ids: vec![0x1234], names: vec!["abc".into()], flags: vec![true, false], payload: vec![0xaa] };
        assert_eq!(record, expected);
        assert_eq!(examples, vec![ex(0..17, 17..18, RECORD, 0)]);
    }

    #[test]
    fn encoded_values_decode_back_exactly() {
        for seed in 0..40 {
            for len in [0, 10, 100, 1000] {
                let ops = random_ops(seed, len);
                let (decoded, examples) = decode_ops(&encode_ops(&ops, seed));
                assert_eq!(decoded, ops, "seed {seed}, len {len}");
                assert_nested(&examples);

                let tree = random_tree(seed, len);
                let (decoded, examples) = decode_tree(&encode_tree(&tree, seed));
                assert_eq!(decoded, tree, "seed {seed}, len {len}");
                assert_eq!(examples.len(), tree_size(&tree));
                assert_nested(&examples);

                let record = random_record(seed, len);
                let (decoded, examples) = decode_record(&encode_record(&record, seed));
                assert_eq!(decoded, record, "seed {seed}, len {len}");
                assert_nested(&examples);
            }
        }
    }

    #[test]
    fn long_strings_and_blobs_use_two_size_bytes() {
        let ops = vec![Op::Name("x".repeat(400)), Op::Blob(vec![1; 300]), Op::Push(1)];
        let bytes = encode_ops(&ops, 7);
        assert_eq!(decode_ops(&bytes).0, ops);
    }

    #[test]
    fn noisy_inputs_are_large_and_full_of_values() {
        let ops = noisy_ops(1, 16 * 1024);
        assert!((15 * 1024..18 * 1024).contains(&ops.len()), "{}", ops.len());
        let (decoded, examples) = decode_ops(&ops);
        assert!(flatten_ops(&decoded).len() > 1000);
        assert_eq!(examples.len(), flatten_ops(&decoded).len());

        let tree = noisy_tree(1, 16 * 1024);
        assert!((15 * 1024..18 * 1024).contains(&tree.len()), "{}", tree.len());
        let (decoded, _) = decode_tree(&tree);
        assert!(tree_size(&decoded) > 4000);
        assert!(tree_depth(&decoded) >= 10);

        let record = noisy_record(1, 16 * 1024);
        assert!((12 * 1024..18 * 1024).contains(&record.len()), "{}", record.len());
        let (decoded, _) = decode_record(&record);
        for len in [decoded.ids.len(), decoded.names.len(), decoded.flags.len(), decoded.payload.len()] {
            assert!(len > 200, "{len}");
        }
    }

    #[test]
    fn random_bytes_decode_without_panicking() {
        let mut rng = fastrand::Rng::with_seed(5);
        for len in 0..300 {
            let data: Vec<u8> = (0..len).map(|_| rng.u8(..)).collect();
            assert_nested(&decode_ops(&data).1);
            assert_nested(&decode_tree(&data).1);
            assert_nested(&decode_record(&data).1);
        }
    }

    #[test]
    fn the_oracle_reports_examples_when_the_predicate_holds() {
        let has_pop = oracle(decode_ops, |ops: &Vec<Op>| ops.contains(&Op::Pop));
        let pop = encode_ops(&[Op::Push(3), Op::Pop], 0);
        match has_pop(&pop) {
            Verdict::Interesting(examples) => assert_eq!(examples.len(), 2),
            Verdict::Boring => panic!("a Pop was encoded"),
        }
        assert_eq!(has_pop(&encode_ops(&[Op::Push(3)], 0)), Verdict::Boring);
    }
}

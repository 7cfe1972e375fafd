//! The benchmark's cases: an interesting input and its predicate, structured (decoded by testkit's models) or plain bytes.
//!
//! Every input is built from a fixed seed with the bug planted in the middle
//! of noise, so runs are reproducible; `all` checks that each one is
//! interesting before it is used.

use cargo_minimize_crash::reduce::{Example, Label, Verdict};
use testkit::{Node, Op, Record, Recorded, Tree};

/// Whether a case's predicate looks at decoded values or at raw bytes.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum Kind {
    /// The predicate sees a value decoded by a testkit model; the oracle reports examples.
    Structured,
    /// The predicate sees bytes; no examples.
    Unstructured,
}

impl Kind {
    pub(crate) fn name(self) -> &'static str {
        match self {
            Kind::Structured => "structured",
            Kind::Unstructured => "unstructured",
        }
    }
}

/// A predicate on bytes.
pub(crate) type Predicate = Box<dyn Fn(&[u8]) -> bool>;

/// An oracle that does not need to be mutable.
pub(crate) type VerdictFn = Box<dyn Fn(&[u8]) -> Verdict>;

/// One benchmark case.
pub(crate) struct Case {
    pub name: String,
    pub kind: Kind,
    /// Part of `--quick` (and of a `cargo test` run).
    pub small: bool,
    pub input: Vec<u8>,
    /// The predicate the baselines see.
    pub interesting: Predicate,
    /// The oracle our reducer sees: the same predicate, with examples when structured.
    pub verdict: VerdictFn,
}

fn structured<V: 'static>(
    name: &str,
    input: Vec<u8>,
    decode: fn(&[u8]) -> (V, Vec<Recorded>),
    predicate: fn(&V) -> bool,
) -> Case {
    Case {
        name: format!("{name} ({})", size_name(input.len())),
        kind: Kind::Structured,
        small: input.len() <= 200,
        interesting: Box::new(move |bytes| predicate(&decode(bytes).0)),
        verdict: Box::new(move |bytes| {
            let (value, recorded) = decode(bytes);
            if predicate(&value) {
                Verdict::Interesting(examples(recorded))
            } else {
                Verdict::Boring
            }
        }),
        input,
    }
}

/// testkit's recorded examples as the reducer's (testkit cannot name its
/// types), each label allocated once per input rather than once per example,
/// so the oracle's time measures decoding, not allocation.
fn examples(recorded: Vec<Recorded>) -> Vec<Example> {
    let mut labels: Vec<Label> = Vec::new();
    let mut label = |name: &str| match labels.iter().find(|known| &***known == name) {
        Some(known) => known.clone(),
        None => {
            labels.push(name.into());
            labels[labels.len() - 1].clone()
        }
    };
    recorded.into_iter().map(|r| Example::new(r.front, r.back, label(r.label), r.depth)).collect()
}

fn unstructured(name: &str, input: Vec<u8>, predicate: fn(&[u8]) -> bool) -> Case {
    Case {
        name: format!("{name} ({})", size_name(input.len())),
        kind: Kind::Unstructured,
        small: input.len() <= 200,
        interesting: Box::new(predicate),
        verdict: Box::new(move |bytes| Verdict::from_bool(predicate(bytes))),
        input,
    }
}

fn size_name(len: usize) -> String {
    if len < 1000 {
        format!("{len} B")
    } else {
        format!("{} KiB", (len + 512) / 1024)
    }
}

/// Every case, in table order.
pub(crate) fn all() -> Vec<Case> {
    let cases = vec![
        ops_name_contains_boom(1, 100),
        ops_name_contains_boom(2, 16 * 1024),
        ops_big_push_then_pop(3, 1024),
        ops_big_push_then_pop(4, 16 * 1024),
        ops_boom_two_levels_deep(5, 64 * 1024),
        tree_depth_at_least_5(6, 100),
        tree_depth_at_least_5(7, 4 * 1024),
        tree_aa_with_right_child_55(8, 16 * 1024),
        record_names_and_payload(9, 100),
        record_names_and_payload(10, 16 * 1024),
        record_ids_out_of_order(11, 4 * 1024),
        bytes_contain_boom(12, 100),
        bytes_contain_boom(13, 64 * 1024),
        scattered_markers(14, 1024),
        scattered_markers(15, 16 * 1024),
        many_digits(16, 4 * 1024),
        toy_format(17, 100),
        toy_format(18, 4 * 1024),
        text_lines(19, 16 * 1024),
        xor_and_bug(20, 100),
        xor_and_bug(21, 1024),
        balanced_brackets(22, 1024),
    ];
    for case in &cases {
        assert!((case.interesting)(&case.input), "case {:?}: the initial input is not interesting", case.name);
        assert!((case.verdict)(&case.input).is_interesting(), "case {:?}: oracles disagree", case.name);
    }
    cases
}

// ---------------------------------------------------------------------------
// Structured: Vec<Op>.

/// The ops of a list and of its nested lists, each with its nesting level.
fn ops_with_levels<'v>(ops: &'v [Op], level: u32, out: &mut Vec<(u32, &'v Op)>) {
    for op in ops {
        out.push((level, op));
        if let Op::Nested(inner) = op {
            ops_with_levels(inner, level + 1, out);
        }
    }
}

fn name_contains_boom(op: &Op) -> bool {
    matches!(op, Op::Name(name) if name.contains("boom"))
}

fn any_name_contains_boom(ops: &[Op]) -> bool {
    testkit::flatten_ops(ops).into_iter().any(name_contains_boom)
}

fn ops_name_contains_boom(seed: u64, len: usize) -> Case {
    let mut ops = testkit::random_ops(seed, len - 20);
    ops.insert(ops.len() / 2, Op::Name("kaboomz".into()));
    let input = testkit::encode_ops(&ops, seed);
    structured("ops: a Name contains \"boom\"", input, testkit::decode_ops, |ops| any_name_contains_boom(ops))
}

/// Some list, at any depth, has a `Push(x)` with `x > 1000` directly followed by a `Pop`.
fn big_push_then_pop(ops: &[Op]) -> bool {
    fn check(ops: &[Op]) -> bool {
        ops.windows(2).any(|w| matches!(w, [Op::Push(x), Op::Pop] if *x > 1000))
            || ops.iter().any(|op| matches!(op, Op::Nested(inner) if check(inner)))
    }
    check(ops)
}

fn ops_big_push_then_pop(seed: u64, len: usize) -> Case {
    // Random ops have no such pair, so the planted one is the only one.
    let mut ops = without_push_then_pop(testkit::random_ops(seed, len - 14));
    let at = ops.len() / 2;
    ops.splice(at..at, [Op::Push(77_777), Op::Pop]);
    let input = testkit::encode_ops(&ops, seed);
    structured("ops: Push(x > 1000) then Pop", input, testkit::decode_ops, |ops| big_push_then_pop(ops))
}

/// Turns every `Pop` that follows a `Push` into a `Push(0)`, recursively.
fn without_push_then_pop(mut ops: Vec<Op>) -> Vec<Op> {
    for i in 0..ops.len() {
        if let Op::Nested(inner) = &mut ops[i] {
            *inner = without_push_then_pop(std::mem::take(inner));
        }
        if i > 0 && ops[i] == Op::Pop && matches!(ops[i - 1], Op::Push(_)) {
            ops[i] = Op::Push(0);
        }
    }
    ops
}

/// A Name containing "boom" inside at least two `Nested` lists.
fn boom_two_levels_deep(ops: &[Op]) -> bool {
    let mut all = Vec::new();
    ops_with_levels(ops, 0, &mut all);
    all.into_iter().any(|(level, op)| level >= 2 && name_contains_boom(op))
}

fn ops_boom_two_levels_deep(seed: u64, len: usize) -> Case {
    let mut ops = testkit::random_ops(seed, len - 40);
    // A decoy at the top level, and the real one deeper.
    ops.insert(ops.len() / 3, Op::Name("boom at the top".into()));
    let inner = Op::Nested(vec![Op::Push(5), Op::Nested(vec![Op::Pop, Op::Name("deep boom".into())])]);
    ops.insert(ops.len() * 2 / 3, inner);
    let input = testkit::encode_ops(&ops, seed);
    structured("ops: \"boom\" two levels deep", input, testkit::decode_ops, |ops| boom_two_levels_deep(ops))
}

// ---------------------------------------------------------------------------
// Structured: Option<Box<Node>>.

fn depth_at_least_5(tree: &Tree) -> bool {
    testkit::tree_depth(tree) >= 5
}

fn tree_depth_at_least_5(seed: u64, len: usize) -> Case {
    // Try seeds until the random tree is deep enough (small trees may not be).
    let tree =
        (seed..).map(|s| testkit::random_tree(s, len)).find(depth_at_least_5).expect("some seed gives a deep tree");
    let input = testkit::encode_tree(&tree, seed);
    structured("tree: depth >= 5", input, testkit::decode_tree, depth_at_least_5)
}

/// Some node has value 0xAA and a right child with value 0x55.
fn aa_with_right_child_55(tree: &Tree) -> bool {
    tree.as_ref().is_some_and(|node| {
        (node.value == 0xaa && node.right.as_ref().is_some_and(|r| r.value == 0x55))
            || aa_with_right_child_55(&node.left)
            || aa_with_right_child_55(&node.right)
    })
}

fn tree_aa_with_right_child_55(seed: u64, len: usize) -> Case {
    let mut tree = testkit::random_tree(seed, len);
    clear_aa(&mut tree);
    // Walk a random path some ten levels down and plant the pair there.
    let mut rng = fastrand::Rng::with_seed(seed);
    let mut path = Vec::new();
    let mut at = tree.as_deref().expect("a non-empty tree");
    while path.len() < 10 {
        let left = rng.bool();
        match if left { &at.left } else { &at.right } {
            Some(child) => at = child,
            None => break,
        }
        path.push(left);
    }
    let mut node: &mut Node = tree.as_mut().expect("a non-empty tree");
    for left in path {
        let child = if left { &mut node.left } else { &mut node.right };
        node = child.as_mut().expect("walked before");
    }
    node.value = 0xaa;
    match &mut node.right {
        Some(right) => right.value = 0x55,
        None => node.right = Some(Box::new(Node { value: 0x55, left: None, right: None })),
    }
    let input = testkit::encode_tree(&tree, seed);
    structured("tree: 0xAA with right child 0x55", input, testkit::decode_tree, aa_with_right_child_55)
}

fn clear_aa(tree: &mut Tree) {
    if let Some(node) = tree {
        if node.value == 0xaa {
            node.value = 0xab;
        }
        clear_aa(&mut node.left);
        clear_aa(&mut node.right);
    }
}

// ---------------------------------------------------------------------------
// Structured: Record.

fn names_and_payload(record: &Record) -> bool {
    record.names.len() >= 3 && !record.payload.is_empty()
}

fn record_names_and_payload(seed: u64, len: usize) -> Case {
    let mut record = testkit::random_record(seed, len - 12);
    while record.names.len() < 3 {
        record.names.push("abc".into());
    }
    if record.payload.is_empty() {
        record.payload.push(0x7f);
    }
    let input = testkit::encode_record(&record, seed);
    structured("record: >= 3 names and a payload", input, testkit::decode_record, names_and_payload)
}

fn ids_out_of_order(record: &Record) -> bool {
    record.ids.windows(2).any(|w| w[0] > w[1]) && record.flags.contains(&true)
}

fn record_ids_out_of_order(seed: u64, len: usize) -> Case {
    let input = testkit::encode_record(&testkit::random_record(seed, len), seed);
    structured("record: ids out of order, a true flag", input, testkit::decode_record, ids_out_of_order)
}

// ---------------------------------------------------------------------------
// Unstructured.

fn noise(rng: &mut fastrand::Rng, len: usize, byte: impl Fn(&mut fastrand::Rng) -> u8) -> Vec<u8> {
    (0..len).map(|_| byte(rng)).collect()
}

fn contains(haystack: &[u8], needle: &[u8]) -> bool {
    haystack.windows(needle.len()).any(|w| w == needle)
}

fn contains_boom(bytes: &[u8]) -> bool {
    contains(bytes, b"boom")
}

fn bytes_contain_boom(seed: u64, len: usize) -> Case {
    let mut rng = fastrand::Rng::with_seed(seed);
    let mut input = noise(&mut rng, len - 4, |r| r.u8(..));
    input.splice(len / 2..len / 2, *b"boom");
    unstructured("bytes: contains \"boom\"", input, contains_boom)
}

const MARKERS: &[u8] = b"FUZZ!";

fn has_markers_in_order(bytes: &[u8]) -> bool {
    let mut wanted = MARKERS.iter().peekable();
    for b in bytes {
        if wanted.peek() == Some(&b) {
            wanted.next();
        }
    }
    wanted.peek().is_none()
}

fn scattered_markers(seed: u64, len: usize) -> Case {
    let mut rng = fastrand::Rng::with_seed(seed);
    let mut input = noise(&mut rng, len, |r| loop {
        let b = r.u8(..);
        if !MARKERS.contains(&b) {
            break b;
        }
    });
    let mut positions = rng.choose_multiple(0..len, MARKERS.len());
    positions.sort_unstable();
    for (&at, &marker) in positions.iter().zip(MARKERS) {
        input[at] = marker;
    }
    unstructured("bytes: F..U..Z..Z..! in order", input, has_markers_in_order)
}

fn at_least_40_digits(bytes: &[u8]) -> bool {
    bytes.iter().filter(|b| b.is_ascii_digit()).count() >= 40
}

fn many_digits(seed: u64, len: usize) -> Case {
    let mut rng = fastrand::Rng::with_seed(seed);
    let input = noise(&mut rng, len, |r| if r.u32(0..10) == 0 { r.digit(10) as u8 } else { r.lowercase() as u8 });
    unstructured("bytes: >= 40 ASCII digits", input, at_least_40_digits)
}

/// A toy binary format: `TOY\x01`, then chunks `[tag][len][len bytes]`; it
/// "crashes" on an `X` chunk of at least 4 bytes whose bytes sum to 0x5A.
fn toy_format_crashes(bytes: &[u8]) -> bool {
    let Some(mut rest) = bytes.strip_prefix(b"TOY\x01") else { return false };
    while let [tag, len, tail @ ..] = rest {
        let len = usize::from(*len);
        if tail.len() < len {
            return false; // truncated chunk: rejected
        }
        let (payload, next) = tail.split_at(len);
        if *tag == b'X' && len >= 4 && payload.iter().fold(0u8, |a, &b| a.wrapping_add(b)) == 0x5a {
            return true;
        }
        rest = next;
    }
    false
}

fn toy_format(seed: u64, len: usize) -> Case {
    let mut rng = fastrand::Rng::with_seed(seed);
    let chunk = |rng: &mut fastrand::Rng, out: &mut Vec<u8>| {
        let tag = loop {
            let t = rng.u8(..);
            if t != b'X' {
                break t;
            }
        };
        let n = rng.usize(0..40);
        out.extend([tag, n as u8]);
        out.extend((0..n).map(|_| rng.u8(..)));
    };
    let mut input = b"TOY\x01".to_vec();
    while input.len() < len / 2 - 20 {
        chunk(&mut rng, &mut input);
    }
    let mut payload: Vec<u8> = (0..16).map(|_| rng.u8(..)).collect();
    let sum = payload[..15].iter().fold(0u8, |a, &b| a.wrapping_add(b));
    payload[15] = 0x5a_u8.wrapping_sub(sum);
    input.extend([b'X', 16]);
    input.extend(payload);
    while input.len() < len - 20 {
        chunk(&mut rng, &mut input);
    }
    unstructured("toy format: header, chunks, checksum", input, toy_format_crashes)
}

/// Lines `key=value`; "crashes" when a `mode=debug` line comes before a
/// `size=N` line with N > 9000.
fn debug_then_big_size(bytes: &[u8]) -> bool {
    let mut debug = false;
    for line in bytes.split(|&b| b == b'\n') {
        if line == b"mode=debug" {
            debug = true;
        } else if let Some(value) = line.strip_prefix(b"size=") {
            let size = std::str::from_utf8(value).ok().and_then(|v| v.parse::<u32>().ok());
            if debug && size.is_some_and(|s| s > 9000) {
                return true;
            }
        }
    }
    false
}

fn text_lines(seed: u64, len: usize) -> Case {
    let mut rng = fastrand::Rng::with_seed(seed);
    let mut input = Vec::new();
    let mut planted = 0;
    while input.len() < len {
        let line = if planted == 0 && input.len() > len / 3 {
            planted = 1;
            "mode=debug".to_string()
        } else if planted == 1 && input.len() > len * 2 / 3 {
            planted = 2;
            "size=48213".to_string()
        } else {
            match rng.u32(0..6) {
                0 => format!("mode={}", ["fast", "safe", "verbose"][rng.usize(0..3)]),
                1 => format!("size={}", rng.u32(0..=9000)),
                2 => format!("name={}", (0..rng.usize(1..12)).map(|_| rng.alphanumeric()).collect::<String>()),
                3 => format!("path=/{}", (0..rng.usize(1..20)).map(|_| rng.lowercase()).collect::<String>()),
                4 => format!("level={}", rng.u8(..)),
                _ => "# a comment".to_string(),
            }
        };
        input.extend_from_slice(line.as_bytes());
        input.push(b'\n');
    }
    unstructured("text: mode=debug then size > 9000", input, debug_then_big_size)
}

/// Not monotone: removing bytes changes the XOR, so most removals must come
/// in pairs that cancel.
fn bug_and_xor_42(bytes: &[u8]) -> bool {
    contains(bytes, b"bug") && bytes.iter().fold(0, |a, &b| a ^ b) == 0x42
}

fn xor_and_bug(seed: u64, len: usize) -> Case {
    let mut rng = fastrand::Rng::with_seed(seed);
    let mut input = noise(&mut rng, len - 3, |r| r.u8(..));
    input.splice(len / 2..len / 2, *b"bug");
    let xor = input.iter().fold(0, |a, &b| a ^ b);
    input[0] ^= xor ^ 0x42;
    unstructured("non-monotone: \"bug\" and XOR = 0x42", input, bug_and_xor_42)
}

/// Not monotone: the brackets must stay balanced and nest 4 deep somewhere.
fn balanced_and_4_deep(bytes: &[u8]) -> bool {
    let (mut depth, mut deepest) = (0i64, 0);
    for &b in bytes {
        match b {
            b'(' => depth += 1,
            b')' => depth -= 1,
            _ => {}
        }
        if depth < 0 {
            return false;
        }
        deepest = deepest.max(depth);
    }
    depth == 0 && deepest >= 4
}

fn balanced_brackets(seed: u64, len: usize) -> Case {
    let mut rng = fastrand::Rng::with_seed(seed);
    let mut input = Vec::new();
    let mut depth = 0;
    while input.len() + depth < len {
        // Shallow on the whole (at most 3 deep), with the 4-deep nest planted.
        match rng.u32(0..10) {
            0 if depth < 3 => {
                input.push(b'(');
                depth += 1;
            }
            1 if depth > 0 => {
                input.push(b')');
                depth -= 1;
            }
            _ => input.push(rng.lowercase() as u8),
        }
        if input.len() == len / 2 {
            input.extend_from_slice(b"(a(b(c(d)e)f)g)");
        }
    }
    input.extend(std::iter::repeat(b')').take(depth));
    unstructured("non-monotone: balanced brackets, 4 deep", input, balanced_and_4_deep)
}

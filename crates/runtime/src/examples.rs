//! Example recording: the `arbitrary` stand-in reports where each derived value was read from the input, and the child writes it to shared memory.
//!
//! The stand-in's `details::with_recursive_count` (which every
//! `#[derive(Arbitrary)]` impl calls around its body) calls [`enter`] with the
//! `Unstructured` cursor before building a value and [`exit`] after. A cursor
//! is the pointer to the first unread byte and the number of bytes left, so
//! the end of the unread data is `front + len`: `arbitrary` reads values from
//! the front and lengths from the back. The child knows where its copy of the
//! input lives ([`start`]), so pointers become absolute offsets: the value's
//! front span is `[entry front, exit front)`, its back span `[exit back, entry back)`.
//!
//! Records are written in entry order (preorder: a parent before its
//! children): [`enter`] reserves a record (its front end [`OPEN_END`], so a
//! value still being built when the child crashes can be told apart) and
//! [`exit`] completes it. Labels are interned: each type name, and each
//! range read's bounds ([`draw_range`]), is written to the label table once.
//! Nothing here panics or allocates per example (the label maps grow once
//! per distinct type or bounds); when the record area is full,
//! further examples are counted as dropped.
//!
//! A pointer outside the input means the data is exhausted: `arbitrary` may
//! replace an emptied slice by a static empty one. An owned `Unstructured`
//! (`arbitrary_take_rest`, the top level) has no exit cursor at all: it was
//! consumed. In both cases the value read everything that was left, and the
//! split between its front and back spans is put where the last cursor seen
//! (its last child's exit, else its own entry) had the end of the unread data,
//! so every child's spans stay inside its parent's.

use std::collections::hash_map::DefaultHasher;
use std::collections::HashMap;
use std::hash::BuildHasherDefault;
use std::sync::{Mutex, MutexGuard};

use cmc_protocol::{ExampleRecord, OPEN_END};

use crate::shared::SharedMemory;
use crate::values::ValueKey;

/// The recorder of the running child; `None` outside a forked child (the
/// replay tool, the server itself), where [`enter`] and [`exit`] do nothing.
static RECORDER: Mutex<Option<Recorder>> = Mutex::new(None);

pub(crate) struct Recorder {
    pub(crate) shm: SharedMemory,
    /// The hash of what the reads returned (the value key).
    pub(crate) key: ValueKey,
    /// The input's address and length.
    base: usize,
    len: usize,
    depth: u32,
    /// The end of the unread data at the last cursor seen: where an exhausted
    /// or consumed cursor is taken to be.
    last_back: u32,
    /// Whether call chains are still recorded (the layout has room for
    /// them, and no value was built: only draws alone use them).
    chains: bool,
    /// Fixed hash keys, not `RandomState`'s: each child would draw its own,
    /// and the lookups' instrumented probing (a coverage harness) would give
    /// the same input different features in different children.
    labels: HashMap<&'static str, u32, BuildHasherDefault<DefaultHasher>>,
    /// The label ids of range reads' bounds, likewise.
    ranges: HashMap<cmc_protocol::layout::RangeBounds, u32, BuildHasherDefault<DefaultHasher>>,
}

/// What [`enter`] hands back to [`exit`]: the value's record and its entry cursor.
#[derive(Clone, Copy, Debug)]
pub struct Token {
    /// The reserved record, or `None` when nothing is recorded.
    index: Option<u32>,
    /// Whether the value is counted in the depth (it was read from the input).
    active: bool,
    front: u32,
    back: u32,
    label: u32,
    depth: u32,
}

impl Token {
    const INACTIVE: Token = Token { index: None, active: false, front: 0, back: 0, label: 0, depth: 0 };
}

/// Starts recording for one run of the target on `input` (the child's own copy).
pub(crate) fn start(shm: SharedMemory, input: &[u8]) {
    let len = input.len();
    *lock() = Some(Recorder {
        shm,
        base: input.as_ptr() as usize,
        len,
        depth: 0,
        last_back: u32::try_from(len).unwrap_or(u32::MAX),
        labels: HashMap::default(),
        ranges: HashMap::default(),
        key: ValueKey::new(len),
        chains: true,
    });
}

/// A value of type `label` is about to be built from an `Unstructured` whose
/// unread data starts at `front` and has `remaining` bytes.
///
/// This and the other entry points are `extern "C"`, so they cannot unwind
/// (nothing here panics): the instrumented code that calls them (a coverage
/// build's `arbitrary` copy) makes a plain call, not an `invoke` that would
/// end a basic block and add a counter `cargo fuzz build` does not have.
#[allow(improper_ctypes_definitions)]
pub extern "C" fn enter(front: *const u8, remaining: usize, label: &'static str) -> Token {
    lock().as_mut().map_or(Token::INACTIVE, |recorder| recorder.enter(front, remaining, label))
}

/// A primitive read (a *draw*, always a leaf: it builds no value of its own)
/// took the cursor from (`front`, `remaining`) to (`after_front`,
/// `after_remaining`): [`enter`] and [`exit`] at once. The `arbitrary` copy
/// calls this once, after the read, so its instrumented code around the read
/// is compiled as without it (a call before the read too would change how
/// the read itself is optimized, and with it a coverage build's counters).
#[allow(improper_ctypes_definitions)]
pub extern "C" fn draw(
    front: *const u8,
    remaining: usize,
    after_front: *const u8,
    after_remaining: usize,
    label: &'static str,
) {
    let from = crate::calls::frame_address();
    if let Some(recorder) = lock().as_mut() {
        recorder.draw((front, remaining), (after_front, after_remaining), |r| r.label(label), from);
    }
}

/// An `int_in_range` read ([`draw`]) over the range from `start` to `end`,
/// each the integer's own bytes: labelled with its bounds
/// (`cmc_protocol::layout::RangeBounds`), so the reducer knows the integer
/// it returned and the least bytes that return it; `draw:range` when they
/// cannot be told (the label table full).
#[allow(improper_ctypes_definitions)]
pub extern "C" fn draw_range(
    (front, remaining): (*const u8, usize),
    (after_front, after_remaining): (*const u8, usize),
    start: &[u8],
    end: &[u8],
) {
    let from = crate::calls::frame_address();
    if let Some(recorder) = lock().as_mut() {
        recorder.draw((front, remaining), (after_front, after_remaining), |r| r.range_label(start, end), from);
    }
}

/// A `fill_buffer` of `width` bytes is about to read from the unread `data`
/// (its `Unstructured`'s own slice): it takes `width` bytes, or what is left, from the
/// front ([`draw`], labelled by the width: `draw:le:<width>` for the widths
/// of Rust's integers, else `draw:le`). Called before the read, whose extent
/// is known in advance, so nothing follows the read in the copy's code (a
/// call after it made the zero-filling of a short tail a branch of its own,
/// a counter `cargo fuzz build` does not have); the label is chosen here,
/// uninstrumented. The buffer it fills (the bytes taken, zeros past them)
/// goes into the value key.
#[allow(improper_ctypes_definitions)]
pub extern "C" fn draw_fill(data: &[u8], width: usize) {
    let from = crate::calls::frame_address();
    let label = cmc_protocol::layout::fill_label(width);
    let (front, remaining) = (data.as_ptr(), data.len());
    let taken = width.min(remaining);
    if let Some(recorder) = lock().as_mut() {
        recorder.key.add_filled(&data[..taken], width);
        recorder.draw((front, remaining), (front.wrapping_add(taken), remaining - taken), |r| r.label(label), from);
    }
}

/// The value `token` was entered for is built (or failed). `cursor` is the
/// `Unstructured`'s cursor now (front pointer, bytes left), or `None` when it
/// was consumed (an owned `Unstructured`, `arbitrary_take_rest`): all of it was read.
#[allow(improper_ctypes_definitions)]
pub extern "C" fn exit(token: Token, cursor: Option<(*const u8, usize)>) {
    if token.active {
        if let Some(recorder) = lock().as_mut() {
            recorder.exit(token, cursor);
            // A value built: the client reads call chains only where the
            // examples are draws alone, so the draws after it skip the walk.
            recorder.chains &= token.index.is_none();
        }
    }
}

/// Runs `f` on the running child's recorder; `None` outside a forked child.
pub(crate) fn with_recorder<R>(f: impl FnOnce(&mut Recorder) -> R) -> Option<R> {
    lock().as_mut().map(f)
}

/// The recorder, even if a thread panicked while holding it (nothing here panics).
fn lock() -> MutexGuard<'static, Option<Recorder>> {
    RECORDER.lock().unwrap_or_else(|poisoned| poisoned.into_inner())
}

impl Recorder {
    /// [`draw`] with the recorder held: a leaf, entered and exited at once;
    /// then its call chain above the frame at `from` (the entry point's).
    fn draw(
        &mut self,
        before: (*const u8, usize),
        after: (*const u8, usize),
        label: impl FnOnce(&mut Self) -> u32,
        from: usize,
    ) {
        let token = self.enter_labelled(before.0, before.1, label);
        self.exit(token, Some(after));
        if let Some(index) = token.index.filter(|_| self.chains) {
            let mut frames = [(0, 0); crate::calls::MAX_FRAMES];
            let n = crate::calls::chain(from, &mut frames);
            self.chains = self.shm.with(|shm, layout| layout.push_chain(shm, index, &frames[..n]));
        }
    }

    /// [`enter`] with the recorder held.
    fn enter(&mut self, front: *const u8, remaining: usize, label: &'static str) -> Token {
        self.enter_labelled(front, remaining, |r| r.label(label))
    }

    /// [`Self::enter`] with the label's id given by `label` (asked only for a value read from the input).
    fn enter_labelled(&mut self, front: *const u8, remaining: usize, label: impl FnOnce(&mut Self) -> u32) -> Token {
        let Some((front, back)) = self.offsets(front, remaining) else {
            // Data of its own (an `Unstructured` over another buffer): not the input.
            return Token::INACTIVE;
        };
        self.last_back = back;
        let depth = self.depth;
        self.depth += 1;
        let label = label(self);
        let record = ExampleRecord { front: (front, OPEN_END), back: (back, back), label, depth };
        let index = self.shm.with(|shm, layout| layout.reserve_example(shm, &record));
        Token { index, active: true, front, back, label, depth }
    }

    /// [`exit`] of an active token with the recorder held.
    fn exit(&mut self, token: Token, cursor: Option<(*const u8, usize)>) {
        self.depth = self.depth.saturating_sub(1);
        let (front_end, back_start) = match cursor.and_then(|(p, n)| self.offsets(p, n)) {
            Some((front, back)) if front >= token.front && back <= token.back && front <= back => (front, back),
            // Consumed (or a cursor that makes no sense): all of it was read.
            _ => {
                let at = self.last_back.clamp(token.front, token.back);
                (at, at)
            }
        };
        self.last_back = back_start;
        let Some(index) = token.index else { return };
        let record = ExampleRecord {
            front: (token.front, front_end),
            back: (back_start, token.back),
            label: token.label,
            depth: token.depth,
        };
        self.shm.with(|shm, layout| layout.set_example(shm, index, &record));
    }

    /// A cursor as absolute (front, back) offsets; an empty cursor outside the
    /// input is the exhausted position; `None` for a non-empty one outside it.
    fn offsets(&self, front: *const u8, remaining: usize) -> Option<(u32, u32)> {
        let at = (front as usize).wrapping_sub(self.base);
        let inside = (front as usize) >= self.base && at <= self.len && remaining <= self.len - at;
        if !inside {
            return (remaining == 0).then_some((self.last_back, self.last_back));
        }
        Some((u32::try_from(at).ok()?, u32::try_from(at + remaining).ok()?))
    }

    /// The label's id, written to the table the first time it is seen;
    /// `u32::MAX` when the table is full.
    fn label(&mut self, name: &'static str) -> u32 {
        if let Some(&id) = self.labels.get(name) {
            return id;
        }
        let id = self.shm.with(|shm, layout| layout.push_label(shm, name.as_bytes())).unwrap_or(u32::MAX);
        self.labels.insert(name, id);
        id
    }

    /// The label id of a range read's bounds, written to the table the first
    /// time they are seen; `draw:range`'s when they are not a range's or the
    /// table has no room for them.
    fn range_label(&mut self, start: &[u8], end: &[u8]) -> u32 {
        let Some(bounds) = cmc_protocol::layout::RangeBounds::of(start, end) else { return self.label("draw:range") };
        if let Some(&id) = self.ranges.get(&bounds) {
            return id;
        }
        let name = bounds.label();
        let id = match self.shm.with(|shm, layout| layout.push_label(shm, name.as_bytes())) {
            Some(id) => id,
            None => self.label("draw:range"),
        };
        self.ranges.insert(bounds, id);
        id
    }
}

#[cfg(test)]
mod tests {
    use cmc_protocol::Layout;

    use super::*;

    /// The recorder is one per process: its tests take turns.
    static SERIAL: Mutex<()> = Mutex::new(());

    /// A shared-memory file of `label_capacity` bytes of labels, opened as a child opens it.
    fn shared(name: &str, label_capacity: u32) -> SharedMemory {
        let layout = Layout {
            input_capacity: 64,
            example_capacity: 8,
            label_capacity,
            feature_capacity: 0,
            known_capacity: 0,
            chain_capacity: 0,
        };
        let path = std::env::temp_dir().join(format!("cmc-runtime-{name}-{}", std::process::id()));
        let mut file = vec![0u8; layout.total_len()];
        layout.write_header(&mut file);
        std::fs::write(&path, &file).unwrap();
        let shm = SharedMemory::open(&path).unwrap();
        std::fs::remove_file(&path).unwrap();
        shm
    }

    #[test]
    fn range_reads_are_labelled_with_their_bounds_once_each_and_plainly_when_no_room_is_left() {
        let _serial = SERIAL.lock().unwrap_or_else(|e| e.into_inner());
        let input: Vec<u8> = (0..8).collect();
        let at = |i: usize| (input[i..].as_ptr(), 8 - i);
        let labels = |capacity| {
            start(shared("ranges", capacity), &input);
            draw_range(at(0), at(1), &1u32.to_le_bytes(), &8u32.to_le_bytes());
            draw_range(at(1), at(2), &(-3i8).to_le_bytes(), &5i8.to_le_bytes());
            draw_range(at(2), at(3), &1u32.to_le_bytes(), &8u32.to_le_bytes());
            let result = lock().take().unwrap().shm.with(|shm, layout| layout.read_result(shm)).unwrap();
            (result.labels, result.examples.iter().map(|e| e.label).collect::<Vec<_>>())
        };
        let (names, ids) = labels(256);
        assert_eq!(names, ["draw:range:4:1:7", "draw:range:1:fd:8"]);
        assert_eq!(ids, [0, 1, 0]);
        // Room for one entry of 10 bytes: the plain label, for all three.
        assert_eq!(labels(12), (vec!["draw:range".to_string()], vec![0, 0, 0]));
    }

    #[test]
    fn nested_values_become_preorder_records_with_absolute_spans() {
        let _serial = SERIAL.lock().unwrap_or_else(|e| e.into_inner());
        let shm = shared("examples", 256);
        let input: Vec<u8> = (0..20).collect();
        let at = |i: usize| input[i..].as_ptr();
        start(shm, &input);
        // Scene (owned, take_rest) { title: read 2 from the front, 1 length byte from the back; layer: Layer { .. } }
        let scene = enter(at(0), 20, "Scene");
        let layer = enter(at(3), 16, "Layer");
        let blend = enter(at(4), 15, "Blend");
        exit(blend, Some((at(5), 14)));
        // A draw: a u32's four bytes, recorded as a leaf before it is read.
        draw_fill(&input[5..19], 4);
        // A foreign buffer is not the input: not recorded, depth unchanged.
        let other = [1u8, 2, 3];
        let foreign = enter(other.as_ptr(), 3, "Foreign");
        exit(foreign, Some((other[3..].as_ptr(), 0)));
        exit(layer, Some((at(9), 8)));
        // Exhausted: arbitrary's empty slice points elsewhere.
        let empty = enter(at(9), 8, "Layer");
        draw_fill(&input[9..17], 16); // A short tail: the 8 bytes left.
        exit(empty, Some((b"".as_ptr(), 0)));
        exit(scene, None);

        let result = shm.with(|shm, layout| layout.read_result(shm)).unwrap();
        assert_eq!(result.labels, ["Scene", "Layer", "Blend", "draw:le:4", "draw:le:16"]);
        let spans: Vec<_> = result.examples.iter().map(|e| (e.front, e.back, e.label, e.depth)).collect();
        assert_eq!(
            spans,
            [
                ((0, 17), (17, 20), 0, 0),
                ((3, 9), (17, 19), 1, 1),
                ((4, 5), (19, 19), 2, 2),
                ((5, 9), (19, 19), 3, 2),
                ((9, 17), (17, 17), 1, 1),
                ((9, 17), (17, 17), 4, 2),
            ]
        );
        *lock() = None;
        assert!(!enter(at(0), 20, "Scene").active, "no recorder, no recording");
    }
}

//! The shared-memory layout: a header, the child's result, recorded examples, their labels, coverage features, and the input.
//!
//! Offsets in bytes, all integers little-endian `u32` unless marked `u64`:
//!
//! ```text
//! header   0   magic "cmc-shm\0" (8)   8 version   12 input capacity   16 example capacity
//!          20  label capacity (bytes)  24 input length   28 feature capacity (entries; 0 = no coverage)
//!          32  known-value capacity (entries, a power of two; 0 = none)   36 known values on (0 or 1)
//!          40  call-chain capacity (u32 words; 0 = none)   44..64 reserved
//! result   64  kind   68 line   72 column   76 message length   80 file length   84 flags
//!          88  example count   92 examples dropped   96 label bytes used   100 label count
//!          104 frame count   108 signal   112 feature count   116 counters   120 max stack offset (u64)
//!          128 value key (u64)   136 look-alike key (u64)
//!          144 message (4,096)   4,240 file (1,024)
//!          5,264 crash frames (1,040): image base (u64), image length (u64), 128 addresses (u64)
//! examples 6,304, then example capacity x 24 bytes:
//!          front start, front end, back start, back end, label id, depth
//! labels   then label capacity bytes of entries (u16 length, name bytes); id = entry index
//! features then (rounded up to 8) feature capacity x 4 bytes: the run's features, ascending
//! known    then (rounded up to 8) known-value capacity x 8 bytes: value keys (u64, 0 = empty slot)
//! chains   then call-chain capacity x 4 bytes: words used, then per draw its
//!          example index, its frame count n, and n pairs (instance, site)
//! input    then (rounded up to 8) input capacity bytes
//! ```
//!
//! The client sizes the file with [`Layout::total_len`], writes the header once
//! ([`Layout::write_header`]), and before each test the input
//! ([`Layout::write_input`]) and a cleared result ([`Layout::clear_result`]).
//! The server learns the layout from the header ([`Layout::read_header`]). The
//! child writes its result while the target runs, so whatever it recorded
//! before a crash is still there for the client ([`Layout::read_result`]).
//! Spans are `u32` offsets: inputs are at most 4 GiB.
//!
//! The crash frames are what the child's signal handler saw
//! ([`Layout::write_frames`], no allocation: it runs in the handler): the
//! signal, where the main executable is loaded (PIE), and raw addresses, the
//! interrupted instruction first, then return addresses.
//!
//! The coverage (when the header's feature capacity is not 0) is what a
//! SanitizerCoverage-instrumented target hit in a run that returned: features
//! numbered as libFuzzer numbers them (a counter's index x 8 + its bucket,
//! then one stack-depth feature), how many counters the harness registered (0:
//! not instrumented) and the raw stack depth. The child writes the features in
//! place ([`Layout::features_area`]) and then their summary
//! ([`Layout::write_coverage`]); a list longer than the area is cut (a flag).
//!
//! The value key and the known values are the value cache of typed targets
//! (see [`super::known`]).
//!
//! The call chains (when the header's chain capacity is not 0) say, for each
//! draw, the frames it was drawn under, the outermost first: for each frame
//! a hash of the frame's instance (its address and where it returns to) and
//! one of its call site alone ([`Layout::push_chain`]). The client reads
//! spans of values built by hand from them.
//!
//! Over 600 lines with its unit tests (about 600 of code): the layout's every region and its accessors are one contract between two processes, kept in one file.

use super::{get_u32, need, put_u32, DecodeError, VERSION};

/// The first bytes of the file.
pub const SHM_MAGIC: [u8; 8] = *b"cmc-shm\0";
/// The header's size.
pub const HEADER_LEN: usize = 64;
/// Where the result area starts.
pub const RESULT_OFFSET: usize = HEADER_LEN;
/// The room for a panic message; longer ones are cut.
pub const MESSAGE_CAPACITY: usize = 4096;
/// The room for a panic's file name; longer ones are cut.
pub const FILE_CAPACITY: usize = 1024;
/// The result area's size: fixed fields, then the message, then the file.
pub const RESULT_LEN: usize = RESULT_FIXED + MESSAGE_CAPACITY + FILE_CAPACITY + FRAMES_LEN;
/// The size of one example record.
pub const EXAMPLE_LEN: usize = 24;
/// How many raw frame addresses a crashing child can record.
pub const FRAME_CAPACITY: usize = 128;
/// Set in [`CrashFrames::signal`] when the fault was the stack running out
/// (the faulting address next to the stack pointer): a stack overflow.
pub const STACK_OVERFLOW: u32 = 1 << 16;
/// The crash frames' area: image base, image length, the addresses.
pub const FRAMES_LEN: usize = 16 + 8 * FRAME_CAPACITY;

const RESULT_FIXED: usize = 80;

const H_VERSION: usize = 8;
const H_INPUT_CAPACITY: usize = 12;
const H_EXAMPLE_CAPACITY: usize = 16;
const H_LABEL_CAPACITY: usize = 20;
const H_INPUT_LEN: usize = 24;
const H_FEATURE_CAPACITY: usize = 28;
pub(crate) const H_KNOWN_CAPACITY: usize = 32;
pub(crate) const H_KNOWN_ON: usize = 36;
const H_CHAIN_CAPACITY: usize = 40;

const R_KIND: usize = RESULT_OFFSET;
const R_LINE: usize = RESULT_OFFSET + 4;
const R_COLUMN: usize = RESULT_OFFSET + 8;
const R_MESSAGE_LEN: usize = RESULT_OFFSET + 12;
const R_FILE_LEN: usize = RESULT_OFFSET + 16;
pub(crate) const R_FLAGS: usize = RESULT_OFFSET + 20;
const R_EXAMPLE_COUNT: usize = RESULT_OFFSET + 24;
const R_EXAMPLES_DROPPED: usize = RESULT_OFFSET + 28;
const R_LABEL_BYTES: usize = RESULT_OFFSET + 32;
const R_LABEL_COUNT: usize = RESULT_OFFSET + 36;
const R_FRAME_COUNT: usize = RESULT_OFFSET + 40;
const R_SIGNAL: usize = RESULT_OFFSET + 44;
const R_FEATURE_COUNT: usize = RESULT_OFFSET + 48;
const R_COUNTERS: usize = RESULT_OFFSET + 52;
const R_STACK_OFFSET: usize = RESULT_OFFSET + 56;
pub(crate) const R_VALUE_KEY: usize = RESULT_OFFSET + 64;
pub(crate) const R_ALIKE_KEY: usize = RESULT_OFFSET + 72;
const R_MESSAGE: usize = RESULT_OFFSET + RESULT_FIXED;
const R_FILE: usize = R_MESSAGE + MESSAGE_CAPACITY;
const R_FRAMES: usize = R_FILE + FILE_CAPACITY;

const FLAG_MESSAGE_CUT: u32 = 1;
const FLAG_FILE_CUT: u32 = 2;
/// The features did not all fit the area.
const FLAG_FEATURES_CUT: u32 = 4;
/// The child recorded its coverage (the target returned).
const FLAG_COVERAGE: u32 = 8;
/// The child recorded its value key (a typed target finished decoding its input).
pub(crate) const FLAG_VALUE_KEY: u32 = 16;
/// The child recorded its look-alike key (the `Debug` rendering of the value it decoded).
pub(crate) const FLAG_ALIKE_KEY: u32 = 32;

/// How far the child got.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub enum ResultKind {
    /// The child never reached the target (the client cleared the result and nothing wrote it).
    #[default]
    NotStarted = 0,
    /// The target was called and did not return: it crashed, aborted, exited or was killed.
    Running = 1,
    /// The target returned normally.
    Ok = 2,
    /// The target returned -1 (libfuzzer-sys's `Corpus::Reject`).
    Rejected = 3,
    /// The target panicked; the panic's message and location are recorded.
    Panicked = 4,
    /// The child decoded a value whose key is in the known-values table and
    /// stopped before calling the target: the run is the earlier one's again.
    Known = 5,
}

impl ResultKind {
    fn from_u32(value: u32) -> Result<Self, DecodeError> {
        Ok(match value {
            0 => ResultKind::NotStarted,
            1 => ResultKind::Running,
            2 => ResultKind::Ok,
            3 => ResultKind::Rejected,
            4 => ResultKind::Panicked,
            5 => ResultKind::Known,
            _ => return Err(DecodeError::OutOfRange { what: "result kind", value: value.into(), limit: 5 }),
        })
    }
}

/// The front end of an example whose value was still being built when the
/// child stopped (it crashed inside an `Arbitrary` impl): reserved, never completed.
pub const OPEN_END: u32 = u32::MAX;

/// One recorded example: a value the target read, with its spans of the input.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct ExampleRecord {
    /// Bytes consumed from the start: `(start, end)`, absolute offsets.
    pub front: (u32, u32),
    /// Bytes consumed from the end: `(start, end)`, absolute offsets.
    pub back: (u32, u32),
    /// The label's id in the label table.
    pub label: u32,
    /// Nesting depth; the top-level value has depth 0.
    pub depth: u32,
}

impl ExampleRecord {
    /// The record's bytes.
    pub fn encode(&self) -> [u8; EXAMPLE_LEN] {
        let mut out = [0; EXAMPLE_LEN];
        for (i, value) in
            [self.front.0, self.front.1, self.back.0, self.back.1, self.label, self.depth].into_iter().enumerate()
        {
            put_u32(&mut out, 4 * i, value);
        }
        out
    }

    /// Decodes the first [`EXAMPLE_LEN`] bytes of `bytes`.
    pub fn decode(bytes: &[u8]) -> Result<Self, DecodeError> {
        need(bytes, EXAMPLE_LEN, "example record")?;
        let word = |i: usize| get_u32(bytes, 4 * i);
        Ok(ExampleRecord { front: (word(0), word(1)), back: (word(2), word(3)), label: word(4), depth: word(5) })
    }
}

/// A panic as the child's hook recorded it.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct PanicRecord {
    /// The message (lossy UTF-8; cut at [`MESSAGE_CAPACITY`] bytes).
    pub message: String,
    /// The source file of the panic's location (cut at [`FILE_CAPACITY`] bytes).
    pub file: String,
    /// The line (1-based; 0 when the panic had no location).
    pub line: u32,
    /// The column (1-based; 0 when the panic had no location).
    pub column: u32,
    /// Whether the message or the file was cut.
    pub truncated: bool,
}

/// A crash by signal as the child's handler recorded it: raw addresses, to be
/// symbolized by the client.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct CrashFrames {
    /// The signal, with [`STACK_OVERFLOW`] set when the stack ran out; 0 for
    /// frames the panic hook took (a panic raised in the standard library).
    pub signal: u32,
    /// Where the main executable is loaded (its load bias: 0 unless PIE).
    pub image_base: u64,
    /// How many bytes from the base belong to the executable (its last segment's end).
    pub image_len: u64,
    /// Absolute addresses: the interrupted instruction first, then return addresses.
    pub addresses: Vec<u64>,
}

/// The coverage of one run that returned, as the child recorded it.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct CoverageRecord {
    /// The features hit, ascending (libFuzzer's numbering: counter index x 8
    /// + bucket, then the stack-depth feature past all counters').
    pub features: Vec<u32>,
    /// How many 8-bit counters the harness registered (0: not instrumented).
    pub counters: u32,
    /// How deep the run went below where the target was called, in bytes
    /// (0 without stack-depth instrumentation).
    pub stack_offset: u64,
    /// Whether there were more features than the area holds (the list is a prefix).
    pub cut: bool,
}

/// Everything the child wrote about one run.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct ChildResult {
    /// How far it got.
    pub kind: ResultKind,
    /// The panic, when `kind` is [`ResultKind::Panicked`].
    pub panic: Option<PanicRecord>,
    /// The examples it recorded, in the order it recorded them.
    pub examples: Vec<ExampleRecord>,
    /// How many examples did not fit.
    pub examples_dropped: u32,
    /// The label names; an example's `label` indexes this.
    pub labels: Vec<String>,
    /// The frames the signal handler recorded, when the child crashed by a signal.
    pub frames: Option<CrashFrames>,
    /// The run's coverage, when the layout has room for features and the target returned.
    pub coverage: Option<CoverageRecord>,
    /// The key of the value a typed target decoded, when it finished decoding.
    pub value_key: Option<u64>,
    /// The hash of the decoded value's `Debug` rendering, when the child
    /// looked values up (see [`super::known`]).
    pub alike_key: Option<u64>,
}

/// A draw's call chain: its example index and its frames' (instance, site)
/// hashes, the outermost first.
pub type CallChain = (u32, Vec<(u32, u32)>);

/// The sizes of the variable areas, from which every offset follows.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Layout {
    /// The largest input, in bytes.
    pub input_capacity: u32,
    /// How many example records fit.
    pub example_capacity: u32,
    /// How many bytes the label table has.
    pub label_capacity: u32,
    /// How many coverage features fit (`u32` entries); 0: the child records no coverage.
    pub feature_capacity: u32,
    /// How many known value keys fit (a power of two, or 0: no value cache).
    pub known_capacity: u32,
    /// How many `u32` words the call chains have (0: the child records none).
    pub chain_capacity: u32,
}

impl Layout {
    /// Where the example records start.
    pub fn examples_offset(&self) -> usize {
        RESULT_OFFSET + RESULT_LEN
    }

    /// Where the label table starts.
    pub fn labels_offset(&self) -> usize {
        self.examples_offset() + self.example_capacity as usize * EXAMPLE_LEN
    }

    /// Where the features start (8-aligned).
    pub fn features_offset(&self) -> usize {
        (self.labels_offset() + self.label_capacity as usize).next_multiple_of(8)
    }

    /// Where the known value keys start (8-aligned).
    pub fn known_offset(&self) -> usize {
        (self.features_offset() + 4 * self.feature_capacity as usize).next_multiple_of(8)
    }

    /// Where the call chains start (8-aligned).
    pub fn chains_offset(&self) -> usize {
        self.known_offset() + 8 * self.known_capacity as usize
    }

    /// Where the input starts (8-aligned).
    pub fn input_offset(&self) -> usize {
        (self.chains_offset() + 4 * self.chain_capacity as usize).next_multiple_of(8)
    }

    /// The size the shared-memory file must have.
    pub fn total_len(&self) -> usize {
        self.input_offset() + self.input_capacity as usize
    }

    /// Writes the header: magic, version, capacities, an empty input.
    ///
    /// # Panics
    ///
    /// If `shm` is shorter than [`Layout::total_len`].
    pub fn write_header(&self, shm: &mut [u8]) {
        assert!(shm.len() >= self.total_len(), "shared memory smaller than its layout");
        shm[..HEADER_LEN].fill(0);
        shm[..8].copy_from_slice(&SHM_MAGIC);
        put_u32(shm, H_VERSION, VERSION);
        put_u32(shm, H_INPUT_CAPACITY, self.input_capacity);
        put_u32(shm, H_EXAMPLE_CAPACITY, self.example_capacity);
        put_u32(shm, H_LABEL_CAPACITY, self.label_capacity);
        put_u32(shm, H_FEATURE_CAPACITY, self.feature_capacity);
        put_u32(shm, H_KNOWN_CAPACITY, self.known_capacity);
        put_u32(shm, H_CHAIN_CAPACITY, self.chain_capacity);
        self.clear_result(shm);
    }

    /// Reads the layout from the header, checking the magic, the version and
    /// that `shm` is as large as the layout says.
    pub fn read_header(shm: &[u8]) -> Result<Layout, DecodeError> {
        need(shm, HEADER_LEN, "shared-memory header")?;
        if shm[..8] != SHM_MAGIC {
            return Err(DecodeError::BadMagic { what: "shared-memory file" });
        }
        let version = get_u32(shm, H_VERSION);
        if version != VERSION {
            return Err(DecodeError::UnsupportedVersion { found: version, expected: VERSION });
        }
        let layout = Layout {
            input_capacity: get_u32(shm, H_INPUT_CAPACITY),
            example_capacity: get_u32(shm, H_EXAMPLE_CAPACITY),
            label_capacity: get_u32(shm, H_LABEL_CAPACITY),
            feature_capacity: get_u32(shm, H_FEATURE_CAPACITY),
            known_capacity: get_u32(shm, H_KNOWN_CAPACITY),
            chain_capacity: get_u32(shm, H_CHAIN_CAPACITY),
        };
        if !layout.known_capacity.is_power_of_two() && layout.known_capacity != 0 {
            let value = layout.known_capacity.into();
            return Err(DecodeError::OutOfRange { what: "known-value capacity (a power of two)", value, limit: 0 });
        }
        need(shm, layout.total_len(), "shared-memory file")?;
        Ok(layout)
    }

    /// Puts `input` in place and records its length; fails if it does not fit.
    pub fn write_input(&self, shm: &mut [u8], input: &[u8]) -> Result<(), DecodeError> {
        if input.len() > self.input_capacity as usize {
            let limit = self.input_capacity.into();
            return Err(DecodeError::OutOfRange { what: "input length", value: input.len() as u64, limit });
        }
        let start = self.input_offset();
        shm[start..start + input.len()].copy_from_slice(input);
        put_u32(shm, H_INPUT_LEN, input.len() as u32);
        Ok(())
    }

    /// The input the client wrote.
    pub fn read_input<'a>(&self, shm: &'a [u8]) -> Result<&'a [u8], DecodeError> {
        need(shm, self.total_len(), "shared-memory file")?;
        let len = get_u32(shm, H_INPUT_LEN);
        if len > self.input_capacity {
            return Err(DecodeError::OutOfRange {
                what: "input length",
                value: len.into(),
                limit: self.input_capacity.into(),
            });
        }
        let start = self.input_offset();
        Ok(&shm[start..start + len as usize])
    }

    /// Resets the result to [`ResultKind::NotStarted`] with no panic, examples, labels, frames or coverage.
    pub fn clear_result(&self, shm: &mut [u8]) {
        shm[RESULT_OFFSET..R_MESSAGE].fill(0);
        if self.chain_capacity > 0 {
            put_u32(shm, self.chains_offset(), 0);
        }
    }

    /// Appends the call chain of the draw recorded as example `index`:
    /// `frames` are (instance, site) hashes, the outermost first. `false`
    /// when it does not fit (the child then records no more of them).
    pub fn push_chain(&self, shm: &mut [u8], index: u32, frames: &[(u32, u32)]) -> bool {
        let Some(room) = (self.chain_capacity as usize).checked_sub(1) else { return false };
        let used = get_u32(shm, self.chains_offset()) as usize;
        let words = 2 + 2 * frames.len();
        if used > room || words > room - used {
            return false;
        }
        let mut at = self.chains_offset() + 4 * (1 + used);
        let mut put = |word: u32| {
            put_u32(shm, at, word);
            at += 4;
        };
        put(index);
        put(frames.len() as u32);
        frames.iter().for_each(|&(instance, site)| {
            put(instance);
            put(site);
        });
        put_u32(shm, self.chains_offset(), (used + words) as u32);
        true
    }

    /// The call chains the child recorded: (example index, frames), in
    /// recording order; those that did not fit are missing. Apart from
    /// [`Layout::read_result`]: at hundreds of draws reading them costs
    /// more than the rest of a result, and only draws alone use them.
    pub fn read_chains(&self, shm: &[u8]) -> Result<Vec<CallChain>, DecodeError> {
        let Some(room) = (self.chain_capacity as usize).checked_sub(1) else { return Ok(Vec::new()) };
        let used = (get_u32(shm, self.chains_offset()) as usize).min(room);
        let words: Vec<u32> = (0..used).map(|i| get_u32(shm, self.chains_offset() + 4 * (1 + i))).collect();
        let mut chains = Vec::new();
        let mut rest = &words[..];
        while let [index, n, tail @ ..] = rest {
            let n = *n as usize;
            let Some(pairs) = tail.get(..2 * n) else {
                return Err(DecodeError::Malformed { what: "call chain", detail: format!("{n} frames past the end") });
            };
            chains.push((*index, pairs.chunks_exact(2).map(|p| (p[0], p[1])).collect()));
            rest = &tail[2 * n..];
        }
        Ok(chains)
    }

    /// Records how far the child got.
    pub fn set_kind(&self, shm: &mut [u8], kind: ResultKind) {
        put_u32(shm, R_KIND, kind as u32);
    }

    /// Records a panic (and sets the kind to [`ResultKind::Panicked`]); a long
    /// message or file name is cut to its area.
    pub fn write_panic(&self, shm: &mut [u8], message: &[u8], file: &[u8], line: u32, column: u32) {
        let message_len = message.len().min(MESSAGE_CAPACITY);
        let file_len = file.len().min(FILE_CAPACITY);
        shm[R_MESSAGE..R_MESSAGE + message_len].copy_from_slice(&message[..message_len]);
        shm[R_FILE..R_FILE + file_len].copy_from_slice(&file[..file_len]);
        // Keep the coverage's flags; a panic's own are set afresh.
        let mut flags = get_u32(shm, R_FLAGS) & !(FLAG_MESSAGE_CUT | FLAG_FILE_CUT);
        if message_len < message.len() {
            flags |= FLAG_MESSAGE_CUT;
        }
        if file_len < file.len() {
            flags |= FLAG_FILE_CUT;
        }
        put_u32(shm, R_MESSAGE_LEN, message_len as u32);
        put_u32(shm, R_FILE_LEN, file_len as u32);
        put_u32(shm, R_FLAGS, flags);
        put_u32(shm, R_LINE, line);
        put_u32(shm, R_COLUMN, column);
        self.set_kind(shm, ResultKind::Panicked);
    }

    /// Records a crash by `signal`: the executable's base and length and up to
    /// [`FRAME_CAPACITY`] addresses (the rest are cut). Allocates nothing, so a
    /// signal handler can call it.
    pub fn write_frames(&self, shm: &mut [u8], signal: u32, image_base: u64, image_len: u64, addresses: &[u64]) {
        let count = addresses.len().min(FRAME_CAPACITY);
        shm[R_FRAMES..R_FRAMES + 8].copy_from_slice(&image_base.to_le_bytes());
        shm[R_FRAMES + 8..R_FRAMES + 16].copy_from_slice(&image_len.to_le_bytes());
        for (i, address) in addresses[..count].iter().enumerate() {
            let at = R_FRAMES + 16 + 8 * i;
            shm[at..at + 8].copy_from_slice(&address.to_le_bytes());
        }
        put_u32(shm, R_SIGNAL, signal);
        put_u32(shm, R_FRAME_COUNT, count as u32);
    }

    /// The features area, [`Layout::feature_capacity`] little-endian `u32`
    /// entries (8-aligned in the file), for the child to fill in place before
    /// [`Layout::write_coverage`].
    pub fn features_area<'a>(&self, shm: &'a mut [u8]) -> &'a mut [u8] {
        let start = self.features_offset();
        &mut shm[start..start + 4 * self.feature_capacity as usize]
    }

    /// Records the run's coverage once its first `count` features are in the
    /// area (a larger count is taken as the capacity, and the list as cut):
    /// whether more did not fit, the registered counters, the raw stack depth.
    pub fn write_coverage(&self, shm: &mut [u8], count: u32, cut: bool, counters: u32, stack_offset: u64) {
        let cut = cut || count > self.feature_capacity;
        put_u32(shm, R_FEATURE_COUNT, count.min(self.feature_capacity));
        put_u32(shm, R_COUNTERS, counters);
        shm[R_STACK_OFFSET..R_STACK_OFFSET + 8].copy_from_slice(&stack_offset.to_le_bytes());
        let flags = get_u32(shm, R_FLAGS) & !FLAG_FEATURES_CUT;
        put_u32(shm, R_FLAGS, flags | FLAG_COVERAGE | if cut { FLAG_FEATURES_CUT } else { 0 });
    }

    /// Writes `coverage`'s features into the area (as many as fit; the rest
    /// cut) and records it ([`Layout::write_coverage`]).
    pub fn write_features(&self, shm: &mut [u8], coverage: &CoverageRecord) {
        let area = self.features_area(shm);
        let fit = coverage.features.len().min(self.feature_capacity as usize);
        for (i, &feature) in coverage.features[..fit].iter().enumerate() {
            put_u32(area, 4 * i, feature);
        }
        let cut = coverage.cut || fit < coverage.features.len();
        self.write_coverage(shm, fit as u32, cut, coverage.counters, coverage.stack_offset);
    }

    /// The coverage the child recorded, if it did (count checked against the capacity).
    fn read_coverage(&self, shm: &[u8]) -> Result<Option<CoverageRecord>, DecodeError> {
        let flags = get_u32(shm, R_FLAGS);
        if flags & FLAG_COVERAGE == 0 {
            return Ok(None);
        }
        let count = get_u32(shm, R_FEATURE_COUNT);
        if count > self.feature_capacity {
            let limit = self.feature_capacity.into();
            return Err(DecodeError::OutOfRange { what: "feature count", value: count.into(), limit });
        }
        let start = self.features_offset();
        let area = &shm[start..start + 4 * count as usize];
        let mut stack_offset = [0; 8];
        stack_offset.copy_from_slice(&shm[R_STACK_OFFSET..R_STACK_OFFSET + 8]);
        Ok(Some(CoverageRecord {
            features: area.chunks_exact(4).map(|entry| get_u32(entry, 0)).collect(),
            counters: get_u32(shm, R_COUNTERS),
            stack_offset: u64::from_le_bytes(stack_offset),
            cut: flags & FLAG_FEATURES_CUT != 0,
        }))
    }

    /// The kind recorded so far (`NotStarted` when it is not a known kind).
    pub fn kind(&self, shm: &[u8]) -> ResultKind {
        ResultKind::from_u32(get_u32(shm, R_KIND)).unwrap_or_default()
    }

    /// Appends an example; when the area is full it is counted as dropped and `false` is returned.
    pub fn push_example(&self, shm: &mut [u8], example: &ExampleRecord) -> bool {
        let count = get_u32(shm, R_EXAMPLE_COUNT);
        if count >= self.example_capacity {
            put_u32(shm, R_EXAMPLES_DROPPED, get_u32(shm, R_EXAMPLES_DROPPED).saturating_add(1));
            return false;
        }
        let at = self.examples_offset() + count as usize * EXAMPLE_LEN;
        shm[at..at + EXAMPLE_LEN].copy_from_slice(&example.encode());
        put_u32(shm, R_EXAMPLE_COUNT, count + 1);
        true
    }

    /// Reserves the next example record and writes `example` into it (to be
    /// completed later with [`Layout::set_example`], so records stay in the
    /// order their values were entered: parents before children); its index,
    /// or `None` (counted as dropped) when the area is full.
    pub fn reserve_example(&self, shm: &mut [u8], example: &ExampleRecord) -> Option<u32> {
        let count = get_u32(shm, R_EXAMPLE_COUNT);
        if self.push_example(shm, example) {
            Some(count)
        } else {
            None
        }
    }

    /// Overwrites the example record at `index`, one that
    /// [`Layout::reserve_example`] returned; an index past the count is ignored.
    pub fn set_example(&self, shm: &mut [u8], index: u32, example: &ExampleRecord) {
        if index >= get_u32(shm, R_EXAMPLE_COUNT).min(self.example_capacity) {
            return;
        }
        let at = self.examples_offset() + index as usize * EXAMPLE_LEN;
        shm[at..at + EXAMPLE_LEN].copy_from_slice(&example.encode());
    }

    /// Appends a label name (at most `u16::MAX` bytes) and returns its id, or
    /// `None` when the table is full or the name too long.
    pub fn push_label(&self, shm: &mut [u8], name: &[u8]) -> Option<u32> {
        let used = get_u32(shm, R_LABEL_BYTES) as usize;
        let len = u16::try_from(name.len()).ok()?;
        if used + 2 + name.len() > self.label_capacity as usize {
            return None;
        }
        let at = self.labels_offset() + used;
        shm[at..at + 2].copy_from_slice(&len.to_le_bytes());
        shm[at + 2..at + 2 + name.len()].copy_from_slice(name);
        let id = get_u32(shm, R_LABEL_COUNT);
        put_u32(shm, R_LABEL_BYTES, (used + 2 + name.len()) as u32);
        put_u32(shm, R_LABEL_COUNT, id + 1);
        Some(id)
    }

    /// Reads everything the child wrote but the call chains
    /// ([`Layout::read_chains`]), checking every length against the layout.
    pub fn read_result(&self, shm: &[u8]) -> Result<ChildResult, DecodeError> {
        need(shm, self.total_len(), "shared-memory file")?;
        let bounded = |at: usize, what: &'static str, limit: usize| {
            let value = get_u32(shm, at);
            if value as usize > limit {
                return Err(DecodeError::OutOfRange { what, value: value.into(), limit: limit as u64 });
            }
            Ok(value as usize)
        };
        let kind = ResultKind::from_u32(get_u32(shm, R_KIND))?;
        let panic = if kind == ResultKind::Panicked {
            let message_len = bounded(R_MESSAGE_LEN, "panic message length", MESSAGE_CAPACITY)?;
            let file_len = bounded(R_FILE_LEN, "panic file length", FILE_CAPACITY)?;
            Some(PanicRecord {
                message: String::from_utf8_lossy(&shm[R_MESSAGE..R_MESSAGE + message_len]).into_owned(),
                file: String::from_utf8_lossy(&shm[R_FILE..R_FILE + file_len]).into_owned(),
                line: get_u32(shm, R_LINE),
                column: get_u32(shm, R_COLUMN),
                truncated: get_u32(shm, R_FLAGS) & (FLAG_MESSAGE_CUT | FLAG_FILE_CUT) != 0,
            })
        } else {
            None
        };
        let count = bounded(R_EXAMPLE_COUNT, "example count", self.example_capacity as usize)?;
        let examples_area = &shm[self.examples_offset()..self.examples_offset() + count * EXAMPLE_LEN];
        let examples = examples_area.chunks_exact(EXAMPLE_LEN).map(ExampleRecord::decode).collect::<Result<_, _>>()?;
        let label_bytes = bounded(R_LABEL_BYTES, "label table length", self.label_capacity as usize)?;
        let mut table = &shm[self.labels_offset()..self.labels_offset() + label_bytes];
        let mut labels = Vec::new();
        while !table.is_empty() {
            need(table, 2, "label entry")?;
            let len = usize::from(u16::from_le_bytes([table[0], table[1]]));
            need(table, 2 + len, "label entry")?;
            labels.push(String::from_utf8_lossy(&table[2..2 + len]).into_owned());
            table = &table[2 + len..];
        }
        let label_count = get_u32(shm, R_LABEL_COUNT) as usize;
        if label_count != labels.len() {
            return Err(DecodeError::Malformed {
                what: "label table",
                detail: format!("{} entries, the count says {label_count}", labels.len()),
            });
        }
        let frame_count = bounded(R_FRAME_COUNT, "frame count", FRAME_CAPACITY)?;
        let get_u64 = |at: usize| {
            let mut word = [0; 8];
            word.copy_from_slice(&shm[at..at + 8]);
            u64::from_le_bytes(word)
        };
        let frames = (frame_count > 0).then(|| CrashFrames {
            signal: get_u32(shm, R_SIGNAL),
            image_base: get_u64(R_FRAMES),
            image_len: get_u64(R_FRAMES + 8),
            addresses: (0..frame_count).map(|i| get_u64(R_FRAMES + 16 + 8 * i)).collect(),
        });
        let examples_dropped = get_u32(shm, R_EXAMPLES_DROPPED);
        let coverage = self.read_coverage(shm)?;
        let flags = get_u32(shm, R_FLAGS);
        let value_key = (flags & FLAG_VALUE_KEY != 0).then(|| get_u64(R_VALUE_KEY));
        let alike_key = (flags & FLAG_ALIKE_KEY != 0).then(|| get_u64(R_ALIKE_KEY));
        Ok(ChildResult { kind, panic, examples, examples_dropped, labels, frames, coverage, value_key, alike_key })
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    const SMALL: Layout = Layout {
        input_capacity: 100,
        example_capacity: 2,
        label_capacity: 16,
        feature_capacity: 3,
        known_capacity: 4,
        chain_capacity: 0,
    };

    fn shm(layout: &Layout) -> Vec<u8> {
        let mut shm = vec![0xAA; layout.total_len()];
        layout.write_header(&mut shm);
        shm
    }

    #[test]
    fn the_layout_is_the_documented_one() {
        assert_eq!(RESULT_LEN, 6240);
        assert_eq!(R_VALUE_KEY, 128);
        assert_eq!(R_FRAMES, 5264);
        assert_eq!(SMALL.examples_offset(), 6304);
        assert_eq!(SMALL.labels_offset(), 6304 + 48);
        assert_eq!(SMALL.features_offset(), 6304 + 48 + 16);
        assert_eq!(SMALL.known_offset(), 6368 + 16, "3 features, 12 bytes, rounded up to 8");
        assert_eq!(SMALL.input_offset(), 6384 + 32, "4 known keys of 8 bytes");
        assert_eq!(SMALL.total_len(), 6416 + 100);
        let odd = Layout { label_capacity: 13, ..SMALL };
        assert_eq!(odd.features_offset() % 8, 0);
        assert_eq!(odd.input_offset() % 8, 0);
        let none = Layout { feature_capacity: 0, known_capacity: 0, ..SMALL };
        assert_eq!(none.input_offset(), 6368, "no coverage and no known values, no room");
        let shm = shm(&SMALL);
        assert_eq!(&shm[..12], b"cmc-shm\0\x08\0\0\0");
        assert_eq!(&shm[12..16], &100u32.to_le_bytes());
        assert_eq!(&shm[28..36], &[3, 0, 0, 0, 4, 0, 0, 0]);
        assert_eq!((R_FEATURE_COUNT, R_COUNTERS, R_STACK_OFFSET), (112, 116, 120));
        let chains = Layout { chain_capacity: 5, ..SMALL };
        assert_eq!(chains.chains_offset(), 6416, "after the known keys");
        assert_eq!(chains.input_offset(), 6416 + 24, "5 words, rounded up to 8");
    }

    #[test]
    fn call_chains_come_back_in_order_until_one_does_not_fit() {
        let layout = Layout { chain_capacity: 12, ..SMALL };
        let mut shm = shm(&layout);
        assert!(layout.push_chain(&mut shm, 3, &[(1, 2), (3, 4)]));
        assert!(layout.push_chain(&mut shm, 5, &[]));
        assert!(!layout.push_chain(&mut shm, 6, &[(5, 6), (7, 8)]), "6 words in the 3 left");
        assert_eq!(layout.read_chains(&shm).unwrap(), [(3, vec![(1, 2), (3, 4)]), (5, vec![])]);
        layout.clear_result(&mut shm);
        assert!(layout.read_chains(&shm).unwrap().is_empty());
        assert!(layout.push_chain(&mut shm, 0, &[(9, 9)]));
        assert!(!SMALL.push_chain(&mut self::shm(&SMALL), 0, &[]), "no area, no chains");
    }

    #[test]
    fn the_header_survives_a_round_trip() {
        let shm = shm(&SMALL);
        assert_eq!(Layout::read_header(&shm), Ok(SMALL));
    }

    #[test]
    fn a_short_or_foreign_or_newer_file_is_rejected() {
        let good = shm(&SMALL);
        assert!(matches!(Layout::read_header(&good[..HEADER_LEN - 1]), Err(DecodeError::Truncated { .. })));
        assert!(matches!(Layout::read_header(&good[..SMALL.total_len() - 1]), Err(DecodeError::Truncated { .. })));
        let mut foreign = good.clone();
        foreign[0] = b'X';
        assert_eq!(Layout::read_header(&foreign), Err(DecodeError::BadMagic { what: "shared-memory file" }));
        let mut newer = good;
        newer[H_VERSION] = 9;
        assert_eq!(Layout::read_header(&newer), Err(DecodeError::UnsupportedVersion { found: 9, expected: 8 }));
    }

    #[test]
    fn the_input_survives_a_round_trip_and_an_oversized_one_is_refused() {
        let mut shm = shm(&SMALL);
        assert_eq!(SMALL.read_input(&shm), Ok(&b""[..]));
        SMALL.write_input(&mut shm, b"crash bytes").unwrap();
        assert_eq!(SMALL.read_input(&shm), Ok(&b"crash bytes"[..]));
        assert!(SMALL.write_input(&mut shm, &[0; 101]).is_err());
        SMALL.write_input(&mut shm, &[7; 100]).unwrap();
        assert_eq!(SMALL.read_input(&shm).unwrap(), &[7; 100]);
        put_u32(&mut shm, H_INPUT_LEN, 101);
        assert!(matches!(SMALL.read_input(&shm), Err(DecodeError::OutOfRange { .. })));
    }

    #[test]
    fn a_cleared_result_is_not_started_and_empty() {
        let shm = shm(&SMALL);
        assert_eq!(SMALL.read_result(&shm), Ok(ChildResult::default()));
    }

    #[test]
    fn a_panic_survives_a_round_trip_and_long_texts_are_cut() {
        let mut shm = shm(&SMALL);
        SMALL.set_kind(&mut shm, ResultKind::Running);
        assert_eq!(SMALL.read_result(&shm).unwrap().kind, ResultKind::Running);
        SMALL.write_panic(&mut shm, b"index out of bounds", b"src/tlv.rs", 140, 5);
        let result = SMALL.read_result(&shm).unwrap();
        assert_eq!(result.kind, ResultKind::Panicked);
        let panic = result.panic.unwrap();
        assert_eq!(
            panic,
            PanicRecord {
                message: "index out of bounds".into(),
                file: "src/tlv.rs".into(),
                line: 140,
                column: 5,
                truncated: false
            }
        );
        SMALL.write_panic(&mut shm, &[b'm'; MESSAGE_CAPACITY + 10], &[b'f'; FILE_CAPACITY + 1], 1, 2);
        let panic = SMALL.read_result(&shm).unwrap().panic.unwrap();
        assert_eq!(panic.message.len(), MESSAGE_CAPACITY);
        assert_eq!(panic.file.len(), FILE_CAPACITY);
        assert!(panic.truncated);
        SMALL.clear_result(&mut shm);
        assert_eq!(SMALL.read_result(&shm), Ok(ChildResult::default()));
    }

    #[test]
    fn examples_and_labels_survive_a_round_trip_and_overflow_is_counted() {
        let mut shm = shm(&SMALL);
        assert_eq!(SMALL.push_label(&mut shm, b"Vec<u8>"), Some(0));
        assert_eq!(SMALL.push_label(&mut shm, b"u32"), Some(1));
        assert_eq!(SMALL.push_label(&mut shm, b"too long"), None, "2+7 + 2+3 + 2+8 > 16");
        let a = ExampleRecord { front: (0, 10), back: (90, 100), label: 0, depth: 0 };
        let b = ExampleRecord { front: (2, 6), back: (96, 96), label: 1, depth: 1 };
        assert!(SMALL.push_example(&mut shm, &a));
        assert!(SMALL.push_example(&mut shm, &b));
        assert!(!SMALL.push_example(&mut shm, &a));
        let result = SMALL.read_result(&shm).unwrap();
        assert_eq!(result.examples, vec![a, b]);
        assert_eq!(result.examples_dropped, 1);
        assert_eq!(result.labels, vec!["Vec<u8>".to_owned(), "u32".to_owned()]);
        assert_eq!(ExampleRecord::decode(&a.encode()), Ok(a));
        assert!(matches!(ExampleRecord::decode(&a.encode()[..23]), Err(DecodeError::Truncated { .. })));
    }

    #[test]
    fn reserved_examples_keep_their_place_and_are_completed_later() {
        let mut shm = shm(&SMALL);
        let open = |at: u32, depth: u32| ExampleRecord { front: (at, OPEN_END), back: (90, 90), label: 0, depth };
        let parent = SMALL.reserve_example(&mut shm, &open(0, 0)).unwrap();
        let child = SMALL.reserve_example(&mut shm, &open(1, 1)).unwrap();
        assert_eq!((parent, child), (0, 1));
        assert_eq!(SMALL.reserve_example(&mut shm, &open(2, 2)), None, "full: counted as dropped");
        let done_child = ExampleRecord { front: (1, 3), back: (88, 90), label: 0, depth: 1 };
        SMALL.set_example(&mut shm, child, &done_child);
        SMALL.set_example(&mut shm, 7, &done_child);
        let result = SMALL.read_result(&shm).unwrap();
        assert_eq!(result.examples, vec![open(0, 0), done_child]);
        assert_eq!(result.examples_dropped, 1);
    }

    #[test]
    fn crash_frames_survive_a_round_trip_are_cut_and_cleared() {
        let mut shm = shm(&SMALL);
        let addresses: Vec<u64> = (0..FRAME_CAPACITY as u64 + 8).map(|i| 0x5555_0000_1000 + i).collect();
        SMALL.write_frames(&mut shm, 11, 0x5555_0000_0000, 0x20_0000, &addresses);
        let frames = SMALL.read_result(&shm).unwrap().frames.unwrap();
        assert_eq!(frames.signal, 11);
        assert_eq!((frames.image_base, frames.image_len), (0x5555_0000_0000, 0x20_0000));
        assert_eq!(frames.addresses, addresses[..FRAME_CAPACITY]);
        SMALL.write_frames(&mut shm, 6, 0, 1, &[7, 8]);
        assert_eq!(SMALL.read_result(&shm).unwrap().frames.unwrap().addresses, [7, 8]);
        SMALL.clear_result(&mut shm);
        assert_eq!(SMALL.read_result(&shm).unwrap().frames, None);
        put_u32(&mut shm, R_FRAME_COUNT, FRAME_CAPACITY as u32 + 1);
        assert!(matches!(SMALL.read_result(&shm), Err(DecodeError::OutOfRange { what: "frame count", .. })));
    }

    #[test]
    fn coverage_survives_a_round_trip_and_is_cleared() {
        let mut shm = shm(&SMALL);
        assert_eq!(SMALL.read_result(&shm).unwrap().coverage, None, "nothing recorded yet");
        let coverage = CoverageRecord { features: vec![8, 17, 4103], counters: 512, stack_offset: 1 << 40, cut: false };
        SMALL.write_features(&mut shm, &coverage);
        assert_eq!(SMALL.read_result(&shm).unwrap().coverage, Some(coverage));
        assert_eq!(&shm[SMALL.features_offset()..SMALL.features_offset() + 4], &8u32.to_le_bytes());
        SMALL.clear_result(&mut shm);
        assert_eq!(SMALL.read_result(&shm), Ok(ChildResult::default()));
        let uninstrumented = CoverageRecord::default();
        SMALL.write_features(&mut shm, &uninstrumented);
        assert_eq!(SMALL.read_result(&shm).unwrap().coverage, Some(uninstrumented), "recorded, but empty");
    }

    #[test]
    fn a_feature_list_longer_than_the_area_is_cut() {
        let mut shm = shm(&SMALL);
        let long = CoverageRecord { features: vec![1, 2, 3, 4, 5], counters: 9, stack_offset: 0, cut: false };
        SMALL.write_features(&mut shm, &long);
        let read = SMALL.read_result(&shm).unwrap().coverage.unwrap();
        assert_eq!(read, CoverageRecord { features: vec![1, 2, 3], cut: true, ..long });
        // Written in place: a count past the capacity is the capacity, and a cut.
        SMALL.clear_result(&mut shm);
        SMALL.features_area(&mut shm).copy_from_slice(&[7, 0, 0, 0, 8, 0, 0, 0, 9, 0, 0, 0]);
        SMALL.write_coverage(&mut shm, 4, false, 2, 16);
        let read = SMALL.read_result(&shm).unwrap().coverage.unwrap();
        assert_eq!((read.features, read.cut, read.counters, read.stack_offset), (vec![7, 8, 9], true, 2, 16));
        // A panic afterwards keeps the coverage's flags.
        SMALL.write_panic(&mut shm, b"late", b"f.rs", 1, 1);
        assert!(SMALL.read_result(&shm).unwrap().coverage.unwrap().cut);
    }

    #[test]
    fn corrupt_counts_are_rejected_not_trusted() {
        let mut shm = shm(&SMALL);
        put_u32(&mut shm, R_KIND, 9);
        assert!(matches!(SMALL.read_result(&shm), Err(DecodeError::OutOfRange { what: "result kind", .. })));
        SMALL.clear_result(&mut shm);
        put_u32(&mut shm, R_EXAMPLE_COUNT, 3);
        assert!(matches!(SMALL.read_result(&shm), Err(DecodeError::OutOfRange { what: "example count", .. })));
        SMALL.clear_result(&mut shm);
        SMALL.write_panic(&mut shm, b"x", b"y", 1, 1);
        put_u32(&mut shm, R_MESSAGE_LEN, MESSAGE_CAPACITY as u32 + 1);
        assert!(SMALL.read_result(&shm).is_err());
        SMALL.clear_result(&mut shm);
        SMALL.push_label(&mut shm, b"abc").unwrap();
        put_u32(&mut shm, R_LABEL_BYTES, 4);
        assert!(matches!(SMALL.read_result(&shm), Err(DecodeError::Truncated { what: "label entry", .. })));
        SMALL.clear_result(&mut shm);
        SMALL.write_coverage(&mut shm, 0, false, 1, 0);
        put_u32(&mut shm, R_FEATURE_COUNT, 4);
        assert!(matches!(SMALL.read_result(&shm), Err(DecodeError::OutOfRange { what: "feature count", .. })));
        assert!(SMALL.read_result(&shm[..100]).is_err());
    }
}

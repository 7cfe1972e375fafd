//! The value key: a hash of every answer the input gave `arbitrary` while a typed target decoded it, and the stop before the target when the client already has a run of that value.
//!
//! A typed target's body sees only the value built from the input, and that
//! value is a function of what `Unstructured`'s reads returned, in order: the
//! code between reads is deterministic and sees nothing else. So the child
//! hashes each read's result as it happens:
//!
//! - `fill_buffer` (integers, `bool`, `char`, floats, enum tags): the buffer
//!   it fills, the bytes taken and the zeros past the data's end
//!   (`examples::draw_fill` works it out from the cursor, as the read itself
//!   comes after the call);
//! - `int_in_range` and the collection sizes (`arbitrary_byte_size`): the
//!   integer returned, or that it failed ([`answer`]);
//! - `bytes`, `peek_bytes` and `take_rest`: the bytes returned ([`answer`]);
//! - `len` and `is_empty`: the answer ([`answer`]), as user code may branch
//!   on how much data is left.
//!
//! The libfuzzer-sys stand-in calls [`decoded`] between decoding and the
//! target's body. If anything was read, the hash is the run's *value key*:
//! two inputs with the same key build the same value (a hash collision
//! aside: 64 bits), so the target runs the same way on both. The key is
//! written to shared memory; when the client has turned lookups on and the
//! key is in its table, the child stops there (`ResultKind::Known`) and the
//! client answers with the earlier run's outcome.
//!
//! The stand-in also hands the decoded value itself to [`value`] (before
//! [`decoded`], whose work it does first): while lookups are on, the child
//! hashes the value's `Debug` rendering, the *look-alike key*, and stops as
//! known when the client has it, which the client only puts in the table
//! after a run that did not crash (`protocol::known` says why).
//!
//! Reads of data other than the input (an `Unstructured` a user's impl makes
//! over bytes of its own) are hashed too: what they return follows from what
//! was read before, so they change no key that should match. A raw-bytes
//! target (`|data: &[u8]|`) reads nothing before the stand-in calls
//! [`decoded`], so it never gets a key.

use std::fmt;
use std::hash::Hasher;

use cmc_protocol::ResultKind;

use crate::examples::with_recorder;

/// The answers of one child's decoding, hashed when it is done.
pub(crate) struct ValueKey {
    /// Each answer as its length (`u32`, `u32::MAX` for a failed read, then
    /// the width) and its bytes, so answers never run together (and none is
    /// empty here). Hashed once at the end: one SipHash over the whole buffer
    /// costs less than one per answer (decision 0078).
    answers: Vec<u8>,
    /// [`decoded`] was called: later reads (the target's body) are not the input's value.
    done: bool,
}

impl ValueKey {
    /// An empty key for an input of `len` bytes (room for its answers, usually).
    pub(crate) fn new(len: usize) -> ValueKey {
        ValueKey { answers: Vec::with_capacity(2 * len + 64), done: false }
    }

    /// Adds one answer.
    pub(crate) fn add(&mut self, bytes: &[u8]) {
        if !self.done {
            self.push_len(bytes.len());
            self.answers.extend_from_slice(bytes);
        }
    }

    /// Adds a missing answer (`None`, a failed read) for a value of `width` bytes.
    fn add_none(&mut self, width: usize) {
        if !self.done {
            self.push_len(u32::MAX as usize);
            self.push_len(width);
        }
    }

    /// Adds the buffer a `fill_buffer` of `width` bytes fills from `taken`:
    /// `taken` then zeros.
    pub(crate) fn add_filled(&mut self, taken: &[u8], width: usize) {
        if !self.done {
            self.push_len(width);
            self.answers.extend_from_slice(taken);
            self.answers.resize(self.answers.len() + width.saturating_sub(taken.len()), 0);
        }
    }

    fn push_len(&mut self, len: usize) {
        self.answers.extend_from_slice(&(len as u32).to_le_bytes());
    }

    /// Ends decoding: the key, when anything was read. SipHash with fixed
    /// keys (`new`, not `RandomState`): every child must hash alike.
    fn finish(&mut self) -> Option<u64> {
        let first = !std::mem::replace(&mut self.done, true);
        (first && !self.answers.is_empty()).then(|| {
            let mut hasher = std::collections::hash_map::DefaultHasher::new();
            hasher.write(&self.answers);
            hasher.finish()
        })
    }
}

/// A read of the `arbitrary` copy's wrappers returned `value` (an integer's
/// own bytes for `int_in_range`, sizes, `len` and `is_empty`), or failed
/// (`None`; `width` is the size of what it would have returned).
///
/// `extern "C"`, so the instrumented caller makes a plain call (see
/// [`crate::examples::enter`]).
#[allow(improper_ctypes_definitions)]
pub extern "C" fn answer(value: Option<&[u8]>, width: usize) {
    with_recorder(|recorder| match value {
        Some(bytes) => recorder.key.add(bytes),
        None => recorder.key.add_none(width),
    });
}

/// The stand-in's hook between decoding and the target's body: records the
/// value key, and when the client already has a run of that value, stops the
/// child here (`ResultKind::Known`). Does nothing outside a forked child, on
/// a second call, or when nothing was read (a raw-bytes target).
pub extern "C" fn decoded() {
    let known = with_recorder(|recorder| {
        let key = recorder.key.finish()?;
        Some(recorder.shm.with(|shm, layout| {
            layout.write_value_key(shm, key);
            let known = layout.known_on(shm) && layout.contains_known(shm, key);
            if known {
                layout.set_kind(shm, ResultKind::Known);
            }
            known
        }))
    });
    if known == Some(Some(true)) {
        stop_as_known();
    }
}

/// Ends a child that stopped at a known value (its result says `Known`).
fn stop_as_known() -> ! {
    // SAFETY: always safe; as at the end of a run, nothing of the child's is worth keeping.
    unsafe { libc::_exit(0) }
}

/// The longest `Debug` rendering hashed (bytes); a longer one gives no
/// look-alike key (formatting it would cost more than the run it might save).
const ALIKE_LIMIT: usize = 1 << 20;

/// The stand-in's hook between decoding and the target's body, with the
/// decoded value (a typed target's `Result<T, arbitrary::Error>`): the value
/// key first ([`decoded`]), then, while lookups are on, the look-alike key;
/// stops the child here (`ResultKind::Known`) when the client has either.
/// The rendering is only hashed, never stored, and only during a reduction.
pub fn value(value: &dyn fmt::Debug) {
    decoded();
    let on = with_recorder(|recorder| recorder.shm.with(|shm, layout| layout.known_on(shm)));
    if on != Some(true) {
        return;
    }
    // Formatted without the recorder held: the impl is the user's code.
    let Some(key) = alike_key(value) else { return };
    let known = with_recorder(|recorder| {
        recorder.shm.with(|shm, layout| {
            layout.write_alike_key(shm, key);
            let known = layout.contains_known(shm, key);
            if known {
                layout.write_value_key(shm, key);
                layout.set_kind(shm, ResultKind::Known);
            }
            known
        })
    });
    if known == Some(true) {
        stop_as_known();
    }
}

/// The hash of `value`'s `Debug` rendering (fixed SipHash keys, as the value
/// key's, after a tag of its own so the two kinds of key never meet); `None`
/// when the rendering fails or passes [`ALIKE_LIMIT`].
fn alike_key(value: &dyn fmt::Debug) -> Option<u64> {
    let mut sink = HashSink { hasher: std::collections::hash_map::DefaultHasher::new(), written: 0 };
    sink.hasher.write(b"cmc look-alike\0");
    fmt::write(&mut sink, format_args!("{value:?}")).ok()?;
    Some(sink.hasher.finish())
}

/// A `fmt::Write` that hashes what is written (as one stream: how the
/// formatter splits it does not matter) and gives up past [`ALIKE_LIMIT`].
struct HashSink {
    hasher: std::collections::hash_map::DefaultHasher,
    written: usize,
}

impl fmt::Write for HashSink {
    fn write_str(&mut self, s: &str) -> fmt::Result {
        self.written += s.len();
        if self.written > ALIKE_LIMIT {
            return Err(fmt::Error);
        }
        self.hasher.write(s.as_bytes());
        Ok(())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn key(reads: impl FnOnce(&mut ValueKey)) -> Option<u64> {
        let mut key = ValueKey::new(8);
        reads(&mut key);
        key.finish()
    }

    #[test]
    fn a_short_read_and_the_zeros_it_stands_for_are_one_answer() {
        let short = key(|k| k.add_filled(&[3], 8));
        let padded = key(|k| k.add_filled(&[3, 0, 0, 0, 0, 0, 0, 0], 8));
        assert_eq!(short, padded);
        assert_ne!(short, key(|k| k.add_filled(&[3], 4)), "another width, another value");
        assert_ne!(short, key(|k| k.add_filled(&[4], 8)));
    }

    #[test]
    fn answers_do_not_run_together_and_a_failed_read_is_its_own() {
        assert_ne!(key(|k| (k.add(b"ab"), k.add(b"c")).1), key(|k| (k.add(b"a"), k.add(b"bc")).1));
        assert_ne!(key(|k| k.add(&[0; 8])), key(|k| k.add_none(8)));
        assert_eq!(key(|k| k.add(b"abc")), key(|k| k.add(b"abc")));
    }

    #[test]
    fn a_look_alike_key_is_the_rendering_however_it_is_written_out() {
        #[derive(Debug)]
        struct Fade {
            #[allow(dead_code)] // read by its `Debug` impl only
            alpha: u8,
        }
        let fade = alike_key(&Fade { alpha: 3 });
        assert_eq!(fade, alike_key(&Fade { alpha: 3 }));
        assert_ne!(fade, alike_key(&Fade { alpha: 4 }));
        // One stream: split where the formatter pleases, the same key.
        struct Split(&'static [&'static str]);
        impl fmt::Debug for Split {
            fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
                self.0.iter().try_for_each(|part| f.write_str(part))
            }
        }
        assert_eq!(alike_key(&Split(&["Fade { alpha: 3 }"])), alike_key(&Split(&["Fa", "de { alp", "ha: 3 }"])));
        assert_eq!(alike_key(&Split(&["Fade { alpha: 3 }"])), fade);
        assert_eq!(alike_key(&vec![0u8; ALIKE_LIMIT]), None, "too long to pay");
    }

    #[test]
    fn nothing_read_gives_no_key_and_the_key_is_given_once() {
        assert_eq!(key(|_| {}), None);
        let mut k = ValueKey::new(1);
        k.add(b"x");
        assert!(k.finish().is_some());
        k.add(b"after the body started");
        assert_eq!(k.finish(), None);
    }
}

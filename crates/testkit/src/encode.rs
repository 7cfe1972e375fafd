//! The encoder the models share: writes a value as an input a [`Cursor`](crate::Cursor) reads back exactly, with noise wherever `arbitrary` allows it.

use cmc_protocol::layout;

/// Runs `write` on inputs of growing length until everything fits, so the
/// input ends up barely longer than its contents (a few unread bytes in the
/// middle, as fuzzer inputs usually have). Every length read depends on the
/// bytes remaining at that point, so the layout can only be settled for a
/// fixed total length.
pub(crate) fn encode(seed: u64, write: impl Fn(&mut Writer)) -> Vec<u8> {
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

/// Writes an input of a fixed length the way [`Cursor`](crate::Cursor) will
/// read it. Positions may cross (then the length was too small and [`encode`]
/// tries a longer one). Unwritten bytes keep random values.
pub(crate) struct Writer {
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

    pub(crate) fn u8(&mut self, v: u8) {
        self.put(v);
    }

    pub(crate) fn u16(&mut self, v: u16) {
        v.to_le_bytes().into_iter().for_each(|b| self.put(b));
    }

    pub(crate) fn u32(&mut self, v: u32) {
        v.to_le_bytes().into_iter().for_each(|b| self.put(b));
    }

    /// Any odd byte for true, any even one for false.
    pub(crate) fn bool(&mut self, v: bool) {
        let noise = self.rng.u8(..) & !1;
        self.put(noise | u8::from(v));
    }

    /// Any `u32` that [`Cursor::choose_index`](crate::Cursor::choose_index) maps to `k` of `n`.
    pub(crate) fn variant(&mut self, k: usize, n: usize) {
        let bucket = |k: u64| (k << 32).div_ceil(n as u64);
        let (lo, hi) = (bucket(k as u64), bucket(k as u64 + 1) - 1);
        let x = self.rng.u64(lo..=hi) as u32;
        self.u32(x);
    }

    /// The bytes from the end that make
    /// [`Cursor::byte_size`](crate::Cursor::byte_size) return `v`: `v` plus a
    /// random multiple of the range size, big-endian.
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

    /// A size from the back, then the bytes from the front.
    pub(crate) fn bytes(&mut self, bytes: &[u8]) {
        self.size(bytes.len());
        bytes.iter().for_each(|&b| self.put(b));
    }

    /// A collection: a true flag before each item, then a false one.
    pub(crate) fn list<T>(&mut self, items: &[T], mut item: impl FnMut(&mut Self, &T)) {
        for it in items {
            self.bool(true);
            item(self, it);
        }
        self.bool(false);
    }
}

//! Seeded randomness and the byte-level mutations a fuzzer makes (libFuzzer's `MutationDispatcher`, roughly).

/// A small seeded generator (SplitMix64): the same seed gives the same artifacts on every machine.
#[derive(Clone, Debug)]
pub(crate) struct Rng(u64);

impl Rng {
    /// A generator for `seed`.
    pub(crate) fn new(seed: u64) -> Self {
        Rng(seed)
    }

    /// An independent generator for the stream called `name` (one per bug, so changing one
    /// bug's count leaves the others' files as they were).
    pub(crate) fn stream(seed: u64, name: &str) -> Self {
        // FNV-1a of the name, mixed into the seed.
        let hash =
            name.bytes().fold(0xcbf2_9ce4_8422_2325_u64, |h, b| (h ^ u64::from(b)).wrapping_mul(0x100_0000_01b3));
        let mut rng = Rng(seed ^ hash);
        rng.next_u64();
        rng
    }

    /// The next 64 random bits.
    pub(crate) fn next_u64(&mut self) -> u64 {
        self.0 = self.0.wrapping_add(0x9e37_79b9_7f4a_7c15);
        let mut z = self.0;
        z = (z ^ (z >> 30)).wrapping_mul(0xbf58_476d_1ce4_e5b9);
        z = (z ^ (z >> 27)).wrapping_mul(0x94d0_49bb_1331_11eb);
        z ^ (z >> 31)
    }

    /// A number in `0..n` (`n` > 0).
    pub(crate) fn below(&mut self, n: usize) -> usize {
        (self.next_u64() % n as u64) as usize
    }

    /// A number in `low..=high`.
    pub(crate) fn range(&mut self, low: usize, high: usize) -> usize {
        low + self.below(high - low + 1)
    }

    /// A number spread evenly over orders of magnitude: below `2^k` for a random `k` up to `max_bits`.
    pub(crate) fn log_uniform(&mut self, max_bits: usize) -> usize {
        let bits = self.below(max_bits + 1);
        self.below(1 << bits)
    }

    /// A random byte.
    pub(crate) fn byte(&mut self) -> u8 {
        self.next_u64() as u8
    }

    /// `n` random bytes.
    pub(crate) fn bytes(&mut self, n: usize) -> Vec<u8> {
        (0..n).map(|_| self.byte()).collect()
    }

    /// True one time in `n`.
    pub(crate) fn one_in(&mut self, n: usize) -> bool {
        self.below(n) == 0
    }
}

/// `len` bytes of the kinds of junk a fuzzer leaves behind: random bytes, runs of one byte, text.
pub(crate) fn noise(rng: &mut Rng, len: usize) -> Vec<u8> {
    match rng.below(4) {
        0 => vec![rng.byte(); len],
        1 => (0..len).map(|_| b"abcdefghijklmnopqrstuvwxyz0123456789 \n"[rng.below(38)]).collect(),
        2 => (0..len).map(|_| if rng.one_in(4) { rng.byte() } else { 0 }).collect(),
        _ => rng.bytes(len),
    }
}

/// One random mutation of `data`, leaving its first `keep` bytes (selector and magic) alone.
pub(crate) fn mutate(rng: &mut Rng, data: &mut Vec<u8>, keep: usize) {
    let keep = keep.min(data.len());
    let len = data.len();
    let at = rng.range(keep, len);
    match rng.below(8) {
        0 | 1 if at < len => data[at] = rng.byte(),
        2 if at < len => data[at] ^= 1 << rng.below(8),
        3 if at < len => data[at] = [0x00, 0x01, 0x7f, 0x80, 0xff][rng.below(5)],
        4 => {
            let n = rng.range(1, 8);
            let inserted = noise(rng, n);
            data.splice(at..at, inserted);
        }
        5 if at < len => {
            let end = (at + rng.range(1, 16)).min(len);
            data.drain(at..end);
        }
        6 if at < len => data.truncate(at.max(keep)),
        7 if len > keep => {
            let from = rng.range(keep, len - 1);
            let part = data[from..(from + rng.range(1, 32)).min(len)].to_vec();
            data.splice(at..at, part);
        }
        _ => {
            let n = rng.log_uniform(11).max(1);
            let extra = noise(rng, n);
            data.extend(extra);
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn mutants(seed: u64) -> Vec<Vec<u8>> {
        let mut rng = Rng::new(seed);
        (0..50)
            .map(|_| {
                let mut data = b"\x00TLV1 some bytes to change".to_vec();
                for _ in 0..rng.range(1, 4) {
                    mutate(&mut rng, &mut data, 5);
                }
                data
            })
            .collect()
    }

    #[test]
    fn mutations_are_the_same_for_the_same_seed() {
        assert_eq!(mutants(7), mutants(7));
    }

    #[test]
    fn mutations_differ_for_different_seeds() {
        assert_ne!(mutants(7), mutants(8));
    }

    #[test]
    fn mutations_leave_the_kept_prefix_alone() {
        for seed in 0..20 {
            assert!(mutants(seed).iter().all(|m| m.starts_with(b"\x00TLV1")));
        }
    }

    #[test]
    fn mutations_change_the_input() {
        let changed = mutants(3).iter().filter(|m| m.as_slice() != b"\x00TLV1 some bytes to change").count();
        assert!(changed > 40, "{changed} of 50 changed");
    }

    #[test]
    fn streams_with_different_names_differ_and_repeat() {
        let draw = |name| (0..4).map(|_| Rng::stream(1, name).next_u64()).collect::<Vec<_>>();
        assert_eq!(draw("tlv-index"), draw("tlv-index"));
        assert_ne!(Rng::stream(1, "tlv-index").next_u64(), Rng::stream(1, "vm-wild-write").next_u64());
    }

    #[test]
    fn log_uniform_sizes_span_orders_of_magnitude() {
        let mut rng = Rng::new(1);
        let sizes: Vec<usize> = (0..200).map(|_| rng.log_uniform(11)).collect();
        assert!(sizes.iter().any(|&s| s < 16) && sizes.iter().any(|&s| s > 512), "{sizes:?}");
    }
}

//! How `arbitrary` (1.x) lays a value out in its input: the one place the
//! reducer, its tests and the sample generators take the rules from.
//!
//! Most reads take bytes from the front. A string's or a collection's size
//! is read from the back of what is left (`Unstructured::arbitrary_byte_size`)
//! in a field whose width depends on how much is left then ([`len_width`]):
//! 1 byte while at most 256 bytes are left, 2 while at most 65,537 are, 4
//! while at most 2^32 + 3 are, then 8. The field is read as
//! `int_in_range(0..=left - width)`: big-endian, only as many of its bytes
//! as that range needs ([`bytes_read`]), modulo the range's size.

/// The width of a size field read with `left` bytes left: 0 when none is
/// left (the size is 0 and nothing is read), 1 when one is (it is read, and
/// the size is 0), then 1, 2, 4 or 8 by the room.
pub fn len_width(left: usize) -> usize {
    match left as u64 {
        0 => 0,
        1..=256 => 1,
        257..=65_537 => 2,
        65_538..=4_294_967_299 => 4,
        _ => 8,
    }
}

/// How many of a size field's `width` bytes `int_in_range(0..=max)` reads:
/// one per byte `max` needs.
pub fn bytes_read(max: u64, width: usize) -> usize {
    (0..width.min(8)).take_while(|&k| max >> (8 * k) > 0).count()
}

/// The size a field of bytes `field` reads when sizes up to `max` are possible.
pub fn decode_len(field: &[u8], max: u64) -> u64 {
    let used = bytes_read(max, field.len());
    let raw = field[..used].iter().fold(0u64, |acc, &b| acc << 8 | u64::from(b));
    raw.checked_rem(max.wrapping_add(1)).unwrap_or(raw)
}

/// A field of `width` bytes that reads `value` (at most `max`): the value in
/// the bytes read, big-endian, zeros after them.
pub fn encode_len(value: u64, width: usize, max: u64) -> Vec<u8> {
    let used = bytes_read(max, width);
    let mut field: Vec<u8> = (0..used).rev().map(|k| (value >> (8 * k)) as u8).collect();
    field.resize(width, 0);
    field
}

/// The label a fixed-width read (`Unstructured::fill_buffer`) of `width`
/// bytes is recorded under: the runtime records it, the reducer parses it
/// (`draw:le` for a buffer of any other length).
pub fn fill_label(width: usize) -> &'static str {
    match width {
        1 => "draw:le:1",
        2 => "draw:le:2",
        4 => "draw:le:4",
        8 => "draw:le:8",
        16 => "draw:le:16",
        _ => "draw:le",
    }
}

/// The bounds of one `int_in_range` read: the width of its integer type in
/// bytes, the range's start and its end minus its start (`delta`), both as
/// the type's bits read unsigned (a signed range works out the same way).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub struct RangeBounds {
    /// The integer's width in bytes (1 to 16).
    pub width: u8,
    /// The range's start.
    pub start: u128,
    /// The range's end minus its start, wrapped to the width.
    pub delta: u128,
}

/// The label prefix of an `int_in_range` read whose bounds follow it.
const RANGE_LABEL: &str = "draw:range:";

impl RangeBounds {
    /// The bounds of a range from `start` to `end`, each the integer's own
    /// bytes (little-endian, as `x86_64` holds them); `None` past 16 bytes or
    /// for widths that differ.
    pub fn of(start: &[u8], end: &[u8]) -> Option<RangeBounds> {
        let width = start.len();
        if width == 0 || width > 16 || end.len() != width {
            return None;
        }
        let bits = |b: &[u8]| b.iter().rev().fold(0u128, |acc, &x| acc << 8 | u128::from(x));
        let (start, end) = (bits(start), bits(end));
        let bounds = RangeBounds { width: width as u8, start, delta: 0 };
        Some(RangeBounds { delta: end.wrapping_sub(start) & bounds.mask(), ..bounds })
    }

    /// The label its read is recorded under: `draw:range:<width>:<start>:<delta>` (hex).
    pub fn label(&self) -> String {
        format!("{RANGE_LABEL}{}:{:x}:{:x}", self.width, self.start, self.delta)
    }

    /// The bounds a draw's label holds (`None` for any other label).
    pub fn parse(label: &str) -> Option<RangeBounds> {
        let mut fields = label.strip_prefix(RANGE_LABEL)?.split(':');
        let width: u8 = fields.next()?.parse().ok().filter(|w| (1..=16).contains(w))?;
        let start = u128::from_str_radix(fields.next()?, 16).ok()?;
        let delta = u128::from_str_radix(fields.next()?, 16).ok()?;
        fields.next().is_none().then_some(RangeBounds { width, start, delta })
    }

    /// All ones over the width.
    fn mask(&self) -> u128 {
        u128::MAX >> (128 - 8 * u32::from(self.width))
    }

    /// The integer `int_in_range` returns for the number `raw` its bytes
    /// read (big-endian): the start plus `raw` modulo the range's size,
    /// wrapped to the width.
    pub fn result(&self, raw: u128) -> u128 {
        let offset = raw.checked_rem(self.delta.wrapping_add(1)).unwrap_or(raw);
        self.start.wrapping_add(offset) & self.mask()
    }

    /// The least `raw` that reads `result`; `None` outside the range.
    pub fn raw_of(&self, result: u128) -> Option<u128> {
        let offset = result.wrapping_sub(self.start) & self.mask();
        (offset <= self.delta).then_some(offset)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn widths_change_where_arbitrary_changes_them() {
        let widths: Vec<usize> = [0, 1, 2, 256, 257, 65_537, 65_538, 70_000].map(len_width).to_vec();
        assert_eq!(widths, [0, 1, 1, 1, 2, 2, 4, 4]);
    }

    #[test]
    fn fields_read_only_the_bytes_their_range_needs() {
        assert_eq!(decode_len(&[0x1c], 5), 4, "modulo the room");
        assert_eq!(decode_len(&[0x01, 0x02], 300), 258);
        assert_eq!(decode_len(&[0x07, 0xff], 255), 7, "one byte of two read for sizes up to 255");
        assert_eq!(decode_len(&[0x00, 0x01, 0x11, 0xff], 70_000), 0x111);
        assert_eq!(decode_len(&[0x42], 0), 0);
        assert_eq!(encode_len(258, 2, 300), [0x01, 0x02]);
        assert_eq!(encode_len(7, 2, 255), [0x07, 0x00]);
        assert_eq!(encode_len(0x111, 4, 70_000), [0x00, 0x01, 0x11, 0x00]);
        for (value, width, max) in [(4, 1, 9), (65_000, 2, 65_535), (69_999, 4, 70_000)] {
            assert_eq!(decode_len(&encode_len(value, width, max), max), value);
        }
    }

    #[test]
    fn range_bounds_round_trip_through_their_label_and_read_results_as_arbitrary_does() {
        let count = RangeBounds::of(&1u32.to_le_bytes(), &8u32.to_le_bytes()).unwrap();
        assert_eq!(count, RangeBounds { width: 4, start: 1, delta: 7 });
        assert_eq!(RangeBounds::parse(&count.label()), Some(count));
        assert_eq!((count.result(0), count.result(1), count.result(9)), (1, 2, 2), "1 + raw % 8");
        assert_eq!((count.raw_of(2), count.raw_of(0), count.raw_of(9)), (Some(1), None, None));
        let signed = RangeBounds::of(&(-3i8).to_le_bytes(), &5i8.to_le_bytes()).unwrap();
        assert_eq!((signed.delta, signed.result(4) as u8 as i8, signed.result(12) as u8 as i8), (8, 1, 0));
        assert_eq!(signed.raw_of(1), Some(4));
        let all = RangeBounds::of(&0u16.to_le_bytes(), &u16::MAX.to_le_bytes()).unwrap();
        assert_eq!((all.result(0xfffe), all.raw_of(0xfffe)), (0xfffe, Some(0xfffe)));
        let wide = RangeBounds::of(&0u128.to_le_bytes(), &u128::MAX.to_le_bytes()).unwrap();
        assert_eq!(wide.result(u128::MAX - 1), u128::MAX - 1);
        assert_eq!(RangeBounds::parse("draw:range"), None);
        assert_eq!(RangeBounds::parse("draw:range:17:0:1"), None);
        assert_eq!(RangeBounds::parse("draw:range:1:0:1:2"), None);
    }
}

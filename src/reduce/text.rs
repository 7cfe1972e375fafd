//! The order of characters in strings a person reads: `'0'` first, then digits, letters, punctuation, space; control characters after, NUL, then bytes above ASCII.
//!
//! A string's contents (a `draw:bytes` read) are compared and lowered in this
//! order, so a result reads `term: "0"` where byte order would leave `term:
//! "\0"`, the hardest thing to read in a `{:#?}` dump or a bug report. It is
//! Hypothesis's idea (its simplest character is `'0'`), in an order of our
//! own: the digits, lowercase, uppercase, ASCII punctuation in code order,
//! space, control characters, NUL, and bytes above ASCII last, since alone
//! they are not characters (decision 0006). Raw `&[u8]` targets (no draws)
//! and every byte outside a string keep byte order.

use std::cmp::Ordering;
use std::ops::Range;

/// Every byte in the order: `ORDER[r]` is the byte of rank `r`.
const ORDER: [u8; 256] = order();

/// Each byte's rank: `RANK[b]` is the place of byte `b` in [`ORDER`].
const RANK: [u8; 256] = ranks();

const fn order() -> [u8; 256] {
    let groups: [(u8, u8); 8] = [
        (b'0', b'9'),
        (b'a', b'z'),
        (b'A', b'Z'),
        (b'!', b'/'),
        (b':', b'@'),
        (b'[', b'`'),
        (b'{', b'~'),
        (b' ', b' '),
    ];
    let mut out = [0u8; 256];
    let mut n = 0;
    let mut g = 0;
    while g < groups.len() {
        let mut b = groups[g].0;
        while b <= groups[g].1 {
            out[n] = b;
            n += 1;
            b += 1;
        }
        g += 1;
    }
    // The control characters, NUL, then the bytes above ASCII: alone they
    // are not characters, and a string of them reads as escapes.
    let mut b = 1;
    while b < 0x20 {
        out[n] = b;
        n += 1;
        b += 1;
    }
    out[n] = 0x7f;
    out[n + 1] = 0;
    n += 2;
    let mut b = 0x80;
    while b <= 0xff {
        out[n] = b as u8;
        n += 1;
        b += 1;
    }
    out
}

const fn ranks() -> [u8; 256] {
    let mut out = [0u8; 256];
    let mut r = 0;
    while r < 256 {
        out[ORDER[r] as usize] = r as u8;
        r += 1;
    }
    out
}

/// The place of byte `b` among characters, 0 for `'0'`.
pub fn rank(b: u8) -> u8 {
    RANK[usize::from(b)]
}

/// The byte of rank `r`.
pub fn of_rank(r: u8) -> u8 {
    ORDER[usize::from(r)]
}

/// Shortlex with characters in their order: shorter first, then
/// [`compare`]. Without text it is byte for byte.
pub fn shortlex(a: &[u8], b: &[u8], text: &[Range<usize>]) -> Ordering {
    a.len().cmp(&b.len()).then_with(|| compare(a, b, text))
}

/// Compares `a` and `b` lexicographically, bytes inside `text` (sorted,
/// disjoint spans) by their rank and the others by value.
pub fn compare(a: &[u8], b: &[u8], text: &[Range<usize>]) -> Ordering {
    let Some(i) = a.iter().zip(b).position(|(x, y)| x != y) else { return a.len().cmp(&b.len()) };
    let inside = text.get(text.partition_point(|span| span.end <= i)).is_some_and(|span| span.start <= i);
    if inside {
        rank(a[i]).cmp(&rank(b[i]))
    } else {
        a[i].cmp(&b[i])
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_order_is_a_permutation_that_reads_as_a_person_picks() {
        let mut seen = [false; 256];
        ORDER.iter().for_each(|&b| seen[usize::from(b)] = true);
        assert!(seen.iter().all(|&s| s), "every byte once");
        assert_eq!(of_rank(0), b'0');
        let firsts: Vec<u8> = (0..12).map(of_rank).collect();
        assert_eq!(firsts, b"0123456789ab");
        assert!(rank(b'z') < rank(b'A') && rank(b'Z') < rank(b'!') && rank(b'~') < rank(b' '));
        assert!(rank(b' ') < rank(b'\n') && rank(b'\n') < rank(0) && rank(0) < rank(0x80));
        assert_eq!(rank(0xff), 255, "above ASCII last");
        assert!((0..=255).all(|b| of_rank(rank(b)) == b));
    }

    #[test]
    fn bytes_inside_text_compare_by_rank_and_the_others_by_value() {
        assert_eq!(compare(b"x0", b"x\0", std::slice::from_ref(&(1..2))), Ordering::Less);
        assert_eq!(compare(b"x0", b"x\0", &[]), Ordering::Greater);
        assert_eq!(compare(b"0x", b"\0x", std::slice::from_ref(&(1..2))), Ordering::Greater, "outside the text");
        assert_eq!(compare(b"ab", b"ab", std::slice::from_ref(&(0..2))), Ordering::Equal);
    }
}

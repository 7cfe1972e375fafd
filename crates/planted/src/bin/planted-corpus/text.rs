//! Strings as fuzzing inputs hold them: words, numbers, punctuation, non-ASCII letters and emoji, sometimes nothing.

use crate::mutate::Rng;

/// Pieces that are not plain words: multi-byte UTF-8 of every length, control characters, separators.
const ODD: [&str; 16] =
    ["é", "ß", "ü", "Ω", "→", "日本", "語", "🦀", "\u{0}", "\t", "\n", " ", "-", ".", "\u{feff}", "∑"];

/// A string of at most `max` bytes (UTF-8), its length spread over orders of magnitude.
pub(crate) fn text(rng: &mut Rng, max: usize) -> String {
    let target = rng.log_uniform(7).min(max);
    let mut out = String::new();
    while out.len() < target {
        let piece = match rng.below(4) {
            0 => ODD[rng.below(ODD.len())].to_string(),
            1 => rng.below(100_000).to_string(),
            _ => word(rng),
        };
        if out.len() + piece.len() > max {
            break;
        }
        out.push_str(&piece);
    }
    out
}

/// A lowercase word of 1 to 12 letters.
pub(crate) fn word(rng: &mut Rng) -> String {
    let len = rng.range(1, 12);
    (0..len).map(|_| char::from(b'a' + rng.below(26) as u8)).collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn texts_respect_their_bound_and_vary() {
        let mut rng = Rng::new(3);
        let texts: Vec<String> = (0..300).map(|_| text(&mut rng, 40)).collect();
        assert!(texts.iter().all(|t| t.len() <= 40));
        assert!(texts.iter().any(String::is_empty));
        assert!(texts.iter().any(|t| !t.is_ascii()));
        assert!(texts.iter().any(|t| t.len() > 20));
    }
}

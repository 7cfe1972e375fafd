//! `scene` inputs: a title and layers of fills, texts and groups nested up to 4 deep, under every blend.
//!
//! The branches worth reaching: a `Fade` layer with alpha 0 and text at its top
//! level is skipped; other faded text is drawn at `255 / alpha`. A layer faded
//! to alpha 0 gets a text first or no text at all, never text only inside a
//! group (the planted division by zero; the check would drop it anyway).

use std::collections::BTreeSet;

use planted::scene::{render, Blend, Layer, Op, Scene};

use super::{bucket, run_decoded};
use crate::check::Verdict;
use crate::encode::Encoder;
use crate::mutate::Rng;
use crate::text::text;

/// How deep groups nest in a generated scene.
const NESTING: usize = 4;
/// Deeper nesting in a decoded (mutated) input is not run: the fuzz target's stack is smaller than ours.
const MAX_NESTING: usize = 64;

/// One input's shape.
#[derive(Debug)]
struct Style {
    /// Lists of ops end after this many ops on average.
    ops: usize,
    /// One op in this many is a group.
    groups: usize,
    /// One layer in this many fades; one fade in this many is to alpha 0.
    fades: usize,
    zero: usize,
    /// The longest text.
    text: usize,
}

/// An input of exactly `len` bytes and the scene `arbitrary` reads from it.
pub(crate) fn build(rng: &mut Rng, len: usize) -> (Vec<u8>, Scene) {
    let style = Style {
        ops: rng.range(2, 24),
        groups: rng.range(2, 8),
        fades: rng.range(1, 4),
        zero: rng.range(1, 4),
        text: [0, 8, 32, 120][rng.below(4)],
    };
    let mut enc = Encoder::new(len, rng);
    let title = enc.string(&text(rng, 2 * style.text));
    let mut layers = Vec::new();
    while enc.room() {
        enc.bool(true);
        layers.push(layer(&mut enc, rng, &style));
    }
    enc.bool(false);
    (enc.finish(), Scene { title, layers })
}

fn layer(enc: &mut Encoder, rng: &mut Rng, style: &Style) -> Layer {
    let name = enc.string(&text(rng, style.text));
    let blend = match rng.below(style.fades + 1) {
        0 if rng.one_in(2) => Blend::Normal,
        0 => Blend::Multiply,
        _ if rng.one_in(style.zero) => Blend::Fade { alpha: 0 },
        _ => Blend::Fade { alpha: rng.range(1, 255) as u8 },
    };
    match blend {
        Blend::Normal => enc.variant(0, 3),
        Blend::Multiply => enc.variant(1, 3),
        Blend::Fade { alpha } => {
            enc.variant(2, 3);
            enc.u8(alpha);
        }
    }
    let ops = if blend == (Blend::Fade { alpha: 0 }) && rng.one_in(2) {
        enc.bool(true);
        let first = text_op(enc, rng, style);
        ops(enc, rng, style, 0, true, vec![first])
    } else {
        let texts = blend != (Blend::Fade { alpha: 0 });
        ops(enc, rng, style, 0, texts, Vec::new())
    };
    Layer { name, blend, ops }
}

/// A list of ops after those already written (`list`), at nesting `depth`; texts only if `texts`.
fn ops(enc: &mut Encoder, rng: &mut Rng, style: &Style, depth: usize, texts: bool, mut list: Vec<Op>) -> Vec<Op> {
    while enc.room() && !rng.one_in(style.ops) {
        enc.bool(true);
        let op = if depth < NESTING && rng.one_in(style.groups) {
            enc.variant(2, 3);
            Op::Group(ops(enc, rng, style, depth + 1, texts, Vec::new()))
        } else if texts && rng.one_in(2) {
            text_op(enc, rng, style)
        } else {
            let colour = rng.byte();
            enc.variant(0, 3);
            enc.u8(colour);
            Op::Fill(colour)
        };
        list.push(op);
    }
    enc.bool(false);
    list
}

fn text_op(enc: &mut Encoder, rng: &mut Rng, style: &Style) -> Op {
    enc.variant(1, 3);
    Op::Text(enc.string(&text(rng, style.text)))
}

/// The fuzz target on `data`: decode, then `render`; the outcome names the scene's shape.
pub(crate) fn run(data: &[u8]) -> Verdict {
    run_decoded(data, |scene: Scene| {
        if scene.layers.iter().any(|layer| nesting(&layer.ops) > MAX_NESTING) {
            return Verdict::Unsafe("scene: groups nested deeper than the fuzz target's stack allows");
        }
        render(&scene);
        Verdict::Runs(shape(&scene))
    })
}

fn nesting(ops: &[Op]) -> usize {
    ops.iter().map(|op| if let Op::Group(inner) = op { 1 + nesting(inner) } else { 0 }).max().unwrap_or(0)
}

/// How many layers, and which of the render's branches the scene takes.
fn shape(scene: &Scene) -> String {
    let mut seen = BTreeSet::new();
    for layer in &scene.layers {
        let top_text = layer.ops.iter().any(|op| matches!(op, Op::Text(_)));
        match layer.blend {
            Blend::Fade { alpha: 0 } if top_text => seen.insert("an invisible layer"),
            Blend::Fade { .. } => seen.insert("a fade"),
            _ => false,
        };
        if nesting(&layer.ops) > 1 {
            seen.insert("nested groups");
        }
    }
    let branches: Vec<&str> = seen.into_iter().collect();
    format!("{} layers; {}", bucket(scene.layers.len()), branches.join(", "))
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::typed::checks::{assert_read_back, outcomes};

    #[test]
    fn arbitrary_reads_back_the_scene_that_was_written() {
        assert_read_back(11, &[200, 1024, 3000, 8192], 20, build);
    }

    #[test]
    fn scenes_vary_in_shape_and_none_divides_by_zero() {
        let shapes = outcomes(12, 200, build, run);
        assert!(shapes.len() >= 10, "{shapes:?}");
        assert!(shapes.iter().any(|s| s.contains("an invisible layer")), "{shapes:?}");
        assert!(shapes.iter().any(|s| s.starts_with("100+ layers")), "{shapes:?}");
    }
}

//! The typed target's input: a scene of layers of drawing ops, built by
//! `arbitrary` from the fuzzer's bytes (with the `arbitrary` feature).
//!
//! The bug: a `Fade` layer's text is drawn at opacity `255 / alpha`, and alpha
//! 0 is only rejected for layers whose text is at the top level, not for text
//! nested in groups, so `Fade { alpha: 0 }` with text inside a group divides by
//! zero (a panic in every build profile).

/// A whole scene.
#[derive(Clone, Debug, PartialEq, Eq)]
#[cfg_attr(feature = "arbitrary", derive(arbitrary::Arbitrary))]
pub struct Scene {
    /// The scene's title.
    pub title: String,
    /// Layers, bottom first.
    pub layers: Vec<Layer>,
}

/// One layer.
#[derive(Clone, Debug, PartialEq, Eq)]
#[cfg_attr(feature = "arbitrary", derive(arbitrary::Arbitrary))]
pub struct Layer {
    /// The layer's name.
    pub name: String,
    /// How it is composed onto the layers below.
    pub blend: Blend,
    /// What it draws.
    pub ops: Vec<Op>,
}

/// How a layer is composed.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
#[cfg_attr(feature = "arbitrary", derive(arbitrary::Arbitrary))]
pub enum Blend {
    /// Drawn over.
    Normal,
    /// Multiplied.
    Multiply,
    /// Drawn with an opacity.
    Fade {
        /// Opacity, 0 to 255.
        alpha: u8,
    },
}

/// A drawing op.
#[derive(Clone, Debug, PartialEq, Eq)]
#[cfg_attr(feature = "arbitrary", derive(arbitrary::Arbitrary))]
pub enum Op {
    /// Fill with a colour.
    Fill(u8),
    /// Draw text.
    Text(String),
    /// Ops drawn together.
    Group(Vec<Op>),
}

/// Renders a scene; returns a checksum of what would be drawn.
pub fn render(scene: &Scene) -> u64 {
    let mut total = scene.title.len() as u64;
    for layer in &scene.layers {
        let top_level_text = layer.ops.iter().any(|op| matches!(op, Op::Text(_)));
        let opacity = match layer.blend {
            Blend::Fade { alpha: 0 } if top_level_text => continue, // an invisible layer
            Blend::Fade { alpha } => Some(alpha),
            Blend::Normal | Blend::Multiply => None,
        };
        for op in &layer.ops {
            total = total.wrapping_add(draw(op, opacity));
        }
    }
    total
}

fn draw(op: &Op, opacity: Option<u8>) -> u64 {
    match op {
        Op::Fill(colour) => u64::from(*colour),
        Op::Text(text) => match opacity {
            // The planted bug: alpha 0 reaches here through a group.
            Some(alpha) => text.len() as u64 * u64::from(255 / alpha),
            None => text.len() as u64,
        },
        Op::Group(ops) => ops.iter().map(|op| draw(op, opacity)).fold(0, u64::wrapping_add),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn scene(blend: Blend, ops: Vec<Op>) -> Scene {
        Scene { title: "t".into(), layers: vec![Layer { name: "l".into(), blend, ops }] }
    }

    #[test]
    fn invisible_top_level_text_is_skipped() {
        assert_eq!(render(&scene(Blend::Fade { alpha: 0 }, vec![Op::Text("hi".into())])), 1);
    }

    #[test]
    #[should_panic(expected = "attempt to divide by zero")]
    fn text_in_a_group_of_a_fully_faded_layer_divides_by_zero() {
        render(&scene(Blend::Fade { alpha: 0 }, vec![Op::Fill(1), Op::Group(vec![Op::Text("hi".into())])]));
    }
}

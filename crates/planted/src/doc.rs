//! A typed target's input: a document of blocks (`arbitrary` builds it from the
//! fuzzer's bytes, with the `arbitrary` feature), rendered to markdown-like
//! text and parsed back, as a markdown crate's round-trip target does
//! (pulldown-cmark 0.12.1's had this shape and a bug of this kind).
//!
//! The bug: with definition lists on (option bit 12), a definition whose
//! text holds a paragraph break (a blank line with text on both sides)
//! becomes a loose definition, and the parser looks its second paragraph up
//! at an offset counted from the term instead of the definition: past the
//! end of the text when the term is shorter than the definition's prefix.
//! The simplest document that shows it, as a person writes it:
//! `Doc { options: 4096, tight: false, blocks: [DefList { term: "0",
//! defs: ["0\n\n0"] }] }`.

/// The option bit that turns definition lists on.
pub const DEFINITION_LISTS: u32 = 1 << 12;

/// A document.
#[derive(Clone, Debug, PartialEq, Eq)]
#[cfg_attr(feature = "arbitrary", derive(arbitrary::Arbitrary))]
pub struct Doc {
    /// Parser options, a bit set.
    pub options: u32,
    /// Whether lists render without blank lines between items.
    pub tight: bool,
    /// The blocks, in order.
    pub blocks: Vec<Block>,
}

/// One block of a document.
#[derive(Clone, Debug, PartialEq, Eq)]
#[cfg_attr(feature = "arbitrary", derive(arbitrary::Arbitrary))]
pub enum Block {
    /// A paragraph of text.
    Paragraph(String),
    /// A heading of a level (1 to 6) and its text.
    Heading {
        /// The level, taken modulo 6.
        level: u8,
        /// The text.
        text: String,
    },
    /// A bulleted list.
    List(Vec<String>),
    /// A definition list entry: a term and its definitions.
    DefList {
        /// The term.
        term: String,
        /// The definitions.
        defs: Vec<String>,
    },
}

/// The document as markdown-like text.
pub fn render(doc: &Doc) -> String {
    let gap = if doc.tight { "\n" } else { "\n\n" };
    let mut out = String::new();
    for block in &doc.blocks {
        match block {
            Block::Paragraph(text) => out.push_str(text),
            Block::Heading { level, text } => {
                out.push_str(&"#".repeat(usize::from(level % 6) + 1));
                out.push(' ');
                out.push_str(text);
            }
            Block::List(items) => items.iter().for_each(|item| out.push_str(&format!("- {item}{gap}"))),
            Block::DefList { term, defs } => {
                out.push_str(term);
                defs.iter().for_each(|def| out.push_str(&format!("\n: {}", def.replace('\n', "\n  "))));
            }
        }
        out.push_str(gap);
    }
    out
}

/// Parses the text back and counts its definitions' paragraphs.
pub fn parse(text: &str, options: u32) -> usize {
    let mut paragraphs = 0;
    // Where the line before starts, when it can be a term (not blank, not indented).
    let mut term: Option<usize> = None;
    for (start, line) in line_starts(text) {
        let definition = options & DEFINITION_LISTS != 0 && line.starts_with(": ");
        let Some(term_start) = term.filter(|_| definition) else {
            term = (!line.trim().is_empty() && !line.starts_with(' ')).then_some(start);
            continue;
        };
        let body = definition_body(&text[start + 2..]);
        paragraphs += 1;
        if let Some(blank) = body.find("\n  \n  ") {
            if body[..blank].trim().is_empty() || body[blank + 6..].trim().is_empty() {
                continue;
            }
            // The planted bug: the second paragraph's offset is taken in the
            // term's line, not the definition's, and a term shorter than the
            // first paragraph and its indent has no such offset.
            let term_line = &text[term_start..start];
            let second = term_line.get(blank + 6..).expect("a loose definition's second paragraph");
            paragraphs += usize::from(!second.is_empty() || blank > 0);
        }
    }
    paragraphs
}

/// Each line with the offset it starts at.
fn line_starts(text: &str) -> impl Iterator<Item = (usize, &str)> {
    text.split('\n').scan(0, |offset, line| {
        let start = *offset;
        *offset += line.len() + 1;
        Some((start, line))
    })
}

/// A definition's text: up to the first line that is not indented.
fn definition_body(text: &str) -> &str {
    let mut end = text.find('\n').unwrap_or(text.len());
    while let Some(next) = text[end..].strip_prefix('\n').filter(|rest| rest.starts_with("  ")) {
        end += 1 + next.find('\n').unwrap_or(next.len());
    }
    &text[..end]
}

#[cfg(test)]
mod tests {
    use super::*;

    fn deflist(term: &str, def: &str) -> Doc {
        let defs = vec![def.to_string()];
        Doc { options: DEFINITION_LISTS, tight: false, blocks: vec![Block::DefList { term: term.into(), defs }] }
    }

    #[test]
    fn definitions_parse_back() {
        assert_eq!(parse(&render(&deflist("term", "one")), DEFINITION_LISTS), 1);
        assert_eq!(parse(&render(&deflist("term", "one")), 0), 0);
        assert_eq!(parse(&render(&deflist("a long term", "x\n\ny")), DEFINITION_LISTS), 2);
    }

    #[test]
    #[should_panic]
    fn a_paragraph_break_in_a_definition_after_a_short_term_panics() {
        parse(&render(&deflist("0", "0\n\n0")), DEFINITION_LISTS);
    }

    #[test]
    fn the_break_needs_text_on_both_sides_and_the_option() {
        for def in ["\n\n0", "0\n\n", "0\n0"] {
            assert_eq!(parse(&render(&deflist("0", def)), DEFINITION_LISTS), 1, "{def:?}");
        }
        assert_eq!(parse(&render(&deflist("", "0\n\n0")), DEFINITION_LISTS), 0, "no term, no definition");
        assert_eq!(parse(&render(&deflist("0", "0\n\n0")), 0), 0);
    }
}

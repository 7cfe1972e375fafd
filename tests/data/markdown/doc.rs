//! A derived document rendered to markdown and parsed by pulldown-cmark 0.12.1 (issue 47's real crate): shared by the fuzz target and the checker that `tests/cli/typed_population.rs` writes.

use arbitrary::Arbitrary;
use pulldown_cmark::{Options, Parser};

#[derive(Arbitrary, Clone, Debug)]
pub struct Doc {
    pub options: u32,
    pub tight: bool,
    pub blocks: Vec<Block>,
}

#[derive(Arbitrary, Clone, Debug)]
pub enum Block {
    Paragraph(String),
    Heading { level: u8, text: String },
    List(Vec<String>),
    Quote(String),
    Code { fence: bool, text: String },
    DefList { term: String, defs: Vec<String> },
}

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
            Block::Quote(text) => out.push_str(&format!("> {}", text.replace('\n', "\n> "))),
            Block::Code { fence, text } if *fence => out.push_str(&format!("```\n{text}\n```")),
            Block::Code { text, .. } => out.push_str(&format!("    {}", text.replace('\n', "\n    "))),
            Block::DefList { term, defs } => {
                out.push_str(term);
                defs.iter().for_each(|def| out.push_str(&format!("\n: {}", def.replace('\n', "\n  "))));
            }
        }
        out.push_str(gap);
    }
    out
}

/// What the fuzz target does with a document: renders it and parses the text with its options.
pub fn parse(doc: &Doc) {
    let text = render(doc);
    for _ in Parser::new_ext(&text, Options::from_bits_truncate(doc.options)) {}
}

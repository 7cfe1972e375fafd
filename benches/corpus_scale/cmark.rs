#![no_main]
use arbitrary::Arbitrary;
use libfuzzer_sys::fuzz_target;
use std::fmt::Write;

#[derive(Arbitrary, Debug)]
struct Doc {
    options: u16,
    blocks: Vec<Block>,
}

#[derive(Arbitrary, Debug)]
enum Block {
    Paragraph(Vec<Inline>),
    Heading(u8, Vec<Inline>),
    List { ordered: bool, items: Vec<Vec<Block>> },
    Quote(Vec<Block>),
    Code { fence: bool, info: String, text: String },
    Definitions(Vec<(Vec<Inline>, Vec<Inline>)>),
    Table(Vec<Vec<Vec<Inline>>>),
    Html(String),
    Rule,
    Raw(String),
}

#[derive(Arbitrary, Debug)]
enum Inline {
    Text(String),
    Emphasis(Vec<Inline>),
    Strong(Vec<Inline>),
    Code(String),
    Link { url: String, text: Vec<Inline> },
    Footnote(String),
    Html(String),
    Break,
}

fn inlines(out: &mut String, all: &[Inline]) {
    for inline in all {
        match inline {
            Inline::Text(s) | Inline::Html(s) => out.push_str(s),
            Inline::Emphasis(i) => {
                out.push('*');
                inlines(out, i);
                out.push('*')
            }
            Inline::Strong(i) => {
                out.push_str("**");
                inlines(out, i);
                out.push_str("**")
            }
            Inline::Code(s) => {
                let _ = write!(out, "`{s}`");
            }
            Inline::Link { url, text } => {
                out.push('[');
                inlines(out, text);
                let _ = write!(out, "]({url})");
            }
            Inline::Footnote(s) => {
                let _ = write!(out, "[^{s}]");
            }
            Inline::Break => out.push_str("  \n"),
        }
    }
}

fn blocks(out: &mut String, indent: &str, all: &[Block]) {
    for block in all {
        out.push_str(indent);
        match block {
            Block::Paragraph(i) => inlines(out, i),
            Block::Heading(level, i) => {
                out.push_str(&"#".repeat(usize::from(level % 7)));
                out.push(' ');
                inlines(out, i)
            }
            Block::List { ordered, items } => {
                for (n, item) in items.iter().enumerate() {
                    let marker = if *ordered { format!("{n}. ") } else { String::from("* ") };
                    out.push_str(&marker);
                    let inner = format!("{indent}{}", " ".repeat(marker.len()));
                    blocks(out, &inner, item);
                }
            }
            Block::Quote(b) => blocks(out, &format!("{indent}> "), b),
            Block::Code { fence, info, text } => {
                if *fence {
                    let _ = write!(out, "```{info}\n{text}\n```");
                } else {
                    let _ = write!(out, "    {text}");
                }
            }
            Block::Definitions(defs) => {
                for (term, def) in defs {
                    inlines(out, term);
                    let _ = write!(out, "\n{indent}: ");
                    inlines(out, def);
                    out.push('\n');
                }
            }
            Block::Table(rows) => {
                for (n, row) in rows.iter().enumerate() {
                    for cell in row {
                        out.push('|');
                        inlines(out, cell);
                    }
                    out.push_str("|\n");
                    if n == 0 {
                        out.push_str(&"|-".repeat(row.len()));
                        out.push_str("|\n");
                    }
                }
            }
            Block::Html(s) | Block::Raw(s) => out.push_str(s),
            Block::Rule => out.push_str("***"),
        }
        out.push_str("\n\n");
    }
}

fuzz_target!(|doc: Doc| {
    let mut text = String::new();
    blocks(&mut text, "", &doc.blocks);
    let options = pulldown_cmark::Options::from_bits_truncate(u32::from(doc.options));
    let mut html = String::new();
    pulldown_cmark::html::push_html(&mut html, pulldown_cmark::Parser::new_ext(&text, options));
});

//! `checker INPUT`: reads INPUT as the fuzz target does, and tells whether its value is 1-minimal for the panic it raises: no single character of any string or element of any list deleted, no number lowered (to 0 or by one), no `true` made `false`, no block made an earlier variant with empty fields keeps the panic at the same place.
#[path = "../../fuzz/doc.rs"]
mod doc;

use std::panic;
use std::sync::Mutex;

use arbitrary::{Arbitrary, Unstructured};
use doc::{Block, Doc};

static LOCATION: Mutex<Option<String>> = Mutex::new(None);

fn panics_at(doc: &Doc) -> Option<String> {
    *LOCATION.lock().unwrap() = None;
    let result = panic::catch_unwind(|| doc::parse(doc));
    result.err().map(|_| LOCATION.lock().unwrap().clone().unwrap_or_default())
}

/// An edit in words and the value after it.
type Edit<T> = (String, T);

/// `s` with one character deleted, each way.
fn string_edits(s: &str, what: &str) -> Vec<Edit<String>> {
    let deleted = |i: usize| {
        let mut t = s.to_string();
        t.remove(i);
        t
    };
    s.char_indices().map(|(i, c)| (format!("{what}: delete {c:?} at {i}"), deleted(i))).collect()
}

/// A list of strings with one element deleted, or one character of one element.
fn list_edits(items: &[String], what: &str) -> Vec<Edit<Vec<String>>> {
    let mut out = Vec::new();
    for (i, item) in items.iter().enumerate() {
        let mut without = items.to_vec();
        without.remove(i);
        out.push((format!("delete {what} {i}"), without));
        for (edit, text) in string_edits(item, &format!("{what} {i}")) {
            let mut changed = items.to_vec();
            changed[i] = text;
            out.push((edit, changed));
        }
    }
    out
}

/// The block as each earlier variant with empty fields.
fn earlier_variants(block: &Block) -> Vec<Edit<Block>> {
    let variant = match block {
        Block::Paragraph(_) => 0,
        Block::Heading { .. } => 1,
        Block::List(_) => 2,
        Block::Quote(_) => 3,
        Block::Code { .. } => 4,
        Block::DefList { .. } => 5,
    };
    let earlier = [
        Block::Paragraph(String::new()),
        Block::Heading { level: 0, text: String::new() },
        Block::List(Vec::new()),
        Block::Quote(String::new()),
        Block::Code { fence: false, text: String::new() },
    ];
    earlier.into_iter().enumerate().take(variant).map(|(v, e)| (format!("to variant {v}"), e)).collect()
}

/// The block one edit simpler, each way: an earlier variant, or one of its fields simpler.
fn block_edits(block: &Block) -> Vec<Edit<Block>> {
    let mut out = earlier_variants(block);
    match block {
        Block::Paragraph(s) => out.extend(string_edits(s, "text").into_iter().map(|(e, t)| (e, Block::Paragraph(t)))),
        Block::Quote(s) => out.extend(string_edits(s, "text").into_iter().map(|(e, t)| (e, Block::Quote(t)))),
        Block::Heading { level, text } => {
            let with = |level: u8, text: String| Block::Heading { level, text };
            out.extend((*level > 0).then(|| ("level one less".into(), with(level - 1, text.clone()))));
            out.extend(string_edits(text, "text").into_iter().map(|(e, t)| (e, with(*level, t))));
        }
        Block::Code { fence, text } => {
            let with = |fence: bool, text: String| Block::Code { fence, text };
            out.extend(fence.then(|| ("fence false".into(), with(false, text.clone()))));
            out.extend(string_edits(text, "text").into_iter().map(|(e, t)| (e, with(*fence, t))));
        }
        Block::List(items) => out.extend(list_edits(items, "item").into_iter().map(|(e, l)| (e, Block::List(l)))),
        Block::DefList { term, defs } => {
            let with = |term: String, defs: Vec<String>| Block::DefList { term, defs };
            out.extend(string_edits(term, "term").into_iter().map(|(e, t)| (e, with(t, defs.clone()))));
            out.extend(list_edits(defs, "def").into_iter().map(|(e, d)| (e, with(term.clone(), d))));
        }
    }
    out
}

/// The document one edit simpler, each way.
fn simpler(doc: &Doc) -> Vec<Edit<Doc>> {
    let with = |f: &dyn Fn(&mut Doc)| {
        let mut d = doc.clone();
        f(&mut d);
        d
    };
    let mut out = Vec::new();
    if doc.options > 0 {
        out.push(("options to 0".into(), with(&|d| d.options = 0)));
        out.push(("options one less".into(), with(&|d| d.options -= 1)));
    }
    if doc.tight {
        out.push(("tight to false".into(), with(&|d| d.tight = false)));
    }
    for (b, block) in doc.blocks.iter().enumerate() {
        out.push((format!("delete block {b}"), with(&|d| drop(d.blocks.remove(b)))));
        for (edit, changed) in block_edits(block) {
            out.push((format!("block {b} {edit}"), with(&|d| d.blocks[b] = changed.clone())));
        }
    }
    out
}

fn main() {
    panic::set_hook(Box::new(|info| {
        *LOCATION.lock().unwrap() = info.location().map(|l| format!("{}:{}", l.file(), l.line()));
    }));
    let path = std::env::args().nth(1).expect("usage: checker INPUT");
    let data = std::fs::read(&path).expect("read the input");
    let doc = Doc::arbitrary_take_rest(Unstructured::new(&data)).expect("a Doc from any bytes");
    let Some(location) = panics_at(&doc) else {
        println!("no panic");
        std::process::exit(2);
    };
    let still: Vec<String> =
        simpler(&doc).into_iter().filter(|(_, d)| panics_at(d).as_deref() == Some(&location)).map(|(e, _)| e).collect();
    println!("{doc:?}");
    println!("panics at {location}");
    if still.is_empty() {
        println!("1-minimal");
    } else {
        println!("not 1-minimal: {}", still.join("; "));
        std::process::exit(1);
    }
}

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

fn string_edits(s: &str, out: &mut Vec<(String, String)>, what: &str) {
    for (i, c) in s.char_indices() {
        let mut t = s.to_string();
        t.remove(i);
        out.push((format!("{what}: delete {c:?} at {i}"), t));
    }
}

fn simpler(doc: &Doc) -> Vec<(String, Doc)> {
    let mut out = Vec::new();
    let with = |f: &dyn Fn(&mut Doc)| {
        let mut d = doc.clone();
        f(&mut d);
        d
    };
    if doc.options > 0 {
        out.push(("options to 0".into(), with(&|d| d.options = 0)));
        out.push(("options one less".into(), with(&|d| d.options -= 1)));
    }
    if doc.tight {
        out.push(("tight to false".into(), with(&|d| d.tight = false)));
    }
    for b in 0..doc.blocks.len() {
        out.push((
            format!("delete block {b}"),
            with(&|d| {
                d.blocks.remove(b);
            }),
        ));
        let mut strings: Vec<(String, String)> = Vec::new();
        let block = &doc.blocks[b];
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
        for (v, e) in earlier.into_iter().enumerate().take(variant) {
            out.push((format!("block {b} to variant {v}"), with(&|d| d.blocks[b] = e.clone())));
        }
        match block {
            Block::Paragraph(s) | Block::Quote(s) => string_edits(s, &mut strings, "text"),
            Block::Heading { level, text } => {
                string_edits(text, &mut strings, "text");
                if *level > 0 {
                    out.push((
                        format!("block {b} level one less"),
                        with(&|d| {
                            if let Block::Heading { level, .. } = &mut d.blocks[b] {
                                *level -= 1
                            }
                        }),
                    ));
                }
            }
            Block::Code { fence, text } => {
                string_edits(text, &mut strings, "text");
                if *fence {
                    out.push((
                        format!("block {b} fence false"),
                        with(&|d| {
                            if let Block::Code { fence, .. } = &mut d.blocks[b] {
                                *fence = false
                            }
                        }),
                    ));
                }
            }
            Block::List(items) => {
                for (i, item) in items.iter().enumerate() {
                    out.push((
                        format!("block {b} delete item {i}"),
                        with(&|d| {
                            if let Block::List(items) = &mut d.blocks[b] {
                                items.remove(i);
                            }
                        }),
                    ));
                    let mut edits = Vec::new();
                    string_edits(item, &mut edits, &format!("item {i}"));
                    for (e, t) in edits {
                        out.push((
                            format!("block {b} {e}"),
                            with(&|d| {
                                if let Block::List(items) = &mut d.blocks[b] {
                                    items[i] = t.clone()
                                }
                            }),
                        ));
                    }
                }
            }
            Block::DefList { term, defs } => {
                string_edits(term, &mut strings, "term");
                for (i, def) in defs.iter().enumerate() {
                    out.push((
                        format!("block {b} delete def {i}"),
                        with(&|d| {
                            if let Block::DefList { defs, .. } = &mut d.blocks[b] {
                                defs.remove(i);
                            }
                        }),
                    ));
                    let mut edits = Vec::new();
                    string_edits(def, &mut edits, &format!("def {i}"));
                    for (e, t) in edits {
                        out.push((
                            format!("block {b} {e}"),
                            with(&|d| {
                                if let Block::DefList { defs, .. } = &mut d.blocks[b] {
                                    defs[i] = t.clone()
                                }
                            }),
                        ));
                    }
                }
            }
        }
        for (e, t) in strings {
            out.push((
                format!("block {b} {e}"),
                with(&|d| match &mut d.blocks[b] {
                    Block::Paragraph(s)
                    | Block::Quote(s)
                    | Block::Heading { text: s, .. }
                    | Block::Code { text: s, .. } => *s = t.clone(),
                    Block::DefList { term, .. } => *term = t.clone(),
                    Block::List(_) => {}
                }),
            ));
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

//! A function's name as signatures compare it, the same whichever mangling
//! the compiler used.
//!
//! rustc mangles with the legacy scheme on stable (until Rust 1.97) and with
//! v0 on nightly, or wherever it takes itself for one (`RUSTC_BOOTSTRAP=1`);
//! the standard library a nightly ships is v0 either way. A symbolizer gives
//! one function two names:
//!
//! | | legacy (as `llvm-symbolizer` 14 leaves it) | v0 |
//! |---|---|---|
//! | inherent method | `a::Parser::value::h0123…` | `<a::Parser>::value` |
//! | generic type | `a::Gen$LT$T$GT$::run::h…` | `<a::Gen<u8>>::run` |
//! | generic function | `a::generic::h…` | `a::generic::<u8>` |
//! | closure | `a::f::_$u7b$$u7b$closure$u7d$$u7d$::h…` | `a::f::{closure#0}` |
//! | trait impl | `_$LT$a..P$u20$as$u20$core..fmt..Debug$GT$::fmt::h…` | `<a::P as core::fmt::Debug>::fmt` |
//!
//! Both come out as one [`canonical`] name: the hash dropped, legacy's
//! escapes decoded, generic arguments dropped (legacy names an impl's
//! parameters, v0 a monomorphization's types: only the path is common),
//! `<path>::` unwrapped where it is not `<Type as Trait>`, and a closure
//! (or another item v0 numbers) without its number:
//! `a::Gen::run`, `a::f::{{closure}}`, `<a::P as core::fmt::Debug>::fmt`.

/// `function` as a symbolizer printed it, in the one form both manglings share.
pub fn canonical(function: &str) -> String {
    let unescaped = unescape_legacy(strip_hash(function.trim()));
    let plain = without_generic_arguments(&impls_as_qualified_paths(&unescaped));
    numbered_items_unnumbered(&unwrap_inherent(&plain))
}

/// `crate::f::h0123456789abcdef` -> `crate::f` (legacy's hash).
fn strip_hash(function: &str) -> &str {
    match function.rsplit_once("::h") {
        Some((head, hash)) if hash.len() == 16 && hash.bytes().all(|b| b.is_ascii_hexdigit()) => head,
        _ => function,
    }
}

/// Legacy's escapes decoded: `$LT$` `<`, `$GT$` `>`, `$u20$` ` `, `$RF$`
/// `&`, `..` `::`, an element's leading `_$` as `$`; names without a `$`
/// are returned as they are.
fn unescape_legacy(name: &str) -> String {
    if !name.contains('$') {
        return name.to_owned();
    }
    let mut out = String::with_capacity(name.len());
    for (i, element) in name.split("::").enumerate() {
        if i > 0 {
            out.push_str("::");
        }
        let element = if element.starts_with("_$") { &element[1..] } else { element };
        unescape_element(element, &mut out);
    }
    out
}

/// One `::`-separated element of a legacy name, decoded onto `out`.
fn unescape_element(mut rest: &str, out: &mut String) {
    while !rest.is_empty() {
        if let Some(after) = rest.strip_prefix("..") {
            out.push_str("::");
            rest = after;
            continue;
        }
        if rest.starts_with('$') {
            if let Some((decoded, after)) = escape(&rest[1..]) {
                out.push(decoded);
                rest = after;
                continue;
            }
        }
        let c = rest.chars().next().expect("not empty");
        out.push(c);
        rest = &rest[c.len_utf8()..];
    }
}

/// The escape at the start of `rest` (after its opening `$`): the character
/// and what follows the closing `$`.
fn escape(rest: &str) -> Option<(char, &str)> {
    let (code, after) = rest.split_once('$')?;
    let decoded = match code {
        "SP" => '@',
        "BP" => '*',
        "RF" => '&',
        "LT" => '<',
        "GT" => '>',
        "LP" => '(',
        "RP" => ')',
        "C" => ',',
        _ => char::from_u32(u32::from_str_radix(code.strip_prefix('u')?, 16).ok()?)?,
    };
    Some((decoded, after))
}

/// Legacy's `module::<impl Trait for Type>` as v0 writes it,
/// `<Type as Trait>`, and `module::<impl Type>` as `<Type>` (legacy names a
/// trait impl's generic method, and the items inside it, so).
fn impls_as_qualified_paths(name: &str) -> String {
    let mut out = name.to_owned();
    while let Some(open) = out.find("::<impl ").map(|at| at + 2) {
        let Some(close) = matching_close(out.as_bytes(), open) else { break };
        let start =
            out[..open - 2].rfind(|c: char| !(c.is_alphanumeric() || c == '_' || c == ':')).map_or(0, |at| at + 1);
        let inner = &out[open + "<impl ".len()..close];
        let qualified = match top_level(inner, " for ") {
            Some(at) => format!("<{} as {}>", &inner[at + " for ".len()..], &inner[..at]),
            None => format!("<{inner}>"),
        };
        out.replace_range(start..=close, &qualified);
    }
    out
}

/// Where `needle` first occurs in `text` outside any `<...>`.
fn top_level(text: &str, needle: &str) -> Option<usize> {
    let mut depth = 0usize;
    for (at, c) in text.char_indices() {
        match c {
            '<' => depth += 1,
            '>' if !text[..at].ends_with('-') => depth = depth.saturating_sub(1),
            _ if depth == 0 && text[at..].starts_with(needle) => return Some(at),
            _ => {}
        }
    }
    None
}

/// Generic arguments removed: `<` right after a name or after `::` opens
/// them (`Vec<u8>`, `f::<u8>`; the `::` goes too), through its matching `>`
/// (an `->` inside is not one). A `<` elsewhere opens a qualified path
/// (`<T as Trait>`) and is kept.
fn without_generic_arguments(name: &str) -> String {
    let bytes = name.as_bytes();
    let mut out = String::with_capacity(name.len());
    let mut i = 0;
    while i < bytes.len() {
        let opens_arguments = bytes[i] == b'<' && i > 0 && is_name_byte(bytes[i - 1]);
        let turbofish = name[i..].starts_with("::<");
        if opens_arguments || turbofish {
            let open = if turbofish { i + 2 } else { i };
            if let Some(close) = matching_close(bytes, open) {
                i = close + 1;
                continue;
            }
        }
        let c = name[i..].chars().next().expect("on a char boundary");
        out.push(c);
        i += c.len_utf8();
    }
    out
}

fn is_name_byte(byte: u8) -> bool {
    byte.is_ascii_alphanumeric() || byte == b'_' || byte >= 0x80
}

/// The index of the `>` that closes the `<` at `open`, skipping `->`.
fn matching_close(bytes: &[u8], open: usize) -> Option<usize> {
    let mut depth = 0usize;
    for (i, &byte) in bytes.iter().enumerate().skip(open) {
        match byte {
            b'<' => depth += 1,
            b'>' if i > 0 && bytes[i - 1] == b'-' => {}
            b'>' => {
                depth -= 1;
                if depth == 0 {
                    return Some(i);
                }
            }
            _ => {}
        }
    }
    None
}

/// `<a::Parser>::value` -> `a::Parser::value`: a leading qualified path
/// that names a type alone (no ` as `) is the type's path, as legacy writes
/// an inherent method. `<T as Trait>::f` is kept.
fn unwrap_inherent(name: &str) -> String {
    if !name.starts_with('<') {
        return name.to_owned();
    }
    let Some(close) = matching_close(name.as_bytes(), 0) else { return name.to_owned() };
    let inner = &name[1..close];
    if inner.contains(" as ") || !name[close + 1..].starts_with("::") {
        return name.to_owned();
    }
    format!("{inner}{}", &name[close + 1..])
}

/// `{closure#0}` -> `{{closure}}`, as legacy names it (v0 numbers closures,
/// shims and constants; legacy does not).
fn numbered_items_unnumbered(name: &str) -> String {
    let mut out = String::with_capacity(name.len());
    let mut rest = name;
    while let Some(open) = rest.find('{') {
        out.push_str(&rest[..open]);
        let after = &rest[open..];
        let item = after.find('}').map(|close| &after[1..close]);
        match item.and_then(|item| item.split_once('#')) {
            Some((kind, number)) if !number.is_empty() && number.bytes().all(|b| b.is_ascii_digit()) => {
                out.push_str("{{");
                out.push_str(kind);
                out.push_str("}}");
                rest = &after[kind.len() + number.len() + 3..];
            }
            _ => {
                out.push('{');
                rest = &after[1..];
            }
        }
    }
    out.push_str(rest);
    out
}

#[cfg(test)]
mod tests {
    use super::canonical;

    /// The pairs `llvm-symbolizer` 14 printed for one program built with
    /// `-Csymbol-mangling-version=legacy` and `=v0` (nightly, AddressSanitizer).
    #[test]
    fn legacy_and_v0_names_of_one_function_are_one_name() {
        let pairs = [
            (
                "v0test::inner::Parser::value::_$u7b$$u7b$closure$u7d$$u7d$::h9c6a3d23b591f081",
                "<v0test::inner::Parser>::value::{closure#0}",
                "v0test::inner::Parser::value::{{closure}}",
            ),
            ("v0test::inner::Parser::value::hc9fc7641e968a08f", "<v0test::inner::Parser>::value", "v0test::inner::Parser::value"),
            ("v0test::inner::generic_fn::hf0552e02c63d40b9", "v0test::inner::generic_fn::<u8>", "v0test::inner::generic_fn"),
            ("v0test::inner::Gen$LT$T$GT$::run::hc2505d82ce217b08", "<v0test::inner::Gen<u8>>::run", "v0test::inner::Gen::run"),
            (
                "_$LT$serde_json..value..de..$LT$impl$u20$serde_core..de..Deserialize$u20$for$u20$serde_json..value..Value$GT$..deserialize..ValueVisitor$u20$as$u20$serde_core..de..Visitor$GT$::visit_bool::h880a9e9c1a768db0",
                "<<serde_json::value::Value as serde_core::de::Deserialize>::deserialize::ValueVisitor as serde_core::de::Visitor>::visit_bool::<serde_json::error::Error>",
                "<<serde_json::value::Value as serde_core::de::Deserialize>::deserialize::ValueVisitor as serde_core::de::Visitor>::visit_bool",
            ),
            (
                "_$LT$v0test..inner..Parser$u20$as$u20$core..fmt..Debug$GT$::fmt::ha9c2146e8618c5d6",
                "<v0test::inner::Parser as core::fmt::Debug>::fmt",
                "<v0test::inner::Parser as core::fmt::Debug>::fmt",
            ),
        ];
        for (legacy, v0, expected) in pairs {
            assert_eq!(canonical(legacy), expected, "{legacy}");
            assert_eq!(canonical(v0), expected, "{v0}");
        }
    }

    #[test]
    fn qualified_paths_arrows_and_plain_names_are_kept() {
        assert_eq!(
            canonical("<alloc::vec::Vec<u8> as core::ops::drop::Drop>::drop"),
            "<alloc::vec::Vec as core::ops::drop::Drop>::drop"
        );
        assert_eq!(canonical("<fn(u8) -> u8 as a::Call>::call"), "<fn(u8) -> u8 as a::Call>::call");
        assert_eq!(canonical("<a::B<fn() -> u8>>::f"), "a::B::f");
        assert_eq!(canonical("planted::vm::run"), "planted::vm::run");
        assert_eq!(canonical("<unknown>"), "<unknown>");
        assert_eq!(canonical("__asan_memcpy"), "__asan_memcpy");
        assert_eq!(canonical("a::f::{shim:vtable#0}"), "a::f::{{shim:vtable}}");
        assert_eq!(canonical("a::{weird"), "a::{weird");
        assert_eq!(canonical("core::slice::<impl [T]>::len"), "[T]::len");
        assert_eq!(canonical("a::<impl b::C<u8> for a::D<T>>::f::{{closure}}"), "<a::D as b::C>::f::{{closure}}");
    }
}

//! The random types and values: trees of structs, enums, `Vec`, `String`, `Option`, integers of every width and `bool`, and the simplest value of each.

use std::fmt;
use std::ops::Range;

/// The widths of Rust's integers (`u8` to `u128`) in bytes.
pub(super) const WIDTHS: [usize; 5] = [1, 2, 4, 8, 16];

/// A random type, as a fuzz target could declare its input.
#[derive(Clone, Debug)]
pub(crate) enum Ty {
    /// An integer this many bytes wide (read unsigned).
    Int(usize),
    /// A `bool`.
    Bool,
    /// A `String`.
    Str,
    /// A `Vec` of the type.
    Vec(Box<Ty>),
    /// An `Option` of the type.
    Opt(Box<Ty>),
    /// A derived struct: its name and its fields' types.
    Struct(String, Vec<Ty>),
    /// A derived enum: its name and each variant's fields' types.
    Enum(String, Vec<Vec<Ty>>),
}

/// A value of a [`Ty`].
#[derive(Clone, Debug, PartialEq, Eq)]
pub(crate) enum Val {
    /// An integer (of any width).
    Int(u128),
    /// A `bool`.
    Bool(bool),
    /// A string's bytes (ASCII when generated; a decoded one is valid UTF-8).
    Str(Vec<u8>),
    /// A vector's elements.
    Vec(Vec<Val>),
    /// An option.
    Opt(Option<Box<Val>>),
    /// A struct's fields.
    Struct(Vec<Val>),
    /// An enum's variant index and that variant's fields.
    Enum(usize, Vec<Val>),
}

/// Items displayed one after another, separated by commas.
pub(super) fn joined<T: fmt::Display>(items: &[T]) -> String {
    items.iter().map(ToString::to_string).collect::<Vec<_>>().join(", ")
}

impl fmt::Display for Ty {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Ty::Int(width) => write!(f, "u{}", width * 8),
            Ty::Bool => f.write_str("bool"),
            Ty::Str => f.write_str("String"),
            Ty::Vec(t) => write!(f, "Vec<{t}>"),
            Ty::Opt(t) => write!(f, "Option<{t}>"),
            Ty::Struct(name, fields) => write!(f, "{name} {{ {} }}", joined(fields)),
            Ty::Enum(name, variants) => {
                let variants: Vec<String> =
                    variants.iter().enumerate().map(|(v, fields)| format!("V{v}({})", joined(fields))).collect();
                write!(f, "{name} {{ {} }}", variants.join(" | "))
            }
        }
    }
}

impl fmt::Display for Val {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Val::Int(x) => write!(f, "{x}"),
            Val::Bool(b) => write!(f, "{b}"),
            Val::Str(s) => write!(f, "{:?}", String::from_utf8_lossy(s)),
            Val::Vec(items) => write!(f, "[{}]", joined(items)),
            Val::Opt(None) => f.write_str("None"),
            Val::Opt(Some(x)) => write!(f, "Some({x})"),
            Val::Struct(fields) => write!(f, "{{{}}}", joined(fields)),
            Val::Enum(v, fields) => write!(f, "V{v}({})", joined(fields)),
        }
    }
}

/// A random type `depth` levels below the top; only leaves from depth 3 on.
/// `names` counts the derived types named so far (each gets its own name).
pub(super) fn random_ty(rng: &mut fastrand::Rng, names: &mut usize, depth: u32) -> Ty {
    let kinds = if depth >= 3 { 4 } else { 11 };
    match rng.usize(..kinds) {
        0 | 1 => Ty::Int(WIDTHS[rng.usize(..WIDTHS.len())]),
        2 => Ty::Bool,
        3 | 4 => Ty::Str,
        5 => Ty::Vec(Box::new(random_ty(rng, names, depth + 1))),
        6 => Ty::Opt(Box::new(random_ty(rng, names, depth + 1))),
        7 | 8 => random_struct(rng, names, depth, 1..4),
        _ => random_enum(rng, names, depth),
    }
}

/// A random struct with a number of fields in `fields`.
pub(super) fn random_struct(rng: &mut fastrand::Rng, names: &mut usize, depth: u32, fields: Range<usize>) -> Ty {
    *names += 1;
    let name = format!("S{names}");
    Ty::Struct(name, (0..rng.usize(fields)).map(|_| random_ty(rng, names, depth + 1)).collect())
}

/// A random enum of 2 to 4 variants of 0 to 2 fields each.
pub(super) fn random_enum(rng: &mut fastrand::Rng, names: &mut usize, depth: u32) -> Ty {
    *names += 1;
    let name = format!("E{names}");
    let variants = (0..rng.usize(2..5))
        .map(|_| (0..rng.usize(0..3)).map(|_| random_ty(rng, names, depth + 1)).collect())
        .collect();
    Ty::Enum(name, variants)
}

/// The largest integer `width` bytes hold.
pub(super) fn int_max(width: usize) -> u128 {
    u128::MAX >> (128 - 8 * width)
}

/// A printable ASCII character (strings stay valid UTF-8 as generated).
pub(super) fn printable(rng: &mut fastrand::Rng) -> u8 {
    rng.u8(b' '..=b'~')
}

/// A random value of `ty`, vectors of at most `most` elements.
pub(super) fn random_val(rng: &mut fastrand::Rng, ty: &Ty, most: usize) -> Val {
    match ty {
        Ty::Int(width) if rng.bool() => Val::Int(rng.u128(..=20).min(int_max(*width))),
        Ty::Int(width) => Val::Int(rng.u128(..=int_max(*width))),
        Ty::Bool => Val::Bool(rng.bool()),
        Ty::Str => Val::Str((0..rng.usize(..8)).map(|_| printable(rng)).collect()),
        Ty::Vec(t) => Val::Vec((0..rng.usize(..=most)).map(|_| random_val(rng, t, most)).collect()),
        Ty::Opt(t) => Val::Opt(rng.bool().then(|| Box::new(random_val(rng, t, most)))),
        Ty::Struct(_, fields) => Val::Struct(fields.iter().map(|t| random_val(rng, t, most)).collect()),
        Ty::Enum(_, variants) => {
            let v = rng.usize(..variants.len());
            Val::Enum(v, variants[v].iter().map(|t| random_val(rng, t, most)).collect())
        }
    }
}

/// The simplest value of `ty`: zeros, `false`, empty, `None`, the first variant.
pub(super) fn zero(ty: &Ty) -> Val {
    match ty {
        Ty::Int(_) => Val::Int(0),
        Ty::Bool => Val::Bool(false),
        Ty::Str => Val::Str(Vec::new()),
        Ty::Vec(_) => Val::Vec(Vec::new()),
        Ty::Opt(_) => Val::Opt(None),
        Ty::Struct(_, fields) => Val::Struct(fields.iter().map(zero).collect()),
        Ty::Enum(_, variants) => Val::Enum(0, variants[0].iter().map(zero).collect()),
    }
}

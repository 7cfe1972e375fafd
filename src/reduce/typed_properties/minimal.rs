//! 1-minimal at the value level: the values one edit simpler than a result, as a person would try them, each of which must lose the bug.
//!
//! The edits: delete one element of a vector or one character of a string,
//! lower one integer (to 0, or by one), one character (to `'0'`, or to the
//! one before it in a person's order, `src/reduce/text.rs`), a `true` to
//! `false`, a `Some` to `None`, and switch an enum to an earlier variant
//! with its simplest fields, when that is written in no more bytes.

use super::encoding::encode_value;
use super::types::{zero, Ty, Val};
use crate::reduce::text::{of_rank, rank};

/// One value one edit simpler than another, and the edit in words.
pub(super) struct Simpler {
    /// What was changed, e.g. `top.1[0]: delete 'x'`.
    pub(super) edit: String,
    /// The whole value after the edit.
    pub(super) value: Val,
}

/// Every value one edit simpler than `value` (of `ty`).
pub(super) fn simpler(value: &Val, ty: &Ty) -> Vec<Simpler> {
    let mut out = Vec::new();
    edits(value, ty, "top", &mut |edit, v| out.push(Simpler { edit, value: v }));
    let len = encode_value(value, ty, &[]).len();
    // A switch of variant that is written longer is not simpler to the reducer's order.
    out.retain(|s| !s.edit.contains("switch") || encode_value(&s.value, ty, &[]).len() <= len);
    out
}

/// A sink for edits: the edit in words and the whole value after it.
type Sink<'s> = &'s mut dyn FnMut(String, Val);

/// Calls `sink` with each edit of `value` (of `ty`, at `path`) or of a value
/// inside it, the edited value wrapped back into a copy of `value`.
fn edits(value: &Val, ty: &Ty, path: &str, sink: Sink<'_>) {
    own_edits(value, ty, path, sink);
    match (value, ty) {
        (Val::Vec(items), Ty::Vec(t)) => {
            for (i, item) in items.iter().enumerate() {
                edits(item, t, &format!("{path}[{i}]"), &mut |e, x| {
                    let mut copy = items.clone();
                    copy[i] = x;
                    sink(e, Val::Vec(copy));
                });
            }
        }
        (Val::Opt(Some(x)), Ty::Opt(t)) => {
            edits(x, t, &format!("{path}.Some"), &mut |e, x| sink(e, Val::Opt(Some(Box::new(x)))))
        }
        (Val::Struct(values), Ty::Struct(_, fields)) => fields_edits(values, fields, path, &Val::Struct, sink),
        (Val::Enum(v, values), Ty::Enum(_, variants)) => {
            let v = *v;
            fields_edits(values, &variants[v], &format!("{path}.V{v}"), &|c| Val::Enum(v, c), sink);
        }
        _ => {}
    }
}

/// [`edits`] inside each of a struct's or a variant's fields, rebuilt with `make`.
fn fields_edits(values: &[Val], tys: &[Ty], path: &str, make: &dyn Fn(Vec<Val>) -> Val, sink: Sink<'_>) {
    for (i, (x, t)) in values.iter().zip(tys).enumerate() {
        edits(x, t, &format!("{path}.{i}"), &mut |e, x| {
            let mut copy = values.to_vec();
            copy[i] = x;
            sink(e, make(copy));
        });
    }
}

/// The edits of `value` itself (not of the values inside it).
fn own_edits(value: &Val, ty: &Ty, path: &str, sink: Sink<'_>) {
    match (value, ty) {
        (Val::Int(x), _) if *x > 0 => {
            sink(format!("{path}: {x} to 0"), Val::Int(0));
            sink(format!("{path}: {x} to {}", x - 1), Val::Int(x - 1));
        }
        (Val::Bool(true), _) => sink(format!("{path}: true to false"), Val::Bool(false)),
        (Val::Str(s), _) => string_edits(s, path, sink),
        (Val::Vec(items), _) => {
            for i in 0..items.len() {
                let mut copy = items.clone();
                copy.remove(i);
                sink(format!("{path}: delete [{i}]"), Val::Vec(copy));
            }
        }
        (Val::Opt(Some(_)), _) => sink(format!("{path}: None"), Val::Opt(None)),
        (Val::Enum(v, _), Ty::Enum(_, variants)) => {
            for (w, fields) in variants[..*v].iter().enumerate() {
                sink(format!("{path}: switch V{v} to V{w}"), Val::Enum(w, fields.iter().map(zero).collect()));
            }
        }
        _ => {}
    }
}

/// A string's edits: each character deleted, lowered to `'0'` and to the one before it.
fn string_edits(s: &[u8], path: &str, sink: Sink<'_>) {
    let text = std::str::from_utf8(s).expect("a decoded string is UTF-8");
    for (i, c) in text.char_indices() {
        let (before, after) = (&s[..i], &s[i + c.len_utf8()..]);
        let with = |middle: &[u8]| Val::Str([before, middle, after].concat());
        sink(format!("{path}: delete {c:?} at {i}"), with(&[]));
        let r = if c.is_ascii() { rank(c as u8) } else { u8::MAX };
        if r > 0 {
            sink(format!("{path}: {c:?} at {i} to '0'"), with(&[of_rank(0)]));
            let one_less = of_rank(r - 1);
            if one_less.is_ascii() {
                sink(format!("{path}: {c:?} at {i} to {:?}", char::from(one_less)), with(&[one_less]));
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn every_edit_is_one_step_simpler() {
        let ty = Ty::Struct(
            "S".into(),
            vec![Ty::Str, Ty::Vec(Box::new(Ty::Int(1))), Ty::Enum("E".into(), vec![vec![], vec![Ty::Bool]])],
        );
        let value = Val::Struct(vec![
            Val::Str(b"b0".to_vec()),
            Val::Vec(vec![Val::Int(2)]),
            Val::Enum(1, vec![Val::Bool(true)]),
        ]);
        let edits: Vec<String> = simpler(&value, &ty).into_iter().map(|s| s.edit).collect();
        let expected = [
            "top.0: delete 'b' at 0",
            "top.0: 'b' at 0 to '0'",
            "top.0: 'b' at 0 to 'a'",
            "top.0: delete '0' at 1",
            "top.1: delete [0]",
            "top.1[0]: 2 to 0",
            "top.1[0]: 2 to 1",
            "top.2: switch V1 to V0",
            "top.2.V1.0: true to false",
        ];
        assert_eq!(edits, expected);
    }
}

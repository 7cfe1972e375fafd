//! Planted predicates: a path into a value and what the target asks of the value there, planted into a random value, and noise the predicate does not look at.

use std::fmt;

use super::types::{printable, random_val, Ty, Val};

/// One step of a path into a value.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(super) enum Step {
    /// A struct's field.
    Field(usize),
    /// A field of an enum that is this variant: (variant, field).
    Variant(usize, usize),
    /// The value in a `Some`.
    Some,
    /// A vector's first element.
    First,
}

/// What the value at the end of a predicate's path must be.
#[derive(Clone, Copy, Debug)]
pub(super) enum Target {
    /// An integer at least this large.
    AtLeast(u128),
    /// A string that contains this byte.
    Contains(u8),
    /// A vector of at least this many elements.
    Len(usize),
    /// An enum of this variant.
    Is(usize),
}

/// A planted predicate: the value at `path` (which must exist) meets `target`.
#[derive(Clone, Debug)]
pub(super) struct Predicate {
    /// The way from the top value to the one the target is about.
    pub(super) path: Vec<Step>,
    /// What that value must be.
    target: Target,
}

impl Predicate {
    /// Whether `value` satisfies the predicate (false when the path does not exist in it).
    pub(super) fn holds(&self, value: &Val) -> bool {
        match (at(value, &self.path), self.target) {
            (Some(Val::Int(x)), Target::AtLeast(t)) => *x >= t,
            (Some(Val::Str(s)), Target::Contains(b)) => s.contains(&b),
            (Some(Val::Vec(items)), Target::Len(m)) => items.len() >= m,
            (Some(Val::Enum(v, _)), Target::Is(w)) => *v == w,
            _ => false,
        }
    }
}

impl fmt::Display for Predicate {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str("top")?;
        for step in &self.path {
            match step {
                Step::Field(i) => write!(f, ".{i}")?,
                Step::Variant(v, i) => write!(f, ".V{v}.{i}")?,
                Step::Some => f.write_str(".Some")?,
                Step::First => f.write_str("[0]")?,
            }
        }
        match self.target {
            Target::AtLeast(t) => write!(f, " >= {t}"),
            Target::Contains(b) => write!(f, " contains {:?}", char::from(b)),
            Target::Len(m) => write!(f, " has >= {m} elements"),
            Target::Is(v) => write!(f, " is V{v}"),
        }
    }
}

/// The value at `path` in `value`, if there is one.
pub(super) fn at<'v>(value: &'v Val, path: &[Step]) -> Option<&'v Val> {
    let Some((step, rest)) = path.split_first() else { return Some(value) };
    let child = match (step, value) {
        (Step::Field(i), Val::Struct(fields)) => fields.get(*i)?,
        (Step::Variant(v, i), Val::Enum(w, fields)) if v == w => fields.get(*i)?,
        (Step::Some, Val::Opt(Some(x))) => x,
        (Step::First, Val::Vec(items)) => items.first()?,
        _ => return None,
    };
    at(child, rest)
}

/// The types directly inside `ty`, each with the step that leads to it.
pub(super) fn children(ty: &Ty) -> Vec<(Step, &Ty)> {
    match ty {
        Ty::Struct(_, fields) => fields.iter().enumerate().map(|(i, t)| (Step::Field(i), t)).collect(),
        Ty::Enum(_, variants) => variants
            .iter()
            .enumerate()
            .flat_map(|(v, fields)| fields.iter().enumerate().map(move |(i, t)| (Step::Variant(v, i), t)))
            .collect(),
        Ty::Opt(t) => vec![(Step::Some, &**t)],
        Ty::Vec(t) => vec![(Step::First, &**t)],
        Ty::Int(_) | Ty::Bool | Ty::Str => Vec::new(),
    }
}

/// Every path in `ty` (below `path`) to a value a target can be about.
pub(super) fn target_paths<'t>(ty: &'t Ty, path: &mut Vec<Step>, out: &mut Vec<(Vec<Step>, &'t Ty)>) {
    if matches!(ty, Ty::Int(_) | Ty::Str | Ty::Vec(_) | Ty::Enum(..)) {
        out.push((path.clone(), ty));
    }
    for (step, child) in children(ty) {
        path.push(step);
        target_paths(child, path, out);
        path.pop();
    }
}

/// A random predicate on values of `ty`; `None` when `ty` holds nothing a target can be about.
pub(super) fn random_predicate(rng: &mut fastrand::Rng, ty: &Ty) -> Option<Predicate> {
    let mut paths = Vec::new();
    target_paths(ty, &mut Vec::new(), &mut paths);
    if paths.is_empty() {
        return None;
    }
    let (path, target_ty) = paths.swap_remove(rng.usize(..paths.len()));
    let target = match target_ty {
        Ty::Int(1) => Target::AtLeast(rng.u128(1..=255)),
        Ty::Int(_) => Target::AtLeast(rng.u128(1..=3000)),
        Ty::Str if rng.bool() => Target::Contains(rng.u8(b'a'..=b'z')),
        Ty::Str => Target::Contains(rng.u8(b'A'..=b'Z')),
        Ty::Vec(_) => Target::Len(rng.usize(1..=3)),
        Ty::Enum(_, variants) => Target::Is(rng.usize(..variants.len())),
        _ => unreachable!("target_paths gives only integers, strings, vectors and enums"),
    };
    Some(Predicate { path, target })
}

/// A fresh value of a type, for what a predicate's path needs and a value lacks.
pub(super) type Fresh<'f> = &'f mut dyn FnMut(&Ty) -> Val;

/// Makes `value` (of `ty`) satisfy `predicate`: what its path needs is
/// created with `fresh` (a `Some`, a first element, a variant's fields),
/// then the value there is changed as little as the target needs.
pub(super) fn plant(value: &mut Val, ty: &Ty, predicate: &Predicate, fresh: Fresh<'_>) {
    let (mut value, mut ty) = (value, ty);
    for step in &predicate.path {
        (value, ty) = step_into(value, ty, *step, fresh);
    }
    match (value, ty, predicate.target) {
        (Val::Int(x), _, Target::AtLeast(t)) => *x = (*x).max(t),
        (Val::Str(s), _, Target::Contains(b)) if !s.contains(&b) => s.insert(s.len() / 2, b),
        (Val::Str(_), _, Target::Contains(_)) => {}
        (Val::Vec(items), Ty::Vec(t), Target::Len(m)) => {
            while items.len() < m {
                items.push(fresh(t));
            }
        }
        (value, Ty::Enum(_, variants), Target::Is(v)) => be_variant(value, variants, v, fresh),
        _ => panic!("a predicate's target that does not fit its type"),
    }
}

/// Makes `value` (of an enum of `variants`) variant `v`, keeping it if it is.
pub(super) fn be_variant(value: &mut Val, variants: &[Vec<Ty>], v: usize, fresh: Fresh<'_>) {
    if !matches!(value, Val::Enum(w, _) if *w == v) {
        *value = Val::Enum(v, variants[v].iter().map(fresh).collect());
    }
}

/// One step of [`plant`]'s walk: the value (and its type) `step` leads to, created when missing.
pub(super) fn step_into<'v, 't>(value: &'v mut Val, ty: &'t Ty, step: Step, fresh: Fresh<'_>) -> (&'v mut Val, &'t Ty) {
    match (step, ty, value) {
        (Step::Field(i), Ty::Struct(_, fields), Val::Struct(values)) => (&mut values[i], &fields[i]),
        (Step::Variant(v, i), Ty::Enum(_, variants), value) => {
            be_variant(value, variants, v, fresh);
            let Val::Enum(_, values) = value else { unreachable!("just made an enum") };
            (&mut values[i], &variants[v][i])
        }
        (Step::Some, Ty::Opt(t), Val::Opt(inner)) => (&mut **inner.get_or_insert_with(|| Box::new(fresh(t))), &**t),
        (Step::First, Ty::Vec(t), Val::Vec(items)) => {
            if items.is_empty() {
                items.push(fresh(t));
            }
            (&mut items[0], &**t)
        }
        _ => panic!("a path step that does not fit its type"),
    }
}

/// The values directly inside `value` (of `ty`), each with its type and
/// the step that leads to it (`None` for a vector's elements after the first).
pub(super) fn children_mut<'v, 't>(value: &'v mut Val, ty: &'t Ty) -> Vec<(Option<Step>, &'v mut Val, &'t Ty)> {
    match (value, ty) {
        (Val::Struct(values), Ty::Struct(_, fields)) => {
            values.iter_mut().zip(fields).enumerate().map(|(i, (x, t))| (Some(Step::Field(i)), x, t)).collect()
        }
        (Val::Enum(v, values), Ty::Enum(_, variants)) => {
            let v = *v;
            values
                .iter_mut()
                .zip(&variants[v])
                .enumerate()
                .map(|(i, (x, t))| (Some(Step::Variant(v, i)), x, t))
                .collect()
        }
        (Val::Opt(Some(x)), Ty::Opt(t)) => vec![(Some(Step::Some), &mut **x, &**t)],
        (Val::Vec(items), Ty::Vec(t)) => {
            items.iter_mut().enumerate().map(|(i, x)| ((i == 0).then_some(Step::First), x, &**t)).collect()
        }
        _ => Vec::new(),
    }
}

/// Adds noise to `value` (of `ty`) that leaves the predicate as it was:
/// `path` is what is left of its path when `value` is on it (`None` off it).
/// Off the path a value may be replaced by a random one; every vector gets
/// elements after its own (the first stays first) and every string
/// characters after its own, which no target can tell (at least so many
/// elements, contains a byte).
pub(super) fn add_noise(rng: &mut fastrand::Rng, value: &mut Val, ty: &Ty, path: Option<&[Step]>) {
    if path.is_none() && rng.usize(..4) == 0 {
        *value = random_val(rng, ty, 3);
    }
    match (&mut *value, ty) {
        (Val::Vec(items), Ty::Vec(t)) => items.extend((0..rng.usize(1..=2)).map(|_| random_val(rng, t, 2))),
        (Val::Str(s), _) => s.extend((0..rng.usize(1..=3)).map(|_| printable(rng))),
        _ => {}
    }
    let next = path.and_then(|p| p.split_first());
    for (step, child, child_ty) in children_mut(value, ty) {
        let child_path = match next {
            Some((s, rest)) if step == Some(*s) => Some(rest),
            _ => None,
        };
        add_noise(rng, child, child_ty, child_path);
    }
}

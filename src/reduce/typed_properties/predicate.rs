//! Planted predicates: paths into a value and what the target asks of the values there (structure inside strings among them), planted into a random value, and noise the predicate does not look at.

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
    /// A string that holds these characters in this order, anything between.
    Subsequence([u8; 3]),
    /// A string with a blank line (`"\n\n"`) and a character other than a
    /// newline before it and after it: a paragraph break, as markdown's.
    BlankLine,
    /// A string that holds at least this many of this character.
    Count(u8, usize),
}

impl Target {
    /// Whether a string's bytes meet a string target.
    fn holds_for_string(self, s: &[u8]) -> bool {
        match self {
            Target::Contains(b) => s.contains(&b),
            Target::Subsequence(seq) => {
                let mut rest = s.iter();
                seq.iter().all(|c| rest.any(|b| b == c))
            }
            Target::BlankLine => (0..s.len().saturating_sub(1)).any(|i| {
                &s[i..i + 2] == b"\n\n" && s[..i].iter().any(|&b| b != b'\n') && s[i + 2..].iter().any(|&b| b != b'\n')
            }),
            Target::Count(c, n) => s.iter().filter(|&&b| b == c).count() >= n,
            Target::AtLeast(_) | Target::Len(_) | Target::Is(_) => false,
        }
    }
}

/// One clause of a predicate: the value at `path` (which must exist) meets `target`.
#[derive(Clone, Debug)]
pub(super) struct Clause {
    /// The way from the top value to the one the target is about.
    pub(super) path: Vec<Step>,
    /// What that value must be.
    target: Target,
}

impl Clause {
    /// Whether `value` satisfies the clause (false when the path does not exist in it).
    fn holds(&self, value: &Val) -> bool {
        match (at(value, &self.path), self.target) {
            (Some(Val::Int(x)), Target::AtLeast(t)) => *x >= t,
            (Some(Val::Str(s)), target) => target.holds_for_string(s),
            (Some(Val::Vec(items)), Target::Len(m)) => items.len() >= m,
            (Some(Val::Enum(v, _)), Target::Is(w)) => *v == w,
            _ => false,
        }
    }
}

/// A planted predicate: every clause holds (a target crashes when all its conditions meet).
#[derive(Clone, Debug)]
pub(super) struct Predicate {
    /// The clauses, each about the value at its own path.
    pub(super) clauses: Vec<Clause>,
}

impl Predicate {
    /// Whether `value` satisfies every clause.
    pub(super) fn holds(&self, value: &Val) -> bool {
        self.clauses.iter().all(|clause| clause.holds(value))
    }

    /// The clauses' paths.
    pub(super) fn paths(&self) -> Vec<&[Step]> {
        self.clauses.iter().map(|clause| clause.path.as_slice()).collect()
    }
}

impl fmt::Display for Clause {
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
            Target::Subsequence(seq) => write!(f, " holds {:?} in order", String::from_utf8_lossy(&seq)),
            Target::BlankLine => f.write_str(" has a paragraph break"),
            Target::Count(c, n) => write!(f, " holds >= {n} of {:?}", char::from(c)),
        }
    }
}

impl fmt::Display for Predicate {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let clauses: Vec<String> = self.clauses.iter().map(ToString::to_string).collect();
        f.write_str(&clauses.join(" and "))
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

/// A random predicate of one clause on values of `ty`; `None` when `ty` holds nothing a target can be about.
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
    Some(Predicate { clauses: vec![Clause { path, target }] })
}

/// The characters a string target asks for: `'0'` (the character every
/// other one is lowered to), letters, a newline and punctuation.
const ASKED: &[u8] = b"0abcxyz\n:-";

/// A random predicate that needs structure inside a string (characters in
/// an order, a paragraph break, a count of a character) and, half the time
/// when `ty` has an enum, a variant other than the first somewhere; `None`
/// when `ty` has no string.
pub(super) fn random_string_predicate(rng: &mut fastrand::Rng, ty: &Ty) -> Option<Predicate> {
    let mut paths = Vec::new();
    target_paths(ty, &mut Vec::new(), &mut paths);
    let strings: Vec<&Vec<Step>> = paths.iter().filter(|(_, t)| matches!(t, Ty::Str)).map(|(p, _)| p).collect();
    if strings.is_empty() {
        return None;
    }
    let asked = |rng: &mut fastrand::Rng| ASKED[rng.usize(..ASKED.len())];
    let target = match rng.usize(..3) {
        0 => Target::Subsequence([asked(rng), asked(rng), asked(rng)]),
        1 => Target::BlankLine,
        _ => Target::Count(asked(rng), rng.usize(2..=4)),
    };
    let mut clauses = vec![Clause { path: strings[rng.usize(..strings.len())].clone(), target }];
    let enums: Vec<(&Vec<Step>, usize)> = paths
        .iter()
        .filter_map(|(p, t)| match t {
            Ty::Enum(_, variants) => Some((p, variants.len())),
            _ => None,
        })
        .collect();
    if !enums.is_empty() && rng.bool() {
        let (path, n) = enums[rng.usize(..enums.len())];
        clauses.push(Clause { path: path.clone(), target: Target::Is(rng.usize(1..n)) });
    }
    Some(Predicate { clauses })
}

/// A fresh value of a type, for what a predicate's path needs and a value lacks.
pub(super) type Fresh<'f> = &'f mut dyn FnMut(&Ty) -> Val;

/// Makes `value` (of `ty`) satisfy `predicate`: what its path needs is
/// created with `fresh` (a `Some`, a first element, a variant's fields),
/// then the value there is changed as little as the target needs.
pub(super) fn plant(value: &mut Val, ty: &Ty, predicate: &Predicate, fresh: Fresh<'_>) {
    for clause in &predicate.clauses {
        plant_clause(value, ty, clause, fresh);
    }
}

/// [`plant`] for one clause.
fn plant_clause(value: &mut Val, ty: &Ty, clause: &Clause, fresh: Fresh<'_>) {
    let (mut value, mut ty) = (value, ty);
    for step in &clause.path {
        (value, ty) = step_into(value, ty, *step, fresh);
    }
    match (value, ty, clause.target) {
        (Val::Int(x), _, Target::AtLeast(t)) => *x = (*x).max(t),
        (Val::Str(s), _, target) => plant_in_string(s, target),
        (Val::Vec(items), Ty::Vec(t), Target::Len(m)) => {
            while items.len() < m {
                items.push(fresh(t));
            }
        }
        (value, Ty::Enum(_, variants), Target::Is(v)) => be_variant(value, variants, v, fresh),
        _ => panic!("a predicate's target that does not fit its type"),
    }
}

/// Makes string `s` meet `target` with the fewest characters inserted,
/// spread over it (a subsequence's characters, a count's copies) or in its
/// middle.
fn plant_in_string(s: &mut Vec<u8>, target: Target) {
    let len = s.len();
    match target {
        _ if target.holds_for_string(s) => {}
        Target::Contains(b) => s.insert(len / 2, b),
        Target::Subsequence(seq) => seq.iter().enumerate().for_each(|(k, &c)| s.insert(len * (k + 1) / 4 + k, c)),
        Target::Count(c, n) => {
            for k in s.iter().filter(|&&b| b == c).count()..n {
                s.insert(s.len() * (k + 1) / (n + 1), c);
            }
        }
        Target::BlankLine => {
            s.splice(len / 2..len / 2, *b"\n\n");
            if s[..len / 2].iter().all(|&b| b == b'\n') {
                s.insert(0, b'p');
            }
            if s.iter().rev().take_while(|&&b| b != b'\n').count() == 0 {
                s.push(b'q');
            }
        }
        Target::AtLeast(_) | Target::Len(_) | Target::Is(_) => panic!("a string's target that is not about strings"),
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
/// `paths` is what is left of its clauses' paths that `value` is on (none
/// when it is off every one). Off the paths a value may be replaced by a
/// random one; every vector gets elements after its own (the first stays
/// first) and every string characters after its own, or anywhere in it
/// when `inside` (which can break a paragraph break: the caller checks).
pub(super) fn add_noise(rng: &mut fastrand::Rng, value: &mut Val, ty: &Ty, paths: &[&[Step]], inside: bool) {
    if paths.is_empty() && rng.usize(..4) == 0 {
        *value = random_val(rng, ty, 3);
    }
    match (&mut *value, ty) {
        (Val::Vec(items), Ty::Vec(t)) => items.extend((0..rng.usize(1..=2)).map(|_| random_val(rng, t, 2))),
        (Val::Str(s), _) if inside => {
            (0..rng.usize(1..=6)).for_each(|_| s.insert(rng.usize(..=s.len()), printable(rng)))
        }
        (Val::Str(s), _) => s.extend((0..rng.usize(1..=3)).map(|_| printable(rng))),
        _ => {}
    }
    for (step, child, child_ty) in children_mut(value, ty) {
        let child_paths: Vec<&[Step]> = paths
            .iter()
            .filter_map(|p| p.split_first().filter(|(s, _)| step == Some(**s)).map(|(_, rest)| rest))
            .collect();
        add_noise(rng, child, child_ty, &child_paths, inside);
    }
}

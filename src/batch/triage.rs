//! Grouping crashes into bugs: one group per signature at the run's level, each with a stable fingerprint and id, members smallest first.

use std::collections::HashMap;

use crate::batch::model::FoundBy;
use crate::session::output::sha1_hex;
use crate::signature::{Kind, Level, Signature};

/// An input that crashed.
#[derive(Clone, Debug)]
pub struct Member {
    /// As given (or, for a slip, its file in the output directory).
    pub name: String,
    /// Its contents.
    pub bytes: Vec<u8>,
}

/// One bug: every input that crashed with its signature.
#[derive(Clone, Debug)]
pub struct Group {
    /// `<target>-<kind>-<fingerprint prefix>`: the folder name.
    pub id: String,
    /// See [`fingerprint`].
    pub fingerprint: String,
    /// The first member's full signature (the message too).
    pub signature: Signature,
    /// Members, smallest first (shortlex) once [`Groups::sort`] ran.
    pub members: Vec<Member>,
    /// How it was found.
    pub found_by: FoundBy,
}

/// The bugs of one target.
#[derive(Debug)]
pub struct Groups {
    target: String,
    level: Level,
    by_key: HashMap<Signature, usize>,
    /// In the order found.
    pub list: Vec<Group>,
}

impl Groups {
    /// No bugs yet.
    pub fn new(target: &str, level: Level) -> Groups {
        Groups { target: target.to_owned(), level, by_key: HashMap::new(), list: Vec::new() }
    }

    /// Adds `member` to its signature's group, creating the group when new;
    /// returns the group's index and whether it is new.
    pub fn add(&mut self, signature: &Signature, member: Member, found_by: FoundBy) -> (usize, bool) {
        let key = signature.at_level(self.level);
        if let Some(&index) = self.by_key.get(&key) {
            self.list[index].members.push(member);
            return (index, false);
        }
        let fingerprint = fingerprint(&self.target, &key);
        let group = Group {
            id: bug_id(&self.target, &signature.kind, &fingerprint),
            fingerprint,
            signature: signature.clone(),
            members: vec![member],
            found_by,
        };
        self.list.push(group);
        self.by_key.insert(key, self.list.len() - 1);
        (self.list.len() - 1, true)
    }

    /// Whether a crash with `signature` is a bug already known.
    pub fn contains(&self, signature: &Signature) -> bool {
        self.by_key.contains_key(&signature.at_level(self.level))
    }

    /// Orders each group's members smallest first (shortlex, then name).
    pub fn sort(&mut self) {
        for group in &mut self.list {
            group.members.sort_by(|a, b| (a.bytes.len(), &a.bytes, &a.name).cmp(&(b.bytes.len(), &b.bytes, &b.name)));
        }
    }
}

/// The SHA-1 of the target and the signature at the run's level: the same
/// bug gets the same fingerprint in every run and on every machine.
pub fn fingerprint(target: &str, key: &Signature) -> String {
    let key = serde_json::to_string(key).expect("a signature serializes");
    sha1_hex(format!("{target}\n{key}").as_bytes())
}

/// `<target>-<kind>-<first 10 hex digits of the fingerprint>`, safe as a file name.
pub fn bug_id(target: &str, kind: &Kind, fingerprint: &str) -> String {
    let kind = match kind {
        Kind::Panic => String::from("panic"),
        Kind::StackOverflow => String::from("stack-overflow"),
        Kind::Sanitizer { bug, .. } => bug.clone(),
        Kind::DeadlySignal => String::from("deadly-signal"),
        Kind::OutOfMemory => String::from("oom"),
        Kind::LibFuzzer { .. } => String::from("libfuzzer"),
        Kind::Timeout => String::from("timeout"),
        Kind::Signal { signal } => crate::exec::signal_name(*signal).to_lowercase(),
        Kind::Exit { code } => format!("exit-{code}"),
    };
    let safe = |text: &str| -> String {
        text.chars().map(|c| if c.is_ascii_alphanumeric() || c == '_' || c == '-' { c } else { '_' }).collect()
    };
    let target = if target.is_empty() { String::from("input") } else { safe(target) };
    format!("{target}-{}-{}", safe(&kind), &fingerprint[..10])
}

#[cfg(test)]
mod tests {
    use super::*;

    fn panic_at(location: &str, message: &str) -> Signature {
        Signature { kind: Kind::Panic, location: Some(location.into()), message: Some(message.into()), raised_in: None }
    }

    fn member(name: &str, bytes: &[u8]) -> Member {
        Member { name: name.into(), bytes: bytes.to_vec() }
    }

    #[test]
    fn crashes_group_by_signature_at_the_level_and_members_sort_smallest_first() {
        let mut groups = Groups::new("tlv", Level::Default);
        let a = panic_at("src/a.rs:1:1", "len is 3");
        assert_eq!(groups.add(&a, member("x", b"long input"), FoundBy::Input), (0, true));
        assert_eq!(groups.add(&panic_at("src/a.rs:1:1", "len is 9"), member("y", b"ab"), FoundBy::Input), (0, false));
        assert_eq!(groups.add(&panic_at("src/b.rs:2:2", "other"), member("z", b"q"), FoundBy::Input), (1, true));
        groups.sort();
        let names: Vec<&str> = groups.list[0].members.iter().map(|m| m.name.as_str()).collect();
        assert_eq!(names, ["y", "x"]);
        assert_eq!(groups.list[0].signature, a, "the first member's signature names the bug");
        assert!(groups.contains(&panic_at("src/b.rs:2:2", "anything")));
        let mut strict = Groups::new("tlv", Level::Strict);
        strict.add(&a, member("x", b"1"), FoundBy::Input);
        assert!(!strict.contains(&panic_at("src/a.rs:1:1", "len is 9")));
    }

    #[test]
    fn fingerprints_and_ids_are_stable_and_name_the_target_and_kind() {
        let key = panic_at("src/a.rs:1:1", "m").at_level(Level::Default);
        let print = fingerprint("tlv", &key);
        assert_eq!(print, fingerprint("tlv", &key));
        assert_ne!(print, fingerprint("image", &key));
        assert_eq!(print.len(), 40);
        assert_eq!(bug_id("tlv", &key.kind, &print), format!("tlv-panic-{}", &print[..10]));
        assert!(bug_id("a/b", &Kind::Signal { signal: 11 }, &print).starts_with("a_b-sigsegv-"));
    }
}

//! A bracketed list syntax: values are numbers, `"strings"` and `[lists]`,
//! separated by spaces or commas.
//!
//! The bug: the recursive-descent parser has no depth limit, so deeply nested
//! brackets overflow the stack. Each level keeps a small token buffer on the
//! stack, so the depth that overflows is about the same in debug and release
//! builds (`planted-replay` runs targets on a 256 KiB stack).

use crate::{Error, Result};

/// A parsed value.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Value {
    /// A non-negative integer.
    Number(u64),
    /// A string without escapes.
    Text(String),
    /// A list.
    List(Vec<Value>),
}

/// Parses a sequence of values.
pub fn parse(data: &[u8]) -> Result<Vec<Value>> {
    let mut parser = Parser { data, pos: 0 };
    let mut values = Vec::new();
    loop {
        parser.skip_separators();
        if parser.pos == data.len() {
            return Ok(values);
        }
        values.push(parser.value()?);
    }
}

struct Parser<'a> {
    data: &'a [u8],
    pos: usize,
}

impl Parser<'_> {
    fn skip_separators(&mut self) {
        while matches!(self.data.get(self.pos), Some(b' ' | b',' | b'\n' | b'\t')) {
            self.pos += 1;
        }
    }

    fn value(&mut self) -> Result<Value> {
        match self.data.get(self.pos) {
            Some(b'[') => {
                self.pos += 1;
                self.list()
            }
            Some(b'"') => self.text(),
            Some(b'0'..=b'9') => self.number(),
            _ => Err(Error("nest: unexpected byte")),
        }
    }

    fn list(&mut self) -> Result<Value> {
        // A token buffer per level; the planted bug is that levels are unbounded.
        let mut scratch = [0u8; 192];
        let mut items = Vec::new();
        loop {
            self.skip_separators();
            match self.data.get(self.pos) {
                None => return Err(Error("nest: unclosed list")),
                Some(b']') => {
                    self.pos += 1;
                    scratch[0] = items.len() as u8;
                    std::hint::black_box(&scratch);
                    return Ok(Value::List(items));
                }
                Some(_) => {
                    std::hint::black_box(&mut scratch);
                    items.push(self.value()?);
                }
            }
        }
    }

    fn text(&mut self) -> Result<Value> {
        let start = self.pos + 1;
        let len = self.data[start..].iter().position(|&b| b == b'"').ok_or(Error("nest: unclosed string"))?;
        let text =
            std::str::from_utf8(&self.data[start..start + len]).map_err(|_| Error("nest: string is not UTF-8"))?;
        self.pos = start + len + 1;
        Ok(Value::Text(text.to_owned()))
    }

    fn number(&mut self) -> Result<Value> {
        let mut n: u64 = 0;
        while let Some(&d @ b'0'..=b'9') = self.data.get(self.pos) {
            n = n
                .checked_mul(10)
                .and_then(|n| n.checked_add(u64::from(d - b'0')))
                .ok_or(Error("nest: number too large"))?;
            self.pos += 1;
        }
        Ok(Value::Number(n))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn nested_lists_parse() {
        let values = parse(br#"1 [2, "x", [3]]"#).unwrap();
        assert_eq!(values.len(), 2);
        assert_eq!(
            values[1],
            Value::List(vec![Value::Number(2), Value::Text("x".into()), Value::List(vec![Value::Number(3)])])
        );
    }

    #[test]
    fn unclosed_lists_are_rejected() {
        assert_eq!(parse(b"[[1]"), Err(Error("nest: unclosed list")));
    }
}

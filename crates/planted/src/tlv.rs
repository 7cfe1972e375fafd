//! A chunked container format ("TLV1"): tag, little-endian u16 length, payload.
//!
//! The bug: an `INDEX` chunk's entries are checked with `<=` against the
//! current `TABLE`'s length, so an index equal to the length reads one past the
//! end and panics (index out of bounds), four calls deep.
//!
//! Chunks: `NAME` (UTF-8 text), `TABLE` (a count, then that many u32 values),
//! `INDEX` (bytes, each an index into the table), `PAD` (ignored), `CHECK` (a
//! u32 sum of the previous chunk's payload), `END` (stops parsing). Unknown
//! tags are skipped, as a forward-compatible format would.

use crate::{Error, Result};

/// The file's first four bytes.
pub const MAGIC: &[u8; 4] = b"TLV1";
/// Tag of a `NAME` chunk.
pub const NAME: u8 = 0x01;
/// Tag of a `TABLE` chunk.
pub const TABLE: u8 = 0x02;
/// Tag of an `INDEX` chunk.
pub const INDEX: u8 = 0x03;
/// Tag of a `PAD` chunk.
pub const PAD: u8 = 0x04;
/// Tag of a `CHECK` chunk.
pub const CHECK: u8 = 0x05;
/// Tag of the `END` chunk.
pub const END: u8 = 0x00;

/// What a file held.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct Document {
    /// Concatenated `NAME` chunks.
    pub name: String,
    /// Values selected by `INDEX` chunks.
    pub selected: Vec<u32>,
    /// Chunks read.
    pub chunks: usize,
}

struct Chunk<'a> {
    tag: u8,
    payload: &'a [u8],
}

/// Parses a whole file.
pub fn parse(data: &[u8]) -> Result<Document> {
    let rest = data.strip_prefix(MAGIC).ok_or(Error("tlv: bad magic"))?;
    let mut reader = Reader { data: rest, pos: 0 };
    let mut state = State::default();
    while let Some(chunk) = reader.next_chunk()? {
        if chunk.tag == END {
            break;
        }
        state.apply(&chunk)?;
    }
    Ok(state.doc)
}

struct Reader<'a> {
    data: &'a [u8],
    pos: usize,
}

impl<'a> Reader<'a> {
    fn next_chunk(&mut self) -> Result<Option<Chunk<'a>>> {
        if self.pos == self.data.len() {
            return Ok(None);
        }
        let header = self.data.get(self.pos..self.pos + 3).ok_or(Error("tlv: truncated chunk header"))?;
        let tag = header[0];
        let len = u16::from_le_bytes([header[1], header[2]]) as usize;
        let start = self.pos + 3;
        let payload = self.data.get(start..start + len).ok_or(Error("tlv: truncated payload"))?;
        self.pos = start + len;
        Ok(Some(Chunk { tag, payload }))
    }
}

#[derive(Default)]
struct Table {
    entries: Vec<u32>,
}

#[derive(Default)]
struct State {
    doc: Document,
    table: Option<Table>,
    previous_sum: u32,
}

impl State {
    fn apply(&mut self, chunk: &Chunk<'_>) -> Result<()> {
        match chunk.tag {
            NAME => {
                let text = std::str::from_utf8(chunk.payload).map_err(|_| Error("tlv: name is not UTF-8"))?;
                self.doc.name.push_str(text);
            }
            TABLE => self.table = Some(read_table(chunk.payload)?),
            INDEX => {
                let table = self.table.as_ref().ok_or(Error("tlv: index before any table"))?;
                for &index in chunk.payload {
                    let value = resolve(table, index)?;
                    self.doc.selected.push(value);
                }
            }
            CHECK => {
                let expected: [u8; 4] = chunk.payload.try_into().map_err(|_| Error("tlv: bad check chunk"))?;
                if u32::from_le_bytes(expected) != self.previous_sum {
                    return Err(Error("tlv: checksum mismatch"));
                }
            }
            _ => {} // PAD and unknown tags
        }
        self.previous_sum = chunk.payload.iter().map(|&b| u32::from(b)).sum();
        self.doc.chunks += 1;
        Ok(())
    }
}

fn read_table(payload: &[u8]) -> Result<Table> {
    let (&count, values) = payload.split_first().ok_or(Error("tlv: empty table"))?;
    if values.len() != 4 * count as usize {
        return Err(Error("tlv: table size does not match its count"));
    }
    let entries = values.chunks_exact(4).map(|v| u32::from_le_bytes([v[0], v[1], v[2], v[3]])).collect();
    Ok(Table { entries })
}

fn resolve(table: &Table, index: u8) -> Result<u32> {
    let index = usize::from(index);
    // The planted bug: `<=` should be `<`.
    if index <= table.entries.len() {
        Ok(lookup(&table.entries, index))
    } else {
        Err(Error("tlv: index out of range"))
    }
}

fn lookup(entries: &[u32], index: usize) -> u32 {
    entries[index]
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_valid_file_parses() {
        let doc = parse(b"TLV1\x01\x02\x00hi\x02\x05\x00\x01\x07\x00\x00\x00\x03\x01\x00\x00\x00\x00\x00").unwrap();
        assert_eq!(doc.name, "hi");
        assert_eq!(doc.selected, vec![7]);
    }

    #[test]
    #[should_panic(expected = "index out of bounds")]
    fn an_index_equal_to_the_table_length_panics() {
        let _ = parse(b"TLV1\x02\x01\x00\x00\x03\x01\x00\x00");
    }
}

//! Not injected: the test input of `draw_patch` and `arbitrary_shim` (`FAKE_UNSTRUCTURED`), the shape of arbitrary 1.5.0's `src/unstructured.rs` with its bodies shortened.
//!
//! `draw_patch::patch` finds its anchors by the exact text of the declarations,
//! which the real file has in rustfmt's layout; the format check keeps this
//! copy in that layout too. This note, up to the blank line, is not part of it.

use std::{mem, ops};

use crate::{Error, Result};

pub struct Unstructured<'a> {
    data: &'a [u8],
}

impl<'a> Unstructured<'a> {
    pub fn len(&self) -> usize {
        self.data.len()
    }

    fn arbitrary_byte_size(&mut self) -> Result<usize> {
        if self.data.is_empty() {
            Ok(0)
        } else {
            // Lengths come from the back.

            Ok(1)
        }
    }

    /// Generate an integer within the given range.
    pub fn int_in_range<T>(&mut self, range: ops::RangeInclusive<T>) -> Result<T>
    where
        T: Int,
    {
        Ok(*range.start())
    }

    /// Fill a `buffer`.
    ///
    /// Pads it with zeros.
    #[inline]
    pub fn fill_buffer(&mut self, buffer: &mut [u8]) -> Result<()> {
        Ok(())
    }
    pub fn bytes(&mut self, size: usize) -> Result<&'a [u8]> {
        Err(Error::NotEnoughData)
    }

    pub fn is_empty(&self) -> bool {
        self.len() == 0
    }

    pub fn peek_bytes(&self, size: usize) -> Option<&'a [u8]> {
        self.data.get(..size)
    }

    pub fn take_rest(mut self) -> &'a [u8] {
        mem::take(&mut self.data)
    }
}

pub trait Int {}

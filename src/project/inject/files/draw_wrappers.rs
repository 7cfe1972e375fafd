//! Appended to `src/unstructured.rs` of the renamed `arbitrary` copy (`draw_patch.rs`, `WRAPPERS`): each primitive read of `Unstructured`, wrapped to record it as a `draw:*` example and to hand its answer to the value key.
//!
//! It parses on its own but compiles only there, after the renames
//! `draw_patch::patch` makes (the `__cmc_*` methods; `Unstructured`, `Result`,
//! `Int` and `ops` are that file's). This note, up to the blank line, is not
//! appended.

// Appended by cargo-minimize-crash: every primitive read reports the bytes it
// took to the harness runtime as a leaf example labelled `draw:*`. The
// original bodies are the `__cmc_*` methods above, unchanged. (The crate's
// own `#![deny(..)]` lines come after our `#![allow(warnings)]` and win there.)
#[allow(warnings, unused)]
impl<'a> Unstructured<'a> {
    /// The pointer to the first unread byte and the number of bytes left.
    #[inline(always)]
    fn __cmc_cursor(&self) -> (*const u8, usize) {
        (self.data.as_ptr(), self.data.len())
    }

    /// Fills `buffer` from the front of the data, zeros past its end: recorded as `draw:le:<width>`.
    pub fn fill_buffer(&mut self, buffer: &mut [u8]) -> Result<()> {
        #[cfg(not(cmc_coverage))]
        cmc_runtime::examples::draw_fill(self.data, buffer.len());
        self.__cmc_fill_buffer(buffer)
    }

    /// An integer in `range`, big-endian from the front: recorded as
    /// `draw:range:<bounds>` (the runtime labels it from the range's ends).
    pub fn int_in_range<T>(&mut self, range: ops::RangeInclusive<T>) -> Result<T>
    where
        T: Int,
    {
        let (front, len) = self.__cmc_cursor();
        #[cfg(not(cmc_coverage))]
        let (start, end) = (*range.start(), *range.end());
        let result = self.__cmc_int_in_range(range);
        let after = self.__cmc_cursor();
        #[cfg(not(cmc_coverage))]
        {
            let width = core::mem::size_of::<T>();
            // A primitive integer's own bytes, all initialized: the range's ends, then the result.
            let bytes = |v: &T| unsafe { core::slice::from_raw_parts((v as *const T).cast::<u8>(), width) };
            cmc_runtime::examples::draw_range((front, len), after, bytes(&start), bytes(&end));
            cmc_runtime::values::answer(result.as_ref().ok().map(bytes), width);
        }
        result
    }

    /// A collection's size in bytes, from the back: recorded as `draw:len`.
    fn arbitrary_byte_size(&mut self) -> Result<usize> {
        let (front, len) = self.__cmc_cursor();
        let result = self.__cmc_arbitrary_byte_size();
        let after = self.__cmc_cursor();
        #[cfg(not(cmc_coverage))]
        cmc_runtime::examples::draw(front, len, after.0, after.1, "draw:len");
        #[cfg(not(cmc_coverage))]
        {
            let value = result.as_ref().ok().map(|size| size.to_le_bytes());
            cmc_runtime::values::answer(value.as_ref().map(|bytes| &bytes[..]), 8);
        }
        result
    }

    /// `size` bytes from the front: recorded as `draw:bytes`.
    pub fn bytes(&mut self, size: usize) -> Result<&'a [u8]> {
        let (front, len) = self.__cmc_cursor();
        let result = self.__cmc_bytes(size);
        let after = self.__cmc_cursor();
        #[cfg(not(cmc_coverage))]
        cmc_runtime::examples::draw(front, len, after.0, after.1, "draw:bytes");
        #[cfg(not(cmc_coverage))]
        cmc_runtime::values::answer(result.as_ref().ok().copied(), size);
        result
    }

    /// How many bytes are left: an answer in the value key.
    pub fn len(&self) -> usize {
        let left = self.__cmc_len();
        #[cfg(not(cmc_coverage))]
        cmc_runtime::values::answer(Some(&left.to_le_bytes()), 8);
        left
    }

    /// Whether no byte is left: an answer in the value key (only the `bool`,
    /// not through `len`: every derived value asks it).
    pub fn is_empty(&self) -> bool {
        #[cfg(cmc_coverage)]
        return self.__cmc_is_empty();
        #[cfg(not(cmc_coverage))]
        {
            let empty = self.__cmc_cursor().1 == 0;
            cmc_runtime::values::answer(Some(&[u8::from(empty)]), 1);
            empty
        }
    }

    /// The next `size` bytes, not taken: an answer in the value key.
    pub fn peek_bytes(&self, size: usize) -> Option<&'a [u8]> {
        let peeked = self.__cmc_peek_bytes(size);
        #[cfg(not(cmc_coverage))]
        cmc_runtime::values::answer(peeked, size);
        peeked
    }

    /// All the bytes left: an answer in the value key. (`self`, not the
    /// original's `mut self`, an unused `mut` here.)
    pub fn take_rest(self) -> &'a [u8] {
        let rest = self.__cmc_take_rest();
        #[cfg(not(cmc_coverage))]
        cmc_runtime::values::answer(Some(rest), rest.len());
        rest
    }
}

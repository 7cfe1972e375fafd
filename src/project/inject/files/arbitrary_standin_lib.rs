//! Written as `src/lib.rs` of the `arbitrary` stand-in (`arbitrary_shim.rs`, `SHIM_LIB`): every derived impl calls its `details::with_recursive_count`, which reports where the value was read from the input.
//!
//! It compiles only there, over the renamed copy (`arbitrary_real`) and the
//! runtime (`cmc_runtime`). This note, up to the blank line, is not written.

//! Written by cargo-minimize-crash: the user's `arbitrary`, re-exported, with
//! `details::with_recursive_count` (called by every derived impl) reporting
//! where each value was read from the input.

#![allow(warnings)]

pub use arbitrary_real::*;

#[doc(hidden)]
#[cfg(feature = "derive")]
pub mod details {
    pub use arbitrary_real::details::*;

    use arbitrary_real::{Result, Unstructured};

    /// Where the exit cursor of a borrowed `Unstructured` can be read.
    #[doc(hidden)]
    pub struct Exit {
        at: *const (),
    }

    /// The two forms derived impls pass: `&mut Unstructured` (`arbitrary`)
    /// and `Unstructured` (`arbitrary_take_rest`, which consumes it).
    #[doc(hidden)]
    pub trait Cursor: Sized {
        /// The value to hand on, the entry cursor, and where to read the exit cursor.
        fn split(self) -> (Self, (*const u8, usize), Option<Exit>);
    }

    fn cursor(u: &Unstructured<'_>) -> (*const u8, usize) {
        let front = u.peek_bytes(0).map_or(core::ptr::null(), |bytes| bytes.as_ptr());
        (front, u.len())
    }

    impl<'a, 'b> Cursor for &'b mut Unstructured<'a> {
        fn split(self) -> (Self, (*const u8, usize), Option<Exit>) {
            let entry = cursor(self);
            // The reference handed on is derived from this raw pointer, so
            // reading through the pointer once that reference is dead is sound.
            let raw: *mut Unstructured<'a> = self;
            (unsafe { &mut *raw }, entry, Some(Exit { at: raw as *const () }))
        }
    }

    impl<'a> Cursor for Unstructured<'a> {
        fn split(self) -> (Self, (*const u8, usize), Option<Exit>) {
            let entry = cursor(&self);
            (self, entry, None)
        }
    }

    /// The real function, with the value's cursors reported to the runtime.
    #[cfg(not(cmc_coverage))]
    #[inline]
    pub fn with_recursive_count<U: IsEmpty + Cursor, R>(
        u: U,
        recursive_count: &'static std::thread::LocalKey<std::cell::Cell<u32>>,
        f: impl FnOnce(U) -> Result<R>,
    ) -> Result<R> {
        let (u, entry, exit) = u.split();
        let token = cmc_runtime::examples::enter(entry.0, entry.1, core::any::type_name::<R>());
        let result = arbitrary_real::details::with_recursive_count(u, recursive_count, f);
        // The `Unstructured` outlives this call (it was borrowed for it); only
        // its cursor is read, so the lifetime in the cast does not matter.
        let exit = exit.map(|exit| cursor(unsafe { &*(exit.at as *const Unstructured<'static>) }));
        cmc_runtime::examples::exit(token, exit);
        result
    }

    /// The coverage build: the real function alone. The recording above
    /// makes derived methods too large for LLVM to inline where `cargo fuzz
    /// build` inlines them, which changes the counters (scene: 703 against
    /// 676); a coverage harness's examples come from the crash build.
    #[cfg(cmc_coverage)]
    #[inline]
    pub fn with_recursive_count<U: IsEmpty, R>(
        u: U,
        recursive_count: &'static std::thread::LocalKey<std::cell::Cell<u32>>,
        f: impl FnOnce(U) -> Result<R>,
    ) -> Result<R> {
        arbitrary_real::details::with_recursive_count(u, recursive_count, f)
    }
}

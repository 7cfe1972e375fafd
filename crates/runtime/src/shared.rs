//! The shared-memory file, mapped once by the server and inherited by every child.

use std::ffi::CString;
use std::os::unix::ffi::OsStrExt;
use std::path::Path;

use cmc_protocol::{Layout, ResultKind};

/// The mapping of the client's shared-memory file.
///
/// It is a raw pointer rather than a slice because it is used from the panic
/// hook: each use makes a short-lived slice ([`SharedMemory::with`]), never two
/// at once (the server and each child are single-threaded while they use it).
#[derive(Clone, Copy, Debug)]
pub(crate) struct SharedMemory {
    base: *mut u8,
    len: usize,
    layout: Layout,
}

// SAFETY: the mapping lives until the process exits and is only touched by the
// thread running the server or the child (see the type's documentation); the
// panic hook's `Send + Sync` bound is what needs these.
unsafe impl Send for SharedMemory {}
unsafe impl Sync for SharedMemory {}

impl SharedMemory {
    /// Maps the file at `path` and reads its layout from the header.
    pub(crate) fn open(path: &Path) -> Result<Self, String> {
        let shown = path.display();
        let c_path = CString::new(path.as_os_str().as_bytes()).map_err(|_| format!("bad path {shown}"))?;
        // SAFETY: plain system calls on a NUL-terminated path and our own descriptor.
        unsafe {
            let fd = libc::open(c_path.as_ptr(), libc::O_RDWR | libc::O_CLOEXEC);
            if fd < 0 {
                return Err(format!("cannot open {shown}: {}", std::io::Error::last_os_error()));
            }
            let mut stat: libc::stat = std::mem::zeroed();
            if libc::fstat(fd, &mut stat) != 0 {
                let error = std::io::Error::last_os_error();
                libc::close(fd);
                return Err(format!("cannot stat {shown}: {error}"));
            }
            let len = stat.st_size as usize;
            let protection = libc::PROT_READ | libc::PROT_WRITE;
            let base = libc::mmap(std::ptr::null_mut(), len, protection, libc::MAP_SHARED, fd, 0);
            let error = std::io::Error::last_os_error();
            libc::close(fd);
            if base == libc::MAP_FAILED {
                return Err(format!("cannot map {shown}: {error}"));
            }
            let base = base.cast::<u8>();
            let layout = Layout::read_header(std::slice::from_raw_parts(base, len))
                .map_err(|e| format!("{shown} is not a cargo-minimize-crash shared-memory file: {e}"))?;
            Ok(SharedMemory { base, len, layout })
        }
    }

    /// Runs `f` on the mapping as a slice.
    pub(crate) fn with<R>(&self, f: impl FnOnce(&mut [u8], &Layout) -> R) -> R {
        // SAFETY: the mapping is `len` bytes, lives as long as the process, and
        // no other slice of it is alive (see the type's documentation).
        let shm = unsafe { std::slice::from_raw_parts_mut(self.base, self.len) };
        f(shm, &self.layout)
    }

    /// A copy of the candidate, in a heap block of exactly its size (as
    /// libFuzzer does, so AddressSanitizer catches reads past its end).
    pub(crate) fn input(&self) -> Result<Vec<u8>, String> {
        self.with(|shm, layout| layout.read_input(shm).map(<[u8]>::to_vec).map_err(|e| e.to_string()))
    }

    /// How many coverage features the client has room for (0: it wants none).
    pub(crate) fn feature_capacity(&self) -> u32 {
        self.layout.feature_capacity
    }

    /// Records how far the child got.
    pub(crate) fn set_kind(&self, kind: ResultKind) {
        self.with(|shm, layout| layout.set_kind(shm, kind));
    }

    /// Records a panic.
    pub(crate) fn write_panic(&self, message: &str, file: &str, line: u32, column: u32) {
        self.with(|shm, layout| layout.write_panic(shm, message.as_bytes(), file.as_bytes(), line, column));
    }
}

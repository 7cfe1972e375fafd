//! The fork server: set up, say hello, then for each request fork a child, report its pid, wait for it, report its status.

use std::ffi::OsStr;
use std::io;

use cmc_protocol::{Hello, Request, Response, StartInfo, ENV_VAR, MESSAGE_LEN, VERSION};

use crate::child;
use crate::shared::SharedMemory;

/// `fork` or glibc's `_Fork`.
type ForkFn = unsafe extern "C" fn() -> libc::pid_t;

/// Serves requests until the client closes the control pipe.
pub(crate) fn run(value: &OsStr, test_one: crate::TestOne) -> ! {
    let start = StartInfo::decode(value).unwrap_or_else(|e| die(&format!("{ENV_VAR}: {e}")));
    // Whatever the target starts must not try to serve in its turn.
    std::env::remove_var(ENV_VAR);
    let threads = thread_count();
    let hello = Hello { version: VERSION, pid: std::process::id() as i32, threads };
    if start.version != VERSION {
        // Say who we are anyway: the client reports the mismatch in its own words.
        let _ = send(start.status_fd, Response::Hello(hello));
        die(&format!("the client speaks protocol version {}, this harness {VERSION}", start.version));
    }
    let shm = SharedMemory::open(&start.shm_path).unwrap_or_else(|e| die(&e));
    redirect_output(start.output_fd);
    disable_core_dumps();
    child::install_panic_hook(shm);
    crate::signals::install(shm);
    let fork = fork_function(threads);
    if send(start.status_fd, Response::Hello(hello)).is_err() {
        exit(0);
    }
    let mut request = [0u8; MESSAGE_LEN];
    loop {
        match read_exact(start.control_fd, &mut request) {
            Ok(true) => {}
            // The client closed the pipe (or is gone): we are done.
            Ok(false) | Err(_) => exit(0),
        }
        let (seq, stay) = match Request::decode(&request) {
            Ok(Request::Run { seq, stay }) => (seq, stay),
            Err(e) => die(&format!("bad request from the client: {e}")),
        };
        // SAFETY: the server is a plain single-purpose process; the child only
        // runs `child::run`, which ends in `_exit` or `abort`.
        let pid = unsafe { fork() };
        if pid == 0 {
            let server = child::Server { fds: [start.control_fd, start.status_fd], pid: hello.pid };
            child::run(shm, server, stay.then_some(seq), test_one);
        }
        if pid < 0 {
            let errno = io::Error::last_os_error().raw_os_error().unwrap_or(0);
            if send(start.status_fd, Response::ForkFailed { seq, errno }).is_err() {
                exit(0);
            }
            continue;
        }
        // The child does this too; whichever runs first, the group exists
        // before the client learns the pid and may kill the group.
        // SAFETY: plain system call.
        unsafe { libc::setpgid(pid, pid) };
        if send(start.status_fd, Response::Started { seq, pid }).is_err() {
            kill_group_and_exit(pid);
        }
        // A staying child answers its runs itself until it ends; this reports its end.
        let (wait_status, max_rss_kib, cpu_micros) = wait(pid);
        if send(start.status_fd, Response::Finished { seq, wait_status, max_rss_kib, cpu_micros }).is_err() {
            exit(0);
        }
    }
}

/// Waits for `pid`, retrying on EINTR; the raw status, the child's peak
/// resident set size in KiB (`ru_maxrss`, which Linux reports in KiB) and
/// the CPU time it used in microseconds (user and system, saturating). The
/// client compares the peak with its memory limit, which works under
/// AddressSanitizer where `RLIMIT_AS` does not (decision 0062), and bases its
/// hang limit on the CPU time, which a busy machine does not stretch
/// (decision 0046).
fn wait(pid: libc::pid_t) -> (i32, u32, u32) {
    let mut status = 0;
    loop {
        // SAFETY: plain system call with valid out-pointers.
        let mut usage: libc::rusage = unsafe { std::mem::zeroed() };
        // SAFETY: as above.
        let waited = unsafe { libc::wait4(pid, &mut status, 0, &mut usage) };
        if waited == pid {
            let (rss, cpu) = peak_and_cpu(&usage);
            return (status, rss, cpu);
        }
        if waited < 0 && io::Error::last_os_error().kind() != io::ErrorKind::Interrupted {
            die(&format!("waitpid({pid}) failed: {}", io::Error::last_os_error()));
        }
    }
}

/// A usage's peak resident set in KiB and its CPU time (user and system)
/// in microseconds, saturating: a waited child's, or a staying child's own.
pub(crate) fn peak_and_cpu(usage: &libc::rusage) -> (u32, u32) {
    let rss = u32::try_from(usage.ru_maxrss.max(0)).unwrap_or(u32::MAX);
    (rss, micros(&usage.ru_utime).saturating_add(micros(&usage.ru_stime)))
}

/// A `timeval` in microseconds, saturating at `u32::MAX` (71 minutes).
fn micros(time: &libc::timeval) -> u32 {
    let total = time.tv_sec.saturating_mul(1_000_000).saturating_add(time.tv_usec);
    u32::try_from(total.max(0)).unwrap_or(u32::MAX)
}

/// Reads exactly `buf.len()` bytes; `Ok(false)` on end of file.
pub(crate) fn read_exact(fd: i32, buf: &mut [u8]) -> io::Result<bool> {
    let mut got = 0;
    while got < buf.len() {
        // SAFETY: reads into the unfilled part of `buf`.
        let n = unsafe { libc::read(fd, buf[got..].as_mut_ptr().cast(), buf.len() - got) };
        match n {
            0 => return Ok(false),
            n if n > 0 => got += n as usize,
            _ => {
                let error = io::Error::last_os_error();
                if error.kind() != io::ErrorKind::Interrupted {
                    return Err(error);
                }
            }
        }
    }
    Ok(true)
}

/// Writes one message (20 bytes: below `PIPE_BUF`, so in one piece).
pub(crate) fn send(fd: i32, response: Response) -> io::Result<()> {
    let bytes = response.encode();
    let mut sent = 0;
    while sent < bytes.len() {
        // SAFETY: writes from the unsent part of `bytes`.
        let n = unsafe { libc::write(fd, bytes[sent..].as_ptr().cast(), bytes.len() - sent) };
        if n > 0 {
            sent += n as usize;
        } else {
            let error = io::Error::last_os_error();
            if error.kind() != io::ErrorKind::Interrupted {
                return Err(error);
            }
        }
    }
    Ok(())
}

/// stdout to `/dev/null`; stderr (the children's, and our own from now on) to
/// `output`, or to `/dev/null` when there is none.
fn redirect_output(output: Option<i32>) {
    // SAFETY: plain system calls on descriptors we own.
    unsafe {
        let null = libc::open(c"/dev/null".as_ptr(), libc::O_WRONLY | libc::O_CLOEXEC);
        if null < 0 {
            die(&format!("cannot open /dev/null: {}", io::Error::last_os_error()));
        }
        libc::dup2(null, 1);
        libc::dup2(output.unwrap_or(null), 2);
        if null > 2 {
            libc::close(null);
        }
        if let Some(fd) = output.filter(|&fd| fd > 2) {
            libc::close(fd);
        }
    }
}

/// Sets the soft `RLIMIT_CORE` to 0: children inherit it, and an abort then
/// writes no core file. Best effort.
fn disable_core_dumps() {
    // SAFETY: plain system calls with valid pointers.
    unsafe {
        let mut limit: libc::rlimit = std::mem::zeroed();
        if libc::getrlimit(libc::RLIMIT_CORE, &mut limit) == 0 {
            limit.rlim_cur = 0;
            libc::setrlimit(libc::RLIMIT_CORE, &limit);
        }
    }
}

/// glibc's `_Fork` when it exists and the process is single-threaded, else `fork`.
fn fork_function(threads: u32) -> ForkFn {
    #[cfg(all(target_os = "linux", target_env = "gnu"))]
    if threads <= 1 {
        // SAFETY: `RTLD_DEFAULT` is the null handle in glibc; the symbol, when
        // present (glibc 2.34+), is `pid_t _Fork(void)`.
        unsafe {
            let symbol = libc::dlsym(std::ptr::null_mut(), c"_Fork".as_ptr());
            if !symbol.is_null() {
                return std::mem::transmute::<*mut libc::c_void, ForkFn>(symbol);
            }
        }
    }
    let _ = threads;
    libc::fork
}

/// How many threads this process has (Linux), or 0 when unknown.
fn thread_count() -> u32 {
    std::fs::read_dir("/proc/self/task").map_or(0, |entries| entries.count() as u32)
}

fn kill_group_and_exit(pid: libc::pid_t) -> ! {
    // SAFETY: plain system calls.
    unsafe {
        libc::kill(-pid, libc::SIGKILL);
        libc::kill(pid, libc::SIGKILL);
    }
    exit(0)
}

/// Exits at once: no atexit handlers, no leak check of the server's own memory.
fn exit(code: i32) -> ! {
    // SAFETY: `_exit` is always safe to call.
    unsafe { libc::_exit(code) }
}

/// Reports a fatal set-up error on stderr and exits with code 2.
fn die(message: &str) -> ! {
    eprintln!("cargo-minimize-crash fork server: {message}");
    exit(2)
}

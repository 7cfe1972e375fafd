//! Why a program is not a usable fork server, in words a user can act on.

use crate::protocol::VERSION;

/// Why a program is not a usable fork server; callers may fall back to `--exec`.
#[derive(Debug, thiserror::Error)]
pub enum HandshakeError {
    /// It ended without a handshake.
    #[error(
        "`{program}` {status} before the fork-server handshake: it is not a cargo-minimize-crash harness \
         (a harness calls `cmc_runtime::serve` from its `main`); let cargo-minimize-crash build the harness, \
         or run any program once per test with --exec{stderr}"
    )]
    Exited {
        /// The program.
        program: String,
        /// How it ended (`exited with code 2`).
        status: String,
        /// The tail of what it printed, ready to append.
        stderr: String,
    },
    /// It did not answer in time.
    #[error(
        "`{program}` did not answer the fork-server handshake within {seconds} s: it is not a \
         cargo-minimize-crash harness (a libFuzzer binary would start fuzzing instead), or its start-up is \
         that slow; let cargo-minimize-crash build the harness, or use --exec{stderr}"
    )]
    Silent {
        /// The program.
        program: String,
        /// The handshake timeout.
        seconds: f64,
        /// The tail of what it printed, ready to append.
        stderr: String,
    },
    /// It wrote something that is not a handshake.
    #[error(
        "`{program}` wrote {got:?} where the fork-server handshake belongs: it is not a cargo-minimize-crash \
         harness; let cargo-minimize-crash build the harness, or use --exec"
    )]
    Garbled {
        /// The program.
        program: String,
        /// What it wrote, lossily as text.
        got: String,
    },
    /// It is a harness of another protocol version.
    #[error(
        "`{program}` speaks fork-server protocol version {found}, this cargo-minimize-crash speaks version \
         {VERSION}: rebuild the harness with this version of cargo-minimize-crash"
    )]
    Version {
        /// The program.
        program: String,
        /// The version it announced.
        found: u32,
    },
}

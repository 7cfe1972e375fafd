//! The messages on the two pipes: fixed 20-byte records, a 4-byte tag then four little-endian 32-bit fields.

use super::{get_u32, need, put_u32, DecodeError};

/// The size of every message, in both directions (below `PIPE_BUF`, so a write is atomic).
pub const MESSAGE_LEN: usize = 20;

/// The handshake's tag, which doubles as the protocol's magic.
pub const HANDSHAKE_MAGIC: [u8; 4] = *b"cmcH";
const TAG_RUN: [u8; 4] = *b"cmcR";
const TAG_STARTED: [u8; 4] = *b"cmcS";
const TAG_FINISHED: [u8; 4] = *b"cmcW";
const TAG_FORK_FAILED: [u8; 4] = *b"cmcE";
const TAG_RAN: [u8; 4] = *b"cmcD";

/// The server's first message: who it is.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Hello {
    /// The protocol version the server speaks ([`super::VERSION`] when it matches ours).
    pub version: u32,
    /// The server's process id.
    pub pid: i32,
    /// How many threads the server had when it started (more than 1: forking is unsafe, see
    /// the design notes; the user's initialization code started threads).
    pub threads: u32,
}

/// What the client asks of the server.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Request {
    /// Run the target once on the input now in shared memory: in a new
    /// child, or in the staying child when one waits for requests.
    Run {
        /// A sequence number, echoed in the responses.
        seq: u32,
        /// The child stays after a run that returns: it answers [`Response::Ran`]
        /// and reads the next request itself (the server waits for it
        /// meanwhile), until the client kills it or closes the pipe. Read by
        /// the server when it forks; a staying child's later runs stay.
        stay: bool,
    },
}

/// What the server tells the client.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Response {
    /// The handshake, sent once at start-up.
    Hello(Hello),
    /// A child was forked for request `seq`; it leads its own process group.
    Started {
        /// The request's sequence number.
        seq: u32,
        /// The child's pid, which is also its process group id.
        pid: i32,
    },
    /// The child of request `seq` ended.
    Finished {
        /// The request's sequence number.
        seq: u32,
        /// The raw status from `waitpid` (decode it with `WIFEXITED` and friends).
        wait_status: i32,
        /// The child's peak resident set size in KiB (`ru_maxrss` from `wait4`),
        /// 0 when unknown: the client enforces the memory limit with it.
        max_rss_kib: u32,
        /// The CPU time the child used, user and system, in microseconds
        /// (from `wait4`, saturating): how long it ran whatever else the
        /// machine was doing.
        cpu_micros: u32,
    },
    /// A staying child ran request `seq` to its end and waits for the next.
    Ran {
        /// The request's sequence number.
        seq: u32,
        /// The child's peak resident set size so far in KiB (`ru_maxrss`).
        max_rss_kib: u32,
        /// The CPU time this run used, user and system, in microseconds (saturating).
        cpu_micros: u32,
    },
    /// `fork` failed for request `seq`.
    ForkFailed {
        /// The request's sequence number.
        seq: u32,
        /// The `errno` of the failed `fork`.
        errno: i32,
    },
}

fn encode(tag: [u8; 4], fields: [u32; 4]) -> [u8; MESSAGE_LEN] {
    let mut out = [0; MESSAGE_LEN];
    out[..4].copy_from_slice(&tag);
    for (i, field) in fields.into_iter().enumerate() {
        put_u32(&mut out, 4 + 4 * i, field);
    }
    out
}

/// The tag and four fields of the first [`MESSAGE_LEN`] bytes.
fn fields(bytes: &[u8], what: &'static str) -> Result<([u8; 4], [u32; 4]), DecodeError> {
    need(bytes, MESSAGE_LEN, what)?;
    let mut tag = [0; 4];
    tag.copy_from_slice(&bytes[..4]);
    Ok((tag, [4, 8, 12, 16].map(|at| get_u32(bytes, at))))
}

impl Request {
    /// The request's bytes.
    pub fn encode(&self) -> [u8; MESSAGE_LEN] {
        match *self {
            Request::Run { seq, stay } => encode(TAG_RUN, [seq, u32::from(stay), 0, 0]),
        }
    }

    /// Decodes the first [`MESSAGE_LEN`] bytes of `bytes`.
    pub fn decode(bytes: &[u8]) -> Result<Self, DecodeError> {
        match fields(bytes, "request")? {
            (TAG_RUN, [seq, stay, ..]) => Ok(Request::Run { seq, stay: stay != 0 }),
            (tag, ..) => Err(DecodeError::UnknownTag { tag }),
        }
    }
}

impl Response {
    /// The response's bytes.
    pub fn encode(&self) -> [u8; MESSAGE_LEN] {
        match *self {
            Response::Hello(Hello { version, pid, threads }) => {
                encode(HANDSHAKE_MAGIC, [version, pid as u32, threads, 0])
            }
            Response::Started { seq, pid } => encode(TAG_STARTED, [seq, pid as u32, 0, 0]),
            Response::Finished { seq, wait_status, max_rss_kib, cpu_micros } => {
                encode(TAG_FINISHED, [seq, wait_status as u32, max_rss_kib, cpu_micros])
            }
            Response::ForkFailed { seq, errno } => encode(TAG_FORK_FAILED, [seq, errno as u32, 0, 0]),
            Response::Ran { seq, max_rss_kib, cpu_micros } => encode(TAG_RAN, [seq, max_rss_kib, cpu_micros, 0]),
        }
    }

    /// Decodes the first [`MESSAGE_LEN`] bytes of `bytes`. The handshake's
    /// version is not checked here: the caller reports a mismatch in its own words.
    pub fn decode(bytes: &[u8]) -> Result<Self, DecodeError> {
        Ok(match fields(bytes, "response")? {
            (HANDSHAKE_MAGIC, [version, pid, threads, _]) => {
                Response::Hello(Hello { version, pid: pid as i32, threads })
            }
            (TAG_STARTED, [seq, pid, ..]) => Response::Started { seq, pid: pid as i32 },
            (TAG_FINISHED, [seq, status, rss, cpu]) => {
                Response::Finished { seq, wait_status: status as i32, max_rss_kib: rss, cpu_micros: cpu }
            }
            (TAG_FORK_FAILED, [seq, errno, ..]) => Response::ForkFailed { seq, errno: errno as i32 },
            (TAG_RAN, [seq, rss, cpu, _]) => Response::Ran { seq, max_rss_kib: rss, cpu_micros: cpu },
            (tag, ..) => return Err(DecodeError::UnknownTag { tag }),
        })
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn every_message_survives_a_round_trip() {
        let requests = [Request::Run { seq: 0, stay: false }, Request::Run { seq: u32::MAX, stay: true }];
        for request in requests {
            assert_eq!(Request::decode(&request.encode()), Ok(request));
        }
        let responses = [
            Response::Hello(Hello { version: super::super::VERSION, pid: 4242, threads: 1 }),
            Response::Started { seq: 7, pid: i32::MAX },
            Response::Finished { seq: 7, wait_status: 0x86, max_rss_kib: 2048, cpu_micros: 1500 },
            Response::Finished { seq: 8, wait_status: -1, max_rss_kib: u32::MAX, cpu_micros: u32::MAX },
            Response::ForkFailed { seq: 9, errno: 12 },
            Response::Ran { seq: 10, max_rss_kib: 4096, cpu_micros: 20 },
        ];
        for response in responses {
            assert_eq!(Response::decode(&response.encode()), Ok(response));
        }
    }

    #[test]
    fn the_encoding_is_fixed_little_endian() {
        let bytes = Response::Started { seq: 1, pid: 0x0102_0304 }.encode();
        assert_eq!(&bytes, b"cmcS\x01\0\0\0\x04\x03\x02\x01\0\0\0\0\0\0\0\0");
        assert_eq!(&Request::Run { seq: 2, stay: true }.encode()[..12], b"cmcR\x02\0\0\0\x01\0\0\0");
    }

    #[test]
    fn truncated_messages_are_rejected() {
        let bytes = Response::Finished { seq: 1, wait_status: 0, max_rss_kib: 0, cpu_micros: 0 }.encode();
        for len in 0..MESSAGE_LEN {
            assert_eq!(
                Response::decode(&bytes[..len]),
                Err(DecodeError::Truncated { what: "response", needed: MESSAGE_LEN, got: len })
            );
            assert!(Request::decode(&Request::Run { seq: 1, stay: false }.encode()[..len]).is_err());
        }
    }

    #[test]
    fn bytes_from_something_else_are_an_unknown_tag() {
        let banner = b"INFO: Running with entropic power schedule";
        assert_eq!(Response::decode(banner), Err(DecodeError::UnknownTag { tag: *b"INFO" }));
        // A request is not a response, and the other way round.
        assert!(Response::decode(&Request::Run { seq: 1, stay: false }.encode()).is_err());
        assert!(Request::decode(&Response::Started { seq: 1, pid: 1 }.encode()).is_err());
    }
}

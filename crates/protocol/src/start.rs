//! How the server is started: the value of [`super::ENV_VAR`], naming the pipes, the output and the shared memory.
//!
//! The format is one line of text, fields in this order:
//!
//! ```text
//! version=3,control=3,status=4,output=2,shm=/dev/shm/cargo-minimize-crash-x/shm
//! ```
//!
//! `output` is a file descriptor that receives the children's stderr, or `none`
//! (stderr then goes to `/dev/null`); stdout always goes to `/dev/null`. The
//! client passes a regular file (a pipe could fill up and block a chatty child
//! while nobody reads it) opened with `O_APPEND`, and truncates it before each
//! test. `shm` comes last and runs to the end of the value, so the path may hold
//! commas.

use std::ffi::{OsStr, OsString};
use std::os::unix::ffi::{OsStrExt, OsStringExt};
use std::path::PathBuf;

use super::{DecodeError, VERSION};

/// Everything the server needs to start.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct StartInfo {
    /// The protocol version the client speaks.
    pub version: u32,
    /// The descriptor the server reads requests from.
    pub control_fd: i32,
    /// The descriptor the server writes responses to.
    pub status_fd: i32,
    /// The descriptor the children's stderr goes to; `None` for `/dev/null`.
    pub output_fd: Option<i32>,
    /// The shared-memory file (see [`super::shm`]).
    pub shm_path: PathBuf,
}

impl StartInfo {
    /// Start-up information for this protocol version.
    pub fn new(control_fd: i32, status_fd: i32, output_fd: Option<i32>, shm_path: impl Into<PathBuf>) -> Self {
        StartInfo { version: VERSION, control_fd, status_fd, output_fd, shm_path: shm_path.into() }
    }

    /// The environment variable's value.
    pub fn encode(&self) -> OsString {
        let output = self.output_fd.map_or_else(|| "none".to_owned(), |fd| fd.to_string());
        let mut value = format!(
            "version={},control={},status={},output={output},shm=",
            self.version, self.control_fd, self.status_fd
        )
        .into_bytes();
        value.extend_from_slice(self.shm_path.as_os_str().as_bytes());
        OsString::from_vec(value)
    }

    /// Parses the environment variable's value. Any version is accepted here;
    /// the server compares it with its own and reports a mismatch.
    pub fn decode(value: &OsStr) -> Result<Self, DecodeError> {
        let mut rest = value.as_bytes();
        let mut field = |name: &'static str| -> Result<String, DecodeError> {
            let prefix = format!("{name}=");
            let Some(tail) = rest.strip_prefix(prefix.as_bytes()) else {
                return Err(malformed(format!("expected `{prefix}` at `{}`", String::from_utf8_lossy(rest))));
            };
            let end =
                tail.iter().position(|&b| b == b',').ok_or_else(|| malformed(format!("`{name}` is the last field")))?;
            let text = String::from_utf8_lossy(&tail[..end]).into_owned();
            rest = &tail[end + 1..];
            Ok(text)
        };
        let number = |name: &'static str, text: String| {
            text.parse::<i32>().map_err(|_| malformed(format!("`{name}` is `{text}`, not a number")))
        };
        let version = field("version")?;
        let version = version.parse().map_err(|_| malformed(format!("`version` is `{version}`, not a number")))?;
        let control_fd = number("control", field("control")?)?;
        let status_fd = number("status", field("status")?)?;
        let output = field("output")?;
        let output_fd = if output == "none" { None } else { Some(number("output", output)?) };
        let Some(path) = rest.strip_prefix(b"shm=") else {
            return Err(malformed(format!("expected `shm=` at `{}`", String::from_utf8_lossy(rest))));
        };
        if path.is_empty() {
            return Err(malformed("the shared-memory path is empty".into()));
        }
        let shm_path = PathBuf::from(OsStr::from_bytes(path));
        Ok(StartInfo { version, control_fd, status_fd, output_fd, shm_path })
    }
}

fn malformed(detail: String) -> DecodeError {
    DecodeError::Malformed { what: "fork-server start-up variable", detail }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn start_info_survives_a_round_trip_even_with_commas_in_the_path() {
        let infos = [
            StartInfo::new(3, 4, Some(2), "/dev/shm/cmc-1/shm"),
            StartInfo::new(10, 11, None, "/tmp/a,b=c/shm"),
            StartInfo { version: 99, ..StartInfo::new(0, 1, Some(7), "x") },
        ];
        for info in infos {
            assert_eq!(StartInfo::decode(&info.encode()), Ok(info));
        }
        let text = StartInfo::new(3, 4, Some(2), "/s").encode();
        assert_eq!(text, OsStr::new("version=8,control=3,status=4,output=2,shm=/s"));
    }

    #[test]
    fn malformed_values_are_rejected() {
        for bad in [
            "",
            "version=1",
            "version=1,control=3,status=4,output=2",
            "version=1,control=3,status=4,output=2,shm=",
            "version=x,control=3,status=4,output=2,shm=/s",
            "version=1,control=3,status=four,output=2,shm=/s",
            "version=1,status=4,control=3,output=2,shm=/s",
            "control=3,status=4,output=2,shm=/s",
        ] {
            assert!(
                matches!(StartInfo::decode(OsStr::new(bad)), Err(DecodeError::Malformed { .. })),
                "accepted {bad:?}"
            );
        }
    }
}

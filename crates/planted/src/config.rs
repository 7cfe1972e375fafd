//! A typed target's input: a server configuration of several collections,
//! built by `arbitrary` from the fuzzer's bytes (with the `arbitrary` feature),
//! and the check that derives each host's connection settings.
//!
//! The bug: a host uses TLS when its flag in `tls` says so, or, without a
//! flag, when its port is 443; a TLS host needs a key, but the key is only
//! checked for hosts on port 443. So a host whose flag turns TLS on, on any
//! other port (80 when it has none), with an empty key, takes a remainder by
//! the key's length, zero. The smallest configuration that shows it is one
//! host with an empty name, no ports, no key and the flags `[true]`.

use crate::{Error, Result};

/// A server configuration.
#[derive(Clone, Debug, PartialEq, Eq)]
#[cfg_attr(feature = "arbitrary", derive(arbitrary::Arbitrary))]
pub struct Config {
    /// The service's name.
    pub name: String,
    /// Host names.
    pub hosts: Vec<String>,
    /// Each host's port, by position; a host without one uses 80.
    pub ports: Vec<u16>,
    /// The TLS key.
    pub key: Vec<u8>,
    /// Each host's TLS flag, by position; a host without one uses TLS on port 443.
    pub tls: Option<Vec<bool>>,
}

/// One host's settings.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Endpoint {
    /// The port.
    pub port: u16,
    /// Whether it uses TLS.
    pub tls: bool,
    /// The key byte the host's handshake is salted with (0 without TLS).
    pub salt: u8,
}

/// Derives every host's settings.
pub fn validate(config: &Config) -> Result<Vec<Endpoint>> {
    if config.hosts.len() > 64 {
        return Err(Error("too many hosts"));
    }
    let mut endpoints = Vec::with_capacity(config.hosts.len());
    for (i, host) in config.hosts.iter().enumerate() {
        let port = config.ports.get(i).copied().unwrap_or(80);
        if port == 0 {
            return Err(Error("port 0"));
        }
        let flag = config.tls.as_ref().and_then(|flags| flags.get(i)).copied();
        let tls = flag.unwrap_or(port == 443);
        // The planted bug: the key is required on port 443 only, not for every TLS host.
        if port == 443 && config.key.is_empty() {
            return Err(Error("TLS on port 443 needs a key"));
        }
        let salt = if tls { config.key[host.len() % config.key.len()] } else { 0 };
        endpoints.push(Endpoint { port, tls, salt });
    }
    Ok(endpoints)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn config(ports: Vec<u16>, key: Vec<u8>, tls: Option<Vec<bool>>) -> Config {
        Config { name: "svc".into(), hosts: vec!["a".into(), "bc".into()], ports, key, tls }
    }

    #[test]
    fn tls_follows_the_flag_or_port_443() {
        let endpoints = validate(&config(vec![443, 8080], vec![5, 6], None)).unwrap();
        assert_eq!(
            endpoints,
            [Endpoint { port: 443, tls: true, salt: 6 }, Endpoint { port: 8080, tls: false, salt: 0 }]
        );
        assert_eq!(validate(&config(vec![443], vec![], None)), Err(Error("TLS on port 443 needs a key")));
        assert!(validate(&config(vec![], vec![], Some(vec![false]))).is_ok());
    }

    #[test]
    #[should_panic(expected = "attempt to calculate the remainder with a divisor of zero")]
    fn a_tls_flag_off_port_443_without_a_key_divides_by_zero() {
        let _ = validate(&config(vec![], vec![], Some(vec![false, true])));
    }
}

//! `config` inputs: a service's name, up to 70 hosts, their ports (80, 443, 8080, any, now and then 0), a key and TLS flags.
//!
//! The branches worth reaching: TLS from a host's flag or from port 443, the
//! key byte a TLS host is salted with, port 0, port 443 without a key, too many
//! hosts. An input without a key gets no flag that turns TLS on (the planted
//! remainder by zero; the check would drop it anyway).

use planted::config::{validate, Config};

use super::{bucket, list, run_decoded};
use crate::check::Verdict;
use crate::encode::Encoder;
use crate::mutate::Rng;
use crate::text::{text, word};

/// An input of exactly `len` bytes and the configuration `arbitrary` reads from it.
pub(crate) fn build(rng: &mut Rng, len: usize) -> (Vec<u8>, Config) {
    let mut enc = Encoder::new(len, rng);
    let name = enc.string(&text(rng, 64));
    let wanted = if rng.one_in(20) { rng.range(65, 80) } else { rng.below(65) };
    let hosts = list(&mut enc, wanted, |enc| enc.string(&host(rng)));
    let wanted = rng.below(hosts.len() + 4);
    let zero_at = rng.one_in(8).then(|| rng.below(wanted.max(1)));
    let usual = rng.range(1, 12);
    let mut at = 0..;
    let ports = list(&mut enc, wanted, |enc| {
        let port = if at.next() == zero_at { 0 } else { port(rng, usual) };
        enc.u16(port);
        port
    });
    let wanted = match rng.below(4) {
        0 => 0,
        1 => rng.range(1, 32),
        _ => enc.remaining().saturating_sub(2 * hosts.len() + 100) / 2,
    };
    let key = list(&mut enc, wanted, |enc| {
        let byte = rng.byte();
        enc.u8(byte);
        byte
    });
    let with_flags = !rng.one_in(3);
    enc.bool(with_flags);
    let tls = with_flags.then(|| {
        let wanted = rng.below(hosts.len() + 4);
        let on = if key.is_empty() { 0 } else { rng.range(1, 4) };
        list(&mut enc, wanted, |enc| {
            let flag = rng.below(4) < on;
            enc.bool(flag);
            flag
        })
    });
    (enc.finish(), Config { name, hosts, ports, key, tls })
}

/// A host name: a domain, an address, or any text.
fn host(rng: &mut Rng) -> String {
    match rng.below(4) {
        0 | 1 => format!("{}.{}.{}", word(rng), word(rng), ["com", "org", "net", "io"][rng.below(4)]),
        2 => format!("10.{}.{}.{}", rng.below(256), rng.below(256), rng.below(256)),
        _ => text(rng, 40),
    }
}

/// A port other than 0: a usual one (443, 80, 8080, 8443) `usual` times in 12, else any.
fn port(rng: &mut Rng, usual: usize) -> u16 {
    if rng.below(12) < usual {
        [443, 443, 80, 8080, 8443][rng.below(5)]
    } else {
        rng.range(1, 0xffff) as u16
    }
}

/// The fuzz target on `data`: decode, then `validate`; the outcome is the rejection, or how many hosts use TLS.
pub(crate) fn run(data: &[u8]) -> Verdict {
    run_decoded(data, |config: Config| {
        Verdict::Runs(match validate(&config) {
            Ok(endpoints) => {
                let tls = endpoints.iter().filter(|e| e.tls).count();
                format!("ok: {} hosts, {} with TLS", bucket(endpoints.len()), bucket(tls))
            }
            Err(error) => error.0.to_string(),
        })
    })
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::typed::checks::{assert_read_back, outcomes};

    #[test]
    fn arbitrary_reads_back_the_configuration_that_was_written() {
        assert_read_back(21, &[300, 1024, 3000, 8192], 30, build);
    }

    #[test]
    fn configurations_reach_every_outcome_and_none_divides_by_zero() {
        let outcomes = outcomes(22, 300, build, run);
        for error in ["port 0", "too many hosts", "TLS on port 443 needs a key"] {
            assert!(outcomes.contains(error), "{error}: {outcomes:?}");
        }
        assert!(outcomes.iter().any(|o| o.ends_with("10-99 with TLS")), "{outcomes:?}");
    }
}

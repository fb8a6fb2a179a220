//! Property: under random loss on both directions, every byte is delivered exactly once and in
//! order, and the transfer completes. The check rebuilds the receiver's byte stream from the
//! per-packet log independently of the endpoint's own bookkeeping.

mod common;

use common::*;
use proptest::prelude::*;

/// Reassemble the client's in-order byte stream from the segments it received. Returns the
/// number of bytes delivered in order (each byte once) and whether the FIN was reached.
fn reassemble(pk: &[Pkt], data_from: u64) -> (u64, bool) {
    let mut next = 1u64; // first data byte
    let mut pending: std::collections::BTreeMap<u64, u64> = Default::default();
    let mut fin_at = None;
    for p in pk
        .iter()
        .filter(|p| p.event == "recv" && p.from_end == data_from)
    {
        if p.flags & 0x02 != 0 {
            continue; // SYN-ACK
        }
        if p.flags & 0x01 != 0 {
            fin_at = Some(p.seq + p.len);
        }
        if p.len == 0 {
            continue;
        }
        let e = pending.entry(p.seq).or_insert(0);
        *e = (*e).max(p.seq + p.len);
        while let Some((&s, &e)) = pending.iter().next() {
            if s > next {
                break;
            }
            pending.remove(&s);
            next = next.max(e);
        }
    }
    (next - 1, fin_at == Some(next))
}

fn check(
    seed: u64,
    p_data: f64,
    p_ack: f64,
    size: u64,
    profile: &str,
) -> Result<(), TestCaseError> {
    let toml = paper(
        &format!("{size}B"),
        &format!("{{ model = \"per\", p = {p_data} }}"),
        &format!("{{ model = \"per\", p = {p_ack} }}"),
        &format!("profile = \"{profile}\"\nmax_retries = 100"),
        "packets = true",
    );
    let out = run_seed(&toml, seed);
    let s = &out.summary;
    prop_assert_eq!(
        get(s, "apps.0.completed").as_bool(),
        Some(true),
        "seed {}",
        seed
    );
    prop_assert_eq!(num(s, "apps.0.bytes_received") as u64, size);
    prop_assert_eq!(num(s, "connections.0.client.bytes_delivered") as u64, size);
    let pk = packets(&out);
    let (delivered, fin) = reassemble(&pk, 1);
    prop_assert_eq!(delivered, size, "reassembled stream");
    prop_assert!(fin, "FIN follows the last byte");
    // Each dropped data segment was sent again.
    let dropped_data = pk
        .iter()
        .filter(|p| p.event == "drop_error" && p.from_end == 1 && p.len > 0)
        .count() as f64;
    prop_assert!(num(s, "connections.0.server.retransmissions") >= dropped_data);
    Ok(())
}

proptest! {
    #![proptest_config(ProptestConfig { cases: 48, ..ProptestConfig::default() })]

    #[test]
    fn every_byte_once_in_order_riverbed(
        seed in 0u64..1_000_000,
        p_data in 0.0f64..0.30,
        p_ack in 0.0f64..0.30,
        size in 1u64..300_000,
    ) {
        check(seed, p_data, p_ack, size, "riverbed")?;
    }

    #[test]
    fn every_byte_once_in_order_rfc(
        seed in 0u64..1_000_000,
        p_data in 0.0f64..0.30,
        p_ack in 0.0f64..0.30,
        size in 1u64..300_000,
    ) {
        check(seed, p_data, p_ack, size, "rfc")?;
    }
}

#[test]
fn heavy_loss_on_both_directions_still_completes() {
    for seed in 0..10 {
        check(seed, 0.3, 0.3, 100_000, "riverbed").unwrap();
    }
}

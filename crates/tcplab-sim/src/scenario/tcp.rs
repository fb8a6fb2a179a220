//! The `[tcp]` section (and each application's `[apps.tcp]`): a stack profile's values
//! (`tcp/profile.rs`), then every field given over them as `TcpConfig`'s walk declares it
//! (`tcp/config.rs`), checked across fields and against the congestion control and loss
//! recovery chosen.

use serde_json::{Map, Value};

use crate::engine::time::Dur;
use crate::error::{SimError, SimResult};
use crate::scenario::fields::{get_str, join, keys_ok, table};
use crate::scenario::schema;
use crate::scenario::walk::Parse;
use crate::tcp::cc;
use crate::tcp::params::{self, ParamValue};
use crate::tcp::profile::{self, Profile};
use crate::tcp::recovery;
use crate::tcp::TcpConfig;

/// The scenario-wide `[tcp]` table, checked on its own (its errors name `tcp.<field>`, not an
/// application's); every application's settings are merged from it ([`merged_tcp`]).
pub(super) fn parse(root: &Map<String, Value>) -> SimResult<Option<&Value>> {
    let base = root.get("tcp");
    if let Some(t) = base {
        tcp_config(table(t, "tcp")?, "tcp")?;
    }
    Ok(base)
}

/// The classic variant names `[tcp] variant` accepts.
pub const CLASSIC_VARIANTS: &[&str] = &["tahoe", "reno", "newreno", "sack"];

/// Classic variant names and the (congestion control, loss recovery) pair each stands for (seed
/// 001's decomposition): Tahoe and Reno recover by duplicate ACKs alone, NewReno by partial
/// ACKs (RFC 6582), and SACK is ns-2's `Agent/TCP/Sack1` (tcp-sack1.cc), whose fast recovery
/// halves cwnd once and ends only when the ACK reaches `recover_`, like NewReno's, with
/// SACK-based retransmissions: NewReno congestion control with RFC 6675 recovery.
pub fn classic_variant(name: &str) -> Option<(&'static str, &'static str)> {
    match name {
        "tahoe" => Some(("tahoe", "dupack")),
        "reno" => Some(("reno", "dupack")),
        "newreno" => Some(("newreno", "newreno")),
        "sack" => Some(("newreno", "sack")),
        _ => None,
    }
}

/// Merge TCP override tables: later tables win key by key.
/// A `variant` in the later table replaces the earlier table's whole pair (`variant`,
/// `congestion_control`, `loss_recovery`), so an application can pick a classic name over a
/// scenario-wide explicit pair.
pub(super) fn merged_tcp(base: Option<&Value>, over: Option<&Value>) -> Map<String, Value> {
    let mut m = Map::new();
    for v in [base, over].into_iter().flatten() {
        if let Some(o) = v.as_object() {
            if o.contains_key("variant") {
                m.remove("congestion_control");
                m.remove("loss_recovery");
            }
            for (k, x) in o {
                m.insert(k.clone(), x.clone());
            }
        }
    }
    m
}

/// The TCP settings of a `[tcp]` table (merged with an application's own): the profile's
/// values, the fields the table gives over them (`TcpConfig`'s walk, `tcp/config.rs`),
/// the defaults that follow another field, the checks across fields, and the plug-ins with their
/// parameters.
pub(super) fn tcp_config(m: &Map<String, Value>, path: &str) -> SimResult<(String, TcpConfig)> {
    keys_ok(m, path, schema::keys("tcp", None))?;
    let pname = get_str(m, path, "profile")?.unwrap_or_else(|| "rfc".into());
    let prof = profile::get(&pname).ok_or_else(|| {
        SimError::invalid(
            join(path, "profile"),
            format!("{pname:?}"),
            format!("one of: {}", profile::names()),
        )
    })?;
    let mut c = (prof.tcp)();
    Parse::apply(&mut c, m, path)?;
    follow_defaults(prof, &mut c, m, path)?;
    check_tcp(&c, m, path)?;
    choose_plugins(prof, &mut c, m, path)?;
    Ok((pname, c))
}

/// Defaults that follow another field unless the table sets them.
fn follow_defaults(
    prof: &Profile,
    c: &mut TcpConfig,
    m: &Map<String, Value>,
    path: &str,
) -> SimResult<()> {
    if prof.initial_window_from_mss && m.contains_key("mss") && !m.contains_key("initial_cwnd") {
        c.initial_cwnd = profile::rfc5681_initial_window(c.mss);
    }
    if m.contains_key("rcv_buf") && !m.contains_key("rcv_buf_max") {
        // A buffer set by hand is fixed, as SO_RCVBUF locks it in Linux (SOCK_RCVBUF_LOCK),
        // unless rcv_buf_max says how far it may grow.
        c.rcv_buf_max = c.rcv_buf;
    }
    if prof.initial_ssthresh_from_window && !m.contains_key("initial_ssthresh") {
        c.initial_ssthresh = c.rcv_buf;
    }
    c.ns2.check(c.rto.granularity, &join(path, "ns2"))
}

/// The checks that involve more than one field.
fn check_tcp(c: &TcpConfig, m: &Map<String, Value>, path: &str) -> SimResult<()> {
    if c.rcv_buf_max < c.rcv_buf {
        return Err(SimError::invalid(
            join(path, "rcv_buf_max"),
            c.rcv_buf_max,
            format!(
                "at least rcv_buf ({} bytes); equal to it: a fixed buffer",
                c.rcv_buf
            ),
        ));
    }
    for (key, v) in [("rcv_buf", c.rcv_buf), ("snd_buf", c.snd_buf)] {
        if v < c.mss as u64 {
            return Err(SimError::invalid(
                join(path, key),
                v,
                format!("at least one MSS ({} bytes)", c.mss),
            ));
        }
    }
    if m.contains_key("initial_ssthresh") && c.initial_ssthresh < 2 * c.mss as u64 {
        return Err(SimError::invalid(
            join(path, "initial_ssthresh"),
            c.initial_ssthresh,
            "a size of at least 2 MSS, or \"inf\"",
        ));
    }
    if c.delack_max > Dur::from_millis(500) {
        return Err(SimError::invalid(
            join(path, "delack_max"),
            format!("{}", c.delack_max),
            "at most 500ms (RFC 1122 4.2.3.2)",
        ));
    }
    if c.rto.min > c.rto.max || c.rto.initial.0 == 0 || c.rto.max.0 == 0 {
        return Err(SimError::invalid(
            join(path, "rto_min"),
            format!(
                "min {} initial {} max {}",
                c.rto.min, c.rto.initial, c.rto.max
            ),
            "positive RTO values with rto_min <= rto_max",
        ));
    }
    Ok(())
}

/// The congestion control and loss recovery (a classic `variant`, or the two named), their
/// parameters checked against them, and the profile's parameters for them.
fn choose_plugins(
    prof: &Profile,
    c: &mut TcpConfig,
    m: &Map<String, Value>,
    path: &str,
) -> SimResult<()> {
    if let Some(v) = get_str(m, path, "variant")? {
        // Never let one silently win over the other.
        for k in ["congestion_control", "loss_recovery"] {
            if m.contains_key(k) {
                return Err(SimError::invalid(
                    join(path, "variant"),
                    format!("{v:?} together with {k}"),
                    "either variant (a classic pair) or congestion_control/loss_recovery, not both",
                ));
            }
        }
        let (cc, lr) = classic_variant(&v).ok_or_else(|| {
            SimError::invalid(
                join(path, "variant"),
                format!("{v:?}"),
                format!("one of: {}", CLASSIC_VARIANTS.join(", ")),
            )
        })?;
        c.congestion_control = cc.into();
        c.loss_recovery = lr.into();
    }
    if m.contains_key("congestion_control") && cc::by_name(&c.congestion_control).is_none() {
        let names: Vec<&str> = cc::registry().iter().map(|r| r.0).collect();
        return Err(SimError::invalid(
            join(path, "congestion_control"),
            format!("{:?}", c.congestion_control),
            format!("one of: {}", names.join(", ")),
        ));
    }
    if m.contains_key("loss_recovery") && recovery::by_name(&c.loss_recovery).is_none() {
        let names: Vec<&str> = recovery::registry().iter().map(|r| r.0).collect();
        return Err(SimError::invalid(
            join(path, "loss_recovery"),
            format!("{:?}", c.loss_recovery),
            format!("one of: {}", names.join(", ")),
        ));
    }
    // Parameters are checked against the algorithms chosen above (by constructing them).
    if let Some(v) = m.get("cc_params") {
        let p = join(path, "cc_params");
        c.cc_params = cc::parse_params(&c.congestion_control, params::as_table(v, &p)?, &p)
            .map_err(owner_hint)?;
    }
    if let Some(v) = m.get("lr_params") {
        let p = join(path, "lr_params");
        c.lr_params = recovery::parse_params(&c.loss_recovery, params::as_table(v, &p)?, &p)
            .map_err(owner_hint)?;
    }
    prof.fill_plugin_params(c);
    // Westwood's NewReno window lasts the recovery phase, and `dupack` ends the phase at the
    // first new ACK, where that window is Reno's: refuse the pair rather than run Reno under
    // another name (WestwoodNR is loss_recovery = "newreno").
    if c.congestion_control == "westwood"
        && matches!(c.loss_recovery.as_str(), "dupack" | "rfc5681")
        && c.cc_params.get("recovery") == Some(&ParamValue::Choice("newreno".into()))
    {
        return Err(SimError::invalid(
            join(path, "cc_params.recovery"),
            "\"newreno\"",
            format!(
                "\"reno\" with loss_recovery = {:?}, whose recovery phase ends at the first new \
                 ACK, where a NewReno window is Reno's; for WestwoodNR set loss_recovery = \
                 \"newreno\"",
                c.loss_recovery
            ),
        ));
    }
    Ok(())
}

/// An unknown parameter that another plug-in has: say whose (a parameter given for the wrong
/// algorithm is an error, never ignored, and this tells where it belongs).
fn owner_hint(e: SimError) -> SimError {
    let SimError::UnknownField { field, allowed } = e else {
        return e;
    };
    let key = field.rsplit('.').next().unwrap_or_default();
    let mut owners = Vec::new();
    for (name, _) in cc::registry() {
        if cc::default_params(name).iter().any(|p| p.name == key) {
            owners.push(format!("congestion control {name} (cc_params)"));
        }
    }
    for (name, _) in recovery::registry() {
        if recovery::default_params(name).iter().any(|p| p.name == key) {
            owners.push(format!("loss recovery {name} (lr_params)"));
        }
    }
    let allowed = if owners.is_empty() {
        allowed
    } else {
        format!("{allowed}; {key} is a parameter of {}", owners.join(", "))
    };
    SimError::UnknownField { field, allowed }
}

#[cfg(test)]
mod tests {
    use crate::engine::time::Dur;
    use crate::scenario::tests::{err, BASE};
    use crate::scenario::Scenario;

    #[test]
    fn profile_then_overrides() {
        let s = Scenario::from_toml_str(&format!(
            "{BASE}[tcp]\nprofile = \"riverbed\"\nrcv_buf = \"16KiB\"\n"
        ))
        .unwrap();
        let t = &s.apps[0].tcp;
        assert_eq!(t.rcv_buf, 16384);
        assert_eq!(t.initial_cwnd, 2);
        assert_eq!(t.rto.initial, Dur::from_secs(3));
    }

    #[test]
    fn variant_and_an_explicit_pair_conflict_but_an_app_variant_replaces_the_pair() {
        let e = err("[tcp]\nvariant = \"sack\"\ncongestion_control = \"cubic\"\n");
        assert!(e.contains("tcp.variant") && e.contains("not both"), "{e}");
        let toml = format!(
            "{}[tcp]\ncongestion_control = \"cubic\"\nloss_recovery = \"dupack\"\n",
            BASE.replace(
                "size = \"1MB\"",
                "size = \"1MB\"\n[apps.tcp]\nvariant = \"sack\"",
            )
        );
        let s = Scenario::from_toml_str(&toml).unwrap();
        assert_eq!(
            (
                s.apps[0].tcp.congestion_control.as_str(),
                s.apps[0].tcp.loss_recovery.as_str()
            ),
            ("newreno", "sack")
        );
    }

    #[test]
    fn cc_params_are_parsed_for_the_chosen_algorithm() {
        use crate::tcp::params::ParamValue;
        let s = Scenario::from_toml_str(&format!(
            "{BASE}[tcp]\ncongestion_control = \"westwood\"\ncc_params = {{ tau = \"0.5s\" }}\n"
        ))
        .unwrap();
        let t = &s.apps[0].tcp;
        assert_eq!(t.cc_params.len(), 1);
        assert_eq!(
            t.cc_params.get("tau"),
            Some(&ParamValue::Duration(Dur::from_millis(500)))
        );
        assert!(t.lr_params.is_empty());
        // Without the table: no parameters (the algorithm's defaults).
        let s = Scenario::from_toml_str(BASE).unwrap();
        assert!(s.apps[0].tcp.cc_params.is_empty() && s.apps[0].tcp.lr_params.is_empty());
        // A variant's algorithm takes its parameters; so does a profile's.
        let s = Scenario::from_toml_str(&format!(
            "{BASE}[tcp]\nvariant = \"newreno\"\ncc_params = {{ full_ack = \"ssthresh\" }}\n"
        ))
        .unwrap();
        assert_eq!(s.apps[0].tcp.cc_params.len(), 1);
        let s = Scenario::from_toml_str(&format!(
            "{BASE}[tcp]\nprofile = \"linux\"\ncc_params = {{ beta = 0.5 }}\nlr_params = {{ reo_wnd_mult = 2 }}\n"
        ))
        .unwrap();
        // The scenario's beta, and the linux profile's CUBIC defaults it does not set.
        let p = &s.apps[0].tcp.cc_params;
        assert_eq!(p.get("beta"), Some(&ParamValue::Number(0.5)));
        assert_eq!(p.get("hystart"), Some(&ParamValue::Bool(true)));
        assert_eq!(p.get("alpha_to_one"), Some(&ParamValue::Bool(false)));
        assert_eq!(p.get("unknown_max_growth"), Some(&ParamValue::Bool(true)));
        assert_eq!(p.get("packets"), Some(&ParamValue::Bool(true)));
        assert_eq!(p.len(), 6);
        let own = Scenario::from_toml_str(&format!(
            "{BASE}[tcp]\nprofile = \"linux\"\ncc_params = {{ hystart = false }}\n"
        ))
        .unwrap();
        assert_eq!(
            own.apps[0].tcp.cc_params.get("hystart"),
            Some(&ParamValue::Bool(false))
        );
        assert_eq!(
            s.apps[0].tcp.lr_params.get("reo_wnd_mult"),
            Some(&ParamValue::Integer(2))
        );
        let t = Scenario::from_json_str(&s.to_json()).unwrap();
        assert_eq!(s, t);
    }

    #[test]
    fn cc_params_errors_name_the_field_the_value_and_what_is_allowed() {
        let ww = "[tcp]\ncongestion_control = \"westwood\"\n";
        // Unknown parameter: the algorithm's parameters are listed.
        let e = Scenario::from_toml_str(&format!("{BASE}{ww}cc_params = {{ taux = \"1s\" }}\n"))
            .unwrap_err();
        assert_eq!(e.kind(), "unknown_field");
        let s = e.to_string();
        assert!(
            s.contains("tcp.cc_params.taux")
                && s.contains("tau, recovery")
                && s.contains("westwood"),
            "{s}"
        );
        // Out of range: field, value and range.
        let e = Scenario::from_toml_str(&format!("{BASE}{ww}cc_params = {{ tau = \"200s\" }}\n"))
            .unwrap_err();
        assert_eq!(e.kind(), "invalid_value");
        let s = e.to_string();
        assert!(
            s.contains("tcp.cc_params.tau") && s.contains("200s") && s.contains("from 1ms to 100s"),
            "{s}"
        );
        let e = err("[tcp]\ncongestion_control = \"cubic\"\ncc_params = { beta = 1.0 }\n");
        assert!(
            e.contains("tcp.cc_params.beta") && e.contains("(0, 1)"),
            "{e}"
        );
        let e =
            err("[tcp]\ncongestion_control = \"cubic\"\ncc_params = { fast_convergence = 1 }\n");
        assert!(
            e.contains("tcp.cc_params.fast_convergence") && e.contains("true or false"),
            "{e}"
        );
        // Vegas: alpha <= beta.
        let e = err("[tcp]\ncongestion_control = \"vegas\"\ncc_params = { alpha = 4, beta = 2 }\n");
        assert!(
            e.contains("tcp.cc_params.beta") && e.contains("at least alpha"),
            "{e}"
        );
        // Parameters of another algorithm: an error that says whose they are.
        let e = err("[tcp]\ncongestion_control = \"cubic\"\ncc_params = { tau = \"1s\" }\n");
        assert!(
            e.contains("tcp.cc_params.tau")
                && e.contains("c, beta, fast_convergence, reno_friendly")
                && e.contains("tau is a parameter of congestion control westwood"),
            "{e}"
        );
        let e = err("[tcp]\ncc_params = { beta = 0.5 }\n");
        assert!(
            e.contains("tcp.cc_params.beta") && e.contains("reno has no parameters"),
            "{e}"
        );
        let e = err("[tcp]\nlr_params = { tlp = false }\n");
        assert!(
            e.contains("tcp.lr_params.tlp")
                && e.contains("dupack has no parameters")
                && e.contains("loss recovery rack-tlp (lr_params)"),
            "{e}"
        );
        let e = err("[tcp]\ncc_params = 3\n");
        assert!(
            e.contains("tcp.cc_params") && e.contains("a table of parameters"),
            "{e}"
        );
        // Per application, the application's path.
        let e = Scenario::from_toml_str(&BASE.replace(
            "size = \"1MB\"",
            "size = \"1MB\"\n[apps.tcp]\ncongestion_control = \"bbr\"\ncc_params = { min_pipe_cwnd = 0 }",
        ))
        .unwrap_err()
        .to_string();
        assert!(
            e.contains("apps[0].tcp.cc_params.min_pipe_cwnd") && e.contains("from 1 to 100"),
            "{e}"
        );
    }
}

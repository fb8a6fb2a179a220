//! The `[[nodes]]` section: hosts, routers and switches, each named once, with a forwarding
//! node's processing delay and packet filter (its `rules`, `crate::net::filter`).

use std::collections::HashMap;

use serde_json::{Map, Value};

use crate::engine::time::Dur;
use crate::error::{SimError, SimResult};
use crate::net::filter::{Action, Protocol, Rule};
use crate::scenario::fields::{get_dur, get_str, get_uint, join, keys_ok, required, table};
use crate::scenario::schema;

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum NodeKind {
    Host,
    Router,
    /// A store-and-forward switch: forwards like a router (each port's output queue is its link
    /// direction's), named apart for what a campus network calls it.
    Switch,
}

impl NodeKind {
    /// Whether the node forwards packets not addressed to it.
    pub fn forwards(self) -> bool {
        matches!(self, NodeKind::Router | NodeKind::Switch)
    }
}

#[derive(Clone, Debug, PartialEq)]
pub struct NodeCfg {
    pub name: String,
    pub kind: NodeKind,
    /// Latency added to every packet the node forwards (a pure delay: packets do not wait for
    /// one another, and their order is kept).
    pub processing_delay: Dur,
    /// The packet filter of a forwarding node (a firewall), in order; empty: none.
    pub rules: Vec<Rule>,
}

/// The nodes as read, and their indices by name for the links and applications that name them.
pub(super) struct Nodes {
    pub list: Vec<NodeCfg>,
    by_name: HashMap<String, usize>,
}

impl Nodes {
    /// Resolve the `app` of every filter rule among the applications, named `app_names` in
    /// order (known once every application is read, the transfers of repeating ftp
    /// applications among them).
    pub(super) fn resolve_rules(&mut self, app_names: &[&str]) -> SimResult<()> {
        for (i, n) in self.list.iter_mut().enumerate() {
            resolve(&mut n.rules, &format!("nodes[{i}]"), app_names)?;
        }
        Ok(())
    }

    /// The index of the node named `name` where `path` names it.
    pub(super) fn find(&self, path: &str, name: &str) -> SimResult<usize> {
        self.by_name.get(name).copied().ok_or_else(|| {
            SimError::invalid(
                path,
                format!("{name:?}"),
                format!("the name of a node: {}", name_list(&self.list)),
            )
        })
    }
}

/// The node names for an error message: all of them, or the first 12 and how many there are.
fn name_list(nodes: &[NodeCfg]) -> String {
    const SHOWN: usize = 12;
    let first: Vec<&str> = nodes.iter().take(SHOWN).map(|n| n.name.as_str()).collect();
    if nodes.len() > SHOWN {
        format!("{}, ... ({} nodes)", first.join(", "), nodes.len())
    } else {
        first.join(", ")
    }
}

/// The `[[nodes]]`: at least two, at most 65535, each name used once.
pub(super) fn parse(root: &Map<String, Value>) -> SimResult<Nodes> {
    let nv = root.get("nodes").ok_or_else(|| SimError::MissingField {
        field: "nodes".into(),
        allowed: "a list of [[nodes]] with name and kind (host or router)".into(),
    })?;
    let narr = nv
        .as_array()
        .ok_or_else(|| SimError::invalid("nodes", nv, "a list of [[nodes]] tables"))?;
    // Names are looked up through hash sets and maps, so that parsing stays linear in the size of
    // the scenario (a dumbbell of 10,000 pairs has 20,002 nodes and 20,001 links).
    let mut node_names: HashMap<String, usize> = HashMap::with_capacity(narr.len());
    let mut nodes = Vec::with_capacity(narr.len());
    for (i, n) in narr.iter().enumerate() {
        let p = format!("nodes[{i}]");
        let m = table(n, &p)?;
        keys_ok(m, &p, schema::keys("nodes[]", None))?;
        let name = required(get_str(m, &p, "name")?, &p, "name", "a unique node name")?;
        if !is_name(&name) {
            return Err(SimError::invalid(
                join(&p, "name"),
                format!("{name:?}"),
                NAME_ALLOWED,
            ));
        }
        if node_names.insert(name.clone(), nodes.len()).is_some() {
            return Err(SimError::invalid(
                join(&p, "name"),
                format!("{name:?}"),
                "a name not used by another node",
            ));
        }
        nodes.push(node(m, &p, name)?);
    }
    if nodes.len() < 2 {
        return Err(SimError::invalid(
            "nodes",
            nodes.len(),
            "at least two nodes",
        ));
    }
    if nodes.len() > u16::MAX as usize {
        return Err(SimError::invalid(
            "nodes",
            nodes.len(),
            "at most 65535 nodes",
        ));
    }
    Ok(Nodes {
        list: nodes,
        by_name: node_names,
    })
}

/// What a node's name may be: it becomes a file name (`tcplab run --pcap DIR` writes
/// `DIR/<node>.pcap`), so it is a name and never a path.
pub const NAME_ALLOWED: &str = "a name of letters, digits, '-', '_' and '.' (no path \
                                separator, not '.' or '..'), at most 200 characters: it \
                                becomes a file name (a capture's)";

/// Whether `s` is a name: 1 to 200 of `[A-Za-z0-9_.-]`, and not `.` or `..` (the rule of
/// python/tcplab/_atomic.py's `check_name`, where every name becomes a file name).
pub fn is_name(s: &str) -> bool {
    !s.is_empty()
        && s.len() <= 200
        && s != "."
        && s != ".."
        && s.bytes()
            .all(|b| b.is_ascii_alphanumeric() || matches!(b, b'-' | b'_' | b'.'))
}

/// Node table `m` at path `p`, named `name`.
fn node(m: &Map<String, Value>, p: &str, name: String) -> SimResult<NodeCfg> {
    let kind = match get_str(m, p, "kind")?.as_deref() {
        None | Some("host") => NodeKind::Host,
        Some("router") => NodeKind::Router,
        Some("switch") => NodeKind::Switch,
        Some(o) => {
            return Err(SimError::invalid(
                join(p, "kind"),
                format!("{o:?}"),
                "\"host\", \"router\" or \"switch\"",
            ))
        }
    };
    let processing_delay = get_dur(m, p, "processing_delay")?.unwrap_or(Dur::ZERO);
    if processing_delay > Dur::ZERO && !kind.forwards() {
        return Err(SimError::invalid(
            join(p, "processing_delay"),
            format!(
                "{:?} on a host",
                m["processing_delay"].as_str().unwrap_or("")
            ),
            "a router or switch (hosts do not forward)",
        ));
    }
    let rules = parse_rules(m, p, kind.forwards())?;
    Ok(NodeCfg {
        name,
        kind,
        processing_delay,
        rules,
    })
}

/// The `rules` of node table `m` at `path` (empty when absent); a host may have none.
fn parse_rules(m: &Map<String, Value>, path: &str, forwards: bool) -> SimResult<Vec<Rule>> {
    let Some(v) = m.get("rules") else {
        return Ok(Vec::new());
    };
    let p = join(path, "rules");
    if !forwards {
        return Err(SimError::invalid(
            &p,
            "a rule list on a host",
            "a router or switch (hosts do not forward)",
        ));
    }
    let arr = v
        .as_array()
        .ok_or_else(|| SimError::invalid(&p, v, "a list of rule tables"))?;
    arr.iter()
        .enumerate()
        .map(|(i, r)| {
            let rp = format!("{p}[{i}]");
            let rm = table(r, &rp)?;
            keys_ok(rm, &rp, schema::keys("nodes[].rules[]", None))?;
            let action = match get_str(rm, &rp, "action")?.as_deref() {
                Some("drop") => Action::Drop,
                Some("allow") => Action::Allow,
                Some(o) => {
                    return Err(SimError::invalid(
                        join(&rp, "action"),
                        format!("{o:?}"),
                        "\"drop\" or \"allow\"",
                    ))
                }
                None => {
                    return Err(SimError::MissingField {
                        field: join(&rp, "action"),
                        allowed: "\"drop\" or \"allow\"".into(),
                    })
                }
            };
            let protocol = match get_str(rm, &rp, "protocol")?.as_deref() {
                None => None,
                Some("tcp") => Some(Protocol::Tcp),
                Some("udp") => Some(Protocol::Udp),
                Some(o) => {
                    return Err(SimError::invalid(
                        join(&rp, "protocol"),
                        format!("{o:?}"),
                        "\"tcp\" or \"udp\"",
                    ))
                }
            };
            let port = get_uint(rm, &rp, "port", 1, 65_535)?.map(|n| n as u16);
            let app_name = get_str(rm, &rp, "app")?;
            Ok(Rule {
                action,
                protocol,
                port,
                app_name,
                app: None,
            })
        })
        .collect()
}

/// Resolve the `app` of every rule of `rules` (node `path`) among the applications, named
/// `apps` in order.
fn resolve(rules: &mut [Rule], path: &str, apps: &[&str]) -> SimResult<()> {
    for (i, r) in rules.iter_mut().enumerate() {
        if let Some(name) = &r.app_name {
            let named = |a: &str| {
                a == name
                    || a.strip_prefix(name.as_str()).is_some_and(|rest| {
                        rest.strip_prefix(':')
                            .is_some_and(|k| !k.is_empty() && k.bytes().all(|b| b.is_ascii_digit()))
                    })
            };
            let idx: Vec<usize> = (0..apps.len()).filter(|&i| named(apps[i])).collect();
            if idx.is_empty() {
                let names: Vec<&str> = apps.iter().take(12).copied().collect();
                return Err(SimError::invalid(
                    format!("{path}.rules[{i}].app"),
                    format!("{name:?}"),
                    format!(
                        "the name of an application: {}{}",
                        names.join(", "),
                        if apps.len() > 12 { ", ..." } else { "" }
                    ),
                ));
            }
            r.app = Some(idx);
        }
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::is_name;

    #[test]
    fn a_node_name_is_a_name_not_a_path() {
        for ok in ["client", "h-1", "srv_2.a", "..a", "a.."] {
            assert!(is_name(ok), "{ok}");
        }
        for bad in [
            "", ".", "..", "../evil", "/tmp/x", "a/b", "a b", "a\\b", "né", "a\0b",
        ] {
            assert!(!is_name(bad), "{bad:?}");
        }
        assert!(!is_name(&"x".repeat(201)) && is_name(&"x".repeat(200)));
    }
}

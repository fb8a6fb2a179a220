//! The `[[nodes]]` section: hosts, routers and switches, each named once, with a forwarding
//! node's processing delay and packet filter.

use std::collections::HashMap;

use serde_json::{Map, Value};

use crate::engine::time::Dur;
use crate::error::{SimError, SimResult};
use crate::scenario::fields::{get_dur, get_str, join, keys_ok, required, table};
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
    pub rules: Vec<crate::net::filter::Rule>,
}

/// The nodes as read, and their indices by name for the links and applications that name them.
pub(super) struct Nodes {
    pub list: Vec<NodeCfg>,
    by_name: HashMap<String, usize>,
}

impl Nodes {
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
    let mut nodes = Vec::new();
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
    for (i, n) in narr.iter().enumerate() {
        let p = format!("nodes[{i}]");
        let m = table(n, &p)?;
        keys_ok(m, &p, schema::keys("nodes[]", None))?;
        let name = required(get_str(m, &p, "name")?, &p, "name", "a unique node name")?;
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
    let rules = crate::net::filter::parse_rules(m, p, kind.forwards())?;
    Ok(NodeCfg {
        name,
        kind,
        processing_delay,
        rules,
    })
}

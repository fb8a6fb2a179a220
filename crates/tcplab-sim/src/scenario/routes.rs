//! Static routes. Link `i` has two directions: `2 i` (a -> b) and `2 i + 1` (b -> a).
//!
//! The rule: a node sends towards a destination over the shortest path in hops, and when several
//! neighbours lie on shortest paths, over the link listed first in the scenario. Routers forward;
//! hosts carry no transit traffic. Every node decides for itself, hop by hop.
//!
//! Tables are kept per destination, not per pair of nodes: one breadth-first search from the
//! destination gives every node's distance to it, and a node's next hop is its first link to a
//! neighbour one hop closer. A host whose links all lead to one router (a leaf host, as almost
//! every host is) shares that router's table: its shortest paths are the router's plus the last
//! hop. Only destinations that traffic is sent to get a table, so memory grows with the
//! topology, not with its square: a dumbbell of 10,000 pairs needs two tables.

use std::collections::VecDeque;

use crate::scenario::Scenario;

pub const NO_ROUTE: u32 = u32::MAX;
const FAR: u32 = u32::MAX;

/// Next hops towards the destinations that were asked for.
#[derive(Debug, Clone)]
pub struct Routes {
    /// Neighbours of each node with the link direction leading there, in link order
    /// (compressed rows: node `v`'s are `adj[start[v]..start[v + 1]]`).
    start: Vec<u32>,
    adj: Vec<(u32, u32)>,
    router: Vec<bool>,
    /// The node whose table a destination uses: its router for a leaf host, else itself.
    key: Vec<u32>,
    /// For a leaf host: the direction from its router to it (the first link joining them).
    last_hop: Vec<u32>,
    /// Index into `tables` for each key node that has one (`u32::MAX`: none yet).
    table_of: Vec<u32>,
    /// `tables[t][v]`: the first link direction from node `v` towards the table's key.
    tables: Vec<Box<[u32]>>,
}

impl Routes {
    /// Routing state for `sc`; no table is built until [`Routes::prepare`] asks for one.
    pub fn new(sc: &Scenario) -> Self {
        let n = sc.nodes.len();
        let mut degree = vec![0u32; n + 1];
        for l in &sc.links {
            degree[l.a] += 1;
            degree[l.b] += 1;
        }
        let mut start = vec![0u32; n + 1];
        for v in 0..n {
            start[v + 1] = start[v] + degree[v];
        }
        let mut fill = start.clone();
        let mut adj = vec![(0u32, 0u32); start[n] as usize];
        for (i, l) in sc.links.iter().enumerate() {
            adj[fill[l.a] as usize] = (l.b as u32, 2 * i as u32);
            fill[l.a] += 1;
            adj[fill[l.b] as usize] = (l.a as u32, 2 * i as u32 + 1);
            fill[l.b] += 1;
        }
        let router: Vec<bool> = sc.nodes.iter().map(|x| x.kind.forwards()).collect();
        let mut key: Vec<u32> = (0..n as u32).collect();
        let mut last_hop = vec![NO_ROUTE; n];
        for v in 0..n {
            let nbrs = &adj[start[v] as usize..start[v + 1] as usize];
            let Some(&(r, _)) = nbrs.first() else {
                continue;
            };
            if !router[v] && router[r as usize] && nbrs.iter().all(|&(w, _)| w == r) {
                key[v] = r;
                // The router's first link to v in its own (link-ordered) list.
                let rs = &adj[start[r as usize] as usize..start[r as usize + 1] as usize];
                last_hop[v] = rs
                    .iter()
                    .find(|&&(w, _)| w as usize == v)
                    .map_or(NO_ROUTE, |x| x.1);
            }
        }
        Routes {
            start,
            adj,
            router,
            key,
            last_hop,
            table_of: vec![u32::MAX; n],
            tables: Vec::new(),
        }
    }

    fn nbrs(&self, v: usize) -> &[(u32, u32)] {
        &self.adj[self.start[v] as usize..self.start[v + 1] as usize]
    }

    /// Build the table that traffic to `dst` needs (once per table).
    pub fn prepare(&mut self, dst: usize) {
        let k = self.key[dst] as usize;
        if self.table_of[k] != u32::MAX {
            return;
        }
        let n = self.router.len();
        // Distances to k: k itself and routers pass traffic on; other hosts are ends only.
        let mut dist = vec![FAR; n];
        dist[k] = 0;
        let mut frontier = VecDeque::from([k]);
        while let Some(x) = frontier.pop_front() {
            if x != k && !self.router[x] {
                continue;
            }
            for &(y, _) in self.nbrs(x) {
                if dist[y as usize] == FAR {
                    dist[y as usize] = dist[x] + 1;
                    frontier.push_back(y as usize);
                }
            }
        }
        let table: Box<[u32]> = (0..n)
            .map(|v| {
                if v == k || dist[v] == FAR {
                    return NO_ROUTE;
                }
                self.nbrs(v)
                    .iter()
                    .find(|&&(w, _)| {
                        let w = w as usize;
                        // dist[w] = FAR (unreachable) is never one hop short of dist[v].
                        (w == k || self.router[w]) && dist[w] != FAR && dist[w] + 1 == dist[v]
                    })
                    .map_or(NO_ROUTE, |x| x.1)
            })
            .collect();
        self.table_of[k] = self.tables.len() as u32;
        self.tables.push(table);
    }

    /// The first link direction from `at` towards `dst` (`NO_ROUTE` if there is none or
    /// `at == dst`). The table for `dst` must have been prepared.
    #[inline]
    pub fn next_hop(&self, at: usize, dst: usize) -> u32 {
        let k = self.key[dst] as usize;
        if at == dst {
            return NO_ROUTE;
        }
        if at == k {
            return self.last_hop[dst];
        }
        match self.tables.get(self.table_of[k] as usize) {
            Some(t) => t[at],
            None => NO_ROUTE,
        }
    }

    /// The link directions from `from` to `to`, in order (None if unreachable). Prepares the
    /// table for `to`.
    pub fn path(&mut self, sc: &Scenario, from: usize, to: usize) -> Option<Vec<u32>> {
        self.prepare(to);
        let mut at = from;
        let mut hops = Vec::new();
        while at != to {
            let d = self.next_hop(at, to);
            if d == NO_ROUTE || hops.len() > sc.links.len() {
                return None;
            }
            hops.push(d);
            let l = &sc.links[d as usize / 2];
            at = if d.is_multiple_of(2) { l.b } else { l.a };
        }
        Some(hops)
    }

    /// Tables built so far (one per distinct key node that traffic goes to).
    pub fn tables(&self) -> usize {
        self.tables.len()
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::engine::rng::{stream, uniform, Rng};

    /// The definition, computed the slow way: a breadth-first search from every source, links
    /// in scenario order, the first path found wins (the all-pairs table tcplab used before).
    fn all_pairs(sc: &Scenario) -> Vec<Vec<u32>> {
        let n = sc.nodes.len();
        let mut adj: Vec<Vec<(usize, u32)>> = vec![Vec::new(); n];
        for (i, l) in sc.links.iter().enumerate() {
            adj[l.a].push((l.b, 2 * i as u32));
            adj[l.b].push((l.a, 2 * i as u32 + 1));
        }
        (0..n)
            .map(|s| {
                let mut route = vec![NO_ROUTE; n];
                let mut seen = vec![false; n];
                seen[s] = true;
                let mut frontier: VecDeque<(usize, u32)> = adj[s].iter().copied().collect();
                while let Some((v, first)) = frontier.pop_front() {
                    if seen[v] {
                        continue;
                    }
                    seen[v] = true;
                    route[v] = first;
                    if sc.nodes[v].kind.forwards() {
                        for &(w, _) in &adj[v] {
                            if !seen[w] {
                                frontier.push_back((w, first));
                            }
                        }
                    }
                }
                route
            })
            .collect()
    }

    fn random_scenario(rng: &mut Rng, n: usize, m: usize) -> Scenario {
        let mut nodes = Vec::new();
        for i in 0..n {
            // n0 and n1 carry the (unused) application, which needs hosts.
            let kind = if i > 1 && uniform(rng) < 0.5 {
                "router"
            } else {
                "host"
            };
            nodes.push(serde_json::json!({"name": format!("n{i}"), "kind": kind}));
        }
        let mut links = Vec::new();
        for j in 0..m {
            let a = (uniform(rng) * n as f64) as usize % n;
            let mut b = (uniform(rng) * n as f64) as usize % n;
            if a == b {
                b = (a + 1) % n;
            }
            links.push(serde_json::json!({
                "name": format!("l{j}"), "a": format!("n{a}"), "b": format!("n{b}"), "rate": "1Mbps"
            }));
        }
        Scenario::from_value(serde_json::json!({
            "nodes": nodes,
            "links": links,
            "apps": [{"name": "x", "kind": "bulk", "client": "n0", "server": "n1"}],
        }))
        .unwrap()
    }

    #[test]
    fn per_destination_tables_give_every_next_hop_of_the_all_pairs_search() {
        let mut rng = stream(7, "topology-test");
        let rng = &mut rng;
        for trial in 0..300 {
            let n = 2 + trial % 13;
            let m = 1 + (uniform(rng) * (2 * n) as f64) as usize;
            let sc = random_scenario(rng, n, m);
            let want = all_pairs(&sc);
            let mut r = Routes::new(&sc);
            for d in 0..n {
                r.prepare(d);
            }
            for (s, row) in want.iter().enumerate() {
                for (d, &hop) in row.iter().enumerate() {
                    let w = if s == d { NO_ROUTE } else { hop };
                    assert_eq!(r.next_hop(s, d), w, "trial {trial}: {s} -> {d}");
                }
            }
        }
    }

    #[test]
    fn leaf_hosts_share_their_routers_table() {
        let mut hosts = Vec::new();
        let mut links = vec![serde_json::json!({"a": "r1", "b": "r2", "rate": "1Mbps"})];
        for i in 0..50 {
            hosts.push(serde_json::json!({"name": format!("s{i}")}));
            hosts.push(serde_json::json!({"name": format!("d{i}")}));
            links.push(serde_json::json!({"a": format!("s{i}"), "b": "r1", "rate": "1Mbps"}));
            links.push(serde_json::json!({"a": "r2", "b": format!("d{i}"), "rate": "1Mbps"}));
        }
        hosts.push(serde_json::json!({"name": "r1", "kind": "router"}));
        hosts.push(serde_json::json!({"name": "r2", "kind": "router"}));
        let sc = Scenario::from_value(serde_json::json!({
            "nodes": hosts, "links": links,
            "apps": [{"name": "x", "kind": "bulk", "client": "s0", "server": "d0"}],
        }))
        .unwrap();
        let mut r = Routes::new(&sc);
        for d in 0..sc.nodes.len() {
            r.prepare(d);
        }
        assert_eq!(r.tables(), 2);
        let want = all_pairs(&sc);
        for (s, row) in want.iter().enumerate() {
            for (d, &w) in row.iter().enumerate() {
                assert_eq!(r.next_hop(s, d), if s == d { NO_ROUTE } else { w });
            }
        }
    }
}

//! Static routes. Link `i` has two directions: `2 i` (a -> b) and `2 i + 1` (b -> a).
//!
//! Breadth-first search from every node, links in scenario order, so the shortest path in hops
//! is taken and ties go to the link listed first. Routers forward; hosts carry no transit traffic.

use std::collections::VecDeque;

use crate::scenario::{NodeKind, Scenario};

pub const NO_ROUTE: u32 = u32::MAX;

/// `routes[s][d]`: the first link direction on the way from node `s` to node `d`.
pub fn routes(sc: &Scenario) -> Vec<Vec<u32>> {
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
                if sc.nodes[v].kind == NodeKind::Router {
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

/// The link directions from `from` to `to`, in order (None if unreachable).
pub fn path(sc: &Scenario, routes: &[Vec<u32>], from: usize, to: usize) -> Option<Vec<u32>> {
    let mut at = from;
    let mut hops = Vec::new();
    while at != to {
        let d = routes[at][to];
        if d == NO_ROUTE || hops.len() > sc.links.len() {
            return None;
        }
        hops.push(d);
        let l = &sc.links[d as usize / 2];
        at = if d.is_multiple_of(2) { l.b } else { l.a };
    }
    Some(hops)
}

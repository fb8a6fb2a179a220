//! Packet filters on forwarding nodes: a firewall is a router with a processing delay and a rule
//! list (`rules = [{ action = "drop", protocol = "udp" }, ...]`).
//!
//! Each packet a node is about to forward is compared with its rules in order; the first rule
//! whose every given condition matches decides (`drop` or `allow`), and a packet no rule matches
//! is forwarded. Conditions: `protocol` ("tcp" or "udp"), `port` (the application's server
//! port, so a rule covers both directions of a service, as a stateful firewall's does) and
//! `app` (one application by name). Drops are counted per rule and reported in the summary's
//! `filters`, and logged as `drop_filter` events.

use serde_json::{json, Map, Value};

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Action {
    Allow,
    Drop,
}

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Protocol {
    Tcp,
    Udp,
}

#[derive(Clone, Debug, PartialEq)]
pub struct Rule {
    pub action: Action,
    pub protocol: Option<Protocol>,
    pub port: Option<u16>,
    /// The application's name as written, and the indices (sorted) of the applications it
    /// names once they are known: that application, or every transfer `<name>:<k>` a
    /// repeating ftp of that name expanded to.
    pub app_name: Option<String>,
    pub app: Option<Vec<usize>>,
}

impl Rule {
    fn matches(&self, protocol: Protocol, port: u16, app: usize) -> bool {
        self.protocol.is_none_or(|p| p == protocol)
            && self.port.is_none_or(|p| p == port)
            && self
                .app
                .as_ref()
                .is_none_or(|a| a.binary_search(&app).is_ok())
    }

    fn to_json(&self) -> Value {
        let mut m = Map::new();
        m.insert(
            "action".into(),
            json!(match self.action {
                Action::Allow => "allow",
                Action::Drop => "drop",
            }),
        );
        if let Some(p) = self.protocol {
            m.insert(
                "protocol".into(),
                json!(if p == Protocol::Tcp { "tcp" } else { "udp" }),
            );
        }
        if let Some(p) = self.port {
            m.insert("port".into(), json!(p));
        }
        if let Some(a) = &self.app_name {
            m.insert("app".into(), json!(a));
        }
        Value::Object(m)
    }
}

/// A node's rules at run time, with the packets each has dropped.
#[derive(Debug)]
pub struct Filter {
    rules: Vec<Rule>,
    dropped: Vec<u64>,
}

impl Filter {
    pub fn new(rules: &[Rule]) -> Self {
        Filter {
            rules: rules.to_vec(),
            dropped: vec![0; rules.len()],
        }
    }

    /// Whether a packet of `protocol` of application `app` (server port `port`) is dropped;
    /// counts it against the rule that dropped it.
    pub fn drops(&mut self, protocol: Protocol, port: u16, app: usize) -> bool {
        for (i, r) in self.rules.iter().enumerate() {
            if r.matches(protocol, port, app) {
                if r.action == Action::Drop {
                    self.dropped[i] += 1;
                    return true;
                }
                return false;
            }
        }
        false
    }

    pub fn summary(&self, node: &str) -> Value {
        let rules: Vec<Value> = self
            .rules
            .iter()
            .zip(&self.dropped)
            .map(|(r, &n)| {
                let mut v = r.to_json();
                v["frames_dropped"] = json!(n);
                v
            })
            .collect();
        json!({
            "node": node,
            "frames_dropped": self.dropped.iter().sum::<u64>(),
            "rules": rules,
        })
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn rule(action: Action, protocol: Option<Protocol>, port: Option<u16>) -> Rule {
        Rule {
            action,
            protocol,
            port,
            app_name: None,
            app: None,
        }
    }

    #[test]
    fn the_first_matching_rule_decides_and_is_counted() {
        let mut f = Filter::new(&[
            rule(Action::Allow, Some(Protocol::Tcp), Some(80)),
            rule(Action::Drop, Some(Protocol::Tcp), None),
            rule(Action::Drop, Some(Protocol::Udp), Some(5001)),
        ]);
        assert!(!f.drops(Protocol::Tcp, 80, 0)); // allowed before the tcp drop
        assert!(f.drops(Protocol::Tcp, 21, 1));
        assert!(f.drops(Protocol::Tcp, 5432, 2));
        assert!(!f.drops(Protocol::Udp, 9, 3)); // no rule matches: forwarded
        assert!(f.drops(Protocol::Udp, 5001, 3));
        assert_eq!(f.dropped, vec![0, 2, 1]);
        let s = f.summary("fw");
        assert_eq!(s["frames_dropped"], 3);
        assert_eq!(
            s["rules"][1],
            json!({"action": "drop", "protocol": "tcp", "frames_dropped": 2})
        );
    }
}

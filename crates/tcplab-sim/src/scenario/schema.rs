//! The scenario format, field by field: the one list the parser takes its allowed keys from,
//! and that `tcplab schema` and the docs print, so that neither can drift from the other.
//!
//! A field's `section` says where its key sits: `run`, `tcp` (also each `apps[].tcp`),
//! `nodes[]`, `links[]`, `direction` (the per-direction settings, in `links[]` itself and in its
//! `ab` and `ba` tables), `aqm` (a queue discipline, where `direction` fields go), `error` (an
//! error model, in `links[]`, `links[].ab`, `links[].ba`),
//! `error.segments[]`, `apps[]`, `output`, or the root (`""`). `when` limits a field to one
//! error model or one application kind (`model=per`, `kind=ftp`).

use serde_json::{json, Value};

use crate::engine::time::Dur;
use crate::scenario::walk::{Doc, Fields, Int, Visitor};

/// One field of the scenario format.
#[derive(Clone, Copy, Debug)]
pub struct Field {
    pub section: &'static str,
    pub key: &'static str,
    /// `model=...` or `kind=...` when the field belongs to one variant only.
    pub when: &'static str,
    /// duration, rate, size, probability, integer, number, bool, string, choice, table, list
    pub kind: &'static str,
    /// The unit a bare number means, or what a string with a unit is converted to.
    pub unit: &'static str,
    /// As a scenario writes it; "profile" when the TCP profile decides; "" when required.
    pub default: &'static str,
    pub allowed: &'static str,
    pub doc: &'static str,
    /// A valid value as TOML, for the tests and the docs.
    pub example: &'static str,
}

#[allow(clippy::too_many_arguments)] // one row of the table below
const fn f(
    section: &'static str,
    key: &'static str,
    when: &'static str,
    kind: &'static str,
    unit: &'static str,
    default: &'static str,
    allowed: &'static str,
    doc: &'static str,
    example: &'static str,
) -> Field {
    Field {
        section,
        key,
        when,
        kind,
        unit,
        default,
        allowed,
        doc,
        example,
    }
}

const DUR: &str = "a duration with its unit: \"20ms\", \"1.5s\", \"250us\"";
const RATE: &str = "a bit rate with its unit: \"10Mbps\", \"1.5Mbps\", \"100kbps\", \"1Gbps\"";
const SIZE: &str = "bytes: a number, or with a unit: \"1460B\", \"64KB\", \"10MB\", \"1GiB\"";
const PROB: &str = "between 0 and 1: 0.01, \"1e-6\" or \"1%\"";
const BOOL: &str = "true or false";
const DIST_SIZE: &str = "a size, or { dist = ..., ... } of sizes (see distribution)";
const DIST_DUR: &str = "a duration, or { dist = ..., ... } of durations (see distribution)";
const DIST_COUNT: &str = "a whole number, or { dist = ..., ... } of numbers (see distribution)";

/// Every field, in the order the docs list them.
/// The fields before `[tcp]`, in the order the docs list them.
const HEAD: &[Field] = &[
    // -- the root
    f("", "run", "", "table", "", "", "[run]", "The run: name, seed and stop time.", "{}"),
    f("", "tcp", "", "table", "", "profile \"rfc\"", "[tcp]", "TCP settings of every connection (a profile plus overrides); each application can override them in its own tcp table.", "{}"),
    f("", "nodes", "", "list", "", "", "[[nodes]]", "The hosts and routers.", ""),
    f("", "links", "", "list", "", "", "[[links]]", "Point-to-point links between two nodes.", ""),
    f("", "apps", "", "list", "", "", "[[apps]]", "The applications, one TCP connection each.", ""),
    f("", "profiles", "", "list", "", "[]", "[[profiles]]", "Groups of hosts that each run a set of applications, expanded into [[apps]].", ""),
    f("", "output", "", "table", "", "", "[output]", "Which tables the run keeps besides the summary.", "{}"),
    // -- [run]
    f("run", "name", "", "string", "", "\"scenario\"", "any text", "A label carried into the summary.", "\"demo\""),
    f("run", "seed", "", "integer", "", "1", "0 to 2^64-1", "The seed of every random stream of the run (error models per link direction); the same seed gives bit-identical results.", "7"),
    f("run", "stop_time", "", "duration", "s", "\"100000s\"", DUR, "The run stops here even if applications are still busy (they are then reported as not finished).", "\"600s\""),
];

/// The fields after `[tcp]` and `[tcp.ns2]`, whose rows come from `TcpConfig`'s walk
/// (`tcp/config.rs`).
const TAIL: &[Field] = &[
    // -- [[nodes]]
    f("nodes[]", "name", "", "string", "", "", "a unique name of letters, digits, -, _ and . (not . or ..)", "The node's name; links and applications refer to it, and a capture is written as <name>.pcap.", "\"n1\""),
    f("nodes[]", "kind", "", "choice", "", "\"host\"", "host, router, switch", "A host runs applications; a router or a switch forwards (store-and-forward, each port's output queue being its link direction's).", "\"switch\""),
    f("nodes[]", "processing_delay", "", "duration", "s", "\"0s\"", "a duration, on a router or switch", "Latency added to every packet the node forwards (a pure delay that keeps their order; OPNET's per-packet processing, a firewall's inspection).", "\"50us\""),
    f("nodes[]", "rules", "", "list", "", "[]", "a list of rule tables, on a router or switch", "A packet filter (a firewall's rule list): each packet the node forwards is compared with the rules in order, and the first that matches drops or allows it; no match: forwarded. Drops are counted per rule in the summary's filters.", "[{ action = \"drop\", protocol = \"udp\" }]"),
    f("nodes[].rules[]", "action", "", "choice", "", "", "drop, allow", "What the rule does with a matching packet.", "\"allow\""),
    f("nodes[].rules[]", "protocol", "", "choice", "", "any", "tcp, udp", "Match only this protocol.", "\"udp\""),
    f("nodes[].rules[]", "port", "", "integer", "", "any", "1 to 65535", "Match only the packets of applications whose server port is this, both directions.", "21"),
    f("nodes[].rules[]", "app", "", "string", "", "any", "an application's name", "Match only this application's packets.", "\"x\""),
    // -- [[links]]
    f("links[]", "name", "", "string", "", "\"<a>-<b>\"", "a unique name", "The link's name; --set and the results address it by name.", "\"wan\""),
    f("links[]", "a", "", "string", "", "", "a node name", "The node at one end.", ""),
    f("links[]", "b", "", "string", "", "", "a node name", "The node at the other end.", ""),
    f("links[]", "ab", "", "table", "", "{}", "direction fields", "Overrides for the direction a -> b.", "{}"),
    f("links[]", "ba", "", "table", "", "{}", "direction fields", "Overrides for the direction b -> a.", "{}"),
    // -- direction fields (in [[links]] for both directions, or in ab / ba)
    f("direction", "rate", "", "rate", "bit/s", "", RATE, "Transmission rate.", "\"5Mbps\""),
    f("direction", "delay", "", "duration", "s", "\"0s\"", DUR, "One-way propagation delay.", "\"10ms\""),
    f("direction", "mtu", "", "integer", "bytes", "1500", "68 to 65535", "Largest IP packet.", "1500"),
    f("direction", "framing", "", "choice", "", "\"ethernet\"", "ethernet (38 B a frame), ppp (8 B), none", "Per-frame overhead on the wire (and the bytes a bit error can hit).", "\"ppp\""),
    f("direction", "queue", "", "size", "packets or bytes", "\"100p\"", "\"unlimited\", a packet count such as \"100p\" or 100, or a byte size such as \"64KB\"", "The transmit queue (drop-tail); 100 packets unless given, as ns-3's DropTailQueue and INET's DropTailQueue hold.", "\"50p\""),
    f("direction", "aqm", "", "table", "", "{ kind = \"none\" }", "a queue discipline", "Active queue management of the transmit queue: none (drop-tail), RED (on arrival, before the limit) or CoDel (at dequeue; the limit still refuses arrivals to a full queue).", "{ kind = \"red\", min_th = 5, max_th = 15 }"),
    f("direction", "error", "", "table", "", "{ model = \"none\" }", "an error model", "Frame errors on this direction.", "{ model = \"per\", p = 0.01 }"),
    // -- queue disciplines (aqm)
    f("aqm", "kind", "", "choice", "", "", "none, red, codel", "none: drop-tail at the queue limit; red: Random Early Detection (Floyd and Jacobson 1993), with the gentle variant (Floyd 2000); codel: Controlled Delay (RFC 8289), which drops at dequeue once packets have waited over target for an interval. RED's and CoDel's own drops are the link's frames_dropped_early.", "\"red\""),
    f("aqm", "target", "kind=codel", "duration", "s", "\"5ms\"", "1 us to 10 s", "The sojourn time CoDel tolerates (RFC 8289 TARGET; ns-3 CoDelQueueDisc Target, Linux fq_codel/codel target).", "\"5ms\""),
    f("aqm", "interval", "kind=codel", "duration", "s", "\"100ms\"", "1 us to 100 s, above target", "How long the sojourn time must stay above target before the first drop, and the base of the control law interval / sqrt(count) (RFC 8289 INTERVAL; ns-3 Interval, Linux interval).", "\"100ms\""),
    f("aqm", "law", "kind=codel", "choice", "", "\"rfc\"", "rfc, linux", "rfc: RFC 8289's pseudocode (drop from first_above_time on, interval / sqrt(count) exactly); linux: as Linux's codel and ns-3's CoDelQueueDisc (drop only after first_above_time, 1/sqrt(count) in 16-bit fixed point by one Newton step per count, so count 2 gives 0.5). Both in nanoseconds (Linux and ns-3 count 1024-ns units).", "\"linux\""),
    f("aqm", "min_th", "kind=red", "number", "packets", "5", "0 packets up to the queue limit: 5 or \"5p\"", "Below this average queue no arrival is dropped, nor while at most one frame waits (ns-2 thresh_, ns-3 MinTh, OPNET Minimum Threshold).", "5"),
    f("aqm", "max_th", "kind=red", "number", "packets", "15", "above min_th, up to 1000000 packets", "Top of the random-drop region (ns-2 maxthresh_, ns-3 MaxTh, OPNET Maximum Threshold).", "15"),
    f("aqm", "max_p", "kind=red", "probability", "", "0.02", "above 0, at most 1", "Drop probability at max_th (ns-2 1/linterm_, ns-3 1/LInterm, OPNET 1/Mark Probability Denominator). The defaults are ns-3's RedQueueDisc's; ns-2.35 configures its thresholds automatically unless given.", "0.1"),
    f("aqm", "weight", "kind=red", "number", "", "0.002", "above 0, at most 1", "Weight of the average queue's moving average (ns-2 q_weight_, ns-3 QW; OPNET's Exponential Weight Factor n gives 2^-n).", "0.002"),
    f("aqm", "gentle", "kind=red", "bool", "", "true", BOOL, "Between max_th and 2 max_th raise the drop probability from max_p to 1 instead of dropping every arrival (ns-2 gentle_, ns-3 Gentle).", "false"),
    f("aqm", "wait", "kind=red", "bool", "", "true", BOOL, "Space drops evenly: no drop until count x pb reaches 1 (ns-2 wait_, ns-3 Wait); false is Floyd and Jacobson's pb / (1 - count x pb).", "false"),
    f("aqm", "mean_packet_size", "kind=red", "size", "bytes", "500", "1 B to 65535 B", "Packet size for the average's decay over idle time: one step per packet of this size the link could have sent (ns-2 mean_pktsize_, ns-3 MeanPktSize).", "\"500B\""),
    // -- error models
    f("error", "model", "", "choice", "", "", "none, per, ber, gilbert-elliott, list", "The error model.", "\"none\""),
    f("error", "p", "model=per", "probability", "", "", PROB, "Probability that a frame is lost (whatever its length).", "0.02"),
    f("error", "ber", "model=ber", "probability", "", "", PROB, "Bit error rate: a frame of n exposed bits is lost with 1-(1-ber)^n.", "\"1e-6\""),
    f("error", "p_gb", "model=gilbert-elliott", "probability", "per frame", "", PROB, "Good -> bad transition probability per frame.", "0.01"),
    f("error", "p_bg", "model=gilbert-elliott", "probability", "per frame", "", PROB, "Bad -> good transition probability per frame.", "0.3"),
    f("error", "good_per", "model=gilbert-elliott", "probability", "", "0", PROB, "Frame loss probability in the good state (or good_ber).", "0.0"),
    f("error", "good_ber", "model=gilbert-elliott", "probability", "", "", PROB, "Bit error rate in the good state (or good_per).", "\"1e-8\""),
    f("error", "bad_per", "model=gilbert-elliott", "probability", "", "1", PROB, "Frame loss probability in the bad state (or bad_ber).", "0.5"),
    f("error", "bad_ber", "model=gilbert-elliott", "probability", "", "", PROB, "Bit error rate in the bad state (or bad_per).", "\"1e-4\""),
    f("error", "start", "model=gilbert-elliott", "choice", "", "\"good\"", "good, bad", "The state of the first frame.", "\"bad\""),
    f("error", "frames", "model=list", "list", "", "[]", "frame indices, 0-based", "Frames of this direction to drop, by their order on it.", "[3, 10]"),
    f("error", "segments", "model=list", "list", "", "[]", "[{ seq = N, tx = K }]", "TCP segments to drop: the K-th transmission (default 1) of the one starting at sequence N.", "[{ seq = 1461 }]"),
    f("error.segments[]", "seq", "", "integer", "", "", "0 to 2^62", "Sequence number of the segment (data starts at 1).", "1461"),
    f("error.segments[]", "tx", "", "integer", "", "1", "1 to 1000", "Which transmission of it to drop.", "2"),
    // -- [[apps]]
    f("apps[]", "name", "", "string", "", "\"app<index>\"", "a unique name", "The application's name; --set and the results address it by name.", "\"dl\""),
    f("apps[]", "kind", "", "choice", "", "", "ftp, bulk, cbr, database, http, udp", "ftp: the client requests a file the server sends; bulk: the client sends; cbr: the client writes at a constant rate; database: queries and responses over one connection; http: pages of objects over one persistent connection (HTTP/1.1, no pipelining) or a connection per page (connection = \"per_page\"); udp: datagrams from client to server, constant or on-off.", "\"ftp\""),
    f("apps[]", "client", "", "string", "", "", "a host", "The host that opens the connection.", ""),
    f("apps[]", "server", "", "string", "", "", "a host other than the client", "The host that accepts it.", ""),
    f("apps[]", "start", "", "duration", "s", "\"0s\"", DUR, "When the application starts.", "\"1s\""),
    f("apps[]", "tcp", "", "table", "", "{}", "tcp fields", "TCP settings of this application's connection, over the scenario's [tcp].", "{ mss = 536 }"),
    f("apps[]", "group", "", "string", "", "the application's name; a profile's application: \"<profile>:<name>\"; a repeating ftp's transfers: its name", "a non-empty name", "The name under which the app_series table counts this application's responses, as OPNET reports an application's statistics over every user running it.", "\"web\""),
    f("apps[]", "port", "", "integer", "", "by kind: ftp 21, http 80, database 5432, bulk and udp 5001, cbr 5004", "1 to 65535", "The server's port: what a node's packet filter (rules) matches.", "8080"),
    f("apps[]", "size", "kind=ftp", "size", "bytes", "", SIZE, "The file the server sends.", "\"100kB\""),
    f("apps[]", "request_size", "kind=ftp", "size", "bytes", "64", SIZE, "The request the client sends first.", "100"),
    f("apps[]", "inter_request", "kind=ftp", "distribution", "s", "one transfer", DIST_DUR, "Makes the application repeat: the time from one transfer's start to the next's. Each transfer is its own connection and its own application, named <name>:<k> (OPNET: inter-request time).", "{ dist = \"exponential\", mean = \"360s\" }"),
    f("apps[]", "count", "kind=ftp", "integer", "", "until the stop time with inter_request, else 1", "a whole number from 1 to 100000", "How many transfers a repeating application makes (more than 1 needs inter_request).", "1"),
    f("apps[]", "get_fraction", "kind=ftp", "number", "", "1", "a number from 0 to 1", "The share of transfers that are gets (the server sends the file); the others are puts (the client sends it, as a bulk transfer) (OPNET: command mix, get/total).", "0.5"),
    f("apps[]", "size", "kind=bulk", "size", "bytes", "unlimited", SIZE, "What the client sends (unlimited: until the stop time).", "\"100kB\""),
    f("apps[]", "packet_size", "kind=cbr", "size", "bytes", "", SIZE, "Bytes written every interval.", "1000"),
    f("apps[]", "interval", "kind=cbr", "duration", "s", "", DUR, "Time between writes.", "\"10ms\""),
    f("apps[]", "stop", "kind=cbr", "duration", "s", "until the stop time", DUR, "How long after its start the application writes.", "\"2s\""),
    f("apps[]", "request_size", "kind=database", "distribution", "bytes", "\"512B\"", DIST_SIZE, "Each query's size.", "{ dist = \"uniform\", min = \"200B\", max = \"1KB\" }"),
    f("apps[]", "response_size", "kind=database", "distribution", "bytes", "\"16KB\"", DIST_SIZE, "Each response's size (OPNET: transaction size).", "{ dist = \"exponential\", mean = \"32KB\" }"),
    f("apps[]", "interval", "kind=database", "distribution", "s", "{ dist = \"exponential\", mean = \"1s\" }", DIST_DUR, "Time between queries, whether or not the previous was answered (OPNET: transaction interarrival time).", "{ dist = \"exponential\", mean = \"12s\" }"),
    f("apps[]", "count", "kind=database", "integer", "", "until stop", "a whole number from 1", "The most queries to make.", "100"),
    f("apps[]", "stop", "kind=database", "duration", "s", "until the stop time", DUR, "No query starts later than this after the application's start; the connection closes when the last is answered.", "\"20min\""),
    f("apps[]", "preset", "kind=http", "choice", "", "\"heavy\"", "heavy, light", "OPNET-style browsing: heavy, a page every exponential(60 s); light, every exponential(720 s); both a 1000 B page and 5 objects of uniform(500 B, 2000 B). Fields given beside it override it.", "\"light\""),
    f("apps[]", "connection", "kind=http", "choice", "", "\"persistent\"", "persistent, per_page", "How pages use TCP. persistent: one connection for every page, opened at the start and closed after the last (HTTP/1.1 keep-alive, no pipelining): one handshake in all, and the congestion window earlier pages grew carries over to the next. per_page: a new connection for each page (HTTP/1.0 style): a handshake (one more round trip) and slow start from the initial window on every page, the page and its objects fetched in turn on it, then the client closes it (FIN exchange during the think time). The summary lists each of these connections, as `<app>#<k>` (k = the page, from 0) with `app` and `conn` (its number in the trace, events and packets tables); every one stays in the summary and in memory to the end of the run (some 15 kB each in all), so a long run of many browsers lists thousands.", "\"per_page\""),
    f("apps[]", "request_size", "kind=http", "distribution", "bytes", "\"350B\"", DIST_SIZE, "Each HTTP request's size.", "\"500B\""),
    f("apps[]", "page_size", "kind=http", "distribution", "bytes", "\"1000B\"", DIST_SIZE, "Each page's own size (its HTML).", "{ dist = \"lognormal\", mean = \"10KB\", sd = \"20KB\" }"),
    f("apps[]", "objects", "kind=http", "distribution", "", "5", DIST_COUNT, "Objects (images, ...) per page, each fetched with its own request after the page.", "{ dist = \"uniform\", min = 2, max = 10 }"),
    f("apps[]", "object_size", "kind=http", "distribution", "bytes", "{ dist = \"uniform\", min = \"500B\", max = \"2000B\" }", DIST_SIZE, "Each object's size.", "{ dist = \"pareto\", shape = 1.2, mean = \"12KB\" }"),
    f("apps[]", "think_time", "kind=http", "distribution", "s", "{ dist = \"exponential\", mean = \"60s\" }", DIST_DUR, "From a page's last object to the next page's request (OPNET: page interarrival time).", "{ dist = \"exponential\", mean = \"30s\" }"),
    f("apps[]", "count", "kind=http", "integer", "", "until stop", "a whole number from 1", "The most pages to fetch.", "10"),
    f("apps[]", "stop", "kind=http", "duration", "s", "until the stop time", DUR, "No page starts later than this after the application's start; the (persistent) connection closes when the last has arrived.", "\"30min\""),
    f("apps[]", "rate", "kind=udp", "rate", "bit/s", "", RATE, "The sending rate while on: a datagram every packet_size x 8 / rate seconds.", "\"2Mbps\""),
    f("apps[]", "packet_size", "kind=udp", "size", "bytes", "1000", "1 B to 65507 B", "Each datagram's payload (plus 8 B UDP and 20 B IP headers).", "\"1200B\""),
    f("apps[]", "on_time", "kind=udp", "distribution", "s", "always on", DIST_DUR, "Length of each on period (with off_time: an on-off source, as ns-3's OnOffApplication).", "{ dist = \"exponential\", mean = \"1s\" }"),
    f("apps[]", "off_time", "kind=udp", "distribution", "s", "always on", DIST_DUR, "Length of each off period.", "{ dist = \"exponential\", mean = \"1s\" }"),
    f("apps[]", "stop", "kind=udp", "duration", "s", "until the stop time", DUR, "How long after its start the source sends.", "\"60s\""),
    // -- [[profiles]]
    f("profiles[]", "name", "", "string", "", "", "a name", "The profile's name; its applications are named <profile>:<app>:<host>:<repetition>.", "\"engineers\""),
    f("profiles[]", "hosts", "", "list", "", "", "host names", "The hosts that run it, each as the client of every application.", "[\"c\"]"),
    f("profiles[]", "server", "", "string", "", "each app's own", "a host", "The server of its applications that name none.", "\"s\""),
    f("profiles[]", "start", "", "distribution", "s", "\"0s\"", DIST_DUR, "Each host's start, drawn per host (OPNET: start time offset).", "{ dist = \"uniform\", min = \"0s\", max = \"60s\" }"),
    f("profiles[]", "repetitions", "", "integer", "", "1", "1 to 100000", "How many times each host runs the applications, each time with new connections.", "3"),
    f("profiles[]", "inter_repetition", "", "distribution", "s", "required with repetitions > 1", DIST_DUR, "From one repetition's start to the next's (OPNET: inter-repetition time).", "\"1h\""),
    f("profiles[]", "apps", "", "list", "", "", "[[apps]] without client", "The applications, as [[apps]] entries whose client is each host; their start is added to the host's.", "[{ kind = \"ftp\", size = \"1MB\" }]"),
    // -- distributions (of an application's sizes and times)
    f("distribution", "dist", "", "choice", "", "", "constant, exponential, uniform, lognormal, pareto", "The distribution; a plain value (\"30s\", \"10KB\", 5) is a constant.", "\"exponential\""),
    f("distribution", "value", "dist=constant", "value", "", "", "a duration, size or count as the field takes", "The value.", "\"1s\""),
    f("distribution", "mean", "dist=exponential", "value", "", "", "above 0", "The mean.", "\"1s\""),
    f("distribution", "min", "dist=uniform", "value", "", "", "at most max", "The smallest value.", "\"1s\""),
    f("distribution", "max", "dist=uniform", "value", "", "", "at least min", "The largest value.", "\"2s\""),
    f("distribution", "mean", "dist=lognormal", "value", "", "", "above 0", "The mean of the values (not of their logarithm).", "\"1s\""),
    f("distribution", "sd", "dist=lognormal", "value", "", "", "above 0", "Their standard deviation.", "\"2s\""),
    f("distribution", "shape", "dist=pareto", "number", "", "", "above 1", "The tail index; the mean is shape x scale / (shape - 1).", "1.5"),
    f("distribution", "scale", "dist=pareto", "value", "", "", "above 0 (or give mean)", "The smallest value.", "\"1s\""),
    f("distribution", "mean", "dist=pareto", "value", "", "", "above 0 (or give scale)", "The mean, from which the scale follows.", ""),
    // -- [output]
    f("output", "trace", "", "bool", "", "false", BOOL, "The per-connection trace: cwnd, ssthresh, rwnd, flight, srtt, rto on every change (or every trace_interval).", "true"),
    f("output", "trace_interval", "", "duration", "s", "on every change", "a positive duration", "Sample the trace at this interval instead.", "\"10ms\""),
    f("output", "events", "", "bool", "", "true", BOOL, "The event log: drops, retransmissions, timeouts, recovery, state changes.", "false"),
    f("output", "packets", "", "bool", "", "false", BOOL, "The per-packet log (what a pcap is made from).", "true"),
    f("output", "queues", "", "bool", "", "false", BOOL, "Each link direction's queue length over time.", "true"),
    f("output", "link_series", "", "duration", "s", "none", "a positive duration", "Statistics of every link direction per interval of this length (table link_series): packets and bits per second, utilisation, mean and maximum queuing delay, mean queue, queue and error drops; and the distribution of every frame's queuing delay over the run (table queue_delay_hist: frames that did not wait, then 10 log-spaced bins per decade from 1 us to 1000 s, with the cumulative fraction).", "\"1s\""),
    f("output", "app_series", "", "duration", "s", "none", "a positive duration", "Response times per application group (apps[].group) per interval of this length (table app_series): pages, queries and ftp or bulk transfers completed in the interval, their mean and largest response time (NaN when none completed), and their response bytes. Rows go group by group, each over every interval, so max_rows cuts whole later groups.", "\"10s\""),
    f("output", "max_rows", "", "integer", "rows", "2000000", "1 to 1000000000", "The most rows any one table keeps in memory (about 200 MB for the trace); later rows are counted, not kept, and the summary's tables_truncated and a warning say so.", "5000"),
];

/// Every field, in the order the docs list them: [`HEAD`], the `[tcp]` and `[tcp.ns2]` fields
/// as `TcpConfig`'s walk declares them (`tcp/config.rs`), then [`TAIL`]. Built once.
pub fn fields() -> &'static [Field] {
    static ALL: std::sync::OnceLock<Vec<Field>> = std::sync::OnceLock::new();
    ALL.get_or_init(|| {
        let mut rows = Rows::new("tcp");
        (crate::tcp::profile::PROFILES[0].tcp)().walk(&mut rows);
        let mut all = HEAD.to_vec();
        all.extend(rows.fields());
        all.extend_from_slice(TAIL);
        all
    })
}

/// The schema's rows of a walk: each field's section, key and documentation; a table field's
/// own fields follow the section's (`[tcp.ns2]` after `[tcp]`).
struct Rows {
    section: &'static str,
    rows: Vec<(&'static str, Doc)>,
    nested: Vec<Field>,
}

impl Rows {
    fn new(section: &'static str) -> Rows {
        Rows {
            section,
            rows: Vec::new(),
            nested: Vec::new(),
        }
    }

    fn row(
        &mut self,
        key: &'static str,
        kind: &'static str,
        unit: &'static str,
        allowed: String,
    ) -> &mut Doc {
        self.rows.push((key, Doc::new(kind, unit, allowed)));
        &mut self.rows.last_mut().expect("just pushed").1
    }

    fn fields(self) -> Vec<Field> {
        let section = self.section;
        let mut out: Vec<Field> = self
            .rows
            .into_iter()
            .map(|(key, d)| Field {
                section,
                key,
                when: "",
                kind: d.kind,
                unit: d.unit,
                default: d.default,
                // Built once per process (`fields`), so the few generated texts may live on.
                allowed: Box::leak(d.allowed_text().into_boxed_str()),
                doc: d.doc,
                example: d.example,
            })
            .collect();
        out.extend(self.nested);
        out
    }
}

impl Visitor for Rows {
    fn integer<T: Int>(&mut self, key: &'static str, _: &mut T, lo: u64, hi: u64) -> &mut Doc {
        self.row(key, "integer", "", format!("{lo} to {hi}"))
    }
    fn number(&mut self, key: &'static str, _: &mut f64, lo: f64, hi: f64) -> &mut Doc {
        self.row(key, "number", "", format!("{lo} to {hi}"))
    }
    fn flag(&mut self, key: &'static str, _: &mut bool) -> &mut Doc {
        self.row(key, "bool", "", BOOL.into())
    }
    fn size(&mut self, key: &'static str, _: &mut u64) -> &mut Doc {
        self.row(key, "size", "bytes", SIZE.into())
    }
    fn size_or_inf(&mut self, key: &'static str, _: &mut u64) -> &mut Doc {
        self.row(key, "size", "bytes", format!("{SIZE}, or \"inf\""))
    }
    fn duration(&mut self, key: &'static str, _: &mut Dur) -> &mut Doc {
        self.row(key, "duration", "s", DUR.into())
    }
    fn rate_or_inf(&mut self, key: &'static str, _: &mut Option<f64>) -> &mut Doc {
        self.row(key, "rate", "bit/s", "a bit rate, or \"inf\"".into())
    }
    fn choice<T: Copy + PartialEq>(
        &mut self,
        key: &'static str,
        _: &mut T,
        options: &[(&'static str, T, &'static str)],
    ) -> &mut Doc {
        let names: Vec<&str> = options.iter().map(|o| o.0).collect();
        self.row(key, "choice", "", names.join(", "))
    }
    fn name(&mut self, key: &'static str, _: &mut String) -> &mut Doc {
        self.row(key, "choice", "", "a name".into())
    }
    fn table<F: Fields>(&mut self, key: &'static str, field: &mut F) -> &mut Doc {
        let section: &'static str = Box::leak(format!("{}.{key}", self.section).into_boxed_str());
        let mut inner = Rows::new(section);
        field.walk(&mut inner);
        self.nested.extend(inner.fields());
        self.row(key, "table", "", "a table of fields".into())
    }
    fn other(&mut self, key: &'static str, kind: &'static str) -> &mut Doc {
        self.row(key, kind, "", String::new())
    }
}

/// The keys allowed in `section`, for the variant `when` (an error model or app kind) or for
/// any variant when `None`. Order as in [`fields`], each key once.
///
/// Every scenario parsed asks for these lists a dozen times or more (each link, application,
/// error model); they are worked out once, from [`fields`], for every section and variant, so that
/// a sweep of thousands of small runs does not scan the table each time.
pub fn keys(section: &str, when: Option<&str>) -> &'static [&'static str] {
    static TABLE: std::sync::OnceLock<KeyLists> = std::sync::OnceLock::new();
    let table = TABLE.get_or_init(KeyLists::build);
    match table.sections.get(section) {
        None => &[],
        Some(lists) => match when {
            None => &lists.all,
            Some(w) => lists
                .by_variant
                .iter()
                .find(|(v, _)| *v == w)
                .map_or(&lists.common[..], |(_, keys)| &keys[..]),
        },
    }
}

/// [`keys`] for every section: all its keys, those of no particular variant, and those of each
/// variant that some field names.
struct KeyLists {
    sections: std::collections::HashMap<&'static str, SectionKeys>,
}

struct SectionKeys {
    all: Vec<&'static str>,
    common: Vec<&'static str>,
    by_variant: Vec<(&'static str, Vec<&'static str>)>,
}

impl KeyLists {
    fn build() -> KeyLists {
        let mut sections = std::collections::HashMap::new();
        for fd in fields() {
            sections.entry(fd.section).or_insert_with(|| {
                let mut variants: Vec<&'static str> = Vec::new();
                for f in fields()
                    .iter()
                    .filter(|f| f.section == fd.section && !f.when.is_empty())
                {
                    if !variants.contains(&f.when) {
                        variants.push(f.when);
                    }
                }
                SectionKeys {
                    all: scan(fd.section, None),
                    // A variant no field names has the fields of no particular variant.
                    common: scan(fd.section, Some("")),
                    by_variant: variants
                        .iter()
                        .map(|&w| (w, scan(fd.section, Some(w))))
                        .collect(),
                }
            });
        }
        KeyLists { sections }
    }
}

/// The keys of `section` that apply to `when`, scanning [`fields`].
fn scan(section: &str, when: Option<&str>) -> Vec<&'static str> {
    let mut out: Vec<&'static str> = Vec::new();
    for fd in fields().iter().filter(|fd| fd.section == section) {
        let applies = fd.when.is_empty() || when.is_none_or(|w| fd.when == w);
        if applies && !out.contains(&fd.key) {
            out.push(fd.key);
        }
    }
    out
}

/// Every field as JSON (what `tcplab schema --json` prints).
pub fn to_json() -> Value {
    Value::Array(
        fields()
            .iter()
            .map(|fd| {
                json!({
                    "section": fd.section,
                    "key": fd.key,
                    "path": if fd.section.is_empty() {
                        fd.key.to_string()
                    } else {
                        format!("{}.{}", fd.section, fd.key)
                    },
                    "when": fd.when,
                    "type": fd.kind,
                    "unit": fd.unit,
                    "default": fd.default,
                    "allowed": fd.allowed,
                    "description": fd.doc,
                    "example": fd.example,
                })
            })
            .collect(),
    )
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::scenario::Scenario;

    #[test]
    fn the_key_lists_worked_out_once_are_those_of_a_scan() {
        for fd in fields() {
            assert_eq!(
                keys(fd.section, None),
                scan(fd.section, None),
                "{}",
                fd.section
            );
            assert_eq!(
                keys(fd.section, Some(fd.when)),
                scan(fd.section, Some(fd.when))
            );
            let unknown = Some("kind=nothing-names-this");
            assert_eq!(keys(fd.section, unknown), scan(fd.section, unknown));
        }
        assert!(keys("no such section", None).is_empty());
        assert!(keys("error", Some("model=per")).contains(&"p"));
        assert!(!keys("error", Some("model=none")).contains(&"p"));
    }

    fn base() -> Value {
        json!({
            "nodes": [{"name": "c"}, {"name": "s"}],
            "links": [{"name": "l", "a": "c", "b": "s", "rate": "10Mbps"}],
            "apps": [{"name": "x", "kind": "ftp", "client": "c", "server": "s", "size": "10kB"}],
        })
    }

    /// The scenario with `value` put where field `fd` lives (None: the field's place stays
    /// empty but its variant is set up, to test an unknown key there).
    fn with_field(fd: &Field, key: &str, value: Value) -> Value {
        let mut sc = base();
        let variant = fd.when.split_once('=').map(|(_, v)| v);
        match fd.section {
            "" => sc[key] = value,
            "run" | "tcp" | "output" => sc[fd.section] = json!({ key: value }),
            "tcp.ns2" => sc["tcp"] = json!({ "ns2": { key: value } }),
            "nodes[]" => sc["nodes"]
                .as_array_mut()
                .unwrap()
                .push(json!({"name": "extra", "kind": "router", key: value})),
            "nodes[].rules[]" => {
                let mut rule = json!({"action": "drop"});
                rule[key] = value;
                sc["nodes"]
                    .as_array_mut()
                    .unwrap()
                    .push(json!({"name": "extra", "kind": "router", "rules": [rule]}));
            }
            "links[]" => sc["links"][0][key] = value,
            "direction" => sc["links"][0]["ab"] = json!({ key: value }),
            "error" => {
                let mut e = json!({"model": variant.unwrap_or("none")});
                if variant == Some("gilbert-elliott") {
                    e["p_gb"] = json!(0.01);
                    e["p_bg"] = json!(0.3);
                }
                e[key] = value;
                sc["links"][0]["ab"] = json!({ "error": e });
            }
            "aqm" => {
                let mut a = json!({"kind": variant.unwrap_or("red")});
                a[key] = value;
                sc["links"][0]["ab"] = json!({ "aqm": a });
            }
            "error.segments[]" => {
                let mut seg = json!({"seq": 1461});
                seg[key] = value;
                sc["links"][0]["ab"] = json!({"error": {"model": "list", "segments": [seg]}});
            }
            "apps[]" => {
                let app = &mut sc["apps"][0];
                match variant {
                    Some("bulk") => app["kind"] = json!("bulk"),
                    Some("cbr") => {
                        app["kind"] = json!("cbr");
                        app.as_object_mut().unwrap().remove("size");
                        app["packet_size"] = json!(1000);
                        app["interval"] = json!("10ms");
                    }
                    Some(k @ ("database" | "http")) => {
                        app["kind"] = json!(k);
                        app.as_object_mut().unwrap().remove("size");
                    }
                    Some("udp") => {
                        app["kind"] = json!("udp");
                        app.as_object_mut().unwrap().remove("size");
                        if key != "rate" {
                            app["rate"] = json!("1Mbps");
                        }
                        if key == "on_time" {
                            app["off_time"] = json!("1s");
                        } else if key == "off_time" {
                            app["on_time"] = json!("1s");
                        }
                    }
                    _ => {}
                }
                app[key] = value;
            }
            "profiles[]" => {
                let mut prof = json!({
                    "name": "p",
                    "hosts": ["c"],
                    "server": "s",
                    "inter_repetition": "1s",
                    "apps": [{"kind": "ftp", "size": "1kB"}],
                });
                prof[key] = value;
                sc["profiles"] = json!([prof]);
            }
            "distribution" => {
                let mut d = match (key, variant) {
                    ("dist", _) => json!({"mean": "1s"}),
                    (_, Some("exponential")) => json!({"dist": "exponential", "mean": "1s"}),
                    (_, Some("uniform")) => json!({"dist": "uniform", "min": "1s", "max": "2s"}),
                    (_, Some("lognormal")) => {
                        json!({"dist": "lognormal", "mean": "1s", "sd": "1s"})
                    }
                    (_, Some("pareto")) => json!({"dist": "pareto", "shape": 1.5, "scale": "1s"}),
                    _ => json!({"dist": "constant", "value": "1s"}),
                };
                d[key] = value;
                let app = &mut sc["apps"][0];
                app["kind"] = json!("database");
                app.as_object_mut().unwrap().remove("size");
                app["interval"] = d;
            }
            other => panic!("section {other:?} has no place in the test"),
        }
        sc
    }

    fn parse(v: &Value) -> Result<Scenario, crate::error::SimError> {
        Scenario::from_json_str(&v.to_string())
    }

    fn toml_value(text: &str) -> Value {
        let doc: toml::Table = toml::from_str(&format!("v = {text}")).expect("example is TOML");
        serde_json::to_value(&doc["v"]).unwrap()
    }

    #[test]
    fn every_example_parses_and_every_junk_value_is_refused_by_name() {
        for fd in fields().iter().filter(|fd| !fd.example.is_empty()) {
            let ok = with_field(fd, fd.key, toml_value(fd.example));
            if let Err(e) = parse(&ok) {
                panic!("{}.{} = {}: {e}", fd.section, fd.key, fd.example);
            }
            let junk = match fd.kind {
                "string" => json!(42),
                "table" | "list" => json!(5),
                _ => json!("no-such-value"),
            };
            if fd.kind == "table" && fd.section.is_empty() {
                continue; // [run] = 5 is refused by the section, tested below
            }
            let bad = with_field(fd, fd.key, junk);
            match parse(&bad) {
                Ok(_) => panic!("{}.{}: a junk value was accepted", fd.section, fd.key),
                Err(e) => assert!(
                    e.to_string().contains(fd.key),
                    "{}.{}: the error does not name the field: {e}",
                    fd.section,
                    fd.key
                ),
            }
        }
    }

    #[test]
    fn every_section_refuses_keys_the_schema_does_not_list() {
        let mut seen = Vec::new();
        for fd in fields() {
            let place = (fd.section, fd.when);
            if seen.contains(&place) || (fd.section.is_empty() && fd.kind != "table") {
                continue;
            }
            seen.push(place);
            let sc = with_field(fd, "zzz_not_a_field", json!(1));
            let err = parse(&sc).expect_err(&format!("{:?} accepted zzz_not_a_field", place));
            assert!(err.to_string().contains("zzz_not_a_field"), "{err}");
        }
    }
}

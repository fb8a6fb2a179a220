# tcplab's ns-2 conformance scenario: a bulk TCP transfer over a three-node chain.
#
#   src --(10 Mb/s, 1 ms)-- rtr --(RATE, DELAY)-- dst     DropTail, QLIM packets per direction
#
# Uniform per-packet errors with probability P on rtr -> dst, applied after the link (a lost
# packet still used the link), the ACK path error-free. One FTP source runs for STOP seconds.
#
# usage: ns chain.tcl AGENT P DELAY_MS SEED [STOP] [RATE] [PKTSIZE] [WINDOW] [QLIM]
#   AGENT: tahoe | reno | newreno | sack1
# Extra Tcl to run before the agents are made (e.g. "Agent/TCP set tcpTick_ 0.001") may be
# given in the environment variable NS_EXTRA, to switch an ns-2 default and see its effect.
#
# Prints one line of key=value pairs at STOP.

proc arg {i default} {
    global argv
    if {[llength $argv] > $i} { return [lindex $argv $i] }
    return $default
}
set agent   [arg 0 newreno]
set perr    [arg 1 0]
set delay   [arg 2 4]
set seed    [arg 3 1]
set stop    [arg 4 60.0]
set rate    [arg 5 2Mb]
set pktsize [arg 6 1000]
set window  [arg 7 20]
set qlim    [arg 8 50]

set ns [new Simulator]
$defaultRNG seed $seed

set src [$ns node]
set rtr [$ns node]
set dst [$ns node]
$ns duplex-link $src $rtr 10Mb 1ms DropTail
$ns duplex-link $rtr $dst $rate ${delay}ms DropTail
foreach {a b} [list $src $rtr $rtr $src $rtr $dst $dst $rtr] { $ns queue-limit $a $b $qlim }

if {$perr > 0} {
    set loss [new ErrorModel]
    $loss unit pkt
    $loss set rate_ $perr
    $loss ranvar [new RandomVariable/Uniform]
    $ns link-lossmodel $loss $rtr $dst
}

if {[info exists env(NS_EXTRA)]} { eval $env(NS_EXTRA) }

array set agents {
    tahoe   {Agent/TCP         Agent/TCPSink}
    reno    {Agent/TCP/Reno    Agent/TCPSink}
    newreno {Agent/TCP/Newreno Agent/TCPSink}
    sack1   {Agent/TCP/Sack1   Agent/TCPSink/Sack1}
}
if {![info exists agents($agent)]} {
    puts stderr "unknown agent $agent (tahoe, reno, newreno, sack1)"
    exit 2
}
set tcp  [new [lindex $agents($agent) 0]]
set sink [new [lindex $agents($agent) 1]]
$tcp set packetSize_ $pktsize
$tcp set window_ $window
$ns attach-agent $src $tcp
$ns attach-agent $dst $sink
$ns connect $tcp $sink
set ftp [new Application/FTP]
$ftp attach-agent $tcp
$ns at 0.0 "$ftp start"

proc finish {} {
    global ns tcp sink agent perr delay seed stop pktsize
    # The sink counts whole packets with their 40 header bytes, the SYN (seqno 0) included.
    set bytes [$sink set bytes_]
    set pkts [expr {$bytes >= 40 ? ($bytes - 40) / ($pktsize + 40) : 0}]
    set timeouts [$tcp set nrexmit_]
    puts [format "agent=%s p=%s delay_ms=%s seed=%s stop=%s delivered_pkts=%d goodput_Bps=%.3f data_pkts_sent=%d retransmitted_pkts=%d timeouts=%d cwnd_cuts=%d" \
        $agent $perr $delay $seed $stop $pkts [expr {$pkts * $pktsize / double($stop)}] \
        [$tcp set ndatapack_] [$tcp set nrexmitpack_] $timeouts [$tcp set ncwndcuts_]]
    exit 0
}
$ns at $stop "finish"
$ns run

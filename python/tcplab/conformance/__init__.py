"""Conformance suites: tcplab against reference implementations run live (ns-2)."""

"""`python -m tcplab.cli ARGS`: the `tcplab` command, as the installed script runs it."""

from tcplab.cli import main

main()

"""`python -m tcplab.testbed CONFIG.json`: one testbed run from a JSON object of TestbedConfig
fields; prints the summary (without traces) as JSON."""

import sys

from .runner import main

sys.exit(main())

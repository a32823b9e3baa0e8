"""Shared by the fleet-interface tests: scenario testbeds from
tests/run/scenarios (the same builders the scenario tests use) and the tool
run inside them, built by tests/lib/beds.py (beds.ScenarioBed). The tests
count their checks with tests/lib/rdtest.py, which importing this puts on
the path."""

import os
import sys

sys.dont_write_bytecode = True
HERE = os.path.dirname(os.path.abspath(__file__))
SOURCE_ROOT = os.path.dirname(os.path.dirname(os.path.dirname(HERE)))
sys.path.insert(0, os.path.join(SOURCE_ROOT, "tests", "lib"))

import beds  # noqa: E402

# the catalogue, every scenarios_*.py imported (tests/run/scenarios on the path)
scenarios = beds.catalogue()
EXIT_SKIP = 77
# a scenario's testbed written to a temporary directory, and the facts
# gathered in one
Bed, Ran, scenario_facts = beds.ScenarioBed, beds.Ran, beds.scenario_facts


def scenario_names():
    return list(scenarios.SCENARIOS)

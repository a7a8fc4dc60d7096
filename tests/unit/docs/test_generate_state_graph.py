# -*- coding: utf-8 -*-
"""The docs' picture of the state graph is generated from the engine's table and must not drift from it."""

import os

from ansible_collections.baremetal.lifecycle.plugins.module_utils.engine import actions, graph, states
from ansible_collections.baremetal.lifecycle.plugins.module_utils.ironic import capabilities

from docs_scripts import ROOT, load


def test_state_graph_doc_is_generated_from_the_table():
    generator = load('generate_state_graph')
    with open(os.path.join(ROOT, 'docs', 'state-graph.md')) as handle:
        committed = handle.read()
    assert committed == generator.render(states, actions, graph, capabilities), 'run: python3 docs/generate_state_graph.py'

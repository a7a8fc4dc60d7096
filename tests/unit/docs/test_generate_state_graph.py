# -*- coding: utf-8 -*-
"""The docs' picture of the state graph is generated from the engine's table and must not drift from it."""

import importlib.util
import os

from ansible_collections.baremetal.lifecycle.plugins.module_utils.engine import actions, graph, states
from ansible_collections.baremetal.lifecycle.plugins.module_utils.ironic import capabilities

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__)))))


def test_state_graph_doc_is_generated_from_the_table():
    spec = importlib.util.spec_from_file_location('generate_state_graph',
                                                  os.path.join(ROOT, 'docs', 'generate_state_graph.py'))
    generator = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(generator)
    with open(os.path.join(ROOT, 'docs', 'state-graph.md')) as handle:
        committed = handle.read()
    assert committed == generator.render(states, actions, graph, capabilities), 'run: python3 docs/generate_state_graph.py'

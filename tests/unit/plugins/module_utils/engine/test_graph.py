# -*- coding: utf-8 -*-
"""The graph of Ironic's machine (engine/graph.py): when a node is at rest."""

from __future__ import absolute_import, division, print_function

__metaclass__ = type

import pytest

from ansible_collections.baremetal.lifecycle.plugins.module_utils.engine import graph


@pytest.mark.parametrize('provision_state, target_provision_state, at_rest', [
    ('available', None, True),
    ('available', 'active', False),  # accepted, not yet moved
    ('deploying', 'active', False),
    ('clean failed', 'available', True),
    ('clean hold', 'available', True),
    (None, None, True),
])
def test_at_rest(provision_state, target_provision_state, at_rest):
    assert graph.is_at_rest(provision_state, target_provision_state) is at_rest

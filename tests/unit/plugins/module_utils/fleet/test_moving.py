# -*- coding: utf-8 -*-
"""The options a nodes element of baremetal_provision may carry (fleet/moving.py)."""

from __future__ import absolute_import, division, print_function

__metaclass__ = type

import pytest

from ansible_collections.baremetal.lifecycle.plugins.module_utils.fleet import moving
from ansible_collections.baremetal.lifecycle.plugins.module_utils.engine.options import Options
from ansible_collections.baremetal.lifecycle.plugins.module_utils.fleet.runner import targets_from_elements
from ansible_collections.baremetal.lifecycle.plugins.module_utils.common.errors import BaremetalError


@pytest.mark.parametrize('entry, state, options', [
    ('n1', 'available', {}),
    ({'node': 'n1'}, 'available', {}),
    ({'node': 'n1', 'state': 'active', 'inspection': 'always',
      'service_steps': [{'interface': 'vendor', 'step': 'x'}]},
     'active', {'inspection': 'always', 'service_steps': [{'interface': 'vendor', 'step': 'x'}]}),
    ({'node': 'n1', 'unhold': True, 'clear_fault': True}, 'available', {'unhold': True, 'clear_fault': True}),
])
def test_a_nodes_element_may_carry_its_own_options(entry, state, options):
    base = Options(allow_destructive=True)
    element, = targets_from_elements([entry], moving.defaults('available', base), moving.TYPES)
    target = moving.move(element, base)
    assert (target.ident, target.state) == ('n1', state)
    assert target.options.allow_destructive is True
    for key, value in options.items():
        assert getattr(target.options, key) == value
    assert base.inspection == 'skip' and base.unhold is False  # the task's options are left alone


@pytest.mark.parametrize('entry, words', [
    ({'state': 'active'}, ['nodes[3] must be', 'node']),
    ({'node': 'n1', 'rescue_password': 'x'}, ['nodes[3]', 'rescue_password']),
    ({'node': 'n1', 'state': 'deploying'}, ["nodes[3].state must be one of", 'deploying']),
    ({'node': 'n1', 'inspection': 'twice'}, ['nodes[3].inspection must be one of skip, once, always']),
    ({'node': 'n1', 'service_steps': 'reboot'}, ['nodes[3].service_steps must be a list of steps']),
    ({'node': 'n1', 'unhold': 'yes'}, ['nodes[3].unhold must be true or false']),
])
def test_a_bad_nodes_element_is_named(entry, words):
    with pytest.raises(BaremetalError) as caught:
        targets_from_elements(['n0', 'n1', 'n2', entry], moving.defaults('available', Options()), moving.TYPES)
    for word in words:
        assert word in str(caught.value)

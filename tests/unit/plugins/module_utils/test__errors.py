# -*- coding: utf-8 -*-
"""One error root: every failure of the collection carries a message and the partial result."""

from __future__ import absolute_import, division, print_function

__metaclass__ = type

import pytest

from ansible_collections.baremetal.lifecycle.plugins.module_utils._errors import BaremetalError
from ansible_collections.baremetal.lifecycle.plugins.module_utils._ironic import AnswerLost, IronicError, NotFound
from ansible_collections.baremetal.lifecycle.plugins.module_utils._node_record import NodeError
from ansible_collections.baremetal.lifecycle.plugins.module_utils._planner import PlanError
from ansible_collections.baremetal.lifecycle.plugins.module_utils._power import PowerError


@pytest.mark.parametrize('error_type', [IronicError, NotFound, AnswerLost, NodeError, PlanError, PowerError])
def test_every_error_of_the_collection_is_caught_by_the_one_root(error_type):
    with pytest.raises(BaremetalError) as caught:
        raise error_type('what went wrong; what to do')
    assert str(caught.value) == 'what went wrong; what to do'
    assert caught.value.result == {}


def test_the_partial_result_travels_with_the_error_and_is_a_copy():
    partial = {'changed': True, 'transitions': [{'verb': 'manage'}]}
    error = BaremetalError('refused', partial)
    partial['changed'] = False
    assert error.result == {'changed': True, 'transitions': [{'verb': 'manage'}]}

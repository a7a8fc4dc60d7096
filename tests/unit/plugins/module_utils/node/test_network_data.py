# -*- coding: utf-8 -*-
"""A node's network_data (node/network_data.py): its shape checked before anything is sent, declared whole, cleared with a
remove (Ironic's schema refuses {} when it is sent). Against a real Ironic: tests/integration/test_node_wiring.py."""

from __future__ import absolute_import, division, print_function

__metaclass__ = type

import pytest

from ansible_collections.baremetal.lifecycle.plugins.module_utils.node import network_data
from ansible_collections.baremetal.lifecycle.plugins.module_utils.node.record import NodeError, declared_record, node_changes, required_features
from ansible_collections.baremetal.lifecycle.plugins.module_utils.node.record_checks import check_declaration

DOCUMENT = {'links': [{'id': 'port0', 'type': 'phy'}], 'networks': [], 'services': []}


@pytest.mark.parametrize('document, error', [
    ({}, None),
    (DOCUMENT, None),
    ({'links': []}, 'network_data lacks networks, services'),
    ({'links': {}, 'networks': [], 'services': ['dns']}, 'network_data.links must be a list of dictionaries.'),
])
def test_the_shape_is_checked_before_anything_is_sent(document, error):
    record = declared_record({'network_data': document})
    if error is None:
        check_declaration(record)
    else:
        with pytest.raises(NodeError, match=error):
            check_declaration(record)


def test_it_needs_api_1_66():
    assert required_features(declared_record({'network_data': DOCUMENT})) == ['network_data']


@pytest.mark.parametrize('current, wanted, operations', [
    ({}, DOCUMENT, [{'op': 'replace', 'path': '/network_data', 'value': DOCUMENT}]),
    (DOCUMENT, DOCUMENT, []),
    (DOCUMENT, {}, [{'op': 'remove', 'path': '/network_data'}]),
    (None, {}, []),
    ({}, {}, []),
])
def test_it_is_declared_whole_and_cleared_with_a_remove(current, wanted, operations):
    assert network_data.operations(current, wanted) == operations


def test_the_record_patch_and_diff_carry_it():
    operations, before, after = node_changes({'network_data': None}, {'network_data': DOCUMENT}, False)
    assert operations == [{'op': 'replace', 'path': '/network_data', 'value': DOCUMENT}]
    assert before == {'network_data': {}} and after == {'network_data': DOCUMENT}

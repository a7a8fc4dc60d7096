# -*- coding: utf-8 -*-
"""Setting and clearing maintenance; success against a real Ironic is tested in tests/integration/test_maintenance.py."""

from __future__ import absolute_import, division, print_function

__metaclass__ = type

from ansible_collections.baremetal.lifecycle.plugins.module_utils._maintenance import ensure_maintenance, wanted_maintenance


def test_a_reason_is_kept_when_none_is_given_and_dropped_when_maintenance_ends():
    node = {'maintenance': True, 'maintenance_reason': 'fan'}
    assert wanted_maintenance(node, 'enabled', None) == (True, 'fan')
    assert wanted_maintenance(node, 'enabled', 'disk') == (True, 'disk')
    assert wanted_maintenance(node, 'disabled', 'disk') == (False, None)


def test_the_operators_reason_is_masked_where_it_quotes_a_secret():
    node = {'uuid': 'u-1', 'name': 'n1', 'maintenance': True,
            'maintenance_reason': 'BMC rotated, old password=MARKER; see http://admin:MARKER@127.0.0.1:9'}
    result = ensure_maintenance(None, node, 'disabled', None, check_mode=True)
    assert result['changed'] is True
    assert 'MARKER' not in repr(result)
    assert result['diff']['before']['maintenance_reason'] == \
        'BMC rotated, old password=********; see http://admin:********@127.0.0.1:9'

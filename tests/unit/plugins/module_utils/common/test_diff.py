# -*- coding: utf-8 -*-
"""The one diff builder: items before and after, a side left out where the item does not exist, secrets masked."""

from __future__ import absolute_import, division, print_function

__metaclass__ = type

from ansible_collections.baremetal.lifecycle.plugins.module_utils.common.diff import ABSENT, DifferenceTracker


def test_items_are_shown_before_and_after_and_a_difference_is_seen():
    diff = DifferenceTracker().add('power_state', 'power off', 'power on')
    assert diff.has_difference
    assert diff.diff() == {'before': {'power_state': 'power off'}, 'after': {'power_state': 'power on'}}
    assert not DifferenceTracker().add('power_state', 'power on', 'power on').has_difference


def test_an_absent_side_leaves_the_item_out_and_a_label_heads_both_sides():
    diff = DifferenceTracker().add('driver', ABSENT, 'fake-hardware').add('traits', ['CUSTOM_A'], ABSENT)
    assert diff.diff('rack1-node07') == {'before': {'traits': ['CUSTOM_A']}, 'after': {'driver': 'fake-hardware'},
                                         'before_header': 'rack1-node07', 'after_header': 'rack1-node07'}


def test_secrets_never_reach_a_diff():
    diff = DifferenceTracker().add('driver_info', {'redfish_password': 'old-pw', 'redfish_address': 'http://a:pw@127.0.0.1'},
                                   {'redfish_password': 'new-pw'})
    diff.add('maintenance_reason', 'rotated password=old-pw', None)
    shown = diff.diff()
    assert 'pw' not in repr(shown).replace('redfish_password', '')
    assert shown['after'] == {'driver_info': {'redfish_password': '********'}, 'maintenance_reason': None}
    assert shown['before']['maintenance_reason'] == 'rotated password=********'

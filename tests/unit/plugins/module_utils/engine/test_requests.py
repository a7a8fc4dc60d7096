# -*- coding: utf-8 -*-
"""Issuing the steps of a plan: the requests sent to Ironic, and the API versions they need."""

from __future__ import absolute_import, division, print_function

__metaclass__ = type

import pytest

from ansible_collections.baremetal.lifecycle.plugins.module_utils.engine import provision, requests
from ansible_collections.baremetal.lifecycle.plugins.module_utils.engine.options import Options
from ansible_collections.baremetal.lifecycle.plugins.module_utils.ironic.client import IronicClient
from ansible_collections.baremetal.lifecycle.plugins.module_utils.ironic.transport import IronicError
from ansible_collections.baremetal.lifecycle.plugins.module_utils.engine.graph import Step

from .recording import IMAGE, RecordingClient, node, verbs


def test_a_runbook_on_an_api_older_than_1_92_is_refused_naming_both_versions():
    options = Options(runbook='CUSTOM_FIRMWARE')
    steps = provision.plan_node(node('manageable'), 'manageable', options)
    with pytest.raises(IronicError) as caught:
        requests.check_requests(IronicAt((1, 91)), steps, options)
    assert 'runbook needs Ironic API 1.92 or newer; this server supports up to 1.91' in str(caught.value)
    requests.check_requests(IronicAt((1, 92)), steps, options)


def test_retiring_on_an_api_older_than_1_61_is_refused_before_any_step():
    options = Options(retired=True)
    steps = provision.plan_node(node('manageable'), 'manageable', options)
    with pytest.raises(IronicError, match=r'retired needs Ironic API 1\.61 or newer; this server supports up to 1\.60'):
        requests.check_requests(IronicAt((1, 60)), steps, options)
    requests.check_requests(IronicAt((1, 61)), steps, options)


def IronicAt(version):  # pylint: disable=invalid-name
    """A client that negotiated the given API version, with no server behind it."""
    client = IronicClient('http://127.0.0.1:9')
    client._server_version = version
    return client


def test_retired_patch_sets_only_what_differs():
    assert requests.retired_patch({'retired': False}, True, 'eol') == [
        {'op': 'add', 'path': '/retired', 'value': True}, {'op': 'add', 'path': '/retired_reason', 'value': 'eol'}]
    assert requests.retired_patch({'retired': True, 'retired_reason': 'eol'}, True, 'eol') == []
    assert requests.retired_patch({'retired': True, 'retired_reason': 'eol'}, None, None) == []
    assert requests.retired_patch({'retired': True, 'retired_reason': 'eol'}, False, None) == [
        {'op': 'add', 'path': '/retired', 'value': False}]


def test_issue_step_sends_a_verb_with_its_fields_or_the_request_of_a_node_step():
    client = RecordingClient()
    steps = [{'interface': 'vendor', 'step': 'log_passthrough'}]
    options = Options(service_steps=steps)
    requests.issue_step(client, 'u1', Step('service', 'active', 'active'), options)
    requests.issue_step(client, 'u1', Step('clear_fault', 'service failed', 'service failed'), options)
    requests.issue_step(client, 'u1', Step('manage', 'enroll', 'manageable'), options)
    assert client.calls == [('provision', 'u1', 'service', {'service_steps': steps}),
                            ('unset_maintenance', 'u1'), ('provision', 'u1', 'manage', {})]


class HowSent(object):
    """Records whether each node step's write lets the transport retry a lock itself (retry_busy)."""

    def __init__(self):
        self.retry_busy = []

    def unset_maintenance(self, uuid, retry_busy=True):
        self.retry_busy.append(retry_busy)

    def update_node(self, uuid, patch, retry_busy=True):
        self.retry_busy.append(retry_busy)

    def get_node(self, uuid, fields=None):
        return {'uuid': uuid, 'instance_info': {}, 'retired': False, 'retired_reason': None}


def test_a_node_step_takes_a_lock_at_once_as_a_verb_does_for_the_scheduler_to_send_it_again():
    # The transport's own retries (about 30 s) would let a locked node's step overrun the task's timeout.
    client = HowSent()
    for verb, options in [('clear_fault', Options()), ('set_instance_info', Options(instance_info=IMAGE)),
                          ('set_retired', Options(retired=True))]:
        requests.issue_step(client, 'u1', Step(verb, 'manageable', 'manageable'), options)
    assert client.retry_busy == [False, False, False]


def test_set_instance_info_reads_what_ironic_holds_and_sends_only_the_keys_that_differ():
    client = RecordingClient()
    step = Step('set_instance_info', 'available', 'available')
    options = Options(instance_info=dict(IMAGE, image_checksum='kept'))
    requests.issue_step(client, 'u1', step, options)
    requests.issue_step(client, 'u1', step, options)  # sent again (after a lost answer): nothing is missing
    assert client.calls == [
        ('get_node', 'u1', ('instance_info',)),
        ('update_node', 'u1', [{'op': 'add', 'path': '/instance_info/image_source', 'value': IMAGE['image_source']}]),
        ('get_node', 'u1', ('instance_info',))]
    requests.check_requests(OldIronic('http://127.0.0.1:9'), [step], options)  # not a provision request


class OldIronic(IronicClient):
    """A client that negotiated API 1.86 (before service steps), with no server behind it."""
    version = (1, 86)


def test_a_plan_the_api_is_too_old_for_is_refused_before_its_first_step():
    options = Options(service_steps=[{'interface': 'vendor', 'step': 'log_passthrough'}])
    steps = provision.plan_node(node('available'), 'active', options)
    assert verbs(steps) == ['active', 'service']
    with pytest.raises(IronicError, match=r"the 'service' verb needs Ironic API 1\.87 or newer; this server supports "
                                          r"up to 1\.86"):
        requests.check_requests(OldIronic('http://127.0.0.1:9'), steps, options)
    requests.check_requests(OldIronic('http://127.0.0.1:9'), steps[:1], options)

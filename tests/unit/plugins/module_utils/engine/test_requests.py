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


class RunbookIronic(object):
    """The runbooks Ironic holds (by name) and one node's traits, at an API version; records what is read."""

    def __init__(self, runbooks, traits, version=(1, 115)):
        self.runbooks, self.traits, self.version = runbooks, traits, version
        self.reads = []

    def collection(self, name):
        assert name == 'runbooks'
        return self

    def find(self, ident):
        self.reads.append(('runbook', ident))
        return self.runbooks.get(ident)

    def supports(self, version):
        return self.version >= version

    def get_node(self, uuid, fields):
        self.reads.append(('node', fields))
        return {'uuid': uuid, 'traits': list(self.traits)}


@pytest.mark.parametrize('runbooks, traits, version, words', [
    ({}, [], (1, 115), 'runbook CUSTOM_FW does not exist in Ironic. Correct the name, or declare the runbook'),
    ({'CUSTOM_FW': {'name': 'CUSTOM_FW', 'traits': ['CUSTOM_A', 'CUSTOM_B']}}, ['CUSTOM_X'], (1, 115),
     'runbook CUSTOM_FW runs only on a node with the trait CUSTOM_A or CUSTOM_B, and this node has CUSTOM_X. Give'),
    ({'CUSTOM_FW': {'name': 'CUSTOM_FW', 'traits': []}}, ['CUSTOM_FW'], (1, 115), 'runbook CUSTOM_FW has no trait'),
    # Before 1.112 the runbook's name is the trait a node needs.
    ({'CUSTOM_FW': {'name': 'CUSTOM_FW'}}, ['CUSTOM_A'], (1, 111),
     'runbook CUSTOM_FW runs only on a node with the trait CUSTOM_FW, and this node has CUSTOM_A.'),
])
def test_a_runbook_ironic_would_refuse_fails_the_plan_before_the_undeploy_before_it(runbooks, traits, version, words):
    # From active, manageable with a runbook is an undeploy, then the runbook as a clean: Ironic refused the runbook
    # only once the workload was gone.
    options = Options(runbook='CUSTOM_FW', allow_destructive=True)
    steps = provision.plan_node(node('active'), 'manageable', options)
    assert [step.verb for step in steps][0] == 'deleted'
    with pytest.raises(provision.graph.PlanError) as caught:
        requests.check_runbook(RunbookIronic(runbooks, traits, version), 'n1', steps, options)
    assert words in str(caught.value)


def test_a_runbook_the_node_may_run_passes_and_a_plan_without_one_reads_nothing():
    options = Options(runbook='CUSTOM_FW', allow_destructive=True)
    allowed = RunbookIronic({'CUSTOM_FW': {'name': 'CUSTOM_FW', 'traits': ['CUSTOM_A', 'CUSTOM_B']}}, ['CUSTOM_B'])
    requests.check_runbook(allowed, 'n1', provision.plan_node(node('active'), 'manageable', options), options)
    assert allowed.reads == [('runbook', 'CUSTOM_FW'), ('node', ('traits',))]
    untouched = RunbookIronic({}, [])
    requests.check_runbook(untouched, 'n1', provision.plan_node(node('enroll'), 'manageable', Options()), Options())
    assert untouched.reads == []


class InterfacesIronic(object):
    """One node's interface fields; records each read."""

    def __init__(self, **interfaces):
        self.interfaces = interfaces
        self.reads = []

    def get_node(self, uuid, fields):
        self.reads.append(fields)
        return dict((field, self.interfaces[field]) for field in fields)


def test_an_erase_the_deploy_interface_does_not_offer_fails_the_plan_before_the_undeploy_before_it():
    # From active, manageable with erase is an undeploy, then the erase as a clean: Ironic refused the erase step
    # only once the workload was gone (a fake deploy interface has no steps).
    options = Options(erase='metadata', allow_destructive=True)
    steps = provision.plan_node(node('active'), 'manageable', options)
    assert [step.verb for step in steps][0] == 'deleted' and steps[-1].action.name == 'erase'
    ironic = InterfacesIronic(deploy_interface='fake')
    with pytest.raises(provision.graph.PlanError) as caught:
        requests.check_node_interfaces(ironic, node('active'), steps, options)
    assert str(caught.value) == (
        "erase needs deploy.erase_devices_metadata, which this node's deploy_interface 'fake' does not offer. Set "
        "deploy_interface to one that offers it with baremetal.lifecycle.baremetal_node, or leave erase out.")
    assert ironic.reads == [('deploy_interface',)]


def test_service_steps_name_every_interface_that_does_not_offer_them_in_one_message():
    options = Options(service_steps=[{'interface': 'raid', 'step': 'delete_configuration'},
                                     {'interface': 'vendor', 'step': 'log_passthrough'},
                                     {'interface': 'deploy', 'step': 'write_image'}])
    steps = provision.plan_node(node('active'), 'active', options)
    with pytest.raises(provision.graph.PlanError) as caught:
        requests.check_node_interfaces(InterfacesIronic(deploy_interface='fake', raid_interface='no-raid'),
                                       node('active'), steps, options)
    assert str(caught.value) == (
        "service_steps needs deploy.write_image, which this node's deploy_interface 'fake' does not offer; and "
        "raid.delete_configuration, which this node's raid_interface 'no-raid' does not offer. Set deploy_interface "
        "and raid_interface to ones that offer them with baremetal.lifecycle.baremetal_node, or leave service_steps out.")


@pytest.mark.parametrize('start, state, options, verb, field', [
    # Ironic refused inspect only once manage had made the available node manageable (reproduced on the demo Ironic)
    ('available', 'available', Options(inspection='always'), 'inspect', 'inspect_interface'),
    ('available', 'rescue', Options(rescue_password='x', instance_info=IMAGE), 'rescue', 'rescue_interface'),
])
def test_a_verb_on_the_nodes_no_op_interface_for_it_fails_the_plan_before_the_steps_before_it(
        start, state, options, verb, field):
    steps = provision.plan_node(node(start), state, options)
    assert verbs(steps).index(verb) > 0
    ironic = InterfacesIronic(**{field: 'no-' + verb})
    with pytest.raises(provision.graph.PlanError) as caught:
        requests.check_node_interfaces(ironic, node(start), steps, options)
    assert str(caught.value) == (
        "'%s' needs an interface that offers it, and this node's %s is 'no-%s'. Set %s to one its driver enables "
        "with baremetal.lifecycle.baremetal_node." % (verb, field, verb, field))
    assert ironic.reads == [(field,)]
    requests.check_node_interfaces(InterfacesIronic(**{field: 'fake'}), node(start), steps, options)


def test_steps_the_node_offers_pass_reading_only_the_interfaces_the_node_as_looked_up_lacks():
    options = Options(clean_steps=[{'interface': 'deploy', 'step': 'erase_devices'},
                                   {'interface': 'bios', 'step': 'apply_configuration'}])
    steps = provision.plan_node(node('manageable'), 'manageable', options)
    ironic = InterfacesIronic(bios_interface='redfish')
    requests.check_node_interfaces(ironic, dict(node('manageable'), deploy_interface='direct'), steps, options)
    assert ironic.reads == [('bios_interface',)]
    # steps of interfaces Ironic has no stepless one of, and plans without steps, read nothing
    for options in (Options(clean_steps=[{'interface': 'vendor', 'step': 'log_passthrough'}]), Options()):
        untouched = InterfacesIronic()
        requests.check_node_interfaces(untouched, node('manageable'),
                                       provision.plan_node(node('manageable'), 'manageable', options), options)
        assert untouched.reads == []


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


def test_a_step_request_sends_a_verb_with_its_fields_or_the_request_of_a_node_step():
    client = RecordingClient()
    steps = [{'interface': 'vendor', 'step': 'log_passthrough'}]
    options = Options(service_steps=steps)
    requests.step_request(client, 'u1', Step('service', 'active', 'active'), options)()
    requests.step_request(client, 'u1', Step('clear_fault', 'service failed', 'service failed'), options)()
    requests.step_request(client, 'u1', Step('manage', 'enroll', 'manageable'), options)()
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
        requests.step_request(client, 'u1', Step(verb, 'manageable', 'manageable'), options)()
    assert client.retry_busy == [False, False, False]


def test_set_instance_info_reads_what_ironic_holds_and_sends_only_the_keys_that_differ():
    client = RecordingClient()
    step = Step('set_instance_info', 'available', 'available')
    options = Options(instance_info=dict(IMAGE, image_checksum='kept'))
    requests.step_request(client, 'u1', step, options)()
    requests.step_request(client, 'u1', step, options)()  # sent again (after a lost answer): nothing is missing
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

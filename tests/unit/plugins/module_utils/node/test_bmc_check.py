# -*- coding: utf-8 -*-
"""node/bmc_check.py: which writes call for a check of the BMC, and what a failed check says.

Against a real Redfish BMC (sushy-tools): tests/integration/test_credential_rotation.py.
"""

from __future__ import absolute_import, division, print_function

__metaclass__ = type

import pytest

from ansible_collections.baremetal.lifecycle.plugins.module_utils.common import secrets
from ansible_collections.baremetal.lifecycle.plugins.module_utils.node import bmc_check
from ansible_collections.baremetal.lifecycle.plugins.module_utils.ironic.transport import AnswerLost, IronicError, Unreachable
from ansible_collections.baremetal.lifecycle.plugins.module_utils.node.declaration import Declaration
from ansible_collections.baremetal.lifecycle.plugins.module_utils.node.record import Change, NodeError

NODE = {'uuid': 'u-1', 'name': 'rack1-node07', 'driver': 'redfish',
        'driver_info': {'redfish_address': 'http://127.0.0.1:8000', 'redfish_username': 'admin',
                        'redfish_password': '******', 'vendor_blob': '******'}}


def change(driver_info, node='existing', send_secrets=True, **declared):
    node = NODE if node == 'existing' else node
    return Change(Declaration('rack1-node07', declared=dict(declared, driver_info=driver_info)), node, [], send_secrets)


@pytest.mark.parametrize('driver_info, send_secrets, expected', [
    ({'redfish_password': 'new'}, True, True),  # a rotation
    ({'redfish_password': 'new'}, False, False),  # on_create: an existing secret is not sent again
    ({'redfish_password': None}, False, True),  # a removed secret is a change of credentials too
    ({'vendor_blob': 'x'}, True, True),  # a key Ironic shows masked is a secret, whatever its name
    ({'redfish_address': 'http://127.0.0.1:8001'}, True, False),
    ({'redfish_address': 'http://127.0.0.1:8000'}, True, False),
])
def test_only_a_write_of_a_driver_info_secret_to_an_existing_node_is_checked(driver_info, send_secrets, expected):
    assert bmc_check.changes_bmc_secret(change(driver_info, send_secrets=send_secrets)) is expected


def test_a_node_being_created_or_an_instance_info_secret_is_not_checked():
    assert bmc_check.changes_bmc_secret(change({'redfish_password': 'new'}, node=None)) is False
    assert bmc_check.changes_bmc_secret(change({}, instance_info={'image_pull_secret': 'x'})) is False


class Client(object):
    """Answers validate and boot_device as told, and records what was asked."""

    timeout = 60  # api_timeout

    def __init__(self, validation=None, boot_device=None):
        self.validation = validation or {'management': {'result': True}, 'power': {'result': True},
                                         'deploy': {'result': False, 'reason': 'no image'}}
        self.boot_device = boot_device
        self.asked = []

    def validate_node(self, ident):
        self.asked.append(('validate', ident))
        return self.validation

    def get_boot_device(self, ident):
        self.asked.append(('boot_device', ident))
        if isinstance(self.boot_device, Exception):
            raise self.boot_device
        return {'boot_device': 'disk', 'persistent': False}


def test_a_bmc_that_answers_passes_and_other_interfaces_do_not_matter():
    client = Client()
    bmc_check.check_bmc(client, NODE)
    assert client.asked == [('validate', 'u-1'), ('boot_device', 'u-1')]


def test_an_interface_that_does_not_validate_fails_before_the_bmc_is_asked_with_the_reason_masked():
    client = Client(validation={'management': {'result': True},
                                'power': {'result': False, 'reason': "missing {'redfish_password': 'Zq-leak'}"}})
    with pytest.raises(NodeError) as failed:
        bmc_check.check_bmc(client, NODE)
    message = str(failed.value)
    assert message.startswith('node rack1-node07: the new driver_info does not validate: power: missing')
    assert 'Zq-leak' not in message and '********' in message
    assert client.asked == [('validate', 'u-1')]


def test_a_bmc_refusal_names_the_node_and_quotes_ironic_with_secrets_masked():
    refusal = IronicError('Ironic refused GET /v1/nodes/u-1/management/boot_device (HTTP 500): HTTP GET '
                          'http://admin:Zq-leak@127.0.0.1:8000/redfish/v1/Systems/1 returned code 401.', 500)
    with pytest.raises(NodeError) as failed:
        bmc_check.check_bmc(Client(boot_device=refusal), NODE)
    message = str(failed.value)
    assert message.startswith('node rack1-node07: Ironic cannot use its BMC with the new driver_info: ')
    assert 'returned code 401' in message and 'Zq-leak' not in message
    assert 'Correct the credentials' in message


def test_a_boot_device_read_not_answered_within_api_timeout_names_a_slow_bmc_not_the_credentials():
    lost = AnswerLost('the answer to GET /nodes/u-1/management/boot_device was lost: timed out')
    with pytest.raises(NodeError) as failed:
        bmc_check.check_bmc(Client(boot_device=lost), NODE)
    message = str(failed.value)
    assert message.startswith('node rack1-node07: Ironic did not answer within api_timeout (60 s) when asked to read '
                              'the boot device from its BMC with the new driver_info (the answer to GET '), message
    assert 'the BMC is slow or does not answer' in message and 'Correct the credentials' not in message


def test_no_answer_from_ironic_is_not_blamed_on_the_bmc():
    lost = Unreachable('cannot reach Ironic at http://127.0.0.1:6385: Connection refused.')
    with pytest.raises(Unreachable):
        bmc_check.check_bmc(Client(boot_device=lost), NODE)


def test_verified_marks_the_result_and_a_failure_keeps_the_write_in_the_result():
    result = {'name': 'rack1-node07', 'changed': True, 'bmc_verified': None}
    rotation = change({'redfish_password': 'new'})
    assert bmc_check.verified(Client(), rotation, NODE, result) == dict(result, bmc_verified=True)
    assert bmc_check.verified(Client(), change({'redfish_address': 'http://127.0.0.1:9'}), NODE, result) is result

    lost = Unreachable('cannot reach Ironic at http://127.0.0.1:6385: Connection refused.')
    with pytest.raises(NodeError) as failed:
        bmc_check.verified(Client(boot_device=lost), rotation, NODE, result)
    assert failed.value.result == dict(result, bmc_verified=False)
    assert 'cannot reach Ironic' in str(failed.value)


REFUSED = dict(NODE, provision_state='enroll', last_error=(
    'Failed to get power state for node u-1. Error: Redfish exception occurred. Error: HTTP GET '
    'http://127.0.0.1:8000/redfish/v1/Systems/1 returned code 401. Base.1.0.GeneralError: Incorrect username or password'))


@pytest.mark.parametrize('driver_info, node, send_secrets, warned', [
    # the rerun that corrects a refused password under on_create: the one case
    ({'redfish_password': 'corrected'}, REFUSED, False, True),
    ({'redfish_password': 'corrected'}, REFUSED, True, False),  # always writes it (and the check verifies it)
    ({'redfish_password': 'same'}, dict(NODE, provision_state='manageable', last_error=None), False, False),
    ({'redfish_address': 'http://127.0.0.1:8001'}, REFUSED, False, False),  # no secret given
    ({'redfish_password': 'new'}, None, False, False),  # created: written anyway
])
def test_a_kept_secret_of_a_node_whose_bmc_refused_the_stored_one_is_warned_of(driver_info, node, send_secrets, warned):
    warning = bmc_check.refused_secrets_kept(change(driver_info, node=node, send_secrets=send_secrets))
    assert bool(warning) is warned
    if warned:
        assert warning.startswith('node rack1-node07: its BMC refused the credentials Ironic holds')
        assert 'redfish_password' in warning and 'update_secrets to always' in warning and 'corrected' not in warning


IPMI_KG = {'uuid': 'u-2', 'name': 'rack2-node01', 'driver': 'ipmi', 'management_interface': 'ipmitool',
           'driver_info': {'ipmi_address': '127.0.0.1', 'ipmi_password': '******', 'ipmi_hex_kg_key': '0102abcd'}}


class BootDevice(Client):
    """Answers the boot device read with the device given (None: the answer of a BMC that has none)."""

    def __init__(self, device):
        super(BootDevice, self).__init__()
        self.device = device

    def get_boot_device(self, ident):
        self.asked.append(('boot_device', ident))
        return {'boot_device': self.device, 'persistent': False}


@pytest.mark.parametrize('node, device, untold', [
    # ipmitool exits 0 when a BMC refuses the session of a Kg key: Ironic reads no boot device, as from a BMC with none.
    (IPMI_KG, None, True),
    (IPMI_KG, 'disk', False),  # a boot device read is the BMC's answer
    (dict(IPMI_KG, driver_info={'ipmi_address': '127.0.0.1', 'ipmi_password': '******'}), None, False),  # no Kg key
    (dict(IPMI_KG, driver_info=dict(IPMI_KG['driver_info'], ipmi_hex_kg_key='')), None, False),
    (dict(IPMI_KG, management_interface='noop'), None, False),
    (dict(NODE, management_interface='redfish'), None, False),  # Redfish fails a refused read: HTTP 401
])
def test_a_boot_device_read_that_cannot_tell_a_refusal_leaves_bmc_verified_null_with_a_warning(node, device, untold):
    result = {'name': node['name'], 'changed': True, 'bmc_verified': None, 'warnings': ['earlier']}
    rotation = Change(Declaration(node['name'], declared={'driver_info': {'ipmi_password': 'new'}}), node, [], True)

    checked = bmc_check.verified(BootDevice(device), rotation, node, result)

    if not untold:
        assert checked == dict(result, bmc_verified=True)
        return
    assert checked['bmc_verified'] is None and checked['warnings'][0] == 'earlier'
    (warning,) = checked['warnings'][1:]
    assert warning.startswith('node rack2-node01: Ironic read no boot device from its BMC, which is also what it reads '
                              'when the BMC refuses the session. With ipmi_hex_kg_key set, the ipmitool management '
                              'interface cannot tell the two apart, so bmc_verified is null.'), warning
    assert '0102abcd' not in warning and secrets.masked_text(warning) == warning  # the results mask every text

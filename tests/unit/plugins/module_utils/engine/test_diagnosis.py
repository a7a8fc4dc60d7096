# -*- coding: utf-8 -*-
"""The messages of the scheduler: each names the node, where it rests, and what to do."""

from __future__ import absolute_import, division, print_function

__metaclass__ = type

import pytest

from ansible_collections.baremetal.lifecycle.plugins.module_utils.common.secrets import masked_text
from ansible_collections.baremetal.lifecycle.plugins.module_utils.engine import diagnosis
from ansible_collections.baremetal.lifecycle.plugins.module_utils.engine.graph import Step


def test_every_reason_no_conductor_takes_a_node_over_is_worded():
    node = {'provision_state': 'inspecting', 'conductor_group': 'rack1'}
    assert diagnosis.no_takeover_words('state', node) == "No other conductor takes over a node in 'inspecting'"
    assert 'HOST:PORT' in diagnosis.no_takeover_words('port', node)
    assert "conductor group 'rack1'" in diagnosis.no_takeover_words('group', node)


def test_a_refused_step_says_which_of_the_plan_and_where_the_node_rests():
    step = Step('provide', 'manageable', 'available')
    message = diagnosis.refused(step, [Step('manage', 'enroll', 'manageable'), step], 'HTTP 409',
                                {'provision_state': 'manageable', 'maintenance': True})
    assert message.startswith("Ironic refused 'provide' (step 2 of 2) from 'manageable': HTTP 409 The node rests "
                              "in 'manageable'. It is in maintenance (reason: none given)")


def test_a_stranded_node_without_a_way_out_names_the_dead_conductors_to_restart():
    advice = diagnosis.no_way_out('deploying', None, [{'hostname': 'c1', 'updated_at': 'then'}])
    assert advice == ("Ironic takes no request that moves a node out of 'deploying'. No other conductor takes over a "
                      "node in 'deploying': restart the ironic-conductor c1 (down since then); on start-up it fails "
                      "the nodes it left there, and a rerun of this task then recovers them.")


# Ironic's own words, recorded: a failed verify of a Redfish node (sushy-tools refusing a wrong password, Ironic 39),
# the same over ipmitool (ironic/conductor/verify.py, IPMIFailure), and a power sync that gave up
# (handle_sync_power_state_max_retries_exceeded).
REDFISH_401 = ("Failed to get power state for node 0bf30e82-2847-4d73-83d4-6ff3412958d1. Error: Redfish exception "
               "occurred. Error: HTTP GET http://127.0.0.1:43161/redfish/v1/Systems/f18ea6ff returned code 401. "
               "Base.1.0.GeneralError: Incorrect username or password Extended information: [{'@odata.type': "
               "'/redfish/v1/$metadata#Message.1.0.0.Message', 'MessageId': 'Base.1.0.GeneralError'}]")
IPMI_FAILED = "Failed to get power state for node 0bf30e82-2847-4d73-83d4-6ff3412958d1. Error: IPMI call failed: power status."
SYNC_401 = ("During sync_power_state, max retries exceeded for node 0bf30e82, node state None does not match expected "
            "state 'power off'. Updating DB state to 'None' Switching node to maintenance mode. Error: Redfish "
            "exception occurred. Error: HTTP GET https://10.0.0.5/redfish/v1/Systems/1 returned code 401. ")


@pytest.mark.parametrize('node, what', [
    ({'provision_state': 'enroll', 'last_error': REDFISH_401}, 'refused the credentials Ironic holds'),
    ({'provision_state': 'enroll', 'last_error': IPMI_FAILED}, 'refused the credentials Ironic holds, or does not answer'),
    ({'provision_state': 'manageable', 'maintenance': True, 'maintenance_reason': SYNC_401},
     'refused the credentials Ironic holds'),
    # an old error of a node that has left enroll since, a node in maintenance for a reason of the operator's,
    # a BMC that does not answer over Redfish: nothing a password can fix
    ({'provision_state': 'manageable', 'last_error': REDFISH_401}, None),
    ({'provision_state': 'enroll', 'maintenance': True, 'maintenance_reason': 'replacing DIMM'}, None),
    ({'provision_state': 'enroll', 'last_error': 'Redfish connection failed for node u-1: timed out'}, None),
])
def test_a_bmc_that_refused_the_stored_credentials_is_read_from_the_node_record(node, what):
    refusal = diagnosis.credentials_refused(node)
    assert (refusal and refusal[0]) == what


def test_the_warning_names_the_node_the_keys_and_the_option_value_never_a_secret():
    text = REDFISH_401.replace('127.0.0.1', 'admin:Zq-secret@127.0.0.1')
    warning = diagnosis.kept_secrets_refused('rack1-node07', ['redfish_password'], ('refused the credentials Ironic holds', text))
    assert warning.startswith('node rack1-node07: its BMC refused the credentials Ironic holds (Ironic says: Failed')
    assert 'keeps the stored driver_info redfish_password' in warning and 'set update_secrets to always' in warning
    assert 'Zq-secret' not in warning and masked_text(warning) == warning  # the module masks what it warns

# -*- coding: utf-8 -*-
# GNU General Public License v3.0+ (see COPYING or https://www.gnu.org/licenses/gpl-3.0.txt)
"""Whether a node's BMC takes the credentials just written to its driver_info.

A BMC password Ironic cannot use goes unnoticed until the periodic power sync has failed several times and put
the node in maintenance, often an hour after the rotation. So a write that changes a secret of an existing node's
driver_info is followed at once by a check that Ironic can use it.
"""

from __future__ import absolute_import, division, print_function

__metaclass__ = type

from ansible_collections.baremetal.lifecycle.plugins.module_utils.common.errors import BaremetalError
from ansible_collections.baremetal.lifecycle.plugins.module_utils.engine import diagnosis
from ansible_collections.baremetal.lifecycle.plugins.module_utils.engine.result import node_label
from ansible_collections.baremetal.lifecycle.plugins.module_utils.ironic.transport import AnswerLost, IronicError
from ansible_collections.baremetal.lifecycle.plugins.module_utils.node.record import NodeError
from ansible_collections.baremetal.lifecycle.plugins.module_utils.common.secrets import is_secret_key, masked_text

# The interfaces that talk to the BMC with driver_info's credentials.
BMC_INTERFACES = ('management', 'power')

# The management interfaces whose boot device read cannot tell a BMC that refused the session from one with no boot
# device set, by the driver_info key that makes it so: ipmitool (1.8.19, Debian 12) exits 0 when a BMC refuses the
# RMCP+ session of a Kg key (-y, Ironic's ipmi_hex_kg_key), and Ironic then answers the read with no boot device, as
# it does for a BMC that has none (tests/integration/test_ipmi.py, against an IPMI BMC emulator).
UNTOLD_REFUSALS = (('ipmitool', 'ipmi_hex_kg_key'),)


def changes_bmc_secret(change):
    """Whether the writes of a Change set or remove a secret in the driver_info of a node that already exists.

    A node being created is not checked: Ironic verifies its BMC when it leaves enroll (manage), and a new
    node's BMC is often not cabled yet.
    """
    if change.node is None:
        return False
    current = change.node.get('driver_info') or {}
    for operation in change.operations:
        field, _slash, key = operation['path'].lstrip('/').partition('/')
        if field == 'driver_info' and key and is_secret_key(field, key, current.get(key)):
            return True
    return False


def kept_secrets(change):
    """The secret keys of driver_info the task gives an existing node that its writes leave as stored
    (update_secrets: on_create never replaces a stored secret)."""
    if change.node is None:
        return []
    current = change.node.get('driver_info') or {}
    written = set(operation['path'] for operation in change.operations)
    return sorted(key for key, value in (change.declaration.declared.get('driver_info') or {}).items()
                  if value is not None and key in current and is_secret_key('driver_info', key, current[key])
                  and '/driver_info/%s' % key not in written)


def refused_secrets_kept(change):
    """The warning for a node whose BMC refused the credentials Ironic holds (as Ironic recorded it) while the
    task gives secrets it keeps, or None. Only then: a rerun of a node that works says nothing."""
    kept = kept_secrets(change)
    refusal = kept and diagnosis.credentials_refused(change.node)
    return diagnosis.kept_secrets_refused(node_label(change.node), kept, refusal) if refusal else None


def check_bmc(client, node):
    """Raise NodeError, naming the node and Ironic's reason, unless Ironic can use the node's BMC credentials now;
    returns Ironic's answer to the boot device read.

    First the management and power interfaces must validate (GET /validate): that checks driver_info, but never
    reaches the BMC. Then the boot device is read (GET /management/boot_device): Ironic answers it by asking the
    BMC at once, with the credentials it holds, and says why when the BMC refuses them or does not answer. It is
    chosen over the alternatives because it reads and changes nothing: GET /states returns what Ironic cached at
    its last power sync, and a power request for the state Ironic shows would switch a server whose cached state
    is stale, and would report only later, in last_error. For Redfish the read is the very request of a power
    state read (the System resource holds both); for IPMI it uses the same session and credentials. Ironic answers
    the read only once the BMC has: a read not answered within api_timeout is a BMC too slow to tell (asked once).
    """
    label = node_label(node)
    try:
        validation = client.validate_node(node['uuid'])
        failed = ['%s: %s' % (interface, (validation.get(interface) or {}).get('reason') or 'no reason given')
                  for interface in BMC_INTERFACES if (validation.get(interface) or {}).get('result') is not True]
        if failed:
            raise NodeError('node %s: the new driver_info does not validate: %s. The record holds the new values: '
                            'correct driver_info and rerun.' % (label, masked_text('; '.join(failed))))
        return client.get_boot_device(node['uuid'])
    except AnswerLost as exc:
        # Ironic waits for the BMC before it answers: no answer in time is a BMC that is slow or silent (or an
        # Ironic that is), which says nothing of the credentials either way.
        raise NodeError("node %s: Ironic did not answer within api_timeout (%s s) when asked to read the boot device "
                        "from its BMC with the new driver_info (%s): the BMC is slow or does not answer, and Ironic may "
                        "still be waiting for it. The record holds the new values. Rerun once the BMC answers, or with "
                        "an api_timeout longer than Ironic waits for a BMC, to get Ironic's own reason."
                        % (label, client.timeout, masked_text(str(exc))))
    except IronicError as exc:
        if exc.status is None:
            raise  # no answer from Ironic: it says nothing of the BMC
        raise NodeError("node %s: Ironic cannot use its BMC with the new driver_info: %s. The record holds the new "
                        "values; Ironic's power sync will fail on the node and, after a few tries, put it in "
                        "maintenance. Correct the credentials (or the BMC) and rerun." % (label, masked_text(str(exc)).rstrip('.')))


def untold_refusal(node, answer):
    """The warning for a boot device read that passed but cannot tell whether the BMC took the credentials (a
    management interface and driver_info key of UNTOLD_REFUSALS, and no boot device read), or None."""
    interface = node.get('management_interface')
    keys = [key for name, key in UNTOLD_REFUSALS if name == interface and (node.get('driver_info') or {}).get(key)]
    if not keys or (answer or {}).get('boot_device') is not None:
        return None
    return ("node %s: Ironic read no boot device from its BMC, which is also what it reads when the BMC refuses the "
            "session. With %s set, the %s management interface cannot tell the two apart, so bmc_verified "
            "is null. Check the node once Ironic's power sync has run (a power_state of 'error' means the BMC refuses "
            "them), or set a boot device on the BMC, which the check then reads."
            % (node_label(node), keys[0], interface))


def verified(client, change, node, result):
    """result as it is when the change writes no BMC secret, else with bmc_verified true once check_bmc passed (null,
    with a warning, when its answer cannot tell: untold_refusal).

    Raises NodeError carrying result with bmc_verified false when the check fails or cannot be made.
    """
    if not changes_bmc_secret(change):
        return result
    try:
        answer = check_bmc(client, node)
    except BaremetalError as exc:
        raise NodeError(str(exc), dict(result, bmc_verified=False))
    warning = untold_refusal(node, answer)
    if warning:
        return dict(result, bmc_verified=None, warnings=list(result.get('warnings') or []) + [warning])
    return dict(result, bmc_verified=True)

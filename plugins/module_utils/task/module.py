# -*- coding: utf-8 -*-
# GNU General Public License v3.0+ (see COPYING or https://www.gnu.org/licenses/gpl-3.0.txt)
"""The shared module base: connection options, the lazily built client, and errors -> fail_json.

Secrets held in options reach Ansible's ``no_log_values`` (secrets.no_log_values), so that every text Ansible scrubs
is scrubbed of them, wherever ansible-core 2.16 to 2.21 scrubs: the result and its ``invocation`` echo, fail_json's
message, the warnings and deprecations where the release returns them as texts (2.16 to 2.18; from 2.19 on, the
module base scrubs its warnings as they are made, and makes no deprecation), the syslog/journal line of
``_log_invocation`` and ``log``, ``run_command``'s logged arguments. Each of those paths calls the one function
``remove_values`` of ``ansible.module_utils.basic`` with that set, which removes each secret from each text: with
one BMC password per node, texts x secrets grows with the square of the nodes (7 s at 3,000). The module base hands
that name the same work done in one pass over the texts (secrets.scrubbed, same contract), so Ansible still decides
where and with what it scrubs; only how changes. Were a release to stop calling it by that name, the patch would
go unused and Ansible's own pass would run: slower, never leaking. Values of types scrubbed does not know (the
warning summaries of ansible-core 2.19 and later) go to Ansible's own function, as they always did.
"""

from __future__ import absolute_import, division, print_function

__metaclass__ = type

import time

from ansible.module_utils import basic
from ansible.module_utils.basic import AnsibleModule, env_fallback
from ansible.module_utils.common.parameters import PASS_VARS
from ansible.module_utils.common.parameters import remove_values as ANSIBLE_REMOVE_VALUES

from ansible_collections.baremetal.lifecycle.plugins.module_utils.common import secrets
from ansible_collections.baremetal.lifecycle.plugins.module_utils.common import validate
from ansible_collections.baremetal.lifecycle.plugins.module_utils.ironic.lookup import no_node_message
from ansible_collections.baremetal.lifecycle.plugins.module_utils.common.errors import BaremetalError
from ansible_collections.baremetal.lifecycle.plugins.module_utils.ironic.connection import client_from_params

# Documented once, in plugins/doc_fragments/connection.py.
CONNECTION_ARGUMENT_SPEC = dict(
    cloud=dict(type='raw', fallback=(env_fallback, ['OS_CLOUD'])),
    auth_type=dict(type='str'),
    auth=dict(type='dict', no_log=True),
    endpoint=dict(type='str'),
    region_name=dict(type='str'),
    interface=dict(type='str', choices=['public', 'internal', 'admin'], aliases=['endpoint_type']),
    # No default: unset, the cloud's verify/insecure decide (true when the cloud says nothing).
    validate_certs=dict(type='bool', aliases=['verify']),
    ca_cert=dict(type='path', aliases=['cacert']),
    client_cert=dict(type='path', aliases=['cert']),
    client_key=dict(type='path', aliases=['key'], no_log=False),
    api_timeout=dict(type='int', default=60),
)


# ansible-core 2.21 and later echo a module's arguments into its result (invocation) only when asked
# (INJECT_INVOCATION), and decide that themselves. Earlier releases echo them into every result, and their
# callbacks show the echo from this verbosity (-vvv) on.
CORE_ECHOES_WHEN_ASKED = 'inject_invocation' in PASS_VARS
SHOWN_ECHO_VERBOSITY = 3


def remove_values_in_one_pass(value, no_log_strings):
    """Ansible's remove_values at a cost linear in the texts (secrets.scrubbed); a value of a type it does not know
    goes to Ansible's own."""
    return secrets.scrubbed(value, no_log_strings, lambda other: ANSIBLE_REMOVE_VALUES(other, no_log_strings))


class _AnsibleModule(AnsibleModule):
    """An AnsibleModule that also scrubs secrets held inside options (driver_info passwords, instance_info
    tokens, config drive user_data, step arguments...), by the one rule of secrets.no_log_values, in one pass over
    the texts (the module's docstring), and that notes the option values of another type than the argument spec's
    before Ansible converts them (validate.option_type_errors): BaremetalModule refuses them."""

    def __init__(self, *args, **kwargs):
        if hasattr(basic, 'remove_values'):  # the name basic.py calls wherever it scrubs (the module's docstring)
            # Before Ansible's __init__, which logs the arguments (and may fail on them) with the secrets.
            basic.remove_values = remove_values_in_one_pass
        super(_AnsibleModule, self).__init__(*args, **kwargs)

    def warn(self, warning, *args, **kwargs):
        # ansible-core 2.19 and later return warnings as summaries, which their remove_values leaves as they are.
        super(_AnsibleModule, self).warn(remove_values_in_one_pass(warning, self.no_log_values), *args, **kwargs)

    def _load_params(self):
        super(_AnsibleModule, self)._load_params()
        # __init__ goes on to log the arguments to syslog and may fail on them: the secrets must be known first.
        self.no_log_values.update(secrets.no_log_values(self.params, self.argument_spec))
        # The arguments as the task gave them: Ansible's validation, next, turns a list given for a str option into
        # its text, after which nothing tells it from a string.
        self.type_errors = validate.option_type_errors(self.params, self.argument_spec)


class BaremetalModule(object):
    """An AnsibleModule with the connection options and the Ironic client of this collection.

    Made, it has checked the task's options: a wrong one fails the task, an empty nodes list ends it with nothing to
    do. A module's main runs in ``with BaremetalModule(ARGUMENT_SPEC, ...) as module:``, where every error of this
    collection fails the task with its message and partial result (__exit__)."""

    def __init__(self, argument_spec, **kwargs):
        spec = dict(CONNECTION_ARGUMENT_SPEC)
        spec.update(argument_spec)
        kwargs.setdefault('supports_check_mode', True)
        self.ansible = _AnsibleModule(argument_spec=spec, **kwargs)
        self.params = self.ansible.params
        self.check_mode = self.ansible.check_mode
        self._client = None
        self.started = time.monotonic()
        if self.ansible.type_errors:
            # After Ansible's own checks (which refuse a list for an int option, and name unknown options), before
            # the module reads any option: a value Ansible converted would otherwise reach Ironic as text.
            self.fail(' '.join(self.ansible.type_errors))
        try:
            validate.check_options(self.params)
        except BaremetalError as exc:
            self.fail(str(exc), **exc.result)
        if self.params.get('nodes') == []:
            # An inventory group may well be empty: every module takes that as nothing to do, and says so.
            self.exit(changed=False, nodes=[], msg=validate.NOTHING_TO_DO)

    @property
    def client(self):
        if self._client is None:
            self._client = client_from_params(self.params)
        return self._client

    @property
    def api_calls(self):
        return self._client.api_calls if self._client else 0

    def exit(self, **result):
        self.ansible.exit_json(**self._shown(result))

    def warn(self, msg):
        self.ansible.warn(secrets.masked_text(msg))

    def fail(self, msg, **result):
        self.ansible.fail_json(msg=secrets.masked_text(msg), **self._shown(result))

    def finish(self, report):
        """End the task with the one result shape of every module (fleet/outcome.py): its warnings (a failed task
        shows them too), then fail when the report says so, else exit."""
        message, result, warnings = report.outcome(self.started, self.api_calls)
        for warning in warnings:
            self.warn(warning)
        if message:
            self.fail(message, **result)
        if result.get('nodes') == [] and self.params.get('select') is not None:
            result['msg'] = validate.nothing_selected(self.params['select'])
        self.exit(**result)

    def _shown(self, result):
        """The result as it may leave the module: secrets masked (whatever Ironic quoted back, at any depth),
        with api_calls, with its diff only when diff mode asked for one, and with the echo of the arguments only
        where it is shown (below)."""
        if not self.ansible._diff:
            result.pop('diff', None)
        result['api_calls'] = self.api_calls
        # Arguments the task found secret as it ran (a BIOS setting whose registry says Password): scrubbed as well.
        self.ansible.no_log_values.update(secrets.found_secrets())
        shown = secrets.masked(result)
        if not CORE_ECHOES_WHEN_ASKED and self.ansible._verbosity < SHOWN_ECHO_VERBOSITY:
            # Below -vvv no callback shows the echo; at a thousand nodes it is 0.9 MB of the result, which Ansible
            # would mask, send and store for nothing. Empty, as ansible-core 2.21 leaves it out unless asked.
            shown['invocation'] = {}
        return shown

    def require_node(self, ident, fields=None):
        """The node named or identified by ``ident``, or a failure that says how to find it."""
        node = self.client.find_node(ident, fields)
        if node is None:
            self.fail(no_node_message([ident], self.client))
        return node

    def __enter__(self):
        return self

    def __exit__(self, _kind, error, _trace):
        """Leaving the with block on an error of this collection fails the task with its message and partial result;
        any other exception (Ansible's SystemExit from exit and fail among them) goes on as it is."""
        if isinstance(error, BaremetalError):
            self.fail(str(error), **error.result)
        return False

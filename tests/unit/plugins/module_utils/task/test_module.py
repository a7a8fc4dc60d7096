# -*- coding: utf-8 -*-
# GNU General Public License v3.0+ (see COPYING or https://www.gnu.org/licenses/gpl-3.0.txt)
"""The module base: secrets found anywhere in the arguments are scrubbed from the line AnsibleModule logs to the
system log when it starts (before any result exists), and from the result; bad input fails before any request."""

from __future__ import absolute_import, division, print_function
__metaclass__ = type

import json
import re

import pytest
from ansible.module_utils import basic
from ansible.module_utils.common.parameters import remove_values
from ansible.module_utils.common.text.converters import to_bytes

from ansible_collections.baremetal.lifecycle.plugins.module_utils.common import secrets
from ansible_collections.baremetal.lifecycle.plugins.module_utils.common.errors import BaremetalError
from ansible_collections.baremetal.lifecycle.plugins.module_utils.task import module as _module

SECRETS = {'driver_info': 'bmc-pass-7f3a', 'instance_info': 'pull-secret-91c2', 'user_data': 'root:ud-pass-55e1',
           'step': 'step-pass-0b8d', 'rescue': 'rescue-pass-c4d2'}
SPEC = dict(
    driver_info=dict(type='dict'),
    instance_info=dict(type='dict'),
    config_drive=dict(type='raw'),
    clean_steps=dict(type='list', elements='dict'),
    rescue_password=dict(type='str', no_log=True),
    update_secrets=dict(type='str', no_log=False),
    timeout=dict(type='int', default=60),
)
ARGS = {
    'driver_info': {'redfish_address': 'http://127.0.0.1:9', 'redfish_password': SECRETS['driver_info']},
    'instance_info': {'image_pull_secret': SECRETS['instance_info']},
    'config_drive': {'meta_data': {'hostname': 'rack1-node07'}, 'user_data': '#cloud-config\n%s' % SECRETS['user_data']},
    'clean_steps': [{'interface': 'deploy', 'step': 'erase', 'args': {'admin_password': SECRETS['step']}}],
    'rescue_password': SECRETS['rescue'],
    'update_secrets': 'on_create',
}


def run_module(monkeypatch, capsys, args, main):
    """Build a BaremetalModule from args, run main with it as a module's main does (within the module: errors of the
    collection fail the task); returns (result, lines logged to syslog)."""
    logged = []
    monkeypatch.setattr(basic, '_ANSIBLE_ARGS', to_bytes(json.dumps({'ANSIBLE_MODULE_ARGS': args})))
    # ansible-core 2.19 and later read the arguments' serialization profile; older releases have none (no-op there).
    monkeypatch.setattr(basic, '_ANSIBLE_PROFILE', 'legacy', raising=False)
    monkeypatch.setattr(basic.AnsibleModule, 'log', lambda self, msg, log_args=None: logged.append(msg))
    with pytest.raises(SystemExit):
        with _module.BaremetalModule(SPEC) as module:
            main(module)
    return json.loads(capsys.readouterr().out), '\n'.join(logged)


def test_secrets_anywhere_in_the_arguments_never_reach_the_log_nor_the_result(monkeypatch, capsys):
    def main(module):
        module.fail('Ironic refused: %s' % json.dumps(module.params))  # an error that quotes every argument

    result, logged = run_module(monkeypatch, capsys, ARGS, main)
    assert 'Invoked with' in logged and 'rack1-node07' in logged and 'on_create' in logged
    text = json.dumps(result)
    assert 'Ironic refused' in result['msg'] and 'rack1-node07' in text
    for secret in SECRETS.values():
        assert secret not in logged
        assert secret not in text


def test_bad_input_fails_before_main_runs(monkeypatch, capsys):
    def main(module):
        raise AssertionError('main must not run')

    result, _logged = run_module(monkeypatch, capsys, dict(ARGS, timeout=0, config_drive={'userdata': 'x'}), main)
    assert result['failed'] and result['api_calls'] == 0
    assert 'timeout must be at least 1, got 0.' in result['msg']
    assert "config_drive has the unknown key 'userdata' (did you mean 'user_data'?)" in result['msg']


def test_a_list_for_a_string_option_fails_before_main_runs_and_a_secret_one_is_never_quoted(monkeypatch, capsys):
    # Ansible alone would hand main the text "['always']", and the secret's "['...']".
    def main(module):
        raise AssertionError('main must not run')

    args = dict(ARGS, update_secrets=['always'], rescue_password=[SECRETS['rescue']],
                clean_steps=[{'interface': 'deploy', 'step': 'erase'}])
    result, _logged = run_module(monkeypatch, capsys, args, main)
    assert result['failed'] and result['api_calls'] == 0
    assert result['msg'] == (
        "rescue_password must be a string, got a list: give one string, not a list (Ansible would send the text of the "
        "whole list to Ironic). update_secrets must be a string, got a list (['always']): give one string, not a list "
        "(Ansible would send the text of the whole list to Ironic).")
    assert SECRETS['rescue'] not in json.dumps(result)


def test_an_error_of_the_collection_within_the_module_fails_the_task_with_its_partial_result_masked(monkeypatch, capsys):
    def main(module):
        raise BaremetalError("node a: Ironic refused: {'redfish_password': 'never-given-5'}",
                             result={'nodes': [{'name': 'a', 'error': 'refused'}]})

    result, _logged = run_module(monkeypatch, capsys, {'timeout': 5}, main)
    assert result['failed'] and result['msg'] == "node a: Ironic refused: {'redfish_password': '********'}"
    assert result['nodes'] == [{'name': 'a', 'error': 'refused'}] and result['api_calls'] == 0


def test_an_exception_of_another_kind_goes_on_as_it_is(monkeypatch, capsys):
    def main(module):
        raise KeyError('a bug')

    with pytest.raises(KeyError):
        run_module(monkeypatch, capsys, {'timeout': 5}, main)
    assert capsys.readouterr().out == ''


def test_secrets_ironic_quotes_back_are_masked_in_every_result_message_and_warning(monkeypatch, capsys):
    # Secrets the task was never given, so Ansible's no_log cannot know them: only the module's masking hides them.
    quoted = "clean step failed: {'admin_password': 'never-given-1'} at http://admin:never-given-2@127.0.0.1:9"

    warned = []

    def main(module):
        module.ansible.warn = warned.append
        module.warn('node a: %s' % quoted)
        module.fail(quoted, node={'last_error': quoted, 'extra': {'bmc_token': 'never-given-3'}},
                    changes={'bios_settings': {'SetupToken': {'before': 'never-given-4', 'after': 'x'}}})

    result, _logged = run_module(monkeypatch, capsys, {'timeout': 5}, main)
    text = json.dumps(result)
    assert 'never-given' not in text
    assert result['msg'] == "clean step failed: {'admin_password': '********'} at http://admin:********@127.0.0.1:9"
    assert warned == ['node a: ' + result['msg']]
    assert result['changes']['bios_settings']['SetupToken'] == {'before': '********', 'after': '********'}


def test_an_argument_the_task_found_secret_is_scrubbed_from_the_echo_and_the_result(monkeypatch, capsys, echo_asked):
    # A BIOS setting whose registry says Password, named like no secret: only the task, once it read the registry, knows.
    args = dict(ARGS, driver_info={'boot_pin': 'pin-found-9182'}, **echo_asked)

    def main(module):
        secrets.found_secret(module.params['driver_info']['boot_pin'])
        module.exit(changed=False, msg='set to %s' % module.params['driver_info']['boot_pin'])

    shown, logged = run_module(monkeypatch, capsys, args, main)
    assert shown['invocation']['module_args']['driver_info'] == {'boot_pin': 'VALUE_SPECIFIED_IN_NO_LOG_PARAMETER'}
    assert 'pin-found' not in json.dumps(shown)


@pytest.mark.parametrize('finish', ['exit', 'fail'])
def test_the_arguments_are_echoed_only_where_they_are_shown(monkeypatch, capsys, echo_asked, finish):
    # At a thousand nodes the echo (invocation) is half of a result that no callback shows below -vvv.
    def main(module):
        if finish == 'exit':
            module.exit(changed=False)
        module.fail('refused')

    quiet, _logged = run_module(monkeypatch, capsys, ARGS, main)
    assert not quiet.get('invocation')
    shown, _logged = run_module(monkeypatch, capsys, dict(ARGS, **echo_asked), main)
    echoed = shown['invocation']['module_args']
    assert echoed['update_secrets'] == 'on_create'
    assert echoed['config_drive']['meta_data'] == ARGS['config_drive']['meta_data']
    for secret in SECRETS.values():
        assert secret not in json.dumps(shown)


@pytest.mark.parametrize('selection, named', [
    ({'resource_class': 'webb', 'owner': None}, 'select (resource_class: webb) matches no node'),
    ({'all': True}, 'select (every node) matches no node'),
])
def test_a_selection_that_matches_no_node_says_so(monkeypatch, capsys, selection, named):
    from ansible_collections.baremetal.lifecycle.plugins.module_utils.fleet.outcome import Report

    def main(module):
        module.finish(Report([], [], False, None, 0))

    spec = dict(SPEC, select=dict(type='dict'))
    logged = []
    monkeypatch.setattr(basic, '_ANSIBLE_ARGS', to_bytes(json.dumps({'ANSIBLE_MODULE_ARGS': {'select': selection}})))
    monkeypatch.setattr(basic, '_ANSIBLE_PROFILE', 'legacy', raising=False)
    monkeypatch.setattr(basic.AnsibleModule, 'log', lambda self, msg, log_args=None: logged.append(msg))
    with pytest.raises(SystemExit):
        with _module.BaremetalModule(spec) as module:
            main(module)
    result = json.loads(capsys.readouterr().out)
    assert not result.get('failed') and result['changed'] is False and result['nodes'] == []
    assert result['msg'].startswith(named + ': there is nothing to do, and nothing was changed.')
    assert 'baremetal.lifecycle.baremetal_node_info' in result['msg']


def test_a_failed_task_shows_its_warnings_too(monkeypatch, capsys):
    warned = []

    class Report(object):
        def outcome(self, started, api_calls):
            return 'node a: failed', {'changed': False}, ['node a: kept']

    def main(module):
        module.ansible.warn = warned.append
        module.finish(Report())

    result, _logged = run_module(monkeypatch, capsys, {'timeout': 5}, main)
    assert result['failed'] and result['msg'] == 'node a: failed' and warned == ['node a: kept']


def test_ansibles_own_pass_never_runs_over_the_texts_and_every_path_is_still_scrubbed(monkeypatch, capsys, echo_asked):
    # Ten thousand steps, each with its own password (one BMC password per node, the largest fleets'): Ansible's
    # remove_values would take each secret out of each text, the square of the nodes. The module base does it in
    # one pass; Ansible's own function only sees values of types the pass does not know (none here).
    seen = []

    def ansible_remove_values(value, no_log_strings):
        seen.append(type(value).__name__)
        return remove_values(value, no_log_strings)

    monkeypatch.setattr(basic, 'remove_values', ansible_remove_values)
    monkeypatch.setattr(_module, 'ANSIBLE_REMOVE_VALUES', ansible_remove_values, raising=False)
    passwords = ['pw-%05d-e9' % index for index in range(10000)]
    args = dict(ARGS, clean_steps=[{'interface': 'deploy', 'step': 'erase', 'args': {'admin_password': password}}
                                   for password in passwords], **echo_asked)
    warned = []

    def main(module):
        monkeypatch.setattr(basic, 'warn', lambda warning, **_kw: warned.append(warning))
        module.warn('step 7 took %s' % passwords[7])
        module.fail('Ironic refused %s' % passwords[3], node={'last_error': 'erase with %s failed' % passwords[5]},
                    diff={'before': {'note': passwords[9]}, 'after': {'note': 'x'}})

    result, logged = run_module(monkeypatch, capsys, dict(args, _ansible_diff=True), main)
    text = json.dumps(result)
    assert result['msg'] == 'Ironic refused ********'
    assert result['node']['last_error'] == 'erase with ******** failed'
    assert result['diff']['before'] == {'note': 'VALUE_SPECIFIED_IN_NO_LOG_PARAMETER'}
    assert warned == ['step 7 took ********']
    echoed = result['invocation']['module_args']['clean_steps']
    assert [step['args']['admin_password'] for step in echoed] == ['VALUE_SPECIFIED_IN_NO_LOG_PARAMETER'] * 10000
    assert 'Invoked with' in logged and "'step': 'erase'" in logged
    assert re.findall(r'pw-\d+-e9', text + logged) == []
    assert set(seen) <= {'WarningSummary', 'DeprecationSummary'}, seen

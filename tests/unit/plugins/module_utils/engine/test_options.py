# -*- coding: utf-8 -*-
"""The provision options (engine/options.py): what each sends, which a nodes element may set, read from a task."""

from __future__ import absolute_import, division, print_function

__metaclass__ = type

import pytest

from ansible_collections.baremetal.lifecycle.plugins.module_utils.engine.options import NODE_OPTION_TYPES, OPTION_SPEC, Options

from .recording import node


def test_request_fields_are_read_from_the_options_that_carry_them():
    options = Options(deploy_steps=[{'step': 'x'}], config_drive='http://127.0.0.1:9/cd.iso',
                      rescue_password='pw', clean_steps=[{'step': 'c'}])
    deploy = {'deploy_steps': [{'step': 'x'}], 'configdrive': 'http://127.0.0.1:9/cd.iso'}
    assert options.arguments('active') == deploy and options.arguments('rebuild') == deploy
    assert options.arguments('rescue') == {'rescue_password': 'pw'}
    assert options.arguments('clean') == {'clean_steps': [{'step': 'c'}]}
    assert options.arguments('manage') == {}


def test_inspection_once_asks_only_for_a_node_never_inspected_and_only_if_harmless():
    once = Options(inspection='once')
    assert once.actions(node('manageable'), 'manageable') == ([], ['inspect'])
    assert once.actions(node('manageable', inspection_finished_at='2026-01-01T00:00:00+00:00'), 'manageable') == ([], [])


def test_options_are_read_from_the_params_of_a_task():
    params = dict((name, spec.get('default')) for name, spec in OPTION_SPEC.items())
    params.update(node='n1', wait=True, rebuild=True, instance_info={'image_source': 'x'})
    options = Options.from_params(params)
    assert options.rebuild is True and options.instance_info == {'image_source': 'x'}
    assert options.inspection == 'skip' and options.clean_steps is None
    assert not hasattr(options, 'node') and not hasattr(options, 'wait')
    with pytest.raises(TypeError):
        Options(rebuilt=True)


def test_secret_options_are_task_wide_and_every_other_one_is_a_nodes_own():
    assert sorted(NODE_OPTION_TYPES) == ['adopt', 'allow_destructive', 'clean_steps', 'clear_fault',
                                         'deploy_steps', 'erase', 'inspection', 'rebuild', 'retired',
                                         'retired_reason', 'runbook', 'service_steps', 'unhold']
    assert all(OPTION_SPEC[name].get('no_log') is None for name in NODE_OPTION_TYPES)

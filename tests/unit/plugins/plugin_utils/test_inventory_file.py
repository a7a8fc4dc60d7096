# -*- coding: utf-8 -*-
"""plugin_utils/inventory_file: the check of an inventory file of baremetal.lifecycle.ironic before Ansible reads it
(tests/unit/plugins/inventory/test_ironic.py: that the plugin makes it; tests/integration/test_bad_input.py: that
nothing is asked of Ironic)."""

from __future__ import absolute_import, division, print_function

__metaclass__ = type

from ansible_collections.baremetal.lifecycle.plugins.module_utils.task.module import CONNECTION_ARGUMENT_SPEC
from ansible_collections.baremetal.lifecycle.plugins.plugin_utils.inventory_file import config_errors


KNOWN = set(CONNECTION_ARGUMENT_SPEC) | {'plugin', 'host_address', 'controller_connection', 'filters', 'compose',
                                         'groups', 'keyed_groups', 'strict', 'cache'}


def test_a_misspelled_key_of_the_file_is_refused_with_the_option_it_may_mean():
    # ansible-core reads only the options a plugin defines: without this, host_adress would be ignored without a word.
    assert config_errors({'plugin': 'baremetal.lifecycle.ironic', 'host_adress': 'extra:ip'}, KNOWN) == [
        "'host_adress' is not an option of baremetal.lifecycle.ironic (did you mean 'host_address'?): correct it or "
        "remove it."]
    assert config_errors({'plugin': 'baremetal.lifecycle.ironic', 'host_address': 'none', 'cache': True},
                         KNOWN) == []


def test_option_values_of_the_wrong_type_are_refused_naming_the_option():
    assert config_errors({'host_address': ['extra:ip'], 'api_timeout': {'a': 1}, 'cloud': ['x'],
                          'filters': {'resource_class': ['a', 'b'], 'maintenance': False, 'owner': 'team'}},
                         KNOWN) == [
        'api_timeout must be a whole number, got a dictionary ({\'a\': 1}): give one whole number, not a dictionary.',
        "host_address must be a string, got a list (['extra:ip']): give one string, not a list.",
        "filters.resource_class must be one value (a string, a number, true or false), got a list (['a', 'b']): "
        "Ironic's node list takes one value per filter."]

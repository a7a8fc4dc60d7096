# -*- coding: utf-8 -*-
# GNU General Public License v3.0+ (see COPYING or https://www.gnu.org/licenses/gpl-3.0.txt)
"""The check of an inventory file of the plugin baremetal.lifecycle.ironic (plugins/inventory/ironic.py), made before
Ansible reads its options: keys that are no option, and option values of another type than the option's."""

from __future__ import absolute_import, division, print_function

__metaclass__ = type

from ansible import constants as C
from ansible.errors import AnsibleParserError

from ansible_collections.baremetal.lifecycle.plugins.module_utils.common.validate import option_type_errors, type_name
from ansible_collections.baremetal.lifecycle.plugins.module_utils.common.spelling import did_you_mean
from ansible_collections.baremetal.lifecycle.plugins.module_utils.task.module import CONNECTION_ARGUMENT_SPEC

# The options of this plugin's own, as an argument spec, for the one check of option types
# (validate.option_type_errors); the connection options are the modules' (CONNECTION_ARGUMENT_SPEC).
OPTION_SPEC = dict(CONNECTION_ARGUMENT_SPEC, host_address=dict(type='str'), controller_connection=dict(type='bool'),
                   filters=dict(type='dict'))
# What a value of filters may be: each is one query parameter of Ironic's node list.
FILTER_VALUE_TYPES = (str, int, float, bool)


def config_errors(config, known):
    """Problems of an inventory file's keys and values, before Ansible reads them: option values of another type than
    the option's (a list for a string), filters values that are not one value, and keys that are no option.

    ansible-core (2.16 to 2.21) reads an inventory plugin's file through its option definitions only, so that a
    misspelled key (host_adress) is ignored without a word, as its own plugins (constructed, auto) do: refused here,
    with the option it may have meant.
    """
    errors = option_type_errors(config, OPTION_SPEC, by_ansible=False)
    filters = config.get('filters')
    if isinstance(filters, dict):
        errors.extend('filters.%s must be one value (a string, a number, true or false), got a %s (%r): Ironic\'s node '
                      'list takes one value per filter.' % (name, type_name(value), value)
                      for name, value in sorted(filters.items(), key=lambda item: str(item[0]))
                      if value is not None and not isinstance(value, FILTER_VALUE_TYPES))
    if known:  # the options Ansible knows this plugin by (none: it was not loaded by Ansible's plugin loader)
        errors.extend('%r is not an option of baremetal.lifecycle.ironic%s: correct it or remove it.'
                      % (key, did_you_mean(key, known)) for key in sorted(config, key=str) if key not in known)
    return errors


def check_file(config, plugin_name):
    """Raise AnsibleParserError naming every problem config_errors finds in the options of an inventory file (config:
    the file as read, None when Ansible sets the plugin's options otherwise), against the options Ansible knows the
    plugin of plugin_name by."""
    if not config:
        return
    errors = config_errors(config, set(C.config.get_configuration_definitions('inventory', plugin_name)))
    if errors:
        raise AnsibleParserError('baremetal.lifecycle.ironic: %s' % ' '.join(errors))

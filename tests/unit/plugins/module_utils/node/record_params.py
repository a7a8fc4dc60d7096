# -*- coding: utf-8 -*-
"""baremetal_node's parameters as Ansible passes them, the states a node declares, and the node as Ironic lists it:
helpers of the node tests."""

from __future__ import absolute_import, division, print_function

__metaclass__ = type

from ansible_collections.baremetal.lifecycle.plugins.module_utils.engine.options import Options
from ansible_collections.baremetal.lifecycle.plugins.module_utils.ironic.client import NODE_SUMMARY_FIELDS
from ansible_collections.baremetal.lifecycle.plugins.module_utils.node.declaration import Declaration


def params(**given_params):
    """Module parameters as Ansible passes them: every option present, None when not given."""
    full = dict((name, None) for name in ('driver', 'driver_info', 'properties', 'resource_class', 'interfaces',
                                          'ports', 'traits', 'extra', 'instance_info', 'conductor_group', 'owner',
                                          'lessee', 'description', 'automated_clean'))
    full.update(given_params)
    return full


def port(address, **attributes):
    entry = dict(pxe_enabled=None, physical_network=None, local_link_connection=None)
    entry.update(attributes, address=address)
    return entry


def states(provision_state=None, maintenance=None, maintenance_reason=None, power=None):
    return dict(provision_state=provision_state, maintenance=maintenance, maintenance_reason=maintenance_reason,
                power=power)


def node(state='manageable', **fields):
    """A node as Ironic lists it, with every field of the summary."""
    base = dict((field, None) for field in NODE_SUMMARY_FIELDS)
    base.update(uuid='u-1', name='n1', provision_state=state, maintenance=False)
    base.update(fields)
    return base


def declared(states=None, **options):
    """Node n1's declaration of states, with the task's provision options."""
    return Declaration('n1', states=states, options=Options(**options))
